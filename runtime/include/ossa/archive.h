/* ossa/archive.h: reading the .ossa container in place.
 *
 *   ossa_archive ar;
 *   ossa_skeleton skel; ossa_animation anim;
 *   if (ossa_archive_init(&ar, file_bytes, file_size) == OSSA_OK &&
 *       ossa_archive_skeleton(&ar, &skel) == OSSA_OK &&
 *       ossa_archive_animation(&ar, 0, &anim) == OSSA_OK) { ... }
 *
 * Ownership: the caller owns the bytes (16-byte aligned) and keeps them alive while any view
 * made from the archive is used. Writing archives is offline (ossa/offline/archive_writer.h).
 *
 * Layout v1, all little-endian:
 *   header (16 bytes): "OSSA", u16 version (1), u16 flags (0), u32 chunk_count, u32 table_crc
 *     (CRC-32 of header bytes 0..11 followed by the whole chunk table)
 *   chunk table [chunk_count] (32 bytes each): u32 tag (four ASCII bytes, first in memory
 *     first), u32 chunk version, u64 offset, u64 size, u32 crc32 of the payload, u32 reserved
 *   payloads at 16-byte aligned offsets, in table order, not overlapping.
 * Chunk tags: "SKEL" skeleton blob, "ANIM" animation blob, "TRCK" track blob, "META" UTF-8
 * "key=value\n" lines (for example source units). The CRC-32s (IEEE 802.3 polynomial) of the
 * table and of each payload make any bit flip outside the zero padding an error rather than
 * silently different data.
 */
#ifndef OSSA_ARCHIVE_H
#define OSSA_ARCHIVE_H

#include "ossa/animation.h"
#include "ossa/skeleton.h"
#include "ossa/track.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_ARCHIVE_VERSION          1u
#define OSSA_ARCHIVE_HEADER_SIZE      16u
#define OSSA_ARCHIVE_CHUNK_ENTRY_SIZE 32u
/* Tag from four characters, first character in the lowest byte ("SKEL" reads as text on disk). */
#define OSSA_TAG(a, b, c, d)                                                                                           \
    ((uint32_t)(uint8_t)(a) | ((uint32_t)(uint8_t)(b) << 8) | ((uint32_t)(uint8_t)(c) << 16) |                         \
     ((uint32_t)(uint8_t)(d) << 24))
#define OSSA_TAG_SKELETON  OSSA_TAG('S', 'K', 'E', 'L')
#define OSSA_TAG_ANIMATION OSSA_TAG('A', 'N', 'I', 'M')
#define OSSA_TAG_META      OSSA_TAG('M', 'E', 'T', 'A')
/* Chunk version of META: UTF-8 "key=value\n" lines. */
#define OSSA_META_CHUNK_VERSION 1u
/* User-channel track blob (ossa/track.h), chunk version OSSA_TRACK_BLOB_VERSION. */
#define OSSA_TAG_TRACK OSSA_TAG('T', 'R', 'C', 'K')

/* An opened archive: a view over validated bytes. */
typedef struct ossa_archive {
    const uint8_t *data;
    size_t size;
    size_t chunk_count;
} ossa_archive;

/* One chunk of an archive. */
typedef struct ossa_archive_chunk {
    uint32_t tag;
    uint32_t version;
    const void *data; /* 16-byte aligned, inside the archive */
    size_t size;      /* bytes */
} ossa_archive_chunk;

/* Validates the header, the chunk table, every chunk's bounds, alignment and CRC-32, and the
 * table against the layout: payloads packed in table order at the first 16-byte boundary
 * after the previous one (the first right after the table), zero bytes between them and up
 * to `size`, which is the 16-byte boundary after the last payload; every tag one of the four
 * below; META of chunk version OSSA_META_CHUNK_VERSION, text without NUL ending in a newline.
 * (The skeleton, animation and track chunks' versions and contents are checked when their
 * views are made.)
 * Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_MISALIGNED (data not 16-byte aligned),
 * OSSA_ERROR_TRUNCATED, OSSA_ERROR_BAD_MAGIC, OSSA_ERROR_UNSUPPORTED_VERSION (the archive's
 * or META's version), OSSA_ERROR_CORRUPT (bad offsets, overlap, a gap or non-zero bytes
 * between payloads or after the last, bytes past its padding, an unknown tag, META text cut
 * or grown, checksum mismatch, non-zero reserved fields), OSSA_ERROR_UNSUPPORTED_HOST.
 * `*archive` is zeroed on error. Cost: O(size) for the CRCs. */
OSSA_API ossa_result ossa_archive_init(ossa_archive *archive, const void *data, size_t size);

/* Chunk `index` (< chunk_count). Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_NOT_FOUND. */
OSSA_API ossa_result ossa_archive_chunk_at(const ossa_archive *archive, size_t index, ossa_archive_chunk *chunk);

/* The `nth` (0-based) chunk with `tag`. Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_NOT_FOUND. */
OSSA_API ossa_result ossa_archive_find(const ossa_archive *archive, uint32_t tag, size_t nth,
                                       ossa_archive_chunk *chunk);

/* Number of chunks with `tag`. */
OSSA_API size_t ossa_archive_count(const ossa_archive *archive, uint32_t tag);

/* The first skeleton chunk, validated into a view (see ossa_skeleton_init for errors;
 * OSSA_ERROR_NOT_FOUND when absent, OSSA_ERROR_UNSUPPORTED_VERSION for another blob version). */
OSSA_API ossa_result ossa_archive_skeleton(const ossa_archive *archive, ossa_skeleton *skeleton);

/* The `index`-th animation chunk, validated into a view (see ossa_animation_init). */
OSSA_API ossa_result ossa_archive_animation(const ossa_archive *archive, size_t index, ossa_animation *animation);

/* CRC-32 that the header stores over its first 12 bytes and the chunk table (internal to
 * the reader and the writer). */
OSSA_API uint32_t ossa__archive_table_crc(const uint8_t *archive, uint32_t chunk_count);

/* The `index`-th track chunk ("TRCK"), validated into a view (see ossa_track_init;
 * OSSA_ERROR_NOT_FOUND when absent, OSSA_ERROR_UNSUPPORTED_VERSION for another blob version).
 * `*track` is zeroed on error. Implemented in track.c. */
OSSA_API ossa_result ossa_archive_track(const ossa_archive *archive, size_t index, ossa_track *track);

/* The value of the first "key=value" line of the archive's META chunk whose key is `key`,
 * copied into `buffer` (`size` bytes, NUL-terminated, cut to fit). Returns false when there
 * is no META chunk, no such line, or a NULL argument. The META chunk is UTF-8 text written by
 * the offline tools (docs/archive-format.md); nothing here depends on it. */
OSSA_API bool ossa_archive_meta(const ossa_archive *archive, const char *key, char *buffer, size_t size);

/* The length unit of the archive's translations (skeleton rest pose, animation translation
 * keys, position tracks): metres per stored unit, read from META's "unit_scale" line.
 * Units: metres per unit; multiply a sampled translation by it to get metres.
 * Returns 1 for archives `ossa bake` wrote (it converts to metres unless told
 * --keep-source-units), the source's metres per unit for those baked with
 * --keep-source-units (and for archives baked before the conversion, which kept the source's
 * unit), and 1 when there is no META chunk, no unit_scale line, a NULL archive, or a value that
 * is not a decimal number > 0 within float range. The number is read without the C library
 * (no dependence on the host's locale). Errors: none (see the fallbacks above). */
OSSA_API float ossa_archive_unit_scale(const ossa_archive *archive);

/* CRC-32 (IEEE 802.3, reflected, as zlib's crc32) of `size` bytes, continuing from `crc`
 * (start with 0). */
OSSA_API uint32_t ossa_crc32(uint32_t crc, const void *data, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_ARCHIVE_H */
