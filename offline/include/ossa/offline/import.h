/* ossa/offline/import.h: what every importer produces, and format detection.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   if (ossa_import_assimp(bytes, size, &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag))
 *       fprintf(stderr, "%s\n", diag.message);
 *   ... out.skeleton, out.animations[i], out.tracks[i], out.events[i], out.metadata ...
 *   ossa_import_output_destroy(&out);
 *
 * Importers take `(data, size)` in memory and never touch files by name. The contract of
 * every importer: `out` must be zero-initialised or destroyed; the importer empties it, then
 * returns OSSA_OK with animations and tracks that pass ossa_raw_animation_validate and
 * ossa_raw_track_validate, or an error with `out` empty (its allocator kept) and the first
 * error in `diag`. Every name (joint, clip, track, event) and the metadata are UTF-8: an
 * ill-formed byte sequence in the file (a Latin-1 BVH) becomes U+FFFD (ossa_utf8_sanitize) and
 * a "warning=" metadata line says which names were repaired.
 * `metadata` is UTF-8 "key=value\n" lines; every importer records at least
 * "format=<name>" and, when it knows them, "source_units=<linear unit>" and
 * "unit_scale=<metres per source unit>".
 */
#ifndef OSSA_OFFLINE_IMPORT_H
#define OSSA_OFFLINE_IMPORT_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"
#include "ossa/offline/raw_track.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_import_output {
    ossa_raw_skeleton skeleton;     /* may have 0 joints when the format has none */
    ossa_raw_animation *animations; /* [animation_count], tracks match skeleton joints */
    size_t animation_count;
    ossa_raw_track *tracks; /* [track_count] user channels */
    size_t track_count;
    ossa_raw_event *events; /* [event_count] */
    size_t event_count;
    char *metadata; /* "key=value\n" lines, NUL-terminated, may be NULL */
    ossa_allocator allocator;
} ossa_import_output;

/* Appends an empty raw animation with `track_count` tracks and returns it through `*added`
 * (valid until the next append). Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_OUT_OF_MEMORY,
 * OSSA_ERROR_TOO_MANY_JOINTS. */
OSSA_API ossa_result ossa_import_output_add_animation(ossa_import_output *out, size_t track_count,
                                                      ossa_raw_animation **added);

/* Appends an empty raw track of `type` with `key_count` keys; see add_animation. */
OSSA_API ossa_result ossa_import_output_add_track(ossa_import_output *out, ossa_track_type type, size_t key_count,
                                                  ossa_raw_track **added);

/* Appends an event (the name is copied). */
OSSA_API ossa_result ossa_import_output_add_event(ossa_import_output *out, float time, const char *name);

/* Appends "key=value\n" to metadata (both copied; newlines in value become spaces). */
OSSA_API ossa_result ossa_import_output_add_metadata(ossa_import_output *out, const char *key, const char *value);

/* The value of the first metadata line with `key`, copied into `buffer` (`size` bytes);
 * returns false when absent. */
OSSA_API bool ossa_import_output_metadata(const ossa_import_output *out, const char *key, char *buffer, size_t size);

/* Puts the skeleton in depth-first order and reorders every animation's tracks the same way.
 * Errors: those of ossa_raw_skeleton_sort_depth_first; OSSA_ERROR_JOINT_MISMATCH when an
 * animation's track count differs from the joint count. */
OSSA_API ossa_result ossa_import_output_sort_depth_first(ossa_import_output *out, ossa_diag *diag);

/* Releases everything and zeroes `out`. NULL is ignored. */
OSSA_API void ossa_import_output_destroy(ossa_import_output *out);

/* Converts every length of an import to another unit by multiplying it by `factor`: the
 * skeleton's rest translations, every animation's translation keys and the keys of position
 * tracks (float3 tracks whose name ends in "position" or "origin" after a '/' or '.', any
 * case: a root motion's "root_motion.position", MRTK's "eye_gaze/origin"). With `factor` the
 * metres per source unit, the import is then in metres (what `ossa bake` stores). Rotations,
 * scales, times, other tracks, events and the metadata are left as they are; factor 1 changes
 * nothing. Units: factor is output units per input unit (dimensionless), > 0.
 * Errors (`out` unchanged): OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT when
 * `factor` is not a finite number > 0, or a product is not a finite float (the diag names the
 * joint or key). Aliasing: in place. A change of unit scales lengths only: a rotation and a
 * scale factor have no unit. */
OSSA_API ossa_result ossa_import_output_scale_lengths(ossa_import_output *out, float factor, ossa_diag *diag);

/* Reads a file a scene refers to (a glTF .bin buffer, a texture); returns OSSA_OK and sets
 * *data / *size to bytes allocated with malloc (released by ossa with free), or an error.
 * `path` is the reference as the file spells it, relative to the main file's directory (a glTF
 * buffer uri "walk.bin" arrives as "walk.bin"). It is called at most once per distinct path
 * during one import, from the calling thread. Used by ossa_import_assimp and ossa_import_gltf. */
typedef ossa_result (*ossa_read_file_fn)(const char *path, void **data, size_t *size, void *user);

/* Formats ossa can import. */
typedef enum ossa_import_format {
    OSSA_FORMAT_UNKNOWN = 0,
    OSSA_FORMAT_ASSIMP,       /* anything assimp reads: BVH, FBX, Collada, ... (not glTF 2.0) */
    OSSA_FORMAT_OSSA,         /* a .ossa archive */
    OSSA_FORMAT_OZZ,          /* ozz-animation archive */
    OSSA_FORMAT_MAYA_ANIM,    /* Maya ASCII .anim */
    OSSA_FORMAT_MRTK,         /* MRTK input animation */
    OSSA_FORMAT_ANIMJ,        /* Resonite AnimJ */
    OSSA_FORMAT_ANIMX,        /* Resonite AnimX */
    OSSA_FORMAT_METROID_ANIM, /* Metroid Prime ANIM */
    OSSA_FORMAT_METROID_CINF, /* Metroid Prime CINF skeleton */
    OSSA_FORMAT_GLTF          /* glTF 2.0, .gltf (JSON) or .glb (binary) */
} ossa_import_format;

/* One row of the format registry (what `ossa formats` lists). */
typedef struct ossa_import_format_info {
    ossa_import_format format;
    const char *name;       /* short lower-case name: "maya-anim", "assimp", ... */
    const char *title;      /* what the format is, for people */
    const char *extensions; /* space-separated, without dots; "" for content-only detection; "*"
                               for every extension the linked assimp reads */
    const char *unit;       /* where the linear unit of an import comes from */
    const char *importer;   /* the import function's name; NULL when not imported */
    bool needs_skeleton;    /* its animations bake only with a skeleton from another file */
    bool available;         /* built in (its optional library was found at build time) */
} ossa_import_format_info;

/* Rows of the registry, in detection order: ossa_import_format_at(i) for i below
 * ossa_import_format_count() (NULL beyond). Static data, valid for the program's life. */
OSSA_API size_t ossa_import_format_count(void);
OSSA_API const ossa_import_format_info *ossa_import_format_at(size_t index);

/* Guesses the format from the registry, in its order: first the content that cannot be
 * mistaken (magic numbers, Maya's "animVersion", BVH's "HIERARCHY"), then the file name's
 * extension (`name` may be NULL). Never reads past `size`. */
OSSA_API ossa_import_format ossa_import_detect(const void *data, size_t size, const char *name);

/* A short lower-case name of `format` ("assimp", "maya-anim", ...). */
OSSA_API const char *ossa_import_format_name(ossa_import_format format);

/* Imports `data` with the importer `ossa_import_detect` picks (each with its default
 * options; `name` is the file name, used for detection and as the format hint).
 * Errors: OSSA_ERROR_UNSUPPORTED_FORMAT when no importer recognises the data, else the
 * importer's own. */
OSSA_API ossa_result ossa_import_any(const void *data, size_t size, const char *name, ossa_import_output *out,
                                     ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_H */
