#include "ossa/sampling_job.h"

#include <float.h>
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

/* constant[] value of a group whose two keys are equal in every lane (a constant segment:
 * interpolation is a copy). */
enum { CONSTANT = 1 };
enum { DIRTY_WORDS = (OSSA_MAX_SOA_JOINTS + 63) / 64 };

typedef struct channel_state {
    uint32_t cursor;             /* next key to load */
    uint32_t *entries;           /* [padded] right key of each track */
    uint64_t dirty[DIRTY_WORDS]; /* bit g: group g's keys changed, decompress it */
    uint8_t *constant;           /* [soa] CONSTANT or 0 per group */
    uint16_t *slots;             /* [slot_mask + 1] track of a key, indexed by its low bits: a guess
                                    checked against entries, so collisions only cost a search */
} channel_state;

struct ossa_sampling_context {
    size_t max_soa;
    uint32_t slot_mask;      /* slots per channel - 1 (a power of two >= 4 tracks per track) */
    const float *timepoints; /* identity of the bound animation, NULL when unbound */
    size_t key_counts[3];
    float ratio; /* of the last run */
    channel_state channels[3];
    interp_float3 *translations; /* [max_soa] */
    interp_quat *rotations;      /* [max_soa] */
    interp_float3 *scales;       /* [max_soa] */
};

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

static size_t slot_count(size_t max_soa)
{
    size_t n = 16;
    while (n < max_soa * 16) n *= 2;
    return n;
}

static size_t layout(size_t max_soa, size_t offsets[6])
{
    size_t at = align16(sizeof(struct ossa_sampling_context));
    for (int c = 0; c < 3; ++c) {
        offsets[c] = at;
        at += align16(max_soa * 4 * sizeof(uint32_t)) + align16(max_soa) +
              align16(slot_count(max_soa) * sizeof(uint16_t));
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
    ctx->slot_mask = (uint32_t)slot_count(max_soa) - 1;
    for (int c = 0; c < 3; ++c) {
        uint8_t *at = base + offsets[c];
        ctx->channels[c].entries = (uint32_t *)(void *)at;
        at += align16(max_soa * 4 * sizeof(uint32_t));
        ctx->channels[c].constant = at;
        at += align16(max_soa);
        ctx->channels[c].slots = (uint16_t *)(void *)at;
        memset(ctx->channels[c].slots, 0, slot_count(max_soa) * sizeof(uint16_t));
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

/* `wide` is a constant at every call site (see ossa_sampling_job_run), so the compiler
 * specialises the hot loops for 8- and 16-bit indices instead of testing per key. */
static inline uint32_t key_time_index(const ossa_animation_channel *c, uint32_t key, bool wide)
{
    return wide ? c->time_index16[key] : c->time_index8[key];
}

/* Track whose entry equals `key`: the slot table's guess when it checks out, else a search
 * (the validated stream guarantees a match; the loop is bounded anyway). */
static inline uint32_t find_track(const channel_state *s, uint32_t padded, uint32_t mask, uint32_t key)
{
    const uint32_t guess = s->slots[key & mask];
    if (guess < padded && s->entries[guess] == key) return guess;
    uint32_t t = 0;
    while (t + 1 < padded && s->entries[t] != key) ++t;
    return t;
}

/* Ratio of key `key`'s previous key: the sort key of the stream (non-decreasing). */
static inline float prev_ratio(const ossa_animation *a, const ossa_animation_channel *c, uint32_t key, bool wide)
{
    return a->timepoints[key_time_index(c, key - c->previous[key], wide)];
}

static inline void load_key(const ossa_animation_channel *c, channel_state *s, uint32_t padded, uint32_t mask,
                            uint32_t key)
{
    const uint32_t t = find_track(s, padded, mask, key - c->previous[key]);
    s->entries[t] = key;
    s->slots[key & mask] = (uint16_t)t;
    s->dirty[t >> 8] |= (uint64_t)1 << ((t >> 2) & 63);
}

static inline void unload_key(const ossa_animation_channel *c, channel_state *s, uint32_t padded, uint32_t mask,
                              uint32_t key)
{
    const uint32_t t = find_track(s, padded, mask, key);
    const uint32_t prev = key - c->previous[key];
    s->entries[t] = prev;
    s->slots[prev & mask] = (uint16_t)t;
    s->dirty[t >> 8] |= (uint64_t)1 << ((t >> 2) & 63);
}

/* Marks every group dirty and points the slots at the current entries. */
static void refresh_all(const ossa_animation *a, channel_state *s, uint32_t mask)
{
    const uint32_t padded = (uint32_t)a->soa_count * 4;
    for (uint32_t t = 0; t < padded; ++t) s->slots[s->entries[t] & mask] = (uint16_t)t;
    for (size_t w = 0; w < DIRTY_WORDS; ++w) {
        const size_t first = w * 64;
        s->dirty[w] = a->soa_count <= first        ? 0
                      : a->soa_count - first >= 64 ? ~(uint64_t)0
                                                   : ((uint64_t)1 << (a->soa_count - first)) - 1;
    }
}

/* Replaces every entry with entries[t] (a seek) and marks dirty only the groups where one
 * changed: the cache of the others (constant tracks, most often) stays valid. */
static void replace_entries(const ossa_animation *a, channel_state *s, uint32_t mask, const uint32_t *entries)
{
    for (size_t g = 0; g < a->soa_count; ++g) {
        uint32_t *e = &s->entries[g * 4];
        const uint32_t *n = &entries[g * 4];
        if (e[0] == n[0] && e[1] == n[1] && e[2] == n[2] && e[3] == n[3]) continue;
        for (int lane = 0; lane < 4; ++lane) {
            e[lane] = n[lane];
            s->slots[n[lane] & mask] = (uint16_t)(g * 4 + (size_t)lane);
        }
        s->dirty[g >> 6] |= (uint64_t)1 << (g & 63);
    }
}

/* The state with only the keys at ratio 0 loaded (a constant track stays there). `reset`
 * marks every group dirty (the cache belongs to another animation). */
static void rewind_state(const ossa_animation *a, channel_state *s, uint32_t mask, bool reset)
{
    uint32_t first_keys[OSSA_MAX_SOA_JOINTS * 4];
    const uint32_t padded = (uint32_t)a->soa_count * 4;
    s->cursor = padded;
    if (reset) {
        for (uint32_t t = 0; t < padded; ++t) s->entries[t] = t;
        refresh_all(a, s, mask);
        return;
    }
    for (uint32_t t = 0; t < padded; ++t) first_keys[t] = t;
    replace_entries(a, s, mask, first_keys);
}

/* Restores the cursor state snapshotted by iframe `i` (validated at init). */
static void load_iframe(const ossa_animation *a, const ossa_animation_channel *c, channel_state *s, uint32_t mask,
                        size_t i)
{
    uint32_t entries[OSSA_MAX_SOA_JOINTS * 4];
    const uint32_t padded = (uint32_t)a->soa_count * 4;
    const uint32_t cursor = c->iframe_desc[2 * i];
    ossa__gv_decode(c->iframe_data, c->iframe_data_size, c->iframe_desc[2 * i + 1], entries, padded);
    for (uint32_t t = 0; t < padded; ++t) entries[t] = cursor - 1 - entries[t];
    s->cursor = cursor;
    replace_entries(a, s, mask, entries);
}

/* Moves the channel's cursor so that keys [0, cursor) are exactly those whose previous key
 * is at or before `ratio`; then each track's entry is its first key after `ratio` (or its
 * last key). Short moves walk the stream; once a move passes one key per track, the target
 * is found by binary search and reached through the nearest iframe when that is shorter. */
static inline void update_cursor(const ossa_animation *a, const ossa_animation_channel *c, channel_state *s,
                                 uint32_t mask, float ratio, float last_ratio, bool reset, bool wide)
{
    const uint32_t padded = (uint32_t)a->soa_count * 4;
    const uint32_t n = (uint32_t)c->key_count;
    const uint32_t first = padded;
    if (reset) rewind_state(a, s, mask, true);
    uint32_t cursor = s->cursor, budget = padded;
    /* A jump over more than half the mean spacing of iframes seeks at once (as ozz does). */
    const float jump = ratio > last_ratio ? ratio - last_ratio : last_ratio - ratio;
    if (!reset && c->iframe_count && jump * (float)c->iframe_count > .5f) goto seek;
    while (cursor < n && prev_ratio(a, c, cursor, wide) <= ratio) {
        if (!budget--) goto seek;
        load_key(c, s, padded, mask, cursor++);
    }
    while (cursor > first && prev_ratio(a, c, cursor - 1, wide) > ratio) {
        if (!budget--) goto seek;
        unload_key(c, s, padded, mask, --cursor);
    }
    s->cursor = cursor;
    return;
seek:;
    /* target = first key whose previous key is after ratio. */
    uint32_t lo = first, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (prev_ratio(a, c, mid, wide) <= ratio)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint32_t target = lo;
    /* Nearest iframe at or before the target: iframes [0, lo) are. */
    lo = 0, hi = (uint32_t)c->iframe_count;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (c->iframe_desc[2 * mid] <= target)
            lo = mid + 1;
        else
            hi = mid;
    }
    const uint32_t walk = cursor > target ? cursor - target : target - cursor;
    if (lo > 0 && target - c->iframe_desc[2 * (lo - 1)] < walk) {
        load_iframe(a, c, s, mask, lo - 1);
        cursor = s->cursor;
    } else if (target - first < walk) {
        rewind_state(a, s, mask, false);
        cursor = first;
    }
    while (cursor < target) load_key(c, s, padded, mask, cursor++);
    while (cursor > target) unload_key(c, s, padded, mask, --cursor);
    s->cursor = cursor;
}

/* Index of the lowest set bit of a non-zero word. */
static inline unsigned lowest_bit(uint64_t bits)
{
#if defined(__GNUC__) || defined(__clang__)
    return (unsigned)__builtin_ctzll(bits);
#else
    unsigned n = 0;
    while (!(bits & 1u)) bits >>= 1, ++n;
    return n;
#endif
}

/* Takes the dirty bits of word w (clearing them); the caller visits each set bit. */
static inline uint64_t take_dirty(channel_state *s, size_t w)
{
    const uint64_t bits = s->dirty[w];
    s->dirty[w] = 0;
    return bits;
}

/* Gathers the (left, right) keys of the 4 tracks of group g: their time ratios and their
 * 3 value words, one vector per word. */
static inline void gather_group(const ossa_animation *a, const ossa_animation_channel *c, const channel_state *s,
                                size_t g, float ratio[2][4], v4i words[2][3], bool wide)
{
    OSSA_ALIGNAS(16) int32_t w[2][3][4];
    for (int lane = 0; lane < 4; ++lane) {
        const uint32_t right = s->entries[g * 4 + (size_t)lane];
        const uint32_t keys[2] = {right - c->previous[right], right};
        for (int k = 0; k < 2; ++k) {
            const uint16_t *v = &c->values[(size_t)keys[k] * 3];
            w[k][0][lane] = v[0], w[k][1][lane] = v[1], w[k][2][lane] = v[2];
            ratio[k][lane] = a->timepoints[key_time_index(c, keys[k], wide)];
        }
    }
    for (int k = 0; k < 2; ++k)
        for (int i = 0; i < 3; ++i) words[k][i] = v4i_load(w[k][i]);
}

/* Half floats, or (when `ranges` is not NULL) 16-bit fractions of each track's range. */
/* CONSTANT when both keys of every lane hold the same words. */
static inline uint8_t constant_flag(v4i words[2][3])
{
    return v4i_all_equal(words[0][0], words[1][0]) && v4i_all_equal(words[0][1], words[1][1]) &&
                   v4i_all_equal(words[0][2], words[1][2])
               ? CONSTANT
               : 0;
}

static inline void decompress_float3(const ossa_animation *a, const ossa_animation_channel *c, channel_state *s,
                                     const float *ranges, interp_float3 *cache, bool wide)
{
    for (size_t w = 0; w < DIRTY_WORDS; ++w) {
        for (uint64_t bits = take_dirty(s, w); bits; bits &= bits - 1) {
            const size_t g = w * 64 + lowest_bit(bits);
            v4i words[2][3];
            gather_group(a, c, s, g, cache[g].ratio, words, wide);
            s->constant[g] = constant_flag(words);
            if (ranges) {
                const float *r = ranges + g * 24;
                for (int k = 0; k < 2; ++k) {
                    v4f_store(cache[g].value[k].x, v4f_madd(v4i_to_f(words[k][0]), v4f_load(r + 12), v4f_load(r)));
                    v4f_store(cache[g].value[k].y, v4f_madd(v4i_to_f(words[k][1]), v4f_load(r + 16), v4f_load(r + 4)));
                    v4f_store(cache[g].value[k].z, v4f_madd(v4i_to_f(words[k][2]), v4f_load(r + 20), v4f_load(r + 8)));
                }
                continue;
            }
            for (int k = 0; k < 2; ++k) {
                v4f_store(cache[g].value[k].x, v4f_from_half(words[k][0]));
                v4f_store(cache[g].value[k].y, v4f_from_half(words[k][1]));
                v4f_store(cache[g].value[k].z, v4f_from_half(words[k][2]));
            }
        }
    }
}

/* Smallest-three decoding of 4 keys at once (the inverse of ossa__pack_quat). */
static inline void unpack_quats(const v4i words[3], ossa_soa_quat *out)
{
    const v4i low15 = v4i_set1(0x7fff), one = v4i_set1(1);
    const v4i largest = v4i_or(v4i_and(V4I_SRL(words[0], 15), one), V4I_SLL(v4i_and(V4I_SRL(words[1], 15), one), 1));
    const v4f sign = v4i_as_f(V4I_SLL(V4I_SRL(words[2], 15), 31));
    const v4f scale = v4f_set1(2.f / ((float)OSSA__QUAT_QUANT_MAX * OSSA__SQRT2)),
              offset = v4f_set1(-1.f / OSSA__SQRT2);
    const v4f c0 = v4f_madd(v4i_to_f(v4i_and(words[0], low15)), scale, offset);
    const v4f c1 = v4f_madd(v4i_to_f(v4i_and(words[1], low15)), scale, offset);
    const v4f c2 = v4f_madd(v4i_to_f(v4i_and(words[2], low15)), scale, offset);
    const v4f sum = v4f_madd(c0, c0, v4f_madd(c1, c1, v4f_mul(c2, c2)));
    const v4f big = v4f_xor(v4f_sqrt(v4f_max(v4f_sub(v4f_one(), sum), v4f_zero())), sign);
    const v4f is0 = v4i_as_f(v4i_cmpeq(largest, v4i_zero())), is1 = v4i_as_f(v4i_cmpeq(largest, one));
    const v4f is2 = v4i_as_f(v4i_cmpeq(largest, v4i_set1(2))), is3 = v4i_as_f(v4i_cmpeq(largest, v4i_set1(3)));
    v4f_store(out->x, v4f_select(is0, big, c0));
    v4f_store(out->y, v4f_select(is1, big, v4f_select(is0, c0, c1)));
    v4f_store(out->z, v4f_select(is2, big, v4f_select(is3, c2, c1)));
    v4f_store(out->w, v4f_select(is3, big, c2));
}

static inline void decompress_quat(const ossa_animation *a, const ossa_animation_channel *c, channel_state *s,
                                   interp_quat *cache, bool wide)
{
    for (size_t w = 0; w < DIRTY_WORDS; ++w) {
        for (uint64_t bits = take_dirty(s, w); bits; bits &= bits - 1) {
            const size_t g = w * 64 + lowest_bit(bits);
            v4i words[2][3];
            gather_group(a, c, s, g, cache[g].ratio, words, wide);
            s->constant[g] = constant_flag(words);
            unpack_quats(words[0], &cache[g].value[0]);
            unpack_quats(words[1], &cache[g].value[1]);
        }
    }
}

/* Moves the three cursors and refreshes the dirty cache groups. */
static inline void update_and_decompress(const ossa_animation *a, ossa_sampling_context *ctx, float ratio, bool reset,
                                         bool wide)
{
    update_cursor(a, &a->translations, &ctx->channels[0], ctx->slot_mask, ratio, ctx->ratio, reset, wide);
    update_cursor(a, &a->rotations, &ctx->channels[1], ctx->slot_mask, ratio, ctx->ratio, reset, wide);
    update_cursor(a, &a->scales, &ctx->channels[2], ctx->slot_mask, ratio, ctx->ratio, reset, wide);
    decompress_float3(a, &a->translations, &ctx->channels[0], a->translation_ranges, ctx->translations, wide);
    decompress_quat(a, &a->rotations, &ctx->channels[1], ctx->rotations, wide);
    decompress_float3(a, &a->scales, &ctx->channels[2], NULL, ctx->scales, wide);
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

    const bool reset = ctx->timepoints != a->timepoints || ctx->key_counts[0] != a->translations.key_count ||
                       ctx->key_counts[1] != a->rotations.key_count || ctx->key_counts[2] != a->scales.key_count;
    if (reset) {
        ctx->timepoints = a->timepoints;
        ctx->key_counts[0] = a->translations.key_count;
        ctx->key_counts[1] = a->rotations.key_count;
        ctx->key_counts[2] = a->scales.key_count;
    }
    if (a->translations.time_index16)
        update_and_decompress(a, ctx, ratio, reset, true);
    else
        update_and_decompress(a, ctx, ratio, reset, false);
    ctx->ratio = ratio;

    const v4f vratio = v4f_set1(ratio);
    const uint8_t *constant_t = ctx->channels[0].constant, *constant_r = ctx->channels[1].constant,
                  *constant_s = ctx->channels[2].constant;
    for (size_t g = 0; g < a->soa_count; ++g) {
        ossa_soa_transform *out = &job->output[g];
        const interp_float3 *t = &ctx->translations[g];
        const interp_quat *q = &ctx->rotations[g];
        const interp_float3 *s = &ctx->scales[g];
        /* Constant segments (common after key reduction) are copies of their left key. */
        if (constant_t[g])
            out->translation = t->value[0];
        else
            v4f3_store(&out->translation, v4f3_lerp(v4f3_load(&t->value[0]), v4f3_load(&t->value[1]),
                                                    alpha_of(t->ratio[0], t->ratio[1], vratio)));
        /* The builder keeps consecutive keys in one hemisphere, so no sign fix-up is needed. */
        if (constant_r[g])
            out->rotation = q->value[0];
        else
            v4fq_store(&out->rotation, v4fq_nlerp(v4fq_load(&q->value[0]), v4fq_load(&q->value[1]),
                                                  alpha_of(q->ratio[0], q->ratio[1], vratio), false));
        if (constant_s[g])
            out->scale = s->value[0];
        else
            v4f3_store(&out->scale, v4f3_lerp(v4f3_load(&s->value[0]), v4f3_load(&s->value[1]),
                                              alpha_of(s->ratio[0], s->ratio[1], vratio)));
    }
    return OSSA_OK;
}
