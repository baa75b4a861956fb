#include "ossa/ik_aim_job.h"

#include <stddef.h>

#include "checks.h"
#include "ik_math.h"

/* An aiming ray in model space, relative to the joint being solved: it starts at `offset`
 * and runs along unit `forward`; `up` turns with it. */
typedef struct ray {
    v3 offset, forward, up;
} ray;

/* The model-space rotation about the joint's origin that puts `target` on the ray, then
 * turns `up` towards the pole plane and by `twist_angle` about the origin->target axis. */
static ossa_quat aim(v3 origin, const ray *r, v3 target, v3 pole, float twist_angle, bool *reached)
{
    const v3 t = v3_sub(target, origin);
    const float t2 = v3_dot(t, t);
    /* The ray point at the target's distance: |offset + l forward|^2 = |t|^2, l >= 0. */
    const float b = v3_dot(r->offset, r->forward);
    const float disc = b * b - v3_dot(r->offset, r->offset) + t2;
    float l = disc >= 0.f ? sqrtf(disc) - b : -b;
    *reached = disc >= 0.f && l >= 0.f && t2 > 0.f;
    if (l < 0.f) l = 0.f;
    const v3 p = v3_add(r->offset, v3_scale(r->forward, l));
    if (!(t2 > 0.f) || !(v3_dot(p, p) > 0.f)) return q_identity();
    const ossa_quat swing = q_from_to(p, t);
    const v3 k = v3_scale(t, 1.f / sqrtf(t2));
    ossa_quat twist = q_align_about(k, q_rotate(swing, r->up), pole);
    if (twist_angle != 0.f) twist = q_mul(q_axis_angle(k, twist_angle), twist);
    return q_mul(twist, swing);
}

/* The ray of a joint with model matrix m from its joint-space forward, up and offset. */
static ray ray_of(const ossa_float4x4 *m, v3 forward, v3 up, v3 offset)
{
    const v3 f = m_dir(m, forward);
    return (ray){m_dir(m, offset), v3_scale(f, 1.f / sqrtf(v3_dot(f, f))), m_dir(m, up)};
}

static bool zero3(v3 v) { return v3_dot(v, v) == 0.f; }

/* Checks shared by the single and the chain job, on the fields they have in common. */
static ossa_result check_aim(v3 target, v3 forward, v3 up, v3 pole, v3 offset, float twist_angle)
{
    if (!v3_finite(target) || !v3_finite(forward) || !v3_finite(up) || !v3_finite(pole) || !v3_finite(offset) ||
        !isfinite(twist_angle) || zero3(forward) || zero3(up) || zero3(pole))
        return OSSA_ERROR_INVALID_ARGUMENT;
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
    if (!finite_acc_ok(acc) || zero3(job->forward) || zero3(job->up) || zero3(job->pole_vector))
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
    const ray r = ray_of(job->joint, job->forward, job->up, job->offset);
    bool reached;
    const ossa_quat q = aim(m_col(job->joint, 3), &r, job->target, job->pole_vector, job->twist_angle, &reached);
    const frame f = frame_of(job->joint);
    *job->correction = q_weighted(q_to_local(&f, q), clamp01(job->weight));
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
    ray r = ray_of(first, job->forward, job->up, job->offset);
    /* The ray's start in model space: each joint's rotation moves it with the subtree. */
    v3 start = v3_add(m_col(first, 3), r.offset);
    const float weight = clamp01(job->weight);
    bool reached = false;
    for (size_t i = 0; i < n; ++i) {
        const ossa_float4x4 *m = &job->models[job->joints[i]];
        const v3 origin = m_col(m, 3);
        r.offset = v3_sub(start, origin);
        const float share = job->joint_weights ? clamp01(job->joint_weights[i]) : 1.f / (float)(n - i);
        const ossa_quat q =
            q_weighted(aim(origin, &r, job->target, job->pole_vector, job->twist_angle, &reached), weight * share);
        const frame f = frame_of(m);
        job->corrections[i] = q_to_local(&f, q);
        start = v3_add(origin, q_rotate(q, r.offset));
        r.forward = q_rotate(q, r.forward);
        r.up = q_rotate(q, r.up);
    }
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}
