#include "ossa/sampling_job.h"

#include <float.h>
#include <stddef.h>
#include <math.h>
#include <string.h>

#include "animation_format.h"
#include "animation_sorted.h"
#include "checks.h"
#include "baseline_jobs.h"
#include "dispatch.h"
#include "simd.h"

/* The animated sub-tracks of one channel are taken four at a time (in joint order), and each
 * such group keeps, in SoA lanes, the two keys around the last ratio: their decoded values,
 * ratios and time points (the integers of the keys a call reads live on its stack). A sampling call copies the default and constant values
 * (decoded once, when the animation is bound) to the output, refreshes the lanes whose keys
 * no longer bracket the ratio, interpolates every group four lanes at a time and writes each
 * lane to its joint (packing the animated sub-tracks densely costs that scatter, but keeps the
 * groups few when the animated joints are scattered over the skeleton). */
typedef struct sub_group {
    OSSA_ALIGNAS(16) float ratio[2][4]; /* [key][lane] ratios of the left and right keys */
    float value[2][4][4];               /* [key][component][lane]: x, y, z(, w) */
    float min[4][4], step[4][4];        /* [component][lane] dequantisation */
    uint32_t frame[2][4];               /* [key][lane] time points of the cached keys */
    uint32_t dest[4];                   /* byte offset of each lane's x in the output pose (y, z, w
                                           follow 16 bytes apart); padding lanes: lane 0's */
    uint16_t sub[4];                    /* animated sub-track (blob order) of each lane */
    uint8_t lanes;                      /* lanes in use (4 but in a channel's last group) */
    uint8_t aligned;                    /* lanes are the joints of one output group, in order */
    uint8_t format[4];                  /* rotation format of each lane */
    uint8_t same_format;                /* the rotation format of all four lanes, MIXED_FORMATS when
                                           they differ (padding lanes take lane 0's) */
    uint8_t components;                 /* 3, or 4 for rotations */
    uint8_t channel;
    uint8_t vector_keys;  /* no lane has first keys of more than 57 bits: the x86-64-v3 path
                             reads its keys four lanes at a time (read_keys4) in the segments
                             where its lanes' other keys are that narrow too */
    uint16_t cache_right; /* playback cache: byte offset of the right keys from the left ones
                             (fill_cache) */
    uint8_t ranged;       /* some lane's sub-track has segment ranges */
} sub_group;

enum { MIXED_FORMATS = 0xff };

/* One key of every lane of a group in the playback cache, as lane mode holds it. */
typedef struct cache_key {
    OSSA_ALIGNAS(16) float value[4][4]; /* [component][lane] */
    float ratio[4];                     /* [lane] */
} cache_key;

/* A sub-track with segment ranges: where its ranges are in every segment, and what they are
 * in the current one (enter_segment). */
typedef struct ranged_track {
    uint32_t base[4];  /* [component] range base in the current segment, at the clip width */
    uint8_t width[4];  /* [component] key width in the current segment (0 past the stored ones) */
    uint8_t shift[4];  /* [component] ossa__segment_shift of the clip width */
    uint16_t sub;      /* animated sub-track (blob order) */
    uint16_t entry;    /* byte offset of its ranges after a segment's bitmaps */
    uint8_t stored;    /* stored components: 3, or 4 for OSSA__ROT_FULL rotations */
} ranged_track;

/* Groups from which lane mode may find its stale lanes from the groups' bracketed time
 * points (fresh_from, fresh_until) rather than group by group: below it the tests cost less
 * than keeping those time points. */
enum { SCAN_MIN_GROUPS = 64 };
/* Keys per group in the playback cache: see fill_cache. */
enum { CACHE_KEYS = 2 * OSSA__SEGMENT_FRAMES };
/* Bytes of one of fill_cache's scratch grids, [OSSA__SEGMENT_FRAMES + 1][component][lane]. */
enum { FILL_GRID = (OSSA__SEGMENT_FRAMES + 1) * 16 * 4 };

struct ossa_sampling_context {
    size_t max_soa;
    size_t max_animated;                  /* animated sub-tracks it has room for */
    size_t bytes;                         /* of the whole context (ossa_sampling_context_size) */
    const uint8_t *bound;                 /* kinds table of the bound animation, NULL when unbound */
    const ossa_soa_transform *bound_rest; /* the rest pose it was bound with */
    size_t bound_animated;                /* its animated sub-track count */
    size_t bound_frames;                  /* its time point count */
    size_t bound_keys, bound_data_size;   /* its key count and key data size */
    size_t group_count;
    uint32_t segment;            /* segment whose bit offsets are in rest_at; UINT32_MAX when none */
    const uint8_t *segment_data; /* its bitmaps, then its segment ranges */
    uint32_t segment_block;      /* bit offset of its first-key block */
    OSSA_ALIGNAS(16)
    float segment_ratio[OSSA__SEGMENT_FRAMES + 4]; /* ratios of the segment's time
                                     points and the next segment's first (17 used) */
    /* Per animated sub-track (blob order), in the current segment: */
    uint32_t *rest_at;    /* [max_sub + 8] bit offset of the sub-track's second key in the
                             current segment */
    uint16_t *key_bits;   /* [max_sub + 8] bits of one of its other keys there (0 past the
                             last sub-track) */
    uint16_t *first_bits; /* [max_sub] bits of a first key (clip widths) */
    uint32_t *first_at;   /* [max_sub] bit offset of its first key in any segment's first-key
                             block */
    uint32_t first_block; /* bits of the first-key block */
    uint16_t *ranged_of;  /* [max_sub] the sub-track's entry in `ranged`; UINT16_MAX when it
                             has no segment ranges */
    ranged_track *ranged; /* [max_ranged] the sub-tracks with segment ranges */
    size_t ranged_count;
    size_t max_ranged;    /* sub-tracks with segment ranges it has room for */
    size_t entries;           /* bytes of segment ranges in every segment */
    sub_group *groups;        /* [max_groups] */
    size_t max_groups;        /* groups it has room for */
    /* Per group, the time points its lanes' keys bracket together: lane mode refreshes group g
     * when frame < fresh_from[g] or frame >= fresh_until[g] (the largest left and the smallest
     * right time point over its lanes, as int32 like the lanes' own tests), and tests four
     * groups at once instead of each group's lanes. [max_groups rounded up to 8], in contexts
     * with room for SCAN_MIN_GROUPS groups or more (NULL in others); the entries past
     * group_count bracket every time point. */
    int32_t *fresh_from, *fresh_until;
    bool fresh_kept;         /* they hold the lanes' current time points */
    uint32_t refresh_average; /* groups lane mode refreshed in a call, x16, averaged over the
                                 last calls (each weighs 1/8): it chooses how lane mode finds
                                 the stale lanes */
    float *rest;              /* [max_rest] default and constant values: the channels the output
                                 takes from them (copy), in pose order (see rest_layout) */
    size_t max_rest;          /* floats of rest it has room for */
    uint8_t *copy;            /* [max_soa] bit c: channel c of the SoA group is copied from rest
                                 (no aligned group writes all of it) */
    bool copy_all;            /* every channel of every SoA group is: rest is a whole pose */
    uint8_t copy_usual;       /* the bits of copy that most SoA groups have */
    /* Playback cache (contexts sized with ossa_sampling_context_playback_size_for): keys
     * [group][CACHE_KEYS] around the time points of segment cache_segment (fill_cache), and
     * the scratch integers and values of one group's keys while it is filled. */
    cache_key *cache;        /* NULL without one */
    size_t cache_groups;     /* groups it has room for; an animation with more samples in lane mode */
    int32_t (*fill_q)[4][4]; /* [OSSA__SEGMENT_FRAMES + 1][component][lane] */
    float (*fill_key)[4][4]; /* [OSSA__SEGMENT_FRAMES + 1][component][lane] */
    uint32_t cache_segment;  /* UINT32_MAX when it holds none */
    uint32_t last_frame;     /* time point of the previous run; UINT32_MAX none */
    bool last_near;          /* the previous run was at most two time points from the one before */
};

#if !defined(OSSA__AVX2_KERNELS) /* sizes: in the baseline compile only (dispatch.h) */
static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

enum { L_REST_AT, L_FIRST_AT, L_BITS, L_FIRST_BITS, L_RANGED_OF, L_RANGED, L_GROUPS, L_FRESH, L_REST, L_COPY, L_CACHE, L_FILL, L_END };

/* Entries of each of fresh_from and fresh_until for `groups` groups. */
static size_t fresh_entries(size_t groups) { return (groups + 7) & ~(size_t)7; }

/* Groups of max_sub animated sub-tracks: each channel c of A_c of them makes ceil(A_c / 4)
 * groups (whole aligned ones, then the rest packed), at most (A + 9) / 4 over three channels. */
static size_t group_capacity(size_t max_sub) { return max_sub / 4 + 3; }

/* What a context has room for. */
typedef struct context_shape {
    size_t soa;          /* SoA groups */
    size_t animated;     /* animated sub-tracks */
    size_t groups;       /* groups of them (make_groups) */
    size_t ranged;       /* of them, with segment ranges */
    size_t rest;         /* floats of rest values */
    size_t cache_groups; /* groups of the playback cache (0: none) */
} context_shape;
#endif /* !OSSA__AVX2_KERNELS */

/* Floats of each channel of an ossa_soa_transform: translation (floats 0..11), rotation
 * (12..27), scale (28..39). */
static const unsigned channel_floats[3] = {12, 16, 12};
enum { SOA_FLOATS = 40 };

/* Animated sub-tracks of channel c among the joints of SoA group jg (4: the group is an
 * aligned one, see make_groups). */
static size_t animated_in(const ossa_animation *a, size_t jg, int c)
{
    size_t n = 0;
    for (size_t j = jg * 4; j < jg * 4 + 4 && j < a->track_count; ++j)
        n += ossa__kind(a->kinds, j * 3 + (size_t)c) == OSSA__KIND_ANIMATED;
    return n;
}

/* The groups make_groups forms for animation a: per channel, one for each SoA group whose four
 * joints are animated in it, then the channel's other animated sub-tracks four at a time. */
static size_t group_count_of(const ossa_animation *a)
{
    size_t groups = 0;
    for (int c = 0; c < 3; ++c) {
        size_t packed = 0;
        for (size_t jg = 0; jg < a->soa_count; ++jg) {
            const size_t n = animated_in(a, jg, c);
            if (n == 4)
                ++groups;
            else
                packed += n;
        }
        groups += (packed + 3) / 4;
    }
    return groups;
}

/* The channels of each SoA group of `a` that the output takes from the rest values, into
 * copy[jg] when copy is not NULL (bit c: channel c; set unless an aligned group writes all of
 * it), whether the whole pose is copied instead (*all: when aligned groups skip less than half
 * of its bytes, one copy of it costs less), and the floats of rest values a context keeps:
 * the copied channels one after another in pose order, or the whole pose. A dense clip that
 * animates every translation and rotation keeps its scales alone. */
static size_t rest_layout(const ossa_animation *a, uint8_t *copy, bool *all)
{
    size_t skipped = 0, kept = 0;
    for (size_t jg = 0; jg < a->soa_count; ++jg) {
        unsigned bits = 0;
        for (int c = 0; c < 3; ++c) {
            const bool whole = animated_in(a, jg, c) == 4;
            bits |= (whole ? 0u : 1u) << c;
            *(whole ? &skipped : &kept) += channel_floats[c];
        }
        if (copy) copy[jg] = (uint8_t)bits;
    }
    *all = 2 * skipped < a->soa_count * SOA_FLOATS;
    return *all ? a->soa_count * SOA_FLOATS : kept;
}

/* Animated sub-tracks of `a` with segment ranges. */
static size_t ranged_count_of(const ossa_animation *a)
{
    size_t ranged = 0;
    for (size_t i = 0; i < a->animated_count; ++i) ranged += (a->formats[i] & OSSA__FORMAT_SEGMENT_RANGES) != 0;
    return ranged;
}

#if !defined(OSSA__AVX2_KERNELS) /* contexts and validation: in the baseline compile only (dispatch.h) */

/* Offsets of the arrays of a context of shape `s`; returns the whole size. */
static size_t layout(const context_shape *s, size_t offsets[L_END])
{
    const size_t max_sub = s->animated, cache_groups = s->cache_groups;
    const size_t sizes[L_END] = {(max_sub + 8) * 4,
                                 max_sub * 4,
                                 (max_sub + 8) * 2,
                                 max_sub * 2,
                                 max_sub * 2,
                                 s->ranged * sizeof(ranged_track),
                                 s->groups * sizeof(sub_group),
                                 s->groups >= SCAN_MIN_GROUPS ? 2 * fresh_entries(s->groups) * sizeof(int32_t) : 0,
                                 s->rest * sizeof(float),
                                 s->soa,
                                 CACHE_KEYS * cache_groups * sizeof(cache_key),
                                 cache_groups ? 2 * FILL_GRID : 0};
    size_t at = align16(sizeof(struct ossa_sampling_context));
    for (int i = 0; i < L_END; ++i) {
        offsets[i] = at;
        at += align16(sizes[i]);
    }
    return at;
}

/* The shape of a context for any animation of up to max_tracks joints: every sub-track of
 * every SoA group animated, with segment ranges, and a whole pose of rest values. */
static context_shape shape_of_tracks(size_t max_tracks)
{
    const size_t soa = (max_tracks + 3) / 4;
    return (context_shape){soa, 3 * 4 * soa, group_capacity(3 * 4 * soa), 3 * 4 * soa, soa * SOA_FLOATS, 0};
}

size_t ossa_sampling_context_size(size_t max_tracks)
{
    if (max_tracks > OSSA_MAX_JOINTS) return 0;
    size_t offsets[L_END];
    const context_shape shape = shape_of_tracks(max_tracks);
    return layout(&shape, offsets);
}

/* The shape of the smallest context for `a`, with a playback cache or not. */
static context_shape shape_for(const ossa_animation *a, bool cache)
{
    bool all;
    const size_t groups = group_count_of(a);
    return (context_shape){a->soa_count, a->animated_count, groups, ranged_count_of(a), rest_layout(a, NULL, &all),
                           cache ? groups : 0};
}

/* The sorted-key layout (sampling_sorted.c) keeps its own state after the header. */
static bool sorted_keys(const ossa_animation *a) { return (a->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) != 0; }

uint8_t *ossa__sampling_context_area(ossa_sampling_context *context, size_t *size, const uint8_t ***bound)
{
    const size_t head = align16(sizeof *context);
    *size = context->bytes > head ? context->bytes - head : 0;
    *bound = &context->bound;
    return (uint8_t *)context + head;
}

size_t ossa_sampling_context_size_for(const ossa_animation *animation)
{
    if (!animation || !animation->kinds) return 0;
    if (sorted_keys(animation))
        return align16(sizeof(struct ossa_sampling_context)) +
               ossa__sorted_state_size(animation->soa_count, animation->animated_count);
    size_t offsets[L_END];
    const context_shape shape = shape_for(animation, false);
    return layout(&shape, offsets);
}

size_t ossa_sampling_context_playback_size_for(const ossa_animation *animation)
{
    if (!animation || !animation->kinds) return 0;
    if (sorted_keys(animation)) return ossa_sampling_context_size_for(animation);
    size_t offsets[L_END];
    const context_shape shape = shape_for(animation, true);
    return layout(&shape, offsets);
}

bool ossa_sampling_context_cache_pays(const ossa_animation *animation)
{
    if (!animation || !animation->kinds || animation->animated_count == 0 || sorted_keys(animation)) return false;
    /* Keys per second of an average animated sub-track (the segments' first keys included). */
    const double rate = (double)animation->key_count / ((double)animation->animated_count * (double)animation->duration);
    return rate >= OSSA_SAMPLING_CACHE_MIN_KEY_RATE;
}

size_t ossa_sampling_context_recommended_size_for(const ossa_animation *animation)
{
    return ossa_sampling_context_cache_pays(animation) ? ossa_sampling_context_playback_size_for(animation)
                                                       : ossa_sampling_context_size_for(animation);
}

/* A context of shape s, with its playback cache when the size has room for it; NULL when it
 * does not fit. */
static ossa_sampling_context *context_init(void *memory, size_t size, context_shape s)
{
    if (!memory || ossa__misaligned(memory)) return NULL;
    size_t offsets[L_END];
    if (s.cache_groups && size < layout(&s, offsets)) s.cache_groups = 0;
    if (size < layout(&s, offsets)) return NULL;
    uint8_t *base = memory;
    ossa_sampling_context *ctx = memory;
    memset(ctx, 0, sizeof *ctx);
    ctx->max_soa = s.soa;
    ctx->max_animated = s.animated;
    ctx->max_groups = s.groups;
    ctx->max_ranged = s.ranged;
    ctx->max_rest = s.rest;
    ctx->bytes = layout(&s, offsets);
    const size_t cache_groups = ctx->cache_groups = s.cache_groups;
    ctx->rest_at = (uint32_t *)(void *)(base + offsets[L_REST_AT]);
    ctx->first_at = (uint32_t *)(void *)(base + offsets[L_FIRST_AT]);
    ctx->key_bits = (uint16_t *)(void *)(base + offsets[L_BITS]);
    ctx->first_bits = (uint16_t *)(void *)(base + offsets[L_FIRST_BITS]);
    ctx->ranged_of = (uint16_t *)(void *)(base + offsets[L_RANGED_OF]);
    ctx->ranged = (ranged_track *)(void *)(base + offsets[L_RANGED]);
    ctx->groups = (sub_group *)(void *)(base + offsets[L_GROUPS]);
    if (s.groups >= SCAN_MIN_GROUPS) {
        ctx->fresh_from = (int32_t *)(void *)(base + offsets[L_FRESH]);
        ctx->fresh_until = ctx->fresh_from + fresh_entries(s.groups);
    }
    ctx->rest = (float *)(void *)(base + offsets[L_REST]);
    ctx->copy = base + offsets[L_COPY];
    if (cache_groups) {
        ctx->cache = (cache_key *)(void *)(base + offsets[L_CACHE]);
        /* Zeroed once: integers the fills never write (a dropped rotation component, a time
         * point without a key) are then defined, and never selected. */
        ctx->fill_q = (int32_t(*)[4][4])(void *)(base + offsets[L_FILL]);
        ctx->fill_key = (float(*)[4][4])(void *)(base + offsets[L_FILL] + FILL_GRID);
        memset(base + offsets[L_FILL], 0, 2 * FILL_GRID);
    }
    return ctx;
}

ossa_sampling_context *ossa_sampling_context_init(void *memory, size_t size, size_t max_tracks)
{
    if (max_tracks > OSSA_MAX_JOINTS) return NULL;
    return context_init(memory, size, shape_of_tracks(max_tracks));
}

ossa_sampling_context *ossa_sampling_context_init_for(void *memory, size_t size, const ossa_animation *animation)
{
    if (!animation || !animation->kinds) return NULL;
    if (sorted_keys(animation)) {
        /* Only the header: the packed sampler refuses such a context (no arrays). */
        const size_t bytes = ossa_sampling_context_size_for(animation);
        if (!memory || ossa__misaligned(memory) || size < bytes) return NULL;
        ossa_sampling_context *ctx = memory;
        memset(ctx, 0, sizeof *ctx);
        ctx->max_soa = animation->soa_count;
        ctx->max_animated = animation->animated_count;
        ctx->bytes = bytes;
        return ctx;
    }
    return context_init(memory, size, shape_for(animation, true));
}

void ossa_sampling_context_invalidate(ossa_sampling_context *context)
{
    if (context) context->bound = NULL;
}

size_t ossa_sampling_context_max_tracks(const ossa_sampling_context *context)
{
    return context ? context->max_soa * 4 : 0;
}

size_t ossa_sampling_context_max_animated(const ossa_sampling_context *context)
{
    return context ? context->max_animated : 0;
}

ossa_result ossa_sampling_job_validate(const ossa_sampling_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->animation) return OSSA_ERROR_NO_ANIMATION;
    if (!job->context) return OSSA_ERROR_NO_CONTEXT;
    if (job->context->max_soa < job->animation->soa_count ||
        job->context->max_animated < job->animation->animated_count)
        return OSSA_ERROR_CONTEXT_TOO_SMALL;
    if (!isfinite(job->ratio)) return OSSA_ERROR_INVALID_RATIO;
    if (!job->output) return OSSA_ERROR_NO_OUTPUT;
    if (job->output_count < job->animation->soa_count) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    const ossa_animation *a = job->animation;
    if (a->rest_count && (!job->rest_pose || job->rest_pose_count < a->soa_count)) return OSSA_ERROR_NO_REST_POSE;
    if (!sorted_keys(a) && !job->context->rest_at) return OSSA_ERROR_CONTEXT_TOO_SMALL; /* a sorted-key context */
    if (ossa__misaligned(job->output) || (job->rest_pose && ossa__misaligned(job->rest_pose)))
        return OSSA_ERROR_MISALIGNED;
    /* The output must not overlap the context, the blob (header to key data) or the rest pose. */
    const size_t out_bytes = a->soa_count * sizeof *job->output;
    const uint8_t *blob = a->kinds ? ossa__animation_blob(a) : NULL;
    if (ossa__overlaps(job->output, out_bytes, job->context, job->context->bytes) ||
        (blob && ossa__overlaps(job->output, out_bytes, blob, (size_t)(a->data + a->data_size - blob))) ||
        (job->rest_pose && ossa__overlaps(job->output, out_bytes, job->rest_pose, out_bytes)))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

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

/* Dequantises integers q ([component][lane]) into values of every lane: min + q * step, four
 * lanes at a time; rotations get their dropped component back: with r = sqrt(1 - c0^2 - c1^2
 * - c2^2) and d the dropped index, x = d==0 ? r : c0, y = d==0 ? c0 : d==1 ? r : c1, z = d<=1
 * ? c1 : d==2 ? r : c2, w = d<=2 ? c2 : d==3 ? r : c3 (d = 4: all four stored). n (3 or 4
 * components) and d (the format of every lane, or MIXED_FORMATS: per-lane selects) are
 * constants at each call. */
OSSA__INLINE void dequantise_key(const sub_group *g, const v4f *selects, const int32_t *q, float *value, int n, int d)
{
    v4f c[4];
    for (int i = 0; i < n; ++i)
        c[i] = v4f_madd(v4i_to_f(v4i_load(q + 4 * i)), v4f_load(g->step[i]), v4f_load(g->min[i]));
    if (n == 3 || d == OSSA__ROT_FULL) {
        for (int i = 0; i < n; ++i) v4f_store(value + 4 * i, c[i]);
        return;
    }
    const v4f rest = v4f_sub(v4f_one(), v4f_madd(c[0], c[0], v4f_madd(c[1], c[1], v4f_mul(c[2], c[2]))));
    const v4f r = v4f_sqrt(v4f_max(rest, v4f_zero()));
    if (d != MIXED_FORMATS) {
        for (int i = 0, k = 0; i < 4; ++i) v4f_store(value + 4 * i, i == d ? r : c[k++]);
        return;
    }
    const v4f is0 = selects[0], is1 = selects[1], is2 = selects[2], is3 = selects[3];
    const v4f le1 = selects[4], le2 = selects[5];
    v4f_store(value, v4f_select(is0, r, c[0]));
    v4f_store(value + 4, v4f_select(is0, c[0], v4f_select(is1, r, c[1])));
    v4f_store(value + 8, v4f_select(le1, c[1], v4f_select(is2, r, c[2])));
    v4f_store(value + 12, v4f_select(le2, c[2], v4f_select(is3, r, c[3])));
}

/* Dequantises `count` keys of group g, key t from q + t * q_stride into value + t *
 * v_stride (both [component][lane]): one loop per component count and rotation format, so
 * that neither is tested per key. */
static void dequantise_keys(const sub_group *g, const int32_t *q, size_t q_stride, float *value, size_t v_stride,
                            uint32_t count)
{
#define DEQUANTISE_KEYS(N, D)                                                                                          \
    for (uint32_t t = 0; t < count; ++t) dequantise_key(g, selects, q + t * q_stride, value + t * v_stride, (N), (D)); \
    return
    if (g->same_format != MIXED_FORMATS || g->components == 3) {
        const v4f *const selects = NULL; /* read only with mixed rotation formats */
        if (g->components == 3) {
            DEQUANTISE_KEYS(3, MIXED_FORMATS);
        }
        switch (g->same_format) {
        case 0:
            DEQUANTISE_KEYS(4, 0);
        case 1:
            DEQUANTISE_KEYS(4, 1);
        case 2:
            DEQUANTISE_KEYS(4, 2);
        case 3:
            DEQUANTISE_KEYS(4, 3);
        default:
            DEQUANTISE_KEYS(4, OSSA__ROT_FULL);
        }
    }
    /* The lanes whose dropped component is 0, 1, 2, 3, and at most 1, at most 2. */
    const v4i d = v4i_set(g->format[0], g->format[1], g->format[2], g->format[3]);
    v4f selects[6];
    for (int k = 0; k < 4; ++k) selects[k] = v4i_as_f(v4i_cmpeq(d, v4i_set1(k)));
    selects[4] = v4i_as_f(v4i_cmpgt(v4i_set1(2), d));
    selects[5] = v4i_as_f(v4i_cmpgt(v4i_set1(3), d));
    DEQUANTISE_KEYS(4, MIXED_FORMATS);
#undef DEQUANTISE_KEYS
}

/* Dequantises the integers q[key] ([component][lane]) of the lanes `lanes[key]` (bits) of
 * both keys into the values of lane mode; the other lanes keep theirs. */
OSSA__INLINE void dequantise(sub_group *g, int32_t (*q)[4][4], const unsigned lanes[2])
{
    if (lanes[0] == 15u && lanes[1] == 15u) { /* random access: every lane, both keys */
        dequantise_keys(g, q[0][0], 16, g->value[0][0], 16, 2u);
        return;
    }
    static const int32_t lane_bits[4] = {1, 2, 4, 8};
    const v4i bits = v4i_load(lane_bits);
    for (int k = 0; k < 2; ++k) {
        if (!lanes[k]) continue;
        if (lanes[k] == 15u) {
            dequantise_keys(g, q[k][0], 16, g->value[k][0], 16, 1u);
            continue;
        }
        OSSA_ALIGNAS(16) float v[4][4];
        dequantise_keys(g, q[k][0], 16, v[0], 16, 1u);
        const v4f taken = v4i_as_f(v4i_cmpeq(v4i_and(v4i_set1((int32_t)lanes[k]), bits), bits));
        for (int c = 0; c < g->components; ++c)
            v4f_store(g->value[k][c], v4f_select(taken, v4f_load(v[c]), v4f_load(g->value[k][c])));
    }
}

/* Completes group g: one rotation format for all lanes when they share it, and finite values
 * everywhere (the keys of integers 0: min, and identity in padding lanes). */
static void finish_group(sub_group *g)
{
    /* Padding lanes write to lane 0's joint, before lane 0 does (interpolate). */
    for (size_t l = g->lanes; l < 4; ++l) g->format[l] = g->format[0], g->dest[l] = g->dest[0];
    const bool same = g->format[1] == g->format[0] && g->format[2] == g->format[0] && g->format[3] == g->format[0];
    g->same_format = g->channel == OSSA__CH_ROTATION && same ? g->format[0] : MIXED_FORMATS;
    OSSA_ALIGNAS(16) int32_t zero[2][4][4] = {{{0}}};
    static const unsigned all[2] = {15u, 15u};
    dequantise(g, zero, all);
}

/* A new group of channel c; its lanes are padding (bracketing every ratio, identity) until
 * add_lane fills them. */
static sub_group *new_group(ossa_sampling_context *ctx, int c)
{
    sub_group *g = &ctx->groups[ctx->group_count++];
    memset(g, 0, sizeof *g);
    for (int l = 0; l < 4; ++l) {
        g->ratio[0][l] = -1.f, g->ratio[1][l] = 2.f;
        g->frame[0][l] = 0, g->frame[1][l] = INT32_MAX;
        g->format[l] = OSSA__ROT_FULL;
        g->min[3][l] = 1.f;
    }
    g->channel = (uint8_t)c;
    g->components = c == OSSA__CH_ROTATION ? 4 : 3;
    return g;
}

/* Puts joint j's animated sub-track of channel c in the next lane of g. */
static void add_lane(const ossa_animation *a, sub_group *g, int c, size_t j, const uint16_t *sub_of,
                     const uint32_t *range_at)
{
    const size_t lane = g->lanes++;
    const uint16_t i = sub_of[j * 3 + (size_t)c];
    const int format = a->formats[i] & OSSA__FORMAT_MASK, n = ossa__format_components(c, format);
    const float *range = a->ranges + range_at[i];
    const size_t member = c == OSSA__CH_TRANSLATION ? offsetof(ossa_soa_transform, translation)
                          : c == OSSA__CH_ROTATION  ? offsetof(ossa_soa_transform, rotation)
                                                    : offsetof(ossa_soa_transform, scale);
    g->sub[lane] = i;
    g->dest[lane] = (uint32_t)((j / 4) * sizeof(ossa_soa_transform) + member + (j % 4) * sizeof(float));
    g->format[lane] = (uint8_t)format;
    g->ratio[0][lane] = INFINITY, g->ratio[1][lane] = -INFINITY; /* stale */
    g->frame[0][lane] = g->frame[1][lane] = UINT32_MAX;
    g->min[3][lane] = 0.f;
    for (int k = 0; k < n; ++k) g->min[k][lane] = range[k], g->step[k][lane] = range[n + k];
}

/* The groups of channel c: every SoA group of 4 joints all animated in c becomes an aligned
 * group (interpolated straight into its output group); the other animated sub-tracks are
 * packed four at a time, written lane by lane: rotations by format, then in joint order, so
 * that most packed groups decode their keys with one format for all lanes. */
static void make_groups(const ossa_animation *a, ossa_sampling_context *ctx, int c, const uint16_t *sub_of,
                        const uint32_t *range_at)
{
    uint8_t aligned[OSSA_MAX_SOA_JOINTS];
    for (size_t jg = 0; jg < a->soa_count; ++jg) {
        aligned[jg] = animated_in(a, jg, c) == 4;
        if (!aligned[jg]) continue;
        sub_group *g = new_group(ctx, c);
        g->aligned = 1;
        for (size_t j = jg * 4; j < jg * 4 + 4; ++j) add_lane(a, g, c, j, sub_of, range_at);
        finish_group(g);
    }
    sub_group *g = NULL;
    const int formats = c == OSSA__CH_ROTATION ? OSSA__ROT_FULL + 1 : 1;
    for (int f = 0; f < formats; ++f) {
        for (size_t j = 0; j < a->track_count; ++j) {
            if (aligned[j / 4] || ossa__kind(a->kinds, j * 3 + (size_t)c) != OSSA__KIND_ANIMATED) continue;
            if (c == OSSA__CH_ROTATION && (a->formats[sub_of[j * 3 + (size_t)c]] & OSSA__FORMAT_MASK) != f) continue;
            if (!g) g = new_group(ctx, c);
            add_lane(a, g, c, j, sub_of, range_at);
            if (g->lanes == 4) finish_group(g), g = NULL;
        }
    }
    if (g) finish_group(g);
}

/* The time points all lanes of group gi bracket (fresh_from, fresh_until), from its lanes'. */
static inline void note_fresh(ossa_sampling_context *ctx, size_t gi)
{
    const sub_group *g = &ctx->groups[gi];
    ctx->fresh_from[gi] = v4i_hmax(v4i_load((const int32_t *)g->frame[0]));
    ctx->fresh_until[gi] = v4i_hmin(v4i_load((const int32_t *)g->frame[1]));
}

/* Binds `a`: default and constant values go to the rest values the output starts from, the
 * animated sub-tracks to groups, all stale. False, with the context left unbound, when the
 * context has no room for a's groups, its sub-tracks with segment ranges or its rest values
 * (a context sized for another animation with as many animated sub-tracks). */
static bool bind(const ossa_animation *a, ossa_sampling_context *ctx, const ossa_soa_transform *rest)
{
    ctx->bound = NULL;
    if (ranged_count_of(a) > ctx->max_ranged || group_count_of(a) > ctx->max_groups ||
        rest_layout(a, ctx->copy, &ctx->copy_all) > ctx->max_rest)
        return false;
    size_t with[8] = {0};
    for (size_t jg = 0; jg < a->soa_count; ++jg) ++with[ctx->copy[jg]];
    ctx->copy_usual = 0;
    for (uint8_t bits = 1; bits < 8; ++bits) ctx->copy_usual = with[bits] > with[ctx->copy_usual] ? bits : ctx->copy_usual;
    /* Where each SoA group's copied channels start in ctx->rest. */
    uint32_t group_at[OSSA_MAX_SOA_JOINTS];
    uint32_t at = 0;
    for (size_t jg = 0; jg < a->soa_count; ++jg) {
        const unsigned stored = ctx->copy_all ? 7u : ctx->copy[jg];
        group_at[jg] = at;
        for (int c = 0; c < 3; ++c) at += stored >> c & 1u ? channel_floats[c] : 0u;
    }
    uint16_t sub_of[3 * OSSA_MAX_JOINTS];
    uint32_t range_at[3 * OSSA_MAX_JOINTS];
    size_t word = 0, animated = 0, range = 0;
    ctx->ranged_count = ctx->entries = ctx->group_count = 0;
    ctx->first_block = 0;
    for (size_t j = 0; j < a->soa_count * 4; ++j) {
        for (int c = 0; c < 3; ++c) {
            const size_t s = j * 3 + (size_t)c;
            const uint32_t kind = j < a->track_count ? ossa__kind(a->kinds, s) : OSSA__KIND_DEFAULT;
            if (kind == OSSA__KIND_ANIMATED) {
                const int n = ossa__format_components(c, a->formats[animated]);
                const uint8_t *w = &a->bits[4 * animated];
                sub_of[s] = (uint16_t)animated;
                range_at[animated] = (uint32_t)range;
                ctx->key_bits[animated] = ctx->first_bits[animated] = (uint16_t)(w[0] + w[1] + w[2] + w[3]);
                ctx->first_at[animated] = ctx->first_block;
                ctx->first_block += ctx->first_bits[animated];
                ctx->ranged_of[animated] = UINT16_MAX;
                if (a->formats[animated] & OSSA__FORMAT_SEGMENT_RANGES) {
                    ranged_track *r = &ctx->ranged[ctx->ranged_count];
                    memset(r, 0, sizeof *r);
                    r->sub = (uint16_t)animated, r->entry = (uint16_t)ctx->entries, r->stored = (uint8_t)n;
                    for (int k = 0; k < n; ++k) r->shift[k] = (uint8_t)ossa__segment_shift(w[k]);
                    ctx->ranged_of[animated] = (uint16_t)ctx->ranged_count++;
                    ctx->entries += 2 * (size_t)n;
                }
                range += 2 * (size_t)n;
                ++animated;
            }
            /* An animated sub-track's value is the default, until its lanes write it. */
            float v[4];
            ossa__fixed_value(a, kind, c, j, rest, &word, v);
            const unsigned stored = ctx->copy_all ? 7u : ctx->copy[j / 4];
            if (stored >> c & 1u) {
                float *d = ctx->rest + group_at[j / 4] + j % 4;
                for (int k = 0; k < c; ++k) d += stored >> k & 1u ? channel_floats[k] : 0u;
                for (unsigned k = 0; k < channel_floats[c] / 4; ++k) d[4 * k] = v[k];
            }
        }
    }
    for (size_t i = animated; i < animated + 8; ++i) ctx->key_bits[i] = 0;
    for (int c = 0; c < 3; ++c) make_groups(a, ctx, c, sub_of, range_at);
    ctx->fresh_kept = false;
    ctx->refresh_average = 16u * (uint32_t)ctx->group_count; /* as if every group refreshed */
    for (size_t gi = ctx->group_count; ctx->fresh_from && gi < ((ctx->group_count + 7) & ~(size_t)7); ++gi)
        ctx->fresh_from[gi] = INT32_MIN, ctx->fresh_until[gi] = INT32_MAX;
    for (size_t gi = 0; gi < ctx->group_count; ++gi) {
        sub_group *g = &ctx->groups[gi];
        bool narrow = true, ranged = false;
        for (size_t l = 0; l < g->lanes; ++l) {
            narrow = narrow && ctx->first_bits[g->sub[l]] <= 57;
            ranged = ranged || ctx->ranged_of[g->sub[l]] != UINT16_MAX;
        }
        g->vector_keys = narrow, g->ranged = ranged;
    }
    ctx->bound = a->kinds;
    ctx->bound_rest = rest;
    ctx->bound_animated = a->animated_count;
    ctx->bound_frames = a->frame_count;
    ctx->bound_keys = a->key_count;
    ctx->bound_data_size = a->data_size;
    ctx->segment = UINT32_MAX;
    ctx->cache_segment = ctx->last_frame = UINT32_MAX;
    ctx->last_near = false;
    return true;
}

/* Bit offset of the data of `segment`'s first-key block. */
static inline uint32_t block_at(const ossa_animation *a, const ossa_sampling_context *ctx, uint32_t segment)
{
    return (a->segment_offsets[segment] + 2 * (uint32_t)a->animated_count + (uint32_t)ctx->entries) * 8u;
}

/* For `segment`: the key bits of the sub-tracks with segment ranges, then the bit offset of
 * every animated sub-track's second key, prefix sums of (popcount(bitmap) - 1) x key bits 8
 * sub-tracks at a time after the first-key block (the data's padding covers the loads past
 * the last bitmap, and their key bits are 0). */
static void segment_setup(const ossa_animation *a, ossa_sampling_context *ctx, uint32_t segment)
{
    const size_t n = a->animated_count;
    const uint8_t *p = a->data + a->segment_offsets[segment];
    const uint8_t *entries = p + 2 * n;
    for (size_t k = 0; k < ctx->ranged_count; ++k) {
        ranged_track *r = &ctx->ranged[k];
        const uint8_t *e = entries + r->entry; /* base, width of each stored component */
#if defined(__AVX2__)
        /* The same, the four components at once: one 8-byte load (a 3-component entry's next
         * two bytes, the next entry's or the key data's, are cleared), bases and widths to
         * their lanes by byte shuffles, the bases shifted component by component. */
        const v4i pairs = v4i_and(v16u8_load8(e), r->stored == 4 ? v4i_set1(-1) : v4i_set(-1, 0xffff, 0, 0));
        const v4i bases = v16u8_shuffle(
            pairs, v4i_set((int32_t)0x80808000, (int32_t)0x80808002, (int32_t)0x80808004, (int32_t)0x80808006));
        const v4i widths =
            v16u8_shuffle(pairs, v4i_set(0x07050301, (int32_t)0x80808080, (int32_t)0x80808080, (int32_t)0x80808080));
        v4i_storeu(r->base, v4i_sllv(bases, v4i_load_u8x4(r->shift)));
        const int32_t w = v4i_x(widths);
        memcpy(r->width, &w, sizeof w);
        ctx->key_bits[r->sub] = (uint16_t)v16u8_sum8(widths);
#else
        r->base[0] = (uint32_t)e[0] << r->shift[0], r->width[0] = e[1];
        r->base[1] = (uint32_t)e[2] << r->shift[1], r->width[1] = e[3];
        r->base[2] = (uint32_t)e[4] << r->shift[2], r->width[2] = e[5];
        unsigned bits = (unsigned)e[1] + e[3] + e[5];
        if (r->stored == 4) r->base[3] = (uint32_t)e[6] << r->shift[3], r->width[3] = e[7], bits += e[7];
        ctx->key_bits[r->sub] = (uint16_t)bits;
#endif
    }
    uint32_t at = block_at(a, ctx, segment) + ctx->first_block;
    uint32_t *out = ctx->rest_at;
    const v4i one = v8u16_set1(1);
    for (size_t i = 0; i < n; i += 8) {
        /* Bit 0 is set in every bitmap: popcount - 1 keys follow the first. */
        const v4i bits = v8u16_mullo(v8u16_sub(v8u16_popcount(v8u16_loadu(p + 2 * i)), one),
                                     v8u16_loadu((const uint8_t *)(ctx->key_bits + i)));
        const v4i inclusive = v8u16_prefix(bits);
        const v4i exclusive = v8u16_sub(inclusive, bits);
        const v4i start = v4i_set1((int32_t)at);
        v4i_storeu(out + i, v4i_add(start, v8u16_lo32(exclusive)));
        v4i_storeu(out + i + 4, v4i_add(start, v8u16_hi32(exclusive)));
        at += v8u16_last(inclusive);
    }
}

/* Makes `segment` current: its bit offsets and the ratios of its time points. */
static void enter_segment(const ossa_animation *a, ossa_sampling_context *ctx, uint32_t segment)
{
    segment_setup(a, ctx, segment);
    ctx->segment_data = a->data + a->segment_offsets[segment];
    ctx->segment_block = block_at(a, ctx, segment);
    const uint32_t first = segment * OSSA__SEGMENT_FRAMES, last = (uint32_t)a->frame_count - 1;
    if (!a->timepoints && last - first >= OSSA__SEGMENT_FRAMES + 3) {
        /* Uniform time points, all 20 in the clip: four divisions at a time, each as
         * ossa__frame_ratio's (32-bit integer to float, correctly rounded division). */
        const v4f count = v4f_set1((float)(int32_t)(a->frame_count - 1));
        for (int f = 0; f < OSSA__SEGMENT_FRAMES + 4; f += 4) {
            const v4i frames = v4i_add(v4i_set1((int32_t)(first + (uint32_t)f)), v4i_set(0, 1, 2, 3));
            v4f_store(ctx->segment_ratio + f, v4f_div(v4i_to_f(frames), count));
        }
    } else {
        for (uint32_t f = 0; f <= OSSA__SEGMENT_FRAMES; ++f)
            ctx->segment_ratio[f] = first + f <= last ? ossa__frame_ratio(a, first + f) : 1.f;
    }
    ctx->segment = segment;
}

/* Component c of a key whose components start at bit 0 of `word` (widths w): one bzhi
 * instruction where the target has BMI2, a table lookup and an AND otherwise. */
#if defined(__BMI2__)
#include <immintrin.h>
/* BMI2's BZHI: the low `width` bits in one instruction (GCC 12 builds the mask with a shift
 * and a subtraction from the plain expression). */
#define TAKE(word, width) ((uint32_t)_bzhi_u64((word), (width)))
#else
/* The low `width` bits set, for every width a blob may have (validated: at most
 * OSSA__MAX_BITS): one AND with a table entry instead of building the mask with a shift. */
static const uint32_t low_mask[OSSA__MAX_BITS + 1] = {
    0x0u,     0x1u,     0x3u,     0x7u,      0xfu,      0x1fu,     0x3fu,     0x7fu,   0xffu,
    0x1ffu,   0x3ffu,   0x7ffu,   0xfffu,    0x1fffu,   0x3fffu,   0x7fffu,   0xffffu, 0x1ffffu,
    0x3ffffu, 0x7ffffu, 0xfffffu, 0x1fffffu, 0x3fffffu, 0x7fffffu, 0xffffffu,
};

#define TAKE(word, width) ((uint32_t)(word)&low_mask[(width)])
#endif

/* Stores the integers of a key with n (3 or 4, a constant) components that start at bit `at`
 * of `data`, the animation's key data (widths wd, each plus its segment range base when `ranged`) in lane l of dest
 * ([component][lane]); one 8-byte load when the key fits in its 57 usable bits. */
OSSA__INLINE void store_key(const uint8_t *data, int32_t (*dest)[4], size_t l, size_t at, unsigned bits,
                            const uint32_t wd[4], const uint32_t base[4], int n, bool ranged)
{
    uint32_t q[4];
    if (bits <= 57) {
        uint64_t word;
        memcpy(&word, data + (at >> 3), sizeof word);
        word >>= at & 7;
        for (int c = 0; c < n; ++c) q[c] = TAKE(word, wd[c]), word >>= wd[c];
    } else {
        /* Two loads: components are at most 24 bits wide, so two of them fit in one. */
        uint64_t word;
        memcpy(&word, data + (at >> 3), sizeof word);
        word >>= at & 7;
        q[0] = TAKE(word, wd[0]), word >>= wd[0];
        q[1] = TAKE(word, wd[1]);
        at += wd[0] + wd[1];
        memcpy(&word, data + (at >> 3), sizeof word);
        word >>= at & 7;
        q[2] = TAKE(word, wd[2]);
        if (n == 4) q[3] = TAKE(word >> wd[2], wd[3]);
    }
    for (int c = 0; c < n; ++c) dest[c][l] = (int32_t)(ranged ? q[c] + base[c] : q[c]);
}

/* The integers of sub-track i's key `index` (0 = the first, in the first-key block) of the
 * current segment, or with `next` the first key of the next segment, into lane l of dest:
 * at the clip widths, or at the segment's when the sub-track has segment ranges. n is the
 * lane's stored component count (4 for OSSA__ROT_FULL rotations, 3 otherwise; a constant at
 * each call): a rotation's dropped component keeps a stale integer that dequantise_key() never
 * selects. */
OSSA__INLINE void read_key(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g, size_t l,
                           int32_t (*dest)[4], uint32_t segment, unsigned index, bool next, int n)
{
    const size_t i = g->sub[l];
    const uint8_t *w = &a->bits[4 * i];
    const uint32_t clip[4] = {w[0], w[1], w[2], w[3]}; /* the fourth only read when n is 4 */
    if (next || index == 0) {
        const size_t at = (next ? block_at(a, ctx, segment + 1u) : ctx->segment_block) + ctx->first_at[i];
        store_key(a->data, dest, l, at, ctx->first_bits[i], clip, clip, n, false);
        return;
    }
    const unsigned bits = ctx->key_bits[i];
    const size_t at = ctx->rest_at[i] + (index - 1u) * bits;
    if (ctx->ranged_of[i] == UINT16_MAX) {
        store_key(a->data, dest, l, at, bits, clip, clip, n, false);
        return;
    }
    const ranged_track *r = &ctx->ranged[ctx->ranged_of[i]];
    const uint32_t wd[4] = {r->width[0], r->width[1], r->width[2], r->width[3]};
    store_key(a->data, dest, l, at, bits, wd, r->base, n, true);
}

/* Keys `index` and index + 1 of a lane with widths wd and bases `base` (`ranged`, a constant:
 * the sub-track has segment ranges) into left and right: the first from the first-key block
 * when index is 0, the second from the next segment's when `next`. */
OSSA__INLINE void read_pair_of(const ossa_animation *a, const ossa_sampling_context *ctx, size_t i, size_t l,
                               int32_t (*left)[4], int32_t (*right)[4], uint32_t segment, unsigned index, bool next,
                               const uint32_t clip[4], const uint32_t wd[4], const uint32_t base[4], int n,
                               bool ranged)
{
    const unsigned bits = ctx->key_bits[i];
    const size_t at = ctx->rest_at[i] + (size_t)index * bits; /* key index + 1 */
    if (index == 0)
        store_key(a->data, left, l, ctx->segment_block + ctx->first_at[i], ctx->first_bits[i], clip, clip, n, false);
    else
        store_key(a->data, left, l, at - bits, bits, wd, base, n, ranged);
    if (next)
        store_key(a->data, right, l, block_at(a, ctx, segment + 1u) + ctx->first_at[i], ctx->first_bits[i], clip, clip,
                  n, false);
    else
        store_key(a->data, right, l, at, bits, wd, base, n, ranged);
}

/* Keys `index` and index + 1 of lane l in the current segment, as read_key reads them one at
 * a time (`next`: the second is the next segment's first key), with one lookup of the
 * sub-track's widths and offsets for both. n: see read_key. */
OSSA__INLINE void read_pair(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g, size_t l,
                            int32_t (*left)[4], int32_t (*right)[4], uint32_t segment, unsigned index, bool next,
                            int n)
{
    const size_t i = g->sub[l];
    const uint8_t *w = &a->bits[4 * i];
    const uint32_t clip[4] = {w[0], w[1], w[2], w[3]}; /* the fourth only read when n is 4 */
    if (ctx->ranged_of[i] == UINT16_MAX) {
        read_pair_of(a, ctx, i, l, left, right, segment, index, next, clip, clip, clip, n, false);
        return;
    }
    const ranged_track *r = &ctx->ranged[ctx->ranged_of[i]];
    const uint32_t wd[4] = {r->width[0], r->width[1], r->width[2], r->width[3]};
    read_pair_of(a, ctx, i, l, left, right, segment, index, next, clip, wd, r->base, n, true);
}


/* Copies key `from` of lane l (values, ratio) to key `to`. */
OSSA__INLINE void move_key(sub_group *g, size_t l, int from, int to)
{
    for (int c = 0; c < 4; ++c) g->value[to][c][l] = g->value[from][c][l];
    g->ratio[to][l] = g->ratio[from][l];
}

/* New left and right keys of lane l around time point `frame` (in the current `segment`); a
 * key already cached (the old right key becomes the left one in forward playback, the old
 * left the right one backward) is moved, not read again. The left key is key number
 * popcount(bits up to the frame) - 1 of the segment, the right one the next, or past the
 * segment the next segment's first key. n: see read_key. */
OSSA__INLINE unsigned refresh_lane(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g, size_t l,
                                   int32_t (*q)[4][4], uint32_t frame, uint32_t segment, int n)
{
    const size_t i = g->sub[l];
    const uint32_t first = segment * OSSA__SEGMENT_FRAMES;
    const uint8_t *p = ctx->segment_data + 2 * i;
    const uint32_t bm = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
    const uint32_t upto = (2u << (frame - first)) - 1u, below = bm & upto, above = bm & ~upto;
    const unsigned lb = highest_bit(below), rb = above ? lowest_bit(above) : OSSA__SEGMENT_FRAMES;
    const unsigned index = ossa__popcount16(below) - 1u; /* bit 0 is set in every bitmap */
    const uint32_t left_frame = first + lb, right_frame = first + rb;
    uint32_t have_left = g->frame[0][l], have_right = g->frame[1][l];
    /* Constant key indices in each branch: the moves compile to plain loads and stores. */
    if (have_right == left_frame) {
        move_key(g, l, 1, 0);
        have_left = left_frame, have_right = UINT32_MAX;
    } else if (have_left == right_frame) {
        move_key(g, l, 0, 1);
        have_left = UINT32_MAX, have_right = right_frame;
    }
    unsigned read = 0;
    if (have_left != left_frame) {
        read |= 1u;
        read_key(a, ctx, g, l, q[0], segment, index, false, n);
        g->ratio[0][l] = ctx->segment_ratio[lb];
    }
    if (have_right != right_frame) {
        read |= 2u;
        read_key(a, ctx, g, l, q[1], segment, index + 1u, rb == OSSA__SEGMENT_FRAMES, n);
        g->ratio[1][l] = ctx->segment_ratio[rb];
    }
    g->frame[0][l] = left_frame, g->frame[1][l] = right_frame;
    return read;
}

#if defined(__AVX2__)
/* Four lanes at a time (x86-64-v3: per-lane shifts of 64-bit words): what seek_group, and
 * refresh_lane when a group's four lanes all cross their keys at once, do one lane at a time,
 * for the groups whose lanes read each key with one 8-byte load (g->vector_keys, and keys of
 * at most 57 bits in the segment). Same keys, same integers, same functions after them: the
 * poses are the same bit for bit. */

/* floor(log2(v)) of each lane (1 <= v < 2^24): the exponent of its exact float conversion. */
static inline v4i highest_bits(v4i v) { return v4i_sub(V4I_SRL(v4f_as_i(v4i_to_f(v)), 23), v4i_set1(127)); }

static inline v4i v4i_select(v4i mask, v4i b, v4i a)
{
    return v4f_as_i(v4f_select(v4i_as_f(mask), v4i_as_f(b), v4i_as_f(a)));
}

/* The keys around time point `frame` of each lane of g in the current `segment`: the time
 * points of the left key (lb) and the right one (rb; 16: the next segment's first key) in
 * the segment, the bit offsets of both keys, and the lanes' component widths (bytes w0..w3 of
 * each lane). Padding lanes find sub-track 0's keys, in bounds, and use none of them. */
typedef struct lane_keys {
    v4i lb, rb, left_at, right_at;
    v4i left_widths, right_widths;   /* bytes w0..w3 of each lane */
    v4i left_base[4], right_base[4]; /* [component] segment range bases (with `ranged`) */
    bool wide;                       /* some lane's keys in the segment take more than 57 bits:
                                        they are read lane by lane */
} lane_keys;

/* Sub-track s's bitmap in the current segment, as one 16-bit load (this copy runs on x86,
 * little-endian): GCC merges the two byte loads of the portable form across the four lanes
 * into a dozen shifts and ORs. */
static inline int32_t bitmap_of(const ossa_sampling_context *ctx, size_t s)
{
    uint16_t bm;
    memcpy(&bm, ctx->segment_data + 2 * s, sizeof bm);
    return bm;
}

/* With `ranged` (a constant: some lane of g has segment ranges), the keys of those lanes
 * inside the segment take the segment's widths and bases, as read_key reads them. */
OSSA__INLINE lane_keys locate_keys(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g,
                                   uint32_t frame, uint32_t segment, bool ranged)
{
    /* Each lane's table entries by scalar loads: on the CPUs measured the gather instructions
     * cost more time than four loads and inserts (docs/benchmarks.md). */
    const size_t s0 = g->sub[0], s1 = g->sub[1], s2 = g->sub[2], s3 = g->sub[3];
#define LANES(table) v4i_set((int32_t)(table)[s0], (int32_t)(table)[s1], (int32_t)(table)[s2], (int32_t)(table)[s3])
    const v4i bm = v4i_set(bitmap_of(ctx, s0), bitmap_of(ctx, s1), bitmap_of(ctx, s2), bitmap_of(ctx, s3));
    const v4i upto = v4i_set1((int32_t)((2u << (frame - segment * OSSA__SEGMENT_FRAMES)) - 1u));
    const v4i below = v4i_and(bm, upto);
    /* Bit 16 stands for the next segment's first key, when no key of the segment is after. */
    const v4i above = v4i_or(v4i_andnot(upto, bm), v4i_set1(1 << OSSA__SEGMENT_FRAMES));
    lane_keys k;
    k.lb = highest_bits(below);
    k.rb = highest_bits(v4i_and(above, v4i_sub(v4i_zero(), above)));
    /* Bit 0 is set in every bitmap: the left key is key popcount - 1. */
    const v4i index = v4i_sub(v4i_popcount16(below), v4i_set1(1));
    const v4i first = LANES(ctx->first_at), bits = LANES(ctx->key_bits);
    const v4i right_at = v4i_add(LANES(ctx->rest_at), v4i_mullo(index, bits)); /* key index + 1 */
    const v4i left_first = v4i_cmpeq(index, v4i_zero()), right_next = v4i_cmpeq(k.rb, v4i_set1(OSSA__SEGMENT_FRAMES));
    k.left_at = v4i_select(left_first, v4i_add(v4i_set1((int32_t)ctx->segment_block), first), v4i_sub(right_at, bits));
    k.right_at = v4i_select(right_next, v4i_add(v4i_set1((int32_t)block_at(a, ctx, segment + 1u)), first), right_at);
#define WIDTHS(s) ((int32_t)ossa__load_u32(&a->bits[4 * (s)]))
    const v4i clip = v4i_set(WIDTHS(s0), WIDTHS(s1), WIDTHS(s2), WIDTHS(s3));
#undef WIDTHS
#undef LANES
    k.left_widths = k.right_widths = clip;
    k.wide = false; /* first keys: g->vector_keys */
    if (!ranged) return k;
    k.wide = v4f_movemask(v4i_as_f(v4i_cmpgt(bits, v4i_set1(57)))) != 0;
    if (k.wide) return k;
    /* The lanes with segment ranges: their entries' widths and bases (the other lanes keep
     * the clip widths and a base of 0). */
    static const ranged_track none; /* zero */
    const ranged_track *r[4];
    int32_t rw[4];
    const size_t sub[4] = {s0, s1, s2, s3};
    for (int l = 0; l < 4; ++l) {
        const uint16_t ro = ctx->ranged_of[sub[l]];
        r[l] = ro == UINT16_MAX ? &none : &ctx->ranged[ro];
        rw[l] = ro == UINT16_MAX ? (int32_t)ossa__load_u32(&a->bits[4 * sub[l]]) : (int32_t)ossa__load_u32(r[l]->width);
    }
    const v4i widths = v4i_set(rw[0], rw[1], rw[2], rw[3]);
    k.left_widths = v4i_select(left_first, clip, widths);
    k.right_widths = v4i_select(right_next, clip, widths);
    /* Each lane's four bases in one load, then [lane][component] to [component][lane]. */
    v4f base[4];
    for (int l = 0; l < 4; ++l) base[l] = v4i_as_f(v8u16_loadu((const uint8_t *)r[l]->base));
    v4f_transpose4(&base[0], &base[1], &base[2], &base[3]);
    for (int c = 0; c < 4; ++c) {
        k.left_base[c] = v4i_andnot(left_first, v4f_as_i(base[c]));
        k.right_base[c] = v4i_andnot(right_next, v4f_as_i(base[c]));
    }
    return k;
}

/* The ratios of the time points first + t of each lane (t = lb or rb), as segment_ratio holds
 * them: for uniform time points the same division as enter_segment's. */
static inline v4f ratios_of(const ossa_animation *a, const ossa_sampling_context *ctx, uint32_t segment, v4i t)
{
    if (!a->timepoints) {
        const v4i frames = v4i_add(v4i_set1((int32_t)(segment * OSSA__SEGMENT_FRAMES)), t);
        return v4f_div(v4i_to_f(frames), v4f_set1((float)(int32_t)(a->frame_count - 1)));
    }
    OSSA_ALIGNAS(16) int32_t i[4];
    v4i_store(i, t);
    const float *r = ctx->segment_ratio;
    return v4f_set(r[i[0]], r[i[1]], r[i[2]], r[i[3]]);
}

/* The integers of four keys at bit offsets `at` (one per lane), n components (a constant) of
 * widths `widths` (bytes), plus base[component] when base is not NULL, into dest
 * ([component][lane]): store_key's one-load case, lane by lane shifts on 64-bit words. */
OSSA__INLINE void read_keys4(const uint8_t *data, v4i at, v4i widths, const v4i *base, int32_t (*dest)[4], int n)
{
    v4u64 word = v4u64_srlv(v4u64_gather(data, V4I_SRL(at, 3)), v4i_and(at, v4i_set1(7)));
    const v4i ones = v4i_set1(-1), byte = v4i_set1(0xff);
    const v4i w[4] = {v4i_and(widths, byte), v4i_and(V4I_SRL(widths, 8), byte), v4i_and(V4I_SRL(widths, 16), byte),
                      V4I_SRL(widths, 24)};
    for (int c = 0; c < n; ++c) {
        const v4i q = v4i_andnot(v4i_sllv(ones, w[c]), v4u64_lo32(word));
        v4i_store(dest[c], base ? v4i_add(q, base[c]) : q);
        if (c + 1 < n) word = v4u64_srlv(word, w[c]);
    }
}

/* Key `key` (0: the left one, 1: the right one) of every lane, located by k, into q
 * ([component][lane]); n and `ranged` are constants (locate_keys). */
OSSA__INLINE void read_located(const uint8_t *data, const lane_keys *k, int key, int32_t (*q)[4], int n, bool ranged)
{
    const v4i at = key ? k->right_at : k->left_at, widths = key ? k->right_widths : k->left_widths;
    const v4i *base = ranged ? (key ? k->right_base : k->left_base) : NULL;
    if (n == 4)
        read_keys4(data, at, widths, base, q, 4);
    else
        read_keys4(data, at, widths, base, q, 3);
}

/* Components read for every lane of g: 4 when some lane stores all four of a rotation (the
 * others' fourth integer is never selected, as in read_key). */
static inline int stored_components(const sub_group *g)
{
    return g->components == 4 && (g->same_format == OSSA__ROT_FULL || g->same_format == MIXED_FORMATS) ? 4 : 3;
}

/* refresh_lane for all four lanes of g, four at a time, then their dequantisation; false, with
 * nothing done, when k.wide. Lane mode takes it when every lane of a group is stale, as the
 * lanes of sub-tracks with the same key times are at once (every lane at a segment's start):
 * for one to three stale lanes the lane-by-lane refresh costs less. */
OSSA__INLINE bool refresh_group4(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g,
                                 uint32_t frame, uint32_t segment, bool ranged)
{
    const lane_keys k = locate_keys(a, ctx, g, frame, segment, ranged);
    if (k.wide) return false;
    const v4i first = v4i_set1((int32_t)(segment * OSSA__SEGMENT_FRAMES));
    const v4i left_frame = v4i_add(first, k.lb), right_frame = v4i_add(first, k.rb);
    const v4i none = v4i_set1(-1); /* UINT32_MAX */
    v4i have_left = v4i_load((const int32_t *)g->frame[0]), have_right = v4i_load((const int32_t *)g->frame[1]);
    /* The moves of refresh_lane: the old right key to the left (forward), else the old left
     * key to the right (backward). */
    const v4i to_left = v4i_cmpeq(have_right, left_frame);
    const v4i to_right = v4i_andnot(to_left, v4i_cmpeq(have_left, right_frame));
    if (v4f_movemask(v4i_as_f(to_left))) {
        const v4f m = v4i_as_f(to_left);
        for (int c = 0; c < 4; ++c)
            v4f_store(g->value[0][c], v4f_select(m, v4f_load(g->value[1][c]), v4f_load(g->value[0][c])));
        v4f_store(g->ratio[0], v4f_select(m, v4f_load(g->ratio[1]), v4f_load(g->ratio[0])));
    }
    if (v4f_movemask(v4i_as_f(to_right))) {
        const v4f m = v4i_as_f(to_right);
        for (int c = 0; c < 4; ++c)
            v4f_store(g->value[1][c], v4f_select(m, v4f_load(g->value[0][c]), v4f_load(g->value[1][c])));
        v4f_store(g->ratio[1], v4f_select(m, v4f_load(g->ratio[0]), v4f_load(g->ratio[1])));
    }
    have_left = v4i_select(to_left, left_frame, v4i_select(to_right, none, have_left));
    have_right = v4i_select(to_left, none, v4i_select(to_right, right_frame, have_right));
    const v4i read_left = v4i_andnot(v4i_cmpeq(have_left, left_frame), none);
    const v4i read_right = v4i_andnot(v4i_cmpeq(have_right, right_frame), none);
    const unsigned read[2] = {v4f_movemask(v4i_as_f(read_left)), v4f_movemask(v4i_as_f(read_right))};
    OSSA_ALIGNAS(16) int32_t q[2][4][4]; /* lanes not read: unset, never selected (refresh_group) */
    const int n = stored_components(g);
    if (read[0]) {
        read_located(a->data, &k, 0, q[0], n, ranged);
        v4f_store(g->ratio[0],
                  v4f_select(v4i_as_f(read_left), ratios_of(a, ctx, segment, k.lb), v4f_load(g->ratio[0])));
    }
    if (read[1]) {
        read_located(a->data, &k, 1, q[1], n, ranged);
        v4f_store(g->ratio[1],
                  v4f_select(v4i_as_f(read_right), ratios_of(a, ctx, segment, k.rb), v4f_load(g->ratio[1])));
    }
    v4i_store((int32_t *)g->frame[0], left_frame);
    v4i_store((int32_t *)g->frame[1], right_frame);
    dequantise(g, q, read);
    return true;
}

/* refresh_group4 for groups without and with lanes that have segment ranges, out of line:
 * lane mode's loop then keeps no 32-byte vectors, whose stack alignment every call would pay
 * for (the playback cache's calls too). */
OSSA__OUT_OF_LINE bool refresh_plain4(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g,
                                      uint32_t frame, uint32_t segment)
{
    return refresh_group4(a, ctx, g, frame, segment, false);
}

OSSA__OUT_OF_LINE bool refresh_ranged4(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g,
                                       uint32_t frame, uint32_t segment)
{
    return refresh_group4(a, ctx, g, frame, segment, true);
}

/* Both keys of every lane of g into q ([key][component][lane]), for random access, and the
 * time points of both in lb and rb; false, with nothing read, when k.wide. `ranged`: see
 * locate_keys. */
OSSA__INLINE bool read_both4(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g,
                             uint32_t frame, uint32_t segment, int32_t (*q)[4][4], v4i *lb, v4i *rb, bool ranged)
{
    const lane_keys k = locate_keys(a, ctx, g, frame, segment, ranged);
    if (k.wide) return false;
    const int n = stored_components(g);
    read_located(a->data, &k, 0, q[0], n, ranged);
    read_located(a->data, &k, 1, q[1], n, ranged);
    *lb = k.lb, *rb = k.rb;
    return true;
}

/* The scan's refresh (scan_lanes: the big clips) of a group without segment ranges, whichever
 * of its lanes are stale: both keys of every lane read again and dequantised, as random access
 * reads them, without refresh_group4's moves of kept keys and the branches on which lanes
 * move or read. A lane whose keys still bracket the time point reads the same integers again,
 * so its values stay the same floats. Out of line, as refresh_plain4. */
OSSA__OUT_OF_LINE void refresh_all4(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g,
                                    uint32_t frame, uint32_t segment)
{
    OSSA_ALIGNAS(16) int32_t q[2][4][4];
    v4i lb, rb;
    read_both4(a, ctx, g, frame, segment, q, &lb, &rb, false); /* never wide without segment ranges */
    const v4i first = v4i_set1((int32_t)(segment * OSSA__SEGMENT_FRAMES));
    v4f_store(g->ratio[0], ratios_of(a, ctx, segment, lb));
    v4f_store(g->ratio[1], ratios_of(a, ctx, segment, rb));
    v4i_store((int32_t *)g->frame[0], v4i_add(first, lb));
    v4i_store((int32_t *)g->frame[1], v4i_add(first, rb));
    dequantise_keys(g, q[0][0], 16, g->value[0][0], 16, 2u);
}
#endif

/* Refreshes the lanes of g in `mask` (bits) and dequantises the keys read. The x86-64-v3 path
 * refreshes four lanes at once when all four are stale; in the scan (`scan`: scan_lanes, the
 * big clips, whose lane-by-lane refreshes mispredict their branches) it reads both keys of
 * every lane of a group without segment ranges again (refresh_all4) whichever lanes are stale,
 * and refreshes a group with segment ranges four lanes at once from two stale lanes up. On the
 * pab clips the lane-by-lane refresh of one to three lanes costs less. */
OSSA__INLINE void refresh_group(const ossa_animation *a, const ossa_sampling_context *ctx, sub_group *g, unsigned mask,
                          uint32_t frame, uint32_t segment, bool scan)
{
    /* Moved keys keep their values: only the keys read are dequantised (in forward playback,
     * the right ones). The integers of lanes and components not read are left unset: their
     * values are computed but never selected (dequantise keeps the lanes not read, and
     * dequantise_key never selects a dropped rotation component). Zeroing them costs 5-20 %
     * of lane mode's instructions (GCC 12 then keeps the array in memory). */
#if defined(__AVX2__)
    if (scan && g->vector_keys && !g->ranged) {
        refresh_all4(a, ctx, g, frame, segment);
        return;
    }
    if ((mask == 15u || (scan && (mask & (mask - 1u)))) && g->vector_keys &&
        (g->ranged ? refresh_ranged4(a, ctx, g, frame, segment) : refresh_plain4(a, ctx, g, frame, segment)))
        return;
#endif
    OSSA_ALIGNAS(16) int32_t q[2][4][4];
    unsigned left = 0u, right = 0u;
#define REFRESH(l)                                                                                                     \
    do {                                                                                                               \
        const unsigned read_ = g->format[l] == OSSA__ROT_FULL ? refresh_lane(a, ctx, g, l, q, frame, segment, 4)      \
                                                              : refresh_lane(a, ctx, g, l, q, frame, segment, 3);     \
        left |= (read_ & 1u) << (l), right |= (read_ & 2u) << (l);                                                     \
    } while (0)
    if (mask == 15u) { /* random access and dense clips: lane numbers as constants */
        REFRESH(0);
        REFRESH(1);
        REFRESH(2);
        REFRESH(3);
    } else {
        for (; mask; mask &= mask - 1) REFRESH(lowest_bit(mask));
    }
#undef REFRESH
    const unsigned lanes[2] = {left, right >> 1};
    dequantise(g, q, lanes);
}

/* Interpolation factor of each lane; a span is at least the smallest normal float, so two
 * equal ratios give a finite factor. */
static inline v4f alpha_of(const float *left_ratio, const float *right_ratio, v4f ratio)
{
    const v4f r0 = v4f_load(left_ratio);
    return v4f_div(v4f_sub(ratio, r0), v4f_max(v4f_sub(v4f_load(right_ratio), r0), v4f_set1(FLT_MIN)));
}

/* Lane l (a constant 0..3) of a packed group's x, y, z (and w when n, a constant, is 4) to
 * its joint, one V4F_STORE_LANE per component. */
#define PUT_LANE(l, n, vx, vy, vz, vw)                                                                                 \
    do {                                                                                                               \
        float *d_ = (float *)(void *)(base + g->dest[l]);                                                              \
        V4F_STORE_LANE(d_, vx, l);                                                                                     \
        V4F_STORE_LANE(d_ + 4, vy, l);                                                                                 \
        V4F_STORE_LANE(d_ + 8, vz, l);                                                                                 \
        if ((n) == 4) V4F_STORE_LANE(d_ + 12, vw, l);                                                                  \
    } while (0)
/* The four lanes, padding lanes first: their dest is lane 0's, which lane 0 then writes. */
#define PUT_LANES(n, vx, vy, vz, vw)                                                                                   \
    do {                                                                                                               \
        PUT_LANE(3, n, vx, vy, vz, vw);                                                                                \
        PUT_LANE(2, n, vx, vy, vz, vw);                                                                                \
        PUT_LANE(1, n, vx, vy, vz, vw);                                                                                \
        PUT_LANE(0, n, vx, vy, vz, vw);                                                                                \
    } while (0)

/* Interpolates group g between the keys `left` and `right` (float [component][lane]) at
 * `left_ratio` and `right_ratio` ([lane]), its own in lane mode or the playback cache's, and
 * writes its lanes to their joints.
 * The builder keeps consecutive rotation keys in one hemisphere, so the normalised lerp needs
 * no sign test. */
OSSA__INLINE void interpolate(const sub_group *g, const float *left, const float *right, const float *left_ratio,
                             const float *right_ratio, v4f ratio, ossa_soa_transform *out, bool wide)
{
    const v4f alpha = alpha_of(left_ratio, right_ratio, ratio);
#if defined(__AVX2__)
    if (wide) {
        /* x and y side by side in 8 lanes (z and w too for rotations): the same floats as the
         * four-lane code below in half the subtractions, multiply-adds and stores. */
        const v8f alpha8 = v8f_dup(alpha);
        const v8f xy = v8f_lerp(v8f_loadu(left), v8f_loadu(right), alpha8);
        uint8_t *base = (uint8_t *)out;
        if (g->components == 3) {
            const v4f z = v4f_lerp(v4f_load(left + 8), v4f_load(right + 8), alpha);
            if (g->aligned) {
                float *d = (float *)(void *)(base + g->dest[0]);
                v8f_storeu(d, xy), v4f_store(d + 8, z);
                return;
            }
            const v4f x = v8f_lo(xy), y = v8f_hi(xy);
            PUT_LANES(3, x, y, z, x);
            return;
        }
        const v8f zw = v8f_lerp(v8f_loadu(left + 8), v8f_loadu(right + 8), alpha8);
        const v4f x = v8f_lo(xy), y = v8f_hi(xy), z = v8f_lo(zw), w = v8f_hi(zw);
        const v4f inv = v4f_rsqrt(v4f_madd(x, x, v4f_madd(y, y, v4f_madd(z, z, v4f_mul(w, w)))));
        if (g->aligned) {
            float *d = (float *)(void *)(base + g->dest[0]);
            const v8f inv8 = v8f_dup(inv);
            v8f_storeu(d, v8f_mul(xy, inv8)), v8f_storeu(d + 8, v8f_mul(zw, inv8));
            return;
        }
        const v4f nx = v4f_mul(x, inv), ny = v4f_mul(y, inv), nz = v4f_mul(z, inv), nw = v4f_mul(w, inv);
        PUT_LANES(4, nx, ny, nz, nw);
        return;
    }
#else
    (void)wide;
#endif
    const v4f x = v4f_lerp(v4f_load(left), v4f_load(right), alpha);
    const v4f y = v4f_lerp(v4f_load(left + 4), v4f_load(right + 4), alpha);
    const v4f z = v4f_lerp(v4f_load(left + 8), v4f_load(right + 8), alpha);
    uint8_t *base = (uint8_t *)out;
    if (g->components == 3) {
        if (g->aligned) {
            float *d = (float *)(void *)(base + g->dest[0]); /* x[4], then y[4] and z[4] */
            v4f_store(d, x), v4f_store(d + 4, y), v4f_store(d + 8, z);
            return;
        }
        PUT_LANES(3, x, y, z, x);
        return;
    }
    const v4f w = v4f_lerp(v4f_load(left + 12), v4f_load(right + 12), alpha);
    const v4f inv = v4f_rsqrt(v4f_madd(x, x, v4f_madd(y, y, v4f_madd(z, z, v4f_mul(w, w)))));
    if (g->aligned) {
        float *d = (float *)(void *)(base + g->dest[0]);
        v4f_store(d, v4f_mul(x, inv)), v4f_store(d + 4, v4f_mul(y, inv));
        v4f_store(d + 8, v4f_mul(z, inv)), v4f_store(d + 12, v4f_mul(w, inv));
        return;
    }
    const v4f nx = v4f_mul(x, inv), ny = v4f_mul(y, inv), nz = v4f_mul(z, inv), nw = v4f_mul(w, inv);
    PUT_LANES(4, nx, ny, nz, nw);
}
#undef PUT_LANES
#undef PUT_LANE

/* Interpolates group g at time point `frame` without its lane state: keys read, dequantised
 * and interpolated on the stack, the group's keys left as they are (they stay valid for
 * their time points, which lane mode checks). A seek refreshes every lane, and writing four
 * lanes' keys back costs about as much as reading them (on a 1,000-joint clip a third of
 * a megabyte of context a call, which then no longer stays in the cache with the stream). */
OSSA__INLINE void seek_group(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g,
                             uint32_t frame, uint32_t segment, v4f vratio, ossa_soa_transform *out)
{
    OSSA_ALIGNAS(16) int32_t q[2][4][4];
    OSSA_ALIGNAS(16) float value[2][4][4];
#if defined(__AVX2__)
    v4i vlb, vrb;
    if (g->vector_keys && (g->ranged ? read_both4(a, ctx, g, frame, segment, q, &vlb, &vrb, true)
                                     : read_both4(a, ctx, g, frame, segment, q, &vlb, &vrb, false))) {
        const v4f real = v4i_as_f(v4i_cmpgt(v4i_set1(g->lanes), v4i_set(0, 1, 2, 3)));
        const v4f left_ratio = v4f_select(real, ratios_of(a, ctx, segment, vlb), v4f_set1(-1.f));
        const v4f right_ratio = v4f_select(real, ratios_of(a, ctx, segment, vrb), v4f_set1(2.f));
        OSSA_ALIGNAS(16) float ratio[2][4];
        v4f_store(ratio[0], left_ratio), v4f_store(ratio[1], right_ratio);
        dequantise_keys(g, q[0][0], 16, value[0][0], 16, 2u);
        interpolate(g, value[0][0], value[1][0], ratio[0], ratio[1], vratio, out, false);
        return;
    }
#endif
    /* Padding lanes bracket every ratio; their integers are never read (a step of 0). */
    OSSA_ALIGNAS(16) float ratio[2][4] = {{-1.f, -1.f, -1.f, -1.f}, {2.f, 2.f, 2.f, 2.f}};
    const uint32_t first = segment * OSSA__SEGMENT_FRAMES;
    const uint32_t upto = (2u << (frame - first)) - 1u;
    for (size_t l = 0; l < g->lanes; ++l) {
        const uint8_t *p = ctx->segment_data + 2 * g->sub[l];
        const uint32_t bm = (uint32_t)p[0] | ((uint32_t)p[1] << 8);
        const uint32_t below = bm & upto, above = bm & ~upto;
        const unsigned lb = highest_bit(below), rb = above ? lowest_bit(above) : OSSA__SEGMENT_FRAMES;
        const unsigned index = ossa__popcount16(below) - 1u; /* bit 0 is set in every bitmap */
        if (g->format[l] == OSSA__ROT_FULL)
            read_pair(a, ctx, g, l, q[0], q[1], segment, index, rb == OSSA__SEGMENT_FRAMES, 4);
        else
            read_pair(a, ctx, g, l, q[0], q[1], segment, index, rb == OSSA__SEGMENT_FRAMES, 3);
        ratio[0][l] = ctx->segment_ratio[lb], ratio[1][l] = ctx->segment_ratio[rb];
    }
    dequantise_keys(g, q[0][0], 16, value[0][0], 16, 2u);
    interpolate(g, value[0][0], value[1][0], ratio[0], ratio[1], vratio, out, false);
}

/* The integers of lane l's keys in the current segment at the time points of `bits` (bit t:
 * time point first + t, bit 0 always set; bit 16: the next segment's first key), into q[t]:
 * the first from the first-key block, the others one after another from the lane's second key,
 * as read_key reads them one at a time. n and `ranged` are constants at each call. */
OSSA__INLINE void decode_lane(const ossa_animation *a, const ossa_sampling_context *ctx, const sub_group *g, size_t l,
                              uint32_t bits, uint32_t segment, int32_t (*q)[4][4], int n, bool ranged)
{
    const size_t i = g->sub[l];
    const uint8_t *w = &a->bits[4 * i];
    const uint32_t clip[4] = {w[0], w[1], w[2], w[3]};
    const uint8_t *const data = a->data; /* in a register across the loop below */
    store_key(data, q[0], l, ctx->segment_block + ctx->first_at[i], ctx->first_bits[i], clip, clip, n, false);
    if (bits >> OSSA__SEGMENT_FRAMES & 1u)
        store_key(data, q[OSSA__SEGMENT_FRAMES], l, block_at(a, ctx, segment + 1u) + ctx->first_at[i], ctx->first_bits[i],
                  clip, clip, n, false);
    uint32_t wd[4] = {clip[0], clip[1], clip[2], clip[3]}, base[4] = {0, 0, 0, 0};
    if (ranged) {
        const ranged_track *r = &ctx->ranged[ctx->ranged_of[i]];
        for (int c = 0; c < n; ++c) wd[c] = r->width[c], base[c] = r->base[c];
    }
    const unsigned key_bits = ctx->key_bits[i];
    size_t at = ctx->rest_at[i];
    /* The keys within the segment after its first: bits 1 to 15. */
    for (bits &= (1u << OSSA__SEGMENT_FRAMES) - 2u; bits; bits &= bits - 1u, at += key_bits)
        store_key(data, q[lowest_bit(bits)], l, at, key_bits, wd, base, n, ranged);
}

/* Takes, in the lanes of `at` (all bits set in a lane with a key at this time point), that key
 * (`key`, float [component][lane], at `ratio`) as the running value and ratio of the cache's
 * left or right key chain. */
static inline void take_keys(v4i at, const float *key, float ratio, v4f value[4], v4f *key_ratio)
{
    const v4f mask = v4i_as_f(at);
    for (int c = 0; c < 4; ++c) value[c] = v4f_select(mask, v4f_load(key + 4 * c), value[c]);
    *key_ratio = v4f_select(mask, v4f_set1(ratio), *key_ratio);
}

/* Stores a running value and ratio of a key chain as cache key k. */
static inline void put_cache_key(cache_key *k, const v4f value[4], v4f ratio)
{
    for (int c = 0; c < 4; ++c) v4f_store(k->value[c], value[c]);
    v4f_store(k->ratio, ratio);
}

/* Fills the playback cache with `segment` (the current one of lane mode after this). For
 * each group, the keys around every time point f = first + t (t < 16) a run can interpolate
 * from, exactly as lane mode reads and dequantises them (the same functions on the same
 * integers), so that a pose does not depend on which mode sampled it:
 *  - when every lane has a key at every one of those time points and the next, key t is the
 *    one at f and cache_right is one key (the right keys of f are the left keys of f + 1);
 *  - otherwise keys 0..15 are the left keys of each f (the last at or before it, per lane)
 *    and keys 16..31 the right ones (the first after it), cache_right 16 keys.
 * Lane mode's own keys are left as they are. */
static void fill_cache(const ossa_animation *a, ossa_sampling_context *ctx, uint32_t segment)
{
    if (ctx->segment != segment) enter_segment(a, ctx, segment);
    /* Time points a run interpolates from: first .. frame_count - 2 (ossa__frame_at); the
     * one after the last of them is a key of every lane (the clip's last time point, or the
     * next segment's first). */
    const uint32_t end = (uint32_t)a->frame_count - 1u - segment * OSSA__SEGMENT_FRAMES;
    const uint32_t count = end < OSSA__SEGMENT_FRAMES ? end : OSSA__SEGMENT_FRAMES;
    const uint32_t all = (2u << count) - 1u; /* bits 0..count */
    const uint32_t next = segment + 1u < a->segment_count ? 1u << OSSA__SEGMENT_FRAMES : 0u;
    int32_t(*q)[4][4] = ctx->fill_q;
    cache_key *keys = ctx->cache;
    for (size_t gi = 0; gi < ctx->group_count; ++gi, keys += CACHE_KEYS) {
        sub_group *g = &ctx->groups[gi];
        OSSA_ALIGNAS(16) int32_t has[4] = {-1, -1, -1, -1}; /* padding lanes: a key everywhere */
        uint32_t common = all;
        for (size_t l = 0; l < g->lanes; ++l) {
            const uint8_t *p = ctx->segment_data + 2 * g->sub[l];
            const uint32_t bm = ((uint32_t)p[0] | ((uint32_t)p[1] << 8) | next) & all;
            has[l] = (int32_t)bm, common &= bm;
            const bool ranged = ctx->ranged_of[g->sub[l]] != UINT16_MAX;
            if (g->format[l] == OSSA__ROT_FULL)
                ranged ? decode_lane(a, ctx, g, l, bm, segment, q, 4, true)
                       : decode_lane(a, ctx, g, l, bm, segment, q, 4, false);
            else
                ranged ? decode_lane(a, ctx, g, l, bm, segment, q, 3, true)
                       : decode_lane(a, ctx, g, l, bm, segment, q, 3, false);
        }
        if (common == all) {
            g->cache_right = sizeof(cache_key);
            dequantise_keys(g, q[0][0], 16, keys[0].value[0], sizeof *keys / sizeof(float), count + 1u);
            for (uint32_t t = 0; t <= count; ++t) v4f_store(keys[t].ratio, v4f_set1(ctx->segment_ratio[t]));
            continue;
        }
        g->cache_right = OSSA__SEGMENT_FRAMES * sizeof(cache_key);
        float(*key)[4][4] = ctx->fill_key;
        dequantise_keys(g, q[0][0], 16, key[0][0], 16, count + 1u);
        /* The lanes with a key at each time point, from the bitmaps shifted one bit a step:
         * bit t to bit 0 (then bit 0 to all bits) for the left chain, bit t + 1 to the sign
         * bit (then the sign bit to all bits) for the right one. */
        v4i left_bits = v4i_load(has);
        v4f value[4], ratio = v4f_set1(ctx->segment_ratio[0]);
        for (int c = 0; c < 4; ++c) value[c] = v4f_load(key[0][c]);
        for (uint32_t t = 0; t < count; ++t) {
            if (t) {
                left_bits = V4I_SRL(left_bits, 1);
                take_keys(V4I_SRA(V4I_SLL(left_bits, 31), 31), key[t][0], ctx->segment_ratio[t], value, &ratio);
            }
            put_cache_key(&keys[t], value, ratio);
        }
        v4i right_bits = v4i_sll(v4i_load(has), count ? 32 - (int)count : 0); /* bit count - 1 */
        ratio = v4f_set1(ctx->segment_ratio[count]);
        for (int c = 0; c < 4; ++c) value[c] = v4f_load(key[count][c]);
        for (uint32_t t = count; t-- > 0;) {
            if (t + 1u < count) {
                take_keys(V4I_SRA(right_bits, 31), key[t + 1u][0], ctx->segment_ratio[t + 1u], value, &ratio);
                right_bits = V4I_SLL(right_bits, 1);
            }
            put_cache_key(&keys[OSSA__SEGMENT_FRAMES + t], value, ratio);
        }
    }
    ctx->cache_segment = segment;
}

/* Every group by seek_group, out of line: lane mode's code stays as it is without it. */
OSSA__OUT_OF_LINE void seek(const ossa_animation *a, ossa_sampling_context *ctx, uint32_t frame, uint32_t segment,
                            v4f vratio, ossa_soa_transform *out)
{
    if (ctx->segment != segment) enter_segment(a, ctx, segment);
    for (size_t gi = 0; gi < ctx->group_count; ++gi) seek_group(a, ctx, &ctx->groups[gi], frame, segment, vratio, out);
}

/* memcpy kept out of line: GCC expands a memcpy whose size it can bound (as in the loop
 * below) to `rep movsq`, which costs more than the C library's vector loop on poses of tens
 * of joints. */
OSSA__OUT_OF_LINE void copy_bytes(void *to, const void *from, size_t bytes) { memcpy(to, from, bytes); }

/* The channels ctx->rest keeps of one SoA group (copy_all false), `copy` its bits (a constant
 * in the usual group's copy); `from` advances past them. */
OSSA__INLINE void copy_group(const float **from, float *to, unsigned copy)
{
    const float *f = *from;
    if (copy & 1u) {
        for (int k = 0; k < 12; k += 4) v4f_store(to + k, v4f_load(f + k));
        f += 12;
    }
    if (copy & 2u) {
        for (int k = 0; k < 16; k += 4) v4f_store(to + 12 + k, v4f_load(f + k));
        f += 16;
    }
    if (copy & 4u) {
        for (int k = 0; k < 12; k += 4) v4f_store(to + 28 + k, v4f_load(f + k));
        f += 12;
    }
    *from = f;
}

/* copy_group for the first `count` SoA groups of the output, the groups with the bits `usual`
 * (a constant, ctx->copy_usual) without testing each bit. */
OSSA__INLINE void copy_channels(const ossa_sampling_context *ctx, ossa_soa_transform *out, size_t count,
                                unsigned usual)
{
    const float *from = ctx->rest;
    size_t g = 0;
    /* Eight groups at a time when all eight have the usual bits: one test for the eight. */
    const uint64_t usual8 = 0x0101010101010101ull * usual;
    for (; g + 8 <= count; g += 8) {
        uint64_t copy8;
        memcpy(&copy8, ctx->copy + g, sizeof copy8);
        if (copy8 == usual8) {
            for (size_t k = 0; k < 8; ++k) copy_group(&from, (float *)(void *)&out[g + k], usual);
            continue;
        }
        for (size_t k = 0; k < 8; ++k) copy_group(&from, (float *)(void *)&out[g + k], ctx->copy[g + k]);
    }
    for (; g < count; ++g) {
        const unsigned copy = ctx->copy[g];
        float *to = (float *)(void *)&out[g];
        if (copy == usual)
            copy_group(&from, to, usual);
        else
            copy_group(&from, to, copy);
    }
}

/* The kept channels, one after another in ctx->rest (copy_rest without copy_all); one loop for
 * each usual set of channels (a dense clip's: its scales). Out of line, as scan_lanes. */
OSSA__OUT_OF_LINE void copy_kept(const ossa_sampling_context *ctx, ossa_soa_transform *out, size_t count)
{
    switch (ctx->copy_usual) {
#define COPY_USUAL(bits)                                                                                               \
    case bits:                                                                                                         \
        copy_channels(ctx, out, count, bits);                                                                          \
        return
        COPY_USUAL(0);
        COPY_USUAL(1);
        COPY_USUAL(2);
        COPY_USUAL(3);
        COPY_USUAL(4);
        COPY_USUAL(5);
        COPY_USUAL(6);
        COPY_USUAL(7);
#undef COPY_USUAL
    }
}

/* Copies the default and constant values to the output: every channel of every SoA group in
 * blocks of at most 24 SoA groups (3,840 bytes): below the 4,096 bytes above which glibc's
 * memcpy switches from its vector loop to `rep movsb`, which is about as fast in hardware but
 * counts one instruction per byte under callgrind (a 1,000-joint pose would count ten times the
 * instructions of the loop). When aligned groups write whole channels of SoA groups, only the
 * other channels are kept and copied (a dense 1,000-joint clip animates every translation and
 * rotation: its scales alone are, 30 % of the bytes). */
static void copy_rest(const ossa_sampling_context *ctx, ossa_soa_transform *out, size_t count)
{
    if (ctx->copy_all) {
        const ossa_soa_transform *rest = (const ossa_soa_transform *)(const void *)ctx->rest;
        enum { BLOCK = 24 };
        size_t g = 0, n = count;
        for (; n > BLOCK; n -= BLOCK, g += BLOCK) copy_bytes(out + g, rest + g, BLOCK * sizeof *out);
        copy_bytes(out + g, rest + g, n * sizeof *out);
        return;
    }
    copy_kept(ctx, out, count);
}

/* Lane mode when fewer than a third of the groups refresh in an average call (run): the
 * groups with a stale lane are found four at a time from the time points their lanes bracket
 * together and refreshed, then every group is interpolated. Out of line: the sampling job's
 * other paths keep their registers and stack frame as they are without it. */
OSSA__OUT_OF_LINE void scan_lanes(const ossa_animation *a, ossa_sampling_context *ctx, uint32_t frame,
                                  uint32_t segment, v4f vratio, ossa_soa_transform *out)
{
    sub_group *groups = ctx->groups;
    const size_t count = ctx->group_count;
    const v4i vframe = v4i_set1((int32_t)frame), vnext = v4i_set1((int32_t)frame + 1);
    bool entered = ctx->segment == segment;
    size_t refreshed = 0;
    if (!ctx->fresh_kept) {
        for (size_t gi = 0; gi < count; ++gi) note_fresh(ctx, gi);
        ctx->fresh_kept = true;
    }
    for (size_t g4 = 0; g4 < count; g4 += 4) {
        const v4i stale4 = v4i_or(v4i_cmpgt(v4i_load(ctx->fresh_from + g4), vframe),
                                  v4i_cmpgt(vnext, v4i_load(ctx->fresh_until + g4)));
        for (unsigned groups4 = v4f_movemask(v4i_as_f(stale4)); groups4; groups4 &= groups4 - 1) {
            const size_t gi = g4 + lowest_bit(groups4);
            sub_group *g = &groups[gi];
            const v4i stale = v4i_or(v4i_cmpgt(v4i_load((const int32_t *)g->frame[0]), vframe),
                                     v4i_cmpgt(vnext, v4i_load((const int32_t *)g->frame[1])));
            if (!entered) enter_segment(a, ctx, segment), entered = true;
            refresh_group(a, ctx, g, v4f_movemask(v4i_as_f(stale)), frame, segment, true);
            note_fresh(ctx, gi);
            ++refreshed;
        }
    }
    ctx->refresh_average += 2u * (uint32_t)refreshed - (ctx->refresh_average >> 3);
    for (size_t gi = 0; gi < count; ++gi) {
        const sub_group *g = &groups[gi];
        interpolate(g, g->value[0][0], g->value[1][0], g->ratio[0], g->ratio[1], vratio, out, true);
    }
}


/* The job: validation, then the work. */
OSSA__INLINE ossa_result run(const ossa_sampling_job *job)
{
    const ossa_result r = ossa_sampling_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_animation *a = job->animation;
    if (a->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) return ossa__sorted_run(job); /* validated above */
    ossa_sampling_context *ctx = job->context;
    const float ratio = job->ratio < 0.f ? 0.f : (job->ratio > 1.f ? 1.f : job->ratio);
    if (a->soa_count == 0) return OSSA_OK;
    const ossa_soa_transform *rest = a->rest_count ? job->rest_pose : NULL;
    /* The animation is recognised by where its tables are and by its shape; another blob
     * placed at the same address with the same shape needs ossa_sampling_context_invalidate. */
    if (ctx->bound != a->kinds || ctx->bound_rest != rest || ctx->bound_animated != a->animated_count ||
        ctx->bound_frames != a->frame_count || ctx->bound_keys != a->key_count || ctx->bound_data_size != a->data_size)
        if (!bind(a, ctx, rest)) return OSSA_ERROR_CONTEXT_TOO_SMALL;
    copy_rest(ctx, job->output, a->soa_count);
    const v4f vratio = v4f_set1(ratio);
    const uint32_t frame = (uint32_t)ossa__frame_at(a->timepoints, a->frame_count, ratio);
    const uint32_t segment = frame / OSSA__SEGMENT_FRAMES;
    const uint32_t last = ctx->last_frame;
    const bool was_near = ctx->last_near;
    const bool near = last != UINT32_MAX && frame <= last + 2u && last <= frame + 2u, playing = near && was_near;
    ctx->last_frame = frame, ctx->last_near = near;
    /* In locals: the compiler cannot tell that the output's stores leave them alone. */
    sub_group *groups = ctx->groups;
    const size_t count = ctx->group_count;
    ossa_soa_transform *out = job->output;
    if (ctx->cache && count <= ctx->cache_groups) {
        /* Playback (two runs in a row each at most two time points from the one before,
         * either way) fills the cache once per segment; other access leaves it for lane mode:
         * a random ratio that lands near the previous one once in a while is not worth a
         * fill. */
        if (ctx->cache_segment != segment && playing) fill_cache(a, ctx, segment);
        if (ctx->cache_segment == segment) {
            const cache_key *k = ctx->cache + (frame - segment * OSSA__SEGMENT_FRAMES);
            for (size_t gi = 0; gi < count; ++gi, k += CACHE_KEYS) {
                const cache_key *right = (const cache_key *)(const void *)((const uint8_t *)k + groups[gi].cache_right);
                interpolate(&groups[gi], k->value[0], right->value[0], k->ratio, right->ratio, vratio, out, false);
            }
            return OSSA_OK;
        }
    }
    /* Random access (a time point at least a segment from the previous run's, which was not
     * near its own predecessor either; or the first run): every lane would be refreshed, so
     * none is (seek_group). A single jump, such as a loop wrapping around, refreshes the lanes
     * for the runs that follow it. */
    if (!was_near && (last == UINT32_MAX || frame >= last + OSSA__SEGMENT_FRAMES || last >= frame + OSSA__SEGMENT_FRAMES)) {
        seek(a, ctx, frame, segment, vratio, out);
        return OSSA_OK;
    }
    /* Lane mode: a lane is stale unless its keys bracket the time point (left <= frame <
     * right; padding lanes bracket every one). */
    const v4i vframe = v4i_set1((int32_t)frame), vnext = v4i_set1((int32_t)frame + 1);
    bool entered = ctx->segment == segment;
    size_t refreshed = 0;
    const bool many = count >= SCAN_MIN_GROUPS; /* then the context has fresh_from (its room is at least count) */
    if (!many || ctx->refresh_average * 3u >= count * 16u) {
        /* Few groups, or most of them refresh (dense keys, or fast playback): each group's
         * lanes are tested as it is interpolated, and the groups' bracketed time points are
         * not kept. */
        ctx->fresh_kept = false;
        for (size_t gi = 0; gi < count; ++gi) {
            sub_group *g = &groups[gi];
            const v4i stale = v4i_or(v4i_cmpgt(v4i_load((const int32_t *)g->frame[0]), vframe),
                                     v4i_cmpgt(vnext, v4i_load((const int32_t *)g->frame[1])));
            const unsigned mask = v4f_movemask(v4i_as_f(stale));
            if (mask) {
                if (!entered) enter_segment(a, ctx, segment), entered = true;
                refresh_group(a, ctx, g, mask, frame, segment, false);
                ++refreshed;
            }
            interpolate(g, g->value[0][0], g->value[1][0], g->ratio[0], g->ratio[1], vratio, out, false);
        }
        if (many) ctx->refresh_average += 2u * (uint32_t)refreshed - (ctx->refresh_average >> 3);
        return OSSA_OK;
    }
    scan_lanes(a, ctx, frame, segment, vratio, out);
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__sampling_avx2(const ossa_sampling_job *job) { return run(job); }
#else
ossa_result ossa_sampling_job_run(const ossa_sampling_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__sampling_avx2(job);
#endif
    return run(job);
}

ossa_result ossa__sampling_job_run_baseline(const ossa_sampling_job *job) { return run(job); }
#endif
