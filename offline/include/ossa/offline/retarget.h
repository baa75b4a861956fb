/* ossa/offline/retarget.h: a clip made for one skeleton, baked onto another of other
 * proportions or other joint names.
 *
 *   const ossa_retarget_pair map[] = {{"Hips", "mixamorig:Hips"}, ...};  // optional
 *   ossa_retarget_desc desc = {.target = &target_skeleton, .map = map, .map_count = n};
 *   ossa_raw_animation out = {0};
 *   ossa_retarget(&source_clip, &source_skeleton, &desc, &out, &diag);
 *
 * What it does: each target joint is bound to a source joint (through the map, else by the
 * same name). At every source key time, a bound joint takes the source joint's model-space
 * rotation relative to the source rest pose, applied to the target joint's own rest pose in
 * model space: R_target(t) = R_source(t) R_source_rest^-1 R_target_rest. So the rest poses
 * need not match (an A-pose onto a T-pose), only the model spaces' axes. Unbound target joints
 * keep their rest rotation relative to their parent. Every target joint keeps its own rest
 * translation (its bone lengths), except the root, which moves as the source root moves,
 * scaled by the ratio of hip heights (each root's rest height above the skeleton's lowest
 * joint), so feet that touch the ground in the source touch it in the target when the legs
 * scale as the hips do. Scales keep the target's rest scale.
 * What it does not do: different joint counts in a chain (a three-joint spine onto a
 * five-joint one) are bound at the joints the names or the map give, the rest hold their
 * rest rotation; no IK foot locking; no twist redistribution along limbs.
 */
#ifndef OSSA_OFFLINE_RETARGET_H
#define OSSA_OFFLINE_RETARGET_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One binding: target joint name, source joint name. */
typedef struct ossa_retarget_pair {
    const char *target;
    const char *source;
} ossa_retarget_pair;

typedef struct ossa_retarget_desc {
    const ossa_raw_skeleton *target; /* depth-first, valid; its first root is the root that moves */
    const ossa_retarget_pair *map;   /* [map_count] bindings that override names; may be NULL */
    size_t map_count;
    const ossa_allocator *allocator; /* of `out`; NULL -> malloc/free */
    size_t *bound_count;             /* optional: target joints bound to a source joint */
} ossa_retarget_desc;

/* Retargets `source` (track i animates joint i of `source_skeleton`, depth-first) onto
 * desc->target into `out` (overwritten: pass a zero-initialised or destroyed animation): one
 * track per target joint, a rotation key at every distinct source key time, the root's
 * translation keys at the same times, the name and duration of the source.
 * Units: the target's (the root's travel is scaled into them); seconds.
 * Errors: OSSA_ERROR_NULL_ARGUMENT; the validators' errors for either skeleton and the clip;
 * OSSA_ERROR_INVALID_SKELETON (a skeleton not depth-first); OSSA_ERROR_JOINT_MISMATCH (track
 * count differs from the source joint count, or no target root is bound to a source joint);
 * OSSA_ERROR_INVALID_ARGUMENT (a map entry naming a joint that does not exist, with its
 * index); OSSA_ERROR_OUT_OF_MEMORY. On error `out` is empty. */
OSSA_API ossa_result ossa_retarget(const ossa_raw_animation *source, const ossa_raw_skeleton *source_skeleton,
                                   const ossa_retarget_desc *desc, ossa_raw_animation *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_RETARGET_H */
