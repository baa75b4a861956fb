/* ossa batch's output folder: its lock, its place against the sources, and the removal of the
 * archives no longer produced. Everything OUT_DIR holds (build.ninja, .ninja_log, the archives)
 * may have been edited by someone else, so nothing read from it decides what is removed outside
 * OUT_DIR: paths are checked name by name and followed one folder at a time without following
 * a symbolic link. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"

int tool_batch_lock(const char *out_dir)
{
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/%s", out_dir, BATCH_LOCK_NAME) >= (int)sizeof path) {
        fprintf(stderr, "ossa: batch: path too long: %s/%s\n", out_dir, BATCH_LOCK_NAME);
        return -1;
    }
    /* No O_CLOEXEC: ninja and the bakes it runs keep the lock while they run, even if this
     * process is killed first. O_NOFOLLOW: a symbolic link planted there is not followed. */
    const int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW, 0666);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "ossa: batch: cannot open the lock file %s: %s\n", path,
                fd < 0 ? strerror(errno) : "expected a regular file");
        if (fd >= 0) close(fd);
        return -1;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        const int error = errno;
        close(fd);
        if (error == EWOULDBLOCK)
            fprintf(stderr, "ossa: batch: %s is locked: another ossa batch is running on this OUT_DIR\n", path);
        else
            fprintf(stderr, "ossa: batch: cannot lock %s: %s\n", path, strerror(error));
        return -1;
    }
    return fd;
}

/* `path` resolved as realpath does into `out` ([PATH_MAX]); a path that does not exist yet is
 * its folder resolved and its last name appended (mkdir creates only that). */
static bool resolve(const char *path, char *out)
{
    if (realpath(path, out)) return true;
    if (errno != ENOENT) return false;
    char folder[PATH_MAX];
    size_t length = strlen(path);
    while (length > 1 && path[length - 1] == '/') --length; /* "out/" is "out" */
    if (length >= sizeof folder) return false;
    memcpy(folder, path, length);
    folder[length] = '\0';
    char *slash = strrchr(folder, '/');
    const char *name = slash ? slash + 1 : folder;
    if (!*name || !strcmp(name, ".") || !strcmp(name, "..")) return false;
    char resolved[PATH_MAX];
    if (slash == folder)
        strcpy(resolved, "/");
    else if (slash) {
        *slash = '\0';
        if (!realpath(folder, resolved)) return false;
    } else if (!realpath(".", resolved))
        return false;
    const bool root = !strcmp(resolved, "/");
    return snprintf(out, PATH_MAX, "%s%s%s", resolved, root ? "" : "/", name) < PATH_MAX;
}

int tool_batch_check_out(const char *src, const char *out, bool allow_inside, char *src_real, char *out_real)
{
    if (!resolve(src, src_real)) {
        fprintf(stderr, "ossa: batch: cannot resolve %s: %s\n", src, strerror(errno));
        return 1;
    }
    if (!resolve(out, out_real)) {
        fprintf(stderr, "ossa: batch: cannot create %s: %s\n", out, strerror(errno ? errno : ENOENT));
        return 1;
    }
    if (!strcmp(src_real, out_real)) {
        fprintf(stderr, "ossa: batch: OUT_DIR %s is SRC_DIR %s (both are %s): give an OUT_DIR outside SRC_DIR\n", out,
                src, out_real);
        return 2;
    }
    const size_t n = strlen(src_real);
    const bool inside = !strncmp(out_real, src_real, n) && (out_real[n] == '/' || !strcmp(src_real, "/"));
    if (inside && !allow_inside) {
        fprintf(stderr,
                "ossa: batch: OUT_DIR %s lies inside SRC_DIR %s (%s in %s): give an OUT_DIR outside it, or "
                "--allow-out-inside-src to bake into it (its tree is then not read as sources)\n",
                out, src, out_real, src_real);
        return 2;
    }
    return 0;
}

/* Whether rel is a plain relative path ending in `suffix`: no leading '/', no empty, "." or
 * ".." name (".ossa": the only outputs an edge of ossa batch has). */
static bool plain_path(const char *rel, const char *suffix)
{
    const size_t length = strlen(rel), suffix_length = strlen(suffix);
    if (!length || rel[0] == '/' || length >= PATH_MAX || length <= suffix_length ||
        strcmp(rel + length - suffix_length, suffix))
        return false;
    for (const char *c = rel; *c;) {
        const size_t n = strcspn(c, "/");
        if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.')) return false;
        c += n + (c[n] == '/');
        if (c[-1] == '/' && !*c) return false; /* a trailing slash */
    }
    return true;
}

/* Removes out_dir/rel, a plain relative path ending in `suffix`, as tool_batch_remove_output
 * says; `quiet`: without the line saying so. */
static bool remove_inside(int out_fd, const char *rel, const char *suffix, bool quiet)
{
    enum { MAX_DEPTH = 256 };
    if (!plain_path(rel, suffix)) {
        fprintf(stderr, "ossa: batch: left %s: not an archive path inside OUT_DIR\n", rel);
        return false;
    }
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s", rel);
    /* path's names, each ending in '\0'; fds[d] is the folder holding names[d]. */
    char *names[MAX_DEPTH];
    int fds[MAX_DEPTH];
    size_t depth = 0;
    for (char *c = path; c; ++depth) {
        if (depth == MAX_DEPTH) {
            fprintf(stderr, "ossa: batch: left %s: more than %d folders deep\n", rel, MAX_DEPTH);
            return false;
        }
        names[depth] = c;
        if ((c = strchr(c, '/'))) *c++ = '\0';
    }
    fds[0] = out_fd;
    bool ok = true;
    size_t opened = 1;
    for (; ok && opened < depth; ++opened) {
        fds[opened] = openat(fds[opened - 1], names[opened - 1], O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fds[opened] < 0) {
            const int error = errno;
            if (error == ENOTDIR || error == ELOOP)
                fprintf(stderr, "ossa: batch: left %s: %s is not a folder (a symbolic link is not followed)\n", rel,
                        names[opened - 1]);
            else if (error != ENOENT)
                fprintf(stderr, "ossa: batch: left %s: cannot open %s: %s\n", rel, names[opened - 1], strerror(error));
            ok = error == ENOENT; /* gone already */
            break;
        }
    }
    const bool reached = ok && opened == depth;
    struct stat st;
    if (reached && fstatat(fds[depth - 1], names[depth - 1], &st, AT_SYMLINK_NOFOLLOW) != 0) {
        ok = errno == ENOENT;
        if (!ok) fprintf(stderr, "ossa: batch: left %s: %s\n", rel, strerror(errno));
    } else if (reached && !S_ISREG(st.st_mode)) {
        fprintf(stderr, "ossa: batch: left %s: not a regular file\n", rel);
        ok = false;
    } else if (reached && unlinkat(fds[depth - 1], names[depth - 1], 0) != 0) {
        fprintf(stderr, "ossa: batch: cannot remove %s: %s\n", rel, strerror(errno));
        ok = false;
    } else if (reached) {
        if (!quiet) printf("removed %s (not produced any more: its source is gone or is not baked)\n", rel);
        /* The folders this empties, deepest first; rmdir refuses the others, never OUT_DIR. */
        for (size_t d = depth - 1; d > 0 && unlinkat(fds[d - 1], names[d - 1], AT_REMOVEDIR) == 0; --d) continue;
    }
    for (size_t d = 1; d < opened; ++d) close(fds[d]);
    return ok;
}

bool tool_batch_remove_output(int out_fd, const char *rel) { return remove_inside(out_fd, rel, ".ossa", false); }

bool tool_batch_remove_error(int out_fd, const char *rel) { return remove_inside(out_fd, rel, ".ossa.err", true); }
