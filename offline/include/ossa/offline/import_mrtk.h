/* ossa/offline/import_mrtk.h: MRTK (Mixed Reality Toolkit for Unity) input animation
 * recordings, binary versions 1.0 and 1.1, as a camera + two-hand skeleton animation, hand
 * state step tracks, eye-gaze tracks and marker events.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_mrtk_desc desc = {.sample_rate = 90.f};    // zero fields mean the defaults
 *   if (ossa_import_mrtk(bytes, size, &desc, &out, &diag) != OSSA_OK) puts(diag.message);
 *   ossa_import_output_destroy(&out);
 *
 * Output (always the same layout, so tools can rely on indices):
 * - skeleton: OSSA_MRTK_JOINT_COUNT joints in depth-first order. Joint 0 "camera" is a root.
 *   Each hand is 27 joints named "hand_left/<TrackedHandJoint>" (then "hand_right/..."), in
 *   MRTK's enum order: "None" (the enum's first slot, normally never tracked: the tracking
 *   space origin) is the hand's root, "Wrist" its child, "Palm" and the five finger chains
 *   (ThumbMetacarpalJoint > ThumbProximalJoint > ThumbDistalJoint > ThumbTip, and for Index,
 *   Middle, Ring, Pinky: Metacarpal > Knuckle > MiddleJoint > DistalJoint > Tip) hang from
 *   the wrist. The rest pose is the local pose at time 0.
 * - animations[0] "input_animation": one track per joint. MRTK records world-space poses;
 *   they are converted to local space (inverse(parent world) * world). Each of the 7 curves
 *   of a pose (position x, y, z, rotation x, y, z, w) is evaluated on its own and the
 *   rotation renormalised, as MRTK does; the result is sampled at evenly spaced times from 0
 *   to the duration, `sample_rate` per second or a little more, every sample a key (the
 *   importer does not reduce: the animation builder does, against its model-space
 *   tolerance), except that a channel equal to its first sample throughout is one key. No scale keys (scale 1). Curves
 * a file does not hold (a 1.1 file without camera or hands, joints never recorded) evaluate to 0, so poses there are
 * the identity.
 * - tracks[0..3] "hand_left/tracked", "hand_right/tracked", "hand_left/pinching",
 *   "hand_right/pinching": OSSA_TRACK_FLOAT, OSSA_INTERP_STEP, values 0 or 1 (MRTK's
 *   `Evaluate(t) > 0.5`), keyed by ratio (time / duration) at the exact times the state
 *   changes; for the triggering job.
 * - with eye gaze (1.1): tracks[4] "eye_gaze/origin" (metres) and tracks[5]
 *   "eye_gaze/direction" (unit vector, MRTK's normalised ray direction), OSSA_TRACK_FLOAT3,
 *   linear, one key per sample (the track optimiser reduces them).
 * - events: the recording's markers, in file order (time in seconds, name as UTF-8).
 * - metadata: format=mrtk, version=<major>.<minor>, source_units=metres, unit_scale=1,
 *   axes=unity (left-handed, y up, z forward; not converted), duration=<seconds>,
 *   has_camera_pose, has_hand_data, has_eye_gaze (0/1), markers=<count>.
 *
 * Units: metres, seconds, unit quaternions (x, y, z, w).
 * Ownership: see ossa/offline/import.h.
 * Source: microsoft/MixedRealityToolkit-Unity (MIT) InputAnimation.cs and
 * InputAnimationSerializationUtils.cs (layout, versions, how keys are filled in on read,
 * hand state threshold, pose normalisation); Unity AnimationCurve semantics after Unity's
 * DOTS package Unity.Animation.Curves (Hermite, weighted Bezier, stepped segments, wrap modes).
 */
#ifndef OSSA_OFFLINE_IMPORT_MRTK_H
#define OSSA_OFFLINE_IMPORT_MRTK_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The file's first 8 bytes, a little-endian Int64. */
#define OSSA_MRTK_MAGIC 0x6a8faf6e0f9e42c6ull
/* Latest version read; newer versions are rejected. */
#define OSSA_MRTK_VERSION_MAJOR 1
#define OSSA_MRTK_VERSION_MINOR 1

/* Skeleton layout of every import. */
#define OSSA_MRTK_HAND_JOINT_COUNT 27
#define OSSA_MRTK_JOINT_CAMERA     0
#define OSSA_MRTK_JOINT_HAND_LEFT  1  /* first joint ("None") of the left hand */
#define OSSA_MRTK_JOINT_HAND_RIGHT 28 /* first joint of the right hand */
#define OSSA_MRTK_JOINT_COUNT      55

/* Zero-initialised means the defaults. */
typedef struct ossa_mrtk_desc {
    float sample_rate;               /* samples per second; 0 -> 60; at most 10000 */
    float max_duration;              /* seconds; 0 -> 3600; at most 1e7; longer recordings are
                                        rejected so that resampling stays bounded */
    const ossa_allocator *allocator; /* NULL -> malloc/free */
} ossa_mrtk_desc;

/* Imports an MRTK input animation from `size` bytes at `data` into `out` (which must be
 * empty: zero-initialised or destroyed).
 * Shapes: sample count = max(2, ceil(duration * sample_rate) + 1), at most 2^20 (else
 * OSSA_ERROR_UNSUPPORTED_FORMAT). Cost: O(samples * 55 joints * log keys) evaluations plus
 * O(samples log samples) per channel for the reduction (about 0.15 s per recorded minute).
 * Errors (diag: code, byte offset of the offending field, message naming what was expected
 * and what was found; `out` left empty):
 *   OSSA_ERROR_NULL_ARGUMENT (data with size > 0, out), OSSA_ERROR_INVALID_ARGUMENT (desc),
 *   OSSA_ERROR_BAD_MAGIC, OSSA_ERROR_UNSUPPORTED_VERSION (not 1.0 or 1.1, offset 8 or 12),
 *   OSSA_ERROR_TRUNCATED (a field or a declared key or marker count runs past the end, or
 *   the file ends where the marker list starts),
 *   OSSA_ERROR_CORRUPT (negative count, weighted mode outside 0..3, bad string length),
 *   OSSA_ERROR_INVALID_KEY (time or value not finite, time before the previous key's, NaN
 *   tangent, non-finite weight, a curve that evaluates to a non-finite value, a joint
 *   position relative to its parent that overflows; offset: the curve's record),
 *   OSSA_ERROR_PARSE (marker name not UTF-8 or holding a NUL),
 *   OSSA_ERROR_UNSUPPORTED_FORMAT (recording longer than max_duration),
 *   OSSA_ERROR_OUT_OF_MEMORY.
 * The marker list is required in both versions: MRTK's writer always ends with it and its
 * reader (InputAnimation.FromStream) always reads it; the published format page lists only
 * the curves and does not say the list may be left out, so a file that ends where the list
 * starts is OSSA_ERROR_TRUNCATED at that offset. Bytes after the marker list are ignored, as
 * MRTK's reader does, with a "warning=" line giving their count. */
OSSA_API ossa_result ossa_import_mrtk(const void *data, size_t size, const ossa_mrtk_desc *desc,
                                      ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_MRTK_H */
