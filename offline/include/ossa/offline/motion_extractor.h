/* ossa/offline/motion_extractor.h: root motion, taken out of a clip into two tracks.
 *
 *   ossa_raw_track position = {0}, rotation = {0};
 *   ossa_motion_extract_desc desc = {.position = {true, false, true}, .yaw = true, .bake = true};
 *   if (ossa_motion_extract(&raw_animation, &raw_skeleton, &desc, &position, &rotation, &diag) == OSSA_OK)
 *       ... build both with ossa_track_build, store them beside the clip, and at run time feed
 *       them to an ossa_motion_accumulator (ossa/motion.h) ...
 *
 * A walking clip moves its root joint across the floor; a game moves the character instead
 * and plays the clip in place. The extractor reads the root joint's transform at every time
 * the clip has a root key (the union of its translation and rotation key times, with 0 and
 * the duration), and splits it into a motion transform M(t) (the extracted translation
 * components and the rotation about +Y, relative to the first time) and, with `bake`, what is
 * left in the joint, M(t)^-1 * root(t), so that M(t) * baked_root(t) = root(t) exactly at
 * those times. Between them both curves are the linear / normalised-linear interpolation of
 * their keys, as for any clip.
 */
#ifndef OSSA_OFFLINE_MOTION_EXTRACTOR_H
#define OSSA_OFFLINE_MOTION_EXTRACTOR_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"
#include "ossa/offline/raw_track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialised means: joint 0, nothing extracted (an error); set what to extract. */
typedef struct ossa_motion_extract_desc {
    size_t joint;                    /* the joint that carries the motion; it must be a root (parent -1) */
    bool position[3];                /* translation components (x, y, z, in the root's parent space, +Y up)
                                        to extract; {true, false, true} is the usual ground motion */
    bool yaw;                        /* extract the rotation about +Y (the twist of the swing-twist split) */
    bool bake;                       /* remove what is extracted from the joint's keys (the clip plays in
                                        place); false leaves the clip as it is */
    const ossa_allocator *allocator; /* of the output tracks; NULL -> malloc/free */
} ossa_motion_extract_desc;

/* Extracts the root motion of `animation` (track i animates joint i of `skeleton`).
 * Outputs (overwritten; pass zero-initialised or destroyed tracks): `position`, an
 * OSSA_TRACK_FLOAT3 track of the motion's translation, and `rotation`, an OSSA_TRACK_QUAT
 * track of its rotation (identity throughout without `yaw`), both named "root_motion.position"
 * and "root_motion.rotation", linear, one key per root key time, ratio = time / duration, the
 * first key the identity (the motion starts at the origin). With `bake` the joint's
 * translation and rotation keys are replaced by the remainder at the same times.
 * Units: the clip's (skeleton units, seconds).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT (joint out of range or not a
 * root, nothing to extract, outputs aliasing each other); ossa_raw_animation_validate's
 * errors; OSSA_ERROR_JOINT_MISMATCH (track count is not the joint count);
 * OSSA_ERROR_OUT_OF_MEMORY. On error `animation` is unchanged and the outputs are empty.
 * Source: ozz-animation's MotionExtractor (which components, reference, bake), with the
 * rotation split by ossa's own swing-twist decomposition. */
OSSA_API ossa_result ossa_motion_extract(ossa_raw_animation *animation, const ossa_raw_skeleton *skeleton,
                                         const ossa_motion_extract_desc *desc, ossa_raw_track *position,
                                         ossa_raw_track *rotation, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_MOTION_EXTRACTOR_H */
