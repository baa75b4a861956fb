/* docs/examples/decode_key.c: the worked example of docs/animation-format.md.
 *
 * Builds a one-joint animation losslessly, prints the blob's sections, decodes the
 * translation key at time point 20 by hand (reading the bytes as the format describes, with
 * no private header) and compares it with what the sampling job returns at that time point.
 * Not part of the build; from the repository root, after `meson setup build && ninja -C build`:
 *
 *   cc -std=c11 -O1 -Iruntime -Ioffline docs/examples/decode_key.c -o build/decode_key \
 *      -Lbuild/offline -Lbuild/runtime -lossa-offline -lossa -lm
 *   LD_LIBRARY_PATH=build/offline:build/runtime build/decode_key
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/raw_animation.h"
#include "ossa/sampling_job.h"

#define FRAMES 33 /* time points 0..32: three segments (0-15, 16-31, 32) */

static uint32_t u32(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24; }
static float f32(const uint8_t *p)
{
    const uint32_t u = u32(p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* `width` bits at bit `at` of `data`, least significant bit first. */
static uint32_t bits_at(const uint8_t *data, size_t at, unsigned width)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < width; ++i, ++at) v |= (uint32_t)(data[at >> 3] >> (at & 7) & 1u) << i;
    return v;
}

static void dump(const char *label, const uint8_t *b, size_t from, size_t to)
{
    printf("%-16s [%4zu, %4zu)", label, from, to);
    for (size_t i = from; i < to && i < from + 24; ++i) printf(" %02x", b[i]);
    printf("%s\n", to - from > 24 ? " ..." : "");
}

int main(void)
{
    /* Translation x: 0.001 per time point within a segment, +0.5 per segment; y = z = 0.
     * Rotation: constant, 30 degrees about y. Scale: none (the default, 1). */
    ossa_raw_animation raw = {0};
    if (ossa_raw_animation_create(&raw, 1, NULL) != OSSA_OK || ossa_raw_joint_track_resize(&raw, 0, FRAMES, 1, 0) != OSSA_OK)
        return 1;
    ossa_raw_animation_set_name(&raw, "example");
    raw.duration = 1.f;
    for (int f = 0; f < FRAMES; ++f) {
        raw.tracks[0].translations[f].time = (float)f / (FRAMES - 1);
        raw.tracks[0].translations[f].value = (ossa_float3){.5f * (float)(f / 16) + .001f * (float)(f % 16), 0.f, 0.f};
    }
    const float half = 0.26179939f; /* 15 degrees */
    raw.tracks[0].rotations[0].value = (ossa_quat){0.f, sinf(half), 0.f, cosf(half)};

    ossa_blob blob = {0};
    ossa_diag diag = {0};
    if (ossa_animation_build(&raw, NULL, &blob, &diag) != OSSA_OK) return fprintf(stderr, "%s\n", diag.message), 1;
    const uint8_t *b = blob.data;

    /* Header. */
    static const char *const names[11] = {"duration", "track_count", "frame_count", "flags", "animated_count",
                                          "constant_count", "segment_count", "name_size", "data_size", "key_count",
                                          "range_count"};
    printf("blob: %zu bytes\n", blob.size);
    printf("%-16s %g\n", names[0], (double)f32(b));
    for (int i = 1; i < 11; ++i) printf("%-16s %u\n", names[i], u32(b + 4 * i));
    const uint32_t J = u32(b + 4), F = u32(b + 8), flags = u32(b + 12), A = u32(b + 16), S = u32(b + 24);
    const uint32_t name_size = u32(b + 28), data_size = u32(b + 32), R = u32(b + 40);

    /* Sections, each from the end of the previous one, arrays on 4-byte boundaries. */
    size_t at = 64;
    if (flags & 1u) dump("timepoints", b, at, at + 4 * F), at += 4 * F;
    const size_t kinds = at;
    size_t constant_words = 0;
    for (size_t s = 0; s < 3 * J; ++s) {
        const unsigned k = b[kinds + s / 4] >> (2 * (s % 4)) & 3u;
        constant_words += k == 1 ? (s % 3 == 1 ? 2 : 3) : 0;
    }
    dump("kinds", b, kinds, kinds + (3 * J + 3) / 4);
    const size_t constants = align4(kinds + (3 * J + 3) / 4);
    dump("constants", b, constants, constants + 4 * constant_words);
    const size_t formats = constants + 4 * constant_words;
    dump("formats", b, formats, formats + A);
    const size_t widths = align4(formats + A);
    dump("bits", b, widths, widths + 4 * A);
    const size_t ranges = widths + 4 * A;
    dump("ranges", b, ranges, ranges + 4 * R);
    const size_t offsets = ranges + 4 * R;
    dump("segment_offsets", b, offsets, offsets + 4 * (S + 1));
    const size_t data = offsets + 4 * (S + 1);
    dump("data", b, data, data + data_size);
    const size_t name = align4(data + data_size);
    printf("%-16s [%4zu, %4zu) \"%s\"\n", "name", name, name + name_size, (const char *)b + name);

    /* The constant rotation: three 20-bit fields, the rebuilt component's index in bits 60-61. */
    const uint64_t packed = (uint64_t)u32(b + constants) | (uint64_t)u32(b + constants + 4) << 32;
    float c[3], sum = 0.f;
    for (int i = 0; i < 3; ++i) {
        c[i] = (float)(packed >> (20 * i) & 0xfffffu) * (1.41421356f / 1048575.f) - .70710678f;
        sum += c[i] * c[i];
    }
    printf("\nconstant rotation: fields %llu %llu %llu, rebuilt index %u -> stored %.7f %.7f %.7f, rebuilt %.7f\n",
           (unsigned long long)(packed & 0xfffffu), (unsigned long long)(packed >> 20 & 0xfffffu),
           (unsigned long long)(packed >> 40 & 0xfffffu), (unsigned)(packed >> 60 & 3u), (double)c[0], (double)c[1],
           (double)c[2], (double)sqrtf(1.f - sum));

    /* The translation key at time point 20: segment 1, bit 4. One animated sub-track (i = 0). */
    const unsigned f = 20, g = f / 16, bit = f % 16;
    const uint8_t *seg = b + data + u32(b + offsets + 4 * g);
    const unsigned fmt = b[formats], n = 3;
    const uint8_t *w = b + widths;
    const uint32_t bitmap = (uint32_t)seg[0] | (uint32_t)seg[1] << 8;
    printf("\nkey at time point %u: segment %u (offset %u), bit %u\n", f, g, u32(b + offsets + 4 * g), bit);
    printf("format 0x%02x, clip widths %u %u %u %u, bitmap 0x%04x\n", fmt, w[0], w[1], w[2], w[3], bitmap);
    size_t entries = 0; /* bytes of segment ranges in a segment: 2 per component of ranged sub-tracks */
    if (fmt & 0x80) entries = 2 * n;
    const uint8_t *entry = seg + 2 * A; /* this sub-track's entries (it is the only one) */
    unsigned first_block = w[0] + w[1] + w[2] + w[3];
    unsigned width[3], shift[3];
    uint32_t base[3];
    unsigned key_bits = 0;
    for (unsigned k = 0; k < n; ++k) {
        shift[k] = w[k] > 8 ? w[k] - 8u : 0u;
        base[k] = (fmt & 0x80) ? (uint32_t)entry[2 * k] << shift[k] : 0u;
        width[k] = (fmt & 0x80) ? entry[2 * k + 1] : w[k];
        key_bits += width[k];
        if (fmt & 0x80)
            printf("component %u: segment base byte %u (<< %u = %u), segment width %u\n", k, entry[2 * k], shift[k],
                   base[k], width[k]);
    }
    /* Other keys start after the bitmaps, the segment ranges and the first-key block. */
    const size_t rest = (2 * A + entries) * 8 + first_block;
    const unsigned before = (unsigned)__builtin_popcount(bitmap & ((1u << bit) - 1u)) - 1u; /* keys before, minus the first */
    size_t key_at = rest + before * key_bits;
    printf("other keys from bit %zu; %u keys between the first and this one; key at bit %zu\n", rest, before, key_at);
    float value[3];
    for (unsigned k = 0; k < n; ++k) {
        const uint32_t stored = bits_at(seg, key_at, width[k]);
        key_at += width[k];
        const uint32_t q = stored + base[k];
        const float min = f32(b + ranges + 4 * k), step = f32(b + ranges + 4 * (n + k));
        value[k] = min + (float)q * step;
        printf("component %u: stored %u, q %u, min %g, step %.9g -> %.9g\n", k, stored, q, (double)min, (double)step,
               (double)value[k]);
    }

    /* The runtime at that time point. */
    ossa_animation anim;
    if (ossa_animation_init(&anim, blob.data, blob.size) != OSSA_OK) return 1;
    const size_t ctx_size = ossa_sampling_context_size(1);
    void *mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_soa_transform *pose = aligned_alloc(16, sizeof *pose);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, 1);
    const ossa_sampling_job job = {&anim, ctx, (float)f / (float)(F - 1), pose, 1, NULL, 0};
    if (ossa_sampling_job_run(&job) != OSSA_OK) return 1;
    printf("sampling job at ratio %u/%u: %.9g %.9g %.9g (source %.9g)\n", f, F - 1, (double)pose->translation.x[0],
           (double)pose->translation.y[0], (double)pose->translation.z[0], .5 * (f / 16) + .001 * (f % 16));
    printf("sampling job rotation: %.7f %.7f %.7f %.7f\n", (double)pose->rotation.x[0], (double)pose->rotation.y[0],
           (double)pose->rotation.z[0], (double)pose->rotation.w[0]);
    free(mem), free(pose);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
    return 0;
}
