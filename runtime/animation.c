#include "ossa/animation.h"

#include <math.h>
#include <string.h>

#include "animation_format.h"
#include "animation_sorted.h"
#include "checks.h"
#include "blob.h"

static size_t kinds_size(size_t track_count) { return (3 * track_count + 3) / 4; }

/* Bytes of the constant values that the kinds table announces. */
static size_t constants_words(const uint8_t *kinds, size_t track_count, size_t *constant_count, size_t *animated_count)
{
    size_t words = 0;
    *constant_count = *animated_count = 0;
    for (size_t s = 0; s < 3 * track_count; ++s) {
        const uint32_t k = ossa__kind(kinds, s);
        if (k == OSSA__KIND_CONSTANT) {
            words += s % 3 == OSSA__CH_ROTATION ? 2 : 3;
            ++*constant_count;
        } else if (k == OSSA__KIND_ANIMATED) {
            ++*animated_count;
        }
    }
    return words;
}

/* Channel of animated sub-track i (in sub-track order). */
static void animated_channels(const ossa_animation *a, uint8_t *channel)
{
    size_t i = 0;
    for (size_t s = 0; s < 3 * a->track_count; ++s)
        if (ossa__kind(a->kinds, s) == OSSA__KIND_ANIMATED) channel[i++] = (uint8_t)(s % 3);
}

/* Formats, widths, ranges and constants (see ossa/animation.h). */
static ossa_result validate_tracks(const ossa_animation *a, const uint8_t *channel, unsigned *key_bits)
{
    size_t r = 0;
    for (size_t i = 0; i < a->animated_count; ++i) {
        const int format = a->formats[i] & OSSA__FORMAT_MASK;
        if (channel[i] == OSSA__CH_ROTATION ? format > OSSA__ROT_FULL : format != 0)
            return OSSA_ERROR_INVALID_ANIMATION;
        const int n = ossa__format_components(channel[i], format);
        key_bits[i] = 0;
        for (int c = 0; c < 4; ++c) {
            const unsigned w = a->bits[4 * i + (size_t)c];
            if (w > OSSA__MAX_BITS || (c >= n && w != 0)) return OSSA_ERROR_INVALID_ANIMATION;
            key_bits[i] += w;
        }
        if (r + 2u * (size_t)n > a->range_count) return OSSA_ERROR_INVALID_ANIMATION;
        for (int c = 0; c < 2 * n; ++c) {
            const float v = a->ranges[r + (size_t)c];
            if (!isfinite(v) || (c >= n && v < 0.f)) return OSSA_ERROR_INVALID_ANIMATION;
        }
        /* The largest integer a key can decode to (its own bits over the largest segment range
         * base) must dequantise to a finite value: the job's output stays finite. */
        for (int c = 0; c < n; ++c) {
            const unsigned w = a->bits[4 * i + (size_t)c];
            const float qmax = (float)((1u << w) - 1u) + (float)(255u << ossa__segment_shift(w));
            if (!isfinite(a->ranges[r + (size_t)c] + a->ranges[r + (size_t)n + (size_t)c] * qmax))
                return OSSA_ERROR_INVALID_ANIMATION;
        }
        r += 2u * (size_t)n;
    }
    if (r != a->range_count) return OSSA_ERROR_INVALID_ANIMATION;
    return ossa__check_constants(a);
}

/* Bytes of segment range entries in every segment (see OSSA__FORMAT_SEGMENT_RANGES). */
static size_t entries_size(const ossa_animation *a, const uint8_t *channel)
{
    size_t bytes = 0;
    for (size_t i = 0; i < a->animated_count; ++i)
        if (a->formats[i] & OSSA__FORMAT_SEGMENT_RANGES)
            bytes += 2u * (size_t)ossa__format_components(channel[i], a->formats[i]);
    return bytes;
}

/* Segment table, bitmaps and segment ranges: every key a sampling job may read lies inside
 * its segment. */
static ossa_result validate_segments(const ossa_animation *a, const uint8_t *channel, const unsigned *key_bits,
                                     size_t *key_count)
{
    const size_t A = a->animated_count, F = a->frame_count, E = entries_size(a, channel);
    if (a->segment_offsets[0] != 0 || (size_t)a->segment_offsets[a->segment_count] + OSSA__DATA_PADDING != a->data_size)
        return OSSA_ERROR_INVALID_ANIMATION;
    size_t keys = 0;
    for (size_t s = 0; s < a->segment_count; ++s) {
        const size_t begin = a->segment_offsets[s], end = a->segment_offsets[s + 1];
        /* Offsets never pass the data (checked before any byte of the segment is read). */
        if (end < begin || end > a->data_size - OSSA__DATA_PADDING || end - begin < 2 * A + E)
            return OSSA_ERROR_INVALID_ANIMATION;
        const size_t first = s * OSSA__SEGMENT_FRAMES;
        const size_t frames = F - first < OSSA__SEGMENT_FRAMES ? F - first : OSSA__SEGMENT_FRAMES;
        const uint32_t allowed = (uint32_t)((1u << frames) - 1u);
        const bool last = s + 1 == a->segment_count;
        const uint8_t *entry = a->data + begin + 2 * A;
        uint64_t bits = 0;
        for (size_t i = 0; i < A; ++i) {
            const uint32_t bm = (uint32_t)a->data[begin + 2 * i] | ((uint32_t)a->data[begin + 2 * i + 1] << 8);
            if (!(bm & 1u) || (bm & ~allowed) || (last && !(bm >> (frames - 1) & 1u)))
                return OSSA_ERROR_INVALID_ANIMATION;
            unsigned kb = key_bits[i];
            if (a->formats[i] & OSSA__FORMAT_SEGMENT_RANGES) {
                kb = 0;
                for (int c = 0; c < ossa__format_components(channel[i], a->formats[i]); ++c, entry += 2) {
                    if (entry[1] > a->bits[4 * i + (size_t)c]) return OSSA_ERROR_INVALID_ANIMATION;
                    kb += entry[1];
                }
            }
            /* The first key sits in the first-key block at the clip widths. */
            const unsigned n = ossa__popcount16(bm);
            bits += (uint64_t)key_bits[i] + (uint64_t)(n - 1) * kb;
            keys += n;
        }
        if ((bits + 7) / 8 > end - begin - 2 * A - E) return OSSA_ERROR_INVALID_ANIMATION;
    }
    *key_count = keys;
    return OSSA_OK;
}

static ossa_result init(ossa_animation *a, const uint8_t *blob, size_t size)
{
    ossa__cursor cur = {blob, size, 0};
    const uint8_t *h = ossa__take(&cur, OSSA__ANIM_HEADER_SIZE, 1, 1);
    if (!h) return OSSA_ERROR_TRUNCATED;
    const float duration = ossa__load_f32(h + OSSA__ANIM_DURATION);
    const uint32_t track_count = ossa__load_u32(h + OSSA__ANIM_TRACK_COUNT);
    const uint32_t frame_count = ossa__load_u32(h + OSSA__ANIM_FRAME_COUNT);
    const uint32_t flags = ossa__load_u32(h + OSSA__ANIM_FLAGS);
    const uint32_t animated_count = ossa__load_u32(h + OSSA__ANIM_ANIMATED_COUNT);
    const uint32_t constant_count = ossa__load_u32(h + OSSA__ANIM_CONSTANT_COUNT);
    const uint32_t segment_count = ossa__load_u32(h + OSSA__ANIM_SEGMENT_COUNT);
    const uint32_t name_size = ossa__load_u32(h + OSSA__ANIM_NAME_SIZE);
    const uint32_t data_size = ossa__load_u32(h + OSSA__ANIM_DATA_SIZE);
    const uint32_t key_count = ossa__load_u32(h + OSSA__ANIM_KEY_COUNT);
    const uint32_t range_count = ossa__load_u32(h + OSSA__ANIM_RANGE_COUNT);
    const bool sorted = (flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) != 0;
    /* The sorted-key layout keeps its iframe interval in the first reserved word. */
    for (size_t at = OSSA__ANIM_RANGE_COUNT + (sorted ? 8 : 4); at < OSSA__ANIM_HEADER_SIZE; ++at)
        if (h[at]) return OSSA_ERROR_INVALID_ANIMATION;
    if (!isfinite(duration) || !(duration > 0.f)) return OSSA_ERROR_INVALID_ANIMATION;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (flags & ~(OSSA_ANIMATION_FLAG_TIMEPOINTS | OSSA_ANIMATION_FLAG_SORTED_KEYS))
        return OSSA_ERROR_INVALID_ANIMATION;
    if (data_size >= OSSA__MAX_DATA_SIZE) return OSSA_ERROR_INVALID_ANIMATION;
    if (frame_count < 2 || frame_count > INT32_MAX ||
        (!sorted && segment_count != (frame_count - 1u) / OSSA__SEGMENT_FRAMES + 1u))
        return OSSA_ERROR_INVALID_ANIMATION;
    a->flags = flags;
    if (sorted) a->iframe_interval = ossa__load_u32(h + OSSA__ANIM_IFRAME_INTERVAL);

    a->duration = duration;
    a->track_count = track_count;
    a->soa_count = (track_count + 3u) / 4u;
    a->frame_count = frame_count;
    a->segment_count = segment_count;
    if (flags & OSSA_ANIMATION_FLAG_TIMEPOINTS) {
        a->timepoints = (const float *)(const void *)ossa__take(&cur, frame_count, 4, 4);
        if (!a->timepoints) return OSSA_ERROR_TRUNCATED;
    }
    a->kinds = ossa__take(&cur, kinds_size(track_count), 1, 4);
    if (!a->kinds) return OSSA_ERROR_TRUNCATED;
    /* Unused bits of the last kinds byte are zero; kind 3 does not exist. */
    for (size_t s = 3 * track_count; s < 4 * kinds_size(track_count); ++s)
        if (ossa__kind(a->kinds, s)) return OSSA_ERROR_INVALID_ANIMATION;
    for (size_t s = 0; s < 3 * track_count; ++s) a->rest_count += ossa__kind(a->kinds, s) == OSSA__KIND_REST;
    size_t constants, animated;
    const size_t words = constants_words(a->kinds, track_count, &constants, &animated);
    if (constants != constant_count || animated != animated_count) return OSSA_ERROR_INVALID_ANIMATION;
    a->constant_count = constant_count;
    a->animated_count = animated_count;
    a->constants = (const uint32_t *)(const void *)ossa__take(&cur, words, 4, 4);
    if (sorted) {
        if (!a->constants) return OSSA_ERROR_TRUNCATED;
        return ossa__animation_init_sorted(a, &cur, range_count, segment_count, data_size, key_count, name_size, size);
    }
    a->formats = ossa__take(&cur, animated_count, 1, 4);
    a->bits = ossa__take(&cur, (size_t)animated_count * 4u, 1, 4);
    a->ranges = (const float *)(const void *)ossa__take(&cur, range_count, 4, 4);
    a->range_count = range_count;
    a->segment_offsets = (const uint32_t *)(const void *)ossa__take(&cur, (size_t)segment_count + 1u, 4, 4);
    a->data = ossa__take(&cur, data_size, 1, 4);
    a->data_size = data_size;
    const uint8_t *name = ossa__take(&cur, name_size, 1, 4);
    if (!a->constants || !a->formats || !a->bits || !a->ranges || !a->segment_offsets || !a->data || !name)
        return OSSA_ERROR_TRUNCATED;
    if (name_size == 0 || name[name_size - 1] != '\0') return OSSA_ERROR_INVALID_ANIMATION;
    if (size > ossa__pad16(cur.pos)) return OSSA_ERROR_INVALID_ANIMATION;
    a->name = (const char *)name;

    if (a->timepoints) {
        if (a->timepoints[0] != 0.f || a->timepoints[frame_count - 1] != 1.f) return OSSA_ERROR_INVALID_ANIMATION;
        for (size_t i = 1; i < frame_count; ++i)
            if (!(a->timepoints[i] > a->timepoints[i - 1])) return OSSA_ERROR_INVALID_ANIMATION;
    }
    if (animated_count > 3u * OSSA_MAX_JOINTS) return OSSA_ERROR_INVALID_ANIMATION;
    uint8_t channel[3 * OSSA_MAX_JOINTS];
    unsigned key_bits[3 * OSSA_MAX_JOINTS];
    animated_channels(a, channel);
    ossa_result r = validate_tracks(a, channel, key_bits);
    if (r != OSSA_OK) return r;
    size_t keys = 0;
    if ((r = validate_segments(a, channel, key_bits, &keys)) != OSSA_OK) return r;
    for (size_t i = a->data_size - OSSA__DATA_PADDING; i < a->data_size; ++i)
        if (a->data[i]) return OSSA_ERROR_INVALID_ANIMATION;
    if (keys != key_count) return OSSA_ERROR_INVALID_ANIMATION;
    a->key_count = key_count;
    return OSSA_OK;
}

ossa_result ossa_animation_init(ossa_animation *animation, const void *blob, size_t size)
{
    if (!animation) return OSSA_ERROR_NULL_ARGUMENT;
    memset(animation, 0, sizeof *animation);
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    if (!ossa__host_is_little_endian()) return OSSA_ERROR_UNSUPPORTED_HOST;
    if (ossa__misaligned(blob)) return OSSA_ERROR_MISALIGNED;
    ossa_result r = init(animation, blob, size);
    if (r != OSSA_OK) memset(animation, 0, sizeof *animation);
    return r;
}

size_t ossa_animation_data_size(const ossa_animation *a)
{
    if (!a || !a->name || !a->kinds) return 0;
    const uint8_t *start = ossa__animation_blob(a);
    return ossa__pad16((size_t)((const uint8_t *)a->name - start) + strlen(a->name) + 1);
}

int ossa_animation_channel_kind(const ossa_animation *a, size_t joint, int channel)
{
    if (!a || !a->kinds || joint >= a->track_count || channel < 0 || channel > 2) return 0;
    return (int)ossa__kind(a->kinds, joint * 3 + (size_t)channel);
}

size_t ossa_animation_keys(const ossa_animation *a, size_t joint, int channel, uint8_t *out, size_t size)
{
    if (!a || !a->kinds || !out || joint >= a->track_count || channel < 0 || channel > 2 || size < a->frame_count)
        return 0;
    memset(out, 0, a->frame_count);
    const size_t s = joint * 3 + (size_t)channel;
    if (ossa__kind(a->kinds, s) != 2) return 0;
    if (a->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) return ossa__animation_keys_sorted(a, s, out);
    size_t animated = 0; /* this sub-track's index among the animated ones */
    for (size_t i = 0; i < s; ++i) animated += ossa__kind(a->kinds, i) == 2;
    size_t count = 0;
    for (size_t g = 0; g < a->segment_count; ++g) {
        const uint8_t *bitmap = a->data + a->segment_offsets[g] + 2 * animated;
        const unsigned bits = (unsigned)bitmap[0] | (unsigned)bitmap[1] << 8;
        for (size_t b = 0; b < 16 && g * 16 + b < a->frame_count; ++b)
            if (bits >> b & 1u) out[g * 16 + b] = 1, ++count;
    }
    return count;
}

void ossa_animation_sizes(const ossa_animation *a, ossa_animation_size_breakdown *out)
{
    if (!out) return;
    memset(out, 0, sizeof *out);
    if (!a || !a->name) return;
    out->header = OSSA__ANIM_HEADER_SIZE;
    out->timepoints = a->timepoints ? a->frame_count * sizeof(float) : 0;
    out->kinds = kinds_size(a->track_count);
    size_t constants, animated;
    out->constants = 4 * constants_words(a->kinds, a->track_count, &constants, &animated);
    out->descriptors = 5 * a->animated_count;
    out->ranges = a->range_count * sizeof(float);
    out->segment_table = (a->segment_count + 1) * sizeof(uint32_t);
    out->bitmaps = 2 * a->animated_count * a->segment_count;
    out->name = strlen(a->name) + 1;
    if (a->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) {
        out->descriptors = out->segment_table = out->bitmaps = 0;
        ossa__animation_sizes_sorted(a, out);
        const size_t total = ossa_animation_data_size(a);
        const size_t used = out->header + out->timepoints + out->kinds + out->constants + out->ranges +
                            out->segment_table + out->bitmaps + out->translation_values + out->rotation_values +
                            out->scale_values + out->name;
        out->padding = total > used ? total - used : 0;
        return;
    }
    uint8_t channel[3 * OSSA_MAX_JOINTS];
    animated_channels(a, channel);
    size_t value_bits[3] = {0, 0, 0};
    const size_t E = entries_size(a, channel);
    out->segment_ranges = E * a->segment_count;
    for (size_t s = 0; s < a->segment_count; ++s) {
        const uint8_t *seg = a->data + a->segment_offsets[s];
        const uint8_t *entry = seg + 2 * a->animated_count;
        for (size_t i = 0; i < a->animated_count; ++i) {
            const unsigned n = ossa__popcount16((uint32_t)seg[2 * i] | ((uint32_t)seg[2 * i + 1] << 8));
            const unsigned clip =
                (unsigned)a->bits[4 * i] + a->bits[4 * i + 1] + a->bits[4 * i + 2] + a->bits[4 * i + 3];
            unsigned w = clip;
            if (a->formats[i] & OSSA__FORMAT_SEGMENT_RANGES) {
                w = 0;
                for (int c = 0; c < ossa__format_components(channel[i], a->formats[i]); ++c, entry += 2) w += entry[1];
            }
            value_bits[channel[i]] += clip + (size_t)(n - 1) * w;
        }
    }
    out->translation_values = (value_bits[0] + 7) / 8;
    out->rotation_values = (value_bits[1] + 7) / 8;
    out->scale_values = (value_bits[2] + 7) / 8;
    const size_t total = ossa_animation_data_size(a);
    const size_t used = out->header + out->timepoints + out->kinds + out->constants + out->descriptors + out->ranges +
                        out->segment_table + out->bitmaps + out->segment_ranges + out->translation_values +
                        out->rotation_values + out->scale_values + out->name;
    out->padding = total > used ? total - used : 0;
}
