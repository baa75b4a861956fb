/* Private helpers for in-place blob views: bounds-checked cursor over little-endian data. */
#ifndef OSSA_RUNTIME_BLOB_H
#define OSSA_RUNTIME_BLOB_H

#include <string.h>

#include "ossa/result.h"

static inline bool ossa__host_is_little_endian(void)
{
    const uint16_t one = 1;
    uint8_t first;
    memcpy(&first, &one, 1);
    return first == 1;
}

static inline uint32_t ossa__load_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t ossa__load_u64(const uint8_t *p)
{
    return (uint64_t)ossa__load_u32(p) | ((uint64_t)ossa__load_u32(p + 4) << 32);
}

static inline float ossa__load_f32(const uint8_t *p)
{
    const uint32_t u = ossa__load_u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* Sequential reader: take(n) returns the next n bytes (after aligning the cursor to `align`)
 * or NULL when they pass the end. */
typedef struct ossa__cursor {
    const uint8_t *base;
    size_t size;
    size_t pos;
} ossa__cursor;

static inline const uint8_t *ossa__take(ossa__cursor *c, size_t count, size_t elem, size_t align)
{
    size_t pos = (c->pos + (align - 1)) & ~(align - 1);
    if (pos < c->pos || pos > c->size) return NULL;
    if (elem && count > (c->size - pos) / elem) return NULL;
    c->pos = pos + count * elem;
    return c->base + pos;
}

/* Bytes rounded up to a multiple of 16. */
static inline size_t ossa__pad16(size_t n) { return (n + 15) & ~(size_t)15; }

#endif
