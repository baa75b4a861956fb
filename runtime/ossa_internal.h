/* Private constants shared by the animation builder (offline) and the sampling job: the
 * rotation key packing. Not installed. */
#ifndef OSSA_RUNTIME_INTERNAL_H
#define OSSA_RUNTIME_INTERNAL_H

#include <math.h>

#include "ossa/maths.h"

/* Smallest-three quaternion components are multiplied by sqrt(2) (their range is
 * [-1/sqrt2, 1/sqrt2]) and mapped to [0, 32767]. */
#define OSSA__QUAT_QUANT_MAX 32767
#define OSSA__SQRT2 1.41421356237309504880f

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

/* Inverse of ossa__pack_quat (the result is normalised up to quantisation). */
static inline ossa_quat ossa__unpack_quat(const uint16_t in[3])
{
    const int largest = (in[0] >> 15) | ((in[1] >> 15) << 1);
    const int sign = in[2] >> 15;
    const float scale = 2.f / ((float)OSSA__QUAT_QUANT_MAX * OSSA__SQRT2), offset = -1.f / OSSA__SQRT2;
    float c[4];
    float sum = 0.f;
    int j = 0;
    for (int i = 0; i < 4; ++i) {
        if (i == largest) continue;
        c[i] = (float)(in[j++] & 0x7fffu) * scale + offset;
        sum += c[i] * c[i];
    }
    const float w = sqrtf(sum < 1.f ? 1.f - sum : 0.f);
    c[largest] = sign ? -w : w;
    return (ossa_quat){c[0], c[1], c[2], c[3]};
}

#endif
