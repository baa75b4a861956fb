/* ossa export --mesh: reading the glTF 2.0 source (export_source.h): the GLB container or JSON
 * text, its buffers and accessors, every index, offset, length and count checked against what
 * it points into before it is used.
 * Source: the glTF 2.0 specification (2.8 URIs, 3.6 buffers, views and accessors, 3.6.2.3
 * sparse accessors, 4 GLB). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"
#include "export_source.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

/* Prints "ossa: SOURCE: <message>" and returns false. */
bool tool_source_fail(const tool_source *s, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "ossa: %s: ", s->path);
    vfprintf(stderr, format, args);
    va_end(args);
    fputc('\n', stderr);
    return false;
}

/* The array `key` of `object` and its size (0 and NULL when absent); false when not an array. */
static bool array_of(const tool_source *s, const cJSON *object, const char *key, const cJSON **array, size_t *count)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(object, key);
    *array = NULL, *count = 0;
    if (!a) return true;
    if (!cJSON_IsArray(a)) return tool_source_fail(s, "%s: expected an array", key);
    *array = a;
    *count = (size_t)cJSON_GetArraySize(a);
    return true;
}

/* An integer JSON number in [0, limit) into *value; false otherwise. */
bool tool_source_index_value(const cJSON *v, size_t limit, size_t *value)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.) || v->valuedouble >= (double)limit ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *value = (size_t)v->valuedouble;
    return true;
}

/* Property `key` of `object` as an index below `limit`: SIZE_MAX when absent; false (with the
 * error printed, `what` naming the object) when present and not such an index. */
bool tool_source_index(const tool_source *s, const cJSON *object, const char *key, size_t limit, const char *what,
                       size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = SIZE_MAX;
    if (!v) return true;
    if (!tool_source_index_value(v, limit, value))
        return tool_source_fail(s, "%s.%s: expected an index below %zu, found %s", what, key, limit,
                                cJSON_IsNumber(v) ? "a number out of range" : "another JSON type");
    return true;
}

/* A non-negative integer property below 2^53 (`fallback` when absent). */
static bool size_property(const tool_source *s, const cJSON *object, const char *key, const char *what, size_t fallback,
                          size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = fallback;
    if (!v) return true;
    if (!tool_source_index_value(v, (size_t)1 << 53, value))
        return tool_source_fail(s, "%s.%s: expected a non-negative integer", what, key);
    return true;
}

/* ---- the container and its buffers ---- */

static int base64_digit(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* The bytes of a "data:<type>;base64,<payload>" URI (malloc), or NULL with the error printed. */
static uint8_t *data_uri(const tool_source *s, const char *uri, const char *what, size_t *size)
{
    const char *comma = strchr(uri, ',');
    if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7))
        return tool_source_fail(s, "%s.uri: expected a base64 data URI, found \"%.40s\"", what, uri), NULL;
    const char *text = comma + 1;
    const size_t n = strlen(text);
    uint8_t *out = malloc(n / 4 * 3 + 3);
    if (!out) return tool_source_fail(s, "out of memory"), NULL;
    size_t bits = 0, count = 0, o = 0;
    for (size_t i = 0; i < n && text[i] != '='; ++i) {
        const int d = base64_digit((unsigned char)text[i]);
        if (d < 0) {
            free(out);
            return tool_source_fail(s, "%s.uri: expected base64, found byte 0x%02x", what, (unsigned char)text[i]),
                   NULL;
        }
        bits = (bits << 6) | (size_t)d, count += 6;
        if (count >= 8) count -= 8, out[o++] = (uint8_t)(bits >> count);
        bits &= ((size_t)1 << count) - 1;
    }
    *size = o;
    return out;
}

/* "a%20b.bin" -> "a b.bin" (RFC 3986); false when a %XX is malformed or decodes to NUL. */
static bool percent_decode(const char *uri, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; uri[i]; ++i) {
        char c = uri[i];
        if (c == '%') {
            char hex[3] = {uri[i + 1], uri[i + 1] ? uri[i + 2] : 0, 0}, *end;
            const long v = strtol(hex, &end, 16);
            if (end != hex + 2 || v == 0) return false;
            c = (char)v, i += 2;
        }
        if (o + 1 >= size) return false;
        out[o++] = c;
    }
    out[o] = '\0';
    return true;
}

/* The bytes `uri` names: a data URI, or a file next to the source (never outside its folder). */
uint8_t *tool_source_uri(tool_source *s, const char *uri, const char *what, size_t *size)
{
    if (!strncmp(uri, "data:", 5)) return data_uri(s, uri, what, size);
    char file[4096];
    void *data = NULL;
    if (!percent_decode(uri, file, sizeof file))
        return tool_source_fail(s, "%s.uri: a malformed URI \"%.40s\"", what, uri), NULL;
    if (tool_read_relative(file, &data, size, s->dir) != OSSA_OK)
        return tool_source_fail(s, "%s.uri: cannot read \"%s\" next to the source", what, file), NULL;
    return data;
}

static bool load_buffers(tool_source *s)
{
    const cJSON *buffers;
    if (!array_of(s, s->root, "buffers", &buffers, &s->buffer_count)) return false;
    s->buffers = calloc(s->buffer_count + 1, sizeof *s->buffers);
    if (!s->buffers) return tool_source_fail(s, "out of memory");
    size_t i = 0;
    for (const cJSON *b = buffers ? buffers->child : NULL; b; b = b->next, ++i) {
        char what[48];
        snprintf(what, sizeof what, "buffers[%zu]", i);
        size_t length;
        if (!cJSON_IsObject(b)) return tool_source_fail(s, "%s: expected an object", what);
        if (!size_property(s, b, "byteLength", what, 0, &length)) return false;
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        size_t available = 0;
        if (cJSON_IsString(uri)) {
            s->buffers[i].owned = tool_source_uri(s, uri->valuestring, what, &available);
            if (!s->buffers[i].owned) return false;
            s->buffers[i].data = s->buffers[i].owned;
        } else if (i == 0 && s->bin) {
            s->buffers[i].data = s->bin, available = s->bin_size;
        } else {
            return tool_source_fail(s, "%s: no uri, and not the GLB's binary chunk", what);
        }
        if (available < length)
            return tool_source_fail(s, "%s: %zu bytes, fewer than its byteLength %zu", what, available, length);
        s->buffers[i].size = length;
    }
    return true;
}

/* Parses the GLB container or the JSON text of `data`. */
static bool parse(tool_source *s, const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    size_t json_size = size;
    if (size >= 4 && !memcmp(data, "glTF", 4)) {
        uint32_t h[5];
        if (size < 20) return tool_source_fail(s, "a GLB of %zu bytes, shorter than its 20-byte header", size);
        memcpy(h, data, 20);
        if (h[1] != 2) return tool_source_fail(s, "GLB version %u, expected 2", h[1]);
        if (h[2] > size || h[2] < 20)
            return tool_source_fail(s, "the GLB declares %u bytes, the file has %zu", h[2], size);
        if (h[4] != 0x4E4F534Au || h[3] > h[2] - 20)
            return tool_source_fail(s, "the GLB's first chunk is not a JSON chunk in the file");
        json = (const char *)data + 20, json_size = h[3];
        const size_t next = 20 + (size_t)((h[3] + 3) & ~3u);
        if (next + 8 <= h[2]) {
            uint32_t c[2];
            memcpy(c, data + next, 8);
            if (c[1] == 0x004E4942u && c[0] <= h[2] - next - 8) s->bin = data + next + 8, s->bin_size = c[0];
        }
    } else {
        size_t i = size >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3) ? 3 : 0;
        while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
        if (i == size || data[i] != '{')
            return tool_source_fail(
                s, "not glTF 2.0 (neither a GLB nor JSON): --mesh reads .gltf and .glb files only; convert "
                   "other formats to glTF first");
    }
    s->root = cJSON_ParseWithLength(json, json_size);
    if (!cJSON_IsObject(s->root)) return tool_source_fail(s, "not glTF: the JSON does not parse into an object");
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(s->root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2))
        return tool_source_fail(s, "asset.version: expected \"2.x\", found %s",
                                cJSON_IsString(version) ? version->valuestring : "none");
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(s->root, "extensionsRequired"), *e;
    cJSON_ArrayForEach(e, required)
    {
        if (cJSON_IsString(e) &&
            (!strcmp(e->valuestring, "KHR_draco_mesh_compression") ||
             !strcmp(e->valuestring, "EXT_meshopt_compression") || !strcmp(e->valuestring, "KHR_mesh_quantization")))
            return tool_source_fail(s, "the source requires %s, which ossa export does not copy", e->valuestring);
    }
    return array_of(s, s->root, "nodes", &s->nodes, &s->node_count) &&
           array_of(s, s->root, "meshes", &s->meshes, &s->mesh_count) &&
           array_of(s, s->root, "skins", &s->skins, &s->skin_count) &&
           array_of(s, s->root, "accessors", &s->accessors, &s->accessor_count) &&
           array_of(s, s->root, "bufferViews", &s->views, &s->view_count) &&
           array_of(s, s->root, "materials", &s->materials, &s->material_count) &&
           array_of(s, s->root, "textures", &s->textures, &s->texture_count) &&
           array_of(s, s->root, "samplers", &s->samplers, &s->sampler_count) &&
           array_of(s, s->root, "images", &s->images, &s->image_count) && load_buffers(s);
}

/* The bytes of bufferView `index` and its byteStride (0 when absent). */
bool tool_source_view(tool_source *s, size_t index, const char *what, const uint8_t **data, size_t *size,
                      size_t *stride)
{
    char where[48];
    snprintf(where, sizeof where, "bufferViews[%zu]", index);
    const cJSON *v = cJSON_GetArrayItem(s->views, (int)index);
    size_t b, offset, length;
    if (!cJSON_IsObject(v)) return tool_source_fail(s, "%s: expected an object", where);
    if (!tool_source_index(s, v, "buffer", s->buffer_count, where, &b) ||
        !size_property(s, v, "byteOffset", where, 0, &offset) ||
        !size_property(s, v, "byteLength", where, 0, &length) || !size_property(s, v, "byteStride", where, 0, stride))
        return false;
    if (b == SIZE_MAX) return tool_source_fail(s, "%s (for %s): no buffer", where, what);
    if (offset > s->buffers[b].size || length > s->buffers[b].size - offset)
        return tool_source_fail(s, "%s: bytes %zu to %zu, past the end of buffers[%zu] (%zu bytes)", where, offset,
                                offset + length, b, s->buffers[b].size);
    *data = s->buffers[b].data + offset, *size = length;
    return true;
}

/* ---- accessors ---- */

static size_t component_size(int type)
{
    return type == 5120 || type == 5121 ? 1 : type == 5122 || type == 5123 ? 2 : type == 5125 || type == 5126 ? 4 : 0;
}

static size_t type_width(const char *type)
{
    static const char *const names[] = {"SCALAR", "VEC2", "VEC3", "VEC4", "MAT2", "MAT3", "MAT4"};
    static const size_t widths[] = {1, 2, 3, 4, 4, 9, 16};
    for (int i = 0; i < 7; ++i)
        if (!strcmp(type, names[i])) return widths[i];
    return 0;
}

/* Accessor `index` as tightly packed elements (malloc; zeros without a bufferView; sparse
 * values put in place), its component type, width and count. */
uint8_t *tool_source_accessor(tool_source *s, size_t index, int *component, size_t *width, size_t *count,
                              size_t *element)
{
    char what[48];
    snprintf(what, sizeof what, "accessors[%zu]", index);
    const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)index);
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(a, "componentType"),
                *ty = cJSON_GetObjectItemCaseSensitive(a, "type");
    size_t view, offset;
    if (!cJSON_IsObject(a) || !cJSON_IsNumber(ct) || !cJSON_IsString(ty))
        return tool_source_fail(s, "%s: expected an object with componentType and type", what), NULL;
    if (!size_property(s, a, "count", what, 0, count) ||
        !tool_source_index(s, a, "bufferView", s->view_count, what, &view) ||
        !size_property(s, a, "byteOffset", what, 0, &offset))
        return NULL;
    *component = ct->valueint;
    const size_t csize = component_size(*component);
    *width = type_width(ty->valuestring);
    if (!csize || !*width || (*width == 4 && ty->valuestring[0] == 'M' && csize < 4) || (*width == 9 && csize < 4))
        return tool_source_fail(s, "%s: componentType %d of type %s is not one ossa export copies", what, *component,
                                ty->valuestring),
               NULL;
    *element = csize * *width;
    /* Without a view the elements are zeros (before sparse values): no bytes bound the count. */
    if (*count == 0 || *count > (view == SIZE_MAX ? ((size_t)256 << 20) : SIZE_MAX / 2) / *element)
        return tool_source_fail(s, "%s: count %zu", what, *count), NULL;
    const uint8_t *data = NULL;
    size_t size = 0, stride = 0;
    if (view != SIZE_MAX) {
        if (!tool_source_view(s, view, what, &data, &size, &stride)) return NULL;
        if (!stride) stride = *element;
        if (offset > size || *element > size - offset || (*count - 1) > (size - offset - *element) / stride)
            return tool_source_fail(s, "%s: %zu elements from byte %zu run past bufferViews[%zu]", what, *count, offset,
                                    view),
                   NULL;
    }
    uint8_t *out = calloc(*count, *element);
    if (!out) return tool_source_fail(s, "out of memory for %s", what), NULL;
    for (size_t i = 0; data && i < *count; ++i) memcpy(out + i * *element, data + offset + i * stride, *element);
    const cJSON *sparse = cJSON_GetObjectItemCaseSensitive(a, "sparse");
    if (sparse) {
        const cJSON *ind = cJSON_GetObjectItemCaseSensitive(sparse, "indices"),
                    *val = cJSON_GetObjectItemCaseSensitive(sparse, "values");
        const cJSON *ict = cJSON_GetObjectItemCaseSensitive(ind, "componentType");
        size_t n = 0, iview = SIZE_MAX, ioffset = 0, vview = SIZE_MAX, voffset = 0;
        const size_t isize =
            cJSON_IsNumber(ict) && ict->valueint != 5120 && ict->valueint != 5122 && ict->valueint != 5126
                ? component_size(ict->valueint)
                : 0;
        /* Checked without printing: one line below says what a sparse accessor needs. */
        const cJSON *o;
        bool ok = tool_source_index_value(cJSON_GetObjectItemCaseSensitive(sparse, "count"), *count + 1, &n) && isize &&
                  tool_source_index_value(cJSON_GetObjectItemCaseSensitive(ind, "bufferView"), s->view_count, &iview) &&
                  tool_source_index_value(cJSON_GetObjectItemCaseSensitive(val, "bufferView"), s->view_count, &vview);
        ok = ok && (!(o = cJSON_GetObjectItemCaseSensitive(ind, "byteOffset")) ||
                    tool_source_index_value(o, SIZE_MAX, &ioffset));
        ok = ok && (!(o = cJSON_GetObjectItemCaseSensitive(val, "byteOffset")) ||
                    tool_source_index_value(o, SIZE_MAX, &voffset));
        if (!ok)
            return free(out),
                   tool_source_fail(
                       s, "%s.sparse: expected a count up to the accessor's, unsigned integer indices and two views",
                       what),
                   NULL;
        const uint8_t *idata = NULL, *vdata = NULL;
        size_t isz = 0, vsz = 0, unused;
        if (!tool_source_view(s, iview, what, &idata, &isz, &unused) ||
            !tool_source_view(s, vview, what, &vdata, &vsz, &unused))
            return free(out), NULL;
        ok =
            !n || (ioffset <= isz && n <= (isz - ioffset) / isize && voffset <= vsz && n <= (vsz - voffset) / *element);
        for (size_t k = 0; ok && k < n; ++k) {
            const uint8_t *p = idata + ioffset + k * isize;
            const uint32_t i = isize == 1 ? p[0]
                               : isize == 2
                                   ? (uint32_t)(p[0] | p[1] << 8)
                                   : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
            ok = i < *count;
            if (ok) memcpy(out + i * *element, vdata + voffset + k * *element, *element);
        }
        if (!ok)
            return free(out),
                   tool_source_fail(s, "%s.sparse: indices or values past their views, or an index past the count",
                                    what),
                   NULL;
    }
    return out;
}

bool tool_source_open(tool_source *s, const char *path)
{
    s->path = path;
    snprintf(s->dir, sizeof s->dir, "%s", path);
    char *slash = strrchr(s->dir, '/');
    if (slash)
        slash[slash == s->dir] = '\0';
    else
        snprintf(s->dir, sizeof s->dir, ".");
    size_t size = 0;
    s->file = tool_read_file(path, &size);
    return s->file && parse(s, s->file, size);
}

void tool_source_close(tool_source *s)
{
    for (size_t i = 0; s->buffers && i < s->buffer_count; ++i) free(s->buffers[i].owned);
    free(s->buffers), free(s->file);
    cJSON_Delete(s->root);
    s->buffers = NULL, s->file = NULL, s->root = NULL;
}

#endif
