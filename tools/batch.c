/* ossa batch: every importable file under a folder, baked through a generated build.ninja, so
 * that ninja gives the parallelism, the progress and the incremental rebuilds. */
#include <dirent.h>
#include <errno.h>
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
#include "ossa/skeleton.h"
#include "tools.h"

/* Detection reads this much of each file (the content sniffs look at the first bytes). */
#define SNIFF_BYTES 4096

static void usage_batch(void)
{
    fprintf(stderr, "usage: ossa batch SRC_DIR -o OUT_DIR [--skeleton FILE] [--drop-end-sites]\n"
                    "                  [--tolerance METRES | --no-optimize] [--unit-scale METRES]\n"
                    "                  [-j N] [--shard I/N] [--json FILE] [--ossa EXE]\n"
                    "  bakes every file under SRC_DIR that `ossa formats` recognises (not .ossa, not hidden)\n"
                    "  into OUT_DIR/<relative path>.ossa: writes OUT_DIR/build.ninja, runs ninja, prints a summary\n"
                    "  --skeleton FILE   given to the sources in FILE's folder and below (to all sources when\n"
                    "                    FILE is outside SRC_DIR); the other options are ossa bake's\n"
                    "  -j N              parallel bakes (default: the online CPUs); each bake uses one thread\n"
                    "  --shard I/N       only the sources whose index in path order, modulo N, is I-1 (I from 1)\n"
                    "  --json FILE       also write the summary as JSON\n"
                    "  --ossa EXE        the ossa executable the bakes run (default: this one)\n");
}

static int batch_usage_error(const char *what, const char *argument)
{
    fprintf(stderr, "ossa: batch: %s (found \"%s\")\n\n", what, argument);
    usage_batch();
    return 2;
}

typedef struct source_list {
    char **paths; /* [count], relative to the source folder, sorted */
    size_t count, capacity;
} source_list;

static bool list_add(source_list *list, const char *path)
{
    if (list->count == list->capacity) {
        const size_t capacity = list->capacity ? list->capacity * 2 : 64;
        char **grown = realloc(list->paths, capacity * sizeof *grown);
        if (!grown) return false;
        list->paths = grown;
        list->capacity = capacity;
    }
    return (list->paths[list->count] = strdup(path)) ? ++list->count, true : false;
}

static void list_free(source_list *list)
{
    for (size_t i = 0; i < list->count; ++i) free(list->paths[i]);
    free(list->paths);
    *list = (source_list){0};
}

static int compare_paths(const void *pa, const void *pb) { return strcmp(*(char *const *)pa, *(char *const *)pb); }

/* True when the first bytes of `path` (and its name) are a format ossa imports. */
static bool importable(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    unsigned char head[SNIFF_BYTES];
    const size_t size = fread(head, 1, sizeof head, f);
    fclose(f);
    const ossa_import_format format = ossa_import_detect(head, size, tool_base_name(path));
    return format != OSSA_FORMAT_UNKNOWN && format != OSSA_FORMAT_OSSA;
}

/* Adds the importable files under root/rel (rel "" for root), skipping hidden entries, symbolic
 * links to folders and the folder `skip` (the output, when it lies inside). False on error. */
static bool walk(const char *root, const char *rel, const struct stat *skip, source_list *list)
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
            if (!(st.st_dev == skip->st_dev && st.st_ino == skip->st_ino)) ok = walk(root, child, skip, list);
        } else if ((S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && stat(full, &st) == 0 && S_ISREG(st.st_mode))) &&
                   importable(full)) {
            if (strchr(child, '\n'))
                fprintf(stderr, "ossa: batch: skipped a file whose name has a line break under %s\n", folder);
            else
                ok = list_add(list, child);
        }
    }
    closedir(d);
    return ok;
}

/* Writes `path` as ninja reads a path: '$', ' ' and ':' escaped with '$'. */
static void put_ninja_path(FILE *f, const char *path)
{
    for (const char *c = path; *c; ++c) {
        if (*c == '$' || *c == ' ' || *c == ':') fputc('$', f);
        fputc(*c, f);
    }
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
    bool no_optimize, drop_end_sites;
} batch_options;

/* One summary row: what the archive of a source holds, read back with the runtime. */
typedef struct batch_row {
    const char *source;     /* relative path */
    long long source_bytes; /* -1 when unknown */
    long long bytes;        /* archive bytes; -1 when the bake failed */
    size_t joints, animations;
    float duration;     /* seconds, the longest clip */
    float max_error_mm; /* -1 when the archive records none (lossless, no animation) */
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
    for (size_t a = 0; a < row.animations; ++a) {
        ossa_animation anim;
        if (ossa_archive_animation(&ar, a, &anim) == OSSA_OK && anim.duration > row.duration)
            row.duration = anim.duration;
    }
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

static void print_summary(const batch_row *rows, size_t count)
{
    int width = 24; /* the clip column fits the longest path */
    for (size_t i = 0; i < count; ++i)
        if (strlen(rows[i].source) > (size_t)width)
            width = strlen(rows[i].source) < 200 ? (int)strlen(rows[i].source) : 200;
    printf("\n%-*s %6s %5s %8s %12s %10s %7s %10s\n", width, "clip", "joints", "anims", "seconds", "source bytes",
           "bytes", "ratio", "worst mm");
    long long source_total = 0, baked_total = 0;
    size_t failed = 0;
    for (size_t i = 0; i < count; ++i) {
        const batch_row *r = &rows[i];
        if (r->bytes < 0) {
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
    printf("%zu sources, %zu baked, %zu failed; %lld source bytes -> %lld bytes\n", count, count - failed, failed,
           source_total, baked_total);
}

#ifdef OSSA_HAVE_CJSON
static bool write_json(const char *path, const batch_row *rows, size_t count, int ninja_status)
{
    cJSON *root = cJSON_CreateObject(), *list = cJSON_AddArrayToObject(root, "sources");
    for (size_t i = 0; list && i < count; ++i) {
        const batch_row *r = &rows[i];
        cJSON *o = cJSON_CreateObject();
        if (!o || !cJSON_AddItemToArray(list, o)) break;
        cJSON_AddStringToObject(o, "source", r->source);
        cJSON_AddBoolToObject(o, "baked", r->bytes >= 0);
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

/* Writes OUT_DIR/build.ninja for `sources` (relative to src_root). */
static bool write_build_file(const char *out_dir, const char *exe, const char *src_root, const source_list *sources,
                             const char *skeleton, const char *skeleton_scope, const batch_options *o)
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
    fprintf(f, "# Written by ossa batch; run again to update. The command line is part of each edge:\n"
               "# changing an option rebakes everything.\nninja_required_version = 1.3\n\nossa = ");
    put_shell_word(f, exe);
    fprintf(f, "\noptions = --threads 1%s%s%s%s%s%s\n", o->tolerance[0] ? " --tolerance " : "", o->tolerance,
            o->unit_scale[0] ? " --unit-scale " : "", o->unit_scale, o->no_optimize ? " --no-optimize" : "",
            o->drop_end_sites ? " --drop-end-sites" : "");
    fprintf(f, "\nrule bake\n  command = $ossa bake $in -o $out --depfile $out.d -q $options $skeleton\n"
               "  description = bake $source\n  depfile = $out.d\n  deps = gcc\n  restat = 1\n\n");
    const size_t scope_length = skeleton_scope ? strlen(skeleton_scope) : 0;
    for (size_t i = 0; i < sources->count; ++i) {
        const char *rel = sources->paths[i];
        char full[PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", src_root, rel);
        const bool with_skeleton =
            skeleton && strcmp(full, skeleton) &&
            (!skeleton_scope || (!strncmp(full, skeleton_scope, scope_length) && full[scope_length] == '/'));
        fputs("build ", f);
        put_ninja_path(f, rel);
        fputs(".ossa: bake ", f);
        put_ninja_path(f, full);
        fputs(" | ", f);
        put_ninja_path(f, exe);
        if (with_skeleton) fputc(' ', f), put_ninja_path(f, skeleton);
        fputs("\n  source = ", f);
        put_ninja_path(f, rel);
        if (with_skeleton) fputs("\n  skeleton = --skeleton ", f), put_shell_word(f, skeleton);
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

/* Runs ninja -C out_dir -j jobs -k 0; its exit status, or -1 when it could not run. */
static int run_ninja(const char *ninja, const char *out_dir, unsigned jobs)
{
    char jobs_text[16];
    snprintf(jobs_text, sizeof jobs_text, "%u", jobs);
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        char *const argv[] = {
            (char *)(uintptr_t)ninja, "-C", (char *)(uintptr_t)out_dir, "-j", jobs_text, "-k", "0", NULL};
        execv(ninja, argv);
        _exit(127);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
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

/* After a failed ninja run: the sources whose edge is still out of date (ninja -n lists them as
 * "[i/n] bake SOURCE"), so that an archive left from an earlier run is not reported as baked.
 * Marks them in `stale` ([sources->count]); false when ninja -n could not run. */
static bool find_stale(const char *ninja, const char *out_dir, const source_list *sources, bool *stale)
{
    int fds[2];
    if (pipe(fds) != 0) return false;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return false;
    }
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], STDOUT_FILENO);
        close(fds[1]);
        setenv("NINJA_STATUS", "[%f/%t] ", 1); /* the default, whatever the user's */
        char *const argv[] = {(char *)(uintptr_t)ninja, "-C", (char *)(uintptr_t)out_dir, "-n", "-k", "0", NULL};
        execv(ninja, argv);
        _exit(127);
    }
    close(fds[1]);
    FILE *f = fdopen(fds[0], "r");
    char line[PATH_MAX + 64];
    while (f && fgets(line, sizeof line, f)) {
        const char *at = strstr(line, "] bake ");
        if (line[0] != '[' || !at) continue;
        at += strlen("] bake ");
        line[strcspn(line, "\n")] = '\0';
        const char **found = bsearch(&at, sources->paths, sources->count, sizeof *sources->paths, compare_paths);
        if (found) stale[(char *const *)found - sources->paths] = true;
    }
    if (f)
        fclose(f);
    else
        close(fds[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return false;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
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
    const char *src = NULL, *out = NULL, *skeleton_arg = NULL, *json = NULL, *exe_arg = NULL;
    batch_options o = {0};
    unsigned jobs = tool_cpu_count(), shard = 1, shards = 1;
    for (int i = 0; i < argc; ++i) {
        float value;
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton_arg = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--ossa") && i + 1 < argc)
            exe_arg = argv[++i];
        else if (!strcmp(argv[i], "--no-optimize"))
            o.no_optimize = true;
        else if (!strcmp(argv[i], "--drop-end-sites"))
            o.drop_end_sites = true;
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
            return usage_batch(), 0;
        else if (argv[i][0] == '-' || src)
            return batch_usage_error("unexpected argument", argv[i]);
        else
            src = argv[i];
    }
    if (!src || !out) return batch_usage_error(!src ? "SRC_DIR is missing" : "-o OUT_DIR is missing", "");
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
    char exe[PATH_MAX], src_root[PATH_MAX], out_dir[PATH_MAX], skeleton[PATH_MAX], scope[PATH_MAX];
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
    if (skeleton_arg && (!absolute_path(skeleton_arg, skeleton, sizeof skeleton) || access(skeleton, R_OK) != 0)) {
        fprintf(stderr, "ossa: batch: %s: %s\n", skeleton_arg, strerror(errno));
        return 1;
    }
    if (mkdir(out, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "ossa: batch: cannot create %s: %s\n", out, strerror(errno));
        return 1;
    }
    struct stat out_st;
    if (!absolute_path(out, out_dir, sizeof out_dir) || stat(out_dir, &out_st) != 0 || !S_ISDIR(out_st.st_mode)) {
        fprintf(stderr, "ossa: batch: %s is not a folder\n", out);
        return 1;
    }
    /* The skeleton serves its folder's subtree when it lies inside the sources, else all. */
    const char *skeleton_scope = NULL;
    if (skeleton_arg) {
        snprintf(scope, sizeof scope, "%s", skeleton);
        *strrchr(scope, '/') = '\0';
        const size_t root_length = strlen(src_root);
        if (!strncmp(scope, src_root, root_length) && (scope[root_length] == '\0' || scope[root_length] == '/'))
            skeleton_scope = scope;
    }
    source_list all = {0}, mine = {0};
    int status = 1;
    batch_row *rows = NULL;
    if (!walk(src_root, "", &out_st, &all)) goto done;
    qsort(all.paths, all.count, sizeof *all.paths, compare_paths);
    for (size_t i = 0; i < all.count; ++i)
        if (i % shards == shard - 1 && !list_add(&mine, all.paths[i])) goto done;
    if (mine.count == 0) fprintf(stderr, "ossa: batch: no importable file under %s\n", src);
    if (!write_build_file(out_dir, exe, src_root, &mine, skeleton_arg ? skeleton : NULL, skeleton_scope, &o)) goto done;
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
        rows[i] = stale[i] ? (batch_row){.source = mine.paths[i], .source_bytes = -1, .bytes = -1}
                           : read_row(src_root, out_dir, mine.paths[i]);
        failed += rows[i].bytes < 0;
    }
    free(stale);
    print_summary(rows, mine.count);
    status = ninja_status != 0 || failed ? 1 : 0;
#ifdef OSSA_HAVE_CJSON
    if (json && !write_json(json, rows, mine.count, ninja_status)) status = 1;
#endif
done:
    free(rows);
    list_free(&all);
    list_free(&mine);
    return status;
}
