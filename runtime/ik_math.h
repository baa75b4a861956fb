/* Private: the scalar vector and quaternion helpers shared by the IK jobs. Not installed.
 * The IK jobs solve one chain at a time: a few dozen dot and cross products on single
 * vectors, where 4-wide registers would mostly shuffle, so they are scalar floats; only the
 * finiteness check of the input matrices uses the SIMD layer. */
#ifndef OSSA_RUNTIME_IK_MATH_H
#define OSSA_RUNTIME_IK_MATH_H

#include <math.h>
#include <string.h>

#include "simd.h"

typedef ossa_float3 v3;

static inline v3 v3_add(v3 a, v3 b) { return (v3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline v3 v3_sub(v3 a, v3 b) { return (v3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline v3 v3_scale(v3 a, float s) { return (v3){a.x * s, a.y * s, a.z * s}; }
static inline float v3_dot(v3 a, v3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline v3 v3_cross(v3 a, v3 b)
{
    return (v3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline bool v3_finite(v3 a) { return isfinite(a.x) && isfinite(a.y) && isfinite(a.z); }
/* a minus its component along unit vector k. */
static inline v3 v3_reject(v3 a, v3 k) { return v3_sub(a, v3_scale(k, v3_dot(a, k))); }

static inline v3 m_col(const ossa_float4x4 *m, int c) { return (v3){m->cols[c][0], m->cols[c][1], m->cols[c][2]}; }

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

/* A joint's rotation frame: the model matrix's first three columns, normalised. Local
 * corrections act in this frame (local' = T * R * correction * S), so a model-space rotation
 * axis becomes joint-local through the transpose. Kept as the matrix's columns and their
 * inverse lengths, in registers. */
typedef struct frame {
    v4f c[3];
    v4f inv_len; /* lanes 0..2: 1 / |column i| */
} frame;

/* (a.b0, a.b1, a.b2, 0)-style sums: lane i of the result is the sum of the lanes of r[i]. */
static inline v4f hsum3(v4f r0, v4f r1, v4f r2)
{
    v4f r3 = v4f_zero();
    v4f_transpose4(&r0, &r1, &r2, &r3);
    return v4f_add(v4f_add(r0, r1), v4f_add(r2, r3));
}

static inline frame frame_of(const ossa_float4x4 *m)
{
    frame f = {{v4f_load(m->cols[0]), v4f_load(m->cols[1]), v4f_load(m->cols[2])}, v4f_zero()};
    const v4f len2 = hsum3(v4f_mul(f.c[0], f.c[0]), v4f_mul(f.c[1], f.c[1]), v4f_mul(f.c[2], f.c[2]));
    f.inv_len = v4f_rsqrt(v4f_max(len2, v4f_set1(1e-30f)));
    return f;
}
static inline v4f v4_of(v3 a) { return v4f_set(a.x, a.y, a.z, 0.f); }
static inline v3 v3_of(v4f a)
{
    OSSA_ALIGNAS(16) float f[4];
    v4f_store(f, a);
    return (v3){f[0], f[1], f[2]};
}
static inline v3 frame_to_local(const frame *f, v3 v)
{
    const v4f x = v4_of(v);
    return v3_of(v4f_mul(hsum3(v4f_mul(f->c[0], x), v4f_mul(f->c[1], x), v4f_mul(f->c[2], x)), f->inv_len));
}
/* The frame's rotation applied to v. */
static inline v3 frame_to_model(const frame *f, v3 v)
{
    const v4f s = v4f_mul(v4_of(v), f->inv_len);
    return v3_of(
        v4f_madd(f->c[0], V4F_SPLAT(s, 0), v4f_madd(f->c[1], V4F_SPLAT(s, 1), v4f_mul(f->c[2], V4F_SPLAT(s, 2)))));
}
/* m's 3x3 part times v (a joint-space direction or offset in model space, scale included). */
static inline v3 m_dir(const ossa_float4x4 *m, v3 v)
{
    return v3_of(v4f_madd(v4f_load(m->cols[0]), v4f_set1(v.x),
                          v4f_madd(v4f_load(m->cols[1]), v4f_set1(v.y), v4f_mul(v4f_load(m->cols[2]), v4f_set1(v.z)))));
}

static inline ossa_quat q_identity(void) { return (ossa_quat){0.f, 0.f, 0.f, 1.f}; }
static inline ossa_quat q_normalize(ossa_quat q)
{
    const float s = 1.f / sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (ossa_quat){q.x * s, q.y * s, q.z * s, q.w * s};
}
static inline ossa_quat q_mul(ossa_quat a, ossa_quat b)
{
    return (ossa_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
                       a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
static inline v3 q_rotate(ossa_quat q, v3 v)
{
    const v3 u = {q.x, q.y, q.z};
    const v3 t = v3_scale(v3_cross(u, v), 2.f);
    return v3_add(v3_add(v, v3_scale(t, q.w)), v3_cross(u, t));
}

/* Rotation about unit axis n by the angle whose cosine and sine are proportional to c and s
 * (any common factor r = sqrt(c^2 + s^2) > 0), without trigonometry: the half-angle
 * quaternion is normalise(s n, r + c), or equivalently normalise((r - c) n, s), which is the
 * form used when c < 0 so that neither sum cancels near an angle of pi. */
static inline ossa_quat q_axis_cos_sin(v3 n, float c, float s, float r)
{
    if (c >= 0.f) return q_normalize((ossa_quat){n.x * s, n.y * s, n.z * s, r + c});
    const float t = r - c;
    return q_normalize((ossa_quat){n.x * t, n.y * t, n.z * t, s});
}

/* Shortest-arc rotation taking direction a to direction b (any lengths > 0). With the
 * (unnormalised) axis x = a cross b, |x| = |a||b| sin: normalise(x, |a||b| + a.b) for an acute
 * angle, and for an obtuse one normalise((|a||b| - a.b) x, |x|^2), the same rotation without
 * the cancellation; exactly antiparallel vectors turn by pi about an axis perpendicular to a. */
static inline ossa_quat q_from_to(v3 a, v3 b)
{
    const float ab = sqrtf(v3_dot(a, a) * v3_dot(b, b));
    const float dot = v3_dot(a, b);
    const v3 x = v3_cross(a, b);
    if (dot >= 0.f) return q_normalize((ossa_quat){x.x, x.y, x.z, ab + dot});
    const float x2 = v3_dot(x, x);
    if (!(x2 > ab * ab * 1e-30f)) {
        const v3 axis = fabsf(a.x) > fabsf(a.z) ? (v3){-a.y, a.x, 0.f} : (v3){0.f, -a.z, a.y};
        return q_normalize((ossa_quat){axis.x, axis.y, axis.z, 0.f});
    }
    const float t = ab - dot;
    return q_normalize((ossa_quat){x.x * t, x.y * t, x.z * t, x2});
}

/* Rotation about unit axis k that turns v onto the half-plane of p (both taken
 * perpendicular to k); identity when either has no such component. */
static inline ossa_quat q_align_about(v3 k, v3 v, v3 p)
{
    const v3 pv = v3_reject(v, k), pp = v3_reject(p, k);
    const float r2 = v3_dot(pv, pv) * v3_dot(pp, pp);
    const float scale2 = v3_dot(v, v) * v3_dot(p, p);
    if (!(r2 > scale2 * 1e-10f)) return q_identity();
    return q_axis_cos_sin(k, v3_dot(pv, pp), v3_dot(k, v3_cross(pv, pp)), sqrtf(r2));
}

/* Rotation by `angle` radians about unit axis k. */
static inline ossa_quat q_axis_angle(v3 k, float angle)
{
    const float s = sinf(.5f * angle), c = cosf(.5f * angle);
    return (ossa_quat){k.x * s, k.y * s, k.z * s, c};
}

/* nlerp(identity, q, weight) on the shortest arc, weight in [0, 1]. */
static inline ossa_quat q_weighted(ossa_quat q, float weight)
{
    if (weight >= 1.f) return q;
    if (weight <= 0.f) return q_identity();
    const float sign = q.w < 0.f ? -weight : weight;
    return q_normalize((ossa_quat){q.x * sign, q.y * sign, q.z * sign, 1.f + (fabsf(q.w) - 1.f) * weight});
}

/* The model-space rotation q of a joint with frame f as a joint-local correction. */
static inline ossa_quat q_to_local(const frame *f, ossa_quat q)
{
    const v3 v = frame_to_local(f, (v3){q.x, q.y, q.z});
    return (ossa_quat){v.x, v.y, v.z, q.w};
}

static inline float clamp01(float x) { return x < 0.f ? 0.f : x > 1.f ? 1.f : x; }

#endif /* OSSA_RUNTIME_IK_MATH_H */
