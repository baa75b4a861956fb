/* The sampling job on the sorted-key layout (OSSA_ANIMATION_FLAG_SORTED_KEYS; docs/animation-format.md,
 * "The sorted-key layout"). ossa_sampling_job_run hands such animations here.
 *
 * The context keeps, per animated sub-track ("slot"), its left and right keys decoded in SoA
 * lanes (the animated sub-tracks of one channel four at a time, in joint order), and a cursor in
 * the key stream. The stream is sorted by the time point at which each key is needed, which is
 * the time point of the key before it on its slot: playing forward, a call reads keys from the
 * cursor while their slot's right key is at or before the sampled time point, each one shifting
 * its slot's right key to the left and becoming the right one. Only the slots that passed a key
 * are touched. Going back, or forward past the next iframe, the cache is rebuilt from the iframe
 * at or before the time point (every slot's two keys), then read forward from there.
 *
 * Compiled once, at the SSE2 baseline: the work is key decoding and scalar lane updates, and
 * the interpolation is a few vector operations a group.
 * Source: ozz-animation's SamplingJob (sorted keys, a cursor, per-track key pairs cached in SoA,
 * updated only for outdated tracks); the stream format, the iframes as replayable states and
 * the slot in each key are ossa's. */
#include <float.h>
#include <string.h>

#include "animation_sorted.h"
#include "checks.h"
#include "simd.h"

typedef struct sorted_group {
    OSSA_ALIGNAS(16) float ratio[2][4]; /* [key][lane] */
    float value[2][4][4];               /* [key][component][lane] */
} sorted_group;

typedef struct sorted_state {
    const uint8_t *bound_kinds; /* the bound animation's kinds table (with *bound, see sampling_job.c) */
    const ossa_soa_transform *bound_rest;
    size_t bound_keys, bound_animated, bound_frames;
    uint32_t cursor; /* next key of the stream */
    uint32_t frame;  /* time point the cache was last read forward to; UINT32_MAX: none */
    uint32_t floor;  /* the latest left key's time point: the cache brackets every time point from
                        there to `frame` (needs never decrease along the stream) */
    size_t group_count;
    sorted_group *groups;     /* [groups] */
    uint16_t *lane_of;        /* [slot] group * 4 + lane, plus ROTATION_LANE for a rotation */
    uint16_t *right_frame;    /* [slot] time point of its right key */
    uint16_t *range_at;       /* [slot] float index of its range */
    uint16_t *dest;           /* [groups * 4] float offset of each lane's x in the output pose (y, z and
                                 w follow 4 floats apart; padding lanes: lane 0's) */
    uint8_t *info;            /* [groups] channel | lanes << 2 | aligned << 5 (aligned: the lanes
                                 are the four joints of one SoA group, in order) */
    ossa_soa_transform *base; /* [soa] default, constant and rest-pose values */
} sorted_state;

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* lane_of flag: the slot is a rotation (group * 4 + lane stays below 2^12). */
enum { ROTATION_LANE = 0x8000, LANE_MASK = 0x7fff };

/* Groups for A animated sub-tracks: ceil(A_c / 4) per channel. */
static size_t group_capacity(size_t animated) { return animated / 4 + 3; }

enum { S_GROUPS, S_LANE_OF, S_RIGHT, S_RANGE, S_JOINT, S_INFO, S_BASE, S_END };

static size_t layout(size_t soa, size_t animated, size_t offsets[S_END])
{
    const size_t g = group_capacity(animated);
    const size_t sizes[S_END] = {
        g * sizeof(sorted_group),         /* groups */
        animated * 2,                     /* lane_of */
        animated * 2,                     /* right_frame */
        animated * 2,                     /* range_at */
        g * 4 * 2,                        /* dest */
        g,                                /* info */
        soa * sizeof(ossa_soa_transform), /* base */
    };
    size_t at = align16(sizeof(sorted_state));
    for (int i = 0; i < S_END; ++i) offsets[i] = at, at += align16(sizes[i]);
    return at;
}

size_t ossa__sorted_state_size(size_t soa_count, size_t animated_count)
{
    size_t offsets[S_END];
    return layout(soa_count, animated_count, offsets);
}

static void bind(const ossa_animation *a, sorted_state *st, uint8_t *area, const ossa_soa_transform *rest)
{
    size_t offsets[S_END];
    layout(a->soa_count, a->animated_count, offsets);
    st->groups = (sorted_group *)(void *)(area + offsets[S_GROUPS]);
    st->lane_of = (uint16_t *)(void *)(area + offsets[S_LANE_OF]);
    st->right_frame = (uint16_t *)(void *)(area + offsets[S_RIGHT]);
    st->range_at = (uint16_t *)(void *)(area + offsets[S_RANGE]);
    st->dest = (uint16_t *)(void *)(area + offsets[S_JOINT]);
    st->info = area + offsets[S_INFO];
    st->base = (ossa_soa_transform *)(void *)(area + offsets[S_BASE]);
    /* Base pose, slots' ranges. */
    size_t word = 0, slot = 0, range = 0;
    for (size_t j = 0; j < a->soa_count * 4; ++j) {
        for (int c = 0; c < 3; ++c) {
            const size_t s = j * 3 + (size_t)c;
            const uint32_t kind = j < a->track_count ? ossa__kind(a->kinds, s) : OSSA__KIND_DEFAULT;
            if (kind == OSSA__KIND_ANIMATED) {
                st->range_at[slot++] = (uint16_t)range;
                range += 6;
            }
            float v[4]; /* an animated sub-track's is the default, until its lanes write it */
            ossa__fixed_value(a, kind, c, j, rest, &word, v);
            ossa__put_lane(st->base, c, j, v);
        }
    }
    /* Groups: per channel, its slots four at a time in joint order. */
    uint16_t joint[4 * (3 * OSSA_MAX_JOINTS / 4 + 3)];
    size_t g = 0;
    for (int c = 0; c < 3; ++c) {
        size_t lanes = 0;
        slot = 0;
        for (size_t s = 0; s < 3 * a->track_count; ++s) {
            if (ossa__kind(a->kinds, s) != OSSA__KIND_ANIMATED) continue;
            if (s % 3 == (size_t)c) {
                if (lanes == 4) ++g, lanes = 0;
                static const int at[3] = {0, 12, 28}; /* channel offsets in an ossa_soa_transform */
                const size_t j = s / 3;
                st->lane_of[slot] = (uint16_t)(g * 4 + lanes + (c == OSSA__CH_ROTATION ? ROTATION_LANE : 0u));
                joint[g * 4 + lanes] = (uint16_t)j;
                st->dest[g * 4 + lanes] = (uint16_t)((j / 4) * 40 + (size_t)at[c] + j % 4);
                st->info[g] = (uint8_t)(c | (int)(lanes + 1) << 2);
                ++lanes;
            }
            ++slot;
        }
        if (lanes) {
            for (size_t l = lanes; l < 4; ++l) joint[g * 4 + l] = joint[g * 4], st->dest[g * 4 + l] = st->dest[g * 4];
            ++g;
        }
    }
    st->group_count = g;
    for (size_t i = 0; i < g; ++i) {
        const uint16_t *jt = &joint[i * 4];
        if ((st->info[i] >> 2 & 7u) == 4 && jt[0] % 4 == 0 && jt[1] == jt[0] + 1 && jt[2] == jt[0] + 2 &&
            jt[3] == jt[0] + 3)
            st->info[i] |= 1u << 5;
        /* Padding lanes interpolate zeros between ratios 0 and 1 and are never written. */
        memset(&st->groups[i], 0, sizeof st->groups[i]);
        for (int l = 0; l < 4; ++l) st->groups[i].ratio[1][l] = 1.f;
    }
    st->bound_kinds = a->kinds;
    st->bound_rest = rest;
    st->bound_keys = a->key_count;
    st->bound_animated = a->animated_count;
    st->bound_frames = a->frame_count;
    st->frame = UINT32_MAX;
}

/* Key k into its slot's lane as key `side` (0 left, 1 right). Component c is min[c] + v[c] *
 * step[c]; a rotation's three are the components other than d in x, y, z, w order, and d is
 * rebuilt as ossa__rotation_from does, negated when the key says so. */
static inline void load_key(const ossa_animation *a, const sorted_state *st, uint32_t k, uint32_t slot, int side)
{
    const uint8_t *key = ossa__sorted_key(a, k);
    const uint32_t where = st->lane_of[slot], at = where & LANE_MASK, l = at & 3u;
    sorted_group *g = &st->groups[at >> 2];
    const float *range = a->ranges + st->range_at[slot];
    const float c0 = range[0] + (float)ossa__sorted_u16(key + 4) * range[3];
    const float c1 = range[1] + (float)ossa__sorted_u16(key + 6) * range[4];
    const float c2 = range[2] + (float)ossa__sorted_u16(key + 8) * range[5];
    float(*v)[4] = g->value[side];
    if (where & ROTATION_LANE) {
        /* Components other than d, in x, y, z, w order, then d rebuilt (ossa__rotation_from). */
        static const uint8_t order[4][3] = {{1, 2, 3}, {0, 2, 3}, {0, 1, 3}, {0, 1, 2}};
        const uint32_t info = ossa__sorted_u16(key + 2), d = info >> OSSA__SORTED_DROP_SHIFT & 3u;
        const float rest = 1.f - (c0 * c0 + (c1 * c1 + c2 * c2));
        const float w = sqrtf(rest > 0.f ? rest : 0.f);
        v[order[d][0]][l] = c0, v[order[d][1]][l] = c1, v[order[d][2]][l] = c2;
        v[d][l] = info & OSSA__SORTED_NEGATIVE ? -w : w;
    } else {
        v[0][l] = c0, v[1][l] = c1, v[2][l] = c2;
    }
    g->ratio[side][l] = ossa__frame_ratio(a, ossa__sorted_u16(key));
}

/* The state at iframe i (time point i * N): every slot's two keys; for i = 0 the stream's first
 * 2A keys. */
static void seek(const ossa_animation *a, sorted_state *st, size_t i)
{
    const size_t A = a->animated_count;
    if (i > a->segment_count) i = a->segment_count;
    const uint32_t *f = i ? a->iframes + (i - 1) * ossa__sorted_iframe_words(A) : NULL;
    st->cursor = f ? f[0] : (uint32_t)(2 * A);
    st->floor = 0;
    for (size_t s = 0; s < A; ++s) {
        const uint32_t left = f ? f[1 + s] : (uint32_t)s, right = f ? f[1 + A + s] : (uint32_t)(A + s);
        load_key(a, st, left, (uint32_t)s, 0);
        const uint32_t left_frame = ossa__sorted_u16(ossa__sorted_key(a, left));
        if (left_frame > st->floor) st->floor = left_frame;
        load_key(a, st, right, (uint32_t)s, 1);
        st->right_frame[s] = (uint16_t)ossa__sorted_u16(ossa__sorted_key(a, right));
    }
    st->frame = (uint32_t)(i * a->iframe_interval);
}

/* Reads the stream forward to time point `frame`. */
static void advance(const ossa_animation *a, sorted_state *st, uint32_t frame)
{
    uint32_t k = st->cursor;
    const uint32_t end = (uint32_t)a->key_count;
    for (; k < end; ++k) {
        const uint8_t *key = ossa__sorted_key(a, k);
        const uint32_t slot = ossa__sorted_u16(key + 2) & OSSA__SORTED_SLOT_MASK;
        if (st->right_frame[slot] > frame) break;
        st->floor = st->right_frame[slot];
        const uint32_t at = st->lane_of[slot] & LANE_MASK;
        sorted_group *g = &st->groups[at >> 2];
        const uint32_t l = at & 3u;
        for (int i = 0; i < 4; ++i) g->value[0][i][l] = g->value[1][i][l];
        g->ratio[0][l] = g->ratio[1][l];
        load_key(a, st, k, slot, 1);
        st->right_frame[slot] = (uint16_t)ossa__sorted_u16(key);
    }
    st->cursor = k;
    if (frame > st->frame || st->frame == UINT32_MAX) st->frame = frame;
}

/* The base pose to the output, in blocks of at most 24 groups (3,840 bytes): libc copies those
 * with vector moves, larger ones with `rep movsb`, no faster here and counted byte by byte under
 * callgrind. (Skipping the channels that aligned groups write whole, as the packed sampler can,
 * measured no fewer instructions on pab walk or the synthetic 1,024-joint clip.) */
static void copy_base(const sorted_state *st, ossa_soa_transform *out, size_t count)
{
    enum { BLOCK = 24 };
    for (size_t g = 0; g < count; g += BLOCK)
        memcpy(out + g, st->base + g, (count - g < BLOCK ? count - g : BLOCK) * sizeof *out);
}

/* The packed sampler's interpolation (sampling_job.c), lane for lane. */
static void interpolate(const sorted_group *g, unsigned info, const uint16_t *dest, v4f ratio, ossa_soa_transform *out)
{
    const int c = (int)(info & 3u), lanes = (int)(info >> 2 & 7u);
    const v4f r0 = v4f_load(g->ratio[0]);
    const v4f alpha = v4f_div(v4f_sub(ratio, r0), v4f_max(v4f_sub(v4f_load(g->ratio[1]), r0), v4f_set1(FLT_MIN)));
    v4f v[4];
    for (int k = 0; k < 3; ++k) v[k] = v4f_lerp(v4f_load(g->value[0][k]), v4f_load(g->value[1][k]), alpha);
    int n = 3;
    if (c == OSSA__CH_ROTATION) {
        n = 4;
        v[3] = v4f_lerp(v4f_load(g->value[0][3]), v4f_load(g->value[1][3]), alpha);
        const v4f inv =
            v4f_rsqrt(v4f_madd(v[0], v[0], v4f_madd(v[1], v[1], v4f_madd(v[2], v[2], v4f_mul(v[3], v[3])))));
        for (int k = 0; k < 4; ++k) v[k] = v4f_mul(v[k], inv);
    }
    float *base = (float *)(void *)out;
    if (info >> 5 & 1u) {
        for (int k = 0; k < n; ++k) v4f_store(base + dest[0] + 4 * k, v[k]);
        return;
    }
    OSSA_ALIGNAS(16) float lane[4][4];
    for (int k = 0; k < n; ++k) v4f_store(lane[k], v[k]);
    for (int l = 0; l < lanes; ++l) {
        float *d = base + dest[l];
        d[0] = lane[0][l], d[4] = lane[1][l], d[8] = lane[2][l];
        if (n == 4) d[12] = lane[3][l];
    }
}

ossa_result ossa__sorted_run(const ossa_sampling_job *job)
{
    const ossa_animation *a = job->animation;
    size_t size;
    const uint8_t **bound;
    uint8_t *area = ossa__sampling_context_area(job->context, &size, &bound);
    if (size < ossa__sorted_state_size(a->soa_count, a->animated_count)) return OSSA_ERROR_CONTEXT_TOO_SMALL;
    if (a->soa_count == 0) return OSSA_OK;
    sorted_state *st = (sorted_state *)(void *)area;
    const ossa_soa_transform *rest = a->rest_count ? job->rest_pose : NULL;
    /* The packed sampler and this one share `*bound`: whichever binds last owns the memory. */
    if (*bound != a->kinds || st->bound_kinds != a->kinds || st->bound_rest != rest || st->bound_keys != a->key_count ||
        st->bound_animated != a->animated_count || st->bound_frames != a->frame_count) {
        bind(a, st, area, rest);
        *bound = a->kinds;
    }
    const float ratio = job->ratio < 0.f ? 0.f : (job->ratio > 1.f ? 1.f : job->ratio);
    copy_base(st, job->output, a->soa_count);
    if (a->animated_count == 0) return OSSA_OK;
    const uint32_t frame = (uint32_t)ossa__frame_at(a->timepoints, a->frame_count, ratio);
    const uint32_t N = (uint32_t)a->iframe_interval;
    /* Back before the latest left key, or forward past the next iframe: restart from the iframe
     * at or before the frame. */
    if (st->frame == UINT32_MAX || frame < st->floor || frame / N > st->frame / N + 1u) seek(a, st, frame / N);
    advance(a, st, frame);
    const v4f vratio = v4f_set1(ratio);
    for (size_t i = 0; i < st->group_count; ++i)
        interpolate(&st->groups[i], st->info[i], &st->dest[i * 4], vratio, job->output);
    return OSSA_OK;
}
