/* ossa/animation.h: the runtime animation, a validated zero-copy view over a blob of
 * quantised, segmented keyframe streams.
 *
 *   ossa_animation anim;
 *   if (ossa_animation_init(&anim, blob, blob_size) != OSSA_OK) { ... }
 *   printf("%s: %.2f s, %zu joints\n", anim.name, anim.duration, anim.track_count);
 *
 * Ownership: the caller owns the blob (from the offline animation builder or a .ossa archive)
 * and keeps it alive while the view and any sampling job use it. Nothing is allocated.
 *
 * Model. A clip is sampled at `frame_count` time points (uniform, or listed in a table when
 * the source's key times are not uniform). Each joint has three sub-tracks (translation,
 * rotation, scale); each sub-track is either default (identity: zero translation, identity
 * rotation, unit scale; stored as nothing), at the rest pose (the skeleton's value, given to
 * the sampling job; stored as nothing), constant (one value) or animated: a subset of
 * the time points are its keys, linearly interpolated (rotations by normalised lerp), and the
 * first and last time points are always keys.
 *
 * Keys of animated sub-tracks are grouped in segments of 16 time points. In every segment
 * each animated sub-track has a key at the segment's first time point, so a segment can be
 * decoded without any earlier data: the segment table is the seek table (random access and
 * backward playback cost the same as forward playback). A segment holds one 16-bit bitmap per
 * animated sub-track (bit i: a key at the segment's time point i), then the segment ranges of
 * the sub-tracks that use them (2 bytes per component, in sub-track order), then the first-key
 * block (every sub-track's key at the segment's first time point, at the sub-track's clip
 * widths, so its position is the same in every segment), then the other keys, sub-track
 * after sub-track, each key's components bit-packed with the sub-track's own widths (0 to 24
 * bits, least significant bit first). So a key costs only its value bits: its track and time
 * are implied by the position in the segment and the bitmap.
 *
 * Values. Component c of an animated sub-track's key is min_c + q_c * step_c (q_c an integer
 * of the sub-track's width w_c, min and step per sub-track and component, so the quantisation
 * error is at most step_c / 2). A sub-track may also use segment ranges (format bit 7): each
 * segment then holds, per component, a byte base_c and a byte width v_c <= w_c, and a key
 * stores q_c - (base_c << max(0, w_c - 8)) on v_c bits, so components that move little
 * within a segment cost few bits. Rotations are stored either as three components, the fourth (chosen per
 * sub-track, the one that stays farthest from zero) rebuilt as +sqrt(1 - the others^2), or
 * as four components normalised by the interpolation. Consecutive rotation keys of a
 * sub-track lie in one hemisphere, so interpolation needs no sign test.
 *
 * Blob layout (little-endian, 16-byte aligned), version OSSA_ANIMATION_BLOB_VERSION, every
 * array starting on a 4-byte boundary:
 *   header (64 bytes): f32 duration, u32 track_count, u32 frame_count, u32 flags,
 *     u32 animated_count, u32 constant_count, u32 segment_count, u32 name_size,
 *     u32 data_size, u32 key_count, u32 range_count, 20 reserved zero bytes
 *   f32 timepoints[frame_count]          when OSSA_ANIMATION_FLAG_TIMEPOINTS, else uniform:
 *                                        time point f is at ratio f / (frame_count - 1)
 *   u8  kinds[ceil(3 * track_count / 4)] 2 bits per sub-track joint * 3 + channel (channel 0
 *                                        translation, 1 rotation, 2 scale): 0 default,
 *                                        1 constant, 2 animated, 3 rest pose
 *   u32 constants[]                      per constant sub-track in sub-track order: 3 f32 for a
 *                                        translation or scale; 2 words for a rotation (smallest
 *                                        three on 20 bits each, dropped index in bits 60-61)
 *   u8  formats[animated_count]          rotation: index of the rebuilt component, or 4 when
 *                                        all four are stored; 0 for translations and scales;
 *                                        plus 0x80 when the sub-track uses segment ranges
 *   u8  bits[4 * animated_count]         width of each stored component
 *   f32 ranges[range_count]              per animated sub-track: min[n] then step[n], n = 3 or 4
 *   u32 segment_offsets[segment_count + 1] byte offsets into data, the last = data_size - 16
 *   u8  data[data_size]                  the segments, then 16 zero bytes (so a reader may load
 *                                        8 bytes at any key); data_size < 2^29 (bit offsets
 *                                        fit in 32 bits)
 *   char name[name_size]                 NUL-terminated
 *
 * Sorted-key layout (flags bit 1, OSSA_ANIMATION_FLAG_SORTED_KEYS; docs/animation-format.md, "The
 * sorted-key layout"): after the constants come f32 ranges[6 * animated_count] (min[3], step[3]
 * per animated sub-track), u32 iframes[segment_count][1 + 2 * animated_count] and key_count keys
 * of 10 bytes (u16 time point, u16 sub-track and rotation bits, u16 value[3]) sorted by the time
 * point the sampler needs each; header bytes 44-47 hold the iframe interval. No formats, bits or
 * segment offsets.
 * Source: the sorted keyframe stream of ozz-animation (keys, linear interpolation, ratio
 * clock) and the segmented, range-reduced, variable-bit-rate layout of ACL (N. Frechette,
 * Animation Compression Library); keys that are a subset of the time points, bitmaps
 * and per-sub-track widths chosen against the measured model-space error are ossa's own.
 */
#ifndef OSSA_ANIMATION_H
#define OSSA_ANIMATION_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_ANIMATION_BLOB_VERSION 2u
/* flags: a table of time points follows the header (else they are uniform). */
#define OSSA_ANIMATION_FLAG_TIMEPOINTS 0x1u
/* flags: the keys are one stream sorted by the time the sampler needs them, 16-bit values, with
 * seek points (iframes), instead of segments (docs/animation-format.md, "The sorted-key layout";
 * ossa bake --layout sorted). */
#define OSSA_ANIMATION_FLAG_SORTED_KEYS 0x2u

/* Runtime animation: a view over a validated blob (see the layout above). */
typedef struct ossa_animation {
    float duration;          /* seconds, > 0 */
    size_t track_count;      /* animated joints (the skeleton's joint count) */
    size_t soa_count;        /* ceil(track_count / 4) */
    size_t frame_count;      /* time points, >= 2 */
    const float *timepoints; /* [frame_count] strictly increasing ratios, 0 first and 1 last;
                                NULL when uniform */
    size_t animated_count;   /* animated sub-tracks */
    size_t constant_count;   /* constant sub-tracks */
    size_t rest_count;       /* sub-tracks at the skeleton's rest pose (sampling needs it) */
    size_t key_count;        /* keys over all animated sub-tracks */
    size_t segment_count;    /* ceil(frame_count / 16) */
    const uint8_t *kinds;    /* [ceil(3 * track_count / 4)] 2 bits per sub-track */
    const uint32_t *constants;
    const uint8_t *formats; /* [animated_count] */
    const uint8_t *bits;    /* [4 * animated_count] */
    const float *ranges;    /* [range_count] */
    size_t range_count;
    const uint32_t *segment_offsets; /* [segment_count + 1] */
    const uint8_t *data;             /* [data_size] */
    size_t data_size;
    const char *name; /* NUL-terminated, may be "" */
    uint32_t flags;   /* OSSA_ANIMATION_FLAG_* */
    /* Sorted-key layout only (flags & OSSA_ANIMATION_FLAG_SORTED_KEYS; then formats, bits and
     * segment_offsets are NULL, segment_count is the iframe count and data holds key_count keys
     * of 10 bytes): */
    const uint32_t *iframes; /* [segment_count * (1 + 2 * animated_count)] seek points */
    size_t iframe_interval;  /* time points between two iframes */
} ossa_animation;

/* Where an animation's bytes go (ossa_animation_sizes). Every field is in bytes; the fields
 * add up to the blob size. */
typedef struct ossa_animation_size_breakdown {
    size_t header;             /* fixed header */
    size_t timepoints;         /* time point table (0 when uniform) */
    size_t kinds;              /* sub-track kinds */
    size_t constants;          /* constant sub-track values */
    size_t descriptors;        /* formats and widths of animated sub-tracks */
    size_t ranges;             /* range tables (min and step) of animated sub-tracks */
    size_t segment_table;      /* segment offsets (the seek table) */
    size_t bitmaps;            /* key bitmaps (the key times) */
    size_t segment_ranges;     /* per-segment ranges of the sub-tracks that use them */
    size_t translation_values; /* bit-packed key values, by channel, rounded to bytes */
    size_t rotation_values;
    size_t scale_values;
    size_t padding; /* alignment, segment byte padding, read padding */
    size_t name;
} ossa_animation_size_breakdown;

/* Validates `blob` and points `animation` into it. Validation checks every size against
 * `size`, the kinds, formats, widths and ranges (finite, steps >= 0), the time points, and
 * that every segment's bitmaps have their first bit set, no bit past the clip's last time
 * point and that bit set in the last segment, and that the keys they announce fit in the
 * segment, so a sampling job cannot read out of bounds on any blob that passes.
 * Shapes: `blob` is `size` bytes, 16-byte aligned. Cost: O(segments x animated sub-tracks).
 * Errors: OSSA_ERROR_NULL_ARGUMENT, OSSA_ERROR_MISALIGNED, OSSA_ERROR_TRUNCATED,
 * OSSA_ERROR_TOO_MANY_JOINTS, OSSA_ERROR_INVALID_ANIMATION, OSSA_ERROR_UNSUPPORTED_HOST.
 * `*animation` is zeroed on error. */
OSSA_API ossa_result ossa_animation_init(ossa_animation *animation, const void *blob, size_t size);

/* Bytes of the blob the view covers (header to name, padded to 16 bytes). */
OSSA_API size_t ossa_animation_data_size(const ossa_animation *animation);

/* Fills `out` with where the bytes of `animation` go (see ossa_animation_size_breakdown);
 * zeroed when either is NULL. Cost: O(segments x animated sub-tracks). */
OSSA_API void ossa_animation_sizes(const ossa_animation *animation, ossa_animation_size_breakdown *out);

/* Kind of joint `joint`'s `channel` (0 translation, 1 rotation, 2 scale): 0 default,
 * 1 constant, 2 animated, 3 rest pose; 0 when out of range. */
OSSA_API int ossa_animation_channel_kind(const ossa_animation *animation, size_t joint, int channel);

/* Which time points hold a key of joint `joint`'s `channel`: out[f] = 1 for a key at time
 * point f, else 0 (`out` has `size` >= animation->frame_count bytes). Returns the key count,
 * 0 for a sub-track that is not animated (default, constant, rest pose) and when an argument
 * is out of range or NULL. For tools that show a clip's keys; the sampling job never needs it.
 * Cost: O(segments + joints). */
OSSA_API size_t ossa_animation_keys(const ossa_animation *animation, size_t joint, int channel, uint8_t *out,
                                    size_t size);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_ANIMATION_H */
