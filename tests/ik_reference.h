/* Double-precision vectors, quaternions and rigid transforms for the IK tests: the reference
 * geometry the jobs' corrections are checked against, independent of the library's maths. */
#ifndef OSSA_TESTS_IK_REFERENCE_H
#define OSSA_TESTS_IK_REFERENCE_H

#include <math.h>

#include "ossa/maths.h"
#include "test_util.h"

typedef struct d3 {
    double x, y, z;
} d3;
typedef struct dq {
    double x, y, z, w;
} dq;
/* A rigid transform: p' = r * p + t. */
typedef struct rigid {
    dq r;
    d3 t;
} rigid;

static inline d3 d3_add(d3 a, d3 b) { return (d3){a.x + b.x, a.y + b.y, a.z + b.z}; }
static inline d3 d3_sub(d3 a, d3 b) { return (d3){a.x - b.x, a.y - b.y, a.z - b.z}; }
static inline d3 d3_mul(d3 a, double s) { return (d3){a.x * s, a.y * s, a.z * s}; }
static inline double d3_dot(d3 a, d3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
static inline double d3_len(d3 a) { return sqrt(d3_dot(a, a)); }
static inline d3 d3_norm(d3 a) { return d3_mul(a, 1. / d3_len(a)); }
static inline d3 d3_cross(d3 a, d3 b)
{
    return (d3){a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
static inline ossa_float3 f3_of(d3 v) { return (ossa_float3){(float)v.x, (float)v.y, (float)v.z}; }

static inline dq dq_mul(dq a, dq b)
{
    return (dq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
                a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
/* The float quaternion in doubles, normalised so that its rounding does not scale vectors. */
static inline dq dq_of(ossa_quat q)
{
    const double x = q.x, y = q.y, z = q.z, w = q.w, s = 1. / sqrt(x * x + y * y + z * z + w * w);
    return (dq){x * s, y * s, z * s, w * s};
}
/* Angle between two directions, well conditioned near 0 (unlike acos of the dot product). */
static inline double angle_between(d3 a, d3 b) { return atan2(d3_len(d3_cross(a, b)), d3_dot(a, b)); }
static inline dq dq_axis_angle(d3 axis, double angle)
{
    const d3 n = d3_norm(axis);
    const double s = sin(angle / 2);
    return (dq){n.x * s, n.y * s, n.z * s, cos(angle / 2)};
}
static inline d3 dq_rotate(dq q, d3 v)
{
    const dq p = dq_mul(dq_mul(q, (dq){v.x, v.y, v.z, 0.}), (dq){-q.x, -q.y, -q.z, q.w});
    return (d3){p.x, p.y, p.z};
}
static inline rigid rigid_mul(rigid a, rigid b) { return (rigid){dq_mul(a.r, b.r), d3_add(dq_rotate(a.r, b.t), a.t)}; }

/* The model matrix of a rigid transform, column-major in floats. */
static inline ossa_float4x4 to_matrix(rigid m)
{
    ossa_float4x4 out;
    const d3 axes[3] = {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    for (int c = 0; c < 3; ++c) {
        const d3 v = dq_rotate(m.r, axes[c]);
        out.cols[c][0] = (float)v.x, out.cols[c][1] = (float)v.y, out.cols[c][2] = (float)v.z, out.cols[c][3] = 0.f;
    }
    out.cols[3][0] = (float)m.t.x, out.cols[3][1] = (float)m.t.y, out.cols[3][2] = (float)m.t.z, out.cols[3][3] = 1.f;
    return out;
}

static inline double randd(uint32_t *s, double lo, double hi) { return ossa_test_randf(s, (float)lo, (float)hi); }
static inline d3 rand_dir(uint32_t *s)
{
    for (;;) {
        const d3 v = {randd(s, -1, 1), randd(s, -1, 1), randd(s, -1, 1)};
        const double l = d3_len(v);
        if (l > .1 && l <= 1.) return d3_mul(v, 1. / l);
    }
}
static inline dq rand_rot(uint32_t *s) { return dq_axis_angle(rand_dir(s), randd(s, -3.1, 3.1)); }

#endif
