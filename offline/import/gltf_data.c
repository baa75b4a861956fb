/* glTF 2.0 importer: buffers (GLB BIN chunk, base64 data URIs, external files through the
 * caller's read_file) and accessors (bounds, strides, alignment, normalised integers, sparse
 * substitution).
 * Source: glTF 2.0 specification, sections 3.6.1 (buffers and buffer views), 3.6.2 (accessors,
 * 3.6.2.3 sparse, 3.6.2.4 alignment) and 3.11 (normalised animation outputs). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

#include "gltf_internal.h"

/* ---- buffers ---- */

static int base64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

/* Decodes the base64 payload of a data URI (RFC 4648 alphabet, '=' padding at the end only). */
static ossa_result decode_base64(ossa__gltf *g, size_t index, const char *text, uint8_t **data, size_t *size)
{
    const size_t len = strlen(text);
    uint8_t *bytes = ossa_alloc(g->a, len / 4 * 3 + 3);
    if (!bytes)
        return ossa__gltf_fail(g, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory decoding buffers[%zu]", index);
    size_t n = 0, pad = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < len; ++i) {
        const int v = base64_value((unsigned char)text[i]);
        if (text[i] == '=' && i + 2 >= len) {
            ++pad;
            continue;
        }
        if (v < 0 || pad) {
            ossa_free(g->a, bytes);
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "buffers[%zu].uri: expected base64 data, found character 0x%02x at position %zu of "
                                   "the payload",
                                   index, (unsigned)(unsigned char)text[i], i);
        }
        acc = acc << 6 | (uint32_t)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            bytes[n++] = (uint8_t)(acc >> bits);
        }
    }
    *data = bytes;
    *size = n;
    return OSSA_OK;
}

/* "a%20b.bin" -> "a b.bin" (URIs are percent-encoded, RFC 3986). */
static ossa_result percent_decode(ossa__gltf *g, size_t index, const char *uri, char **path)
{
    char *p = ossa_alloc(g->a, strlen(uri) + 1);
    if (!p) return ossa__gltf_fail(g, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory");
    size_t n = 0;
    for (const char *c = uri; *c; ++c) {
        if (*c == '%') {
            int hi = -1, lo = -1;
            if (c[1]) hi = c[1] >= 'a' ? c[1] - 'a' + 10 : c[1] >= 'A' ? c[1] - 'A' + 10 : c[1] - '0';
            if (hi >= 0 && c[2]) lo = c[2] >= 'a' ? c[2] - 'a' + 10 : c[2] >= 'A' ? c[2] - 'A' + 10 : c[2] - '0';
            if (hi < 0 || hi > 15 || lo < 0 || lo > 15 || (hi == 0 && lo == 0)) {
                ossa_free(g->a, p);
                return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                                       "buffers[%zu].uri: expected %%XX with two hex digits (not %%00), found \"%.8s\"",
                                       index, c);
            }
            p[n++] = (char)(hi << 4 | lo);
            c += 2;
        } else {
            p[n++] = *c;
        }
    }
    p[n] = '\0';
    *path = p;
    return OSSA_OK;
}

static ossa_result load_buffer(ossa__gltf *g, size_t index)
{
    ossa__gltf_buffer *b = &g->buffers[index];
    if (b->data) return OSSA_OK;
    const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(g->root, "buffers");
    const cJSON *buffer = ossa__gltf_element(buffers, index);
    char path[48];
    snprintf(path, sizeof path, "buffers[%zu]", index);
    if (!cJSON_IsObject(buffer))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s: expected an object, found %s", path,
                               ossa__json_kind(buffer));
    size_t length;
    const char *uri;
    ossa_result r = ossa__gltf_size(g, buffer, "byteLength", path, 0, &length);
    if (!r) r = ossa__gltf_string(g, buffer, "uri", path, &uri);
    if (r) return r;
    if (length == 0)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.byteLength: expected an integer >= 1, found %s", path,
                               cJSON_GetObjectItemCaseSensitive(buffer, "byteLength") ? "0" : "nothing");
    const uint8_t *data = NULL;
    size_t size = 0;
    if (!uri) {
        /* Only the first buffer of a GLB may omit its uri: it is the BIN chunk (spec 3.6.1.2). */
        if (!g->bin || index != 0)
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "%s: has no uri and is not the BIN chunk of a GLB (only buffers[0] of a GLB with a "
                                   "BIN chunk may omit it)",
                                   path);
        data = g->bin, size = g->bin_size;
        if (size < length)
            return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, g->bin_offset + size,
                                   "%s.byteLength: %zu bytes declared, the BIN chunk holds %zu", path, length, size);
    } else if (!strncmp(uri, "data:", 5)) {
        const char *comma = strchr(uri, ',');
        if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7))
            return ossa__gltf_fail(g, OSSA_ERROR_UNSUPPORTED_FORMAT, SIZE_MAX,
                                   "%s.uri: expected a base64 data URI (\"data:<type>;base64,...\"), found \"%.40s\"",
                                   path, uri);
        uint8_t *decoded = NULL;
        if ((r = decode_base64(g, index, comma + 1, &decoded, &size))) return r;
        b->owned = decoded, data = decoded;
        if (size < length)
            return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, SIZE_MAX,
                                   "%s.byteLength: %zu bytes declared, its data URI decodes to %zu", path, length,
                                   size);
    } else {
        /* The same file named by two buffers is read once. */
        const cJSON *other = buffers ? buffers->child : NULL;
        for (size_t i = 0; i < index; ++i, other = other->next) {
            const cJSON *u = cJSON_GetObjectItemCaseSensitive(other, "uri");
            if (g->buffers[i].data && cJSON_IsString(u) && !strcmp(u->valuestring, uri)) {
                data = g->buffers[i].data, size = g->buffers[i].available;
                break;
            }
        }
        if (!data) {
            if (!g->desc->read_file)
                return ossa__gltf_fail(g, OSSA_ERROR_IO, SIZE_MAX,
                                       "%s.uri: the file refers to \"%.80s\" and no read_file callback was given", path,
                                       uri);
            char *file = NULL;
            if ((r = percent_decode(g, index, uri, &file))) return r;
            void *bytes = NULL;
            r = g->desc->read_file(file, &bytes, &size, g->desc->read_file_user);
            ossa_free(g->a, file);
            if (r != OSSA_OK || (!bytes && size)) {
                free(bytes);
                return ossa__gltf_fail(g, OSSA_ERROR_IO, SIZE_MAX, "%s.uri: read_file(\"%.80s\") gave %s", path, uri,
                                       r != OSSA_OK ? ossa_result_name(r) : "no data");
            }
            b->owned = bytes, b->from_callback = true, data = bytes;
        }
        if (size < length)
            return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, SIZE_MAX,
                                   "%s.byteLength: %zu bytes declared, \"%.80s\" holds %zu", path, length, uri, size);
    }
    b->data = data;
    b->size = length; /* nothing past the declared length is part of the buffer */
    b->available = size;
    return OSSA_OK;
}

/* ---- accessors ---- */

static size_t component_size(int type)
{
    switch (type) {
    case 5120: /* BYTE */
    case 5121: /* UNSIGNED_BYTE */
        return 1;
    case 5122: /* SHORT */
    case 5123: /* UNSIGNED_SHORT */
        return 2;
    case 5125: /* UNSIGNED_INT */
    case 5126: /* FLOAT */
        return 4;
    default:
        return 0;
    }
}

static const char *component_name(int type)
{
    switch (type) {
    case 5120:
        return "BYTE";
    case 5121:
        return "UNSIGNED_BYTE";
    case 5122:
        return "SHORT";
    case 5123:
        return "UNSIGNED_SHORT";
    case 5125:
        return "UNSIGNED_INT";
    case 5126:
        return "FLOAT";
    default:
        return "?";
    }
}

/* One component as a float; normalised integers by spec 3.11 (signed: max(c / max, -1)). */
static float component(const uint8_t *p, int type, bool normalized)
{
    switch (type) {
    case 5120: {
        const int8_t c = (int8_t)p[0];
        return normalized ? fmaxf((float)c / 127.f, -1.f) : (float)c;
    }
    case 5121:
        return normalized ? (float)p[0] / 255.f : (float)p[0];
    case 5122: {
        const int16_t c = (int16_t)(uint16_t)(p[0] | p[1] << 8);
        return normalized ? fmaxf((float)c / 32767.f, -1.f) : (float)c;
    }
    case 5123: {
        const uint16_t c = (uint16_t)(p[0] | p[1] << 8);
        return normalized ? (float)c / 65535.f : (float)c;
    }
    case 5125: {
        const uint32_t c = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        return (float)c;
    }
    default: {
        const uint32_t c = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &c, sizeof f);
        return f;
    }
    }
}

static size_t type_components(const char *type)
{
    static const struct {
        const char *name;
        size_t n;
    } types[] = {{"SCALAR", 1}, {"VEC2", 2}, {"VEC3", 3}, {"VEC4", 4}, {"MAT2", 4}, {"MAT3", 9}, {"MAT4", 16}};
    for (size_t i = 0; type && i < sizeof types / sizeof *types; ++i)
        if (!strcmp(type, types[i].name)) return types[i].n;
    return 0;
}

static const char *components_name(size_t n)
{
    return n == 1 ? "SCALAR" : n == 3 ? "VEC3" : n == 4 ? "VEC4" : n == 16 ? "MAT4" : "?";
}

/* Where `count` elements of `elem` bytes, `stride` apart, start in a buffer: checks a view
 * (`view` index, relative `offset`) and returns the bytes. `what` is the JSON path. */
static ossa_result view_bytes(ossa__gltf *g, size_t view, size_t offset, size_t count, size_t elem, size_t csize,
                              bool allow_stride, const char *what, const uint8_t **bytes, size_t *stride)
{
    const cJSON *bv = view < g->view_count ? g->views[view] : NULL;
    char path[48];
    snprintf(path, sizeof path, "bufferViews[%zu]", view);
    if (!cJSON_IsObject(bv))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s: expected an object, found %s", path,
                               ossa__json_kind(bv));
    size_t buffer, bv_offset, bv_length, bv_stride;
    ossa_result r = ossa__gltf_index(g, bv, "buffer", path, g->buffer_count, "buffer", true, &buffer);
    if (!r) r = ossa__gltf_size(g, bv, "byteOffset", path, 0, &bv_offset);
    if (!r) r = ossa__gltf_size(g, bv, "byteLength", path, 0, &bv_length);
    if (!r) r = ossa__gltf_size(g, bv, "byteStride", path, 0, &bv_stride);
    if (r) return r;
    if (!cJSON_GetObjectItemCaseSensitive(bv, "byteLength") || bv_length == 0)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.byteLength: expected an integer >= 1, found %s", path,
                               bv_length == 0 && cJSON_GetObjectItemCaseSensitive(bv, "byteLength") ? "0" : "nothing");
    if (cJSON_GetObjectItemCaseSensitive(bv, "byteStride")) {
        if (bv_stride < 4 || bv_stride > 252 || bv_stride % 4)
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "%s.byteStride: expected a multiple of 4 from 4 to 252, found %zu", path, bv_stride);
        if (!allow_stride)
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "%s.byteStride: %s must be tightly packed, found a stride of %zu", path, what,
                                   bv_stride);
        if (bv_stride < elem)
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "%s.byteStride: %zu is less than the %zu bytes of one element of %s", path,
                                   bv_stride, elem, what);
    }
    if ((r = load_buffer(g, buffer))) return r;
    const ossa__gltf_buffer *b = &g->buffers[buffer];
    size_t end;
    if (!ossa__add_size(bv_offset, bv_length, &end) || end > b->size)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                               "%s: byteOffset %zu + byteLength %zu is past the %zu bytes of buffers[%zu]", path,
                               bv_offset, bv_length, b->size, buffer);
    if ((bv_offset + offset) % csize)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                               "%s: starts at byte %zu of its buffer view's buffer, not a multiple of its %zu-byte "
                               "components (spec 3.6.2.4)",
                               what, bv_offset + offset, csize);
    const size_t step = bv_stride ? bv_stride : elem;
    size_t need;
    if (!ossa__mul_size(step, count - 1, &need) || !ossa__add_size(need, elem, &need) ||
        !ossa__add_size(need, offset, &need) || need > bv_length)
        return ossa__gltf_fail(
            g, OSSA_ERROR_CORRUPT, SIZE_MAX,
            "%s: %zu elements of %zu bytes, %zu apart, from byte %zu need more than the %zu bytes of "
            "%s",
            what, count, elem, step, offset, bv_length, path);
    *bytes = b->data + bv_offset + offset;
    *stride = step;
    return OSSA_OK;
}

typedef struct accessor_info {
    const cJSON *json;
    int type;
    bool normalized;
    size_t count, components;
} accessor_info;

static ossa_result accessor_header(ossa__gltf *g, size_t index, accessor_info *info)
{
    const cJSON *acc = index < g->accessor_count ? g->accessors[index] : NULL;
    char path[48];
    snprintf(path, sizeof path, "accessors[%zu]", index);
    if (!cJSON_IsObject(acc))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s: expected an object, found %s", path,
                               ossa__json_kind(acc));
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(acc, "componentType");
    if (!cJSON_IsNumber(ct) || ct->valuedouble != floor(ct->valuedouble) || fabs(ct->valuedouble) > 1e6 ||
        !component_size((int)ct->valuedouble) || (int)ct->valuedouble == 5124)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                               "%s.componentType: expected 5120, 5121, 5122, 5123, 5125 or 5126, found %s%s%.17g", path,
                               ossa__json_kind(ct), cJSON_IsNumber(ct) ? " " : "",
                               cJSON_IsNumber(ct) ? ct->valuedouble : 0.0);
    info->json = acc;
    info->type = (int)ct->valuedouble;
    const char *type;
    ossa_result r = ossa__gltf_size(g, acc, "count", path, 0, &info->count);
    if (!r) r = ossa__gltf_string(g, acc, "type", path, &type);
    if (r) return r;
    if (info->count == 0)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.count: expected an integer >= 1, found %s", path,
                               cJSON_GetObjectItemCaseSensitive(acc, "count") ? "0" : "nothing");
    if (!(info->components = type_components(type)))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                               "%s.type: expected SCALAR, VEC2, VEC3, VEC4, MAT2, MAT3 or MAT4, found \"%.20s\"", path,
                               type ? type : "nothing");
    const cJSON *norm = cJSON_GetObjectItemCaseSensitive(acc, "normalized");
    if (norm && !cJSON_IsBool(norm))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.normalized: expected a boolean, found %s", path,
                               ossa__json_kind(norm));
    info->normalized = cJSON_IsTrue(norm);
    if (info->normalized && (info->type == 5126 || info->type == 5125))
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX, "%s.normalized: true is not allowed for %s components",
                               path, component_name(info->type));
    return OSSA_OK;
}

/* Sparse substitution (spec 3.6.2.3): strictly increasing indices below count, then values. */
static ossa_result apply_sparse(ossa__gltf *g, size_t index, const accessor_info *info, float *values)
{
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(info->json, "sparse");
    if (!sparse) return OSSA_OK;
    char path[64], ipath[80], vpath[80];
    snprintf(path, sizeof path, "accessors[%zu].sparse", index);
    snprintf(ipath, sizeof ipath, "%s.indices", path);
    snprintf(vpath, sizeof vpath, "%s.values", path);
    if (!cJSON_IsObject(sparse))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s: expected an object, found %s", path,
                               ossa__json_kind(sparse));
    size_t count, iview, ioffset, vview, voffset, view_count;
    const cJSON *views, *indices = cJSON_GetObjectItemCaseSensitive(sparse, "indices"),
                        *vals = cJSON_GetObjectItemCaseSensitive(sparse, "values");
    ossa_result r = ossa__gltf_size(g, sparse, "count", path, 0, &count);
    if (!r) r = ossa__gltf_array(g, g->root, "bufferViews", "", &views, &view_count);
    if (r) return r;
    if (count == 0 || count > info->count)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                               "%s.count: expected 1 to %zu (the accessor's count), found %zu", path, info->count,
                               count);
    if (!cJSON_IsObject(indices) || !cJSON_IsObject(vals))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                               "%s: expected objects \"indices\" and \"values\", found %s and %s", path,
                               ossa__json_kind(indices), ossa__json_kind(vals));
    const cJSON *ict = cJSON_GetObjectItemCaseSensitive(indices, "componentType");
    const int itype = cJSON_IsNumber(ict) ? (int)fmin(fmax(ict->valuedouble, -1.0), 1e6) : -1;
    if (!cJSON_IsNumber(ict) || ict->valuedouble != (double)itype || (itype != 5121 && itype != 5123 && itype != 5125))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.componentType: expected 5121, 5123 or 5125, found %s",
                               ipath, ossa__json_kind(ict));
    if ((r = ossa__gltf_index(g, indices, "bufferView", ipath, view_count, "buffer view", true, &iview)) ||
        (r = ossa__gltf_size(g, indices, "byteOffset", ipath, 0, &ioffset)) ||
        (r = ossa__gltf_index(g, vals, "bufferView", vpath, view_count, "buffer view", true, &vview)) ||
        (r = ossa__gltf_size(g, vals, "byteOffset", vpath, 0, &voffset)))
        return r;
    const size_t isize = component_size(itype), csize = component_size(info->type);
    const size_t elem = csize * info->components;
    const uint8_t *ibytes, *vbytes;
    size_t istride, vstride;
    if ((r = view_bytes(g, iview, ioffset, count, isize, isize, false, ipath, &ibytes, &istride)) ||
        (r = view_bytes(g, vview, voffset, count, elem, csize, false, vpath, &vbytes, &vstride)))
        return r;
    size_t previous = 0;
    for (size_t i = 0; i < count; ++i) {
        const uint8_t *p = ibytes + i * isize;
        const size_t at =
            isize == 1   ? p[0]
            : isize == 2 ? (size_t)(p[0] | p[1] << 8)
                         : (size_t)((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        if (at >= info->count || (i && at <= previous))
            return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX,
                                   "%s: index %zu is %zu; expected strictly increasing indices below %zu%s", ipath, i,
                                   at, info->count, i ? " after the previous one" : "");
        previous = at;
        for (size_t c = 0; c < info->components; ++c)
            values[at * info->components + c] = component(vbytes + i * elem + c * csize, info->type, info->normalized);
    }
    return OSSA_OK;
}

static const char *types_expected(unsigned types)
{
    if (types == OSSA__GLTF_FLOAT) return "FLOAT";
    if (types == (OSSA__GLTF_FLOAT | OSSA__GLTF_NORMALIZED))
        return "FLOAT, or normalised BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT";
    return "FLOAT, BYTE, UNSIGNED_BYTE, SHORT or UNSIGNED_SHORT";
}

ossa_result ossa__gltf_read_accessor(ossa__gltf *g, size_t index, const char *use, unsigned types, size_t components,
                                     float **values, size_t *count)
{
    *values = NULL;
    *count = 0;
    accessor_info info;
    ossa_result r = accessor_header(g, index, &info);
    if (r) return r;
    char path[48];
    snprintf(path, sizeof path, "accessors[%zu]", index);
    const bool is_float = info.type == 5126, is_small = info.type != 5125 && !is_float;
    const bool accepted = (is_float && (types & OSSA__GLTF_FLOAT)) ||
                          (is_small && info.normalized && (types & (OSSA__GLTF_NORMALIZED | OSSA__GLTF_INTEGER))) ||
                          (is_small && !info.normalized && (types & OSSA__GLTF_INTEGER));
    if (!accepted)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX, "%s (%s): expected %s components, found %s%s", path,
                               use, types_expected(types), info.normalized ? "normalised " : "",
                               component_name(info.type));
    if (info.components != components)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX, "%s.type (%s): expected %s, found %zu components", path,
                               use, components_name(components), info.components);
    size_t total;
    if (!ossa__mul_size(info.count, components, &total) || total / 16 > g->keys_left)
        return ossa__gltf_fail(g, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX,
                               "%s.count: %zu elements is beyond the import's key budget (max_keys)", path, info.count);
    const size_t csize = component_size(info.type), elem = csize * components;
    size_t view, offset, view_count;
    const cJSON *views;
    if ((r = ossa__gltf_array(g, g->root, "bufferViews", "", &views, &view_count)) ||
        (r = ossa__gltf_index(g, info.json, "bufferView", path, view_count, "buffer view", false, &view)) ||
        (r = ossa__gltf_size(g, info.json, "byteOffset", path, 0, &offset)))
        return r;
    if (view == SIZE_MAX && offset)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX, "%s.byteOffset: %zu given without a bufferView", path,
                               offset);
    const uint8_t *bytes = NULL;
    size_t stride = elem;
    if (view != SIZE_MAX && (r = view_bytes(g, view, offset, info.count, elem, csize, true, path, &bytes, &stride)))
        return r;
    float *v = ossa__calloc(g->a, total, sizeof *v);
    if (!v) return ossa__gltf_fail(g, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory reading %s", path);
    for (size_t i = 0; bytes && i < info.count; ++i)
        for (size_t c = 0; c < components; ++c)
            v[i * components + c] = component(bytes + i * stride + c * csize, info.type, info.normalized);
    if ((r = apply_sparse(g, index, &info, v))) {
        ossa_free(g->a, v);
        return r;
    }
    *values = v;
    *count = info.count;
    return OSSA_OK;
}

#endif
