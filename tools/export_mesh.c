/* ossa export --mesh SOURCE: the meshes of a glTF 2.0 source copied into the exported GLB.
 *
 * The archive holds no meshes; the file it was baked from often does. Each node of SOURCE
 * with a mesh becomes a node at the root of the exported scene: a skinned one without a
 * transform (glTF ignores a skinned mesh node's transform, 3.7.3), any other one at its world
 * transform in SOURCE. Its mesh is copied with the accessors its primitives use (attributes,
 * indices, morph targets; sparse accessors made dense; every accessor tightly packed in one
 * view for vertex attributes, one for indices, or a view of its own with a byteStride when
 * its elements are not a multiple of 4 bytes, as 3.6.2.4 asks of vertex attributes), its
 * materials without their extensions, and their textures, samplers and images (embedded in the
 * binary chunk, whether SOURCE embedded them, named a file or gave a data URI). Each skin is
 * copied with its joints mapped by name to the exported skeleton's nodes (nodes without a name
 * as ossa's glTF importer names them, "nodes[<i>]"), and its inverse bind matrices. Draco or
 * meshopt compressed meshes are refused (their views are not copied); other formats than glTF
 * are refused: convert them to glTF first.
 * Bad input never reads out of bounds: every index, offset, length and count is checked
 * against what it points into before it is used.
 * Source: the glTF 2.0 specification (2.8 URIs, 3.5 nodes, 3.6 buffers and accessors, 3.7
 * meshes and skins, 3.8-3.9 materials and textures, 4 GLB). */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"
#include "export.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

typedef struct buffer {
    const uint8_t *data;
    size_t size; /* the declared byteLength */
    void *owned;
} buffer;

typedef struct source {
    const char *path;
    char dir[4096];
    cJSON *root;
    const uint8_t *bin; /* GLB BIN chunk */
    size_t bin_size;
    buffer *buffers;
    const cJSON *nodes, *meshes, *skins, *accessors, *views, *materials, *textures, *samplers, *images;
    size_t node_count, mesh_count, skin_count, accessor_count, view_count, material_count, texture_count, sampler_count,
        image_count, buffer_count;
    int *accessor_map, *material_map, *texture_map, *sampler_map, *image_map; /* -1: not copied yet */
    int attribute_view, index_view;                                           /* -1: not made yet */
    tool_glb *g;
    cJSON *out_root;
} source;

/* Prints "ossa: SOURCE: <message>" and returns false. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static bool
fail(const source *s, const char *format, ...)
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
static bool array_of(const source *s, const cJSON *object, const char *key, const cJSON **array, size_t *count)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(object, key);
    *array = NULL, *count = 0;
    if (!a) return true;
    if (!cJSON_IsArray(a)) return fail(s, "%s: expected an array", key);
    *array = a;
    *count = (size_t)cJSON_GetArraySize(a);
    return true;
}

/* An integer JSON number in [0, limit) into *value; false otherwise. */
static bool index_value(const cJSON *v, size_t limit, size_t *value)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0.) || v->valuedouble >= (double)limit ||
        v->valuedouble != floor(v->valuedouble))
        return false;
    *value = (size_t)v->valuedouble;
    return true;
}

/* Property `key` of `object` as an index below `limit`: SIZE_MAX when absent; false (with the
 * error printed, `what` naming the object) when present and not such an index. */
static bool optional_index(const source *s, const cJSON *object, const char *key, size_t limit, const char *what,
                           size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = SIZE_MAX;
    if (!v) return true;
    if (!index_value(v, limit, value))
        return fail(s, "%s.%s: expected an index below %zu, found %s", what, key, limit,
                    cJSON_IsNumber(v) ? "a number out of range" : "another JSON type");
    return true;
}

/* A non-negative integer property below 2^53 (`fallback` when absent). */
static bool size_property(const source *s, const cJSON *object, const char *key, const char *what, size_t fallback,
                          size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = fallback;
    if (!v) return true;
    if (!index_value(v, (size_t)1 << 53, value)) return fail(s, "%s.%s: expected a non-negative integer", what, key);
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
static uint8_t *data_uri(const source *s, const char *uri, const char *what, size_t *size)
{
    const char *comma = strchr(uri, ',');
    if (!comma || comma - uri < 12 || strncmp(comma - 7, ";base64", 7))
        return fail(s, "%s.uri: expected a base64 data URI, found \"%.40s\"", what, uri), NULL;
    const char *text = comma + 1;
    const size_t n = strlen(text);
    uint8_t *out = malloc(n / 4 * 3 + 3);
    if (!out) return fail(s, "out of memory"), NULL;
    size_t bits = 0, count = 0, o = 0;
    for (size_t i = 0; i < n && text[i] != '='; ++i) {
        const int d = base64_digit((unsigned char)text[i]);
        if (d < 0) {
            free(out);
            return fail(s, "%s.uri: expected base64, found byte 0x%02x", what, (unsigned char)text[i]), NULL;
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
static uint8_t *uri_bytes(source *s, const char *uri, const char *what, size_t *size)
{
    if (!strncmp(uri, "data:", 5)) return data_uri(s, uri, what, size);
    char file[4096];
    void *data = NULL;
    if (!percent_decode(uri, file, sizeof file)) return fail(s, "%s.uri: a malformed URI \"%.40s\"", what, uri), NULL;
    if (tool_read_relative(file, &data, size, s->dir) != OSSA_OK)
        return fail(s, "%s.uri: cannot read \"%s\" next to the source", what, file), NULL;
    return data;
}

static bool load_buffers(source *s)
{
    const cJSON *buffers;
    if (!array_of(s, s->root, "buffers", &buffers, &s->buffer_count)) return false;
    s->buffers = calloc(s->buffer_count + 1, sizeof *s->buffers);
    if (!s->buffers) return fail(s, "out of memory");
    size_t i = 0;
    for (const cJSON *b = buffers ? buffers->child : NULL; b; b = b->next, ++i) {
        char what[48];
        snprintf(what, sizeof what, "buffers[%zu]", i);
        size_t length;
        if (!cJSON_IsObject(b)) return fail(s, "%s: expected an object", what);
        if (!size_property(s, b, "byteLength", what, 0, &length)) return false;
        const cJSON *uri = cJSON_GetObjectItemCaseSensitive(b, "uri");
        size_t available = 0;
        if (cJSON_IsString(uri)) {
            s->buffers[i].owned = uri_bytes(s, uri->valuestring, what, &available);
            if (!s->buffers[i].owned) return false;
            s->buffers[i].data = s->buffers[i].owned;
        } else if (i == 0 && s->bin) {
            s->buffers[i].data = s->bin, available = s->bin_size;
        } else {
            return fail(s, "%s: no uri, and not the GLB's binary chunk", what);
        }
        if (available < length) return fail(s, "%s: %zu bytes, fewer than its byteLength %zu", what, available, length);
        s->buffers[i].size = length;
    }
    return true;
}

/* Parses the GLB container or the JSON text of `data`. */
static bool parse(source *s, const uint8_t *data, size_t size)
{
    const char *json = (const char *)data;
    size_t json_size = size;
    if (size >= 4 && !memcmp(data, "glTF", 4)) {
        uint32_t h[5];
        if (size < 20) return fail(s, "a GLB of %zu bytes, shorter than its 20-byte header", size);
        memcpy(h, data, 20);
        if (h[1] != 2) return fail(s, "GLB version %u, expected 2", h[1]);
        if (h[2] > size || h[2] < 20) return fail(s, "the GLB declares %u bytes, the file has %zu", h[2], size);
        if (h[4] != 0x4E4F534Au || h[3] > h[2] - 20)
            return fail(s, "the GLB's first chunk is not a JSON chunk in the file");
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
            return fail(s, "not glTF 2.0 (neither a GLB nor JSON): --mesh reads .gltf and .glb files only; convert "
                           "other formats to glTF first");
    }
    s->root = cJSON_ParseWithLength(json, json_size);
    if (!cJSON_IsObject(s->root)) return fail(s, "not glTF: the JSON does not parse into an object");
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(s->root, "asset");
    const cJSON *version = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (!cJSON_IsString(version) || strncmp(version->valuestring, "2.", 2))
        return fail(s, "asset.version: expected \"2.x\", found %s",
                    cJSON_IsString(version) ? version->valuestring : "none");
    const cJSON *required = cJSON_GetObjectItemCaseSensitive(s->root, "extensionsRequired"), *e;
    cJSON_ArrayForEach(e, required)
    {
        if (cJSON_IsString(e) &&
            (!strcmp(e->valuestring, "KHR_draco_mesh_compression") ||
             !strcmp(e->valuestring, "EXT_meshopt_compression") || !strcmp(e->valuestring, "KHR_mesh_quantization")))
            return fail(s, "the source requires %s, which ossa export does not copy", e->valuestring);
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
static bool view_bytes(source *s, size_t index, const char *what, const uint8_t **data, size_t *size, size_t *stride)
{
    char where[48];
    snprintf(where, sizeof where, "bufferViews[%zu]", index);
    const cJSON *v = cJSON_GetArrayItem(s->views, (int)index);
    size_t b, offset, length;
    if (!cJSON_IsObject(v)) return fail(s, "%s: expected an object", where);
    if (!optional_index(s, v, "buffer", s->buffer_count, where, &b) ||
        !size_property(s, v, "byteOffset", where, 0, &offset) ||
        !size_property(s, v, "byteLength", where, 0, &length) || !size_property(s, v, "byteStride", where, 0, stride))
        return false;
    if (b == SIZE_MAX) return fail(s, "%s (for %s): no buffer", where, what);
    if (offset > s->buffers[b].size || length > s->buffers[b].size - offset)
        return fail(s, "%s: bytes %zu to %zu, past the end of buffers[%zu] (%zu bytes)", where, offset, offset + length,
                    b, s->buffers[b].size);
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
static uint8_t *read_accessor(source *s, size_t index, int *component, size_t *width, size_t *count, size_t *element)
{
    char what[48];
    snprintf(what, sizeof what, "accessors[%zu]", index);
    const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)index);
    const cJSON *ct = cJSON_GetObjectItemCaseSensitive(a, "componentType"),
                *ty = cJSON_GetObjectItemCaseSensitive(a, "type");
    size_t view, offset;
    if (!cJSON_IsObject(a) || !cJSON_IsNumber(ct) || !cJSON_IsString(ty))
        return fail(s, "%s: expected an object with componentType and type", what), NULL;
    if (!size_property(s, a, "count", what, 0, count) ||
        !optional_index(s, a, "bufferView", s->view_count, what, &view) ||
        !size_property(s, a, "byteOffset", what, 0, &offset))
        return NULL;
    *component = ct->valueint;
    const size_t csize = component_size(*component);
    *width = type_width(ty->valuestring);
    if (!csize || !*width || (*width == 4 && ty->valuestring[0] == 'M' && csize < 4) || (*width == 9 && csize < 4))
        return fail(s, "%s: componentType %d of type %s is not one ossa export copies", what, *component,
                    ty->valuestring),
               NULL;
    *element = csize * *width;
    /* Without a view the elements are zeros (before sparse values): no bytes bound the count. */
    if (*count == 0 || *count > (view == SIZE_MAX ? ((size_t)256 << 20) : SIZE_MAX / 2) / *element)
        return fail(s, "%s: count %zu", what, *count), NULL;
    const uint8_t *data = NULL;
    size_t size = 0, stride = 0;
    if (view != SIZE_MAX) {
        if (!view_bytes(s, view, what, &data, &size, &stride)) return NULL;
        if (!stride) stride = *element;
        if (offset > size || *element > size - offset || (*count - 1) > (size - offset - *element) / stride)
            return fail(s, "%s: %zu elements from byte %zu run past bufferViews[%zu]", what, *count, offset, view),
                   NULL;
    }
    uint8_t *out = calloc(*count, *element);
    if (!out) return fail(s, "out of memory for %s", what), NULL;
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
        bool ok = index_value(cJSON_GetObjectItemCaseSensitive(sparse, "count"), *count + 1, &n) && isize &&
                  index_value(cJSON_GetObjectItemCaseSensitive(ind, "bufferView"), s->view_count, &iview) &&
                  index_value(cJSON_GetObjectItemCaseSensitive(val, "bufferView"), s->view_count, &vview);
        ok = ok && (!(o = cJSON_GetObjectItemCaseSensitive(ind, "byteOffset")) || index_value(o, SIZE_MAX, &ioffset));
        ok = ok && (!(o = cJSON_GetObjectItemCaseSensitive(val, "byteOffset")) || index_value(o, SIZE_MAX, &voffset));
        if (!ok)
            return free(out),
                   fail(s, "%s.sparse: expected a count up to the accessor's, unsigned integer indices and two views",
                        what),
                   NULL;
        const uint8_t *idata = NULL, *vdata = NULL;
        size_t isz = 0, vsz = 0, unused;
        if (!view_bytes(s, iview, what, &idata, &isz, &unused) || !view_bytes(s, vview, what, &vdata, &vsz, &unused))
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
                   fail(s, "%s.sparse: indices or values past their views, or an index past the count", what), NULL;
    }
    return out;
}

/* Copies source accessor `index` once (later uses get the same copy): `attribute` puts it in the
 * vertex attribute view (or a strided view of its own), else in the index view, or view 0 for
 * inverse bind matrices (`matrices`). */
static int copy_accessor(source *s, size_t index, bool attribute, bool matrices)
{
    if (s->accessor_map[index] >= 0) return s->accessor_map[index];
    int component;
    size_t width, count, element;
    uint8_t *data = read_accessor(s, index, &component, &width, &count, &element);
    if (!data) return -1;
    const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)index);
    size_t view = 0, bytes = count * element;
    if (!matrices && attribute && element % 4) {
        /* Vertex attribute elements start 4-byte aligned (3.6.2.4): a strided view of its own. */
        const size_t stride = (element + 3) & ~(size_t)3;
        uint8_t *padded = count <= SIZE_MAX / stride ? calloc(count, stride) : NULL;
        const int v = padded ? tool_glb_add_view(s->g, 34962, stride) : -1;
        if (v < 0) return free(data), free(padded), fail(s, "out of memory"), -1;
        for (size_t i = 0; i < count; ++i) memcpy(padded + i * stride, data + i * element, element);
        free(data);
        /* The whole last stride too: assimp 5.2 refuses a view shorter than count x stride. */
        data = padded, view = (size_t)v, bytes = count * stride;
    } else if (!matrices) {
        int *shared = attribute ? &s->attribute_view : &s->index_view;
        if (*shared < 0) *shared = tool_glb_add_view(s->g, attribute ? 34962 : 34963, 0);
        if (*shared < 0) return free(data), fail(s, "out of memory"), -1;
        view = (size_t)*shared;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type"), *min = cJSON_GetObjectItemCaseSensitive(a, "min"),
                *max = cJSON_GetObjectItemCaseSensitive(a, "max");
    const int out = tool_glb_add_accessor(s->g, view, data, bytes, component,
                                          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "normalized")), count,
                                          type->valuestring, cJSON_IsArray(min) ? cJSON_Duplicate(min, true) : NULL,
                                          cJSON_IsArray(max) ? cJSON_Duplicate(max, true) : NULL);
    free(data);
    if (out < 0) return fail(s, "out of memory"), -1;
    return s->accessor_map[index] = out;
}

/* Replaces every member of `map` (an object of accessor indices: attributes, a morph target)
 * with its copy. */
static bool remap_accessors(source *s, cJSON *map, const char *what)
{
    cJSON *e;
    cJSON_ArrayForEach(e, map)
    {
        size_t index;
        if (!index_value(e, s->accessor_count, &index))
            return fail(s, "%s.%s: expected an accessor index below %zu", what, e->string ? e->string : "?",
                        s->accessor_count);
        const int copy = copy_accessor(s, index, true, false);
        if (copy < 0) return false;
        cJSON_SetNumberValue(e, copy);
    }
    return true;
}

/* ---- materials, textures, samplers, images ---- */

/* The array `key` of the exported document, made when first needed. */
static cJSON *out_array(source *s, const char *key)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(s->out_root, key);
    if (!a) cJSON_AddItemToObject(s->out_root, key, a = cJSON_CreateArray());
    return a;
}

/* Appends `item` to the exported array `key`; its index. */
static int append(source *s, const char *key, cJSON *item)
{
    cJSON *a = out_array(s, key);
    cJSON_AddItemToArray(a, item);
    return cJSON_GetArraySize(a) - 1;
}

/* The MIME type of image bytes from their signature (3.9.3 allows PNG and JPEG), or NULL. */
static const char *image_type(const uint8_t *data, size_t size)
{
    if (size >= 8 && !memcmp(data, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (size >= 3 && !memcmp(data, "\xFF\xD8\xFF", 3)) return "image/jpeg";
    return NULL;
}

static int copy_image(source *s, size_t index)
{
    if (s->image_map[index] >= 0) return s->image_map[index];
    char what[48];
    snprintf(what, sizeof what, "images[%zu]", index);
    const cJSON *image = cJSON_GetArrayItem(s->images, (int)index);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(image, "uri");
    size_t view, size = 0, stride;
    const uint8_t *data = NULL;
    uint8_t *owned = NULL;
    if (!optional_index(s, image, "bufferView", s->view_count, what, &view)) return -1;
    if (view != SIZE_MAX) {
        if (!view_bytes(s, view, what, &data, &size, &stride)) return -1;
    } else if (cJSON_IsString(uri)) {
        if (!(data = owned = uri_bytes(s, uri->valuestring, what, &size))) return -1;
    } else {
        return fail(s, "%s: expected a uri or a bufferView", what), -1;
    }
    const char *type = image_type(data, size);
    const int v = type ? tool_glb_add_view(s->g, 0, 0) : -1;
    size_t offset;
    const bool ok = v >= 0 && tool_glb_append(s->g, (size_t)v, data, size, &offset);
    free(owned);
    if (!type) return fail(s, "%s: neither PNG nor JPEG, the image types glTF 2.0 allows", what), -1;
    if (!ok) return fail(s, "out of memory"), -1;
    cJSON *out = cJSON_CreateObject();
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(image, "name");
    if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
    cJSON_AddNumberToObject(out, "bufferView", v);
    cJSON_AddStringToObject(out, "mimeType", type);
    return s->image_map[index] = append(s, "images", out);
}

static int copy_texture(source *s, size_t index)
{
    if (s->texture_map[index] >= 0) return s->texture_map[index];
    char what[48];
    snprintf(what, sizeof what, "textures[%zu]", index);
    const cJSON *texture = cJSON_GetArrayItem(s->textures, (int)index);
    size_t sampler, image;
    if (!cJSON_IsObject(texture)) return fail(s, "%s: expected an object", what), -1;
    if (!optional_index(s, texture, "sampler", s->sampler_count, what, &sampler) ||
        !optional_index(s, texture, "source", s->image_count, what, &image))
        return -1;
    cJSON *out = cJSON_CreateObject();
    if (sampler != SIZE_MAX) {
        if (s->sampler_map[sampler] < 0) {
            cJSON *copy = cJSON_Duplicate(cJSON_GetArrayItem(s->samplers, (int)sampler), true);
            cJSON_DeleteItemFromObjectCaseSensitive(copy, "extensions");
            s->sampler_map[sampler] = append(s, "samplers", copy);
        }
        cJSON_AddNumberToObject(out, "sampler", s->sampler_map[sampler]);
    }
    const int copied = image != SIZE_MAX ? copy_image(s, image) : -2;
    if (copied == -1) return cJSON_Delete(out), -1;
    if (copied >= 0) cJSON_AddNumberToObject(out, "source", copied);
    return s->texture_map[index] = append(s, "textures", out);
}

/* Points the texture info `key` of `object` at the texture's copy (its extensions dropped). */
static bool remap_texture_info(source *s, cJSON *object, const char *key, const char *what)
{
    cJSON *info = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!info) return true;
    cJSON *index = cJSON_GetObjectItemCaseSensitive(info, "index");
    size_t texture;
    if (!index_value(index, s->texture_count, &texture))
        return fail(s, "%s.%s.index: expected a texture index below %zu", what, key, s->texture_count);
    const int copy = copy_texture(s, texture);
    if (copy < 0) return false;
    cJSON_SetNumberValue(index, copy);
    cJSON_DeleteItemFromObjectCaseSensitive(info, "extensions");
    return true;
}

static int copy_material(source *s, size_t index)
{
    if (s->material_map[index] >= 0) return s->material_map[index];
    char what[48];
    snprintf(what, sizeof what, "materials[%zu]", index);
    cJSON *m = cJSON_Duplicate(cJSON_GetArrayItem(s->materials, (int)index), true);
    if (!cJSON_IsObject(m)) return cJSON_Delete(m), fail(s, "%s: expected an object", what), -1;
    /* Material extensions (clearcoat, transmission, ...) are not copied: they name textures of
     * their own and need extensionsUsed. */
    cJSON_DeleteItemFromObjectCaseSensitive(m, "extensions");
    cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
    if (!remap_texture_info(s, pbr, "baseColorTexture", what) ||
        !remap_texture_info(s, pbr, "metallicRoughnessTexture", what) ||
        !remap_texture_info(s, m, "normalTexture", what) || !remap_texture_info(s, m, "occlusionTexture", what) ||
        !remap_texture_info(s, m, "emissiveTexture", what))
        return cJSON_Delete(m), -1;
    return s->material_map[index] = append(s, "materials", m);
}

/* ---- meshes, skins, nodes ---- */

static int copy_mesh(source *s, size_t index)
{
    char what[64];
    snprintf(what, sizeof what, "meshes[%zu]", index);
    cJSON *mesh = cJSON_Duplicate(cJSON_GetArrayItem(s->meshes, (int)index), true);
    cJSON *primitives = cJSON_GetObjectItemCaseSensitive(mesh, "primitives"), *p;
    if (!cJSON_IsArray(primitives) || !cJSON_GetArraySize(primitives))
        return cJSON_Delete(mesh), fail(s, "%s.primitives: expected a non-empty array", what), -1;
    cJSON_DeleteItemFromObjectCaseSensitive(mesh, "extensions");
    size_t k = 0;
    cJSON_ArrayForEach(p, primitives)
    {
        snprintf(what, sizeof what, "meshes[%zu].primitives[%zu]", index, k++);
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extensions");
        if (cJSON_GetObjectItemCaseSensitive(ext, "KHR_draco_mesh_compression"))
            return cJSON_Delete(mesh), fail(s, "%s: Draco compressed, which ossa export does not copy", what), -1;
        cJSON_DeleteItemFromObjectCaseSensitive(p, "extensions");
        cJSON *attributes = cJSON_GetObjectItemCaseSensitive(p, "attributes"), *target;
        if (!cJSON_IsObject(attributes) || !remap_accessors(s, attributes, what)) {
            if (!cJSON_IsObject(attributes)) fail(s, "%s.attributes: expected an object", what);
            return cJSON_Delete(mesh), -1;
        }
        cJSON *indices = cJSON_GetObjectItemCaseSensitive(p, "indices");
        size_t i;
        if (indices) {
            const int copy = index_value(indices, s->accessor_count, &i) ? copy_accessor(s, i, false, false) : -2;
            if (copy == -2) fail(s, "%s.indices: expected an accessor index below %zu", what, s->accessor_count);
            if (copy < 0) return cJSON_Delete(mesh), -1;
            cJSON_SetNumberValue(indices, copy);
        }
        cJSON_ArrayForEach(target, cJSON_GetObjectItemCaseSensitive(p, "targets"))
        {
            if (!remap_accessors(s, target, what)) return cJSON_Delete(mesh), -1;
        }
        cJSON *material = cJSON_GetObjectItemCaseSensitive(p, "material");
        if (material) {
            const int copy = index_value(material, s->material_count, &i) ? copy_material(s, i) : -2;
            if (copy == -2) fail(s, "%s.material: expected a material index below %zu", what, s->material_count);
            if (copy < 0) return cJSON_Delete(mesh), -1;
            cJSON_SetNumberValue(material, copy);
        }
    }
    return append(s, "meshes", mesh);
}

/* Node `index`'s name as ossa's glTF importer gives it to a joint: its name, or "nodes[<i>]". */
static const char *node_name(const source *s, size_t index, char *fallback, size_t size)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(s->nodes, (int)index), "name");
    if (cJSON_IsString(name)) return name->valuestring;
    snprintf(fallback, size, "nodes[%zu]", index);
    return fallback;
}

/* Skin `index` with its joints bound by name to the skeleton's nodes; `covered` marks them. */
static int copy_skin(source *s, size_t index, const ossa_skeleton *skel, bool *covered)
{
    char what[48], fallback[48];
    snprintf(what, sizeof what, "skins[%zu]", index);
    const cJSON *skin = cJSON_GetArrayItem(s->skins, (int)index);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints"), *e;
    if (!cJSON_IsArray(joints) || !cJSON_GetArraySize(joints))
        return fail(s, "%s.joints: expected a non-empty array of node indices", what), -1;
    cJSON *out = cJSON_CreateObject(), *mapped = cJSON_CreateArray();
    cJSON_AddItemToObject(out, "joints", mapped);
    size_t k = 0;
    cJSON_ArrayForEach(e, joints)
    {
        size_t node;
        if (!index_value(e, s->node_count, &node))
            return cJSON_Delete(out),
                   fail(s, "%s.joints[%zu]: expected a node index below %zu", what, k, s->node_count), -1;
        const char *name = node_name(s, node, fallback, sizeof fallback);
        const int j = ossa_skeleton_find_joint(skel, name);
        if (j < 0)
            return cJSON_Delete(out),
                   fail(s, "%s.joints[%zu]: joint \"%s\" is not in the archive's skeleton (nothing written)", what, k,
                        name),
                   -1;
        covered[j] = true;
        cJSON_AddItemToArray(mapped, cJSON_CreateNumber(j));
        ++k;
    }
    size_t matrices;
    if (!optional_index(s, skin, "inverseBindMatrices", s->accessor_count, what, &matrices))
        return cJSON_Delete(out), -1;
    if (matrices != SIZE_MAX) {
        const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)matrices);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type"),
                    *count = cJSON_GetObjectItemCaseSensitive(a, "count");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "MAT4") ||
            !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "componentType")) ||
            cJSON_GetObjectItemCaseSensitive(a, "componentType")->valueint != 5126 || !cJSON_IsNumber(count) ||
            count->valuedouble < (double)k)
            return cJSON_Delete(out),
                   fail(s, "%s.inverseBindMatrices: expected a FLOAT MAT4 accessor of at least %zu matrices", what, k),
                   -1;
        const int copy = copy_accessor(s, matrices, false, true);
        if (copy < 0) return cJSON_Delete(out), -1;
        cJSON_AddNumberToObject(out, "inverseBindMatrices", copy);
    }
    size_t root;
    if (!optional_index(s, skin, "skeleton", s->node_count, what, &root)) return cJSON_Delete(out), -1;
    const int root_joint =
        root == SIZE_MAX ? -1 : ossa_skeleton_find_joint(skel, node_name(s, root, fallback, sizeof fallback));
    if (root_joint >= 0) cJSON_AddNumberToObject(out, "skeleton", root_joint);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(skin, "name");
    if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
    return append(s, "skins", out);
}

/* Node `index`'s local transform, column-major (its matrix, or T x R x S). */
static void local_matrix(const cJSON *node, double m[16])
{
    const cJSON *matrix = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    for (int i = 0; i < 16; ++i) m[i] = i % 5 == 0;
    if (cJSON_IsArray(matrix) && cJSON_GetArraySize(matrix) == 16) {
        for (int i = 0; i < 16; ++i) {
            const cJSON *v = cJSON_GetArrayItem(matrix, i);
            m[i] = cJSON_IsNumber(v) ? v->valuedouble : 0.;
        }
        return;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(node, "translation"),
                *ro = cJSON_GetObjectItemCaseSensitive(node, "rotation"),
                *sa = cJSON_GetObjectItemCaseSensitive(node, "scale");
    for (int i = 0; i < 4; ++i) {
        const cJSON *a = cJSON_GetArrayItem(tr, i), *b = cJSON_GetArrayItem(ro, i), *c = cJSON_GetArrayItem(sa, i);
        if (i < 3 && cJSON_IsNumber(a)) t[i] = a->valuedouble;
        if (cJSON_IsNumber(b)) q[i] = b->valuedouble;
        if (i < 3 && cJSON_IsNumber(c)) sc[i] = c->valuedouble;
    }
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) m[c * 4 + k] = r[c * 3 + k] * sc[c];
    for (int k = 0; k < 3; ++k) m[12 + k] = t[k];
}

/* The world transform of source node `index` (parents[] from the children lists). */
static void world_matrix(const source *s, const size_t *parents, size_t index, double m[16])
{
    local_matrix(cJSON_GetArrayItem(s->nodes, (int)index), m);
    for (size_t p = parents[index], depth = 0; p != SIZE_MAX && depth < s->node_count; p = parents[p], ++depth) {
        double parent[16], product[16];
        local_matrix(cJSON_GetArrayItem(s->nodes, (int)p), parent);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) {
                double sum = 0.;
                for (int k = 0; k < 4; ++k) sum += parent[k * 4 + r] * m[c * 4 + k];
                product[c * 4 + r] = sum;
            }
        memcpy(m, product, sizeof product);
    }
}

/* Every node with a mesh: a node at the scene's root with the mesh's copy and its skin's. */
static bool copy_nodes(source *s, const ossa_skeleton *skel, cJSON *nodes, cJSON *scene_nodes, bool *covered)
{
    size_t *parents = malloc((s->node_count + 1) * sizeof *parents);
    int *mesh_map = malloc((s->mesh_count + 1) * sizeof *mesh_map),
        *skin_map = malloc((s->skin_count + 1) * sizeof *skin_map);
    bool ok = parents && mesh_map && skin_map;
    if (!ok) fail(s, "out of memory");
    for (size_t i = 0; ok && i < s->node_count; ++i) parents[i] = SIZE_MAX;
    for (size_t i = 0; ok && i < s->mesh_count; ++i) mesh_map[i] = -1;
    for (size_t i = 0; ok && i < s->skin_count; ++i) skin_map[i] = -1;
    size_t i = 0, copied = 0;
    for (const cJSON *n = s->nodes ? s->nodes->child : NULL; ok && n; n = n->next, ++i) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children"))
        {
            size_t child;
            ok = ok && index_value(c, s->node_count, &child) && child != i && parents[child] == SIZE_MAX;
            if (ok) parents[child] = i;
        }
        if (!ok) fail(s, "nodes[%zu].children: expected indices of other nodes without a parent", i);
    }
    /* A cycle: some node is its own ancestor within node_count steps. */
    for (i = 0; ok && i < s->node_count; ++i) {
        size_t p = parents[i], depth = 0;
        while (p != SIZE_MAX && depth++ <= s->node_count) p = parents[p];
        if (p != SIZE_MAX) ok = fail(s, "nodes[%zu]: its parents form a cycle", i);
    }
    i = 0;
    for (const cJSON *n = s->nodes ? s->nodes->child : NULL; ok && n; n = n->next, ++i) {
        char what[48];
        snprintf(what, sizeof what, "nodes[%zu]", i);
        size_t mesh, skin;
        ok = optional_index(s, n, "mesh", s->mesh_count, what, &mesh) &&
             optional_index(s, n, "skin", s->skin_count, what, &skin);
        if (!ok || mesh == SIZE_MAX) continue;
        if (mesh_map[mesh] < 0) mesh_map[mesh] = copy_mesh(s, mesh);
        ok = mesh_map[mesh] >= 0;
        if (ok && skin != SIZE_MAX && skin_map[skin] < 0) skin_map[skin] = copy_skin(s, skin, skel, covered);
        ok = ok && (skin == SIZE_MAX || skin_map[skin] >= 0);
        if (!ok) break;
        cJSON *out = cJSON_CreateObject();
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(n, "name"),
                    *weights = cJSON_GetObjectItemCaseSensitive(n, "weights");
        if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
        cJSON_AddNumberToObject(out, "mesh", mesh_map[mesh]);
        if (skin != SIZE_MAX) {
            cJSON_AddNumberToObject(out, "skin", skin_map[skin]);
        } else {
            double m[16];
            world_matrix(s, parents, i, m);
            bool identity = true;
            float f[16];
            for (int k = 0; k < 16; ++k) f[k] = (float)m[k], identity = identity && f[k] == (float)(k % 5 == 0);
            cJSON *matrix = cJSON_CreateArray();
            for (int k = 0; k < 16; ++k) {
                char text[32];
                tool_format_float(text, sizeof text, f[k]);
                cJSON_AddItemToArray(matrix, cJSON_CreateRaw(text));
            }
            if (identity)
                cJSON_Delete(matrix);
            else
                cJSON_AddItemToObject(out, "matrix", matrix);
        }
        if (cJSON_IsArray(weights)) cJSON_AddItemToObject(out, "weights", cJSON_Duplicate(weights, true));
        cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber((double)cJSON_GetArraySize(nodes)));
        cJSON_AddItemToArray(nodes, out);
        ++copied;
    }
    if (ok && !copied) ok = fail(s, "no node with a mesh to copy");
    free(parents), free(mesh_map), free(skin_map);
    return ok;
}

bool tool_export_meshes(const char *path, const ossa_skeleton *skel, cJSON *root, cJSON *nodes, cJSON *scene_nodes,
                        tool_glb *g, bool *covered)
{
    source s = {.path = path, .g = g, .out_root = root, .attribute_view = -1, .index_view = -1};
    snprintf(s.dir, sizeof s.dir, "%s", path);
    char *slash = strrchr(s.dir, '/');
    if (slash)
        slash[slash == s.dir] = '\0';
    else
        snprintf(s.dir, sizeof s.dir, ".");
    size_t size = 0;
    uint8_t *data = tool_read_file(path, &size);
    bool ok = data && parse(&s, data, size);
    const size_t counts[5] = {s.accessor_count, s.material_count, s.texture_count, s.sampler_count, s.image_count};
    int **maps[5] = {&s.accessor_map, &s.material_map, &s.texture_map, &s.sampler_map, &s.image_map};
    for (int m = 0; ok && m < 5; ++m) {
        *maps[m] = malloc((counts[m] + 1) * sizeof **maps[m]);
        if (!*maps[m]) ok = fail(&s, "out of memory");
        for (size_t i = 0; ok && i < counts[m]; ++i) (*maps[m])[i] = -1;
    }
    ok = ok && copy_nodes(&s, skel, nodes, scene_nodes, covered);
    for (int m = 0; m < 5; ++m) free(*maps[m]);
    for (size_t i = 0; s.buffers && i < s.buffer_count; ++i) free(s.buffers[i].owned);
    free(s.buffers), free(data);
    cJSON_Delete(s.root);
    return ok;
}

#endif
