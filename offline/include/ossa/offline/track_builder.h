/* ossa/offline/track_builder.h: raw user-channel tracks to runtime track blobs, and the
 * error-bounded track optimiser.
 *
 *   ossa_raw_track optimised = {0};
 *   ossa_blob blob = {0};
 *   ossa_diag diag = {0};
 *   ossa_track_optimize_desc opt = {.tolerance = 1e-3f};
 *   if (ossa_track_optimize(&raw, &opt, &optimised, &diag) == OSSA_OK &&
 *       ossa_track_build(&optimised, NULL, &blob, &diag) == OSSA_OK) {
 *       ossa_track track; ossa_track_init(&track, blob.data, blob.size);   // ossa/track.h
 *   }
 *   ossa_raw_track_destroy(&optimised); ossa_blob_destroy(&blob);
 *
 * Ownership: outputs are allocated with the given allocator (NULL means malloc/free) and
 * released by ossa_blob_destroy / ossa_raw_track_destroy. A failed call leaves its output
 * empty and safe to destroy. The blob is what a .ossa archive stores under OSSA_TAG_TRACK
 * with chunk version OSSA_TRACK_BLOB_VERSION.
 */
#ifndef OSSA_OFFLINE_TRACK_BUILDER_H
#define OSSA_OFFLINE_TRACK_BUILDER_H

#include "ossa/offline/raw_track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds a runtime track blob (layout in ossa/track.h) from a valid raw track.
 * The runtime track has keys at ratios 0 and 1: when the raw track's first key is after 0
 * a step key holding its value is added at 0, and when its last key is before 1 a key
 * holding the last value is added at 1, so the runtime track evaluates exactly as
 * ossa_raw_track_evaluate does (the nearest key holds outside the keys). An empty raw track
 * becomes two keys of zeros (identity for quaternions). Quaternion values are normalised, so
 * keys that were not unit length sample as the normalised lerp of their normalised values.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (raw or out); ossa_raw_track_validate's errors;
 * OSSA_ERROR_INVALID_TRACK (more than OSSA_TRACK_MAX_KEYS keys); OSSA_ERROR_INVALID_KEY (a
 * value beyond OSSA_TRACK_MAX_VALUE, the diag names the key); OSSA_ERROR_OUT_OF_MEMORY.
 * `out` stays empty on error. Cost: O(keys).
 * Source: ozz-animation TrackBuilder (begin and end keys patched, separate buffers). */
OSSA_API ossa_result ossa_track_build(const ossa_raw_track *raw, const ossa_allocator *allocator, ossa_blob *out,
                                      ossa_diag *diag);

/* Options of the track optimiser. Zero-initialised means the defaults. */
typedef struct ossa_track_optimize_desc {
    float tolerance;                 /* 0 -> 1e-3; > 0 and finite. Track units (Euclidean
                                        distance between values) or, for quaternions,
                                        radians of rotation angle between them */
    const ossa_allocator *allocator; /* of the output track; NULL -> malloc/free */
} ossa_track_optimize_desc;

/* Copies `raw` into `out` without the keys that interpolation can rebuild within
 * `tolerance`. A key is removed only when the curve through the kept keys, each with its
 * own interpolation, stays within tolerance of the original curve at every removed key,
 * just before every removed key (where a step segment ends) and everywhere in between: for
 * float tracks both curves are piecewise linear, so the key checks bound the whole curve;
 * for quaternions the angle is also checked at 7 points inside every original segment. The
 * first and last keys are always kept, so the curve outside the keys is unchanged.
 * Keys are chosen greedily: from each kept key the farthest next key whose span passes is
 * found by exponential then binary search (each accepted span is verified in full).
 * Errors: OSSA_ERROR_NULL_ARGUMENT (raw or out); ossa_raw_track_validate's errors;
 * OSSA_ERROR_INVALID_ARGUMENT (tolerance negative or not finite); OSSA_ERROR_OUT_OF_MEMORY.
 * `out` stays empty on error. Cost: O(keys log^2 keys) (O(keys log keys) curve evaluations,
 * each a binary search).
 * Source: ozz-animation TrackOptimizer (greedy decimation under a tolerance); the span
 * checks between keys are ossa's. */
OSSA_API ossa_result ossa_track_optimize(const ossa_raw_track *raw, const ossa_track_optimize_desc *desc,
                                         ossa_raw_track *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_TRACK_BUILDER_H */
