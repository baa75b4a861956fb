#include "ossa/animation.h"

#include <math.h>
#include <string.h>

#include "blob.h"
#include "ossa_internal.h"

enum { HEADER_SIZE = 64 };

static size_t time_index(const ossa_animation_channel *c, size_t key)
{
    return c->time_index8 ? c->time_index8[key] : c->time_index16[key];
}

/* Checks the ordering invariants the sampling job relies on (see ossa/animation.h) by
 * replaying the forward cursor: each key's previous key must be the current head of some
 * track's chain, which also proves that no key is the previous of two keys. */
static ossa_result validate_channel(const ossa_animation *a, const ossa_animation_channel *c, int channel)
{
    const size_t padded = a->soa_count * 4;
    const size_t n = c->key_count;
    if (padded == 0) return n == 0 ? OSSA_OK : OSSA_ERROR_INVALID_ANIMATION;
    if (n < 2 * padded) return OSSA_ERROR_INVALID_ANIMATION;
    /* current[t] = index of the last key of track t consumed so far (its chain's head). */
    uint32_t current[OSSA_MAX_SOA_JOINTS * 4];
    for (size_t k = 0; k < padded; ++k) {
        if (c->previous[k] != 0 || time_index(c, k) != 0) return OSSA_ERROR_INVALID_ANIMATION;
        current[k] = (uint32_t)k;
    }
    for (size_t k = padded; k < 2 * padded; ++k)
        if (c->previous[k] != padded) return OSSA_ERROR_INVALID_ANIMATION;
    float last_prev_time = 0.f;
    size_t hint = 0;
    for (size_t k = padded; k < n; ++k) {
        const size_t ti = time_index(c, k);
        if (ti >= a->timepoint_count || c->previous[k] == 0 || c->previous[k] > k) return OSSA_ERROR_INVALID_ANIMATION;
        const size_t prev = k - c->previous[k];
        const float prev_time = a->timepoints[time_index(c, prev)];
        if (prev_time < last_prev_time || !(a->timepoints[ti] > prev_time)) return OSSA_ERROR_INVALID_ANIMATION;
        last_prev_time = prev_time;
        /* prev must be the head of some track's chain: find it, starting from the last hit. */
        size_t t = hint, tried = 0;
        while (tried < padded && current[t] != prev) {
            t = t + 1 == padded ? 0 : t + 1;
            ++tried;
        }
        if (tried == padded) return OSSA_ERROR_INVALID_ANIMATION;
        current[t] = (uint32_t)k;
        hint = t;
    }
    /* Every chain ends at ratio 1. */
    for (size_t t = 0; t < padded; ++t)
        if (time_index(c, current[t]) != a->timepoint_count - 1) return OSSA_ERROR_INVALID_ANIMATION;
    /* Values: rotations carry packed bits, halves must be finite. */
    for (size_t i = 0; i < 3 * n; ++i) {
        const uint16_t v = c->values[i];
        if (channel != 1 && (v & 0x7c00u) == 0x7c00u) return OSSA_ERROR_INVALID_ANIMATION;
    }
    return OSSA_OK;
}

static bool take_channel(ossa__cursor *cur, ossa_animation_channel *c, uint32_t key_count, bool wide)
{
    c->key_count = key_count;
    if (wide) {
        c->time_index16 = (const uint16_t *)(const void *)ossa__take(cur, key_count, 2, 4);
        if (!c->time_index16) return false;
    } else {
        c->time_index8 = ossa__take(cur, key_count, 1, 4);
        if (!c->time_index8) return false;
    }
    c->previous = (const uint16_t *)(const void *)ossa__take(cur, key_count, 2, 4);
    c->values = (const uint16_t *)(const void *)ossa__take(cur, (size_t)key_count * 3u, 2, 4);
    return c->previous && c->values;
}

static ossa_result init(ossa_animation *a, const uint8_t *blob, size_t size)
{
    ossa__cursor cur = {blob, size, 0};
    const uint8_t *h = ossa__take(&cur, HEADER_SIZE, 1, 1);
    if (!h) return OSSA_ERROR_TRUNCATED;
    const float duration = ossa__load_f32(h);
    const uint32_t track_count = ossa__load_u32(h + 4);
    const uint32_t timepoint_count = ossa__load_u32(h + 8);
    const uint32_t flags = ossa__load_u32(h + 12);
    uint32_t key_count[3];
    for (int i = 0; i < 3; ++i) key_count[i] = ossa__load_u32(h + 16 + 4 * i);
    const uint32_t name_size = ossa__load_u32(h + 28);
    /* Iframe fields (interval, counts, sizes) are reserved in this version. */
    for (int i = 32; i < HEADER_SIZE; i += 4)
        if (ossa__load_u32(h + i) != 0) return i == 60 ? OSSA_ERROR_INVALID_ANIMATION : OSSA_ERROR_UNSUPPORTED_VERSION;
    if (!isfinite(duration) || !(duration > 0.f)) return OSSA_ERROR_INVALID_ANIMATION;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (flags & ~OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES) return OSSA_ERROR_INVALID_ANIMATION;
    const bool wide = (flags & OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES) != 0;
    if (timepoint_count < 2 || timepoint_count > 65536u || (!wide && timepoint_count > 256u))
        return OSSA_ERROR_INVALID_ANIMATION;

    a->duration = duration;
    a->track_count = track_count;
    a->soa_count = (track_count + 3u) / 4u;
    a->timepoint_count = timepoint_count;
    a->timepoints = (const float *)(const void *)ossa__take(&cur, timepoint_count, 4, 4);
    if (!a->timepoints) return OSSA_ERROR_TRUNCATED;
    if (!take_channel(&cur, &a->translations, key_count[0], wide) ||
        !take_channel(&cur, &a->rotations, key_count[1], wide) ||
        !take_channel(&cur, &a->scales, key_count[2], wide))
        return OSSA_ERROR_TRUNCATED;
    const uint8_t *name = ossa__take(&cur, name_size, 1, 4);
    if (!name) return OSSA_ERROR_TRUNCATED;
    if (name_size == 0 || name[name_size - 1] != '\0') return OSSA_ERROR_INVALID_ANIMATION;
    if (size > ossa__pad16(cur.pos)) return OSSA_ERROR_INVALID_ANIMATION;
    a->name = (const char *)name;

    if (a->timepoints[0] != 0.f || a->timepoints[timepoint_count - 1] != 1.f) return OSSA_ERROR_INVALID_ANIMATION;
    for (size_t i = 1; i < timepoint_count; ++i)
        if (!(a->timepoints[i] > a->timepoints[i - 1])) return OSSA_ERROR_INVALID_ANIMATION;
    const ossa_animation_channel *channels[3] = {&a->translations, &a->rotations, &a->scales};
    for (int i = 0; i < 3; ++i) {
        ossa_result r = validate_channel(a, channels[i], i);
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

ossa_result ossa_animation_init(ossa_animation *animation, const void *blob, size_t size)
{
    if (!animation) return OSSA_ERROR_NULL_ARGUMENT;
    memset(animation, 0, sizeof *animation);
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    if (!ossa__host_is_little_endian()) return OSSA_ERROR_UNSUPPORTED_HOST;
    if ((uintptr_t)blob & 15u) return OSSA_ERROR_MISALIGNED;
    ossa_result r = init(animation, blob, size);
    if (r != OSSA_OK) memset(animation, 0, sizeof *animation);
    return r;
}

size_t ossa_animation_data_size(const ossa_animation *a)
{
    if (!a) return 0;
    const size_t index_size = a->translations.time_index16 ? 2 : 1;
    size_t keys = a->translations.key_count + a->rotations.key_count + a->scales.key_count;
    return HEADER_SIZE + a->timepoint_count * sizeof(float) + keys * (index_size + 2 + 6) + strlen(a->name) + 1;
}
