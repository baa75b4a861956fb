/* Root motion: extraction (ossa_motion_extract) against the source pose, and accumulation
 * (ossa_motion_accumulate) against a double-precision composition written here: ten loops
 * forward move the character by ten times one loop, and playing back returns to the start. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/motion.h"
#include "ossa/offline/motion_extractor.h"
#include "ossa/offline/track_builder.h"
#include "test_util.h"

#define PI 3.14159265358979323846

/* A two-joint walker: the root (pelvis) travels 1.2 m along a curved path and turns 30 degrees
 * about +Y over one loop of 1 s, bobbing 3 cm; a leg swings below it. */
static void walker(ossa_raw_skeleton *skel, ossa_raw_animation *anim)
{
    assert_int_equal(ossa_raw_skeleton_create(skel, 2, NULL), OSSA_OK);
    skel->joints[1].parent = 0;
    skel->joints[1].rest.translation = (ossa_float3){0.f, -0.5f, 0.f};
    assert_int_equal(ossa_raw_animation_create(anim, 2, NULL), OSSA_OK);
    anim->duration = 1.f;
    enum { K = 11 };
    assert_int_equal(ossa_raw_joint_track_resize(anim, 0, K, K, 1), OSSA_OK);
    assert_int_equal(ossa_raw_joint_track_resize(anim, 1, 1, K, 1), OSSA_OK);
    for (int k = 0; k < K; ++k) {
        const float t = (float)k / (K - 1);
        const double yaw = 30.0 * PI / 180.0 * (double)t, tilt = 0.1 * sin(2 * PI * (double)t);
        /* rotation = yaw about y, then a small tilt about x (applied first) */
        const double cy = cos(yaw / 2), sy = sin(yaw / 2), cx = cos(tilt / 2), sx = sin(tilt / 2);
        anim->tracks[0].translations[k] =
            (ossa_raw_float3_key){t, {0.2f + 0.1f * sinf(3.f * t), 0.9f + 0.03f * sinf(12.56637f * t), 1.2f * t}};
        anim->tracks[0].rotations[k] =
            (ossa_raw_quat_key){t, {(float)(cy * sx), (float)(sy * cx), (float)(-sy * sx), (float)(cy * cx)}};
        anim->tracks[1].rotations[k] =
            (ossa_raw_quat_key){t, {sinf(0.3f * sinf(6.28318f * t)), 0.f, 0.f, cosf(0.3f * sinf(6.28318f * t))}};
    }
    anim->tracks[0].scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    anim->tracks[1].translations[0] = (ossa_raw_float3_key){0.f, {0.f, -0.5f, 0.f}};
    anim->tracks[1].scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    assert_int_equal(ossa_raw_animation_validate(anim, NULL), OSSA_OK);
}

/* Double-precision rigid transforms for the reference. */
typedef struct dq {
    double x, y, z, w;
} dq;
typedef struct drigid {
    double p[3];
    dq q;
} drigid;

static dq dq_mul(dq a, dq b)
{
    return (dq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static void dq_rotate(dq q, const double v[3], double out[3])
{
    const dq p = {v[0], v[1], v[2], 0.0}, c = {-q.x, -q.y, -q.z, q.w};
    const dq r = dq_mul(dq_mul(q, p), c);
    out[0] = r.x, out[1] = r.y, out[2] = r.z;
}

static drigid dcompose(drigid a, drigid b)
{
    drigid r;
    dq_rotate(a.q, b.p, r.p);
    for (int i = 0; i < 3; ++i) r.p[i] += a.p[i];
    r.q = dq_mul(a.q, b.q);
    return r;
}

static ossa_track build_track(const ossa_raw_track *raw, ossa_blob *blob)
{
    ossa_diag diag = {0};
    assert_int_equal(ossa_track_build(raw, NULL, blob, &diag), OSSA_OK);
    ossa_track t;
    assert_int_equal(ossa_track_init(&t, blob->data, blob->size), OSSA_OK);
    return t;
}

/* M(t) * baked(t) = root(t) at every time, and the baked root no longer travels in x, z nor
 * turns about y. */
static void test_extraction_splits_the_root(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation anim = {0}, source = {0};
    ossa_raw_skeleton copy = {0};
    walker(&skel, &anim);
    walker(&copy, &source); /* the same clip, left as it is */
    ossa_raw_skeleton_destroy(&copy);
    ossa_raw_track pos = {0}, rot = {0};
    const ossa_motion_extract_desc desc = {.position = {true, false, true}, .yaw = true, .bake = true};
    ossa_diag diag = {0};
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &rot, &diag), OSSA_OK);
    assert_string_equal(pos.name, "root_motion.position");
    assert_int_equal(ossa_raw_track_validate(&pos, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_track_validate(&rot, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_validate(&anim, NULL), OSSA_OK);
    assert_int_equal(pos.key_count, 11);
    ossa_transform src[2], baked[2];
    for (size_t k = 0; k < pos.key_count; ++k) {
        const float t = pos.keys[k].ratio * anim.duration;
        ossa_raw_animation_sample(&source, t, src, 2);
        ossa_raw_animation_sample(&anim, t, baked, 2);
        float m[4], q[4];
        ossa_raw_track_evaluate(&pos, pos.keys[k].ratio, m);
        ossa_raw_track_evaluate(&rot, rot.keys[k].ratio, q);
        assert_true(fabsf(m[1]) == 0.f);                /* y is not extracted */
        assert_true(fabsf(q[0]) + fabsf(q[2]) < 1e-6f); /* yaw only */
        const drigid M = {{m[0], m[1], m[2]}, {q[0], q[1], q[2], q[3]}};
        const drigid B = {{baked[0].translation.x, baked[0].translation.y, baked[0].translation.z},
                          {baked[0].rotation.x, baked[0].rotation.y, baked[0].rotation.z, baked[0].rotation.w}};
        const drigid R = dcompose(M, B);
        assert_float_equal(R.p[0], src[0].translation.x, 1e-5);
        assert_float_equal(R.p[1], src[0].translation.y, 1e-5);
        assert_float_equal(R.p[2], src[0].translation.z, 1e-5);
        const double dot = R.q.x * (double)src[0].rotation.x + R.q.y * (double)src[0].rotation.y +
                           R.q.z * (double)src[0].rotation.z + R.q.w * (double)src[0].rotation.w;
        assert_true(fabs(fabs(dot) - 1.0) < 1e-6);
        /* In place: the baked root keeps its first horizontal offset from the motion's origin
         * (0.2 m along x at the start), only turned. */
        assert_float_equal(hypot(baked[0].translation.x, baked[0].translation.z), 0.2, 1e-5);
        /* The leg is untouched. */
        assert_memory_equal(&baked[1], &src[1], sizeof baked[1]);
    }
    ossa_raw_track_destroy(&pos);
    ossa_raw_track_destroy(&rot);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_animation_destroy(&source);
    ossa_raw_skeleton_destroy(&skel);
}

/* Ten loops forward in uneven steps equal one loop's displacement composed ten times (a
 * double-precision composition of the motion at the clip's end); the same steps backward
 * return to the start. */
static void test_accumulation_over_loops(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation anim = {0};
    walker(&skel, &anim);
    ossa_raw_track pos = {0}, rot = {0};
    const ossa_motion_extract_desc desc = {.position = {true, false, true}, .yaw = true, .bake = true};
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &rot, NULL), OSSA_OK);
    ossa_blob pb = {0}, rb = {0};
    const ossa_track pt = build_track(&pos, &pb), rt = build_track(&rot, &rb);
    float end_p[4], end_q[4];
    ossa_raw_track_evaluate(&pos, 1.f, end_p);
    ossa_raw_track_evaluate(&rot, 1.f, end_q);
    const drigid loop = {{end_p[0], end_p[1], end_p[2]}, {end_q[0], end_q[1], end_q[2], end_q[3]}};
    drigid want = {{0, 0, 0}, {0, 0, 0, 1}};
    for (int i = 0; i < 10; ++i) want = dcompose(want, loop);
    ossa_motion_accumulator acc;
    assert_int_equal(ossa_motion_accumulator_reset(&acc, &pt, &rt, 0.f, ossa_transform_identity()), OSSA_OK);
    /* 10 loops in 271 steps of 10/271 loop each, counting wraps. */
    const int steps = 271;
    double time = 0.0;
    for (int s = 1; s <= steps; ++s) {
        const double next = 10.0 * s / steps;
        const int loops = (int)floor(next + 1e-12) - (int)floor(time + 1e-12);
        const double frac = next - floor(next + 1e-12);
        assert_int_equal(ossa_motion_accumulate(&acc, &pt, &rt, (float)(frac < 1e-9 ? 0.0 : frac), loops), OSSA_OK);
        time = next;
    }
    assert_float_equal(acc.transform.translation.x, want.p[0], 1e-4);
    assert_float_equal(acc.transform.translation.z, want.p[2], 1e-4);
    assert_float_equal(acc.transform.translation.y, 0.0, 1e-6);
    const double dot = (double)acc.transform.rotation.y * want.q.y + (double)acc.transform.rotation.w * want.q.w;
    assert_true(fabs(fabs(dot) - 1.0) < 1e-6);
    /* The character really moved and turned: ten loops of 1.2 m, 30 degrees each, end 300
     * degrees round a circle of about 2.3 m radius, 2.3 m from the start. */
    assert_true(hypot(want.p[0], want.p[2]) > 2.0);
    assert_float_equal(fabs(want.q.y), sin(150.0 * PI / 180.0), 1e-6);
    /* Backward: the same steps in reverse, wraps counted as -1. */
    for (int s = steps - 1; s >= 0; --s) {
        const double prev = 10.0 * s / steps;
        const int loops = (int)ceil(prev - 1e-12) == (int)ceil(time - 1e-12) ? 0 : -1;
        const double frac = prev - floor(prev + 1e-12);
        assert_int_equal(ossa_motion_accumulate(&acc, &pt, &rt, (float)(loops ? 1.0 : frac), loops), OSSA_OK);
        if (loops) assert_int_equal(ossa_motion_accumulate(&acc, &pt, &rt, (float)frac, 0), OSSA_OK);
        time = prev;
    }
    assert_float_equal(acc.transform.translation.x, 0.0, 1e-4);
    assert_float_equal(acc.transform.translation.z, 0.0, 1e-4);
    assert_true(fabsf(acc.transform.rotation.w) > 1.f - 1e-6f);
    ossa_blob_destroy(&pb);
    ossa_blob_destroy(&rb);
    ossa_raw_track_destroy(&pos);
    ossa_raw_track_destroy(&rot);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_skeleton_destroy(&skel);
}

static void test_errors(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation anim = {0};
    walker(&skel, &anim);
    ossa_raw_track pos = {0}, rot = {0};
    ossa_diag diag = {0};
    ossa_motion_extract_desc desc = {.yaw = false};
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &rot, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    desc = (ossa_motion_extract_desc){.joint = 1, .yaw = true};
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &rot, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &pos, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(ossa_motion_extract(NULL, &skel, &desc, &pos, &rot, NULL), OSSA_ERROR_NULL_ARGUMENT);
    desc = (ossa_motion_extract_desc){.position = {true, false, true}};
    assert_int_equal(ossa_motion_extract(&anim, &skel, &desc, &pos, &rot, NULL), OSSA_OK);
    ossa_blob pb = {0}, rb = {0};
    const ossa_track pt = build_track(&pos, &pb), rt = build_track(&rot, &rb);
    ossa_motion_accumulator acc;
    assert_int_equal(ossa_motion_accumulator_reset(&acc, &rt, NULL, 0.f, ossa_transform_identity()),
                     OSSA_ERROR_INVALID_TRACK);
    assert_int_equal(ossa_motion_accumulator_reset(&acc, &pt, &pt, 0.f, ossa_transform_identity()),
                     OSSA_ERROR_INVALID_TRACK);
    assert_int_equal(ossa_motion_accumulator_reset(&acc, &pt, NULL, NAN, ossa_transform_identity()),
                     OSSA_ERROR_INVALID_RATIO);
    assert_int_equal(ossa_motion_accumulator_reset(&acc, &pt, NULL, 0.f, ossa_transform_identity()), OSSA_OK);
    const ossa_motion_accumulator before = acc;
    assert_int_equal(ossa_motion_accumulate(&acc, &pt, NULL, .5f, 2000000), OSSA_ERROR_INVALID_ARGUMENT);
    assert_memory_equal(&acc, &before, sizeof acc);
    /* Translation only: half a loop moves by the motion at 0.5, without turning. */
    assert_int_equal(ossa_motion_accumulate(&acc, &pt, NULL, .5f, 0), OSSA_OK);
    float half[4];
    ossa_raw_track_evaluate(&pos, .5f, half);
    assert_float_equal(acc.transform.translation.z, half[2], 1e-6);
    assert_true(acc.transform.rotation.w == 1.f);
    ossa_blob_destroy(&pb);
    ossa_blob_destroy(&rb);
    ossa_raw_track_destroy(&pos);
    ossa_raw_track_destroy(&rot);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_skeleton_destroy(&skel);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_extraction_splits_the_root),
        cmocka_unit_test(test_accumulation_over_loops),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
