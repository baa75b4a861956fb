/* ossa view FILE.ossa [MORE.ossa...] [--against SOURCE] [--port N]: serves the browser viewer
 * (tools/viewer/) and the archives on 127.0.0.1 and prints the page's URL.
 *
 * The archives are checked here first (readable, a valid archive, the first with a skeleton),
 * so that a bad file is an error on the terminal rather than in the page. With --against, each
 * joint's largest error against the source (ossa_measure_joint_errors at the virtual vertices,
 * as `ossa info --json` reports it) is written to errors.json in a temporary folder and served
 * with the archives; the page colours the joints with it. The web server is the viewer's
 * serve.py (Python's http.server), run as a child process until Ctrl-C or SIGTERM. With --mesh,
 * a skinned glTF is checked here (a skin, a mesh primitive with JOINTS_0 and WEIGHTS_0, every
 * skin joint a joint of the first archive's skeleton, by name) and served with its external
 * buffers; the page reads it and skins it with the runtime. */
/* realpath() is an X/Open extension of POSIX. */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef OSSA_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include "info.h"
#include "tools.h"

#define VIEW_DEFAULT_PORT 8123
/* Archives one page opens (the viewer's own limit, tools/viewer/viewer.c). */
#define VIEW_MAX_FILES 16
/* External buffers a --mesh glTF may name. */
#define VIEW_MAX_MESH_BUFFERS 8
/* A served name: a base name (NAME_MAX, 255 bytes) with an "N-" prefix and its NUL. */
#define VIEW_NAME_SIZE 272

static const char view_usage[] =
    "usage: ossa view FILE.ossa [MORE.ossa...] [--port N]\n"
    "                 [--against SOURCE [--skeleton FILE] [--unit-scale METRES]] [--mesh MODEL.gltf|.glb]\n"
    "  serves the browser viewer (WebGL: play, scrub, blend two clips) and the archives (at most 16)\n"
    "  on 127.0.0.1, prints the URL and runs until Ctrl-C\n"
    "  --port N            the TCP port (default 8123; 0: any free port)\n"
    "  --against SOURCE    colour each joint of the first archive's clips by its largest error (mm)\n"
    "                      against SOURCE, the file it was baked from\n"
    "  --skeleton FILE     the skeleton SOURCE takes, as for ossa bake --skeleton\n"
    "  --unit-scale M      metres per source unit, for the errors in mm (default: the archive's META)\n"
    "  --mesh MODEL        draw MODEL's skinned mesh (glTF 2.0), skinned by the runtime (linear blend or dual\n"
    "                      quaternion); its skin's joints must be joints of the first archive's skeleton\n";

/* The files every viewer folder has (tools/viewer/meson.build puts them there). */
static const char *const viewer_files[] = {"index.html", "viewer.js", "ossa_viewer.js", "ossa_viewer.wasm", "serve.py"};

static bool is_viewer_dir(const char *dir)
{
    for (size_t i = 0; i < sizeof viewer_files / sizeof *viewer_files; ++i) {
        char path[PATH_MAX];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", dir, viewer_files[i]) >= (int)sizeof path) return false;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return false;
    }
    return true;
}

/* The viewer's folder into `dir`: $OSSA_VIEWER_DIR, else viewer/ beside this executable (the
 * build tree: build/tools/viewer), else the install's share/ossa/viewer (where meson installs
 * it, then relative to the executable's bin/ for a moved install). False, after saying where
 * it looked, when none holds the viewer. */
static bool find_viewer(char *dir, size_t size)
{
    const char *env = getenv("OSSA_VIEWER_DIR");
    if (env && *env) {
        if (snprintf(dir, size, "%s", env) < (int)size && is_viewer_dir(dir)) return true;
        fprintf(stderr, "ossa: view: OSSA_VIEWER_DIR=%s does not hold the built viewer (%s, %s, %s, %s, %s)\n", env,
                viewer_files[0], viewer_files[1], viewer_files[2], viewer_files[3], viewer_files[4]);
        return false;
    }
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        if (snprintf(dir, size, "%s/viewer", exe) < (int)size && is_viewer_dir(dir)) return true;
    }
#ifdef OSSA_VIEWER_INSTALL_DIR
    if (snprintf(dir, size, "%s", OSSA_VIEWER_INSTALL_DIR) < (int)size && is_viewer_dir(dir)) return true;
#endif
    if (n > 0 && snprintf(dir, size, "%s/../share/ossa/viewer", exe) < (int)size && is_viewer_dir(dir)) return true;
    fprintf(stderr,
            "ossa: view: the browser viewer is not built: configure with -Dviewer=enabled (it needs emcc, Debian's "
            "emscripten package), build, and run this ossa from the build folder or after meson install; or set "
            "OSSA_VIEWER_DIR to a folder holding it\n");
    return false;
}

/* Why the skeleton `skel` of `path` cannot play in place of `first`'s, written to `why`
 * (false when it can: the same joints, names and parents in the same order). */
static bool skeleton_differs(const ossa_skeleton *first, const ossa_skeleton *skel, char *why, size_t size)
{
    if (skel->joint_count != first->joint_count) {
        snprintf(why, size, "it has %zu joints, the first archive %zu", (size_t)skel->joint_count,
                 (size_t)first->joint_count);
        return true;
    }
    for (size_t j = 0; j < skel->joint_count; ++j) {
        const char *a = ossa_skeleton_joint_name(first, j), *b = ossa_skeleton_joint_name(skel, j);
        if (strcmp(a, b)) {
            snprintf(why, size, "joint %zu is \"%s\" there, \"%s\" in the first archive", j, b, a);
            return true;
        }
        if (skel->parents[j] != first->parents[j]) {
            snprintf(why, size, "joint %zu (\"%s\") has parent %d there, %d in the first archive", j, b,
                     skel->parents[j], first->parents[j]);
            return true;
        }
    }
    return false;
}

/* Reads `path` and checks it is an archive the viewer can open: the first (`first_skel` NULL)
 * with a skeleton, the others with the first's skeleton or none, and clips of as many tracks
 * as it has joints (the viewer plays every clip on the first skeleton). The archive's skeleton,
 * if any, goes to `skel_out` (a view into the returned bytes). Prints the error and returns NULL
 * otherwise. */
static void *read_archive(const char *path, const ossa_skeleton *first_skel, size_t *size, ossa_skeleton *skel_out)
{
    const bool first = !first_skel;
    void *data = tool_read_file(path, size);
    if (!data) return NULL;
    ossa_archive ar;
    ossa_skeleton skel = {0};
    char why[256] = "";
    ossa_result r = ossa_archive_init(&ar, data, *size);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa: view: %s is not a valid .ossa archive: %s\n", path, ossa_result_string(r));
    } else if ((r = ossa_archive_skeleton(&ar, &skel)) != OSSA_OK && (first || r != OSSA_ERROR_NOT_FOUND)) {
        fprintf(stderr, "ossa: view: %s: %s\n", path,
                r == OSSA_ERROR_NOT_FOUND ? "the archive has no skeleton (the first one given needs one)"
                                          : ossa_result_string(r));
    } else if (!first && r == OSSA_OK && skeleton_differs(first_skel, &skel, why, sizeof why)) {
        fprintf(stderr, "ossa: view: %s: its skeleton differs from the first archive's: %s\n", path, why);
    } else {
        const ossa_skeleton *target = first ? &skel : first_skel;
        for (size_t i = 0; i < ossa_archive_count(&ar, OSSA_TAG_ANIMATION); ++i) {
            ossa_animation anim;
            if (ossa_archive_animation(&ar, i, &anim) == OSSA_OK && anim.track_count != target->joint_count) {
                fprintf(stderr, "ossa: view: %s: clip %zu has %zu tracks, the skeleton %zu joints\n", path, i,
                        (size_t)anim.track_count, (size_t)target->joint_count);
                free(data);
                return NULL;
            }
        }
        *skel_out = skel;
        return data;
    }
    free(data);
    return NULL;
}

/* The skinned glTF of --mesh: its external buffers, to serve beside it. */
typedef struct view_mesh {
    size_t buffer_count;
    char names[VIEW_MAX_MESH_BUFFERS][VIEW_NAME_SIZE]; /* served names: the URIs percent-decoded */
    char paths[VIEW_MAX_MESH_BUFFERS][PATH_MAX];
} view_mesh;

#ifdef OSSA_HAVE_CJSON
/* `uri` percent-decoded into `out` (false when it is malformed, too long or decodes to a NUL). */
static bool uri_decode(const char *uri, char *out, size_t size)
{
    size_t n = 0;
    for (const char *c = uri; *c; ++c) {
        unsigned value = (unsigned char)*c;
        if (*c == '%') {
            if (sscanf(c + 1, "%2x", &value) != 1 || !c[1] || !c[2] || value == 0) return false;
            c += 2;
        }
        if (n + 1 >= size) return false;
        out[n++] = (char)value;
    }
    out[n] = '\0';
    return true;
}

/* The JSON of a .gltf, or of a .glb's JSON chunk (spec 4.4); NULL after printing why. */
static cJSON *mesh_json(const char *path, const unsigned char *data, size_t size)
{
    const char *text = (const char *)data;
    size_t length = size;
    if (size >= 12 && !memcmp(data, "glTF", 4)) {
        const uint32_t chunk = size >= 20 ? (uint32_t)data[12] | (uint32_t)data[13] << 8 | (uint32_t)data[14] << 16 |
                                                (uint32_t)data[15] << 24
                                          : 0;
        if (size < 20 || memcmp(data + 16, "JSON", 4) || chunk > size - 20) {
            fprintf(stderr, "ossa: view: %s: a GLB whose first chunk is not a JSON chunk inside the file\n", path);
            return NULL;
        }
        text = (const char *)data + 20;
        length = chunk;
    }
    cJSON *json = cJSON_ParseWithLength(text, length);
    if (!cJSON_IsObject(json)) {
        fprintf(stderr, "ossa: view: %s: not a glTF file (its JSON does not parse)\n", path);
        cJSON_Delete(json);
        return NULL;
    }
    return json;
}

/* Checks that `path` is a skinned glTF whose skin's joints are joints of `skel` (by name: the
 * node's, or "nodes[N]" as the importer names an unnamed node) and lists its external buffers.
 * Returns 0, or 1 after printing one line. */
static int check_mesh(const char *path, const ossa_skeleton *skel, view_mesh *out)
{
    size_t size = 0;
    unsigned char *data = tool_read_file(path, &size);
    if (!data) return 1;
    cJSON *json = mesh_json(path, data, size);
    free(data);
    if (!json) return 1;
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(json, "nodes");
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(json, "skins");
    const cJSON *meshes = cJSON_GetObjectItemCaseSensitive(json, "meshes");
    const cJSON *skin = NULL, *mesh = NULL, *node;
    int status = 1;
    cJSON_ArrayForEach(node, nodes)
    {
        const cJSON *m = cJSON_GetObjectItemCaseSensitive(node, "mesh"),
                    *s = cJSON_GetObjectItemCaseSensitive(node, "skin");
        if (cJSON_IsNumber(m) && cJSON_IsNumber(s)) {
            mesh = cJSON_GetArrayItem(meshes, m->valueint);
            skin = cJSON_GetArrayItem(skins, s->valueint);
            break;
        }
    }
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints"), *prim;
    bool skinned = false;
    cJSON_ArrayForEach(prim, cJSON_GetObjectItemCaseSensitive(mesh, "primitives"))
    {
        const cJSON *attr = cJSON_GetObjectItemCaseSensitive(prim, "attributes");
        skinned = skinned || (cJSON_GetObjectItemCaseSensitive(attr, "POSITION") &&
                              cJSON_GetObjectItemCaseSensitive(attr, "JOINTS_0") &&
                              cJSON_GetObjectItemCaseSensitive(attr, "WEIGHTS_0"));
    }
    if (!skin || !mesh || !cJSON_IsArray(joints) || !cJSON_GetArraySize(joints) || !skinned) {
        fprintf(stderr,
                "ossa: view: %s: not a skinned glTF (it needs a node with a mesh and a skin, a skin with joints, and a "
                "mesh primitive with POSITION, JOINTS_0 and WEIGHTS_0)\n",
                path);
        goto done;
    }
    const cJSON *joint;
    cJSON_ArrayForEach(joint, joints)
    {
        const cJSON *n = cJSON_IsNumber(joint) ? cJSON_GetArrayItem(nodes, joint->valueint) : NULL;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(n, "name");
        char fallback[32];
        snprintf(fallback, sizeof fallback, "nodes[%d]", cJSON_IsNumber(joint) ? joint->valueint : -1);
        const char *want = cJSON_IsString(name) ? name->valuestring : fallback;
        bool found = false;
        for (size_t j = 0; j < skel->joint_count && !found; ++j)
            found = !strcmp(ossa_skeleton_joint_name(skel, j), want);
        if (!n || !found) {
            fprintf(stderr, "ossa: view: %s: the skin's joint \"%s\" is not a joint of the first archive's skeleton\n",
                    path, want);
            goto done;
        }
    }
    /* External buffers (images are not drawn), by a plain name in the model's folder. */
    const cJSON *buffer;
    const char *slash = strrchr(path, '/');
    const int dir_length = slash ? (int)(slash - path) : -1; /* the folder without its '/' */
    cJSON_ArrayForEach(buffer, cJSON_GetObjectItemCaseSensitive(json, "buffers"))
    {
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(buffer, "uri");
        if (!cJSON_IsString(uri) || !strncmp(uri->valuestring, "data:", 5)) continue;
        char name[VIEW_NAME_SIZE];
        if (!uri_decode(uri->valuestring, name, sizeof name) || strchr(name, '/') || strchr(name, '\\') ||
            !strcmp(name, ".") || !strcmp(name, "..") || !name[0]) {
            fprintf(stderr,
                    "ossa: view: %s: the buffer \"%s\" is not a file name beside the model (the viewer serves only "
                    "those)\n",
                    path, uri->valuestring);
            goto done;
        }
        if (out->buffer_count == VIEW_MAX_MESH_BUFFERS) {
            fprintf(stderr, "ossa: view: %s: more than %d external buffers\n", path, VIEW_MAX_MESH_BUFFERS);
            goto done;
        }
        snprintf(out->names[out->buffer_count], VIEW_NAME_SIZE, "%s", name);
        /* The buffer must resolve inside the model's folder, symbolic links included, as the
         * bake reads it (tool_read_relative); the resolved path is what is served. */
        char joined[PATH_MAX], folder[PATH_MAX];
        snprintf(folder, sizeof folder, "%.*s", dir_length > 0 ? dir_length : 1, dir_length >= 0 ? path : ".");
        const bool too_long = snprintf(joined, sizeof joined, "%s/%s", folder, name) >= (int)sizeof joined;
        char *real_dir = too_long ? NULL : realpath(folder, NULL);
        char *real_file = real_dir ? realpath(joined, NULL) : NULL;
        const char *why = too_long ? strerror(ENAMETOOLONG) : !real_file ? strerror(errno) : NULL;
        const size_t n = real_dir ? strlen(real_dir) : 0;
        if (!why && (strncmp(real_file, real_dir, n) || (real_file[n] != '/' && !(n == 1 && real_dir[0] == '/'))))
            why = "it resolves outside the model's folder";
        if (!why && access(real_file, R_OK) != 0) why = strerror(errno);
        if (!why) snprintf(out->paths[out->buffer_count], PATH_MAX, "%s", real_file);
        free(real_dir);
        free(real_file);
        if (why) {
            fprintf(stderr, "ossa: view: %s: cannot read its buffer %s: %s\n", path, joined, why);
            goto done;
        }
        ++out->buffer_count;
    }
    status = 0;
done:
    cJSON_Delete(json);
    return status;
}
#else
static int check_mesh(const char *path, const ossa_skeleton *skel, view_mesh *out)
{
    (void)skel;
    (void)out;
    fprintf(stderr, "ossa: view: %s: --mesh needs the glTF reader (cJSON), which this ossa was built without\n", path);
    return 1;
}
#endif

/* JSON has no NaN or infinity: those are null. */
static void json_number(FILE *f, double value)
{
    if (isfinite(value))
        fprintf(f, "%.6g", value);
    else
        fputs("null", f);
}

/* Measures the first archive against `against` and writes errors.json (schema in
 * docs/viewer.md) to `out`. Returns 0, or 1 after printing the error. */
static int write_errors(const char *out, const char *archive_path, const void *archive, size_t size,
                        const char *against, const char *skeleton_path, float unit_scale)
{
    ossa_import_output imp = {0};
    if (!tool_import_with_skeleton(against, skeleton_path, false, &imp) ||
        info_check_against(archive_path, archive, size, &imp, against) != 0) {
        ossa_import_output_destroy(&imp);
        return 1;
    }
    const tool_unit unit = info_unit(archive, size, &imp, unit_scale);
    if (!info_against_in_stored_units(&imp, against, unit)) {
        ossa_import_output_destroy(&imp);
        return 1;
    }
    info_report rep;
    int status = info_measure(&rep, archive_path, archive, size, &imp, against, unit, true);
    FILE *f = status == 0 ? fopen(out, "w") : NULL;
    if (status == 0 && !f) {
        fprintf(stderr, "ossa: view: cannot write %s: %s\n", out, strerror(errno));
        status = 1;
    }
    if (f) {
        fprintf(f, "{\"against\": ");
        tool_json_write_string(f, tool_base_name(against));
        fprintf(f, ", \"archive\": ");
        tool_json_write_string(f, tool_base_name(archive_path));
        fprintf(f, ", \"measure\": \"virtual vertices %g m from each joint\", \"unit\": \"mm\",\n \"clips\": [",
                (double)INFO_SHELL_METRES);
        for (size_t a = 0; a < rep.animation_count; ++a) {
            const info_animation *ia = &rep.animations[a];
            const info_error *e = &ia->errors[INFO_ERROR_VERTICES];
            fprintf(f, "%s\n  {\"index\": %zu, \"name\": ", a ? "," : "", a);
            tool_json_write_string(f, ia->anim.name);
            fprintf(f, ", \"max_mm\": ");
            json_number(f, e->max_mm);
            fprintf(f, ", \"worst_joint\": %zu, \"joint_max_mm\": [", e->worst_joint);
            for (size_t j = 0; e->joint_max_mm && j < rep.skeleton.joint_count; ++j) {
                if (j) fprintf(f, ", ");
                json_number(f, e->joint_max_mm[j]);
            }
            fprintf(f, "]}");
        }
        fprintf(f, "\n]}\n");
        if (fclose(f) != 0) {
            fprintf(stderr, "ossa: view: cannot write %s: %s\n", out, strerror(errno));
            status = 1;
        }
    }
    info_report_free(&rep);
    ossa_import_output_destroy(&imp);
    return status;
}

static volatile sig_atomic_t server_pid;

/* SIGTERM and SIGHUP stop the server too (Ctrl-C reaches it with the terminal's group). */
static void forward_signal(int sig)
{
    if (server_pid > 0) kill((pid_t)server_pid, sig);
}

/* Runs python3 serve.py with `argv` (NULL-terminated, argv[0] "python3") until it exits;
 * its exit status, or 1 when it could not run. `pipe_fds` is a pipe whose read end the
 * server was told about (--parent-fd) and whose write end is close-on-exec; both are closed
 * here.
 *
 * The server must not outlive this process, however it ends: SIGTERM and SIGHUP are forwarded
 * below, but SIGKILL (or a crash) cannot be caught. Only this process holds the pipe's write
 * end, so when it ends for any reason the kernel closes it and the server reads end of file
 * and exits (serve.py, watch_parent). That needs no polling and works beyond Linux, where
 * prctl(PR_SET_PDEATHSIG) would not, and it fires even when the server's new parent is a
 * subreaper rather than init, which a getppid() poll would have to guess. */
static int run_server(char **argv, const int pipe_fds[2])
{
    fflush(stdout);
    fflush(stderr);
    const pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "ossa: view: cannot start the server: %s\n", strerror(errno));
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        return 1;
    }
    if (pid == 0) {
        close(pipe_fds[1]);
        execvp(argv[0], argv);
        fprintf(stderr, "ossa: view: cannot run %s: %s (the server needs Python 3)\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(pipe_fds[0]);
    server_pid = pid;
    struct sigaction sa = {0}, ignore = {0};
    sa.sa_handler = forward_signal;
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    sigaction(SIGINT, &ignore, NULL); /* the server gets it and stops; then we clean up */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            close(pipe_fds[1]); /* the server then stops by itself */
            return 1;
        }
    server_pid = 0;
    close(pipe_fds[1]);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return WIFSIGNALED(status) && (WTERMSIG(status) == SIGINT || WTERMSIG(status) == SIGTERM) ? 0 : 1;
}

int tool_view(int argc, char **argv)
{
    const char *files[VIEW_MAX_FILES], *against = NULL, *skeleton_path = NULL, *mesh_path = NULL;
    size_t file_count = 0;
    long port = VIEW_DEFAULT_PORT;
    float unit_scale = 0.f;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(view_usage, stdout);
            return 0;
        } else if (!strcmp(argv[i], "--port") && i + 1 < argc) {
            char *end;
            errno = 0;
            port = strtol(argv[++i], &end, 10);
            if (errno || end == argv[i] || *end || port < 0 || port > 65535)
                return tool_usage_error("view", "--port needs a number from 0 to 65535 (found \"%s\")", argv[i]);
        } else if (!strcmp(argv[i], "--against") && i + 1 < argc) {
            against = argv[++i];
        } else if (!strcmp(argv[i], "--mesh") && i + 1 < argc) {
            mesh_path = argv[++i];
        } else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc) {
            skeleton_path = argv[++i];
        } else if (!strcmp(argv[i], "--unit-scale") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], TOOL_UNIT_SCALE_MIN, TOOL_UNIT_SCALE_MAX, &unit_scale))
                return tool_usage_error("view", "--unit-scale needs metres per unit from 1e-6 to 1e4 (found \"%s\")",
                                        argv[i]);
        } else if (argv[i][0] == '-') {
            return tool_usage_error("view", "unexpected argument \"%s\"", argv[i]);
        } else if (file_count == VIEW_MAX_FILES) {
            return tool_usage_error("view", "at most %d archives at once", VIEW_MAX_FILES);
        } else {
            files[file_count++] = argv[i];
        }
    }
    if (!file_count) {
        return tool_usage_error("view", "no archive given");
    }
    if (skeleton_path && !against) {
        return tool_usage_error("view", "--skeleton goes with --against");
    }
    char viewer[PATH_MAX];
    if (!find_viewer(viewer, sizeof viewer)) return 1;

    /* Every archive is read once here to check it; the server reads them again per request. */
    void *first = NULL;
    size_t first_size = 0;
    ossa_skeleton first_skel;
    for (size_t i = 0; i < file_count; ++i) {
        size_t size;
        ossa_skeleton skel;
        void *data = read_archive(files[i], i == 0 ? NULL : &first_skel, &size, &skel);
        if (!data) {
            free(first);
            return 1;
        }
        if (i == 0)
            first = data, first_size = size, first_skel = skel; /* a view into `first`, kept */
        else
            free(data);
    }
    static view_mesh mesh; /* static: 35 KB of paths; emptied for each call (tests call tool_view often) */
    memset(&mesh, 0, sizeof mesh);
    char mesh_name[VIEW_NAME_SIZE] = "";
    if (mesh_path) {
        if (check_mesh(mesh_path, &first_skel, &mesh) != 0) {
            free(first);
            return 1;
        }
        /* The model keeps its name unless a buffer has it: the buffers' names are the URIs the
         * model gives them, relative to its own URL. */
        snprintf(mesh_name, sizeof mesh_name, "%s", tool_base_name(mesh_path));
        for (size_t k = 0; k < mesh.buffer_count; ++k)
            if (!strcmp(mesh_name, mesh.names[k]) || !strcmp(mesh.names[k], "errors.json")) {
                fprintf(stderr, "ossa: view: %s: its buffer is named %s, which the viewer serves for another file\n",
                        mesh_path, mesh.names[k]);
                free(first);
                return 1;
            }
    }

    /* Served names: the base names, made unique with an "N-" prefix (also from errors.json and
     * the mesh's files). */
    char names[VIEW_MAX_FILES][VIEW_NAME_SIZE];
    for (size_t i = 0; i < file_count; ++i) {
        snprintf(names[i], sizeof names[i], "%s", tool_base_name(files[i]));
        bool taken = !strcmp(names[i], "errors.json") || !strcmp(names[i], mesh_name);
        for (size_t k = 0; k < i; ++k) taken = taken || !strcmp(names[i], names[k]);
        for (size_t k = 0; k < mesh.buffer_count; ++k) taken = taken || !strcmp(names[i], mesh.names[k]);
        if (taken) snprintf(names[i], sizeof names[i], "%zu-%s", i, tool_base_name(files[i]));
    }

    char tmp[PATH_MAX] = "", errors_path[PATH_MAX + 16] = "";
    int status = 0;
    if (against) {
        const char *tmpdir = getenv("TMPDIR");
        snprintf(tmp, sizeof tmp, "%s/ossa-view-XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
        if (!mkdtemp(tmp)) {
            fprintf(stderr, "ossa: view: cannot make a temporary folder %s: %s\n", tmp, strerror(errno));
            tmp[0] = '\0';
            status = 1;
        } else {
            snprintf(errors_path, sizeof errors_path, "%s/errors.json", tmp);
            status = write_errors(errors_path, files[0], first, first_size, against, skeleton_path, unit_scale);
        }
    }
    free(first);

    int pipe_fds[2];
    if (status == 0 && pipe(pipe_fds) != 0) {
        fprintf(stderr, "ossa: view: cannot make a pipe for the server: %s\n", strerror(errno));
        status = 1;
    }
    if (status == 0) {
        /* python3 serve.py --root=DIR --port=N --parent-fd=FD --query=QUERY -- NAME PATH... */
        char script[PATH_MAX + 16], root_arg[PATH_MAX + 16], port_arg[32], fd_arg[32];
        /* Each name byte takes at most 5 query bytes (below): 18 names of 271 bytes fit. */
        static char query_arg[8 + (VIEW_MAX_FILES + 2) * (16 + 5 * VIEW_NAME_SIZE)];
        char *args[8 + 2 * (VIEW_MAX_FILES + 2 + VIEW_MAX_MESH_BUFFERS) + 1];
        int n = 0;
        /* Only this process holds the write end (close-on-exec): see run_server. */
        fcntl(pipe_fds[1], F_SETFD, FD_CLOEXEC);
        snprintf(script, sizeof script, "%s/serve.py", viewer);
        snprintf(root_arg, sizeof root_arg, "--root=%s", viewer);
        snprintf(port_arg, sizeof port_arg, "--port=%ld", port);
        snprintf(fd_arg, sizeof fd_arg, "--parent-fd=%d", pipe_fds[0]);
        args[n++] = "python3";
        args[n++] = script;
        args[n++] = root_arg;
        args[n++] = port_arg;
        args[n++] = fd_arg;
        args[n++] = query_arg;
        args[n++] = "--"; /* then NAME PATH pairs, whatever their first byte */
        size_t used = (size_t)snprintf(query_arg, sizeof query_arg, "--query=");
        /* The mesh's buffers are served but not in the query: the page asks for them by the
         * URIs the model gives, relative to the model's URL. */
        for (size_t k = 0; k < mesh.buffer_count; ++k) {
            args[n++] = mesh.names[k];
            args[n++] = mesh.paths[k];
        }
        for (size_t i = 0; i <= file_count + 1; ++i) {
            const bool errors = i == file_count, is_mesh = i == file_count + 1;
            if ((errors && !against) || (is_mesh && !mesh_path)) continue;
            const char *name = is_mesh ? mesh_name : errors ? "errors.json" : names[i];
            const char *path = is_mesh ? mesh_path : errors ? errors_path : files[i];
            args[n++] = (char *)(uintptr_t)name;
            args[n++] = (char *)(uintptr_t)path;
            /* Each value is a URL the page fetches, files/NAME with NAME percent-encoded (every
             * byte but RFC 3986's unreserved ones), then percent-encoded again as a query value
             * (only its '%' changes): "a=b c.ossa" is files/a%3Db%20c.ossa in the URL and
             * file=files/a%253Db%2520c.ossa in the query. The page's URLSearchParams undoes the
             * second, the server the first. */
            used += (size_t)snprintf(query_arg + used, sizeof query_arg - used, "%s%s=files/", i ? "&" : "",
                                     is_mesh  ? "mesh"
                                     : errors ? "errors"
                                              : "file");
            for (const unsigned char *c = (const unsigned char *)name; *c; ++c) {
                const bool unreserved = (*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
                                        (*c >= '0' && *c <= '9') || strchr("-._~", *c);
                used += (size_t)snprintf(query_arg + used, sizeof query_arg - used, unreserved ? "%c" : "%%25%02X",
                                         (unsigned)*c);
            }
        }
        args[n] = NULL;
        status = run_server(args, pipe_fds);
    }
    if (errors_path[0]) remove(errors_path);
    if (tmp[0]) rmdir(tmp);
    return status;
}
