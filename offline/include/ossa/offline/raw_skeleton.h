/* ossa/offline/raw_skeleton.h: the editable joint hierarchy importers produce.
 *
 *   ossa_raw_skeleton raw = {0};
 *   ossa_raw_skeleton_create(&raw, 2, NULL);
 *   ossa_raw_skeleton_set_name(&raw, 0, "hips");
 *   ossa_raw_skeleton_set_name(&raw, 1, "spine");
 *   raw.joints[1].parent = 0;
 *   raw.joints[1].rest.translation.y = 0.1f;
 *   ossa_raw_skeleton_destroy(&raw);
 *
 * Joints are a flat array with parent indices; any order is accepted by validate as long as
 * there is no cycle. ossa_raw_skeleton_sort_depth_first puts it in the depth-first order the
 * skeleton builder requires. Ownership: names and the joint array belong to the skeleton and
 * its allocator.
 */
#ifndef OSSA_OFFLINE_RAW_SKELETON_H
#define OSSA_OFFLINE_RAW_SKELETON_H

#include "ossa/maths.h"
#include "ossa/offline/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One joint: its name, parent (index into the same array, -1 for a root) and rest pose in
 * the parent's space (source units, unit quaternion). */
typedef struct ossa_raw_joint {
    char *name;
    int32_t parent;
    ossa_transform rest;
} ossa_raw_joint;

typedef struct ossa_raw_skeleton {
    ossa_raw_joint *joints; /* [joint_count] */
    size_t joint_count;
    ossa_allocator allocator;
} ossa_raw_skeleton;

/* Allocates `joint_count` joints named "", parent -1, identity rest pose.
 * Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_skeleton_create(ossa_raw_skeleton *skeleton, size_t joint_count,
                                              const ossa_allocator *allocator);

/* Replaces joint `joint`'s name with a copy of `name`. Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_INVALID_ARGUMENT (joint out of range), OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_skeleton_set_name(ossa_raw_skeleton *skeleton, size_t joint, const char *name);

/* Releases names and joints; the skeleton becomes empty. NULL is ignored. */
OSSA_API void ossa_raw_skeleton_destroy(ossa_raw_skeleton *skeleton);

/* Checks: at most OSSA_MAX_JOINTS joints; parents in [-1, joint_count) and acyclic; names
 * non-NULL; rest translations and scales finite; rest rotations finite with |q| within 1e-3
 * of 1. The diag names the first bad joint. Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_INVALID_SKELETON. */
OSSA_API ossa_result ossa_raw_skeleton_validate(const ossa_raw_skeleton *skeleton, ossa_diag *diag);

/* True when every parent index is lower than its child's and children follow their parent's
 * subtree contiguously (depth-first pre-order). */
OSSA_API bool ossa_raw_skeleton_is_depth_first(const ossa_raw_skeleton *skeleton);

/* Reorders joints into depth-first pre-order (roots and siblings keep their relative order)
 * and rewrites parents. If `new_index` is not NULL it receives, for each old joint index, its
 * new index ([joint_count] entries), to reorder animation tracks the same way.
 * Errors: those of validate (the skeleton is unchanged then), OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_skeleton_sort_depth_first(ossa_raw_skeleton *skeleton, size_t *new_index,
                                                        ossa_diag *diag);

/* The rest pose's extent: the largest, over the three model-space axes, of the span of the
 * joints' rest positions (source units; 0 with fewer than two joints). For a standing human
 * in a rest pose this is the standing height (or the arm span, about the same), which is how
 * a file without a unit (BVH) is given one: 1.7 m / height. Requires every parent before its
 * child (as after ossa_raw_skeleton_sort_depth_first). Errors: those of validate,
 * OSSA_ERROR_INVALID_ARGUMENT (a parent after its child), OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_skeleton_rest_height(const ossa_raw_skeleton *skeleton, float *height, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_RAW_SKELETON_H */
