/* ossa/skeleton.h: the runtime skeleton, a validated zero-copy view over a blob.
 *
 *   ossa_skeleton skel;
 *   if (ossa_skeleton_init(&skel, blob, blob_size) != OSSA_OK) { ... }
 *   for (size_t i = 0; i < skel.joint_count; ++i)
 *       printf("%s parent %d\n", ossa_skeleton_joint_name(&skel, i), skel.parents[i]);
 *
 * Ownership: the caller owns the blob (written by the offline skeleton builder or found in a
 * .ossa archive) and keeps it alive and unchanged while the view is used. The view holds
 * pointers into it and allocates nothing. Joints are in depth-first order, so a parent's index
 * is always lower than its children's.
 *
 * Blob layout (little-endian, 16-byte aligned start), version OSSA_SKELETON_BLOB_VERSION:
 *   u32 joint_count, u32 names_size, u32 reserved[2]
 *   ossa_soa_transform rest_pose[ceil(joint_count / 4)]     (unused lanes hold identity)
 *   i16 parents[joint_count] (-1 for a root), padded to 4 bytes
 *   u32 name_offsets[joint_count] into names
 *   char names[names_size] (NUL-terminated UTF-8 strings)
 */
#ifndef OSSA_SKELETON_H
#define OSSA_SKELETON_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_SKELETON_BLOB_VERSION 1u
/* Parent index of a root joint. */
#define OSSA_NO_PARENT (-1)

/* Runtime skeleton: a view over a validated blob. */
typedef struct ossa_skeleton {
    size_t joint_count;                  /* joints, 0..OSSA_MAX_JOINTS */
    size_t soa_count;                    /* SoA groups: ceil(joint_count / 4) */
    const int16_t *parents;              /* [joint_count] parent index or OSSA_NO_PARENT */
    const ossa_soa_transform *rest_pose; /* [soa_count] local-space rest (bind) pose */
    const uint32_t *name_offsets;        /* [joint_count] offsets into names */
    const char *names;                   /* [names_size] name pool */
    size_t names_size;
} ossa_skeleton;

/* Validates `blob` and points `skeleton` into it.
 * Shapes: `blob` is `size` bytes, 16-byte aligned.
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_MISALIGNED; OSSA_ERROR_TRUNCATED when a declared
 * array passes `size`; OSSA_ERROR_TOO_MANY_JOINTS; OSSA_ERROR_INVALID_SKELETON when a parent is
 * not lower than its child, a name offset or string leaves the pool, or a rest pose value is
 * not finite; OSSA_ERROR_UNSUPPORTED_HOST on big-endian hosts. `*skeleton` is zeroed on error.
 * Source: ozz-animation runtime Skeleton (depth-first parents, SoA rest pose). */
OSSA_API ossa_result ossa_skeleton_init(ossa_skeleton *skeleton, const void *blob, size_t size);

/* Name of joint `joint` (NUL-terminated), or "" when out of range. */
OSSA_API const char *ossa_skeleton_joint_name(const ossa_skeleton *skeleton, size_t joint);

/* Index of the first joint named `name`, or -1 when absent. */
OSSA_API int ossa_skeleton_find_joint(const ossa_skeleton *skeleton, const char *name);

/* Rest pose of joint `joint` as an AoS transform (identity when out of range). */
OSSA_API ossa_transform ossa_skeleton_rest_transform(const ossa_skeleton *skeleton, size_t joint);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_SKELETON_H */
