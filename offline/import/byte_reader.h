/* Private to the binary importers (ozz, MRTK, Metroid CINF/ANIM, Resonite AnimX): one
 * bounds-checked, endian-aware cursor over an input held in memory. Not installed. The runtime
 * does not use it: its blob views (runtime/blob.h) check their own layouts and record no diag.
 *
 *   ossa__byte_reader r;
 *   ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, allocator);
 *   uint32_t count;
 *   if (ossa__br_u32(&r, "track count", &count) != OSSA_OK) return r.code;
 *   if (ossa__br_need_at(&r, count, 12, r.pos - 4, "tracks") != OSSA_OK) return r.code;
 *
 * Truncation: every read, skip, seek and size check that runs out of data records
 * OSSA_ERROR_TRUNCATED in the diag with one message format,
 *
 *   "<what> needs N bytes at offset X, but only M remain"
 *
 * where X is the byte offset at which the N bytes would start. N is printed as "C x S" when the
 * C items of S bytes overflow 64 bits. The diag's offset is X too, except for ossa__br_need_at,
 * which reports the offset of the field that declared the count. The reader's prefix and
 * suffix (when set) surround every message it records, so that a format can say which object or
 * which decompressed payload the offset belongs to.
 *
 * Errors: every function returns OSSA_OK (0) or the error it recorded, so
 * `if (ossa__br_u32(...)) return r->code;` reads "on error". The diag keeps the first error
 * (ossa_diag_set); `code` keeps the first error recorded through this reader, so a reader with a
 * NULL diag (layout probes) still tells what failed. On error a read leaves the position
 * unchanged and stores 0 in its output.
 *
 * Ownership and aliasing: the reader borrows `data` (never written) and the diag; spans given
 * by ossa__br_bytes point into `data` and live as long as it. The reader allocates nothing;
 * `allocator` is carried for the importer's own copies.
 *
 * Endianness: `big_endian` decides the byte order of every multi-byte read (u16 to f64) and of
 * the ossa__br_load_* decoders given the reader; u8, spans and varints have no byte order.
 * Floats are IEEE 754 binary32/binary64 bit patterns in that order (NaN payloads kept).
 * Varints are 7-bit groups, lowest first, high bit set on every byte but the last (LEB128, as
 * .NET's BinaryWriter.Write7BitEncodedInt and lz4net write them), bounded in length.
 */
#ifndef OSSA_OFFLINE_IMPORT_BYTE_READER_H
#define OSSA_OFFLINE_IMPORT_BYTE_READER_H

#include <string.h>

#include "ossa/offline/common.h"

#define OSSA__BR_LITTLE false
#define OSSA__BR_BIG    true

typedef struct ossa__byte_reader {
    const uint8_t *data; /* [size]; never NULL after ossa__br_init */
    size_t size;
    size_t pos;                      /* next byte read, <= size */
    bool big_endian;                 /* byte order of multi-byte reads */
    const char *prefix;              /* NULL or text put before every message ("CINF: ") */
    const char *suffix;              /* NULL or text put after every message */
    ossa_diag *diag;                 /* may be NULL */
    const ossa_allocator *allocator; /* NULL means malloc/free; for the importer's copies */
    ossa_result code;                /* first error recorded through this reader, or OSSA_OK */
} ossa__byte_reader;

/* Points `r` at data[0..size) from position 0. NULL data reads as empty (size must then be 0). */
void ossa__br_init(ossa__byte_reader *r, const void *data, size_t size, bool big_endian, ossa_diag *diag,
                   const ossa_allocator *allocator);

static inline size_t ossa__br_remaining(const ossa__byte_reader *r) { return r->size - r->pos; }

/* Records `code` at byte `offset` (SIZE_MAX when unknown) with prefix + message + suffix;
 * first error wins, in the diag and in r->code. Returns code. */
ossa_result ossa__br_fail(ossa__byte_reader *r, ossa_result code, size_t offset, const char *fmt, ...)
    OSSA_PRINTF_FORMAT(4, 5);

/* OSSA_OK when `count` items of `item_size` bytes remain from r->pos (item_size 0 always
 * fits); otherwise TRUNCATED at r->pos naming `what`. Never overflows: count * item_size is
 * not computed unless it fits. Moves nothing. */
ossa_result ossa__br_need(ossa__byte_reader *r, uint64_t count, size_t item_size, const char *what);

/* ossa__br_need, but the error is recorded at `at`, the offset of the field that declared
 * `count` (the message still says where the bytes would start). */
ossa_result ossa__br_need_at(ossa__byte_reader *r, uint64_t count, size_t item_size, size_t at, const char *what);

/* Moves past `count` bytes that remain; TRUNCATED otherwise. */
ossa_result ossa__br_skip(ossa__byte_reader *r, size_t count, const char *what);

/* Moves to byte `offset` (<= size, backwards allowed); TRUNCATED at r->pos otherwise. */
ossa_result ossa__br_seek(ossa__byte_reader *r, size_t offset, const char *what);

/* Takes a span of `count` bytes: *out points into the data, never NULL on success (even for
 * 0 bytes, so that it can go to memchr or memcpy); NULL on error. */
ossa_result ossa__br_bytes(ossa__byte_reader *r, size_t count, const char *what, const uint8_t **out);

/* Fixed-size reads in the reader's byte order. */
ossa_result ossa__br_u8(ossa__byte_reader *r, const char *what, uint8_t *out);
ossa_result ossa__br_u16(ossa__byte_reader *r, const char *what, uint16_t *out);
ossa_result ossa__br_i16(ossa__byte_reader *r, const char *what, int16_t *out);
ossa_result ossa__br_u32(ossa__byte_reader *r, const char *what, uint32_t *out);
ossa_result ossa__br_i32(ossa__byte_reader *r, const char *what, int32_t *out);
ossa_result ossa__br_u64(ossa__byte_reader *r, const char *what, uint64_t *out);
ossa_result ossa__br_f32(ossa__byte_reader *r, const char *what, float *out);
ossa_result ossa__br_f64(ossa__byte_reader *r, const char *what, double *out);

/* A 7-bit varint of at most `max_bytes` bytes (1..10: 5 for a .NET Int32, 10 for 64 bits).
 * A missing byte is TRUNCATED at its offset; a last allowed byte that still has its high bit
 * set is CORRUPT at the varint's first byte ("<what> runs past N bytes"). Bits beyond 64 are
 * dropped; callers check the value's range. */
ossa_result ossa__br_varint(ossa__byte_reader *r, unsigned max_bytes, const char *what, uint64_t *out);

/* Decoders for bytes already taken through ossa__br_bytes (or another bounds check). */
static inline uint16_t ossa__br_load_u16(const uint8_t *p, bool big_endian)
{
    return big_endian ? (uint16_t)((unsigned)p[0] << 8 | p[1]) : (uint16_t)((unsigned)p[1] << 8 | p[0]);
}

static inline uint32_t ossa__br_load_u32(const uint8_t *p, bool big_endian)
{
    if (big_endian) return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | (uint32_t)p[0];
}

static inline uint64_t ossa__br_load_u64(const uint8_t *p, bool big_endian)
{
    const uint64_t a = ossa__br_load_u32(p, big_endian), b = ossa__br_load_u32(p + 4, big_endian);
    return big_endian ? a << 32 | b : b << 32 | a;
}

static inline int16_t ossa__br_load_i16(const uint8_t *p, bool big_endian)
{
    const uint16_t u = ossa__br_load_u16(p, big_endian);
    return (int16_t)(u >= 0x8000u ? (int32_t)u - 0x10000 : (int32_t)u);
}

static inline int32_t ossa__br_load_i32(const uint8_t *p, bool big_endian)
{
    const uint32_t u = ossa__br_load_u32(p, big_endian);
    return u <= INT32_MAX ? (int32_t)u : (int32_t)(u - 0x80000000u) - INT32_MAX - 1;
}

static inline float ossa__br_bits_to_f32(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static inline float ossa__br_load_f32(const uint8_t *p, bool big_endian)
{
    return ossa__br_bits_to_f32(ossa__br_load_u32(p, big_endian));
}

#endif /* OSSA_OFFLINE_IMPORT_BYTE_READER_H */
