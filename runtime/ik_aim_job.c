#include "ossa/ik_aim_job.h"

#include <stddef.h>

#include "checks.h"
#include "dispatch.h"
#include "ik_math.h"

/* Lane i of the result is the sum of the lanes of r_i: four dot products for one transpose. */
static inline v4f hsum4x(v4f r0, v4f r1, v4f r2, v4f r3)
{
    v4f_transpose4(&r0, &r1, &r2, &r3);
    return v4f_add(v4f_add(r0, r1), v4f_add(r2, r3));
}

/* The rotation about the joint that puts the target on the aiming ray o + l f (l >= 0), then
 * turns u about the joint->target axis towards the pole's half-plane and by `twist_angle`.
 * t is the target relative to the joint; o, f (any length), u and pole are in t's frame, and
 * so is the result. Scalars are kept splatted across the lanes. */
OSSA__INLINE v4f solve(v4f t, v4f o, v4f f, v4f u, v4f pole, float twist_angle, bool *reached)
{
    /* The result depends on the directions of f, u and pole and on the ratios of t and o:
     * scaled by powers of two (unit_scaled), the products below, of degree up to 8 in f and o,
     * stay in float range for every input the validation accepts. */
    const v4f scale = pow2_inverse_of_max4(v4f_max(abs4(t), abs4(o)), abs4(f), abs4(u), abs4(pole));
    t = v4f_mul(t, V4F_SPLAT(scale, 0)), o = v4f_mul(o, V4F_SPLAT(scale, 0));
    f = v4f_mul(f, V4F_SPLAT(scale, 1)), u = v4f_mul(u, V4F_SPLAT(scale, 2)), pole = v4f_mul(pole, V4F_SPLAT(scale, 3));
    /* The ray point p at the target's distance, |o + l f|^2 = |t|^2: the larger root l, else
     * the point nearest to the target (l = -o.f / f.f), l clamped to >= 0. */
    const v4f dots = hsum4x(v4f_mul(f, f), v4f_mul(o, f), v4f_mul(o, o), v4f_mul(t, t));
    const v4f ff = V4F_SPLAT(dots, 0), of = V4F_SPLAT(dots, 1), t2 = V4F_SPLAT(dots, 3);
    if (!(v4f_x(t2) > 0.f) || !(v4f_x(ff) > 0.f)) {
        *reached = false;
        return q_identity();
    }
    const v4f disc = v4f_nmadd(ff, v4f_sub(V4F_SPLAT(dots, 2), t2), v4f_mul(of, of));
    const bool hit = v4f_x(disc) >= 0.f;
    const v4f l = v4f_div(v4f_sub(hit ? v4f_sqrt(disc) : v4f_zero(), of), ff);
    *reached = hit && v4f_x(l) >= 0.f;
    const v4f p = v4f_x(l) > 0.f ? v4f_madd(f, l, o) : o;
    const v4f k = v4f_mul(t, v4f_rsqrt(t2));
    const v4f b = hsum4x(v4f_mul(p, t), v4f_mul(pole, k), v4f_mul(pole, pole), v4f_mul(p, p));
    const v4f ab = v4f_sqrt(v4f_mul(V4F_SPLAT(b, 3), t2)); /* |p| |t| */
    if (!(v4f_x(ab) > 0.f)) return q_identity();

    /* Swing: the shortest arc from p to t, as q_from_to: with x = p x t and d = p.t, the
     * quaternion (x, |p||t| + d), of squared norm 2 |p||t| (|p||t| + d); for an obtuse angle
     * |p||t| + d is taken as |x|^2 / (|p||t| - d), which does not cancel. */
    const v4f d = V4F_SPLAT(b, 0), x = cross3(p, t);
    v4f swing;
    if (v4f_x(d) >= 0.f) {
        const v4f w = v4f_add(ab, d);
        swing = v4f_mul(v4f_add(x, only_w(w)), v4f_rsqrt(v4f_mul(v4f_add(ab, ab), w)));
    } else {
        const v4f x2 = dot4(x, x);
        if (v4f_x(x2) > v4f_x(ab) * v4f_x(ab) * 1e-30f) {
            const v4f w = v4f_div(x2, v4f_sub(ab, d));
            swing = v4f_mul(v4f_add(x, only_w(w)), v4f_rsqrt(v4f_mul(v4f_add(ab, ab), w)));
        } else { /* antiparallel: a half turn about p x (1, 0, 0) or p x (0, 0, 1), the longer */
            const v4f e = fabsf(v4f_x(p)) > fabsf(v4f_x(V4F_SPLAT(p, 2))) ? v4f_set(0.f, 0.f, 1.f, 0.f)
                                                                          : v4f_set(1.f, 0.f, 0.f, 0.f);
            swing = q_normalize(cross3(p, e));
        }
    }

    /* Twist about k that takes v = swing(u) to the pole's half-plane: with pv and pp the parts
     * of v and pole perpendicular to k, cos ~ pv.pp = v.pp and sin ~ k.(pv x pp) = v.(pp x k),
     * both scaled by r = |pv||pp| = sqrt(cos^2 + sin^2); skipped when r is below 1e-5 |v||pole|. */
    const v4f v = q_rotate(swing, u), pp = v4f_nmadd(k, V4F_SPLAT(b, 1), pole);
    const v4f cs = hsum3x(v4f_mul(v, pp), v4f_mul(v, cross3(pp, k)), v4f_mul(v, v)); /* cos, sin, |v|^2 */
    const v4f cs2 = v4f_mul(cs, cs);
    const v4f r2 = v4f_add(cs2, V4F_SWIZZLE(cs2, 1, 0, 3, 2)); /* lane 0 */
    v4f twist = q_identity();
    if (v4f_x(r2) > v4f_x(V4F_SPLAT(v4f_mul(cs, b), 2)) * 1e-10f) {
        /* half angle: (sin k, r + cos) or ((r - cos) k, sin), of squared norm 2 r (r + |cos|) */
        const v4f r = v4f_sqrt(V4F_SPLAT(r2, 0)), c = V4F_SPLAT(cs, 0), sn = V4F_SPLAT(cs, 1);
        const bool acute = v4f_x(c) >= 0.f;
        const v4f a = acute ? v4f_add(r, c) : v4f_sub(r, c);
        twist =
            v4f_mul(v4f_add(v4f_mul(k, acute ? sn : a), only_w(acute ? a : sn)), v4f_rsqrt(v4f_mul(v4f_add(r, r), a)));
    }
    if (twist_angle != 0.f) twist = q_mul(q_axis_angle(k, twist_angle), twist);
    return q_mul(twist, swing);
}

/* Checks the 16 floats from target to twist_angle (target, forward, up, pole_vector, offset,
 * twist_angle: consecutive in both jobs), acc being 0 when the values checked before were
 * finite and NaN otherwise: all finite, and forward, up and pole_vector of nonzero squared
 * length. */
static inline bool fields_ok(const ossa_float3 *target, v4f acc)
{
    const char *b = (const char *)target;
    const v4f zero = v4f_zero();
    /* 0 * x is 0 for finite x, NaN otherwise: one chain of products */
    for (int i = 0; i < 4; ++i) acc = v4f_mul(acc, v4f_loadu((const float *)(const void *)(b + 16 * i)));
    if (!finite_acc_ok(acc)) return false;
    /* a sum of squares is 0 exactly when every square is: forward, up and pole at floats 3, 6, 9 */
    for (int i = 1; i < 4; ++i) {
        const v4f v = v4f_loadu((const float *)(const void *)(b + 12 * i));
        if ((v4f_movemask(v4f_cmplt(zero, v4f_mul(v, v))) & 7u) == 0) return false;
    }
    return true;
}

/* The bound mask (ik_math.h) of target, forward, up, pole_vector and offset: the 15 floats
 * from target; twist_angle, the 16th, only needs to be finite. */
static inline v4f fields_bounded(const ossa_float3 *target)
{
    const char *b = (const char *)target;
    v4f ok = bounded(bounded_all(), v4f_andnot(w_mask(), v4f_loadu((const float *)(const void *)(b + 48))));
    for (int i = 0; i < 3; ++i) ok = bounded(ok, v4f_loadu((const float *)(const void *)(b + 16 * i)));
    return ok;
}

/* The unsigned form of ossa__overlaps: [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static inline bool overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    return (uintptr_t)a - (uintptr_t)b + (a_bytes - 1) < a_bytes + b_bytes - 1;
}

static inline ossa_result validate(const ossa_ik_aim_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    const ossa_float4x4 *m = job->joint;
    if (!m) return OSSA_ERROR_NO_INPUT;
    if (!job->correction) return OSSA_ERROR_NO_OUTPUT;
    if (ossa__misaligned(m)) return OSSA_ERROR_MISALIGNED;
    /* target, forward, up, pole_vector, offset, twist_angle and weight: 17 consecutive floats */
    _Static_assert(offsetof(ossa_ik_aim_job, weight) - offsetof(ossa_ik_aim_job, target) == 16 * sizeof(float),
                   "the job's float fields are consecutive");
    /* the weight's error takes precedence */
    const v4f acc = v4f_mul(v4f_loadu(&job->offset.y), v4f_zero()); /* offset.y, offset.z, twist_angle, weight */
    if (!fields_ok(&job->target, acc))
        return isfinite(job->weight) ? OSSA_ERROR_INVALID_ARGUMENT : OSSA_ERROR_INVALID_WEIGHT;
    if (!bounded_ok(bounded_matrix(fields_bounded(&job->target), m))) return OSSA_ERROR_INVALID_ARGUMENT;
    const size_t mat = sizeof(ossa_float4x4);
    if (overlaps(job->correction, sizeof(ossa_quat), m, mat)) return OSSA_ERROR_ALIASING;
    if (job->reached && (overlaps(job->reached, sizeof(bool), m, mat) ||
                         overlaps(job->reached, sizeof(bool), job->correction, sizeof(ossa_quat))))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

#if !defined(OSSA__AVX2_KERNELS) /* the public functions: in the baseline compile only (dispatch.h) */
ossa_result ossa_ik_aim_job_validate(const ossa_ik_aim_job *job) { return validate(job); }
#endif /* !OSSA__AVX2_KERNELS */

OSSA__INLINE ossa_result run(const ossa_ik_aim_job *job)
{
    const ossa_result res = validate(job);
    if (res != OSSA_OK) return res;
    /* Solved in the joint's frame R (the matrix's columns normalised, M = R S with S their
     * lengths), so that the rotation is the joint-local correction: joint-space vectors are
     * scaled by S, model-space ones turned by R^T = S^-1 M^T. */
    const ossa_float4x4 *m = job->joint;
    v4f r0 = col(m, 0), r1 = col(m, 1), r2 = col(m, 2), r3 = v4f_zero();
    v4f_transpose4(&r0, &r1, &r2, &r3); /* the rows of the 3x3 part, lane 3 = 0 */
    const v4f len2 = v4f_madd(r0, r0, v4f_madd(r1, r1, v4f_mul(r2, r2)));
    const v4f inv_len = v4f_rsqrt(v4f_max(len2, v4f_set1(1e-30f)));
    const v4f len = v4f_mul(len2, inv_len); /* lane 3: 0 */
    const v4f tm = v4f_sub(v4f_loadu(&job->target.x), col(m, 3)), pm = v4f_loadu(&job->pole_vector.x);
    const v4f t =
        v4f_mul(inv_len, v4f_madd(r0, V4F_SPLAT(tm, 0), v4f_madd(r1, V4F_SPLAT(tm, 1), v4f_mul(r2, V4F_SPLAT(tm, 2)))));
    const v4f pole =
        v4f_mul(inv_len, v4f_madd(r0, V4F_SPLAT(pm, 0), v4f_madd(r1, V4F_SPLAT(pm, 1), v4f_mul(r2, V4F_SPLAT(pm, 2)))));
    /* the fields' fourth lanes are the next (finite) floats: times len's 0 */
    const v4f f = v4f_mul(v4f_loadu(&job->forward.x), len), u = v4f_mul(v4f_loadu(&job->up.x), len);
    const v4f o = v4f_mul(v4f_loadu(&job->offset.x), len);
    bool reached;
    const v4f q = solve(t, o, f, u, pole, job->twist_angle, &reached);
    q_store(job->correction, q_weighted(q, clamp01(job->weight)));
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__ik_aim_avx2(const ossa_ik_aim_job *job) { return run(job); }
#else
ossa_result ossa_ik_aim_job_run(const ossa_ik_aim_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__ik_aim_avx2(job);
#endif
    return run(job);
}
#endif

#if !defined(OSSA__AVX2_KERNELS) /* validation: in the baseline compile only (dispatch.h) */

ossa_result ossa_ik_aim_chain_job_validate(const ossa_ik_aim_chain_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->models || !job->joints) return OSSA_ERROR_NO_INPUT;
    if (!job->corrections) return OSSA_ERROR_NO_OUTPUT;
    const size_t n = job->joint_count;
    if (n == 0) return OSSA_ERROR_INVALID_RANGE;
    if (job->correction_count < n) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if (ossa__misaligned(job->models)) return OSSA_ERROR_MISALIGNED;
    if (!ossa__fits(job->models, job->model_count, sizeof(ossa_float4x4)) ||
        !ossa__fits(job->corrections, n, sizeof(ossa_quat)) || !ossa__fits(job->joints, n, sizeof(int)) ||
        (job->joint_weights && !ossa__fits(job->joint_weights, n, sizeof(float))))
        return OSSA_ERROR_SIZE_OVERFLOW;
    for (size_t i = 0; i < n; ++i) {
        const int j = job->joints[i];
        if (j < 0 || (size_t)j >= job->model_count || (i > 0 && j >= job->joints[i - 1]))
            return OSSA_ERROR_INVALID_RANGE;
    }
    if (!isfinite(job->weight)) return OSSA_ERROR_INVALID_WEIGHT;
    if (job->joint_weights)
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(job->joint_weights[i])) return OSSA_ERROR_INVALID_WEIGHT;
    if (!fields_ok(&job->target, v4f_zero())) return OSSA_ERROR_INVALID_ARGUMENT;
    v4f ok = fields_bounded(&job->target);
    for (size_t i = 0; i < n; ++i) ok = bounded_matrix(ok, &job->models[job->joints[i]]);
    if (!bounded_ok(ok)) return OSSA_ERROR_INVALID_ARGUMENT;
    const size_t out_bytes = n * sizeof(ossa_quat);
    const void *ins[3] = {job->models, job->joints, job->joint_weights};
    const size_t in_bytes[3] = {job->model_count * sizeof(ossa_float4x4), n * sizeof(int), n * sizeof(float)};
    for (int i = 0; i < 3; ++i) {
        if (!ins[i]) continue;
        if (ossa__overlaps(job->corrections, out_bytes, ins[i], in_bytes[i]) ||
            (job->reached && ossa__overlaps(job->reached, sizeof(bool), ins[i], in_bytes[i])))
            return OSSA_ERROR_ALIASING;
    }
    if (job->reached && ossa__overlaps(job->reached, sizeof(bool), job->corrections, out_bytes))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

/* The chain: validation, then the work. */
OSSA__INLINE ossa_result run_chain(const ossa_ik_aim_chain_job *job)
{
    const ossa_result res = ossa_ik_aim_chain_job_validate(job);
    if (res != OSSA_OK) return res;
    const size_t n = job->joint_count;
    const ossa_float4x4 *first = &job->models[job->joints[0]];
    /* The ray in model space: it starts at `start` and runs along f; each joint's rotation
     * moves it with the subtree. */
    v4f f = m_dir(first, v3_load_field(&job->forward)), u = m_dir(first, v3_load_field(&job->up));
    v4f start = v4f_add(m_position(first), m_dir(first, v3_load_field(&job->offset)));
    const v4f target = v3_load_field(&job->target), pole = v3_load_field(&job->pole_vector);
    const float weight = clamp01(job->weight);
    bool reached = false;
    for (size_t i = 0; i < n; ++i) {
        const ossa_float4x4 *m = &job->models[job->joints[i]];
        const v4f origin = m_position(m), offset = v4f_sub(start, origin);
        const float share = job->joint_weights ? clamp01(job->joint_weights[i]) : 1.f / (float)(n - i);
        const v4f q =
            q_weighted(solve(v4f_sub(target, origin), offset, f, u, pole, job->twist_angle, &reached), weight * share);
        const frame fr = frame_of(m);
        q_store(&job->corrections[i], q_to_local(&fr, q));
        start = v4f_add(origin, q_rotate(q, offset));
        f = q_rotate(q, f);
        u = q_rotate(q, u);
    }
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__ik_aim_chain_avx2(const ossa_ik_aim_chain_job *job) { return run_chain(job); }
#else
ossa_result ossa_ik_aim_chain_job_run(const ossa_ik_aim_chain_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__ik_aim_chain_avx2(job);
#endif
    return run_chain(job);
}
#endif
