#include "import_internal.h"
#include "import/mrtk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "import/byte_reader.h"
#include "internal.h"

#define BOOL_OUT_WEIGHT 1.0e6f

enum { KIND_FULL, KIND_SIMPLE, KIND_BOOL };

static ossa_result bad_key(ossa__byte_reader *r, ossa_result code, size_t offset, const char *name, size_t key,
                           const char *field, float found, const char *expected)
{
    return ossa__br_fail(r, code, offset, "key %zu of curve '%s': %s is %g; expected %s", key, name, field,
                         (double)found, expected);
}

/* One key's fields after the time, validated; `p` holds the key's bytes, from byte `at`. */
static ossa_result read_key_rest(ossa__byte_reader *r, const uint8_t *p, size_t at, int kind, const char *name,
                                 size_t i, ossa__unity_key *k)
{
    k->value = ossa__br_load_f32(p + 4, OSSA__BR_LITTLE);
    if (!isfinite(k->value))
        return bad_key(r, OSSA_ERROR_INVALID_KEY, at + 4, name, i, "value", k->value, "a finite number");
    if (kind != KIND_FULL) {
        /* MRTK fills the missing fields on read: zero tangents, Both-weighted with weights 0
         * (linear), and for bool curves an out weight of 1e6 (a step). */
        k->weighted_mode = OSSA__UNITY_WEIGHTED_BOTH;
        k->out_weight = kind == KIND_BOOL ? BOOL_OUT_WEIGHT : 0.f;
        return OSSA_OK;
    }
    static const char *const fields[4] = {"in tangent", "out tangent", "in weight", "out weight"};
    float v[4];
    for (int f = 0; f < 4; ++f) {
        v[f] = ossa__br_load_f32(p + 8 + 4 * (size_t)f, OSSA__BR_LITTLE);
        if (f < 2 ? isnan(v[f]) : !isfinite(v[f]))
            return bad_key(r, OSSA_ERROR_INVALID_KEY, at + 8 + 4 * (size_t)f, name, i, fields[f], v[f],
                           f < 2 ? "a number (infinite for a stepped segment)" : "a finite number");
    }
    k->in_tangent = v[0];
    k->out_tangent = v[1];
    k->in_weight = v[2];
    k->out_weight = v[3];
    k->weighted_mode = ossa__br_load_i32(p + 24, OSSA__BR_LITTLE);
    if (k->weighted_mode < 0 || k->weighted_mode > OSSA__UNITY_WEIGHTED_BOTH)
        return ossa__br_fail(
            r, OSSA_ERROR_CORRUPT, at + 24,
            "key %zu of curve '%s': weighted mode is %d; expected 0 (None), 1 (In), 2 (Out) or 3 (Both)", i, name,
            (int)k->weighted_mode);
    return OSSA_OK;
}

static ossa_result read_curve(ossa__byte_reader *r, ossa__mrtk_recording *rec, size_t index, int kind)
{
    char name[64], what[128];
    ossa__mrtk_curve_name(index, name, sizeof name);
    ossa__mrtk_curve *c = &rec->curves[index];
    c->offset = r->pos;
    snprintf(what, sizeof what, "the header (pre-wrap, post-wrap, key count) of curve '%s'", name);
    const uint8_t *p = NULL;
    if (ossa__br_bytes(r, 12, what, &p) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    c->c.pre_wrap = ossa__br_load_i32(p, OSSA__BR_LITTLE);
    c->c.post_wrap = ossa__br_load_i32(p + 4, OSSA__BR_LITTLE);
    const size_t count_at = c->offset + 8;
    const int32_t n = ossa__br_load_i32(p + 8, OSSA__BR_LITTLE);
    const size_t stride = kind == KIND_FULL ? 28 : 8;
    if (n < 0)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, count_at, "curve '%s' declares %d keys; expected a count >= 0",
                             name, (int)n);
    snprintf(what, sizeof what, "%d keys of curve '%s'", (int)n, name);
    if (ossa__br_need_at(r, (uint64_t)n, stride, count_at, what) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    if (n == 0) return OSSA_OK;
    c->keys = ossa__calloc(r->allocator, (size_t)n, sizeof *c->keys);
    if (!c->keys) return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, count_at, "out of memory for %d keys", (int)n);
    c->c.keys = c->keys;
    c->c.key_count = (size_t)n;
    for (size_t i = 0; i < (size_t)n; ++i) {
        ossa__unity_key *k = &c->keys[i];
        const size_t at = r->pos;
        (void)ossa__br_bytes(r, stride, what, &p); /* all keys were checked above */
        k->time = ossa__br_load_f32(p, OSSA__BR_LITTLE);
        if (!isfinite(k->time))
            return bad_key(r, OSSA_ERROR_INVALID_KEY, at, name, i, "time", k->time, "a finite number of seconds");
        if (i > 0 && k->time < k[-1].time)
            return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, at,
                                 "key %zu of curve '%s': time %g is before the previous key's %g; expected "
                                 "non-decreasing times",
                                 i, name, (double)k->time, (double)k[-1].time);
        ossa_result res = read_key_rest(r, p, at, kind, name, i, k);
        if (res != OSSA_OK) return res;
        if (i + 1 == (size_t)n && k->time > rec->duration) {
            rec->duration = k->time;
            rec->duration_offset = at;
        }
    }
    return OSSA_OK;
}

static ossa_result read_curves(ossa__byte_reader *r, ossa__mrtk_recording *rec, size_t first, size_t count, int kind)
{
    for (size_t i = first; i < first + count; ++i) {
        ossa_result res = read_curve(r, rec, i, kind);
        if (res != OSSA_OK) return res;
    }
    return OSSA_OK;
}

/* Offset of the first byte that breaks UTF-8 (or is NUL) in p[0..n), or n. */
static size_t utf8_error(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n;) {
        const uint8_t b = p[i];
        size_t len;
        uint32_t cp, min;
        if (b == 0) return i;
        if (b < 0x80) {
            ++i;
            continue;
        }
        if ((b & 0xe0) == 0xc0) {
            len = 2;
            cp = b & 0x1fu;
            min = 0x80;
        } else if ((b & 0xf0) == 0xe0) {
            len = 3;
            cp = b & 0x0fu;
            min = 0x800;
        } else if ((b & 0xf8) == 0xf0) {
            len = 4;
            cp = b & 0x07u;
            min = 0x10000;
        } else
            return i;
        if (n - i < len) return i;
        for (size_t k = 1; k < len; ++k) {
            if ((p[i + k] & 0xc0) != 0x80) return i;
            cp = cp << 6 | (p[i + k] & 0x3fu);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
        i += len;
    }
    return n;
}

static ossa_result read_markers(ossa__byte_reader *r, ossa__mrtk_recording *rec)
{
    /* Required: MRTK's writer ends every file with the list and its reader (FromStream) reads
     * it unconditionally. The published format page lists only the curves, without saying the
     * list may be left out, so a file that ends after the curves is cut short. */
    const size_t count_at = r->pos;
    if (r->pos == r->size)
        return ossa__br_fail(r, OSSA_ERROR_TRUNCATED, count_at,
                             "the file ends after the curves at byte %zu; expected the marker list (Int32 count, "
                             "then the markers) that MRTK writes after them and its reader requires",
                             count_at);
    int32_t n;
    if (ossa__br_i32(r, "the marker count (Int32)", &n) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    if (n < 0)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, count_at,
                             "the marker list declares %d markers; expected a count >= 0", (int)n);
    char what[64];
    snprintf(what, sizeof what, "%d markers of at least 5 bytes", (int)n);
    if (ossa__br_need_at(r, (uint64_t)n, 5, count_at, what) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    if (n == 0) return OSSA_OK;
    rec->markers = ossa__calloc(r->allocator, (size_t)n, sizeof *rec->markers);
    if (!rec->markers) return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, count_at, "out of memory");
    rec->marker_count = (size_t)n;
    for (size_t i = 0; i < (size_t)n; ++i) {
        ossa__mrtk_marker *m = &rec->markers[i];
        snprintf(what, sizeof what, "the time of marker %zu (Float32)", i);
        const size_t at = r->pos;
        if (ossa__br_f32(r, what, &m->time) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
        if (!isfinite(m->time))
            return ossa__br_fail(r, OSSA_ERROR_INVALID_KEY, at,
                                 "marker %zu: time is %g; expected a finite number of seconds", i, (double)m->time);
        /* .NET BinaryWriter string: 7-bit encoded byte length (at most 5 bytes), UTF-8. */
        const size_t length_at = r->pos;
        uint64_t length = 0;
        snprintf(what, sizeof what, "the name length of marker %zu (an Int32)", i);
        if (ossa__br_varint(r, 5, what, &length) != OSSA_OK) return r->code;
        if (length > INT32_MAX)
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, length_at,
                                 "marker %zu: name length %llu; expected at most 2147483647", i,
                                 (unsigned long long)length);
        snprintf(what, sizeof what, "the UTF-8 name of marker %zu", i);
        m->name_offset = r->pos;
        const uint8_t *name = NULL;
        if (ossa__br_bytes(r, (size_t)length, what, &name) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
        m->name_size = (size_t)length;
        const size_t bad = utf8_error(name, m->name_size);
        if (bad < m->name_size)
            return ossa__br_fail(r, OSSA_ERROR_PARSE, m->name_offset + bad,
                                 "marker %zu: name byte 0x%02x at position %zu; expected UTF-8 text without NUL", i,
                                 name[bad], bad);
    }
    return OSSA_OK;
}

static ossa_result read_recording(ossa__byte_reader *r, ossa__mrtk_recording *rec)
{
    static const uint8_t magic[8] = {0xc6, 0x42, 0x9e, 0x0f, 0x6e, 0xaf, 0x8f, 0x6a};
    const size_t have = r->size < 8 ? r->size : 8;
    if (memcmp(r->data, magic, have) != 0) {
        char found[40] = "";
        for (size_t i = 0; i < have; ++i) snprintf(found + 3 * i, sizeof found - 3 * i, "%02x ", r->data[i]);
        return ossa__br_fail(r, OSSA_ERROR_BAD_MAGIC, 0,
                             "expected the MRTK input animation magic c6 42 9e 0f 6e af 8f 6a, found %s", found);
    }
    if (ossa__br_skip(r, 8, "the Int64 magic number") != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    const uint8_t *p = NULL;
    if (ossa__br_bytes(r, 8, "the Int32 major and minor version", &p) != OSSA_OK) return OSSA_ERROR_TRUNCATED;
    rec->major = ossa__br_load_i32(p, OSSA__BR_LITTLE);
    rec->minor = ossa__br_load_i32(p + 4, OSSA__BR_LITTLE);
    const bool newer = rec->major > OSSA_MRTK_VERSION_MAJOR ||
                       (rec->major == OSSA_MRTK_VERSION_MAJOR && rec->minor > OSSA_MRTK_VERSION_MINOR);
    if (newer || rec->major < 1 || rec->minor < 0)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_VERSION, rec->major == 1 ? 12 : 8,
                             "version %d.%d%s; expected 1.0 or 1.1", (int)rec->major, (int)rec->minor,
                             newer ? " is newer than this reader" : " is not an MRTK version");
    int kind = KIND_FULL;
    rec->has_camera = rec->has_hands = true;
    if (rec->minor >= 1) {
        if (ossa__br_bytes(r, 3, "the 3 flag bytes HasCameraPose, HasHandData, HasEyeGaze", &p) != OSSA_OK)
            return OSSA_ERROR_TRUNCATED;
        /* BinaryReader.ReadBoolean: any non-zero byte is true. */
        rec->has_camera = p[0] != 0;
        rec->has_hands = p[1] != 0;
        rec->has_gaze = p[2] != 0;
        kind = KIND_SIMPLE;
    }
    ossa_result res = OSSA_OK;
    if (rec->has_camera) res = read_curves(r, rec, OSSA__MRTK_CURVE_CAMERA, OSSA__MRTK_POSE_CURVES, kind);
    if (res == OSSA_OK && rec->has_hands) res = read_curves(r, rec, OSSA__MRTK_CURVE_STATE, 4, KIND_BOOL);
    if (res == OSSA_OK && rec->has_hands)
        res = read_curves(r, rec, OSSA__MRTK_CURVE_HANDS, 2 * OSSA__MRTK_HAND_CURVES, kind);
    if (res == OSSA_OK && rec->has_gaze) res = read_curves(r, rec, OSSA__MRTK_CURVE_GAZE, 6, KIND_SIMPLE);
    if (res == OSSA_OK) res = read_markers(r, rec);
    rec->trailing = res == OSSA_OK ? r->size - r->pos : 0;
    return res;
}

static void free_recording(ossa__mrtk_recording *rec, const ossa_allocator *allocator)
{
    for (size_t i = 0; i < OSSA__MRTK_CURVE_COUNT; ++i) ossa_free(allocator, rec->curves[i].keys);
    ossa_free(allocator, rec->markers);
}

static ossa_result resolve_desc(const ossa_mrtk_desc *desc, ossa__mrtk_settings *set, ossa_diag *diag)
{
    const ossa_mrtk_desc d = desc ? *desc : (ossa_mrtk_desc){0};
    const float v[2] = {d.sample_rate, d.max_duration};
    const float defaults[2] = {60.f, 3600.f};
    const float limits[2] = {10000.f, 1e7f};
    static const char *const names[2] = {"sample_rate", "max_duration"};
    float r[2];
    for (int i = 0; i < 2; ++i) {
        if (!(v[i] >= 0.f && v[i] <= limits[i]))
            return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                              "desc %s is %g; expected 0 (default %g) or a value in (0, %g]", names[i], (double)v[i],
                              (double)defaults[i], (double)limits[i]);
        r[i] = v[i] > 0.f ? v[i] : defaults[i];
    }
    *set = (ossa__mrtk_settings){r[0], r[1]};
    return OSSA_OK;
}

ossa_result ossa_import_mrtk(const void *data, size_t size, const ossa_mrtk_desc *desc, ossa_import_output *out,
                             ossa_diag *diag)
{
    ossa_result res = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "MRTK", diag);
    if (res != OSSA_OK) return res;
    ossa__mrtk_settings set;
    if ((res = resolve_desc(desc, &set, diag)) != OSSA_OK) return res;
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, &out->allocator);
    ossa__mrtk_recording rec;
    memset(&rec, 0, sizeof rec);
    res = read_recording(&r, &rec);
    if (res == OSSA_OK) res = ossa__mrtk_build(&rec, &set, r.data, out, diag);
    free_recording(&rec, &out->allocator);
    return ossa__import_end(out, res, diag);
}
