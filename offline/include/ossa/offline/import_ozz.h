/* ossa/offline/import_ozz.h: ozz-animation binary archives (RawSkeleton, runtime Skeleton,
 * RawAnimation), little- and big-endian.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   if (ossa_import_ozz(bytes, size, NULL, &out, &diag) != OSSA_OK) puts(diag.message);
 *   ... out.skeleton (raw or runtime skeleton), out.animations[i] (raw animations) ...
 *   ossa_import_output_destroy(&out);
 *
 * Archive layout (ozz/base/io/archive.h): one endianness byte (1 little, 0 big: the writer's
 * native order, every multi-byte value follows it), then objects until the end of the data.
 * An object is its tag as a NUL-terminated string, a uint32 version and its fields. An array
 * of a versioned type (a std::vector) is a uint32 count and, when the count is not 0, one
 * uint32 element version (1 here) before the elements; a string is a uint32 byte length and
 * the bytes (no NUL). Objects read:
 * - "ozz-raw_skeleton" version 1: the roots, an array of joints, each its name, transform
 *   (translation x,y,z; rotation x,y,z,w; scale x,y,z as floats) and children (an array of
 *   joints, recursively). Joints come out in the file's depth-first pre-order, the order
 *   ozz's SkeletonBuilder gives the runtime skeleton.
 * - "ozz-skeleton" version 2 (runtime Skeleton): int32 joint count; when not 0, a uint32
 *   byte count and that many bytes of NUL-terminated names, one int16 parent per joint (-1 for
 *   a root, else below the joint's own index) and (count + 3) / 4 SoA rest-pose groups of 40
 *   floats (translation x[4] y[4] z[4], rotation x[4] y[4] z[4] w[4], scale x[4] y[4] z[4]).
 * - "ozz-raw_animation" version 3: float duration (seconds), the tracks (an array, one per
 *   joint of the skeleton it was made for, each three arrays of keys: translations
 *   {time, x,y,z}, rotations {time, x,y,z,w}, scales {time, x,y,z}; times in seconds) and the
 *   name (a string).
 * The runtime "ozz-animation" (compressed, quantised keys) and the track objects
 * ("ozz-float_track", ...) are rejected with OSSA_ERROR_UNSUPPORTED_FORMAT: import the
 * RawAnimation the runtime animation was built from instead.
 *
 * Output: at most one skeleton object (raw or runtime) becomes `skeleton`; each raw animation
 * becomes one entry of `animations` with its tracks in the archive's order. An archive
 * holding only a RawAnimation (what ozz's tools write) gives a skeleton with 0 joints and one
 * animation whose tracks follow the joint order of the ozz runtime skeleton it was made for:
 * `ossa bake` pairs it with that skeleton's archive (a RawSkeleton or Skeleton .ozz file),
 * whose import has the same joint order. When one archive holds a skeleton and animations,
 * every animation must have one track per joint (else OSSA_ERROR_JOINT_MISMATCH). Joints keep
 * the archive's order so track indices stay valid: ozz's builder writes runtime skeletons
 * depth-first, but a runtime skeleton only promises parents below their children, so callers
 * that need depth-first order use ossa_import_output_sort_depth_first.
 * Metadata: format=ozz-raw-skeleton | ozz-skeleton | ozz-raw-animation (the skeleton's kind
 * when there is one), objects=<the tags in archive order, comma-separated>,
 * endianness=little|big, source_units=unknown, unit_scale=1 and unit_candidates=1 0.01 0.001:
 * an archive stores no unit; ozz's converters write metres, but a pipeline that skipped their
 * conversion keeps centimetres or millimetres, so a tool infers the unit from the rest pose
 * and rounds it to one of those (ossa bake does).
 *
 * Errors: OSSA_ERROR_BAD_MAGIC (no endianness byte 0/1 or a first tag not starting with
 * "ozz-"), OSSA_ERROR_UNSUPPORTED_FORMAT (another ozz object, a second skeleton),
 * OSSA_ERROR_UNSUPPORTED_VERSION (an object or element version other than those above; the
 * message names the tag and the version found), OSSA_ERROR_TRUNCATED (the data ends inside a
 * field, or a count needs more bytes than remain: checked before allocating; `offset` is the
 * field's byte offset), OSSA_ERROR_CORRUPT (negative joint count, bad parent, names that do
 * not match the joint count, a NUL inside a name), OSSA_ERROR_TOO_MANY_JOINTS,
 * OSSA_ERROR_INVALID_SKELETON / OSSA_ERROR_INVALID_ANIMATION / OSSA_ERROR_INVALID_KEY (the
 * decoded data fails ossa_raw_skeleton_validate / ossa_raw_animation_validate; `offset` is the
 * object's first byte), OSSA_ERROR_JOINT_MISMATCH, OSSA_ERROR_OUT_OF_MEMORY,
 * OSSA_ERROR_NULL_ARGUMENT. On failure the output is empty but safe to destroy.
 *
 * Units: translations as stored (see the metadata above), seconds, quaternions x,y,z,w as
 * stored (validated to unit length within 1e-3 for the skeleton's rest pose).
 * Ownership: see ossa/offline/import.h.
 * Source: guillaumeblanc/ozz-animation (MIT): src/base/io/archive.cc and archive.h (header,
 * tags, versions, endianness swap), include/ozz/base/containers/vector_archive.h and
 * string_archive.h (array and string layouts), src/animation/offline/raw_skeleton_archive.cc,
 * raw_animation_archive.cc and src/animation/runtime/skeleton.cc (object fields); every
 * layout above was confirmed byte by byte on ozz-animation's sample archives (the pab
 * skeleton and raw animations in both byte orders; docs/benchmarks.md lists them).
 */
#ifndef OSSA_OFFLINE_IMPORT_OZZ_H
#define OSSA_OFFLINE_IMPORT_OZZ_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Object tags and the only version of each that is read. */
#define OSSA_OZZ_TAG_RAW_SKELETON      "ozz-raw_skeleton"
#define OSSA_OZZ_VERSION_RAW_SKELETON  1
#define OSSA_OZZ_TAG_SKELETON          "ozz-skeleton"
#define OSSA_OZZ_VERSION_SKELETON      2
#define OSSA_OZZ_TAG_RAW_ANIMATION     "ozz-raw_animation"
#define OSSA_OZZ_VERSION_RAW_ANIMATION 3
/* The runtime animation's tag, recognised only to explain that it is not read. */
#define OSSA_OZZ_TAG_ANIMATION "ozz-animation"

/* Zero-initialised (or a NULL desc) means the defaults. */
typedef struct ossa_ozz_desc {
    const ossa_allocator *allocator; /* NULL -> malloc/free; also becomes out->allocator */
} ossa_ozz_desc;

/* Imports the objects of one ozz archive (see the top of this header).
 * Shapes: `data` is `size` bytes, any alignment. Errors: see the top of this header; `out`
 * is emptied first. Aliasing: `out` must not point into `data`. */
OSSA_API ossa_result ossa_import_ozz(const void *data, size_t size, const ossa_ozz_desc *desc, ossa_import_output *out,
                                     ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_OZZ_H */
