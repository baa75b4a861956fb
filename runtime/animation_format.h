/* Private: the animation blob layout (version 2) and the pieces of decoding shared by the
 * runtime (validation, sampling job) and the offline builder, which encodes with the same
 * constants and mirrors the job's time-point lookup and dequantisation to measure its error.
 * Not installed. The layout is documented in ossa/animation.h and docs/animation-format.md. */
#ifndef OSSA_RUNTIME_ANIMATION_FORMAT_H
#define OSSA_RUNTIME_ANIMATION_FORMAT_H

#include <math.h>
#include <stdint.h>
#include <string.h>

#include "checks.h" /* OSSA__INLINE */
#include "ossa/animation.h"
#include "ossa/maths.h"

/* Header fields (byte offsets of little-endian 32-bit words). */
enum {
    OSSA__ANIM_DURATION = 0,
    OSSA__ANIM_TRACK_COUNT = 4,
    OSSA__ANIM_FRAME_COUNT = 8,
    OSSA__ANIM_FLAGS = 12,
    OSSA__ANIM_ANIMATED_COUNT = 16,
    OSSA__ANIM_CONSTANT_COUNT = 20,
    OSSA__ANIM_SEGMENT_COUNT = 24,
    OSSA__ANIM_NAME_SIZE = 28,
    OSSA__ANIM_DATA_SIZE = 32,
    OSSA__ANIM_KEY_COUNT = 36,
    OSSA__ANIM_RANGE_COUNT = 40,
    OSSA__ANIM_HEADER_SIZE = 64 /* bytes 44..63 are reserved and zero */
};

/* Frames (time points) per segment: a segment's key bitmap is one 16-bit word per track. */
enum { OSSA__SEGMENT_FRAMES = 16 };
/* Bytes after the last segment, so that a key read may load 8 bytes at any bit position and
 * the sampling job may load the bitmaps 8 at a time. */
enum { OSSA__DATA_PADDING = 16 };
/* Key data is below 2^29 bytes, so bit offsets fit in 32 bits. */
#define OSSA__MAX_DATA_SIZE (1u << 29)
/* Widest quantised component. */
enum { OSSA__MAX_BITS = 24 };

/* Kind of a (joint, channel) sub-track: 2 bits each in the kinds table. */
enum { OSSA__KIND_DEFAULT = 0, OSSA__KIND_CONSTANT = 1, OSSA__KIND_ANIMATED = 2, OSSA__KIND_REST = 3 };
/* Channels, in the order of the sub-track index joint * 3 + channel. */
enum { OSSA__CH_TRANSLATION = 0, OSSA__CH_ROTATION = 1, OSSA__CH_SCALE = 2 };
/* Rotation formats: 0..3 = that component is dropped (stored as +sqrt(1 - others^2));
 * 4 = all four components stored (normalised by the interpolation). Translations and scales
 * use format 0 (three components). */
enum { OSSA__ROT_FULL = 4 };
/* Format flag: the sub-track's keys use segment ranges. Each segment then holds, per stored
 * component, a byte `base` and a byte `width`: a key's component is stored on `width` bits as
 * q - (base << shift), shift = max(0, clip width - 8), so a component that moves little within
 * the segment costs few bits. */
enum { OSSA__FORMAT_SEGMENT_RANGES = 0x80, OSSA__FORMAT_MASK = 0x7f };

static inline unsigned ossa__segment_shift(unsigned clip_width) { return clip_width > 8 ? clip_width - 8 : 0; }

/* Constant rotations: smallest three on 20 bits each, the dropped index in bits 60..61. */
enum { OSSA__CONST_QUAT_BITS = 20 };

static inline int ossa__format_components(int channel, int format)
{
    return channel == OSSA__CH_ROTATION && (format & OSSA__FORMAT_MASK) == OSSA__ROT_FULL ? 4 : 3;
}

static inline uint32_t ossa__kind(const uint8_t *kinds, size_t subtrack)
{
    return (kinds[subtrack >> 2] >> (2 * (subtrack & 3))) & 3u;
}

/* `width` (<= 24) bits at bit `at` of `data` (LSB first); the data is padded so that 8 bytes
 * can always be loaded. */
static inline uint32_t ossa__read_bits(const uint8_t *data, size_t at, unsigned width)
{
    uint64_t word;
    memcpy(&word, data + (at >> 3), sizeof word);
    return (uint32_t)(word >> (at & 7)) & (uint32_t)((1ull << width) - 1u);
}

/* Count of set bits of a 16-bit value: the popcnt instruction where the target has one,
 * otherwise two lookups (the baseline x86-64 target has no popcnt instruction, and the
 * bit-twiddling form costs a dozen). */
static inline unsigned ossa__popcount16(uint32_t v)
{
#if defined(__POPCNT__) || defined(__ARM_NEON)
    return (unsigned)__builtin_popcount(v & 0xffffu);
#else
    static const uint8_t bits[256] = {
#define OSSA__B2(n) n, n + 1, n + 1, n + 2
#define OSSA__B4(n) OSSA__B2(n), OSSA__B2(n + 1), OSSA__B2(n + 1), OSSA__B2(n + 2)
#define OSSA__B6(n) OSSA__B4(n), OSSA__B4(n + 1), OSSA__B4(n + 1), OSSA__B4(n + 2)
        OSSA__B6(0), OSSA__B6(1), OSSA__B6(1), OSSA__B6(2)
#undef OSSA__B6
#undef OSSA__B4
#undef OSSA__B2
    };
    return (unsigned)bits[v & 0xffu] + bits[(v >> 8) & 0xffu];
#endif
}

/* A rotation from its stored components `c` (3, or 4 for OSSA__ROT_FULL). */
static inline ossa_quat ossa__rotation_from(const float *c, int format)
{
    if (format == OSSA__ROT_FULL) return (ossa_quat){c[0], c[1], c[2], c[3]};
    const float rest = 1.f - (c[0] * c[0] + (c[1] * c[1] + c[2] * c[2])); /* the sampling job's order */
    const float d = sqrtf(rest > 0.f ? rest : 0.f);
    switch (format) {
    case 0:
        return (ossa_quat){d, c[0], c[1], c[2]};
    case 1:
        return (ossa_quat){c[0], d, c[1], c[2]};
    case 2:
        return (ossa_quat){c[0], c[1], d, c[2]};
    default:
        return (ossa_quat){c[0], c[1], c[2], d};
    }
}

/* Constant rotation packing (the inverse of ossa__pack_constant_quat in the builder). */
static inline ossa_quat ossa__unpack_constant_quat(uint32_t lo, uint32_t hi)
{
    const uint64_t bits = (uint64_t)lo | ((uint64_t)hi << 32);
    const uint32_t mask = (1u << OSSA__CONST_QUAT_BITS) - 1u;
    const float scale = 1.41421356237309504880f / (float)mask, offset = -0.70710678118654752440f;
    float c[3];
    for (int i = 0; i < 3; ++i) c[i] = (float)((bits >> (OSSA__CONST_QUAT_BITS * i)) & mask) * scale + offset;
    return ossa__rotation_from(c, (int)((bits >> 60) & 3u));
}

/* The constants table of a validated-so-far view: every constant translation or scale is
 * finite and every packed rotation's spare bits (62, 63) are zero. Both layouts' validators
 * check it. */
static inline ossa_result ossa__check_constants(const ossa_animation *a)
{
    size_t w = 0;
    for (size_t s = 0; s < 3 * a->track_count; ++s) {
        if (ossa__kind(a->kinds, s) != OSSA__KIND_CONSTANT) continue;
        if (s % 3 == OSSA__CH_ROTATION) {
            if (a->constants[w + 1] >> 30) return OSSA_ERROR_INVALID_ANIMATION;
            w += 2;
            continue;
        }
        for (int c = 0; c < 3; ++c) {
            float v;
            memcpy(&v, &a->constants[w++], sizeof v);
            if (!isfinite(v)) return OSSA_ERROR_INVALID_ANIMATION;
        }
    }
    return OSSA_OK;
}

/* The value v (x, y, z, and w for rotations) a sampling job outputs for joint j's channel c
 * when its sub-track is of kind `kind`, not animated: the default (zero translation, identity
 * rotation, unit scale; also for j past the joints), the constant at *word (which advances
 * past it), or the rest pose's. Both layouts' samplers decode these once, when they bind. */
static inline void ossa__fixed_value(const ossa_animation *a, uint32_t kind, int c, size_t j,
                                     const ossa_soa_transform *rest, size_t *word, float v[4])
{
    static const float defaults[3][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f, 0.f}};
    memcpy(v, defaults[c], 4 * sizeof(float));
    if (kind == OSSA__KIND_CONSTANT && c == OSSA__CH_ROTATION) {
        const ossa_quat q = ossa__unpack_constant_quat(a->constants[*word], a->constants[*word + 1]);
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        *word += 2;
    } else if (kind == OSSA__KIND_CONSTANT) {
        memcpy(v, &a->constants[*word], 3 * sizeof(float));
        *word += 3;
    } else if (kind == OSSA__KIND_REST) {
        const ossa_transform t = ossa_soa_transform_get(&rest[j / 4], (int)(j % 4));
        const float r[3][4] = {{t.translation.x, t.translation.y, t.translation.z, 0.f},
                               {t.rotation.x, t.rotation.y, t.rotation.z, t.rotation.w},
                               {t.scale.x, t.scale.y, t.scale.z, 0.f}};
        memcpy(v, r[c], 4 * sizeof(float));
    }
}

/* Writes value v (3 or 4 floats) into lane `joint` of channel c of a SoA pose. */
static inline void ossa__put_lane(ossa_soa_transform *pose, int c, size_t joint, const float *v)
{
    ossa_soa_transform *g = &pose[joint / 4];
    const size_t l = joint % 4;
    if (c == OSSA__CH_ROTATION) {
        g->rotation.x[l] = v[0], g->rotation.y[l] = v[1], g->rotation.z[l] = v[2], g->rotation.w[l] = v[3];
    } else {
        ossa_soa_float3 *t = c == OSSA__CH_SCALE ? &g->scale : &g->translation;
        t->x[l] = v[0], t->y[l] = v[1], t->z[l] = v[2];
    }
}

/* The ratio of time point `frame` (below 2^31, validated: 32-bit conversions to float are one
 * instruction where 64-bit unsigned ones are not). */
static inline float ossa__frame_ratio(const ossa_animation *a, uint32_t frame)
{
    return a->timepoints ? a->timepoints[frame] : (float)(int32_t)frame / (float)(int32_t)(a->frame_count - 1);
}

/* The first byte of the blob behind an initialised animation view (kinds table non-NULL):
 * the header, then the time-point table when there is one, then the kinds. */
static inline const uint8_t *ossa__animation_blob(const ossa_animation *a)
{
    return a->kinds - OSSA__ANIM_HEADER_SIZE - (a->timepoints ? a->frame_count * sizeof(float) : 0);
}

/* The time point the sampling job interpolates from at `ratio` (in [0, 1]): the last one at
 * or before it, at most count - 2 so that a next one exists. `timepoints` is the table of
 * ratios of a clip with table time points, NULL for uniform ones; count >= 2. The builder
 * mirrors the job with this same function. */
static inline size_t ossa__frame_at(const float *timepoints, size_t count, float ratio)
{
    size_t f;
    if (!timepoints) {
        f = (size_t)(int32_t)(ratio * (float)(int32_t)(count - 1));
    } else {
        size_t lo = 0, hi = count;
        while (lo < hi) {
            const size_t mid = lo + (hi - lo) / 2;
            if (timepoints[mid] <= ratio)
                lo = mid + 1;
            else
                hi = mid;
        }
        f = lo ? lo - 1 : 0;
    }
    return f < count - 2 ? f : count - 2;
}

#endif /* OSSA_RUNTIME_ANIMATION_FORMAT_H */
