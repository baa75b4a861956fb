#include "ossa/ik_aim_job.h"

#include <stddef.h>

#include "checks.h"
#include "ik_math.h"

/* An aiming ray in model space, relative to the joint being solved: it starts at `offset`
 * and runs along unit `forward`; `up` turns with it. */
typedef struct ray {
    v4f offset, forward, up;
} ray;

/* The model-space rotation about the joint's origin that puts `target` on the ray, then
 * turns `up` towards the pole plane and by `twist_angle` about the origin->target axis. */
static v4f aim(v4f origin, const ray *r, v4f target, v4f pole, float twist_angle, bool *reached)
{
    const v4f t = v4f_sub(target, origin);
    const v4f t2 = dot4(t, t);
    /* The ray point at the target's distance: |offset + l forward|^2 = |t|^2, l >= 0. */
    const float b = v4f_x(dot4(r->offset, r->forward));
    const float disc = b * b - v4f_x(dot4(r->offset, r->offset)) + v4f_x(t2);
    float l = disc >= 0.f ? sqrtf(disc) - b : -b;
    *reached = disc >= 0.f && l >= 0.f && v4f_x(t2) > 0.f;
    if (l < 0.f) l = 0.f;
    const v4f p = v4f_madd(r->forward, v4f_set1(l), r->offset);
    const v4f p2 = dot4(p, p);
    if (!(v4f_x(t2) > 0.f) || !(v4f_x(p2) > 0.f)) return q_identity();
    const v4f swing = q_from_to(p, t, p2, t2);
    const v4f k = v4f_mul(t, v4f_rsqrt(t2));
    v4f twist = q_align_about(k, q_rotate(swing, r->up), pole);
    if (twist_angle != 0.f) twist = q_mul(q_axis_angle(k, twist_angle), twist);
    return q_mul(twist, swing);
}

/* The ray of a joint with model matrix m from its joint-space forward, up and offset. */
static ray ray_of(const ossa_float4x4 *m, v4f forward, v4f up, v4f offset)
{
    const v4f f = m_dir(m, forward);
    return (ray){m_dir(m, offset), v4f_mul(f, v4f_rsqrt(dot4(f, f))), m_dir(m, up)};
}

/* Checks shared by the single and the chain job, on the fields they have in common. */
static ossa_result check_aim(ossa_float3 target, ossa_float3 forward, ossa_float3 up, ossa_float3 pole,
                             ossa_float3 offset, float twist_angle)
{
    const ossa_float3 v[5] = {target, forward, up, pole, offset};
    for (int i = 0; i < 5; ++i)
        if (!isfinite(v[i].x) || !isfinite(v[i].y) || !isfinite(v[i].z)) return OSSA_ERROR_INVALID_ARGUMENT;
    if (!isfinite(twist_angle) || f3_zero(forward) || f3_zero(up) || f3_zero(pole)) return OSSA_ERROR_INVALID_ARGUMENT;
    return OSSA_OK;
}

ossa_result ossa_ik_aim_job_validate(const ossa_ik_aim_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->joint) return OSSA_ERROR_NO_INPUT;
    if (!job->correction) return OSSA_ERROR_NO_OUTPUT;
    if (ossa__misaligned(job->joint)) return OSSA_ERROR_MISALIGNED;
    if (!isfinite(job->weight)) return OSSA_ERROR_INVALID_WEIGHT;
    /* target, forward, up, pole_vector, offset, twist_angle and weight: 17 consecutive floats */
    _Static_assert(offsetof(ossa_ik_aim_job, weight) - offsetof(ossa_ik_aim_job, target) == 16 * sizeof(float),
                   "the job's float fields are consecutive");
    const v4f acc = finite_acc_matrix(finite_acc_floats(v4f_zero(), &job->target, 16), job->joint);
    if (!finite_acc_ok(acc) || f3_zero(job->forward) || f3_zero(job->up) || f3_zero(job->pole_vector))
        return OSSA_ERROR_INVALID_ARGUMENT;
    const size_t mat = sizeof(ossa_float4x4);
    if (ossa__overlaps(job->correction, sizeof(ossa_quat), job->joint, mat)) return OSSA_ERROR_ALIASING;
    if (job->reached && (ossa__overlaps(job->reached, sizeof(bool), job->joint, mat) ||
                         ossa__overlaps(job->reached, sizeof(bool), job->correction, sizeof(ossa_quat))))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

ossa_result ossa_ik_aim_job_run(const ossa_ik_aim_job *job)
{
    const ossa_result res = ossa_ik_aim_job_validate(job);
    if (res != OSSA_OK) return res;
    const ray r =
        ray_of(job->joint, v3_load_field(&job->forward), v3_load_field(&job->up), v3_load_field(&job->offset));
    bool reached;
    const v4f q = aim(m_position(job->joint), &r, v3_load_field(&job->target), v3_load_field(&job->pole_vector),
                      job->twist_angle, &reached);
    const frame f = frame_of(job->joint);
    q_store(job->correction, q_weighted(q_to_local(&f, q), clamp01(job->weight)));
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}

ossa_result ossa_ik_aim_chain_job_validate(const ossa_ik_aim_chain_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->models || !job->joints) return OSSA_ERROR_NO_INPUT;
    if (!job->corrections) return OSSA_ERROR_NO_OUTPUT;
    const size_t n = job->joint_count;
    if (n == 0) return OSSA_ERROR_INVALID_RANGE;
    if (job->correction_count < n) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if (ossa__misaligned(job->models)) return OSSA_ERROR_MISALIGNED;
    for (size_t i = 0; i < n; ++i) {
        const int j = job->joints[i];
        if (j < 0 || (size_t)j >= job->model_count || (i > 0 && j >= job->joints[i - 1]))
            return OSSA_ERROR_INVALID_RANGE;
    }
    if (!isfinite(job->weight)) return OSSA_ERROR_INVALID_WEIGHT;
    if (job->joint_weights)
        for (size_t i = 0; i < n; ++i)
            if (!isfinite(job->joint_weights[i])) return OSSA_ERROR_INVALID_WEIGHT;
    v4f acc = v4f_zero();
    for (size_t i = 0; i < n; ++i) acc = finite_acc_matrix(acc, &job->models[job->joints[i]]);
    if (!finite_acc_ok(acc)) return OSSA_ERROR_INVALID_ARGUMENT;
    const ossa_result r =
        check_aim(job->target, job->forward, job->up, job->pole_vector, job->offset, job->twist_angle);
    if (r != OSSA_OK) return r;
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

ossa_result ossa_ik_aim_chain_job_run(const ossa_ik_aim_chain_job *job)
{
    const ossa_result res = ossa_ik_aim_chain_job_validate(job);
    if (res != OSSA_OK) return res;
    const size_t n = job->joint_count;
    const ossa_float4x4 *first = &job->models[job->joints[0]];
    ray r = ray_of(first, v3_load_field(&job->forward), v3_load_field(&job->up), v3_load_field(&job->offset));
    /* The ray's start in model space: each joint's rotation moves it with the subtree. */
    v4f start = v4f_add(m_position(first), r.offset);
    const v4f target = v3_load_field(&job->target), pole = v3_load_field(&job->pole_vector);
    const float weight = clamp01(job->weight);
    bool reached = false;
    for (size_t i = 0; i < n; ++i) {
        const ossa_float4x4 *m = &job->models[job->joints[i]];
        const v4f origin = m_position(m);
        r.offset = v4f_sub(start, origin);
        const float share = job->joint_weights ? clamp01(job->joint_weights[i]) : 1.f / (float)(n - i);
        const v4f q = q_weighted(aim(origin, &r, target, pole, job->twist_angle, &reached), weight * share);
        const frame f = frame_of(m);
        q_store(&job->corrections[i], q_to_local(&f, q));
        start = v4f_add(origin, q_rotate(q, r.offset));
        r.forward = q_rotate(q, r.forward);
        r.up = q_rotate(q, r.up);
    }
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}
