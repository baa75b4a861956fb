/* Private helpers shared by the offline sources (not installed). */
#ifndef OSSA_OFFLINE_INTERNAL_H
#define OSSA_OFFLINE_INTERNAL_H

#include "ossa/offline/common.h"

/* a * b into *out; false on overflow. */
static inline bool ossa__mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}

/* a + b into *out; false on overflow. */
static inline bool ossa__add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return false;
    *out = a + b;
    return true;
}

/* qsort comparison of floats, ascending. */
static inline int ossa__compare_floats(const void *pa, const void *pb)
{
    const float a = *(const float *)pa, b = *(const float *)pb;
    return a < b ? -1 : a > b;
}

/* Zeroed array of count elements of size bytes; NULL on overflow or failure (or count 0). */
void *ossa__calloc(const ossa_allocator *allocator, size_t count, size_t size);

/* Grows *array (of *capacity elements of elem bytes) to hold at least `needed`. */
bool ossa__grow(const ossa_allocator *allocator, void **array, size_t *capacity, size_t needed, size_t elem);

static inline void ossa__store_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ossa__store_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void ossa__store_u64(uint8_t *p, uint64_t v)
{
    ossa__store_u32(p, (uint32_t)v);
    ossa__store_u32(p + 4, (uint32_t)(v >> 32));
}

static inline void ossa__store_f32(uint8_t *p, float f)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = f;
    ossa__store_u32(p, c.u);
}

#endif
