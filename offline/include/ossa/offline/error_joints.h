/* ossa/offline/error_joints.h: the error of each joint of a built animation against its
 * source, measured as ossa_measure_error measures the whole skeleton.
 *
 *   float joint_max[64];   // [skeleton.joint_count]
 *   ossa_measure_joint_errors(&skeleton, &raw, &anim, NULL, joint_max, 64, &diag);
 *   for (size_t j = 0; j < skeleton.joint_count; ++j)
 *       printf("%s %g\n", ossa_skeleton_joint_name(&skeleton, j), joint_max[j]);
 *
 * The samples, points and distances are those of ossa_measure_error with the same desc (see
 * ossa/offline/error.h), so the largest of the per-joint maxima is its report's `max`, and
 * the joint holding it its `worst_joint` (the first one, on a tie). The caller owns
 * `joint_max`; nothing is kept.
 */
#ifndef OSSA_OFFLINE_ERROR_JOINTS_H
#define OSSA_OFFLINE_ERROR_JOINTS_H

#include "ossa/offline/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest error of each joint's points (its position and, with a shell distance, its three
 * virtual vertices) over all samples, into joint_max[j] for joint j.
 * Shapes: joint_max [joint_max_count >= skeleton->joint_count]; entries past the joint count
 * are left untouched. The work is that of ossa_measure_error (sample_count x joint_count x 1
 * or 4 points), without its sort for the percentile.
 * Units: skeleton units (multiply by metres per unit for metres).
 * Errors: those of ossa_measure_error; OSSA_ERROR_NULL_ARGUMENT also for joint_max NULL;
 * OSSA_ERROR_OUTPUT_TOO_SMALL (joint_max_count < joint count). joint_max[0, joint_count) is
 * zeroed on any error after the output checks.
 * Aliasing: joint_max must not overlap the inputs.
 * Source: ossa's error metric (docs/error-metric.md), kept per joint. */
OSSA_API ossa_result ossa_measure_joint_errors(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                               const ossa_animation *built, const ossa_error_desc *desc,
                                               float *joint_max, size_t joint_max_count, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_ERROR_JOINTS_H */
