#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if !defined(_WIN32)
#include <unistd.h>
#endif

#include "ossa/archive.h"

void *ossa_test_read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    if (fseek(f, 0, SEEK_END) != 0) {
        fclose(f);
        return NULL;
    }
    long len = ftell(f);
    if (len < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    size_t rounded = ((size_t)len + 16) & ~(size_t)15;
    void *data = aligned_alloc(16, rounded);
    if (!data) {
        fclose(f);
        return NULL;
    }
    memset(data, 0, rounded);
    if (fread(data, 1, (size_t)len, f) != (size_t)len) {
        fclose(f);
        free(data);
        return NULL;
    }
    fclose(f);
    *size = (size_t)len;
    return data;
}

void *ossa_test_open_archive(const char *path, ossa_archive *ar)
{
    size_t size = 0;
    void *bytes = ossa_test_read_file(path, &size);
    if (!bytes) fail_msg("cannot read the archive %s", path);
    const ossa_result r = ossa_archive_init(ar, bytes, size);
    if (r != OSSA_OK) fail_msg("%s is not a valid archive: %s", path, ossa_result_string(r));
    return bytes;
}

static const char *join(const char *env, const char *fallback, const char *relative)
{
    static char buffer[4096];
    const char *root = getenv(env);
    snprintf(buffer, sizeof buffer, "%s/%s", root ? root : fallback, relative);
    return buffer;
}

const char *ossa_test_shared_path(const char *relative) { return join("OSSA_SHARED_DATA", "data", relative); }

const char *ossa_test_assimp_path(const char *relative)
{
    return join("OSSA_ASSIMP_MODELS", "/usr/share/assimp/models", relative);
}

uint32_t ossa_test_rand(uint32_t *state)
{
    uint32_t x = *state ? *state : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

float ossa_test_randf(uint32_t *state, float lo, float hi)
{
    return lo + (hi - lo) * (float)(ossa_test_rand(state) >> 8) * (1.0f / 16777216.0f);
}

void *ossa_test_read_or_skip(const char *path, const char *shown, size_t *size)
{
    void *data = ossa_test_read_file(path, size);
    if (!data) {
        print_message("skipped: %s not found\n", shown);
        skip();
    }
    return data;
}

#if !defined(_WIN32)
static char scratch[256];

int ossa_test_scratch_create(const char *prefix)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(scratch, sizeof scratch, "%s/%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", prefix);
    return mkdtemp(scratch) ? 0 : -1;
}

int ossa_test_scratch_remove(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    return system(cmd) == 0 ? 0 : -1;
}

const char *ossa_test_scratch_dir(void) { return scratch; }

const char *ossa_test_scratch_path(const char *name)
{
    static char paths[8][1024];
    static unsigned next;
    char *p = paths[next++ & 7];
    snprintf(p, sizeof paths[0], "%s/%s", scratch, name);
    return p;
}

void ossa_test_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

char *ossa_test_run_captured_fd(int fd, int (*tool)(int, char **), int argc, const char **argv, int *status)
{
    const char *out_path = ossa_test_scratch_path(fd == STDERR_FILENO ? "stderr.txt" : "stdout.txt");
    FILE *stream = fd == STDERR_FILENO ? stderr : stdout;
    fflush(stream);
    const int saved = dup(fd);
    FILE *f = fopen(out_path, "wb");
    assert_true(saved >= 0 && f);
    dup2(fileno(f), fd);
    *status = tool(argc, (char **)(uintptr_t)argv);
    fflush(stream);
    dup2(saved, fd);
    close(saved);
    fclose(f);
    size_t size = 0;
    char *bytes = ossa_test_read_file(out_path, &size);
    assert_non_null(bytes);
    char *text = malloc(size + 1);
    assert_non_null(text);
    memcpy(text, bytes, size);
    text[size] = '\0';
    free(bytes);
    return text;
}

char *ossa_test_run_captured(int (*tool)(int, char **), int argc, const char **argv, int *status)
{
    return ossa_test_run_captured_fd(STDOUT_FILENO, tool, argc, argv, status);
}
#endif
