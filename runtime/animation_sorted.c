/* Validation of the sorted-key layout (OSSA_ANIMATION_FLAG_SORTED_KEYS; docs/animation-format.md,
 * "The sorted-key layout"). The validator replays the stream as the sampler reads it forward and
 * requires the iframes to be exactly the states it passes through, so a sampling job reads only
 * keys that exist, of the slots they name, in the order the sampler needs them. */
#include <math.h>
#include <string.h>

#include "animation_sorted.h"
#include "checks.h"

/* Channel of every slot, and the ranges: min[3], step[3] per slot, finite, steps >= 0, and the
 * largest value a key can decode to finite. */
static ossa_result check_ranges(const ossa_animation *a, uint8_t *channel)
{
    size_t i = 0, r = 0;
    for (size_t s = 0; s < 3 * a->track_count; ++s) {
        if (ossa__kind(a->kinds, s) != OSSA__KIND_ANIMATED) continue;
        channel[i++] = (uint8_t)(s % 3);
        if (r + 6 > a->range_count) return OSSA_ERROR_INVALID_ANIMATION;
        const float *g = a->ranges + r;
        for (int c = 0; c < 3; ++c)
            if (!isfinite(g[c]) || !isfinite(g[3 + c]) || g[3 + c] < 0.f || !isfinite(g[c] + g[3 + c] * 65535.f))
                return OSSA_ERROR_INVALID_ANIMATION;
        r += 6;
    }
    return r == a->range_count ? OSSA_OK : OSSA_ERROR_INVALID_ANIMATION;
}

/* Slot and frame of key k, checked against the clip: a slot below A, a time point below F, the
 * info bits its channel may use. */
static bool key_ok(const ossa_animation *a, const uint8_t *channel, size_t k, uint32_t *slot, uint32_t *frame)
{
    const uint8_t *key = ossa__sorted_key(a, k);
    const uint32_t info = ossa__sorted_u16(key + 2);
    *frame = ossa__sorted_u16(key);
    *slot = info & OSSA__SORTED_SLOT_MASK;
    if (*slot >= a->animated_count || *frame >= a->frame_count) return false;
    const uint32_t extra = info >> OSSA__SORTED_DROP_SHIFT;
    return channel[*slot] == OSSA__CH_ROTATION ? extra < 8u : extra == 0u;
}

static ossa_result check_stream(const ossa_animation *a, const uint8_t *channel)
{
    const size_t A = a->animated_count, K = a->key_count, N = a->iframe_interval;
    uint32_t left[3 * OSSA_MAX_JOINTS], right[3 * OSSA_MAX_JOINTS], right_frame[3 * OSSA_MAX_JOINTS];
    uint32_t slot, frame;
    if (K < 2 * A) return OSSA_ERROR_INVALID_ANIMATION;
    /* The first two keys of every slot, in slot order. */
    for (size_t s = 0; s < A; ++s) {
        if (!key_ok(a, channel, s, &slot, &frame) || slot != s || frame != 0) return OSSA_ERROR_INVALID_ANIMATION;
        if (!key_ok(a, channel, A + s, &slot, &frame) || slot != s || frame == 0) return OSSA_ERROR_INVALID_ANIMATION;
        left[s] = (uint32_t)s, right[s] = (uint32_t)(A + s), right_frame[s] = frame;
    }
    /* Then each key when its slot's right key is passed: the right key's time point (the key's
     * "need") never decreases along the stream, and the key comes after it. */
    size_t p = 2 * A;
    uint32_t need = 0;
    const size_t words = ossa__sorted_iframe_words(A);
    for (size_t i = 1; i <= a->segment_count + 1; ++i) {
        const size_t until = i <= a->segment_count ? i * N : (size_t)UINT32_MAX;
        for (; p < K; ++p) {
            if (!key_ok(a, channel, p, &slot, &frame)) return OSSA_ERROR_INVALID_ANIMATION;
            if (right_frame[slot] > until) break;
            if (right_frame[slot] < need || frame <= right_frame[slot]) return OSSA_ERROR_INVALID_ANIMATION;
            need = right_frame[slot];
            left[slot] = right[slot], right[slot] = (uint32_t)p, right_frame[slot] = frame;
        }
        if (i > a->segment_count) break;
        /* Iframe i is the state at time point i * N. */
        const uint32_t *f = a->iframes + (i - 1) * words;
        if (f[0] != p || memcmp(f + 1, left, A * 4) || memcmp(f + 1 + A, right, A * 4))
            return OSSA_ERROR_INVALID_ANIMATION;
    }
    for (size_t s = 0; s < A; ++s)
        if (right_frame[s] != a->frame_count - 1) return OSSA_ERROR_INVALID_ANIMATION;
    return OSSA_OK;
}

ossa_result ossa__animation_init_sorted(ossa_animation *a, ossa__cursor *cur, uint32_t range_count,
                                        uint32_t iframe_count, uint32_t data_size, uint32_t key_count,
                                        uint32_t name_size, size_t size)
{
    const size_t A = a->animated_count, N = a->iframe_interval;
    if (a->frame_count > OSSA__SORTED_MAX_FRAMES || N < OSSA__SORTED_MIN_INTERVAL || N > OSSA__SORTED_MAX_INTERVAL ||
        iframe_count != ossa__sorted_iframe_count(a->frame_count, N) || A > 3u * OSSA_MAX_JOINTS)
        return OSSA_ERROR_INVALID_ANIMATION;
    if ((uint64_t)key_count * OSSA__SORTED_KEY_SIZE != data_size) return OSSA_ERROR_INVALID_ANIMATION;
    a->ranges = (const float *)(const void *)ossa__take(cur, range_count, 4, 4);
    a->range_count = range_count;
    a->iframes = (const uint32_t *)(const void *)ossa__take(cur, iframe_count * ossa__sorted_iframe_words(A), 4, 4);
    a->data = ossa__take(cur, data_size, 1, 4);
    a->data_size = data_size;
    const uint8_t *name = ossa__take(cur, name_size, 1, 4);
    if (!a->ranges || !a->iframes || !a->data || !name) return OSSA_ERROR_TRUNCATED;
    if (name_size == 0 || name[name_size - 1] != '\0') return OSSA_ERROR_INVALID_ANIMATION;
    if (size > ossa__pad16(cur->pos)) return OSSA_ERROR_INVALID_ANIMATION;
    a->name = (const char *)name;
    a->key_count = key_count;
    if (a->timepoints) {
        if (a->timepoints[0] != 0.f || a->timepoints[a->frame_count - 1] != 1.f) return OSSA_ERROR_INVALID_ANIMATION;
        for (size_t i = 1; i < a->frame_count; ++i)
            if (!(a->timepoints[i] > a->timepoints[i - 1])) return OSSA_ERROR_INVALID_ANIMATION;
    }
    ossa_result r = ossa__check_constants(a);
    if (r != OSSA_OK) return r;
    uint8_t channel[3 * OSSA_MAX_JOINTS];
    if ((r = check_ranges(a, channel)) != OSSA_OK) return r;
    return check_stream(a, channel);
}

size_t ossa__animation_keys_sorted(const ossa_animation *a, size_t subtrack, uint8_t *out)
{
    size_t slot = 0;
    for (size_t i = 0; i < subtrack; ++i) slot += ossa__kind(a->kinds, i) == OSSA__KIND_ANIMATED;
    size_t count = 0;
    for (size_t k = 0; k < a->key_count; ++k) {
        const uint8_t *key = ossa__sorted_key(a, k);
        if ((ossa__sorted_u16(key + 2) & OSSA__SORTED_SLOT_MASK) != slot) continue;
        out[ossa__sorted_u16(key)] = 1, ++count;
    }
    return count;
}

void ossa__animation_sizes_sorted(const ossa_animation *a, ossa_animation_size_breakdown *out)
{
    /* The caller filled header, time points, kinds, constants and name. */
    out->ranges = a->range_count * sizeof(float);
    out->segment_table = a->segment_count * ossa__sorted_iframe_words(a->animated_count) * 4;
    /* Each key's time point and slot (4 bytes) count as its "bitmap": where and whose it is. */
    out->bitmaps = 4 * a->key_count;
    size_t per_channel[3] = {0, 0, 0};
    uint8_t channel[3 * OSSA_MAX_JOINTS];
    size_t i = 0;
    for (size_t s = 0; s < 3 * a->track_count; ++s)
        if (ossa__kind(a->kinds, s) == OSSA__KIND_ANIMATED) channel[i++] = (uint8_t)(s % 3);
    for (size_t k = 0; k < a->key_count; ++k)
        per_channel[channel[ossa__sorted_u16(ossa__sorted_key(a, k) + 2) & OSSA__SORTED_SLOT_MASK]] += 6;
    out->translation_values = per_channel[0];
    out->rotation_values = per_channel[1];
    out->scale_values = per_channel[2];
}
