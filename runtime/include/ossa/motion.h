/* ossa/motion.h: accumulating root motion between frames.
 *
 *   ossa_motion_accumulator acc;
 *   ossa_motion_accumulator_reset(&acc, &position_track, &rotation_track, 0.f, ossa_transform_identity());
 *   every frame, after advancing the clip's ratio (and counting wraps of a looping clip):
 *     ossa_motion_accumulate(&acc, &position_track, &rotation_track, ratio, loops);
 *     character_to_world = acc.transform;  // place the in-place clip's model space there
 *
 * The tracks are the two that ossa_motion_extract (ossa/offline/motion_extractor.h) takes out
 * of a clip: the motion M(ratio) as a float3 position track and a quaternion rotation track,
 * starting at the identity. The accumulator keeps the character's transform in the world and
 * the motion sampled at the last ratio; each update adds the motion from there to the new
 * ratio, across as many whole loops as the caller says were crossed:
 *   delta = M(last)^-1 * L^loops * M(ratio),  L = M(1) (one loop's displacement)
 *   transform = transform * delta
 * so playing forward n loops moves the character by L^n, playing backward undoes exactly
 * what forward did, and the step size does not change where it ends up (up to float
 * rounding). The rotation track may be NULL (translation only).
 */
#ifndef OSSA_MOTION_H
#define OSSA_MOTION_H

#include "ossa/maths.h"
#include "ossa/result.h"
#include "ossa/track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Accumulator state, in caller memory; plain data (copy it to fork a prediction). */
typedef struct ossa_motion_accumulator {
    ossa_transform transform;  /* the character in the world: translation and rotation (scale 1) */
    ossa_float3 last_position; /* the motion sampled at `last_ratio` */
    ossa_quat last_rotation;
    float last_ratio;
} ossa_motion_accumulator;

/* Starts accumulating at `ratio` from `start` (its scale is ignored).
 * Errors: OSSA_ERROR_NULL_ARGUMENT (acc or position); OSSA_ERROR_INVALID_TRACK (position is
 * not a float3 track, rotation not a quaternion track); OSSA_ERROR_INVALID_RATIO (not
 * finite). On error `acc` is unchanged. */
OSSA_API ossa_result ossa_motion_accumulator_reset(ossa_motion_accumulator *acc, const ossa_track *position,
                                                   const ossa_track *rotation, float ratio, ossa_transform start);

/* Moves the accumulator to `ratio` (clamped to [0, 1]) after `loops` whole loops crossed since
 * the last call: +1 when a looping clip wrapped from its end to its start, -1 when playing
 * backward wrapped from its start to its end, 0 otherwise (any integer; |loops| <= 1e6).
 * Errors: those of reset, and OSSA_ERROR_INVALID_ARGUMENT (|loops| > 1e6). On error `acc` is
 * unchanged. Cost: two track samplings and O(log |loops|) transform products.
 * Source: ozz-animation's motion extraction sample (the wrap arithmetic) in ossa's own form. */
OSSA_API ossa_result ossa_motion_accumulate(ossa_motion_accumulator *acc, const ossa_track *position,
                                            const ossa_track *rotation, float ratio, int loops);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_MOTION_H */
