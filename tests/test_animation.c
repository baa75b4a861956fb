/* Animation builder + sampling job against the raw animation's reference sampler. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/sampling_job.h"
#include "test_util.h"

/* Lossless builds quantise on 24 bits of each sub-track's range (builders.h): a 6-unit range
 * is off by at most 6 / 2^25. The rest is float rounding of the times: the clip samples at
 * ratios (time / duration, rounded to 1.5e-7 of 2.5 s), the reference in seconds, and the
 * random clips below have slopes up to 600 units per second. */
#define TRANSLATION_TOLERANCE 2e-4f
#define SCALE_TOLERANCE       2e-6f
#define ROTATION_TOLERANCE    2e-4f

typedef struct fixture {
    ossa_raw_animation raw;
    ossa_blob blob;
    ossa_animation anim;
    void *ctx_mem;
    ossa_sampling_context *ctx;
    ossa_soa_transform *pose;
    ossa_transform *expected;
} fixture;

/* Random clip: per track, a random number of keys per channel at random times. */
static void make_random_clip(ossa_raw_animation *raw, size_t tracks, float duration, uint32_t seed)
{
    assert_int_equal(ossa_raw_animation_create(raw, tracks, NULL), OSSA_OK);
    raw->duration = duration;
    uint32_t s = seed;
    for (size_t t = 0; t < tracks; ++t) {
        const size_t nt = ossa_test_rand(&s) % 12, nr = ossa_test_rand(&s) % 12, ns = ossa_test_rand(&s) % 4;
        assert_int_equal(ossa_raw_joint_track_resize(raw, t, nt, nr, ns), OSSA_OK);
        ossa_raw_joint_track *tr = &raw->tracks[t];
        float time = 0.f;
        for (size_t k = 0; k < nt; ++k) {
            time =
                k == 0 ? ossa_test_randf(&s, 0.f, duration / 8.f) : time + ossa_test_randf(&s, 0.01f, duration / 12.f);
            if (time > duration) time = duration;
            tr->translations[k] = (ossa_raw_float3_key){
                time, {ossa_test_randf(&s, -3.f, 3.f), ossa_test_randf(&s, -3.f, 3.f), ossa_test_randf(&s, -3.f, 3.f)}};
            if (time >= duration) {
                tr->translation_count = k + 1;
                break;
            }
        }
        time = 0.f;
        for (size_t k = 0; k < nr; ++k) {
            time =
                k == 0 ? ossa_test_randf(&s, 0.f, duration / 8.f) : time + ossa_test_randf(&s, 0.01f, duration / 12.f);
            if (time > duration) time = duration;
            /* Consecutive keys within about 0.5 rad of each other. */
            const ossa_quat prev =
                k ? tr->rotations[k - 1].value
                  : ossa_quat_normalize((ossa_quat){ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f),
                                                    ossa_test_randf(&s, -1.f, 1.f), 1.f});
            const ossa_quat q = ossa_quat_normalize((ossa_quat){prev.x + ossa_test_randf(&s, -.12f, .12f),
                                                                prev.y + ossa_test_randf(&s, -.12f, .12f),
                                                                prev.z + ossa_test_randf(&s, -.12f, .12f), prev.w});
            tr->rotations[k] = (ossa_raw_quat_key){time, q};
            if (time >= duration) {
                tr->rotation_count = k + 1;
                break;
            }
        }
        for (size_t k = 0; k < ns; ++k)
            tr->scales[k] = (ossa_raw_float3_key){duration * (float)k / 4.f,
                                                  {ossa_test_randf(&s, .5f, 2.f), ossa_test_randf(&s, .5f, 2.f), 1.f}};
    }
}

static void setup_fixture(fixture *f, size_t tracks, float duration, uint32_t seed)
{
    memset(f, 0, sizeof *f);
    make_random_clip(&f->raw, tracks, duration, seed);
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_animation_validate(&f->raw, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(&f->raw, NULL, &f->blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_init(&f->anim, f->blob.data, f->blob.size), OSSA_OK);
    /* With the playback cache: the forward and backward checks sample through it. */
    const size_t bytes = ossa_sampling_context_playback_size_for(&f->anim);
    assert_true(bytes > ossa_sampling_context_size_for(&f->anim));
    f->ctx_mem = aligned_alloc(16, bytes);
    f->ctx = ossa_sampling_context_init_for(f->ctx_mem, bytes, &f->anim);
    assert_non_null(f->ctx);
    f->pose = aligned_alloc(16, sizeof(ossa_soa_transform) * (f->anim.soa_count + 1));
    f->expected = calloc(tracks + 1, sizeof(ossa_transform));
}

static void teardown_fixture(fixture *f)
{
    free(f->ctx_mem);
    free(f->pose);
    free(f->expected);
    ossa_blob_destroy(&f->blob);
    ossa_raw_animation_destroy(&f->raw);
}

static float quat_angle_error(ossa_quat a, ossa_quat b)
{
    /* For unit quaternions in one hemisphere |a - b| = 2 sin(angle / 4); acos of the dot
     * product would lose precision near 1. */
    const float sign = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0.f ? -1.f : 1.f;
    const float dx = a.x - sign * b.x, dy = a.y - sign * b.y, dz = a.z - sign * b.z, dw = a.w - sign * b.w;
    const float half_chord = .5f * sqrtf(dx * dx + dy * dy + dz * dz + dw * dw);
    return 4.f * asinf(half_chord > 1.f ? 1.f : half_chord);
}

/* Samples at `time` and compares every joint with the reference sampler. */
static void check_at(fixture *f, float time)
{
    const ossa_sampling_job job = {&f->anim, f->ctx, time / f->raw.duration, f->pose, f->anim.soa_count, NULL, 0};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    assert_int_equal(ossa_raw_animation_sample(&f->raw, time, f->expected, f->raw.track_count), OSSA_OK);
    for (size_t j = 0; j < f->raw.track_count; ++j) {
        const ossa_transform got = ossa_soa_transform_get(&f->pose[j / 4], (int)(j % 4));
        const ossa_transform *want = &f->expected[j];
        const float tt = TRANSLATION_TOLERANCE;
        if (fabsf(got.translation.x - want->translation.x) > tt ||
            fabsf(got.translation.y - want->translation.y) > tt || fabsf(got.translation.z - want->translation.z) > tt)
            fail_msg("joint %zu at %g s: translation (%g %g %g), expected (%g %g %g)", j, (double)time,
                     (double)got.translation.x, (double)got.translation.y, (double)got.translation.z,
                     (double)want->translation.x, (double)want->translation.y, (double)want->translation.z);
        const float angle = quat_angle_error(got.rotation, want->rotation);
        if (angle > ROTATION_TOLERANCE)
            fail_msg("joint %zu at %g s: rotation off by %g rad", j, (double)time, (double)angle);
        const float st = SCALE_TOLERANCE;
        if (fabsf(got.scale.x - want->scale.x) > st || fabsf(got.scale.y - want->scale.y) > st ||
            fabsf(got.scale.z - want->scale.z) > st)
            fail_msg("joint %zu at %g s: scale off", j, (double)time);
    }
    /* Padding lanes are identity. */
    for (size_t j = f->raw.track_count; j < f->anim.soa_count * 4; ++j) {
        const ossa_transform got = ossa_soa_transform_get(&f->pose[j / 4], (int)(j % 4));
        assert_float_equal(got.rotation.w, 1.f, 1e-6f);
        assert_float_equal(got.scale.x, 1.f, 1e-6f);
        assert_float_equal(got.translation.x, 0.f, 1e-6f);
    }
}

static void test_forward_backward_random(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f, 23, 2.5f, 1234);
    for (int i = 0; i <= 300; ++i) check_at(&f, 2.5f * (float)i / 300.f); /* forward */
    for (int i = 300; i >= 0; --i) check_at(&f, 2.5f * (float)i / 300.f); /* backward */
    uint32_t s = 99;
    for (int i = 0; i < 500; ++i) check_at(&f, ossa_test_randf(&s, 0.f, 2.5f)); /* random */
    check_at(&f, 2.5f);
    check_at(&f, 0.f);
    /* A fresh context after random access gives the same pose as a continued one. */
    ossa_sampling_context_invalidate(f.ctx);
    check_at(&f, 1.25f);
    teardown_fixture(&f);
}

static void test_single_joint_and_many_joints(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f, 1, 0.5f, 7);
    for (int i = 0; i <= 40; ++i) check_at(&f, 0.5f * (float)i / 40.f);
    teardown_fixture(&f);
    setup_fixture(&f, 130, 10.f, 8);
    uint32_t s = 3;
    for (int i = 0; i < 100; ++i) check_at(&f, ossa_test_randf(&s, 0.f, 10.f));
    teardown_fixture(&f);
    /* 48 SoA groups: the output starts as two whole blocks of the rest copy (24 groups each). */
    setup_fixture(&f, 192, 2.f, 9);
    for (int i = 0; i < 30; ++i) check_at(&f, ossa_test_randf(&s, 0.f, 2.f));
    teardown_fixture(&f);
}

/* Key values come back within the 24-bit quantisation at their time, halfway between keys
 * the interpolation is exact, and ratios past 1 clamp. */
static void test_exact_keys_are_reproduced(void **state)
{
    (void)state;
    ossa_raw_animation raw;
    assert_int_equal(ossa_raw_animation_create(&raw, 2, NULL), OSSA_OK);
    raw.duration = 1.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 1, 3, 0, 0), OSSA_OK);
    raw.tracks[1].translations[0] = (ossa_raw_float3_key){0.f, {1.f, 2.f, 3.f}};
    raw.tracks[1].translations[1] = (ossa_raw_float3_key){.5f, {-1.f, .5f, 8.f}};
    raw.tracks[1].translations[2] = (ossa_raw_float3_key){1.f, {0.f, 0.f, 0.f}};
    ossa_blob blob = {0};
    ossa_animation anim;
    ossa_animation_build_stats stats;
    const ossa_animation_build_desc desc = {.stats = &stats};
    assert_int_equal(ossa_animation_build(&raw, &desc, &blob, NULL), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
    assert_null(anim.timepoints); /* 0, 0.5, 1: uniform */
    assert_int_equal(anim.frame_count, 3);
    assert_int_equal(anim.animated_count, 1);
    assert_int_equal(anim.key_count, 3);
    assert_int_equal(stats.key_count, 3);
    assert_int_equal(ossa_animation_channel_kind(&anim, 0, 0), 0); /* default */
    assert_int_equal(ossa_animation_channel_kind(&anim, 1, 0), 2); /* animated */
    assert_int_equal(ossa_animation_channel_kind(&anim, 1, 1), 0);
    const size_t bytes = ossa_sampling_context_size(2);
    void *mem = aligned_alloc(16, bytes);
    ossa_soa_transform pose[1];
    ossa_sampling_job job = {&anim, ossa_sampling_context_init(mem, bytes, 2), .5f, pose, 1, NULL, 0};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    /* Range 2 (x), 1.5 (y), 8 (z): half a step of 24 bits is range / 2^25. */
    assert_float_equal(pose[0].translation.x[1], -1.f, 2.f / 33554432.f + 1e-7f);
    assert_float_equal(pose[0].translation.y[1], .5f, 1.5f / 33554432.f + 1e-7f);
    assert_float_equal(pose[0].translation.z[1], 8.f, 8.f / 33554432.f + 1e-6f);
    job.ratio = .25f;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    assert_float_equal(pose[0].translation.x[1], 0.f, 1e-6f);
    assert_float_equal(pose[0].translation.z[1], 5.5f, 1e-6f);
    job.ratio = 7.f; /* clamped to 1 */
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    assert_float_equal(pose[0].translation.z[1], 0.f, 1e-6f);
    free(mem);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
}

static void test_job_errors_write_nothing(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f, 5, 1.f, 5);
    ossa_sampling_job job;
    memset(&job, 0, sizeof job);
    assert_int_equal(ossa_sampling_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_NO_ANIMATION);
    job.animation = &f.anim;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_NO_CONTEXT);
    const size_t small_bytes = ossa_sampling_context_size(4);
    void *small_mem = aligned_alloc(16, small_bytes);
    job.context = ossa_sampling_context_init(small_mem, small_bytes, 4);
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_CONTEXT_TOO_SMALL);
    job.context = f.ctx;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_NO_OUTPUT);
    memset(f.pose, 0xab, sizeof(ossa_soa_transform) * 2);
    job.output = f.pose;
    job.output_count = 1;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_OUTPUT_TOO_SMALL);
    job.output_count = 2;
    job.ratio = NAN;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_INVALID_RATIO);
    const unsigned char *bytes = (const unsigned char *)f.pose;
    for (size_t i = 0; i < sizeof(ossa_soa_transform) * 2; ++i) assert_int_equal(bytes[i], 0xab);
    job.ratio = .5f;
    assert_int_equal(ossa_sampling_job_validate(&job), OSSA_OK);
    /* A misaligned output, and outputs overlapping the context or the blob. */
    job.output = (ossa_soa_transform *)(void *)((char *)f.pose + 4);
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_MISALIGNED);
    job.output = (ossa_soa_transform *)(void *)f.ctx_mem;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_ALIASING);
    job.output = (ossa_soa_transform *)(void *)f.blob.data;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_ALIASING);
    job.output = f.pose;
    /* A rest pose, when given, is 16-byte aligned like the output (this clip does not read it). */
    static OSSA_ALIGNAS(16) ossa_soa_transform rest[3];
    job.rest_pose = (const ossa_soa_transform *)(const void *)((const char *)rest + 8), job.rest_pose_count = 2;
    assert_int_equal(ossa_sampling_job_validate(&job), OSSA_ERROR_MISALIGNED);
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_MISALIGNED);
    job.rest_pose = rest;
    assert_int_equal(ossa_sampling_job_validate(&job), OSSA_OK);
    job.rest_pose = NULL, job.rest_pose_count = 0;
    for (size_t i = 0; i < sizeof(ossa_soa_transform) * 2; ++i) assert_int_equal(bytes[i], 0xab);
    /* Context placement errors. */
    assert_null(ossa_sampling_context_init(NULL, 1024, 4));
    assert_null(ossa_sampling_context_init((char *)small_mem + 4, small_bytes, 4));
    assert_null(ossa_sampling_context_init(small_mem, small_bytes - 1, 4));
    assert_int_equal(ossa_sampling_context_size(OSSA_MAX_JOINTS + 1), 0);
    free(small_mem);
    teardown_fixture(&f);
}

/* More than 65,536 distinct key times (a 20-minute capture at 120 Hz has 144,000): no limit
 * but memory, uniform time points need no table, and sampling follows the source. */
static void test_long_clip_beyond_65536_time_points(void **state)
{
    (void)state;
    ossa_raw_animation raw;
    const size_t dense = 70001;
    assert_int_equal(ossa_raw_animation_create(&raw, 2, NULL), OSSA_OK);
    raw.duration = 700.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 1, dense, 0, 0), OSSA_OK);
    for (size_t k = 0; k < dense; ++k)
        raw.tracks[1].translations[k] =
            (ossa_raw_float3_key){700.f * (float)k / (float)(dense - 1), {(float)(k % 7), (float)k * .001f, 0.f}};
    ossa_blob blob = {0};
    ossa_animation anim;
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_build(&raw, NULL, &blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
    assert_int_equal(anim.frame_count, dense);
    assert_null(anim.timepoints);
    assert_int_equal(anim.key_count, dense);
    const size_t bytes = ossa_sampling_context_size(2);
    void *mem = aligned_alloc(16, bytes);
    ossa_soa_transform pose[1];
    ossa_transform want[2];
    ossa_sampling_job job = {&anim, ossa_sampling_context_init(mem, bytes, 2), 0.f, pose, 1, NULL, 0};
    uint32_t s = 17;
    for (int i = 0; i < 2000; ++i) {
        const size_t k = i < 1000 ? (size_t)i * 69 : (size_t)(ossa_test_rand(&s) % dense);
        job.ratio = (float)k / (float)(dense - 1);
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        ossa_raw_animation_sample(&raw, job.ratio * raw.duration, want, 2);
        assert_float_equal(pose[0].translation.x[1], want[1].translation.x, 1e-3f);
        assert_float_equal(pose[0].translation.y[1], want[1].translation.y, 1e-3f);
    }
    free(mem);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
}

static void test_invalid_raw_animation_is_named(void **state)
{
    (void)state;
    ossa_raw_animation raw;
    assert_int_equal(ossa_raw_animation_create(&raw, 3, NULL), OSSA_OK);
    raw.duration = 1.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 2, 0, 2, 0), OSSA_OK);
    raw.tracks[2].rotations[0] = (ossa_raw_quat_key){.5f, {0.f, 0.f, 0.f, 1.f}};
    raw.tracks[2].rotations[1] = (ossa_raw_quat_key){.5f, {0.f, 0.f, 0.f, 1.f}};
    ossa_diag diag = {0};
    ossa_blob blob = {0};
    assert_int_equal(ossa_animation_build(&raw, NULL, &blob, &diag), OSSA_ERROR_INVALID_KEY);
    assert_null(blob.data);
    assert_non_null(strstr(diag.message, "rotation key 1 of track 2"));
    raw.duration = -1.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_raw_animation_validate(&raw, &diag), OSSA_ERROR_INVALID_ANIMATION);
    ossa_raw_animation_destroy(&raw);
}

/* Each bad key is found where it is, after valid keys before it in the same channel: its
 * code, channel, key and track in the message (validation checks a valid channel in one pass
 * and only then looks for the key that fails). */
static void test_invalid_keys_found_where_they_are(void **state)
{
    (void)state;
    const float inf = INFINITY, nan = NAN;
    typedef struct bad {
        int channel; /* 0 translation, 1 rotation, 2 scale */
        float time, x, w;
        const char *message;
    } bad;
    const bad cases[] = {
        {0, nan, 0.f, 0.f, "translation key 2 of track 1: time nan is outside"},
        {0, 1.5f, 0.f, 0.f, "translation key 2 of track 1: time 1.5 is outside"},
        {0, -.25f, 0.f, 0.f, "translation key 2 of track 1: time -0.25 is outside"},
        {0, .25f, 0.f, 0.f, "translation key 2 of track 1: time 0.25 is not after previous key's 0.25"},
        {0, .75f, inf, 0.f, "translation key 2 of track 1: value is not finite"},
        {2, .75f, nan, 0.f, "scale key 2 of track 1: value is not finite"},
        {1, .75f, 0.f, -inf, "rotation key 2 of track 1: value is not finite"},
        {1, .75f, 0.f, 0.f, "rotation key 2 of track 1: quaternion has zero length"},
        {1, .75f, 0.f, 1e-7f, "rotation key 2 of track 1: quaternion has zero length"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        ossa_raw_animation raw;
        assert_int_equal(ossa_raw_animation_create(&raw, 2, NULL), OSSA_OK);
        raw.duration = 1.f;
        assert_int_equal(ossa_raw_joint_track_resize(&raw, 1, 3, 3, 3), OSSA_OK);
        ossa_raw_joint_track *t = &raw.tracks[1];
        for (int k = 0; k < 3; ++k) {
            const float time = .25f * (float)k;
            t->translations[k] = (ossa_raw_float3_key){time, {1.f, 2.f, 3.f}};
            t->rotations[k] = (ossa_raw_quat_key){time, {0.f, 0.f, 0.f, 1.f}};
            t->scales[k] = (ossa_raw_float3_key){time, {1.f, 1.f, 1.f}};
        }
        assert_int_equal(ossa_raw_animation_validate(&raw, NULL), OSSA_OK);
        /* A quaternion of length 1e-6 (squared 1e-12 is the limit) still passes. */
        t->rotations[2].value = (ossa_quat){0.f, 0.f, 0.f, 2e-6f};
        assert_int_equal(ossa_raw_animation_validate(&raw, NULL), OSSA_OK);
        t->rotations[2].value = (ossa_quat){0.f, 0.f, 0.f, 1.f};
        const bad *c = &cases[i];
        if (c->channel == 1)
            t->rotations[2] = (ossa_raw_quat_key){c->time, {c->x, 0.f, 0.f, c->w}};
        else
            (c->channel ? t->scales : t->translations)[2] = (ossa_raw_float3_key){c->time, {c->x, 0.f, 0.f}};
        ossa_diag diag = {0};
        assert_int_equal(ossa_raw_animation_validate(&raw, &diag), OSSA_ERROR_INVALID_KEY);
        if (!strstr(diag.message, c->message)) fail_msg("case %zu: \"%s\"", i, diag.message);
        assert_int_equal(diag.offset, 1);
        ossa_raw_animation_destroy(&raw);
    }
}

static void test_corrupted_blob_rejected(void **state)
{
    (void)state;
    fixture f;
    setup_fixture(&f, 9, 1.f, 11);
    ossa_animation view;
    unsigned char *copy = aligned_alloc(16, f.blob.size + 16);
    /* Every truncation fails cleanly. */
    for (size_t n = 0; n + 15 < f.blob.size; n += 3) {
        memcpy(copy, f.blob.data, n);
        assert_int_not_equal(ossa_animation_init(&view, copy, n), OSSA_OK);
    }
    const size_t data_at = (size_t)(f.anim.data - (const uint8_t *)f.blob.data);
    const size_t bits_at = (size_t)(f.anim.bits - (const uint8_t *)f.blob.data);
    /* A segment whose first bitmap lacks its first key, a key bit past the clip's end in the
     * last segment, a width over 24 bits, and more keys than the segment holds. */
    memcpy(copy, f.blob.data, f.blob.size);
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_OK);
    copy[data_at] &= 0xfe;
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    memcpy(copy, f.blob.data, f.blob.size);
    const size_t last = data_at + f.anim.segment_offsets[f.anim.segment_count - 1];
    const size_t frames_in_last = f.anim.frame_count - (f.anim.segment_count - 1) * 16;
    if (frames_in_last < 16) {
        copy[last + 1] |= 0x80;
        assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    }
    /* A middle segment offset past the data, with the last one still right, is rejected (the
     * fuzz seed regression_segment_offset_past_data is the input that made the validator read
     * bitmaps there before checking). */
    memcpy(copy, f.blob.data, f.blob.size);
    const size_t offsets_at = (size_t)((const uint8_t *)f.anim.segment_offsets - (const uint8_t *)f.blob.data);
    assert_true(f.anim.segment_count >= 2);
    copy[offsets_at + 4] = 0x40, copy[offsets_at + 5] = 0x00, copy[offsets_at + 6] = 0x3a, copy[offsets_at + 7] = 0x00;
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    memcpy(copy, f.blob.data, f.blob.size);
    copy[bits_at] = 25;
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    memcpy(copy, f.blob.data, f.blob.size);
    copy[bits_at] = 24, copy[bits_at + 1] = 24, copy[bits_at + 2] = 24, copy[bits_at + 3] = 0;
    copy[data_at] = 0xff, copy[data_at + 1] = 0xff;
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    /* Finite ranges whose largest key overflows float: min + step x (2^w - 1 + segment base)
     * would sample as infinity. */
    memcpy(copy, f.blob.data, f.blob.size);
    const size_t ranges_at = (size_t)((const uint8_t *)f.anim.ranges - (const uint8_t *)f.blob.data);
    const float huge = 3e38f;
    for (size_t k = 0; k < f.anim.range_count; ++k) memcpy(copy + ranges_at + 4 * k, &huge, 4);
    assert_int_equal(ossa_animation_init(&view, copy, f.blob.size), OSSA_ERROR_INVALID_ANIMATION);
    assert_int_equal(ossa_animation_init(&view, (unsigned char *)f.blob.data + 4, f.blob.size - 4),
                     OSSA_ERROR_MISALIGNED);
    free(copy);
    teardown_fixture(&f);
}

/* A clip whose every sub-track moves fast enough that the builder keeps a key at every time
 * point: the playback cache's groups then hold one key per time point (see fill_cache). */
static void make_dense_clip(ossa_raw_animation *raw, size_t tracks, float duration)
{
    enum { KEYS = 181 };
    assert_int_equal(ossa_raw_animation_create(raw, tracks, NULL), OSSA_OK);
    raw->duration = duration;
    for (size_t t = 0; t < tracks; ++t) {
        assert_int_equal(ossa_raw_joint_track_resize(raw, t, KEYS, KEYS, 1), OSSA_OK);
        ossa_raw_joint_track *tr = &raw->tracks[t];
        for (size_t k = 0; k < KEYS; ++k) {
            const float time = duration * (float)k / (float)(KEYS - 1), phase = 9.f * time + (float)t;
            const float angle = 1.5f * sinf(phase), c = cosf(.5f * angle), sn = sinf(.5f * angle);
            tr->rotations[k] = (ossa_raw_quat_key){time, ossa_quat_normalize((ossa_quat){sn, .3f * sn, .2f * sn, c})};
            tr->translations[k] = (ossa_raw_float3_key){time, {sinf(phase), cosf(1.3f * phase), (float)t}};
        }
        tr->scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    }
}

/* The recommended context carries the playback cache on clips whose animated sub-tracks
 * average at least OSSA_SAMPLING_CACHE_MIN_KEY_RATE keys per second, and no cache below: the
 * same dense clip (181 keys per track) over 6 s (30 keys a second) and over 60 s (3). */
static void test_recommended_context(void **state)
{
    (void)state;
    assert_false(ossa_sampling_context_cache_pays(NULL));
    assert_int_equal(ossa_sampling_context_recommended_size_for(NULL), 0);
    static const float durations[2] = {6.f, 60.f};
    for (int i = 0; i < 2; ++i) {
        ossa_raw_animation raw;
        make_dense_clip(&raw, 6, durations[i]);
        ossa_blob blob = {0};
        ossa_animation anim;
        assert_int_equal(ossa_animation_build(&raw, NULL, &blob, NULL), OSSA_OK);
        assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
        /* Every track keeps its 181 keys (lossless): the rate is 181 / duration. */
        assert_int_equal(anim.key_count, 181 * anim.animated_count);
        const bool pays = 181.0 / (double)durations[i] >= OSSA_SAMPLING_CACHE_MIN_KEY_RATE;
        assert_true(pays == (i == 0));
        assert_true(ossa_sampling_context_cache_pays(&anim) == pays);
        const size_t recommended = ossa_sampling_context_recommended_size_for(&anim);
        assert_int_equal(recommended, pays ? ossa_sampling_context_playback_size_for(&anim)
                                           : ossa_sampling_context_size_for(&anim));
        void *mem = aligned_alloc(16, recommended);
        assert_non_null(ossa_sampling_context_init_for(mem, recommended, &anim));
        free(mem);
        ossa_blob_destroy(&blob);
        ossa_raw_animation_destroy(&raw);
    }
}

/* Samples `a` at `ratio` with both contexts and asserts the same pose, bit for bit. */
static void assert_contexts_agree(const ossa_animation *a, ossa_sampling_context *const ctx[2], float ratio)
{
    enum { MAX_SOA = 4 };
    ossa_soa_transform pose[2][MAX_SOA];
    assert_true(a->soa_count <= MAX_SOA);
    for (int i = 0; i < 2; ++i) {
        const ossa_sampling_job job = {a, ctx[i], ratio, pose[i], a->soa_count, NULL, 0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    }
    assert_memory_equal(pose[0], pose[1], a->soa_count * sizeof pose[0][0]);
}

/* Frees the two contexts' memory, blobs and raw animations of a two-animation test. */
static void destroy_pairs(void *const mem[2], ossa_blob blob[2], ossa_raw_animation raw[2])
{
    for (int i = 0; i < 2; ++i) {
        free(mem[i]);
        ossa_blob_destroy(&blob[i]);
        ossa_raw_animation_destroy(&raw[i]);
    }
}

/* Animated sub-tracks of `a` whose keys the x86-64-v3 sampler reads four lanes at a time:
 * no segment ranges, and at most 57 bits a key (one 8-byte load). */
static size_t one_load_subtracks(const ossa_animation *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->animated_count; ++i) {
        const uint8_t *w = &a->bits[4 * i];
        n += !(a->formats[i] & 0x80) && w[0] + w[1] + w[2] + w[3] <= 57;
    }
    return n;
}

/* Three contexts (one sized for the skeleton, one for the animation with the playback cache,
 * and one invalidated before every sample) give the same poses, bit for bit, whether they
 * play forward or backward (at one and two time points per run: the cache), slower, or jump:
 * segments are decoded without history, the cache interpolates the same keys lane mode
 * does, and random access (which leaves the lanes' keys as they were) the same keys again;
 * playback that resumes after random jumps refreshes the lanes the jumps left behind. On a
 * clip with sparse keys and on one with a key at every time point, each built lossless (24-bit
 * components) and error-bounded (narrower keys: on the x86-64-v3 path lane mode and random
 * access then read four lanes' keys at once, which the cache's fill still reads lane by lane,
 * so the comparison checks one against the other); and on a 300-joint clip with sparse keys,
 * whose lane mode finds its stale groups from the time points their lanes bracket together
 * (at least 64 groups, few of them stale a run). */
static void test_access_orders_give_identical_poses(void **state)
{
    (void)state;
    for (int clip = 0; clip < 5; ++clip) {
        ossa_raw_animation raw;
        if (clip == 4)
            make_random_clip(&raw, 300, 6.f, 91); /* 300 joints: lane mode's stale-group scan */
        else if (clip % 2 == 0)
            make_random_clip(&raw, 37, 6.f, 77);
        else
            make_dense_clip(&raw, 16, 6.f);
        const size_t joints = raw.track_count, soa = (joints + 3) / 4;
        ossa_raw_skeleton skel = {0};
        assert_int_equal(ossa_raw_skeleton_create(&skel, joints, NULL), OSSA_OK);
        for (size_t j = 1; j < joints; ++j) skel.joints[j].parent = (int32_t)j - 1; /* a chain */
        const bool bounded = clip == 2 || clip == 3;
        const ossa_animation_build_desc desc = {.skeleton = &skel, .tolerance = 1e-3f};
        ossa_blob blob = {0};
        ossa_animation anim;
        assert_int_equal(ossa_animation_build(&raw, bounded ? &desc : NULL, &blob, NULL), OSSA_OK);
        assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
        ossa_raw_skeleton_destroy(&skel);
        assert_true(anim.segment_count > 2);
        if (clip == 1) assert_true(anim.key_count >= anim.animated_count * (anim.frame_count - 1));
        if (clip == 3) assert_true(one_load_subtracks(&anim) * 4 >= anim.animated_count * 3); /* most groups */
        if (clip == 4) assert_true(anim.animated_count >= 4 * 64); /* at least 64 groups */
        const size_t bytes[3] = {ossa_sampling_context_size(joints), ossa_sampling_context_playback_size_for(&anim),
                                 ossa_sampling_context_size(joints)};
        void *mems[3];
        ossa_sampling_context *ctxs[3];
        for (int i = 0; i < 3; ++i) {
            mems[i] = aligned_alloc(16, bytes[i]);
            ctxs[i] = i == 1 ? ossa_sampling_context_init_for(mems[i], bytes[i], &anim)
                             : ossa_sampling_context_init(mems[i], bytes[i], joints);
            assert_non_null(ctxs[i]);
        }
        ossa_soa_transform pose[3][75];
        assert_true(soa <= 75);
        const float frames = (float)(anim.frame_count - 1);
        uint32_t s = 5;
        float resume = 0.f;
        for (int step = 0; step < 2800; ++step) {
            float ratio;
            if (step < 400)
                ratio = (float)step / 399.f; /* forward, about half a time point per run */
            else if (step < 800)
                ratio = (float)(799 - step) / 399.f; /* backward */
            else if (step < 1000)
                ratio = (float)(step - 800) * 1.f / frames; /* one time point per run */
            else if (step < 1100)
                ratio = (float)(step - 1000) * 2.f / frames; /* two: still playback */
            else if (step < 1200)
                ratio = (float)(step - 1100) * 3.f / frames; /* three: lane mode */
            else if (step < 1300)
                ratio = (float)(step - 1200) * .01f / frames; /* slow motion */
            else if (step < 2200)
                ratio = ossa_test_randf(&s, -.1f, 1.1f); /* random, clamped ends */
            else if (step % 20 < 3)
                ratio = resume = ossa_test_randf(&s, 0.f, .9f); /* three jumps, */
            else
                ratio = resume + (float)(step % 20 - 2) / frames; /* then playback from the last */
            ossa_sampling_context_invalidate(ctxs[2]);
            for (int i = 0; i < 3; ++i) {
                const ossa_sampling_job job = {&anim, ctxs[i], ratio, pose[i], soa, NULL, 0};
                assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
            }
            if (memcmp(pose[0], pose[1], soa * sizeof **pose) || memcmp(pose[0], pose[2], soa * sizeof **pose))
                fail_msg("clip %d, step %d (ratio %.9g): the contexts' poses differ", clip, step, (double)ratio);
        }
        for (int i = 0; i < 3; ++i) free(mems[i]);
        ossa_blob_destroy(&blob);
        ossa_raw_animation_destroy(&raw);
    }
}

static void test_context_sized_for_animation(void **state)
{
    (void)state;
    ossa_raw_animation raw[2];
    ossa_blob blob[2] = {{0}, {0}};
    ossa_animation anim[2]; /* [0] all tracks, [1] the first six without keys */
    for (int i = 0; i < 2; ++i) {
        make_random_clip(&raw[i], 12, 4.f, 31);
        for (size_t t = 0; i == 1 && t < 6; ++t)
            assert_int_equal(ossa_raw_joint_track_resize(&raw[i], t, 0, 0, 0), OSSA_OK);
        assert_int_equal(ossa_animation_build(&raw[i], NULL, &blob[i], NULL), OSSA_OK);
        assert_int_equal(ossa_animation_init(&anim[i], blob[i].data, blob[i].size), OSSA_OK);
    }
    assert_int_equal(anim[0].soa_count, anim[1].soa_count);
    assert_true(anim[1].animated_count > 0 && anim[1].animated_count < anim[0].animated_count);

    const size_t small = ossa_sampling_context_size_for(&anim[1]), full = ossa_sampling_context_size(12);
    assert_true(small > 0 && small < full);
    assert_true(ossa_sampling_context_size_for(&anim[0]) > small);
    assert_int_equal(ossa_sampling_context_size_for(NULL), 0);
    assert_int_equal(ossa_sampling_context_playback_size_for(NULL), 0);
    /* The playback cache: 32 keys (2,560 bytes) per group of four animated sub-tracks, on top. */
    const size_t playback = ossa_sampling_context_playback_size_for(&anim[1]);
    assert_true(playback >= small + 2560 * ((anim[1].animated_count + 3) / 4));
    void *mem[2] = {aligned_alloc(16, small), aligned_alloc(16, full)};
    assert_null(ossa_sampling_context_init_for(mem[0], small - 16, &anim[1]));
    assert_null(ossa_sampling_context_init_for(mem[0], small, NULL));
    assert_null(ossa_sampling_context_init_for((uint8_t *)mem[0] + 8, small - 8, &anim[1]));
    ossa_sampling_context *ctx[2] = {ossa_sampling_context_init_for(mem[0], small, &anim[1]),
                                     ossa_sampling_context_init(mem[1], full, 12)};
    assert_non_null(ctx[0]);
    assert_non_null(ctx[1]);
    assert_int_equal(ossa_sampling_context_max_animated(ctx[0]), anim[1].animated_count);
    assert_int_equal(ossa_sampling_context_max_tracks(ctx[0]), 12);
    assert_int_equal(ossa_sampling_context_max_animated(ctx[1]), 36);

    assert_int_equal(anim[1].soa_count, 3);
    uint32_t s = 9;
    for (int step = 0; step < 600; ++step)
        assert_contexts_agree(&anim[1], ctx, step < 300 ? (float)step / 299.f : ossa_test_randf(&s, 0.f, 1.f));
    /* More animated sub-tracks than it has room for: refused, the output untouched. */
    ossa_soa_transform pose[2][3];
    memset(pose[0], 0xab, sizeof pose[0]);
    memcpy(pose[1], pose[0], sizeof pose[0]);
    const ossa_sampling_job refused = {&anim[0], ctx[0], .5f, pose[0], 3, NULL, 0};
    assert_int_equal(ossa_sampling_job_run(&refused), OSSA_ERROR_CONTEXT_TOO_SMALL);
    assert_memory_equal(pose[0], pose[1], sizeof pose[0]);
    destroy_pairs(mem, blob, raw);
}

/* A playback context sized for one animation samples another with as many joints and animated
 * sub-tracks and fewer groups as a context without a cache does: the same poses, bit for bit.
 * One sized for the animation with fewer groups refuses the other, at the call that binds it. */
static void test_playback_context_with_another_animation(void **state)
{
    (void)state;
    ossa_raw_animation raw[2];
    ossa_blob blob[2] = {{0}, {0}};
    ossa_animation anim[2];
    for (int i = 0; i < 2; ++i) {
        make_dense_clip(&raw[i], 4, 2.f);
        /* [0]: the four rotations animated (one group); [1]: two rotations and two
         * translations (two groups). */
        for (size_t t = 0; t < 4; ++t) {
            ossa_raw_joint_track *tr = &raw[i].tracks[t];
            const bool rotation = i == 0 || t < 2;
            if (rotation) tr->translation_count = 1;
            if (!rotation) tr->rotation_count = 0; /* the identity */
        }
        assert_int_equal(ossa_animation_build(&raw[i], NULL, &blob[i], NULL), OSSA_OK);
        assert_int_equal(ossa_animation_init(&anim[i], blob[i].data, blob[i].size), OSSA_OK);
    }
    assert_int_equal(anim[0].animated_count, anim[1].animated_count);
    const size_t bytes[2] = {ossa_sampling_context_playback_size_for(&anim[1]), ossa_sampling_context_size(4)};
    void *mem[2] = {aligned_alloc(16, bytes[0]), aligned_alloc(16, bytes[1])};
    ossa_sampling_context *ctx[2] = {ossa_sampling_context_init_for(mem[0], bytes[0], &anim[1]),
                                     ossa_sampling_context_init(mem[1], bytes[1], 4)};
    assert_int_equal(anim[0].soa_count, 1);
    for (int step = 0; step <= 300; ++step) assert_contexts_agree(&anim[0], ctx, (float)step / 300.f);

    const size_t fewer = ossa_sampling_context_playback_size_for(&anim[0]);
    void *fewer_mem = aligned_alloc(16, fewer);
    ossa_soa_transform pose[2];
    memset(&pose[0], 0xab, sizeof pose[0]);
    pose[1] = pose[0];
    const ossa_sampling_job refused = {&anim[1], ossa_sampling_context_init_for(fewer_mem, fewer, &anim[0]), .5f,
                                       &pose[0], 1, NULL, 0};
    assert_non_null(refused.context);
    assert_int_equal(ossa_sampling_job_run(&refused), OSSA_ERROR_CONTEXT_TOO_SMALL);
    assert_memory_equal(&pose[0], &pose[1], sizeof pose[0]);
    free(fewer_mem);
    destroy_pairs(mem, blob, raw);
}

/* A context sized for an animation keeps only the default and constant values of the channels
 * its animated sub-tracks leave to them: [0] animates every translation and rotation of 8
 * joints (its scales alone are kept), [1] two fewer sub-tracks but none of the second SoA
 * group's channels whole (the whole pose is kept). [0]'s context refuses [1] at the call that
 * binds it, writes nothing, and still samples [0] as a full context does afterwards. */
static void test_context_rest_values_sized_for_animation(void **state)
{
    (void)state;
    ossa_raw_animation raw[2];
    ossa_blob blob[2] = {{0}, {0}};
    ossa_animation anim[2];
    for (int i = 0; i < 2; ++i) {
        make_dense_clip(&raw[i], 8, 2.f);
        if (i == 1) { /* joint 4: a constant translation, the identity rotation */
            raw[i].tracks[4].translation_count = raw[i].tracks[4].rotation_count = 1;
            raw[i].tracks[4].rotations[0].value = (ossa_quat){0.f, 0.f, 0.f, 1.f};
        }
        assert_int_equal(ossa_animation_build(&raw[i], NULL, &blob[i], NULL), OSSA_OK);
        assert_int_equal(ossa_animation_init(&anim[i], blob[i].data, blob[i].size), OSSA_OK);
    }
    assert_int_equal(anim[0].animated_count, 16);
    assert_int_equal(anim[1].animated_count, 14);
    const size_t bytes[2] = {ossa_sampling_context_size_for(&anim[0]), ossa_sampling_context_size(8)};
    void *mem[2] = {aligned_alloc(16, bytes[0]), aligned_alloc(16, bytes[1])};
    ossa_sampling_context *ctx[2] = {ossa_sampling_context_init_for(mem[0], bytes[0], &anim[0]),
                                     ossa_sampling_context_init(mem[1], bytes[1], 8)};
    assert_non_null(ctx[0]);
    for (int step = 0; step <= 100; ++step) assert_contexts_agree(&anim[0], ctx, (float)step / 100.f);

    ossa_soa_transform pose[2][2];
    memset(pose[0], 0xab, sizeof pose[0]);
    memcpy(pose[1], pose[0], sizeof pose[0]);
    const ossa_sampling_job other = {&anim[1], ctx[0], .5f, pose[0], 2, NULL, 0};
    assert_int_equal(ossa_sampling_job_validate(&other), OSSA_OK); /* the shape fits */
    assert_int_equal(ossa_sampling_job_run(&other), OSSA_ERROR_CONTEXT_TOO_SMALL);
    assert_memory_equal(pose[0], pose[1], sizeof pose[0]);
    for (int step = 0; step <= 100; ++step) assert_contexts_agree(&anim[0], ctx, 1.f - (float)step / 100.f);
    /* A context sized for [1] samples it as the full context does. */
    const size_t own = ossa_sampling_context_size_for(&anim[1]);
    void *own_mem = aligned_alloc(16, own);
    ossa_sampling_context *own_ctx[2] = {ossa_sampling_context_init_for(own_mem, own, &anim[1]), ctx[1]};
    assert_non_null(own_ctx[0]);
    for (int step = 0; step <= 100; ++step) assert_contexts_agree(&anim[1], own_ctx, (float)step / 100.f);
    /* The kept values where they belong: every scale 1, and joint 4's translation at
     * make_dense_clip's first key (sin 4, cos 5.2, 4) and identity rotation. */
    for (int i = 0; i < 2; ++i) {
        const ossa_sampling_job job = {&anim[i], i ? own_ctx[0] : ctx[0], .37f, pose[0], 2, NULL, 0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        for (int j = 0; j < 8; ++j) {
            const ossa_soa_float3 *sc = &pose[0][j / 4].scale;
            assert_true(sc->x[j % 4] == 1.f && sc->y[j % 4] == 1.f && sc->z[j % 4] == 1.f);
        }
    }
    const ossa_soa_transform *g = &pose[0][1];
    assert_float_equal(g->translation.x[0], sinf(4.f), 1e-6f);
    assert_float_equal(g->translation.y[0], cosf(5.2f), 1e-6f);
    assert_float_equal(g->translation.z[0], 4.f, 1e-6f);
    assert_true(g->rotation.x[0] == 0.f && g->rotation.y[0] == 0.f && g->rotation.z[0] == 0.f && g->rotation.w[0] == 1.f);
    free(own_mem);
    destroy_pairs(mem, blob, raw);
}

/* Constant and default sub-tracks are kept out of the segments; sampling still returns their
 * value next to an animated sub-track of the same SoA group. */
static void test_constant_tracks_stored_once(void **state)
{
    (void)state;
    ossa_raw_animation raw;
    assert_int_equal(ossa_raw_animation_create(&raw, 5, NULL), OSSA_OK);
    raw.duration = 1.f;
    for (size_t t = 0; t < 4; ++t) {
        assert_int_equal(ossa_raw_joint_track_resize(&raw, t, 2, 0, 0), OSSA_OK);
        raw.tracks[t].translations[0] = (ossa_raw_float3_key){0.f, {(float)t, 1.f, 2.f}};
        raw.tracks[t].translations[1] = (ossa_raw_float3_key){.7f, {(float)t, 1.f, 2.f}};
    }
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 4, 3, 0, 0), OSSA_OK);
    raw.tracks[4].translations[0] = (ossa_raw_float3_key){0.f, {0.f, 0.f, 0.f}};
    raw.tracks[4].translations[1] = (ossa_raw_float3_key){.5f, {4.f, 0.f, 0.f}};
    raw.tracks[4].translations[2] = (ossa_raw_float3_key){1.f, {0.f, 0.f, 0.f}};
    ossa_blob blob = {0};
    ossa_animation anim;
    assert_int_equal(ossa_animation_build(&raw, NULL, &blob, NULL), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
    assert_int_equal(anim.animated_count, 1);
    assert_int_equal(anim.constant_count, 4); /* tracks 0..3 translations; 0's is (0, 1, 2) */
    for (size_t t = 0; t < 4; ++t) assert_int_equal(ossa_animation_channel_kind(&anim, t, 0), 1);
    assert_int_equal(ossa_animation_channel_kind(&anim, 4, 0), 2);
    ossa_animation_size_breakdown sizes;
    ossa_animation_sizes(&anim, &sizes);
    assert_int_equal(sizes.constants, 4 * 12);
    assert_int_equal(sizes.header + sizes.timepoints + sizes.kinds + sizes.constants + sizes.descriptors +
                         sizes.ranges + sizes.segment_table + sizes.bitmaps + sizes.translation_values +
                         sizes.rotation_values + sizes.scale_values + sizes.padding + sizes.name,
                     blob.size);
    const size_t bytes = ossa_sampling_context_size(5);
    void *mem = aligned_alloc(16, bytes);
    ossa_soa_transform pose[2];
    ossa_sampling_job job = {&anim, ossa_sampling_context_init(mem, bytes, 5), 0.f, pose, 2, NULL, 0};
    const float ratios[] = {0.f, .25f, .5f, .9f, 1.f, .1f, 0.f};
    for (size_t i = 0; i < sizeof ratios / sizeof *ratios; ++i) {
        job.ratio = ratios[i];
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        for (size_t t = 0; t < 4; ++t) {
            assert_true(pose[0].translation.x[t] == (float)t && pose[0].translation.z[t] == 2.f);
            assert_true(pose[0].rotation.w[t] == 1.f && pose[0].scale.y[t] == 1.f);
        }
        const float want = ratios[i] <= .5f ? 8.f * ratios[i] : 8.f * (1.f - ratios[i]);
        assert_float_equal(pose[1].translation.x[0], want, 1e-5f);
        assert_float_equal(pose[1].scale.y[0], 1.f, 1e-6f);
        assert_true(pose[1].translation.x[1] == 0.f && pose[1].rotation.w[3] == 1.f); /* padding lanes */
    }
    free(mem);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
}

/* Far from the origin, translations keep the error within half a step of each sub-track's
 * range (2 units here), not a fraction of the distance from the origin. */
static void test_ranged_translations_far_from_origin(void **state)
{
    (void)state;
    ossa_raw_animation raw;
    assert_int_equal(ossa_raw_animation_create(&raw, 5, NULL), OSSA_OK);
    raw.duration = 2.f;
    uint32_t s = 21;
    for (size_t t = 0; t < 5; ++t) {
        assert_int_equal(ossa_raw_joint_track_resize(&raw, t, 40, 0, 0), OSSA_OK);
        for (size_t k = 0; k < 40; ++k)
            raw.tracks[t].translations[k] = (ossa_raw_float3_key){
                2.f * (float)k / 39.f,
                {1000.f + ossa_test_randf(&s, 0.f, 2.f), -500.f + ossa_test_randf(&s, -1.f, 1.f), (float)t}};
    }
    float worst = 0.f;
    ossa_transform expected[5];
    ossa_blob blob = {0};
    ossa_animation anim;
    assert_int_equal(ossa_animation_build(&raw, NULL, &blob, NULL), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
    const size_t bytes = ossa_sampling_context_size(5);
    void *mem = aligned_alloc(16, bytes);
    ossa_soa_transform pose[2];
    ossa_sampling_job job = {&anim, ossa_sampling_context_init(mem, bytes, 5), 0.f, pose, 2, NULL, 0};
    for (int i = 0; i <= 200; ++i) {
        job.ratio = (float)i / 200.f;
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        ossa_raw_animation_sample(&raw, 2.f * job.ratio, expected, 5);
        for (size_t t = 0; t < 5; ++t) {
            const ossa_transform got = ossa_soa_transform_get(&pose[t / 4], (int)(t % 4));
            const float d[3] = {fabsf(got.translation.x - expected[t].translation.x),
                                fabsf(got.translation.y - expected[t].translation.y),
                                fabsf(got.translation.z - expected[t].translation.z)};
            for (int c = 0; c < 3; ++c) worst = d[c] > worst ? d[c] : worst;
        }
    }
    /* Half a step of 24 bits over 2 units is 6e-8; float rounding at 1000 is 6e-5. */
    assert_true(worst <= 2.f / 33554432.f + 1.3e-4f);
    print_message("max translation error 1000 units from the origin: %g\n", (double)worst);
    free(mem);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forward_backward_random),
        cmocka_unit_test(test_single_joint_and_many_joints),
        cmocka_unit_test(test_exact_keys_are_reproduced),
        cmocka_unit_test(test_job_errors_write_nothing),
        cmocka_unit_test(test_long_clip_beyond_65536_time_points),
        cmocka_unit_test(test_invalid_raw_animation_is_named),
        cmocka_unit_test(test_corrupted_blob_rejected),
        cmocka_unit_test(test_access_orders_give_identical_poses),
        cmocka_unit_test(test_recommended_context),
        cmocka_unit_test(test_ranged_translations_far_from_origin),
        cmocka_unit_test(test_constant_tracks_stored_once),
        cmocka_unit_test(test_context_sized_for_animation),
        cmocka_unit_test(test_playback_context_with_another_animation),
        cmocka_unit_test(test_context_rest_values_sized_for_animation),
        cmocka_unit_test(test_invalid_keys_found_where_they_are),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
