/* Metroid Prime / Echoes compressed ANIM (version 2): header, key bitmap, channel
 * descriptors, the delta bitstream and the game's evaluation of frames between stored keys.
 * Source: PrimeDecomp/prime CFBStreamedCompression.hpp (layout, word count),
 * CFBStreamedAnimReader.cpp (totals, CFBFullBodyAspectsForStream::SetTime), CAnimMathUtils.cpp
 * (Slerp); PrimeWorldEditor CAnimationLoader (MP2 columns); metaforce DNAMP2/ANIM.hpp. */
#include <float.h>
#include <math.h>

#include "metroid.h"

enum { ROT = 0, TRANS = 1, SCALE = 2 };

typedef struct descriptor {
    uint32_t bone_id;
    size_t offset;
    uint16_t count[3]; /* key counts: rotation, translation, scale */
    size_t count_offset[3];
    int16_t init[3][3];
    uint8_t bits[3][3];
} descriptor;

typedef struct header {
    float duration, interval, translation_mult, scale_mult;
    uint32_t rot_div, channel_count;
    size_t bitmap_bits;
    size_t bitmap_offset;
    const uint8_t *bitmap;
} header;

static bool bitmap_bit(const uint8_t *bitmap, size_t i)
{
    return (ossa__br_load_u32(bitmap + 4u * (i / 32u), OSSA__BR_BIG) >> (i % 32u)) & 1u;
}

/* `width` (1..32) bits at bit `pos` of the big-endian words, LSB first. The words are a span
 * taken through the byte reader, sized from the descriptors' bit counts, so every field read
 * here lies inside them. */
static uint32_t read_bits(const uint8_t *words, uint64_t pos, unsigned width)
{
    const size_t w = (size_t)(pos >> 5);
    const unsigned shift = (unsigned)(pos & 31u);
    uint64_t v = (uint64_t)ossa__br_load_u32(words + 4u * w, OSSA__BR_BIG) >> shift;
    if (shift + width > 32u) v |= (uint64_t)ossa__br_load_u32(words + 4u * (w + 1u), OSSA__BR_BIG) << (32u - shift);
    return (uint32_t)(v & ((UINT64_C(1) << width) - 1u));
}

static int64_t read_signed(const uint8_t *words, uint64_t *pos, unsigned width)
{
    if (width == 0) return 0;
    const uint32_t u = read_bits(words, *pos, width);
    *pos += width;
    if ((u >> (width - 1u)) & 1u) return (int64_t)u - ((int64_t)1 << width);
    return (int64_t)u;
}

/* The game keeps running totals in shorts: sums wrap modulo 2^16. */
static int16_t wrap16(int64_t v)
{
    const uint16_t u = (uint16_t)((uint64_t)v & 0xFFFFu);
    return (int16_t)(u >= 0x8000u ? (int32_t)u - 0x10000 : (int32_t)u);
}

ossa_quat ossa__metroid_slerp(ossa_quat a, ossa_quat b, float t)
{
    if (t <= 0.00001f) return a;
    if (t >= 0.99999f) return b;
    const float dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    if (dot >= 1.f) return a;
    float wa, wb;
    if (dot > 0.95f) {
        wa = 1.f - t;
        wb = t;
    } else {
        const float angle = acosf(dot < -1.f ? -1.f : dot);
        wa = sinf(angle * (1.f - t));
        wb = sinf(angle * t);
    }
    ossa_quat r = {wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w};
    const float len2 = r.x * r.x + r.y * r.y + r.z * r.z + r.w * r.w;
    /* Opposite quaternions half way: the game divides by zero; pick the nearer end instead. */
    if (!(len2 > 1e-30f)) return t < 0.5f ? a : b;
    const float inv = 1.f / sqrtf(len2);
    return (ossa_quat){r.x * inv, r.y * inv, r.z * inv, r.w * inv};
}

static ossa_result read_header(ossa__byte_reader *r, ossa_metroid_game game, header *h, ossa__metroid_clip *clip)
{
    const bool mp2 = game == OSSA_METROID_GAME_MP2;
    uint32_t scratch, unknown32, looping, root, evnt = 0;
    uint16_t unknown16;
    (void)ossa__br_seek(r, 4, "the version"); /* the caller checked the version */
    if (ossa__br_u32(r, "scratch size", &scratch)) return r->code;
    if (!mp2 && ossa__br_u32(r, "EVNT id", &evnt)) return r->code;
    if (mp2 ? ossa__br_u16(r, "header", &unknown16) : ossa__br_u32(r, "header", &unknown32)) return r->code;
    const size_t duration_at = r->pos;
    if (ossa__br_f32(r, "duration", &h->duration) || ossa__br_f32(r, "frame interval", &h->interval) ||
        ossa__br_u32(r, "root bone id", &root) || ossa__br_u32(r, "looping flag", &looping))
        return r->code;
    const size_t div_at = r->pos;
    if (ossa__br_u32(r, "rotation divisor", &h->rot_div) ||
        ossa__br_f32(r, "translation multiplier", &h->translation_mult))
        return r->code;
    h->scale_mult = 0.f;
    if (mp2 && ossa__br_f32(r, "scale multiplier", &h->scale_mult)) return r->code;
    const size_t count_at = r->pos;
    if (ossa__br_u32(r, "bone channel count", &h->channel_count) || ossa__br_u32(r, "header", &unknown32))
        return r->code;
    if (!isfinite(h->duration) || !(h->duration > 0.f))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, duration_at, "duration %g s is not a positive finite number",
                             (double)h->duration);
    if (!isfinite(h->interval) || !(h->interval > 0.f))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, duration_at + 4,
                             "frame interval %g s is not a positive finite number", (double)h->interval);
    if (h->rot_div == 0) return ossa__br_fail(r, OSSA_ERROR_CORRUPT, div_at, "rotation divisor is 0");
    /* Totals are 16-bit, so |value| <= 32768 * multiplier must stay finite. */
    if (!isfinite(h->translation_mult) || fabsf(h->translation_mult) > FLT_MAX / 32768.f)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, div_at + 4, "translation multiplier %g is out of range",
                             (double)h->translation_mult);
    if (!isfinite(h->scale_mult) || fabsf(h->scale_mult) > FLT_MAX / 32768.f)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, div_at + 8, "scale multiplier %g is out of range",
                             (double)h->scale_mult);
    if (h->channel_count > OSSA__METROID_MAX_BONES)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, count_at, "bone channel count %u exceeds the game's 100",
                             h->channel_count);
    h->bitmap_offset = r->pos;
    uint32_t bits;
    if (ossa__br_u32(r, "key bitmap length", &bits)) return r->code;
    const uint64_t words = ((uint64_t)bits + 31u) / 32u;
    if (ossa__br_need(r, words, 4, "key bitmap")) return r->code;
    h->bitmap_bits = bits;
    (void)ossa__br_bytes(r, (size_t)words * 4u, "key bitmap", &h->bitmap); /* fits: checked above */

    size_t at = r->pos;
    uint32_t repeat = h->channel_count;
    if (!mp2 && ossa__br_u32(r, "bone channel count", &repeat)) return r->code;
    if (repeat != h->channel_count)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "bone channel count repeated as %u, header says %u", repeat,
                             h->channel_count);
    at = r->pos;
    uint32_t descriptors;
    if (ossa__br_u32(r, "descriptor count", &descriptors)) return r->code;
    if (descriptors != h->channel_count)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "descriptor count %u differs from the bone channel count %u",
                             descriptors, h->channel_count);
    clip->game = game;
    clip->compressed = true;
    clip->duration = h->duration;
    clip->interval = h->interval;
    clip->root_bone_id = root;
    clip->looping = looping;
    clip->rotation_divisor = h->rot_div;
    clip->evnt_id = evnt;
    return OSSA_OK;
}

static ossa_result read_descriptor(ossa__byte_reader *r, bool mp2, uint32_t index, descriptor *d)
{
    static const char *const names[3] = {"rotation", "translation", "scale"};
    d->offset = r->pos;
    if (mp2) {
        uint8_t id;
        if (ossa__br_u8(r, "channel bone id", &id)) return r->code;
        d->bone_id = id;
    } else if (ossa__br_u32(r, "channel bone id", &d->bone_id)) {
        return r->code;
    }
    if (d->bone_id >= OSSA__METROID_MAX_BONES)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, d->offset, "channel %u has bone id %u; ids must be below 100",
                             index, d->bone_id);
    for (int g = 0; g < (mp2 ? 3 : 2); ++g) {
        d->count_offset[g] = r->pos;
        if (ossa__br_u16(r, "channel key count", &d->count[g])) return r->code;
        if (d->count[g] == 0) {
            if (g == ROT && !mp2)
                return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, d->count_offset[g],
                                     "MP1 channel %u (bone %u) has no rotation keys; readers disagree on that layout",
                                     index, d->bone_id);
            continue;
        }
        for (int c = 0; c < 3; ++c) {
            if (ossa__br_i16(r, "channel initial value", &d->init[g][c])) return r->code;
            const size_t bits_at = r->pos;
            if (ossa__br_u8(r, "channel bit width", &d->bits[g][c])) return r->code;
            if (d->bits[g][c] > 32)
                return ossa__br_fail(r, OSSA_ERROR_CORRUPT, bits_at, "channel %u (bone %u) %s bit width %u exceeds 32",
                                     index, d->bone_id, names[g], d->bits[g][c]);
        }
    }
    return OSSA_OK;
}

/* A frame on a stored key is that key exactly: a + (b - a) * 1 would round b to the grid of
 * the larger of a and b (0.58 next to 641.2 lost up to half a float step of 641.2). */
static ossa_float3 lerp3(ossa_float3 a, ossa_float3 b, float t)
{
    if (t <= 0.f) return a;
    if (t >= 1.f) return b;
    return (ossa_float3){a.x + (b.x - a.x) * t, a.y + (b.y - a.y) * t, a.z + (b.z - a.z) * t};
}

typedef struct stored_keys {
    size_t count;                            /* stored keys including the initial one */
    uint32_t *frames;                        /* [count] frame of each stored key */
    size_t slot[OSSA__METROID_MAX_BONES][3]; /* channel, group -> row of rot / vec (present groups) */
    ossa_quat *rot;                          /* [rotation channels][count] */
    ossa_float3 *vec[2];                     /* translation, scale: [channels having it][count] */
} stored_keys;

static void decode_keys(const header *h, const descriptor *d, const uint8_t *words, stored_keys *s)
{
    const float q = (3.14159265358979f / 2.f) / (float)h->rot_div;
    const float mult[3] = {0.f, h->translation_mult, h->scale_mult};
    int16_t acc[OSSA__METROID_MAX_BONES][3][3];
    uint64_t pos = 0;
    for (size_t k = 0; k < s->count; ++k) {
        for (size_t c = 0; c < h->channel_count; ++c) {
            bool negative_w = false;
            for (int g = 0; g < 3; ++g) {
                if (!d[c].count[g]) continue;
                if (k == 0) {
                    for (int i = 0; i < 3; ++i) acc[c][g][i] = d[c].init[g][i];
                } else {
                    if (g == ROT) negative_w = read_bits(words, pos++, 1) != 0;
                    for (int i = 0; i < 3; ++i)
                        acc[c][g][i] = wrap16((int64_t)acc[c][g][i] + read_signed(words, &pos, d[c].bits[g][i]));
                }
                const size_t at = s->slot[c][g] * s->count + k;
                if (g == ROT) {
                    const float x = sinf((float)acc[c][g][0] * q), y = sinf((float)acc[c][g][1] * q),
                                z = sinf((float)acc[c][g][2] * q);
                    const float w = sqrtf(fmaxf(1.f - (x * x + y * y + z * z), 0.f));
                    s->rot[at] = (ossa_quat){x, y, z, negative_w ? -w : w};
                } else {
                    s->vec[g - 1][at] = (ossa_float3){(float)acc[c][g][0] * mult[g], (float)acc[c][g][1] * mult[g],
                                                      (float)acc[c][g][2] * mult[g]};
                }
            }
        }
    }
}

/* Frames to emit: every frame before the duration up to the last stored key, then one key at
 * the duration. `final_x` is the frame position of that last key. */
static size_t emitted_frames(const header *h, uint32_t last_stored, double *final_x)
{
    const double duration = (double)h->duration, interval = (double)h->interval;
    const double eps = duration * 1e-6;
    const double last_frame = floor(0.5 + duration / interval);
    const double limit = fmin(last_frame, (double)last_stored);
    size_t n = 0;
    while ((double)n <= limit && (double)n * interval < duration - eps) ++n;
    *final_x = fabs((double)n * interval - duration) <= eps ? (double)n : duration / interval;
    return n + 1;
}

ossa_result ossa__metroid_decode_compressed(ossa__byte_reader *r, ossa_metroid_game game, ossa__metroid_clip *clip)
{
    const bool mp2 = game == OSSA_METROID_GAME_MP2;
    header h = {0};
    ossa_result res = read_header(r, game, &h, clip);
    if (res != OSSA_OK) return res;
    descriptor d[OSSA__METROID_MAX_BONES];
    bool seen[OSSA__METROID_MAX_BONES] = {false};
    if (ossa__br_need(r, h.channel_count, mp2 ? 7u : 17u, "channel descriptors")) return r->code;
    for (uint32_t c = 0; c < h.channel_count; ++c) {
        memset(&d[c], 0, sizeof d[c]);
        if ((res = read_descriptor(r, mp2, c, &d[c])) != OSSA_OK) return res;
        if (seen[d[c].bone_id])
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, d[c].offset, "channel %u repeats bone id %u", c, d[c].bone_id);
        seen[d[c].bone_id] = true;
    }

    /* The game takes the key count from the first channel; every other count must agree. */
    uint32_t keys = 0;
    size_t components = 0;
    uint64_t bits_per_key = 0;
    bool have_keys = false;
    for (uint32_t c = 0; c < h.channel_count; ++c)
        for (int g = 0; g < 3; ++g) {
            if (!d[c].count[g]) continue;
            if (!have_keys) keys = d[c].count[g], have_keys = true;
            if (d[c].count[g] != keys)
                return ossa__br_fail(r, OSSA_ERROR_CORRUPT, d[c].count_offset[g],
                                     "channel %u (bone %u) has %u keys where the first channel has %u", c, d[c].bone_id,
                                     d[c].count[g], keys);
            ++components;
            bits_per_key += (g == ROT) + (uint64_t)d[c].bits[g][0] + d[c].bits[g][1] + d[c].bits[g][2];
        }
    size_t stored = 0;
    for (size_t i = 1; i < h.bitmap_bits; ++i) stored += bitmap_bit(h.bitmap, i);
    if (stored != keys)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, h.bitmap_offset,
                             "key bitmap marks %zu stored frames after frame 0 but the descriptors give %u keys",
                             stored, keys);
    const uint64_t words = (bits_per_key * keys + 31u) / 32u;
    if (ossa__br_need(r, words, 4, "key bitstream")) return r->code;
    const uint8_t *bitstream = NULL;
    (void)ossa__br_bytes(r, (size_t)words * 4u, "key bitstream", &bitstream); /* fits: checked above */

    stored_keys s = {.count = (size_t)keys + 1u};
    uint32_t last_stored = 0;
    double final_x = 0.0;
    size_t frames = 0;
    if (components && s.count > OSSA__METROID_MAX_KEYS / components)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, h.bitmap_offset,
                             "%zu stored keys of %zu channels exceed the limit of %zu keys", s.count, components,
                             OSSA__METROID_MAX_KEYS);
    s.frames = ossa__calloc(&clip->allocator, s.count, sizeof *s.frames);
    if (!s.frames) return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory");
    for (size_t i = 1, k = 1; i < h.bitmap_bits; ++i)
        if (bitmap_bit(h.bitmap, i)) s.frames[k++] = last_stored = (uint32_t)i;
    frames = emitted_frames(&h, last_stored, &final_x);
    if (frames > OSSA__METROID_MAX_KEYS || (components && frames > OSSA__METROID_MAX_KEYS / components)) {
        res = ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, h.bitmap_offset,
                            "%zu frames of %zu channels exceed the limit of %zu keys", frames, components,
                            OSSA__METROID_MAX_KEYS);
        goto done;
    }
    size_t rows[3] = {0, 0, 0};
    for (uint32_t c = 0; c < h.channel_count; ++c)
        for (int g = 0; g < 3; ++g)
            if (d[c].count[g]) s.slot[c][g] = rows[g]++;
    /* Row counts times s.count stay within the key limit checked above. */
    s.rot = rows[ROT] ? ossa__calloc(&clip->allocator, rows[ROT] * s.count, sizeof *s.rot) : NULL;
    s.vec[0] = rows[TRANS] ? ossa__calloc(&clip->allocator, rows[TRANS] * s.count, sizeof *s.vec[0]) : NULL;
    s.vec[1] = rows[SCALE] ? ossa__calloc(&clip->allocator, rows[SCALE] * s.count, sizeof *s.vec[1]) : NULL;
    clip->channel_count = h.channel_count;
    for (uint32_t c = 0; c < h.channel_count; ++c) {
        ossa__metroid_channel *ch = &clip->channels[c];
        ch->bone_id = d[c].bone_id;
        ch->offset = d[c].offset;
        ch->has_rotation = d[c].count[ROT] != 0;
        ch->has_translation = d[c].count[TRANS] != 0;
        ch->has_scale = d[c].count[SCALE] != 0;
    }
    if ((rows[ROT] && !s.rot) || (rows[TRANS] && !s.vec[0]) || (rows[SCALE] && !s.vec[1])) {
        res = ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, "out of memory for %zu stored keys", s.count);
        goto done;
    }
    if ((res = ossa__metroid_clip_alloc(clip, frames, r)) != OSSA_OK) goto done;
    decode_keys(&h, d, bitstream, &s);

    /* CFBFullBodyAspectsForStream::SetTime: the prior key advances while the sample lies past
     * the next stored frame and that frame is before the last frame; t is clamped to 1. */
    const double last_frame = floor(0.5 + (double)h.duration / (double)h.interval);
    size_t k = 0;
    for (size_t f = 0; f < frames; ++f) {
        const bool final = f + 1 == frames;
        const double x = final ? final_x : (double)f;
        clip->times[f] = final ? h.duration : (float)((double)f * (double)h.interval);
        while (k + 1 < s.count && x > (double)s.frames[k + 1] && (double)s.frames[k + 1] < last_frame) ++k;
        const bool hold = k + 1 >= s.count;
        const float t =
            hold ? 0.f : (float)fmin((x - (double)s.frames[k]) / (double)(s.frames[k + 1] - s.frames[k]), 1.0);
        for (uint32_t c = 0; c < h.channel_count; ++c) {
            ossa__metroid_channel *ch = &clip->channels[c];
            const size_t next = hold ? k : k + 1;
            if (ch->has_rotation) {
                const ossa_quat *row = s.rot + s.slot[c][ROT] * s.count;
                ch->rotations[f] = ossa__metroid_slerp(row[k], row[next], t);
            }
            if (ch->has_translation) {
                const ossa_float3 *row = s.vec[0] + s.slot[c][TRANS] * s.count;
                ch->translations[f] = lerp3(row[k], row[next], t);
            }
            if (ch->has_scale) {
                const ossa_float3 *row = s.vec[1] + s.slot[c][SCALE] * s.count;
                ch->scales[f] = lerp3(row[k], row[next], t);
            }
        }
    }
    res = OSSA_OK;
done:
    ossa_free(&clip->allocator, s.frames);
    ossa_free(&clip->allocator, s.rot);
    ossa_free(&clip->allocator, s.vec[0]);
    ossa_free(&clip->allocator, s.vec[1]);
    return res;
}
