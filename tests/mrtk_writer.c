#include "mrtk_writer.h"

#include <stdlib.h>
#include <string.h>

typedef struct buffer {
    uint8_t *data;
    size_t size, capacity;
    bool failed;
} buffer;

static void put(buffer *b, const void *bytes, size_t n)
{
    if (b->failed) return;
    if (b->size + n > b->capacity) {
        size_t cap = b->capacity ? b->capacity : 256;
        while (cap < b->size + n) cap *= 2;
        uint8_t *p = realloc(b->data, cap);
        if (!p) {
            b->failed = true;
            return;
        }
        b->data = p;
        b->capacity = cap;
    }
    memcpy(b->data + b->size, bytes, n);
    b->size += n;
}

static void put_u32(buffer *b, uint32_t v)
{
    const uint8_t bytes[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, bytes, 4);
}

static void put_i32(buffer *b, int32_t v) { put_u32(b, (uint32_t)v); }

static void put_f32(buffer *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put_u32(b, u);
}

static void put_bool(buffer *b, bool v)
{
    const uint8_t byte = v ? 1 : 0;
    put(b, &byte, 1);
}

static void put_string(buffer *b, const char *s)
{
    size_t n = strlen(s);
    do {
        uint8_t byte = (uint8_t)(n & 0x7f);
        n >>= 7;
        if (n) byte |= 0x80;
        put(b, &byte, 1);
    } while (n);
    put(b, s, strlen(s));
}

static void put_curve(buffer *b, const mrtk_writer_curve *c, bool full)
{
    put_i32(b, c->pre_wrap);
    put_i32(b, c->post_wrap);
    put_i32(b, (int32_t)c->key_count);
    for (size_t i = 0; i < c->key_count; ++i) {
        const mrtk_writer_key *k = &c->keys[i];
        put_f32(b, k->time);
        put_f32(b, k->value);
        if (!full) continue;
        put_f32(b, k->in_tangent);
        put_f32(b, k->out_tangent);
        put_f32(b, k->in_weight);
        put_f32(b, k->out_weight);
        put_i32(b, k->weighted_mode);
    }
}

uint8_t *mrtk_writer_write(const mrtk_writer_recording *rec, size_t *size)
{
    buffer b = {0};
    const uint8_t magic[8] = {0xc6, 0x42, 0x9e, 0x0f, 0x6e, 0xaf, 0x8f, 0x6a};
    put(&b, magic, 8);
    put_i32(&b, rec->major);
    put_i32(&b, rec->minor);
    const bool v11 = rec->major > 1 || (rec->major == 1 && rec->minor >= 1);
    const bool camera = v11 ? rec->has_camera : true;
    const bool hands = v11 ? rec->has_hands : true;
    const bool gaze = v11 && rec->has_gaze;
    if (v11) {
        put_bool(&b, rec->has_camera);
        put_bool(&b, rec->has_hands);
        put_bool(&b, rec->has_gaze);
    }
    if (camera)
        for (int c = 0; c < 7; ++c) put_curve(&b, &rec->camera[c], !v11);
    if (hands) {
        for (int c = 0; c < 4; ++c) put_curve(&b, &rec->states[c], false);
        for (int h = 0; h < 2; ++h)
            for (int j = 0; j < MRTK_WRITER_HAND_JOINTS; ++j)
                for (int c = 0; c < 7; ++c) put_curve(&b, &rec->joints[h][j][c], !v11);
    }
    if (gaze)
        for (int c = 0; c < 6; ++c) put_curve(&b, &rec->gaze[c], false);
    if (!rec->omit_marker_list) {
        put_i32(&b, (int32_t)rec->marker_count);
        for (size_t i = 0; i < rec->marker_count; ++i) {
            put_f32(&b, rec->markers[i].time);
            put_string(&b, rec->markers[i].name);
        }
    }
    if (b.failed) {
        free(b.data);
        return NULL;
    }
    *size = b.size;
    return b.data;
}

mrtk_writer_key mrtk_writer_linear_key(float time, float value)
{
    return (mrtk_writer_key){time, value, 0.f, 0.f, 0.f, 0.f, 3};
}
