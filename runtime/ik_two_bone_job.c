#include "ossa/ik_two_bone_job.h"

#include <stddef.h>

#include "checks.h"
#include "dispatch.h"
#include "ik_math.h"

/* ossa_ik_two_bone_job_validate, inlined into the run as well. */
OSSA__INLINE ossa_result validate(const ossa_ik_two_bone_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->start_joint || !job->mid_joint || !job->end_joint) return OSSA_ERROR_NO_INPUT;
    if (!job->start_correction || !job->mid_correction) return OSSA_ERROR_NO_OUTPUT;
    if (ossa__misaligned(job->start_joint) || ossa__misaligned(job->mid_joint) || ossa__misaligned(job->end_joint))
        return OSSA_ERROR_MISALIGNED;
    if (!isfinite(job->weight)) return OSSA_ERROR_INVALID_WEIGHT;
    /* target, pole_vector, mid_axis, twist_angle, soften and weight: 12 consecutive floats */
    _Static_assert(offsetof(ossa_ik_two_bone_job, weight) - offsetof(ossa_ik_two_bone_job, target) ==
                       11 * sizeof(float),
                   "the job's float fields are consecutive");
    if (!finite_acc_ok(finite_acc_floats(v4f_zero(), &job->target, 12))) return OSSA_ERROR_INVALID_ARGUMENT;
    /* The matrices, and target, pole_vector and mid_axis (the 9 floats from target, as floats
     * 0..3, 4..7, 5..8): finite and within +-IK_MAX_VALUE. */
    const char *f = (const char *)&job->target;
    v4f ok = bounded(bounded_all(), v4f_loadu((const float *)(const void *)f));
    for (int i = 4; i <= 5; ++i) ok = bounded(ok, v4f_loadu((const float *)(const void *)(f + 4 * i)));
    if (!bounded_ok(
            bounded_matrix(bounded_matrix(bounded_matrix(ok, job->start_joint), job->mid_joint), job->end_joint)))
        return OSSA_ERROR_INVALID_ARGUMENT;
    if (f3_zero(job->pole_vector) || f3_zero(job->mid_axis)) return OSSA_ERROR_INVALID_ARGUMENT;
    const v4f s = m_position(job->start_joint), m = m_position(job->mid_joint), e = m_position(job->end_joint);
    const v4f sm = v4f_sub(m, s), me = v4f_sub(e, m);
    if (v4f_x(dot4(sm, sm)) == 0.f || v4f_x(dot4(me, me)) == 0.f) return OSSA_ERROR_INVALID_ARGUMENT;
    const size_t q = sizeof(ossa_quat), mat = sizeof(ossa_float4x4);
    const void *outs[3] = {job->start_correction, job->mid_correction, job->reached};
    const size_t out_sizes[3] = {q, q, sizeof(bool)};
    const void *ins[3] = {job->start_joint, job->mid_joint, job->end_joint};
    for (int i = 0; i < 3; ++i) {
        if (!outs[i]) continue;
        for (int j = i + 1; j < 3; ++j)
            if (outs[j] && ossa__overlaps(outs[i], out_sizes[i], outs[j], out_sizes[j])) return OSSA_ERROR_ALIASING;
        for (int j = 0; j < 3; ++j)
            if (ossa__overlaps(outs[i], out_sizes[i], ins[j], mat)) return OSSA_ERROR_ALIASING;
    }
    return OSSA_OK;
}

#if !defined(OSSA__AVX2_KERNELS) /* the public functions: in the baseline compile only (dispatch.h) */
ossa_result ossa_ik_two_bone_job_validate(const ossa_ik_two_bone_job *job) { return validate(job); }
#endif /* !OSSA__AVX2_KERNELS */

OSSA__INLINE ossa_result run(const ossa_ik_two_bone_job *job)
{
    const ossa_result r = validate(job);
    if (r != OSSA_OK) return r;
    const v4f s = m_position(job->start_joint), m = m_position(job->mid_joint), e = m_position(job->end_joint);
    const v4f sm0 = v4f_sub(m, s), me0 = v4f_sub(e, m), st0 = v4f_sub(v3_load_field(&job->target), s);
    /* The solve depends on the ratios of these three vectors: scaled together by a power of two
     * (exact, see unit_scaled), their squares stay in float range for any input the validation
     * accepts. Products of higher degree below take their factors scaled one by one, where
     * only directions matter (the angle between the bones, the swing, the twist). */
    const v4f axis0 = v3_load_field(&job->mid_axis), pole0 = v3_load_field(&job->pole_vector);
    const v4f scale =
        pow2_inverse_of_max4(v4f_max(v4f_max(abs4(sm0), abs4(me0)), abs4(st0)), abs4(axis0), abs4(pole0), v4f_zero());
    const v4f common = V4F_SPLAT(scale, 0);
    const v4f sm = v4f_mul(sm0, common), me = v4f_mul(me0, common), st = v4f_mul(st0, common);
    /* |sm|^2, |me|^2, |st|^2 in lanes 0..2 */
    const v4f len2 = hsum3x(v4f_mul(sm, sm), v4f_mul(me, me), v4f_mul(st, st));
    const v4f len = v4f_sqrt(len2);
    OSSA_ALIGNAS(16) float l2[4], l[4];
    v4f_store(l2, len2), v4f_store(l, len);
    const float a2 = l2[0], b2 = l2[1], a = l[0], b = l[1], d = l[2], length = a + b;

    /* Softening: past soften * length the aimed distance follows r + s (1 - (1 + x/4)^-4),
     * which has slope 1 at the threshold and tends to the full length. */
    const float soften = job->soften == 0.f ? 1.f : clamp01(job->soften);
    const float hard = soften * length, soft = length - hard;
    float reach = d;
    if (d > hard && soft > 0.f) {
        const float k = 1.f / (1.f + .25f * (d - hard) / soft), k2 = k * k;
        reach = hard + soft * (1.f - k2 * k2);
    }
    const bool reached = d <= hard && d >= fabsf(a - b);

    /* Mid joint: the signed interior angle of (start - mid, end - mid) about the hinge, then
     * the one the law of cosines gives for `reach`, on the same side of the hinge. */
    const v4f axis = v4f_mul(axis0, V4F_SPLAT(scale, 1));
    const v4f axis_local = v4f_mul(axis, v4f_rsqrt(dot4(axis, axis)));
    const frame mid_frame = frame_of(job->mid_joint);
    const v4f hinge = frame_to_model(&mid_frame, axis_local);
    const v4f bones = pow2_inverse_of_max(v4f_max(abs4(sm), abs4(me)));
    const v4f smu = v4f_mul(sm, bones), meu = v4f_mul(me, bones);
    float cos_now = -v4f_x(dot4(smu, meu)), sin_now = -v4f_x(dot4(hinge, cross3(smu, meu)));
    const float now2 = cos_now * cos_now + sin_now * sin_now;
    if (now2 > 0.f) {
        const float inv = 1.f / sqrtf(now2);
        cos_now *= inv, sin_now *= inv;
    } else { /* a bone along the hinge: no measurable angle */
        cos_now = 1.f, sin_now = 0.f;
    }
    float cos_new = (a2 + b2 - reach * reach) / (2.f * a * b);
    cos_new = cos_new < -1.f ? -1.f : cos_new > 1.f ? 1.f : cos_new;
    float sin_new = sqrtf((1.f - cos_new) * (1.f + cos_new));
    if (sin_now < 0.f) sin_new = -sin_new;
    /* delta = new - now */
    const v4f cos_delta = v4f_set1(cos_new * cos_now + sin_new * sin_now);
    const v4f sin_delta = v4f_set1(sin_new * cos_now - cos_new * sin_now);
    const v4f mid_ms = q_axis_cos_sin(hinge, cos_delta, sin_delta, v4f_one());
    const v4f mid_local = q_axis_cos_sin(axis_local, cos_delta, sin_delta, v4f_one());

    /* Start joint: shortest arc taking the new end onto the start->target line, then the
     * twist about that line that puts the mid joint in the pole's half-plane. */
    v4f start_ms = q_identity();
    if (d > length * 1e-6f) {
        /* st is at least 1e-6 of the largest vector here, se may be far shorter */
        const v4f se = unit_scaled(v4f_add(sm, q_rotate(mid_ms, me)));
        const v4f swing = q_from_to(se, st, dot4(se, se), V4F_SPLAT(len2, 2));
        const v4f k = v4f_div(st, V4F_SPLAT(len, 2));
        v4f twist = q_align_about(k, q_rotate(swing, smu), v4f_mul(pole0, V4F_SPLAT(scale, 2)));
        if (job->twist_angle != 0.f) twist = q_mul(q_axis_angle(k, job->twist_angle), twist);
        start_ms = q_mul(twist, swing);
    }
    const frame start_frame = frame_of(job->start_joint);
    const float weight = clamp01(job->weight);
    const v4f start_fix = q_weighted(q_to_local(&start_frame, start_ms), weight);
    const v4f mid_fix = q_weighted(mid_local, weight);
    /* Bones whose lengths differ by a factor beyond about 1e20 can still underflow a length
     * to 0: such a chain is refused here, with nothing written. */
    if (!finite_acc_ok(v4f_add(v4f_mul(start_fix, v4f_zero()), v4f_mul(mid_fix, v4f_zero()))))
        return OSSA_ERROR_INVALID_ARGUMENT;
    q_store(job->start_correction, start_fix);
    q_store(job->mid_correction, mid_fix);
    if (job->reached) *job->reached = reached;
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__ik_two_bone_avx2(const ossa_ik_two_bone_job *job) { return run(job); }
#else
ossa_result ossa_ik_two_bone_job_run(const ossa_ik_two_bone_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__ik_two_bone_avx2(job);
#endif
    return run(job);
}
#endif

#if !defined(OSSA__AVX2_KERNELS) /* the public functions: in the baseline compile only (dispatch.h) */
ossa_result ossa_ik_apply_correction(ossa_soa_transform *pose, size_t pose_count, size_t joint, ossa_quat correction)
{
    if (!pose) return OSSA_ERROR_NULL_ARGUMENT;
    if (joint / 4 >= pose_count) return OSSA_ERROR_INVALID_RANGE;
    if (!isfinite(correction.x) || !isfinite(correction.y) || !isfinite(correction.z) || !isfinite(correction.w))
        return OSSA_ERROR_INVALID_ARGUMENT;
    ossa_soa_quat *q = &pose[joint / 4].rotation;
    const size_t lane = joint % 4;
    const ossa_quat local = {q->x[lane], q->y[lane], q->z[lane], q->w[lane]};
    const ossa_quat out = ossa_quat_normalize(ossa_quat_mul(local, correction));
    q->x[lane] = out.x, q->y[lane] = out.y, q->z[lane] = out.z, q->w[lane] = out.w;
    return OSSA_OK;
}
#endif /* !OSSA__AVX2_KERNELS */
