/* Shared pieces of the ossa command line (the only code that prints or opens files). */
#ifndef OSSA_TOOLS_TOOLS_H
#define OSSA_TOOLS_TOOLS_H

#include <stdio.h>

#include "ossa/archive.h"
#include "ossa/offline/common.h"
#include "ossa/offline/import.h"

#define OSSA_DEFAULT_INPUT "/usr/share/assimp/models/BVH/01_01.bvh"

/* Whole file into 16-byte aligned memory (free with free()); prints the error and returns
 * NULL when it cannot be read. */
void *tool_read_file(const char *path, size_t *size);

/* True when `path` may be written: it does not exist, or is a regular file other than `input`
 * (same inode; `input` may be NULL). Otherwise prints why and returns false. */
bool tool_check_output(const char *path, const char *input);

/* Writes size bytes to `path` through a temporary file in its folder, renamed when complete.
 * Refuses a `path` that exists and is not a regular file, or is the file `input` (same inode;
 * `input` may be NULL). Prints the error and returns false on failure; `path` is then as before. */
bool tool_write_file(const char *path, const void *data, size_t size, const char *input);

/* ossa_read_file_fn for importers: paths relative to the directory in `user` (a char *). */
ossa_result tool_read_relative(const char *path, void **data, size_t *size, void *user);

/* Records, until tool_side_inputs_end, the full path of every file tool_read_relative reads
 * (a glTF's external buffers): the side inputs a depfile lists besides the input. */
void tool_side_inputs_begin(void);
/* The paths recorded since tool_side_inputs_begin, one a line ("" when none). */
const char *tool_side_inputs(void);
/* Stops recording and frees the record. */
void tool_side_inputs_end(void);

/* The part of `path` after its last '/'. */
const char *tool_base_name(const char *path);

/* The base name of `path` without its last extension ("wave.take2.anim" -> "wave.take2"). */
void tool_stem(const char *path, char *stem, size_t size);

/* Imports `path` with the importer its content/extension selects; prints one error line and
 * returns false on failure. The output is sorted depth-first, every animation is validated
 * (ossa_raw_animation_validate) and named (tool_stem, plus ".N" when there are several, where
 * the format gives no name). The file is read once. */
bool tool_import(const char *path, bool drop_end_sites, ossa_import_output *out);

/* As tool_import, binding the animation to `skeleton_path` where the format's importer binds
 * by itself (a Metroid ANIM to its CINF); otherwise the skeleton is attached afterwards with
 * tool_attach_skeleton. */
bool tool_import_with_skeleton(const char *path, const char *skeleton_path, bool drop_end_sites,
                               ossa_import_output *out);

/* Imports `skeleton_path` and moves its skeleton into `out` when `out` has none (an
 * animation-only file such as an ozz RawAnimation or a Maya .anim). False on error. */
bool tool_attach_skeleton(const char *skeleton_path, ossa_import_output *out);

/* The length unit errors are converted with (to millimetres), and who said so. */
typedef struct tool_unit {
    float scale;        /* metres per source unit, > 0 */
    const char *source; /* "user" (--unit-scale), "file" (the source's metadata), "inferred" (from
                           the rest pose's height) or "default" (1, assumed) */
    float height;       /* "inferred": the rest pose's extent in source units; else 0 */
    float stored;       /* metres per unit of the archive's translations: 1 when the bake
                           converts them to metres (the default), `scale` when it keeps the
                           source's unit (--keep-source-units, and archives baked before the
                           conversion) */
} tool_unit;

/* The rest-pose extent (ossa_raw_skeleton_rest_height) a skeleton without a unit is assumed
 * to have, metres: the joints of a standing 1.7 m human, from the toe joints to the head's end
 * (below the skull's top) or hand end to hand end, span about 1.47 m. Calibrated on the CMU
 * motion-capture skeleton, whose unit is known (1/0.45 inch = 0.05644 m: 26.07 units). */
#define TOOL_HUMAN_JOINT_SPAN 1.47f

/* The import's unit (with `stored` 1: a bake converts to metres): `user_scale` when > 0
 * (--unit-scale); else the importer's unit_scale, unless its source_units is "unknown" (BVH,
 * ozz); else inferred: TOOL_HUMAN_JOINT_SPAN over the rest
 * pose's extent (ossa_raw_skeleton_rest_height), moved to the nearest (by ratio) of the
 * metres-per-unit values the importer lists in "unit_candidates" when it lists any (ozz:
 * "1 0.01 0.001"); else 1, "default". */
tool_unit tool_unit_of_import(const ossa_import_output *imp, float user_scale);

/* The accepted range of --unit-scale, metres per source unit (a micrometre to 10 km). */
#define TOOL_UNIT_SCALE_MIN 1e-6f
#define TOOL_UNIT_SCALE_MAX 1e4f

/* ossa bake says what an animation build will allocate (ossa_animation_build_memory) before
 * starting one that needs at least this many bytes. */
#define TOOL_MEMORY_NOTE_BYTES ((size_t)256 << 20)

/* The most keys the importers that resample or hold every frame in memory may produce (glTF
 * CUBICSPLINE resampling, assimp's BVH frames), for the imports that follow; 0 (the start)
 * keeps each importer's own limit. ossa bake sets it from --max-memory: every imported key
 * costs the build at least TOOL_BYTES_PER_IMPORTED_KEY (the key, its time point's samples and
 * encoder state), so a file refused by it would be refused by the build's estimate, only later. */
void tool_import_set_max_keys(size_t max_keys);
#define TOOL_BYTES_PER_IMPORTED_KEY 48u

/* Parses a finite number in [min, max] (the whole text); false otherwise. */
bool tool_parse_metres(const char *text, float min, float max, float *value);

/* The shortest %g text of `value` that reads back as the same float ("0.05", not
 * "0.0500000007"). */
void tool_format_float(char *buffer, size_t size, float value);

/* A mistake in the arguments of `ossa <command>`: prints "ossa: <command>: <message>" (printf's
 * format) and the hint "(ossa <command> --help lists every option)" to stderr. Returns 2, the
 * exit status of a usage error. Every command prints its whole usage with --help (stdout, 0). */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int tool_usage_error(const char *command, const char *format, ...);

/* Prints "ossa: <what>: <diag>" to stderr. */
void tool_print_diag(const char *what, const ossa_diag *diag);

/* qsort comparison of doubles, ascending (for medians of timings). */
int tool_compare_doubles(const void *pa, const void *pb);

/* Monotonic seconds. */
double tool_now(void);

/* A progress bar on stderr, drawn in place with \r once the work has taken a second: the stage
 * ("import", "build animation" i of n, "write"), the step within it and its share (the
 * builder's progress report), the share done and the seconds elapsed. */
typedef struct tool_progress tool_progress;
/* Starts the clock (and a redraw thread where POSIX threads are available); NULL when
 * `enabled` is false (stderr is not a terminal, -q). Every function accepts NULL. */
tool_progress *tool_progress_start(bool enabled);
/* Enters `stage` (static text; index/count 1-based, count 0 when it has none). */
void tool_progress_stage(tool_progress *p, const char *stage, size_t index, size_t count);
/* The share of the current stage done, in [0, 1], and the step within it (static text or
 * NULL), as an ossa_build_progress_fn reports them; reset by tool_progress_stage. Safe to call
 * from the thread running the stage. */
void tool_progress_fraction(tool_progress *p, float fraction, const char *detail);
/* Erases the bar before something else is printed (it is redrawn at the next tick). */
void tool_progress_clear(tool_progress *p);
/* Erases the bar and releases it. */
void tool_progress_stop(tool_progress *p);

int tool_bake(int argc, char **argv);
/* `ossa plot IN.ossa --against SOURCE -o OUT.svg`: curves and errors through gnuplot (tools/plot.c). */
int tool_plot(int argc, char **argv);

/* `ossa export IN.ossa -o OUT.glb`: the skeleton and clips as glTF 2.0 (tools/export.c). */
int tool_export(int argc, char **argv);

/* `ossa batch`: bakes every importable file under a folder through ninja; argc/argv after the
 * command. */
int tool_batch(int argc, char **argv);
/* `ossa formats`: prints the import format registry; argc/argv after the command. */
int tool_formats(int argc, char **argv);
int tool_info(int argc, char **argv);
/* `ossa bench FILE.ossa`: sampling, local-to-model and blending throughput of an archive's
 * clips (tools/bench.c). */
int tool_bench(int argc, char **argv);

/* `ossa view FILE.ossa...`: serves the browser viewer and the archives on 127.0.0.1
 * (tools/view.c, the viewer in tools/viewer/). */
int tool_view(int argc, char **argv);

/* Prints the inspection table of an archive in memory; against may be NULL. Errors against
 * the source are printed in millimetres, converted from source units with `unit`. */
int tool_report(const char *archive_path, const void *archive, size_t size, const ossa_import_output *against,
                const char *against_path, tool_unit unit);

/* Writes `text` to `f` as a JSON string: quoted, with the quote, the backslash and U+0000..001F
 * escaped and each ill-formed UTF-8 sequence as U+FFFD (tools/json.c). NULL is "". */
void tool_json_write_string(FILE *f, const char *text);

/* A cJSON string of `text` made valid UTF-8 as tool_json_write_string does (cJSON itself
 * escapes, but copies any other byte); NULL when out of memory. tool_json_add_string adds it to
 * `object` under `name` (a name the caller knows is UTF-8) and returns it. Only with cJSON. */
struct cJSON;
struct cJSON *tool_json_string(const char *text);
struct cJSON *tool_json_add_string(struct cJSON *object, const char *name, const char *text);

/* The chunks of `archive` with `tag` in archive order, found in one pass over the chunk table
 * (ossa_archive_find walks it from the start for each index: quadratic over an archive's
 * clips). Returns the count, with the array in *chunks (free with free(); NULL when none), or
 * SIZE_MAX when out of memory. */
size_t tool_archive_chunks(const ossa_archive *archive, uint32_t tag, ossa_archive_chunk **chunks);

/* The animation view of an ANIM chunk, as ossa_archive_animation gives it (the same errors,
 * OSSA_ERROR_UNSUPPORTED_VERSION for another blob version). */
ossa_result tool_chunk_animation(const ossa_archive_chunk *chunk, ossa_animation *animation);

/* Online CPUs (at least 1). */
unsigned tool_cpu_count(void);

#endif
