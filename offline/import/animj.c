/* Resonite AnimJ reader (JSON through cJSON). Schema: the Resonite wiki AnimJ page (seed
 * document) and FORMATS section 2.1. Positions: cJSON keeps none, so a second scan of the
 * accepted text records where each value starts, in the same pre-order cJSON builds its tree;
 * an error on a node is reported at that node's line and column. */
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "import_internal.h"
#include "../internal.h"
#include "resonite_common.h"

#ifdef OSSA_HAVE_CJSON
#include <cjson/cJSON.h>

#include "json_kind.h"

typedef struct json {
    const uint8_t *text; /* the original input (offsets include a skipped BOM) */
    size_t size, skip;   /* skip: BOM bytes before the JSON text */
    size_t *starts;      /* value start offsets in pre-order, relative to text + skip */
    const cJSON **nodes; /* the cJSON nodes in pre-order */
    size_t count;
    const ossa_allocator *a;
    ossa_diag *diag;
    const ossa__res_settings *s;
    size_t total_keys;       /* keyframes decoded so far (ossa__res_key_budget) */
    size_t cursor;           /* where offset_of found the previous node */
    size_t at, line, column; /* where locate stopped last */
} json;

/* 1-based line and column (in characters, a BOM not counted) of byte `offset` of the
 * input. Continues from the previous call when the offset is further on (tracks are located
 * in document order), so locating every track stays linear in the input size. */
static void locate(json *j, size_t offset, uint32_t *line, uint32_t *column)
{
    if (offset > j->size) offset = j->size;
    if (j->line == 0 || offset < j->at) j->at = j->skip, j->line = 1, j->column = 1;
    for (; j->at < offset; ++j->at) {
        if (j->text[j->at] == '\n')
            ++j->line, j->column = 1;
        else if ((j->text[j->at] & 0xC0) != 0x80)
            ++j->column;
    }
    *line = (uint32_t)(j->line < UINT32_MAX ? j->line : UINT32_MAX);
    *column = (uint32_t)(j->column < UINT32_MAX ? j->column : UINT32_MAX);
}

/* The node's offset in the input; the search resumes where the previous one ended. */
static size_t offset_of(json *j, const cJSON *node)
{
    for (size_t n = 0; node && n < j->count; ++n) {
        const size_t i = (j->cursor + n) % j->count;
        if (j->nodes[i] == node) {
            j->cursor = i;
            return j->skip + j->starts[i];
        }
    }
    return j->skip;
}

OSSA_PRINTF_FORMAT(4, 5)
static ossa_result
fail(json *j, const cJSON *node, ossa_result code, const char *fmt, ...)
{
    if (!j->diag || j->diag->code != OSSA_OK) return code;
    char text[sizeof j->diag->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    const size_t offset = offset_of(j, node);
    uint32_t line, column;
    locate(j, offset, &line, &column);
    return ossa_diag_set(j->diag, code, offset, line, column, "%s", text);
}

#define TRY(expr)                                                                                                      \
    do {                                                                                                               \
        ossa_result try_result_ = (expr);                                                                              \
        if (try_result_ != OSSA_OK) return try_result_;                                                                \
    } while (0)

/* Skips a JSON string starting at text[i] == '"'; returns the index after the closing quote. */
static size_t skip_string(const char *text, size_t size, size_t i)
{
    for (++i; i < size && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
    return i + 1;
}

/* Records the start of every value of the (already accepted) JSON text in pre-order. */
static ossa_result scan_starts(json *j, const char *text, size_t size)
{
    size_t cap = 0;
    char stack[CJSON_NESTING_LIMIT + 2];
    size_t depth = 0, i = 0;
    bool want_value = true;
    j->count = 0;
    while (i < size) {
        const char ch = text[i];
        if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\0') {
            ++i;
            continue;
        }
        if (want_value && ch == ']') { /* "[]": no value in this array */
            if (depth) --depth;
            ++i;
            want_value = false;
            continue;
        }
        if (want_value) {
            if (!ossa__grow(j->a, (void **)&j->starts, &cap, j->count + 1, sizeof *j->starts))
                return OSSA_ERROR_OUT_OF_MEMORY;
            j->starts[j->count++] = i;
            want_value = false;
            if (ch == '{' || ch == '[') {
                if (depth == sizeof stack) return OSSA_ERROR_PARSE;
                stack[depth++] = ch;
                ++i;
                want_value = ch == '[';
                continue;
            }
            if (ch == '"') {
                i = skip_string(text, size, i);
                continue;
            }
            while (i < size && !strchr(",]} \t\r\n", text[i])) ++i;
            continue;
        }
        if (ch == ']' || ch == '}') {
            if (depth) --depth;
            ++i;
        } else if (ch == ',') {
            want_value = depth && stack[depth - 1] == '[';
            ++i;
        } else if (ch == '"') { /* an object key, then ':' */
            i = skip_string(text, size, i);
            while (i < size && text[i] != ':') ++i;
            ++i;
            want_value = true;
        } else {
            ++i;
        }
    }
    return OSSA_OK;
}

static void collect_nodes(json *j, const cJSON *node, size_t *n)
{
    for (; node; node = node->next) {
        if (*n < j->count) j->nodes[*n] = node;
        ++*n;
        collect_nodes(j, node->child, n);
    }
}

static bool is_word(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Bare True/False (the wiki's examples) become true/false; same length, so offsets hold. */
static void lower_literals(char *text, size_t size)
{
    bool in_string = false;
    for (size_t i = 0; i < size; ++i) {
        const char ch = text[i];
        if (in_string) {
            if (ch == '\\')
                ++i;
            else if (ch == '"')
                in_string = false;
            continue;
        }
        if (ch == '"') {
            in_string = true;
            continue;
        }
        if (i > 0 && is_word(text[i - 1])) continue;
        size_t len = 0;
        if (size - i >= 4 && !memcmp(text + i, "True", 4))
            len = 4;
        else if (size - i >= 5 && !memcmp(text + i, "False", 5))
            len = 5;
        if (len && (i + len == size || !is_word(text[i + len]))) text[i] = (char)(text[i] | 0x20);
    }
}

static ossa_result get_number(json *j, const cJSON *v, const char *what, double *out)
{
    if (!cJSON_IsNumber(v))
        return fail(j, v, OSSA_ERROR_PARSE, "expected a number for %s, found %s", what, ossa__json_kind(v));
    if (!isfinite(v->valuedouble) || fabs(v->valuedouble) > (double)FLT_MAX)
        return fail(j, v, OSSA_ERROR_INVALID_KEY, "%s %g is beyond the float range", what, v->valuedouble);
    /* Resonite keeps times, intervals and durations as float (AnimX stores float32). */
    *out = (double)(float)v->valuedouble;
    return OSSA_OK;
}

static ossa_result get_string(json *j, const cJSON *v, const char *what, char **out)
{
    const char *s = "";
    if (v && !cJSON_IsNull(v)) {
        if (!cJSON_IsString(v))
            return fail(j, v, OSSA_ERROR_PARSE, "expected a string for %s, found %s", what, ossa__json_kind(v));
        s = v->valuestring;
    }
    *out = ossa_strdup(j->a, s);
    return *out ? OSSA_OK : fail(j, v, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
}

/* Reads an integer-typed number from its text: cJSON keeps only a double, which cannot hold
 * 2^64 - 1 or 2^63 - 1 (they round to the excluded powers of two). A plain "-?digits"
 * literal is range-checked exactly; one with a fraction or an exponent goes through the
 * double check (exact for every double). */
static ossa_result integer_value(json *j, const cJSON *item, const ossa__res_type *type, size_t c, double *out)
{
    const size_t at = offset_of(j, item);
    const uint8_t *p = j->text + at, *end = j->text + j->size;
    const bool negative = p < end && *p == '-';
    if (negative) ++p;
    const uint8_t *digits = p;
    uint64_t magnitude = 0;
    bool overflow = false;
    for (; p < end && *p >= '0' && *p <= '9'; ++p) {
        const unsigned d = (unsigned)(*p - '0');
        if (magnitude > (UINT64_MAX - d) / 10) overflow = true;
        magnitude = magnitude * 10 + d;
    }
    const bool plain = p > digits && (p == end || (*p != '.' && *p != 'e' && *p != 'E'));
    const char *bad;
    if (plain) {
        bad = overflow ? "is out of the type's range" : ossa__res_check_integer(type, negative, magnitude);
        *out = negative ? -(double)magnitude : (double)magnitude;
    } else {
        *out = item->valuedouble;
        bad = ossa__res_check_component(type, *out);
    }
    if (!bad) return OSSA_OK;
    if (!plain) return fail(j, item, OSSA_ERROR_INVALID_KEY, "%s component %zu (%g) %s", type->name, c, *out, bad);
    const size_t length = (size_t)(p - (j->text + at));
    return fail(j, item, OSSA_ERROR_INVALID_KEY, "%s component %zu (%.*s%s) %s", type->name, c,
                (int)(length < 40 ? length : 40), (const char *)(j->text + at), length > 40 ? "..." : "", bad);
}

static ossa_result parse_value(json *j, const cJSON *v, const ossa__res_type *type, double *dst, char **str)
{
    if (type->kind == OSSA__RES_KIND_STRING) {
        if (cJSON_IsNull(v)) return OSSA_OK;
        if (!cJSON_IsString(v))
            return fail(j, v, OSSA_ERROR_PARSE, "expected a string or null for a string value, found %s",
                        ossa__json_kind(v));
        if (!str) return OSSA_OK;
        *str = ossa_strdup(j->a, v->valuestring);
        return *str ? OSSA_OK : fail(j, v, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    static const char *const xyzw[] = {"x", "y", "z", "w"}, *const rgba[] = {"r", "g", "b", "a"};
    const char *const *names = (type->flags & OSSA__RES_COLOR) ? rgba : xyzw;
    if (type->components > 1 && !cJSON_IsObject(v))
        return fail(j, v, OSSA_ERROR_PARSE, "expected an object with members %s for a %s value, found %s",
                    names == rgba ? "r, g, b, a" : "x, y, z(, w)", type->name, ossa__json_kind(v));
    for (size_t c = 0; c < type->components; ++c) {
        const cJSON *item = type->components > 1 ? cJSON_GetObjectItem(v, names[c]) : v;
        if (!item) return fail(j, v, OSSA_ERROR_PARSE, "the %s value has no member \"%s\"", type->name, names[c]);
        double d;
        if (type->kind == OSSA__RES_KIND_BOOL) {
            if (!cJSON_IsBool(item))
                return fail(j, item, OSSA_ERROR_PARSE, "expected true or false in a %s value, found %s", type->name,
                            ossa__json_kind(item));
            d = cJSON_IsTrue(item) ? 1.0 : 0.0;
        } else {
            if (!cJSON_IsNumber(item))
                return fail(j, item, OSSA_ERROR_PARSE, "expected a number in a %s value, found %s", type->name,
                            ossa__json_kind(item));
            d = item->valuedouble;
        }
        if (type->kind == OSSA__RES_KIND_INT || type->kind == OSSA__RES_KIND_UINT) {
            TRY(integer_value(j, item, type, c, &d));
            dst[c] = d;
            continue;
        }
        const char *bad = ossa__res_check_component(type, d);
        if (bad) return fail(j, item, OSSA_ERROR_INVALID_KEY, "%s component %zu (%g) %s", type->name, c, d, bad);
        /* float-typed components are float in Resonite, as in AnimX. */
        dst[c] = type->kind == OSSA__RES_KIND_FLOAT ? (double)(float)d : d;
    }
    return OSSA_OK;
}

static ossa_result parse_keys(json *j, const cJSON *keys, ossa__res_track *t, const ossa__res_type *type)
{
    const size_t comps = type->components;
    size_t k = 0;
    for (const cJSON *key = keys ? keys->child : NULL; key; key = key->next, ++k) {
        double *dst = t->values ? t->values + k * comps : NULL;
        char **str = t->strings ? &t->strings[k] : NULL;
        if (t->track_type == OSSA__RES_RAW) {
            TRY(parse_value(j, key, type, dst, str));
            continue;
        }
        if (!cJSON_IsObject(key))
            return fail(j, key, OSSA_ERROR_PARSE, "expected a keyframe object {time, value%s}, found %s",
                        t->track_type == OSSA__RES_CURVE ? ", interpolation" : "", ossa__json_kind(key));
        const cJSON *time = cJSON_GetObjectItem(key, "time"), *value = cJSON_GetObjectItem(key, "value");
        if (!time) return fail(j, key, OSSA_ERROR_PARSE, "keyframe %zu has no \"time\"", k);
        if (!value) return fail(j, key, OSSA_ERROR_PARSE, "keyframe %zu has no \"value\"", k);
        TRY(get_number(j, time, "time", &t->times[k]));
        TRY(parse_value(j, value, type, dst, str));
        if (t->track_type != OSSA__RES_CURVE) continue;
        const cJSON *interp = cJSON_GetObjectItem(key, "interpolation");
        if (!interp) return fail(j, key, OSSA_ERROR_PARSE, "keyframe %zu has no \"interpolation\"", k);
        int mode = -1;
        for (int m = 0; m < 4 && cJSON_IsString(interp); ++m)
            if (!strcasecmp(interp->valuestring, ossa__res_interp_name((unsigned)m))) mode = m;
        if (mode < 0)
            return fail(j, interp, OSSA_ERROR_PARSE,
                        "expected \"Hold\", \"Linear\", \"Tangent\" or \"CubicBezier\" for interpolation, found %s%s%s",
                        ossa__json_kind(interp), cJSON_IsString(interp) ? " " : "",
                        cJSON_IsString(interp) ? interp->valuestring : "");
        t->interps[k] = (uint8_t)mode;
        const cJSON *left = cJSON_GetObjectItem(key, "leftTangent"), *right = cJSON_GetObjectItem(key, "rightTangent");
        if (left) TRY(parse_value(j, left, type, t->left ? t->left + k * comps : NULL, NULL));
        if (right) TRY(parse_value(j, right, type, t->right ? t->right + k * comps : NULL, NULL));
    }
    return OSSA_OK;
}

static ossa_result parse_track(json *j, const cJSON *node, ossa__res_track *t)
{
    t->offset = offset_of(j, node);
    locate(j, t->offset, &t->line, &t->column);
    t->interval = -1.0;
    if (!cJSON_IsObject(node))
        return fail(j, node, OSSA_ERROR_PARSE, "expected a track object, found %s", ossa__json_kind(node));
    const cJSON *tt = cJSON_GetObjectItem(node, "trackType"), *vt = cJSON_GetObjectItem(node, "valueType");
    const cJSON *data = cJSON_GetObjectItem(node, "data");
    if (!cJSON_IsString(tt))
        return fail(j, tt ? tt : node, OSSA_ERROR_PARSE, "expected a string trackType, found %s", ossa__json_kind(tt));
    int type_id = 4;
    for (int m = 0; m < 4; ++m)
        if (!strcasecmp(tt->valuestring, ossa__res_track_type_name((unsigned)m))) type_id = m;
    if (type_id == OSSA__RES_BEZIER)
        return fail(
            j, tt, OSSA_ERROR_UNSUPPORTED_FORMAT,
            "Bezier tracks are not supported (Resonite itself does not read them; use Curve with CubicBezier keys)");
    if (type_id > OSSA__RES_BEZIER)
        return fail(j, tt, OSSA_ERROR_UNSUPPORTED_FORMAT,
                    "unknown trackType \"%s\" (expected Raw, Discrete, Curve or Bezier)", tt->valuestring);
    t->track_type = (uint8_t)type_id;
    if (!cJSON_IsString(vt))
        return fail(j, vt ? vt : node, OSSA_ERROR_PARSE, "expected a string valueType, found %s", ossa__json_kind(vt));
    const int value_id = ossa__res_type_find(vt->valuestring);
    if (value_id < 0)
        return fail(j, vt, OSSA_ERROR_UNSUPPORTED_FORMAT, "unknown valueType \"%s\" (expected bool .. string)",
                    vt->valuestring);
    const ossa__res_type *type = ossa__res_type_get((unsigned)value_id);
    if (type->flags & OSSA__RES_MATRIX)
        return fail(j, vt, OSSA_ERROR_UNSUPPORTED_FORMAT, "%s values have no AnimJ form; use AnimX", type->name);
    t->value_type = (uint8_t)value_id;
    if (!cJSON_IsObject(data))
        return fail(j, data ? data : node, OSSA_ERROR_PARSE, "expected a data object, found %s", ossa__json_kind(data));
    TRY(get_string(j, cJSON_GetObjectItem(data, "node"), "node", &t->node));
    TRY(get_string(j, cJSON_GetObjectItem(data, "property"), "property", &t->property));
    const cJSON *interval = cJSON_GetObjectItem(data, "interval");
    if (interval && !cJSON_IsNull(interval)) {
        TRY(get_number(j, interval, "interval", &t->interval));
        if (t->interval < 0.0)
            return fail(j, interval, OSSA_ERROR_INVALID_KEY, "interval %g must be >= 0", t->interval);
    }
    const cJSON *keys = cJSON_GetObjectItem(data, "keyframes");
    if (keys && !cJSON_IsNull(keys) && !cJSON_IsArray(keys))
        return fail(j, keys, OSSA_ERROR_PARSE, "expected an array of keyframes, found %s", ossa__json_kind(keys));
    bool tangents = false;
    t->key_count = 0;
    for (const cJSON *k = keys ? keys->child : NULL; k; k = k->next, ++t->key_count)
        tangents |= t->track_type == OSSA__RES_CURVE &&
                    (cJSON_GetObjectItem(k, "leftTangent") || cJSON_GetObjectItem(k, "rightTangent"));
    const char *over = ossa__res_key_budget(j->s, t->key_count, &j->total_keys);
    if (over)
        return fail(j, keys, OSSA_ERROR_INVALID_KEY, "%zu keyframes: %s (%zu)", t->key_count, over, j->s->max_keys);
    if (ossa__res_track_alloc(t, j->a, tangents) != OSSA_OK)
        return fail(j, keys, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu keyframes", t->key_count);
    return parse_keys(j, keys, t, type);
}

static ossa_result parse_root(json *j, const cJSON *root, ossa__res_anim *anim)
{
    if (!cJSON_IsObject(root))
        return fail(j, root, OSSA_ERROR_PARSE, "expected an animation object, found %s", ossa__json_kind(root));
    TRY(get_string(j, cJSON_GetObjectItem(root, "name"), "name", &anim->name));
    const cJSON *duration = cJSON_GetObjectItem(root, "globalDuration");
    if (duration && !cJSON_IsNull(duration)) {
        TRY(get_number(j, duration, "globalDuration", &anim->duration));
        if (anim->duration < 0.0)
            return fail(j, duration, OSSA_ERROR_INVALID_KEY, "globalDuration %g must be >= 0", anim->duration);
    }
    const cJSON *tracks = cJSON_GetObjectItem(root, "tracks");
    if (tracks && !cJSON_IsNull(tracks) && !cJSON_IsArray(tracks))
        return fail(j, tracks, OSSA_ERROR_PARSE, "expected an array of tracks, found %s", ossa__json_kind(tracks));
    size_t count = 0;
    for (const cJSON *t = tracks ? tracks->child : NULL; t; t = t->next) ++count;
    if (count && !(anim->tracks = ossa__calloc(j->a, count, sizeof *anim->tracks)))
        return fail(j, tracks, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu tracks", count);
    for (const cJSON *t = tracks ? tracks->child : NULL; t; t = t->next) {
        ossa__res_track *track = &anim->tracks[anim->track_count++];
        TRY(parse_track(j, t, track));
    }
    return OSSA_OK;
}

static ossa_result import_animj(json *j, const ossa__res_settings *s, ossa__res_anim *anim, ossa_import_output *out)
{
    const uint8_t *data = j->text;
    if (j->size >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF) j->skip = 3;
    const size_t bad = ossa__res_utf8_invalid(data, j->size);
    if (bad != SIZE_MAX) {
        uint32_t line, column;
        locate(j, bad, &line, &column);
        return ossa_diag_set(j->diag, OSSA_ERROR_PARSE, bad, line, column, "invalid UTF-8 (byte 0x%02X)%s", data[bad],
                             data[bad] == 0 ? ": NUL bytes are not allowed" : "");
    }
    const size_t len = j->size - j->skip;
    char *text = ossa_alloc(j->a, len + 1);
    if (!text) return ossa__fail(j->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    memcpy(text, data + j->skip, len);
    text[len] = '\0';
    lower_literals(text, len);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    ossa_result r = OSSA_OK;
    if (!root) {
        const size_t at = end && end >= text && end <= text + len ? (size_t)(end - text) : len;
        uint32_t line, column;
        locate(j, j->skip + at, &line, &column);
        char found[16];
        if (at >= len)
            snprintf(found, sizeof found, "the end");
        else if ((unsigned char)text[at] < 0x20 || (unsigned char)text[at] >= 0x7F)
            snprintf(found, sizeof found, "byte 0x%02X", (unsigned char)text[at]);
        else
            snprintf(found, sizeof found, "'%c'", text[at]);
        r = ossa_diag_set(j->diag, OSSA_ERROR_PARSE, j->skip + at, line, column,
                          "malformed JSON: expected a JSON value or ',' ':' '}' ']' where valid, found %s", found);
    }
    if (r == OSSA_OK && scan_starts(j, text, len) != OSSA_OK)
        r = ossa__fail(j->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == OSSA_OK && !(j->nodes = ossa__calloc(j->a, j->count ? j->count : 1, sizeof *j->nodes)))
        r = ossa__fail(j->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == OSSA_OK) {
        size_t n = 0;
        collect_nodes(j, root, &n);
        if (n != j->count) j->count = 0; /* positions unreliable: report the start instead */
        r = parse_root(j, root, anim);
    }
    cJSON_Delete(root);
    ossa_free(j->a, text);
    if (r != OSSA_OK) return r;
    ossa_import_output_add_metadata(out, "format", "animj");
    ossa_import_output_add_metadata(out, "name", anim->name);
    ossa_import_output_add_metadata(out, "source_units", "metres");
    ossa_import_output_add_metadata(out, "unit_scale", "1");
    return ossa__res_convert(anim, s, out, j->diag);
}
#endif

bool ossa__animj_sniff(const void *data, size_t size)
{
    static const char needle[] = "\"trackType\"";
    const char *text = data;
    size_t i = 0;
    if (!data) return false;
    if (size >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3)) i = 3;
    while (i < size && (text[i] == ' ' || text[i] == '\t' || text[i] == '\r' || text[i] == '\n')) ++i;
    if (i >= size || text[i] != '{') return false;
    const size_t end = size < 65536 ? size : 65536, n = sizeof needle - 1;
    for (; i + n <= end; ++i)
        if (!memcmp(text + i, needle, n)) return true;
    return false;
}

ossa_result ossa_import_animj(const void *data, size_t size, const ossa_resonite_desc *desc, ossa_import_output *out,
                              ossa_diag *diag)
{
    ossa_result r = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "AnimJ", diag);
    if (r != OSSA_OK) return r;
    ossa__res_settings s;
    if ((r = ossa__res_settings_get(desc, &s, diag)) != OSSA_OK) return r;
#ifdef OSSA_HAVE_CJSON
    json j = {data, size, 0, NULL, NULL, 0, s.allocator, diag, &s, 0, 0, 0, 0, 0};
    ossa__res_anim anim = {0};
    anim.format = "animj";
    anim.version = -1;
    anim.encoding = -1;
    anim.allocator = s.allocator;
    r = import_animj(&j, &s, &anim, out);
    ossa__res_anim_free(&anim);
    ossa_free(s.allocator, j.starts);
    ossa_free(s.allocator, (void *)j.nodes);
    return ossa__import_end(out, r, diag);
#else
    (void)size;
    return ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                      "AnimJ import needs cJSON: rebuild ossa with libcjson-dev installed (-Dcjson=enabled)");
#endif
}
