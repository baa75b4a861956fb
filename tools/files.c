#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_metroid.h"
#include "tools.h"

void *tool_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "ossa: cannot open %s: %s\n", path, strerror(errno));
        return NULL;
    }
    void *data = NULL;
    long len = -1;
    if (fseek(f, 0, SEEK_END) == 0) len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fprintf(stderr, "ossa: cannot read %s: not a regular file\n", path);
        fclose(f);
        return NULL;
    }
    data = aligned_alloc(16, ((size_t)len + 16) & ~(size_t)15);
    if (!data || fread(data, 1, (size_t)len, f) != (size_t)len) {
        fprintf(stderr, "ossa: cannot read %s: %s\n", path, data ? strerror(errno) : "out of memory");
        free(data);
        fclose(f);
        return NULL;
    }
    fclose(f);
    *size = (size_t)len;
    return data;
}

bool tool_write_file(const char *path, const void *data, size_t size)
{
    /* Write to a temporary name and rename, so a failure never leaves a partial archive. */
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) {
        fprintf(stderr, "ossa: cannot create %s: %s\n", tmp, strerror(errno));
        return false;
    }
    const bool ok = fwrite(data, 1, size, f) == size;
    if (fclose(f) != 0 || !ok || rename(tmp, path) != 0) {
        fprintf(stderr, "ossa: cannot write %s: %s\n", path, strerror(errno));
        remove(tmp);
        return false;
    }
    return true;
}

ossa_result tool_read_relative(const char *path, void **data, size_t *size, void *user)
{
    char full[4096];
    const char *dir = user;
    if (path[0] == '/' || !dir || !*dir)
        snprintf(full, sizeof full, "%s", path);
    else
        snprintf(full, sizeof full, "%s/%s", dir, path);
    FILE *f = fopen(full, "rb");
    if (!f) return OSSA_ERROR_IO;
    fclose(f);
    *data = tool_read_file(full, size);
    return *data ? OSSA_OK : OSSA_ERROR_IO;
}

void tool_print_diag(const char *what, const ossa_diag *diag)
{
    char line[512];
    fprintf(stderr, "ossa: %s: %s\n", what, ossa_diag_format(diag, line, sizeof line));
}

bool tool_import(const char *path, bool drop_end_sites, ossa_import_output *out)
{
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return false;
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r;
    if (ossa_import_detect(data, size, path) == OSSA_FORMAT_ASSIMP) {
        /* External references (glTF buffers) resolve next to the input file. */
        char dir[4096];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash)
            *slash = '\0';
        else
            snprintf(dir, sizeof dir, ".");
        const char *dot = strrchr(path, '.');
        ossa_assimp_desc desc = {.format_hint = dot && !strchr(dot, '/') ? dot + 1 : NULL,
                                 .drop_end_sites = drop_end_sites,
                                 .read_file = tool_read_relative,
                                 .read_file_user = dir};
        r = ossa_import_assimp(data, size, &desc, out, &diag);
    } else {
        r = ossa_import_any(data, size, path, out, &diag);
    }
    free(data);
    if (r == OSSA_OK) r = ossa_import_output_sort_depth_first(out, &diag);
    if (r != OSSA_OK) {
        tool_print_diag(path, &diag);
        ossa_import_output_destroy(out);
        return false;
    }
    return true;
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
    } else if (out->skeleton.joint_count == 0) {
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
    if (user_scale > 0.f) return (tool_unit){user_scale, "user"};
    char units[64] = "", text[64] = "";
    const bool stated =
        !ossa_import_output_metadata(imp, "source_units", units, sizeof units) || strcmp(units, "unknown");
    const float scale = ossa_import_output_metadata(imp, "unit_scale", text, sizeof text) ? strtof(text, NULL) : 0.f;
    if (!stated || !(scale > 0.f) || !isfinite(scale)) return (tool_unit){1.f, "default"};
    return (tool_unit){scale, "file"};
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
    size_t size = 0, skel_size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return false;
    if (ossa_import_detect(data, size, path) != OSSA_FORMAT_METROID_ANIM) {
        free(data);
        return tool_import(path, drop_end_sites, out) && tool_attach_skeleton(skeleton_path, out);
    }
    void *cinf = tool_read_file(skeleton_path, &skel_size);
    if (!cinf) {
        free(data);
        return false;
    }
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_metroid_anim_desc desc = {.cinf_data = cinf, .cinf_size = skel_size};
    ossa_result r = ossa_import_metroid_anim(data, size, &desc, out, &diag);
    if (r == OSSA_OK) r = ossa_import_output_sort_depth_first(out, &diag);
    free(data);
    free(cinf);
    if (r != OSSA_OK) {
        tool_print_diag(path, &diag);
        ossa_import_output_destroy(out);
        return false;
    }
    return true;
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
