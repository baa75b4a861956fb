/* Private: the vector and quaternion helpers shared by the IK jobs. Not installed.
 * One chain is solved at a time, so a 4-wide register holds one 3D vector (x, y, z, 0) or one
 * quaternion (x, y, z, w); dot products are summed across lanes and come back splatted, so a
 * value feeds the next product without leaving the register. Branches read lane 0. */
#ifndef OSSA_RUNTIME_IK_MATH_H
#define OSSA_RUNTIME_IK_MATH_H

#include <math.h>
#include <string.h>

#include "simd.h"

/* ---- scalar checks on the job's fields ---- */
static inline bool f3_zero(ossa_float3 v) { return v.x * v.x + v.y * v.y + v.z * v.z == 0.f; }

/* Finiteness checks accumulate x * 0, which is 0 for finite x and NaN otherwise, so that
 * one comparison at the end covers every value. */
static inline v4f finite_acc_matrix(v4f acc, const ossa_float4x4 *m)
{
    const v4f zero = v4f_zero();
    for (int c = 0; c < 4; ++c) acc = v4f_add(acc, v4f_mul(v4f_load(m->cols[c]), zero));
    return acc;
}
/* The `count` floats at p (any alignment, count a multiple of 4 no greater than 20). */
static inline v4f finite_acc_floats(v4f acc, const void *p, size_t count)
{
    OSSA_ALIGNAS(16) float f[20];
    memcpy(f, p, count * sizeof(float));
    for (size_t i = 0; i < count; i += 4) acc = v4f_add(acc, v4f_mul(v4f_load(f + i), v4f_zero()));
    return acc;
}
static inline bool finite_acc_ok(v4f acc) { return v4f_movemask(v4f_cmplt(acc, v4f_one())) == 0xfu; }

/* Largest magnitude the IK jobs accept in a position, a direction or a matrix entry: squares
 * of differences and sums of three of them stay finite (3 (2e18)^2 < FLT_MAX); the solves
 * scale their vectors to unit size by powers of two before any higher-degree product. */
#define IK_MAX_VALUE 1e18f
/* |x| for every lane. */
static inline v4f abs4(v4f v) { return v4f_andnot(v4f_set1(-0.f), v); }
/* Bound checks accumulate a lane mask of |x| <= IK_MAX_VALUE, which is false for NaN and
 * infinities too: one pass checks both. Start from bounded_all(). */
static inline v4f bounded_all(void) { return v4i_as_f(v4i_set1(-1)); }
static inline v4f bounded(v4f mask, v4f v) { return v4f_and(mask, v4f_cmpge(v4f_set1(IK_MAX_VALUE), abs4(v))); }
static inline v4f bounded_matrix(v4f mask, const ossa_float4x4 *m)
{
    for (int c = 0; c < 4; ++c) mask = bounded(mask, v4f_load(m->cols[c]));
    return mask;
}
static inline bool bounded_ok(v4f mask) { return v4f_movemask(mask) == 0xfu; }

/* ---- vectors (x, y, z, 0) ---- */
/* Lane 3 only: the mask (0, 0, 0, ~0). */
static inline v4f w_mask(void) { return v4i_as_f(v4i_set(0, 0, 0, -1)); }
/* The float3 at p, read with the 4 bytes that follow it in the same struct (a job field
 * followed by another float field) in one load, lane 3 then cleared. */
static inline v4f v3_load_field(const void *p)
{
    OSSA_ALIGNAS(16) float f[4];
    memcpy(f, p, sizeof f);
    return v4f_andnot(w_mask(), v4f_load(f));
}
/* (0, 0, 0, s[3]) for a splatted s. */
static inline v4f only_w(v4f s) { return v4f_and(s, w_mask()); }
/* The sum of a's four lanes, in every lane. */
static inline v4f hsum4(v4f a)
{
    const v4f t = v4f_add(a, V4F_SWIZZLE(a, 1, 0, 3, 2));
    return v4f_add(t, V4F_SWIZZLE(t, 2, 3, 0, 1));
}
/* The power of two that brings the largest |lane| of v into [1, 2), in every lane: 2^(127 - e)
 * for the largest lane's exponent field e, by integer arithmetic on the bits (2^127 when v is
 * 0; the validation keeps every |lane| below 2^127). */
static inline v4f pow2_inverse_of_max(v4f v)
{
    const v4f a = abs4(v);
    const v4f m2 = v4f_max(a, V4F_SWIZZLE(a, 1, 0, 3, 2));
    const v4f m = v4f_max(m2, V4F_SWIZZLE(m2, 2, 3, 0, 1));
    return v4i_as_f(v4i_sub(v4i_set1(0x7f000000), v4i_and(v4f_as_i(m), v4i_set1(0x7f800000))));
}
/* pow2_inverse_of_max for four vectors at once, given their magnitudes (abs4 of each, or the
 * lane-wise maximum of several): lane i is vector i's factor. */
static inline v4f pow2_inverse_of_max4(v4f a0, v4f a1, v4f a2, v4f a3)
{
    v4f_transpose4(&a0, &a1, &a2, &a3);
    const v4f m = v4f_max(v4f_max(a0, a1), v4f_max(a2, a3));
    return v4i_as_f(v4i_sub(v4i_set1(0x7f000000), v4i_and(v4f_as_i(m), v4i_set1(0x7f800000))));
}
/* v times pow2_inverse_of_max(v): exact, so a solve that depends only on v's direction (or on
 * the ratios of vectors scaled together) gives the same result bit for bit while none of its
 * products can overflow or underflow to 0. v = 0 stays 0. */
static inline v4f unit_scaled(v4f v) { return v4f_mul(v, pow2_inverse_of_max(v)); }
/* a.b splatted (a 3D dot product when either has lane 3 = 0; a 4D one for quaternions). */
static inline v4f dot4(v4f a, v4f b) { return hsum4(v4f_mul(a, b)); }
/* The cross product of the xyz parts; lane 3 is 0. */
static inline v4f cross3(v4f a, v4f b)
{
    const v4f c = v4f_sub(v4f_mul(a, V4F_SWIZZLE(b, 1, 2, 0, 3)), v4f_mul(V4F_SWIZZLE(a, 1, 2, 0, 3), b));
    return V4F_SWIZZLE(c, 1, 2, 0, 3);
}
/* a minus its component along unit vector k. */
static inline v4f reject(v4f a, v4f k) { return v4f_nmadd(k, dot4(a, k), a); }
static inline v4f col(const ossa_float4x4 *m, int c) { return v4f_load(m->cols[c]); }
/* Column 3 (the translation) with lane 3 cleared. */
static inline v4f m_position(const ossa_float4x4 *m) { return v4f_andnot(w_mask(), col(m, 3)); }
/* m's 3x3 part times v (a joint-space direction or offset in model space, scale included). */
static inline v4f m_dir(const ossa_float4x4 *m, v4f v)
{
    const v4f r =
        v4f_madd(col(m, 0), V4F_SPLAT(v, 0), v4f_madd(col(m, 1), V4F_SPLAT(v, 1), v4f_mul(col(m, 2), V4F_SPLAT(v, 2))));
    return v4f_andnot(w_mask(), r);
}

/* A joint's rotation frame: the model matrix's first three columns, normalised. Local
 * corrections act in this frame (local' = T * R * correction * S), so a model-space rotation
 * axis becomes joint-local through the transpose. */
typedef struct frame {
    v4f c[3];
    v4f inv_len; /* lanes 0..2: 1 / |column i| */
} frame;

/* Lane i of the result is the sum of the lanes of r_i (lane 3: 0). */
static inline v4f hsum3x(v4f r0, v4f r1, v4f r2)
{
    v4f r3 = v4f_zero();
    v4f_transpose4(&r0, &r1, &r2, &r3);
    return v4f_add(v4f_add(r0, r1), v4f_add(r2, r3));
}
static inline frame frame_of(const ossa_float4x4 *m)
{
    const v4f xyz = w_mask();
    frame f = {{v4f_andnot(xyz, col(m, 0)), v4f_andnot(xyz, col(m, 1)), v4f_andnot(xyz, col(m, 2))}, v4f_zero()};
    const v4f len2 = hsum3x(v4f_mul(f.c[0], f.c[0]), v4f_mul(f.c[1], f.c[1]), v4f_mul(f.c[2], f.c[2]));
    f.inv_len = v4f_rsqrt(v4f_max(len2, v4f_set1(1e-30f)));
    return f;
}
/* The frame's inverse rotation applied to v (model space to joint space). */
static inline v4f frame_to_local(const frame *f, v4f v)
{
    return v4f_mul(hsum3x(v4f_mul(f->c[0], v), v4f_mul(f->c[1], v), v4f_mul(f->c[2], v)), f->inv_len);
}
/* The frame's rotation applied to v (joint space to model space). */
static inline v4f frame_to_model(const frame *f, v4f v)
{
    const v4f s = v4f_mul(v, f->inv_len);
    return v4f_madd(f->c[0], V4F_SPLAT(s, 0), v4f_madd(f->c[1], V4F_SPLAT(s, 1), v4f_mul(f->c[2], V4F_SPLAT(s, 2))));
}

/* ---- quaternions (x, y, z, w) ---- */
static inline v4f q_identity(void) { return v4f_set(0.f, 0.f, 0.f, 1.f); }
static inline v4f q_normalize(v4f q) { return v4f_mul(q, v4f_rsqrt(dot4(q, q))); }
/* a * b (rotate by b, then by a). */
static inline v4f q_mul(v4f a, v4f b)
{
    /* xyz = a.w b + b.w a + a x b; lane 3 of that sum is 2 a.w b.w, and w = a.w b.w - a.b. */
    const v4f sum = v4f_add(v4f_madd(V4F_SPLAT(a, 3), b, v4f_mul(V4F_SPLAT(b, 3), a)), cross3(a, b));
    return v4f_sub(sum, only_w(dot4(a, b)));
}
static inline v4f q_rotate(v4f q, v4f v)
{
    const v4f t = cross3(q, v4f_add(v, v));
    return v4f_add(v4f_madd(V4F_SPLAT(q, 3), t, v), cross3(q, t));
}
/* Rotation about unit axis n by the angle whose cosine and sine are proportional to c and s
 * (all splatted, common factor r = sqrt(c^2 + s^2) > 0), without trigonometry: the half-angle
 * quaternion is normalise(s n, r + c), or equivalently normalise((r - c) n, s), the form used
 * when c < 0 so that neither sum cancels near an angle of pi. */
static inline v4f q_axis_cos_sin(v4f n, v4f c, v4f s, v4f r)
{
    if (v4f_x(c) >= 0.f) return q_normalize(v4f_add(v4f_mul(n, s), only_w(v4f_add(r, c))));
    return q_normalize(v4f_add(v4f_mul(n, v4f_sub(r, c)), only_w(s)));
}
/* Shortest-arc rotation taking direction a to direction b (any lengths > 0, their squares
 * a2 and b2 splatted). With the
 * (unnormalised) axis x = a cross b, |x| = |a||b| sin: normalise(x, |a||b| + a.b) for an acute
 * angle, and for an obtuse one normalise((|a||b| - a.b) x, |x|^2), the same rotation without
 * the cancellation; exactly antiparallel vectors turn by pi about an axis perpendicular to a. */
static inline v4f q_from_to(v4f a, v4f b, v4f a2, v4f b2)
{
    const v4f ab = v4f_sqrt(v4f_mul(a2, b2));
    const v4f d = dot4(a, b);
    const v4f x = cross3(a, b);
    if (v4f_x(d) >= 0.f) return q_normalize(v4f_add(x, only_w(v4f_add(ab, d))));
    const v4f x2 = dot4(x, x);
    if (!(v4f_x(x2) > v4f_x(ab) * v4f_x(ab) * 1e-30f)) {
        /* a x (1, 0, 0) or a x (0, 0, 1), whichever is the longer */
        const v4f e =
            fabsf(v4f_x(a)) > fabsf(v4f_x(V4F_SPLAT(a, 2))) ? v4f_set(0.f, 0.f, 1.f, 0.f) : v4f_set(1.f, 0.f, 0.f, 0.f);
        return q_normalize(cross3(a, e));
    }
    return q_normalize(v4f_add(v4f_mul(x, v4f_sub(ab, d)), only_w(x2)));
}
/* Rotation about unit axis k that turns v onto the half-plane of p (both taken
 * perpendicular to k); identity when either has no such component. */
static inline v4f q_align_about(v4f k, v4f v, v4f p)
{
    const v4f pv = reject(v, k), pp = reject(p, k);
    const v4f r2 = v4f_mul(dot4(pv, pv), dot4(pp, pp));
    const v4f scale2 = v4f_mul(dot4(v, v), dot4(p, p));
    if (!(v4f_x(r2) > v4f_x(scale2) * 1e-10f)) return q_identity();
    return q_axis_cos_sin(k, dot4(pv, pp), dot4(k, cross3(pv, pp)), v4f_sqrt(r2));
}
/* Rotation by `angle` radians about unit axis k. */
static inline v4f q_axis_angle(v4f k, float angle)
{
    const float s = sinf(.5f * angle), c = cosf(.5f * angle);
    return v4f_add(v4f_mul(k, v4f_set1(s)), v4f_set(0.f, 0.f, 0.f, c));
}
/* nlerp(identity, q, weight) on the shortest arc, weight in [0, 1]. */
static inline v4f q_weighted(v4f q, float weight)
{
    if (weight >= 1.f) return q;
    if (weight <= 0.f) return q_identity();
    const v4f hemisphere = v4f_x(V4F_SPLAT(q, 3)) < 0.f ? v4f_set1(-weight) : v4f_set1(weight);
    /* identity + (q - identity) * weight, with q taken with w >= 0 */
    return q_normalize(v4f_add(v4f_mul(q, hemisphere), v4f_set(0.f, 0.f, 0.f, 1.f - weight)));
}
/* The model-space rotation q of a joint with frame f as a joint-local correction. */
static inline v4f q_to_local(const frame *f, v4f q) { return v4f_add(frame_to_local(f, q), only_w(q)); }
static inline void q_store(ossa_quat *out, v4f q) { v4f_storeu(&out->x, q); }

static inline float clamp01(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }

#endif /* OSSA_RUNTIME_IK_MATH_H */
