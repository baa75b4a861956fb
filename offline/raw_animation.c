#include "ossa/offline/raw_animation.h"

#include <math.h>
#include <string.h>

#include "internal.h"
#include "matrix.h" /* ossa__quat_normalize */
#include "raw_sampling.h"

ossa_result ossa_raw_animation_create(ossa_raw_animation *animation, size_t track_count,
                                      const ossa_allocator *allocator)
{
    if (!animation) return OSSA_ERROR_NULL_ARGUMENT;
    memset(animation, 0, sizeof *animation);
    if (allocator) animation->allocator = *allocator;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    animation->duration = 1.f;
    animation->name = ossa_strdup(allocator, "");
    if (!animation->name) return OSSA_ERROR_OUT_OF_MEMORY;
    if (track_count) {
        animation->tracks = ossa__calloc(allocator, track_count, sizeof *animation->tracks);
        if (!animation->tracks) {
            ossa_raw_animation_destroy(animation);
            return OSSA_ERROR_OUT_OF_MEMORY;
        }
    }
    animation->track_count = track_count;
    return OSSA_OK;
}

static void free_track(const ossa_allocator *a, ossa_raw_joint_track *t)
{
    ossa_free(a, t->translations);
    ossa_free(a, t->rotations);
    ossa_free(a, t->scales);
    memset(t, 0, sizeof *t);
}

ossa_result ossa_raw_joint_track_resize(ossa_raw_animation *animation, size_t track, size_t translation_count,
                                        size_t rotation_count, size_t scale_count)
{
    if (!animation) return OSSA_ERROR_NULL_ARGUMENT;
    if (track >= animation->track_count) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_allocator *a = &animation->allocator;
    ossa_raw_joint_track t = {0};
    t.translations = translation_count ? ossa__calloc(a, translation_count, sizeof *t.translations) : NULL;
    t.rotations = rotation_count ? ossa__calloc(a, rotation_count, sizeof *t.rotations) : NULL;
    t.scales = scale_count ? ossa__calloc(a, scale_count, sizeof *t.scales) : NULL;
    if ((translation_count && !t.translations) || (rotation_count && !t.rotations) || (scale_count && !t.scales)) {
        free_track(a, &t);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    t.translation_count = translation_count;
    t.rotation_count = rotation_count;
    t.scale_count = scale_count;
    free_track(a, &animation->tracks[track]);
    animation->tracks[track] = t;
    return OSSA_OK;
}

ossa_result ossa_raw_animation_set_name(ossa_raw_animation *animation, const char *name)
{
    if (!animation || !name) return OSSA_ERROR_NULL_ARGUMENT;
    char *copy = ossa_strdup(&animation->allocator, name);
    if (!copy) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_free(&animation->allocator, animation->name);
    animation->name = copy;
    return OSSA_OK;
}

void ossa_raw_animation_destroy(ossa_raw_animation *animation)
{
    if (!animation) return;
    ossa_allocator a = animation->allocator;
    for (size_t i = 0; i < animation->track_count && animation->tracks; ++i) free_track(&a, &animation->tracks[i]);
    ossa_free(&a, animation->tracks);
    ossa_free(&a, animation->name);
    memset(animation, 0, sizeof *animation);
    animation->allocator = a;
}

/* Key arrays are checked through one accessor so the three channels share the loop. */
typedef struct channel_view {
    const char *label;
    size_t count;
    size_t stride;
    const unsigned char *keys; /* first member of every key is `float time` */
    int width;                 /* 3 or 4 floats after time */
} channel_view;

/* A value is finite when subtracting it from itself gives 0 (NaN and infinities give NaN). */
static inline bool finite_f(float x) { return x - x == 0.f; }

/* Whether every key passes check_channel's tests: one pass without branches per test (the
 * duration is finite, so the range test also rejects a time that is not finite). */
static bool channel_ok(const channel_view *c, float duration)
{
    float previous = -INFINITY;
    bool ok = true;
    if (c->width == 3) {
        const ossa_raw_float3_key *k = (const ossa_raw_float3_key *)(const void *)c->keys;
        for (size_t i = 0; i < c->count; ++i) {
            const float t = k[i].time;
            const ossa_float3 v = k[i].value;
            ok &= (t >= 0.f) & (t <= duration) & (t > previous) & finite_f(v.x) & finite_f(v.y) & finite_f(v.z);
            previous = t;
        }
    } else {
        const ossa_raw_quat_key *k = (const ossa_raw_quat_key *)(const void *)c->keys;
        for (size_t i = 0; i < c->count; ++i) {
            const float t = k[i].time;
            const ossa_quat v = k[i].value;
            float len2 = 0.f; /* check_channel's sum, in its order */
            len2 += v.x * v.x, len2 += v.y * v.y, len2 += v.z * v.z, len2 += v.w * v.w;
            ok &= (t >= 0.f) & (t <= duration) & (t > previous) & finite_f(v.x) & finite_f(v.y) & finite_f(v.z) &
                  finite_f(v.w) & (len2 > 1e-12f);
            previous = t;
        }
    }
    return ok;
}

static ossa_result check_channel(const channel_view *c, size_t track, float duration, ossa_diag *diag)
{
    if (c->count && !c->keys)
        return ossa__fail_at(diag, OSSA_ERROR_INVALID_ANIMATION, track, "%s keys of track %zu are NULL", c->label,
                             track);
    /* Valid keys (nearly always) in one quick pass; the loop below says where the first bad
     * one is. */
    if (channel_ok(c, duration)) return OSSA_OK;
    float previous = -INFINITY;
    for (size_t k = 0; k < c->count; ++k) {
        float v[5];
        memcpy(v, c->keys + k * c->stride, sizeof(float) * (size_t)(1 + c->width));
        const float time = v[0];
        if (!isfinite(time) || time < 0.f || time > duration)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, track,
                                 "%s key %zu of track %zu: time %g is outside [0, duration %g]", c->label, k, track,
                                 (double)time, (double)duration);
        if (!(time > previous))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, track,
                                 "%s key %zu of track %zu: time %g is not after previous key's %g", c->label, k, track,
                                 (double)time, (double)previous);
        previous = time;
        float len2 = 0.f;
        for (int i = 1; i <= c->width; ++i) {
            if (!isfinite(v[i]))
                return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, track,
                                     "%s key %zu of track %zu: value is not finite", c->label, k, track);
            len2 += v[i] * v[i];
        }
        if (c->width == 4 && !(len2 > 1e-12f))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, track,
                                 "%s key %zu of track %zu: quaternion has zero length", c->label, k, track);
    }
    return OSSA_OK;
}

ossa_result ossa_raw_animation_validate(const ossa_raw_animation *animation, ossa_diag *diag)
{
    if (!animation) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no animation");
    if (!isfinite(animation->duration) || !(animation->duration > 0.f))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "duration must be a finite number of seconds above 0, found %g", (double)animation->duration);
    if (animation->duration > OSSA_RAW_ANIMATION_MAX_DURATION)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "duration %g s is longer than a day (%g s): is the source's frame time right?",
                          (double)animation->duration, (double)OSSA_RAW_ANIMATION_MAX_DURATION);
    if (animation->track_count > OSSA_MAX_JOINTS)
        return ossa__fail(diag, OSSA_ERROR_TOO_MANY_JOINTS, "animation has %zu tracks, at most %d are supported",
                          animation->track_count, OSSA_MAX_JOINTS);
    if (animation->track_count && !animation->tracks)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION, "track array is NULL");
    for (size_t i = 0; i < animation->track_count; ++i) {
        const ossa_raw_joint_track *t = &animation->tracks[i];
        const channel_view views[3] = {
            {"translation", t->translation_count, sizeof(ossa_raw_float3_key), (const void *)t->translations, 3},
            {"rotation", t->rotation_count, sizeof(ossa_raw_quat_key), (const void *)t->rotations, 4},
            {"scale", t->scale_count, sizeof(ossa_raw_float3_key), (const void *)t->scales, 3},
        };
        for (int c = 0; c < 3; ++c) {
            ossa_result r = check_channel(&views[c], i, animation->duration, diag);
            if (r != OSSA_OK) return r;
        }
    }
    return OSSA_OK;
}

static ossa_quat sample_quat(const ossa_raw_quat_key *keys, size_t count, float t, size_t *cursor)
{
    if (count == 0) return (ossa_quat){0.f, 0.f, 0.f, 1.f};
    if (t <= keys[0].time) return ossa__quat_normalize(keys[0].value);
    if (t >= keys[count - 1].time) return ossa__quat_normalize(keys[count - 1].value);
    size_t k;
    LAST_KEY_FROM(keys, count, t, cursor, k);
    const ossa_quat a = ossa__quat_normalize(keys[k].value);
    ossa_quat b = ossa__quat_normalize(keys[k + 1].value);
    if (a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0.f) b = (ossa_quat){-b.x, -b.y, -b.z, -b.w};
    const float alpha = (t - keys[k].time) / (keys[k + 1].time - keys[k].time);
    return ossa__quat_normalize((ossa_quat){a.x + (b.x - a.x) * alpha, a.y + (b.y - a.y) * alpha,
                                           a.z + (b.z - a.z) * alpha, a.w + (b.w - a.w) * alpha});
}

ossa_result ossa_raw_animation_sample(const ossa_raw_animation *animation, float time, ossa_transform *output,
                                      size_t output_count)
{
    if (!animation || !output) return OSSA_ERROR_NULL_ARGUMENT;
    if (output_count < animation->track_count) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    ossa__raw_animation_sample_pass(animation, time, output, NULL);
    return OSSA_OK;
}

void ossa__raw_animation_sample_pass(const ossa_raw_animation *animation, float time, ossa_transform *output,
                                     size_t *cursors)
{
    const float t = time < 0.f ? 0.f : (time > animation->duration ? animation->duration : time);
    for (size_t i = 0; i < animation->track_count; ++i) {
        const ossa_raw_joint_track *tr = &animation->tracks[i];
        size_t *c = cursors ? cursors + 3 * i : NULL;
        output[i].translation =
            ossa__sample_float3(tr->translations, tr->translation_count, t, (ossa_float3){0.f, 0.f, 0.f}, c);
        output[i].rotation = sample_quat(tr->rotations, tr->rotation_count, t, c ? c + 1 : NULL);
        output[i].scale =
            ossa__sample_float3(tr->scales, tr->scale_count, t, (ossa_float3){1.f, 1.f, 1.f}, c ? c + 2 : NULL);
    }
}

ossa_result ossa_raw_animation_permute_tracks(ossa_raw_animation *animation, const size_t *new_index)
{
    if (!animation || (!new_index && animation->track_count)) return OSSA_ERROR_NULL_ARGUMENT;
    size_t n = animation->track_count;
    if (n == 0) return OSSA_OK;
    ossa_raw_joint_track *tracks = ossa__calloc(&animation->allocator, n, sizeof *tracks);
    bool *seen = ossa__calloc(&animation->allocator, n, sizeof *seen);
    if (!tracks || !seen) {
        ossa_free(&animation->allocator, tracks);
        ossa_free(&animation->allocator, seen);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < n; ++i) {
        if (new_index[i] >= n || seen[new_index[i]]) {
            ossa_free(&animation->allocator, tracks);
            ossa_free(&animation->allocator, seen);
            return OSSA_ERROR_INVALID_ARGUMENT;
        }
        seen[new_index[i]] = true;
        tracks[new_index[i]] = animation->tracks[i];
    }
    ossa_free(&animation->allocator, animation->tracks);
    ossa_free(&animation->allocator, seen);
    animation->tracks = tracks;
    return OSSA_OK;
}

size_t ossa_raw_animation_size(const ossa_raw_animation *animation)
{
    if (!animation) return 0;
    size_t bytes = sizeof *animation + animation->track_count * sizeof(ossa_raw_joint_track);
    for (size_t i = 0; i < animation->track_count; ++i) {
        const ossa_raw_joint_track *t = &animation->tracks[i];
        bytes += t->translation_count * sizeof(ossa_raw_float3_key) + t->rotation_count * sizeof(ossa_raw_quat_key) +
                 t->scale_count * sizeof(ossa_raw_float3_key);
    }
    return bytes;
}
