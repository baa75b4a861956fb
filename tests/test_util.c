#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
