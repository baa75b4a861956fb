/* MRTK input animation importer and Unity AnimationCurve evaluator tests. Files are made by
 * tests/mrtk_writer.c (no MRTK recording is public); expected values are computed here with
 * this file's own piecewise-linear curves and quaternion maths, or derived by hand. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "import/unity_curve.h"
#include "mrtk_writer.h"
#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/import_mrtk.h"
#include "ossa/offline/track_builder.h"
#include "ossa/sampling_job.h"
#include "ossa/skeleton.h"

#define J 27

static const char *const names[J] = {
    "None",
    "Wrist",
    "Palm",
    "ThumbMetacarpalJoint",
    "ThumbProximalJoint",
    "ThumbDistalJoint",
    "ThumbTip",
    "IndexMetacarpal",
    "IndexKnuckle",
    "IndexMiddleJoint",
    "IndexDistalJoint",
    "IndexTip",
    "MiddleMetacarpal",
    "MiddleKnuckle",
    "MiddleMiddleJoint",
    "MiddleDistalJoint",
    "MiddleTip",
    "RingMetacarpal",
    "RingKnuckle",
    "RingMiddleJoint",
    "RingDistalJoint",
    "RingTip",
    "PinkyMetacarpal",
    "PinkyKnuckle",
    "PinkyMiddleJoint",
    "PinkyDistalJoint",
    "PinkyTip",
};

/* The hierarchy written out by name (child, parent), as MRTK's finger chains. */
static const char *const parent_of[J] = {
    NULL,
    "None",
    "Wrist",
    "Wrist",
    "ThumbMetacarpalJoint",
    "ThumbProximalJoint",
    "ThumbDistalJoint",
    "Wrist",
    "IndexMetacarpal",
    "IndexKnuckle",
    "IndexMiddleJoint",
    "IndexDistalJoint",
    "Wrist",
    "MiddleMetacarpal",
    "MiddleKnuckle",
    "MiddleMiddleJoint",
    "MiddleDistalJoint",
    "Wrist",
    "RingMetacarpal",
    "RingKnuckle",
    "RingMiddleJoint",
    "RingDistalJoint",
    "Wrist",
    "PinkyMetacarpal",
    "PinkyKnuckle",
    "PinkyMiddleJoint",
    "PinkyDistalJoint",
};

static int name_index(const char *n)
{
    for (int i = 0; i < J; ++i)
        if (!strcmp(names[i], n)) return i;
    return -1;
}

/* ---- reference maths ---------------------------------------------------------------- */

typedef struct q4 {
    float x, y, z, w;
} q4;
typedef struct v3 {
    float x, y, z;
} v3;

static q4 qmul(q4 a, q4 b)
{
    return (q4){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static q4 qnorm(q4 q)
{
    const float n = sqrtf(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return n > 0.f ? (q4){q.x / n, q.y / n, q.z / n, q.w / n} : (q4){0.f, 0.f, 0.f, 1.f};
}

static v3 qrot(q4 q, v3 v)
{
    const q4 r = qmul(qmul(q, (q4){v.x, v.y, v.z, 0.f}), (q4){-q.x, -q.y, -q.z, q.w});
    return (v3){r.x, r.y, r.z};
}

/* Piecewise linear with clamped ends: what MRTK's zero-tangent, zero-weight keys give. */
static float lin(const mrtk_writer_curve *c, float t)
{
    if (c->key_count == 0) return 0.f;
    if (t <= c->keys[0].time) return c->keys[0].value;
    for (size_t i = 1; i < c->key_count; ++i)
        if (t <= c->keys[i].time) {
            const mrtk_writer_key *a = &c->keys[i - 1], *b = &c->keys[i];
            return a->value + (b->value - a->value) * (t - a->time) / (b->time - a->time);
        }
    return c->keys[c->key_count - 1].value;
}

static void world_pose(const mrtk_writer_curve *c, float t, v3 *p, q4 *q)
{
    *p = (v3){lin(&c[0], t), lin(&c[1], t), lin(&c[2], t)};
    *q = qnorm((q4){lin(&c[3], t), lin(&c[4], t), lin(&c[5], t), lin(&c[6], t)});
}

/* Chord between two rotations, sign-insensitive. */
static float qdist(q4 a, ossa_quat b)
{
    const float s = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0.f ? -1.f : 1.f;
    const float dx = a.x - s * b.x, dy = a.y - s * b.y, dz = a.z - s * b.z, dw = a.w - s * b.w;
    return sqrtf(dx * dx + dy * dy + dz * dz + dw * dw);
}

static float vdist(v3 a, ossa_float3 b)
{
    return sqrtf((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

/* ---- fixtures ----------------------------------------------------------------------- */

#define KEYS 4
typedef struct fixture {
    mrtk_writer_recording rec;
    mrtk_writer_key camera[7][KEYS], joints[2][J][7][KEYS], states[4][KEYS], gaze[6][KEYS];
} fixture;

static void set_curve(mrtk_writer_curve *c, mrtk_writer_key *storage, size_t n, const float *t, const float *v)
{
    for (size_t i = 0; i < n; ++i) storage[i] = mrtk_writer_linear_key(t[i], v[i]);
    *c = (mrtk_writer_curve){8, 8, storage, n};
}

static void set_pose(mrtk_writer_curve *c, mrtk_writer_key (*storage)[KEYS], size_t n, const float *t, const v3 *p,
                     const q4 *q)
{
    for (int k = 0; k < 7; ++k) {
        float v[KEYS];
        for (size_t i = 0; i < n; ++i) {
            const float comp[7] = {p[i].x, p[i].y, p[i].z, q[i].x, q[i].y, q[i].z, q[i].w};
            v[i] = comp[k];
        }
        set_curve(&c[k], storage[k], n, t, v);
    }
}

static q4 axis_angle(float x, float y, float z, float a)
{
    const float n = sqrtf(x * x + y * y + z * z), s = sinf(0.5f * a) / n;
    return (q4){x * s, y * s, z * s, cosf(0.5f * a)};
}

/* A recording with every joint moving: 3 keys (0, 0.4, 1 s) of random world poses close to
 * each other, a camera with a kink at 0.5 s, hand states and two markers. */
static fixture *make_fixture(int minor, uint32_t seed)
{
    fixture *f = calloc(1, sizeof *f);
    f->rec = (mrtk_writer_recording){.major = 1, .minor = minor, .has_camera = true, .has_hands = true};
    const float ct[3] = {0.f, 0.5f, 1.f};
    const v3 cp[3] = {{0.f, 1.6f, 0.f}, {0.5f, 1.6f, 0.2f}, {0.5f, 1.7f, 1.f}};
    const q4 cq[3] = {axis_angle(0, 1, 0, 0.f), axis_angle(0, 1, 0, 0.5f), axis_angle(1, 0, 0, 0.8f)};
    set_pose(f->rec.camera, f->camera, 3, ct, cp, cq);
    const float jt[3] = {0.f, 0.4f, 1.f};
    uint32_t rng = seed;
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < J; ++j) {
            v3 p[3];
            q4 q[3];
            const float ax = ossa_test_randf(&rng, -1, 1), ay = ossa_test_randf(&rng, -1, 1) + 2.f;
            const float angle = ossa_test_randf(&rng, -3.f, 3.f);
            for (int k = 0; k < 3; ++k) {
                p[k] = (v3){ossa_test_randf(&rng, -.5f, .5f), ossa_test_randf(&rng, 1.f, 1.5f),
                            ossa_test_randf(&rng, .2f, .6f)};
                q[k] = axis_angle(ax, ay, 0.3f, angle + 0.4f * (float)k);
            }
            set_pose(f->rec.joints[h][j], f->joints[h][j], 3, jt, p, q);
        }
    const float st[3] = {0.f, 0.25f, 0.75f}, sv[3] = {0.f, 1.f, 0.f};
    set_curve(&f->rec.states[0], f->states[0], 3, st, sv);
    const float pt[1] = {0.3f}, pv[1] = {1.f};
    set_curve(&f->rec.states[3], f->states[3], 1, pt, pv);
    static const mrtk_writer_marker markers[2] = {{0.1f, "start"}, {0.9f, "grab \xe2\x9c\x8b"}};
    f->rec.markers = markers;
    f->rec.marker_count = 2;
    return f;
}

static uint8_t *write_fixture(const fixture *f, size_t *size)
{
    uint8_t *bytes = mrtk_writer_write(&f->rec, size);
    assert_non_null(bytes);
    return bytes;
}

static ossa_result import(const uint8_t *bytes, size_t size, const ossa_mrtk_desc *desc, ossa_import_output *out,
                          ossa_diag *diag)
{
    memset(out, 0, sizeof *out);
    ossa_diag_clear(diag);
    return ossa_import_mrtk(bytes, size, desc, out, diag);
}

static void assert_empty(const ossa_import_output *out)
{
    assert_int_equal(out->skeleton.joint_count, 0);
    assert_int_equal(out->animation_count, 0);
    assert_int_equal(out->track_count, 0);
    assert_int_equal(out->event_count, 0);
    assert_null(out->metadata);
}

static void expect_error(const uint8_t *bytes, size_t size, ossa_result code, size_t offset)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    const ossa_result r = import(bytes, size, NULL, &out, &diag);
    if (r != code || diag.offset != offset)
        print_error("expected %s at %zu, got %s at %zu: %s\n", ossa_result_name(code), offset, ossa_result_name(r),
                    diag.offset, diag.message);
    assert_int_equal(r, code);
    assert_int_equal(diag.code, code);
    assert_int_equal(diag.offset, offset);
    assert_true(strlen(diag.message) > 10);
    assert_empty(&out);
    ossa_import_output_destroy(&out);
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (uint8_t)(v >> (8 * i));
}

static void putf(uint8_t *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    put32(p, u);
}

static const ossa_raw_track *find_track(const ossa_import_output *out, const char *name)
{
    for (size_t i = 0; i < out->track_count; ++i)
        if (!strcmp(out->tracks[i].name, name)) return &out->tracks[i];
    fail_msg("no track %s", name);
    return NULL;
}

/* ---- writer ------------------------------------------------------------------------- */

/* FORMATS' constructed example: v1.1, camera only, one key per curve, no markers. */
static void test_writer_exact_bytes(void **state)
{
    (void)state;
    static const uint8_t expected[163] = {
        0xc6,
        0x42,
        0x9e,
        0x0f,
        0x6e,
        0xaf,
        0x8f,
        0x6a,
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        1,
        0,
        0,
        /* position x = 0 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        /* position y = 1.5 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0xc0,
        0x3f,
        /* position z = -2 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0xc0,
        /* rotation x = 0 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        /* rotation y = 0 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        /* rotation z = 0 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        /* rotation w = 1 */ 8,
        0,
        0,
        0,
        8,
        0,
        0,
        0,
        1,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0,
        0x80,
        0x3f,
        /* markers */ 0,
        0,
        0,
        0,
    };
    /* The prefix as printed in the format notes. */
    static const uint8_t prefix[35] = {0xc6, 0x42, 0x9e, 0x0f, 0x6e, 0xaf, 0x8f, 0x6a, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0,
                                       0,    8,    0,    0,    0,    8,    0,    0,    0, 1, 0, 0, 0, 0, 0, 0, 0};
    mrtk_writer_key keys[7];
    const float values[7] = {0.f, 1.5f, -2.f, 0.f, 0.f, 0.f, 1.f};
    mrtk_writer_recording rec = {.major = 1, .minor = 1, .has_camera = true};
    for (int c = 0; c < 7; ++c) {
        keys[c] = mrtk_writer_linear_key(0.f, values[c]);
        rec.camera[c] = (mrtk_writer_curve){8, 8, &keys[c], 1};
    }
    size_t size;
    uint8_t *bytes = mrtk_writer_write(&rec, &size);
    assert_int_equal(size, 163);
    assert_memory_equal(bytes, prefix, sizeof prefix);
    assert_memory_equal(bytes, expected, sizeof expected);

    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, OSSA_MRTK_JOINT_COUNT);
    const ossa_transform cam = out.skeleton.joints[OSSA_MRTK_JOINT_CAMERA].rest;
    assert_true(cam.translation.x == 0.f && cam.translation.y == 1.5f && cam.translation.z == -2.f);
    assert_true(cam.rotation.w == 1.f);
    char buffer[64];
    assert_true(ossa_import_output_metadata(&out, "version", buffer, sizeof buffer));
    assert_string_equal(buffer, "1.1");
    assert_true(ossa_import_output_metadata(&out, "has_hand_data", buffer, sizeof buffer));
    assert_string_equal(buffer, "0");
    assert_true(ossa_import_output_metadata(&out, "markers", buffer, sizeof buffer));
    assert_string_equal(buffer, "0");
    assert_int_equal(out.event_count, 0);
    assert_int_equal(out.track_count, 4); /* hand states, no gaze */
    ossa_import_output_destroy(&out);
    free(bytes);
}

/* An all-empty 1.0 file: 16 + 7*12 + 4*12 + 54*7*12 + 4 = 4688 bytes (format notes 1.2). */
static void test_empty_v10(void **state)
{
    (void)state;
    mrtk_writer_recording rec = {.major = 1, .minor = 0};
    size_t size;
    uint8_t *bytes = mrtk_writer_write(&rec, &size);
    assert_int_equal(size, 4688);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 55);
    assert_string_equal(out.skeleton.joints[0].name, "camera");
    assert_int_equal(out.skeleton.joints[0].parent, -1);
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < J; ++j) {
            const size_t index = (size_t)(h == 0 ? OSSA_MRTK_JOINT_HAND_LEFT : OSSA_MRTK_JOINT_HAND_RIGHT) + (size_t)j;
            const ossa_raw_joint *rj = &out.skeleton.joints[index];
            char expected[64];
            snprintf(expected, sizeof expected, "%s/%s", h ? "hand_right" : "hand_left", names[j]);
            assert_string_equal(rj->name, expected);
            if (!parent_of[j]) {
                assert_int_equal(rj->parent, -1);
            } else {
                char parent[64];
                snprintf(parent, sizeof parent, "%s/%s", h ? "hand_right" : "hand_left", parent_of[j]);
                assert_true(rj->parent >= 0);
                assert_string_equal(out.skeleton.joints[rj->parent].name, parent);
            }
            assert_true(rj->rest.translation.x == 0.f && rj->rest.rotation.w == 1.f);
        }
    assert_true(ossa_raw_skeleton_is_depth_first(&out.skeleton));
    assert_int_equal(ossa_raw_skeleton_validate(&out.skeleton, &diag), OSSA_OK);
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], &diag), OSSA_OK);
    for (size_t t = 0; t < 55; ++t) {
        assert_int_equal(out.animations[0].tracks[t].translation_count, 1);
        assert_int_equal(out.animations[0].tracks[t].rotation_count, 1);
        assert_int_equal(out.animations[0].tracks[t].scale_count, 0);
    }
    for (size_t t = 0; t < 4; ++t) {
        assert_int_equal(out.tracks[t].key_count, 1);
        assert_true(out.tracks[t].keys[0].value[0] == 0.f);
    }
    char buffer[64];
    assert_true(ossa_import_output_metadata(&out, "format", buffer, sizeof buffer));
    assert_string_equal(buffer, "mrtk");
    assert_true(ossa_import_output_metadata(&out, "source_units", buffer, sizeof buffer));
    assert_string_equal(buffer, "metres");
    ossa_import_output_destroy(&out);
    free(bytes);

    /* The published document's layout (no marker list) ends where MRTK's reader expects the
     * marker count: cut short. */
    rec.omit_marker_list = true;
    bytes = mrtk_writer_write(&rec, &size);
    assert_int_equal(size, 4684);
    expect_error(bytes, size, OSSA_ERROR_TRUNCATED, 4684);
    free(bytes);
}

/* ---- round trips -------------------------------------------------------------------- */

static void check_round_trip(int minor)
{
    fixture *f = make_fixture(minor, 1234u + (uint32_t)minor);
    size_t size;
    uint8_t *bytes = write_fixture(f, &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.animation_count, 1);
    const ossa_raw_animation *anim = &out.animations[0];
    assert_int_equal(ossa_raw_animation_validate(anim, &diag), OSSA_OK);
    assert_true(anim->duration == 1.f);
    ossa_transform local[55];
    float worst_p = 0.f, worst_q = 0.f;
    /* 60 Hz over 1 s: 61 samples at k / 60 s. */
    for (int k = 0; k <= 60; ++k) {
        const float t = (float)k / 60.f;
        assert_int_equal(ossa_raw_animation_sample(anim, t, local, 55), OSSA_OK);
        v3 p;
        q4 q;
        world_pose(f->rec.camera, t, &p, &q);
        worst_p = fmaxf(worst_p, vdist(p, local[0].translation));
        worst_q = fmaxf(worst_q, qdist(q, local[0].rotation));
        for (int h = 0; h < 2; ++h)
            for (int j = 0; j < J; ++j) {
                world_pose(f->rec.joints[h][j], t, &p, &q);
                if (parent_of[j]) {
                    v3 pp;
                    q4 pq;
                    world_pose(f->rec.joints[h][name_index(parent_of[j])], t, &pp, &pq);
                    const q4 inv = {-pq.x, -pq.y, -pq.z, pq.w};
                    p = qrot(inv, (v3){p.x - pp.x, p.y - pp.y, p.z - pp.z});
                    q = qmul(inv, q);
                }
                const ossa_transform *l = &local[1 + 27 * h + j];
                worst_p = fmaxf(worst_p, vdist(p, l->translation));
                worst_q = fmaxf(worst_q, qdist(q, l->rotation));
            }
    }
    /* Every sample a key: float rounding of the local conversion only. */
    assert_true(worst_p < 1e-5f);
    assert_true(worst_q < 1e-5f);

    /* Hand states: tracked left 0 -> 1 at 0.25 s -> 0 at 0.75 s; pinching right holds its
     * only key (1) from the start; the others have no key (0). */
    const ossa_raw_track *tl = find_track(&out, "hand_left/tracked");
    assert_int_equal(tl->type, OSSA_TRACK_FLOAT);
    assert_int_equal(tl->key_count, 3);
    const float ratios[3] = {0.f, 0.25f, 0.75f}, values[3] = {0.f, 1.f, 0.f};
    for (int i = 0; i < 3; ++i) {
        assert_true(tl->keys[i].ratio == ratios[i]);
        assert_true(tl->keys[i].value[0] == values[i]);
        assert_int_equal(tl->keys[i].interpolation, OSSA_INTERP_STEP);
    }
    const ossa_raw_track *pr = find_track(&out, "hand_right/pinching");
    assert_int_equal(pr->key_count, 1);
    assert_true(pr->keys[0].ratio == 0.f && pr->keys[0].value[0] == 1.f);
    assert_int_equal(find_track(&out, "hand_right/tracked")->key_count, 1);
    assert_true(find_track(&out, "hand_left/pinching")->keys[0].value[0] == 0.f);
    for (size_t i = 0; i < out.track_count; ++i)
        assert_int_equal(ossa_raw_track_validate(&out.tracks[i], &diag), OSSA_OK);

    assert_int_equal(out.event_count, 2);
    assert_true(out.events[0].time == 0.1f);
    assert_string_equal(out.events[0].name, "start");
    assert_true(out.events[1].time == 0.9f);
    assert_string_equal(out.events[1].name, "grab \xe2\x9c\x8b");
    char buffer[64];
    assert_true(ossa_import_output_metadata(&out, "version", buffer, sizeof buffer));
    assert_string_equal(buffer, minor ? "1.1" : "1.0");
    ossa_import_output_destroy(&out);
    free(bytes);
    free(f);
}

static void test_round_trip_v10(void **state)
{
    (void)state;
    check_round_trip(0);
}

static void test_round_trip_v11(void **state)
{
    (void)state;
    check_round_trip(1);
}

/* The importer keeps every sample (the builders reduce): the camera's piecewise-linear motion
 * (kink at 0.5 s) gives one key per 60 Hz sample on that path, and 11 at 10 Hz; the bounded
 * animation builder keeps fewer keys than the lossless one, within its tolerance. */
static void test_every_sample_kept(void **state)
{
    (void)state;
    fixture *f = make_fixture(0, 99u);
    size_t size;
    uint8_t *bytes = write_fixture(f, &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    const ossa_raw_joint_track *cam = &out.animations[0].tracks[0];
    assert_int_equal(cam->translation_count, 61);
    assert_int_equal(cam->rotation_count, 61);
    for (int k = 0; k <= 60; ++k) {
        const float t = (float)k / 60.f;
        assert_float_equal(cam->translations[k].time, t, 1e-6f);
        v3 p;
        q4 q;
        world_pose(f->rec.camera, t, &p, &q);
        assert_true(vdist(p, cam->translations[k].value) < 1e-6f);
    }
    /* Bounded bake: far fewer keys than samples on the camera's two straight segments. */
    ossa_blob blob = {0};
    ossa_animation_build_stats stats = {0};
    const ossa_animation_build_desc build = {.skeleton = &out.skeleton, .tolerance = 1e-4f, .stats = &stats};
    assert_int_equal(ossa_animation_build(&out.animations[0], &build, &blob, &diag), OSSA_OK);
    assert_true(stats.error_ratio <= 1.f);
    ossa_animation view;
    assert_int_equal(ossa_animation_init(&view, blob.data, blob.size), OSSA_OK);
    const size_t bounded_keys = view.key_count;
    ossa_blob_destroy(&blob);
    assert_int_equal(ossa_animation_build(&out.animations[0], NULL, &blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_init(&view, blob.data, blob.size), OSSA_OK);
    assert_true(bounded_keys < view.key_count); /* the lossless build keeps every sample */
    ossa_blob_destroy(&blob);
    ossa_import_output_destroy(&out);
    const ossa_mrtk_desc desc = {.sample_rate = 10.f};
    assert_int_equal(import(bytes, size, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(out.animations[0].tracks[0].translation_count, 11);
    ossa_import_output_destroy(&out);
    free(bytes);
    free(f);
}

/* Full 1.0 keys are evaluated as Unity curves: Hermite with zero tangents is smoothstep. */
static void test_v10_hermite_camera(void **state)
{
    (void)state;
    mrtk_writer_key keys[2] = {{0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0}, {1.f, 1.f, 0.f, 0.f, 0.f, 0.f, 0}};
    mrtk_writer_key w = {0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 0};
    mrtk_writer_recording rec = {.major = 1, .minor = 0};
    rec.camera[0] = (mrtk_writer_curve){8, 8, keys, 2};
    rec.camera[6] = (mrtk_writer_curve){8, 8, &w, 1};
    size_t size;
    uint8_t *bytes = mrtk_writer_write(&rec, &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    ossa_transform local[55];
    /* 3 s^2 - 2 s^3 at s = 0.25 and 0.5 */
    assert_int_equal(ossa_raw_animation_sample(&out.animations[0], 0.25f, local, 55), OSSA_OK);
    assert_float_equal(local[0].translation.x, 0.15625f, 2e-6f);
    assert_int_equal(ossa_raw_animation_sample(&out.animations[0], 0.5f, local, 55), OSSA_OK);
    assert_float_equal(local[0].translation.x, 0.5f, 2e-6f);
    assert_int_equal(out.animations[0].tracks[0].translation_count, 61);
    ossa_import_output_destroy(&out);
    free(bytes);
}

/* 1.1 with only eye gaze: hands absent (identity joints, hand states 0) and two float3
 * tracks, the direction normalised as MRTK's RayCurves.Evaluate does. */
static void test_v11_gaze_only(void **state)
{
    (void)state;
    mrtk_writer_key keys[6][2];
    mrtk_writer_recording rec = {.major = 1, .minor = 1, .has_gaze = true};
    const float v0[6] = {0.f, 1.f, 0.f, 0.f, 0.f, 2.f}, v1[6] = {1.f, 1.f, 0.f, 2.f, 0.f, 0.f};
    for (int c = 0; c < 6; ++c) {
        keys[c][0] = mrtk_writer_linear_key(0.f, v0[c]);
        keys[c][1] = mrtk_writer_linear_key(2.f, v1[c]);
        rec.gaze[c] = (mrtk_writer_curve){8, 8, keys[c], 2};
    }
    size_t size;
    uint8_t *bytes = mrtk_writer_write(&rec, &size);
    assert_int_equal(size, 16 + 3 + 6 * (12 + 16) + 4);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.track_count, 6);
    const ossa_raw_track *origin = find_track(&out, "eye_gaze/origin");
    const ossa_raw_track *dir = find_track(&out, "eye_gaze/direction");
    assert_int_equal(origin->type, OSSA_TRACK_FLOAT3);
    /* 2 s at 60 Hz: 121 samples, which the track optimiser reduces to the linear motion's 2. */
    assert_int_equal(origin->key_count, 121);
    ossa_raw_track reduced = {0};
    assert_int_equal(ossa_track_optimize(origin, NULL, &reduced, &diag), OSSA_OK);
    assert_int_equal(reduced.key_count, 2);
    ossa_raw_track_destroy(&reduced);
    float value[4];
    ossa_raw_track_evaluate(origin, 0.5f, value);
    assert_float_equal(value[0], 0.5f, 1e-6f);
    assert_float_equal(value[1], 1.f, 1e-6f);
    for (int k = 0; k <= 120; k += 7) {
        const float ratio = (float)k / 120.f, s = ratio;
        const float x = 2.f * s, z = 2.f - 2.f * s, n = sqrtf(x * x + z * z);
        ossa_raw_track_evaluate(dir, ratio, value);
        assert_float_equal(value[0], x / n, 1.1e-3f);
        assert_float_equal(value[2], z / n, 1.1e-3f);
    }
    assert_int_equal(dir->key_count, 121);
    for (size_t j = 1; j < 55; ++j) {
        assert_int_equal(out.animations[0].tracks[j].translation_count, 1);
        assert_true(out.animations[0].tracks[j].rotations[0].value.w == 1.f);
    }
    assert_true(find_track(&out, "hand_left/tracked")->keys[0].value[0] == 0.f);
    char buffer[16];
    assert_true(ossa_import_output_metadata(&out, "has_eye_gaze", buffer, sizeof buffer));
    assert_string_equal(buffer, "1");
    ossa_import_output_destroy(&out);
    free(bytes);
}

/* ---- Unity AnimationCurve evaluation -------------------------------------------------- */

static ossa__unity_key key(float t, float v, float in, float out, float inw, float outw, int32_t mode)
{
    return (ossa__unity_key){t, v, in, out, inw, outw, mode};
}

static float eval2(ossa__unity_key a, ossa__unity_key b, float t)
{
    const ossa__unity_key k[2] = {a, b};
    const ossa__unity_curve c = {8, 8, k, 2};
    return ossa__unity_curve_evaluate(&c, t);
}

static void test_unity_hermite(void **state)
{
    (void)state;
    /* Zero tangents over [0, 2], 0 -> 4: 4 (3 s^2 - 2 s^3). */
    const ossa__unity_key a = key(0, 0, 0, 0, 0, 0, 0), b = key(2, 4, 0, 0, 0, 0, 0);
    assert_float_equal(eval2(a, b, 1.f), 2.f, 1e-6f);
    assert_float_equal(eval2(a, b, 0.5f), 0.625f, 1e-6f);
    /* Tangents equal to the chord slope (2) reproduce the line 2t. */
    assert_float_equal(eval2(key(0, 0, 0, 2, 0, 0, 0), key(2, 4, 2, 0, 0, 0, 0), 0.5f), 1.f, 1e-6f);
    /* m0 = 1, m1 = -1 on a unit segment from 0 to 0: (s^3 - 2s^2 + s) - (s^3 - s^2) = 0.25 at 0.5. */
    assert_float_equal(eval2(key(0, 0, 0, 1, 0, 0, 0), key(1, 0, -1, 0, 0, 0, 0), 0.5f), 0.25f, 1e-6f);
    /* Weights on a side without its flag are ignored. */
    assert_float_equal(eval2(key(0, 0, 0, 1, 0, 0.9f, 1), key(1, 0, -1, 0, 0.9f, 0, 2), 0.5f), 0.25f, 1e-6f);
    /* At the keys. */
    assert_float_equal(eval2(a, b, 0.f), 0.f, 0.f);
    assert_float_equal(eval2(a, b, 2.f), 4.f, 0.f);
}

static void test_unity_weighted(void **state)
{
    (void)state;
    /* Weights 1/3 on both sides are the Hermite segment. */
    assert_float_equal(eval2(key(0, 0, 0, 1, 0, 1.f / 3.f, 2), key(1, 0, -1, 0, 1.f / 3.f, 0, 1), 0.5f), 0.25f, 1e-5f);
    /* w0 = w1 = 0.5: x(u) = 1.5 u (1 - u) + u^3, so x(0.25) = 0.296875. With zero tangents the
     * value control points are (0, 0, 1, 1): y(0.25) = 3 u^2 (1 - u) + u^3 = 0.15625. */
    assert_float_equal(ossa__unity_bezier_solve(0.296875f, 0.5f, 0.5f), 0.25f, 1e-6f);
    assert_float_equal(eval2(key(0, 0, 0, 0, 0, 0.5f, 3), key(1, 1, 0, 0, 0.5f, 0, 3), 0.296875f), 0.15625f, 1e-6f);
    /* Out tangent 2 with weight 0.5 moves P1 to 1: y(0.25) = 3u(1-u)^2 + 3u^2(1-u) + u^3 = 0.578125. */
    assert_float_equal(eval2(key(0, 0, 0, 2, 0, 0.5f, 3), key(1, 1, 0, 0, 0.5f, 0, 3), 0.296875f), 0.578125f, 1e-6f);
    /* Over a 2 s segment the tangent is scaled by the duration: out tangent 1 gives the same P1. */
    assert_float_equal(eval2(key(0, 0, 0, 1, 0, 0.5f, 3), key(2, 1, 0, 0, 0.5f, 0, 3), 0.59375f), 0.578125f, 1e-6f);
    /* MRTK's linear keys (weights 0, Both): exactly the line. */
    assert_float_equal(eval2(key(0, 1, 0, 0, 0, 0, 3), key(2, 5, 0, 0, 0, 0, 3), 0.5f), 2.f, 1e-6f);
    assert_float_equal(eval2(key(0, 1, 0, 0, 0, 0, 3), key(2, 5, 0, 0, 0, 0, 3), 1.9f), 4.8f, 1e-5f);
    /* MRTK's bool keys (out weight 1e6): the left value holds across the segment. */
    for (float t = 0.f; t < 0.99f; t += 0.07f)
        assert_float_equal(eval2(key(0, 1, 0, 0, 0, 1e6f, 3), key(1, 0, 0, 0, 0, 0, 3), t), 1.f, 1e-3f);
}

/* The first root: checked against a dense scan of x(u) - s for an earlier sign change. */
static void test_unity_bezier_first_root(void **state)
{
    (void)state;
    const float cases[][3] = {{0.5f, 1.5f, -0.5f}, {0.55f, 1.5f, -0.5f}, {0.1f, 0.f, 1.f},  {0.9f, 1.f, 0.f},
                              {0.3f, 2.f, -1.f},   {0.7f, -0.5f, 1.5f},  {0.f, 0.4f, 0.6f}, {1.f, 0.4f, 0.6f}};
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const float s = cases[i][0], p1 = cases[i][1], p2 = cases[i][2];
        const float u = ossa__unity_bezier_solve(s, p1, p2);
        const float iu = 1.f - u;
        const float x = 3.f * p1 * u * iu * iu + 3.f * p2 * u * u * iu + u * u * u;
        assert_true(u >= 0.f && u <= 1.f);
        assert_float_equal(x, s, 2e-6f);
        float prev = -s;
        for (int k = 1; k * 1e-3f < u - 2e-3f; ++k) {
            const float v = (float)k * 1e-3f, iv = 1.f - v;
            const float f = 3.f * p1 * v * iv * iv + 3.f * p2 * v * v * iv + v * v * v - s;
            assert_false(f != 0.f && prev != 0.f && (f < 0.f) != (prev < 0.f));
            prev = f;
        }
    }
}

static void test_unity_stepped(void **state)
{
    (void)state;
    const float inf = INFINITY;
    assert_float_equal(eval2(key(0, 3, 0, inf, 0, 0, 0), key(1, 7, 0, 0, 0, 0, 0), 0.9f), 3.f, 0.f);
    assert_float_equal(eval2(key(0, 3, 0, 0, 0, 0, 0), key(1, 7, -inf, 0, 0, 0, 0), 0.5f), 3.f, 0.f);
    /* Stepped wins over weighted. */
    assert_float_equal(eval2(key(0, 3, 0, inf, 0, 0.5f, 3), key(1, 7, 0, 0, 0.5f, 0, 3), 0.5f), 3.f, 0.f);
    assert_float_equal(eval2(key(0, 3, 0, inf, 0, 0, 0), key(1, 7, 0, 0, 0, 0, 0), 1.f), 7.f, 0.f);
}

static void test_unity_wrap(void **state)
{
    (void)state;
    /* Linear keys from (1, 0) to (3, 2): value = t - 1 inside the range. */
    const ossa__unity_key k[2] = {key(1, 0, 0, 0, 0, 0, 3), key(3, 2, 0, 0, 0, 0, 3)};
    ossa__unity_curve c = {OSSA__UNITY_WRAP_LOOP, OSSA__UNITY_WRAP_LOOP, k, 2};
    assert_float_equal(ossa__unity_curve_evaluate(&c, 4.f), 1.f, 1e-6f);    /* 1 + (3 mod 2) = 2 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 5.5f), 0.5f, 1e-6f);  /* 1 + (4.5 mod 2) = 1.5 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 0.f), 1.f, 1e-6f);    /* 1 + (-1 mod 2) = 2 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, -0.5f), 0.5f, 1e-6f); /* 1 + (-1.5 mod 2) = 1.5 */
    c.pre_wrap = c.post_wrap = OSSA__UNITY_WRAP_PING_PONG;
    assert_float_equal(ossa__unity_curve_evaluate(&c, 4.f), 1.f, 1e-6f);   /* u = 3 -> 4 - 3 = 1 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 4.5f), 0.5f, 1e-6f); /* u = 3.5 -> 0.5 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 6.f), 1.f, 1e-6f);   /* u = 5 mod 4 = 1 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 0.f), 1.f, 1e-6f);   /* u = -1 mod 4 = 3 -> 1 */
    assert_float_equal(ossa__unity_curve_evaluate(&c, 0.5f), 0.5f, 1e-6f); /* u = -0.5 mod 4 = 3.5 -> 0.5 */
    const int32_t clamps[4] = {OSSA__UNITY_WRAP_DEFAULT, OSSA__UNITY_WRAP_ONCE, OSSA__UNITY_WRAP_CLAMP_FOREVER, 99};
    for (int i = 0; i < 4; ++i) {
        c.pre_wrap = c.post_wrap = clamps[i];
        assert_float_equal(ossa__unity_curve_evaluate(&c, 10.f), 2.f, 0.f);
        assert_float_equal(ossa__unity_curve_evaluate(&c, -5.f), 0.f, 0.f);
    }
    /* Pre and post modes are independent. */
    c.pre_wrap = OSSA__UNITY_WRAP_CLAMP_FOREVER;
    c.post_wrap = OSSA__UNITY_WRAP_LOOP;
    assert_float_equal(ossa__unity_curve_evaluate(&c, 0.f), 0.f, 0.f);
    assert_float_equal(ossa__unity_curve_evaluate(&c, 3.5f), 0.5f, 1e-6f);
    /* No key: 0; one key: its value everywhere, whatever the wrap mode. */
    c.key_count = 0;
    assert_float_equal(ossa__unity_curve_evaluate(&c, 1.f), 0.f, 0.f);
    c.key_count = 1;
    assert_float_equal(ossa__unity_curve_evaluate(&c, 7.f), 0.f, 0.f);
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, -7.f), 0.f, 0.f);
}

static void test_unity_bool_step(void **state)
{
    (void)state;
    const ossa__unity_key k[3] = {key(0.5f, 1, 0, 0, 0, 1e6f, 3), key(1, 0, 0, 0, 0, 1e6f, 3),
                                  key(2, 1, 0, 0, 0, 1e6f, 3)};
    ossa__unity_curve c = {8, 8, k, 3};
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 0.f), 1.f, 0.f); /* before: first key */
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 0.99f), 1.f, 0.f);
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 1.f), 0.f, 0.f); /* switches at the key */
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 1.999f), 0.f, 0.f);
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 5.f), 1.f, 0.f);
    c.post_wrap = OSSA__UNITY_WRAP_LOOP; /* range 1.5 s: 2.75 -> 0.5 + (2.25 mod 1.5) = 1.25 */
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 2.75f), 0.f, 0.f);
    assert_float_equal(ossa__unity_curve_evaluate_step(&c, 2.25f), 1.f, 0.f); /* -> 0.75 */
}

/* ---- bad input ---------------------------------------------------------------------- */

/* v1.1, camera only: position.x has keys at 0 and 1 s, the other curves one key; one marker
 * "m" at 0.5 s. Layout: header 0..15, flags 16..18, curve 0 at 19 (count at 27, keys at 31
 * and 39), curves 1..6 at 47 + 20 i, marker count at 167, time 171, length 175, name 176. */
static uint8_t *small_v11(size_t *size)
{
    static mrtk_writer_key keys[8];
    static const mrtk_writer_marker marker = {0.5f, "m"};
    mrtk_writer_recording rec = {.major = 1, .minor = 1, .has_camera = true, .markers = &marker, .marker_count = 1};
    keys[0] = mrtk_writer_linear_key(0.f, 0.f);
    keys[1] = mrtk_writer_linear_key(1.f, 1.f);
    rec.camera[0] = (mrtk_writer_curve){8, 8, keys, 2};
    for (int c = 1; c < 7; ++c) {
        keys[c + 1] = mrtk_writer_linear_key(0.f, c == 6 ? 1.f : 0.f);
        rec.camera[c] = (mrtk_writer_curve){8, 8, &keys[c + 1], 1};
    }
    uint8_t *bytes = mrtk_writer_write(&rec, size);
    assert_non_null(bytes);
    assert_int_equal(*size, 177);
    return bytes;
}

/* v1.0 with position.x keys at 0 and 1 s (full keys): curve 0 at 16, count at 24, key 0 at
 * 28 (time, value, in, out, in weight, out weight, mode at 28..52), key 1 at 56. */
static uint8_t *small_v10(size_t *size, float v0, float v1, int32_t mode)
{
    mrtk_writer_key keys[2] = {{0.f, v0, 0.f, 0.f, 0.f, 0.f, mode}, {1.f, v1, 0.f, 0.f, 0.f, 0.f, mode}};
    mrtk_writer_recording rec = {.major = 1, .minor = 0};
    rec.camera[0] = (mrtk_writer_curve){8, 8, keys, 2};
    uint8_t *bytes = mrtk_writer_write(&rec, size);
    assert_non_null(bytes);
    assert_int_equal(*size, 4688 + 56);
    return bytes;
}

static void test_error_header(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = small_v11(&size);
    b[0] ^= 1;
    expect_error(b, size, OSSA_ERROR_BAD_MAGIC, 0);
    b[0] ^= 1;
    expect_error((const uint8_t *)"ab", 2, OSSA_ERROR_BAD_MAGIC, 0);
    expect_error(b, 5, OSSA_ERROR_TRUNCATED, 0);  /* inside the magic */
    expect_error(b, 14, OSSA_ERROR_TRUNCATED, 8); /* inside the version */
    put32(b + 12, 2);                             /* 1.2: newer */
    expect_error(b, size, OSSA_ERROR_UNSUPPORTED_VERSION, 12);
    put32(b + 8, 2); /* 2.2 */
    expect_error(b, size, OSSA_ERROR_UNSUPPORTED_VERSION, 8);
    put32(b + 8, 0); /* 0.2: older than any MRTK file */
    expect_error(b, size, OSSA_ERROR_UNSUPPORTED_VERSION, 8);
    put32(b + 8, 1);
    put32(b + 12, 0xffffffffu); /* 1.-1 */
    expect_error(b, size, OSSA_ERROR_UNSUPPORTED_VERSION, 12);
    put32(b + 12, 1);
    ossa_diag diag;
    ossa_import_output out = {0};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_mrtk(b, size, NULL, NULL, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(import(NULL, 5, NULL, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    const ossa_mrtk_desc bad[3] = {{.sample_rate = -1.f}, {.sample_rate = NAN}, {.max_duration = INFINITY}};
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(import(b, size, &bad[i], &out, &diag), OSSA_ERROR_INVALID_ARGUMENT);
        assert_empty(&out);
    }
    free(b);
}

static void test_error_truncated(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = small_v11(&size);
    for (size_t n = 0; n < size; ++n) {
        ossa_import_output out = {0};
        ossa_diag diag;
        const ossa_result r = import(b, n, NULL, &out, &diag);
        assert_int_equal(r, OSSA_ERROR_TRUNCATED);
        assert_true(diag.offset <= n);
        assert_empty(&out);
    }
    /* Ending where the marker list starts (after every curve) is cut short too: MRTK's reader
     * requires the list. */
    expect_error(b, 167, OSSA_ERROR_TRUNCATED, 167);
    ossa_import_output cut = {0};
    ossa_diag cut_diag;
    assert_int_equal(import(b, 167, NULL, &cut, &cut_diag), OSSA_ERROR_TRUNCATED);
    assert_non_null(strstr(cut_diag.message, "marker list"));
    expect_error(b, 17, OSSA_ERROR_TRUNCATED, 16);   /* flags */
    expect_error(b, 25, OSSA_ERROR_TRUNCATED, 19);   /* curve header */
    expect_error(b, 35, OSSA_ERROR_TRUNCATED, 27);   /* 2 keys declared, 4 bytes left */
    expect_error(b, 169, OSSA_ERROR_TRUNCATED, 167); /* marker count */
    expect_error(b, 175, OSSA_ERROR_TRUNCATED, 167); /* 1 marker needs at least 5 bytes */
    expect_error(b, 176, OSSA_ERROR_TRUNCATED, 176); /* name bytes */
    /* The whole file has its marker list: no warning. */
    ossa_import_output whole = {0};
    ossa_diag diag;
    char warning[200];
    assert_int_equal(import(b, size, NULL, &whole, &diag), OSSA_OK);
    assert_false(ossa_import_output_metadata(&whole, "warning", warning, sizeof warning));
    ossa_import_output_destroy(&whole);
    /* Bytes the declared counts do not account for: read as MRTK does, with a warning. */
    uint8_t *c = malloc(size + 3);
    memcpy(c, b, size);
    memset(c + size, 0, 3);
    assert_int_equal(import(c, size + 3, NULL, &whole, &diag), OSSA_OK);
    assert_true(ossa_import_output_metadata(&whole, "warning", warning, sizeof warning));
    assert_non_null(strstr(warning, "3 bytes after the marker list"));
    ossa_import_output_destroy(&whole);
    free(c);
    free(b);
}

static void test_error_counts_and_keys(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = small_v11(&size);
    uint8_t *c = malloc(size + 8);
    const struct {
        size_t at;
        uint32_t bits;
        float f;
        bool is_float;
        ossa_result code;
        size_t offset;
    } cases[] = {
        {27, 0xffffffffu, 0, false, OSSA_ERROR_CORRUPT, 27},    /* negative key count */
        {27, 0x80000000u, 0, false, OSSA_ERROR_CORRUPT, 27},    /* INT32_MIN */
        {27, 0x7fffffffu, 0, false, OSSA_ERROR_TRUNCATED, 27},  /* huge key count */
        {27, 19u, 0, false, OSSA_ERROR_TRUNCATED, 27},          /* 19 x 8 > 146 bytes left */
        {31, 0, INFINITY, true, OSSA_ERROR_INVALID_KEY, 31},    /* infinite time */
        {39, 0, NAN, true, OSSA_ERROR_INVALID_KEY, 39},         /* NaN time */
        {39, 0, -1.f, true, OSSA_ERROR_INVALID_KEY, 39},        /* decreasing time */
        {43, 0, NAN, true, OSSA_ERROR_INVALID_KEY, 43},         /* NaN value */
        {167, 0xffffffffu, 0, false, OSSA_ERROR_CORRUPT, 167},  /* negative marker count */
        {167, 3u, 0, false, OSSA_ERROR_TRUNCATED, 167},         /* 3 markers need 15 bytes */
        {171, 0, -INFINITY, true, OSSA_ERROR_INVALID_KEY, 171}, /* marker time */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        memcpy(c, b, size);
        if (cases[i].is_float)
            putf(c + cases[i].at, cases[i].f);
        else
            put32(c + cases[i].at, cases[i].bits);
        expect_error(c, size, cases[i].code, cases[i].offset);
    }
    /* Equal times are accepted (Unity allows them; the later key wins at that time). */
    memcpy(c, b, size);
    putf(c + 39, 0.f);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(c, size, NULL, &out, &diag), OSSA_OK);
    ossa_import_output_destroy(&out);
    /* Marker names: invalid UTF-8, NUL, a length longer than the data, bad 7-bit lengths. */
    memcpy(c, b, size);
    c[176] = 0xff;
    expect_error(c, size, OSSA_ERROR_PARSE, 176);
    c[176] = 0;
    expect_error(c, size, OSSA_ERROR_PARSE, 176);
    memcpy(c, b, size);
    c[175] = 5;
    expect_error(c, size, OSSA_ERROR_TRUNCATED, 176);
    const uint8_t too_long[6] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x01}, too_big[5] = {0xff, 0xff, 0xff, 0xff, 0x0f};
    memcpy(c + 175, too_long, 6);
    expect_error(c, 181, OSSA_ERROR_CORRUPT, 175);
    memcpy(c + 175, too_big, 5);
    expect_error(c, 180, OSSA_ERROR_CORRUPT, 175);
    /* A 2-byte 7-bit length (130) needs 130 name bytes. */
    const uint8_t two[2] = {0x82, 0x01};
    memcpy(c + 175, two, 2);
    expect_error(c, 177, OSSA_ERROR_TRUNCATED, 177);
    /* Over max_duration: key 1 at 5000 s. */
    memcpy(c, b, size);
    putf(c + 39, 5000.f);
    expect_error(c, size, OSSA_ERROR_UNSUPPORTED_FORMAT, 39);
    free(c);
    free(b);
}

static void test_error_full_keys(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = small_v10(&size, 0.f, 1.f, 3);
    const struct {
        size_t at;
        uint32_t bits;
        float f;
        bool is_float;
        ossa_result code;
    } cases[] = {
        {52, 7u, 0, false, OSSA_ERROR_CORRUPT},          /* weighted mode */
        {80, 0xffffffffu, 0, false, OSSA_ERROR_CORRUPT}, /* weighted mode -1 on key 1 */
        {36, 0, NAN, true, OSSA_ERROR_INVALID_KEY},      /* in tangent */
        {40, 0, NAN, true, OSSA_ERROR_INVALID_KEY},      /* out tangent */
        {44, 0, INFINITY, true, OSSA_ERROR_INVALID_KEY}, /* in weight */
        {48, 0, NAN, true, OSSA_ERROR_INVALID_KEY},      /* out weight */
        {24, 0xfffffffeu, 0, false, OSSA_ERROR_CORRUPT}, /* key count -2 */
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        uint8_t saved[4];
        memcpy(saved, b + cases[i].at, 4);
        if (cases[i].is_float)
            putf(b + cases[i].at, cases[i].f);
        else
            put32(b + cases[i].at, cases[i].bits);
        expect_error(b, size, cases[i].code, cases[i].at);
        memcpy(b + cases[i].at, saved, 4);
    }
    /* An infinite out tangent is a stepped segment, not an error. */
    putf(b + 40, INFINITY);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(b, size, NULL, &out, &diag), OSSA_OK);
    /* 0 until 1 s, then 1: samples hold 0 up to 59/60 s and jump at the last one. */
    const ossa_raw_joint_track *cam = &out.animations[0].tracks[0];
    assert_int_equal(cam->translation_count, 61);
    for (int k = 0; k < 60; ++k) assert_true(cam->translations[k].value.x == 0.f);
    assert_true(cam->translations[59].time == 59.f / 60.f);
    assert_true(cam->translations[60].value.x == 1.f);
    ossa_import_output_destroy(&out);
    free(b);
    /* Values that overflow in the Hermite sum: the curve is named, offset = curve record. */
    b = small_v10(&size, 3e38f, -3e38f, 0);
    expect_error(b, size, OSSA_ERROR_INVALID_KEY, 16);
    assert_int_equal(import(b, size, NULL, &out, &diag), OSSA_ERROR_INVALID_KEY);
    assert_non_null(strstr(diag.message, "camera position.x"));
    free(b);
}

/* World positions that are finite but whose difference overflows (None at -3e38, Wrist at
 * 3e38): the wrist's local position cannot be represented. Wrist curves start at byte 16 +
 * 7 * 12 + 4 * 12 + (12 + 28) + 6 * 12 = 260. */
static void test_error_local_overflow(void **state)
{
    (void)state;
    mrtk_writer_key none = {0.f, -3e38f, 0.f, 0.f, 0.f, 0.f, 3}, wrist = {0.f, 3e38f, 0.f, 0.f, 0.f, 0.f, 3};
    mrtk_writer_recording rec = {.major = 1, .minor = 0};
    rec.joints[0][0][0] = (mrtk_writer_curve){8, 8, &none, 1};
    rec.joints[0][1][0] = (mrtk_writer_curve){8, 8, &wrist, 1};
    size_t size;
    uint8_t *b = mrtk_writer_write(&rec, &size);
    expect_error(b, size, OSSA_ERROR_INVALID_KEY, 260);
    free(b);
}

typedef struct counting {
    size_t live, total;
} counting;

static void *count_alloc(size_t size, void *user)
{
    counting *c = user;
    ++c->live;
    ++c->total;
    return aligned_alloc(16, (size + 15) & ~(size_t)15);
}

static void count_free(void *ptr, void *user)
{
    counting *c = user;
    if (ptr) --c->live;
    free(ptr);
}

/* Every allocation goes through the desc's allocator and is released by destroy, on success
 * and on failure. */
static void test_allocator(void **state)
{
    (void)state;
    fixture *f = make_fixture(1, 3u);
    size_t size;
    uint8_t *bytes = write_fixture(f, &size);
    counting c = {0, 0};
    const ossa_allocator alloc = {count_alloc, count_free, &c};
    const ossa_mrtk_desc desc = {.allocator = &alloc};
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, &desc, &out, &diag), OSSA_OK);
    assert_true(c.total > 100);
    ossa_import_output_destroy(&out);
    assert_int_equal(c.live, 0);
    put32(bytes + size - 13, 0xffffffffu); /* the last marker's time (before 1 + 8 name bytes) becomes NaN */
    c.total = 0;
    assert_int_equal(import(bytes, size, &desc, &out, &diag), OSSA_ERROR_INVALID_KEY);
    assert_true(c.total > 0);
    assert_int_equal(c.live, 0);
    free(bytes);
    free(f);
}

/* Errors deep in the hands name the curve: hand_right/IndexTip rotation.w's key count. */
static void test_error_names_curve(void **state)
{
    (void)state;
    mrtk_writer_recording rec = {.major = 1, .minor = 1, .has_hands = true};
    size_t size;
    uint8_t *b = mrtk_writer_write(&rec, &size);
    assert_int_equal(size, 16 + 3 + 4 * 12 + 378 * 12 + 4);
    const size_t at = 16 + 3 + 4 * 12 + 189 * 12 + (11 * 7 + 6) * 12 + 8;
    put32(b + at, 0xffffffffu);
    expect_error(b, size, OSSA_ERROR_CORRUPT, at);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(b, size, NULL, &out, &diag), OSSA_ERROR_CORRUPT);
    assert_non_null(strstr(diag.message, "hand_right/IndexTip rotation.w"));
    free(b);
}

/* ---- detection and bake -------------------------------------------------------------- */

static void test_detect(void **state)
{
    (void)state;
    size_t size;
    uint8_t *b = small_v11(&size);
    assert_int_equal(ossa_import_detect(b, size, NULL), OSSA_FORMAT_MRTK);
    assert_int_equal(ossa_import_detect(b, size, "recording.bin"), OSSA_FORMAT_MRTK);
    assert_int_not_equal(ossa_import_detect(b, 7, NULL), OSSA_FORMAT_MRTK);
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_any(b, size, "recording.bin", &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, OSSA_MRTK_JOINT_COUNT);
    assert_int_equal(out.event_count, 1);
    ossa_import_output_destroy(&out);
    free(b);
}

static void test_bake(void **state)
{
    (void)state;
    fixture *f = make_fixture(1, 7u);
    size_t size;
    uint8_t *bytes = write_fixture(f, &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(bytes, size, NULL, &out, &diag), OSSA_OK);
    ossa_blob sb = {0}, ab = {0};
    assert_int_equal(ossa_skeleton_build(&out.skeleton, NULL, &sb, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(&out.animations[0], NULL, &ab, &diag), OSSA_OK);
    ossa_skeleton skel;
    ossa_animation anim;
    assert_int_equal(ossa_skeleton_init(&skel, sb.data, sb.size), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, ab.data, ab.size), OSSA_OK);
    assert_int_equal(skel.joint_count, 55);
    assert_int_equal(ossa_skeleton_find_joint(&skel, "hand_right/PinkyTip"), 54);
    const size_t ctx_size = ossa_sampling_context_size(55);
    void *mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, 55);
    assert_non_null(ctx);
    ossa_soa_transform pose[14];
    ossa_transform raw[55];
    for (int k = 0; k <= 10; ++k) {
        const float ratio = (float)k / 10.f;
        const ossa_sampling_job job = {&anim, ctx, ratio, pose, 14, NULL, 0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&out.animations[0], ratio * anim.duration, raw, 55), OSSA_OK);
        for (size_t j = 0; j < 55; ++j) {
            const ossa_transform b = ossa_soa_transform_get(&pose[j / 4], (int)(j % 4));
            const ossa_transform *r = &raw[j];
            /* half floats: 2^-11 relative on values below 2 m; 15-bit rotations */
            assert_true(vdist((v3){r->translation.x, r->translation.y, r->translation.z}, b.translation) < 2e-3f);
            assert_true(qdist((q4){r->rotation.x, r->rotation.y, r->rotation.z, r->rotation.w}, b.rotation) < 1e-3f);
        }
    }
    free(mem);
    ossa_blob_destroy(&sb);
    ossa_blob_destroy(&ab);
    ossa_import_output_destroy(&out);
    free(bytes);
    free(f);
}

/* ---- seed corpus for tests/fuzz/corpus/mrtk (run with --write-corpus DIR) -------------- */

static int write_corpus(const char *dir)
{
    struct {
        const char *name;
        uint8_t *bytes;
        size_t size;
    } files[4];
    fixture *f = make_fixture(0, 5u);
    /* Keep the fuzzer fast: one short key set per joint is enough to reach every path. */
    files[0].name = "v10_moving.bin";
    files[0].bytes = mrtk_writer_write(&f->rec, &files[0].size);
    f->rec.minor = 1;
    f->rec.has_gaze = true;
    mrtk_writer_key gk[6][2];
    for (int c = 0; c < 6; ++c) {
        gk[c][0] = mrtk_writer_linear_key(0.f, (float)c);
        gk[c][1] = mrtk_writer_linear_key(1.f, 1.f);
        f->rec.gaze[c] = (mrtk_writer_curve){2, 4, gk[c], 2};
    }
    files[1].name = "v11_gaze.bin";
    files[1].bytes = mrtk_writer_write(&f->rec, &files[1].size);
    files[2].name = "v11_small.bin";
    files[2].bytes = small_v11(&files[2].size);
    mrtk_writer_key w[3] = {{0.f, 0.f, 0.f, 2.f, 0.f, 0.5f, 2},
                            {0.5f, 1.f, INFINITY, 0.f, 0.3f, 0.f, 1},
                            {1.f, 0.f, 1.f, 0.f, 0.f, 0.f, 0}};
    mrtk_writer_recording rec = {.major = 1, .minor = 0};
    rec.camera[0] = (mrtk_writer_curve){2, 4, w, 3};
    files[3].name = "v10_weighted.bin";
    files[3].bytes = mrtk_writer_write(&rec, &files[3].size);
    int failed = 0;
    for (int i = 0; i < 4; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
        FILE *out = fopen(path, "wb");
        if (!out || !files[i].bytes || fwrite(files[i].bytes, 1, files[i].size, out) != files[i].size) failed = 1;
        if (out) fclose(out);
        free(files[i].bytes);
    }
    free(f);
    return failed;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--write-corpus")) return write_corpus(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_writer_exact_bytes),
        cmocka_unit_test(test_empty_v10),
        cmocka_unit_test(test_round_trip_v10),
        cmocka_unit_test(test_round_trip_v11),
        cmocka_unit_test(test_every_sample_kept),
        cmocka_unit_test(test_v10_hermite_camera),
        cmocka_unit_test(test_v11_gaze_only),
        cmocka_unit_test(test_unity_hermite),
        cmocka_unit_test(test_unity_weighted),
        cmocka_unit_test(test_unity_bezier_first_root),
        cmocka_unit_test(test_unity_stepped),
        cmocka_unit_test(test_unity_wrap),
        cmocka_unit_test(test_unity_bool_step),
        cmocka_unit_test(test_error_header),
        cmocka_unit_test(test_error_truncated),
        cmocka_unit_test(test_error_counts_and_keys),
        cmocka_unit_test(test_error_full_keys),
        cmocka_unit_test(test_error_names_curve),
        cmocka_unit_test(test_error_local_overflow),
        cmocka_unit_test(test_allocator),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_bake),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
