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

/* Header fields of the archive, skeleton and track blobs, one owner for the builder that writes
 * them and the reader that checks them (byte tables in docs/archive-format.md; the animation
 * blob's are in animation_format.h). Each field is a little-endian u32 unless named u64. */
enum {
    OSSA__ARCHIVE_MAGIC = 0,         /* "OSSA" */
    OSSA__ARCHIVE_VERSION_FLAGS = 4, /* version, flags in the high bits */
    OSSA__ARCHIVE_CHUNK_COUNT = 8,
    OSSA__ARCHIVE_TABLE_CRC = 12, /* CRC-32 of the header's first 12 bytes and the chunk table */
    /* One chunk-table entry (OSSA_ARCHIVE_CHUNK_ENTRY_SIZE bytes). */
    OSSA__CHUNK_TAG = 0,
    OSSA__CHUNK_VERSION = 4,
    OSSA__CHUNK_OFFSET = 8, /* u64, from the archive's start, 16-byte aligned */
    OSSA__CHUNK_SIZE = 16,  /* u64 */
    OSSA__CHUNK_CRC = 24,   /* CRC-32 of the chunk's bytes */
    OSSA__CHUNK_RESERVED = 28,
    /* Skeleton blob header (16 bytes). */
    OSSA__SKELETON_JOINT_COUNT = 0,
    OSSA__SKELETON_NAMES_SIZE = 4,
    OSSA__SKELETON_RESERVED0 = 8,
    OSSA__SKELETON_RESERVED1 = 12,
    /* Track blob header (16 bytes). */
    OSSA__TRACK_TYPE = 0,
    OSSA__TRACK_KEY_COUNT = 4,
    OSSA__TRACK_NAME_SIZE = 8,
    OSSA__TRACK_RESERVED = 12
};

#endif
