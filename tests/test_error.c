/* Error measurement (ossa_measure_error): which times it samples. A two-joint clip with a
 * one-key spike between two 60 Hz samples is measured against the same clip built without
 * the spike: only sampling at the source key times sees it. Per joint
 * (ossa_measure_joint_errors): the same samples, so the largest joint is the maximum. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/error_joints.h"
#include "ossa/skeleton.h"
#include "test_util.h"

/* 61/120 s: halfway between the 60 Hz samples 30/60 and 31/60. */
#define SPIKE_TIME (61.f / 120.f)

static void make_skeleton(ossa_raw_skeleton *skel)
{
    assert_int_equal(ossa_raw_skeleton_create(skel, 2, NULL), OSSA_OK);
    skel->joints[1].parent = 0;
    skel->joints[1].rest.translation.x = 1.f;
}

static void set_translation(ossa_raw_animation *raw, size_t track, size_t key, float time, float y)
{
    raw->tracks[track].translations[key] = (ossa_raw_float3_key){time, {track ? 1.f : 0.f, y, 0.f}};
}

/* Root: translation keys at 0, 30/60, SPIKE_TIME, 31/60 and 1 s, all at y = 0 except the
 * spike (y = `spike`, skipped when `with_spike` is false); one rotation and one scale key at 0.
 * Child: a constant translation, rotation keys at 0, 0.25 and 0.3 s (identity), scale at 0. */
static void make_clip(ossa_raw_animation *raw, bool with_spike, float spike)
{
    assert_int_equal(ossa_raw_animation_create(raw, 2, NULL), OSSA_OK);
    raw->duration = 1.f;
    assert_int_equal(ossa_raw_joint_track_resize(raw, 0, with_spike ? 5 : 4, 1, 1), OSSA_OK);
    size_t k = 0;
    set_translation(raw, 0, k++, 0.f, 0.f);
    set_translation(raw, 0, k++, 30.f / 60.f, 0.f);
    if (with_spike) set_translation(raw, 0, k++, SPIKE_TIME, spike);
    set_translation(raw, 0, k++, 31.f / 60.f, 0.f);
    set_translation(raw, 0, k++, 1.f, 0.f);
    assert_int_equal(ossa_raw_joint_track_resize(raw, 1, 1, 3, 1), OSSA_OK);
    set_translation(raw, 1, 0, 0.f, 0.f);
    const float rotation_times[3] = {0.f, .25f, .3f};
    for (size_t t = 0; t < 2; ++t) {
        raw->tracks[t].scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
        for (size_t r = 0; r < raw->tracks[t].rotation_count; ++r)
            raw->tracks[t].rotations[r] = (ossa_raw_quat_key){rotation_times[r], {0.f, 0.f, 0.f, 1.f}};
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

typedef struct fixture {
    ossa_raw_skeleton raw_skel;
    ossa_raw_animation source; /* with the spike */
    ossa_raw_animation smooth; /* without it, built */
    ossa_blob skel_blob, anim_blob;
    ossa_skeleton skel;
    ossa_animation built;
} fixture;

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (!f) return -1;
    make_skeleton(&f->raw_skel);
    make_clip(&f->source, true, .25f);
    make_clip(&f->smooth, false, 0.f);
    assert_int_equal(ossa_skeleton_build(&f->raw_skel, NULL, &f->skel_blob, NULL), OSSA_OK);
    assert_int_equal(ossa_animation_build(&f->smooth, NULL, &f->anim_blob, NULL), OSSA_OK);
    assert_int_equal(ossa_skeleton_init(&f->skel, f->skel_blob.data, f->skel_blob.size), OSSA_OK);
    assert_int_equal(ossa_animation_init(&f->built, f->anim_blob.data, f->anim_blob.size), OSSA_OK);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    ossa_blob_destroy(&f->anim_blob);
    ossa_blob_destroy(&f->skel_blob);
    ossa_raw_animation_destroy(&f->smooth);
    ossa_raw_animation_destroy(&f->source);
    ossa_raw_skeleton_destroy(&f->raw_skel);
    free(f);
    return 0;
}

/* Fixed-rate samples (61 over 1 s at 60 Hz) plus the distinct key times of all channels of
 * all tracks: 0, 0.25, 0.3, 30/60, 61/120, 31/60, 1 (0 appears in every channel). */
static void test_sample_count(void **state)
{
    fixture *f = *state;
    ossa_error_report rep;
    ossa_diag diag = {0};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, NULL, &rep, &diag), OSSA_OK);
    assert_int_equal(rep.sample_count, 61);
    assert_int_equal(rep.source_sample_count, 0);
    assert_int_equal(rep.point_count, 61 * 2);
    const ossa_error_desc zero = {0};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &zero, &rep, &diag), OSSA_OK);
    assert_int_equal(rep.sample_count, 61);
    const ossa_error_desc with_keys = {.source_times = 1, .shell_distance = .03f};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &with_keys, &rep, &diag), OSSA_OK);
    assert_int_equal(rep.source_sample_count, 7);
    /* With the key times, a run of more than 15 fixed samples between two of them is thinned
     * to 15 (as the builder measures): 31/60 to 1 holds 29 (31/60 .. 59/60), so 61 - 14. */
    assert_int_equal(rep.sample_count, 47 + 7);
    assert_int_equal(rep.point_count, (47 + 7) * 2 * 4);
    const ossa_error_desc at_10hz = {.sample_rate = 10.f, .source_times = 1};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &at_10hz, &rep, &diag), OSSA_OK);
    assert_int_equal(rep.sample_count, 11 + 7);
    /* The fixed-rate samples are bounded: 2 MHz over 1 s is measured at the capped count. */
    const ossa_error_desc too_many = {.sample_rate = 2e6f};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &too_many, &rep, &diag), OSSA_OK);
    assert_int_equal(rep.sample_count, OSSA_ERROR_MAX_FIXED_SAMPLES + 1);
}

/* The spike moves the root (and so both joints) by 0.25 at SPIKE_TIME only: every 60 Hz
 * sample sees y = 0 in both clips (what differs is quantisation, under 1e-3), the source key
 * time sees the whole spike. */
static void test_spike_between_samples(void **state)
{
    fixture *f = *state;
    ossa_error_report rep;
    ossa_diag diag = {0};
    const ossa_error_desc fixed = {.shell_distance = .03f};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &fixed, &rep, &diag), OSSA_OK);
    assert_true(rep.max < 1e-3f); /* quantisation only */
    const ossa_error_desc with_keys = {.shell_distance = .03f, .source_times = 1};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &with_keys, &rep, &diag), OSSA_OK);
    assert_float_equal(rep.max, .25f, 1e-3f);
    assert_float_equal(rep.worst_time, SPIKE_TIME, 1e-6f);
    assert_int_equal(rep.worst_joint, 0);
    /* 8 of the 54 x 2 x 4 points (1.9 %) are at the spike, so the 99th percentile is too. */
    assert_float_equal(rep.p99, .25f, 1e-3f);
    assert_float_equal(rep.mean, .25f * 8.f / (54.f * 8.f), 2e-4f);
}

/* Bad descs and arguments: the report is zeroed, nothing else happens. */
static void test_errors(void **state)
{
    fixture *f = *state;
    ossa_error_report rep;
    memset(&rep, 0x5a, sizeof rep);
    const ossa_error_desc negative = {.sample_rate = -1.f, .source_times = 1};
    assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &negative, &rep, NULL),
                     OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(rep.sample_count, 0);
    assert_int_equal(rep.source_sample_count, 0);
    assert_int_equal(ossa_measure_error(&f->skel, NULL, &f->built, NULL, &rep, NULL), OSSA_ERROR_NULL_ARGUMENT);
    /* An unvalidated raw duration is checked, not converted to a sample count. */
    const float durations[] = {NAN, -1.f, 0.f, INFINITY, 1e30f};
    for (size_t i = 0; i < sizeof durations / sizeof *durations; ++i) {
        const float kept = f->source.duration;
        f->source.duration = durations[i];
        assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, NULL, &rep, NULL),
                         OSSA_ERROR_INVALID_ANIMATION);
        f->source.duration = kept;
    }
}

/* Each joint's largest error over the measure's samples and points: the largest of them is
 * ossa_measure_error's maximum, bit for bit, at its worst joint, for every desc. */
static void test_joint_errors(void **state)
{
    fixture *f = *state;
    const ossa_error_desc descs[] = {
        {0}, {.shell_distance = .03f}, {.source_times = 1}, {.shell_distance = .03f, .source_times = 1}};
    for (size_t d = 0; d < sizeof descs / sizeof *descs; ++d) {
        ossa_error_report rep;
        float joint_max[3] = {-1.f, -1.f, -1.f};
        assert_int_equal(ossa_measure_error(&f->skel, &f->source, &f->built, &descs[d], &rep, NULL), OSSA_OK);
        assert_int_equal(ossa_measure_joint_errors(&f->skel, &f->source, &f->built, &descs[d], joint_max, 3, NULL),
                         OSSA_OK);
        assert_true(joint_max[2] == -1.f); /* past the joint count: untouched */
        const size_t worst = joint_max[1] > joint_max[0] ? 1 : 0;
        assert_true(joint_max[worst] == rep.max);
        assert_int_equal(worst, rep.worst_joint);
        /* The spike moves the root, and so both joints, by 0.25: seen at the source key time only. */
        for (size_t j = 0; j < 2; ++j) {
            if (descs[d].source_times)
                assert_float_equal(joint_max[j], .25f, 1e-3f);
            else
                assert_true(joint_max[j] < 1e-3f);
        }
    }
    /* Errors: the output checks first, then those of ossa_measure_error (the output zeroed). */
    float joint_max[2] = {7.f, 7.f};
    ossa_diag diag = {0};
    assert_int_equal(ossa_measure_joint_errors(&f->skel, &f->source, &f->built, NULL, NULL, 2, &diag),
                     OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_measure_joint_errors(&f->skel, &f->source, &f->built, NULL, joint_max, 1, NULL),
                     OSSA_ERROR_OUTPUT_TOO_SMALL);
    assert_true(joint_max[0] == 7.f && joint_max[1] == 7.f);
    const ossa_error_desc negative = {.shell_distance = -1.f};
    assert_int_equal(ossa_measure_joint_errors(&f->skel, &f->source, &f->built, &negative, joint_max, 2, NULL),
                     OSSA_ERROR_INVALID_ARGUMENT);
    assert_true(joint_max[0] == 0.f && joint_max[1] == 0.f);
    const size_t kept = f->source.track_count;
    f->source.track_count = 1;
    assert_int_equal(ossa_measure_joint_errors(&f->skel, &f->source, &f->built, NULL, joint_max, 2, NULL),
                     OSSA_ERROR_JOINT_MISMATCH);
    f->source.track_count = kept;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_count),
        cmocka_unit_test(test_spike_between_samples),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_joint_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
