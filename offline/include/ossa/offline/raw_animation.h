/* ossa/offline/raw_animation.h: editable keyframed joint animation (times in seconds).
 *
 *   ossa_raw_animation raw = {0};
 *   ossa_raw_animation_create(&raw, skeleton.joint_count, NULL);
 *   raw.duration = 1.f;
 *   ossa_raw_joint_track_resize(&raw, 0, 2, 1, 0);      // 2 translation keys, 1 rotation key
 *   raw.tracks[0].translations[1] = (ossa_raw_float3_key){1.f, {0.f, 1.f, 0.f}};
 *   ossa_diag diag = {0};
 *   if (ossa_raw_animation_validate(&raw, &diag) != OSSA_OK) puts(diag.message);
 *
 * Track i animates joint i of the skeleton it is built for. Between keys, translations and
 * scales are interpolated linearly and rotations by normalised lerp along the shortest arc;
 * before the first key and after the last, the nearest key holds. A channel with no key is
 * the identity (translation 0, rotation identity, scale 1), as in ozz-animation's
 * RawAnimation; importers put the rest pose there when the source has no motion.
 */
#ifndef OSSA_OFFLINE_RAW_ANIMATION_H
#define OSSA_OFFLINE_RAW_ANIMATION_H

#include "ossa/maths.h"
#include "ossa/offline/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_raw_float3_key {
    float time;        /* seconds, in [0, duration] */
    ossa_float3 value; /* source units (translation) or factor (scale) */
} ossa_raw_float3_key;

typedef struct ossa_raw_quat_key {
    float time;      /* seconds, in [0, duration] */
    ossa_quat value; /* non-zero; normalised by the builder */
} ossa_raw_quat_key;

/* One joint's keys, each channel strictly increasing in time. */
typedef struct ossa_raw_joint_track {
    ossa_raw_float3_key *translations;
    size_t translation_count;
    ossa_raw_quat_key *rotations;
    size_t rotation_count;
    ossa_raw_float3_key *scales;
    size_t scale_count;
} ossa_raw_joint_track;

/* The longest clip the validator accepts: one day. A longer duration is a wrong frame time
 * (a BVH "Frame Time: 100000"), and the work of error measurement grows with it. */
#define OSSA_RAW_ANIMATION_MAX_DURATION 86400.f

typedef struct ossa_raw_animation {
    char *name;                   /* owned, never NULL after create */
    float duration;               /* seconds, in (0, OSSA_RAW_ANIMATION_MAX_DURATION] */
    ossa_raw_joint_track *tracks; /* [track_count] */
    size_t track_count;
    ossa_allocator allocator;
} ossa_raw_animation;

/* Allocates `track_count` empty tracks, name "", duration 1 s.
 * Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_animation_create(ossa_raw_animation *animation, size_t track_count,
                                               const ossa_allocator *allocator);

/* Replaces track `track`'s key arrays with zeroed arrays of the given counts (old keys are
 * freed). Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_INVALID_ARGUMENT, OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_joint_track_resize(ossa_raw_animation *animation, size_t track, size_t translation_count,
                                                 size_t rotation_count, size_t scale_count);

/* Replaces the name with a copy of `name`. */
OSSA_API ossa_result ossa_raw_animation_set_name(ossa_raw_animation *animation, const char *name);

/* Releases everything; the animation becomes empty. NULL is ignored. */
OSSA_API void ossa_raw_animation_destroy(ossa_raw_animation *animation);

/* Checks duration (finite, > 0, at most a day), track count, and for every key: finite time in
 * [0, duration], strictly increasing per channel, finite value, non-zero quaternion. The diag
 * message names the channel, track and key ("rotation key 3 of track 7: time 0.5 is not
 * after previous key's 0.5"); `offset` holds the track index. Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_INVALID_ANIMATION, OSSA_ERROR_INVALID_KEY. */
OSSA_API ossa_result ossa_raw_animation_validate(const ossa_raw_animation *animation, ossa_diag *diag);

/* Reference sampler: local transforms of every track at `time` seconds (clamped to
 * [0, duration]) by the interpolation rules above, in full float precision. Rotations are
 * normalised. Shapes: output [output_count >= track_count]. Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_OUTPUT_TOO_SMALL. Assumes a validated animation. */
OSSA_API ossa_result ossa_raw_animation_sample(const ossa_raw_animation *animation, float time, ossa_transform *output,
                                               size_t output_count);

/* Reorders tracks: track i moves to new_index[i] (a permutation of [0, track_count), as from
 * ossa_raw_skeleton_sort_depth_first). Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_INVALID_ARGUMENT (not a permutation), OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_animation_permute_tracks(ossa_raw_animation *animation, const size_t *new_index);

/* Bytes a plain float representation of the keys takes (time + value per key, as ozz's
 * RawAnimation in memory), for compression-ratio reports. */
OSSA_API size_t ossa_raw_animation_size(const ossa_raw_animation *animation);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_RAW_ANIMATION_H */
