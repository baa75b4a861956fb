/* ossa batch: every importable file under a folder, baked through a generated build.ninja, so
 * that ninja gives the parallelism, the progress and the incremental rebuilds. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef OSSA_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include "ossa/animation.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/skeleton.h"
#include "batch.h"
#include "tools.h"

/* Detection reads this much of each file (the content sniffs look at the first bytes). */
#define SNIFF_BYTES 4096

static void usage_batch(FILE *f)
{
    fprintf(f,
            "usage: ossa batch SRC_DIR -o OUT_DIR [--skeleton [PATTERN=]FILE]... [--drop-end-sites]\n"
            "                  [--tolerance METRES [--allow-over-tolerance] | --no-optimize] [--unit-scale METRES]\n"
            "                  [--keep-source-units] [--layout packed|sorted]\n"
            "                  [--exclude PATTERN]... [-j N] [--shard I/N] [--json FILE] [--ossa EXE]\n"
            "                  [--allow-out-inside-src]\n"
            "  bakes every file under SRC_DIR that `ossa formats` recognises (not .ossa, not hidden)\n"
            "  into OUT_DIR/<relative path>.ossa: writes OUT_DIR/build.ninja, runs ninja, removes the\n"
            "  archives of sources gone since the last run, prints a summary\n"
            "  --exclude PATTERN  leave out the files whose path under SRC_DIR matches PATTERN (a shell\n"
            "                    pattern; '*' and '?' stay within a folder: '*.fbx' is the top folder's,\n"
            "                    '*/*.fbx' one level down) and the folders it matches, with all below\n"
            "                    ('wip' or 'wip/'); repeatable. Excluded files are not sources, nor skeletons\n"
            "                    a folder offers; the archives of newly excluded sources are removed\n"
            "  --skeleton PATTERN=FILE  the skeleton of FILE (relative to SRC_DIR) for the sources whose\n"
            "                    path under SRC_DIR matches PATTERN (a shell pattern, '*' within a\n"
            "                    folder; \"DIR/\" for DIR's tree); repeatable, the first matching rule wins\n"
            "  --skeleton FILE   for the sources in FILE's folder and below (all when FILE is outside SRC_DIR)\n"
            "  A source that needs a skeleton (Metroid ANIM, ozz raw animation) and matches no rule takes\n"
            "  the one skeleton file of its kind (CINF, ozz skeleton) in its folder; with none or several\n"
            "  it is not baked and the summary says why. The other options are ossa bake's.\n"
            "  -j N              parallel bakes (default: the online CPUs); each bake uses one thread\n"
            "  --shard I/N       only the sources whose index in path order, modulo N, is I-1 (I from 1)\n"
            "  --json FILE       also write the summary as JSON (with each failed bake's error line)\n"
            "  --ossa EXE        the ossa executable the bakes run (default: this one)\n"
            "  --allow-out-inside-src  accept an OUT_DIR inside SRC_DIR (its tree is not read as sources);\n"
            "                    without it such an OUT_DIR is refused, and OUT_DIR = SRC_DIR always is\n"
            "  A file whose name holds a line break or carriage return is not baked (build.ninja cannot\n"
            "  carry it); the summary names it. Runs on one OUT_DIR exclude each other (" BATCH_LOCK_NAME ").\n");
}

static int batch_usage_error(const char *what, const char *argument)
{
    return tool_usage_error("batch", "%s (found \"%s\")", what, argument);
}

/* What a source is to the skeleton binding. */
typedef enum source_role {
    ROLE_OWN,      /* bakes on its own (its own skeleton, or a Maya .anim's nodes) */
    ROLE_NEEDS,    /* its animations need a skeleton from another file */
    ROLE_SKELETON, /* a skeleton file other sources can take (a CINF, an ozz skeleton) */
} source_role;

typedef struct source {
    char *path; /* relative to the source folder */
    ossa_import_format format;
    source_role role;
    const char *refused; /* why its name cannot be baked (a line break); NULL when it can */
} source;

typedef struct source_list {
    source *items; /* [count], sorted by path */
    size_t count, capacity;
} source_list;

static bool list_add(source_list *list, source item)
{
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity ? list->capacity * 2 : 64;
        source *grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) return false;
        list->items = grown;
        list->capacity = capacity;
    }
    if (!(item.path = strdup(item.path))) return false;
    list->items[list->count++] = item;
    return true;
}

static void list_free(source_list *list)
{
    for (size_t i = 0; i < list->count; ++i) free(list->items[i].path);
    free(list->items);
    *list = (source_list){0};
}

static int compare_sources(const void *pa, const void *pb)
{
    return strcmp(((const source *)pa)->path, ((const source *)pb)->path);
}

/* The format whose files hold the skeleton a ROLE_NEEDS source of `format` takes;
 * OSSA_FORMAT_UNKNOWN when no folder rule finds one. */
static ossa_import_format skeleton_format_for(ossa_import_format format)
{
    return format == OSSA_FORMAT_METROID_ANIM ? OSSA_FORMAT_METROID_CINF
           : format == OSSA_FORMAT_OZZ        ? OSSA_FORMAT_OZZ
                                              : OSSA_FORMAT_UNKNOWN;
}

/* The role of a file from its format (the registry's needs_skeleton) and, for ozz archives,
 * which object comes first: a RawAnimation needs a skeleton, a RawSkeleton or Skeleton is one
 * (ossa/offline/import_ozz.h; a runtime animation is refused by the importer either way). */
static source_role role_of(ossa_import_format format, const unsigned char *head, size_t size)
{
    if (format == OSSA_FORMAT_METROID_CINF) return ROLE_SKELETON;
    if (format == OSSA_FORMAT_OZZ) {
        const char *tag = (const char *)head + 1;
        if (!memchr(tag, '\0', size - 1)) return ROLE_OWN;
        if (!strcmp(tag, OSSA_OZZ_TAG_RAW_ANIMATION)) return ROLE_NEEDS;
        return !strcmp(tag, OSSA_OZZ_TAG_RAW_SKELETON) || !strcmp(tag, OSSA_OZZ_TAG_SKELETON) ? ROLE_SKELETON
                                                                                              : ROLE_OWN;
    }
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *info = ossa_import_format_at(i);
        if (info->format == format) return info->needs_skeleton ? ROLE_NEEDS : ROLE_OWN;
    }
    return ROLE_OWN;
}

/* The format of `path` from its first bytes and its name (OSSA_FORMAT_UNKNOWN when ossa does
 * not import it) and its role. */
static ossa_import_format sniff(const char *path, source_role *role)
{
    FILE *f = fopen(path, "rb");
    if (!f) return OSSA_FORMAT_UNKNOWN;
    unsigned char head[SNIFF_BYTES];
    const size_t size = fread(head, 1, sizeof head, f);
    fclose(f);
    const ossa_import_format format = ossa_import_detect(head, size, tool_base_name(path));
    if (format == OSSA_FORMAT_OSSA) return OSSA_FORMAT_UNKNOWN;
    *role = role_of(format, head, size);
    return format;
}

#define MAX_EXCLUDES 64

/* The --exclude patterns, and how many paths each matched (a pattern that matches nothing is
 * reported: most likely a '*' that was meant to cross folders). */
typedef struct exclude_list {
    const char *patterns[MAX_EXCLUDES];
    size_t matched[MAX_EXCLUDES];
    size_t count;
} exclude_list;

/* Whether the path `rel` under the sources (a folder when `folder`) is excluded: a pattern
 * matches it whole ('*' within a folder); a folder also matches a pattern with one trailing
 * '/' ("wip/"). */
static bool is_excluded(exclude_list *excludes, const char *rel, bool folder)
{
    for (size_t i = 0; i < excludes->count; ++i) {
        const char *pattern = excludes->patterns[i];
        const size_t n = strlen(pattern);
        char trimmed[PATH_MAX];
        if (folder && n > 1 && pattern[n - 1] == '/' && n < sizeof trimmed) {
            memcpy(trimmed, pattern, n - 1);
            trimmed[n - 1] = '\0';
            pattern = trimmed;
        }
        if (fnmatch(pattern, rel, FNM_PATHNAME) == 0) {
            excludes->matched[i]++;
            return true;
        }
    }
    return false;
}

/* Adds the importable files under root/rel (rel "" for root), skipping hidden entries, symbolic
 * links to folders, the folder `skip` (the output, when it lies inside) and what `excludes`
 * matches. False on error. */
static bool walk(const char *root, const char *rel, const struct stat *skip, exclude_list *excludes, source_list *list)
{
    char folder[PATH_MAX];
    if (snprintf(folder, sizeof folder, "%s%s%s", root, *rel ? "/" : "", rel) >= (int)sizeof folder) return false;
    DIR *d = opendir(folder);
    if (!d) {
        fprintf(stderr, "ossa: batch: cannot read the folder %s: %s\n", folder, strerror(errno));
        return false;
    }
    bool ok = true;
    for (struct dirent *e; ok && (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char child[PATH_MAX], full[PATH_MAX];
        if (snprintf(child, sizeof child, "%s%s%s", rel, *rel ? "/" : "", e->d_name) >= (int)sizeof child ||
            snprintf(full, sizeof full, "%s/%s", root, child) >= (int)sizeof full) {
            fprintf(stderr, "ossa: batch: path too long under %s\n", folder);
            ok = false;
            break;
        }
        struct stat st;
        if (lstat(full, &st) != 0) continue;
        if (S_ISDIR(st.st_mode)) {
            if (!(st.st_dev == skip->st_dev && st.st_ino == skip->st_ino) && !is_excluded(excludes, child, true))
                ok = walk(root, child, skip, excludes, list);
        } else if (is_excluded(excludes, child, false)) {
            continue;
        } else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(full, &st) == 0 && S_ISREG(st.st_mode))) {
            source item = {.path = child, .role = ROLE_OWN};
            if ((item.format = sniff(full, &item.role)) == OSSA_FORMAT_UNKNOWN) continue;
            /* ninja reads build.ninja a line at a time and refuses a carriage return: such a
             * name has no escape. It is listed, not baked, and never taken as a skeleton. */
            item.refused =
                strchr(child, '\n')   ? "its name holds a line break (\\n), which build.ninja cannot carry; rename it"
                : strchr(child, '\r') ? "its name holds a carriage return (\\r), which build.ninja cannot carry; "
                                        "rename it"
                                      : NULL;
            if (item.refused) item.role = ROLE_OWN;
            ok = list_add(list, item);
        }
    }
    closedir(d);
    return ok;
}

/* Writes `text` with ninja's escapes: '$', ' ' and ':' after a '$'. A variable's value reads
 * back as `text`; so does a path of a build line, unless it holds a '|' (put_edge_path). */
static void put_ninja_text(FILE *f, const char *text)
{
    for (const char *c = text; *c; ++c) {
        if (*c == '$' || *c == ' ' || *c == ':') fputc('$', f);
        fputc(*c, f);
    }
}

/* ninja ends a path of a build line at a '|' and has no escape for it, but a variable's value
 * may hold one: such a path goes into the top-level variable `name` first (define_path, before
 * the build line) and the line names $name. ninja evaluates a build line's paths as it reads
 * the line, so the next edge can give the variable another value. */
static void define_path(FILE *f, const char *name, const char *path)
{
    if (!strchr(path, '|')) return;
    fprintf(f, "%s = ", name);
    put_ninja_text(f, path);
    fputc('\n', f);
}

static void put_edge_path(FILE *f, const char *name, const char *path)
{
    if (strchr(path, '|'))
        fprintf(f, "$%s", name);
    else
        put_ninja_text(f, path);
}

/* `name` for one line of text: a line break and a carriage return written as \n and \r. */
static const char *shown_name(const char *name, char *buffer, size_t size)
{
    size_t n = 0;
    for (const char *c = name; *c && n + 3 < size; ++c) {
        if (*c == '\n' || *c == '\r')
            buffer[n++] = '\\', buffer[n++] = *c == '\n' ? 'n' : 'r';
        else
            buffer[n++] = *c;
    }
    buffer[n] = '\0';
    return buffer;
}

/* Writes `text` as one shell word in single quotes, with ninja's '$' escaped. */
static void put_shell_word(FILE *f, const char *text)
{
    fputc('\'', f);
    for (const char *c = text; *c; ++c) {
        if (*c == '\'')
            fputs("'\\''", f);
        else if (*c == '$')
            fputs("$$", f);
        else
            fputc(*c, f);
    }
    fputc('\'', f);
}

/* The executable at `name` in $PATH into `found`; false when there is none. */
static bool find_in_path(const char *name, char *found, size_t size)
{
    const char *path = getenv("PATH");
    for (const char *dir = path ? path : "/usr/bin:/bin"; *dir;) {
        const size_t length = strcspn(dir, ":");
        if (snprintf(found, size, "%.*s/%s", (int)length, length ? dir : ".", name) < (int)size &&
            access(found, X_OK) == 0)
            return true;
        dir += length + (dir[length] == ':');
    }
    return false;
}

typedef struct batch_options {
    char tolerance[32], unit_scale[32]; /* "" when not given */
    bool no_optimize, drop_end_sites, keep_source_units, allow_over_tolerance, sorted_layout;
} batch_options;

/* One summary row: what the archive of a source holds, read back with the runtime. */
typedef struct batch_row {
    const char *source;     /* relative path */
    long long source_bytes; /* -1 when unknown */
    long long bytes;        /* archive bytes; -1 when the bake failed */
    size_t joints, animations;
    float duration;       /* seconds, the longest clip */
    float max_error_mm;   /* -1 when the archive records none (lossless, no animation) */
    const char *problem;  /* why the source has no edge (no skeleton for it, its name); NULL when it has one */
    bool refused;         /* the problem is its name */
    const char *skeleton; /* the --skeleton its bake was given (absolute); NULL when none */
    char *error;          /* a failed bake's error line (malloc'd); NULL when it printed none */
} batch_row;

static batch_row read_row(const char *src_root, const char *out_dir, const char *rel)
{
    batch_row row = {.source = rel, .source_bytes = -1, .bytes = -1, .max_error_mm = -1.f};
    char path[PATH_MAX];
    struct stat st;
    if (snprintf(path, sizeof path, "%s/%s", src_root, rel) < (int)sizeof path && stat(path, &st) == 0)
        row.source_bytes = (long long)st.st_size;
    if (snprintf(path, sizeof path, "%s/%s.ossa", out_dir, rel) >= (int)sizeof path || access(path, R_OK) != 0)
        return row;
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    ossa_archive ar;
    if (!data || ossa_archive_init(&ar, data, size) != OSSA_OK) {
        free(data);
        return row;
    }
    row.bytes = (long long)size;
    ossa_skeleton skel;
    if (ossa_archive_skeleton(&ar, &skel) == OSSA_OK) row.joints = skel.joint_count;
    row.animations = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    ossa_archive_chunk *chunks;
    const size_t chunk_count = tool_archive_chunks(&ar, OSSA_TAG_ANIMATION, &chunks);
    for (size_t a = 0; chunk_count != SIZE_MAX && a < chunk_count; ++a) {
        ossa_animation anim;
        if (tool_chunk_animation(&chunks[a], &anim) == OSSA_OK && anim.duration > row.duration)
            row.duration = anim.duration;
    }
    free(chunks);
    ossa_archive_chunk meta;
    if (ossa_archive_find(&ar, OSSA_TAG_META, 0, &meta) == OSSA_OK) {
        const char *text = meta.data, *key = "max_error_mm=";
        for (size_t at = 0; at < meta.size;) {
            const char *end = memchr(text + at, '\n', meta.size - at);
            const size_t length = end ? (size_t)(end - (text + at)) : meta.size - at;
            char value[32];
            if (length > strlen(key) && length - strlen(key) < sizeof value && !strncmp(text + at, key, strlen(key))) {
                snprintf(value, sizeof value, "%.*s", (int)(length - strlen(key)), text + at + strlen(key));
                row.max_error_mm = strtof(value, NULL);
            }
            at += length + 1;
        }
    }
    free(data);
    return row;
}

/* The error line a failed bake left in OUT_DIR/<rel>.ossa.err (the rule sends its standard
 * error there): its last line that starts with "ossa: " and is not a warning, without that
 * prefix (malloc'd; NULL when there is none). The file is then removed, inside OUT_DIR only
 * (tool_batch_remove_error, through `out_fd`): the next run bakes the source again. */
static char *read_error(const char *out_dir, int out_fd, const char *rel)
{
    char path[PATH_MAX], err_rel[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s.ossa.err", out_dir, rel) >= (int)sizeof path ||
        snprintf(err_rel, sizeof err_rel, "%s.ossa.err", rel) >= (int)sizeof err_rel)
        return NULL;
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    char *line = NULL, *error = NULL;
    size_t capacity = 0;
    while (getline(&line, &capacity, f) >= 0) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "ossa: ", 6) || !strncmp(line, "ossa: warning", 13) || !line[6]) continue;
        free(error);
        error = strdup(line + 6);
    }
    free(line);
    fclose(f);
    if (out_fd >= 0) tool_batch_remove_error(out_fd, err_rel);
    return error;
}

static void print_summary(const batch_row *rows, size_t count)
{
    int width = 24; /* the clip column fits the longest path */
    for (size_t i = 0; i < count; ++i)
        if (strlen(rows[i].source) > (size_t)width)
            width = strlen(rows[i].source) < 200 ? (int)strlen(rows[i].source) : 200;
    printf("\n%-*s %6s %5s %8s %12s %10s %7s %10s\n", width, "clip", "joints", "anims", "seconds", "source bytes",
           "bytes", "ratio", "worst mm");
    long long source_total = 0, baked_total = 0;
    size_t failed = 0, unbound = 0, refused = 0;
    for (size_t i = 0; i < count; ++i) {
        const batch_row *r = &rows[i];
        if (r->problem) {
            char shown[PATH_MAX];
            printf("%-*s not baked: %s\n", width, shown_name(r->source, shown, sizeof shown), r->problem);
            if (r->refused)
                ++refused;
            else
                ++unbound;
            continue;
        }
        if (r->bytes < 0) {
            if (r->error)
                printf("%-*s failed: %s\n", width, r->source, r->error);
            else
                printf("%-*s %s\n", width, r->source, "failed (ninja printed why)");
            ++failed;
            continue;
        }
        char ratio[16] = "-", worst[16] = "-";
        if (r->source_bytes > 0) snprintf(ratio, sizeof ratio, "%.2f", (double)r->source_bytes / (double)r->bytes);
        if (r->max_error_mm >= 0.f) snprintf(worst, sizeof worst, "%.4g", (double)r->max_error_mm);
        printf("%-*s %6zu %5zu %8.2f %12lld %10lld %7s %10s\n", width, r->source, r->joints, r->animations,
               (double)r->duration, r->source_bytes, r->bytes, ratio, worst);
        if (r->source_bytes > 0) source_total += r->source_bytes;
        baked_total += r->bytes;
    }
    printf("%zu sources, %zu baked, %zu failed", count, count - failed - unbound - refused, failed);
    if (unbound) printf(", %zu without a skeleton", unbound);
    if (refused) printf(", %zu refused for their name", refused);
    printf("; %lld source bytes -> %lld bytes\n", source_total, baked_total);
}

#ifdef OSSA_HAVE_CJSON
static bool write_json(const char *path, const batch_row *rows, size_t count, int ninja_status)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "sources");
    for (size_t i = 0; list && i < count; ++i) {
        const batch_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(list, o)) break;
        tool_json_add_string(o, "source", r->source);
        cJSON_AddBoolToObject(o, "baked", r->bytes >= 0);
        if (r->problem) tool_json_add_string(o, "problem", r->problem);
        if (r->error) tool_json_add_string(o, "error", r->error);
        if (r->skeleton) tool_json_add_string(o, "skeleton", r->skeleton);
        if (r->source_bytes >= 0) cJSON_AddNumberToObject(o, "source_bytes", (double)r->source_bytes);
        if (r->bytes < 0) continue;
        cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
        cJSON_AddNumberToObject(o, "joints", (double)r->joints);
        cJSON_AddNumberToObject(o, "animations", (double)r->animations);
        cJSON_AddNumberToObject(o, "seconds", (double)r->duration);
        if (r->source_bytes > 0) cJSON_AddNumberToObject(o, "ratio", (double)r->source_bytes / (double)r->bytes);
        if (r->max_error_mm >= 0.f) cJSON_AddNumberToObject(o, "max_error_mm", (double)r->max_error_mm);
    }
    cJSON_AddNumberToObject(root, "ninja_status", ninja_status);
    char *text = cJSON_Print(root);
    cJSON_Delete(root);
    if (!text) {
        fprintf(stderr, "ossa: batch: out of memory writing %s\n", path);
        return false;
    }
    const size_t length = strlen(text);
    char *line = malloc(length + 2);
    bool ok = line != NULL;
    if (ok) {
        memcpy(line, text, length);
        line[length] = '\n';
        ok = tool_write_file(path, line, length + 1, NULL);
    }
    free(line);
    cJSON_free(text);
    return ok;
}
#endif

/* The first line of every build.ninja ossa batch writes: a build.ninja without it is not
 * replaced, and no file is removed from its folder. */
#define MANIFEST_MARK "# Written by ossa batch"

/* Writes OUT_DIR/build.ninja: one edge per source of `sources` (relative to src_root) that has
 * no problem, with its skeleton ([i], NULL for none) as an implicit input and option. */
static bool write_build_file(const char *out_dir, const char *exe, const char *src_root, const source_list *sources,
                             const char *const *skeletons, const char *const *problems, const char *shard,
                             const batch_options *o)
{
    char path[PATH_MAX], tmp[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/build.ninja", out_dir) >= (int)sizeof path ||
        snprintf(tmp, sizeof tmp, "%s/.build.ninja.tmp", out_dir) >= (int)sizeof tmp)
        return false;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        fprintf(stderr, "ossa: batch: cannot write %s: %s\n", tmp, strerror(errno));
        return false;
    }
    fprintf(f,
            MANIFEST_MARK
            "; run again to update. The command line is part of each edge:\n"
            "# changing an option rebakes everything.\n# shard %s\nninja_required_version = 1.3\n\nossa = ",
            shard);
    put_shell_word(f, exe);
    fprintf(f, "\noptions = --threads 1%s%s%s%s%s%s%s%s%s\n", o->tolerance[0] ? " --tolerance " : "", o->tolerance,
            o->unit_scale[0] ? " --unit-scale " : "", o->unit_scale, o->no_optimize ? " --no-optimize" : "",
            o->drop_end_sites ? " --drop-end-sites" : "", o->keep_source_units ? " --keep-source-units" : "",
            o->allow_over_tolerance ? " --allow-over-tolerance" : "", o->sorted_layout ? " --layout sorted" : "");
    /* The bake's standard error also goes to $out.err, where the summary finds a failed bake's
     * error line (read_error removes the file); ninja shows it as ever. */
    fprintf(f, "\nrule bake\n  command = $ossa bake $in -o $out --depfile $out.d -q $options $skeleton 2> $out.err; "
               "status=$$?; cat $out.err >&2; [ $$status -ne 0 ] || rm -f $out.err; exit $$status\n"
               "  description = bake $source\n  depfile = $out.d\n  deps = gcc\n  restat = 1\n\n");
    for (size_t i = 0; i < sources->count; ++i) {
        const char *rel = sources->items[i].path;
        if (problems[i]) {
            char shown[PATH_MAX];
            fprintf(f, "# not baked: %s: %s\n", shown_name(rel, shown, sizeof shown), problems[i]);
            continue;
        }
        char full[PATH_MAX], output[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", src_root, rel);
        snprintf(output, sizeof output, "%s.ossa", rel);
        define_path(f, "output_path", output);
        define_path(f, "input_path", full);
        define_path(f, "exe_path", exe);
        if (skeletons[i]) define_path(f, "skeleton_path", skeletons[i]);
        fputs("build ", f);
        put_edge_path(f, "output_path", output);
        fputs(": bake ", f);
        put_edge_path(f, "input_path", full);
        fputs(" | ", f);
        put_edge_path(f, "exe_path", exe);
        if (skeletons[i]) fputc(' ', f), put_edge_path(f, "skeleton_path", skeletons[i]);
        fputs("\n  source = ", f);
        put_ninja_text(f, rel);
        if (skeletons[i]) fputs("\n  skeleton = --skeleton ", f), put_shell_word(f, skeletons[i]);
        fputs("\n", f);
    }
    const bool ok = !ferror(f);
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        fprintf(stderr, "ossa: batch: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return false;
    }
    return true;
}

/* The build.ninja already in out_dir: false (with the reason printed) when there is one that
 * ossa batch did not write; else *ours tells whether there is one, and `shard` receives its
 * shard line ("I/N"; "" when it has none). */
static bool previous_manifest(const char *out_dir, bool *ours, char *shard, size_t size)
{
    char path[PATH_MAX], line[256];
    *ours = false;
    shard[0] = '\0';
    if (snprintf(path, sizeof path, "%s/build.ninja", out_dir) >= (int)sizeof path) return false;
    FILE *f = fopen(path, "r");
    if (!f) return true;
    const bool marked = fgets(line, sizeof line, f) && !strncmp(line, MANIFEST_MARK, strlen(MANIFEST_MARK));
    while (marked && fgets(line, sizeof line, f) && line[0] == '#')
        if (!strncmp(line, "# shard ", 8)) snprintf(shard, size, "%.*s", (int)strcspn(line + 8, "\n"), line + 8);
    fclose(f);
    if (!marked)
        fprintf(stderr, "ossa: batch: %s exists and was not written by ossa batch: give an OUT_DIR of its own\n", path);
    *ours = marked;
    return marked;
}

/* Runs `ninja -C out_dir ARGS...` (args NULL-terminated). With `on_line`, ninja's standard
 * output goes to on_line(line, user) a line at a time (newline removed; NINJA_STATUS set to
 * ninja's default, whatever the user's, so that the lines parse); without, ninja prints as it
 * does. Returns ninja's exit status, or -1 when it could not run. */
static int ninja_run(const char *ninja, const char *out_dir, const char *const *args, void (*on_line)(char *, void *),
                     void *user)
{
    enum { MAX_ARGS = 16 };
    char *argv[MAX_ARGS] = {(char *)(uintptr_t)ninja, "-C", (char *)(uintptr_t)out_dir};
    size_t n = 3;
    while (*args && n < MAX_ARGS - 1) argv[n++] = (char *)(uintptr_t)*args++;
    argv[n] = NULL;
    int fds[2] = {-1, -1};
    if (on_line && pipe(fds) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        if (on_line) close(fds[0]), close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        if (on_line) {
            close(fds[0]);
            dup2(fds[1], STDOUT_FILENO);
            close(fds[1]);
            setenv("NINJA_STATUS", "[%f/%t] ", 1);
        }
        execv(ninja, argv);
        _exit(127);
    }
    if (on_line) {
        close(fds[1]);
        FILE *f = fdopen(fds[0], "r");
        char *line = NULL;
        size_t capacity = 0;
        /* Whole lines, however long: a line cut in two would read as two paths. */
        while (f && getline(&line, &capacity, f) >= 0) {
            line[strcspn(line, "\n")] = '\0';
            on_line(line, user);
        }
        free(line);
        if (f)
            fclose(f);
        else
            close(fds[0]);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Paths, one a line of ninja's output. */
typedef struct path_list {
    char **items; /* [count] */
    size_t count, capacity;
    bool failed; /* out of memory */
} path_list;

static void path_line(char *line, void *user)
{
    path_list *list = user;
    if (list->failed || !*line) return;
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity ? list->capacity * 2 : 64;
        char **grown = realloc(list->items, capacity * sizeof *grown);
        if (!grown) {
            list->failed = true;
            return;
        }
        list->items = grown;
        list->capacity = capacity;
    }
    if (!(list->items[list->count] = strdup(line)))
        list->failed = true;
    else
        ++list->count;
}

static void path_list_free(path_list *list)
{
    for (size_t i = 0; i < list->count; ++i) free(list->items[i]);
    free(list->items);
    *list = (path_list){0};
}

/* The outputs of rule bake in out_dir's build.ninja as it is now (before it is rewritten):
 * ninja -C out_dir -t targets rule bake, so that the file is read by ninja's own parser. False
 * when ninja cannot read it. */
static bool previous_outputs(const char *ninja, const char *out_dir, path_list *outputs)
{
    const char *const args[] = {"-t", "targets", "rule", "bake", NULL};
    return ninja_run(ninja, out_dir, args, path_line, outputs) == 0 && !outputs->failed;
}

/* Runs ninja -C out_dir -j jobs -k 0; its exit status, or -1 when it could not run. */
static int run_ninja(const char *ninja, const char *out_dir, unsigned jobs)
{
    char jobs_text[16];
    snprintf(jobs_text, sizeof jobs_text, "%u", jobs);
    const char *const args[] = {"-j", jobs_text, "-k", "0", NULL};
    return ninja_run(ninja, out_dir, args, NULL, NULL);
}

/* `path` made absolute against the working folder, without "." components, repeated or
 * trailing slashes (".." and symbolic links are kept: the paths stay as the user named them). */
static bool absolute_path(const char *path, char *out, size_t size)
{
    char joined[PATH_MAX];
    if (path[0] == '/')
        snprintf(joined, sizeof joined, "%s", path);
    else if (!getcwd(joined, sizeof joined) || strlen(joined) + strlen(path) + 2 > sizeof joined)
        return false;
    else
        strcat(strcat(joined, "/"), path);
    size_t n = 0;
    for (const char *c = joined; *c;) {
        const size_t length = strcspn(c, "/");
        if (length && !(length == 1 && c[0] == '.')) {
            if (n + length + 2 > size) return false;
            out[n++] = '/';
            memcpy(out + n, c, length);
            n += length;
        }
        c += length + (c[length] == '/');
    }
    if (n == 0) out[n++] = '/';
    out[n] = '\0';
    return true;
}

/* The sources find_stale marks, and the marks. */
typedef struct stale_marks {
    const source_list *sources;
    bool *stale;
} stale_marks;

/* A "[i/n] bake SOURCE" line of ninja -n: marks SOURCE. */
static void stale_line(char *line, void *user)
{
    const stale_marks *m = user;
    const char *at = strstr(line, "] bake ");
    if (line[0] != '[' || !at) return;
    const source key = {.path = (char *)(uintptr_t)(at + strlen("] bake "))};
    const source *found =
        bsearch(&key, m->sources->items, m->sources->count, sizeof *m->sources->items, compare_sources);
    if (found) m->stale[found - m->sources->items] = true;
}

/* After a failed ninja run: the sources whose edge is still out of date (ninja -n lists them as
 * "[i/n] bake SOURCE"), so that an archive left from an earlier run is not reported as baked.
 * Marks them in `stale` ([sources->count]); false when ninja -n could not run. */
static bool find_stale(const char *ninja, const char *out_dir, const source_list *sources, bool *stale)
{
    const char *const args[] = {"-n", "-k", "0", NULL};
    stale_marks marks = {sources, stale};
    return ninja_run(ninja, out_dir, args, stale_line, &marks) == 0;
}

#define MAX_SKELETON_RULES 64

/* One --skeleton argument: PATTERN=FILE, or FILE alone (its folder's tree). */
typedef struct skeleton_rule {
    const char *argument; /* as given */
    const char *pattern;  /* into `text`; NULL for FILE alone */
    char file[PATH_MAX];  /* absolute */
    char scope[PATH_MAX]; /* FILE alone: the folder whose tree it serves; "" for every source */
    char text[PATH_MAX];  /* the argument's copy the pattern points into */
} skeleton_rule;

/* Resolves `argument` against src_root; prints the error and returns false when its file
 * cannot be read. An argument naming an existing file is FILE alone, '=' or not. */
static bool parse_skeleton_rule(const char *argument, const char *src_root, skeleton_rule *rule)
{
    rule->argument = argument;
    rule->pattern = NULL;
    rule->scope[0] = '\0';
    const char *equals = strchr(argument, '=');
    if (equals && access(argument, F_OK) != 0) {
        snprintf(rule->text, sizeof rule->text, "%.*s", (int)(equals - argument), argument);
        rule->pattern = rule->text;
        const char *file = equals + 1;
        char joined[PATH_MAX];
        if (!*rule->pattern || !*file) {
            fprintf(stderr, "ossa: batch: --skeleton %s: expected PATTERN=FILE with both parts, or FILE\n", argument);
            return false;
        }
        if ((file[0] != '/' && snprintf(joined, sizeof joined, "%s/%s", src_root, file) >= (int)sizeof joined) ||
            !absolute_path(file[0] == '/' ? file : joined, rule->file, sizeof rule->file) ||
            access(rule->file, R_OK) != 0) {
            fprintf(stderr, "ossa: batch: --skeleton %s: cannot read %s: %s (FILE is relative to SRC_DIR)\n", argument,
                    file[0] == '/' ? file : joined, strerror(errno));
            return false;
        }
        return true;
    }
    if (!absolute_path(argument, rule->file, sizeof rule->file) || access(rule->file, R_OK) != 0) {
        fprintf(stderr, "ossa: batch: --skeleton %s: %s\n", argument, strerror(errno));
        return false;
    }
    /* FILE alone serves its folder's tree when it lies inside the sources, else all. */
    char folder[PATH_MAX];
    snprintf(folder, sizeof folder, "%s", rule->file);
    *strrchr(folder, '/') = '\0';
    const size_t root_length = strlen(src_root);
    if (!strncmp(folder, src_root, root_length) && (folder[root_length] == '\0' || folder[root_length] == '/'))
        snprintf(rule->scope, sizeof rule->scope, "%s", folder);
    return true;
}

/* Whether the source at `rel` (full path `full`) takes the rule's skeleton: never the
 * skeleton file itself. A pattern matches the whole relative path ('*' stays within a
 * folder); a pattern ending in '/' matches the folders it names and everything below. */
static bool rule_matches(const skeleton_rule *rule, const char *rel, const char *full)
{
    if (!strcmp(full, rule->file)) return false;
    if (!rule->pattern) {
        const size_t n = strlen(rule->scope);
        return !n || (!strncmp(full, rule->scope, n) && full[n] == '/');
    }
    if (fnmatch(rule->pattern, rel, FNM_PATHNAME) == 0) return true;
    const size_t n = strlen(rule->pattern);
    if (n < 2 || rule->pattern[n - 1] != '/') return false;
    char folder_pattern[PATH_MAX], folder[PATH_MAX];
    snprintf(folder_pattern, sizeof folder_pattern, "%.*s", (int)(n - 1), rule->pattern);
    for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
        snprintf(folder, sizeof folder, "%.*s", (int)(slash - rel), rel);
        if (fnmatch(folder_pattern, folder, FNM_PATHNAME) == 0) return true;
    }
    return false;
}

/* The length of the folder part of `rel` ("" at the top: 0). */
static size_t folder_length(const char *rel)
{
    const char *slash = strrchr(rel, '/');
    return slash ? (size_t)(slash - rel) : 0;
}

static const char *kind_name(ossa_import_format format)
{
    return format == OSSA_FORMAT_METROID_CINF ? "Metroid CINF"
           : format == OSSA_FORMAT_OZZ        ? "ozz skeleton"
                                              : "skeleton";
}

/* The skeleton of each source of `mine` into skeletons[i] (absolute, malloc'd; NULL for none)
 * or, for a source that needs one and finds none, the reason into problems[i] (malloc'd):
 * the first rule that matches; else, for a source that needs a skeleton, the one skeleton file
 * of its kind in its folder among `all` (every source, whatever the shard). False when out of
 * memory. */
static bool bind_skeletons(const char *src_root, const skeleton_rule *rules, size_t rule_count, const source_list *all,
                           const source_list *mine, char **skeletons, char **problems)
{
    char full[PATH_MAX], text[PATH_MAX + 512];
    for (size_t i = 0; i < mine->count; ++i) {
        const source *s = &mine->items[i];
        if (s->refused) {
            if (!(problems[i] = strdup(s->refused))) return false;
            continue;
        }
        snprintf(full, sizeof full, "%s/%s", src_root, s->path);
        const skeleton_rule *rule = NULL;
        for (size_t r = 0; !rule && r < rule_count; ++r)
            if (rule_matches(&rules[r], s->path, full)) rule = &rules[r];
        if (rule) {
            if (!(skeletons[i] = strdup(rule->file))) return false;
            continue;
        }
        if (s->role != ROLE_NEEDS) continue;
        const ossa_import_format kind = skeleton_format_for(s->format);
        const size_t folder = folder_length(s->path);
        const source *found = NULL;
        size_t candidates = 0;
        int n = 0;
        for (size_t j = 0; kind != OSSA_FORMAT_UNKNOWN && j < all->count; ++j) {
            const source *c = &all->items[j];
            if (c->role != ROLE_SKELETON || c->format != kind || folder_length(c->path) != folder ||
                strncmp(c->path, s->path, folder))
                continue;
            if (!found) found = c; /* the first: the only one, or the example of the message */
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", candidates ? ", " : "",
                          c->path + folder + (folder > 0));
            if (n >= (int)(sizeof text / 2)) n = (int)(sizeof text / 2); /* long lists are cut */
            ++candidates;
        }
        if (candidates == 1) {
            snprintf(full, sizeof full, "%s/%s", src_root, found->path);
            if (!(skeletons[i] = strdup(full))) return false;
            continue;
        }
        char folder_text[PATH_MAX];
        snprintf(folder_text, sizeof folder_text, "%.*s/", (int)folder, s->path);
        const char *shown = folder ? folder_text : "SRC_DIR's top folder";
        char reason[4 * PATH_MAX + 1024];
        if (kind == OSSA_FORMAT_UNKNOWN)
            snprintf(reason, sizeof reason,
                     "needs a skeleton from another file (%s); give one with --skeleton 'PATTERN=FILE'",
                     ossa_import_format_name(s->format));
        else if (candidates == 0)
            snprintf(
                reason, sizeof reason,
                "needs a skeleton: no %s file in %s; give one with --skeleton PATTERN=FILE (FILE relative to SRC_DIR)",
                kind_name(kind), shown);
        else
            snprintf(reason, sizeof reason,
                     "needs a skeleton: %zu %s files in %s (%s); choose one with --skeleton PATTERN=FILE, e.g. "
                     "'%s*=%s%s'",
                     candidates, kind_name(kind), shown, text, folder ? folder_text : "", folder ? folder_text : "",
                     found->path + folder + (folder > 0));
        if (!(problems[i] = strdup(reason))) return false;
    }
    return true;
}

/* Parses "I/N" with 1 <= I <= N. */
static bool parse_shard(const char *text, unsigned *index, unsigned *count)
{
    char *end;
    const long i = strtol(text, &end, 10);
    if (end == text || *end != '/') return false;
    const char *second = end + 1;
    const long n = strtol(second, &end, 10);
    if (end == second || *end || n < 1 || n > 1000000 || i < 1 || i > n) return false;
    *index = (unsigned)i;
    *count = (unsigned)n;
    return true;
}

int tool_batch(int argc, char **argv)
{
    const char *src = NULL, *out = NULL, *json = NULL, *exe_arg = NULL;
    const char *skeleton_args[MAX_SKELETON_RULES];
    size_t rule_count = 0;
    batch_options o = {0};
    unsigned jobs = tool_cpu_count(), shard = 1, shards = 1;
    bool allow_inside = false;
    exclude_list excludes = {0};
    for (int i = 0; i < argc; ++i) {
        float value;
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc) {
            if (rule_count == MAX_SKELETON_RULES)
                return batch_usage_error("--skeleton is given more than 64 times", argv[i + 1]);
            skeleton_args[rule_count++] = argv[++i];
        } else if (!strcmp(argv[i], "--exclude") && i + 1 < argc) {
            if (excludes.count == MAX_EXCLUDES)
                return batch_usage_error("--exclude is given more than 64 times", argv[i + 1]);
            if (!argv[i + 1][0]) return batch_usage_error("--exclude needs a pattern", argv[i + 1]);
            excludes.patterns[excludes.count++] = argv[++i];
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--ossa") && i + 1 < argc)
            exe_arg = argv[++i];
        else if (!strcmp(argv[i], "--no-optimize"))
            o.no_optimize = true;
        else if (!strcmp(argv[i], "--drop-end-sites"))
            o.drop_end_sites = true;
        else if (!strcmp(argv[i], "--keep-source-units"))
            o.keep_source_units = true;
        else if (!strcmp(argv[i], "--allow-over-tolerance"))
            o.allow_over_tolerance = true;
        else if (!strcmp(argv[i], "--layout") && i + 1 < argc) {
            ++i;
            if (strcmp(argv[i], "packed") && strcmp(argv[i], "sorted"))
                return batch_usage_error("--layout needs packed or sorted", argv[i]);
            o.sorted_layout = !strcmp(argv[i], "sorted");
        }
        else if (!strcmp(argv[i], "--allow-out-inside-src"))
            allow_inside = true;
        else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], 1e-7f, 1.f, &value))
                return batch_usage_error("--tolerance needs metres from 1e-7 to 1", argv[i]);
            tool_format_float(o.tolerance, sizeof o.tolerance, value);
        } else if (!strcmp(argv[i], "--unit-scale") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], TOOL_UNIT_SCALE_MIN, TOOL_UNIT_SCALE_MAX, &value))
                return batch_usage_error("--unit-scale needs metres per unit from 1e-6 to 1e4", argv[i]);
            tool_format_float(o.unit_scale, sizeof o.unit_scale, value);
        } else if ((!strcmp(argv[i], "-j") && i + 1 < argc) || (!strncmp(argv[i], "-j", 2) && argv[i][2])) {
            const char *text = argv[i][2] ? argv[i] + 2 : argv[++i];
            char *end;
            const long n = strtol(text, &end, 10);
            if (*end || end == text || n < 1 || n > 1024) return batch_usage_error("-j needs 1 to 1024", argv[i]);
            jobs = (unsigned)n;
        } else if (!strcmp(argv[i], "--shard") && i + 1 < argc) {
            if (!parse_shard(argv[++i], &shard, &shards))
                return batch_usage_error("--shard needs I/N with 1 <= I <= N", argv[i]);
        } else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage_batch(stdout), 0;
        else if (argv[i][0] == '-' || src)
            return batch_usage_error("unexpected argument", argv[i]);
        else
            src = argv[i];
    }
    if (!src || !out) return tool_usage_error("batch", "%s", !src ? "SRC_DIR is missing" : "-o OUT_DIR is missing");
#ifndef OSSA_HAVE_CJSON
    if (json) {
        fprintf(stderr, "ossa: batch: --json needs cJSON, which this ossa was built without (libcjson-dev)\n");
        return 1;
    }
#endif
    char ninja[PATH_MAX];
    if (!find_in_path("ninja", ninja, sizeof ninja)) {
        fprintf(stderr, "ossa: batch: ninja is not in PATH (install ninja-build)\n");
        return 1;
    }
    char exe[PATH_MAX], src_root[PATH_MAX], out_dir[PATH_MAX], src_real[PATH_MAX], out_real[PATH_MAX];
    const ssize_t exe_length = exe_arg ? 0 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (exe_arg ? !absolute_path(exe_arg, exe, sizeof exe) : exe_length <= 0) {
        fprintf(stderr, "ossa: batch: cannot find the ossa executable (%s); give --ossa EXE\n", strerror(errno));
        return 1;
    }
    if (!exe_arg) exe[exe_length] = '\0';
    struct stat src_st;
    if (!absolute_path(src, src_root, sizeof src_root) || stat(src_root, &src_st) != 0 || !S_ISDIR(src_st.st_mode)) {
        fprintf(stderr, "ossa: batch: %s is not a folder\n", src);
        return 1;
    }
    /* Every edge names these paths: a line break in one would break every line. */
    if (strpbrk(src_root, "\n\r") || strpbrk(exe, "\n\r")) {
        fprintf(stderr,
                "ossa: batch: the path of %s holds a line break or carriage return, which build.ninja "
                "cannot carry\n",
                strpbrk(exe, "\n\r") ? "the ossa executable" : "SRC_DIR");
        return 2;
    }
    /* Compared resolved (symbolic links, "..") before OUT_DIR is created: an OUT_DIR that is
     * SRC_DIR, or lies in it, would have its archives and build.ninja among the sources. */
    if (!absolute_path(out, out_dir, sizeof out_dir)) {
        fprintf(stderr, "ossa: batch: path too long: %s\n", out);
        return 1;
    }
    const int place = tool_batch_check_out(src, out, allow_inside, src_real, out_real);
    if (place != 0) return place;
    skeleton_rule *rules = calloc(rule_count + 1, sizeof *rules);
    if (!rules) return fprintf(stderr, "ossa: batch: out of memory\n"), 1;
    source_list all = {0}, mine = {0};
    int status = 1, lock = -1, out_fd = -1;
    batch_row *rows = NULL;
    char **skeletons = NULL, **problems = NULL;
    path_list before = {0};
    for (size_t r = 0; r < rule_count; ++r) {
        if (!parse_skeleton_rule(skeleton_args[r], src_root, &rules[r])) goto done;
        if (strpbrk(rules[r].file, "\n\r")) {
            char shown[PATH_MAX];
            fprintf(stderr,
                    "ossa: batch: --skeleton %s: the path holds a line break or carriage return, which "
                    "build.ninja cannot carry\n",
                    shown_name(rules[r].file, shown, sizeof shown));
            goto done;
        }
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ossa: batch: cannot create %s: %s\n", out, strerror(errno));
        goto done;
    }
    struct stat out_st;
    if (stat(out_dir, &out_st) != 0 || !S_ISDIR(out_st.st_mode)) {
        fprintf(stderr, "ossa: batch: %s is not a folder\n", out);
        goto done;
    }
    /* An OUT_DIR that holds another build.ninja is left alone (not even locked); the archives
     * of removed sources are removed only when the last run here baked this shard or this run
     * bakes all. The manifest is read again once locked: another run may have rewritten it. */
    bool had_manifest = false;
    char shard_text[32], previous_shard[32];
    snprintf(shard_text, sizeof shard_text, "%u/%u", shard, shards);
    if (!previous_manifest(out_dir, &had_manifest, previous_shard, sizeof previous_shard)) goto done;
    if ((lock = tool_batch_lock(out_dir)) < 0) goto done;
    if (!previous_manifest(out_dir, &had_manifest, previous_shard, sizeof previous_shard)) goto done;
    const bool clean = had_manifest && (shards == 1 || !strcmp(previous_shard, shard_text));
    if (!walk(src_root, "", &out_st, &excludes, &all)) goto done;
    for (size_t i = 0; i < excludes.count; ++i)
        if (!excludes.matched[i])
            fprintf(stderr,
                    "ossa: batch: warning: --exclude '%s' matches nothing under %s ('*' and '?' stay within a "
                    "folder)\n",
                    excludes.patterns[i], src);
    qsort(all.items, all.count, sizeof *all.items, compare_sources);
    for (size_t i = 0; i < all.count; ++i)
        if (i % shards == shard - 1 && !list_add(&mine, all.items[i])) goto done;
    if (mine.count == 0) fprintf(stderr, "ossa: batch: no importable file under %s\n", src);
    skeletons = calloc(mine.count + 1, sizeof *skeletons);
    problems = calloc(mine.count + 1, sizeof *problems);
    if (!skeletons || !problems || !bind_skeletons(src_root, rules, rule_count, &all, &mine, skeletons, problems)) {
        fprintf(stderr, "ossa: batch: out of memory\n");
        goto done;
    }
    /* Removed sources: the archives the build.ninja still in place declares and the new one
     * will not (source gone, or not baked any more), removed before that file is replaced so
     * that a run cut short here leaves the record for the next. Not .ninja_log: its paths are
     * whatever was ever built here, or whatever someone wrote into it. */
    if (clean && !previous_outputs(ninja, out_dir, &before))
        fprintf(stderr,
                "ossa: batch: ninja cannot list the outputs of %s/build.ninja: archives of removed sources are "
                "left in %s\n",
                out, out);
    else if (clean && (out_fd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
        fprintf(stderr, "ossa: batch: cannot open %s: %s\n", out, strerror(errno));
    for (size_t i = 0; out_fd >= 0 && i < before.count; ++i) {
        const char *output = before.items[i];
        const size_t length = strlen(output);
        char rel[PATH_MAX];
        const source *found = NULL;
        if (length > 5 && length - 5 < sizeof rel && !strcmp(output + length - 5, ".ossa")) {
            snprintf(rel, sizeof rel, "%.*s", (int)(length - 5), output);
            const source key = {.path = rel};
            found = bsearch(&key, mine.items, mine.count, sizeof *mine.items, compare_sources);
        }
        if (!found || problems[found - mine.items]) tool_batch_remove_output(out_fd, output);
    }
    if (!write_build_file(out_dir, exe, src_root, &mine, (const char *const *)skeletons, (const char *const *)problems,
                          shard_text, &o))
        goto done;
    if (had_manifest && !clean)
        printf("archives of removed sources are kept: %s last held shard %s, this run bakes %s\n", out,
               previous_shard[0] ? previous_shard : "(unknown)", shard_text);
    const int ninja_status = run_ninja(ninja, out_dir, jobs);
    if (ninja_status < 0 || ninja_status == 127) {
        fprintf(stderr, "ossa: batch: could not run %s\n", ninja);
        goto done;
    }
    rows = calloc(mine.count + 1, sizeof *rows);
    if (!rows) goto done;
    bool *stale = calloc(mine.count + 1, sizeof *stale);
    if (!stale) goto done;
    if (ninja_status != 0 && !find_stale(ninja, out_dir, &mine, stale))
        fprintf(stderr, "ossa: batch: ninja -n failed: the summary may list archives of an earlier run\n");
    size_t failed = 0;
    for (size_t i = 0; i < mine.count; ++i) {
        const char *rel = mine.items[i].path;
        rows[i] = stale[i] || problems[i] ? (batch_row){.source = rel, .source_bytes = -1, .bytes = -1}
                                          : read_row(src_root, out_dir, rel);
        rows[i].problem = problems[i];
        rows[i].refused = mine.items[i].refused != NULL;
        rows[i].skeleton = skeletons[i];
        if (rows[i].bytes < 0 && !problems[i]) {
            if (out_fd < 0) out_fd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            rows[i].error = read_error(out_dir, out_fd, rel);
        }
        failed += rows[i].bytes < 0;
    }
    free(stale);
    print_summary(rows, mine.count);
    status = ninja_status != 0 || failed ? 1 : 0;
#ifdef OSSA_HAVE_CJSON
    if (json && !write_json(json, rows, mine.count, ninja_status)) status = 1;
#endif
done:
    for (size_t i = 0; i < mine.count; ++i) {
        if (skeletons) free(skeletons[i]);
        if (problems) free(problems[i]);
    }
    free(skeletons);
    free(problems);
    for (size_t i = 0; rows && i < mine.count; ++i) free(rows[i].error);
    free(rows);
    free(rules);
    list_free(&all);
    list_free(&mine);
    path_list_free(&before);
    if (out_fd >= 0) close(out_fd);
    if (lock >= 0) close(lock);
    return status;
}
