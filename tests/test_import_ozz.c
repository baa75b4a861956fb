/* ozz-animation archive importer tests. Small archives are written here field by field (both
 * byte orders) from the layout in ozz's archive sources, so expected values and offsets are
 * known by construction; the real archives in the data directory's ozz/ are checked against each
 * other (little vs big endian, raw vs runtime skeleton) and against numbers derived from
 * their sizes and frame rate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#include "ossa/offline/import_ozz.h"

/* ---- archive writer ----------------------------------------------------------------- */

typedef struct wbuf {
    uint8_t data[65536];
    size_t size;
    bool big;
} wbuf;

static void w_bytes(wbuf *w, const void *p, size_t n)
{
    assert_true(w->size + n <= sizeof w->data);
    memcpy(w->data + w->size, p, n);
    w->size += n;
}

static void w_u32(wbuf *w, uint32_t v)
{
    const uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    const uint8_t be[4] = {le[3], le[2], le[1], le[0]};
    w_bytes(w, w->big ? be : le, 4);
}

static void w_i16(wbuf *w, int v)
{
    const uint16_t u = (uint16_t)v;
    const uint8_t le[2] = {(uint8_t)u, (uint8_t)(u >> 8)};
    const uint8_t be[2] = {le[1], le[0]};
    w_bytes(w, w->big ? be : le, 2);
}

static void w_f32(wbuf *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    w_u32(w, u);
}

static void w_str(wbuf *w, const char *s)
{
    w_u32(w, (uint32_t)strlen(s));
    w_bytes(w, s, strlen(s));
}

/* Starts an archive (endianness byte) in `w`. */
static void w_begin(wbuf *w, bool big)
{
    w->size = 0;
    w->big = big;
    const uint8_t e = big ? 0 : 1;
    w_bytes(w, &e, 1);
}

static void w_object(wbuf *w, const char *tag, uint32_t version)
{
    w_bytes(w, tag, strlen(tag) + 1);
    w_u32(w, version);
}

/* Array header: count, then the element version 1 when not empty. */
static void w_array(wbuf *w, uint32_t count)
{
    w_u32(w, count);
    if (count) w_u32(w, 1);
}

static void w_transform(wbuf *w, const float v[10])
{
    for (int i = 0; i < 10; ++i) w_f32(w, v[i]);
}

/* Hand-made RawSkeleton: root { a { a1 }, b }. Depth-first: root, a, a1, b. */
static const char *const tree_names[4] = {"root", "a", "a1", "b"};
static const int tree_parents[4] = {-1, 0, 1, 0};
static const float tree_pose[4][10] = {
    {1.f, 2.f, 3.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f},
    {0.f, 0.5f, 0.f, 0.f, 0.70710677f, 0.f, 0.70710677f, 1.f, 1.f, 1.f},
    {0.25f, 0.f, -0.125f, 0.6f, 0.f, 0.f, 0.8f, 2.f, 2.f, 2.f},
    {-1.f, 0.f, 0.f, 0.f, 0.f, -0.6f, 0.8f, 1.f, 0.5f, 1.f},
};

static void write_raw_skeleton(wbuf *w)
{
    w_object(w, "ozz-raw_skeleton", 1);
    w_array(w, 1); /* roots */
    w_str(w, "root"), w_transform(w, tree_pose[0]);
    w_array(w, 2);
    w_str(w, "a"), w_transform(w, tree_pose[1]);
    w_array(w, 1);
    w_str(w, "a1"), w_transform(w, tree_pose[2]);
    w_array(w, 0);
    w_str(w, "b"), w_transform(w, tree_pose[3]);
    w_array(w, 0);
}

/* Runtime Skeleton v2 of the same tree (5 joints with "c" under b to use two SoA groups). */
static const char *const soa_names[5] = {"root", "a", "a1", "b", "c"};
static const int soa_parents[5] = {-1, 0, 1, 0, 3};

static void soa_pose(int joint, float v[10])
{
    if (joint < 4) {
        memcpy(v, tree_pose[joint], sizeof tree_pose[joint]);
        return;
    }
    const float c[10] = {3.f, 4.f, 5.f, 0.f, 0.f, 0.f, 1.f, 3.f, 3.f, 3.f};
    memcpy(v, c, sizeof c);
}

static void write_skeleton(wbuf *w)
{
    w_object(w, "ozz-skeleton", 2);
    w_u32(w, 5);
    uint32_t chars = 0;
    for (int i = 0; i < 5; ++i) chars += (uint32_t)strlen(soa_names[i]) + 1;
    w_u32(w, chars);
    for (int i = 0; i < 5; ++i) w_bytes(w, soa_names[i], strlen(soa_names[i]) + 1);
    for (int i = 0; i < 5; ++i) w_i16(w, soa_parents[i]);
    for (int g = 0; g < 2; ++g)
        for (int c = 0; c < 10; ++c)
            for (int lane = 0; lane < 4; ++lane) {
                float v[10] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f}; /* padding lanes */
                if (g * 4 + lane < 5) soa_pose(g * 4 + lane, v);
                w_f32(w, v[c]);
            }
}

/* RawAnimation v3 with `tracks` tracks: track t has t + 1 translation keys, 2 rotation keys
 * and (t % 2) scale keys; values are functions of (t, k) checked by check_animation. */
static void write_raw_animation(wbuf *w, uint32_t tracks, const char *name)
{
    w_object(w, "ozz-raw_animation", 3);
    w_f32(w, 2.f);
    w_array(w, tracks);
    for (uint32_t t = 0; t < tracks; ++t) {
        w_array(w, t + 1);
        for (uint32_t k = 0; k <= t; ++k) {
            w_f32(w, (float)k * 0.25f);
            w_f32(w, (float)t), w_f32(w, (float)k), w_f32(w, -1.5f);
        }
        w_array(w, 2);
        w_f32(w, 0.f), w_f32(w, 0.f), w_f32(w, 0.f), w_f32(w, 0.f), w_f32(w, 1.f);
        w_f32(w, 2.f), w_f32(w, 0.f), w_f32(w, 0.6f), w_f32(w, 0.f), w_f32(w, 0.8f);
        w_array(w, t % 2);
        if (t % 2) w_f32(w, 1.f), w_f32(w, 2.f), w_f32(w, 3.f), w_f32(w, 4.f);
    }
    w_str(w, name);
}

static void check_animation(const ossa_raw_animation *a, size_t tracks, const char *name)
{
    assert_string_equal(a->name, name);
    assert_true(a->duration == 2.f);
    assert_int_equal(a->track_count, tracks);
    for (size_t t = 0; t < tracks; ++t) {
        const ossa_raw_joint_track *tr = &a->tracks[t];
        assert_int_equal(tr->translation_count, t + 1);
        for (size_t k = 0; k <= t; ++k) {
            assert_true(tr->translations[k].time == (float)k * 0.25f);
            assert_true(tr->translations[k].value.x == (float)t);
            assert_true(tr->translations[k].value.y == (float)k);
            assert_true(tr->translations[k].value.z == -1.5f);
        }
        assert_int_equal(tr->rotation_count, 2);
        assert_true(tr->rotations[0].time == 0.f && tr->rotations[0].value.w == 1.f);
        assert_true(tr->rotations[1].time == 2.f && tr->rotations[1].value.y == 0.6f &&
                    tr->rotations[1].value.w == 0.8f && tr->rotations[1].value.x == 0.f);
        assert_int_equal(tr->scale_count, t % 2);
        if (t % 2)
            assert_true(tr->scales[0].time == 1.f && tr->scales[0].value.x == 2.f && tr->scales[0].value.y == 3.f &&
                        tr->scales[0].value.z == 4.f);
    }
}

static bool meta_is(const ossa_import_output *out, const char *key, const char *value)
{
    char buffer[256];
    return ossa_import_output_metadata(out, key, buffer, sizeof buffer) && strcmp(buffer, value) == 0;
}

/* Imports and expects `code` at `offset` (SIZE_MAX: any), an empty output on failure. */
static void expect_error(const void *data, size_t size, ossa_result code, size_t offset, const char *needle)
{
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    const ossa_result r = ossa_import_ozz(data, size, NULL, &out, &diag);
    if (r != code || diag.code != code || (offset != SIZE_MAX && diag.offset != offset) ||
        (needle && !strstr(diag.message, needle)))
        print_error("got %s at %zu: %s\n", ossa_result_name(r), diag.offset, diag.message);
    assert_int_equal(r, code);
    assert_int_equal(diag.code, code);
    if (offset != SIZE_MAX) assert_int_equal(diag.offset, offset);
    if (needle) assert_non_null(strstr(diag.message, needle));
    assert_true(diag.message[0] != '\0');
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_null(out.skeleton.joints);
    assert_int_equal(out.animation_count, 0);
    assert_null(out.metadata);
    ossa_import_output_destroy(&out);
}

static ossa_result import(const void *data, size_t size, ossa_import_output *out)
{
    ossa_diag diag = {0};
    const ossa_result r = ossa_import_ozz(data, size, NULL, out, &diag);
    if (r != OSSA_OK) print_error("%s at %zu: %s\n", ossa_result_name(r), diag.offset, diag.message);
    return r;
}

/* ---- hand-made archives ------------------------------------------------------------- */

static void test_raw_skeleton_both_orders(void **state)
{
    (void)state;
    for (int big = 0; big < 2; ++big) {
        static wbuf w;
        w_begin(&w, big);
        write_raw_skeleton(&w);
        ossa_import_output out = {0};
        assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
        assert_int_equal(out.skeleton.joint_count, 4);
        assert_int_equal(out.animation_count, 0);
        for (int i = 0; i < 4; ++i) {
            const ossa_raw_joint *j = &out.skeleton.joints[i];
            assert_string_equal(j->name, tree_names[i]);
            assert_int_equal(j->parent, tree_parents[i]);
            const float got[10] = {j->rest.translation.x, j->rest.translation.y, j->rest.translation.z,
                                   j->rest.rotation.x,    j->rest.rotation.y,    j->rest.rotation.z,
                                   j->rest.rotation.w,    j->rest.scale.x,       j->rest.scale.y,
                                   j->rest.scale.z};
            assert_memory_equal(got, tree_pose[i], sizeof got);
        }
        assert_true(meta_is(&out, "format", "ozz-raw-skeleton"));
        assert_true(meta_is(&out, "endianness", big ? "big" : "little"));
        /* No unit in an archive: the bake infers one of these from the rest pose. */
        assert_true(meta_is(&out, "source_units", "unknown"));
        assert_true(meta_is(&out, "unit_scale", "1"));
        assert_true(meta_is(&out, "unit_candidates", "1 0.01 0.001"));
        assert_true(meta_is(&out, "objects", "ozz-raw_skeleton"));
        ossa_import_output_destroy(&out);
    }
}

static void test_runtime_skeleton_soa_lanes(void **state)
{
    (void)state;
    for (int big = 0; big < 2; ++big) {
        static wbuf w;
        w_begin(&w, big);
        write_skeleton(&w);
        ossa_import_output out = {0};
        assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
        assert_int_equal(out.skeleton.joint_count, 5);
        for (int i = 0; i < 5; ++i) {
            const ossa_raw_joint *j = &out.skeleton.joints[i];
            float want[10];
            soa_pose(i, want);
            assert_string_equal(j->name, soa_names[i]);
            assert_int_equal(j->parent, soa_parents[i]);
            const float got[10] = {j->rest.translation.x, j->rest.translation.y, j->rest.translation.z,
                                   j->rest.rotation.x,    j->rest.rotation.y,    j->rest.rotation.z,
                                   j->rest.rotation.w,    j->rest.scale.x,       j->rest.scale.y,
                                   j->rest.scale.z};
            assert_memory_equal(got, want, sizeof got);
        }
        assert_true(meta_is(&out, "format", "ozz-skeleton"));
        ossa_import_output_destroy(&out);
    }
    /* parents below children but not depth-first (-1 0 0 1 3): kept in archive order */
    static wbuf w;
    w_begin(&w, false);
    write_skeleton(&w);
    const size_t parents = 1 + 13 + 4 + 4 + 4 + (5 + 2 + 3 + 2 + 2);
    w.data[parents + 4] = 0, w.data[parents + 6] = 1;
    ossa_import_output mixed = {0};
    assert_int_equal(import(w.data, w.size, &mixed), OSSA_OK);
    const int want[5] = {-1, 0, 0, 1, 3};
    for (int i = 0; i < 5; ++i) assert_int_equal(mixed.skeleton.joints[i].parent, want[i]);
    assert_false(ossa_raw_skeleton_is_depth_first(&mixed.skeleton));
    ossa_import_output_destroy(&mixed);

    /* an empty runtime skeleton is only its joint count */
    w_begin(&w, false);
    w_object(&w, "ozz-skeleton", 2);
    w_u32(&w, 0);
    ossa_import_output out = {0};
    assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 0);
    ossa_import_output_destroy(&out);
}

static void test_raw_animation_both_orders(void **state)
{
    (void)state;
    for (int big = 0; big < 2; ++big) {
        static wbuf w;
        w_begin(&w, big);
        write_raw_animation(&w, 3, "clip");
        ossa_import_output out = {0};
        assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
        assert_int_equal(out.skeleton.joint_count, 0);
        assert_int_equal(out.animation_count, 1);
        check_animation(&out.animations[0], 3, "clip");
        assert_true(meta_is(&out, "format", "ozz-raw-animation"));
        assert_true(meta_is(&out, "endianness", big ? "big" : "little"));
        ossa_import_output_destroy(&out);
    }
}

static void test_skeleton_and_animations_in_one_archive(void **state)
{
    (void)state;
    static wbuf w;
    w_begin(&w, true);
    write_raw_animation(&w, 4, "first");
    write_raw_skeleton(&w);
    write_raw_animation(&w, 4, "second");
    ossa_import_output out = {0};
    assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 4);
    assert_int_equal(out.animation_count, 2);
    check_animation(&out.animations[0], 4, "first");
    check_animation(&out.animations[1], 4, "second");
    assert_true(meta_is(&out, "format", "ozz-raw-skeleton"));
    assert_true(meta_is(&out, "objects", "ozz-raw_animation,ozz-raw_skeleton,ozz-raw_animation"));
    ossa_import_output_destroy(&out);

    /* ten animations: the object list (18 bytes a tag) stops with ",..." within 160 bytes */
    w_begin(&w, false);
    for (int i = 0; i < 10; ++i) write_raw_animation(&w, 2, "one");
    assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
    assert_int_equal(out.animation_count, 10);
    for (int i = 0; i < 10; ++i) check_animation(&out.animations[i], 2, "one");
    char objects[256];
    assert_true(ossa_import_output_metadata(&out, "objects", objects, sizeof objects));
    assert_true(strlen(objects) < 160 && strlen(objects) > 100);
    assert_string_equal(objects + strlen(objects) - 22, ",ozz-raw_animation,...");
    ossa_import_output_destroy(&out);

    /* 3 tracks for 4 joints */
    w_begin(&w, false);
    write_raw_skeleton(&w);
    write_raw_animation(&w, 3, "short");
    expect_error(w.data, w.size, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX, "3 tracks");

    /* two skeletons: the second one's tag offset */
    w_begin(&w, false);
    write_raw_skeleton(&w);
    const size_t second = w.size;
    write_skeleton(&w);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_FORMAT, second, "second skeleton");
}

static void test_bad_headers(void **state)
{
    (void)state;
    expect_error("", 0, OSSA_ERROR_TRUNCATED, 0, NULL);
    expect_error("\x02ozz-skeleton", 14, OSSA_ERROR_BAD_MAGIC, 0, "endianness");
    expect_error("\x01ozx-skeleton", 14, OSSA_ERROR_BAD_MAGIC, 1, "ozz-");
    expect_error("\x01oz", 3, OSSA_ERROR_TRUNCATED, 1, NULL);
    expect_error("\x01ozz-skel", 9, OSSA_ERROR_TRUNCATED, 1, "NUL");
    char long_tag[80] = "\x01ozz-";
    memset(long_tag + 5, 'x', 70);
    expect_error(long_tag, 76, OSSA_ERROR_CORRUPT, 1, "longer");
    expect_error(NULL, 4, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, NULL);
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_ozz("\x01", 1, NULL, NULL, &diag), OSSA_ERROR_NULL_ARGUMENT);

    /* bytes after a complete object that are not another object */
    static wbuf w;
    w_begin(&w, false);
    write_raw_skeleton(&w);
    const size_t end = w.size;
    w_bytes(&w, "junk", 4);
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, end, "end of the data");
}

static void test_unsupported_objects_and_versions(void **state)
{
    (void)state;
    static wbuf w;
    const struct {
        const char *tag;
        uint32_t version;
    } bad[] = {{"ozz-raw_skeleton", 2}, {"ozz-raw_skeleton", 0},  {"ozz-skeleton", 1},
               {"ozz-skeleton", 3},     {"ozz-raw_animation", 2}, {"ozz-raw_animation", 4}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        for (int big = 0; big < 2; ++big) {
            w_begin(&w, big);
            w_object(&w, bad[i].tag, bad[i].version);
            w_u32(&w, 0);
            char needle[64];
            snprintf(needle, sizeof needle, "version %u", (unsigned)bad[i].version);
            expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_VERSION, 1 + strlen(bad[i].tag) + 1, needle);
            expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_VERSION, SIZE_MAX, bad[i].tag);
        }
    }
    /* element version of the roots array */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    w_u32(&w, 1);
    const size_t element = w.size;
    w_u32(&w, 2);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_VERSION, element, "element version 2");
    /* element version of rotation keys */
    w_begin(&w, true);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    w_array(&w, 1);
    w_array(&w, 0);
    w_u32(&w, 1);
    const size_t rotation_version = w.size;
    w_u32(&w, 0);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_VERSION, rotation_version, "rotation keys");

    w_begin(&w, false);
    w_object(&w, "ozz-animation", 7);
    w_f32(&w, 1.f);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "runtime animations are not supported");
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "version 7");
    w_begin(&w, false);
    w_object(&w, "ozz-float_track", 1);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "\"ozz-float_track\" version 1");
    w_begin(&w, false);
    w_bytes(&w, "ozz-new\0\x01", 9);
    expect_error(w.data, w.size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "\"ozz-new\" (no version)");
}

static void test_counts_beyond_the_data(void **state)
{
    (void)state;
    static wbuf w;
    /* track count */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    size_t at = w.size;
    w_array(&w, 0xffffffffu);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, "4294967295 tracks");
    /* key count */
    w_begin(&w, true);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    w_array(&w, 1);
    at = w.size;
    w_array(&w, 0x10000000u);
    for (int i = 0; i < 64; ++i) w_f32(&w, 0.f);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, "translation keys");
    /* more tracks than joints supported, all present */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    at = w.size;
    w_array(&w, OSSA_MAX_JOINTS + 1);
    for (int i = 0; i <= OSSA_MAX_JOINTS; ++i) w_u32(&w, 0), w_u32(&w, 0), w_u32(&w, 0);
    w_str(&w, "");
    expect_error(w.data, w.size, OSSA_ERROR_TOO_MANY_JOINTS, at, NULL);
    /* exactly the maximum is fine */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    w_array(&w, OSSA_MAX_JOINTS);
    for (int i = 0; i < OSSA_MAX_JOINTS; ++i) w_u32(&w, 0), w_u32(&w, 0), w_u32(&w, 0);
    w_str(&w, "many");
    ossa_import_output out = {0};
    assert_int_equal(import(w.data, w.size, &out), OSSA_OK);
    assert_int_equal(out.animations[0].track_count, OSSA_MAX_JOINTS);
    ossa_import_output_destroy(&out);
    /* name length */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    w_array(&w, 0);
    at = w.size;
    w_u32(&w, 0x7fffffffu);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, "animation name");
    /* raw skeleton roots and children */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    at = w.size;
    w_array(&w, 1000);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, "root joints");
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    w_array(&w, 1);
    w_str(&w, "r"), w_transform(&w, tree_pose[0]);
    at = w.size;
    w_array(&w, 0x40000000u);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, "child joints");
    /* a chain deeper than the joints supported (each joint one child): no recursion */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    w_array(&w, 1);
    for (int i = 0; i <= OSSA_MAX_JOINTS; ++i) {
        w_str(&w, "");
        w_transform(&w, tree_pose[0]);
        w_array(&w, i < OSSA_MAX_JOINTS ? 1 : 0);
    }
    expect_error(w.data, w.size, OSSA_ERROR_TOO_MANY_JOINTS, SIZE_MAX, NULL);
    /* runtime skeleton joint count: huge, negative, too many */
    w_begin(&w, true);
    w_object(&w, "ozz-skeleton", 2);
    at = w.size;
    w_u32(&w, 0x7fffffffu);
    w_u32(&w, 10);
    expect_error(w.data, w.size, OSSA_ERROR_TRUNCATED, at, NULL);
    w_begin(&w, true);
    w_object(&w, "ozz-skeleton", 2);
    w_u32(&w, 0xfffffffeu);
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, at, "negative");
    w_begin(&w, false);
    w_object(&w, "ozz-skeleton", 2);
    w_u32(&w, OSSA_MAX_JOINTS + 4);
    w_u32(&w, OSSA_MAX_JOINTS + 4);
    for (int i = 0; i < OSSA_MAX_JOINTS + 4; ++i) w_bytes(&w, "", 1);
    for (int i = 0; i < OSSA_MAX_JOINTS + 4; ++i) w_i16(&w, i - 1);
    for (int i = 0; i < (OSSA_MAX_JOINTS + 4) / 4 * 40; ++i) w_f32(&w, 0.f);
    expect_error(w.data, w.size, OSSA_ERROR_TOO_MANY_JOINTS, at, NULL);
}

static void test_corrupt_fields(void **state)
{
    (void)state;
    static wbuf w;
    /* runtime skeleton: a parent that is not below its child */
    w_begin(&w, false);
    write_skeleton(&w);
    const size_t parents = 1 + 13 + 4 + 4 + 4 + (5 + 2 + 3 + 2 + 2);
    w.data[parents + 2 * 2] = 2; /* joint 2's parent := 2 (little-endian low byte) */
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, parents + 4, "parent 2");
    w_begin(&w, true);
    write_skeleton(&w);
    w.data[parents + 2 * 4] = 0x7f; /* joint 4's parent := 0x7f03 */
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, parents + 8, "joint 4");
    /* names: one NUL replaced, so 4 names for 5 joints */
    w_begin(&w, false);
    write_skeleton(&w);
    w.data[1 + 13 + 4 + 4 + 4 + 4] = 'X'; /* the NUL after "root" */
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, 1 + 13 + 4 + 4 + 4, "names");
    /* raw joint name with a NUL inside */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    w_array(&w, 1);
    const size_t name_at = w.size;
    w_u32(&w, 3);
    w_bytes(&w, "a\0b", 3);
    w_transform(&w, tree_pose[0]);
    w_array(&w, 0);
    expect_error(w.data, w.size, OSSA_ERROR_CORRUPT, name_at + 4, "NUL");
    /* decoded values that the raw validators refuse */
    w_begin(&w, false);
    w_object(&w, "ozz-raw_skeleton", 1);
    w_array(&w, 1);
    w_str(&w, "zero_rotation");
    const float zero_rotation[10] = {0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f};
    w_transform(&w, zero_rotation);
    w_array(&w, 0);
    expect_error(w.data, w.size, OSSA_ERROR_INVALID_SKELETON, 1, "zero_rotation");
    w_begin(&w, false);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 1.f);
    w_array(&w, 1);
    w_array(&w, 2);
    w_f32(&w, 0.5f), w_f32(&w, 0.f), w_f32(&w, 0.f), w_f32(&w, 0.f);
    w_f32(&w, 0.25f), w_f32(&w, 0.f), w_f32(&w, 0.f), w_f32(&w, 0.f);
    w_array(&w, 0), w_array(&w, 0);
    w_str(&w, "backwards");
    expect_error(w.data, w.size, OSSA_ERROR_INVALID_KEY, 1, "translation");
    w_begin(&w, true);
    w_object(&w, "ozz-raw_animation", 3);
    w_f32(&w, 0.f);
    w_array(&w, 0);
    w_str(&w, "");
    expect_error(w.data, w.size, OSSA_ERROR_INVALID_ANIMATION, 1, "duration");
}

/* Every strict prefix of a one-object archive ends inside a field. */
static void expect_prefixes_truncated(const uint8_t *data, size_t size, size_t step)
{
    for (size_t n = 0; n < size; n += step) {
        ossa_import_output out = {0};
        ossa_diag diag = {0};
        const ossa_result r = ossa_import_ozz(data, n, NULL, &out, &diag);
        if (r != OSSA_ERROR_TRUNCATED || diag.offset > n)
            print_error("prefix %zu of %zu: %s at %zu: %s\n", n, size, ossa_result_name(r), diag.offset, diag.message);
        assert_int_equal(r, OSSA_ERROR_TRUNCATED);
        assert_true(diag.offset <= n);
        assert_int_equal(out.skeleton.joint_count, 0);
        assert_int_equal(out.animation_count, 0);
        ossa_import_output_destroy(&out);
    }
}

static void test_truncated_handmade(void **state)
{
    (void)state;
    for (int big = 0; big < 2; ++big) {
        static wbuf w;
        w_begin(&w, big);
        write_raw_skeleton(&w);
        expect_prefixes_truncated(w.data, w.size, 1);
        w_begin(&w, big);
        write_skeleton(&w);
        expect_prefixes_truncated(w.data, w.size, 1);
        w_begin(&w, big);
        write_raw_animation(&w, 5, "clip");
        expect_prefixes_truncated(w.data, w.size, 1);
    }
}

static void test_detection(void **state)
{
    (void)state;
    static wbuf w;
    w_begin(&w, true);
    write_raw_skeleton(&w);
    assert_int_equal(ossa_import_detect(w.data, w.size, NULL), OSSA_FORMAT_OZZ);
    assert_int_equal(ossa_import_detect(w.data, w.size, "skeleton.bin"), OSSA_FORMAT_OZZ);
    assert_int_equal(ossa_import_detect("", 0, "dir/walk.OZZ"), OSSA_FORMAT_OZZ);
    assert_int_equal(ossa_import_detect("\x02ozz-x", 6, NULL), OSSA_FORMAT_UNKNOWN);
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_any(w.data, w.size, "skeleton.ozz", &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 4);
    ossa_import_output_destroy(&out);
}

/* ---- real archives ------------------------------------------------------------------ */

static uint8_t *load(const char *name, size_t *size)
{
    char relative[128], shown[160];
    snprintf(relative, sizeof relative, "ozz/%s", name);
    snprintf(shown, sizeof shown, "DATA/ozz/%s", name);
    return ossa_test_read_or_skip(ossa_test_shared_path(relative), shown, size);
}

static void test_pab_raw_clips(void **state)
{
    (void)state;
    const struct {
        const char *file, *name;
        float duration;
    } clips[] = {{"pab_walk_raw.ozz", "walk", 4.f / 3.f},
                 {"pab_jog_raw.ozz", "jog", 0.8f},
                 {"pab_run_raw.ozz", "run", 2.f / 3.f},
                 {"pab_atlas_raw.ozz", "atlas", 15.f}};
    for (size_t c = 0; c < 4; ++c) {
        size_t size;
        uint8_t *data = load(clips[c].file, &size);
        ossa_import_output out = {0};
        assert_int_equal(import(data, size, &out), OSSA_OK);
        assert_int_equal(out.skeleton.joint_count, 0);
        assert_int_equal(out.animation_count, 1);
        const ossa_raw_animation *a = &out.animations[0];
        assert_string_equal(a->name, clips[c].name);
        assert_float_equal(a->duration, clips[c].duration, 1e-5);
        assert_int_equal(a->track_count, 67);
        /* Dense clips: k keys per channel. The size is the header (1 + 18 + 4 + 4 bytes),
         * the track array (count, version), 67 tracks of 3 (count, version) pairs, k keys of
         * 16 + 20 + 16 bytes per track and the name (length + bytes). */
        const size_t fixed = 1 + 18 + 4 + 4 + 8 + 67 * 24 + 4 + strlen(clips[c].name);
        assert_int_equal((size - fixed) % (67 * 52), 0);
        const size_t k = (size - fixed) / (67 * 52);
        assert_int_equal((size_t)(clips[c].duration * 30.f + 0.5f) + 1, k); /* 30 frames per second */
        for (size_t t = 0; t < 67; ++t) {
            const ossa_raw_joint_track *tr = &a->tracks[t];
            assert_int_equal(tr->translation_count, k);
            assert_int_equal(tr->rotation_count, k);
            assert_int_equal(tr->scale_count, k);
            for (size_t i = 0; i < k; ++i) {
                assert_float_equal(tr->translations[i].time, (float)i / 30.f, 1e-5);
                assert_true(tr->rotations[i].time == tr->translations[i].time);
                assert_true(tr->scales[i].time == tr->translations[i].time);
            }
            assert_true(tr->translations[k - 1].time == a->duration);
        }
        ossa_diag diag = {0};
        assert_int_equal(ossa_raw_animation_validate(a, &diag), OSSA_OK);
        assert_true(meta_is(&out, "format", "ozz-raw-animation"));
        assert_true(meta_is(&out, "endianness", "little"));
        print_message("%s: %zu tracks, %.4f s, %zu keys per channel\n", clips[c].file, a->track_count,
                      (double)a->duration, k);
        ossa_import_output_destroy(&out);
        free(data);
    }
}

static void assert_same_animation(const ossa_raw_animation *a, const ossa_raw_animation *b)
{
    assert_string_equal(a->name, b->name);
    assert_true(a->duration == b->duration);
    assert_int_equal(a->track_count, b->track_count);
    for (size_t t = 0; t < a->track_count; ++t) {
        const ossa_raw_joint_track *x = &a->tracks[t], *y = &b->tracks[t];
        assert_int_equal(x->translation_count, y->translation_count);
        assert_int_equal(x->rotation_count, y->rotation_count);
        assert_int_equal(x->scale_count, y->scale_count);
        assert_memory_equal(x->translations, y->translations, x->translation_count * sizeof *x->translations);
        assert_memory_equal(x->rotations, y->rotations, x->rotation_count * sizeof *x->rotations);
        assert_memory_equal(x->scales, y->scales, x->scale_count * sizeof *x->scales);
    }
}

static void test_pab_raw_animation_endianness(void **state)
{
    (void)state;
    size_t le_size, be_size;
    uint8_t *le = load("pab_raw_animation_v3_le.ozz", &le_size);
    uint8_t *be = load("pab_raw_animation_v3_be.ozz", &be_size);
    ossa_import_output a = {0}, b = {0};
    assert_int_equal(import(le, le_size, &a), OSSA_OK);
    assert_int_equal(import(be, be_size, &b), OSSA_OK);
    assert_int_equal(a.animations[0].track_count, 67);
    assert_float_equal(a.animations[0].duration, 2.f / 3.f, 1e-6);
    assert_same_animation(&a.animations[0], &b.animations[0]);
    assert_true(meta_is(&a, "endianness", "little"));
    assert_true(meta_is(&b, "endianness", "big"));
    size_t keys[3] = {0, 0, 0};
    for (size_t t = 0; t < 67; ++t) {
        keys[0] += a.animations[0].tracks[t].translation_count;
        keys[1] += a.animations[0].tracks[t].rotation_count;
        keys[2] += a.animations[0].tracks[t].scale_count;
    }
    /* the keys fill the file: 1 + 18 + 4 + 4 + 8 header, 67 * 12 counts, a version per
     * non-empty channel, 16/20/16 bytes per key, 4 + 3 name */
    size_t versions = 0;
    for (size_t t = 0; t < 67; ++t) {
        const ossa_raw_joint_track *tr = &a.animations[0].tracks[t];
        versions += (tr->translation_count > 0) + (tr->rotation_count > 0) + (tr->scale_count > 0);
    }
    assert_int_equal(35 + 67 * 12 + 4 * versions + 16 * keys[0] + 20 * keys[1] + 16 * keys[2] + 7, le_size);
    print_message("pab_raw_animation_v3: %zu translation, %zu rotation, %zu scale keys\n", keys[0], keys[1], keys[2]);
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_animation_validate(&a.animations[0], &diag), OSSA_OK);
    ossa_import_output_destroy(&a);
    ossa_import_output_destroy(&b);
    free(le);
    free(be);
}

static void test_pab_skeletons(void **state)
{
    (void)state;
    size_t sizes[3];
    uint8_t *raw = load("pab_raw_skeleton.ozz", &sizes[0]);
    uint8_t *raw_be = load("pab_raw_skeleton_be.ozz", &sizes[1]);
    uint8_t *runtime = load("pab_skeleton.ozz", &sizes[2]);
    ossa_import_output a = {0}, b = {0}, c = {0};
    assert_int_equal(import(raw, sizes[0], &a), OSSA_OK);
    assert_int_equal(import(raw_be, sizes[1], &b), OSSA_OK);
    assert_int_equal(import(runtime, sizes[2], &c), OSSA_OK);
    assert_int_equal(a.skeleton.joint_count, 67);
    assert_int_equal(b.skeleton.joint_count, 67);
    assert_int_equal(c.skeleton.joint_count, 67);
    assert_true(ossa_raw_skeleton_is_depth_first(&a.skeleton));
    assert_true(ossa_raw_skeleton_is_depth_first(&c.skeleton));
    for (size_t i = 0; i < 67; ++i) {
        const ossa_raw_joint *x = &a.skeleton.joints[i], *y = &b.skeleton.joints[i], *z = &c.skeleton.joints[i];
        assert_string_equal(x->name, y->name);
        assert_int_equal(x->parent, y->parent);
        assert_memory_equal(&x->rest, &y->rest, sizeof x->rest);
        assert_string_equal(x->name, z->name);
        assert_int_equal(x->parent, z->parent);
        const float u[10] = {x->rest.translation.x, x->rest.translation.y, x->rest.translation.z, x->rest.rotation.x,
                             x->rest.rotation.y,    x->rest.rotation.z,    x->rest.rotation.w,    x->rest.scale.x,
                             x->rest.scale.y,       x->rest.scale.z};
        const float v[10] = {z->rest.translation.x, z->rest.translation.y, z->rest.translation.z, z->rest.rotation.x,
                             z->rest.rotation.y,    z->rest.rotation.z,    z->rest.rotation.w,    z->rest.scale.x,
                             z->rest.scale.y,       z->rest.scale.z};
        for (int k = 0; k < 10; ++k) assert_float_equal(u[k], v[k], 1e-6);
    }
    assert_string_equal(a.skeleton.joints[0].name, "Hips");
    assert_int_equal(a.skeleton.joints[0].parent, -1);
    assert_true(meta_is(&a, "format", "ozz-raw-skeleton"));
    assert_true(meta_is(&b, "endianness", "big"));
    assert_true(meta_is(&c, "format", "ozz-skeleton"));
    ossa_import_output_destroy(&a);
    ossa_import_output_destroy(&b);
    ossa_import_output_destroy(&c);
    free(raw);
    free(raw_be);
    free(runtime);
}

static void test_robot_and_runtime_animations(void **state)
{
    (void)state;
    size_t size;
    uint8_t *data = load("robot_skeleton.ozz", &size);
    ossa_import_output out = {0};
    assert_int_equal(import(data, size, &out), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 18);
    assert_string_equal(out.skeleton.joints[0].name, "base");
    assert_string_equal(out.skeleton.joints[1].name, "shoulder");
    ossa_import_output_destroy(&out);
    free(data);
    const char *const runtime[] = {"pab_walk.ozz", "pab_crossarms.ozz", "robot_animation.ozz"};
    for (int i = 0; i < 3; ++i) {
        data = load(runtime[i], &size);
        expect_error(data, size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "import the raw animation");
        free(data);
    }
    data = load("robot_track_grasp.ozz", &size);
    expect_error(data, size, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "ozz-float_track");
    free(data);
}

/* A runtime skeleton followed by a raw animation's object (its bytes after the endianness
 * byte): one archive holding both, as ozz's OArchive writes when given two objects. */
static void test_pab_combined_archive(void **state)
{
    (void)state;
    const char *const pairs[2][2] = {{"pab_skeleton.ozz", "pab_run_raw.ozz"},
                                     {"pab_raw_skeleton_be.ozz", "pab_raw_animation_v3_be.ozz"}};
    for (int p = 0; p < 2; ++p) {
        size_t s1, s2;
        uint8_t *skeleton = load(pairs[p][0], &s1);
        uint8_t *animation = load(pairs[p][1], &s2);
        uint8_t *both = malloc(s1 + s2 - 1);
        assert_non_null(both);
        memcpy(both, skeleton, s1);
        memcpy(both + s1, animation + 1, s2 - 1);
        ossa_import_output out = {0};
        assert_int_equal(import(both, s1 + s2 - 1, &out), OSSA_OK);
        assert_int_equal(out.skeleton.joint_count, 67);
        assert_int_equal(out.animation_count, 1);
        assert_int_equal(out.animations[0].track_count, 67);
        assert_true(meta_is(&out, "format", p ? "ozz-raw-skeleton" : "ozz-skeleton"));
        assert_true(
            meta_is(&out, "objects", p ? "ozz-raw_skeleton,ozz-raw_animation" : "ozz-skeleton,ozz-raw_animation"));
        ossa_import_output_destroy(&out);
        free(both);
        free(skeleton);
        free(animation);
    }
}

static void test_real_truncations(void **state)
{
    (void)state;
    const char *const files[] = {"pab_raw_skeleton.ozz", "pab_raw_skeleton_be.ozz", "pab_skeleton.ozz",
                                 "pab_raw_animation_v3_le.ozz", "pab_raw_animation_v3_be.ozz"};
    for (int f = 0; f < 5; ++f) {
        size_t size;
        uint8_t *data = load(files[f], &size);
        expect_prefixes_truncated(data, size, f < 3 ? 1 : 3);
        free(data);
    }
}

/* Random byte changes: any result, but a clear error and an empty output on failure. */
static void test_real_mutations(void **state)
{
    (void)state;
    const char *const files[] = {"pab_raw_skeleton.ozz", "pab_skeleton.ozz", "pab_raw_animation_v3_be.ozz"};
    uint32_t seed = 12345;
    size_t failures = 0, total = 0;
    for (int f = 0; f < 3; ++f) {
        size_t size;
        uint8_t *data = load(files[f], &size);
        uint8_t *copy = malloc(size);
        assert_non_null(copy);
        for (int round = 0; round < 400; ++round) {
            memcpy(copy, data, size);
            const int changes = 1 + (int)(ossa_test_rand(&seed) % 4);
            for (int c = 0; c < changes; ++c) {
                /* bias towards the header and counts, where structure lives */
                const size_t limit = (ossa_test_rand(&seed) & 1) ? 64 : size;
                copy[ossa_test_rand(&seed) % limit] = (uint8_t)ossa_test_rand(&seed);
            }
            ossa_import_output out = {0};
            ossa_diag diag = {0};
            const ossa_result r = ossa_import_ozz(copy, size, NULL, &out, &diag);
            ++total;
            if (r != OSSA_OK) {
                ++failures;
                assert_int_equal(diag.code, r);
                assert_true(diag.message[0] != '\0');
                assert_int_equal(out.skeleton.joint_count, 0);
                assert_int_equal(out.animation_count, 0);
            }
            ossa_import_output_destroy(&out);
        }
        free(copy);
        free(data);
    }
    print_message("mutations: %zu of %zu rejected\n", failures, total);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_raw_skeleton_both_orders),
        cmocka_unit_test(test_runtime_skeleton_soa_lanes),
        cmocka_unit_test(test_raw_animation_both_orders),
        cmocka_unit_test(test_skeleton_and_animations_in_one_archive),
        cmocka_unit_test(test_bad_headers),
        cmocka_unit_test(test_unsupported_objects_and_versions),
        cmocka_unit_test(test_counts_beyond_the_data),
        cmocka_unit_test(test_corrupt_fields),
        cmocka_unit_test(test_truncated_handmade),
        cmocka_unit_test(test_detection),
        cmocka_unit_test(test_pab_raw_clips),
        cmocka_unit_test(test_pab_raw_animation_endianness),
        cmocka_unit_test(test_pab_skeletons),
        cmocka_unit_test(test_robot_and_runtime_animations),
        cmocka_unit_test(test_pab_combined_archive),
        cmocka_unit_test(test_real_truncations),
        cmocka_unit_test(test_real_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
