/* ossa/offline/builders.h: raw skeleton and raw animation to runtime blobs.
 *
 *   ossa_blob skel_blob = {0}, anim_blob = {0};
 *   ossa_diag diag = {0};
 *   ossa_skeleton_build(&raw_skeleton, NULL, &skel_blob, &diag);
 *   ossa_animation_build(&raw_animation, NULL, &anim_blob, &diag);
 *   ossa_skeleton skel; ossa_skeleton_init(&skel, skel_blob.data, skel_blob.size);
 *   ...
 *   ossa_blob_destroy(&anim_blob); ossa_blob_destroy(&skel_blob);
 *
 * The blobs are the exact bytes a .ossa archive stores (see ossa/skeleton.h and
 * ossa/animation.h for their layouts); ossa_skeleton_init / ossa_animation_init view them.
 */
#ifndef OSSA_OFFLINE_BUILDERS_H
#define OSSA_OFFLINE_BUILDERS_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds a runtime skeleton blob. The raw skeleton must be valid and in depth-first order
 * (ossa_raw_skeleton_sort_depth_first). Rest rotations are normalised.
 * Errors: OSSA_ERROR_NULL_ARGUMENT; validate's errors; OSSA_ERROR_INVALID_SKELETON when not
 * depth-first; OSSA_ERROR_OUT_OF_MEMORY. `out` stays empty on error.
 * Source: ozz-animation SkeletonBuilder. */
OSSA_API ossa_result ossa_skeleton_build(const ossa_raw_skeleton *raw, const ossa_allocator *allocator, ossa_blob *out,
                                         ossa_diag *diag);

/* How translations are stored. */
typedef enum ossa_translation_encoding {
    OSSA_TRANSLATION_RANGED = 0, /* 16-bit fractions of each track's range (default): error at
                                    most half of range / 65535 per component */
    OSSA_TRANSLATION_HALF = 1    /* ozz's half floats: error up to 2^-11 of the value */
} ossa_translation_encoding;

/* Options of the animation builder. Zero-initialised means the defaults. */
typedef struct ossa_animation_build_desc {
    ossa_translation_encoding translation_encoding;
    const ossa_allocator *allocator; /* NULL -> malloc/free */
    float iframe_interval;           /* seconds between iframes; 0 -> automatic (one every 4 keys
                                        per track, so a seek walks at most that many); negative ->
                                        no iframes (random access then walks the stream) */
} ossa_animation_build_desc;

/* Builds a runtime animation blob from a valid raw animation: adds keys at time 0 and at
 * the duration to every channel (holding the nearest value; identity for empty channels),
 * pads tracks to a multiple of 4, keeps consecutive rotations in one hemisphere, quantises
 * (half floats, 15-bit smallest-three quaternions), shares a time-point table, sorts keys by
 * previous-key time then track, injects a key wherever a previous-key offset would pass
 * 65535 and records iframes (cursor snapshots, see ossa/animation.h). No key is removed (the
 * optimiser is a separate step).
 * Units: times become ratios (time / duration).
 * Quantisation error: ranged translations are off by at most (max - min) / 131070 per
 * component of the track's range; half floats (scales, and translations on request) have a
 * relative error of at most 2^-11 (0.049 %) of the value, so a translation of magnitude m is
 * off by up to m * 4.9e-4 per component, as in ozz; rotation
 * components are off by up to half a step, 1/(32767 * sqrt 2) = 2.16e-5 (about 0.0025 degrees).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; validate's errors; OSSA_ERROR_INVALID_ARGUMENT (desc
 * iframe_interval not finite);
 * OSSA_ERROR_OUT_OF_MEMORY; OSSA_ERROR_INVALID_ANIMATION when more than 65536 distinct key
 * times exist. `out` stays empty on error.
 * Source: ozz-animation AnimationBuilder 0.15 (sorting, offsets, time points, quantisation). */
OSSA_API ossa_result ossa_animation_build(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc,
                                          ossa_blob *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_BUILDERS_H */
