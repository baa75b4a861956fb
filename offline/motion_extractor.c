/* Root motion extraction (see ossa/offline/motion_extractor.h). */
#include "ossa/offline/motion_extractor.h"

#include <math.h>
#include <string.h>

#include "internal.h"

/* The rotation about +Y of q (the twist of its swing-twist split), normalised; identity when
 * q is a half turn about an axis in the XZ plane (no defined twist). */
static ossa_quat twist_about_y(ossa_quat q)
{
    const float n = sqrtf(q.y * q.y + q.w * q.w);
    if (!(n > 1e-12f)) return (ossa_quat){0.f, 0.f, 0.f, 1.f};
    return (ossa_quat){0.f, q.y / n, 0.f, q.w / n};
}

static ossa_quat conjugate(ossa_quat q) { return (ossa_quat){-q.x, -q.y, -q.z, q.w}; }

/* Every distinct translation and rotation key time of the track, with 0 and the duration,
 * ascending; returns the count (times must hold tc + rc + 2). */
static size_t root_times(const ossa_raw_joint_track *t, float duration, float *times)
{
    size_t n = 0, i = 0, j = 0;
    times[n++] = 0.f;
    while (i < t->translation_count || j < t->rotation_count) {
        const bool take_t =
            j >= t->rotation_count || (i < t->translation_count && t->translations[i].time <= t->rotations[j].time);
        const float v = take_t ? t->translations[i++].time : t->rotations[j++].time;
        if (v > times[n - 1] && v < duration) times[n++] = v;
    }
    if (duration > times[n - 1]) times[n++] = duration;
    return n;
}

ossa_result ossa_motion_extract(ossa_raw_animation *animation, const ossa_raw_skeleton *skeleton,
                                const ossa_motion_extract_desc *desc, ossa_raw_track *position,
                                ossa_raw_track *rotation, ossa_diag *diag)
{
    if (!animation || !skeleton || !desc || !position || !rotation)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT,
                          "expected an animation, a skeleton, a "
                          "desc and two output tracks");
    if (position == rotation)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "position and rotation are one track");
    const ossa_allocator out_alloc = desc->allocator ? *desc->allocator : (ossa_allocator){0};
    ossa_raw_track_destroy(position);
    ossa_raw_track_destroy(rotation);
    ossa_result r = ossa_raw_animation_validate(animation, diag);
    if (r != OSSA_OK) return r;
    if (animation->track_count != skeleton->joint_count)
        return ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH, "%zu tracks for %zu joints", animation->track_count,
                          skeleton->joint_count);
    const size_t j = desc->joint;
    if (j >= skeleton->joint_count || skeleton->joints[j].parent >= 0)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "joint %zu is not a root of the %zu-joint skeleton; the motion joint must be one", j,
                          skeleton->joint_count);
    if (!desc->position[0] && !desc->position[1] && !desc->position[2] && !desc->yaw)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "nothing to extract: no translation component and no yaw");
    const ossa_raw_joint_track *root = &animation->tracks[j];
    const ossa_allocator *a = &animation->allocator;
    const size_t cap = root->translation_count + root->rotation_count + 2;
    float *times = ossa__calloc(a, cap, sizeof *times);
    ossa_transform *pose = ossa__calloc(a, animation->track_count, sizeof *pose);
    ossa_raw_float3_key *kept_t = ossa__calloc(a, cap, sizeof *kept_t);
    ossa_raw_quat_key *kept_r = ossa__calloc(a, cap, sizeof *kept_r);
    ossa_raw_float3_key *scales = ossa__calloc(a, root->scale_count + 1, sizeof *scales);
    if (!times || !pose || !kept_t || !kept_r || !scales) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory extracting root motion");
        goto done;
    }
    const size_t n = root_times(root, animation->duration, times);
    if ((r = ossa_raw_track_create(position, OSSA_TRACK_FLOAT3, n, &out_alloc)) != OSSA_OK ||
        (r = ossa_raw_track_create(rotation, OSSA_TRACK_QUAT, n, &out_alloc)) != OSSA_OK ||
        (r = ossa_raw_track_set_name(position, "root_motion.position")) != OSSA_OK ||
        (r = ossa_raw_track_set_name(rotation, "root_motion.rotation")) != OSSA_OK) {
        ossa__fail(diag, r, "out of memory for the motion tracks");
        goto done;
    }
    position->duration = rotation->duration = animation->duration;
    ossa_float3 origin = {0.f, 0.f, 0.f};
    ossa_quat twist0 = {0.f, 0.f, 0.f, 1.f};
    for (size_t k = 0; k < n; ++k) {
        ossa_raw_animation_sample(animation, times[k], pose, animation->track_count);
        const ossa_transform t = pose[j];
        if (k == 0) origin = t.translation, twist0 = twist_about_y(t.rotation);
        /* M(t): the chosen components relative to the first time, and the yaw since then. */
        const ossa_float3 moved = {t.translation.x - origin.x, t.translation.y - origin.y, t.translation.z - origin.z};
        const ossa_float3 m = {desc->position[0] ? moved.x : 0.f, desc->position[1] ? moved.y : 0.f,
                               desc->position[2] ? moved.z : 0.f};
        const ossa_quat q = desc->yaw ? ossa_quat_normalize(ossa_quat_mul(twist_about_y(t.rotation), conjugate(twist0)))
                                      : (ossa_quat){0.f, 0.f, 0.f, 1.f};
        const float ratio = k + 1 == n ? 1.f : times[k] / animation->duration;
        position->keys[k] = (ossa_raw_track_key){ratio, OSSA_INTERP_LINEAR, {m.x, m.y, m.z, 0.f}};
        rotation->keys[k] = (ossa_raw_track_key){ratio, OSSA_INTERP_LINEAR, {q.x, q.y, q.z, q.w}};
        /* What is left: M(t)^-1 * root(t). */
        const ossa_quat inv = conjugate(q);
        kept_t[k] = (ossa_raw_float3_key){
            times[k],
            ossa_quat_rotate(inv, (ossa_float3){t.translation.x - m.x, t.translation.y - m.y, t.translation.z - m.z})};
        kept_r[k] = (ossa_raw_quat_key){times[k], ossa_quat_normalize(ossa_quat_mul(inv, t.rotation))};
    }
    if (desc->bake) {
        const size_t sc = root->scale_count;
        if (sc) memcpy(scales, root->scales, sc * sizeof *scales);
        if ((r = ossa_raw_joint_track_resize(animation, j, n, n, sc)) != OSSA_OK) {
            ossa__fail(diag, r, "out of memory baking the root");
            goto done;
        }
        ossa_raw_joint_track *baked = &animation->tracks[j];
        memcpy(baked->translations, kept_t, n * sizeof *kept_t);
        memcpy(baked->rotations, kept_r, n * sizeof *kept_r);
        if (sc) memcpy(baked->scales, scales, sc * sizeof *scales);
    }
done:
    ossa_free(a, times);
    ossa_free(a, pose);
    ossa_free(a, kept_t);
    ossa_free(a, kept_r);
    ossa_free(a, scales);
    if (r != OSSA_OK) {
        ossa_raw_track_destroy(position);
        ossa_raw_track_destroy(rotation);
    }
    return r;
}
