/* Private to the MRTK importer: the parsed recording shared by the reader (mrtk.c) and the
 * resampler that builds the import output (mrtk_build.c). */
#ifndef OSSA_OFFLINE_IMPORT_MRTK_INTERNAL_H
#define OSSA_OFFLINE_IMPORT_MRTK_INTERNAL_H

#include "import/unity_curve.h"
#include "ossa/offline/import_mrtk.h"

/* Curve slots in file order: camera pose, 4 hand states, 2 x 27 joint poses, eye gaze. */
#define OSSA__MRTK_POSE_CURVES  7
#define OSSA__MRTK_HAND_CURVES  (OSSA_MRTK_HAND_JOINT_COUNT * OSSA__MRTK_POSE_CURVES)
#define OSSA__MRTK_CURVE_CAMERA 0
#define OSSA__MRTK_CURVE_STATE  7
#define OSSA__MRTK_CURVE_HANDS  11
#define OSSA__MRTK_CURVE_GAZE   (OSSA__MRTK_CURVE_HANDS + 2 * OSSA__MRTK_HAND_CURVES)
#define OSSA__MRTK_CURVE_COUNT  (OSSA__MRTK_CURVE_GAZE + 6)

typedef struct ossa__mrtk_curve {
    ossa__unity_curve c;
    ossa__unity_key *keys; /* owned; c.keys points here */
    size_t offset;         /* byte offset of the record */
} ossa__mrtk_curve;

typedef struct ossa__mrtk_marker {
    float time;
    size_t name_offset, name_size; /* validated UTF-8 in the input */
} ossa__mrtk_marker;

typedef struct ossa__mrtk_recording {
    int32_t major, minor;
    bool has_camera, has_hands, has_gaze;
    size_t trailing; /* bytes after the marker list, which the declared counts do not cover */
    ossa__mrtk_curve curves[OSSA__MRTK_CURVE_COUNT]; /* absent sections have no key */
    ossa__mrtk_marker *markers;
    size_t marker_count;
    float duration;         /* largest last-key time, >= 0 */
    size_t duration_offset; /* where that time is stored */
} ossa__mrtk_recording;

/* Resolved desc values (defaults applied, validated). */
typedef struct ossa__mrtk_settings {
    float rate, max_duration;
} ossa__mrtk_settings;

/* A readable name of curve slot `index` ("hand_left/Wrist rotation.w") into buffer. */
void ossa__mrtk_curve_name(size_t index, char *buffer, size_t size);

/* Resamples `rec` into `out` (skeleton, animation, tracks, events, metadata); `data` is the
 * input the marker names point into. On error the diag is set and `out` may be partial
 * (the caller destroys it). */
ossa_result ossa__mrtk_build(const ossa__mrtk_recording *rec, const ossa__mrtk_settings *set, const uint8_t *data,
                             ossa_import_output *out, ossa_diag *diag);

#endif
