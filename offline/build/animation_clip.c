/* Animation builder: a raw clip sampled at its time points (ossa__clip). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation_codec.h"
#include "animation_format.h"
#include "internal.h"
#include "matrix.h"
#include "ossa/animation.h"

/* Two key times closer than this (as ratios of the duration) are one time point. */
#define SAME_RATIO 1e-7f

static bool push_ratio(const ossa_allocator *al, float **ratios, size_t *count, size_t *capacity, float r)
{
    if (!ossa__grow(al, (void **)ratios, capacity, *count + 1, sizeof **ratios)) return false;
    (*ratios)[(*count)++] = r;
    return true;
}

/* The union of every key time as ratios, plus 0 and 1. */
static ossa_result collect_ratios(ossa__clip *clip, const ossa_raw_animation *raw, ossa_diag *diag)
{
    float *ratios = NULL;
    size_t count = 0, capacity = 0;
    bool ok = push_ratio(clip->allocator, &ratios, &count, &capacity, 0.f) &&
              push_ratio(clip->allocator, &ratios, &count, &capacity, 1.f);
    ossa__key_times_run previous[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    for (size_t j = 0; ok && j < raw->track_count; ++j) {
        const ossa_raw_joint_track *t = &raw->tracks[j];
        if (!ossa__collected_key_times(previous, t->translations, t->translation_count, sizeof *t->translations))
            for (size_t k = 0; ok && k < t->translation_count; ++k)
                ok = push_ratio(clip->allocator, &ratios, &count, &capacity, t->translations[k].time / raw->duration);
        if (!ossa__collected_key_times(previous, t->rotations, t->rotation_count, sizeof *t->rotations))
            for (size_t k = 0; ok && k < t->rotation_count; ++k)
                ok = push_ratio(clip->allocator, &ratios, &count, &capacity, t->rotations[k].time / raw->duration);
        if (!ossa__collected_key_times(previous, t->scales, t->scale_count, sizeof *t->scales))
            for (size_t k = 0; ok && k < t->scale_count; ++k)
                ok = push_ratio(clip->allocator, &ratios, &count, &capacity, t->scales[k].time / raw->duration);
    }
    if (!ok) {
        ossa_free(clip->allocator, ratios);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory collecting key times");
    }
    for (size_t i = 0; i < count; ++i) ratios[i] = ratios[i] < 0.f ? 0.f : (ratios[i] > 1.f ? 1.f : ratios[i]);
    qsort(ratios, count, sizeof *ratios, ossa__compare_floats);
    size_t unique = 1;
    for (size_t i = 1; i < count; ++i)
        if (ratios[i] - ratios[unique - 1] > SAME_RATIO) ratios[unique++] = ratios[i];
    ratios[unique - 1] = 1.f; /* the last one merged into 1 */
    /* Every key of every channel was collected: keep only the distinct ones for the build (a
     * long BVH has 2 keys per joint and frame, the table would hold 76 times its time points). */
    float *kept = ossa__calloc(clip->allocator, unique, sizeof *kept);
    if (!kept) {
        ossa_free(clip->allocator, ratios);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory collecting key times");
    }
    memcpy(kept, ratios, unique * sizeof *kept);
    ossa_free(clip->allocator, ratios);
    ratios = kept;
    clip->ratios = ratios;
    clip->frames = unique;
    /* Uniform when every time point is within 1 % of a frame of f / (frames - 1). */
    const float last = (float)(unique - 1);
    clip->uniform = true;
    for (size_t f = 0; f < unique && clip->uniform; ++f) clip->uniform = fabsf(ratios[f] * last - (float)f) <= .01f;
    if (clip->uniform)
        for (size_t f = 0; f < unique; ++f) ratios[f] = (float)f / last;
    return OSSA_OK;
}

/* Time point of key ratio r (see collect_ratios). */
static size_t frame_of_ratio(const ossa__clip *clip, float r)
{
    r = r < 0.f ? 0.f : (r > 1.f ? 1.f : r);
    if (clip->uniform) return (size_t)lrintf(r * (float)(clip->frames - 1));
    size_t lo = 0, hi = clip->frames;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (clip->ratios[mid] <= r + SAME_RATIO)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

static void mark_own(ossa__clip *clip, size_t s, const void *keys, size_t count, size_t stride, float duration)
{
    if (clip->held[s]) return;
    uint8_t *own = clip->own + clip->row[s];
    own[0] = own[clip->frames - 1] = 1;
    for (size_t k = 0; k < count; ++k) {
        float time;
        memcpy(&time, (const unsigned char *)keys + k * stride, sizeof time);
        own[frame_of_ratio(clip, time / duration)] = 1;
    }
}

/* Whether a translation or scale channel of these keys is held (see ossa__clip): none, or all
 * equal, so that every sample is the first key or a + (a - a) x alpha, which == a. */
static bool held_keys(const ossa_raw_float3_key *keys, size_t count)
{
    for (size_t k = 1; k < count; ++k)
        if (keys[k].value.x != keys[0].value.x || keys[k].value.y != keys[0].value.y ||
            keys[k].value.z != keys[0].value.z)
            return false;
    return true;
}

bool ossa__raw_channel_held(const ossa_raw_joint_track *t, int c)
{
    if (c == OSSA__CH_ROTATION && t->rotation_count == 1) {
        /* One key: every sample is that key normalised twice (by the source's sampling, then
         * by the clip's); held when that is the identity, which is always stored as the
         * default (a held sub-track must never be stored as keys). */
        const ossa_quat q = ossa__quat_normalize(ossa__quat_normalize(t->rotations[0].value));
        return q.x == 0.f && q.y == 0.f && q.z == 0.f && q.w == 1.f;
    }
    if (c == OSSA__CH_ROTATION) return t->rotation_count == 0;
    return c == OSSA__CH_TRANSLATION ? held_keys(t->translations, t->translation_count)
                                     : held_keys(t->scales, t->scale_count);
}

/* Where sub-track s's sample at time point f goes; NULL for a held one's later time points
 * (its one row keeps the value at time 0). */
static inline float *sample_at(ossa__clip *clip, size_t s, size_t f)
{
    if (clip->held[s]) return f ? NULL : clip->samples + clip->row[s] * 4;
    return clip->samples + (clip->row[s] + f) * 4;
}

/* Marks the held sub-tracks and places every sub-track's rows; false when out of memory or the
 * rows overflow. */
static bool place_rows(ossa__clip *clip, const ossa_raw_animation *raw)
{
    const size_t S = 3 * clip->joints;
    clip->held = ossa__calloc(clip->allocator, S + 1, 1);
    clip->row = ossa__calloc(clip->allocator, S + 1, sizeof *clip->row);
    if (!clip->held || !clip->row) return false;
    size_t rows = 0;
    for (size_t j = 0; j < clip->joints; ++j) {
        const ossa_raw_joint_track *t = &raw->tracks[j];
        for (int c = 0; c < 3; ++c) {
            clip->held[3 * j + (size_t)c] = ossa__raw_channel_held(t, c);
            clip->row[3 * j + (size_t)c] = rows;
            if (!ossa__add_size(rows, clip->held[3 * j + (size_t)c] ? 1 : clip->frames, &rows)) return false;
        }
    }
    clip->row[S] = rows;
    size_t floats;
    return ossa__mul_size(rows, 4, &floats) && ossa__mul_size(floats, sizeof(float), &floats);
}

ossa_result ossa__clip_init(ossa__clip *clip, const ossa_raw_animation *raw, const ossa_allocator *allocator,
                            ossa_diag *diag)
{
    memset(clip, 0, sizeof *clip);
    clip->allocator = allocator;
    clip->joints = raw->track_count;
    clip->duration = raw->duration;
    ossa_result r = collect_ratios(clip, raw, diag);
    if (r != OSSA_OK) return r;
    const bool placed = place_rows(clip, raw);
    const size_t rows = placed ? clip->row[3 * clip->joints] : 0;
    clip->samples = placed ? ossa__calloc(allocator, rows ? 4 * rows : 1, sizeof(float)) : NULL;
    ossa_transform *pose = ossa__calloc(allocator, clip->joints ? clip->joints : 1, sizeof *pose);
    size_t *cursors = ossa__calloc(allocator, 3 * clip->joints + 1, sizeof *cursors);
    clip->own = placed ? ossa__calloc(allocator, rows + 1, 1) : NULL;
    if (!clip->samples || !pose || !cursors || !clip->own) {
        ossa_free(allocator, pose), ossa_free(allocator, cursors);
        ossa__clip_destroy(clip);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu joints sampled at %zu time points",
                          raw->track_count, clip->frames);
    }
    const size_t F = clip->frames;
    for (size_t f = 0; f < F; ++f) {
        ossa__raw_animation_sample_pass(raw, clip->ratios[f] * raw->duration, pose, cursors);
        for (size_t j = 0; j < clip->joints; ++j) {
            float *t = sample_at(clip, 3 * j, f), *q = sample_at(clip, 3 * j + 1, f),
                  *s = sample_at(clip, 3 * j + 2, f);
            if (t) t[0] = pose[j].translation.x, t[1] = pose[j].translation.y, t[2] = pose[j].translation.z;
            if (s) s[0] = pose[j].scale.x, s[1] = pose[j].scale.y, s[2] = pose[j].scale.z;
            if (!q) continue;
            const ossa_quat n = ossa__quat_normalize(pose[j].rotation);
            q[0] = n.x, q[1] = n.y, q[2] = n.z, q[3] = n.w;
            if (f) {
                const float *p = q - 4;
                if (p[0] * q[0] + p[1] * q[1] + p[2] * q[2] + p[3] * q[3] < 0.f)
                    for (int c = 0; c < 4; ++c) q[c] = -q[c];
            }
        }
    }
    ossa_free(allocator, pose), ossa_free(allocator, cursors);
    for (size_t j = 0; j < clip->joints; ++j) {
        const ossa_raw_joint_track *t = &raw->tracks[j];
        mark_own(clip, 3 * j, t->translations, t->translation_count, sizeof *t->translations, raw->duration);
        mark_own(clip, 3 * j + 1, t->rotations, t->rotation_count, sizeof *t->rotations, raw->duration);
        mark_own(clip, 3 * j + 2, t->scales, t->scale_count, sizeof *t->scales, raw->duration);
    }
    return OSSA_OK;
}

ossa_result ossa__clip_set_rest(ossa__clip *clip, const ossa_raw_skeleton *skeleton, ossa_diag *diag)
{
    clip->rest = ossa__calloc(clip->allocator, 3 * clip->joints * 4 + 1, sizeof(float));
    if (!clip->rest) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t j = 0; j < clip->joints; ++j) {
        const ossa_transform *t = &skeleton->joints[j].rest;
        const ossa_quat q = ossa__quat_normalize(t->rotation);
        const float v[12] = {t->translation.x, t->translation.y, t->translation.z, 0.f, q.x, q.y, q.z, q.w,
                             t->scale.x,       t->scale.y,       t->scale.z,       0.f};
        memcpy(clip->rest + 12 * j, v, sizeof v);
    }
    return OSSA_OK;
}

void ossa__clip_destroy(ossa__clip *clip)
{
    if (!clip) return;
    ossa_free(clip->allocator, clip->rest);
    ossa_free(clip->allocator, clip->ratios);
    ossa_free(clip->allocator, clip->samples);
    ossa_free(clip->allocator, clip->row);
    ossa_free(clip->allocator, clip->held);
    ossa_free(clip->allocator, clip->own);
    ossa_free(clip->allocator, clip->facts);
    memset(clip, 0, sizeof *clip);
}

bool ossa__subtracks_alloc(const ossa__clip *clip, ossa__subtrack *subtracks, size_t count)
{
    memset(subtracks, 0, count * sizeof *subtracks);
    for (size_t i = 0; i < count; ++i) {
        subtracks[i].keys = ossa__calloc(clip->allocator, clip->frames, 1);
        subtracks[i].q = ossa__calloc(clip->allocator, clip->frames * 4, sizeof(uint32_t));
        if (!subtracks[i].keys || !subtracks[i].q) return false;
    }
    return true;
}

/* Whether no encoding stores sub-track s as keys (see ossa__subtrack_encode): an exactly
 * default sub-track is always stored as the default, and an exactly constant translation or
 * scale, which a constant holds exactly, always as a default, rest-pose or constant one (a
 * rigid body's scale: a third of a physics bake's sub-tracks). */
static bool never_keyed(const ossa__clip *clip, size_t s)
{
    static const float defaults[3][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f, 0.f}};
    const int channel = (int)(s % 3), width = channel == OSSA__CH_ROTATION ? 4 : 3;
    const float *v = ossa__clip_samples(clip, s);
    bool exact_default = true, exact_constant = channel != OSSA__CH_ROTATION;
    for (size_t f = 0, rows = ossa__clip_rows(clip, s); f < rows && (exact_default || exact_constant); ++f)
        for (int c = 0; c < width; ++c) {
            exact_default = exact_default && v[4 * f + (size_t)c] == defaults[channel][c];
            exact_constant = exact_constant && v[4 * f + (size_t)c] == v[c];
        }
    return exact_default || exact_constant;
}

bool ossa__clip_subtracks_alloc(const ossa__clip *clip, ossa__subtrack *subtracks)
{
    const size_t count = 3 * clip->joints;
    memset(subtracks, 0, count * sizeof *subtracks);
    for (size_t i = 0; i < count; ++i) {
        if (never_keyed(clip, i)) continue;
        subtracks[i].keys = ossa__calloc(clip->allocator, clip->frames, 1);
        subtracks[i].q = ossa__calloc(clip->allocator, clip->frames * 4, sizeof(uint32_t));
        if (!subtracks[i].keys || !subtracks[i].q) return false;
    }
    return true;
}

void ossa__subtracks_free(const ossa__clip *clip, ossa__subtrack *subtracks, size_t count)
{
    for (size_t i = 0; subtracks && i < count; ++i) {
        ossa_free(clip->allocator, subtracks[i].keys);
        ossa_free(clip->allocator, subtracks[i].q);
    }
}

bool ossa__encode_scratch_alloc(const ossa__clip *clip, ossa__encode_scratch *scratch, size_t count)
{
    memset(scratch, 0, count * sizeof *scratch);
    for (size_t i = 0; i < count; ++i) {
        scratch[i].values = ossa__calloc(clip->allocator, clip->frames * 4, sizeof(float));
        scratch[i].refit = ossa__calloc(clip->allocator, clip->frames * 18, sizeof(float));
        if (!scratch[i].values || !scratch[i].refit) return false;
    }
    return true;
}

void ossa__encode_scratch_free(const ossa__clip *clip, ossa__encode_scratch *scratch, size_t count)
{
    for (size_t i = 0; scratch && i < count; ++i) {
        ossa_free(clip->allocator, scratch[i].values);
        ossa_free(clip->allocator, scratch[i].refit);
    }
}
