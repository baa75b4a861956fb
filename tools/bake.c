#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ossa/offline/archive_writer.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/motion_extractor.h"
#include "ossa/offline/retarget.h"
#include "ossa/offline/track_builder.h"
#include "tools.h"

/* --max-seconds' default: ten minutes. The longest real clips we bake (hours of motion
 * capture at 120 Hz) are estimated at a few minutes on one core; a build estimated beyond ten
 * is a mistake in the input far more often than a clip (a BVH Frame Time in milliseconds, a
 * day-long glTF sampler), and one who means it raises or removes the limit. */
#define BAKE_DEFAULT_MAX_SECONDS 600.0

/* --max-memory's default: half the physical memory (the rest for the importer's output, the
 * system and whatever else runs), or no limit when the system does not say. */
static size_t default_max_memory(void)
{
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (unsigned long)pages <= SIZE_MAX / (unsigned long)page)
        return (size_t)pages * (size_t)page / 2;
#endif
    return 0;
}

static void usage_bake(FILE *f)
{
    fprintf(f,
            "usage: ossa bake [INPUT] [-o OUT.ossa] [--skeleton FILE] [--drop-end-sites] [--root-motion]\n"
            "                 [--retarget FILE [--joint-map MAP]]\n"
            "                 [--tolerance METRES [--allow-over-tolerance] | --no-optimize] [--unit-scale METRES]\n"
            "                 [--keep-source-units]\n"
            "                 [--layout packed|sorted] [--threads N] [-q]\n"
            "                 [--max-memory MB] [--max-seconds S] [--depfile FILE] [-v]\n"
            "  INPUT defaults to %s\n"
            "  -o OUT.ossa         the archive to write (default: INPUT's name without its extension, plus\n"
            "                      .ossa, in the current folder)\n"
            "  --skeleton FILE     take the skeleton from FILE when INPUT has none (ozz raw animation),\n"
            "                      bind to it by joint name (Maya .anim) or with its CINF (Metroid ANIM)\n"
            "  --drop-end-sites    leave out the joints that only mark where a bone ends (BVH End Site)\n"
            "  --retarget FILE     bake every clip onto FILE's skeleton: joints bound by name (or by\n"
            "                      --joint-map MAP, lines \"TARGET_JOINT SOURCE_JOINT\"), rotations\n"
            "                      aligned from rest pose to rest pose in model space, the root's travel\n"
            "                      scaled by the ratio of hip heights\n"
            "  --root-motion       move the root joint's ground motion (x, z and yaw) of every clip into\n"
            "                      two tracks CLIP/root_motion.position and .rotation; the clip plays\n"
            "                      in place (ossa/motion.h accumulates them at run time)\n"
            "  --tolerance M       largest model-space error at 3 cm virtual vertices, metres, measured\n"
            "                      at every source sample (default 0.0001, ACL's default precision)\n"
            "  --allow-over-tolerance  when no encoding reaches the tolerance, write the closest one with a\n"
            "                      warning (its measured error in mm); without it the bake fails and\n"
            "                      writes nothing\n"
            "  --no-optimize       lossless: keep every source sample at 24 bits per component\n"
            "  --unit-scale M      metres per source unit (replaces the input's, or the one inferred\n"
            "                      from the rest pose when it states none, as BVH); translations are\n"
            "                      stored in metres, converted with it (META: unit_scale=1 and\n"
            "                      import_unit_scale=M)\n"
            "  --keep-source-units store translations in the source's unit, not metres (META:\n"
            "                      unit_scale=M, the metres per stored unit)\n"
            "  --layout L          key layout: packed (default; bit-packed segments) or sorted (keys in the\n"
            "                      order playback reads them, 16-bit values; needs a tolerance)\n"
            "  --threads N         encoding threads (default: the online CPUs); the result is the same\n"
            "  --max-memory MB     refuse a clip whose build is estimated to need more memory (default: half\n"
            "                      the physical memory, %.0f MB here; 0: no limit); the importers' keys\n"
            "                      are held to it too\n"
            "  --max-seconds S     refuse a clip whose build is estimated to take more than S seconds\n"
            "                      (default %.0f; 0: no limit); estimates are approximate (docs/error-metric.md)\n"
            "  -q, --quiet         print only the one-line summary, not the report (and no progress bar)\n"
            "  -v, --verbose       also print where the time and memory went: one line per stage (import,\n"
            "                      prepare, search, verify, write, report) and the total\n"
            "  --depfile FILE      also write a Makefile depfile \"OUT: INPUT SKELETON BUFFERS...\" (for ninja)\n",
            OSSA_DEFAULT_INPUT, (double)default_max_memory() / 1e6, BAKE_DEFAULT_MAX_SECONDS);
}

/* -v: the bytes the animation builds hold at once, counted by an allocator that keeps each
 * block's size in a 16-byte header (the alignment ossa_alloc gives). */
static atomic_size_t counted_now, counted_peak;

static void *counting_alloc(size_t size, void *user)
{
    (void)user;
    if (size > SIZE_MAX - 16) return NULL;
    unsigned char *p = malloc(size + 16);
    if (!p) return NULL;
    memcpy(p, &size, sizeof size);
    const size_t now = atomic_fetch_add(&counted_now, size) + size;
    for (size_t peak = atomic_load(&counted_peak); now > peak;)
        if (atomic_compare_exchange_weak(&counted_peak, &peak, now)) break;
    return p + 16;
}

static void counting_free(void *ptr, void *user)
{
    (void)user;
    unsigned char *p = (unsigned char *)ptr - 16;
    size_t size;
    memcpy(&size, p, sizeof size);
    atomic_fetch_sub(&counted_now, size);
    free(p);
}

static const ossa_allocator counting_allocator = {counting_alloc, counting_free, NULL};

/* This process's peak resident set so far, bytes (0 where the system does not say). */
static double peak_rss_bytes(void)
{
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) != 0) return 0.0;
    return (double)usage.ru_maxrss * 1024.0; /* kilobytes on Linux */
}

/* This process's CPU time so far, every thread's, seconds. */
static double cpu_now(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* -v: seconds per stage, summed over the clips. */
enum { STAGE_IMPORT, STAGE_PREPARE, STAGE_SEARCH, STAGE_VERIFY, STAGE_WRITE, STAGE_REPORT, STAGE_COUNT };
static const char *const stage_names[STAGE_COUNT] = {"import", "prepare", "search", "verify", "write", "report"};

/* The breakdown -v prints: a line per stage, then the total (from the start of the import to
 * the end of the report). Stages are disjoint stretches of that time; what is in none of them
 * (budgets, the skeleton, user tracks, the archive's chunk table) is the total's rest. */
static void print_stages(const double *seconds, const double *cpu, double total, double total_cpu, double import_rss,
                         size_t build_peak)
{
    static const char *const what[STAGE_COUNT] = {"reading and converting the input",
                                                  "sampling the source at its time points",
                                                  "encoding and screening candidates, reference points, loosening",
                                                  "exact measurement of candidates",
                                                  "animation blobs, archive and file",
                                                  "the report below the summary"};
    for (int i = 0; i < STAGE_COUNT; ++i) {
        printf("stage %-8s %9.3f s  CPU %8.3f s", stage_names[i], seconds[i], cpu[i]);
        if (i == STAGE_IMPORT) printf("  peak RSS %.1f MB", import_rss / 1e6);
        if (i == STAGE_SEARCH) printf("  build peak %.1f MB allocated", (double)build_peak / 1e6);
        printf("  (%s)\n", what[i]);
    }
    printf("stage total    %9.3f s  CPU %8.3f s  peak RSS %.1f MB\n", total, total_cpu, peak_rss_bytes() / 1e6);
}

/* One line for the error and the hint to --help; exit status 2. */
static int bake_usage_error(const char *what, const char *argument)
{
    return tool_usage_error("bake", "%s (found \"%s\")", what, argument);
}

/* ossa_build_progress_fn: the builder's report moves the bar within its stage. */
static void build_progress(float fraction, const char *stage, void *user)
{
    tool_progress_fraction(user, fraction, stage);
}

/* OUT defaults to the input's stem with .ossa, in the current directory. */
static void default_output(const char *input, char *out, size_t size)
{
    tool_stem(input, out, size);
    strncat(out, ".ossa", size - strlen(out) - 1);
}

/* META chunk text: the input's file name (not the path typed, so that the same file baked
 * from any folder gives the same bytes), the importer's metadata, the units (unit_scale: metres
 * per stored unit, replacing the importer's; unit_source; import_unit_scale: metres per unit
 * of the import, which the translations were converted from) and the events. */
static char *meta_text(const ossa_import_output *imp, const char *input, tool_unit unit)
{
    input = tool_base_name(input);
    size_t size = 160 + strlen(input) + (imp->metadata ? strlen(imp->metadata) : 0);
    for (size_t i = 0; i < imp->event_count; ++i) size += strlen(imp->events[i].name) + 48;
    char *text = malloc(size);
    if (!text) return NULL;
    int n = snprintf(text, size, "input=%s\n", input);
    for (const char *line = imp->metadata; line && *line && n >= 0 && (size_t)n < size;) {
        const char *end = strchr(line, '\n');
        const int len = (int)(end ? (size_t)(end - line) : strlen(line));
        if (strncmp(line, "unit_scale=", 11) && strncmp(line, "unit_source=", 12) &&
            strncmp(line, "import_unit_scale=", 18))
            n += snprintf(text + n, size - (size_t)n, "%.*s\n", len, line);
        line += len + (end != NULL);
    }
    char scale[32], stored[32];
    tool_format_float(scale, sizeof scale, unit.scale);
    tool_format_float(stored, sizeof stored, unit.stored);
    if (n >= 0 && (size_t)n < size)
        n += snprintf(text + n, size - (size_t)n, "unit_scale=%s\nunit_source=%s\nimport_unit_scale=%s\n", stored,
                      unit.source, scale);
    for (size_t i = 0; i < imp->event_count && n >= 0 && (size_t)n < size; ++i)
        n += snprintf(text + n, size - (size_t)n, "event=%.9g %s\n", (double)imp->events[i].time, imp->events[i].name);
    return text;
}

/* A --joint-map file: one "TARGET_JOINT SOURCE_JOINT" pair per line (names without spaces),
 * blank lines and lines starting with '#' ignored. Returns the pairs (pointing into *text,
 * which the caller frees) or NULL after printing the line that is wrong. */
static ossa_retarget_pair *read_joint_map(const char *path, char **text, size_t *count)
{
    size_t size = 0;
    *count = 0;
    *text = tool_read_file(path, &size);
    if (!*text) return NULL;
    ossa_retarget_pair *pairs = calloc(size / 2 + 1, sizeof *pairs);
    if (!pairs) return NULL;
    char *p = *text;
    for (size_t line = 1; p && *p; ++line) {
        char *end = strchr(p, '\n');
        if (end) *end = 0;
        char *words[3] = {NULL, NULL, NULL};
        int n = 0;
        for (char *w = strtok(p, " \t\r"); w && n < 3; w = strtok(NULL, " \t\r")) words[n++] = w;
        if (n && words[0][0] != '#') {
            if (n != 2) {
                fprintf(stderr, "ossa: %s:%zu: expected \"TARGET_JOINT SOURCE_JOINT\", found %d word%s\n", path, line,
                        n, n == 1 ? "" : "s");
                free(pairs);
                return NULL;
            }
            pairs[(*count)++] = (ossa_retarget_pair){words[0], words[1]};
        }
        p = end ? end + 1 : NULL;
    }
    return pairs;
}

/* --retarget: every clip moves onto the skeleton of TARGET (any importable file). */
static bool retarget(const char *input, const char *target_path, const char *map_path, ossa_import_output *imp)
{
    if (imp->skeleton.joint_count == 0 || imp->animation_count == 0) {
        fprintf(stderr, "ossa: %s: nothing to retarget (it needs a skeleton and a clip)\n", input);
        return false;
    }
    ossa_import_output target = {0};
    if (!tool_import(target_path, false, &target)) return false;
    bool ok = target.skeleton.joint_count > 0;
    if (!ok) fprintf(stderr, "ossa: %s: no skeleton in this file\n", target_path);
    char *map_text = NULL;
    size_t map_count = 0;
    ossa_retarget_pair *map = ok && map_path ? read_joint_map(map_path, &map_text, &map_count) : NULL;
    ok = ok && (!map_path || map);
    size_t bound = 0;
    const ossa_retarget_desc desc = {
        .target = &target.skeleton, .map = map, .map_count = map_count, .bound_count = &bound};
    for (size_t a = 0; ok && a < imp->animation_count; ++a) {
        ossa_raw_animation moved = {0};
        ossa_diag diag;
        ossa_diag_clear(&diag);
        if (ossa_retarget(&imp->animations[a], &imp->skeleton, &desc, &moved, &diag) != OSSA_OK) {
            tool_print_diag("retarget", &diag);
            ok = false;
            break;
        }
        ossa_raw_animation_destroy(&imp->animations[a]);
        imp->animations[a] = moved;
    }
    if (ok) {
        ossa_raw_skeleton_destroy(&imp->skeleton);
        imp->skeleton = target.skeleton;
        memset(&target.skeleton, 0, sizeof target.skeleton);
        /* The unit is the target skeleton's now: its file's lines replace the source's. */
        static const char *const unit_keys[] = {"source_units", "unit_scale", "source_unit_scale",
                                                "unit_scale_in_root"};
        if (imp->metadata) {
            char *w = imp->metadata;
            for (const char *line = imp->metadata; *line;) {
                const char *end = strchr(line, '\n');
                const size_t len = end ? (size_t)(end - line) + 1 : strlen(line);
                bool unit_line = false;
                for (size_t k = 0; k < 4; ++k) {
                    const size_t n = strlen(unit_keys[k]);
                    unit_line = unit_line || (len > n && !strncmp(line, unit_keys[k], n) && line[n] == '=');
                }
                if (!unit_line) memmove(w, line, len), w += len;
                line += len;
            }
            *w = 0;
        }
        char text[64];
        for (size_t k = 0; ok && k < 4; ++k)
            if (ossa_import_output_metadata(&target, unit_keys[k], text, sizeof text))
                ok = ossa_import_output_add_metadata(imp, unit_keys[k], text) == OSSA_OK;
        snprintf(text, sizeof text, "%zu of %zu", bound, imp->skeleton.joint_count);
        ok = ok && ossa_import_output_add_metadata(imp, "retarget", target_path) == OSSA_OK &&
             ossa_import_output_add_metadata(imp, "retarget_bound_joints", text) == OSSA_OK;
        if (bound != imp->skeleton.joint_count)
            fprintf(stderr, "ossa: retargeted onto %s: %zu of %zu joints bound, the others hold their rest pose\n",
                    target_path, bound, imp->skeleton.joint_count);
    }
    free(map);
    free(map_text);
    ossa_import_output_destroy(&target);
    return ok;
}

/* --root-motion: the first root joint's ground motion (x, z, yaw) of every clip moves into
 * two tracks "<clip>/root_motion.position" and ".rotation", and the clip plays in place. */
static bool extract_root_motion(const char *input, ossa_import_output *imp)
{
    if (imp->skeleton.joint_count == 0) return true;
    const ossa_motion_extract_desc desc = {.position = {true, false, true}, .yaw = true, .bake = true};
    for (size_t a = 0; a < imp->animation_count; ++a) {
        ossa_raw_track motion[2] = {{0}, {0}};
        ossa_diag diag;
        ossa_diag_clear(&diag);
        if (ossa_motion_extract(&imp->animations[a], &imp->skeleton, &desc, &motion[0], &motion[1], &diag) != OSSA_OK) {
            char what[300];
            snprintf(what, sizeof what, "%s: root motion of \"%s\"", input, imp->animations[a].name);
            tool_print_diag(what, &diag);
            return false;
        }
        for (int m = 0; m < 2; ++m) {
            ossa_raw_track *added = NULL;
            char name[300];
            snprintf(name, sizeof name, "%s/%s", imp->animations[a].name, motion[m].name);
            const bool ok = ossa_import_output_add_track(imp, motion[m].type, motion[m].key_count, &added) == OSSA_OK &&
                            ossa_raw_track_set_name(added, name) == OSSA_OK;
            if (ok) {
                memcpy(added->keys, motion[m].keys, motion[m].key_count * sizeof *added->keys);
                added->duration = motion[m].duration;
            }
            ossa_raw_track_destroy(&motion[m]);
            if (!ok) {
                fprintf(stderr, "ossa: out of memory\n");
                ossa_raw_track_destroy(&motion[1 - m]);
                return false;
            }
        }
    }
    return true;
}

/* Appends "key=value\n" to the heap string *text. False when out of memory (*text unchanged). */
static bool append_line(char **text, const char *key, const char *value)
{
    const size_t have = strlen(*text), add = strlen(key) + strlen(value) + 2;
    char *grown = realloc(*text, have + add + 1);
    if (!grown) return false;
    snprintf(grown + have, add + 1, "%s=%s\n", key, value);
    *text = grown;
    return true;
}

/* True when the regular file `path` holds exactly `size` bytes equal to `data`. */
static bool same_as_file(const char *path, const void *data, size_t size)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != size) return false;
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    bool same = true;
    unsigned char chunk[4096];
    for (size_t at = 0; same && at < size;) {
        const size_t n = fread(chunk, 1, size - at < sizeof chunk ? size - at : sizeof chunk, f);
        same = n > 0 && !memcmp(chunk, (const unsigned char *)data + at, n);
        at += n;
    }
    fclose(f);
    return same;
}

/* Copies `path` into `at` escaped as ninja and make read depfiles; returns the end. */
static char *escape_dep(char *at, const char *path, size_t length)
{
    for (size_t i = 0; i < length; ++i) {
        if (path[i] == ' ' || path[i] == '#' || path[i] == '\\') *at++ = '\\';
        if (path[i] == '$') *at++ = '$';
        *at++ = path[i];
    }
    return at;
}

/* Whether ninja's depfile parser reads `path` back from escape_dep as one name: it has no
 * escape for '|', quotes, ';', '&', '*', '?', '<', '>', tabs and other control characters (it
 * takes them as separators), keeps the backslash of "\x", and takes a name ending in ':' for
 * a target. */
static bool dep_can_carry(const char *path)
{
    const size_t length = strlen(path);
    if (!length || path[length - 1] == ':') return false;
    for (const unsigned char *c = (const unsigned char *)path; *c; ++c)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c >= 0x80 ||
              strchr("+,/_:.~()}{%=@[]!- #$", *c)))
            return false;
    return true;
}

/* Writes a Makefile-style depfile "OUT: INPUT [SKELETON] [SIDE...]" (the side inputs of
 * tool_side_inputs, one a line). An input or skeleton the syntax cannot carry (dep_can_carry)
 * is left out: the command line names both, so a build rule has them as inputs already (ossa
 * batch's edges do). A side input is written all the same: read as pieces that do not exist,
 * it makes ninja run the edge every time, which is slower but never misses a change. */
static bool write_depfile(const char *depfile, const char *output, const char *input, const char *skeleton_path)
{
    const char *side = tool_side_inputs();
    const size_t size =
        2 * (strlen(output) + strlen(input) + (skeleton_path ? strlen(skeleton_path) : 0) + strlen(side)) + 8;
    char *text = malloc(size);
    if (!text) return false;
    char *at = escape_dep(text, output, strlen(output));
    *at++ = ':';
    *at++ = ' ';
    if (dep_can_carry(input)) at = escape_dep(at, input, strlen(input));
    if (skeleton_path && dep_can_carry(skeleton_path))
        *at++ = ' ', at = escape_dep(at, skeleton_path, strlen(skeleton_path));
    for (const char *line = side; *line;) {
        const size_t length = strcspn(line, "\n");
        *at++ = ' ';
        at = escape_dep(at, line, length);
        line += length + (line[length] != '\0');
    }
    *at++ = '\n';
    const bool ok = tool_write_file(depfile, text, (size_t)(at - text), input);
    free(text);
    return ok;
}

/* The budgets (--max-memory, --max-seconds) against every clip's estimates, before any build
 * allocates: false after printing the one line of the first clip over one of them. */
static bool within_budgets(const char *input, const ossa_import_output *imp, const ossa_animation_build_desc *base,
                           size_t max_memory, double max_seconds)
{
    for (size_t a = 0; a < imp->animation_count; ++a) {
        const ossa_raw_animation *source = &imp->animations[a];
        ossa_animation_build_desc build = *base;
        if (imp->skeleton.joint_count != source->track_count) build.skeleton = NULL, build.tolerance = 0.f;
        const size_t need = ossa_animation_build_memory(source, &build);
        if (max_memory && need > max_memory) {
            fprintf(stderr,
                    "ossa: %s: animation \"%s\" (%.0f s, %zu joints) needs about %.0f MB to build, over the "
                    "memory budget of %.0f MB (--max-memory MB raises it, 0 removes it)\n",
                    input, source->name, (double)source->duration, source->track_count, (double)need / 1e6,
                    (double)max_memory / 1e6);
            return false;
        }
        const double seconds = ossa_animation_build_seconds(source, &build);
        if (max_seconds > 0.0 && seconds > max_seconds) {
            fprintf(stderr,
                    "ossa: %s: animation \"%s\" (%.0f s, %zu joints) would take about %.0f s to build on %u "
                    "thread%s, over the time budget of %.0f s (--max-seconds S raises it, 0 removes it)\n",
                    input, source->name, (double)source->duration, source->track_count, seconds, build.threads,
                    build.threads == 1 ? "" : "s", max_seconds);
            return false;
        }
    }
    return true;
}

int tool_bake(int argc, char **argv)
{
    const char *input = NULL, *output = NULL, *skeleton_path = NULL, *retarget_path = NULL, *map_path = NULL,
               *depfile = NULL;
    bool drop_end_sites = false, optimize = true, quiet = false, root_motion = false, keep_units = false,
         verbose = false, allow_over = false;
    float tolerance_m = OSSA_BUILD_DEFAULT_TOLERANCE, unit_scale_arg = 0.f;
    int layout = OSSA_ANIMATION_LAYOUT_PACKED;
    unsigned threads = tool_cpu_count();
    size_t max_memory = default_max_memory();
    double max_seconds = BAKE_DEFAULT_MAX_SECONDS;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            output = argv[++i];
        else if (!strcmp(argv[i], "--depfile") && i + 1 < argc)
            depfile = argv[++i];
        else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton_path = argv[++i];
        else if (!strcmp(argv[i], "--layout") && i + 1 < argc) {
            ++i;
            if (!strcmp(argv[i], "packed"))
                layout = OSSA_ANIMATION_LAYOUT_PACKED;
            else if (!strcmp(argv[i], "sorted"))
                layout = OSSA_ANIMATION_LAYOUT_SORTED;
            else
                return bake_usage_error("--layout needs packed or sorted", argv[i]);
        } else if (!strcmp(argv[i], "--no-optimize"))
            optimize = false;
        else if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet"))
            quiet = true;
        else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose"))
            verbose = true;
        else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], 1e-7f, 1.f, &tolerance_m))
                return bake_usage_error("--tolerance needs metres from 1e-7 to 1", argv[i]);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            char *end;
            const long n = strtol(argv[++i], &end, 10);
            if (*end || end == argv[i] || n < 1 || n > 64) return bake_usage_error("--threads needs 1 to 64", argv[i]);
            threads = (unsigned)n;
        } else if (!strcmp(argv[i], "--max-memory") && i + 1 < argc) {
            float mb;
            if (!tool_parse_metres(argv[++i], 0.f, 1e9f, &mb))
                return bake_usage_error("--max-memory needs megabytes from 0 (no limit) to 1e9", argv[i]);
            max_memory = (size_t)((double)mb * 1e6);
        } else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc) {
            float seconds;
            if (!tool_parse_metres(argv[++i], 0.f, 1e9f, &seconds))
                return bake_usage_error("--max-seconds needs seconds from 0 (no limit) to 1e9", argv[i]);
            max_seconds = (double)seconds;
        } else if (!strcmp(argv[i], "--unit-scale") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], TOOL_UNIT_SCALE_MIN, TOOL_UNIT_SCALE_MAX, &unit_scale_arg))
                return bake_usage_error("--unit-scale needs metres per unit from 1e-6 to 1e4", argv[i]);
        } else if (!strcmp(argv[i], "--keep-source-units"))
            keep_units = true;
        else if (!strcmp(argv[i], "--allow-over-tolerance"))
            allow_over = true;
        else if (!strcmp(argv[i], "--drop-end-sites"))
            drop_end_sites = true;
        else if (!strcmp(argv[i], "--root-motion"))
            root_motion = true;
        else if (!strcmp(argv[i], "--retarget") && i + 1 < argc)
            retarget_path = argv[++i];
        else if (!strcmp(argv[i], "--joint-map") && i + 1 < argc)
            map_path = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage_bake(stdout), 0;
        else if (argv[i][0] == '-' || input)
            return bake_usage_error("unexpected argument", argv[i]);
        else
            input = argv[i];
    }
    if (!input) input = OSSA_DEFAULT_INPUT;
    if (layout == OSSA_ANIMATION_LAYOUT_SORTED && !optimize)
        return bake_usage_error("--layout sorted stores 16-bit values and needs a tolerance", "--no-optimize");
    char default_out[4096];
    if (!output) {
        default_output(input, default_out, sizeof default_out);
        output = default_out;
    }
    if (!tool_check_output(output, input) || (skeleton_path && !tool_check_output(output, skeleton_path))) return 1;
    if (depfile && !tool_check_output(depfile, input)) return 1;
    ossa_import_output imp = {0};
    const double t0 = tool_now(), c0 = cpu_now();
    if (depfile) tool_side_inputs_begin();
    tool_progress *bar = tool_progress_start(!quiet && isatty(STDERR_FILENO));
    tool_import_set_max_keys(max_memory / TOOL_BYTES_PER_IMPORTED_KEY);
    const bool imported = tool_import_with_skeleton(input, skeleton_path, drop_end_sites, &imp);
    tool_import_set_max_keys(0);
    if (!imported) {
        tool_progress_stop(bar);
        tool_side_inputs_end();
        return 1;
    }
    tool_progress_clear(bar);
    if (imp.skeleton.joint_count == 0 && imp.animation_count == 0 && imp.track_count == 0 && imp.event_count == 0) {
        tool_progress_stop(bar);
        tool_side_inputs_end();
        fprintf(stderr, "ossa: %s: nothing to bake: no joint, animation, track or event in this file (cut short?)\n",
                input);
        ossa_import_output_destroy(&imp);
        return 1;
    }
    if (imp.skeleton.joint_count == 0 && imp.animation_count > 0) {
        tool_progress_stop(bar);
        tool_side_inputs_end();
        fprintf(stderr, "ossa: %s: animation without a skeleton (give a file that has one)\n", input);
        ossa_import_output_destroy(&imp);
        return 1;
    }
    if (map_path && !retarget_path) {
        ossa_import_output_destroy(&imp);
        return bake_usage_error("--joint-map needs --retarget", map_path);
    }
    if (retarget_path && !retarget(input, retarget_path, map_path, &imp)) {
        ossa_import_output_destroy(&imp);
        return 1;
    }
    /* The unit is resolved on the import as read (inference measures its rest pose); the
     * translations then become metres once, before anything is extracted or built from them,
     * so the tolerance (metres) applies as it is. */
    tool_unit unit = tool_unit_of_import(&imp, unit_scale_arg);
    if (keep_units)
        unit.stored = unit.scale;
    else {
        ossa_diag units_diag;
        ossa_diag_clear(&units_diag);
        if (ossa_import_output_scale_lengths(&imp, unit.scale, &units_diag) != OSSA_OK) {
            char what[300];
            snprintf(what, sizeof what, "%s: conversion to metres", input);
            tool_print_diag(what, &units_diag);
            ossa_import_output_destroy(&imp);
            return 1;
        }
    }
    if (root_motion && !extract_root_motion(input, &imp)) {
        ossa_import_output_destroy(&imp);
        return 1;
    }
    /* What the importer tolerated but the user should know ("warning=" metadata lines). */
    for (const char *line = imp.metadata; line && *line;) {
        const char *end = strchr(line, '\n');
        const size_t length = end ? (size_t)(end - line) : strlen(line);
        if (length > 8 && !strncmp(line, "warning=", 8))
            fprintf(stderr, "ossa: warning: %s: %.*s\n", input, (int)(length - 8), line + 8);
        line += length + (end != NULL);
    }
    /* Where the joints' parents come from, when the importer says (Maya .anim): a flat
     * skeleton measures each joint's error alone, not in model space. */
    char hierarchy[16], roots[24] = "";
    if (!quiet && ossa_import_output_metadata(&imp, "hierarchy", hierarchy, sizeof hierarchy)) {
        ossa_import_output_metadata(&imp, "hierarchy_roots", roots, sizeof roots);
        if (!strcmp(hierarchy, "file"))
            printf("%s: hierarchy from the file (%s root%s)\n", input, roots, strcmp(roots, "1") ? "s" : "");
        else if (!strcmp(hierarchy, "flat"))
            printf("%s: flat: the file gives no parents, every joint is a root (errors are measured per joint, "
                   "not in model space; --skeleton binds to a rig)\n",
                   input);
        else
            printf("%s: hierarchy from the skeleton file\n", input);
    }
    const double t1 = tool_now();
    double stage_seconds[STAGE_COUNT] = {t1 - t0}, stage_cpu[STAGE_COUNT] = {cpu_now() - c0};
    const double import_rss = peak_rss_bytes();
    atomic_store(&counted_now, 0), atomic_store(&counted_peak, 0);
    ossa_diag diag;
    ossa_diag_clear(&diag);
    size_t entry_count = 0;
    /* blobs: skeleton, animations, then user-channel tracks. */
    const size_t blob_count = 1 + imp.animation_count + imp.track_count;
    ossa_archive_entry *entries = calloc(blob_count + 1, sizeof *entries);
    ossa_blob *blobs = calloc(blob_count, sizeof *blobs);
    /* Where the format lists its usual units (ozz: m, cm, mm), only a unit other than the
     * importer's default (metres) is news; META records unit_source=inferred either way. */
    char candidates[128], stated[32] = "";
    const bool listed = ossa_import_output_metadata(&imp, "unit_candidates", candidates, sizeof candidates);
    ossa_import_output_metadata(&imp, "unit_scale", stated, sizeof stated);
    if (!strcmp(unit.source, "inferred") && listed && strtof(stated, NULL) != unit.scale)
        fprintf(stderr,
                "ossa: %s states no unit: assumed %.4g m per unit, of the units its format is written in (%s m) "
                "the nearest to a rest pose %.1f units tall (the joints of a 1.7 m human span %.2f m); "
                "--unit-scale overrides\n",
                input, (double)unit.scale, candidates, (double)unit.height, (double)TOOL_HUMAN_JOINT_SPAN);
    else if (!strcmp(unit.source, "inferred") && !listed)
        fprintf(stderr,
                "ossa: %s states no unit: assumed %.4g m per unit from a rest pose %.1f units tall (the joints "
                "of a 1.7 m human span %.2f m); --unit-scale overrides\n",
                input, (double)unit.scale, (double)unit.height, (double)TOOL_HUMAN_JOINT_SPAN);
    char *meta = meta_text(&imp, input, unit);
    int status = 1;
    if (!entries || !blobs || !meta) {
        fprintf(stderr, "ossa: out of memory\n");
        goto done;
    }
    const ossa_animation_build_desc budgeted = {.skeleton = optimize ? &imp.skeleton : NULL,
                                                .tolerance = optimize ? tolerance_m / unit.stored : 0.f,
                                                .unit_scale = unit.stored,
                                                .threads = threads};
    tool_progress_clear(bar);
    if (!within_budgets(input, &imp, &budgeted, max_memory, max_seconds)) goto done;
    if (imp.skeleton.joint_count) {
        if (ossa_skeleton_build(&imp.skeleton, NULL, &blobs[0], &diag) != OSSA_OK) {
            tool_progress_clear(bar);
            tool_print_diag("skeleton", &diag);
            goto done;
        }
        entries[entry_count++] =
            (ossa_archive_entry){OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, blobs[0].data, blobs[0].size};
    }
    const float unit_scale = unit.stored;
    /* The tolerance in stored units (metres, or the source's with --keep-source-units), rounded
     * down: an error the builder accepts (at most this) is then at most --tolerance in metres
     * too, as `ossa info` converts it back (in double). */
    float tolerance = tolerance_m / unit_scale;
    while (tolerance > 0.f && (double)tolerance * (double)unit_scale > (double)tolerance_m)
        tolerance = nextafterf(tolerance, 0.f);
    float worst_mm = -1.f; /* over the error-bounded builds; -1 when there is none */
    for (size_t a = 0; a < imp.animation_count; ++a) {
        tool_progress_stage(bar, "build animation", a + 1, imp.animation_count);
        const ossa_raw_animation *source = &imp.animations[a];
        ossa_animation_build_stats stats = {0};
        const bool bounded = optimize && imp.skeleton.joint_count == source->track_count;
        const ossa_animation_build_desc build = {.skeleton = bounded ? &imp.skeleton : NULL,
                                                 .tolerance = bounded ? tolerance : 0.f,
                                                 .unit_scale = unit_scale,
                                                 .stats = &stats,
                                                 .allocator = verbose ? &counting_allocator : NULL,
                                                 .threads = threads,
                                                 .progress = bar ? build_progress : NULL,
                                                 .progress_user = bar,
                                                 .layout = bounded ? layout : OSSA_ANIMATION_LAYOUT_PACKED};
        if (layout == OSSA_ANIMATION_LAYOUT_SORTED && !bounded)
            tool_progress_clear(bar),
                fprintf(stderr,
                        "ossa: note: animation \"%s\" has no skeleton of its %zu tracks to measure the error on: "
                        "lossless, so in the packed layout\n",
                        source->name, source->track_count);
        /* Long clips: say what the build will take before it starts. */
        const size_t need = ossa_animation_build_memory(source, &build);
        if (need >= TOOL_MEMORY_NOTE_BYTES)
            tool_progress_clear(bar),
                fprintf(stderr, "ossa: building animation \"%s\" (%.0f s, %zu joints) needs about %.0f MB of memory\n",
                        source->name, (double)source->duration, source->track_count, (double)need / 1e6);
        const double b0 = tool_now();
        const ossa_result built = ossa_animation_build(source, &build, &blobs[a + 1], &diag);
        if (built != OSSA_OK) {
            tool_progress_clear(bar);
            char what[300];
            snprintf(what, sizeof what, "animation \"%s\"", imp.animations[a].name);
            tool_print_diag(what, &diag);
            goto done;
        }
        stage_seconds[STAGE_PREPARE] += stats.prepare_seconds;
        stage_seconds[STAGE_SEARCH] += stats.search_seconds;
        stage_seconds[STAGE_VERIFY] += stats.verify_seconds;
        stage_seconds[STAGE_WRITE] += stats.write_seconds;
        stage_cpu[STAGE_PREPARE] += stats.prepare_cpu_seconds;
        stage_cpu[STAGE_SEARCH] += stats.search_cpu_seconds;
        stage_cpu[STAGE_VERIFY] += stats.verify_cpu_seconds;
        stage_cpu[STAGE_WRITE] += stats.write_cpu_seconds;
        const float error_mm = stats.max_error * unit_scale * 1e3f;
        if (bounded && error_mm > worst_mm) worst_mm = error_mm;
        if (bounded && (stats.error_ratio > 1.f || !quiet)) tool_progress_clear(bar);
        if (bounded && stats.error_ratio > 1.f) {
            /* The tolerance is a bound: an archive over it is written only when asked for. The
             * closest encoding meets a tolerance of its own measured error, rounded up. */
            const size_t wj = stats.worst_joint;
            const char *joint = wj < imp.skeleton.joint_count && imp.skeleton.joints[wj].name
                                    ? imp.skeleton.joints[wj].name
                                    : "?";
            const double closest_m = (double)(stats.max_error * unit_scale);
            char reach[32];
            tool_format_float(reach, sizeof reach, (float)(ceil(closest_m * 1e6 * 1.01) / 1e6));
            fprintf(stderr,
                    "ossa: %s: animation \"%s\": no encoding reached the tolerance of %.4g mm: the closest "
                    "measures %.4g mm (%.0f %%) at joint \"%s\", %.3f s (a jump between two source samples, such "
                    "as a cut, is faster than a float ratio can time, or the unit is too large for float model "
                    "space: --unit-scale); --tolerance %s reaches it, --allow-over-tolerance writes the closest%s\n",
                    allow_over ? "warning" : input, source->name, (double)tolerance_m * 1e3, closest_m * 1e3,
                    (double)stats.error_ratio * 100.0, joint, (double)stats.worst_time, reach,
                    allow_over ? "" : "; nothing written");
            if (!allow_over) goto done;
        }
        if (bounded && !quiet)
            printf("built \"%s\": %zu keys, measured max %.4g mm at 0.03 m virtual vertices (%.0f %% of the "
                   "tolerance, joint %zu at %.3f s), %zu encodings tried, %.1f ms\n",
                   source->name, stats.key_count, (double)(stats.max_error * unit_scale) * 1e3,
                   (double)stats.error_ratio * 100.0, stats.worst_joint, (double)stats.worst_time, stats.evaluations,
                   (tool_now() - b0) * 1e3);
        entries[entry_count++] =
            (ossa_archive_entry){OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, blobs[a + 1].data, blobs[a + 1].size};
    }
    for (size_t i = 0; i < imp.track_count; ++i) {
        ossa_blob *blob = &blobs[1 + imp.animation_count + i];
        ossa_raw_track small = {0};
        const ossa_raw_track *source = &imp.tracks[i];
        if (optimize) {
            if (ossa_track_optimize(source, NULL, &small, &diag) != OSSA_OK) {
                tool_progress_clear(bar);
                tool_print_diag("track optimiser", &diag);
                goto done;
            }
            source = &small;
        }
        const ossa_result built = ossa_track_build(source, NULL, blob, &diag);
        ossa_raw_track_destroy(&small);
        if (built != OSSA_OK) {
            char what[300];
            snprintf(what, sizeof what, "track \"%s\"", imp.tracks[i].name);
            tool_progress_clear(bar);
            tool_print_diag(what, &diag);
            goto done;
        }
        entries[entry_count++] = (ossa_archive_entry){OSSA_TAG_TRACK, OSSA_TRACK_BLOB_VERSION, blob->data, blob->size};
    }
    tool_progress_stage(bar, "write", 0, 0);
    /* The worst measured error, for `ossa batch`'s summary (no re-import needed to report it),
     * and the tolerance it was held to, in metres (the viewer's error colours are red there). */
    char worst_text[32], tolerance_text[32];
    tool_format_float(worst_text, sizeof worst_text, worst_mm);
    tool_format_float(tolerance_text, sizeof tolerance_text, tolerance_m);
    if (worst_mm >= 0.f && (!append_line(&meta, "max_error_mm", worst_text) ||
                            !append_line(&meta, "tolerance", tolerance_text))) {
        tool_progress_clear(bar);
        fprintf(stderr, "ossa: out of memory\n");
        goto done;
    }
    entries[entry_count++] = (ossa_archive_entry){OSSA_TAG_META, 1, meta, strlen(meta)};
    ossa_blob file = {0};
    const double w0 = tool_now(), wc0 = cpu_now();
    if (ossa_archive_write(entries, entry_count, NULL, &file, &diag) != OSSA_OK) {
        tool_progress_clear(bar);
        tool_print_diag("archive", &diag);
        goto done;
    }
    const double t2 = tool_now();
    /* The report that follows is not a stage: no bar over it. */
    tool_progress_stop(bar);
    bar = NULL;
    /* Under a build system (--depfile) an identical archive is left as it is: its time stays,
     * and ninja's restat then stops the rebuild there. */
    const bool unchanged = depfile && same_as_file(output, file.data, file.size);
    const bool written = (unchanged || tool_write_file(output, file.data, file.size, input)) &&
                         (!depfile || write_depfile(depfile, output, input, skeleton_path));
    stage_seconds[STAGE_WRITE] += tool_now() - w0;
    stage_cpu[STAGE_WRITE] += cpu_now() - wc0;
    if (written) {
        printf("baked %s -> %s: %zu joints, %zu animations, %zu tracks, %zu events, %zu bytes (import %.1f ms, "
               "build %.1f ms)\n%s",
               input, output, imp.skeleton.joint_count, imp.animation_count, imp.track_count, imp.event_count,
               file.size, (t1 - t0) * 1e3, (t2 - t1) * 1e3, quiet ? "" : "\n");
        const double r0 = tool_now(), rc0 = cpu_now();
        status = quiet ? 0 : tool_report(output, file.data, file.size, &imp, input, unit);
        stage_seconds[STAGE_REPORT] = tool_now() - r0;
        stage_cpu[STAGE_REPORT] = cpu_now() - rc0;
        if (verbose)
            print_stages(stage_seconds, stage_cpu, tool_now() - t0, cpu_now() - c0, import_rss,
                         atomic_load(&counted_peak));
    }
    ossa_blob_destroy(&file);
done:
    tool_progress_stop(bar);
    tool_side_inputs_end();
    for (size_t i = 0; blobs && i < blob_count; ++i) ossa_blob_destroy(&blobs[i]);
    free(blobs);
    free(entries);
    free(meta);
    ossa_import_output_destroy(&imp);
    return status;
}
