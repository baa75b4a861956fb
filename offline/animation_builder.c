/* Animation builder: raw keys to the ozz-style sorted, quantised stream (ossa/animation.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa_internal.h"

typedef struct bkey {
    float ratio;
    float value[4];
} bkey;

typedef struct btrack {
    bkey *keys;
    size_t count, capacity;
    uint32_t *position; /* [count] index of each key in the sorted stream */
} btrack;

typedef struct sort_entry {
    float prev_ratio; /* -1 for a track's first key */
    uint32_t track;
    uint32_t index; /* within the track */
} sort_entry;

typedef struct bchannel {
    btrack *tracks; /* [padded] */
    sort_entry *sorted;
    size_t key_count;
    uint32_t *iframe_desc; /* [2 * iframe_count] (cursor, data offset) */
    uint8_t *iframe_data;
    size_t iframe_count, iframe_data_size;
} bchannel;

typedef struct builder {
    const ossa_allocator *allocator;
    ossa_diag *diag;
    size_t padded;
    bchannel channels[3];
} builder;

static bool push_key(builder *b, btrack *t, float ratio, const float value[4])
{
    /* Several source times can round to one ratio: the later key wins. */
    if (t->count && t->keys[t->count - 1].ratio >= ratio) {
        memcpy(t->keys[t->count - 1].value, value, 4 * sizeof(float));
        return true;
    }
    if (!ossa__grow(b->allocator, (void **)&t->keys, &t->capacity, t->count + 1, sizeof *t->keys)) return false;
    t->keys[t->count].ratio = ratio;
    memcpy(t->keys[t->count].value, value, 4 * sizeof(float));
    ++t->count;
    return true;
}

/* Copies one raw channel into `t` as ratios, adding keys at ratio 0 and 1. `width` 3 or 4. */
static bool fill_track(builder *b, btrack *t, const void *raw_keys, size_t count, size_t stride, int width,
                       const float identity[4], float duration)
{
    const unsigned char *p = raw_keys;
    float first[4], last[4];
    memcpy(first, identity, sizeof first);
    if (count) {
        memcpy(first, p + sizeof(float), (size_t)width * sizeof(float));
        memcpy(last, p + (count - 1) * stride + sizeof(float), (size_t)width * sizeof(float));
        if (width == 3) first[3] = last[3] = 0.f;
    } else {
        memcpy(last, identity, sizeof last);
    }
    if (!push_key(b, t, 0.f, first)) return false;
    for (size_t k = 0; k < count; ++k) {
        float time, v[4] = {0.f, 0.f, 0.f, 0.f};
        memcpy(&time, p + k * stride, sizeof time);
        memcpy(v, p + k * stride + sizeof(float), (size_t)width * sizeof(float));
        const float ratio = time / duration;
        if (!(ratio > 0.f) || ratio >= 1.f) continue; /* ends are added explicitly */
        if (!push_key(b, t, ratio, v)) return false;
    }
    if (!push_key(b, t, 1.f, last)) return false;
    /* A constant track is stored once: its key at ratio 0. */
    bool constant = true;
    for (size_t k = 1; k < t->count && constant; ++k)
        constant = !memcmp(t->keys[k].value, t->keys[0].value, sizeof t->keys[0].value);
    if (constant) t->count = 1;
    return true;
}

/* Normalises rotations and keeps consecutive ones in the same hemisphere, so that the
 * runtime's nlerp takes the shortest path without a per-sample sign test. */
static void fix_rotations(btrack *t)
{
    for (size_t k = 0; k < t->count; ++k) {
        float *v = t->keys[k].value;
        const ossa_quat q = ossa_quat_normalize((ossa_quat){v[0], v[1], v[2], v[3]});
        v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
        if (k) {
            const float *u = t->keys[k - 1].value;
            if (u[0] * v[0] + u[1] * v[1] + u[2] * v[2] + u[3] * v[3] < 0.f)
                for (int i = 0; i < 4; ++i) v[i] = -v[i];
        }
    }
}

static int compare_entries(const void *pa, const void *pb)
{
    const sort_entry *a = pa, *b = pb;
    if (a->prev_ratio != b->prev_ratio) return a->prev_ratio < b->prev_ratio ? -1 : 1;
    if (a->track != b->track) return a->track < b->track ? -1 : 1;
    return 0;
}

/* Sorts keys by previous-key ratio then track and records positions. */
static bool sort_channel(builder *b, bchannel *c)
{
    size_t total = 0;
    for (size_t t = 0; t < b->padded; ++t) total += c->tracks[t].count;
    ossa_free(b->allocator, c->sorted);
    c->sorted = ossa__calloc(b->allocator, total, sizeof *c->sorted);
    if (!c->sorted) return false;
    size_t at = 0;
    for (size_t t = 0; t < b->padded; ++t) {
        btrack *tr = &c->tracks[t];
        ossa_free(b->allocator, tr->position);
        tr->position = ossa__calloc(b->allocator, tr->count, sizeof *tr->position);
        if (!tr->position) return false;
        for (size_t k = 0; k < tr->count; ++k)
            c->sorted[at++] = (sort_entry){k ? tr->keys[k - 1].ratio : -1.f, (uint32_t)t, (uint32_t)k};
    }
    qsort(c->sorted, total, sizeof *c->sorted, compare_entries);
    for (size_t i = 0; i < total; ++i) c->tracks[c->sorted[i].track].position[c->sorted[i].index] = (uint32_t)i;
    c->key_count = total;
    return true;
}

/* Inserts a key halfway between keys k-1 and k of track t, on the linear interpolation. */
static ossa_result inject_key(builder *b, btrack *t, size_t k)
{
    const bkey a = t->keys[k - 1], c = t->keys[k];
    const float mid = a.ratio + (c.ratio - a.ratio) * .5f;
    if (!(mid > a.ratio && mid < c.ratio))
        return ossa_diag_set(b->diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, 0, 0,
                             "cannot inject a key between ratios %g and %g to bound a previous-key offset",
                             (double)a.ratio, (double)c.ratio);
    if (!ossa__grow(b->allocator, (void **)&t->keys, &t->capacity, t->count + 1, sizeof *t->keys))
        return ossa_diag_set(b->diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory injecting a key");
    memmove(&t->keys[k + 1], &t->keys[k], (t->count - k) * sizeof *t->keys);
    t->keys[k].ratio = mid;
    for (int i = 0; i < 4; ++i) t->keys[k].value[i] = (a.value[i] + c.value[i]) * .5f;
    ++t->count;
    return OSSA_OK;
}

/* Re-sorts until every previous-key offset fits in 16 bits. An offset from key p to key k
 * counts the keys whose previous key lies between prev(p) and p in time, so halving the
 * segment before p halves it. */
static ossa_result bound_offsets(builder *b, bchannel *c, bool rotations)
{
    for (;;) {
        if (!sort_channel(b, c))
            return ossa_diag_set(b->diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory sorting keys");
        bool injected = false;
        for (size_t t = 0; t < b->padded; ++t) {
            btrack *tr = &c->tracks[t];
            for (size_t k = tr->count; k-- > 1;) {
                if (tr->position[k] - tr->position[k - 1] <= UINT16_MAX) continue;
                if (k < 2) /* a second key's offset is below 2 * padded; kept for safety */
                    return ossa_diag_set(b->diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, 0, 0,
                                         "previous-key offset overflow at a track's second key");
                ossa_result r = inject_key(b, tr, k - 1);
                if (r != OSSA_OK) return r;
                if (rotations) fix_rotations(tr);
                injected = true;
                break;
            }
        }
        if (!injected) return OSSA_OK;
    }
}

static size_t find_timepoint(const float *tp, size_t count, float ratio)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tp[mid] < ratio)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void free_builder(builder *b)
{
    for (int c = 0; c < 3; ++c) {
        bchannel *ch = &b->channels[c];
        for (size_t t = 0; ch->tracks && t < b->padded; ++t) {
            ossa_free(b->allocator, ch->tracks[t].keys);
            ossa_free(b->allocator, ch->tracks[t].position);
        }
        ossa_free(b->allocator, ch->tracks);
        ossa_free(b->allocator, ch->sorted);
        ossa_free(b->allocator, ch->iframe_desc);
        ossa_free(b->allocator, ch->iframe_data);
    }
}

static ossa_result collect(builder *b, const ossa_raw_animation *raw)
{
    static const float zero[4] = {0.f, 0.f, 0.f, 0.f}, one[4] = {1.f, 1.f, 1.f, 0.f}, qid[4] = {0.f, 0.f, 0.f, 1.f};
    for (int c = 0; c < 3; ++c) {
        b->channels[c].tracks = ossa__calloc(b->allocator, b->padded, sizeof(btrack));
        if (!b->channels[c].tracks) return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t t = 0; t < b->padded; ++t) {
        const ossa_raw_joint_track empty = {0};
        const ossa_raw_joint_track *rt = t < raw->track_count ? &raw->tracks[t] : &empty;
        if (!fill_track(b, &b->channels[0].tracks[t], rt->translations, rt->translation_count,
                        sizeof(ossa_raw_float3_key), 3, zero, raw->duration) ||
            !fill_track(b, &b->channels[1].tracks[t], rt->rotations, rt->rotation_count, sizeof(ossa_raw_quat_key), 4,
                        qid, raw->duration) ||
            !fill_track(b, &b->channels[2].tracks[t], rt->scales, rt->scale_count, sizeof(ossa_raw_float3_key), 3, one,
                        raw->duration))
            return OSSA_ERROR_OUT_OF_MEMORY;
        fix_rotations(&b->channels[1].tracks[t]);
    }
    return OSSA_OK;
}

/* Cursor positions of the iframes: where the stream's previous-key ratio passes each
 * multiple of the interval, or every 4 keys per track when automatic; plus the end, so
 * backward playback can start from the last frame cheaply. */
static size_t iframe_positions(const builder *b, const bchannel *c, float interval_ratio, uint32_t *out)
{
    const size_t first = b->padded, n = c->key_count;
    size_t count = 0, last = first;
    if (interval_ratio > 0.f) {
        /* An iframe at the first key of each interval bucket of previous-key ratios. */
        float bucket = 0.f;
        for (size_t k = first; k < n; ++k) {
            const float kb = floorf(c->sorted[k].prev_ratio / interval_ratio);
            if (kb > bucket) {
                bucket = kb;
                out[count++] = (uint32_t)(last = k);
            }
        }
    } else if (interval_ratio == 0.f) {
        for (size_t k = first + 4 * b->padded; k < n; k += 4 * b->padded) out[count++] = (uint32_t)(last = k);
    }
    if (interval_ratio >= 0.f && n > last) out[count++] = (uint32_t)n;
    return count;
}

/* Snapshots the cursor state at each iframe position and group-varint encodes it. */
static ossa_result build_iframes(builder *b, bchannel *c, float interval_ratio)
{
    const size_t n = c->key_count, padded = b->padded;
    const size_t max_count = n + 2;
    uint32_t *positions = ossa__calloc(b->allocator, max_count, sizeof *positions);
    uint32_t *entries = ossa__calloc(b->allocator, padded, sizeof *entries);
    uint32_t *deltas = ossa__calloc(b->allocator, padded, sizeof *deltas);
    ossa_result r = OSSA_OK;
    if (!positions || !entries || !deltas) goto oom;
    c->iframe_count = iframe_positions(b, c, interval_ratio, positions);
    c->iframe_desc = ossa__calloc(b->allocator, 2 * c->iframe_count + 1, sizeof *c->iframe_desc);
    c->iframe_data = ossa__calloc(b->allocator, c->iframe_count * (padded / 4 * 17) + 1, 1);
    if (!c->iframe_desc || !c->iframe_data) goto oom;
    for (size_t t = 0; t < padded; ++t) entries[t] = (uint32_t)t;
    size_t k = padded, size = 0;
    for (size_t i = 0; i < c->iframe_count; ++i) {
        for (; k < positions[i]; ++k) entries[c->sorted[k].track] = (uint32_t)k;
        for (size_t t = 0; t < padded; ++t) deltas[t] = positions[i] - 1 - entries[t];
        c->iframe_desc[2 * i] = positions[i];
        c->iframe_desc[2 * i + 1] = (uint32_t)size;
        size += ossa__gv_encode(deltas, padded, c->iframe_data + size);
    }
    c->iframe_data_size = size;
    goto done;
oom:
    r = ossa_diag_set(b->diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory building iframes");
done:
    ossa_free(b->allocator, positions), ossa_free(b->allocator, entries), ossa_free(b->allocator, deltas);
    return r;
}

/* Per SoA group: min x, y, z then step x, y, z, 4 lanes each (see ossa/animation.h). */
static void translation_ranges(const builder *b, float *ranges)
{
    for (size_t t = 0; t < b->padded; ++t) {
        const btrack *tr = &b->channels[0].tracks[t];
        float *r = ranges + (t / 4) * 24 + t % 4;
        for (int c = 0; c < 3; ++c) {
            float lo = tr->keys[0].value[c], hi = lo;
            for (size_t k = 1; k < tr->count; ++k) {
                lo = tr->keys[k].value[c] < lo ? tr->keys[k].value[c] : lo;
                hi = tr->keys[k].value[c] > hi ? tr->keys[k].value[c] : hi;
            }
            r[4 * c] = lo;
            r[12 + 4 * c] = (hi - lo) / 65535.f;
        }
    }
}

static ossa_result quantise_value(builder *b, int channel, const float v[4], uint16_t out[3], size_t track,
                                  const float *ranges)
{
    if (channel == 0 && ranges) {
        const float *r = ranges + (track / 4) * 24 + track % 4;
        for (int c = 0; c < 3; ++c) {
            const float step = r[12 + 4 * c];
            const float q = step > 0.f ? (v[c] - r[4 * c]) / step : 0.f;
            out[c] = (uint16_t)lrintf(q < 0.f ? 0.f : (q > 65535.f ? 65535.f : q));
        }
        return OSSA_OK;
    }
    if (channel == 1) {
        ossa__pack_quat((ossa_quat){v[0], v[1], v[2], v[3]}, out);
        return OSSA_OK;
    }
    for (int i = 0; i < 3; ++i) {
        out[i] = ossa_float_to_half(v[i]);
        if ((out[i] & 0x7c00u) == 0x7c00u)
            return ossa_diag_set(b->diag, OSSA_ERROR_INVALID_ANIMATION, track, 0, 0,
                                 "%s of track %zu: %g does not fit a half float (|v| < 65504)",
                                 channel == 0 ? "translation" : "scale", track, (double)v[i]);
    }
    return OSSA_OK;
}

ossa_result ossa_animation_build(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc, ossa_blob *out,
                                 ossa_diag *diag)
{
    if (out) memset(out, 0, sizeof *out);
    if (!raw || !out) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no animation or output");
    const ossa_animation_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    if (desc->translation_encoding != OSSA_TRANSLATION_RANGED && desc->translation_encoding != OSSA_TRANSLATION_HALF)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0, "unknown translation encoding %d",
                             (int)desc->translation_encoding);
    if (!isfinite(desc->iframe_interval))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0,
                             "iframe_interval must be a finite number of seconds");
    ossa_result r = ossa_raw_animation_validate(raw, diag);
    if (r != OSSA_OK) return r;

    builder b = {desc->allocator, diag, ((raw->track_count + 3) / 4) * 4, {{0}}};
    float *timepoints = NULL;
    r = collect(&b, raw);
    if (r != OSSA_OK) {
        ossa_diag_set(diag, r, SIZE_MAX, 0, 0, "out of memory collecting keys");
        goto fail;
    }
    for (int c = 0; c < 3 && b.padded; ++c)
        if ((r = bound_offsets(&b, &b.channels[c], c == 1)) != OSSA_OK) goto fail;
    const float interval_ratio = desc->iframe_interval < 0.f ? -1.f : desc->iframe_interval / raw->duration;
    for (int c = 0; c < 3 && b.padded; ++c)
        if ((r = build_iframes(&b, &b.channels[c], interval_ratio)) != OSSA_OK) goto fail;

    /* Shared table of time points: every distinct key ratio. */
    size_t total = 0, tp_count = 0;
    for (int c = 0; c < 3; ++c) total += b.channels[c].key_count;
    timepoints = ossa__calloc(b.allocator, total + 2, sizeof *timepoints);
    if (!timepoints) {
        r = ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory for time points");
        goto fail;
    }
    timepoints[tp_count++] = 0.f, timepoints[tp_count++] = 1.f;
    for (int c = 0; c < 3; ++c)
        for (size_t t = 0; t < b.padded; ++t)
            for (size_t k = 0; k < b.channels[c].tracks[t].count; ++k)
                timepoints[tp_count++] = b.channels[c].tracks[t].keys[k].ratio;
    qsort(timepoints, tp_count, sizeof *timepoints, ossa__compare_floats);
    size_t unique = 0;
    for (size_t i = 0; i < tp_count; ++i)
        if (unique == 0 || timepoints[i] != timepoints[unique - 1]) timepoints[unique++] = timepoints[i];
    tp_count = unique;
    if (tp_count > 65536) {
        r = ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, 0, 0,
                          "%zu distinct key times; at most 65536 are supported", tp_count);
        goto fail;
    }
    const bool wide = tp_count > 256;
    const size_t index_size = wide ? 2 : 1;
    const size_t name_size = strlen(raw->name) + 1;
    const bool ranged = desc->translation_encoding == OSSA_TRANSLATION_RANGED;

    size_t size = 64 + tp_count * 4;
    size_t channel_at[3];
    for (int c = 0; c < 3; ++c) {
        const size_t n = b.channels[c].key_count;
        channel_at[c] = size;
        size += ((n * index_size + 3) & ~(size_t)3) + ((n * 2 + 3) & ~(size_t)3) + ((n * 6 + 3) & ~(size_t)3) +
                b.channels[c].iframe_count * 8 + ((b.channels[c].iframe_data_size + 3) & ~(size_t)3);
    }
    const size_t ranges_at = (size + 15) & ~(size_t)15;
    if (ranged) size = ranges_at + b.padded / 4 * 24 * sizeof(float);
    const size_t name_at = size;
    size = (size + name_size + 15) & ~(size_t)15;
    if ((r = ossa_blob_create(out, size, b.allocator)) != OSSA_OK) {
        ossa_diag_set(diag, r, SIZE_MAX, 0, 0, "out of memory for a %zu-byte animation", size);
        goto fail;
    }
    uint8_t *blob = out->data;
    ossa__store_f32(blob, raw->duration);
    ossa__store_u32(blob + 4, (uint32_t)raw->track_count);
    ossa__store_u32(blob + 8, (uint32_t)tp_count);
    ossa__store_u32(blob + 12, (wide ? OSSA_ANIMATION_FLAG_WIDE_TIME_INDICES : 0u) |
                                   (ranged ? OSSA_ANIMATION_FLAG_RANGED_TRANSLATIONS : 0u));
    float *ranges = NULL;
    if (ranged && b.padded) {
        ranges = ossa__calloc(b.allocator, b.padded / 4 * 24, sizeof *ranges);
        if (!ranges) {
            r = ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory for translation ranges");
            ossa_blob_destroy(out);
            goto fail;
        }
        translation_ranges(&b, ranges);
        for (size_t i = 0; i < b.padded / 4 * 24; ++i) ossa__store_f32(blob + ranges_at + i * 4, ranges[i]);
    }
    for (int c = 0; c < 3; ++c) ossa__store_u32(blob + 16 + 4 * c, (uint32_t)b.channels[c].key_count);
    ossa__store_u32(blob + 28, (uint32_t)name_size);
    ossa__store_f32(blob + 32, desc->iframe_interval > 0.f ? desc->iframe_interval : 0.f);
    for (int c = 0; c < 3; ++c) {
        ossa__store_u32(blob + 36 + 4 * c, (uint32_t)b.channels[c].iframe_count);
        ossa__store_u32(blob + 48 + 4 * c, (uint32_t)b.channels[c].iframe_data_size);
    }
    for (size_t i = 0; i < tp_count; ++i) ossa__store_f32(blob + 64 + i * 4, timepoints[i]);
    for (int c = 0; c < 3; ++c) {
        const bchannel *ch = &b.channels[c];
        const size_t n = ch->key_count;
        uint8_t *indices = blob + channel_at[c];
        uint8_t *previous = indices + ((n * index_size + 3) & ~(size_t)3);
        uint8_t *values = previous + ((n * 2 + 3) & ~(size_t)3);
        for (size_t i = 0; i < n; ++i) {
            const sort_entry *e = &ch->sorted[i];
            const btrack *tr = &ch->tracks[e->track];
            const bkey *key = &tr->keys[e->index];
            const size_t ti = find_timepoint(timepoints, tp_count, key->ratio);
            if (wide)
                ossa__store_u16(indices + i * 2, (uint16_t)ti);
            else
                indices[i] = (uint8_t)ti;
            ossa__store_u16(previous + i * 2, (uint16_t)(e->index ? i - tr->position[e->index - 1] : 0));
            uint16_t q[3];
            if ((r = quantise_value(&b, c, key->value, q, e->track, ranges)) != OSSA_OK) {
                ossa_free(b.allocator, ranges);
                ossa_blob_destroy(out);
                goto fail;
            }
            for (int k = 0; k < 3; ++k) ossa__store_u16(values + i * 6 + (size_t)k * 2, q[k]);
        }
        uint8_t *iframes = values + ((n * 6 + 3) & ~(size_t)3);
        for (size_t i = 0; i < 2 * ch->iframe_count; ++i) ossa__store_u32(iframes + i * 4, ch->iframe_desc[i]);
        if (ch->iframe_data_size) memcpy(iframes + ch->iframe_count * 8, ch->iframe_data, ch->iframe_data_size);
    }
    memcpy(blob + name_at, raw->name, name_size);
    ossa_free(b.allocator, ranges);
    r = OSSA_OK;
fail:
    ossa_free(b.allocator, timepoints);
    free_builder(&b);
    return r;
}
