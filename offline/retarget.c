/* Retargeting a clip onto another skeleton (see ossa/offline/retarget.h). */
#include "ossa/offline/retarget.h"

#include <string.h>

#include "internal.h"

static ossa_quat conjugate(ossa_quat q) { return (ossa_quat){-q.x, -q.y, -q.z, q.w}; }

static ossa_quat qmul(ossa_quat a, ossa_quat b) { return ossa_quat_normalize(ossa_quat_mul(a, b)); }

static int find(const ossa_raw_skeleton *s, const char *name)
{
    for (size_t j = 0; name && j < s->joint_count; ++j)
        if (s->joints[j].name && !strcmp(s->joints[j].name, name)) return (int)j;
    return -1;
}

/* Model-space rotations of `local` (depth-first parents). */
static void model_rotations(const ossa_raw_skeleton *s, const ossa_transform *local, ossa_quat *model)
{
    for (size_t j = 0; j < s->joint_count; ++j) {
        const int p = s->joints[j].parent;
        const ossa_quat q = ossa_quat_normalize(local[j].rotation);
        model[j] = p < 0 ? q : qmul(model[p], q);
    }
}

/* Model-space positions of `local` (scales included). */
static void model_positions(const ossa_raw_skeleton *s, const ossa_transform *local, ossa_float4x4 *scratch,
                            ossa_float3 *out)
{
    for (size_t j = 0; j < s->joint_count; ++j) {
        const ossa_float4x4 m = ossa_float4x4_from_transform(&local[j]);
        const int p = s->joints[j].parent;
        scratch[j] = p < 0 ? m : ossa_float4x4_mul(&scratch[p], &m);
        out[j] = (ossa_float3){scratch[j].cols[3][0], scratch[j].cols[3][1], scratch[j].cols[3][2]};
    }
}

/* The root's rest height above the skeleton's lowest joint (model +Y). */
static float hip_height(const ossa_raw_skeleton *s, size_t root, const ossa_float3 *rest_pos)
{
    float lowest = rest_pos[root].y;
    for (size_t j = 0; j < s->joint_count; ++j) lowest = rest_pos[j].y < lowest ? rest_pos[j].y : lowest;
    return rest_pos[root].y - lowest;
}

static ossa_result check_skeleton(const ossa_raw_skeleton *s, const char *which, ossa_diag *diag)
{
    const ossa_result r = ossa_raw_skeleton_validate(s, diag);
    if (r != OSSA_OK) return r;
    if (!ossa_raw_skeleton_is_depth_first(s))
        return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON,
                          "the %s skeleton is not in depth-first order (sort it first)", which);
    if (!s->joint_count) return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON, "the %s skeleton has no joint", which);
    return OSSA_OK;
}

ossa_result ossa_retarget(const ossa_raw_animation *source, const ossa_raw_skeleton *source_skeleton,
                          const ossa_retarget_desc *desc, ossa_raw_animation *out, ossa_diag *diag)
{
    if (out) ossa_raw_animation_destroy(out);
    if (!source || !source_skeleton || !desc || !desc->target || !out || (desc->map_count && !desc->map))
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT,
                          "expected a clip, its skeleton, a target skeleton and an output");
    const ossa_raw_skeleton *src = source_skeleton, *dst = desc->target;
    ossa_result r;
    if ((r = check_skeleton(src, "source", diag)) != OSSA_OK || (r = check_skeleton(dst, "target", diag)) != OSSA_OK ||
        (r = ossa_raw_animation_validate(source, diag)) != OSSA_OK)
        return r;
    if (source->track_count != src->joint_count)
        return ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH, "the clip has %zu tracks for %zu source joints",
                          source->track_count, src->joint_count);
    const size_t S = src->joint_count, T = dst->joint_count;
    const ossa_allocator *a = desc->allocator;
    int *bind = ossa__calloc(a, T, sizeof *bind);
    ossa_transform *src_local = ossa__calloc(a, S, sizeof *src_local), *dst_rest = ossa__calloc(a, T, sizeof *dst_rest);
    ossa_quat *src_rest_rot = ossa__calloc(a, S, sizeof(ossa_quat)), *src_rot = ossa__calloc(a, S, sizeof(ossa_quat));
    ossa_quat *dst_rest_rot = ossa__calloc(a, T, sizeof(ossa_quat)), *dst_rot = ossa__calloc(a, T, sizeof(ossa_quat));
    ossa_float3 *src_pos = ossa__calloc(a, S, sizeof(ossa_float3)),
                *src_rest_pos = ossa__calloc(a, S, sizeof(ossa_float3));
    ossa_float3 *dst_rest_pos = ossa__calloc(a, T, sizeof(ossa_float3));
    ossa_float4x4 *scratch = ossa__calloc(a, S > T ? S : T, sizeof(ossa_float4x4));
    size_t time_count = 0;
    float *times = ossa__source_key_times(source, a, &time_count);
    if (!bind || !src_local || !dst_rest || !src_rest_rot || !src_rot || !dst_rest_rot || !dst_rot || !src_pos ||
        !src_rest_pos || !dst_rest_pos || !scratch || !times) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory retargeting");
        goto done;
    }
    /* Bindings: the same name, then the map. */
    size_t bound = 0;
    for (size_t j = 0; j < T; ++j) bind[j] = find(src, dst->joints[j].name);
    for (size_t i = 0; i < desc->map_count; ++i) {
        const int t = find(dst, desc->map[i].target), s = find(src, desc->map[i].source);
        if (t < 0 || s < 0) {
            r = ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "joint map entry %zu: %s joint \"%s\" does not exist", i,
                           t < 0 ? "target" : "source",
                           t < 0 ? (desc->map[i].target ? desc->map[i].target : "(null)")
                                 : (desc->map[i].source ? desc->map[i].source : "(null)"));
            goto done;
        }
        bind[t] = s;
    }
    for (size_t j = 0; j < T; ++j) bound += bind[j] >= 0;
    if (desc->bound_count) *desc->bound_count = bound;
    const size_t root = 0; /* depth-first: joint 0 is the first root */
    if (bind[root] < 0) {
        r = ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH,
                       "the target root \"%s\" is bound to no source joint (same name or --joint-map)",
                       dst->joints[root].name ? dst->joints[root].name : "");
        goto done;
    }
    /* Rest poses in model space, and the hip-height ratio that scales the root's travel. */
    for (size_t j = 0; j < S; ++j) src_local[j] = src->joints[j].rest;
    for (size_t j = 0; j < T; ++j) dst_rest[j] = dst->joints[j].rest;
    model_rotations(src, src_local, src_rest_rot);
    model_rotations(dst, dst_rest, dst_rest_rot);
    model_positions(src, src_local, scratch, src_rest_pos);
    model_positions(dst, dst_rest, scratch, dst_rest_pos);
    const size_t src_root = (size_t)bind[root];
    const float hs = hip_height(src, src_root, src_rest_pos), ht = hip_height(dst, root, dst_rest_pos);
    const float ratio = hs > 0.f && ht > 0.f ? ht / hs : 1.f;
    /* The output clip. */
    if ((r = ossa_raw_animation_create(out, T, a)) != OSSA_OK) {
        ossa__fail(diag, r, "out of memory for the retargeted clip");
        goto done;
    }
    out->duration = source->duration;
    if (source->name && (r = ossa_raw_animation_set_name(out, source->name)) != OSSA_OK) goto oom;
    for (size_t j = 0; j < T; ++j) {
        if ((r = ossa_raw_joint_track_resize(out, j, j == root ? time_count : 1, time_count, 1)) != OSSA_OK) goto oom;
        out->tracks[j].translations[0] = (ossa_raw_float3_key){0.f, dst_rest[j].translation};
        out->tracks[j].scales[0] = (ossa_raw_float3_key){0.f, dst_rest[j].scale};
    }
    for (size_t k = 0; k < time_count; ++k) {
        ossa_raw_animation_sample(source, times[k], src_local, S);
        model_rotations(src, src_local, src_rot);
        model_positions(src, src_local, scratch, src_pos);
        for (size_t j = 0; j < T; ++j) {
            const int p = dst->joints[j].parent;
            if (bind[j] >= 0) {
                const size_t s = (size_t)bind[j];
                /* The source joint's turn from its rest, in model space, on the target's rest. */
                dst_rot[j] = qmul(qmul(src_rot[s], conjugate(src_rest_rot[s])), dst_rest_rot[j]);
            } else {
                dst_rot[j] = p < 0 ? ossa_quat_normalize(dst_rest[j].rotation)
                                   : qmul(dst_rot[p], ossa_quat_normalize(dst_rest[j].rotation));
            }
            ossa_quat local = p < 0 ? dst_rot[j] : qmul(conjugate(dst_rot[p]), dst_rot[j]);
            if (k) { /* one hemisphere from key to key */
                const ossa_quat prev = out->tracks[j].rotations[k - 1].value;
                if (prev.x * local.x + prev.y * local.y + prev.z * local.z + prev.w * local.w < 0.f)
                    local = (ossa_quat){-local.x, -local.y, -local.z, -local.w};
            }
            out->tracks[j].rotations[k] = (ossa_raw_quat_key){times[k], local};
        }
        const ossa_float3 travel = {src_pos[src_root].x - src_rest_pos[src_root].x,
                                    src_pos[src_root].y - src_rest_pos[src_root].y,
                                    src_pos[src_root].z - src_rest_pos[src_root].z};
        const ossa_float3 base = dst_rest[root].translation;
        out->tracks[root].translations[k] = (ossa_raw_float3_key){
            times[k], {base.x + ratio * travel.x, base.y + ratio * travel.y, base.z + ratio * travel.z}};
    }
    r = ossa_raw_animation_validate(out, diag);
    goto done;
oom:
    ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for the retargeted clip");
done:
    ossa_free(a, bind), ossa_free(a, src_local), ossa_free(a, dst_rest), ossa_free(a, src_rest_rot);
    ossa_free(a, src_rot), ossa_free(a, dst_rest_rot), ossa_free(a, dst_rot), ossa_free(a, src_pos);
    ossa_free(a, src_rest_pos), ossa_free(a, dst_rest_pos), ossa_free(a, scratch), ossa_free(a, times);
    if (r != OSSA_OK) ossa_raw_animation_destroy(out);
    return r;
}
