/* ossa/track.h: runtime user-channel tracks (float, float2, float3, float4, quaternion), a
 * validated zero-copy view over a blob.
 *
 *   ossa_track grasp;
 *   if (ossa_track_init(&grasp, blob, blob_size) != OSSA_OK) { ... }
 *   float value[4];
 *   ossa_track_sampling_job job = {.track = &grasp, .ratio = t / duration,
 *                                  .output = value, .output_count = 4};
 *   ossa_track_sampling_job_run(&job);                  // see ossa/track_jobs.h
 *
 * Ownership: the caller owns the blob (from the offline track builder or a .ossa archive)
 * and keeps it alive and unchanged while the view is used. Nothing is allocated.
 *
 * A track is a curve over ratio [0, 1]: keyframes with strictly increasing ratios, the first
 * at 0 and the last at 1 (the builder adds them), each with a value and the interpolation of
 * the segment that starts at it (OSSA_INTERP_STEP holds the key's value until the next key;
 * OSSA_INTERP_LINEAR interpolates, normalised lerp along the shortest arc for quaternions;
 * OSSA_INTERP_SLERP, quaternions only, spherical interpolation along the shortest arc).
 * Ratios, values and interpolations are separate arrays, as ozz-animation stores them, so
 * the key search reads ratios alone.
 *
 * Blob layout (little-endian, 16-byte aligned start), version OSSA_TRACK_BLOB_VERSION:
 *   header (16 bytes): u32 type (ossa_track_type), u32 key_count, u32 name_size, u32 reserved (0)
 *   f32 ratios[key_count]                          (at offset 16)
 *   f32 values[key_count * width]                  (16-byte aligned; width = 1..4)
 *   u8 interpolations[key_count]                   (16-byte aligned; ossa_interp values)
 *   char name[name_size]                           (16-byte aligned; NUL-terminated UTF-8)
 *   zero padding to a multiple of 16 bytes
 * Source: ozz-animation runtime Track (separate ratio / value / step buffers) and
 * TrackBuilder (keys patched at ratios 0 and 1).
 */
#ifndef OSSA_TRACK_H
#define OSSA_TRACK_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_TRACK_BLOB_VERSION 1u
#define OSSA_TRACK_HEADER_SIZE  16u
/* Largest key count a track blob may declare. */
#define OSSA_TRACK_MAX_KEYS (1u << 24)
/* Largest magnitude of a track value (2^127): differences of values then stay finite. */
#define OSSA_TRACK_MAX_VALUE 1.70141183e38f

/* Value type of a track. */
typedef enum ossa_track_type {
    OSSA_TRACK_FLOAT = 1,  /* value[0] */
    OSSA_TRACK_FLOAT2 = 2, /* value[0..1] */
    OSSA_TRACK_FLOAT3 = 3, /* value[0..2] */
    OSSA_TRACK_FLOAT4 = 4, /* value[0..3] */
    OSSA_TRACK_QUAT = 5    /* value = x, y, z, w */
} ossa_track_type;

/* Interpolation of the segment that starts at a key. */
typedef enum ossa_interp {
    OSSA_INTERP_STEP = 0,   /* hold the key's value until the next key */
    OSSA_INTERP_LINEAR = 1, /* lerp; quaternions: normalised lerp along the shortest arc */
    OSSA_INTERP_SLERP = 2   /* quaternions only: spherical lerp along the shortest arc */
} ossa_interp;

/* Number of floats a value of `type` uses (1..4; 4 for quaternions; 0 if invalid). */
OSSA_API size_t ossa_track_type_width(ossa_track_type type);

/* Runtime track: a view over a validated blob. */
typedef struct ossa_track {
    ossa_track_type type;
    size_t width;                  /* floats per value: 1..4 (4 for quaternions) */
    size_t key_count;              /* >= 2 */
    const float *ratios;           /* [key_count] strictly increasing, ratios[0] = 0, last = 1 */
    const float *values;           /* [key_count * width] |v| <= OSSA_TRACK_MAX_VALUE; quaternions unit */
    const uint8_t *interpolations; /* [key_count] ossa_interp of the segment starting at each key */
    const char *name;              /* NUL-terminated, may be "" */
} ossa_track;

/* Validates `blob` and points `track` into it. Validation checks every size against `size`,
 * the type, ratios (finite, strictly increasing, first 0, last 1), values (magnitude at most
 * OSSA_TRACK_MAX_VALUE; quaternions of length 1 within 1e-3), interpolations (slerp only on quaternion tracks), the
 * name's terminator and that no bytes follow the padded end, so the track jobs cannot read
 * out of bounds or produce NaN on any blob that passes.
 * Shapes: `blob` is `size` bytes, 16-byte aligned. Cost: O(keys).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_MISALIGNED; OSSA_ERROR_TRUNCATED (an array
 * passes `size`); OSSA_ERROR_INVALID_TRACK (type, key count, reserved field, name, trailing
 * bytes); OSSA_ERROR_INVALID_KEY (a ratio, value or interpolation); OSSA_ERROR_UNSUPPORTED_HOST
 * on big-endian hosts. `*track` is zeroed on error.
 * Source: ozz-animation runtime Track. */
OSSA_API ossa_result ossa_track_init(ossa_track *track, const void *blob, size_t size);

/* Bytes of key data (ratios, values, interpolations) and name the view covers. */
OSSA_API size_t ossa_track_data_size(const ossa_track *track);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_TRACK_H */
