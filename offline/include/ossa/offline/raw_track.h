/* ossa/offline/raw_track.h: editable user-channel tracks (float, float2, float3, float4,
 * quaternion) keyed by ratio, and named events.
 *
 *   ossa_raw_track t = {0};
 *   ossa_raw_track_create(&t, OSSA_TRACK_FLOAT, 2, NULL);
 *   ossa_raw_track_set_name(&t, "grasp");
 *   t.keys[0] = (ossa_raw_track_key){0.f, OSSA_INTERP_STEP, {0.f}};
 *   t.keys[1] = (ossa_raw_track_key){.5f, OSSA_INTERP_STEP, {1.f}};
 *
 * A key's interpolation applies to the segment that starts at the key (step holds the key's
 * value until the next key; linear interpolates, and for quaternions uses nlerp along the
 * shortest arc; slerp, quaternions only, interpolates spherically along the shortest arc).
 * Before the first key and after the last the nearest key holds.
 * Source: ozz-animation offline RawTrack (ratio-keyed, per-key interpolation).
 */
#ifndef OSSA_OFFLINE_RAW_TRACK_H
#define OSSA_OFFLINE_RAW_TRACK_H

#include "ossa/maths.h"
#include "ossa/offline/common.h"
#include "ossa/track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ossa_track_type and ossa_interp (OSSA_INTERP_STEP, OSSA_INTERP_LINEAR, OSSA_INTERP_SLERP for
 * quaternions) are shared with the runtime tracks and defined in ossa/track.h. */

typedef struct ossa_raw_track_key {
    float ratio;               /* in [0, 1], strictly increasing */
    ossa_interp interpolation; /* of the segment starting here */
    float value[4];            /* components past the type's width are ignored */
} ossa_raw_track_key;

typedef struct ossa_raw_track {
    char *name; /* owned, never NULL after create */
    ossa_track_type type;
    ossa_raw_track_key *keys; /* [key_count] */
    size_t key_count;
    float duration; /* seconds the ratio spans (informative; 0 if unknown) */
    ossa_allocator allocator;
} ossa_raw_track;

/* A named instant ("marker"), for example a footstep or a recorded marker. */
typedef struct ossa_raw_event {
    float time; /* seconds */
    char *name; /* owned UTF-8 */
} ossa_raw_event;

/* Allocates `key_count` zeroed keys (linear), name "". Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_INVALID_ARGUMENT (type), OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_raw_track_create(ossa_raw_track *track, ossa_track_type type, size_t key_count,
                                           const ossa_allocator *allocator);

OSSA_API ossa_result ossa_raw_track_set_name(ossa_raw_track *track, const char *name);

/* Releases keys and name. NULL is ignored. */
OSSA_API void ossa_raw_track_destroy(ossa_raw_track *track);

/* Checks type, ratios finite in [0, 1] and strictly increasing, values finite, quaternions
 * non-zero, interpolation valid; the diag names the key. Errors: OSSA_ERROR_NULL_ARGUMENT,
 * OSSA_ERROR_INVALID_TRACK, OSSA_ERROR_INVALID_KEY. */
OSSA_API ossa_result ossa_raw_track_validate(const ossa_raw_track *track, ossa_diag *diag);

/* Reference evaluation at `ratio` into value[4] (unused components 0). An empty track gives
 * zeros (identity for quaternions). Assumes a validated track. */
OSSA_API void ossa_raw_track_evaluate(const ossa_raw_track *track, float ratio, float value[4]);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_RAW_TRACK_H */
