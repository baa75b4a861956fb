/* Private: how a raw animation's channels are sampled between their keys (raw_animation.c),
 * inline for the builder's reference points (animation_reference.h), which sample a root's
 * translation and scale again: the same code, so the same floats. */
#ifndef OSSA_OFFLINE_RAW_SAMPLING_H
#define OSSA_OFFLINE_RAW_SAMPLING_H

#include "ossa/offline/raw_animation.h"

/* Index of the last key with time <= t (0 when t is before the first key). Binary search. */
#define LAST_KEY_AT_OR_BEFORE(keys, count, t, out)                                                                     \
    do {                                                                                                               \
        size_t lo_ = 0, hi_ = (count);                                                                                 \
        while (hi_ - lo_ > 1) {                                                                                        \
            size_t mid_ = (lo_ + hi_) / 2;                                                                             \
            if ((keys)[mid_].time <= (t))                                                                              \
                lo_ = mid_;                                                                                            \
            else                                                                                                       \
                hi_ = mid_;                                                                                            \
        }                                                                                                              \
        (out) = lo_;                                                                                                   \
    } while (0)

/* The same index from *cursor (NULL: the binary search): a walk of up to 8 keys forward from
 * the last answer, else the binary search. Keys ascend, so both find the last key at or
 * before t. */
#define LAST_KEY_FROM(keys, count, t, cursor, out)                                                                     \
    do {                                                                                                               \
        size_t k_ = (cursor) && *(cursor) < (count) ? *(cursor) : 0;                                                   \
        int steps_ = (cursor) && (keys)[k_].time <= (t) ? 0 : 8;                                                       \
        for (; steps_ < 8 && k_ + 1 < (count) && (keys)[k_ + 1].time <= (t); ++steps_) ++k_;                           \
        if (steps_ == 8) LAST_KEY_AT_OR_BEFORE(keys, count, t, k_);                                                    \
        if (cursor) *(cursor) = k_;                                                                                    \
        (out) = k_;                                                                                                    \
    } while (0)

static inline ossa_float3 ossa__sample_float3(const ossa_raw_float3_key *keys, size_t count, float t,
                                              ossa_float3 fallback, size_t *cursor)
{
    if (count == 0) return fallback;
    if (t <= keys[0].time) return keys[0].value;
    if (t >= keys[count - 1].time) return keys[count - 1].value;
    size_t k;
    LAST_KEY_FROM(keys, count, t, cursor, k);
    const ossa_raw_float3_key *a = &keys[k], *b = &keys[k + 1];
    const float alpha = (t - a->time) / (b->time - a->time);
    return (ossa_float3){a->value.x + (b->value.x - a->value.x) * alpha, a->value.y + (b->value.y - a->value.y) * alpha,
                         a->value.z + (b->value.z - a->value.z) * alpha};
}

/* Channel `keys` [count] of `animation` as ossa__raw_animation_sample_pass samples it at
 * `time` (fallback without keys), the same floats; cursor as one of the pass's (NULL: none). */
static inline ossa_float3 ossa__raw_sample_float3(const ossa_raw_animation *animation, const ossa_raw_float3_key *keys,
                                                  size_t count, float time, ossa_float3 fallback, size_t *cursor)
{
    const float t = time < 0.f ? 0.f : (time > animation->duration ? animation->duration : time);
    return ossa__sample_float3(keys, count, t, fallback, cursor);
}

#endif
