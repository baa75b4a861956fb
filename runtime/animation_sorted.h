/* Private: the sorted-key layout of the animation blob (OSSA_ANIMATION_FLAG_SORTED_KEYS), shared
 * by its validator (animation_sorted.c), its sampler (sampling_sorted.c) and its encoder
 * (offline/build/animation_sorted.c). The layout is documented in docs/animation-format.md,
 * "The sorted-key layout". Not installed. */
#ifndef OSSA_RUNTIME_ANIMATION_SORTED_H
#define OSSA_RUNTIME_ANIMATION_SORTED_H

#include <math.h>
#include <stdint.h>

#include "animation_format.h"
#include "blob.h"
#include "ossa/sampling_job.h"

/* One key: u16 time point, u16 info, u16 value[3] (10 bytes, 2-byte aligned).
 * info bits 0-11: the animated sub-track (slot, in sub-track order); for a rotation, bits 12-13:
 * the component rebuilt from the three stored, bit 14: that component is negative; bit 15 and,
 * for translations and scales, bits 12-14 are zero. */
enum {
    OSSA__SORTED_KEY_SIZE = 10,
    OSSA__SORTED_SLOT_MASK = 0xfff,
    OSSA__SORTED_DROP_SHIFT = 12,
    OSSA__SORTED_NEGATIVE = 1 << 14,
    /* Time points are u16 indices. */
    OSSA__SORTED_MAX_FRAMES = 65536,
    /* Header word (bytes 44..47, reserved in the packed layout): the iframe interval. */
    OSSA__ANIM_IFRAME_INTERVAL = 44,
    /* Iframe intervals the validator accepts (time points). */
    OSSA__SORTED_MIN_INTERVAL = 4,
    OSSA__SORTED_MAX_INTERVAL = 1024
};

static inline uint32_t ossa__sorted_u16(const uint8_t *p) { return (uint32_t)p[0] | ((uint32_t)p[1] << 8); }

static inline const uint8_t *ossa__sorted_key(const ossa_animation *a, size_t k)
{
    return a->data + k * OSSA__SORTED_KEY_SIZE;
}

/* Words of one iframe: the stream position, then per slot its left and right keys' indices. */
static inline size_t ossa__sorted_iframe_words(size_t animated_count) { return 1 + 2 * animated_count; }

/* Count of stored iframes of a clip of `frames` time points at `interval`: one at every nonzero
 * multiple of the interval up to frames - 2 (the largest time point the sampler interpolates
 * from). The state at time point 0 is the stream's start (each slot's first two keys). */
static inline size_t ossa__sorted_iframe_count(size_t frames, size_t interval) { return (frames - 2) / interval; }

/* Validation of the sections after the constants (animation_sorted.c); `cur` is past them. */
ossa_result ossa__animation_init_sorted(ossa_animation *a, ossa__cursor *cur, uint32_t range_count,
                                        uint32_t iframe_count, uint32_t data_size, uint32_t key_count,
                                        uint32_t name_size, size_t size);
/* ossa_animation_keys and ossa_animation_sizes of a sorted blob. */
size_t ossa__animation_keys_sorted(const ossa_animation *a, size_t subtrack, uint8_t *out);
void ossa__animation_sizes_sorted(const ossa_animation *a, ossa_animation_size_breakdown *out);

/* The sampler (sampling_sorted.c) and the context hooks it needs from sampling_job.c. */
size_t ossa__sorted_state_size(size_t soa_count, size_t animated_count);
/* The sorted-key sampler on a job that ossa_sampling_job_validate accepted. */
ossa_result ossa__sorted_run(const ossa_sampling_job *job);
/* The bytes after the context's header (`*size` of them) and its binding word. */
uint8_t *ossa__sampling_context_area(ossa_sampling_context *context, size_t *size, const uint8_t ***bound);

#endif /* OSSA_RUNTIME_ANIMATION_SORTED_H */
