#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

ossa_result ossa_diag_set(ossa_diag *diag, ossa_result code, size_t offset, uint32_t line, uint32_t column,
                          const char *fmt, ...)
{
    if (!diag || diag->code != OSSA_OK) return code;
    diag->code = code;
    diag->offset = offset;
    diag->line = line;
    diag->column = column;
    va_list args;
    va_start(args, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, args);
    va_end(args);
    return code;
}

void ossa_diag_clear(ossa_diag *diag)
{
    if (!diag) return;
    memset(diag, 0, sizeof *diag);
    diag->offset = SIZE_MAX;
}

const char *ossa_diag_format(const ossa_diag *diag, char *buffer, size_t size)
{
    if (!buffer || size == 0) return buffer;
    if (!diag || diag->code == OSSA_OK) {
        snprintf(buffer, size, "no error");
    } else if (diag->line > 0) {
        snprintf(buffer, size, "%s at line %u:%u: %s", ossa_result_name(diag->code), (unsigned)diag->line,
                 (unsigned)diag->column, diag->message);
    } else if (diag->offset != SIZE_MAX) {
        snprintf(buffer, size, "%s at byte %zu: %s", ossa_result_name(diag->code), diag->offset, diag->message);
    } else {
        snprintf(buffer, size, "%s: %s", ossa_result_name(diag->code), diag->message);
    }
    return buffer;
}

void *ossa_alloc(const ossa_allocator *allocator, size_t size)
{
    if (size == 0) return NULL;
    if (allocator && allocator->alloc) return allocator->alloc(size, allocator->user);
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded < size) return NULL;
    return aligned_alloc(16, rounded);
}

void ossa_free(const ossa_allocator *allocator, void *ptr)
{
    if (!ptr) return;
    if (allocator && allocator->free) {
        allocator->free(ptr, allocator->user);
        return;
    }
    free(ptr);
}

char *ossa_strdup(const ossa_allocator *allocator, const char *text)
{
    if (!text) text = "";
    size_t n = strlen(text) + 1;
    char *copy = ossa_alloc(allocator, n);
    if (copy) memcpy(copy, text, n);
    return copy;
}

void *ossa__calloc(const ossa_allocator *allocator, size_t count, size_t size)
{
    size_t bytes;
    if (!ossa__mul_size(count, size, &bytes) || bytes == 0) return NULL;
    void *p = ossa_alloc(allocator, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

bool ossa__grow(const ossa_allocator *allocator, void **array, size_t *capacity, size_t needed, size_t elem)
{
    if (needed <= *capacity) return true;
    size_t cap = *capacity ? *capacity : 4;
    while (cap < needed) {
        if (cap > SIZE_MAX / 2) return false;
        cap *= 2;
    }
    size_t bytes, old_bytes;
    if (!ossa__mul_size(cap, elem, &bytes)) return false;
    void *p = ossa_alloc(allocator, bytes);
    if (!p) return false;
    old_bytes = *capacity * elem;
    if (*array && old_bytes) memcpy(p, *array, old_bytes);
    memset((char *)p + old_bytes, 0, bytes - old_bytes);
    ossa_free(allocator, *array);
    *array = p;
    *capacity = cap;
    return true;
}

ossa_result ossa_blob_create(ossa_blob *blob, size_t size, const ossa_allocator *allocator)
{
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    memset(blob, 0, sizeof *blob);
    if (allocator) blob->allocator = *allocator;
    if (size == 0) return OSSA_OK;
    blob->data = ossa_alloc(allocator, size);
    if (!blob->data) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(blob->data, 0, size);
    blob->size = size;
    return OSSA_OK;
}

void ossa_blob_destroy(ossa_blob *blob)
{
    if (!blob) return;
    ossa_free(&blob->allocator, blob->data);
    memset(blob, 0, sizeof *blob);
}
