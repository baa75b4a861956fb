/* Resonite AnimX reader: header, LZ4/LZMA payloads, version 0 and 1 tracks.
 * Layout: FORMATS section 2.2-2.3 (resonite-core src/animation/mod.rs, Avatar-Toolkit
 * resonite_animx.py, lz4net LZ4Stream); .NET BinaryWriter conventions, little-endian. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import_internal.h"
#include "../internal.h"
#include "byte_reader.h"
#include "resonite_common.h"

#ifdef OSSA_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef OSSA_HAVE_LZMA
#include <lzma.h>
#endif

/* liblzma's decoder may use this much memory (FrooxEngine writes 2 MiB dictionaries). */
#define LZMA_MEMLIMIT ((uint64_t)64 << 20)

static ossa_result corrupt(ossa__byte_reader *r, size_t at, const char *what)
{
    return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "%s", what);
}

/* .NET Write7BitEncodedInt: 7 bits per byte, low first, at most 5 bytes, a non-negative int. */
static ossa_result read_count(ossa__byte_reader *r, const char *what, size_t *v)
{
    const size_t at = r->pos;
    uint64_t value;
    *v = 0;
    const ossa_result e = ossa__br_varint(r, 5, what, &value);
    if (e != OSSA_OK) return e;
    if (value > INT32_MAX)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "%s %llu is larger than a .NET int allows", what,
                             (unsigned long long)value);
    *v = (size_t)value;
    return OSSA_OK;
}

/* One little-endian component of 1, 2, 4 or 8 bytes whose bytes the caller has checked. */
static uint64_t read_component(ossa__byte_reader *r, size_t bytes, const char *what)
{
    uint8_t u8 = 0;
    uint16_t u16 = 0;
    uint32_t u32 = 0;
    uint64_t u64 = 0;
    switch (bytes) {
    case 1:
        (void)ossa__br_u8(r, what, &u8);
        return u8;
    case 2:
        (void)ossa__br_u16(r, what, &u16);
        return u16;
    case 4:
        (void)ossa__br_u32(r, what, &u32);
        return u32;
    default:
        (void)ossa__br_u64(r, what, &u64);
        return u64;
    }
}

/* A 7-bit-length UTF-8 string, copied NUL-terminated. */
static ossa_result read_string(ossa__byte_reader *r, const ossa_allocator *a, const char *what, char **out)
{
    size_t n;
    const uint8_t *bytes = NULL;
    ossa_result res = read_count(r, what, &n);
    const size_t at = r->pos;
    if (res == OSSA_OK) res = ossa__br_bytes(r, n, what, &bytes);
    if (res != OSSA_OK) return res;
    const size_t bad = ossa__res_utf8_invalid(bytes, n);
    if (bad != SIZE_MAX) return ossa__br_fail(r, OSSA_ERROR_PARSE, at + bad, "%s is not valid UTF-8", what);
    *out = ossa_alloc(a, n + 1);
    if (!*out) return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, at, "out of memory");
    memcpy(*out, bytes, n);
    (*out)[n] = '\0';
    return OSSA_OK;
}

/* One value of `type` into dst[components] (or *str for strings; str NULL discards it). */
static ossa_result read_value(ossa__byte_reader *r, const ossa__res_type *type, const ossa_allocator *a, double *dst,
                              char **str)
{
    const size_t at = r->pos;
    if (type->kind == OSSA__RES_KIND_STRING) {
        uint8_t has;
        char *s = NULL;
        ossa_result e = ossa__br_u8(r, "string value", &has);
        if (e) return e;
        if (has > 1) return corrupt(r, at, "a string value's null flag must be 0 or 1");
        if (has && (e = read_string(r, a, "string value", &s))) return e;
        if (str)
            *str = s;
        else
            ossa_free(a, s);
        return OSSA_OK;
    }
    ossa_result e = ossa__br_need(r, 1, ossa__res_type_size(type), type->name);
    if (e) return e;
    uint8_t packed = 0; /* bools: one bit per component in one byte */
    if (type->kind == OSSA__RES_KIND_BOOL) (void)ossa__br_u8(r, type->name, &packed);
    for (size_t c = 0; c < type->components; ++c) {
        const size_t n = type->component_bytes;
        const uint64_t bits = type->kind == OSSA__RES_KIND_BOOL ? (packed >> c) & 1u : read_component(r, n, type->name);
        double v;
        const char *bad = NULL;
        switch (type->kind) {
        case OSSA__RES_KIND_INT: {
            /* Checked as an integer: 2^63 - 1 has no double (it rounds to 2^63). */
            const uint64_t sign = (uint64_t)1 << (8 * n - 1);
            const uint64_t magnitude = (bits & sign) ? (~bits & (sign - 1)) + 1 : bits;
            bad = ossa__res_check_integer(type, (bits & sign) != 0, magnitude);
            v = (bits & sign) ? -(double)magnitude : (double)magnitude;
            break;
        }
        case OSSA__RES_KIND_UINT:
            bad = ossa__res_check_integer(type, false, bits);
            v = (double)bits;
            break;
        case OSSA__RES_KIND_FLOAT: {
            union {
                uint32_t u;
                float f;
            } cv = {(uint32_t)bits};
            v = (double)cv.f;
            break;
        }
        case OSSA__RES_KIND_DOUBLE: {
            union {
                uint64_t u;
                double d;
            } cv = {bits};
            v = cv.d;
            break;
        }
        default:
            v = (double)bits;
            break;
        }
        if (type->kind != OSSA__RES_KIND_INT && type->kind != OSSA__RES_KIND_UINT)
            bad = ossa__res_check_component(type, v);
        if (bad)
            return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, at + c * n, "%s component %zu (%g) %s", type->name, c, v,
                                 bad);
        dst[c] = v;
    }
    return OSSA_OK;
}

static ossa_result read_time(ossa__byte_reader *r, double *t)
{
    const size_t at = r->pos;
    float f;
    ossa_result e = ossa__br_f32(r, "keyframe time", &f);
    if (e) return e;
    if (!isfinite(f)) return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, at, "keyframe time is not finite");
    *t = (double)f;
    return OSSA_OK;
}

/* Checks that `count` items of at least `each` bytes can remain; the error is at `at`, the
 * count's offset. */
static ossa_result fits(ossa__byte_reader *r, size_t at, size_t count, size_t each, const char *what)
{
    char counted[64];
    snprintf(counted, sizeof counted, "%s %zu", what, count);
    return ossa__br_need_at(r, count, each, at, counted);
}

#define TRY(expr)                                                                                                      \
    do {                                                                                                               \
        ossa_result try_result_ = (expr);                                                                              \
        if (try_result_ != OSSA_OK) return try_result_;                                                                \
    } while (0)

static ossa_result read_track(ossa__byte_reader *r, int version, const ossa__res_settings *s, size_t *total,
                              ossa__res_track *t)
{
    const ossa_allocator *a = s->allocator;
    uint8_t b, flags = 0;
    const size_t start = r->pos;
    t->offset = start;
    t->interval = -1.0;
    TRY(ossa__br_u8(r, "track type", &b));
    if (version == 0) {
        t->track_type = (b & 1) ? OSSA__RES_CURVE : OSSA__RES_RAW;
        t->value_type = b >> 1;
    } else {
        t->track_type = b;
        TRY(ossa__br_u8(r, "value type", &t->value_type));
    }
    if (t->track_type == OSSA__RES_BEZIER)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, start,
                             "Bezier tracks are not supported (no public definition of their layout)");
    if (t->track_type > OSSA__RES_BEZIER)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, start,
                             "unknown track type %u (expected 0 Raw, 1 Discrete or 2 Curve)", t->track_type);
    const ossa__res_type *type = ossa__res_type_get(t->value_type);
    if (!type)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, r->pos - 1,
                             "unknown value type %u (expected 0 bool .. 39 string)", t->value_type);
    TRY(read_string(r, a, "node name", &t->node));
    TRY(read_string(r, a, "property name", &t->property));
    const size_t count_at = r->pos;
    TRY(read_count(r, "keyframe count", &t->key_count));
    const size_t vsize = type->kind == OSSA__RES_KIND_STRING ? 1 : ossa__res_type_size(type);
    if (t->track_type == OSSA__RES_RAW) {
        float interval;
        const size_t at = r->pos;
        TRY(ossa__br_f32(r, "interval", &interval));
        if (!isfinite(interval) || interval < 0.f)
            return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, at, "Raw track interval %g must be finite and >= 0",
                                 (double)interval);
        t->interval = (double)interval;
    } else if (t->track_type == OSSA__RES_CURVE) {
        TRY(ossa__br_u8(r, "curve flags", &flags));
        if (flags > 3) return corrupt(r, r->pos - 1, "curve flags use bits other than 0 and 1");
    }
    /* Every count is checked against the bytes left before anything is allocated. */
    const size_t each = vsize + (t->track_type == OSSA__RES_RAW ? 0 : 4) + ((flags & 2) ? 2 * vsize : 0) + (flags & 1);
    TRY(fits(r, count_at, t->key_count, each, "keyframe count"));
    const char *over = ossa__res_key_budget(s, t->key_count, total);
    if (over)
        return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, count_at, "keyframe count %zu: %s (%zu)", t->key_count, over,
                             s->max_keys);
    if (ossa__res_track_alloc(t, a, (flags & 2) != 0) != OSSA_OK)
        return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, count_at, "out of memory for %zu keys", t->key_count);
    const size_t n = t->key_count, comps = type->components;
    if (t->track_type == OSSA__RES_CURVE) {
        uint8_t shared = OSSA_ANIMX_INTERP_BASE;
        size_t at = r->pos;
        if (!(flags & 1)) TRY(ossa__br_u8(r, "interpolation", &shared));
        for (size_t k = 0; k < n; ++k) {
            uint8_t v = shared;
            if (flags & 1) {
                at = r->pos;
                TRY(ossa__br_u8(r, "interpolation", &v));
            }
            if ((unsigned)v - OSSA_ANIMX_INTERP_BASE > 3u) {
                char text[96];
                snprintf(text, sizeof text, "interpolation byte %u is not one of %d (Hold) .. %d (CubicBezier)", v,
                         OSSA_ANIMX_INTERP_BASE, OSSA_ANIMX_INTERP_BASE + 3);
                return corrupt(r, at, text);
            }
            t->interps[k] = (uint8_t)(v - OSSA_ANIMX_INTERP_BASE);
        }
    }
    for (size_t k = 0; k < n; ++k) {
        double *dst = t->values ? t->values + k * comps : NULL;
        char **str = t->strings ? &t->strings[k] : NULL;
        if (t->track_type != OSSA__RES_RAW && OSSA_ANIMX_TIME_FIRST) TRY(read_time(r, &t->times[k]));
        TRY(read_value(r, type, a, dst, str));
        if (t->track_type != OSSA__RES_RAW && !OSSA_ANIMX_TIME_FIRST) TRY(read_time(r, &t->times[k]));
    }
    double *first = OSSA_ANIMX_LEFT_TANGENT_FIRST ? t->left : t->right;
    double *second = OSSA_ANIMX_LEFT_TANGENT_FIRST ? t->right : t->left;
    for (size_t k = 0; (flags & 2) && k < n; ++k) {
        TRY(read_value(r, type, a, first ? first + k * comps : NULL, NULL));
        TRY(read_value(r, type, a, second ? second + k * comps : NULL, NULL));
    }
    return OSSA_OK;
}

ossa_result ossa__animx_read_header(const uint8_t *data, size_t size, ossa__animx_header *h, ossa_diag *diag)
{
    static const uint8_t magic[6] = {5, 'A', 'n', 'i', 'm', 'X'};
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, NULL);
    memset(h, 0, sizeof *h);
    if (size < 6 || memcmp(data, magic, 6) != 0)
        return ossa__fail_at(diag, OSSA_ERROR_BAD_MAGIC, 0, "expected the AnimX magic 05 'AnimX', found %s",
                             size < 6 ? "a shorter file" : "other bytes");
    r.pos = 6;
    TRY(ossa__br_i32(&r, "version", &h->version));
    if (h->version != 0 && h->version != 1)
        return ossa__fail_at(diag, OSSA_ERROR_UNSUPPORTED_VERSION, 6,
                             "AnimX version %d is not supported (expected 0 or 1)", (int)h->version);
    size_t count;
    TRY(read_count(&r, "track count", &count));
    h->track_count = (uint32_t)count;
    const size_t at = r.pos;
    TRY(ossa__br_f32(&r, "globalDuration", &h->duration));
    if (!isfinite(h->duration) || h->duration < 0.f)
        return ossa__fail_at(diag, OSSA_ERROR_CORRUPT, at, "globalDuration %g must be finite and >= 0",
                             (double)h->duration);
    TRY(read_count(&r, "name length", &h->name_size));
    h->name_offset = r.pos;
    const uint8_t *name = NULL;
    TRY(ossa__br_bytes(&r, h->name_size, "name", &name));
    const size_t bad = ossa__res_utf8_invalid(name, h->name_size);
    if (bad != SIZE_MAX)
        return ossa__fail_at(diag, OSSA_ERROR_PARSE, h->name_offset + bad, "the name is not valid UTF-8");
    uint8_t enc;
    TRY(ossa__br_u8(&r, "encoding", &enc));
    if (enc > 2) return corrupt(&r, r.pos - 1, "unknown encoding (expected 0 raw, 1 LZ4 or 2 LZMA)");
    h->encoding = enc;
    h->header_size = r.pos;
    return OSSA_OK;
}

#ifdef OSSA_HAVE_LZ4
/* lz4net LZ4Stream varint: 7 bits per byte, low first, up to 64 bits (10 bytes). */
static ossa_result read_varint64(ossa__byte_reader *r, const char *what, uint64_t *v)
{
    return ossa__br_varint(r, 10, what, v);
}

/* Two passes over the chunks: sizes first (checked against the cap and LZ4's largest
 * ratio), one allocation, then the blocks. */
static ossa_result lz4_decode(ossa__byte_reader *r, size_t cap, const ossa_allocator *a, uint8_t **out,
                              size_t *out_size)
{
    const size_t start = r->pos;
    size_t total = 0;
    for (int pass = 0; pass < 2; ++pass) {
        size_t done = 0;
        for (r->pos = start; ossa__br_remaining(r) > 0;) {
            const size_t at = r->pos;
            uint64_t flags, length, packed;
            TRY(read_varint64(r, "LZ4 chunk flags", &flags));
            TRY(read_varint64(r, "LZ4 chunk length", &length));
            if (flags >> 2)
                return corrupt(r, at, "LZ4 chunk flags use bits other than compressed and high-compression");
            packed = length;
            if (flags & 1) TRY(read_varint64(r, "LZ4 compressed length", &packed));
            TRY(ossa__br_need_at(r, packed, 1, at, "LZ4 chunk data"));
            if (length > cap - done || length > packed * 255 + 16 || packed > LZ4_MAX_INPUT_SIZE ||
                length > LZ4_MAX_INPUT_SIZE) {
                char text[160];
                snprintf(text, sizeof text,
                         "LZ4 chunk of %llu bytes from %llu is too large (payload limit %zu, LZ4 ratio or block size)",
                         (unsigned long long)length, (unsigned long long)packed, cap);
                return corrupt(r, at, text);
            }
            const uint8_t *src = NULL;
            (void)ossa__br_bytes(r, (size_t)packed, "LZ4 chunk data", &src); /* fits: checked above */
            if (pass == 1 && (flags & 1)) {
                int got = LZ4_decompress_safe((const char *)src, (char *)*out + done, (int)packed, (int)length);
                if (got < 0 || (uint64_t)got != length) return corrupt(r, at, "LZ4 block data is corrupt");
            } else if (pass == 1 && length) {
                memcpy(*out + done, src, (size_t)length);
            }
            done += (size_t)length;
        }
        total = done;
        /* At least one byte, so that no pointer arithmetic is done on NULL (all chunks empty). */
        if (pass == 0 && !(*out = ossa_alloc(a, total ? total : 1)))
            return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, start, "out of memory for %zu LZ4 bytes", total);
    }
    *out_size = total;
    return OSSA_OK;
}
#endif

#ifdef OSSA_HAVE_LZMA
static ossa_result lzma_decode(ossa__byte_reader *r, size_t cap, const ossa_allocator *a, uint8_t **out,
                               size_t *out_size)
{
    const size_t start = r->pos;
    const uint8_t *p = NULL;
    TRY(ossa__br_bytes(r, 21, "LZMA header (5 property bytes, two 8-byte lengths)", &p));
    const uint64_t first = ossa__br_load_u64(p + 5, OSSA__BR_LITTLE),
                   second = ossa__br_load_u64(p + 13, OSSA__BR_LITTLE), rest = ossa__br_remaining(r);
    uint64_t unpacked = OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST ? first : second;
    uint64_t packed = OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST ? second : first;
    if (packed != rest && unpacked == rest) unpacked = packed, packed = rest;
    if (packed == 0 || packed == UINT64_MAX) packed = rest; /* "unknown" */
    const size_t packed_at = start + (OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST ? 13 : 5);
    TRY(ossa__br_need_at(r, packed, 1, packed_at, "the LZMA data the header declares"));
    if (packed < rest) {
        char text[96];
        snprintf(text, sizeof text, "%llu unexpected bytes after the LZMA data", (unsigned long long)(rest - packed));
        return corrupt(r, start + 21 + (size_t)packed, text);
    }
    if (unpacked > cap) {
        char text[128];
        snprintf(text, sizeof text, "LZMA payload declares %llu bytes, more than the limit of %zu",
                 (unsigned long long)unpacked, cap);
        return corrupt(r, start + 5, text);
    }
    const uint8_t *packed_bytes = NULL;
    (void)ossa__br_bytes(r, (size_t)packed, "the LZMA data", &packed_bytes); /* == rest */
    *out_size = (size_t)unpacked;
    if (unpacked == 0) return OSSA_OK;
    if (!(*out = ossa_alloc(a, (size_t)unpacked)))
        return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, start, "out of memory for %zu LZMA bytes", (size_t)unpacked);
    /* The .lzma "alone" header is the same 5 property bytes plus the unpacked size; it lets
     * liblzma apply a memory limit and stop at the known size without an end marker. */
    uint8_t alone[13];
    memcpy(alone, p, 5);
    for (int i = 0; i < 8; ++i) alone[5 + i] = (uint8_t)(unpacked >> (8 * i));
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_ret ret = lzma_alone_decoder(&s, LZMA_MEMLIMIT);
    const uint8_t *inputs[2] = {alone, packed_bytes};
    const size_t sizes[2] = {sizeof alone, (size_t)packed};
    s.next_out = *out;
    s.avail_out = (size_t)unpacked;
    for (int part = 0; ret == LZMA_OK && part < 2 && s.avail_out; ++part) {
        s.next_in = inputs[part];
        s.avail_in = sizes[part];
        while (ret == LZMA_OK && s.avail_in && s.avail_out) ret = lzma_code(&s, LZMA_RUN);
    }
    const size_t produced = (size_t)unpacked - s.avail_out;
    lzma_end(&s);
    if (ret == LZMA_MEMLIMIT_ERROR)
        return corrupt(r, start, "LZMA properties ask for more than 64 MiB of decoder memory");
    if (ret == LZMA_OPTIONS_ERROR || ret == LZMA_FORMAT_ERROR) return corrupt(r, start, "LZMA properties are invalid");
    if (ret != LZMA_OK && ret != LZMA_STREAM_END) return corrupt(r, start + 21, "LZMA data is corrupt");
    if (produced != unpacked)
        return ossa__br_fail(r, OSSA_ERROR_TRUNCATED, r->size, "LZMA data ends after %zu of %llu declared bytes",
                             produced, (unsigned long long)unpacked);
    return OSSA_OK;
}
#endif

ossa_result ossa__animx_decompress(int encoding, const uint8_t *data, size_t size, size_t start, size_t cap,
                                   const ossa_allocator *a, uint8_t **out, size_t *out_size, ossa_diag *diag)
{
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, NULL);
    ossa_result res = ossa__br_seek(&r, start, "the tracks");
    if (res != OSSA_OK) return res;
    res = OSSA_ERROR_UNSUPPORTED_FORMAT;
    *out = NULL;
    *out_size = 0;
#ifdef OSSA_HAVE_LZ4
    if (encoding == OSSA_ANIMX_LZ4) res = lz4_decode(&r, cap, a, out, out_size);
#endif
#ifdef OSSA_HAVE_LZMA
    if (encoding == OSSA_ANIMX_LZMA) res = lzma_decode(&r, cap, a, out, out_size);
#endif
    (void)r, (void)cap;
    if (res == OSSA_ERROR_UNSUPPORTED_FORMAT)
        return ossa__fail_at(diag, res, start, "the tracks are %s-compressed but ossa was built without %s",
                             encoding == OSSA_ANIMX_LZ4 ? "LZ4" : "LZMA",
                             encoding == OSSA_ANIMX_LZ4 ? "liblz4" : "liblzma");
    if (res != OSSA_OK) {
        ossa_free(a, *out);
        *out = NULL;
        *out_size = 0;
    }
    return res;
}

static ossa_result import_animx(const uint8_t *data, size_t size, const ossa__res_settings *s, ossa__res_anim *anim,
                                ossa_import_output *out, ossa_diag *diag)
{
    ossa__animx_header h;
    TRY(ossa__animx_read_header(data, size, &h, diag));
    const ossa_allocator *a = s->allocator;
    anim->duration = (double)h.duration;
    anim->version = h.version;
    anim->encoding = h.encoding;
    if (!(anim->name = ossa_alloc(a, h.name_size + 1)))
        return ossa__fail_at(diag, OSSA_ERROR_OUT_OF_MEMORY, 0, "out of memory");
    memcpy(anim->name, data + h.name_offset, h.name_size);
    anim->name[h.name_size] = '\0';
    uint8_t *payload = NULL;
    size_t payload_size = 0;
    /* Raw tracks report file offsets; decompressed ones offsets in the decompressed bytes. */
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, NULL);
    r.pos = h.header_size; /* <= size: the header was read from the data */
    if (h.encoding != OSSA_ANIMX_RAW) {
        TRY(ossa__animx_decompress(h.encoding, data, size, h.header_size, s->max_decompressed, a, &payload,
                                   &payload_size, diag));
        ossa__br_init(&r, payload, payload_size, OSSA__BR_LITTLE, diag, NULL);
        r.suffix = h.encoding == OSSA_ANIMX_LZ4 ? " (offset in the LZ4-decompressed tracks)"
                                                : " (offset in the LZMA-decompressed tracks)";
    }
    ossa_result res = fits(&r, 10, h.track_count, h.version == 0 ? 4 : 5, "track count");
    if (res == OSSA_OK && h.track_count && !(anim->tracks = ossa__calloc(a, h.track_count, sizeof *anim->tracks)))
        res = ossa__fail_at(diag, OSSA_ERROR_OUT_OF_MEMORY, 10, "out of memory for %u tracks", h.track_count);
    size_t total = 0;
    for (size_t i = 0; res == OSSA_OK && i < h.track_count; ++i) {
        anim->track_count = i + 1;
        res = read_track(&r, h.version, s, &total, &anim->tracks[i]);
    }
    if (res == OSSA_OK && r.pos != r.size) {
        char text[96];
        snprintf(text, sizeof text, "%zu unexpected bytes after the last of %u tracks", r.size - r.pos, h.track_count);
        res = corrupt(&r, r.pos, text);
    }
    ossa_free(a, payload);
    if (res != OSSA_OK) return res;
    static const char *const encodings[] = {"raw", "lz4", "lzma"};
    char version[16];
    snprintf(version, sizeof version, "%d", (int)h.version);
    ossa_import_output_add_metadata(out, "format", "animx");
    ossa_import_output_add_metadata(out, "name", anim->name);
    ossa_import_output_add_metadata(out, "animx_version", version);
    ossa_import_output_add_metadata(out, "animx_encoding", encodings[h.encoding]);
    ossa_import_output_add_metadata(out, "source_units", "metres");
    ossa_import_output_add_metadata(out, "unit_scale", "1");
    return ossa__res_convert(anim, s, out, diag);
}

ossa_result ossa_import_animx(const void *data, size_t size, const ossa_resonite_desc *desc, ossa_import_output *out,
                              ossa_diag *diag)
{
    ossa_result res = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "AnimX", diag);
    if (res != OSSA_OK) return res;
    ossa__res_settings s;
    if ((res = ossa__res_settings_get(desc, &s, diag)) != OSSA_OK) return res;
    ossa__res_anim anim = {0};
    anim.format = "animx";
    anim.allocator = s.allocator;
    res = import_animx(data, size, &s, &anim, out, diag);
    ossa__res_anim_free(&anim);
    return ossa__import_end(out, res, diag);
}
