#include "ossa/sampling_job.h"

#include <math.h>
#include <string.h>

#include "ossa_internal.h"
#include "simd.h"

/* Decompressed keys of one SoA group: the two keys around the current ratio per lane. */
typedef struct interp_float3 {
    float ratio[2][4];
    ossa_soa_float3 value[2];
} interp_float3;

typedef struct interp_quat {
    float ratio[2][4];
    ossa_soa_quat value[2];
} interp_quat;

typedef struct channel_state {
    uint32_t cursor;     /* next key to load */
    uint32_t *entries;   /* [padded] right key of each track */
    uint8_t *outdated;   /* [soa] group needs decompression */
} channel_state;

struct ossa_sampling_context {
    size_t max_soa;
    const float *timepoints; /* identity of the bound animation, NULL when unbound */
    size_t key_counts[3];
    uint32_t hint[3];        /* last track found, to shorten searches */
    channel_state channels[3];
    interp_float3 *translations; /* [max_soa] */
    interp_quat *rotations;      /* [max_soa] */
    interp_float3 *scales;       /* [max_soa] */
};

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

static size_t layout(size_t max_soa, size_t offsets[6])
{
    size_t at = align16(sizeof(struct ossa_sampling_context));
    for (int c = 0; c < 3; ++c) {
        offsets[c] = at;
        at += align16(max_soa * 4 * sizeof(uint32_t)) + align16(max_soa);
    }
    offsets[3] = at;
    at += max_soa * sizeof(interp_float3);
    offsets[4] = at;
    at += max_soa * sizeof(interp_quat);
    offsets[5] = at;
    at += max_soa * sizeof(interp_float3);
    return at;
}

size_t ossa_sampling_context_size(size_t max_tracks)
{
    if (max_tracks > OSSA_MAX_JOINTS) return 0;
    size_t offsets[6];
    return layout((max_tracks + 3) / 4, offsets);
}

ossa_sampling_context *ossa_sampling_context_init(void *memory, size_t size, size_t max_tracks)
{
    if (!memory || ((uintptr_t)memory & 15u) || max_tracks > OSSA_MAX_JOINTS) return NULL;
    const size_t max_soa = (max_tracks + 3) / 4;
    size_t offsets[6];
    if (size < layout(max_soa, offsets)) return NULL;
    uint8_t *base = memory;
    ossa_sampling_context *ctx = memory;
    memset(ctx, 0, sizeof *ctx);
    ctx->max_soa = max_soa;
    for (int c = 0; c < 3; ++c) {
        ctx->channels[c].entries = (uint32_t *)(void *)(base + offsets[c]);
        ctx->channels[c].outdated = base + offsets[c] + align16(max_soa * 4 * sizeof(uint32_t));
    }
    ctx->translations = (interp_float3 *)(void *)(base + offsets[3]);
    ctx->rotations = (interp_quat *)(void *)(base + offsets[4]);
    ctx->scales = (interp_float3 *)(void *)(base + offsets[5]);
    return ctx;
}

void ossa_sampling_context_invalidate(ossa_sampling_context *context)
{
    if (context) context->timepoints = NULL;
}

size_t ossa_sampling_context_max_tracks(const ossa_sampling_context *context)
{
    return context ? context->max_soa * 4 : 0;
}

ossa_result ossa_sampling_job_validate(const ossa_sampling_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->animation) return OSSA_ERROR_NO_ANIMATION;
    if (!job->context) return OSSA_ERROR_NO_CONTEXT;
    if (job->context->max_soa < job->animation->soa_count) return OSSA_ERROR_CONTEXT_TOO_SMALL;
    if (!isfinite(job->ratio)) return OSSA_ERROR_INVALID_RATIO;
    if (!job->output) return OSSA_ERROR_NO_OUTPUT;
    if (job->output_count < job->animation->soa_count) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    return OSSA_OK;
}

static inline uint32_t key_time_index(const ossa_animation_channel *c, uint32_t key)
{
    return c->time_index8 ? c->time_index8[key] : c->time_index16[key];
}

/* Track whose entry equals `key`, searching from `*hint` (the validated stream guarantees
 * one exists; the loop is bounded anyway). */
static inline uint32_t find_track(const uint32_t *entries, uint32_t padded, uint32_t key, uint32_t *hint)
{
    uint32_t t = *hint;
    for (uint32_t tried = 0; tried < padded; ++tried) {
        if (entries[t] == key) break;
        t = t + 1 == padded ? 0 : t + 1;
    }
    *hint = t;
    return t;
}

/* Moves the channel's cursor so that every track's entry is the first key after `ratio`
 * (or its last key), marking changed SoA groups outdated. */
static void update_cursor(const ossa_animation *a, const ossa_animation_channel *c, channel_state *s, uint32_t *hint,
                          float ratio, bool reset)
{
    const uint32_t padded = (uint32_t)a->soa_count * 4;
    const uint32_t n = (uint32_t)c->key_count;
    const float *tp = a->timepoints;
    if (reset) {
        s->cursor = 2 * padded;
        for (uint32_t t = 0; t < padded; ++t) s->entries[t] = padded + t;
        memset(s->outdated, 1, a->soa_count);
        *hint = 0;
    }
    uint32_t cursor = s->cursor;
    while (cursor < n) {
        const uint32_t prev = cursor - c->previous[cursor];
        if (tp[key_time_index(c, prev)] > ratio) break;
        const uint32_t t = find_track(s->entries, padded, prev, hint);
        s->entries[t] = cursor++;
        s->outdated[t >> 2] = 1;
    }
    while (cursor > 2 * padded) {
        const uint32_t key = cursor - 1;
        const uint32_t prev = key - c->previous[key];
        if (tp[key_time_index(c, prev)] <= ratio) break;
        const uint32_t t = find_track(s->entries, padded, key, hint);
        s->entries[t] = prev;
        s->outdated[t >> 2] = 1;
        --cursor;
    }
    s->cursor = cursor;
}

static void decompress_float3(const ossa_animation *a, const ossa_animation_channel *c, const channel_state *s,
                              interp_float3 *cache)
{
    for (size_t g = 0; g < a->soa_count; ++g) {
        if (!s->outdated[g]) continue;
        s->outdated[g] = 0;
        int32_t hx[2][4], hy[2][4], hz[2][4];
        for (int lane = 0; lane < 4; ++lane) {
            const uint32_t right = s->entries[g * 4 + (size_t)lane];
            const uint32_t keys[2] = {right - c->previous[right], right};
            for (int k = 0; k < 2; ++k) {
                const uint16_t *v = &c->values[(size_t)keys[k] * 3];
                hx[k][lane] = v[0], hy[k][lane] = v[1], hz[k][lane] = v[2];
                cache[g].ratio[k][lane] = a->timepoints[key_time_index(c, keys[k])];
            }
        }
        for (int k = 0; k < 2; ++k) {
            v4f_store(cache[g].value[k].x, v4f_from_half(v4i_set(hx[k][0], hx[k][1], hx[k][2], hx[k][3])));
            v4f_store(cache[g].value[k].y, v4f_from_half(v4i_set(hy[k][0], hy[k][1], hy[k][2], hy[k][3])));
            v4f_store(cache[g].value[k].z, v4f_from_half(v4i_set(hz[k][0], hz[k][1], hz[k][2], hz[k][3])));
        }
    }
}

static void decompress_quat(const ossa_animation *a, const ossa_animation_channel *c, const channel_state *s,
                            interp_quat *cache)
{
    for (size_t g = 0; g < a->soa_count; ++g) {
        if (!s->outdated[g]) continue;
        s->outdated[g] = 0;
        for (int lane = 0; lane < 4; ++lane) {
            const uint32_t right = s->entries[g * 4 + (size_t)lane];
            const uint32_t keys[2] = {right - c->previous[right], right};
            for (int k = 0; k < 2; ++k) {
                const ossa_quat q = ossa__unpack_quat(&c->values[(size_t)keys[k] * 3]);
                cache[g].value[k].x[lane] = q.x;
                cache[g].value[k].y[lane] = q.y;
                cache[g].value[k].z[lane] = q.z;
                cache[g].value[k].w[lane] = q.w;
                cache[g].ratio[k][lane] = a->timepoints[key_time_index(c, keys[k])];
            }
        }
    }
}

static inline v4f alpha_of(const float ratio0[4], const float ratio1[4], v4f ratio)
{
    const v4f r0 = v4f_load(ratio0);
    return v4f_div(v4f_sub(ratio, r0), v4f_sub(v4f_load(ratio1), r0));
}

ossa_result ossa_sampling_job_run(const ossa_sampling_job *job)
{
    const ossa_result r = ossa_sampling_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_animation *a = job->animation;
    ossa_sampling_context *ctx = job->context;
    const float ratio = job->ratio < 0.f ? 0.f : (job->ratio > 1.f ? 1.f : job->ratio);
    if (a->soa_count == 0) return OSSA_OK;

    const bool reset = ctx->timepoints != a->timepoints || ctx->key_counts[0] != a->translations.key_count ||
                       ctx->key_counts[1] != a->rotations.key_count || ctx->key_counts[2] != a->scales.key_count;
    if (reset) {
        ctx->timepoints = a->timepoints;
        ctx->key_counts[0] = a->translations.key_count;
        ctx->key_counts[1] = a->rotations.key_count;
        ctx->key_counts[2] = a->scales.key_count;
    }
    update_cursor(a, &a->translations, &ctx->channels[0], &ctx->hint[0], ratio, reset);
    update_cursor(a, &a->rotations, &ctx->channels[1], &ctx->hint[1], ratio, reset);
    update_cursor(a, &a->scales, &ctx->channels[2], &ctx->hint[2], ratio, reset);
    decompress_float3(a, &a->translations, &ctx->channels[0], ctx->translations);
    decompress_quat(a, &a->rotations, &ctx->channels[1], ctx->rotations);
    decompress_float3(a, &a->scales, &ctx->channels[2], ctx->scales);

    const v4f vratio = v4f_set1(ratio);
    for (size_t g = 0; g < a->soa_count; ++g) {
        ossa_soa_transform *out = &job->output[g];
        const interp_float3 *t = &ctx->translations[g];
        const interp_quat *q = &ctx->rotations[g];
        const interp_float3 *s = &ctx->scales[g];
        v4f3_store(&out->translation, v4f3_lerp(v4f3_load(&t->value[0]), v4f3_load(&t->value[1]),
                                               alpha_of(t->ratio[0], t->ratio[1], vratio)));
        /* The builder keeps consecutive keys in one hemisphere, so no sign fix-up is needed. */
        v4fq_store(&out->rotation, v4fq_nlerp(v4fq_load(&q->value[0]), v4fq_load(&q->value[1]),
                                             alpha_of(q->ratio[0], q->ratio[1], vratio), false));
        v4f3_store(&out->scale, v4f3_lerp(v4f3_load(&s->value[0]), v4f3_load(&s->value[1]),
                                         alpha_of(s->ratio[0], s->ratio[1], vratio)));
    }
    return OSSA_OK;
}
