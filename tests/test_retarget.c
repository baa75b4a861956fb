/* Retargeting (ossa_retarget): CMU 01_01 onto a copy of its skeleton whose legs are 15 %
 * longer and whose upper body is 5 % shorter, with other joint names bound by a map. The feet
 * (model-space heights, computed here in double precision from the retargeted clip) follow the
 * source's feet scaled by the leg ratio within 1 cm; a target in another rest pose turns its
 * bound joints by the same model-space rotations as the source. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_assimp.h"
#include "ossa/offline/retarget.h"
#include "test_util.h"

#define CMU_UNIT 0.056444 /* metres per unit: 1/0.45 inch */

static bool is_leg(const char *name)
{
    return strstr(name, "Hip") || strstr(name, "Leg") || strstr(name, "Foot") || strstr(name, "Toe");
}

/* Model-space positions in double precision (rotation, then uniform-free scale ignored: the
 * CMU rig has unit scales), from local transforms. */
static void model_positions(const ossa_raw_skeleton *s, const ossa_transform *local, double (*pos)[3], double (*rot)[4])
{
    for (size_t j = 0; j < s->joint_count; ++j) {
        const int p = s->joints[j].parent;
        const double q[4] = {local[j].rotation.x, local[j].rotation.y, local[j].rotation.z, local[j].rotation.w};
        const double t[3] = {local[j].translation.x, local[j].translation.y, local[j].translation.z};
        if (p < 0) {
            memcpy(rot[j], q, sizeof q);
            memcpy(pos[j], t, sizeof t);
            continue;
        }
        const double *a = rot[p];
        /* rot = a * q */
        rot[j][0] = a[3] * q[0] + a[0] * q[3] + a[1] * q[2] - a[2] * q[1];
        rot[j][1] = a[3] * q[1] - a[0] * q[2] + a[1] * q[3] + a[2] * q[0];
        rot[j][2] = a[3] * q[2] + a[0] * q[1] - a[1] * q[0] + a[2] * q[3];
        rot[j][3] = a[3] * q[3] - a[0] * q[0] - a[1] * q[1] - a[2] * q[2];
        const double n =
            sqrt(rot[j][0] * rot[j][0] + rot[j][1] * rot[j][1] + rot[j][2] * rot[j][2] + rot[j][3] * rot[j][3]);
        for (int c = 0; c < 4; ++c) rot[j][c] /= n;
        /* pos = pos[p] + a t a^-1 */
        const double x = a[0], y = a[1], z = a[2], w = a[3];
        const double tx = 2 * (y * t[2] - z * t[1]), ty = 2 * (z * t[0] - x * t[2]), tz = 2 * (x * t[1] - y * t[0]);
        pos[j][0] = pos[p][0] + t[0] + w * tx + (y * tz - z * ty);
        pos[j][1] = pos[p][1] + t[1] + w * ty + (z * tx - x * tz);
        pos[j][2] = pos[p][2] + t[2] + w * tz + (x * ty - y * tx);
    }
}

static void import_cmu(ossa_import_output *out)
{
    const char *path = ossa_test_assimp_path("BVH/01_01.bvh");
    size_t size;
    void *data = ossa_test_read_or_skip(path, path, &size);
    ossa_diag diag = {0};
    *out = (ossa_import_output){0};
    const ossa_result r = ossa_import_assimp(data, size, &(ossa_assimp_desc){.format_hint = "bvh"}, out, &diag);
    if (r == OSSA_ERROR_UNSUPPORTED_FORMAT) { /* built without assimp */
        free(data);
        print_message("skipped: %s\n", diag.message);
        skip();
    }
    if (r != OSSA_OK || ossa_import_output_sort_depth_first(out, &diag) != OSSA_OK)
        fail_msg("%s: %s", path, diag.message);
    free(data);
}

static void test_feet_follow_scaled_legs(void **state)
{
    (void)state;
    ossa_import_output in;
    import_cmu(&in);
    const ossa_raw_skeleton *src = &in.skeleton;
    const size_t J = src->joint_count;
    /* The target: "rig:" names, legs x1.15, the rest x0.95. */
    ossa_raw_skeleton dst = {0};
    assert_int_equal(ossa_raw_skeleton_create(&dst, J, NULL), OSSA_OK);
    ossa_retarget_pair *map = calloc(J, sizeof *map);
    char(*names)[96] = calloc(J, sizeof *names);
    for (size_t j = 0; j < J; ++j) {
        snprintf(names[j], sizeof names[j], "rig:%s", src->joints[j].name);
        assert_int_equal(ossa_raw_skeleton_set_name(&dst, j, names[j]), OSSA_OK);
        dst.joints[j].parent = src->joints[j].parent;
        dst.joints[j].rest = src->joints[j].rest;
        const float k = is_leg(src->joints[j].name) ? 1.15f : 0.95f;
        dst.joints[j].rest.translation.x *= k, dst.joints[j].rest.translation.y *= k,
            dst.joints[j].rest.translation.z *= k;
        map[j] = (ossa_retarget_pair){names[j], src->joints[j].name};
    }
    size_t bound = 0;
    ossa_retarget_desc desc = {.target = &dst, .map = map, .map_count = J, .bound_count = &bound};
    ossa_raw_animation out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_retarget(&in.animations[0], src, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(bound, J);
    assert_int_equal(out.track_count, J);
    assert_true(out.duration == in.animations[0].duration);
    /* Feet: every toe and foot joint, at 200 times over the clip. */
    ossa_transform *ls = calloc(J, sizeof *ls), *lt = calloc(J, sizeof *lt);
    double(*ps)[3] = calloc(J, sizeof *ps), (*pt)[3] = calloc(J, sizeof *pt);
    double(*rs)[4] = calloc(J, sizeof *rs), (*rt)[4] = calloc(J, sizeof *rt);
    double worst = 0.0;
    size_t feet = 0;
    for (int i = 0; i <= 200; ++i) {
        const float t = out.duration * (float)i / 200.f;
        ossa_raw_animation_sample(&in.animations[0], t, ls, J);
        ossa_raw_animation_sample(&out, t, lt, J);
        model_positions(src, ls, ps, rs);
        model_positions(&dst, lt, pt, rt);
        for (size_t j = 0; j < J; ++j) {
            if (!strstr(src->joints[j].name, "Toe") && !strstr(src->joints[j].name, "Foot")) continue;
            feet += i == 0;
            worst = fmax(worst, fabs(pt[j][1] - 1.15 * ps[j][1]) * CMU_UNIT);
        }
    }
    print_message("%zu foot joints, worst height error %.3g mm against the source's x1.15\n", feet, worst * 1e3);
    assert_true(feet >= 4);
    assert_true(worst < 0.01);
    free(ls), free(lt), free(ps), free(pt), free(rs), free(rt), free(map), free(names);
    ossa_raw_animation_destroy(&out);
    ossa_raw_skeleton_destroy(&dst);
    ossa_import_output_destroy(&in);
}

/* A target whose rest pose turns the left thigh by 40 degrees (an A-pose from a T-pose): each
 * bound joint's model-space rotation relative to its own rest equals the source's. */
static void test_rest_poses_aligned_in_model_space(void **state)
{
    (void)state;
    ossa_import_output in;
    import_cmu(&in);
    const ossa_raw_skeleton *src = &in.skeleton;
    const size_t J = src->joint_count;
    ossa_raw_skeleton dst = {0};
    assert_int_equal(ossa_raw_skeleton_create(&dst, J, NULL), OSSA_OK);
    int thigh = -1;
    for (size_t j = 0; j < J; ++j) {
        assert_int_equal(ossa_raw_skeleton_set_name(&dst, j, src->joints[j].name), OSSA_OK);
        dst.joints[j].parent = src->joints[j].parent;
        dst.joints[j].rest = src->joints[j].rest;
        if (!strcmp(src->joints[j].name, "LeftUpLeg")) thigh = (int)j;
    }
    assert_true(thigh > 0);
    const float h = 0.34906585f; /* 40 degrees about z, half angle 20 */
    dst.joints[thigh].rest.rotation =
        ossa_quat_normalize(ossa_quat_mul((ossa_quat){0.f, 0.f, sinf(h), cosf(h)}, dst.joints[thigh].rest.rotation));
    ossa_retarget_desc desc = {.target = &dst};
    ossa_raw_animation out = {0};
    assert_int_equal(ossa_retarget(&in.animations[0], src, &desc, &out, NULL), OSSA_OK);
    ossa_transform *rest_s = calloc(J, sizeof *rest_s), *rest_t = calloc(J, sizeof *rest_t);
    ossa_transform *ls = calloc(J, sizeof *ls), *lt = calloc(J, sizeof *lt);
    double(*p)[3] = calloc(J, sizeof *p);
    double(*rs0)[4] = calloc(J, sizeof *rs0), (*rt0)[4] = calloc(J, sizeof *rt0);
    double(*rs)[4] = calloc(J, sizeof *rs), (*rt)[4] = calloc(J, sizeof *rt);
    for (size_t j = 0; j < J; ++j) rest_s[j] = src->joints[j].rest, rest_t[j] = dst.joints[j].rest;
    model_positions(src, rest_s, p, rs0);
    model_positions(&dst, rest_t, p, rt0);
    double worst = 0.0;
    for (int i = 0; i <= 50; ++i) {
        const float t = out.duration * (float)i / 50.f;
        ossa_raw_animation_sample(&in.animations[0], t, ls, J);
        ossa_raw_animation_sample(&out, t, lt, J);
        model_positions(src, ls, p, rs);
        model_positions(&dst, lt, p, rt);
        for (size_t j = 0; j < J; ++j) {
            /* D = R R_rest^-1 for both; compare as rotations (|dot| = 1). */
            double ds[4], dt[4];
            const double *a = rs[j], *b = rs0[j], *c = rt[j], *d = rt0[j];
            const double bi[4] = {-b[0], -b[1], -b[2], b[3]}, di[4] = {-d[0], -d[1], -d[2], d[3]};
            ds[0] = a[3] * bi[0] + a[0] * bi[3] + a[1] * bi[2] - a[2] * bi[1];
            ds[1] = a[3] * bi[1] - a[0] * bi[2] + a[1] * bi[3] + a[2] * bi[0];
            ds[2] = a[3] * bi[2] + a[0] * bi[1] - a[1] * bi[0] + a[2] * bi[3];
            ds[3] = a[3] * bi[3] - a[0] * bi[0] - a[1] * bi[1] - a[2] * bi[2];
            dt[0] = c[3] * di[0] + c[0] * di[3] + c[1] * di[2] - c[2] * di[1];
            dt[1] = c[3] * di[1] - c[0] * di[2] + c[1] * di[3] + c[2] * di[0];
            dt[2] = c[3] * di[2] + c[0] * di[1] - c[1] * di[0] + c[2] * di[3];
            dt[3] = c[3] * di[3] - c[0] * di[0] - c[1] * di[1] - c[2] * di[2];
            const double dot = ds[0] * dt[0] + ds[1] * dt[1] + ds[2] * dt[2] + ds[3] * dt[3];
            worst = fmax(worst, 1.0 - fabs(dot));
        }
    }
    assert_true(worst < 1e-5);
    free(rest_s), free(rest_t), free(ls), free(lt), free(p), free(rs0), free(rt0), free(rs), free(rt);
    ossa_raw_animation_destroy(&out);
    ossa_raw_skeleton_destroy(&dst);
    ossa_import_output_destroy(&in);
}

static void test_errors(void **state)
{
    (void)state;
    ossa_import_output in;
    import_cmu(&in);
    ossa_raw_skeleton other = {0};
    assert_int_equal(ossa_raw_skeleton_create(&other, 2, NULL), OSSA_OK);
    ossa_raw_skeleton_set_name(&other, 0, "pelvis");
    ossa_raw_skeleton_set_name(&other, 1, "spine");
    other.joints[1].parent = 0;
    ossa_raw_animation out = {0};
    ossa_diag diag = {0};
    ossa_retarget_desc desc = {.target = &other};
    /* No name in common: the root is bound to nothing. */
    assert_int_equal(ossa_retarget(&in.animations[0], &in.skeleton, &desc, &out, &diag), OSSA_ERROR_JOINT_MISMATCH);
    assert_non_null(strstr(diag.message, "pelvis"));
    const ossa_retarget_pair bad[] = {{"pelvis", "NoSuchJoint"}};
    desc.map = bad, desc.map_count = 1;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_retarget(&in.animations[0], &in.skeleton, &desc, &out, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(diag.message, "NoSuchJoint"));
    /* Root bound through the map: the spine keeps its rest rotation. */
    const ossa_retarget_pair good[] = {{"pelvis", "Hips"}};
    desc.map = good;
    assert_int_equal(ossa_retarget(&in.animations[0], &in.skeleton, &desc, &out, NULL), OSSA_OK);
    assert_int_equal(out.track_count, 2);
    assert_true(out.tracks[0].translation_count > 1 && out.tracks[1].translation_count == 1);
    assert_int_equal(ossa_retarget(NULL, &in.skeleton, &desc, &out, NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(out.track_count, 0);
    ossa_raw_skeleton_destroy(&other);
    ossa_import_output_destroy(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_feet_follow_scaled_legs),
        cmocka_unit_test(test_rest_poses_aligned_in_model_space),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
