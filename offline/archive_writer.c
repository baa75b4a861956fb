#include <string.h>

#include "blob.h"
#include "internal.h"
#include "ossa/offline/archive_writer.h"

ossa_result ossa_archive_write(const ossa_archive_entry *entries, size_t entry_count, const ossa_allocator *allocator,
                               ossa_blob *out, ossa_diag *diag)
{
    if (out) memset(out, 0, sizeof *out);
    if (!out || (!entries && entry_count)) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no entries or output");
    if (entry_count > UINT32_MAX / OSSA_ARCHIVE_CHUNK_ENTRY_SIZE)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "too many chunks");
    size_t at = OSSA_ARCHIVE_HEADER_SIZE + entry_count * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
    for (size_t i = 0; i < entry_count; ++i) {
        if (!entries[i].data && entries[i].size)
            return ossa__fail_at(diag, OSSA_ERROR_NULL_ARGUMENT, i, "chunk %zu has no data", i);
        at = (at + 15) & ~(size_t)15;
        if (!ossa__add_size(at, entries[i].size, &at))
            return ossa__fail_at(diag, OSSA_ERROR_OUT_OF_MEMORY, i, "archive size overflows");
    }
    const size_t size = (at + 15) & ~(size_t)15;
    ossa_result r = ossa_blob_create(out, size, allocator);
    if (r != OSSA_OK) return ossa__fail(diag, r, "out of memory for a %zu-byte archive", size);
    uint8_t *b = out->data;
    memcpy(b + OSSA__ARCHIVE_MAGIC, "OSSA", 4);
    ossa__store_u32(b + OSSA__ARCHIVE_VERSION_FLAGS, OSSA_ARCHIVE_VERSION);
    ossa__store_u32(b + OSSA__ARCHIVE_CHUNK_COUNT, (uint32_t)entry_count);
    at = OSSA_ARCHIVE_HEADER_SIZE + entry_count * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
    for (size_t i = 0; i < entry_count; ++i) {
        at = (at + 15) & ~(size_t)15;
        uint8_t *e = b + OSSA_ARCHIVE_HEADER_SIZE + i * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
        ossa__store_u32(e + OSSA__CHUNK_TAG, entries[i].tag);
        ossa__store_u32(e + OSSA__CHUNK_VERSION, entries[i].version);
        ossa__store_u64(e + OSSA__CHUNK_OFFSET, at);
        ossa__store_u64(e + OSSA__CHUNK_SIZE, entries[i].size);
        if (entries[i].size) memcpy(b + at, entries[i].data, entries[i].size);
        ossa__store_u32(e + OSSA__CHUNK_CRC, ossa_crc32(0, b + at, entries[i].size));
        at += entries[i].size;
    }
    ossa__store_u32(b + OSSA__ARCHIVE_TABLE_CRC, ossa__archive_table_crc(b, (uint32_t)entry_count));
    return OSSA_OK;
}
