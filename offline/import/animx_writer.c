/* AnimX writer: ossa user channels and joint animations to Resonite AnimX version 1.
 * Layout as read by animx.c (FORMATS section 2.2-2.3); compression as FrooxEngine writes it:
 * lz4net LZ4Stream chunks of 1 MiB, LZMA1 with a 2 MiB dictionary, lc 3, lp 0, pb 2, fb 32. */
#include <math.h>
#include <string.h>

#include "../internal.h"
#include "resonite_common.h"

#ifdef OSSA_HAVE_LZ4
#include <lz4.h>
#endif
#ifdef OSSA_HAVE_LZMA
#include <lzma.h>
#endif

#define LZ4_CHUNK ((size_t)1 << 20)

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
    const ossa_allocator *a;
    bool failed;
} wbuf;

static void put(wbuf *b, const void *data, size_t n)
{
    size_t need;
    if (b->failed || n == 0) return;
    if (!ossa__add_size(b->n, n, &need) || !ossa__grow(b->a, (void **)&b->p, &b->cap, need, 1)) {
        b->failed = true;
        return;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_u8(wbuf *b, uint8_t v) { put(b, &v, 1); }

static void put_f32(wbuf *b, float f)
{
    uint8_t p[4];
    ossa__store_f32(p, f);
    put(b, p, 4);
}

/* 7 bits per byte, low first: .NET Write7BitEncodedInt and lz4net's varint. */
static void put_varint(wbuf *b, uint64_t v)
{
    do {
        put_u8(b, (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0)));
        v >>= 7;
    } while (v);
}

static void put_string(wbuf *b, const char *s, size_t n)
{
    put_varint(b, n);
    put(b, s, n);
}

static void put_track_header(wbuf *b, uint8_t value_type, const char *name, size_t node_len, const char *property,
                             size_t count)
{
    put_u8(b, OSSA__RES_CURVE);
    put_u8(b, value_type);
    put_string(b, name, node_len);
    put_string(b, property, strlen(property));
    put_varint(b, count);
}

static void put_key(wbuf *b, float time, const float *v, size_t width)
{
    if (OSSA_ANIMX_TIME_FIRST) put_f32(b, time);
    for (size_t c = 0; c < width; ++c) put_f32(b, v[c]);
    if (!OSSA_ANIMX_TIME_FIRST) put_f32(b, time);
}

/* A user channel: Curve, per-key Hold/Linear, name split at its last '/'. */
static void put_user_track(wbuf *b, const ossa_raw_track *t, double duration)
{
    static const uint8_t value_types[] = {0, 21, 22, 23, 24, 25}; /* float .. float4, floatQ */
    const char *name = t->name ? t->name : "", *slash = strrchr(name, '/');
    const size_t width = ossa_track_type_width(t->type);
    put_track_header(b, value_types[t->type], name, slash ? (size_t)(slash - name) : strlen(name),
                     slash ? slash + 1 : "", t->key_count);
    put_u8(b, 1); /* per-key interpolations, no tangents */
    for (size_t k = 0; k < t->key_count; ++k)
        put_u8(b, (uint8_t)(OSSA_ANIMX_INTERP_BASE +
                            (t->keys[k].interpolation == OSSA_INTERP_STEP ? OSSA__RES_HOLD : OSSA__RES_LINEAR)));
    for (size_t k = 0; k < t->key_count; ++k)
        put_key(b, (float)((double)t->keys[k].ratio * duration), t->keys[k].value, width);
}

/* One joint channel: Curve, one shared Linear interpolation. */
static void put_joint_channel(wbuf *b, const char *joint, int channel, const void *keys, size_t count)
{
    static const char *const properties[] = {"position", "rotation", "scale"};
    put_track_header(b, channel == 1 ? 25 : 23, joint, strlen(joint), properties[channel], count);
    put_u8(b, 0);
    put_u8(b, OSSA_ANIMX_INTERP_BASE + OSSA__RES_LINEAR);
    for (size_t k = 0; k < count; ++k) {
        if (channel == 1) {
            const ossa_raw_quat_key *q = (const ossa_raw_quat_key *)keys + k;
            const float v[4] = {q->value.x, q->value.y, q->value.z, q->value.w};
            put_key(b, q->time, v, 4);
        } else {
            const ossa_raw_float3_key *f = (const ossa_raw_float3_key *)keys + k;
            const float v[3] = {f->value.x, f->value.y, f->value.z};
            put_key(b, f->time, v, 3);
        }
    }
}

#ifdef OSSA_HAVE_LZ4
static ossa_result lz4_encode(const uint8_t *data, size_t size, wbuf *out)
{
    char *tmp = ossa_alloc(out->a, (size_t)LZ4_compressBound((int)LZ4_CHUNK));
    if (!tmp) return OSSA_ERROR_OUT_OF_MEMORY;
    for (size_t at = 0; at < size; at += LZ4_CHUNK) {
        const size_t n = size - at < LZ4_CHUNK ? size - at : LZ4_CHUNK;
        const int packed =
            LZ4_compress_default((const char *)data + at, tmp, (int)n, LZ4_compressBound((int)LZ4_CHUNK));
        const bool compressed = packed > 0 && (size_t)packed < n;
        put_varint(out, compressed ? 1 : 0);
        put_varint(out, n);
        if (compressed) put_varint(out, (uint64_t)packed);
        put(out, compressed ? (const void *)tmp : (const void *)(data + at), compressed ? (size_t)packed : n);
    }
    ossa_free(out->a, tmp);
    return out->failed ? OSSA_ERROR_OUT_OF_MEMORY : OSSA_OK;
}
#endif

#ifdef OSSA_HAVE_LZMA
static ossa_result lzma_encode(const uint8_t *data, size_t size, wbuf *out)
{
    lzma_options_lzma opt;
    if (lzma_lzma_preset(&opt, 6)) return OSSA_ERROR_UNSUPPORTED_FORMAT;
    opt.dict_size = (uint32_t)2 << 20;
    opt.lc = 3, opt.lp = 0, opt.pb = 2, opt.nice_len = 32;
    lzma_stream s = LZMA_STREAM_INIT;
    if (lzma_alone_encoder(&s, &opt) != LZMA_OK) return OSSA_ERROR_OUT_OF_MEMORY;
    /* The "alone" stream is 5 property bytes, an 8-byte size (unknown: all ones), then the
     * data with an end marker; AnimX wants the properties, both sizes, then the data. */
    wbuf alone = {NULL, 0, 0, out->a, false};
    lzma_ret ret = LZMA_OK;
    s.next_in = data;
    s.avail_in = size;
    while (ret == LZMA_OK) {
        if (!ossa__grow(alone.a, (void **)&alone.p, &alone.cap, alone.n + 65536, 1)) {
            ret = LZMA_MEM_ERROR;
            break;
        }
        s.next_out = alone.p + alone.n;
        s.avail_out = alone.cap - alone.n;
        ret = lzma_code(&s, LZMA_FINISH);
        alone.n = alone.cap - s.avail_out;
    }
    lzma_end(&s);
    if (ret != LZMA_STREAM_END || alone.n < 13) {
        ossa_free(alone.a, alone.p);
        return ret == LZMA_MEM_ERROR ? OSSA_ERROR_OUT_OF_MEMORY : OSSA_ERROR_CORRUPT;
    }
    uint8_t sizes[16];
    const uint64_t packed = alone.n - 13;
    ossa__store_u64(sizes, OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST ? size : packed);
    ossa__store_u64(sizes + 8, OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST ? packed : size);
    put(out, alone.p, 5);
    put(out, sizes, 16);
    put(out, alone.p + 13, (size_t)packed);
    ossa_free(alone.a, alone.p);
    return out->failed ? OSSA_ERROR_OUT_OF_MEMORY : OSSA_OK;
}
#endif

ossa_result ossa__animx_compress(int encoding, const uint8_t *data, size_t size, const ossa_allocator *a, uint8_t **out,
                                 size_t *out_size, ossa_diag *diag)
{
    wbuf b = {NULL, 0, 0, a, false};
    ossa_result r = OSSA_ERROR_UNSUPPORTED_FORMAT;
#ifdef OSSA_HAVE_LZ4
    if (encoding == OSSA_ANIMX_LZ4) r = lz4_encode(data, size, &b);
#endif
#ifdef OSSA_HAVE_LZMA
    if (encoding == OSSA_ANIMX_LZMA) r = lzma_encode(data, size, &b);
#endif
    (void)data, (void)size;
    if (r != OSSA_OK) {
        ossa_free(a, b.p);
        const char *lib = encoding == OSSA_ANIMX_LZ4 ? "liblz4" : "liblzma";
        if (r == OSSA_ERROR_UNSUPPORTED_FORMAT)
            return ossa__fail(diag, r, "%s encoding needs ossa built with %s",
                              encoding == OSSA_ANIMX_LZ4 ? "LZ4" : "LZMA", lib);
        return ossa__fail(diag, r, "%s could not compress %zu bytes", lib, size);
    }
    *out = b.p;
    *out_size = b.n;
    return OSSA_OK;
}

/* Header through the encoding byte, then the (compressed) payload, into one blob. */
static ossa_result finish(const uint8_t *header, size_t header_size, int encoding, const uint8_t *payload,
                          size_t payload_size, const ossa_allocator *a, ossa_blob *out, ossa_diag *diag)
{
    uint8_t *packed = NULL;
    size_t packed_size = payload_size;
    if (encoding != OSSA_ANIMX_RAW) {
        ossa_result r = ossa__animx_compress(encoding, payload, payload_size, a, &packed, &packed_size, diag);
        if (r != OSSA_OK) return r;
    }
    size_t total;
    ossa_result r = OSSA_OK;
    if (!ossa__add_size(header_size + 1, packed_size, &total) || ossa_blob_create(out, total, a) != OSSA_OK) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu AnimX bytes", packed_size);
    } else {
        uint8_t *p = out->data;
        memcpy(p, header, header_size);
        p[header_size] = (uint8_t)encoding;
        if (packed_size) memcpy(p + header_size + 1, packed ? packed : payload, packed_size);
    }
    ossa_free(a, packed);
    return r;
}

static size_t channel_count(const ossa_raw_joint_track *t, int channel)
{
    return channel == 0 ? t->translation_count : channel == 1 ? t->rotation_count : t->scale_count;
}

ossa_result ossa_animx_write(const ossa_animx_write_desc *desc, ossa_blob *out, ossa_diag *diag)
{
    if (!desc || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no desc or output blob");
    memset(out, 0, sizeof *out);
    const ossa_raw_animation *anim = desc->animation;
    if ((unsigned)desc->encoding > OSSA_ANIMX_LZMA)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "unknown encoding %d (expected 0..2)",
                          (int)desc->encoding);
    if (!isfinite(desc->duration) || desc->duration < 0.f)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "duration %g must be finite and >= 0",
                          (double)desc->duration);
    if (desc->track_count && !desc->tracks)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "track_count %zu but no tracks", desc->track_count);
    if (anim && (!desc->skeleton || desc->skeleton->joint_count != anim->track_count))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "the animation needs a skeleton with one joint per track (%zu tracks)", anim->track_count);
    ossa_result r = OSSA_OK;
    for (size_t i = 0; r == OSSA_OK && i < desc->track_count; ++i) r = ossa_raw_track_validate(&desc->tracks[i], diag);
    if (r == OSSA_OK && anim) r = ossa_raw_animation_validate(anim, diag);
    if (r != OSSA_OK) return r;
    double duration = (double)desc->duration;
    if (duration <= 0.0) {
        for (size_t i = 0; i < desc->track_count; ++i) duration = fmax(duration, (double)desc->tracks[i].duration);
        if (anim) duration = fmax(duration, (double)anim->duration);
    }
    if (duration <= 0.0) duration = 1.0;
    size_t tracks = desc->track_count;
    for (size_t j = 0; anim && j < anim->track_count; ++j)
        for (int ch = 0; ch < 3; ++ch) tracks += channel_count(&anim->tracks[j], ch) > 0;
    if (tracks > INT32_MAX) return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "too many tracks");
    const ossa_allocator *a = desc->allocator;
    wbuf head = {NULL, 0, 0, a, false}, body = {NULL, 0, 0, a, false};
    const char *name = desc->name ? desc->name : "";
    static const uint8_t magic_version[10] = {5, 'A', 'n', 'i', 'm', 'X', 1, 0, 0, 0};
    put(&head, magic_version, sizeof magic_version);
    put_varint(&head, tracks);
    put_f32(&head, (float)duration);
    put_string(&head, name, strlen(name));
    for (size_t i = 0; i < desc->track_count; ++i) {
        const ossa_raw_track *t = &desc->tracks[i];
        put_user_track(&body, t, t->duration > 0.f ? (double)t->duration : duration);
    }
    for (size_t j = 0; anim && j < anim->track_count; ++j) {
        const ossa_raw_joint_track *t = &anim->tracks[j];
        const char *joint = desc->skeleton->joints[j].name ? desc->skeleton->joints[j].name : "";
        if (t->translation_count) put_joint_channel(&body, joint, 0, t->translations, t->translation_count);
        if (t->rotation_count) put_joint_channel(&body, joint, 1, t->rotations, t->rotation_count);
        if (t->scale_count) put_joint_channel(&body, joint, 2, t->scales, t->scale_count);
    }
    if (head.failed || body.failed)
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory writing AnimX");
    else
        r = finish(head.p, head.n, (int)desc->encoding, body.p, body.n, a, out, diag);
    ossa_free(a, head.p);
    ossa_free(a, body.p);
    return r;
}

ossa_result ossa_animx_recode(const void *data, size_t size, ossa_animx_encoding encoding, size_t max_decompressed_size,
                              const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag)
{
    if (!data || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no input or output blob");
    memset(out, 0, sizeof *out);
    if ((unsigned)encoding > OSSA_ANIMX_LZMA)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "unknown encoding %d (expected 0..2)", (int)encoding);
    ossa__animx_header h;
    ossa_result r = ossa__animx_read_header(data, size, &h, diag);
    if (r != OSSA_OK) return r;
    const uint8_t *bytes = data, *payload = bytes + h.header_size;
    size_t payload_size = size - h.header_size;
    uint8_t *plain = NULL;
    if (h.encoding != OSSA_ANIMX_RAW) {
        r = ossa__animx_decompress(h.encoding, bytes, size, h.header_size,
                                   max_decompressed_size ? max_decompressed_size : (size_t)256 << 20, allocator, &plain,
                                   &payload_size, diag);
        if (r != OSSA_OK) return r;
        payload = plain;
    }
    r = finish(bytes, h.header_size - 1, (int)encoding, payload, payload_size, allocator, out, diag);
    ossa_free(allocator, plain);
    return r;
}
