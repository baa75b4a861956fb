/* Private declarations shared by the Metroid Prime importers (metroid_cinf.c, metroid_anim.c,
 * metroid_bitstream.c). Not installed. */
#ifndef OSSA_OFFLINE_IMPORT_METROID_PRIVATE_H
#define OSSA_OFFLINE_IMPORT_METROID_PRIVATE_H

#include "../internal.h"
#include "byte_reader.h"
#include "ossa/offline/import_metroid.h"

/* Bone ids index the game's 100-entry segment tables (CSegId). */
#define OSSA__METROID_MAX_BONES 100u
/* Upper bound of keys produced (frames x animated channels), keeps allocations bounded. */
#define OSSA__METROID_MAX_KEYS ((size_t)1 << 21)

/* One CINF bone as stored. */
typedef struct ossa__metroid_bone {
    uint32_t id;
    uint32_t parent_id;
    ossa_float3 origin; /* model space */
    size_t offset;      /* byte of the bone record */
    const char *name;   /* NUL-terminated inside the input; NULL when the file names none */
} ossa__metroid_bone;

typedef struct ossa__metroid_cinf {
    ossa_metroid_game game;
    size_t bone_count;
    ossa__metroid_bone bones[OSSA__METROID_MAX_BONES];
    size_t order_count; /* unique ids of the build-order list */
    uint8_t order[OSSA__METROID_MAX_BONES];
} ossa__metroid_cinf;

/* Parses a CINF (game AUTO tries the detected layout, then the other one). Errors go to
 * diag with `prefix` before the message. */
ossa_result ossa__metroid_cinf_parse(const void *data, size_t size, ossa_metroid_game game, const char *prefix,
                                     ossa__metroid_cinf *cinf, ossa_diag *diag);

/* Builds the depth-first raw skeleton of a parsed CINF into `skeleton` (created with
 * `allocator`) and the bone id of each final joint into bone_ids[joint]. */
ossa_result ossa__metroid_cinf_skeleton(const ossa__metroid_cinf *cinf, const ossa_allocator *allocator,
                                        ossa_raw_skeleton *skeleton, uint32_t *bone_ids, ossa_diag *diag);

/* "a,b,c" of bone ids ("-" for ids >= 100) as metadata `key`. */
ossa_result ossa__metroid_add_bone_ids(ossa_import_output *out, const char *key, const uint32_t *ids, size_t count);

/* One animated bone of a decoded ANIM: per-frame values for the channels it has. */
typedef struct ossa__metroid_channel {
    uint32_t bone_id;
    size_t offset; /* byte of its descriptor or table entry, for messages */
    bool has_rotation;
    bool has_translation;
    bool has_scale;
    ossa_quat *rotations;      /* [frame_count] when has_rotation */
    ossa_float3 *translations; /* [frame_count] when has_translation */
    ossa_float3 *scales;       /* [frame_count] when has_scale */
} ossa__metroid_channel;

/* A decoded ANIM: all channels share the frame times. */
typedef struct ossa__metroid_clip {
    ossa_metroid_game game;
    bool compressed;
    float duration; /* seconds, > 0 */
    float interval; /* seconds per frame, > 0 */
    uint32_t root_bone_id;
    uint32_t looping;          /* compressed only */
    uint32_t rotation_divisor; /* compressed only */
    uint32_t evnt_id;          /* MP1 only */
    size_t frame_count;
    float *times; /* [frame_count], strictly increasing, in [0, duration] */
    size_t channel_count;
    ossa__metroid_channel channels[OSSA__METROID_MAX_BONES];
    ossa_allocator allocator;
} ossa__metroid_clip;

/* Allocates times and the channel arrays for `frame_count` frames (channels' has_* set). */
ossa_result ossa__metroid_clip_alloc(ossa__metroid_clip *clip, size_t frame_count, const ossa__byte_reader *r);

void ossa__metroid_clip_destroy(ossa__metroid_clip *clip);

/* Decodes a version-2 file of layout `game` (MP1 or MP2) into `clip` (allocator set). */
ossa_result ossa__metroid_decode_compressed(ossa__byte_reader *r, ossa_metroid_game game, ossa__metroid_clip *clip);

/* The game's quaternion interpolation (CAnimMathUtils::Slerp): no hemisphere flip,
 * normalised lerp above a 0.95 dot product. */
ossa_quat ossa__metroid_slerp(ossa_quat a, ossa_quat b, float t);

#endif
