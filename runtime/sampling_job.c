#include "ossa/sampling_job.h"

#include <float.h>
#include <math.h>
#include <string.h>

#include "animation_format.h"
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

struct ossa_sampling_context {
    size_t max_soa;
    size_t max_sub;        /* sub-tracks: 3 per joint */
    const uint8_t *bound;  /* kinds table of the bound animation, NULL when unbound */
    size_t bound_animated; /* its animated sub-track count */
    size_t bound_frames;   /* its time point count */
    uint32_t segment;      /* segment whose bit offsets are in base[0] (segment + 1's in base[1]);
                              UINT32_MAX when none */
    uint32_t *base[2];     /* [max_sub + 8] bit offset of each animated sub-track's first key */
    float *left, *right;   /* [max_sub] ratios of the cached keys of each animated sub-track: the
                              cache is valid while left <= ratio <= right */
    uint32_t *frames;      /* [2 * max_sub] time points of the cached left and right keys */
    uint32_t *range_at;    /* [max_sub] first float of each sub-track's range table */
    uint16_t *target;      /* [max_sub] joint * 3 + channel of each animated sub-track */
    /* Per segment slot (0: the current segment, 1: the next): */
    uint16_t *key_bits[2]; /* [max_sub + 8] bits of one key, 0 past the last sub-track */
    uint8_t *width[2];     /* [4 * max_sub] bits of each component */
    uint32_t *qbase[2];    /* [4 * max_sub] added to each stored component (segment ranges) */
    uint16_t *ranged;      /* [max_sub] the sub-tracks with segment ranges */
    size_t ranged_count;
    size_t entries;        /* bytes of segment ranges in every segment */
    uint8_t *animated;     /* [3 * max_soa] channel c's group g has an animated lane */
    interp_float3 *translations; /* [max_soa] */
    interp_quat *rotations;      /* [max_soa] */
    interp_float3 *scales;       /* [max_soa] */
};

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

enum {
    L_BASE0,
    L_BASE1,
    L_LEFT,
    L_RIGHT,
    L_FRAMES,
    L_RANGE,
    L_TARGET,
    L_BITS0,
    L_BITS1,
    L_WIDTH0,
    L_WIDTH1,
    L_QBASE0,
    L_QBASE1,
    L_RANGED,
    L_ANIMATED,
    L_T,
    L_R,
    L_S,
    L_END
};

static size_t layout(size_t max_soa, size_t offsets[L_END])
{
    const size_t max_sub = 3 * 4 * max_soa;
    const size_t sizes[L_END] = {(max_sub + 8) * 4,
                                 (max_sub + 8) * 4,
                                 max_sub * 4,
                                 max_sub * 4,
                                 2 * max_sub * 4,
                                 max_sub * 4,
                                 max_sub * 2,
                                 (max_sub + 8) * 2,
                                 (max_sub + 8) * 2,
                                 4 * max_sub,
                                 4 * max_sub,
                                 4 * max_sub * 4,
                                 4 * max_sub * 4,
                                 max_sub * 2,
                                 3 * max_soa,
                                 max_soa * sizeof(interp_float3),
                                 max_soa * sizeof(interp_quat),
                                 max_soa * sizeof(interp_float3)};
    size_t at = align16(sizeof(struct ossa_sampling_context));
    for (int i = 0; i < L_END; ++i) {
        offsets[i] = at;
        at += align16(sizes[i]);
    }
    return at;
}

size_t ossa_sampling_context_size(size_t max_tracks)
{
    if (max_tracks > OSSA_MAX_JOINTS) return 0;
    size_t offsets[L_END];
    return layout((max_tracks + 3) / 4, offsets);
}

ossa_sampling_context *ossa_sampling_context_init(void *memory, size_t size, size_t max_tracks)
{
    if (!memory || ((uintptr_t)memory & 15u) || max_tracks > OSSA_MAX_JOINTS) return NULL;
    const size_t max_soa = (max_tracks + 3) / 4;
    size_t offsets[L_END];
    if (size < layout(max_soa, offsets)) return NULL;
    uint8_t *base = memory;
    ossa_sampling_context *ctx = memory;
    memset(ctx, 0, sizeof *ctx);
    ctx->max_soa = max_soa;
    ctx->max_sub = 3 * 4 * max_soa;
    ctx->base[0] = (uint32_t *)(void *)(base + offsets[L_BASE0]);
    ctx->base[1] = (uint32_t *)(void *)(base + offsets[L_BASE1]);
    ctx->left = (float *)(void *)(base + offsets[L_LEFT]);
    ctx->right = (float *)(void *)(base + offsets[L_RIGHT]);
    ctx->frames = (uint32_t *)(void *)(base + offsets[L_FRAMES]);
    ctx->range_at = (uint32_t *)(void *)(base + offsets[L_RANGE]);
    ctx->target = (uint16_t *)(void *)(base + offsets[L_TARGET]);
    for (int k = 0; k < 2; ++k) {
        ctx->key_bits[k] = (uint16_t *)(void *)(base + offsets[L_BITS0 + k]);
        ctx->width[k] = base + offsets[L_WIDTH0 + k];
        ctx->qbase[k] = (uint32_t *)(void *)(base + offsets[L_QBASE0 + k]);
    }
    ctx->ranged = (uint16_t *)(void *)(base + offsets[L_RANGED]);
    ctx->animated = base + offsets[L_ANIMATED];
    ctx->translations = (interp_float3 *)(void *)(base + offsets[L_T]);
    ctx->rotations = (interp_quat *)(void *)(base + offsets[L_R]);
    ctx->scales = (interp_float3 *)(void *)(base + offsets[L_S]);
    return ctx;
}

void ossa_sampling_context_invalidate(ossa_sampling_context *context)
{
    if (context) context->bound = NULL;
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

static inline unsigned lowest_bit(uint32_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctz(bits);
#else
    unsigned n = 0;
    while (!(bits & 1u)) bits >>= 1, ++n;
    return n;
#endif
}

static inline unsigned highest_bit(uint32_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return 31u - (unsigned)__builtin_clz(bits);
#else
    unsigned n = 0;
    while (bits >>= 1) ++n;
    return n;
#endif
}

/* Writes key k (0 left, 1 right) of a lane: its ratio and value (3 or 4 floats). */
static inline void set_key(ossa_sampling_context *ctx, int channel, size_t lane, int k, float ratio, const float *v)
{
    const size_t g = lane / 4, l = lane % 4;
    if (channel == OSSA__CH_ROTATION) {
        interp_quat *c = &ctx->rotations[g];
        c->ratio[k][l] = ratio;
        c->value[k].x[l] = v[0], c->value[k].y[l] = v[1], c->value[k].z[l] = v[2], c->value[k].w[l] = v[3];
        return;
    }
    interp_float3 *c = channel == OSSA__CH_SCALE ? &ctx->scales[g] : &ctx->translations[g];
    c->ratio[k][l] = ratio;
    c->value[k].x[l] = v[0], c->value[k].y[l] = v[1], c->value[k].z[l] = v[2];
}

/* Copies a lane's key `from` into key `to`: forward playback moves onto the next key (the
 * right key becomes the left one), backward playback the other way. */
static inline void move_key(ossa_sampling_context *ctx, int channel, size_t lane, int from, int to)
{
    const size_t g = lane / 4, l = lane % 4;
    if (channel == OSSA__CH_ROTATION) {
        interp_quat *c = &ctx->rotations[g];
        c->ratio[to][l] = c->ratio[from][l];
        c->value[to].x[l] = c->value[from].x[l], c->value[to].y[l] = c->value[from].y[l];
        c->value[to].z[l] = c->value[from].z[l], c->value[to].w[l] = c->value[from].w[l];
        return;
    }
    interp_float3 *c = channel == OSSA__CH_SCALE ? &ctx->scales[g] : &ctx->translations[g];
    c->ratio[to][l] = c->ratio[from][l];
    c->value[to].x[l] = c->value[from].x[l], c->value[to].y[l] = c->value[from].y[l];
    c->value[to].z[l] = c->value[from].z[l];
}

/* Binds `a`: default and constant sub-tracks are written once into both cached keys of their
 * lane; animated ones are marked stale. */
static void bind(const ossa_animation *a, ossa_sampling_context *ctx)
{
    static const float defaults[3][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f, 0.f}};
    const size_t lanes = a->soa_count * 4;
    memset(ctx->animated, 0, 3 * ctx->max_soa);
    size_t word = 0, animated = 0, range = 0;
    ctx->ranged_count = ctx->entries = 0;
    for (size_t j = 0; j < lanes; ++j) {
        for (int c = 0; c < 3; ++c) {
            const size_t s = j * 3 + (size_t)c;
            const uint32_t kind = j < a->track_count ? ossa__kind(a->kinds, s) : OSSA__KIND_DEFAULT;
            if (kind == OSSA__KIND_ANIMATED) {
                const int n = ossa__format_components(c, a->formats[animated]);
                const uint8_t *w = &a->bits[4 * animated];
                ctx->target[animated] = (uint16_t)s;
                ctx->range_at[animated] = (uint32_t)range;
                for (int k = 0; k < 2; ++k) {
                    ctx->key_bits[k][animated] = (uint16_t)(w[0] + w[1] + w[2] + w[3]);
                    memcpy(ctx->width[k] + 4 * animated, w, 4);
                    memset(ctx->qbase[k] + 4 * animated, 0, 4 * sizeof(uint32_t));
                }
                if (a->formats[animated] & OSSA__FORMAT_SEGMENT_RANGES) {
                    ctx->ranged[ctx->ranged_count++] = (uint16_t)animated;
                    ctx->entries += 2 * (size_t)n;
                }
                ctx->left[animated] = INFINITY, ctx->right[animated] = -INFINITY;
                ctx->frames[2 * animated] = ctx->frames[2 * animated + 1] = UINT32_MAX;
                ctx->animated[(size_t)c * ctx->max_soa + j / 4] = 1;
                range += 2 * (size_t)n;
                ++animated;
                continue;
            }
            float v[4];
            memcpy(v, defaults[c], sizeof v);
            if (kind == OSSA__KIND_CONSTANT && c == OSSA__CH_ROTATION) {
                const ossa_quat q = ossa__unpack_constant_quat(a->constants[word], a->constants[word + 1]);
                v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
                word += 2;
            } else if (kind == OSSA__KIND_CONSTANT) {
                memcpy(v, &a->constants[word], 3 * sizeof(float));
                word += 3;
            }
            set_key(ctx, c, j, 0, 0.f, v);
            set_key(ctx, c, j, 1, 1.f, v);
        }
    }
    /* Padding sub-tracks are never stale and cost no bits. */
    for (size_t i = animated; i < (animated + 3) / 4 * 4; ++i) ctx->left[i] = -INFINITY, ctx->right[i] = INFINITY;
    for (size_t i = animated; i < animated + 8; ++i) ctx->key_bits[0][i] = ctx->key_bits[1][i] = 0;
    ctx->bound = a->kinds;
    ctx->bound_animated = a->animated_count;
    ctx->bound_frames = a->frame_count;
    ctx->segment = UINT32_MAX;
}

static inline uint32_t bitmap(const ossa_animation *a, size_t segment, size_t i)
{
    const uint8_t *p = a->data + a->segment_offsets[segment] + 2 * i;
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8);
}

/* Fills slot k for `segment` (nothing past the last): the segment ranges' widths and bases,
 * then the bit offset of every animated sub-track's first key, prefix sums of
 * popcount(bitmap) x key bits 8 sub-tracks at a time (the data's padding covers the loads
 * past the last bitmap, and their key bits are 0). */
static void segment_setup(const ossa_animation *a, ossa_sampling_context *ctx, size_t segment, int k)
{
    if (segment >= a->segment_count) return;
    const size_t n = a->animated_count;
    const uint8_t *p = a->data + a->segment_offsets[segment];
    const uint8_t *entry = p + 2 * n;
    for (size_t r = 0; r < ctx->ranged_count; ++r) {
        const size_t i = ctx->ranged[r];
        const int components = ossa__format_components(ctx->target[i] % 3, a->formats[i]);
        unsigned bits = 0;
        for (int c = 0; c < components; ++c, entry += 2) {
            ctx->qbase[k][4 * i + (size_t)c] = (uint32_t)entry[0] << ossa__segment_shift(a->bits[4 * i + (size_t)c]);
            ctx->width[k][4 * i + (size_t)c] = entry[1];
            bits += entry[1];
        }
        ctx->key_bits[k][i] = (uint16_t)bits;
    }
    uint32_t at = (a->segment_offsets[segment] + 2 * (uint32_t)n + (uint32_t)ctx->entries) * 8u;
    uint32_t *out = ctx->base[k];
    for (size_t i = 0; i < n; i += 8) {
        const v4i bits = v8u16_mullo(v8u16_popcount(v8u16_loadu(p + 2 * i)),
                                     v8u16_loadu((const uint8_t *)(ctx->key_bits[k] + i)));
        const v4i inclusive = v8u16_prefix(bits);
        const v4i exclusive = v8u16_sub(inclusive, bits);
        const v4i start = v4i_set1((int32_t)at);
        v4i_storeu(out + i, v4i_add(start, v8u16_lo32(exclusive)));
        v4i_storeu(out + i + 4, v4i_add(start, v8u16_hi32(exclusive)));
        at += v8u16_last(inclusive);
    }
}

/* Frame counts are below 2^32 (validated), and 32-bit conversions to float are one
 * instruction where 64-bit unsigned ones are not. */
static inline float frame_ratio(const ossa_animation *a, size_t frame)
{
    return a->timepoints ? a->timepoints[frame] : (float)(int32_t)frame / (float)(int32_t)(a->frame_count - 1);
}

/* Last time point at or before `ratio`, at most frame_count - 2 (so a next one exists). */
static size_t frame_of(const ossa_animation *a, float ratio)
{
    const size_t last = a->frame_count - 2;
    size_t f;
    if (!a->timepoints) {
        f = (size_t)(ratio * (float)(a->frame_count - 1));
    } else {
        size_t lo = 0, hi = a->frame_count;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (a->timepoints[mid] <= ratio)
                lo = mid + 1;
            else
                hi = mid;
        }
        f = lo ? lo - 1 : 0;
    }
    return f < last ? f : last;
}

/* Decodes the key of animated sub-track i at bit `at` of the segment in slot k into `v` (a
 * rotation as x, y, z, w). */
static inline void decode_key(const ossa_animation *a, const ossa_sampling_context *ctx, size_t i, size_t at, int k,
                              int channel, float v[4])
{
    const int format = a->formats[i] & OSSA__FORMAT_MASK, n = ossa__format_components(channel, format);
    const float *range = a->ranges + ctx->range_at[i];
    OSSA_ALIGNAS(16) uint32_t q[4] = {0, 0, 0, 0};
    ossa__read_key(a->data, at, ctx->width[k] + 4 * i, n, ctx->key_bits[k][i], q);
    const v4i qv = v4i_add(v4i_load((const int32_t *)(const void *)q),
                           v4i_loadu((const int32_t *)(const void *)(ctx->qbase[k] + 4 * i)));
    /* min + q * step, the components in lanes: the ranges are min[n] then step[n], so both
     * loads stay inside the blob (the segment table follows the ranges). */
    OSSA_ALIGNAS(16) float c[4];
    v4f_store(c, v4f_madd(v4i_to_f(qv), v4f_loadu(range + n), v4f_loadu(range)));
    if (channel != OSSA__CH_ROTATION) {
        v[0] = c[0], v[1] = c[1], v[2] = c[2], v[3] = 0.f;
        return;
    }
    const ossa_quat r = ossa__rotation_from(c, format);
    v[0] = r.x, v[1] = r.y, v[2] = r.z, v[3] = r.w;
}

/* Reloads the two keys around time point `frame` (in `segment`) of animated sub-track i; a
 * key already cached (the old right key becomes the left one in forward playback, the old
 * left the right one backward) is moved, not decoded again. */
static void refresh(const ossa_animation *a, ossa_sampling_context *ctx, size_t i, size_t frame, size_t segment)
{
    const size_t first = segment * OSSA__SEGMENT_FRAMES;
    const unsigned local = (unsigned)(frame - first);
    const uint32_t bm = bitmap(a, segment, i);
    const uint32_t upto = (2u << local) - 1u;
    const unsigned lb = highest_bit(bm & upto);
    const unsigned kb = ctx->key_bits[0][i];
    const size_t left_frame = first + lb;
    size_t right_at, right_frame;
    int right_slot = 0;
    if (bm & ~upto) {
        const unsigned rb = lowest_bit(bm & ~upto);
        right_at = ctx->base[0][i] + ossa__popcount16(bm & ((1u << rb) - 1u)) * kb;
        right_frame = first + rb;
    } else {
        right_at = ctx->base[1][i];
        right_frame = first + OSSA__SEGMENT_FRAMES;
        right_slot = 1;
    }
    const size_t s = ctx->target[i], joint = s / 3;
    const int channel = (int)(s % 3);
    float v[4];
    uint32_t have_left = ctx->frames[2 * i], have_right = ctx->frames[2 * i + 1];
    if (have_right == left_frame) {
        move_key(ctx, channel, joint, 1, 0);
        have_left = (uint32_t)left_frame, have_right = UINT32_MAX;
    } else if (have_left == right_frame) {
        move_key(ctx, channel, joint, 0, 1);
        have_right = (uint32_t)right_frame, have_left = UINT32_MAX;
    }
    if (have_left != left_frame) {
        decode_key(a, ctx, i, ctx->base[0][i] + ossa__popcount16(bm & ((1u << lb) - 1u)) * kb, 0, channel, v);
        set_key(ctx, channel, joint, 0, frame_ratio(a, left_frame), v);
    }
    if (have_right != right_frame) {
        decode_key(a, ctx, i, right_at, right_slot, channel, v);
        set_key(ctx, channel, joint, 1, frame_ratio(a, right_frame), v);
    }
    ctx->frames[2 * i] = (uint32_t)left_frame, ctx->frames[2 * i + 1] = (uint32_t)right_frame;
    const size_t g = joint / 4, l = joint % 4;
    const float *ratios = channel == OSSA__CH_ROTATION ? ctx->rotations[g].ratio[0]
                                                       : (channel == OSSA__CH_SCALE ? ctx->scales[g].ratio[0]
                                                                                    : ctx->translations[g].ratio[0]);
    ctx->left[i] = ratios[l], ctx->right[i] = ratios[4 + l];
}

/* Refreshes every animated sub-track whose cached keys do not bracket `ratio`: four
 * sub-tracks are tested at once, and the time point and segment are found only when one is
 * stale. */
static void update(const ossa_animation *a, ossa_sampling_context *ctx, float ratio)
{
    const v4f r = v4f_set1(ratio);
    size_t frame = SIZE_MAX, segment = 0;
    for (size_t i = 0; i < a->animated_count; i += 4) {
        const v4f stale = v4f_or(v4f_cmplt(r, v4f_load(ctx->left + i)), v4f_cmplt(v4f_load(ctx->right + i), r));
        for (unsigned mask = v4f_movemask(stale); mask; mask &= mask - 1) {
            if (frame == SIZE_MAX) {
                frame = frame_of(a, ratio);
                segment = frame / OSSA__SEGMENT_FRAMES;
                if (ctx->segment != segment) {
                    segment_setup(a, ctx, segment, 0);
                    segment_setup(a, ctx, segment + 1, 1);
                    ctx->segment = (uint32_t)segment;
                }
            }
            refresh(a, ctx, i + lowest_bit(mask), frame, segment);
        }
    }
}

/* Interpolation factor of each lane. A constant track's lane has both keys at ratio 0: its
 * span is clamped to the smallest normal float, so alpha stays finite and the lerp of two
 * equal values returns the value. */
static inline v4f alpha_of(const float ratio0[4], const float ratio1[4], v4f ratio)
{
    const v4f r0 = v4f_load(ratio0);
    return v4f_div(v4f_sub(ratio, r0), v4f_max(v4f_sub(v4f_load(ratio1), r0), v4f_set1(FLT_MIN)));
}

ossa_result ossa_sampling_job_run(const ossa_sampling_job *job)
{
    const ossa_result r = ossa_sampling_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_animation *a = job->animation;
    ossa_sampling_context *ctx = job->context;
    const float ratio = job->ratio < 0.f ? 0.f : (job->ratio > 1.f ? 1.f : job->ratio);
    if (a->soa_count == 0) return OSSA_OK;
    if (ctx->bound != a->kinds || ctx->bound_animated != a->animated_count || ctx->bound_frames != a->frame_count)
        bind(a, ctx);
    update(a, ctx, ratio);

    const v4f vratio = v4f_set1(ratio);
    const uint8_t *animated_t = ctx->animated, *animated_r = ctx->animated + ctx->max_soa,
                  *animated_s = ctx->animated + 2 * ctx->max_soa;
    for (size_t g = 0; g < a->soa_count; ++g) {
        ossa_soa_transform *out = &job->output[g];
        const interp_float3 *t = &ctx->translations[g];
        const interp_quat *q = &ctx->rotations[g];
        const interp_float3 *s = &ctx->scales[g];
        /* Groups without an animated lane hold their default or constant values. */
        if (!animated_t[g])
            out->translation = t->value[0];
        else
            v4f3_store(&out->translation, v4f3_lerp(v4f3_load(&t->value[0]), v4f3_load(&t->value[1]),
                                                    alpha_of(t->ratio[0], t->ratio[1], vratio)));
        /* The builder keeps consecutive keys in one hemisphere, so no sign fix-up is needed. */
        if (!animated_r[g])
            out->rotation = q->value[0];
        else
            v4fq_store(&out->rotation, v4fq_nlerp(v4fq_load(&q->value[0]), v4fq_load(&q->value[1]),
                                                  alpha_of(q->ratio[0], q->ratio[1], vratio), false));
        if (!animated_s[g])
            out->scale = s->value[0];
        else
            v4f3_store(&out->scale, v4f3_lerp(v4f3_load(&s->value[0]), v4f3_load(&s->value[1]),
                                              alpha_of(s->ratio[0], s->ratio[1], vratio)));
    }
    return OSSA_OK;
}
