/* ossa/offline/import_bvh.h: Biovision BVH motion capture, read as a stream.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   FILE *f = fopen("01_01.bvh", "rb");
 *   ossa_result r = ossa_import_bvh_read(read_from_file, f, file_size, NULL, &out, &diag);
 *   ... out.skeleton, out.animations[0] ...
 *   ossa_import_output_destroy(&out);
 *
 * The MOTION section is parsed a line at a time straight into the raw animation's keys: the
 * import holds its output and a small read buffer, never the whole text nor a per-frame array
 * of every channel, so a long capture costs about what its keys do. The result is the one
 * ossa_import_assimp gave for the same bytes through assimp 5.2's BVH loader, key for key and
 * bit for bit where that library rounds each operation on its own (x86-64): the same number
 * parsing, Euler matrices and matrix-to-quaternion conversion in float. ossa_import_assimp now
 * uses it for every BVH itself.
 * Ownership: `out` owns everything it returns; the reader's `user` stays the caller's.
 */
#ifndef OSSA_OFFLINE_IMPORT_BVH_H
#define OSSA_OFFLINE_IMPORT_BVH_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reads up to `size` bytes of the stream into `buffer` and returns how many it read; 0 means
 * the end of the stream (or an error the caller keeps track of). */
typedef size_t (*ossa_read_fn)(void *buffer, size_t size, void *user);

/* Zero-initialised means the defaults. */
typedef struct ossa_bvh_desc {
    bool drop_end_sites;             /* false keeps each End Site as a leaf joint "EndSite_<joint>" */
    const ossa_allocator *allocator; /* NULL keeps out->allocator (zero: malloc/free) */
    size_t max_keys;                 /* keys over the import (declared Frames x 2 x joints with
                                        CHANNELS, checked at the MOTION header); 0 -> no limit */
} ossa_bvh_desc;

/* Imports the hierarchy and the motion of the BVH in `data` (`size` bytes).
 *
 * Joints: every ROOT and JOINT node, and each End Site as a leaf joint "EndSite_<parent>"
 * (unless desc->drop_end_sites), in depth-first pre-order; rest pose: the OFFSET as
 * translation, identity rotation, unit scale. Names are the file's; when two nodes share a
 * name the first drives it, as assimp's lookup by name does. One animation, "Motion", with a
 * track per joint: a node with exactly 6 channels has a translation key per frame from its
 * X/Y/Zposition channels, others one key at its OFFSET; a rotation key per frame, the product
 * of the node's rotation channels in the order listed (degrees), as a quaternion; a unit scale.
 * Key i is at i x Frame Time seconds; duration (Frames - 1) x Frame Time (one Frame Time for a
 * single frame). Metadata: format=assimp:bvh, importer, source_units=unknown, unit_scale=1
 * (those of ossa_import_assimp).
 *
 * Shapes: data [size] bytes, read only; need not be NUL-terminated. Units: the file's, seconds.
 * Errors (diag.line and diag.column name the token, diag.offset its byte): OSSA_ERROR_PARSE
 * (a missing or unknown keyword, a token that is not a number, a frame line with fewer or more
 * values than the hierarchy's channels (each frame is one line), MOTION ending before the
 * declared frames, Frames not a count below 2^32, a node with 6 channels without its 3
 * positions, a stream longer than its stated size); keys are allocated for no more frames
 * than the bytes after the header can hold; OSSA_ERROR_INVALID_ANIMATION (Frame Time not a finite
 * number > 0, a clip longer than a day, more keys than max_keys); OSSA_ERROR_INVALID_KEY (a
 * value that makes a non-finite key); OSSA_ERROR_INVALID_SKELETON (a non-finite OFFSET);
 * OSSA_ERROR_TOO_MANY_JOINTS; OSSA_ERROR_OUT_OF_MEMORY; OSSA_ERROR_NULL_ARGUMENT. On failure
 * `out` is empty (safe to destroy). `out` must be empty on entry.
 * Aliasing: none. Source: the Biovision BVH layout as CMU's captures use it; assimp 5.2.5's
 * BVHLoader, fast_atof.h, matrix3x3.inl and quaternion.inl for the exact conversion.
 */
OSSA_API ossa_result ossa_import_bvh(const void *data, size_t size, const ossa_bvh_desc *desc, ossa_import_output *out,
                                     ossa_diag *diag);

/* ossa_import_bvh on a stream: `read` is called with `user` until it returns 0. `size` is the
 * stream's length in bytes when known (it bounds the keys allocated for the declared Frames:
 * every value takes at least 2 bytes), 0 when unknown (the declared Frames are then trusted,
 * within max_keys). Errors: those of ossa_import_bvh; OSSA_ERROR_NULL_ARGUMENT when `read` is
 * NULL. */
OSSA_API ossa_result ossa_import_bvh_read(ossa_read_fn read, void *user, size_t size, const ossa_bvh_desc *desc,
                                          ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif
