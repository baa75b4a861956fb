/* Animation builder (ossa_animation_build): the error bound on real clips, measured apart from
 * the builder by ossa_measure_error; the lossless build against its documented quantisation
 * bound; key selection on piecewise-linear curves; per-joint overrides measured here in double
 * precision; the progress report; and the desc checks. Expected key sets are computed here from the raw key times
 * and the segment rule of ossa/animation.h, and read back from the blob's segment bitmaps. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/error_joints.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/sampling_job.h"
#include "internal.h"               /* ossa__fixed_count, OSSA__MAX_FIXED_PER_INTERVAL: the thinned measure */
#include "build/animation_search.h" /* ossa__loosen_by_slack: loosening's slack bound */
#include "build/animation_codec.h"  /* ossa__rotation_within_tolerance: the encoder's rotation check */
#include "ossa/skeleton.h"
#include "test_util.h"

#define SHELL_M      0.03f        /* virtual vertex distance of every bound, metres */
#define SEGMENT      16           /* time points per segment (ossa/animation.h) */
#define CMU_UNIT     0.05644f     /* metres per BVH unit of the CMU clips */
#define ULP          5.9604645e-8 /* 2^-24: the relative rounding of one float operation */
#define EXCERPT_SECS 5.f

static const float all_tolerances[3] = {0.0001f, 0.001f, 0.01f}; /* metres, ascending */

/* ---- shared helpers ---- */

static void build_view(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc, ossa_blob *blob,
                       ossa_animation *anim)
{
    ossa_diag diag = {0};
    *blob = (ossa_blob){0};
    if (ossa_animation_build(raw, desc, blob, &diag) != OSSA_OK) fail_msg("build failed: %s", diag.message);
    assert_int_equal(ossa_animation_init(anim, blob->data, blob->size), OSSA_OK);
}

static void *aligned_zero(size_t size)
{
    const size_t rounded = (size + 15) & ~(size_t)15;
    void *p = aligned_alloc(16, rounded ? rounded : 16);
    assert_non_null(p);
    memset(p, 0, rounded ? rounded : 16);
    return p;
}

/* The rest pose of `skel` as the runtime skeleton holds it (SoA, rotations normalised, padding
 * lanes identity), for the rest-pose sub-tracks of error-bounded builds. */
static ossa_soa_transform *rest_soa(const ossa_raw_skeleton *skel)
{
    const size_t groups = (skel->joint_count + 3) / 4;
    ossa_soa_transform *rest = aligned_zero((groups ? groups : 1) * sizeof *rest);
    for (size_t g = 0; g < groups; ++g) ossa_soa_transform_set_identity(&rest[g]);
    for (size_t j = 0; j < skel->joint_count; ++j) {
        ossa_transform t = skel->joints[j].rest;
        t.rotation = ossa_quat_normalize(t.rotation);
        ossa_soa_transform_set(&rest[j / 4], (int)(j % 4), &t);
    }
    return rest;
}

/* Samples `anim` with the runtime sampling job at `time` seconds into AoS `local` [track_count]
 * (`rest`: the skeleton's rest pose, NULL for builds without one). */
static void sample_runtime(const ossa_animation *anim, ossa_sampling_context *ctx, ossa_soa_transform *soa, float time,
                           ossa_transform *local, const ossa_soa_transform *rest)
{
    const ossa_sampling_job job = {anim, ctx, time / anim->duration, soa, anim->soa_count, rest, anim->soa_count};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    for (size_t j = 0; j < anim->track_count; ++j) local[j] = ossa_soa_transform_get(&soa[j / 4], (int)(j % 4));
}

/* Every `rate` Hz over the clip, then every key time of every channel (not sorted, may repeat);
 * free() the array. */
static float *sample_times(const ossa_raw_animation *raw, float rate, size_t *count)
{
    const size_t fixed = rate > 0.f ? (size_t)ceilf(raw->duration * rate) + 1 : 0;
    size_t keys = 0;
    for (size_t j = 0; j < raw->track_count; ++j)
        keys += raw->tracks[j].translation_count + raw->tracks[j].rotation_count + raw->tracks[j].scale_count;
    float *times = aligned_zero((fixed + keys + 2) * sizeof *times);
    size_t n = 0;
    for (size_t i = 0; i < fixed; ++i) times[n++] = fminf((float)i / rate, raw->duration);
    for (size_t j = 0; j < raw->track_count; ++j) {
        const ossa_raw_joint_track *t = &raw->tracks[j];
        for (size_t k = 0; k < t->translation_count; ++k) times[n++] = t->translations[k].time;
        for (size_t k = 0; k < t->rotation_count; ++k) times[n++] = t->rotations[k].time;
        for (size_t k = 0; k < t->scale_count; ++k) times[n++] = t->scales[k].time;
    }
    *count = n;
    return times;
}

/* Checks each animated sub-track's keys, as the blob's segment bitmaps give them, against the
 * keys ossa/animation.h requires of it: its own (`own`, [3 * track_count][F] flags), the first
 * time point of every segment and the last. Each segment starts with one little-endian u16 per
 * animated sub-track (in sub-track order), bit i = a key at the segment's time point i.
 * Returns the total key count. */
static size_t check_key_sets(const ossa_animation *anim, const uint8_t *own)
{
    const size_t F = anim->frame_count;
    size_t a = 0, total = 0;
    for (size_t s = 0; s < 3 * anim->track_count; ++s) {
        if (ossa_animation_channel_kind(anim, s / 3, (int)(s % 3)) != 2) continue;
        for (size_t f = 0; f < anim->segment_count * SEGMENT; ++f) {
            const uint8_t *seg = anim->data + anim->segment_offsets[f / SEGMENT];
            const bool key = ((unsigned)seg[2 * a] | (unsigned)seg[2 * a + 1] << 8) >> (f % SEGMENT) & 1u;
            const bool want = f < F && (own[s * F + f] || f % SEGMENT == 0 || f + 1 == F);
            if (key != want)
                fail_msg("joint %zu channel %zu: time point %zu is %sa key", s / 3, s % 3, f, want ? "not " : "");
            total += want;
        }
        ++a;
    }
    assert_int_equal(a, anim->animated_count);
    return total;
}

/* ---- model space in double precision (independent of the library's matrices) ---- */

/* Point `p` of joint j's space to model space: each local transform up the chain applied as
 * scale, then rotation (normalised here), then translation. */
static void to_model(const ossa_raw_skeleton *skel, const ossa_transform *local, size_t j, double p[3])
{
    for (int32_t i = (int32_t)j; i >= 0; i = skel->joints[i].parent) {
        const ossa_transform *t = &local[i];
        const double q[4] = {t->rotation.x, t->rotation.y, t->rotation.z, t->rotation.w};
        const double s[3] = {t->scale.x, t->scale.y, t->scale.z};
        const double tr[3] = {t->translation.x, t->translation.y, t->translation.z};
        const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        const double u[3] = {q[0] / n, q[1] / n, q[2] / n}, w = q[3] / n;
        const double v[3] = {p[0] * s[0], p[1] * s[1], p[2] * s[2]};
        /* v + 2 w (u x v) + 2 u x (u x v) */
        const double c[3] = {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
        const double cc[3] = {u[1] * c[2] - u[2] * c[1], u[2] * c[0] - u[0] * c[2], u[0] * c[1] - u[1] * c[0]};
        for (int k = 0; k < 3; ++k) p[k] = v[k] + 2.0 * (w * c[k] + cc[k]) + tr[k];
    }
}

/* Per joint, the largest model-space distance between `raw` (reference sampler) and `anim`
 * (runtime sampling job) at the joint and at points `shell` along its local x, y and z axes,
 * at 60 Hz and at every key time. */
static void joint_errors(const ossa_raw_skeleton *skel, const ossa_raw_animation *raw, const ossa_animation *anim,
                         float shell, double *errors)
{
    const size_t n = skel->joint_count, ctx_size = ossa_sampling_context_size(n);
    void *ctx_mem = aligned_zero(ctx_size);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, n);
    ossa_soa_transform *soa = aligned_zero(anim->soa_count * sizeof *soa);
    ossa_transform *raw_local = aligned_zero(n * sizeof *raw_local), *built_local = aligned_zero(n * sizeof *raw_local);
    ossa_soa_transform *rest = rest_soa(skel);
    size_t count;
    float *times = sample_times(raw, 60.f, &count);
    for (size_t j = 0; j < n; ++j) errors[j] = 0.0;
    for (size_t i = 0; i < count; ++i) {
        assert_int_equal(ossa_raw_animation_sample(raw, times[i], raw_local, n), OSSA_OK);
        sample_runtime(anim, ctx, soa, times[i], built_local, rest);
        for (size_t j = 0; j < n; ++j)
            for (int axis = -1; axis < 3; ++axis) {
                double a[3] = {0.0, 0.0, 0.0}, b[3] = {0.0, 0.0, 0.0};
                if (axis >= 0) a[axis] = b[axis] = shell;
                to_model(skel, raw_local, j, a);
                to_model(skel, built_local, j, b);
                errors[j] = fmax(errors[j], sqrt((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1]) +
                                                 (a[2] - b[2]) * (a[2] - b[2])));
            }
    }
    free(ctx_mem), free(soa), free(raw_local), free(built_local), free(times), free(rest);
}

/* ---- real clips ---- */

/* Prints "FAIL ..." and clears `ok` when `cond` is false (so later rows are still printed). */
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) print_message("FAIL " __VA_ARGS__), ok = false;                                                   \
    } while (0)

/* Bakes `raw` at each tolerance (metres, ascending) and checks the measured error, the
 * builder's stats and that bytes shrink as the tolerance grows; prints one row per bake.
 * Returns false (after printing why) when a check fails, so every row is printed first. */
static bool bake_clip(const char *label, const ossa_raw_skeleton *skel, const ossa_raw_animation *raw, float unit,
                      const float *tolerances_m, size_t count)
{
    ossa_blob skel_blob = {0};
    ossa_skeleton skeleton;
    assert_int_equal(ossa_skeleton_build(skel, NULL, &skel_blob, NULL), OSSA_OK);
    assert_int_equal(ossa_skeleton_init(&skeleton, skel_blob.data, skel_blob.size), OSSA_OK);
    bool ok = true;
    size_t previous = 0;
    for (size_t i = 0; i < count; ++i) {
        const float tolerance = tolerances_m[i] / unit;
        ossa_animation_build_stats stats = {0};
        const ossa_animation_build_desc desc = {
            .skeleton = skel, .tolerance = tolerance, .unit_scale = unit, .stats = &stats};
        ossa_blob blob;
        ossa_animation anim;
        build_view(raw, &desc, &blob, &anim);
        const ossa_error_desc measure = {.shell_distance = SHELL_M / unit, .source_times = 1};
        ossa_error_report rep;
        ossa_diag diag = {0};
        assert_int_equal(ossa_measure_error(&skeleton, raw, &anim, &measure, &rep, &diag), OSSA_OK);
        const double mm = 1e3 * (double)unit;
        print_message("%-10s tolerance %7.4f mm  %8zu bytes  measured max %.5f mm (joint %zu %s at %.4f s), "
                      "builder %.5f mm\n",
                      label, (double)tolerances_m[i] * 1e3, blob.size, (double)rep.max * mm, rep.worst_joint,
                      skel->joints[rep.worst_joint].name, (double)rep.worst_time, (double)stats.max_error * mm);
        CHECK(rep.max <= tolerance, "%s: measured %.6f mm > tolerance %.4f mm\n", label, (double)rep.max * mm,
              (double)tolerances_m[i] * 1e3);
        CHECK(stats.max_error <= tolerance && stats.error_ratio <= 1.f, "%s: builder stats max %.6f mm, ratio %.4f\n",
              label, (double)stats.max_error * mm, (double)stats.error_ratio);
        /* The builder's figure is its verification, the pass ossa_measure_error runs: the same. */
        CHECK(stats.max_error == rep.max, "%s: builder figure %.7f mm, measured %.7f mm\n", label,
              (double)stats.max_error * mm, (double)rep.max * mm);
        CHECK(i == 0 || blob.size < previous, "%s: %zu bytes at %g m, not fewer than %zu at the tighter tolerance\n",
              label, blob.size, (double)tolerances_m[i], previous);
        previous = blob.size;
        ossa_blob_destroy(&blob);
    }
    ossa_blob_destroy(&skel_blob);
    return ok;
}

static void import_ozz_file(const char *name, ossa_import_output *out)
{
    char relative[64], shown[96];
    snprintf(relative, sizeof relative, "ozz/%s", name);
    snprintf(shown, sizeof shown, "DATA/ozz/%s", name);
    size_t size;
    void *data = ossa_test_read_or_skip(ossa_test_shared_path(relative), shown, &size);
    ossa_diag diag = {0};
    *out = (ossa_import_output){0};
    if (ossa_import_ozz(data, size, NULL, out, &diag) != OSSA_OK) fail_msg("%s: %s", name, diag.message);
    free(data);
}

/* A pab clip with the pab skeleton joined to it, both depth-first (as `ossa bake --skeleton`). */
static void import_pab_clip(const char *name, ossa_import_output *out)
{
    ossa_import_output skel = {0};
    import_ozz_file("pab_skeleton.ozz", &skel);
    import_ozz_file(name, out);
    out->skeleton = skel.skeleton;
    skel.skeleton = (ossa_raw_skeleton){0};
    ossa_import_output_destroy(&skel);
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_output_sort_depth_first(out, &diag), OSSA_OK);
}

static void test_real_pab(void **state)
{
    (void)state;
    const char *const clips[4] = {"pab_walk_raw.ozz", "pab_jog_raw.ozz", "pab_run_raw.ozz", "pab_atlas_raw.ozz"};
    bool ok = true;
    for (size_t c = 0; c < 4; ++c) {
        ossa_import_output out = {0};
        import_pab_clip(clips[c], &out);
        char label[32];
        snprintf(label, sizeof label, "pab_%s", out.animations[0].name);
        /* atlas (15 s) only at 1 mm: it is the slow one. */
        const float *tol = c == 3 ? &all_tolerances[1] : all_tolerances;
        ok = bake_clip(label, &out.skeleton, &out.animations[0], 1.f, tol, c == 3 ? 1 : 3) && ok;
        ossa_import_output_destroy(&out);
    }
    assert_true(ok);
}

/* The encoder checks a rotation's local error against its tolerance without the square root
 * (and mostly without the division) of the error's formula: the same answer as the formula,
 * computed here as documented (chord 2 sqrt(1 - d^2 / (|r|^2 |v|^2)) in double, rounded to
 * float, times the radius), on pairs from a millionth of a degree to 10 degrees apart, at the
 * pair's own error as tolerance and one float step either side, where a wrong bound fails. */
static void test_rotation_check_without_root(void **state)
{
    (void)state;
    uint32_t rng = 0x2545f491u;
    size_t passed = 0, checked = 0;
    for (int i = 0; i < 20000; ++i) {
        float r[4], v[4], n = 0.f;
        for (int c = 0; c < 4; ++c) r[c] = ossa_test_randf(&rng, -1.f, 1.f), n += r[c] * r[c];
        for (int c = 0; c < 4; ++c) r[c] /= sqrtf(n);
        /* v: r turned by a small angle about a random axis, normalised in float (not exactly). */
        const float angle = powf(10.f, ossa_test_randf(&rng, -8.f, -0.75f)), h = .5f * angle;
        const float ax = ossa_test_randf(&rng, -1.f, 1.f), ay = ossa_test_randf(&rng, -1.f, 1.f);
        const ossa_float3 axis = {ax, ay, ossa_test_randf(&rng, -1.f, 1.f)};
        const float al = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z), sh = sinf(h) / al;
        const float dq[4] = {axis.x * sh, axis.y * sh, axis.z * sh, cosf(h)};
        v[0] = dq[3] * r[0] + dq[0] * r[3] + dq[1] * r[2] - dq[2] * r[1];
        v[1] = dq[3] * r[1] - dq[0] * r[2] + dq[1] * r[3] + dq[2] * r[0];
        v[2] = dq[3] * r[2] + dq[0] * r[1] - dq[1] * r[0] + dq[2] * r[3];
        v[3] = dq[3] * r[3] - dq[0] * r[0] - dq[1] * r[1] - dq[2] * r[2];
        if (i % 2) /* the other hemisphere: the same rotation */
            for (int c = 0; c < 4; ++c) v[c] = -v[c];
        const float radius = ossa_test_randf(&rng, .01f, 3.f);
        double d = 0.0, nv = 0.0, nr = 0.0;
        for (int c = 0; c < 4; ++c) {
            const double rc = (double)r[c], vc = (double)v[c];
            d += rc * vc, nv += vc * vc, nr += rc * rc;
        }
        const double s2 = 1.0 - d * d / (nv * nr);
        const float error = (float)(2.0 * sqrt(s2 > 0.0 ? s2 : 0.0)) * radius;
        const float tolerances[3] = {error, nextafterf(error, 0.f), nextafterf(error, INFINITY)};
        for (int t = 0; t < 3; ++t) {
            if (!(tolerances[t] > 0.f)) continue;
            const bool want = !(error > tolerances[t]);
            if (ossa__rotation_within_tolerance(r, v, tolerances[t], radius) != want)
                fail_msg("pair %d: error %.9g at tolerance %.9g: the check says %s", i, (double)error,
                         (double)tolerances[t], want ? "above" : "within");
            passed += want, ++checked;
        }
    }
    print_message("rotation check: %zu tolerances, %zu within\n", checked, passed);
    /* Both answers came up, at the pairs' own errors (within) and a step below (above). */
    assert_true(passed > checked / 2 && passed < checked);
}

/* Loosening's slack bound passes a try at a time only where checking it exactly would pass it
 * too, so a build with it is the same bytes as a build that checks every try at every time,
 * and it does pass some of the tries' times (pab walk at 0.1 and 1 mm, atlas at 1 mm). */
static void test_loosening_slack_changes_nothing(void **state)
{
    (void)state;
    static const struct {
        const char *clip;
        float tolerance;
    } cases[] = {{"pab_walk_raw.ozz", .0001f}, {"pab_walk_raw.ozz", .001f}, {"pab_atlas_raw.ozz", .001f}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        ossa_import_output out = {0};
        import_pab_clip(cases[c].clip, &out);
        const ossa_animation_build_desc desc = {
            .skeleton = &out.skeleton, .tolerance = cases[c].tolerance, .threads = 1};
        ossa_blob with, without;
        ossa_animation anim;
        const size_t before = atomic_load(&ossa__loosen_slack_passes);
        build_view(&out.animations[0], &desc, &with, &anim);
        const size_t passed = atomic_load(&ossa__loosen_slack_passes) - before;
        atomic_store(&ossa__loosen_by_slack, false);
        build_view(&out.animations[0], &desc, &without, &anim);
        atomic_store(&ossa__loosen_by_slack, true);
        assert_int_equal(atomic_load(&ossa__loosen_slack_passes) - before, passed); /* none without it */
        print_message("%s at %.1f mm: %zu bytes with the slack, %zu without; %zu tries' times passed by it\n",
                      cases[c].clip, (double)cases[c].tolerance * 1e3, with.size, without.size, passed);
        assert_true(passed > 0);
        assert_int_equal(with.size, without.size);
        assert_memory_equal(with.data, without.data, with.size);
        ossa_blob_destroy(&with), ossa_blob_destroy(&without);
        ossa_import_output_destroy(&out);
    }
}

/* An error-bounded build stores sub-tracks at the skeleton's rest pose as nothing: the
 * sampling job needs the rest pose then (its own error code without), and returns it. */
/* ossa_animation_keys reports a lossless sub-track's own key times plus the keys every
 * segment forces (its first time point and the clip's last): translation keys at frames
 * 0, 5, 17 and 39 of a 40-time-point clip come back at 0, 5, 16, 17, 32 and 39. */
static void test_key_positions(void **state)
{
    (void)state;
    ossa_raw_animation raw = {0};
    assert_int_equal(ossa_raw_animation_create(&raw, 1, NULL), OSSA_OK);
    raw.duration = 39.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 0, 4, 40, 0), OSSA_OK);
    static const int own[4] = {0, 5, 17, 39};
    for (int k = 0; k < 4; ++k)
        raw.tracks[0].translations[k] = (ossa_raw_float3_key){(float)own[k], {(float)(k * k), 0.f, 1.f}};
    for (int f = 0; f < 40; ++f)
        raw.tracks[0].rotations[f] =
            (ossa_raw_quat_key){(float)f, {0.f, sinf(.01f * (float)(f * f)), 0.f, cosf(.01f * (float)(f * f))}};
    ossa_blob blob;
    ossa_animation anim;
    build_view(&raw, &(ossa_animation_build_desc){0}, &blob, &anim);
    assert_int_equal(anim.frame_count, 40);
    uint8_t keys[40];
    assert_int_equal(ossa_animation_keys(&anim, 0, 0, keys, sizeof keys), 6);
    static const int want[6] = {0, 5, 16, 17, 32, 39};
    for (int i = 0, w = 0; i < 40; ++i) {
        const bool expected = w < 6 && want[w] == i;
        assert_int_equal(keys[i], expected);
        w += expected;
    }
    assert_int_equal(ossa_animation_keys(&anim, 0, 1, keys, sizeof keys), 40); /* every rotation sample */
    assert_int_equal(ossa_animation_keys(&anim, 0, 2, keys, sizeof keys), 0);  /* scale: default */
    assert_int_equal(ossa_animation_keys(&anim, 0, 0, keys, 39), 0);           /* too small */
    assert_int_equal(ossa_animation_keys(&anim, 1, 0, keys, sizeof keys), 0);  /* no such joint */
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
}

static void test_rest_pose_sub_tracks(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    import_pab_clip("pab_walk_raw.ozz", &out);
    const ossa_animation_build_desc desc = {.skeleton = &out.skeleton, .tolerance = .0001f};
    ossa_blob blob;
    ossa_animation anim;
    build_view(&out.animations[0], &desc, &blob, &anim);
    assert_true(anim.rest_count > 0);
    ossa_soa_transform *rest = rest_soa(&out.skeleton);
    const size_t ctx_size = ossa_sampling_context_size(anim.track_count);
    void *mem = aligned_zero(ctx_size);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, anim.track_count);
    ossa_soa_transform *pose = aligned_zero(anim.soa_count * sizeof *pose);
    memset(pose, 0xab, anim.soa_count * sizeof *pose);
    ossa_sampling_job job = {&anim, ctx, .4f, pose, anim.soa_count, NULL, 0};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_NO_REST_POSE);
    job.rest_pose = rest, job.rest_pose_count = anim.soa_count - 1;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_NO_REST_POSE);
    /* a rest pose that is not 16-byte aligned (its SoA lanes are loaded four at a time) */
    uint8_t *shifted = aligned_zero(anim.soa_count * sizeof *rest + 16);
    for (size_t off = 4; off < 16; off += 4) {
        memcpy(shifted + off, rest, anim.soa_count * sizeof *rest);
        job.rest_pose = (const ossa_soa_transform *)(const void *)(shifted + off), job.rest_pose_count = anim.soa_count;
        assert_int_equal(ossa_sampling_job_validate(&job), OSSA_ERROR_MISALIGNED);
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_ERROR_MISALIGNED);
    }
    free(shifted);
    job.rest_pose = rest, job.rest_pose_count = anim.soa_count - 1;
    for (size_t i = 0; i < anim.soa_count * sizeof *pose; ++i) assert_int_equal(((uint8_t *)pose)[i], 0xab);
    job.rest_pose_count = anim.soa_count;
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    size_t checked = 0;
    for (size_t j = 0; j < anim.track_count; ++j) {
        const ossa_transform got = ossa_soa_transform_get(&pose[j / 4], (int)(j % 4));
        const ossa_transform want = ossa_soa_transform_get(&rest[j / 4], (int)(j % 4));
        if (ossa_animation_channel_kind(&anim, j, 0) == 3) {
            assert_memory_equal(&got.translation, &want.translation, sizeof got.translation);
            ++checked;
        }
        if (ossa_animation_channel_kind(&anim, j, 1) == 3) {
            assert_memory_equal(&got.rotation, &want.rotation, sizeof got.rotation);
            ++checked;
        }
    }
    assert_int_equal(checked > 0, 1);
    free(mem), free(pose), free(rest);
    ossa_blob_destroy(&blob);
    ossa_import_output_destroy(&out);
}

/* Encoding threads share the work, not the decisions: the blob is the same byte for byte, and
 * so are the verification's figures (its times are shared among the threads too: each joint's
 * largest error and the first time it is reached are those of one pass). */
static void test_threads_same_blob(void **state)
{
    (void)state;
    const char *wrapper = getenv("MESON_EXE_WRAPPER");
    if (wrapper && strstr(wrapper, "qemu")) { /* threads hang under qemu-user (the AArch64 tests); wine runs them */
        print_message("skipped: threads under qemu-user (MESON_EXE_WRAPPER is %s)\n", wrapper);
        skip();
    }
    /* jog at 0.1 mm; atlas at 1 mm, whose loosening the threads share (share_hierarchy). */
    static const struct {
        const char *clip;
        float tolerance;
    } cases[] = {{"pab_jog_raw.ozz", .0001f}, {"pab_atlas_raw.ozz", .001f}};
    for (size_t c = 0; c < sizeof cases / sizeof *cases; ++c) {
        ossa_import_output out = {0};
        import_pab_clip(cases[c].clip, &out);
        ossa_diag diag = {0};
        ossa_blob blobs[3] = {{0}};
        ossa_animation_build_stats stats[3] = {{0}};
        const unsigned threads[3] = {1, 2, 5};
        for (int i = 0; i < 3; ++i) {
            const ossa_animation_build_desc desc = {
                .skeleton = &out.skeleton, .tolerance = cases[c].tolerance, .threads = threads[i], .stats = &stats[i]};
            assert_int_equal(ossa_animation_build(&out.animations[0], &desc, &blobs[i], &diag), OSSA_OK);
        }
        for (int i = 1; i < 3; ++i) {
            assert_int_equal(blobs[i].size, blobs[0].size);
            assert_memory_equal(blobs[i].data, blobs[0].data, blobs[0].size);
            assert_true(stats[i].max_error == stats[0].max_error);
            assert_true(stats[i].error_ratio == stats[0].error_ratio);
            assert_int_equal(stats[i].worst_joint, stats[0].worst_joint);
            assert_true(stats[i].worst_time == stats[0].worst_time);
        }
        assert_true(stats[0].max_error > 0.f && stats[0].error_ratio <= 1.f);
        for (int i = 0; i < 3; ++i) ossa_blob_destroy(&blobs[i]);
        ossa_import_output_destroy(&out);
    }
}

/* A counting allocator: live and peak bytes (a 64-byte header holds each block's size; blocks
 * are 16-byte aligned, what ossa_allocator asks for), and with a limit (0: none) NULL for an
 * allocation that would take the live bytes above it. The builder's threads allocate too. */
typedef struct counting {
    size_t live, peak, limit;
    pthread_mutex_t lock;
} counting;
#define COUNTING_INIT                                                                                                  \
    {                                                                                                                  \
        0, 0, 0, PTHREAD_MUTEX_INITIALIZER                                                                             \
    }

static void *counting_alloc(size_t size, void *user)
{
    counting *c = user;
    pthread_mutex_lock(&c->lock);
    const bool refused = c->limit && c->live + size > c->limit;
    unsigned char *p = refused ? NULL : aligned_alloc(16, (size + 64 + 15) / 16 * 16);
    if (p) {
        memcpy(p, &size, sizeof size);
        c->live += size;
        if (c->live > c->peak) c->peak = c->live;
    }
    pthread_mutex_unlock(&c->lock);
    return p ? p + 64 : NULL;
}

static void counting_free(void *ptr, void *user)
{
    if (!ptr) return;
    counting *c = user;
    unsigned char *p = (unsigned char *)ptr - 64;
    size_t size;
    memcpy(&size, p, sizeof size);
    pthread_mutex_lock(&c->lock);
    c->live -= size;
    pthread_mutex_unlock(&c->lock);
    free(p);
}

/* ---- isolated joints and the key cursors ---- */

/* `count` roots without children, 2 s at 24 Hz, every frame a key: joint 0 (when `spinner`)
 * turns 120 degrees per frame about a fixed axis, the others sway a few degrees and drift a
 * few centimetres. */
static void make_boxes(ossa_raw_skeleton *skel, ossa_raw_animation *raw, size_t count, bool spinner)
{
    enum { FRAMES = 49 };
    assert_int_equal(ossa_raw_skeleton_create(skel, count, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_create(raw, count, NULL), OSSA_OK);
    raw->duration = 2.f;
    for (size_t j = 0; j < count; ++j) {
        char name[32]; /* "box" and any size_t */
        snprintf(name, sizeof name, "box%zu", j);
        assert_int_equal(ossa_raw_skeleton_set_name(skel, j, name), OSSA_OK);
        skel->joints[j].parent = -1;
        skel->joints[j].rest = ossa_transform_identity();
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, FRAMES, FRAMES, 0), OSSA_OK);
        ossa_raw_joint_track *t = &raw->tracks[j];
        const float fj = (float)j;
        for (size_t f = 0; f < FRAMES; ++f) {
            const float time = (float)f / 24.f;
            const float angle = j == 0 && spinner ? 2.0943951f * (float)f : .05f * sinf(3.f * time + fj);
            const float half = .5f * angle, axis_len = sqrtf(1.f + .25f + .04f);
            t->rotations[f] = (ossa_raw_quat_key){
                time, {sinf(half) / axis_len, .5f * sinf(half) / axis_len, .2f * sinf(half) / axis_len, cosf(half)}};
            t->translations[f] = (ossa_raw_float3_key){time, {fj, .02f * sinf(2.f * time + fj), .01f * time}};
        }
    }
}

static size_t counted_peak(const ossa_raw_animation *raw, const ossa_animation_build_desc *base);
static void make_chain(ossa_raw_skeleton *skel, size_t joints);
static void make_held_clip(ossa_raw_animation *raw, size_t joints, size_t frames, size_t translation_keys, bool moving);

/* The largest thread count a test may build with: 1 under qemu-user (the AArch64 tests), whose
 * threads hang in the encoder; wine (the Windows tests) runs them. */
static unsigned most_threads(unsigned wanted)
{
    const char *wrapper = getenv("MESON_EXE_WRAPPER");
    if (wrapper && strstr(wrapper, "qemu")) {
        print_message("threads under qemu-user (MESON_EXE_WRAPPER is %s): 1 thread only\n", wrapper);
        return 1;
    }
    return wanted;
}

/* A physics bake's joints are roots: the reference keeps each one's rotation at the measured
 * times (16 B) and rebuilds its points from it, where it kept the four points (48 B). The
 * counted peak stays within the estimate, which counts the 16 B (the 48 B would put it about
 * a megabyte above), and the blob is the same on 1 and 3 threads (the reference rows made by
 * whichever thread measures a time first). */
static void test_roots_reference_keeps_rotations(void **state)
{
    (void)state;
    enum { BOXES = 256 };
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_boxes(&skel, &raw, BOXES, false);
    ossa_blob blobs[2] = {{0}, {0}};
    const int runs = most_threads(3) > 1 ? 2 : 1;
    for (int t = 0; t < runs; ++t) {
        ossa_animation_build_stats stats = {0};
        const ossa_animation_build_desc desc = {
            .skeleton = &skel, .tolerance = 1e-4f, .threads = t ? 3u : 1u, .stats = &stats};
        const size_t estimate = ossa_animation_build_memory(&raw, &desc);
        const size_t peak = counted_peak(&raw, &desc);
        print_message("%d thread(s): estimate %zu bytes, peak %zu bytes, error ratio %g\n", t ? 3 : 1, estimate, peak,
                      (double)stats.error_ratio);
        assert_true(stats.error_ratio <= 1.f);
        assert_true(peak <= estimate);
        assert_true(peak >= estimate - estimate / 4);
        ossa_animation view;
        build_view(&raw, &desc, &blobs[t], &view);
    }
    if (runs == 2) {
        assert_int_equal(blobs[0].size, blobs[1].size);
        assert_memory_equal(blobs[0].data, blobs[1].data, blobs[0].size);
    }
    ossa_blob_destroy(&blobs[0]), ossa_blob_destroy(&blobs[1]);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* Builds `raw` through a counting allocator limited to `limit` bytes (0: none); the blob (if
 * any) into `blob`, the result returned, and nothing left allocated but the blob. */
static ossa_result limited_build(const ossa_raw_animation *raw, const ossa_animation_build_desc *base, size_t limit,
                                 ossa_blob *blob)
{
    counting c = COUNTING_INIT;
    c.limit = limit;
    const ossa_allocator counted = {counting_alloc, counting_free, &c};
    ossa_animation_build_desc desc = *base;
    desc.allocator = &counted;
    ossa_diag diag = {0};
    const ossa_result r = ossa_animation_build(raw, &desc, blob, &diag);
    assert_int_equal(c.live, r == OSSA_OK ? blob->size : 0);
    if (r != OSSA_OK) assert_null(blob->data);
    return r;
}

/* Out of memory anywhere in a build, the reference rows made in the encoding threads included:
 * on one thread any limit below the peak fails with OSSA_ERROR_OUT_OF_MEMORY and frees all; on
 * three (whose peak depends on the threads' order) a build either fails so or gives the blob of
 * an unlimited one. Roots (isolated boxes) and a chain (which is loosened from its poses). */
static void test_out_of_memory_anywhere(void **state)
{
    (void)state;
    ossa_raw_skeleton boxes_skel = {0}, chain_skel = {0};
    ossa_raw_animation boxes = {0}, chain = {0};
    make_boxes(&boxes_skel, &boxes, 16, false);
    make_chain(&chain_skel, 8);
    make_held_clip(&chain, 8, 120, 120, true);
    const ossa_raw_animation *clips[2] = {&boxes, &chain};
    const ossa_raw_skeleton *skels[2] = {&boxes_skel, &chain_skel};
    for (int i = 0; i < 2; ++i)
        for (unsigned threads = 1; threads <= most_threads(3); threads += 2) {
            const ossa_animation_build_desc desc = {.skeleton = skels[i], .tolerance = 1e-4f, .threads = threads};
            ossa_blob whole = {0};
            assert_int_equal(limited_build(clips[i], &desc, 0, &whole), OSSA_OK);
            const size_t peak = counted_peak(clips[i], &desc) + whole.size;
            for (size_t k = 0; k < 40; ++k) {
                ossa_blob blob = {0};
                const ossa_result r = limited_build(clips[i], &desc, peak * k / 40 + 1, &blob);
                if (threads == 1) assert_int_equal(r, OSSA_ERROR_OUT_OF_MEMORY);
                if (r == OSSA_OK) {
                    assert_int_equal(blob.size, whole.size);
                    assert_memory_equal(blob.data, whole.data, whole.size);
                } else {
                    assert_int_equal(r, OSSA_ERROR_OUT_OF_MEMORY);
                }
                ossa_blob_destroy(&blob);
            }
            ossa_blob_destroy(&whole);
        }
    ossa_raw_animation_destroy(&boxes), ossa_raw_animation_destroy(&chain);
    ossa_raw_skeleton_destroy(&boxes_skel), ossa_raw_skeleton_destroy(&chain_skel);
}

/* An exactly constant scale other than 1 (a rigid body's, scaled at its creation) is stored
 * as a constant, never as keys: the builder gives such a sub-track no key arrays. Its value
 * decodes exactly, lossless and error-bounded; and with scales whose product along a chain
 * overflows (a radius that is not finite, where the hold error is NaN), the build still
 * stores it as a constant and finishes. */
static void test_constant_scale_never_keyed(void **state)
{
    (void)state;
    enum { BOXES = 4 };
    for (int chain = 0; chain < 2; ++chain) {
        ossa_raw_skeleton skel = {0};
        ossa_raw_animation raw = {0};
        make_boxes(&skel, &raw, BOXES, false);
        const float scale = chain ? 1e20f : 2.5f;
        for (size_t j = 0; j < BOXES; ++j) {
            ossa_raw_joint_track *t = &raw.tracks[j];
            const size_t frames = t->rotation_count;
            /* Resizing does not keep the keys: they are copied around it. */
            ossa_raw_float3_key *translations = malloc(frames * sizeof *translations);
            ossa_raw_quat_key *rotations = malloc(frames * sizeof *rotations);
            assert_non_null(translations), assert_non_null(rotations);
            memcpy(translations, t->translations, frames * sizeof *translations);
            memcpy(rotations, t->rotations, frames * sizeof *rotations);
            assert_int_equal(ossa_raw_joint_track_resize(&raw, j, frames, frames, frames), OSSA_OK);
            t = &raw.tracks[j];
            memcpy(t->translations, translations, frames * sizeof *translations);
            memcpy(t->rotations, rotations, frames * sizeof *rotations);
            free(translations), free(rotations);
            for (size_t f = 0; f < frames; ++f)
                t->scales[f] = (ossa_raw_float3_key){t->rotations[f].time, {scale, scale, scale}};
            if (chain) skel.joints[j].parent = (int32_t)j - 1;
        }
        for (int bounded = 0; bounded < 2; ++bounded) {
            const ossa_animation_build_desc desc = {.skeleton = &skel, .tolerance = bounded ? 1e-4f : 0.f};
            ossa_blob blob = {0};
            ossa_animation anim;
            build_view(&raw, &desc, &blob, &anim);
            const size_t ctx_size = ossa_sampling_context_size(BOXES);
            void *ctx_mem = aligned_zero(ctx_size);
            ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, BOXES);
            ossa_soa_transform *soa = aligned_zero(anim.soa_count * sizeof *soa);
            ossa_soa_transform *rest = rest_soa(&skel);
            ossa_transform local[BOXES];
            for (float time = 0.f; time <= raw.duration; time += .37f) {
                sample_runtime(&anim, ctx, soa, time, local, rest);
                for (size_t j = 0; j < BOXES; ++j) {
                    assert_true(local[j].scale.x == scale);
                    assert_true(local[j].scale.y == scale && local[j].scale.z == scale);
                }
            }
            free(ctx_mem), free(soa), free(rest);
            ossa_blob_destroy(&blob);
        }
        ossa_raw_animation_destroy(&raw);
        ossa_raw_skeleton_destroy(&skel);
    }
}

/* A physics bake of rigid bodies (every joint a root without children; a failing encoding
 * is then measured per joint, see tighten_failing in animation_search.c) where one body
 * spins 120 degrees per frame: its error lies between frames, where only the second pass's
 * midpoint checks help. The bound holds at every joint in ossa_measure_error's own
 * measurement, and the blob is the same on 1 and 2 threads (each thread measures a share of
 * the times; the per-joint ratios are their maxima). */
static void test_isolated_joints_bound_and_threads(void **state)
{
    (void)state;
    enum { BOXES = 16 };
    for (int spinner = 0; spinner < 2; ++spinner) {
        ossa_raw_skeleton skel = {0};
        ossa_raw_animation raw = {0};
        make_boxes(&skel, &raw, BOXES, spinner);
        ossa_blob blobs[2] = {{0}, {0}};
        for (unsigned threads = 1; threads <= (getenv("MESON_EXE_WRAPPER") ? 1u : 2u); ++threads) {
            ossa_animation_build_stats stats = {0};
            const ossa_animation_build_desc desc = {
                .skeleton = &skel, .tolerance = 1e-4f, .stats = &stats, .threads = threads};
            ossa_animation anim;
            build_view(&raw, &desc, &blobs[threads - 1], &anim);
            assert_true(stats.error_ratio <= 1.f);
            if (threads == 2) {
                assert_int_equal(blobs[1].size, blobs[0].size);
                assert_memory_equal(blobs[1].data, blobs[0].data, blobs[0].size);
                continue;
            }
            ossa_blob skel_blob = {0};
            ossa_skeleton runtime_skel;
            assert_int_equal(ossa_skeleton_build(&skel, NULL, &skel_blob, NULL), OSSA_OK);
            assert_int_equal(ossa_skeleton_init(&runtime_skel, skel_blob.data, skel_blob.size), OSSA_OK);
            float joint_max[BOXES];
            const ossa_error_desc measure = {.shell_distance = SHELL_M, .source_times = 1};
            assert_int_equal(ossa_measure_joint_errors(&runtime_skel, &raw, &anim, &measure, joint_max, BOXES, NULL),
                             OSSA_OK);
            for (size_t j = 0; j < BOXES; ++j) assert_true(joint_max[j] <= 1e-4f);
            print_message("%s: %zu bytes, %zu keys, %zu evaluations\n", spinner ? "with the spinner" : "without",
                          blobs[0].size, anim.key_count, stats.evaluations);
            ossa_blob_destroy(&skel_blob);
        }
        ossa_blob_destroy(&blobs[0]), ossa_blob_destroy(&blobs[1]);
        ossa_raw_animation_destroy(&raw);
        ossa_raw_skeleton_destroy(&skel);
    }
}

/* The builder samples the raw clip in passes of ascending times with a cursor per channel
 * (ossa__raw_animation_sample_pass): the same floats as ossa_raw_animation_sample, at key
 * times, between keys, before the first and after the last, also when a time goes back (the
 * cursor then falls back to the binary search) or jumps far ahead. */
static void test_sample_pass_matches_sample(void **state)
{
    (void)state;
    ossa_raw_animation raw = {0};
    assert_int_equal(ossa_raw_animation_create(&raw, 3, NULL), OSSA_OK);
    raw.duration = 3.f;
    const size_t counts[3][3] = {{40, 7, 0}, {1, 25, 3}, {0, 0, 60}};
    for (size_t j = 0; j < 3; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(&raw, j, counts[j][0], counts[j][1], counts[j][2]), OSSA_OK);
        ossa_raw_joint_track *t = &raw.tracks[j];
        /* Irregular key times inside (0.1, 2.9). */
        for (size_t k = 0; k < t->translation_count; ++k) {
            const float time = .1f + 2.8f * powf((float)(k + 1) / (float)(t->translation_count + 1), 1.3f);
            t->translations[k] = (ossa_raw_float3_key){time, {sinf((float)k), cosf((float)k), (float)k}};
        }
        for (size_t k = 0; k < t->rotation_count; ++k) {
            const float time = .1f + 2.8f * powf((float)(k + 1) / (float)(t->rotation_count + 1), .8f);
            t->rotations[k] = (ossa_raw_quat_key){time, {sinf(.3f * (float)k), 0.f, 0.f, cosf(.3f * (float)k)}};
        }
        for (size_t k = 0; k < t->scale_count; ++k) {
            const float time = .1f + 2.8f * (float)(k + 1) / (float)(t->scale_count + 1);
            t->scales[k] = (ossa_raw_float3_key){time, {1.f + .01f * (float)k, 1.f, 1.f}};
        }
    }
    assert_int_equal(ossa_raw_animation_validate(&raw, NULL), OSSA_OK);
    size_t cursors[9] = {0};
    ossa_transform pass[3], once[3];
    size_t checked = 0;
    for (int round = 0; round < 2; ++round)
        for (size_t i = 0; i <= 400; ++i) {
            /* Ascending, then a second round that starts over and skips ahead in big steps. */
            const float t = round == 0 ? -.1f + 3.2f * (float)i / 400.f : 3.2f * (float)((i * 37) % 401) / 400.f;
            memset(pass, 0xA5, sizeof pass);
            ossa__raw_animation_sample_pass(&raw, t, pass, cursors);
            assert_int_equal(ossa_raw_animation_sample(&raw, t, once, 3), OSSA_OK);
            assert_memory_equal(pass, once, sizeof pass);
            ++checked;
        }
    for (size_t j = 0; j < 3; ++j) {
        const ossa_raw_joint_track *t = &raw.tracks[j];
        for (size_t k = 0; k < t->rotation_count; ++k) {
            ossa__raw_animation_sample_pass(&raw, t->rotations[k].time, pass, cursors);
            assert_int_equal(ossa_raw_animation_sample(&raw, t->rotations[k].time, once, 3), OSSA_OK);
            assert_memory_equal(pass, once, sizeof pass);
        }
    }
    assert_int_equal(checked, 802);
    ossa_raw_animation_destroy(&raw);
}

/* ossa__source_key_times skips a channel whose key times are those of the channel collected
 * just before (a dense clip's channels share one list): the distinct times, ascending, are
 * the same as a brute-force union's, with channels that share lists, differ in one time,
 * differ in length, and come back after a different one. */
static void test_source_key_times_union(void **state)
{
    (void)state;
    ossa_raw_animation raw = {0};
    enum { TRACKS = 5 };
    assert_int_equal(ossa_raw_animation_create(&raw, TRACKS, NULL), OSSA_OK);
    raw.duration = 2.f;
    const size_t counts[TRACKS][3] = {{9, 9, 9}, {9, 9, 0}, {8, 9, 9}, {9, 1, 9}, {9, 9, 9}};
    float expected[3 * 9 * TRACKS];
    size_t n = 0;
    for (size_t j = 0; j < TRACKS; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(&raw, j, counts[j][0], counts[j][1], counts[j][2]), OSSA_OK);
        ossa_raw_joint_track *t = &raw.tracks[j];
        for (size_t k = 0; k < t->translation_count; ++k)
            t->translations[k] = (ossa_raw_float3_key){.25f * (float)k, {0.f, 0.f, 0.f}};
        for (size_t k = 0; k < t->rotation_count; ++k)
            t->rotations[k] = (ossa_raw_quat_key){.25f * (float)k, {0.f, 0.f, 0.f, 1.f}};
        for (size_t k = 0; k < t->scale_count; ++k)
            t->scales[k] = (ossa_raw_float3_key){.25f * (float)k, {1.f, 1.f, 1.f}};
    }
    raw.tracks[2].rotations[4].time = 1.1f;  /* one time differs from the shared list */
    raw.tracks[3].rotations[0].time = 1.95f; /* a one-key list between two equal ones */
    raw.tracks[4].scales[8].time = 1.9f;     /* the last differs */
    for (size_t j = 0; j < TRACKS; ++j) {
        const ossa_raw_joint_track *t = &raw.tracks[j];
        for (size_t k = 0; k < t->translation_count; ++k) expected[n++] = t->translations[k].time;
        for (size_t k = 0; k < t->rotation_count; ++k) expected[n++] = t->rotations[k].time;
        for (size_t k = 0; k < t->scale_count; ++k) expected[n++] = t->scales[k].time;
    }
    assert_true(n <= 3 * 9 * TRACKS);
    qsort(expected, n, sizeof *expected, ossa__compare_floats);
    size_t distinct = 0;
    for (size_t i = 0; i < n; ++i)
        if (distinct == 0 || expected[i] != expected[distinct - 1]) expected[distinct++] = expected[i];
    assert_int_equal(ossa_raw_animation_validate(&raw, NULL), OSSA_OK);
    size_t count = 0;
    float *times = ossa__source_key_times(&raw, NULL, &count);
    assert_non_null(times);
    assert_int_equal(count, distinct);
    assert_int_equal(count, 12); /* 0 to 2 by 0.25, plus 1.1, 1.9 and 1.95 */
    assert_memory_equal(times, expected, count * sizeof *times);
    free(times);
    ossa_raw_animation_destroy(&raw);
}

/* ---- resource estimates ---- */

static void make_chain(ossa_raw_skeleton *skel, size_t joints);

/* A chain of `joints` whose root swings about y through `frames` keys `spacing` seconds apart
 * (a BVH with Frame Time 1000 is such a clip); the other joints hold their bone. */
static void make_sparse_clip(ossa_raw_animation *raw, size_t joints, size_t frames, float spacing)
{
    assert_int_equal(ossa_raw_animation_create(raw, joints, NULL), OSSA_OK);
    raw->duration = (float)(frames - 1) * spacing;
    assert_int_equal(ossa_raw_joint_track_resize(raw, 0, frames, frames, 1), OSSA_OK);
    for (size_t f = 0; f < frames; ++f) {
        const float a = .3f * (float)f;
        raw->tracks[0].translations[f] = (ossa_raw_float3_key){(float)f * spacing, {.1f * (float)f, 1.f, 0.f}};
        raw->tracks[0].rotations[f] = (ossa_raw_quat_key){(float)f * spacing, {0.f, sinf(a), 0.f, cosf(a)}};
    }
    raw->tracks[0].scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    for (size_t j = 1; j < joints; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, 1, 1, 1), OSSA_OK);
        raw->tracks[j].translations[0] = (ossa_raw_float3_key){0.f, {0.f, .4f, 0.f}};
        raw->tracks[j].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        raw->tracks[j].scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

/* Builds `raw` through a counting allocator; returns the peak it allocated besides the blob. */
static size_t counted_peak(const ossa_raw_animation *raw, const ossa_animation_build_desc *base)
{
    counting c = COUNTING_INIT;
    const ossa_allocator counted = {counting_alloc, counting_free, &c};
    ossa_animation_build_desc desc = *base;
    desc.allocator = &counted;
    ossa_blob blob = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_build(raw, &desc, &blob, &diag), OSSA_OK);
    const size_t peak = c.peak - blob.size; /* the blob is the caller's */
    ossa_blob_destroy(&blob);
    assert_int_equal(c.live, 0);
    return peak;
}

/* A chain of `joints` at 60 Hz for `frames` keys whose rotations swing; translations hold
 * (0, 0.4, 0) through the first `translation_keys` of those times (every other one written as
 * -0, which == 0),
 * moving up by 1 mm a frame instead with `moving`; scales hold 1 through as many keys. */
static void make_held_clip(ossa_raw_animation *raw, size_t joints, size_t frames, size_t translation_keys, bool moving)
{
    assert_int_equal(ossa_raw_animation_create(raw, joints, NULL), OSSA_OK);
    raw->duration = (float)(frames - 1) / 60.f;
    for (size_t j = 0; j < joints; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, translation_keys, frames, translation_keys), OSSA_OK);
        ossa_raw_joint_track *t = &raw->tracks[j];
        for (size_t f = 0; f < frames; ++f) {
            const float a = .02f * (float)(f * (j + 1));
            t->rotations[f] = (ossa_raw_quat_key){(float)f / 60.f, {0.f, sinf(a), 0.f, cosf(a)}};
        }
        for (size_t f = 0; f < translation_keys; ++f) {
            const float time = (float)f / 60.f; /* the rotations' times */
            const float zero = f % 2 ? -0.f : 0.f, y = moving ? .4f + 1e-3f * (float)f : .4f;
            t->translations[f] = (ossa_raw_float3_key){time, {zero, y, zero}};
            t->scales[f] = (ossa_raw_float3_key){time, {1.f, 1.f, 1.f}};
        }
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

/* Translations and scales whose keys are all equal are held: the clip samples them once, not
 * at each of the 600 time points, so the build's peak is lower than with moving translations
 * by their samples and key flags (17 B per sub-track and time point) besides the key arrays
 * that a never-keyed sub-track does without (17 B); and the blob is the one a single key of
 * each gives. */
static void test_held_channels_cost_one_row(void **state)
{
    (void)state;
    enum { JOINTS = 8, FRAMES = 600 };
    ossa_raw_skeleton skel = {0};
    make_chain(&skel, JOINTS);
    ossa_raw_animation held = {0}, single = {0}, moving = {0};
    make_held_clip(&held, JOINTS, FRAMES, FRAMES, false);
    make_held_clip(&single, JOINTS, FRAMES, 1, false);
    make_held_clip(&moving, JOINTS, FRAMES, FRAMES, true);
    for (int bounded = 0; bounded < 2; ++bounded) {
        const ossa_animation_build_desc desc = {.skeleton = &skel, .tolerance = bounded ? 1e-4f : 0.f, .threads = 1};
        const size_t peak_held = counted_peak(&held, &desc), peak_moving = counted_peak(&moving, &desc);
        const size_t estimate = ossa_animation_build_memory(&held, &desc);
        print_message("%s: peak %zu bytes held, %zu moving; estimate %zu\n", bounded ? "error-bounded" : "lossless",
                      peak_held, peak_moving, estimate);
        /* The moving translations' samples and flags, and their key arrays (17 B more). */
        assert_true(peak_held + (size_t)JOINTS * FRAMES * 30 <= peak_moving);
        assert_true(peak_held <= estimate);
        assert_true(peak_held >= estimate - estimate / 4);
        ossa_blob a = {0}, b = {0};
        ossa_animation view;
        build_view(&held, &desc, &a, &view);
        build_view(&single, &desc, &b, &view);
        assert_int_equal(a.size, b.size);
        assert_memory_equal(a.data, b.data, a.size);
        ossa_blob_destroy(&a), ossa_blob_destroy(&b);
    }
    ossa_raw_animation_destroy(&held), ossa_raw_animation_destroy(&single), ossa_raw_animation_destroy(&moving);
    ossa_raw_skeleton_destroy(&skel);
}

/* Keys 1000 s apart (40 of them, 39 000 s): the builder's memory follows the keys, not the
 * duration at 60 Hz, whose 1 048 577 fixed-rate samples x 152 B per joint measured 6 GB for a
 * 38-joint BVH. The estimate matches the counted peak, and the error bound still holds at
 * every 60 Hz sample, which the build thinned out. */
static void test_sparse_keys_cost_what_they_hold(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 8);
    make_sparse_clip(&raw, 8, 40, 1000.f);
    for (int bounded = 0; bounded < 2; ++bounded) {
        const ossa_animation_build_desc desc = {
            .skeleton = bounded ? &skel : NULL, .tolerance = bounded ? 1e-3f : 0.f, .threads = 1};
        const size_t estimate = ossa_animation_build_memory(&raw, &desc);
        const size_t peak = counted_peak(&raw, &desc);
        print_message("%s, keys 1000 s apart: estimate %zu bytes, peak %zu bytes\n",
                      bounded ? "error-bounded" : "lossless", estimate, peak);
        /* 40 time points x 24 sub-tracks, and at most 15 measured times between two keys
         * (loosening's local matrices included: about 1.1 MB). */
        assert_true(estimate < ((size_t)3 << 19));
        assert_true(peak <= estimate);
        assert_true(peak >= estimate - estimate / 4);
        assert_true(ossa_animation_build_seconds(&raw, &desc) < .1);
    }
    ossa_blob blob;
    ossa_animation anim;
    build_view(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = 1e-3f}, &blob, &anim);
    ossa_skeleton runtime_skel;
    ossa_blob skel_blob = {0};
    assert_int_equal(ossa_skeleton_build(&skel, NULL, &skel_blob, NULL), OSSA_OK);
    assert_int_equal(ossa_skeleton_init(&runtime_skel, skel_blob.data, skel_blob.size), OSSA_OK);
    ossa_error_report report = {0};
    /* Every 60 Hz sample (without the key times nothing is thinned), which the build did not
     * all measure: the bound holds between its measured times too. */
    const ossa_error_desc dense = {.shell_distance = .03f};
    assert_int_equal(ossa_measure_error(&runtime_skel, &raw, &anim, &dense, &report, NULL), OSSA_OK);
    assert_true(report.sample_count == ossa__fixed_count(ossa__fixed_rate(60.f, raw.duration), raw.duration));
    print_message("keys 1000 s apart, measured at 60 Hz: max %g m (tolerance 1e-3)\n", (double)report.max);
    assert_true(report.max <= 1e-3f);
    /* With the key times, `ossa info`'s measure thins as the builder does: a few samples per
     * 1000 s interval, and the same times give the same figure as the build's. */
    const ossa_error_desc thinned = {.shell_distance = .03f, .source_times = 1};
    assert_int_equal(ossa_measure_error(&runtime_skel, &raw, &anim, &thinned, &report, NULL), OSSA_OK);
    assert_true(report.sample_count < 40 * (OSSA__MAX_FIXED_PER_INTERVAL + 2));
    assert_true(report.max <= 1e-3f);
    ossa_blob_destroy(&skel_blob);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* The time estimate is the documented formula of the counts: lossless, S x T x 300 ns; error-
 * bounded, more with the measured times and the skeleton's depth, and shared among threads. */
static void test_build_seconds_estimate(void **state)
{
    (void)state;
    assert_true(ossa_animation_build_seconds(NULL, NULL) == 0.0);
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 8);
    make_sparse_clip(&raw, 8, 40, 1.f / 30.f);
    /* 40 key times (0 and the duration among them), 24 sub-tracks. */
    assert_true(fabs(ossa_animation_build_seconds(&raw, NULL) - 24.0 * 42.0 * 300e-9) < 1e-12);
    const ossa_animation_build_desc one = {.skeleton = &skel, .tolerance = 1e-3f, .threads = 1};
    const ossa_animation_build_desc two = {.skeleton = &skel, .tolerance = 1e-3f, .threads = 2};
    const double s1 = ossa_animation_build_seconds(&raw, &one), s2 = ossa_animation_build_seconds(&raw, &two);
    assert_true(s1 > ossa_animation_build_seconds(&raw, NULL));
    assert_true(s2 < s1 && s2 > s1 / 2.0);
    /* Twice the keys over twice the time: about twice the work. */
    ossa_raw_animation longer = {0};
    make_sparse_clip(&longer, 8, 80, 1.f / 30.f);
    const double ratio = ossa_animation_build_seconds(&longer, &one) / s1;
    assert_true(ratio > 1.8 && ratio < 2.2);
    ossa_raw_animation_destroy(&longer);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP
static void import_assimp_file(const char *path, const char *shown, const char *hint, ossa_import_output *out)
{
    size_t size;
    void *data = ossa_test_read_or_skip(path, shown, &size);
    ossa_diag diag = {0};
    *out = (ossa_import_output){0};
    if (ossa_import_assimp(data, size, &(ossa_assimp_desc){.format_hint = hint}, out, &diag) != OSSA_OK ||
        ossa_import_output_sort_depth_first(out, &diag) != OSSA_OK)
        fail_msg("%s: %s", shown, diag.message);
    free(data);
    assert_int_equal(out->animation_count, 1);
}

/* The keys of `src` at or before `seconds`, as a clip of that duration. */
static void excerpt(const ossa_raw_animation *src, float seconds, ossa_raw_animation *dst)
{
    assert_int_equal(ossa_raw_animation_create(dst, src->track_count, NULL), OSSA_OK);
    dst->duration = seconds;
    for (size_t j = 0; j < src->track_count; ++j) {
        const ossa_raw_joint_track *s = &src->tracks[j];
        size_t nt = 0, nr = 0, ns = 0;
        while (nt < s->translation_count && s->translations[nt].time <= seconds) ++nt;
        while (nr < s->rotation_count && s->rotations[nr].time <= seconds) ++nr;
        while (ns < s->scale_count && s->scales[ns].time <= seconds) ++ns;
        assert_int_equal(ossa_raw_joint_track_resize(dst, j, nt, nr, ns), OSSA_OK);
        memcpy(dst->tracks[j].translations, s->translations, nt * sizeof *s->translations);
        memcpy(dst->tracks[j].rotations, s->rotations, nr * sizeof *s->rotations);
        memcpy(dst->tracks[j].scales, s->scales, ns * sizeof *s->scales);
    }
    assert_int_equal(ossa_raw_animation_validate(dst, NULL), OSSA_OK);
}

static void test_real_cmu_01_01(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    const char *path = ossa_test_assimp_path("BVH/01_01.bvh"); /* a static buffer: shown as is */
    import_assimp_file(path, path, "bvh", &out);
    ossa_raw_animation part = {0};
    excerpt(&out.animations[0], EXCERPT_SECS, &part);
    const bool ok = bake_clip("01_01[0,5s]", &out.skeleton, &part, CMU_UNIT, all_tolerances, 3);
    ossa_raw_animation_destroy(&part);
    ossa_import_output_destroy(&out);
    assert_true(ok);
}

static void test_real_cesium_man(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    import_assimp_file(ossa_test_shared_path("gltf/cesium_man.gltf"), "DATA/gltf/cesium_man.gltf", "gltf", &out);
    const bool ok = bake_clip("cesium_man", &out.skeleton, &out.animations[0], 1.f, all_tolerances, 3);
    ossa_import_output_destroy(&out);
    assert_true(ok);
}

/* ossa_animation_build_memory against the peak the builder really allocates, lossless and
 * error-bounded, on five seconds of CMU 01_01 (38 joints, 600 key times). */
static void test_build_memory_estimate(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    const char *path = ossa_test_assimp_path("BVH/01_01.bvh");
    import_assimp_file(path, path, "bvh", &out);
    ossa_raw_animation part = {0};
    excerpt(&out.animations[0], EXCERPT_SECS, &part);
    for (int bounded = 0; bounded < 2; ++bounded) {
        counting c = COUNTING_INIT;
        const ossa_allocator counted = {counting_alloc, counting_free, &c};
        const ossa_animation_build_desc desc = {.skeleton = bounded ? &out.skeleton : NULL,
                                                .tolerance = bounded ? 1e-4f / CMU_UNIT : 0.f,
                                                .unit_scale = CMU_UNIT,
                                                .allocator = &counted,
                                                .threads = 1};
        const size_t estimate = ossa_animation_build_memory(&part, &desc);
        ossa_blob blob = {0};
        ossa_diag diag = {0};
        assert_int_equal(ossa_animation_build(&part, &desc, &blob, &diag), OSSA_OK);
        const size_t peak = c.peak - blob.size; /* the blob is the caller's */
        print_message("%s: estimate %zu bytes, peak %zu bytes\n", bounded ? "error-bounded" : "lossless", estimate,
                      peak);
        assert_true(peak <= estimate);
        assert_true(peak >= estimate - estimate / 4);
        ossa_blob_destroy(&blob);
        assert_int_equal(c.live, 0);
    }
    assert_int_equal(ossa_animation_build_memory(NULL, NULL), 0);
    ossa_raw_animation_destroy(&part);
    ossa_import_output_destroy(&out);
}

/* A tolerance no encoding reaches: the build keeps the finest encoding and never loosens it,
 * so it never holds the 88 B per joint and measured time of poses and matrices that the
 * estimate keeps for loosening (the measured times are at least the 600 key times). */
static void test_unreached_tolerance_holds_no_poses(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    const char *path = ossa_test_assimp_path("BVH/01_01.bvh");
    import_assimp_file(path, path, "bvh", &out);
    ossa_raw_animation part = {0};
    excerpt(&out.animations[0], EXCERPT_SECS, &part);
    ossa_animation_build_stats stats = {0};
    const ossa_animation_build_desc desc = {.skeleton = &out.skeleton,
                                            .tolerance = 1e-9f / CMU_UNIT,
                                            .unit_scale = CMU_UNIT,
                                            .stats = &stats,
                                            .threads = 1};
    const size_t estimate = ossa_animation_build_memory(&part, &desc);
    const size_t peak = counted_peak(&part, &desc);
    print_message("unreached tolerance: estimate %zu bytes, peak %zu bytes, error ratio %g\n", estimate, peak,
                  (double)stats.error_ratio);
    assert_true(stats.error_ratio > 1.f);
    assert_true(peak + part.track_count * 600 * 88 <= estimate);
    /* Every measure fails early, so the reference rows after that time are never made: the
     * whole peak is below what the rows of the excerpt's 600 key times would hold (48 B per
     * joint but the root). */
    assert_true(peak < (part.track_count - 1) * 600 * 48);
    ossa_raw_animation_destroy(&part);
    ossa_import_output_destroy(&out);
}

/* Blender's FBX armatures: centimetres, the armature object scaled by 100 and 36 m from the
 * origin, so a bone's local error counts 100 times in model space. The bound must hold in
 * model space all the same, and assimp's pivot helpers must not appear as joints. */
static void test_real_blender_fbx(void **state)
{
    (void)state;
    static const char *const files[] = {"FBX/animation_with_skeleton.fbx", "FBX/huesitos.fbx"};
    static const float tolerance[] = {1e-4f};
    bool ok = true;
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) {
        ossa_import_output out = {0};
        const char *path = ossa_test_assimp_path(files[i]);
        import_assimp_file(path, path, "fbx", &out);
        for (size_t j = 0; j < out.skeleton.joint_count; ++j)
            assert_null(strstr(out.skeleton.joints[j].name, "$AssimpFbx$"));
        char unit[32];
        assert_true(ossa_import_output_metadata(&out, "unit_scale", unit, sizeof unit));
        ok = bake_clip(files[i], &out.skeleton, &out.animations[0], strtof(unit, NULL), tolerance, 1) && ok;
        ossa_import_output_destroy(&out);
    }
    assert_true(ok);
}
#endif

/* ---- lossless round trip ---- */

#define TICKS 4096 /* key times are ticks of duration / TICKS: distinct ticks are distinct time points */

static ossa_float3 rand3(uint32_t *rng, float lo, float hi)
{
    const float x = ossa_test_randf(rng, lo, hi), y = ossa_test_randf(rng, lo, hi);
    return (ossa_float3){x, y, ossa_test_randf(rng, lo, hi)};
}

static float tick_time(unsigned tick, float duration) { return (float)tick * duration / (float)TICKS; }

/* `count` distinct ticks in [0, TICKS], ascending. */
static void random_ticks(uint32_t *rng, size_t count, unsigned *ticks)
{
    static uint8_t used[TICKS + 1];
    memset(used, 0, sizeof used);
    for (size_t picked = 0; picked < count;) {
        const unsigned t = ossa_test_rand(rng) % (TICKS + 1);
        if (!used[t]) used[t] = 1, ++picked;
    }
    for (unsigned t = 0, i = 0; t <= TICKS; ++t)
        if (used[t]) ticks[i++] = t;
}

/* Five joints, every channel animated with 2 to 40 keys at random ticks: translations in
 * [-2, 3], rotations a random walk of steps up to 0.4 rad stored unnormalised and sometimes
 * negated, non-uniform scales in [0.5, 2]. */
static void make_random_clip(ossa_raw_animation *raw, uint32_t seed)
{
    uint32_t rng = seed;
    const size_t joints = 5;
    assert_int_equal(ossa_raw_animation_create(raw, joints, NULL), OSSA_OK);
    raw->duration = 2.5f;
    unsigned ticks[41];
    for (size_t j = 0; j < joints; ++j) {
        size_t n[3];
        for (int c = 0; c < 3; ++c) n[c] = 2 + ossa_test_rand(&rng) % 39;
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, n[0], n[1], n[2]), OSSA_OK);
        ossa_raw_joint_track *t = &raw->tracks[j];
        random_ticks(&rng, n[0], ticks);
        for (size_t k = 0; k < n[0]; ++k)
            t->translations[k] = (ossa_raw_float3_key){tick_time(ticks[k], raw->duration), rand3(&rng, -2.f, 3.f)};
        random_ticks(&rng, n[1], ticks);
        const ossa_float3 start = rand3(&rng, -1.f, 1.f);
        ossa_quat q = ossa_quat_normalize((ossa_quat){start.x, start.y, start.z, 1.f});
        for (size_t k = 0; k < n[1]; ++k) {
            const ossa_float3 axis = rand3(&rng, -1.f, 1.f);
            const float half = ossa_test_randf(&rng, -.2f, .2f);
            const float len = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z) + 1e-6f;
            const float s = sinf(half) / len;
            q = ossa_quat_normalize(ossa_quat_mul(q, (ossa_quat){axis.x * s, axis.y * s, axis.z * s, cosf(half)}));
            const float m = ossa_test_randf(&rng, .5f, 2.f) * (ossa_test_rand(&rng) % 5 == 0 ? -1.f : 1.f);
            t->rotations[k] =
                (ossa_raw_quat_key){tick_time(ticks[k], raw->duration), {q.x * m, q.y * m, q.z * m, q.w * m}};
        }
        random_ticks(&rng, n[2], ticks);
        for (size_t k = 0; k < n[2]; ++k)
            t->scales[k] = (ossa_raw_float3_key){tick_time(ticks[k], raw->duration), rand3(&rng, .5f, 2.f)};
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

static int compare_float(const void *a, const void *b)
{
    const float x = *(const float *)a, y = *(const float *)b;
    return x < y ? -1 : x > y;
}

/* Key `k` of channel `c` of track `t`: time and value (rotations normalised, 4 floats). */
static float channel_key(const ossa_raw_joint_track *t, int c, size_t k, double v[4])
{
    if (c == 1) {
        const ossa_quat q = t->rotations[k].value;
        const double x = q.x, y = q.y, z = q.z, w = q.w, n = sqrt(x * x + y * y + z * z + w * w);
        v[0] = x / n, v[1] = y / n, v[2] = z / n, v[3] = w / n;
        return t->rotations[k].time;
    }
    const ossa_raw_float3_key *key = c == 0 ? &t->translations[k] : &t->scales[k];
    v[0] = key->value.x, v[1] = key->value.y, v[2] = key->value.z, v[3] = 0.0;
    return key->time;
}

static size_t channel_count(const ossa_raw_joint_track *t, int c)
{
    return c == 0 ? t->translation_count : (c == 1 ? t->rotation_count : t->scale_count);
}

/* Samples channel `c` of joint `j` with the runtime at each of its key times and returns the
 * largest error as a share of its bound (failing above 1). The bound is half a step of 24 bits,
 * range / 2^25, with the range of the key values (rotations normalised, in one hemisphere), plus
 * float rounding: encoding (v - min) / step and decoding min + q * step take four roundings,
 * each at most 2^-24 of the range or of the largest magnitude M, so 2^-24 (4 range + 2 M)
 * covers them with margin. A rotation is then normalised: a unit q perturbed by d comes out
 * within d_c + |q_c| |d| per component, plus a few roundings. */
static double check_round_trip(const ossa_raw_animation *raw, const ossa_animation *anim, ossa_sampling_context *ctx,
                               ossa_soa_transform *soa, ossa_transform *local, size_t j, int c)
{
    const ossa_raw_joint_track *t = &raw->tracks[j];
    const size_t keys = channel_count(t, c);
    double(*v)[4] = aligned_zero(keys * sizeof *v), e[4], norm = 0.0, worst = 0.0;
    double lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (size_t k = 0; k < keys; ++k) {
        channel_key(t, c, k, v[k]);
        double dot = 0.0;
        for (int i = 0; k && i < 4; ++i) dot += v[k][i] * v[k - 1][i];
        for (int i = 0; i < 4; ++i) {
            v[k][i] = dot < 0.0 ? -v[k][i] : v[k][i]; /* one hemisphere */
            lo[i] = fmin(lo[i], v[k][i]), hi[i] = fmax(hi[i], v[k][i]);
        }
    }
    for (int i = 0; i < 4; ++i) {
        const double range = hi[i] - lo[i], m = fmax(fabs(lo[i]), fabs(hi[i]));
        e[i] = range / 33554432.0 + ULP * (4.0 * range + 2.0 * m);
        norm += e[i] * e[i];
    }
    for (size_t k = 0; k < keys; ++k) {
        double want[4];
        const float time = channel_key(t, c, k, want);
        sample_runtime(anim, ctx, soa, time, local, NULL);
        const ossa_transform *x = &local[j];
        const ossa_float3 f3 = c == 0 ? x->translation : x->scale;
        const double got[4] = {c == 1 ? x->rotation.x : f3.x, c == 1 ? x->rotation.y : f3.y,
                               c == 1 ? x->rotation.z : f3.z, c == 1 ? x->rotation.w : 0.f};
        const double dot = got[0] * v[k][0] + got[1] * v[k][1] + got[2] * v[k][2] + got[3] * v[k][3];
        for (int i = 0; i < 4; ++i) {
            const double g = dot < 0.0 ? -got[i] : got[i], diff = fabs(g - v[k][i]);
            const double bound = c == 1 ? e[i] + fabs(v[k][i]) * sqrt(norm) + 4.0 * ULP : e[i];
            worst = fmax(worst, bound > 0.0 ? diff / bound : 0.0);
            if (diff > bound)
                fail_msg("joint %zu channel %d key %zu (t %.6f s) component %d: %.9g vs %.9g, error %.3g > bound %.3g",
                         j, c, k, (double)time, i, g, v[k][i], diff, bound);
        }
    }
    free(v);
    return worst;
}

static void test_lossless_round_trip(void **state)
{
    (void)state;
    for (uint32_t seed = 1; seed <= 3; ++seed) {
        ossa_raw_animation raw = {0};
        make_random_clip(&raw, seed * 7919u);
        const size_t n = raw.track_count;
        /* The time points: every distinct key time, plus 0 and the duration. */
        size_t F;
        float *times = sample_times(&raw, 0.f, &F);
        times[F++] = 0.f, times[F++] = raw.duration; /* room for two more: see sample_times */
        qsort(times, F, sizeof *times, compare_float);
        size_t unique = 1;
        for (size_t i = 1; i < F; ++i)
            if (times[i] != times[unique - 1]) times[unique++] = times[i];
        F = unique;

        ossa_blob blob;
        ossa_animation anim;
        ossa_animation_build_stats stats = {0};
        build_view(&raw, &(ossa_animation_build_desc){.stats = &stats}, &blob, &anim);
        assert_int_equal(anim.frame_count, F);
        assert_non_null(anim.timepoints); /* random ticks: not uniform */

        /* Every channel moves, so every sub-track is animated and keeps its own key times. */
        uint8_t *own = aligned_zero(3 * n * F);
        for (size_t j = 0; j < n; ++j)
            for (int c = 0; c < 3; ++c) {
                assert_int_equal(ossa_animation_channel_kind(&anim, j, c), 2);
                for (size_t k = 0; k < channel_count(&raw.tracks[j], c); ++k) {
                    double v[4];
                    const float t = channel_key(&raw.tracks[j], c, k, v);
                    const float *at = bsearch(&t, times, F, sizeof *times, compare_float);
                    assert_non_null(at);
                    own[(3 * j + (size_t)c) * F + (size_t)(at - times)] = 1;
                }
            }
        const size_t total = check_key_sets(&anim, own);
        assert_int_equal(anim.key_count, total);
        assert_int_equal(stats.key_count, total);

        ossa_transform *local = aligned_zero(n * sizeof *local);
        const size_t ctx_size = ossa_sampling_context_size(n);
        void *ctx_mem = aligned_zero(ctx_size);
        ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, n);
        ossa_soa_transform *soa = aligned_zero(anim.soa_count * sizeof *soa);
        double worst = 0.0;
        for (size_t j = 0; j < n; ++j)
            for (int c = 0; c < 3; ++c) worst = fmax(worst, check_round_trip(&raw, &anim, ctx, soa, local, j, c));
        print_message("lossless seed %u: %zu time points, %zu keys, %zu bytes, worst error %.2f of its bound\n", seed,
                      F, total, blob.size, worst);
        free(soa), free(ctx_mem), free(local), free(own), free(times);
        ossa_blob_destroy(&blob);
        ossa_raw_animation_destroy(&raw);
    }
}

/* ---- piecewise-linear curves ---- */

#define LINEAR_FRAMES 61 /* 2 s at 30 Hz */
static const size_t breakpoints[6] = {0, 7, 20, 29, 45, 60};
/* Direction changes of about 1 m/s at every breakpoint: skipping one costs centimetres. */
static const float break_values[6][3] = {{0.f, 0.f, 0.f},  {.5f, 0.f, 0.f}, {.5f, .6f, 0.f},
                                         {-.2f, .6f, .3f}, {0.f, 0.f, .5f}, {.4f, -.3f, 0.f}};

/* A chain root -> a -> b; bones of 0.4 m along y. */
static void make_chain(ossa_raw_skeleton *skel, size_t joints)
{
    assert_int_equal(ossa_raw_skeleton_create(skel, joints, NULL), OSSA_OK);
    for (size_t j = 1; j < joints; ++j) {
        skel->joints[j].parent = (int32_t)j - 1;
        skel->joints[j].rest.translation.y = .4f;
    }
}

/* The root moves linearly between the breakpoints, sampled at 30 Hz; the other joints hold
 * their bone as one translation key. */
static void make_linear_clip(ossa_raw_animation *raw)
{
    assert_int_equal(ossa_raw_animation_create(raw, 3, NULL), OSSA_OK);
    raw->duration = (float)(LINEAR_FRAMES - 1) / 30.f;
    assert_int_equal(ossa_raw_joint_track_resize(raw, 0, LINEAR_FRAMES, 0, 0), OSSA_OK);
    for (size_t f = 0, b = 0; f < LINEAR_FRAMES; ++f) {
        if (f > breakpoints[b + 1]) ++b;
        const float a = (float)(f - breakpoints[b]) / (float)(breakpoints[b + 1] - breakpoints[b]);
        const float *p = break_values[b], *q = break_values[b + 1];
        raw->tracks[0].translations[f] =
            (ossa_raw_float3_key){f == LINEAR_FRAMES - 1 ? raw->duration : (float)f / 30.f,
                                  {p[0] + (q[0] - p[0]) * a, p[1] + (q[1] - p[1]) * a, p[2] + (q[2] - p[2]) * a}};
    }
    for (size_t j = 1; j < 3; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, 1, 0, 0), OSSA_OK);
        raw->tracks[j].translations[0] = (ossa_raw_float3_key){0.f, {0.f, .4f, 0.f}};
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

static void test_linear_reduces_to_breakpoints(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 3);
    make_linear_clip(&raw);
    const float tolerance = .001f;
    ossa_blob blob;
    ossa_animation anim;
    build_view(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = tolerance}, &blob, &anim);
    assert_int_equal(anim.frame_count, LINEAR_FRAMES);
    assert_int_equal(anim.animated_count, 1);
    assert_int_equal(ossa_animation_channel_kind(&anim, 0, 0), 2);
    uint8_t own[3 * LINEAR_FRAMES] = {0};
    for (size_t b = 0; b < 6; ++b) own[breakpoints[b]] = 1;
    const size_t keys = check_key_sets(&anim, own);
    assert_int_equal(anim.key_count, keys);
    print_message("piecewise linear: %d samples -> %zu keys (breakpoints and segment starts)\n", LINEAR_FRAMES, keys);

    double errors[3];
    joint_errors(&skel, &raw, &anim, SHELL_M, errors);
    for (size_t j = 0; j < 3; ++j)
        if (!(errors[j] <= (double)tolerance))
            fail_msg("joint %zu: error %.6f mm > %g mm", j, errors[j] * 1e3, (double)tolerance * 1e3);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* ---- per-joint overrides ---- */

/* A five-joint chain swinging: every joint rotates on a smooth random curve at 30 Hz (2 s),
 * the root also translates; bones of 0.4 m. */
static void make_swing_clip(ossa_raw_animation *raw)
{
    uint32_t rng = 424242u;
    const size_t joints = 5, frames = 61;
    assert_int_equal(ossa_raw_animation_create(raw, joints, NULL), OSSA_OK);
    raw->duration = 2.f;
    for (size_t j = 0; j < joints; ++j) {
        float amp[3], freq[3], phase[3];
        for (int c = 0; c < 3; ++c)
            amp[c] = ossa_test_randf(&rng, .1f, .6f), freq[c] = ossa_test_randf(&rng, .5f, 2.f),
            phase[c] = ossa_test_randf(&rng, 0.f, 6.f);
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, j ? 1 : frames, frames, 0), OSSA_OK);
        ossa_raw_joint_track *t = &raw->tracks[j];
        if (j) t->translations[0] = (ossa_raw_float3_key){0.f, {0.f, .4f, 0.f}};
        for (size_t f = 0; f < frames; ++f) {
            const float time = (float)f / 30.f;
            float a[3];
            for (int c = 0; c < 3; ++c) a[c] = amp[c] * sinf(freq[c] * time * 3.1415927f + phase[c]);
            t->rotations[f] = (ossa_raw_quat_key){time, ossa_quat_from_euler(a[0], a[1], a[2], "xyz")};
            if (!j) t->translations[f] = (ossa_raw_float3_key){time, {a[0], .1f * a[1], a[2]}};
        }
    }
    assert_int_equal(ossa_raw_animation_validate(raw, NULL), OSSA_OK);
}

#define FAR_X     20000.f
#define FAR_FLOOR 9.765625e-4f
/* The first is below the floor of float storage there: half a float step, 2^-10 units (a
 * source value interpolated between two keys lies between two floats). */
static const float far_tolerances[] = {9e-4f, 2e-3f, 1e-2f};

static void test_joint_overrides(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 5);
    make_swing_clip(&raw);
    const size_t leaf = 4;
    const float tolerance = .01f, tight = .0002f, loose = .05f;
    double errors[5];
    size_t sizes[3];
    const ossa_joint_tolerance overrides[2] = {{leaf, tight, 0.f}, {leaf, loose, 0.f}};
    for (int run = 0; run < 3; ++run) { /* no override, tight, loose */
        const ossa_animation_build_desc desc = {.skeleton = &skel,
                                                .tolerance = tolerance,
                                                .overrides = run ? &overrides[run - 1] : NULL,
                                                .override_count = run ? 1 : 0};
        ossa_blob blob;
        ossa_animation anim;
        build_view(&raw, &desc, &blob, &anim);
        joint_errors(&skel, &raw, &anim, SHELL_M, errors);
        sizes[run] = blob.size;
        print_message("override %-5s: %zu bytes, leaf error %.4f mm, others up to %.4f mm\n",
                      run == 0 ? "none" : (run == 1 ? "tight" : "loose"), blob.size, errors[leaf] * 1e3,
                      fmax(fmax(errors[0], errors[1]), fmax(errors[2], errors[3])) * 1e3);
        const double leaf_bound = run == 0 ? tolerance : (run == 1 ? tight : loose);
        if (run == 0) assert_true(errors[leaf] > (double)tight); /* else the tight override could not show */
        if (!(errors[leaf] <= leaf_bound))
            fail_msg("leaf error %.6f mm > %.4f mm", errors[leaf] * 1e3, leaf_bound * 1e3);
        for (size_t j = 0; j < leaf; ++j)
            if (!(errors[j] <= (double)tolerance))
                fail_msg("joint %zu error %.6f mm > %.4f mm", j, errors[j] * 1e3, (double)tolerance * 1e3);
        ossa_blob_destroy(&blob);
    }
    assert_true(sizes[2] <= sizes[0]);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* Far from the origin, float model space rounds by about as much as a tight tolerance: the
 * swing chain 20000 units from the origin (a float step there is 2^-9 units). The search
 * screens candidates in float, but the blob it returns was verified by the double-precision
 * pass of ossa_measure_error: that measurement, taken here, is the builder's figure, bit for
 * bit, and within the tolerance whenever the builder says so. At 9e-4 units the float
 * screening passes encodings (it cannot see below a float step) that the verification fails:
 * no encoding can pass, and the builder says so (error_ratio > 1) rather than report a pass. */
static void test_far_from_origin(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 5);
    make_swing_clip(&raw);
    for (size_t f = 0; f < raw.tracks[0].translation_count; ++f) raw.tracks[0].translations[f].value.x += FAR_X;
    skel.joints[0].rest.translation.x = FAR_X;
    ossa_blob skel_blob = {0};
    ossa_skeleton skeleton;
    assert_int_equal(ossa_skeleton_build(&skel, NULL, &skel_blob, NULL), OSSA_OK);
    assert_int_equal(ossa_skeleton_init(&skeleton, skel_blob.data, skel_blob.size), OSSA_OK);
    for (size_t t = 0; t < sizeof far_tolerances / sizeof *far_tolerances; ++t) {
        const float tolerance = far_tolerances[t];
        ossa_animation_build_stats stats = {0};
        const ossa_animation_build_desc desc = {.skeleton = &skel, .tolerance = tolerance, .stats = &stats};
        ossa_blob blob;
        ossa_animation anim;
        build_view(&raw, &desc, &blob, &anim);
        const ossa_error_desc measure = {.shell_distance = SHELL_M, .source_times = 1};
        ossa_error_report rep;
        assert_int_equal(ossa_measure_error(&skeleton, &raw, &anim, &measure, &rep, NULL), OSSA_OK);
        print_message("far: tolerance %g, %zu bytes, %zu encodings, measured %g (ratio %.4f), builder %g\n",
                      (double)tolerance, blob.size, stats.evaluations, (double)rep.max, (double)stats.error_ratio,
                      (double)stats.max_error);
        assert_true(stats.max_error == rep.max);
        if (tolerance < FAR_FLOOR) {
            assert_true(stats.error_ratio > 1.f);
            assert_true(rep.max >= FAR_FLOOR);
        } else {
            assert_true(stats.error_ratio <= 1.f);
            assert_true(rep.max <= tolerance);
        }
        ossa_blob_destroy(&blob);
    }
    ossa_blob_destroy(&skel_blob);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* ---- bad descs ---- */

/* ---- progress report ---- */

typedef struct progress_record {
    float fractions[1024];
    const char *stages[1024];
    size_t count;
    bool other_thread; /* a call came from a thread other than the builder's caller */
    pthread_t caller;
} progress_record;

static void record_progress(float fraction, const char *stage, void *user)
{
    progress_record *r = user;
    if (!pthread_equal(pthread_self(), r->caller)) r->other_thread = true;
    if (r->count < 1024) r->fractions[r->count] = fraction, r->stages[r->count] = stage;
    ++r->count;
}

/* The report of one build: in [0, 1], never decreasing, ending at exactly 1, within the
 * documented number of calls, from the calling thread, with documented stage names. */
static void check_progress(const progress_record *r, bool bounded)
{
    static const char *const lossless_stages[] = {"encode", "write"};
    static const char *const bounded_stages[] = {"measure source", "search", "refine", "write"};
    const char *const *names = bounded ? bounded_stages : lossless_stages;
    const size_t name_count = bounded ? 4 : 2;
    assert_true(r->count >= (bounded ? 4u : 2u) && r->count <= 600);
    assert_false(r->other_thread);
    bool seen[4] = {false};
    for (size_t i = 0; i < r->count; ++i) {
        assert_true(r->fractions[i] >= 0.f && r->fractions[i] <= 1.f);
        if (i) assert_true(r->fractions[i] >= r->fractions[i - 1]);
        size_t n = 0;
        while (n < name_count && strcmp(r->stages[i], names[n])) ++n;
        assert_true(n < name_count);
        seen[n] = true;
    }
    for (size_t n = 0; n < name_count; ++n) assert_true(seen[n]);
    assert_true(r->fractions[r->count - 1] == 1.f);
    for (size_t i = 0; i + 1 < r->count; ++i) assert_true(r->fractions[i] < 1.f); /* 1 once, at the end */
}

/* A progress callback changes nothing in the blob (lossless and error-bounded, one and two
 * threads) and reports as documented. */
static void test_progress_report(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 5);
    make_swing_clip(&raw);
    /* qemu-user (the AArch64 tests) hangs on the encoder's threads. */
    const unsigned thread_counts = getenv("MESON_EXE_WRAPPER") ? 1 : 2;
    for (int bounded = 0; bounded < 2; ++bounded)
        for (unsigned threads = 1; threads <= thread_counts; ++threads) {
            ossa_animation_build_desc desc = {
                .skeleton = bounded ? &skel : NULL, .tolerance = bounded ? .0001f : 0.f, .threads = threads};
            ossa_blob plain = {0}, reported = {0};
            assert_int_equal(ossa_animation_build(&raw, &desc, &plain, NULL), OSSA_OK);
            progress_record *record = calloc(1, sizeof *record);
            assert_non_null(record);
            record->caller = pthread_self();
            desc.progress = record_progress;
            desc.progress_user = record;
            assert_int_equal(ossa_animation_build(&raw, &desc, &reported, NULL), OSSA_OK);
            assert_int_equal(reported.size, plain.size);
            assert_memory_equal(reported.data, plain.data, plain.size);
            check_progress(record, bounded);
            print_message("%s build, %u thread%s: %zu progress calls\n", bounded ? "error-bounded" : "lossless",
                          threads, threads > 1 ? "s" : "", record->count);
            free(record);
            ossa_blob_destroy(&plain);
            ossa_blob_destroy(&reported);
        }
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

static void expect_bad(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc, ossa_result code,
                       const char *field)
{
    ossa_blob blob = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_build(raw, desc, &blob, &diag), code);
    assert_int_equal(diag.code, code);
    assert_null(blob.data);
    assert_int_equal(blob.size, 0);
    if (!strstr(diag.message, field)) fail_msg("message \"%s\" does not name %s", diag.message, field);
}

static void test_bad_descs(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0}, four = {0};
    ossa_raw_animation raw = {0};
    make_chain(&skel, 3);
    make_chain(&four, 4);
    make_linear_clip(&raw);
    const ossa_joint_tolerance out_of_range = {3, .001f, 0.f};
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = -.001f}, OSSA_ERROR_INVALID_ARGUMENT,
               "tolerance");
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = NAN}, OSSA_ERROR_INVALID_ARGUMENT,
               "tolerance");
    expect_bad(&raw, &(ossa_animation_build_desc){.tolerance = .001f}, OSSA_ERROR_INVALID_ARGUMENT, "skeleton");
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = .001f, .shell_distance = -1.f},
               OSSA_ERROR_INVALID_ARGUMENT, "shell_distance");
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = .001f, .unit_scale = INFINITY},
               OSSA_ERROR_INVALID_ARGUMENT, "unit_scale");
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = .001f, .unit_scale = 1e-41f},
               OSSA_ERROR_INVALID_ARGUMENT, "unit_scale");
    expect_bad(&raw,
               &(ossa_animation_build_desc){
                   .skeleton = &skel, .tolerance = .001f, .overrides = &out_of_range, .override_count = 1},
               OSSA_ERROR_INVALID_ARGUMENT, "override");
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &four, .tolerance = .001f}, OSSA_ERROR_JOINT_MISMATCH,
               "skeleton");
    /* A clip longer than a day is a wrong frame time, refused before any work. */
    raw.duration = OSSA_RAW_ANIMATION_MAX_DURATION * 1.01f;
    expect_bad(&raw, &(ossa_animation_build_desc){.skeleton = &skel, .tolerance = .001f}, OSSA_ERROR_INVALID_ANIMATION,
               "day");
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&four);
    ossa_raw_skeleton_destroy(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_descs),
        cmocka_unit_test(test_lossless_round_trip),
        cmocka_unit_test(test_linear_reduces_to_breakpoints),
        cmocka_unit_test(test_joint_overrides),
        cmocka_unit_test(test_far_from_origin),
        cmocka_unit_test(test_progress_report),
        cmocka_unit_test(test_real_pab),
        cmocka_unit_test(test_threads_same_blob),
        cmocka_unit_test(test_rest_pose_sub_tracks),
        cmocka_unit_test(test_key_positions),
        cmocka_unit_test(test_sparse_keys_cost_what_they_hold),
        cmocka_unit_test(test_build_seconds_estimate),
        cmocka_unit_test(test_isolated_joints_bound_and_threads),
        cmocka_unit_test(test_constant_scale_never_keyed),
        cmocka_unit_test(test_roots_reference_keeps_rotations),
        cmocka_unit_test(test_out_of_memory_anywhere),
        cmocka_unit_test(test_held_channels_cost_one_row),
        cmocka_unit_test(test_sample_pass_matches_sample),
        cmocka_unit_test(test_source_key_times_union),
        cmocka_unit_test(test_rotation_check_without_root),
        cmocka_unit_test(test_loosening_slack_changes_nothing),
#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP
        cmocka_unit_test(test_real_cmu_01_01),
        cmocka_unit_test(test_real_cesium_man),
        cmocka_unit_test(test_real_blender_fbx),
        cmocka_unit_test(test_build_memory_estimate),
        cmocka_unit_test(test_unreached_tolerance_holds_no_poses),
#endif
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
