#include "metroid_writer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void reserve(mw_buf *b, size_t more)
{
    if (b->size + more <= b->capacity) return;
    size_t cap = b->capacity ? b->capacity : 256;
    while (cap < b->size + more) cap *= 2;
    uint8_t *p = realloc(b->data, cap);
    if (!p) {
        fprintf(stderr, "metroid_writer: out of memory\n");
        abort();
    }
    b->data = p;
    b->capacity = cap;
}

void mw_buf_free(mw_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

void mw_put_u8(mw_buf *b, size_t at, uint8_t v) { b->data[at] = v; }

void mw_put_u16(mw_buf *b, size_t at, uint16_t v)
{
    b->data[at] = (uint8_t)(v >> 8);
    b->data[at + 1] = (uint8_t)v;
}

void mw_put_u32(mw_buf *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; ++i) b->data[at + (size_t)i] = (uint8_t)(v >> (24 - 8 * i));
}

void mw_put_f32(mw_buf *b, size_t at, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    mw_put_u32(b, at, u);
}

void mw_bytes(mw_buf *b, const void *data, size_t size)
{
    reserve(b, size);
    memcpy(b->data + b->size, data, size);
    b->size += size;
}

void mw_u8(mw_buf *b, uint8_t v) { mw_bytes(b, &v, 1); }

void mw_u16(mw_buf *b, uint16_t v)
{
    reserve(b, 2);
    b->size += 2;
    mw_put_u16(b, b->size - 2, v);
}

void mw_u32(mw_buf *b, uint32_t v)
{
    reserve(b, 4);
    b->size += 4;
    mw_put_u32(b, b->size - 4, v);
}

void mw_f32(mw_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    mw_u32(b, u);
}

/* ---- CINF ---- */

void mw_write_cinf(mw_buf *out, const mw_cinf *c, mw_cinf_layout *layout)
{
    mw_cinf_layout scratch;
    if (!layout) layout = &scratch;
    mw_u32(out, (uint32_t)c->bone_count);
    for (size_t b = 0; b < c->bone_count; ++b) {
        const mw_bone *bone = &c->bones[b];
        if (b < 128) layout->bone_offset[b] = out->size;
        mw_u32(out, bone->id);
        mw_u32(out, bone->parent_id);
        for (int i = 0; i < 3; ++i) mw_f32(out, bone->origin[i]);
        if (c->game == 2) {
            for (int i = 0; i < 4; ++i) mw_f32(out, bone->rotation[i]);
            for (int i = 0; i < 4; ++i) mw_f32(out, bone->local_rotation[i]);
        }
        uint32_t children = 0;
        for (size_t k = 0; k < c->bone_count; ++k) children += c->bones[k].parent_id == bone->id;
        mw_u32(out, children + 1);
        mw_u32(out, bone->parent_id);
        for (size_t k = 0; k < c->bone_count; ++k)
            if (c->bones[k].parent_id == bone->id) mw_u32(out, c->bones[k].id);
    }
    layout->order_offset = out->size;
    if (c->order) {
        mw_u32(out, (uint32_t)c->order_count);
        for (size_t i = 0; i < c->order_count; ++i) mw_u32(out, c->order[i]);
    } else {
        mw_u32(out, (uint32_t)c->bone_count);
        for (size_t b = c->bone_count; b-- > 0;) mw_u32(out, c->bones[b].id);
    }
    layout->names_offset = out->size;
    uint32_t names = 0;
    for (size_t b = 0; b < c->bone_count; ++b) names += c->bones[b].name != NULL;
    mw_u32(out, names);
    for (size_t b = 0; b < c->bone_count; ++b) {
        if (!c->bones[b].name) continue;
        mw_bytes(out, c->bones[b].name, strlen(c->bones[b].name) + 1);
        mw_u32(out, c->bones[b].id);
    }
}

/* ---- uncompressed ---- */

static void write_table(mw_buf *out, size_t *at, const mw_uanim *a, int group)
{
    *at = out->size;
    mw_u32(out, (uint32_t)a->channel_count);
    uint8_t next = 0;
    for (size_t c = 0; c < a->channel_count; ++c) mw_u8(out, a->channels[c].has[group] ? next++ : 0xFF);
}

static void write_keys(mw_buf *out, size_t *at, const mw_uanim *a, int group)
{
    size_t animated = 0;
    for (size_t c = 0; c < a->channel_count; ++c) animated += a->channels[c].has[group];
    *at = out->size;
    mw_u32(out, (uint32_t)(animated * a->frames));
    const size_t outer = a->frame_major ? a->frames : a->channel_count;
    const size_t inner = a->frame_major ? a->channel_count : a->frames;
    for (size_t i = 0; i < outer; ++i)
        for (size_t j = 0; j < inner; ++j) {
            const size_t c = a->frame_major ? j : i, f = a->frame_major ? i : j;
            const mw_uchannel *ch = &a->channels[c];
            if (!ch->has[group]) continue;
            const float *v = group == 0   ? ch->rotations + 4 * f
                             : group == 1 ? ch->translations + 3 * f
                                          : ch->scales + 3 * f;
            if (group == 0) mw_f32(out, v[3]);
            for (int k = 0; k < 3; ++k) mw_f32(out, v[k]);
        }
}

void mw_write_uncompressed(mw_buf *out, const mw_uanim *a, mw_ulayout *layout)
{
    mw_ulayout scratch;
    if (!layout) layout = &scratch;
    memset(layout, 0, sizeof *layout);
    mw_u32(out, 0);
    mw_f32(out, a->duration);
    mw_u32(out, 0);
    mw_f32(out, a->interval);
    mw_u32(out, 0);
    mw_u32(out, a->frames);
    mw_u32(out, a->root_bone_id);
    layout->bone_table = out->size;
    uint8_t table[100];
    memset(table, 0xFF, sizeof table);
    for (size_t c = 0; c < a->channel_count; ++c) table[a->channels[c].bone_id] = (uint8_t)c;
    mw_u32(out, 100);
    mw_bytes(out, table, 100);
    if (a->game == 2) write_table(out, &layout->rot_table, a, 0);
    write_table(out, &layout->trans_table, a, 1);
    if (a->game == 2) {
        write_table(out, &layout->scale_table, a, 2);
        write_keys(out, &layout->scale_keys, a, 2);
    }
    write_keys(out, &layout->rot_keys, a, 0);
    write_keys(out, &layout->trans_keys, a, 1);
    if (a->game != 2) mw_u32(out, a->evnt_id);
    layout->end = out->size;
}

/* ---- compressed ---- */

unsigned mw_bits_for(int64_t v)
{
    if (v == 0) return 0;
    unsigned bits = 1;
    while (v < -((int64_t)1 << (bits - 1)) || v > ((int64_t)1 << (bits - 1)) - 1) ++bits;
    return bits;
}

static int32_t total(const mw_canim *a, size_t key, size_t c, int g, int i)
{
    return a->totals[((key * a->channel_count + c) * 3 + (size_t)g) * 3 + (size_t)i];
}

void mw_fit_widths(const mw_canim *a, mw_cchannel *channels)
{
    for (size_t c = 0; c < a->channel_count; ++c)
        for (int g = 0; g < 3; ++g)
            for (int i = 0; i < 3; ++i) {
                unsigned bits = 0;
                for (size_t k = 1; k <= a->key_count; ++k) {
                    const unsigned need = mw_bits_for((int64_t)total(a, k, c, g, i) - total(a, k - 1, c, g, i));
                    if (need > bits) bits = need;
                }
                channels[c].bits[g][i] = (uint8_t)bits;
            }
}

typedef struct bit_writer {
    uint32_t *words;
    size_t count;
    uint64_t pos;
} bit_writer;

static void put_bits(bit_writer *w, uint32_t value, unsigned width)
{
    for (unsigned i = 0; i < width; ++i, ++w->pos) {
        const size_t word = (size_t)(w->pos / 32);
        if (word >= w->count) {
            w->words = realloc(w->words, (word + 1) * sizeof *w->words);
            if (!w->words) abort();
            memset(w->words + w->count, 0, (word + 1 - w->count) * sizeof *w->words);
            w->count = word + 1;
        }
        if ((value >> i) & 1u) w->words[word] |= 1u << (w->pos % 32);
    }
}

bool mw_write_compressed(mw_buf *out, const mw_canim *a, mw_clayout *layout)
{
    mw_clayout scratch;
    if (!layout) layout = &scratch;
    memset(layout, 0, sizeof *layout);
    const bool mp2 = a->game == 2;
    bit_writer bw = {0};
    for (size_t k = 1; k <= a->key_count; ++k)
        for (size_t c = 0; c < a->channel_count; ++c)
            for (int g = 0; g < 3; ++g) {
                if (!a->channels[c].has[g]) continue;
                if (g == 0) put_bits(&bw, a->negative_w && a->negative_w[k * a->channel_count + c], 1);
                for (int i = 0; i < 3; ++i) {
                    const int64_t delta = (int64_t)total(a, k, c, g, i) - total(a, k - 1, c, g, i);
                    const unsigned width = a->channels[c].bits[g][i];
                    if (mw_bits_for(delta) > width) {
                        free(bw.words);
                        return false;
                    }
                    put_bits(&bw, (uint32_t)(uint64_t)delta, width);
                }
            }

    mw_u32(out, 2);
    mw_u32(out, a->scratch_size);
    if (mp2) {
        mw_u16(out, 0x0101);
    } else {
        mw_u32(out, a->evnt_id);
        mw_u32(out, 1);
    }
    layout->duration = out->size;
    mw_f32(out, a->duration);
    mw_f32(out, a->interval);
    mw_u32(out, a->root_bone_id);
    mw_u32(out, a->looping);
    layout->rotation_divisor = out->size;
    mw_u32(out, a->rotation_divisor);
    mw_f32(out, a->translation_mult);
    if (mp2) mw_f32(out, a->scale_mult);
    layout->channel_count = out->size;
    mw_u32(out, (uint32_t)a->channel_count);
    mw_u32(out, 1);
    layout->bitmap = out->size;
    mw_u32(out, a->bitmap_bits);
    bit_writer bm = {0};
    for (uint32_t i = 0; i < a->bitmap_bits; ++i) put_bits(&bm, a->bitmap[i], 1);
    for (size_t i = 0; i < (a->bitmap_bits + 31u) / 32u; ++i) mw_u32(out, i < bm.count ? bm.words[i] : 0);
    free(bm.words);
    if (!mp2) {
        layout->channel_repeat = out->size;
        mw_u32(out, (uint32_t)a->channel_count);
    }
    layout->descriptor_count = out->size;
    mw_u32(out, (uint32_t)a->channel_count);
    for (size_t c = 0; c < a->channel_count; ++c) {
        const mw_cchannel *ch = &a->channels[c];
        if (c < 128) layout->descriptor[c] = out->size;
        if (mp2)
            mw_u8(out, (uint8_t)ch->bone_id);
        else
            mw_u32(out, ch->bone_id);
        for (int g = 0; g < (mp2 ? 3 : 2); ++g) {
            mw_u16(out, ch->has[g] ? (uint16_t)a->key_count : 0);
            if (!ch->has[g]) continue;
            for (int i = 0; i < 3; ++i) {
                mw_u16(out, (uint16_t)(int16_t)total(a, 0, c, g, i));
                mw_u8(out, ch->bits[g][i]);
            }
        }
    }
    layout->bitstream = out->size;
    for (size_t i = 0; i < bw.count; ++i) mw_u32(out, bw.words[i]);
    free(bw.words);
    layout->end = out->size;
    return true;
}

/* ---- fixtures and reference formulas ---- */

const mw_bone mw_fixture_bones[5] = {
    {3, 2, {0.f, 0.f, 1.f}, {1, 0, 0, 0}, {1, 0, 0, 0}, "root"},
    {4, 3, {0.f, 0.f, 2.f}, {1, 0, 0, 0}, {1, 0, 0, 0}, "spine"},
    {5, 4, {.5f, 0.f, 2.5f}, {1, 0, 0, 0}, {1, 0, 0, 0}, "arm_l"},
    {6, 5, {1.f, 0.f, 2.5f}, {1, 0, 0, 0}, {1, 0, 0, 0}, NULL},
    {7, 3, {0.f, .3f, .5f}, {1, 0, 0, 0}, {1, 0, 0, 0}, "leg"},
};

void mw_fixture_cinf(mw_buf *out, int game, mw_cinf_layout *layout)
{
    const mw_cinf c = {game, 5, mw_fixture_bones, 0, NULL};
    mw_write_cinf(out, &c, layout);
}

int32_t mw_fix_totals[MW_FIX_KEYS + 1][MW_FIX_CHANNELS][3][3];
bool mw_fix_negative_w[MW_FIX_KEYS + 1][MW_FIX_CHANNELS];
static const bool fix_bitmap[9] = {1, 0, 0, 1, 1, 0, 0, 0, 1};
static mw_cchannel fix_channels[MW_FIX_CHANNELS];

mw_canim mw_fixture_compressed(int game)
{
    static const int32_t rx[MW_FIX_KEYS + 1] = {0, 1500, 1600, 300};
    static const int32_t t3[MW_FIX_KEYS + 1][3] = {{0, 0, 100}, {-37, 5, 120}, {-40, 9, 80}, {1000, -1000, 0}};
    memset(mw_fix_totals, 0, sizeof mw_fix_totals);
    memset(mw_fix_negative_w, 0, sizeof mw_fix_negative_w);
    for (int k = 0; k <= MW_FIX_KEYS; ++k) {
        mw_fix_totals[k][0][0][0] = rx[k];
        mw_fix_totals[k][0][0][1] = 100 * k;
        for (int i = 0; i < 3; ++i) mw_fix_totals[k][0][1][i] = t3[k][i];
        /* bone 4: keys 2 -> 3 differ by 740 steps: dot cos(740 pi / 8192) = 0.96, the lerp branch. */
        mw_fix_totals[k][1][0][0] = k < 3 ? 200 + 20 * k : 1000;
        mw_fix_totals[k][1][0][2] = -10 * k;
        mw_fix_totals[k][2][0][1] = k < 3 ? -50 * k : 2500;
    }
    mw_fix_negative_w[1][0] = true;
    memset(fix_channels, 0, sizeof fix_channels);
    fix_channels[0] = (mw_cchannel){3, {true, true, false}, {{0}}};
    fix_channels[1] = (mw_cchannel){4, {true, false, false}, {{0}}};
    fix_channels[2] = (mw_cchannel){5, {true, false, false}, {{0}}};
    mw_canim a = {.game = game,
                  .scratch_size = 1234,
                  .evnt_id = 0x12345678u,
                  .duration = 2.f,
                  .interval = .25f,
                  .root_bone_id = 3,
                  .looping = 1,
                  .rotation_divisor = 4096,
                  .translation_mult = .01f,
                  .scale_mult = .5f,
                  .bitmap_bits = 9,
                  .bitmap = fix_bitmap,
                  .channel_count = MW_FIX_CHANNELS,
                  .channels = fix_channels,
                  .key_count = MW_FIX_KEYS,
                  .totals = &mw_fix_totals[0][0][0][0],
                  .negative_w = &mw_fix_negative_w[0][0]};
    mw_fit_widths(&a, fix_channels);
    return a;
}

void mw_ref_rotation(int32_t ax, int32_t ay, int32_t az, bool negative_w, uint32_t divisor, double q[4])
{
    const double s = (3.14159265358979323846 / 2.0) / divisor;
    q[0] = sin(ax * s);
    q[1] = sin(ay * s);
    q[2] = sin(az * s);
    q[3] = sqrt(fmax(0.0, 1.0 - q[0] * q[0] - q[1] * q[1] - q[2] * q[2]));
    if (negative_w) q[3] = -q[3];
}

void mw_ref_game_slerp(const double a[4], const double b[4], double t, double out[4])
{
    double dot = 0;
    for (int i = 0; i < 4; ++i) dot += a[i] * b[i];
    if (dot > 0.95) {
        double n = 0;
        for (int i = 0; i < 4; ++i) out[i] = a[i] + t * (b[i] - a[i]), n += out[i] * out[i];
        for (int i = 0; i < 4; ++i) out[i] /= sqrt(n);
        return;
    }
    const double th = acos(dot), s = sin(th);
    for (int i = 0; i < 4; ++i) out[i] = (sin((1 - t) * th) * a[i] + sin(t * th) * b[i]) / s;
}
