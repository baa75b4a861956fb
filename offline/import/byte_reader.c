/* The binary importers' shared cursor; the message format is stated in byte_reader.h. */
#include "import/byte_reader.h"
#include "internal.h"

#include <stdarg.h>
#include <stdio.h>

void ossa__br_init(ossa__byte_reader *r, const void *data, size_t size, bool big_endian, ossa_diag *diag,
                   const ossa_allocator *allocator)
{
    /* Arithmetic on a NULL pointer is undefined even when adding 0. */
    static const uint8_t empty[1] = {0};
    *r = (ossa__byte_reader){0};
    r->data = data ? (const uint8_t *)data : empty;
    r->size = data ? size : 0;
    r->big_endian = big_endian;
    r->diag = diag;
    r->allocator = allocator;
}

ossa_result ossa__br_fail(ossa__byte_reader *r, ossa_result code, size_t offset, const char *fmt, ...)
{
    char text[sizeof(((ossa_diag *)0)->message)];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (r->code == OSSA_OK) r->code = code;
    return ossa__fail_at(r->diag, code, offset, "%s%s%s", r->prefix ? r->prefix : "", text, r->suffix ? r->suffix : "");
}

static ossa_result truncated(ossa__byte_reader *r, uint64_t count, size_t item_size, size_t at, const char *what)
{
    char bytes[64];
    if (item_size > 1 && count > UINT64_MAX / item_size)
        snprintf(bytes, sizeof bytes, "%llu x %zu", (unsigned long long)count, item_size);
    else
        snprintf(bytes, sizeof bytes, "%llu", (unsigned long long)(count * item_size));
    const bool one = count == 1 && item_size == 1;
    return ossa__br_fail(r, OSSA_ERROR_TRUNCATED, at, "%s needs %s byte%s at offset %zu, but only %zu remain", what,
                         bytes, one ? "" : "s", r->pos, ossa__br_remaining(r));
}

static bool fits(const ossa__byte_reader *r, uint64_t count, size_t item_size)
{
    return item_size == 0 || count <= ossa__br_remaining(r) / item_size;
}

ossa_result ossa__br_need(ossa__byte_reader *r, uint64_t count, size_t item_size, const char *what)
{
    return fits(r, count, item_size) ? OSSA_OK : truncated(r, count, item_size, r->pos, what);
}

ossa_result ossa__br_need_at(ossa__byte_reader *r, uint64_t count, size_t item_size, size_t at, const char *what)
{
    return fits(r, count, item_size) ? OSSA_OK : truncated(r, count, item_size, at, what);
}

ossa_result ossa__br_skip(ossa__byte_reader *r, size_t count, const char *what)
{
    if (!fits(r, count, 1)) return truncated(r, count, 1, r->pos, what);
    r->pos += count;
    return OSSA_OK;
}

ossa_result ossa__br_seek(ossa__byte_reader *r, size_t offset, const char *what)
{
    if (offset > r->size) return truncated(r, offset - r->pos, 1, r->pos, what);
    r->pos = offset;
    return OSSA_OK;
}

ossa_result ossa__br_bytes(ossa__byte_reader *r, size_t count, const char *what, const uint8_t **out)
{
    *out = NULL;
    if (!fits(r, count, 1)) return truncated(r, count, 1, r->pos, what);
    *out = r->data + r->pos;
    r->pos += count;
    return OSSA_OK;
}

/* `size` bytes at the position, or NULL after recording the truncation. */
static const uint8_t *take(ossa__byte_reader *r, size_t size, const char *what)
{
    if (!fits(r, 1, size)) {
        truncated(r, 1, size, r->pos, what);
        return NULL;
    }
    const uint8_t *p = r->data + r->pos;
    r->pos += size;
    return p;
}

ossa_result ossa__br_u8(ossa__byte_reader *r, const char *what, uint8_t *out)
{
    const uint8_t *p = take(r, 1, what);
    *out = p ? p[0] : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_u16(ossa__byte_reader *r, const char *what, uint16_t *out)
{
    const uint8_t *p = take(r, 2, what);
    *out = p ? ossa__br_load_u16(p, r->big_endian) : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_i16(ossa__byte_reader *r, const char *what, int16_t *out)
{
    const uint8_t *p = take(r, 2, what);
    *out = p ? ossa__br_load_i16(p, r->big_endian) : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_u32(ossa__byte_reader *r, const char *what, uint32_t *out)
{
    const uint8_t *p = take(r, 4, what);
    *out = p ? ossa__br_load_u32(p, r->big_endian) : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_i32(ossa__byte_reader *r, const char *what, int32_t *out)
{
    const uint8_t *p = take(r, 4, what);
    *out = p ? ossa__br_load_i32(p, r->big_endian) : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_u64(ossa__byte_reader *r, const char *what, uint64_t *out)
{
    const uint8_t *p = take(r, 8, what);
    *out = p ? ossa__br_load_u64(p, r->big_endian) : 0;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_f32(ossa__byte_reader *r, const char *what, float *out)
{
    const uint8_t *p = take(r, 4, what);
    *out = p ? ossa__br_load_f32(p, r->big_endian) : 0.f;
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_f64(ossa__byte_reader *r, const char *what, double *out)
{
    const uint8_t *p = take(r, 8, what);
    const uint64_t u = p ? ossa__br_load_u64(p, r->big_endian) : 0;
    memcpy(out, &u, sizeof *out);
    return p ? OSSA_OK : OSSA_ERROR_TRUNCATED;
}

ossa_result ossa__br_varint(ossa__byte_reader *r, unsigned max_bytes, const char *what, uint64_t *out)
{
    const size_t start = r->pos;
    uint64_t value = 0;
    *out = 0;
    for (unsigned i = 0; i < max_bytes; ++i) {
        uint8_t b;
        if (ossa__br_u8(r, what, &b) != OSSA_OK) {
            r->pos = start;
            return OSSA_ERROR_TRUNCATED;
        }
        if (i < 10) value |= (uint64_t)(b & 0x7Fu) << (7u * i);
        if (!(b & 0x80u)) {
            *out = value;
            return OSSA_OK;
        }
    }
    r->pos = start;
    return ossa__br_fail(r, OSSA_ERROR_CORRUPT, start, "%s runs past %u bytes (7-bit encoded integer)", what,
                         max_bytes);
}
