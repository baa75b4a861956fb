/* Private constants shared by the animation builder (offline) and the sampling job: the
 * rotation key packing. Not installed. */
#ifndef OSSA_RUNTIME_INTERNAL_H
#define OSSA_RUNTIME_INTERNAL_H

#include <math.h>

#include "ossa/maths.h"

/* Smallest-three quaternion components are multiplied by sqrt(2) (their range is
 * [-1/sqrt2, 1/sqrt2]) and mapped to [0, 32767]. */
#define OSSA__QUAT_QUANT_MAX 32767
#define OSSA__SQRT2          1.41421356237309504880f

/* Packs unit quaternion q into three 16-bit words (see ossa/animation.h). */
static inline void ossa__pack_quat(ossa_quat q, uint16_t out[3])
{
    const float c[4] = {q.x, q.y, q.z, q.w};
    int largest = 0;
    for (int i = 1; i < 4; ++i)
        if (fabsf(c[i]) > fabsf(c[largest])) largest = i;
    const int sign = c[largest] < 0.f;
    int j = 0;
    for (int i = 0; i < 4; ++i) {
        if (i == largest) continue;
        float v = (c[i] * OSSA__SQRT2 + 1.f) * .5f * (float)OSSA__QUAT_QUANT_MAX;
        v = v < 0.f ? 0.f : (v > (float)OSSA__QUAT_QUANT_MAX ? (float)OSSA__QUAT_QUANT_MAX : v);
        out[j++] = (uint16_t)lrintf(v);
    }
    out[0] |= (uint16_t)((largest & 1) << 15);
    out[1] |= (uint16_t)((largest >> 1) << 15);
    out[2] |= (uint16_t)(sign << 15);
}

/* Group varint: values in groups of 4, one tag byte (2 bits per value: byte length - 1,
 * value 0 in the low bits) then the little-endian bytes. */

/* Encodes `count` (multiple of 4) values at `out`; returns bytes written. */
static inline size_t ossa__gv_encode(const uint32_t *values, size_t count, uint8_t *out)
{
    size_t at = 0;
    for (size_t g = 0; g < count; g += 4) {
        const size_t tag_at = at++;
        uint8_t tag = 0;
        for (size_t i = 0; i < 4; ++i) {
            const uint32_t v = values[g + i];
            const unsigned len = v < 0x100u ? 1u : v < 0x10000u ? 2u : v < 0x1000000u ? 3u : 4u;
            tag |= (uint8_t)((len - 1u) << (2 * i));
            for (unsigned b = 0; b < len; ++b) out[at++] = (uint8_t)(v >> (8 * b));
        }
        out[tag_at] = tag;
    }
    return at;
}

/* Decodes `count` (multiple of 4) values from data[offset, size); returns the offset after
 * them, or 0 when the data ends first. */
static inline size_t ossa__gv_decode(const uint8_t *data, size_t size, size_t offset, uint32_t *out, size_t count)
{
    size_t at = offset;
    for (size_t g = 0; g < count; g += 4) {
        if (at >= size) return 0;
        const unsigned tag = data[at++];
        for (size_t i = 0; i < 4; ++i) {
            const unsigned len = ((tag >> (2 * i)) & 3u) + 1u;
            if (len > size - at) return 0;
            uint32_t v = 0;
            for (unsigned b = 0; b < len; ++b) v |= (uint32_t)data[at + b] << (8 * b);
            at += len;
            out[g + i] = v;
        }
    }
    return at;
}

#endif
