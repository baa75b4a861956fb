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

/* Compares iframe `i` of channel `c` with the replayed state `current` at its cursor. */
static bool iframe_matches(const ossa_animation_channel *c, size_t i, const uint32_t *current, size_t padded)
{
    uint32_t deltas[OSSA_MAX_SOA_JOINTS * 4];
    const uint32_t cursor = c->iframe_desc[2 * i], offset = c->iframe_desc[2 * i + 1];
    if (offset >= c->iframe_data_size) return false;
    if (ossa__gv_decode(c->iframe_data, c->iframe_data_size, offset, deltas, padded) == 0) return false;
    for (size_t t = 0; t < padded; ++t)
        if (deltas[t] >= cursor || cursor - 1 - deltas[t] != current[t]) return false;
    return true;
}

/* Checks the ordering invariants the sampling job relies on (see ossa/animation.h) by
 * replaying the forward cursor: each key's previous key must be the current head of some
 * track's chain, which also proves that no key is the previous of two keys. Iframes are
 * compared with the replayed state at their cursor. */
static ossa_result validate_channel(const ossa_animation *a, const ossa_animation_channel *c, int channel)
{
    const size_t padded = a->soa_count * 4;
    const size_t n = c->key_count;
    if (padded == 0) return n == 0 && c->iframe_count == 0 ? OSSA_OK : OSSA_ERROR_INVALID_ANIMATION;
    if (n < padded) return OSSA_ERROR_INVALID_ANIMATION;
    for (size_t i = 0; i < c->iframe_count; ++i) {
        const uint32_t cursor = c->iframe_desc[2 * i];
        if (cursor < padded || cursor > n || (i && cursor <= c->iframe_desc[2 * i - 2]))
            return OSSA_ERROR_INVALID_ANIMATION;
    }
    /* current[t] = index of the last key of track t consumed so far (its chain's head). */
    uint32_t current[OSSA_MAX_SOA_JOINTS * 4];
    for (size_t k = 0; k < padded; ++k) {
        if (c->previous[k] != 0 || time_index(c, k) != 0) return OSSA_ERROR_INVALID_ANIMATION;
        current[k] = (uint32_t)k;
    }
    float last_prev_time = 0.f;
    size_t hint = 0, next_iframe = 0;
    for (size_t k = padded; k <= n; ++k) {
        if (next_iframe < c->iframe_count && c->iframe_desc[2 * next_iframe] == k) {
            if (!iframe_matches(c, next_iframe, current, padded)) return OSSA_ERROR_INVALID_ANIMATION;
            ++next_iframe;
        }
        if (k == n) break;
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
    /* Every chain ends at ratio 1, or is a constant track's single key. */
    for (size_t t = 0; t < padded; ++t)
        if (current[t] != t && time_index(c, current[t]) != a->timepoint_count - 1) return OSSA_ERROR_INVALID_ANIMATION;
    /* Values: rotations carry packed bits, halves must be finite. */
    const bool halves = channel == 2 || (channel == 0 && !a->translation_ranges);
    for (size_t i = 0; halves && i < 3 * n; ++i)
        if ((c->values[i] & 0x7c00u) == 0x7c00u) return OSSA_ERROR_INVALID_ANIMATION;
    return OSSA_OK;
}

static bool take_channel(ossa__cursor *cur, ossa_animation_channel *c, uint32_t key_count, bool wide,
                         uint32_t iframe_count, uint32_t iframe_data_size)
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
    c->iframe_count = iframe_count;
    c->iframe_desc = (const uint32_t *)(const void *)ossa__take(cur, (size_t)iframe_count * 2u, 4, 4);
    c->iframe_data = ossa__take(cur, iframe_data_size, 1, 4);
    c->iframe_data_size = iframe_data_size;
    return c->previous && c->values && c->iframe_desc && c->iframe_data;
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
    const float iframe_interval = ossa__load_f32(h + 32);
    uint32_t iframe_count[3], iframe_size[3];
    for (int i = 0; i < 3; ++i) {
        iframe_count[i] = ossa__load_u32(h + 36 + 4 * i);
        iframe_size[i] = ossa__load_u32(h + 48 + 4 * i);
    }
    if (ossa__load_u32(h + 60) != 0 || !isfinite(iframe_interval) || iframe_interval < 0.f)
        return OSSA_ERROR_INVALID_ANIMATION;
    if (!isfinite(duration) || !(duration > 0.f)) return OSSA_ERROR_INVALID_ANIMATION;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (flags & ~(OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES | OSSA_ANIMATION_FLAG_RANGED_TRANSLATIONS))
        return OSSA_ERROR_INVALID_ANIMATION;
    const bool wide = (flags & OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES) != 0;
    if (timepoint_count < 2 || timepoint_count > 65536u || (!wide && timepoint_count > 256u))
        return OSSA_ERROR_INVALID_ANIMATION;

    a->duration = duration;
    a->track_count = track_count;
    a->soa_count = (track_count + 3u) / 4u;
    a->timepoint_count = timepoint_count;
    a->timepoints = (const float *)(const void *)ossa__take(&cur, timepoint_count, 4, 4);
    if (!a->timepoints) return OSSA_ERROR_TRUNCATED;
    a->iframe_interval = iframe_interval;
    if (!take_channel(&cur, &a->translations, key_count[0], wide, iframe_count[0], iframe_size[0]) ||
        !take_channel(&cur, &a->rotations, key_count[1], wide, iframe_count[1], iframe_size[1]) ||
        !take_channel(&cur, &a->scales, key_count[2], wide, iframe_count[2], iframe_size[2]))
        return OSSA_ERROR_TRUNCATED;
    if (flags & OSSA_ANIMATION_FLAG_RANGED_TRANSLATIONS) {
        a->translation_ranges = (const float *)(const void *)ossa__take(&cur, a->soa_count * 24u, 4, 16);
        if (!a->translation_ranges) return OSSA_ERROR_TRUNCATED;
        for (size_t i = 0; i < a->soa_count * 24u; ++i) {
            const float v = a->translation_ranges[i];
            if (!isfinite(v) || ((i % 24u) >= 12u && v < 0.f)) return OSSA_ERROR_INVALID_ANIMATION;
        }
    }
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
    const ossa_animation_channel *c[3] = {&a->translations, &a->rotations, &a->scales};
    size_t bytes = HEADER_SIZE + a->timepoint_count * sizeof(float) + strlen(a->name) + 1;
    if (a->translation_ranges) bytes += a->soa_count * 24 * sizeof(float);
    for (int i = 0; i < 3; ++i)
        bytes += c[i]->key_count * (index_size + 2 + 6) + c[i]->iframe_count * 8 + c[i]->iframe_data_size;
    return bytes;
}
