#include "ossa/offline/raw_track.h"

#include <math.h>
#include <string.h>

#include "internal.h"

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
    if (!track) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no track");
    const size_t width = ossa_track_type_width(track->type);
    const char *name = track->name ? track->name : "";
    if (width == 0)
        return ossa__fail(diag, OSSA_ERROR_INVALID_TRACK, "track \"%s\": unknown type %d", name, (int)track->type);
    if (track->key_count && !track->keys)
        return ossa__fail(diag, OSSA_ERROR_INVALID_TRACK, "track \"%s\": keys are NULL", name);
    float previous = -INFINITY;
    for (size_t k = 0; k < track->key_count; ++k) {
        const ossa_raw_track_key *key = &track->keys[k];
        if (!isfinite(key->ratio) || key->ratio < 0.f || key->ratio > 1.f || !(key->ratio > previous))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, k,
                                 "track \"%s\" key %zu: ratio %g must be in [0, 1] and after the previous %g", name, k,
                                 (double)key->ratio, (double)previous);
        previous = key->ratio;
        if (key->interpolation != OSSA_INTERP_STEP && key->interpolation != OSSA_INTERP_LINEAR &&
            !(key->interpolation == OSSA_INTERP_SLERP && track->type == OSSA_TRACK_QUAT))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, k, "track \"%s\" key %zu: unknown interpolation %d",
                                 name, k, (int)key->interpolation);
        float len2 = 0.f;
        for (size_t c = 0; c < width; ++c) {
            if (!isfinite(key->value[c]))
                return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, k, "track \"%s\" key %zu: value is not finite", name,
                                     k);
            len2 += key->value[c] * key->value[c];
        }
        if (track->type == OSSA_TRACK_QUAT && !(len2 > 1e-12f))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_KEY, k, "track \"%s\" key %zu: quaternion has zero length",
                                 name, k);
    }
    return OSSA_OK;
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
            if (keys[mid].ratio <= ratio)
                lo = mid;
            else
                hi = mid;
        }
        a = &keys[lo];
        b = lo + 1 < n ? &keys[lo + 1] : NULL;
    }
    if (!b || a->interpolation == OSSA_INTERP_STEP || ratio <= a->ratio) {
        memcpy(value, a->value, width * sizeof *value);
    } else {
        const float alpha = (ratio - a->ratio) / (b->ratio - a->ratio);
        if (a->interpolation == OSSA_INTERP_SLERP) {
            const ossa_quat q = ossa_quat_slerp(
                ossa_quat_normalize((ossa_quat){a->value[0], a->value[1], a->value[2], a->value[3]}),
                ossa_quat_normalize((ossa_quat){b->value[0], b->value[1], b->value[2], b->value[3]}), alpha);
            value[0] = q.x, value[1] = q.y, value[2] = q.z, value[3] = q.w;
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
