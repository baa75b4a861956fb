#include "ossa/archive.h"

#include <float.h>
#include <string.h>

#include "blob.h"

/* Reflected CRC-32 (polynomial 0xEDB88320), table built at compile time by a macro so the
 * runtime keeps no mutable globals. */
#define CRC_STEP(c) (((c)&1u) ? 0xEDB88320u ^ ((c) >> 1) : ((c) >> 1))
#define CRC_8(c)    CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(CRC_STEP(c))))))))
#define CRC_ROW(i)  CRC_8((uint32_t)(i))
#define CRC_4(i)    CRC_ROW(i), CRC_ROW(i + 1), CRC_ROW(i + 2), CRC_ROW(i + 3)
#define CRC_16(i)   CRC_4(i), CRC_4(i + 4), CRC_4(i + 8), CRC_4(i + 12)
#define CRC_64(i)   CRC_16(i), CRC_16(i + 16), CRC_16(i + 32), CRC_16(i + 48)
static const uint32_t crc_table[256] = {CRC_64(0), CRC_64(64), CRC_64(128), CRC_64(192)};

uint32_t ossa_crc32(uint32_t crc, const void *data, size_t size)
{
    const uint8_t *p = data;
    crc = ~crc;
    for (size_t i = 0; i < size; ++i) crc = crc_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
    return ~crc;
}

uint32_t ossa__archive_table_crc(const uint8_t *archive, uint32_t chunk_count)
{
    const uint32_t crc = ossa_crc32(0, archive, 12);
    return ossa_crc32(crc, archive + OSSA_ARCHIVE_HEADER_SIZE, (size_t)chunk_count * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE);
}

typedef struct entry {
    uint32_t tag, version, crc;
    uint64_t offset, size;
} entry;

static entry read_entry(const uint8_t *base, size_t index)
{
    const uint8_t *e = base + OSSA_ARCHIVE_HEADER_SIZE + index * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
    return (entry){ossa__load_u32(e + OSSA__CHUNK_TAG), ossa__load_u32(e + OSSA__CHUNK_VERSION),
                   ossa__load_u32(e + OSSA__CHUNK_CRC), ossa__load_u64(e + OSSA__CHUNK_OFFSET), ossa__load_u64(e + 16)};
}

/* Version 1 of the format knows these four tags; any other one is a changed tag. */
static bool known_tag(uint32_t tag)
{
    return tag == OSSA_TAG_SKELETON || tag == OSSA_TAG_ANIMATION || tag == OSSA_TAG_TRACK || tag == OSSA_TAG_META;
}

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

static uint64_t align16(uint64_t at) { return (at + 15u) & ~(uint64_t)15u; }

/* META is "key=value\n" lines: no NUL, and a final newline unless it is empty. A size grown
 * into the zero padding ends in NULs; a shrunk one cuts a line (and leaves non-zero bytes in
 * the padding, which the layout check refuses). */
static bool meta_text_ok(const uint8_t *text, size_t size)
{
    return size == 0 || (text[size - 1] == '\n' && memchr(text, 0, size) == NULL);
}

ossa_result ossa_archive_init(ossa_archive *archive, const void *data, size_t size)
{
    if (!archive) return OSSA_ERROR_NULL_ARGUMENT;
    memset(archive, 0, sizeof *archive);
    if (!data) return OSSA_ERROR_NULL_ARGUMENT;
    if (!ossa__host_is_little_endian()) return OSSA_ERROR_UNSUPPORTED_HOST;
    if ((uintptr_t)data & 15u) return OSSA_ERROR_MISALIGNED;
    const uint8_t *p = data;
    if (size < 4) return OSSA_ERROR_TRUNCATED;
    if (memcmp(p, "OSSA", 4) != 0) return OSSA_ERROR_BAD_MAGIC;
    if (size < OSSA_ARCHIVE_HEADER_SIZE) return OSSA_ERROR_TRUNCATED;
    const uint32_t version_flags = ossa__load_u32(p + OSSA__ARCHIVE_VERSION_FLAGS);
    if ((version_flags & 0xffffu) != OSSA_ARCHIVE_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
    if ((version_flags >> 16) != 0) return OSSA_ERROR_CORRUPT;
    const uint32_t chunk_count = ossa__load_u32(p + OSSA__ARCHIVE_CHUNK_COUNT);
    if (chunk_count > (size - OSSA_ARCHIVE_HEADER_SIZE) / OSSA_ARCHIVE_CHUNK_ENTRY_SIZE) return OSSA_ERROR_TRUNCATED;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
    if (ossa__archive_table_crc(p, chunk_count) != ossa__load_u32(p + OSSA__ARCHIVE_TABLE_CRC))
        return OSSA_ERROR_CORRUPT;
#endif
    /* The CRCs catch changed bytes, not a rewritten table with its CRCs recomputed: the table
     * is also checked against the layout the writer produces. Payloads are packed in table
     * order, each at the first 16-byte boundary after the previous one's end (the first right
     * after the table), with zero bytes between them and up to the archive's end, the 16-byte
     * boundary after the last payload. A smaller chunk_count leaves a gap after the table, a
     * changed size moves a boundary or uncovers non-zero bytes. */
    uint64_t previous_end = OSSA_ARCHIVE_HEADER_SIZE + (uint64_t)chunk_count * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
    for (uint32_t i = 0; i < chunk_count; ++i) {
        const entry e = read_entry(p, i);
        if (ossa__load_u32(p + OSSA_ARCHIVE_HEADER_SIZE + (size_t)i * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE +
                           OSSA__CHUNK_RESERVED) != 0)
            return OSSA_ERROR_CORRUPT;
        if (!known_tag(e.tag)) return OSSA_ERROR_CORRUPT;
        if ((e.offset & 15u) || e.offset < previous_end) return OSSA_ERROR_CORRUPT;
        if (e.offset > size || e.size > size - e.offset) return OSSA_ERROR_TRUNCATED;
        if (e.offset != align16(previous_end) || !all_zero(p + previous_end, (size_t)(e.offset - previous_end)))
            return OSSA_ERROR_CORRUPT;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
        if (ossa_crc32(0, p + e.offset, (size_t)e.size) != e.crc) return OSSA_ERROR_CORRUPT;
#endif
        /* META has no view of its own that would check its version when opened */
        if (e.tag == OSSA_TAG_META && e.version != OSSA_META_CHUNK_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
        if (e.tag == OSSA_TAG_META && !meta_text_ok(p + e.offset, (size_t)e.size)) return OSSA_ERROR_CORRUPT;
        previous_end = e.offset + e.size;
    }
    if (size < align16(previous_end)) return OSSA_ERROR_TRUNCATED;
    if (size != align16(previous_end) || !all_zero(p + previous_end, (size_t)(size - previous_end)))
        return OSSA_ERROR_CORRUPT;
    archive->data = p;
    archive->size = size;
    archive->chunk_count = chunk_count;
    return OSSA_OK;
}

ossa_result ossa_archive_chunk_at(const ossa_archive *archive, size_t index, ossa_archive_chunk *chunk)
{
    if (!archive || !chunk) return OSSA_ERROR_NULL_ARGUMENT;
    if (index >= archive->chunk_count) return OSSA_ERROR_NOT_FOUND;
    const entry e = read_entry(archive->data, index);
    *chunk = (ossa_archive_chunk){e.tag, e.version, archive->data + e.offset, (size_t)e.size};
    return OSSA_OK;
}

ossa_result ossa_archive_find(const ossa_archive *archive, uint32_t tag, size_t nth, ossa_archive_chunk *chunk)
{
    if (!archive || !chunk) return OSSA_ERROR_NULL_ARGUMENT;
    for (size_t i = 0; i < archive->chunk_count; ++i) {
        const entry e = read_entry(archive->data, i);
        if (e.tag != tag) continue;
        if (nth-- == 0) return ossa_archive_chunk_at(archive, i, chunk);
    }
    return OSSA_ERROR_NOT_FOUND;
}

size_t ossa_archive_count(const ossa_archive *archive, uint32_t tag)
{
    size_t count = 0;
    for (size_t i = 0; archive && i < archive->chunk_count; ++i) count += read_entry(archive->data, i).tag == tag;
    return count;
}

ossa_result ossa_archive_skeleton(const ossa_archive *archive, ossa_skeleton *skeleton)
{
    if (!skeleton) return OSSA_ERROR_NULL_ARGUMENT;
    memset(skeleton, 0, sizeof *skeleton);
    ossa_archive_chunk chunk;
    ossa_result r = ossa_archive_find(archive, OSSA_TAG_SKELETON, 0, &chunk);
    if (r != OSSA_OK) return r;
    if (chunk.version != OSSA_SKELETON_BLOB_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
    return ossa_skeleton_init(skeleton, chunk.data, chunk.size);
}

ossa_result ossa_archive_animation(const ossa_archive *archive, size_t index, ossa_animation *animation)
{
    if (!animation) return OSSA_ERROR_NULL_ARGUMENT;
    memset(animation, 0, sizeof *animation);
    ossa_archive_chunk chunk;
    ossa_result r = ossa_archive_find(archive, OSSA_TAG_ANIMATION, index, &chunk);
    if (r != OSSA_OK) return r;
    if (chunk.version != OSSA_ANIMATION_BLOB_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
    return ossa_animation_init(animation, chunk.data, chunk.size);
}

bool ossa_archive_meta(const ossa_archive *archive, const char *key, char *buffer, size_t size)
{
    ossa_archive_chunk c;
    if (!archive || !key || !buffer || !size || ossa_archive_find(archive, OSSA_TAG_META, 0, &c) != OSSA_OK)
        return false;
    const char *text = c.data;
    const size_t klen = strlen(key);
    for (size_t at = 0; at < c.size;) {
        const char *line = text + at;
        const char *end = memchr(line, '\n', c.size - at);
        const size_t len = end ? (size_t)(end - line) : c.size - at;
        if (len > klen && !memcmp(line, key, klen) && line[klen] == '=') {
            const size_t n = len - klen - 1 < size - 1 ? len - klen - 1 : size - 1;
            memcpy(buffer, line + klen + 1, n);
            buffer[n] = 0;
            return true;
        }
        at += len + 1;
    }
    return false;
}

/* A decimal number ("0.05644", "1", "2.5e-2") without the C library's strtof, whose decimal
 * separator follows the host's locale. False unless the whole text is one number. */
static bool parse_decimal(const char *text, double *value)
{
    uint64_t mantissa = 0;
    int exponent = 0, digits = 0;
    const char *c = text;
    if (*c == '+') ++c;
    for (bool fraction = false;; ++c) {
        if (*c == '.' && !fraction) {
            fraction = true;
            continue;
        }
        if (*c < '0' || *c > '9') break;
        ++digits;
        /* Beyond 19 significant digits the rest only counts for the exponent. */
        if (mantissa < UINT64_C(1000000000000000000))
            mantissa = mantissa * 10u + (uint64_t)(*c - '0'), exponent -= fraction;
        else
            exponent += !fraction;
    }
    if (!digits) return false;
    if (*c == 'e' || *c == 'E') {
        ++c;
        const bool negative = *c == '-';
        if (*c == '-' || *c == '+') ++c;
        int e = 0, e_digits = 0;
        for (; *c >= '0' && *c <= '9'; ++c, ++e_digits)
            if (e < 10000) e = e * 10 + (*c - '0');
        if (!e_digits) return false;
        exponent += negative ? -e : e;
    }
    if (*c) return false;
    /* Powers of ten up to 1e22 are exact doubles: one rounding for the values META holds. */
    static const double powers[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    double scale = 1.0, result = (double)mantissa;
    for (int e = exponent < 0 ? -exponent : exponent; e > 0 && scale < 1e300; e -= 22) scale *= powers[e > 22 ? 22 : e];
    *value = exponent < 0 ? result / scale : result * scale;
    return true;
}

float ossa_archive_unit_scale(const ossa_archive *archive)
{
    char text[64];
    double value = 0.0;
    if (!ossa_archive_meta(archive, "unit_scale", text, sizeof text) || !parse_decimal(text, &value)) return 1.f;
    const float scale = (float)value;
    return scale > 0.f && scale <= FLT_MAX ? scale : 1.f;
}
