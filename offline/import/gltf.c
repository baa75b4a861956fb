/* glTF 2.0 importer: the container (GLB or JSON text), the JSON document and its checked
 * property readers, the entry point. Buffers and accessors are read in gltf_data.c; the scene
 * (skeleton, animations, weights) is converted in gltf_scene.c and gltf_anim.c.
 * Source: glTF 2.0 specification, sections 3.2 (asset), 3.12 (extensions) and 4 (GLB). */
#include "import_internal.h"
#include "ossa/offline/import_gltf.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

#include "gltf_internal.h"

/* 1-based line and column of `offset` in `text`. */
static void line_column(const char *text, size_t offset, uint32_t *line, uint32_t *column)
{
    size_t l = 1, c = 1;
    for (size_t i = 0; i < offset; ++i) {
        if (text[i] == '\n')
            ++l, c = 1;
        else if (((unsigned char)text[i] & 0xC0) != 0x80)
            ++c;
    }
    *line = (uint32_t)(l < UINT32_MAX ? l : UINT32_MAX);
    *column = (uint32_t)(c < UINT32_MAX ? c : UINT32_MAX);
}

/* ---- where a JSON path is in the text ---- */

/* cJSON skips every byte up to 32 between tokens (a NUL too); so does this scan. */
static size_t skip_space(const char *t, size_t n, size_t i)
{
    while (i < n && (unsigned char)t[i] <= 32) ++i;
    return i;
}

/* The index after the JSON value at t[i] (the text was accepted by cJSON, so it is valid). */
static size_t skip_value(const char *t, size_t n, size_t i)
{
    size_t depth = 0;
    do {
        if (i >= n) return n;
        if (t[i] == '"') {
            for (++i; i < n && t[i] != '"'; ++i)
                if (t[i] == '\\') ++i;
            ++i;
        } else if (t[i] == '{' || t[i] == '[') {
            ++depth, ++i;
        } else if (t[i] == '}' || t[i] == ']') {
            --depth, ++i;
        } else if (depth && (t[i] == ',' || t[i] == ':' || (unsigned char)t[i] <= 32)) {
            ++i;
        } else {
            /* A number or literal: at least one byte, so the scan always moves. */
            do ++i;
            while (i < n && (unsigned char)t[i] > 32 && !strchr(",:]}", t[i]));
        }
    } while (depth);
    return i;
}

/* The offset of the value at the JSON path that starts `message` ("accessors[3].count: ..."),
 * or of the deepest part of it found; false when not even its first part is a member. */
static bool locate_path(const char *t, size_t n, const char *message, size_t *offset)
{
    size_t i = skip_space(t, n, n >= 3 && !memcmp(t, "\xEF\xBB\xBF", 3) ? 3 : 0);
    const char *p = message;
    bool found = false;
    while (*p && i < n) {
        if (*p == '[') {
            char *after;
            unsigned long k = strtoul(p + 1, &after, 10);
            if (after == p + 1 || *after != ']' || t[i] != '[') break;
            i = skip_space(t, n, i + 1);
            for (; k && i < n && t[i] != ']'; --k) i = skip_space(t, n, skip_space(t, n, skip_value(t, n, i)) + 1);
            if (k || i >= n || t[i] == ']') break;
            p = after + 1;
        } else {
            if (*p == '.') ++p;
            const size_t len = strcspn(p, ".[:( ");
            if (!len || t[i] != '{') break;
            size_t at = skip_space(t, n, i + 1), value = SIZE_MAX;
            while (at < n && t[at] == '"' && value == SIZE_MAX) {
                const size_t key_end = skip_value(t, n, at);
                const size_t colon = skip_space(t, n, key_end);
                const size_t start = skip_space(t, n, colon + 1);
                if (key_end - at == len + 2 && !memcmp(t + at + 1, p, len)) value = start;
                at = skip_space(t, n, skip_value(t, n, start));
                if (at < n && t[at] == ',') at = skip_space(t, n, at + 1);
            }
            if (value == SIZE_MAX) break;
            i = value;
            p += len;
        }
        found = true;
        *offset = i;
        if (*p != '.' && *p != '[') break;
    }
    return found;
}

ossa_result ossa__gltf_fail(ossa__gltf *g, ossa_result code, size_t offset, const char *fmt, ...)
{
    if (!g->diag || g->diag->code != OSSA_OK) return code;
    char text[sizeof g->diag->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    uint32_t line = 0, column = 0;
    size_t at;
    if (offset == SIZE_MAX && g->json && locate_path(g->json, g->json_size, text, &at)) {
        offset = g->json_offset + at;
        if (g->json_is_file) line_column(g->json, at, &line, &column);
    }
    return ossa_diag_set(g->diag, code, offset, line, column, "%s", text);
}

ossa_result ossa__gltf_array(ossa__gltf *g, const cJSON *object, const char *key, const char *path, const cJSON **array,
                             size_t *count)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *array = NULL;
    *count = 0;
    if (!v) return OSSA_OK;
    if (!cJSON_IsArray(v))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s%s%s: expected an array, found %s", path,
                               *path ? "." : "", key, ossa__json_kind(v));
    *array = v;
    for (const cJSON *e = v->child; e; e = e->next) ++*count;
    return OSSA_OK;
}

ossa_result ossa__gltf_index_value(ossa__gltf *g, const cJSON *v, const char *path, size_t limit, const char *target,
                                   size_t *value)
{
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                               "%s: expected an index (an integer >= 0), found %s%s%.17g", path, ossa__json_kind(v),
                               cJSON_IsNumber(v) ? " " : "", cJSON_IsNumber(v) ? v->valuedouble : 0.0);
    if (v->valuedouble >= (double)limit)
        return ossa__gltf_fail(g, OSSA_ERROR_CORRUPT, SIZE_MAX, "%s: %s %.17g does not exist (the file has %zu)", path,
                               target, v->valuedouble, limit);
    *value = (size_t)v->valuedouble;
    return OSSA_OK;
}

ossa_result ossa__gltf_index(ossa__gltf *g, const cJSON *object, const char *key, const char *path, size_t limit,
                             const char *target, bool required, size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    char where[160];
    snprintf(where, sizeof where, "%s.%s", path, key);
    *value = SIZE_MAX;
    if (!v) {
        if (!required) return OSSA_OK;
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s: expected the index of a %s, found nothing", where,
                               target);
    }
    return ossa__gltf_index_value(g, v, where, limit, target, value);
}

ossa_result ossa__gltf_size(ossa__gltf *g, const cJSON *object, const char *key, const char *path, size_t fallback,
                            size_t *value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = fallback;
    if (!v) return OSSA_OK;
    /* 2^53: every integer below is exact in a double, and any byte count beyond is absurd. */
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) || v->valuedouble != floor(v->valuedouble) ||
        v->valuedouble >= 9007199254740992.0 || v->valuedouble > (double)SIZE_MAX)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.%s: expected an integer >= 0, found %s%s%.17g", path,
                               key, ossa__json_kind(v), cJSON_IsNumber(v) ? " " : "",
                               cJSON_IsNumber(v) ? v->valuedouble : 0.0);
    *value = (size_t)v->valuedouble;
    return OSSA_OK;
}

ossa_result ossa__gltf_string(ossa__gltf *g, const cJSON *object, const char *key, const char *path, const char **value)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *value = NULL;
    if (!v) return OSSA_OK;
    if (!cJSON_IsString(v) || !v->valuestring)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "%s.%s: expected a string, found %s", path, key,
                               ossa__json_kind(v));
    *value = v->valuestring;
    return OSSA_OK;
}

const cJSON *ossa__gltf_element(const cJSON *array, size_t index)
{
    const cJSON *e = array ? array->child : NULL;
    while (e && index--) e = e->next;
    return e;
}

/* ---- container and document ---- */

static uint32_t u32_at(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The JSON text of a GLB (spec section 4): header, then chunks of (length, type, data). */
static ossa_result open_glb(ossa__gltf *g, const uint8_t *data, size_t size, const char **json, size_t *json_size,
                            size_t *json_offset)
{
    if (size < 12)
        return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, size, "GLB header: expected 12 bytes, found %zu", size);
    const uint32_t version = u32_at(data + 4), length = u32_at(data + 8);
    if (version != 2)
        return ossa__gltf_fail(g, OSSA_ERROR_UNSUPPORTED_VERSION, 4, "GLB header: expected version 2, found %u",
                               (unsigned)version);
    if (length > size)
        return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, size, "GLB header: declares %u bytes, the data holds %zu",
                               (unsigned)length, size);
    if (length < 20)
        return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, 8, "GLB header: declares %u bytes, too few for a JSON chunk",
                               (unsigned)length);
    size_t at = 12, chunk = 0;
    *json = NULL;
    while (at < length) {
        if (length - at < 8)
            return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, at,
                                   "GLB chunk %zu: expected an 8-byte chunk header, %zu bytes remain", chunk,
                                   (size_t)length - at);
        const uint32_t clen = u32_at(data + at), ctype = u32_at(data + at + 4);
        if (clen > length - at - 8)
            return ossa__gltf_fail(g, OSSA_ERROR_TRUNCATED, at,
                                   "GLB chunk %zu: declares %u bytes, %zu remain in the file", chunk, (unsigned)clen,
                                   (size_t)length - at - 8);
        if (chunk == 0) {
            if (ctype != 0x4E4F534Au)
                return ossa__gltf_fail(g, OSSA_ERROR_BAD_MAGIC, at + 4, "GLB chunk 0: expected type JSON, found 0x%08x",
                                       (unsigned)ctype);
            *json = (const char *)data + at + 8, *json_size = clen, *json_offset = at + 8;
        } else if (chunk == 1 && ctype == 0x004E4942u) {
            g->bin = data + at + 8, g->bin_size = clen, g->bin_offset = at + 8;
        }
        /* Other chunk types are skipped (spec section 4); chunks are 4-byte aligned. */
        at += 8 + (size_t)clen;
        at += (4 - at % 4) % 4;
        ++chunk;
    }
    return OSSA_OK;
}

static ossa_result parse_json(ossa__gltf *g, const char *json, size_t size, size_t base, bool text_file)
{
    size_t skip = 0;
    if (size >= 3 && !memcmp(json, "\xEF\xBB\xBF", 3)) skip = 3;
    const char *end = NULL;
    g->root = cJSON_ParseWithLengthOpts(json + skip, size - skip, &end, false);
    size_t at = end && end >= json + skip && end <= json + size ? (size_t)(end - json) : size;
    if (g->root)
        while (at < size && (json[at] == ' ' || json[at] == '\t' || json[at] == '\r' || json[at] == '\n' || !json[at]))
            ++at;
    if (!g->root || at < size) {
        uint32_t line = 0, column = 0;
        if (text_file) line_column(json, at, &line, &column);
        if (g->diag && g->diag->code == OSSA_OK)
            ossa_diag_set(g->diag, OSSA_ERROR_PARSE, base + at, line, column, "%s: expected JSON, found %s at byte %zu",
                          text_file ? "glTF" : "GLB JSON chunk", g->root ? "text after the document" : "a syntax error",
                          base + at);
        return OSSA_ERROR_PARSE;
    }
    g->json = json, g->json_size = size, g->json_offset = base, g->json_is_file = text_file;
    if (!cJSON_IsObject(g->root))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, base, "glTF: expected a JSON object, found %s",
                               ossa__json_kind(g->root));
    return OSSA_OK;
}

/* asset.version 2.x (minVersion at most 2.0), and required extensions this reader honours. */
static ossa_result check_asset(ossa__gltf *g)
{
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(g->root, "asset");
    if (!cJSON_IsObject(asset))
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "asset: expected an object with \"version\", found %s",
                               ossa__json_kind(asset));
    const char *version, *min_version;
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(asset, "version");
    if (cJSON_IsNumber(v)) /* glTF 1.0 files written as "version": 1 */
        return ossa__gltf_fail(
            g, OSSA_ERROR_UNSUPPORTED_VERSION, SIZE_MAX,
            "asset.version: expected glTF version \"2.x\", found the number %g (as in glTF 1.0 files)", v->valuedouble);
    ossa_result r = ossa__gltf_string(g, asset, "version", "asset", &version);
    if (!r) r = ossa__gltf_string(g, asset, "minVersion", "asset", &min_version);
    if (r) return r;
    if (!version)
        return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX, "asset.version: expected a string, found nothing");
    if (strncmp(version, "2.", 2) || (min_version && strcmp(min_version, "2.0")))
        return ossa__gltf_fail(g, OSSA_ERROR_UNSUPPORTED_VERSION, SIZE_MAX,
                               "asset: expected glTF version 2.x (minVersion 2.0), found version \"%.16s\"%s%.16s%s",
                               version, min_version ? " minVersion \"" : "", min_version ? min_version : "",
                               min_version ? "\"" : "");
    const cJSON *list;
    size_t n;
    if ((r = ossa__gltf_array(g, g->root, "extensionsUsed", "", &list, &n))) return r;
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next)
        if (cJSON_IsString(e) && !strcmp(e->valuestring, "KHR_mesh_quantization")) g->quantization = true;
    if ((r = ossa__gltf_array(g, g->root, "extensionsRequired", "", &list, &n))) return r;
    size_t i = 0;
    for (const cJSON *e = list ? list->child : NULL; e; e = e->next, ++i) {
        if (!cJSON_IsString(e))
            return ossa__gltf_fail(g, OSSA_ERROR_PARSE, SIZE_MAX,
                                   "extensionsRequired[%zu]: expected a string, found %s", i, ossa__json_kind(e));
        /* Extensions about what this reader drops (materials, textures, lights, mesh geometry). */
        static const char *const prefixes[] = {"KHR_materials_",  "KHR_texture_", "EXT_texture_",
                                               "KHR_draco_mesh_", "KHR_lights_",  "KHR_mesh_quantization"};
        bool known = false;
        for (size_t p = 0; p < sizeof prefixes / sizeof *prefixes && !known; ++p)
            known = !strncmp(e->valuestring, prefixes[p], strlen(prefixes[p]));
        if (!known)
            return ossa__gltf_fail(g, OSSA_ERROR_UNSUPPORTED_FORMAT, SIZE_MAX,
                                   "extensionsRequired[%zu]: the file requires \"%.60s\", which this reader does not "
                                   "support",
                                   i, e->valuestring);
    }
    return OSSA_OK;
}

/* The elements of the array `key` as pointers, for lookups by index. */
static ossa_result collect(ossa__gltf *g, const char *key, const cJSON ***items, size_t *count)
{
    const cJSON *array;
    ossa_result r = ossa__gltf_array(g, g->root, key, "", &array, count);
    if (r || !*count) return r;
    *items = ossa__calloc(g->a, *count, sizeof **items);
    if (!*items) return ossa__gltf_fail(g, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory for %zu %s", *count, key);
    size_t i = 0;
    for (const cJSON *e = array->child; e; e = e->next) (*items)[i++] = e;
    return OSSA_OK;
}

static ossa_result import_document(ossa__gltf *g, const uint8_t *data, size_t size, ossa_import_output *out)
{
    if (!data && size) return ossa__gltf_fail(g, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, "data is NULL");
    if (!size) return ossa__gltf_fail(g, OSSA_ERROR_PARSE, 0, "the input is empty: expected glTF JSON or a GLB file");
    const char *json = (const char *)data;
    size_t json_size = size, json_offset = 0;
    const bool glb = size >= 4 && !memcmp(data, "glTF", 4);
    ossa_result r;
    if (glb && (r = open_glb(g, data, size, &json, &json_size, &json_offset))) return r;
    if ((r = parse_json(g, json, json_size, json_offset, !glb))) return r;
    if ((r = check_asset(g))) return r;
    const cJSON *buffers;
    size_t buffer_count = 0;
    if ((r = ossa__gltf_array(g, g->root, "buffers", "", &buffers, &buffer_count))) return r;
    /* buffer_count is published only with its array: the caller's cleanup walks g->buffers up
     * to g->buffer_count whichever later check fails. */
    if (buffer_count) {
        g->buffers = ossa__calloc(g->a, buffer_count, sizeof *g->buffers);
        if (!g->buffers) return ossa__gltf_fail(g, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory");
        g->buffer_count = buffer_count;
    }
    if ((r = collect(g, "bufferViews", &g->views, &g->view_count)) ||
        (r = collect(g, "accessors", &g->accessors, &g->accessor_count)))
        return r;
    return ossa__gltf_convert(g, out);
}

ossa_result ossa_import_gltf(const void *data, size_t size, const ossa_gltf_desc *desc, ossa_import_output *out,
                             ossa_diag *diag)
{
    static const ossa_gltf_desc defaults = {0};
    if (!desc) desc = &defaults;
    ossa_result r = ossa__import_begin(out, data, size, desc->allocator, "glTF", diag);
    if (r != OSSA_OK) return r;
    ossa__gltf g = {.desc = desc, .a = &out->allocator, .diag = diag};
    g.keys_left = desc->max_keys ? desc->max_keys : (size_t)1 << 24;
    g.rate = desc->sample_rate == 0.f ? 60.f : desc->sample_rate;
    if (!(g.rate >= 1.f && g.rate <= 10000.f))
        r = ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                       "sample_rate: expected 0 or 1 to 10000 samples per second, found %g", (double)desc->sample_rate);
    else
        r = import_document(&g, data, size, out);
    for (size_t i = 0; i < g.buffer_count; ++i) {
        if (g.buffers[i].from_callback)
            free(g.buffers[i].owned);
        else
            ossa_free(g.a, g.buffers[i].owned);
    }
    ossa_free(g.a, g.buffers);
    ossa_free(g.a, (void *)g.views);
    ossa_free(g.a, (void *)g.accessors);
    cJSON_Delete(g.root);
    if (r != OSSA_OK && diag && diag->code == OSSA_OK) ossa__fail(diag, r, "glTF import failed");
    return ossa__import_end(out, r, diag);
}

#else /* no cJSON */

ossa_result ossa_import_gltf(const void *data, size_t size, const ossa_gltf_desc *desc, ossa_import_output *out,
                             ossa_diag *diag)
{
    const ossa_result r = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "glTF", diag);
    if (r != OSSA_OK) return r;
    return ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                      "this build of ossa has no glTF support (built without cJSON)");
}

#endif
