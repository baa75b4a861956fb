#include "ossa/offline/raw_track.h"

#include <math.h>
#include <string.h>

#include "internal.h"

size_t ossa_track_type_width(ossa_track_type type)
{
    switch (type) {
    case OSSA_TRACK_FLOAT: return 1;
    case OSSA_TRACK_FLOAT2: return 2;
    case OSSA_TRACK_FLOAT3: return 3;
    case OSSA_TRACK_FLOAT4:
    case OSSA_TRACK_QUAT: return 4;
    }
    return 0;
}

ossa_result ossa_raw_track_create(ossa_raw_track *track, ossa_track_type type, size_t key_count,
                                  const ossa_allocator *allocator)
{
    if (!track) return OSSA_ERROR_NULL_ARGUMENT;
    memset(track, 0, sizeof *track);
    if (allocator) track->allocator = *allocator;
    if (ossa_track_type_width(type) == 0) return OSSA_ERROR_INVALID_ARGUMENT;
    track->type = type;
    track->name = ossa_strdup(allocator, "");
    if (!track->name) return OSSA_ERROR_OUT_OF_MEMORY;
    if (key_count) {
        track->keys = ossa__calloc(allocator, key_count, sizeof *track->keys);
        if (!track->keys) {
            ossa_raw_track_destroy(track);
            return OSSA_ERROR_OUT_OF_MEMORY;
        }
        for (size_t i = 0; i < key_count; ++i) track->keys[i].interpolation = OSSA_INTERP_LINEAR;
    }
    track->key_count = key_count;
    return OSSA_OK;
}

ossa_result ossa_raw_track_set_name(ossa_raw_track *track, const char *name)
{
    if (!track || !name) return OSSA_ERROR_NULL_ARGUMENT;
    char *copy = ossa_strdup(&track->allocator, name);
    if (!copy) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_free(&track->allocator, track->name);
    track->name = copy;
    return OSSA_OK;
}

void ossa_raw_track_destroy(ossa_raw_track *track)
{
    if (!track) return;
    ossa_allocator a = track->allocator;
    ossa_free(&a, track->keys);
    ossa_free(&a, track->name);
    memset(track, 0, sizeof *track);
    track->allocator = a;
}

ossa_result ossa_raw_track_validate(const ossa_raw_track *track, ossa_diag *diag)
{
    if (!track) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no track");
    const size_t width = ossa_track_type_width(track->type);
    const char *name = track->name ? track->name : "";
    if (width == 0)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_TRACK, SIZE_MAX, 0, 0, "track \"%s\": unknown type %d", name,
                             (int)track->type);
    if (track->key_count && !track->keys)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_TRACK, SIZE_MAX, 0, 0, "track \"%s\": keys are NULL", name);
    float previous = -INFINITY;
    for (size_t k = 0; k < track->key_count; ++k) {
        const ossa_raw_track_key *key = &track->keys[k];
        if (!isfinite(key->ratio) || key->ratio < 0.f || key->ratio > 1.f || !(key->ratio > previous))
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_KEY, k, 0, 0,
                                 "track \"%s\" key %zu: ratio %g must be in [0, 1] and after the previous %g", name, k,
                                 (double)key->ratio, (double)previous);
        previous = key->ratio;
        if (key->interpolation != OSSA_INTERP_STEP && key->interpolation != OSSA_INTERP_LINEAR &&
            !(key->interpolation == OSSA_INTERP_SLERP && track->type == OSSA_TRACK_QUAT))
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_KEY, k, 0, 0, "track \"%s\" key %zu: unknown interpolation %d",
                                 name, k, (int)key->interpolation);
        float len2 = 0.f;
        for (size_t c = 0; c < width; ++c) {
            if (!isfinite(key->value[c]))
                return ossa_diag_set(diag, OSSA_ERROR_INVALID_KEY, k, 0, 0, "track \"%s\" key %zu: value is not finite",
                                     name, k);
            len2 += key->value[c] * key->value[c];
        }
        if (track->type == OSSA_TRACK_QUAT && !(len2 > 1e-12f))
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_KEY, k, 0, 0, "track \"%s\" key %zu: quaternion has zero length",
                                 name, k);
    }
    return OSSA_OK;
}

/* Spherical lerp of unit quaternions a and b along the shortest arc; nlerp when they are
 * within about 3.6 degrees (dot > 0.9995), where sin(theta) loses precision. Source: K. Shoemake, "Animating
 * rotation with quaternion curves", SIGGRAPH 1985. */
static void slerp(const float *qa, const float *qb, float alpha, float out[4])
{
    const ossa_quat na = ossa_quat_normalize((ossa_quat){qa[0], qa[1], qa[2], qa[3]});
    const ossa_quat nb = ossa_quat_normalize((ossa_quat){qb[0], qb[1], qb[2], qb[3]});
    const float a[4] = {na.x, na.y, na.z, na.w}, b[4] = {nb.x, nb.y, nb.z, nb.w};
    float dot = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    const float sign = dot < 0.f ? -1.f : 1.f;
    dot *= sign;
    float wa = 1.f - alpha, wb = alpha;
    if (dot < .9995f) {
        const float theta = acosf(dot), inv_sin = 1.f / sinf(theta);
        wa = sinf(wa * theta) * inv_sin;
        wb = sinf(wb * theta) * inv_sin;
    }
    const ossa_quat q = ossa_quat_normalize((ossa_quat){wa * a[0] + wb * sign * b[0], wa * a[1] + wb * sign * b[1],
                                                        wa * a[2] + wb * sign * b[2], wa * a[3] + wb * sign * b[3]});
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

void ossa_raw_track_evaluate(const ossa_raw_track *track, float ratio, float value[4])
{
    memset(value, 0, 4 * sizeof *value);
    if (!track || track->key_count == 0) {
        if (track && track->type == OSSA_TRACK_QUAT) value[3] = 1.f;
        return;
    }
    const size_t width = ossa_track_type_width(track->type);
    const ossa_raw_track_key *keys = track->keys;
    size_t n = track->key_count;
    const ossa_raw_track_key *a = &keys[0], *b = NULL;
    if (ratio > keys[0].ratio) {
        size_t lo = 0, hi = n;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (keys[mid].ratio <= ratio) lo = mid;
            else hi = mid;
        }
        a = &keys[lo];
        b = lo + 1 < n ? &keys[lo + 1] : NULL;
    }
    if (!b || a->interpolation == OSSA_INTERP_STEP || ratio <= a->ratio) {
        memcpy(value, a->value, width * sizeof *value);
    } else {
        const float alpha = (ratio - a->ratio) / (b->ratio - a->ratio);
        if (a->interpolation == OSSA_INTERP_SLERP) {
            slerp(a->value, b->value, alpha, value);
            return;
        }
        float sign = 1.f;
        if (track->type == OSSA_TRACK_QUAT) {
            float dot = 0.f;
            for (size_t c = 0; c < 4; ++c) dot += a->value[c] * b->value[c];
            if (dot < 0.f) sign = -1.f;
        }
        for (size_t c = 0; c < width; ++c) value[c] = a->value[c] + (sign * b->value[c] - a->value[c]) * alpha;
    }
    if (track->type == OSSA_TRACK_QUAT) {
        ossa_quat q = ossa_quat_normalize((ossa_quat){value[0], value[1], value[2], value[3]});
        value[0] = q.x, value[1] = q.y, value[2] = q.z, value[3] = q.w;
    }
}
