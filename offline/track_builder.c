#include "ossa/offline/track_builder.h"

#include <math.h>
#include <string.h>

#include "blob.h"
#include "internal.h"

/* ---- builder ---- */

static size_t pad16(size_t n) { return (n + 15) & ~(size_t)15; }

/* Key k of the runtime track: the raw keys plus the patched ends (see ossa_track_build). */
typedef struct patched {
    const ossa_raw_track *raw;
    ossa_raw_track_key begin, end; /* used when add_begin / add_end */
    bool add_begin, add_end;
    size_t count;
} patched;

static ossa_raw_track_key patched_key(const patched *p, size_t k)
{
    if (p->add_begin) {
        if (k == 0) return p->begin;
        --k;
    }
    if (k < p->raw->key_count) {
        ossa_raw_track_key key = p->raw->keys[k];
        /* The last raw key holds until the added end key: a step does so exactly. */
        if (p->add_end && k + 1 == p->raw->key_count) key.interpolation = OSSA_INTERP_STEP;
        return key;
    }
    return p->end;
}

static void patch(const ossa_raw_track *raw, patched *p)
{
    memset(p, 0, sizeof *p);
    p->raw = raw;
    const size_t n = raw->key_count;
    if (n == 0) {
        p->begin = (ossa_raw_track_key){0.f, OSSA_INTERP_LINEAR, {0.f, 0.f, 0.f, 0.f}};
        if (raw->type == OSSA_TRACK_QUAT) p->begin.value[3] = 1.f;
        p->end = p->begin;
        p->end.ratio = 1.f;
        p->add_begin = p->add_end = true;
        p->count = 2;
        return;
    }
    p->begin = raw->keys[0];
    p->begin.ratio = 0.f;
    p->begin.interpolation = OSSA_INTERP_STEP;
    p->add_begin = raw->keys[0].ratio > 0.f;
    p->end = raw->keys[n - 1];
    p->end.ratio = 1.f;
    p->end.interpolation = OSSA_INTERP_STEP;
    p->add_end = raw->keys[n - 1].ratio < 1.f;
    p->count = n + p->add_begin + p->add_end;
}

ossa_result ossa_track_build(const ossa_raw_track *raw, const ossa_allocator *allocator, ossa_blob *out,
                             ossa_diag *diag)
{
    if (out) memset(out, 0, sizeof *out);
    if (!raw || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no raw track or output");
    ossa_result r = ossa_raw_track_validate(raw, diag);
    if (r != OSSA_OK) return r;
    patched p;
    patch(raw, &p);
    if (p.count > OSSA_TRACK_MAX_KEYS)
        return ossa__fail(diag, OSSA_ERROR_INVALID_TRACK, "track \"%s\": %zu keys, at most %u fit a runtime track",
                          raw->name ? raw->name : "", p.count, (unsigned)OSSA_TRACK_MAX_KEYS);
    const size_t width = ossa_track_type_width(raw->type), n = p.count;
    for (size_t k = 0; k < raw->key_count; ++k)
        for (size_t c = 0; c < width; ++c)
            if (!(fabsf(raw->keys[k].value[c]) <= OSSA_TRACK_MAX_VALUE))
                return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, k,
                                     "track \"%s\" key %zu: value %g is beyond the runtime limit 2^127",
                                     raw->name ? raw->name : "", k, (double)raw->keys[k].value[c]);
    const char *name = raw->name ? raw->name : "";
    const size_t name_size = strlen(name) + 1;
    if (name_size > UINT32_MAX - 64) return ossa__fail(diag, OSSA_ERROR_INVALID_TRACK, "track name is too long");
    /* n <= 2^24 and width <= 4: no overflow below for the arrays; the name is bounded. */
    const size_t ratios_at = OSSA_TRACK_HEADER_SIZE;
    const size_t values_at = pad16(ratios_at + n * sizeof(float));
    const size_t interps_at = pad16(values_at + n * width * sizeof(float));
    const size_t name_at = pad16(interps_at + n);
    size_t size;
    if (!ossa__add_size(name_at, name_size, &size) || size > SIZE_MAX - 15)
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "track size overflows");
    size = pad16(size);
    r = ossa_blob_create(out, size, allocator);
    if (r != OSSA_OK) return ossa__fail(diag, r, "out of memory for a %zu-byte track", size);
    uint8_t *b = out->data;
    ossa__store_u32(b + OSSA__TRACK_TYPE, (uint32_t)raw->type);
    ossa__store_u32(b + OSSA__TRACK_KEY_COUNT, (uint32_t)n);
    ossa__store_u32(b + OSSA__TRACK_NAME_SIZE, (uint32_t)name_size);
    ossa__store_u32(b + OSSA__TRACK_RESERVED, 0);
    for (size_t k = 0; k < n; ++k) {
        const ossa_raw_track_key key = patched_key(&p, k);
        float v[4] = {key.value[0], key.value[1], key.value[2], key.value[3]};
        if (raw->type == OSSA_TRACK_QUAT) {
            const ossa_quat q = ossa_quat_normalize((ossa_quat){v[0], v[1], v[2], v[3]});
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        }
        ossa__store_f32(b + ratios_at + 4 * k, key.ratio);
        for (size_t c = 0; c < width; ++c) ossa__store_f32(b + values_at + 4 * (k * width + c), v[c]);
        b[interps_at + k] = (uint8_t)key.interpolation;
    }
    memcpy(b + name_at, name, name_size);
    return OSSA_OK;
}

/* ---- optimiser ---- */

/* Distance between two values: Euclidean for floats; for quaternions the rotation angle
 * 4 asin(|a - b| / 2) of the normalised pair taken in one hemisphere, which is 2 acos(|a.b|)
 * without acos's loss of precision near 0. */
static float value_error(const float *a, const float *b, ossa_track_type type)
{
    if (type == OSSA_TRACK_QUAT) {
        const ossa_quat qa = ossa_quat_normalize((ossa_quat){a[0], a[1], a[2], a[3]});
        const ossa_quat qb = ossa_quat_normalize((ossa_quat){b[0], b[1], b[2], b[3]});
        const float s = qa.x * qb.x + qa.y * qb.y + qa.z * qb.z + qa.w * qb.w < 0.f ? -1.f : 1.f;
        const float dx = qa.x - s * qb.x, dy = qa.y - s * qb.y, dz = qa.z - s * qb.z, dw = qa.w - s * qb.w;
        const float half = .5f * sqrtf(dx * dx + dy * dy + dz * dz + dw * dw);
        return 4.f * asinf(half < 1.f ? half : 1.f);
    }
    float d2 = 0.f;
    for (size_t c = 0; c < ossa_track_type_width(type); ++c) d2 += (a[c] - b[c]) * (a[c] - b[c]);
    return sqrtf(d2);
}

/* Interior points per original segment where quaternion curves are compared. */
enum { QUAT_SAMPLES = 8 };

/* Whether keys a+1 .. c-1 of `raw` can go: see ossa_track_optimize for the checks. The
 * simplified curve on [r_a, r_c] is the two-key track {key a, key c}. */
static bool span_ok(const ossa_raw_track *raw, size_t a, size_t c, float tolerance)
{
    const ossa_raw_track_key *keys = raw->keys;
    ossa_raw_track_key pair[2] = {keys[a], keys[c]};
    const ossa_raw_track simple = {.name = raw->name, .type = raw->type, .keys = pair, .key_count = 2};
    float s[4], o[4];
    for (size_t k = a + 1; k <= c; ++k) {
        const float rk = keys[k].ratio, rp = keys[k - 1].ratio;
        /* At a removed key the original curve is the key's value; the simplified one is
         * continuous there. */
        ossa_raw_track_evaluate(&simple, k == c && keys[a].interpolation == OSSA_INTERP_STEP ? keys[a].ratio : rk, s);
        if (k < c) {
            ossa_raw_track_evaluate(raw, rk, o);
            if (!(value_error(s, o, raw->type) <= tolerance)) return false;
        }
        /* Just before the key: a step segment ends with its own key's value (for the
         * simplified curve that matters at c only, where `s` already holds it). */
        ossa_raw_track_evaluate(raw, keys[k - 1].interpolation == OSSA_INTERP_STEP ? rp : rk, o);
        if (!(value_error(s, o, raw->type) <= tolerance)) return false;
        if (raw->type != OSSA_TRACK_QUAT) continue;
        for (int j = 1; j < QUAT_SAMPLES; ++j) {
            const float r = rp + (rk - rp) * ((float)j / (float)QUAT_SAMPLES);
            if (!(r > rp && r < rk)) continue;
            ossa_raw_track_evaluate(&simple, r, s);
            ossa_raw_track_evaluate(raw, r, o);
            if (!(value_error(s, o, raw->type) <= tolerance)) return false;
        }
    }
    return true;
}

/* The farthest key c > a such that span_ok(a, c): exponential search for a failing span,
 * then binary search between the last passing and the first failing one. Only verified
 * spans are accepted; a + 1 always passes (nothing is removed). */
static size_t farthest_key(const ossa_raw_track *raw, size_t a, float tolerance)
{
    const size_t n = raw->key_count;
    size_t good = a + 1, bad = n, step = 1; /* bad == n: no failing span seen */
    while (good + 1 < n) {
        const size_t c = step < n - good ? good + step : n - 1;
        if (!span_ok(raw, a, c, tolerance)) {
            bad = c;
            break;
        }
        good = c;
        step *= 2;
    }
    while (bad - good > 1) {
        const size_t mid = good + (bad - good) / 2;
        if (span_ok(raw, a, mid, tolerance))
            good = mid;
        else
            bad = mid;
    }
    return good;
}

ossa_result ossa_track_optimize(const ossa_raw_track *raw, const ossa_track_optimize_desc *desc, ossa_raw_track *out,
                                ossa_diag *diag)
{
    const ossa_allocator *allocator = desc ? desc->allocator : NULL;
    if (out) {
        memset(out, 0, sizeof *out);
        if (allocator) out->allocator = *allocator;
    }
    if (!raw || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no raw track or output");
    ossa_result r = ossa_raw_track_validate(raw, diag);
    if (r != OSSA_OK) return r;
    float tolerance = desc ? desc->tolerance : 0.f;
    if (!(tolerance >= 0.f) || !isfinite(tolerance))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "tolerance %g must be positive and finite (0 for the default 1e-3)", (double)tolerance);
    if (tolerance == 0.f) tolerance = 1e-3f;

    const size_t n = raw->key_count;
    /* kept[i]: indices of the kept keys, at most n. */
    size_t *kept = n ? ossa__calloc(allocator, n, sizeof *kept) : NULL;
    if (n && !kept) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    size_t count = 0;
    if (n) {
        kept[count++] = 0;
        for (size_t a = 0; a + 1 < n;) {
            a = farthest_key(raw, a, tolerance);
            kept[count++] = a;
        }
    }
    r = ossa_raw_track_create(out, raw->type, count, allocator);
    if (r == OSSA_OK) r = ossa_raw_track_set_name(out, raw->name ? raw->name : "");
    if (r != OSSA_OK) {
        ossa_free(allocator, kept);
        ossa_raw_track_destroy(out);
        return ossa__fail(diag, r, "out of memory for %zu keys", count);
    }
    out->duration = raw->duration;
    for (size_t i = 0; i < count; ++i) out->keys[i] = raw->keys[kept[i]];
    ossa_free(allocator, kept);
    return OSSA_OK;
}
