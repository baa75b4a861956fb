/* What `ossa info` (and `ossa bake`'s report) measures of an archive: one pass that both the
 * text report (info.c) and the JSON document (info_json.c) print. */
#ifndef OSSA_TOOLS_INFO_H
#define OSSA_TOOLS_INFO_H

#include "ossa/animation.h"
#include "ossa/archive.h"
#include "ossa/skeleton.h"
#include "tools.h"

/* The virtual vertices' distance from their joint, metres (ACL's). */
#define INFO_SHELL_METRES 0.03f

/* The two error measures against the source: joint positions, then virtual vertices. */
enum { INFO_ERROR_JOINTS, INFO_ERROR_VERTICES, INFO_ERROR_COUNT };

/* One error measure (ossa_measure_error and ossa_measure_joint_errors at 60 Hz and every
 * source key time), converted to millimetres with the report's unit (unit.stored). */
typedef struct info_error {
    double max_mm, p99_mm, mean_mm;
    size_t worst_joint;
    double worst_time;    /* seconds */
    double *joint_max_mm; /* [skeleton joint_count] the largest error of each joint's points; NULL
                             unless info_measure was asked for it */
} info_error;

typedef struct info_animation {
    ossa_animation anim;
    size_t baked_bytes; /* its archive chunk */
    size_t kinds[3][4]; /* sub-tracks by [channel][ossa_animation_channel_kind] */
    ossa_animation_size_breakdown sizes;
    bool has_source;  /* --against gave an animation at this index */
    size_t raw_bytes; /* the source's ossa_raw_animation_size (has_source) */
    bool measured;    /* errors[] hold values */
    info_error errors[INFO_ERROR_COUNT];
    bool timed;         /* ns_per_call holds a value */
    double ns_per_call; /* forward playback at 60 Hz, median of 7 */
} info_animation;

typedef struct info_track {
    const char *name;
    const char *type; /* "float" .. "quaternion" */
    size_t keys;
    float min, max; /* over every component of every key */
} info_track;

typedef struct info_report {
    const char *path; /* the archive's */
    size_t size;      /* bytes */
    bool loaded;      /* archive and skeleton read: the rest below is valid */
    ossa_archive archive;
    ossa_skeleton skeleton;
    tool_unit unit;
    const char *against_path;   /* NULL without --against */
    info_animation *animations; /* [animation_count] those read before any error */
    size_t animation_count;
    info_track *tracks; /* [track_count]; read only when the animations were */
    size_t track_count;
} info_report;

/* The units of `ossa info` (and `ossa view`, `ossa plot`): `stored`, the metres per unit of
 * the archive's translations (ossa_archive_unit_scale), and `scale`, the metres per unit of
 * the source as imported (META's import_unit_scale). `user_scale` when > 0 (--unit-scale)
 * replaces `scale` (and `stored` too when the archive keeps the source's unit). Archives
 * without import_unit_scale (baked before the conversion to metres) kept the source's unit:
 * both are `user_scale`, else their unit_scale (unless that was a default), else the
 * source's metadata (`against` may be NULL), else 1. */
tool_unit info_unit(const void *data, size_t size, const ossa_import_output *against, float user_scale);

/* Converts `against` (the source, imported in its own unit) to the archive's stored unit,
 * as the bake converted it: its lengths times unit.scale / unit.stored
 * (ossa_import_output_scale_lengths). False after printing the error. */
bool info_against_in_stored_units(ossa_import_output *against, const char *against_path, tool_unit unit);

/* Reads and measures everything (each joint's largest error too when `joint_errors`: that
 * doubles the time the errors take); `against` (may be NULL) must be in the archive's stored
 * unit (info_against_in_stored_units). Prints errors to stderr. Returns 0, or 1 after an error,
 * with what was measured before it in `report` (free with info_report_free either way). */
int info_measure(info_report *report, const char *archive_path, const void *archive, size_t size,
                 const ossa_import_output *against, const char *against_path, tool_unit unit, bool joint_errors);
void info_report_free(info_report *report);

/* Whether `source` (imported from source_path) is what the archive was baked from, as far as
 * `ossa info --against` needs: the same joints (count, names, parents, in order; a source
 * without a skeleton takes the archive's) and, for every clip of the archive, a clip at the same
 * index with as many tracks. Returns 0, or 1 after printing one line that names the first
 * difference. An archive that cannot be read passes (info_measure reports it). */
int info_check_against(const char *archive_path, const void *archive, size_t size, const ossa_import_output *source,
                       const char *source_path);

/* The archive's META chunk, or a chunk with no data when it has none. */
ossa_archive_chunk info_meta_chunk(const ossa_archive *archive);

/* The lines of `meta` (info_meta_chunk), one per call from *at = 0 (without the '\n'); false
 * after the last. */
bool info_meta_line(const ossa_archive_chunk *meta, size_t *at, const char **line, size_t *length);

/* True when this build writes JSON (it was built with cJSON). */
bool info_json_available(void);

/* Writes `report` to stdout as one JSON document (docs/info-json.md). Returns 0, 1 when out
 * of memory, 2 when this build has no cJSON. */
int info_print_json(const info_report *report);

#endif
