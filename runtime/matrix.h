/* Private: the scalar matrix of a transform behind ossa_float4x4_from_transform (ossa/maths.h),
 * as an inline function for the offline builder's inner loops, which call it millions of times
 * a bake (a call into the shared runtime returns the matrix through memory). The same
 * operations in the same order as the public function: the same floats. Not installed. */
#ifndef OSSA_RUNTIME_MATRIX_H
#define OSSA_RUNTIME_MATRIX_H

#include "ossa/maths.h"

/* The affine matrix of t: rotation times scale per column, translation in column 3. */
static inline ossa_float4x4 ossa__float4x4_from_transform(const ossa_transform *t)
{
    const ossa_quat q = t->rotation;
    const float xx = q.x * q.x, yy = q.y * q.y, zz = q.z * q.z;
    const float xy = q.x * q.y, xz = q.x * q.z, yz = q.y * q.z;
    const float wx = q.w * q.x, wy = q.w * q.y, wz = q.w * q.z;
    ossa_float4x4 m;
    m.cols[0][0] = (1.f - 2.f * (yy + zz)) * t->scale.x;
    m.cols[0][1] = (2.f * (xy + wz)) * t->scale.x;
    m.cols[0][2] = (2.f * (xz - wy)) * t->scale.x;
    m.cols[0][3] = 0.f;
    m.cols[1][0] = (2.f * (xy - wz)) * t->scale.y;
    m.cols[1][1] = (1.f - 2.f * (xx + zz)) * t->scale.y;
    m.cols[1][2] = (2.f * (yz + wx)) * t->scale.y;
    m.cols[1][3] = 0.f;
    m.cols[2][0] = (2.f * (xz + wy)) * t->scale.z;
    m.cols[2][1] = (2.f * (yz - wx)) * t->scale.z;
    m.cols[2][2] = (1.f - 2.f * (xx + yy)) * t->scale.z;
    m.cols[2][3] = 0.f;
    m.cols[3][0] = t->translation.x;
    m.cols[3][1] = t->translation.y;
    m.cols[3][2] = t->translation.z;
    m.cols[3][3] = 1.f;
    return m;
}

#endif
