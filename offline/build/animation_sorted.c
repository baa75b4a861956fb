/* Animation builder: the writer of the sorted-key layout (OSSA_ANIMATION_FLAG_SORTED_KEYS;
 * docs/animation-format.md, "The sorted-key layout"). It takes the keys the error-bounded
 * search kept, with the values the packed encoding decodes to, re-encodes them on 16 bits
 * (translations and scales over each sub-track's range, rotations as the smallest three) and
 * sorts them by the time point at which the sampler needs them. The search measures this blob,
 * as it does the packed one, through the runtime sampling job. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation_codec.h"
#include "animation_format.h"
#include "animation_sorted.h"
#include "internal.h"

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* A key before sorting: its slot, time point, the time point it is needed at and its stream
 * bytes. */
typedef struct sort_key {
    uint32_t need, slot, frame;
    uint8_t bytes[OSSA__SORTED_KEY_SIZE];
} sort_key;

static int by_need(const void *pa, const void *pb)
{
    const sort_key *a = pa, *b = pb;
    if (a->need != b->need) return a->need < b->need ? -1 : 1;
    if (a->slot != b->slot) return a->slot < b->slot ? -1 : 1;
    return (a->frame > b->frame) - (a->frame < b->frame);
}

static uint16_t quantise16(float x)
{
    return (uint16_t)(x <= 0.f ? 0u : (x >= 65535.f ? 65535u : (uint32_t)(x + .5f)));
}

/* The value the packed encoding of `st` decodes to at time point f (4 floats). */
static void key_value(int channel, const ossa__subtrack *st, size_t f, float out[4])
{
    float v[4];
    for (int c = 0; c < st->n; ++c) v[c] = st->min[c] + (float)st->q[4 * f + (size_t)c] * st->step[c];
    if (channel == OSSA__CH_ROTATION) {
        const ossa_quat r = ossa__rotation_from(v, st->format);
        out[0] = r.x, out[1] = r.y, out[2] = r.z, out[3] = r.w;
        const float len = sqrtf(out[0] * out[0] + out[1] * out[1] + out[2] * out[2] + out[3] * out[3]);
        for (int c = 0; c < 4; ++c) out[c] = len > 0.f ? out[c] / len : (c == 3 ? 1.f : 0.f);
    } else {
        memcpy(out, v, 3 * sizeof(float)), out[3] = 0.f;
    }
}

/* The three stored components of the key at time point f and the info bits beyond the slot: for
 * a rotation the three smallest components and the index and sign of the largest, rebuilt by the
 * sampler (keeping the sign keeps the hemisphere the packed encoding chose, so interpolation
 * needs no sign test). */
static uint32_t key_components(int channel, const ossa__subtrack *st, size_t f, float out[3])
{
    float v[4];
    key_value(channel, st, f, v);
    if (channel != OSSA__CH_ROTATION) {
        memcpy(out, v, 3 * sizeof(float));
        return 0;
    }
    int d = 0;
    for (int c = 1; c < 4; ++c)
        if (fabsf(v[c]) > fabsf(v[d])) d = c;
    for (int c = 0, i = 0; c < 4; ++c)
        if (c != d) out[i++] = v[c];
    return (uint32_t)d << OSSA__SORTED_DROP_SHIFT | (v[d] < 0.f ? OSSA__SORTED_NEGATIVE : 0u);
}

/* Smallest power of two N >= 8 whose iframes cost at most an eighth of the keys' bytes (at most
 * OSSA__SORTED_MAX_INTERVAL). */
static size_t choose_interval(size_t frames, size_t animated, size_t keys)
{
    size_t n = 8;
    while (n < OSSA__SORTED_MAX_INTERVAL &&
           8 * ((frames - 2) / n) * ossa__sorted_iframe_words(animated) * 4 > keys * OSSA__SORTED_KEY_SIZE)
        n *= 2;
    return n;
}

ossa_result ossa__animation_write_sorted(const ossa__clip *clip, const ossa__subtrack *st, const char *name,
                                         const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag)
{
    const size_t J = clip->joints, F = clip->frames, S = 3 * J;
    size_t animated = 0, constants = 0, const_words = 0, ranges = 0, keys = 0;
    for (size_t s = 0; s < S; ++s) {
        if (st[s].kind == OSSA__KIND_CONSTANT) ++constants, const_words += s % 3 == OSSA__CH_ROTATION ? 2 : 3;
        if (st[s].kind != OSSA__KIND_ANIMATED) continue;
        ++animated;
        ranges += 6;
        for (size_t f = 0; f < F; ++f) keys += st[s].keys[f];
    }
    if (F > OSSA__SORTED_MAX_FRAMES)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "the sorted layout holds at most %d time points, the clip has %zu", OSSA__SORTED_MAX_FRAMES,
                          F);
    if ((uint64_t)keys * OSSA__SORTED_KEY_SIZE >= OSSA__MAX_DATA_SIZE)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "animation too large: %zu keys (sorted layout)", keys);
    const size_t N = choose_interval(F, animated, keys), iframes = (F - 2) / N;
    const size_t words = ossa__sorted_iframe_words(animated);
    sort_key *k = ossa__calloc(allocator, keys ? keys : 1, sizeof *k);
    uint32_t *state = ossa__calloc(allocator, 3 * (animated ? animated : 1), sizeof *state);
    if (!k || !state) {
        ossa_free(allocator, k), ossa_free(allocator, state);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory writing %zu keys", keys);
    }
    /* Keys with their bytes; the first two of every slot first, the others needed at the time
     * point of the key before them. */
    float *range_of = NULL;
    ossa_result r = OSSA_OK;
    size_t at = 0;
    {
        size_t slot = 0;
        float *rg = ossa__calloc(allocator, ranges ? ranges : 1, sizeof *rg);
        if (!rg) {
            r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory writing %zu keys", keys);
            goto done;
        }
        range_of = rg;
        size_t ri = 0;
        for (size_t s = 0; s < S; ++s) {
            if (st[s].kind != OSSA__KIND_ANIMATED) continue;
            const int c = (int)(s % 3);
            float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
            for (size_t f = 0; f < F; ++f) {
                if (!st[s].keys[f]) continue;
                float v[3];
                key_components(c, &st[s], f, v);
                for (int i = 0; i < 3; ++i) lo[i] = v[i] < lo[i] ? v[i] : lo[i], hi[i] = v[i] > hi[i] ? v[i] : hi[i];
            }
            for (int i = 0; i < 3; ++i) {
                rg[ri + (size_t)i] = lo[i];
                rg[ri + 3 + (size_t)i] = hi[i] > lo[i] ? (hi[i] - lo[i]) / 65535.f : 0.f;
            }
            uint32_t prev = 0, index = 0;
            for (size_t f = 0; f < F; ++f) {
                if (!st[s].keys[f]) continue;
                sort_key *e = &k[at++];
                e->slot = (uint32_t)slot, e->frame = (uint32_t)f;
                /* The first two keys of each slot come before all others, in slot order. */
                e->need = index < 2 ? 0u : prev;
                prev = (uint32_t)f;
                float v[3];
                const uint32_t info = key_components(c, &st[s], f, v);
                ossa__store_u16(e->bytes, (uint16_t)f);
                ossa__store_u16(e->bytes + 2, (uint16_t)(slot | info));
                for (int i = 0; i < 3; ++i) {
                    const float step = rg[ri + 3 + (size_t)i];
                    const float x = step > 0.f ? (v[i] - rg[ri + (size_t)i]) / step : 0.f;
                    ossa__store_u16(e->bytes + 4 + 2 * i, quantise16(x));
                }
                ++index;
            }
            ri += 6;
            ++slot;
        }
    }
    /* Sort by need: the 2A keys of need 0 come first, slot by slot, each slot's first key (at time
     * point 0) then its second; they are then laid out as all first keys, then all second keys. */
    {
        sort_key *head = k;
        sort_key *tmp = ossa__calloc(allocator, 2 * (animated ? animated : 1), sizeof *tmp);
        if (!tmp) {
            r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory writing %zu keys", keys);
            goto done;
        }
        qsort(head, keys, sizeof *head, by_need);
        /* The first 2A keys (need 0) are now slot by slot, first then second key. */
        for (size_t i = 0; i < 2 * animated; ++i) {
            const sort_key *e = &head[i];
            tmp[e->frame == 0 ? e->slot : animated + e->slot] = *e;
        }
        memcpy(head, tmp, 2 * animated * sizeof *tmp);
        ossa_free(allocator, tmp);
    }
    /* Layout. */
    const size_t data_size = keys * OSSA__SORTED_KEY_SIZE;
    const size_t name_size = strlen(name) + 1;
    size_t b_at = OSSA__ANIM_HEADER_SIZE;
    const size_t tp_at = b_at;
    if (!clip->uniform) b_at += 4 * F;
    const size_t kinds_at = b_at;
    b_at = align4(b_at + (3 * J + 3) / 4);
    const size_t const_at = b_at;
    b_at += 4 * const_words;
    const size_t ranges_at = b_at;
    b_at += 4 * ranges;
    const size_t iframes_at = b_at;
    b_at += 4 * iframes * words;
    const size_t data_at = b_at;
    b_at = align4(b_at + data_size);
    const size_t name_at = b_at;
    b_at += name_size;
    if ((r = ossa_blob_create(out, (b_at + 15) & ~(size_t)15, allocator)) != OSSA_OK) {
        r = ossa__fail(diag, r, "out of memory for a %zu-byte animation", b_at);
        goto done;
    }
    uint8_t *b = out->data;
    memset(b, 0, out->size);
    ossa__store_f32(b + OSSA__ANIM_DURATION, clip->duration);
    ossa__store_u32(b + OSSA__ANIM_TRACK_COUNT, (uint32_t)J);
    ossa__store_u32(b + OSSA__ANIM_FRAME_COUNT, (uint32_t)F);
    ossa__store_u32(b + OSSA__ANIM_FLAGS,
                    OSSA_ANIMATION_FLAG_SORTED_KEYS | (clip->uniform ? 0u : OSSA_ANIMATION_FLAG_TIMEPOINTS));
    ossa__store_u32(b + OSSA__ANIM_ANIMATED_COUNT, (uint32_t)animated);
    ossa__store_u32(b + OSSA__ANIM_CONSTANT_COUNT, (uint32_t)constants);
    ossa__store_u32(b + OSSA__ANIM_SEGMENT_COUNT, (uint32_t)iframes);
    ossa__store_u32(b + OSSA__ANIM_NAME_SIZE, (uint32_t)name_size);
    ossa__store_u32(b + OSSA__ANIM_DATA_SIZE, (uint32_t)data_size);
    ossa__store_u32(b + OSSA__ANIM_KEY_COUNT, (uint32_t)keys);
    ossa__store_u32(b + OSSA__ANIM_RANGE_COUNT, (uint32_t)ranges);
    ossa__store_u32(b + OSSA__ANIM_IFRAME_INTERVAL, (uint32_t)N);
    if (!clip->uniform)
        for (size_t f = 0; f < F; ++f) ossa__store_f32(b + tp_at + 4 * f, clip->ratios[f]);
    size_t cw = 0;
    for (size_t s = 0; s < S; ++s) {
        b[kinds_at + s / 4] |= (uint8_t)(st[s].kind << (2 * (s % 4)));
        if (st[s].kind != OSSA__KIND_CONSTANT) continue;
        if (s % 3 == OSSA__CH_ROTATION) {
            uint32_t w[2];
            ossa__pack_constant_quat(st[s].constant, w);
            ossa__store_u32(b + const_at + 4 * cw++, w[0]);
            ossa__store_u32(b + const_at + 4 * cw++, w[1]);
        } else {
            for (int c = 0; c < 3; ++c) ossa__store_f32(b + const_at + 4 * cw++, st[s].constant[c]);
        }
    }
    for (size_t i = 0; i < ranges; ++i) ossa__store_f32(b + ranges_at + 4 * i, range_of[i]);
    for (size_t i = 0; i < keys; ++i)
        memcpy(b + data_at + i * OSSA__SORTED_KEY_SIZE, k[i].bytes, OSSA__SORTED_KEY_SIZE);
    /* Iframes: the sampler's state (stream position, every slot's left and right keys) at each
     * multiple of N, replayed as the sampler reads forward. */
    {
        uint32_t *left = state, *right = state + animated, *right_frame = state + 2 * animated;
        for (size_t s = 0; s < animated; ++s)
            left[s] = (uint32_t)s, right[s] = (uint32_t)(animated + s), right_frame[s] = k[animated + s].frame;
        size_t p = 2 * animated;
        for (size_t i = 1; i <= iframes; ++i) {
            for (; p < keys && right_frame[k[p].slot] <= i * N; ++p)
                left[k[p].slot] = right[k[p].slot], right[k[p].slot] = (uint32_t)p, right_frame[k[p].slot] = k[p].frame;
            uint8_t *f = b + iframes_at + 4 * (i - 1) * words;
            ossa__store_u32(f, (uint32_t)p);
            for (size_t s = 0; s < animated; ++s) {
                ossa__store_u32(f + 4 * (1 + s), left[s]);
                ossa__store_u32(f + 4 * (1 + animated + s), right[s]);
            }
        }
    }
    memcpy(b + name_at, name, name_size);
done:
    ossa_free(allocator, k);
    ossa_free(allocator, state);
    ossa_free(allocator, range_of);
    if (r != OSSA_OK) ossa_blob_destroy(out);
    return r;
}
