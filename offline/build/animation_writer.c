/* Animation builder: the blob writer (layout in ossa/animation.h). */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation_codec.h"
#include "animation_format.h"
#include "internal.h"
#include "ossa/animation.h"

void ossa__pack_constant_quat(const float *q, uint32_t out[2])
{
    int d = 0;
    for (int c = 1; c < 4; ++c)
        if (fabsf(q[c]) > fabsf(q[d])) d = c;
    const float sign = q[d] < 0.f ? -1.f : 1.f;
    const uint32_t mask = (1u << OSSA__CONST_QUAT_BITS) - 1u;
    uint64_t bits = (uint64_t)d << 60;
    for (int c = 0, i = 0; c < 4; ++c) {
        if (c == d) continue;
        float v = (q[c] * sign + .70710678f) / 1.41421356f * (float)mask;
        v = v < 0.f ? 0.f : (v > (float)mask ? (float)mask : v);
        bits |= (uint64_t)lrintf(v) << (OSSA__CONST_QUAT_BITS * i++);
    }
    out[0] = (uint32_t)bits, out[1] = (uint32_t)(bits >> 32);
}

typedef struct bit_writer {
    uint8_t *out;
    size_t at; /* bits */
} bit_writer;

/* Appends `width` bits of `value`, least significant first (the output starts zeroed). */
static void put_bits(bit_writer *w, uint32_t value, unsigned width)
{
    if (!width) return;
    uint64_t v = (uint64_t)(value & (uint32_t)((1ull << width) - 1u)) << (w->at & 7);
    uint8_t *p = w->out + (w->at >> 3);
    for (unsigned n = (unsigned)(w->at & 7) + width;; n -= 8) {
        *p++ |= (uint8_t)v;
        v >>= 8;
        if (n <= 8) break;
    }
    w->at += width;
}

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* The bits v needs: 0 for 0, else one more than its highest set bit. */
static inline unsigned bit_length(uint32_t v)
{
#if defined(__GNUC__) || defined(__clang__)
    return v ? 32u - (unsigned)__builtin_clz(v) : 0u;
#else
    unsigned n = 0;
    while (v) v >>= 1, ++n;
    return n;
#endif
}

/* Segment ranges of `st` in segment g: base and width of each component (see
 * OSSA__FORMAT_SEGMENT_RANGES) over the keys after the segment's first, which is in the
 * first-key block at the clip widths; returns the count of those keys. */
static size_t segment_ranges(const ossa__clip *clip, const ossa__subtrack *st, size_t g, uint32_t base[4],
                             unsigned width[4])
{
    const size_t first = g * OSSA__SEGMENT_FRAMES;
    const size_t end = first + OSSA__SEGMENT_FRAMES < clip->frames ? first + OSSA__SEGMENT_FRAMES : clip->frames;
    uint32_t lo[4] = {UINT32_MAX, UINT32_MAX, UINT32_MAX, UINT32_MAX}, hi[4] = {0, 0, 0, 0};
    size_t keys = 0;
    for (size_t f = first + 1; f < end; ++f) {
        if (!st->keys[f]) continue;
        for (int c = 0; c < 4; ++c) {
            const uint32_t q = st->q[4 * f + (size_t)c];
            lo[c] = q < lo[c] ? q : lo[c], hi[c] = q > hi[c] ? q : hi[c];
        }
        ++keys;
    }
    for (int c = 0; c < 4; ++c) {
        const unsigned shift = ossa__segment_shift(st->bits[c]);
        if (keys == 0) lo[c] = hi[c] = 0;
        base[c] = lo[c] >> shift;
        const uint32_t span = hi[c] - (base[c] << shift);
        /* The least width whose largest value, 2^w - 1, holds the span, at most the component's. */
        const unsigned w = bit_length(span);
        width[c] = w < st->bits[c] ? w : st->bits[c];
    }
    return keys;
}

/* Whether segment ranges make `st`'s keys smaller, counting their 2 bytes per component. */
static bool use_segment_ranges(const ossa__clip *clip, const ossa__subtrack *st, size_t segments)
{
    size_t with = 0, without = 0;
    for (size_t g = 0; g < segments; ++g) {
        uint32_t base[4];
        unsigned width[4];
        const size_t keys = segment_ranges(clip, st, g, base, width);
        for (int c = 0; c < st->n; ++c) {
            with += 16 + keys * width[c];
            without += keys * st->bits[c];
        }
    }
    return with < without;
}

ossa_result ossa__animation_write(const ossa__clip *clip, const ossa__subtrack *st, const char *name,
                                  const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag)
{
    const size_t J = clip->joints, F = clip->frames, S = 3 * J;
    const size_t segments = (F - 1) / OSSA__SEGMENT_FRAMES + 1;
    size_t animated = 0, constants = 0, const_words = 0, ranges = 0, keys = 0, entries = 0;
    uint8_t *ranged = ossa__calloc(allocator, S ? S : 1, 1);
    size_t *seg_at = ossa__calloc(allocator, segments + 1, sizeof *seg_at);
    if (!ranged || !seg_at) {
        ossa_free(allocator, ranged), ossa_free(allocator, seg_at);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory writing");
    }
    for (size_t s = 0; s < S; ++s) {
        if (st[s].kind == OSSA__KIND_CONSTANT) ++constants, const_words += s % 3 == OSSA__CH_ROTATION ? 2 : 3;
        if (st[s].kind != OSSA__KIND_ANIMATED) continue;
        ++animated;
        ranges += 2 * (size_t)st[s].n;
        for (size_t f = 0; f < F; ++f) keys += st[s].keys[f];
        ranged[s] = use_segment_ranges(clip, &st[s], segments);
        if (ranged[s]) entries += 2 * (size_t)st[s].n;
    }
    /* Segment sizes. */
    size_t data = 0;
    for (size_t g = 0; g < segments; ++g) {
        seg_at[g] = data;
        size_t bits = 0;
        for (size_t s = 0; s < S; ++s) {
            if (st[s].kind != OSSA__KIND_ANIMATED) continue;
            uint32_t base[4];
            unsigned width[4];
            const size_t n = segment_ranges(clip, &st[s], g, base, width);
            for (int c = 0; c < st[s].n; ++c) bits += st[s].bits[c] + n * (ranged[s] ? width[c] : st[s].bits[c]);
        }
        data += 2 * animated + entries + (bits + 7) / 8;
    }
    seg_at[segments] = data;
    const size_t data_size = data + OSSA__DATA_PADDING;
    const size_t name_size = strlen(name) + 1;
    size_t at = OSSA__ANIM_HEADER_SIZE;
    const size_t tp_at = at;
    if (!clip->uniform) at += 4 * F;
    const size_t kinds_at = at;
    at = align4(at + (3 * J + 3) / 4);
    const size_t const_at = at;
    at += 4 * const_words;
    const size_t formats_at = at;
    at = align4(at + animated);
    const size_t bits_at = at;
    at += 4 * animated;
    const size_t ranges_at = at;
    at += 4 * ranges;
    const size_t offsets_at = at;
    at += 4 * (segments + 1);
    const size_t data_at = at;
    at = align4(at + data_size);
    const size_t name_at = at;
    at += name_size;
    ossa_result r = OSSA_OK;
    if (animated > UINT32_MAX || data_size >= OSSA__MAX_DATA_SIZE || keys > UINT32_MAX || F > INT32_MAX) {
        r = ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                       "animation too large: %zu time points and %zu bytes of keys (at most 2^31 and "
                       "2^29)",
                       F, data_size);
        goto done;
    }
    if ((r = ossa_blob_create(out, (at + 15) & ~(size_t)15, allocator)) != OSSA_OK) {
        r = ossa__fail(diag, r, "out of memory for a %zu-byte animation", at);
        goto done;
    }
    uint8_t *b = out->data;
    memset(b, 0, out->size);
    ossa__store_f32(b + OSSA__ANIM_DURATION, clip->duration);
    ossa__store_u32(b + OSSA__ANIM_TRACK_COUNT, (uint32_t)J);
    ossa__store_u32(b + OSSA__ANIM_FRAME_COUNT, (uint32_t)F);
    ossa__store_u32(b + OSSA__ANIM_FLAGS, clip->uniform ? 0u : OSSA_ANIMATION_FLAG_TIMEPOINTS);
    ossa__store_u32(b + OSSA__ANIM_ANIMATED_COUNT, (uint32_t)animated);
    ossa__store_u32(b + OSSA__ANIM_CONSTANT_COUNT, (uint32_t)constants);
    ossa__store_u32(b + OSSA__ANIM_SEGMENT_COUNT, (uint32_t)segments);
    ossa__store_u32(b + OSSA__ANIM_NAME_SIZE, (uint32_t)name_size);
    ossa__store_u32(b + OSSA__ANIM_DATA_SIZE, (uint32_t)data_size);
    ossa__store_u32(b + OSSA__ANIM_KEY_COUNT, (uint32_t)keys);
    ossa__store_u32(b + OSSA__ANIM_RANGE_COUNT, (uint32_t)ranges);
    if (!clip->uniform)
        for (size_t f = 0; f < F; ++f) ossa__store_f32(b + tp_at + 4 * f, clip->ratios[f]);
    size_t cw = 0, ai = 0, ri = 0;
    for (size_t s = 0; s < S; ++s) {
        b[kinds_at + s / 4] |= (uint8_t)(st[s].kind << (2 * (s % 4)));
        if (st[s].kind == OSSA__KIND_CONSTANT) {
            if (s % 3 == OSSA__CH_ROTATION) {
                uint32_t w[2];
                ossa__pack_constant_quat(st[s].constant, w);
                ossa__store_u32(b + const_at + 4 * cw++, w[0]);
                ossa__store_u32(b + const_at + 4 * cw++, w[1]);
            } else {
                for (int c = 0; c < 3; ++c) ossa__store_f32(b + const_at + 4 * cw++, st[s].constant[c]);
            }
        }
        if (st[s].kind != OSSA__KIND_ANIMATED) continue;
        b[formats_at + ai] = (uint8_t)(st[s].format | (ranged[s] ? OSSA__FORMAT_SEGMENT_RANGES : 0));
        for (int c = 0; c < 4; ++c) b[bits_at + 4 * ai + (size_t)c] = st[s].bits[c];
        for (int c = 0; c < st[s].n; ++c) ossa__store_f32(b + ranges_at + 4 * ri++, st[s].min[c]);
        for (int c = 0; c < st[s].n; ++c) ossa__store_f32(b + ranges_at + 4 * ri++, st[s].step[c]);
        ++ai;
    }
    for (size_t g = 0; g <= segments; ++g) ossa__store_u32(b + offsets_at + 4 * g, (uint32_t)seg_at[g]);
    for (size_t g = 0; g < segments; ++g) {
        uint8_t *seg = b + data_at + seg_at[g];
        uint8_t *entry = seg + 2 * animated;
        bit_writer w = {seg, (2 * animated + entries) * 8};
        const size_t first = g * OSSA__SEGMENT_FRAMES;
        const size_t end = first + OSSA__SEGMENT_FRAMES < F ? first + OSSA__SEGMENT_FRAMES : F;
        /* The first-key block: every sub-track's key at the segment's first time point. */
        for (size_t s = 0; s < S; ++s)
            if (st[s].kind == OSSA__KIND_ANIMATED)
                for (int c = 0; c < st[s].n; ++c) put_bits(&w, st[s].q[4 * first + (size_t)c], st[s].bits[c]);
        size_t i = 0;
        for (size_t s = 0; s < S; ++s) {
            if (st[s].kind != OSSA__KIND_ANIMATED) continue;
            uint32_t qbase[4] = {0, 0, 0, 0}, base[4];
            unsigned width[4];
            if (ranged[s]) segment_ranges(clip, &st[s], g, base, width);
            for (int c = 0; c < st[s].n; ++c) {
                if (!ranged[s]) {
                    width[c] = st[s].bits[c];
                    continue;
                }
                *entry++ = (uint8_t)base[c], *entry++ = (uint8_t)width[c];
                qbase[c] = base[c] << ossa__segment_shift(st[s].bits[c]);
            }
            uint32_t bm = 1u;
            for (size_t f = first + 1; f < end; ++f) {
                if (!st[s].keys[f]) continue;
                bm |= 1u << (f - first);
                for (int c = 0; c < st[s].n; ++c) put_bits(&w, st[s].q[4 * f + (size_t)c] - qbase[c], width[c]);
            }
            ossa__store_u16(seg + 2 * i++, (uint16_t)bm);
        }
    }
    memcpy(b + name_at, name, name_size);
done:
    ossa_free(allocator, ranged);
    ossa_free(allocator, seg_at);
    return r;
}
