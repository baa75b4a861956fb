/* User-channel tracks: builder, runtime view validation, sampling job, triggering job,
 * optimiser and archive round trip, against raw evaluation and hand-derived values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/offline/archive_writer.h"
#include "ossa/offline/track_builder.h"
#include "ossa/track_jobs.h"
#include "test_util.h"

#define PI_F 3.14159265358979f

/* A raw track from (ratio, interpolation, value[4]) rows. */
static void make_raw(ossa_raw_track *raw, ossa_track_type type, const ossa_raw_track_key *keys, size_t n)
{
    assert_int_equal(ossa_raw_track_create(raw, type, n, NULL), OSSA_OK);
    if (n) memcpy(raw->keys, keys, n * sizeof *keys);
}

static void build(const ossa_raw_track *raw, ossa_blob *blob, ossa_track *track)
{
    ossa_diag diag = {0};
    assert_int_equal(ossa_track_build(raw, NULL, blob, &diag), OSSA_OK);
    assert_int_equal(ossa_track_init(track, blob->data, blob->size), OSSA_OK);
}

static void sample(const ossa_track *t, float ratio, float out[4])
{
    ossa_track_sampling_job job = {.track = t, .ratio = ratio, .output = out, .output_count = 4};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_OK);
}

/* Square-ish wave used by the triggering tests, threshold 0.5. Local edges of one loop:
 * 0 falling (last value 1 -> first value 0), 0.1 rising, 0.3 falling, 0.35 rising (steps at
 * the keys), 0.7 falling (step), 0.8 rising (linear 0 -> 1 over [0.7, 0.9] crosses 0.5 at
 * its middle). */
static const ossa_raw_track_key wave_keys[] = {
    {0.f, OSSA_INTERP_STEP, {0.f}},   {.1f, OSSA_INTERP_STEP, {1.f}},   {.3f, OSSA_INTERP_STEP, {0.f}},
    {.35f, OSSA_INTERP_STEP, {1.f}},  {.7f, OSSA_INTERP_LINEAR, {0.f}}, {.9f, OSSA_INTERP_LINEAR, {1.f}},
    {1.f, OSSA_INTERP_LINEAR, {1.f}},
};
static const double wave_edges[] = {0.0, 0.1, 0.3, 0.35, 0.7, 0.8};
static const bool wave_rising[] = {false, true, false, true, false, true};

static void test_build_and_sample_float(void **state)
{
    (void)state;
    const ossa_raw_track_key keys[] = {
        {.2f, OSSA_INTERP_LINEAR, {1.f}}, {.6f, OSSA_INTERP_STEP, {3.f}}, {.8f, OSSA_INTERP_LINEAR, {-1.f}}};
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT, keys, 3);
    assert_int_equal(ossa_raw_track_set_name(&raw, "grip"), OSSA_OK);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    /* Keys patched at 0 and 1. */
    assert_int_equal(t.key_count, 5);
    assert_true(t.ratios[0] == 0.f && t.ratios[4] == 1.f);
    assert_string_equal(t.name, "grip");
    assert_int_equal(t.type, OSSA_TRACK_FLOAT);
    float v[4];
    /* Hand-derived: hold 1 before 0.2, lerp to 3 at 0.6, hold 3 until 0.8, then -1. */
    const float probes[][2] = {{0.f, 1.f},  {.1f, 1.f},  {.2f, 1.f},  {.4f, 2.f},  {.5f, 2.5f}, {.6f, 3.f}, {.7f, 3.f},
                               {.79f, 3.f}, {.8f, -1.f}, {.9f, -1.f}, {1.f, -1.f}, {-5.f, 1.f}, {7.f, -1.f}};
    for (size_t i = 0; i < sizeof probes / sizeof probes[0]; ++i) {
        sample(&t, probes[i][0], v);
        assert_float_equal(v[0], probes[i][1], 1e-6f);
    }
    /* Same arithmetic as the raw reference. */
    for (int i = 0; i <= 1000; ++i) {
        float e[4];
        const float r = (float)i / 1000.f;
        sample(&t, r, v);
        ossa_raw_track_evaluate(&raw, r, e);
        assert_true(v[0] == e[0]);
    }
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

static void test_sample_vectors_and_quaternions(void **state)
{
    (void)state;
    const float s45 = sinf(PI_F / 4.f), c45 = cosf(PI_F / 4.f);
    /* Identity to 90 degrees about z; the second key given in the opposite hemisphere. */
    const ossa_raw_track_key qkeys[] = {{0.f, OSSA_INTERP_SLERP, {0.f, 0.f, 0.f, 1.f}},
                                        {.5f, OSSA_INTERP_LINEAR, {0.f, 0.f, -s45, -c45}},
                                        {1.f, OSSA_INTERP_LINEAR, {0.f, 0.f, 0.f, 1.f}}};
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_QUAT, qkeys, 3);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    float v[4];
    /* Slerp at a quarter: 22.5 degrees about z, up to sign. */
    sample(&t, .125f, v);
    const float sign = v[3] < 0.f ? -1.f : 1.f;
    assert_float_equal(sign * v[2], sinf(PI_F / 16.f), 1e-5f);
    assert_float_equal(sign * v[3], cosf(PI_F / 16.f), 1e-5f);
    /* Nlerp at a quarter of [0.5, 1]: from 90 degrees back to identity, normalize(0.75 q90 + 0.25 id). */
    sample(&t, .625f, v);
    const float nz = .75f * s45, nw = .75f * c45 + .25f, len = sqrtf(nz * nz + nw * nw);
    const float sgn = v[3] < 0.f ? -1.f : 1.f;
    assert_float_equal(sgn * v[2], nz / len, 1e-5f);
    assert_float_equal(sgn * v[3], nw / len, 1e-5f);
    for (int i = 0; i <= 200; ++i) {
        float e[4];
        const float r = (float)i / 200.f;
        sample(&t, r, v);
        ossa_raw_track_evaluate(&raw, r, e);
        for (int c = 0; c < 4; ++c) assert_float_equal(v[c], e[c], 2e-6f);
    }
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);

    /* Float2/3/4: each component is its own lerp; empty tracks are zeros / identity. */
    for (ossa_track_type type = OSSA_TRACK_FLOAT2; type <= OSSA_TRACK_FLOAT4; ++type) {
        const ossa_raw_track_key keys[] = {{0.f, OSSA_INTERP_LINEAR, {0.f, 10.f, -2.f, 4.f}},
                                           {1.f, OSSA_INTERP_LINEAR, {1.f, 20.f, 2.f, 8.f}}};
        make_raw(&raw, type, keys, 2);
        build(&raw, &blob, &t);
        assert_int_equal(t.width, (size_t)type);
        float out[4] = {-9.f, -9.f, -9.f, -9.f};
        sample(&t, .25f, out);
        const float expected[4] = {.25f, 12.5f, -1.f, 5.f};
        for (size_t c = 0; c < 4; ++c) assert_float_equal(out[c], c < (size_t)type ? expected[c] : -9.f, 1e-6f);
        ossa_blob_destroy(&blob);
        ossa_raw_track_destroy(&raw);
    }
    make_raw(&raw, OSSA_TRACK_QUAT, NULL, 0);
    build(&raw, &blob, &t);
    assert_int_equal(t.key_count, 2);
    sample(&t, .3f, v);
    assert_true(v[0] == 0.f && v[1] == 0.f && v[2] == 0.f && v[3] == 1.f);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

static void test_sampling_errors(void **state)
{
    (void)state;
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT3, NULL, 0);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    float out[4] = {7.f, 7.f, 7.f, 7.f};
    ossa_track_sampling_job job = {0};
    assert_int_equal(ossa_track_sampling_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_NO_TRACK);
    ossa_track bad = t;
    bad.key_count = 1;
    job = (ossa_track_sampling_job){.track = &bad, .output = out, .output_count = 4};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_INVALID_TRACK);
    job = (ossa_track_sampling_job){.track = &t, .ratio = NAN, .output = out, .output_count = 4};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_INVALID_RATIO);
    job.ratio = INFINITY;
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_INVALID_RATIO);
    job = (ossa_track_sampling_job){.track = &t, .ratio = .5f, .output = NULL, .output_count = 4};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_NO_OUTPUT);
    job = (ossa_track_sampling_job){.track = &t, .ratio = .5f, .output = out, .output_count = 2};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_OUTPUT_TOO_SMALL);
    /* a key count whose value bytes wrap around the address space (the aliasing check's span
     * used to wrap with it) */
    bad = t, bad.key_count = SIZE_MAX / 8;
    job = (ossa_track_sampling_job){.track = &bad, .ratio = .5f, .output = out, .output_count = 4};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_INVALID_TRACK);
    for (int c = 0; c < 4; ++c) assert_true(out[c] == 7.f);
    /* Output inside the track's own values. */
    job = (ossa_track_sampling_job){
        .track = &t, .ratio = .5f, .output = (float *)(uintptr_t)t.values + 1, .output_count = 3};
    assert_int_equal(ossa_track_sampling_job_run(&job), OSSA_ERROR_ALIASING);
    job.output = out, job.output_count = 3;
    assert_int_equal(ossa_track_sampling_job_validate(&job), OSSA_OK);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

static void test_init_validation(void **state)
{
    (void)state;
    const ossa_raw_track_key keys[] = {
        {0.f, OSSA_INTERP_LINEAR, {1.f}}, {.5f, OSSA_INTERP_STEP, {2.f}}, {1.f, OSSA_INTERP_LINEAR, {3.f}}};
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT, keys, 3);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    /* Layout: header 16, ratios 16..28, values at 32, interpolations at 48, name at 64. */
    assert_ptr_equal((const uint8_t *)t.values, (uint8_t *)blob.data + 32);
    assert_ptr_equal(t.interpolations, (uint8_t *)blob.data + 48);
    assert_int_equal(blob.size, 80);
    uint8_t *copy = aligned_alloc(16, 96);
    assert_int_equal(ossa_track_init(NULL, blob.data, blob.size), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_track_init(&t, NULL, 0), OSSA_ERROR_NULL_ARGUMENT);
    memcpy(copy + 1, blob.data, blob.size);
    assert_int_equal(ossa_track_init(&t, copy + 1, blob.size), OSSA_ERROR_MISALIGNED);
    for (size_t cut = 0; cut < 65; cut += 4) {
        memcpy(copy, blob.data, blob.size);
        assert_int_equal(ossa_track_init(&t, copy, cut), OSSA_ERROR_TRUNCATED);
        assert_null(t.ratios);
    }
    struct {
        size_t at;
        uint32_t value;
        bool is_float;
        float f;
        ossa_result expected;
    } cases[] = {
        {0, 0, false, 0.f, OSSA_ERROR_INVALID_TRACK},                /* type 0 */
        {0, 6, false, 0.f, OSSA_ERROR_INVALID_TRACK},                /* type 6 */
        {4, 1, false, 0.f, OSSA_ERROR_INVALID_TRACK},                /* one key */
        {12, 1, false, 0.f, OSSA_ERROR_INVALID_TRACK},               /* reserved */
        {16, 0, true, .1f, OSSA_ERROR_INVALID_KEY},                  /* first ratio not 0 */
        {20, 0, true, 1.f, OSSA_ERROR_INVALID_KEY},                  /* ratios not increasing */
        {24, 0, true, .9f, OSSA_ERROR_INVALID_KEY},                  /* last ratio not 1 */
        {36, 0, true, NAN, OSSA_ERROR_INVALID_KEY},                  /* value */
        {36, 0, true, INFINITY, OSSA_ERROR_INVALID_KEY},             /* value */
        {36, 0, true, -3e38f, OSSA_ERROR_INVALID_KEY},               /* beyond 2^127 */
        {48, OSSA_INTERP_SLERP, false, 0.f, OSSA_ERROR_INVALID_KEY}, /* slerp on floats */
        {48, 3, false, 0.f, OSSA_ERROR_INVALID_KEY},                 /* unknown interpolation */
        {64, 0x41414141u, false, 0.f, OSSA_ERROR_INVALID_TRACK},     /* name not terminated */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        memcpy(copy, blob.data, blob.size);
        /* Host order is the blob's: init refuses big-endian hosts before reading fields. */
        if (cases[i].is_float)
            memcpy(copy + cases[i].at, &cases[i].f, 4);
        else if (cases[i].at == 48)
            copy[48] = (uint8_t)cases[i].value;
        else
            memcpy(copy + cases[i].at, &cases[i].value, 4);
        assert_int_equal(ossa_track_init(&t, copy, blob.size), cases[i].expected);
    }
    /* Bytes after the padded end. */
    memcpy(copy, blob.data, blob.size);
    assert_int_equal(ossa_track_init(&t, copy, blob.size + 16), OSSA_ERROR_INVALID_TRACK);
    assert_int_equal(ossa_track_init(&t, copy, blob.size), OSSA_OK);
    free(copy);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

/* Expected edges of the wave in [lo, hi) in walk order, from the per-loop table. */
static size_t expected_edges(double from, double to, ossa_track_edge *out, size_t cap)
{
    const bool forward = to >= from;
    const double lo = forward ? from : to, hi = forward ? to : from;
    size_t n = 0;
    for (long k = (long)floor(lo) - 1; k <= (long)floor(hi); ++k)
        for (size_t i = 0; i < 6; ++i) {
            const double r = (double)k + wave_edges[i];
            if (r >= lo && r < hi && n < cap) out[n++] = (ossa_track_edge){(float)r, wave_rising[i] == forward};
        }
    if (!forward)
        for (size_t i = 0; i < n / 2; ++i) {
            const ossa_track_edge tmp = out[i];
            out[i] = out[n - 1 - i];
            out[n - 1 - i] = tmp;
        }
    return n;
}

/* Walks [from, to) in `steps` equal steps (the last ends exactly at `to`). */
static size_t walk(const ossa_track *t, float from, float to, int steps, ossa_track_edge *out, size_t cap)
{
    size_t n = 0;
    float at = from;
    for (int s = 1; s <= steps; ++s) {
        const float next = s == steps ? to : from + (to - from) * ((float)s / (float)steps);
        ossa_track_edge_iterator it;
        ossa_track_triggering_job job = {.track = t, .from = at, .to = next, .threshold = .5f, .iterator = &it};
        assert_int_equal(ossa_track_triggering_job_run(&job), OSSA_OK);
        ossa_track_edge e;
        while (ossa_track_edge_next(&it, &e)) {
            assert_true(n < cap);
            out[n++] = e;
        }
        at = next;
    }
    return n;
}

static void test_triggering_square_wave(void **state)
{
    (void)state;
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT, wave_keys, sizeof wave_keys / sizeof wave_keys[0]);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    enum { CAP = 64 };
    ossa_track_edge expected[CAP], got[CAP];
    const float spans[][2] = {{-.25f, 2.75f}, {2.75f, -.25f}, {0.f, 3.f}, {3.f, 0.f}, {.05f, .95f}, {1.5f, 1.6f}};
    const int step_counts[] = {1, 7, 1000};
    for (size_t s = 0; s < sizeof spans / sizeof spans[0]; ++s) {
        const size_t n = expected_edges((double)spans[s][0], (double)spans[s][1], expected, CAP);
        for (size_t c = 0; c < 3; ++c) {
            const size_t m = walk(&t, spans[s][0], spans[s][1], step_counts[c], got, CAP);
            assert_int_equal(m, n);
            for (size_t i = 0; i < n; ++i) {
                assert_float_equal(got[i].ratio, expected[i].ratio, 1e-5f);
                assert_int_equal(got[i].rising, expected[i].rising);
            }
        }
    }
    /* Random cuts, mixed with empty steps, still see each edge once. */
    uint32_t seed = 1234;
    const size_t n = expected_edges(-1.0, 4.0, expected, CAP);
    size_t m = 0;
    for (float at = -1.f; at < 4.f;) {
        float next = at + ossa_test_randf(&seed, 0.f, .2f);
        if (next > 4.f) next = 4.f;
        m += walk(&t, at, next, 1, got + m, CAP - m);
        at = next;
    }
    assert_int_equal(m, n);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

static void test_triggering_exact_crossings(void **state)
{
    (void)state;
    /* Linear 0 -> 4 over [0.2, 0.6], threshold 1: crossing at 0.3; back down 4 -> 0 over
     * [0.6, 1], threshold 1: crossing at 0.9. */
    const ossa_raw_track_key keys[] = {
        {.2f, OSSA_INTERP_LINEAR, {0.f}}, {.6f, OSSA_INTERP_LINEAR, {4.f}}, {1.f, OSSA_INTERP_LINEAR, {0.f}}};
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT, keys, 3);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    ossa_track_edge_iterator it;
    ossa_track_triggering_job job = {.track = &t, .from = 0.f, .to = 2.f, .threshold = 1.f, .iterator = &it};
    assert_int_equal(ossa_track_triggering_job_run(&job), OSSA_OK);
    const float expected[] = {.3f, .9f, 1.3f, 1.9f};
    ossa_track_edge e;
    for (int i = 0; i < 4; ++i) {
        assert_true(ossa_track_edge_next(&it, &e));
        assert_float_equal(e.ratio, expected[i], 1e-6f);
        assert_int_equal(e.rising, i % 2 == 0);
        /* The sampled value there is the threshold. */
        float v[4];
        sample(&t, e.ratio - floorf(e.ratio), v);
        assert_float_equal(v[0], 1.f, 1e-5f);
    }
    assert_false(ossa_track_edge_next(&it, &e));
    assert_false(ossa_track_edge_next(&it, &e));
    /* Empty span: nothing. */
    job.from = job.to = .3f;
    assert_int_equal(ossa_track_triggering_job_run(&job), OSSA_OK);
    assert_false(ossa_track_edge_next(&it, &e));

    /* Errors leave the iterator untouched. */
    ossa_track_edge_iterator pattern;
    memset(&pattern, 0xa5, sizeof pattern);
    it = pattern;
    ossa_track_triggering_job bad = {0};
    assert_int_equal(ossa_track_triggering_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    bad.iterator = &it;
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_NO_TRACK);
    bad = (ossa_track_triggering_job){.track = &t, .from = NAN, .iterator = &it};
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_INVALID_RATIO);
    bad = (ossa_track_triggering_job){.track = &t, .to = 1e9f, .iterator = &it};
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_INVALID_RATIO);
    bad = (ossa_track_triggering_job){.track = &t, .to = 1.f, .threshold = NAN, .iterator = &it};
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_INVALID_THRESHOLD);
    bad = (ossa_track_triggering_job){.track = &t, .to = 1.f};
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_NO_OUTPUT);
    ossa_track wrong = t;
    wrong.type = OSSA_TRACK_FLOAT2;
    bad = (ossa_track_triggering_job){.track = &wrong, .to = 1.f, .iterator = &it};
    assert_int_equal(ossa_track_triggering_job_run(&bad), OSSA_ERROR_TRACK_TYPE_MISMATCH);
    assert_memory_equal(&it, &pattern, sizeof it);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

static void test_archive_round_trip(void **state)
{
    (void)state;
    ossa_raw_track raw[2];
    make_raw(&raw[0], OSSA_TRACK_FLOAT, wave_keys, sizeof wave_keys / sizeof wave_keys[0]);
    assert_int_equal(ossa_raw_track_set_name(&raw[0], "contact"), OSSA_OK);
    const ossa_raw_track_key q[] = {{.1f, OSSA_INTERP_SLERP, {0.f, 0.f, 0.f, 2.f}},
                                    {.7f, OSSA_INTERP_LINEAR, {0.f, 1.f, 0.f, 1.f}}};
    make_raw(&raw[1], OSSA_TRACK_QUAT, q, 2);
    ossa_blob blobs[2] = {{0}, {0}};
    ossa_track views[2];
    for (int i = 0; i < 2; ++i) build(&raw[i], &blobs[i], &views[i]);
    const ossa_archive_entry entries[] = {{OSSA_TAG_META, 1, "units=m\n", 8},
                                          {OSSA_TAG_TRACK, OSSA_TRACK_BLOB_VERSION, blobs[0].data, blobs[0].size},
                                          {OSSA_TAG_TRACK, OSSA_TRACK_BLOB_VERSION, blobs[1].data, blobs[1].size},
                                          {OSSA_TAG_TRACK, OSSA_TRACK_BLOB_VERSION + 1, blobs[1].data, blobs[1].size}};
    ossa_blob file = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_archive_write(entries, 4, NULL, &file, &diag), OSSA_OK);
    ossa_archive ar;
    assert_int_equal(ossa_archive_init(&ar, file.data, file.size), OSSA_OK);
    assert_int_equal(ossa_archive_count(&ar, OSSA_TAG_TRACK), 3);
    for (size_t i = 0; i < 2; ++i) {
        ossa_track t;
        assert_int_equal(ossa_archive_track(&ar, i, &t), OSSA_OK);
        assert_int_equal(t.type, views[i].type);
        assert_int_equal(t.key_count, views[i].key_count);
        assert_string_equal(t.name, views[i].name);
        assert_memory_equal(t.ratios, views[i].ratios, t.key_count * sizeof(float));
        assert_memory_equal(t.values, views[i].values, t.key_count * t.width * sizeof(float));
        assert_memory_equal(t.interpolations, views[i].interpolations, t.key_count);
        for (int k = 0; k <= 50; ++k) {
            float a[4], b[4];
            sample(&t, (float)k / 50.f, a);
            ossa_raw_track_evaluate(&raw[i], (float)k / 50.f, b);
            for (size_t c = 0; c < t.width; ++c) assert_float_equal(a[c], b[c], 1e-6f);
        }
    }
    ossa_track t;
    assert_int_equal(ossa_archive_track(&ar, 2, &t), OSSA_ERROR_UNSUPPORTED_VERSION);
    assert_int_equal(ossa_archive_track(&ar, 3, &t), OSSA_ERROR_NOT_FOUND);
    assert_int_equal(ossa_archive_track(&ar, 0, NULL), OSSA_ERROR_NULL_ARGUMENT);
    ossa_blob_destroy(&file);
    for (int i = 0; i < 2; ++i) {
        ossa_blob_destroy(&blobs[i]);
        ossa_raw_track_destroy(&raw[i]);
    }
}

/* Max error between the runtime track and the raw one over a dense sweep. */
static float max_error(const ossa_track *t, const ossa_raw_track *raw, int samples)
{
    float worst = 0.f;
    for (int i = 0; i <= samples; ++i) {
        const float r = (float)i / (float)samples;
        float a[4], b[4];
        sample(t, r, a);
        ossa_raw_track_evaluate(raw, r, b);
        float err;
        if (raw->type == OSSA_TRACK_QUAT) {
            /* Rotation angle 4 asin(|a - b| / 2) with b in a's hemisphere (acos of the dot
             * product would lose precision near 0). */
            const float sgn = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.f ? -1.f : 1.f;
            float d2 = 0.f;
            for (int c = 0; c < 4; ++c) d2 += (a[c] - sgn * b[c]) * (a[c] - sgn * b[c]);
            const float half = .5f * sqrtf(d2);
            err = 4.f * asinf(half < 1.f ? half : 1.f);
        } else {
            float d2 = 0.f;
            for (size_t c = 0; c < t->width; ++c) d2 += (a[c] - b[c]) * (a[c] - b[c]);
            err = sqrtf(d2);
        }
        if (err > worst) worst = err;
    }
    return worst;
}

static void test_optimizer_tolerance(void **state)
{
    (void)state;
    uint32_t seed = 99;
    const ossa_track_type types[] = {OSSA_TRACK_FLOAT, OSSA_TRACK_FLOAT3, OSSA_TRACK_QUAT};
    const float tolerances[] = {1e-3f, 1e-2f, 5e-2f};
    for (size_t ti = 0; ti < 3; ++ti) {
        for (size_t tol = 0; tol < 3; ++tol) {
            /* Smooth curve sampled densely, with some step keys and noise. */
            enum { N = 400 };
            ossa_raw_track raw;
            assert_int_equal(ossa_raw_track_create(&raw, types[ti], N, NULL), OSSA_OK);
            for (size_t k = 0; k < N; ++k) {
                const float x = (float)k / (float)(N - 1);
                ossa_raw_track_key *key = &raw.keys[k];
                key->ratio = x;
                key->interpolation = ossa_test_rand(&seed) % 7 == 0 ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
                if (types[ti] == OSSA_TRACK_QUAT && ossa_test_rand(&seed) % 5 == 0)
                    key->interpolation = OSSA_INTERP_SLERP;
                const float noise = ossa_test_randf(&seed, -1e-4f, 1e-4f);
                if (types[ti] == OSSA_TRACK_QUAT) {
                    const float angle = 3.f * sinf(4.f * x) + noise, h = .5f * angle;
                    const float ax = .6f, ay = .8f * cosf(x), az = .8f * sinf(x);
                    key->value[0] = ax * sinf(h), key->value[1] = ay * sinf(h), key->value[2] = az * sinf(h);
                    key->value[3] = cosf(h);
                } else {
                    for (int c = 0; c < 3; ++c) key->value[c] = sinf(6.f * x + (float)c) + noise;
                }
            }
            ossa_raw_track opt;
            ossa_diag diag = {0};
            const ossa_track_optimize_desc desc = {.tolerance = tolerances[tol]};
            assert_int_equal(ossa_track_optimize(&raw, &desc, &opt, &diag), OSSA_OK);
            assert_true(opt.key_count < raw.key_count);
            assert_true(opt.key_count >= 2);
            ossa_blob blob = {0};
            ossa_track t;
            build(&opt, &blob, &t);
            const float err = max_error(&t, &raw, 20000);
            assert_true(err <= tolerances[tol] * 1.001f + 2e-5f);
            ossa_blob_destroy(&blob);
            ossa_raw_track_destroy(&opt);
            ossa_raw_track_destroy(&raw);
        }
    }
}

static void test_optimizer_cases(void **state)
{
    (void)state;
    /* Collinear keys collapse to the ends. */
    ossa_raw_track raw, opt;
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_track_create(&raw, OSSA_TRACK_FLOAT2, 50, NULL), OSSA_OK);
    for (size_t k = 0; k < 50; ++k)
        raw.keys[k] = (ossa_raw_track_key){(float)k / 49.f, OSSA_INTERP_LINEAR, {2.f * (float)k, -(float)k}};
    assert_int_equal(ossa_track_optimize(&raw, NULL, &opt, &diag), OSSA_OK);
    assert_int_equal(opt.key_count, 2);
    assert_true(opt.keys[1].ratio == 1.f && opt.keys[1].value[0] == 98.f);
    ossa_raw_track_destroy(&opt);
    ossa_raw_track_destroy(&raw);

    /* The key at 0.5 matches the line through its neighbours, but it starts a step: just
     * before 1 the curve is 0.5, not 1. Only the check before the key sees it. */
    const ossa_raw_track_key keys[] = {
        {0.f, OSSA_INTERP_LINEAR, {0.f}}, {.5f, OSSA_INTERP_STEP, {.5f}}, {1.f, OSSA_INTERP_LINEAR, {1.f}}};
    make_raw(&raw, OSSA_TRACK_FLOAT, keys, 3);
    const ossa_track_optimize_desc desc = {.tolerance = .1f};
    assert_int_equal(ossa_track_optimize(&raw, &desc, &opt, &diag), OSSA_OK);
    assert_int_equal(opt.key_count, 3);
    ossa_raw_track_destroy(&opt);
    /* With a tolerance above 0.5 it may go. */
    const ossa_track_optimize_desc loose = {.tolerance = .6f};
    assert_int_equal(ossa_track_optimize(&raw, &loose, &opt, &diag), OSSA_OK);
    assert_int_equal(opt.key_count, 2);
    ossa_raw_track_destroy(&opt);

    const ossa_track_optimize_desc negative = {.tolerance = -1.f};
    assert_int_equal(ossa_track_optimize(&raw, &negative, &opt, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(opt.key_count, 0);
    raw.keys[1].ratio = 0.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_track_optimize(&raw, NULL, &opt, &diag), OSSA_ERROR_INVALID_KEY);
    assert_int_equal(diag.offset, 1);
    ossa_blob blob = {0};
    assert_int_equal(ossa_track_build(&raw, NULL, &blob, NULL), OSSA_ERROR_INVALID_KEY);
    assert_null(blob.data);
    raw.keys[1].ratio = .5f;
    raw.keys[2].value[0] = 3e38f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_track_build(&raw, NULL, &blob, &diag), OSSA_ERROR_INVALID_KEY);
    assert_int_equal(diag.offset, 2);
    raw.keys[2].value[0] = 1.f;
    raw.keys[1].interpolation = OSSA_INTERP_SLERP;
    assert_int_equal(ossa_track_build(&raw, NULL, &blob, NULL), OSSA_ERROR_INVALID_KEY);
    ossa_raw_track_destroy(&raw);
}

/* Random byte flips in a valid blob: init either rejects it or gives a view on which both
 * jobs run and return finite values (what validation promises). */
static void test_mutated_blobs(void **state)
{
    (void)state;
    ossa_raw_track raw;
    make_raw(&raw, OSSA_TRACK_FLOAT, wave_keys, sizeof wave_keys / sizeof wave_keys[0]);
    ossa_blob blob = {0};
    ossa_track t;
    build(&raw, &blob, &t);
    uint8_t *copy = aligned_alloc(16, blob.size);
    uint32_t seed = 77;
    size_t accepted = 0;
    for (int i = 0; i < 5000; ++i) {
        memcpy(copy, blob.data, blob.size);
        for (uint32_t f = 1 + ossa_test_rand(&seed) % 3; f > 0; --f)
            copy[ossa_test_rand(&seed) % blob.size] ^= (uint8_t)(1u << (ossa_test_rand(&seed) % 8));
        if (ossa_track_init(&t, copy, blob.size) != OSSA_OK) continue;
        ++accepted;
        float v[4];
        sample(&t, ossa_test_randf(&seed, 0.f, 1.f), v);
        assert_true(isfinite(v[0]));
        ossa_track_edge_iterator it;
        ossa_track_triggering_job job = {.track = &t, .from = -1.5f, .to = 1.5f, .threshold = .5f, .iterator = &it};
        assert_int_equal(ossa_track_triggering_job_run(&job), OSSA_OK);
        ossa_track_edge e;
        for (int guard = 0; ossa_track_edge_next(&it, &e); ++guard)
            assert_true(guard < 64 && e.ratio >= -1.5f && e.ratio <= 1.5f);
    }
    assert_true(accepted > 0); /* flips in values and the name's padding pass */
    free(copy);
    ossa_blob_destroy(&blob);
    ossa_raw_track_destroy(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_and_sample_float), cmocka_unit_test(test_sample_vectors_and_quaternions),
        cmocka_unit_test(test_sampling_errors),        cmocka_unit_test(test_init_validation),
        cmocka_unit_test(test_triggering_square_wave), cmocka_unit_test(test_triggering_exact_crossings),
        cmocka_unit_test(test_archive_round_trip),     cmocka_unit_test(test_optimizer_tolerance),
        cmocka_unit_test(test_optimizer_cases),        cmocka_unit_test(test_mutated_blobs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
