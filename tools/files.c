/* realpath() is an X/Open extension of POSIX. */
#define _XOPEN_SOURCE 700

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_bvh.h"
#include "ossa/offline/import_gltf.h"
#include "ossa/offline/import_maya.h"
#include "ossa/offline/import_metroid.h"
#include "tools.h"

void *tool_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ossa: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    /* Only regular files: a directory or a device has no size to read (and a FIFO no end). */
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        fprintf(stderr, "ossa: cannot read %s: %s\n", path, strerror(errno));
        fclose(f);
        return NULL;
    }
    if (!S_ISREG(st.st_mode) || st.st_size < 0) {
        fprintf(stderr, "ossa: cannot read %s: expected a regular file, found %s\n", path,
                S_ISDIR(st.st_mode) ? "a directory" : "another kind of file");
        fclose(f);
        return NULL;
    }
    const size_t len = (size_t)st.st_size, padded = (len + 16) & ~(size_t)15;
    void *data = len + 16 > len ? aligned_alloc(16, padded) : NULL;
    if (data) memset((char *)data + len, 0, padded - len); /* text readers get a terminating NUL */
    if (!data || fread(data, 1, len, f) != len) {
        fprintf(stderr, "ossa: cannot read %s: %s\n", path, data ? "it changed while being read" : "out of memory");
        free(data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = len;
    return data;
}

/* The folder of `path` ("." when it has none) into `dir`. */
static void folder_of(const char *path, char *dir, size_t size)
{
    snprintf(dir, size, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, size, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
}

bool tool_check_output(const char *path, const char *input)
{
    struct stat out_st, in_st;
    if (!*path) {
        fprintf(stderr, "ossa: the output name is empty\n");
        return false;
    }
    if (stat(path, &out_st) != 0) return true;
    if (!S_ISREG(out_st.st_mode)) {
        fprintf(stderr, "ossa: cannot write %s: it exists and is not a regular file\n", path);
        return false;
    }
    if (input && stat(input, &in_st) == 0 && in_st.st_dev == out_st.st_dev && in_st.st_ino == out_st.st_ino) {
        fprintf(stderr, "ossa: cannot write %s: it is the input file; give another -o\n", path);
        return false;
    }
    return true;
}

bool tool_write_file(const char *path, const void *data, size_t size, const char *input)
{
    if (!tool_check_output(path, input)) return false;
    /* A unique temporary file in the output's folder, renamed over the output when complete:
     * a failure never leaves a partial archive, and the rename stays within one file system. */
    char tmp[4096];
    folder_of(path, tmp, sizeof tmp - 16);
    strcat(tmp, "/.ossa-XXXXXX");
    const int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "ossa: cannot create a temporary file next to %s: %s\n", path, strerror(errno));
        return false;
    }
    FILE *f = fdopen(fd, "wb");
    if (!f) {
        fprintf(stderr, "ossa: cannot write %s: %s\n", path, strerror(errno));
        close(fd);
        remove(tmp);
        return false;
    }
    /* mkstemp creates the file 0600; an archive gets the usual 0666 less the umask. */
    const mode_t mask = umask(0);
    umask(mask);
    const bool ok = fwrite(data, 1, size, f) == size && fchmod(fd, 0666 & ~mask) == 0;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        fprintf(stderr, "ossa: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return false;
    }
    return true;
}

/* True when `path` is relative and has no ".." component: it cannot leave its folder. */
static bool stays_inside(const char *path)
{
    if (path[0] == '/' || path[0] == '\\' || strchr(path, ':')) return false;
    for (const char *c = path; *c;) {
        const size_t len = strcspn(c, "/\\");
        if (len == 2 && c[0] == '.' && c[1] == '.') return false;
        c += len + (c[len] != '\0');
    }
    return true;
}

/* The side-input log of tool_side_inputs_begin: full paths, one a line. */
static char *side_log;
static size_t side_length, side_capacity;
static bool side_logging;

void tool_side_inputs_begin(void)
{
    tool_side_inputs_end();
    side_logging = true;
}

const char *tool_side_inputs(void) { return side_log ? side_log : ""; }

void tool_side_inputs_end(void)
{
    free(side_log);
    side_log = NULL;
    side_length = side_capacity = 0;
    side_logging = false;
}

static void log_side_input(const char *path)
{
    const size_t length = strlen(path);
    if (!side_logging || length + 2 > SIZE_MAX - side_length) return;
    if (side_length + length + 2 > side_capacity) {
        const size_t capacity = (side_length + length + 2) * 2;
        char *grown = realloc(side_log, capacity);
        if (!grown) return;
        side_log = grown;
        side_capacity = capacity;
    }
    memcpy(side_log + side_length, path, length);
    side_length += length;
    side_log[side_length++] = '\n';
    side_log[side_length] = '\0';
}

ossa_result tool_read_relative(const char *path, void **data, size_t *size, void *user)
{
    char full[4096];
    const char *dir = user;
    /* A file named by the input (a glTF buffer URI) resolves only inside the input's folder:
     * a baking service must not put /etc/passwd or ../secret into an archive. */
    if (!stays_inside(path)) {
        fprintf(stderr, "ossa: refused to read \"%s\": the input may only reference files inside its folder\n", path);
        return OSSA_ERROR_IO;
    }
    if (snprintf(full, sizeof full, "%s/%s", dir && *dir ? dir : ".", path) >= (int)sizeof full) return OSSA_ERROR_IO;
    /* The name stays inside, but a symbolic link on the way may not: the resolved file must
     * still lie under the resolved folder (links that stay inside keep working). */
    char *real_dir = realpath(dir && *dir ? dir : ".", NULL), *real_file = realpath(full, NULL);
    if (!real_dir || !real_file) {
        free(real_dir), free(real_file);
        return OSSA_ERROR_IO;
    }
    const size_t dir_length = strlen(real_dir);
    const bool inside = !strncmp(real_file, real_dir, dir_length) &&
                        (real_file[dir_length] == '/' || (dir_length == 1 && real_dir[0] == '/'));
    if (!inside)
        fprintf(stderr, "ossa: refused to read \"%s\": it resolves to %s, outside the input's folder %s\n", path,
                real_file, real_dir);
    /* The resolved name is what is read: a link changed after the check cannot redirect it. */
    *data = inside ? tool_read_file(real_file, size) : NULL;
    free(real_dir), free(real_file);
    if (*data) log_side_input(full);
    return *data ? OSSA_OK : OSSA_ERROR_IO;
}

int tool_usage_error(const char *command, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "ossa: %s: ", command);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n(ossa %s --help lists every option)\n", command);
    return 2;
}

void tool_print_diag(const char *what, const ossa_diag *diag)
{
    char line[512];
    fprintf(stderr, "ossa: %s: %s\n", what, ossa_diag_format(diag, line, sizeof line));
}

const char *tool_base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

void tool_stem(const char *path, char *stem, size_t size)
{
    snprintf(stem, size, "%s", tool_base_name(path));
    char *dot = strrchr(stem, '.');
    if (dot && dot != stem) *dot = '\0';
}

/* The extension assimp is given as its format hint: the last one, or the last two where they
 * name a loader together (Ogre's "mesh.xml"; both parts letters and digits), NULL without. */
static const char *assimp_hint(const char *path)
{
    const char *base = tool_base_name(path), *last = strrchr(base, '.');
    if (!last || last == base || !last[1]) return NULL;
    const char *prev = last;
    while (prev > base + 1 && isalnum((unsigned char)prev[-1])) --prev;
    return prev > base + 1 && prev[-1] == '.' && last - prev <= 15 ? prev : last + 1;
}

/* The key budget of the importers that resample or hold every frame (tool_import_set_max_keys). */
static size_t import_max_keys;

void tool_import_set_max_keys(size_t max_keys) { import_max_keys = max_keys; }

static void print_import_error(const char *path, const ossa_diag *diag, bool budgeted);
static bool finish_import(const char *path, ossa_result r, ossa_diag *diag, bool budgeted, ossa_import_output *out);

/* Imports `data` (the bytes of `path`; a Metroid ANIM bound to `cinf` when not NULL), then
 * sorts, names and validates as tool_import says; prints one error line on failure. */
static bool import_bytes(const char *path, const void *data, size_t size, bool drop_end_sites,
                         const ossa_metroid_anim_desc *cinf, const ossa_raw_skeleton *bind, ossa_import_output *out)
{
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r;
    bool budgeted = false; /* the importer's max_keys came from tool_import_set_max_keys */
    if (cinf) {
        r = ossa_import_metroid_anim(data, size, cinf, out, &diag);
    } else if (bind) {
        r = ossa_import_maya_anim(data, size, &(ossa_maya_desc){.bind_skeleton = bind}, out, &diag);
    } else if (ossa_import_detect(data, size, path) == OSSA_FORMAT_ASSIMP) {
        /* External references (textures, scene objects) resolve next to the input file. */
        char dir[4096];
        folder_of(path, dir, sizeof dir);
        ossa_assimp_desc desc = {.format_hint = assimp_hint(path),
                                 .drop_end_sites = drop_end_sites,
                                 .read_file = tool_read_relative,
                                 .read_file_user = dir,
                                 .max_keys = import_max_keys};
        r = ossa_import_assimp(data, size, &desc, out, &diag);
        budgeted = import_max_keys != 0;
    } else if (ossa_import_detect(data, size, path) == OSSA_FORMAT_GLTF) {
        /* glTF buffer URIs resolve next to the input file, never outside its folder. */
        char dir[4096];
        folder_of(path, dir, sizeof dir);
        /* The glTF importer's own limit (2^24) stays the ceiling. */
        const size_t gltf_keys = (size_t)1 << 24;
        const ossa_gltf_desc desc = {.read_file = tool_read_relative,
                                     .read_file_user = dir,
                                     .max_keys = import_max_keys && import_max_keys < gltf_keys ? import_max_keys : 0};
        r = ossa_import_gltf(data, size, &desc, out, &diag);
        budgeted = desc.max_keys != 0;
    } else {
        r = ossa_import_any(data, size, path, out, &diag);
    }
    return finish_import(path, r, &diag, budgeted, out);
}

/* Sorts, names and validates what an import gave (r its result); prints one error line on
 * failure. */
static bool finish_import(const char *path, ossa_result r, ossa_diag *diagp, bool budgeted, ossa_import_output *out)
{
    ossa_diag diag = *diagp;
    if (r == OSSA_OK) r = ossa_import_output_sort_depth_first(out, &diag);
    /* Every clip has a name: the file's stem when the format gives none (Maya .anim). */
    for (size_t a = 0; r == OSSA_OK && a < out->animation_count; ++a)
        if (!out->animations[a].name || !out->animations[a].name[0]) {
            char stem[256];
            tool_stem(path, stem, sizeof stem);
            if (out->animation_count > 1) snprintf(stem + strlen(stem), sizeof stem - strlen(stem), ".%zu", a);
            if (ossa_raw_animation_set_name(&out->animations[a], stem) != OSSA_OK)
                r = ossa_diag_set(&diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory naming a clip");
        }
    /* Every clip checked now, before any heavy work (a wrong frame time, a bad key). */
    for (size_t a = 0; r == OSSA_OK && a < out->animation_count; ++a)
        r = ossa_raw_animation_validate(&out->animations[a], &diag);
    if (r != OSSA_OK) {
        print_import_error(path, &diag, budgeted);
        ossa_import_output_destroy(out);
        return false;
    }
    return true;
}

/* As tool_print_diag for an import: a refusal by the key budget says where the budget comes
 * from, on the same line. */
static void print_import_error(const char *path, const ossa_diag *diag, bool budgeted)
{
    char line[512];
    ossa_diag_format(diag, line, sizeof line);
    if (budgeted && strstr(line, "(max_keys)"))
        fprintf(stderr,
                "ossa: %s: %s; the budget is --max-memory / %u B per key (raise --max-memory, or 0 removes "
                "it)\n",
                path, line, TOOL_BYTES_PER_IMPORTED_KEY);
    else
        fprintf(stderr, "ossa: %s: %s\n", path, line);
}

static size_t read_stream(void *buffer, size_t size, void *user) { return fread(buffer, 1, size, user); }

/* A BVH (by its first bytes or its name, as ossa_import_detect and the assimp importer tell) is
 * read as a stream: its text is never held whole, so the import costs what its keys do. True
 * when `path` was such a file (*ok then says whether it imported); false to read it whole. */
static bool import_bvh_stream(const char *path, bool drop_end_sites, ossa_import_output *out, bool *ok)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (!f) return false;
    char head[64];
    const size_t n = fread(head, 1, sizeof head, f);
    const char *ext = strrchr(tool_base_name(path), '.');
    const bool bvh = ossa_import_detect(head, n, path) == OSSA_FORMAT_ASSIMP &&
                     ((n >= 9 && !memcmp(head, "HIERARCHY", 9)) || (ext && !strcasecmp(ext + 1, "bvh")));
    if (!bvh || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return false;
    }
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_bvh_desc desc = {.drop_end_sites = drop_end_sites, .max_keys = import_max_keys};
    ossa_result r = ossa_import_bvh_read(read_stream, f, (size_t)st.st_size, &desc, out, &diag);
    if (ferror(f)) {
        ossa_import_output_destroy(out);
        fprintf(stderr, "ossa: cannot read %s: %s\n", path, strerror(errno));
        *ok = false;
    } else {
        *ok = finish_import(path, r, &diag, import_max_keys != 0, out);
    }
    fclose(f);
    return true;
}

bool tool_import(const char *path, bool drop_end_sites, ossa_import_output *out)
{
    bool streamed = false;
    if (import_bvh_stream(path, drop_end_sites, out, &streamed)) return streamed;
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return false;
    const bool ok = import_bytes(path, data, size, drop_end_sites, NULL, NULL, out);
    free(data);
    return ok;
}

double tool_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

bool tool_attach_skeleton(const char *skeleton_path, ossa_import_output *out)
{
    ossa_import_output skel = {0};
    if (!tool_import(skeleton_path, false, &skel)) return false;
    bool ok = true;
    if (skel.skeleton.joint_count == 0) {
        fprintf(stderr, "ossa: %s: no skeleton in this file\n", skeleton_path);
        ok = false;
    } else if (out->skeleton.joint_count > 0) {
        fprintf(stderr, "ossa: warning: the input has its own skeleton; --skeleton %s is not used\n", skeleton_path);
    } else {
        for (size_t a = 0; a < out->animation_count && ok; ++a)
            if (out->animations[a].track_count != skel.skeleton.joint_count) {
                fprintf(stderr, "ossa: %s has %zu joints but animation \"%s\" has %zu tracks\n", skeleton_path,
                        skel.skeleton.joint_count, out->animations[a].name, out->animations[a].track_count);
                ok = false;
            }
        if (ok) {
            out->skeleton = skel.skeleton;
            memset(&skel.skeleton, 0, sizeof skel.skeleton);
        }
    }
    ossa_import_output_destroy(&skel);
    return ok;
}

tool_unit tool_unit_of_import(const ossa_import_output *imp, float user_scale)
{
    if (user_scale > 0.f) return (tool_unit){user_scale, "user", 0.f, 1.f};
    char units[64] = "", text[64] = "";
    const bool stated =
        !ossa_import_output_metadata(imp, "source_units", units, sizeof units) || strcmp(units, "unknown");
    const float scale = ossa_import_output_metadata(imp, "unit_scale", text, sizeof text) ? strtof(text, NULL) : 0.f;
    if (stated && scale > 0.f && isfinite(scale)) return (tool_unit){scale, "file", 0.f, 1.f};
    /* No unit in the file: the rest pose's extent against a 1.7 m human's. */
    float height = 0.f;
    if (ossa_raw_skeleton_rest_height(&imp->skeleton, &height, NULL) == OSSA_OK && height > 0.f &&
        isfinite(TOOL_HUMAN_JOINT_SPAN / height)) {
        float inferred = TOOL_HUMAN_JOINT_SPAN / height;
        /* A format whose files can only be in a few units (ozz: m, cm, mm) lists them: the
         * estimate goes to the nearest by ratio, so a 1.8 m clip in metres stays at 1. */
        char list[128];
        if (ossa_import_output_metadata(imp, "unit_candidates", list, sizeof list)) {
            float best = 0.f;
            for (char *p = list, *end; *p; p = end) {
                const float c = strtof(p, &end);
                if (end == p) break;
                if (c > 0.f && isfinite(c) && (best == 0.f || fabsf(logf(c / inferred)) < fabsf(logf(best / inferred))))
                    best = c;
            }
            if (best > 0.f) inferred = best;
        }
        if (inferred >= TOOL_UNIT_SCALE_MIN && inferred <= TOOL_UNIT_SCALE_MAX)
            return (tool_unit){inferred, "inferred", height, 1.f};
    }
    return (tool_unit){1.f, "default", 0.f, 1.f};
}

bool tool_parse_metres(const char *text, float min, float max, float *value)
{
    char *end;
    errno = 0;
    const float v = strtof(text, &end);
    if (end == text || *end || errno == ERANGE || !isfinite(v) || !(v >= min && v <= max)) return false;
    *value = v;
    return true;
}

void tool_format_float(char *buffer, size_t size, float value)
{
    for (int digits = 6; digits <= 9; ++digits) {
        snprintf(buffer, size, "%.*g", digits, (double)value);
        if (strtof(buffer, NULL) == value) return;
    }
}

bool tool_import_with_skeleton(const char *path, const char *skeleton_path, bool drop_end_sites,
                               ossa_import_output *out)
{
    if (!skeleton_path) return tool_import(path, drop_end_sites, out);
    bool streamed = false;
    if (import_bvh_stream(path, drop_end_sites, out, &streamed)) {
        if (streamed && !tool_attach_skeleton(skeleton_path, out)) {
            ossa_import_output_destroy(out);
            streamed = false;
        }
        return streamed;
    }
    size_t size = 0, skel_size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return false;
    bool ok;
    if (ossa_import_detect(data, size, path) == OSSA_FORMAT_METROID_ANIM) {
        /* The importer binds the ANIM to its CINF itself. */
        void *cinf = tool_read_file(skeleton_path, &skel_size);
        const ossa_metroid_anim_desc desc = {.cinf_data = cinf, .cinf_size = skel_size};
        ok = cinf && import_bytes(path, data, size, drop_end_sites, &desc, NULL, out);
        free(cinf);
    } else if (ossa_import_detect(data, size, path) == OSSA_FORMAT_MAYA_ANIM) {
        /* Maya curves name their nodes: the importer binds them to the skeleton's joints. */
        ossa_import_output skel = {0};
        ok = tool_import(skeleton_path, false, &skel);
        if (ok && skel.skeleton.joint_count == 0) {
            fprintf(stderr, "ossa: %s: no skeleton in this file\n", skeleton_path);
            ok = false;
        }
        ok = ok && import_bytes(path, data, size, drop_end_sites, NULL, &skel.skeleton, out);
        ossa_import_output_destroy(&skel);
    } else {
        ok = import_bytes(path, data, size, drop_end_sites, NULL, NULL, out);
        if (ok && !tool_attach_skeleton(skeleton_path, out)) {
            ossa_import_output_destroy(out);
            ok = false;
        }
    }
    free(data);
    return ok;
}

int tool_compare_doubles(const void *pa, const void *pb)
{
    const double a = *(const double *)pa, b = *(const double *)pb;
    return a < b ? -1 : a > b;
}

unsigned tool_cpu_count(void)
{
#ifdef _SC_NPROCESSORS_ONLN
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)(n > 64 ? 64 : n) : 1u;
#else
    return 1u;
#endif
}

size_t tool_archive_chunks(const ossa_archive *archive, uint32_t tag, ossa_archive_chunk **chunks)
{
    *chunks = NULL;
    const size_t count = ossa_archive_count(archive, tag);
    if (!count) return 0;
    ossa_archive_chunk *list = malloc(count * sizeof *list);
    if (!list) return SIZE_MAX;
    size_t n = 0;
    for (size_t i = 0; i < archive->chunk_count && n < count; ++i) {
        ossa_archive_chunk c;
        if (ossa_archive_chunk_at(archive, i, &c) == OSSA_OK && c.tag == tag) list[n++] = c;
    }
    *chunks = list;
    return n;
}

ossa_result tool_chunk_animation(const ossa_archive_chunk *chunk, ossa_animation *animation)
{
    memset(animation, 0, sizeof *animation);
    if (chunk->version != OSSA_ANIMATION_BLOB_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
    return ossa_animation_init(animation, chunk->data, chunk->size);
}
