/* Additive animation builder: hand-derived deltas, and a clip rebuilt from its additive
 * version applied on its reference pose by the blending job (raw and runtime paths). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/blending_job.h"
#include "ossa/offline/additive_builder.h"
#include "ossa/offline/builders.h"
#include "ossa/sampling_job.h"
#include "test_util.h"

enum { TRACKS = 9, GROUPS = (TRACKS + 3) / 4 };

static float quat_angle(ossa_quat a, ossa_quat b)
{
    const float sign = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w < 0.f ? -1.f : 1.f;
    const float dx = a.x - sign * b.x, dy = a.y - sign * b.y, dz = a.z - sign * b.z, dw = a.w - sign * b.w;
    const float half = .5f * sqrtf(dx * dx + dy * dy + dz * dz + dw * dw);
    return 4.f * asinf(half > 1.f ? 1.f : half);
}

static ossa_quat random_quat(uint32_t *s)
{
    return ossa_quat_normalize((ossa_quat){ossa_test_randf(s, -1.f, 1.f), ossa_test_randf(s, -1.f, 1.f),
                                           ossa_test_randf(s, -1.f, 1.f), ossa_test_randf(s, -1.f, 1.f)});
}

/* Random clip; track 0 has no scale keys and track 1 no keys at all. */
static void make_clip(ossa_raw_animation *raw, uint32_t seed)
{
    assert_int_equal(ossa_raw_animation_create(raw, TRACKS, NULL), OSSA_OK);
    raw->duration = 2.f;
    uint32_t s = seed;
    for (size_t t = 0; t < TRACKS; ++t) {
        const size_t n = t == 1 ? 0 : 2 + ossa_test_rand(&s) % 6;
        assert_int_equal(ossa_raw_joint_track_resize(raw, t, n, n, t == 0 ? 0 : n), OSSA_OK);
        ossa_raw_joint_track *tr = &raw->tracks[t];
        for (size_t k = 0; k < n; ++k) {
            /* First key after 0 for odd tracks: the first frame is then the held first key. */
            const float time = ((float)k + (t % 2 ? .5f : 0.f)) * raw->duration / (float)(n + 1);
            const ossa_float3 t3 = {ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f),
                                    ossa_test_randf(&s, -1.f, 1.f)};
            tr->translations[k] = (ossa_raw_float3_key){time, t3};
            tr->rotations[k] = (ossa_raw_quat_key){time, random_quat(&s)};
            const ossa_float3 s3 = {ossa_test_randf(&s, .5f, 2.f), ossa_test_randf(&s, .5f, 2.f),
                                    ossa_test_randf(&s, .5f, 2.f)};
            if (t != 0) tr->scales[k] = (ossa_raw_float3_key){time, s3};
        }
    }
}

static void to_soa(const ossa_transform *pose, ossa_soa_transform *soa)
{
    for (size_t g = 0; g < GROUPS; ++g) ossa_soa_transform_set_identity(&soa[g]);
    for (size_t j = 0; j < TRACKS; ++j) ossa_soa_transform_set(&soa[j / 4], (int)(j % 4), &pose[j]);
}

/* base (weight 1) + delta (additive weight 1) through the blending job. */
static void apply(const ossa_soa_transform *base, const ossa_soa_transform *delta, ossa_soa_transform *out)
{
    const ossa_blend_layer layer = {1.f, base, GROUPS, NULL, 0}, add = {1.f, delta, GROUPS, NULL, 0};
    const ossa_blending_job job = {.layers = &layer,
                                   .layer_count = 1,
                                   .additive_layers = &add,
                                   .additive_layer_count = 1,
                                   .rest_pose = base,
                                   .rest_pose_count = GROUPS,
                                   .output = out,
                                   .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
}

static void compare(const ossa_soa_transform *got, const ossa_transform *want, float t_tol, float r_tol, float s_tol)
{
    for (size_t j = 0; j < TRACKS; ++j) {
        const ossa_transform g = ossa_soa_transform_get(&got[j / 4], (int)(j % 4));
        assert_float_equal(g.translation.x, want[j].translation.x, t_tol);
        assert_float_equal(g.translation.y, want[j].translation.y, t_tol);
        assert_float_equal(g.translation.z, want[j].translation.z, t_tol);
        assert_true(quat_angle(g.rotation, want[j].rotation) <= r_tol);
        assert_float_equal(g.scale.x, want[j].scale.x, s_tol);
        assert_float_equal(g.scale.y, want[j].scale.y, s_tol);
        assert_float_equal(g.scale.z, want[j].scale.z, s_tol);
    }
}

static void test_hand_derived_deltas(void **state)
{
    (void)state;
    ossa_raw_animation raw, add;
    assert_int_equal(ossa_raw_animation_create(&raw, 1, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_set_name(&raw, "wave"), OSSA_OK);
    raw.duration = 1.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 0, 2, 2, 2), OSSA_OK);
    ossa_raw_joint_track *t = &raw.tracks[0];
    const float s45 = sinf(3.14159265f / 4.f), c45 = cosf(3.14159265f / 4.f);
    t->translations[0] = (ossa_raw_float3_key){0.f, {1.f, 2.f, 3.f}};
    t->translations[1] = (ossa_raw_float3_key){1.f, {2.f, 2.f, 5.f}};
    /* 90 degrees about z, then 90 about z followed (in the joint frame) by 90 about x. */
    const ossa_quat qz = {0.f, 0.f, s45, c45}, qx = {s45, 0.f, 0.f, c45};
    t->rotations[0] = (ossa_raw_quat_key){0.f, qz};
    t->rotations[1] = (ossa_raw_quat_key){1.f, ossa_quat_mul(qz, qx)};
    t->scales[0] = (ossa_raw_float3_key){0.f, {2.f, 2.f, 2.f}};
    t->scales[1] = (ossa_raw_float3_key){1.f, {4.f, 1.f, 2.f}};
    ossa_diag diag = {0};
    assert_int_equal(ossa_additive_animation_build(&raw, NULL, &add, &diag), OSSA_OK);
    assert_string_equal(add.name, "wave");
    assert_true(add.duration == 1.f);
    const ossa_raw_joint_track *d = &add.tracks[0];
    assert_int_equal(d->translation_count, 2);
    const ossa_float3 d0 = d->translations[0].value, d1 = d->translations[1].value;
    assert_true(d0.x == 0.f && d0.y == 0.f && d0.z == 0.f);
    assert_true(d1.x == 1.f && d1.y == 0.f && d1.z == 2.f);
    assert_true(d->translations[1].time == 1.f);
    assert_true(quat_angle(d->rotations[0].value, (ossa_quat){0.f, 0.f, 0.f, 1.f}) < 1e-6f);
    assert_true(quat_angle(d->rotations[1].value, qx) < 1e-6f); /* the joint-frame rotation */
    assert_true(d->scales[1].value.x == 2.f && d->scales[1].value.y == .5f && d->scales[1].value.z == 1.f);
    ossa_raw_animation_destroy(&add);

    /* Against a given reference: rest translation (1, 1, 1), rotation qz, scale 4. */
    const ossa_transform ref = {{1.f, 1.f, 1.f}, qz, {4.f, 4.f, 4.f}};
    const ossa_additive_build_desc desc = {.reference = &ref, .reference_count = 1};
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_OK);
    d = &add.tracks[0];
    const ossa_float3 r0 = d->translations[0].value;
    assert_true(r0.x == 0.f && r0.y == 1.f && r0.z == 2.f);
    assert_true(quat_angle(d->rotations[1].value, qx) < 1e-6f);
    assert_true(d->scales[0].value.x == .5f && d->scales[1].value.x == 1.f && d->scales[1].value.y == .25f);
    ossa_raw_animation_destroy(&add);
    ossa_raw_animation_destroy(&raw);
}

static void test_clip_rebuilt_from_itself(void **state)
{
    (void)state;
    ossa_raw_animation raw, add;
    make_clip(&raw, 42);
    ossa_diag diag = {0};
    assert_int_equal(ossa_additive_animation_build(&raw, NULL, &add, &diag), OSSA_OK);
    assert_int_equal(add.tracks[1].translation_count + add.tracks[1].rotation_count + add.tracks[1].scale_count, 0);
    assert_int_equal(add.tracks[0].scale_count, 0);
    /* First frame: every channel's value at time 0. */
    ossa_transform first[TRACKS], want[TRACKS], delta[TRACKS];
    assert_int_equal(ossa_raw_animation_sample(&raw, 0.f, first, TRACKS), OSSA_OK);
    ossa_soa_transform base[GROUPS], dsoa[GROUPS], out[GROUPS];
    to_soa(first, base);
    /* Runtime path: build the additive clip, sample it with the sampling job. */
    ossa_blob blob = {0};
    ossa_animation anim;
    assert_int_equal(ossa_animation_build(&add, NULL, &blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, blob.data, blob.size), OSSA_OK);
    const size_t bytes = ossa_sampling_context_size(TRACKS);
    void *mem = aligned_alloc(16, bytes);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, bytes, TRACKS);
    assert_non_null(ctx);
    for (int i = 0; i <= 100; ++i) {
        const float time = raw.duration * (float)i / 100.f;
        assert_int_equal(ossa_raw_animation_sample(&raw, time, want, TRACKS), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&add, time, delta, TRACKS), OSSA_OK);
        to_soa(delta, dsoa);
        apply(base, dsoa, out);
        compare(out, want, 2e-6f, 2e-5f, 2e-6f);
        const ossa_sampling_job job = {&anim, ctx, (float)i / 100.f, dsoa, GROUPS, NULL, 0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        apply(base, dsoa, out);
        /* Quantisation (ossa/offline/builders.h): half floats on deltas up to 2 (translation)
         * and 4 (scale, times a base up to 2), 15-bit rotations. */
        compare(out, want, 2e-3f, 1e-3f, 8e-3f);
    }
    free(mem);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&add);

    /* Against a rest pose: the rest pose plus the additive clip rebuilds the clip, except
     * channels without keys (identity deltas leave the rest pose there). */
    ossa_transform rest[TRACKS];
    uint32_t s = 5;
    for (size_t j = 0; j < TRACKS; ++j)
        rest[j] = (ossa_transform){{ossa_test_randf(&s, -1.f, 1.f), 0.f, 1.f}, random_quat(&s), {1.f, 2.f, .5f}};
    const ossa_additive_build_desc desc = {.reference = rest, .reference_count = TRACKS};
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_OK);
    to_soa(rest, base);
    for (int i = 0; i <= 40; ++i) {
        const float time = raw.duration * (float)i / 40.f;
        assert_int_equal(ossa_raw_animation_sample(&raw, time, want, TRACKS), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&add, time, delta, TRACKS), OSSA_OK);
        want[0].scale = rest[0].scale;
        want[1] = rest[1];
        to_soa(delta, dsoa);
        apply(base, dsoa, out);
        compare(out, want, 2e-6f, 2e-5f, 2e-6f);
    }
    ossa_raw_animation_destroy(&add);
    ossa_raw_animation_destroy(&raw);
}

static void test_errors(void **state)
{
    (void)state;
    ossa_raw_animation raw, add;
    make_clip(&raw, 7);
    ossa_diag diag = {0};
    assert_int_equal(ossa_additive_animation_build(NULL, NULL, &add, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_additive_animation_build(&raw, NULL, NULL, NULL), OSSA_ERROR_NULL_ARGUMENT);
    ossa_transform rest[TRACKS];
    for (size_t j = 0; j < TRACKS; ++j) rest[j] = ossa_transform_identity();
    ossa_additive_build_desc desc = {.reference = rest, .reference_count = TRACKS - 1};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_ERROR_INPUT_TOO_SMALL);
    assert_null(add.tracks);
    desc.reference_count = TRACKS;
    rest[3].scale.y = 0.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(diag.offset, 3);
    rest[3].scale.y = 1.f;
    rest[4].rotation = (ossa_quat){0.f, 0.f, 0.f, 0.f};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(diag.offset, 4);
    rest[4].rotation.w = NAN;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_additive_animation_build(&raw, &desc, &add, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    /* First-frame reference with a zero scale component. */
    raw.tracks[2].scales[0].value.z = 0.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_additive_animation_build(&raw, NULL, &add, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(diag.offset, 2);
    assert_int_equal(add.track_count, 0);
    /* Invalid raw animation: the validator's code. */
    raw.tracks[2].scales[0].value.z = 1.f;
    raw.duration = 0.f;
    ossa_diag_clear(&diag);
    assert_int_not_equal(ossa_additive_animation_build(&raw, NULL, &add, &diag), OSSA_OK);
    assert_int_equal(diag.code, ossa_raw_animation_validate(&raw, NULL));
    assert_null(add.tracks);
    ossa_raw_animation_destroy(&add); /* empty: safe */
    ossa_raw_animation_destroy(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_derived_deltas),
        cmocka_unit_test(test_clip_rebuilt_from_itself),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
