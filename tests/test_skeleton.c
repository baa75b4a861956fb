/* Raw skeleton, depth-first sorting, skeleton builder and the runtime view. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/builders.h"
#include "ossa/skeleton.h"
#include "test_util.h"

/* hips(0) <- spine(2) <- head(4); hips <- leg_l(3) <- foot_l(1); a second root prop(5). */
static void make_shuffled(ossa_raw_skeleton *raw)
{
    static const char *names[] = {"hips", "foot_l", "spine", "leg_l", "head", "prop"};
    static const int parents[] = {-1, 3, 0, 0, 2, -1};
    assert_int_equal(ossa_raw_skeleton_create(raw, 6, NULL), OSSA_OK);
    for (int i = 0; i < 6; ++i) {
        assert_int_equal(ossa_raw_skeleton_set_name(raw, (size_t)i, names[i]), OSSA_OK);
        raw->joints[i].parent = parents[i];
        raw->joints[i].rest.translation = (ossa_float3){(float)i, 2.f * (float)i, 0.f};
    }
}

static void test_sort_depth_first(void **state)
{
    (void)state;
    ossa_raw_skeleton raw;
    make_shuffled(&raw);
    assert_false(ossa_raw_skeleton_is_depth_first(&raw));
    size_t mapping[6];
    assert_int_equal(ossa_raw_skeleton_sort_depth_first(&raw, mapping, NULL), OSSA_OK);
    assert_true(ossa_raw_skeleton_is_depth_first(&raw));
    /* Expected pre-order: hips, spine, head, leg_l, foot_l, prop (children in input order). */
    static const char *order[] = {"hips", "spine", "head", "leg_l", "foot_l", "prop"};
    static const int parents[] = {-1, 0, 1, 0, 3, -1};
    for (int i = 0; i < 6; ++i) {
        assert_string_equal(raw.joints[i].name, order[i]);
        assert_int_equal(raw.joints[i].parent, parents[i]);
    }
    assert_int_equal(mapping[0], 0), assert_int_equal(mapping[1], 4), assert_int_equal(mapping[2], 1);
    assert_int_equal(mapping[3], 3), assert_int_equal(mapping[4], 2), assert_int_equal(mapping[5], 5);
    assert_float_equal(raw.joints[4].rest.translation.x, 1.f, 0.f); /* foot_l kept its rest pose */
    ossa_raw_skeleton_destroy(&raw);
}

/* The rest-pose extent against positions worked out by hand: a root at (0, 10, 0) rotated a
 * quarter turn about z (x -> y, y -> -x) and scaled 2; its child 3 units along x lands at
 * (0, 16, 0), a grandchild 1 unit along -y (in the child's frame, no rotation, the root's scale
 * carries) at (2, 16, 0). Extents: x 2, y 6, z 0, so 6. */
static void test_rest_height(void **state)
{
    (void)state;
    ossa_raw_skeleton raw;
    assert_int_equal(ossa_raw_skeleton_create(&raw, 3, NULL), OSSA_OK);
    const float h = sqrtf(.5f);
    raw.joints[0].rest = (ossa_transform){{0.f, 10.f, 0.f}, {0.f, 0.f, h, h}, {2.f, 2.f, 2.f}};
    raw.joints[1].parent = 0;
    raw.joints[1].rest.translation = (ossa_float3){3.f, 0.f, 0.f};
    raw.joints[2].parent = 1;
    raw.joints[2].rest.translation = (ossa_float3){0.f, -1.f, 0.f};
    float height = -1.f;
    assert_int_equal(ossa_raw_skeleton_rest_height(&raw, &height, NULL), OSSA_OK);
    assert_float_equal(height, 6.f, 1e-5f);
    /* A parent after its child is refused (sort first); one joint has no extent. */
    raw.joints[0].parent = 2, raw.joints[2].parent = -1, raw.joints[1].parent = 2;
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_raw_skeleton_rest_height(&raw, &height, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(diag.message, "sort"));
    ossa_raw_skeleton_destroy(&raw);
    assert_int_equal(ossa_raw_skeleton_create(&raw, 1, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_rest_height(&raw, &height, NULL), OSSA_OK);
    assert_float_equal(height, 0.f, 0.f);
    ossa_raw_skeleton_destroy(&raw);
}

static void test_build_and_view(void **state)
{
    (void)state;
    ossa_raw_skeleton raw;
    make_shuffled(&raw);
    ossa_blob blob = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_skeleton_build(&raw, NULL, &blob, &diag), OSSA_ERROR_INVALID_SKELETON); /* not sorted */
    assert_null(blob.data);
    assert_int_equal(ossa_raw_skeleton_sort_depth_first(&raw, NULL, NULL), OSSA_OK);
    raw.joints[2].rest.rotation = (ossa_quat){0.f, 0.f, 0.70710678f, 0.70710678f};
    assert_int_equal(ossa_skeleton_build(&raw, NULL, &blob, NULL), OSSA_OK);
    ossa_skeleton skel;
    assert_int_equal(ossa_skeleton_init(&skel, blob.data, blob.size), OSSA_OK);
    assert_int_equal(skel.joint_count, 6);
    assert_int_equal(skel.soa_count, 2);
    for (size_t i = 0; i < 6; ++i) {
        assert_string_equal(ossa_skeleton_joint_name(&skel, i), raw.joints[i].name);
        assert_int_equal(skel.parents[i], raw.joints[i].parent);
        const ossa_transform t = ossa_skeleton_rest_transform(&skel, i);
        assert_float_equal(t.translation.x, raw.joints[i].rest.translation.x, 0.f);
        assert_float_equal(t.translation.y, raw.joints[i].rest.translation.y, 0.f);
        assert_float_equal(t.rotation.z, raw.joints[i].rest.rotation.z, 1e-7f);
        assert_float_equal(t.scale.y, 1.f, 0.f);
    }
    /* Unused lanes of the last SoA group hold identity. */
    assert_float_equal(skel.rest_pose[1].rotation.w[3], 1.f, 0.f);
    assert_int_equal(ossa_skeleton_find_joint(&skel, "head"), 2);
    assert_int_equal(ossa_skeleton_find_joint(&skel, "tail"), -1);
    assert_string_equal(ossa_skeleton_joint_name(&skel, 99), "");
    ossa_blob_destroy(&blob);
    ossa_raw_skeleton_destroy(&raw);
}

static void test_invalid_raw_skeleton(void **state)
{
    (void)state;
    ossa_raw_skeleton raw;
    make_shuffled(&raw);
    ossa_diag diag = {0};
    raw.joints[0].parent = 4; /* hips -> head -> spine -> hips: a cycle */
    assert_int_equal(ossa_raw_skeleton_validate(&raw, &diag), OSSA_ERROR_INVALID_SKELETON);
    assert_non_null(strstr(diag.message, "cycle"));
    raw.joints[0].parent = 17;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_raw_skeleton_validate(&raw, &diag), OSSA_ERROR_INVALID_SKELETON);
    assert_non_null(strstr(diag.message, "hips"));
    raw.joints[0].parent = -1;
    raw.joints[5].rest.rotation.w = 3.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_raw_skeleton_validate(&raw, &diag), OSSA_ERROR_INVALID_SKELETON);
    assert_int_equal(diag.offset, 5);
    ossa_raw_skeleton_destroy(&raw);
    assert_int_equal(ossa_raw_skeleton_create(&raw, OSSA_MAX_JOINTS + 1, NULL), OSSA_ERROR_TOO_MANY_JOINTS);
}

static void test_corrupted_blob(void **state)
{
    (void)state;
    ossa_raw_skeleton raw;
    make_shuffled(&raw);
    assert_int_equal(ossa_raw_skeleton_sort_depth_first(&raw, NULL, NULL), OSSA_OK);
    ossa_blob blob = {0};
    assert_int_equal(ossa_skeleton_build(&raw, NULL, &blob, NULL), OSSA_OK);
    unsigned char *copy = aligned_alloc(16, blob.size);
    ossa_skeleton skel;
    for (size_t n = 0; n < blob.size - 15; ++n) {
        memcpy(copy, blob.data, n);
        assert_int_not_equal(ossa_skeleton_init(&skel, copy, n), OSSA_OK);
        assert_int_equal(skel.joint_count, 0);
    }
    memcpy(copy, blob.data, blob.size);
    const size_t parents_at = 16 + 2 * sizeof(ossa_soa_transform);
    copy[parents_at + 2 * 3] = 5; /* joint 3's parent = 5 (not lower than 3) */
    assert_int_equal(ossa_skeleton_init(&skel, copy, blob.size), OSSA_ERROR_INVALID_SKELETON);
    memcpy(copy, blob.data, blob.size);
    copy[blob.size - 1] = 'x'; /* padding / last name byte no longer NUL-terminated or trailing */
    memcpy(copy, blob.data, blob.size);
    copy[0] = 0xff, copy[1] = 0xff; /* joint count 65535 */
    assert_int_equal(ossa_skeleton_init(&skel, copy, blob.size), OSSA_ERROR_TOO_MANY_JOINTS);
    free(copy);
    ossa_blob_destroy(&blob);
    ossa_raw_skeleton_destroy(&raw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sort_depth_first), cmocka_unit_test(test_rest_height),
        cmocka_unit_test(test_build_and_view),   cmocka_unit_test(test_invalid_raw_skeleton),
        cmocka_unit_test(test_corrupted_blob),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
