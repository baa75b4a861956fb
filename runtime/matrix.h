/* Private: the matrix of a transform, the product of two matrices and a quaternion's
 * normalisation, the bodies of ossa_float4x4_from_transform, ossa_float4x4_mul and
 * ossa_quat_normalize (ossa/maths.h), inline for the offline
 * builder's inner loops, which call them millions of times a bake (a call into the shared
 * runtime returns the matrix through memory and keeps it out of registers). The product runs
 * four rows at a time but with the scalar expression's operations in its order, so both give
 * the floats of the plain scalar code on every target. Not installed. */
#ifndef OSSA_RUNTIME_MATRIX_H
#define OSSA_RUNTIME_MATRIX_H

#include <math.h>

#include "ossa/maths.h"
#include "simd.h"

/* q scaled to unit length; identity when its squared length is 0, negative or not finite. A
 * call into the shared runtime passes the quaternion in two halves and reloads it whole (a
 * store-forwarding stall each way): the raw sampling of a bake calls it millions of times. */
static inline ossa_quat ossa__quat_normalize(ossa_quat q)
{
    const float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
    if (!(len2 > 0.f) || !isfinite(len2)) return (ossa_quat){0.f, 0.f, 0.f, 1.f};
    const float inv = 1.f / sqrtf(len2);
    return (ossa_quat){q.x * inv, q.y * inv, q.z * inv, q.w * inv};
}

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

/* a * b, column-major; each entry summed in column order, ((a0 b0 + a1 b1) + a2 b2) + a3 b3, four
 * rows at a time: separate multiplications and additions (no fused multiply-add, whatever the
 * target), so every lane rounds as the scalar expression does. Unaligned loads and stores: the
 * callers' matrices need not be 16-byte aligned. */
static inline ossa_float4x4 ossa__float4x4_mul(const ossa_float4x4 *a, const ossa_float4x4 *b)
{
    const v4f a0 = v4f_loadu(a->cols[0]), a1 = v4f_loadu(a->cols[1]), a2 = v4f_loadu(a->cols[2]),
              a3 = v4f_loadu(a->cols[3]);
    ossa_float4x4 r;
    for (int c = 0; c < 4; ++c) {
        /* b's column in one load, each entry splat by a shuffle (no scalar loads). */
        const v4f bc = v4f_loadu(b->cols[c]);
        const v4f sum = v4f_add(v4f_add(v4f_add(v4f_mul(a0, V4F_SPLAT(bc, 0)), v4f_mul(a1, V4F_SPLAT(bc, 1))),
                                        v4f_mul(a2, V4F_SPLAT(bc, 2))),
                                v4f_mul(a3, V4F_SPLAT(bc, 3)));
        v4f_storeu(r.cols[c], sum);
    }
    return r;
}

/* a * b for a b whose bottom row is (0, 0, 0, 1), as every transform's matrix has, given by its
 * columns' top three floats at b, b + stride, b + 2 stride and b + 3 stride (stride 4: an
 * ossa_float4x4's cols[0]; 3: an affine matrix without its bottom row). Four floats are read
 * at each column, the fourth never used: one float after the last column must be readable.
 * The sums of ossa__float4x4_mul without its terms that multiply by the bottom row (a3 * 0
 * added to b's first three columns, a3 * 1 to the last), so the same floats but for the sign
 * of a zero entry (ossa__float4x4_mul's -0 + 0 is +0), in three products a column instead of
 * four. */
static inline ossa_float4x4 ossa__float4x4_mul_affine_at(const ossa_float4x4 *a, const float *b, size_t stride)
{
    const v4f a0 = v4f_loadu(a->cols[0]), a1 = v4f_loadu(a->cols[1]), a2 = v4f_loadu(a->cols[2]),
              a3 = v4f_loadu(a->cols[3]);
    ossa_float4x4 r;
    for (int c = 0; c < 4; ++c) {
        const v4f bc = v4f_loadu(b + (size_t)c * stride);
        const v4f sum = v4f_add(v4f_add(v4f_mul(a0, V4F_SPLAT(bc, 0)), v4f_mul(a1, V4F_SPLAT(bc, 1))),
                                v4f_mul(a2, V4F_SPLAT(bc, 2)));
        v4f_storeu(r.cols[c], c == 3 ? v4f_add(sum, a3) : sum);
    }
    return r;
}

/* The same for a 4 x 4 b. */
static inline ossa_float4x4 ossa__float4x4_mul_affine(const ossa_float4x4 *a, const ossa_float4x4 *b)
{
    return ossa__float4x4_mul_affine_at(a, b->cols[0], 4);
}

#endif /* OSSA_RUNTIME_MATRIX_H */
