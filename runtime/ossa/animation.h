/* ossa/animation.h: the runtime animation, a validated zero-copy view over a blob of
 * ozz-style sorted, quantised keyframe streams.
 *
 *   ossa_animation anim;
 *   if (ossa_animation_init(&anim, blob, blob_size) != OSSA_OK) { ... }
 *   printf("%s: %.2f s, %zu joints\n", anim.name, anim.duration, anim.track_count);
 *
 * Ownership: the caller owns the blob (from the offline animation builder or a .ossa archive)
 * and keeps it alive while the view and any sampling job use it. Nothing is allocated.
 *
 * Keyframe layout (one stream per channel: translation, rotation, scale). Tracks are padded
 * to a multiple of 4 (the padding tracks hold identity keys). Keys are sorted by the time of
 * each key's previous key of the same track, then by track; so the first `padded` keys are
 * the keys at ratio 0 of tracks 0..padded-1, followed by their successors. A constant track
 * (every key equal) is stored once: its key at ratio 0 and no other. Each
 * key stores the offset back to its track's previous key (16 bits; the builder injects a key
 * when an offset would overflow), an index into a shared table of time points (ratios in
 * [0, 1], 8-bit indices when the table has at most 256 entries, else 16-bit) and its value:
 * translations and scales as 3 half floats; rotations as the 3 smallest components times
 * sqrt(2) quantised to 15 bits, with the dropped component's index in bit 15 of values 0 and
 * 1 and its sign in bit 15 of value 2. Source: ozz-animation 0.15 Animation and
 * AnimationBuilder (see the ozz runtime documentation); the bit packing is ossa's own.
 *
 * Blob layout (little-endian, 16-byte aligned), version OSSA_ANIMATION_BLOB_VERSION:
 *   header (64 bytes): f32 duration, u32 track_count, u32 timepoint_count, u32 flags,
 *     u32 key_count[3], u32 name_size, f32 iframe_interval, u32 iframe_count[3],
 *     u32 iframe_data_size[3], u32 reserved
 *   f32 timepoints[timepoint_count]
 *   per channel (translation, rotation, scale), each array padded to 4 bytes:
 *     u8|u16 time_index[key_count], u16 previous[key_count], u16 values[3 * key_count],
 *     u32 iframe_desc[2 * iframe_count], u8 iframe_data[iframe_data_size]
 *   f32 translation_ranges[24 * ceil(track_count / 4)] when OSSA_ANIMATION_FLAG_RANGED_TRANSLATIONS
 *     is set (16-byte aligned; per SoA group: min x[4], y[4], z[4], step x[4], y[4], z[4])
 *   char name[name_size] (NUL-terminated)
 *
 * Ranged translations: component c of a key is min_c + q * step_c with q the stored 16-bit
 * value and step_c = (max_c - min_c) / 65535 over the track's keys, so the error is at most
 * half a step whatever the distance from the origin (half floats lose 2^-11 of the value).
 *
 * Iframes (per channel) are snapshots of the sampling cursor: iframe i holds the cursor
 * position c_i (keys [0, c_i) loaded) and, for every padded track, the distance
 * c_i - 1 - entry from the cursor back to the track's current right key, encoded with group
 * varint (one tag byte per 4 values, 2 bits each giving the byte length minus one, then the
 * little-endian bytes). iframe_desc holds (c_i, byte offset of its data) pairs with c_i
 * strictly increasing. The sampling job seeks through the nearest iframe when that walks
 * fewer keys than moving the cursor, so random access costs a binary search, one decode and
 * at most one interval of keys whatever the clip length. Source: ozz-animation 0.15 iframes
 * (group varint as described by J. Dean, "Challenges in building large-scale information
 * retrieval systems", WSDM 2009); positions and delta coding are ossa's own.
 */
#ifndef OSSA_ANIMATION_H
#define OSSA_ANIMATION_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_ANIMATION_BLOB_VERSION 1u
/* flags: time indices are 16-bit (else 8-bit). */
#define OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES 0x1u
/* flags: translations are 16-bit fractions of a per-track range (else half floats). */
#define OSSA_ANIMATION_FLAG_RANGED_TRANSLATIONS 0x2u

/* One channel's keyframe stream. */
typedef struct ossa_animation_channel {
    size_t key_count;             /* keys over all padded tracks, >= padded track count */
    const uint8_t *time_index8;   /* [key_count] when the animation uses 8-bit indices, else NULL */
    const uint16_t *time_index16; /* [key_count] when it uses 16-bit indices, else NULL */
    const uint16_t *previous;     /* [key_count] offset to the track's previous key (0 for first keys) */
    const uint16_t *values;       /* [3 * key_count] quantised values */
    size_t iframe_count;          /* snapshots of the cursor */
    const uint32_t *iframe_desc;  /* [2 * iframe_count] (cursor, data offset) pairs */
    const uint8_t *iframe_data;   /* [iframe_data_size] group-varint entries */
    size_t iframe_data_size;
} ossa_animation_channel;

/* Runtime animation: a view over a validated blob. */
typedef struct ossa_animation {
    float duration;          /* seconds, > 0 */
    size_t track_count;      /* animated joints (the skeleton's joint count) */
    size_t soa_count;        /* ceil(track_count / 4) */
    size_t timepoint_count;  /* entries of timepoints */
    const float *timepoints; /* [timepoint_count] strictly increasing ratios, 0 first, 1 last */
    ossa_animation_channel translations;
    ossa_animation_channel rotations;
    ossa_animation_channel scales;
    const char *name;                /* NUL-terminated, may be "" */
    float iframe_interval;           /* seconds between iframes as built (informative) */
    const float *translation_ranges; /* [24 * soa_count] when translations are ranged, else NULL */
} ossa_animation;

/* Validates `blob` and points `animation` into it. Validation checks every size against
 * `size`, every time index against the table, the key ordering invariants the sampling job
 * relies on (first keys at ratio 0 in track order, each previous offset pointing back to an
 * unused key of the same chain, previous-key times non-decreasing, each chain ending at ratio
 * 1), that every iframe decodes inside its data to exactly the cursor state a forward replay
 * reaches at its position, and that values are finite, so a sampling job cannot read out of
 * bounds on any blob that passes.
 * Shapes: `blob` is `size` bytes, 16-byte aligned. Cost: O(keys).
 * Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_MISALIGNED, OSSA_ERROR_TRUNCATED,
 * OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_INVALID_ANIMATION, OSSA_ERROR_UNSUPPORTED_HOST. `*animation` is zeroed on
 * error. */
OSSA_API ossa_result ossa_animation_init(ossa_animation *animation, const void *blob, size_t size);

/* Bytes of quantised data (keys, time points, name) the view covers, for size reports. */
OSSA_API size_t ossa_animation_data_size(const ossa_animation *animation);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_ANIMATION_H */
