/* ossa/ik_aim_job.h: aims a joint (a head, an eye, a weapon) at a target, alone or spread over
 * a chain of ancestors (head, neck, spine).
 *
 *   ossa_quat fix;
 *   ossa_ik_aim_job aim = {.joint = &models[head], .target = look_at,
 *                          .forward = {0, 1, 0}, .up = {1, 0, 0}, .pole_vector = {0, 1, 0},
 *                          .weight = 1.f, .correction = &fix};
 *   if (ossa_ik_aim_job_run(&aim) == OSSA_OK)
 *       ossa_ik_apply_correction(pose, soa_count, head, fix);   // local = local * fix
 *   // then rerun the local-to-model job from `head` (joint_begin = head)
 *
 * Corrections are joint-local quaternions multiplied on the right of the joint's local
 * rotation (local' = local * correction), as for ossa_ik_two_bone_job. Ownership: the jobs are
 * plain structs in caller memory; nothing is allocated or kept between runs. Jobs with
 * distinct outputs run in parallel safely. docs/ik.md explains the conventions.
 */
#ifndef OSSA_IK_AIM_JOB_H
#define OSSA_IK_AIM_JOB_H

#include <stdbool.h>

#include "ossa/ik_two_bone_job.h" /* ossa_ik_apply_correction */
#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rotates one joint so that its forward axis, cast from `offset`, passes through `target`.
 * Fields (zero-initialised is not runnable: joint, correction, forward, up and pole_vector
 * are required; offset 0 aims from the joint's origin; weight 0 means no change):
 *   joint          the joint's model-space matrix (column-major, 16-byte aligned).
 *   target         model-space point to aim at.
 *   forward        joint-space aiming direction, any length > 0.
 *   up             joint-space up direction, any length > 0, not parallel to forward.
 *   pole_vector    model-space direction, any length > 0: after the aim, the joint is
 *                  twisted about the joint->target axis so that `up` lies in the plane of
 *                  that axis and pole_vector, on pole_vector's side (skipped when either is
 *                  parallel to the axis).
 *   offset         joint-space position of the point the aim is cast from (e.g. the eyes
 *                  relative to the head joint), in the joint's units (its scale applies).
 *   twist_angle    radians, any finite value: extra rotation about the joint->target axis
 *                  after the pole alignment (right-handed about joint->target).
 *   weight         ratio in [0, 1] (clamped): the correction is nlerp(identity, full
 *                  correction, weight) on the shortest arc; 0 gives the identity.
 *   correction     output: joint-local unit quaternion (x, y, z, w);
 *                  local_rotation' = local_rotation * correction.
 *   reached        optional output (NULL: not written): true when the full correction puts
 *                  the target on the forward ray: false when the target is on the joint or
 *                  nearer to it than the ray from `offset` ever comes (the joint then aims
 *                  the ray's nearest point towards the target). Not affected by `weight`.
 * Method: the ray offset + l * forward (l >= 0, scaled by the joint) meets the sphere about
 * the joint through the target at one point p; the joint turns on the shortest arc from p to
 * the target, then about the joint->target axis for the pole and twist_angle, which keeps the
 * target on the ray. The solve runs in the joint's frame R (its matrix's columns normalised:
 * target and pole_vector are turned by R^T, forward, up and offset scaled by the columns'
 * lengths), so the rotation found is the correction; exact when the joint's ancestors carry
 * no non-uniform scale or shear (the columns then orthogonal).
 * Shapes: one joint per run. Units: positions in the matrix's units, angles in radians.
 * Errors (no output is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_NO_INPUT (joint
 * NULL), OSSA_ERROR_NO_OUTPUT (correction NULL), OSSA_ERROR_MISALIGNED (joint not 16-byte
 * aligned), OSSA_ERROR_INVALID_WEIGHT (weight not finite), OSSA_ERROR_INVALID_ARGUMENT (a
 * non-finite value in the matrix, target, forward, up, pole_vector, offset or twist_angle; a
 * value of the matrix, target, forward, up, pole_vector or offset beyond +-1e18; a
 * zero-length forward, up or pole_vector), OSSA_ERROR_ALIASING (an output overlaps another
 * output or the matrix).
 * Range: within those limits the correction is finite: the solve scales its vectors to unit
 * size by powers of two (exact: the result is the same bit for bit as unscaled whenever the
 * unscaled products stay in float range), so huge and tiny inputs do not overflow.
 * Aliasing: the outputs must not overlap each other or the matrix.
 * Source: the behaviour follows ozz-animation IKAimJob (same inputs and meaning). */
typedef struct ossa_ik_aim_job {
    const ossa_float4x4 *joint;
    ossa_float3 target;
    ossa_float3 forward;
    ossa_float3 up;
    ossa_float3 pole_vector;
    ossa_float3 offset;
    float twist_angle;
    float weight;
    ossa_quat *correction;
    bool *reached;
} ossa_ik_aim_job;

OSSA_API ossa_result ossa_ik_aim_job_validate(const ossa_ik_aim_job *job);
OSSA_API ossa_result ossa_ik_aim_job_run(const ossa_ik_aim_job *job);

/* Spreads an aim over a chain of joints: joints[0] aims (the head), joints[1..] are its
 * ancestors towards the root (neck, spine2, spine1), each turning part of the way.
 *
 *   const int chain[4] = {head, neck, spine2, spine1};
 *   ossa_quat fixes[4];
 *   ossa_ik_aim_chain_job job = {.models = models, .model_count = joint_count, .joints = chain,
 *                                .joint_count = 4, .target = t, .forward = {0, 1, 0},
 *                                .up = {1, 0, 0}, .pole_vector = {0, 1, 0}, .weight = 1.f,
 *                                .corrections = fixes, .correction_count = 4};
 *   ossa_ik_aim_chain_job_run(&job);
 *   for (int i = 0; i < 4; ++i) ossa_ik_apply_correction(pose, soa_count, chain[i], fixes[i]);
 *   // then rerun the local-to-model job from chain[3]
 *
 * The joints are solved from joints[0] to the last, each as an ossa_ik_aim_job whose aiming
 * ray (offset, forward, up) is that of joints[0] as left by the joints solved before it,
 * expressed at the current joint; model matrices need not be recomputed in between, since a
 * joint's correction moves its descendants rigidly. Joint i's weight is
 * weight * joint_weights[i]; with the last joint's factor 1 and weight 1 the chain reaches
 * the target (when reachable).
 * Fields (as ossa_ik_aim_job where the names match; forward, up and offset are in joints[0]'s
 * space):
 *   models         [model_count] model-space matrices of the skeleton, 16-byte aligned.
 *   joints         [joint_count >= 1] joint indices, strictly decreasing (each an ancestor of
 *                  the one before, in depth-first order), each < model_count.
 *   joint_weights  NULL -> joint i of n gets 1 / (n - i): every joint turns about the same
 *                  share and the last turns fully. Otherwise [joint_count] ratios in [0, 1]
 *                  (clamped).
 *   corrections    [correction_count >= joint_count] outputs in the order of `joints`.
 *   reached        optional: whether the full aim of the last joint reaches the target.
 * Errors (nothing is written): those of ossa_ik_aim_job (NO_INPUT for models or joints NULL,
 * NO_OUTPUT for corrections NULL), OSSA_ERROR_INVALID_RANGE (joint_count 0, an index out of
 * the models, or not strictly decreasing), OSSA_ERROR_OUTPUT_TOO_SMALL (correction_count
 * below joint_count), OSSA_ERROR_INVALID_WEIGHT (a non-finite joint weight),
 * OSSA_ERROR_SIZE_OVERFLOW (model_count or joint_count elements run past the end of the
 * address space).
 * Aliasing: corrections and reached must not overlap the models, joints or joint_weights.
 * Source: the look-at chain of the ozz-animation samples (a head-to-spine aim, one IKAimJob
 * per joint). */
typedef struct ossa_ik_aim_chain_job {
    const ossa_float4x4 *models;
    size_t model_count;
    const int *joints;
    size_t joint_count;
    const float *joint_weights;
    ossa_float3 target;
    ossa_float3 forward;
    ossa_float3 up;
    ossa_float3 pole_vector;
    ossa_float3 offset;
    float twist_angle;
    float weight;
    ossa_quat *corrections;
    size_t correction_count;
    bool *reached;
} ossa_ik_aim_chain_job;

OSSA_API ossa_result ossa_ik_aim_chain_job_validate(const ossa_ik_aim_chain_job *job);
OSSA_API ossa_result ossa_ik_aim_chain_job_run(const ossa_ik_aim_chain_job *job);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_IK_AIM_JOB_H */
