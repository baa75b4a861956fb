/* ossa/ik_two_bone_job.h: two-bone inverse kinematics (shoulder, elbow, hand; hip, knee, foot).
 *
 *   ossa_quat start_fix, mid_fix;
 *   ossa_ik_two_bone_job ik = {.start_joint = &models[arm], .mid_joint = &models[forearm],
 *                              .end_joint = &models[hand], .target = hand_target,
 *                              .pole_vector = {0, 0, 1}, .mid_axis = {0, 0, 1}, .weight = 1.f,
 *                              .start_correction = &start_fix, .mid_correction = &mid_fix};
 *   if (ossa_ik_two_bone_job_run(&ik) == OSSA_OK) {
 *       ossa_ik_apply_correction(pose, soa_count, arm, start_fix);     // local = local * fix
 *       ossa_ik_apply_correction(pose, soa_count, forearm, mid_fix);
 *   }   // then rerun the local-to-model job from `arm` (joint_begin = arm)
 *
 * The job reads model-space matrices (the local-to-model job's output) and writes two
 * joint-local correction quaternions, to be multiplied on the right of the joints' local
 * rotations: local' = local * correction. Ownership: the job is a plain struct in caller
 * memory; it allocates nothing and keeps nothing between runs. Jobs with distinct outputs run
 * in parallel safely. docs/ik.md explains the conventions.
 */
#ifndef OSSA_IK_TWO_BONE_JOB_H
#define OSSA_IK_TWO_BONE_JOB_H

#include <stdbool.h>

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Bends a start-mid-end chain so that the end joint reaches `target`.
 * Fields (zero-initialised is not runnable: the matrices, outputs, mid_axis and pole_vector
 * are required; soften 0 means 1, weight 0 means no change):
 *   start_joint, mid_joint, end_joint
 *                  model-space matrices of the three joints (column-major, 16-byte aligned;
 *                  e.g. entries of the local-to-model job's output). mid is a child of start
 *                  and end a child of mid, directly or not, and the chain is rigid between
 *                  them: only start and mid are rotated.
 *   target         model-space point the end joint should reach.
 *   pole_vector    model-space direction, any length > 0: the chain bends towards it. The
 *                  mid joint ends in the half-plane bounded by the start->target line that
 *                  contains pole_vector (when pole_vector is not parallel to that line).
 *   mid_axis       mid joint's hinge axis in mid joint space, any length > 0 (the elbow's
 *                  bending axis). It should be perpendicular to both bones; the interior angle
 *                  at the mid joint is changed by a rotation about it. Its sign picks the
 *                  side of the bend only when the chain starts fully straight.
 *   twist_angle    radians, any finite value: rotates the bent chain about the start->target
 *                  axis after the pole alignment (right-handed about start->target).
 *   soften         ratio in [0, 1] of the chain length (|start-mid| + |mid-end|) from which
 *                  the end joint slows down before full extension; 0 -> 1 (no softening);
 *                  values outside [0, 1] are clamped. With r = soften * L, s = L - r and
 *                  the target at distance d > r from start, the end aims at distance
 *                  r + s * (1 - (1 + a / 4)^-4), a = (d - r) / s: continuous in value and slope
 *                  at d = r, below L for every d (an inexpensive stand-in for
 *                  r + s * (1 - exp(-a))). The direction towards the target is unchanged.
 *   weight         ratio in [0, 1] (clamped) of the correction applied: each correction is
 *                  nlerp(identity, full correction, weight) (normalised lerp on the shortest
 *                  arc). 0 gives identity corrections.
 *   start_correction, mid_correction
 *                  outputs: joint-local unit quaternions (x, y, z, w) for the start and mid
 *                  joints: local_rotation' = local_rotation * correction (post-multiplied).
 *   reached        optional output (NULL: not written): true when the unweighted corrections
 *                  bring the end joint onto the target, i.e. |start-mid| and |mid-end| can
 *                  span the start-target distance d (| |sm| - |me| | <= d <= L) and softening
 *                  did not move the target (d <= soften * L). Not affected by `weight`.
 * Method: the interior angle at the mid joint is set by the law of cosines for the (softened)
 * start-target distance, rotating about the hinge axis; the start joint is then rotated on the
 * shortest arc that takes the end joint onto the start->target line, and twisted about that
 * line so that the mid joint lies in the pole plane, plus twist_angle. Corrections are
 * expressed in each joint's own frame (its model matrix with the columns normalised), which
 * is exact when the joints' ancestors carry no non-uniform scale or shear.
 * Degenerate cases: a target on the start joint leaves the start joint unrotated (only the
 * mid angle changes); a mid joint on the start->target line or a pole vector parallel to it
 * skips the pole alignment (twist_angle still applies).
 * Shapes: one chain per run; all inputs are single values.
 * Units: positions in the matrices' units (metres by default), angles in radians, soften
 * and weight are ratios; quaternions x, y, z, w.
 * Errors (no output is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_NO_INPUT (a
 * joint matrix is NULL), OSSA_ERROR_NO_OUTPUT (start_correction or mid_correction NULL),
 * OSSA_ERROR_MISALIGNED (a matrix not 16-byte aligned), OSSA_ERROR_INVALID_WEIGHT (weight
 * not finite), OSSA_ERROR_INVALID_ARGUMENT (a non-finite value in a matrix (all 16 entries),
 * target, pole_vector, mid_axis, twist_angle or soften; a value of a matrix, target,
 * pole_vector or mid_axis beyond +-1e18; a zero-length pole_vector or mid_axis; the mid joint
 * at the start or the end joint's position, or so near that the squared distance underflows;
 * from _run only, a chain whose bone lengths and target distance differ by a factor beyond
 * about 1e20, where a length still underflows to 0), OSSA_ERROR_ALIASING (an output overlaps
 * another output or an input matrix).
 * Range: within those limits the corrections are finite: the solve scales the bones and the
 * start->target vector together, and the directions it combines one by one, by powers of two
 * (exact: the result is the same bit for bit as unscaled whenever the unscaled products stay
 * in float range), so huge and tiny chains do not overflow.
 * Aliasing: the outputs must not overlap each other or the matrices.
 * Source: the behaviour follows ozz-animation IKTwoBoneJob (same inputs and meaning; the
 * softening curve is ossa's own, given above); the geometry is the law of cosines. */
typedef struct ossa_ik_two_bone_job {
    const ossa_float4x4 *start_joint;
    const ossa_float4x4 *mid_joint;
    const ossa_float4x4 *end_joint;
    ossa_float3 target;
    ossa_float3 pole_vector;
    ossa_float3 mid_axis;
    float twist_angle;
    float soften;
    float weight;
    ossa_quat *start_correction;
    ossa_quat *mid_correction;
    bool *reached;
} ossa_ik_two_bone_job;

OSSA_API ossa_result ossa_ik_two_bone_job_validate(const ossa_ik_two_bone_job *job);
OSSA_API ossa_result ossa_ik_two_bone_job_run(const ossa_ik_two_bone_job *job);

/* Multiplies joint `joint`'s local rotation in the SoA pose by `correction` on the right:
 * rotation' = normalise(rotation * correction), the convention of the IK jobs' outputs.
 * Shapes: pose [pose_count] SoA groups of 4 joints; `joint` < 4 * pose_count.
 * Errors (the pose is untouched): OSSA_ERROR_NULL_ARGUMENT (pose), OSSA_ERROR_INVALID_RANGE
 * (joint out of the pose), OSSA_ERROR_INVALID_ARGUMENT (correction not finite). */
OSSA_API ossa_result ossa_ik_apply_correction(ossa_soa_transform *pose, size_t pose_count, size_t joint,
                                              ossa_quat correction);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_IK_TWO_BONE_JOB_H */
