/* The BVH stream reader against assimp's BVH loader: the same skeleton, keys and metadata bit
 * for bit on real captures, whether the bytes come from memory or in small reads; and its
 * errors, each with the line and column of the offending token. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import_internal.h"
#include "ossa/offline/import_bvh.h"
#include "test_util.h"

/* ---- comparing two imports bit for bit ---- */

/* Bit for bit, or (`exact` false) within 2e-6 of the larger magnitude, a quaternion also as
 * its negation: assimp's own build on a target where the compiler fuses multiply-adds
 * (AArch64) rounds its matrix products differently, which can also turn the conversion to
 * another branch near a trace of 0 and so to the same rotation with the other sign. On x86-64
 * the comparison is exact. */
static bool exact_target(void)
{
#if defined(__x86_64__) || defined(_M_X64)
    return true;
#else
    return false;
#endif
}

static bool near(const float *a, const float *b, size_t n, float sign)
{
    for (size_t i = 0; i < n; ++i) {
        const float x = a[i], y = sign * b[i], m = fabsf(x) > fabsf(y) ? fabsf(x) : fabsf(y);
        if (!(fabsf(x - y) <= 2e-6f * (m > 1.f ? m : 1.f))) return false;
    }
    return true;
}

static bool exact_comparison = true;

static void assert_same_bits(const void *a, const void *b, size_t size, const char *what, size_t joint, size_t key)
{
    if (memcmp(a, b, size) == 0) return;
    /* Keys and poses are floats throughout: a time then values. */
    if (!exact_comparison && near(a, b, size / sizeof(float), 1.f)) return;
    if (!exact_comparison && !strcmp(what, "rotation") && near(a, b, 1, 1.f) &&
        near((const float *)a + 1, (const float *)b + 1, 4, -1.f))
        return;
    fail_msg("%s differs at joint %zu, key %zu", what, joint, key);
}

static void assert_same_import(const ossa_import_output *a, const ossa_import_output *b)
{
    assert_int_equal(a->skeleton.joint_count, b->skeleton.joint_count);
    for (size_t j = 0; j < a->skeleton.joint_count; ++j) {
        assert_string_equal(a->skeleton.joints[j].name, b->skeleton.joints[j].name);
        assert_int_equal(a->skeleton.joints[j].parent, b->skeleton.joints[j].parent);
        assert_same_bits(&a->skeleton.joints[j].rest, &b->skeleton.joints[j].rest, sizeof(ossa_transform), "rest pose",
                         j, 0);
    }
    assert_int_equal(a->animation_count, b->animation_count);
    for (size_t n = 0; n < a->animation_count; ++n) {
        const ossa_raw_animation *x = &a->animations[n], *y = &b->animations[n];
        assert_string_equal(x->name, y->name);
        assert_same_bits(&x->duration, &y->duration, sizeof x->duration, "duration", 0, 0);
        assert_int_equal(x->track_count, y->track_count);
        for (size_t j = 0; j < x->track_count; ++j) {
            const ossa_raw_joint_track *s = &x->tracks[j], *t = &y->tracks[j];
            assert_int_equal(s->translation_count, t->translation_count);
            assert_int_equal(s->rotation_count, t->rotation_count);
            assert_int_equal(s->scale_count, t->scale_count);
            for (size_t k = 0; k < s->translation_count; ++k)
                assert_same_bits(&s->translations[k], &t->translations[k], sizeof *s->translations, "translation", j,
                                 k);
            for (size_t k = 0; k < s->rotation_count; ++k)
                assert_same_bits(&s->rotations[k], &t->rotations[k], sizeof *s->rotations, "rotation", j, k);
            for (size_t k = 0; k < s->scale_count; ++k)
                assert_same_bits(&s->scales[k], &t->scales[k], sizeof *s->scales, "scale", j, k);
        }
    }
    assert_non_null(a->metadata);
    assert_non_null(b->metadata);
    assert_string_equal(a->metadata, b->metadata);
}

/* A stream that hands out `chunk` bytes a read, so tokens and lines straddle the refills. */
typedef struct chunks {
    const char *data;
    size_t size, pos, chunk;
} chunks;

static size_t read_chunks(void *buffer, size_t size, void *user)
{
    chunks *c = user;
    size_t n = c->size - c->pos;
    if (n > c->chunk) n = c->chunk;
    if (n > size) n = size;
    memcpy(buffer, c->data + c->pos, n);
    c->pos += n;
    return n;
}

static void check_file(const char *relative, bool drop_end_sites)
{
    size_t size = 0;
    char *data = ossa_test_read_or_skip(ossa_test_assimp_path(relative), relative, &size);
    ossa_diag diag;
    ossa_import_output library = {0}, memory = {0}, stream = {0}, through_assimp = {0};
    const ossa_assimp_desc assimp_desc = {.format_hint = "bvh", .drop_end_sites = drop_end_sites};
    ossa_diag_clear(&diag);
    const ossa_result lib = ossa__import_assimp_library(data, size, &assimp_desc, &library, &diag);
    if (lib == OSSA_ERROR_UNSUPPORTED_FORMAT) {
        free(data);
        print_message("skipped: this build has no assimp to compare with\n");
        skip();
    }
    assert_int_equal(lib, OSSA_OK);
    const ossa_bvh_desc desc = {.drop_end_sites = drop_end_sites};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_bvh(data, size, &desc, &memory, &diag), OSSA_OK);
    exact_comparison = exact_target();
    assert_same_import(&library, &memory);
    exact_comparison = true;
    /* The reader's own results agree bit for bit on every target. */
    chunks c = {data, size, 0, 7};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_bvh_read(read_chunks, &c, size, &desc, &stream, &diag), OSSA_OK);
    assert_same_import(&memory, &stream);
    /* ossa_import_assimp itself now reads a BVH with the stream reader. */
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_assimp(data, size, &assimp_desc, &through_assimp, &diag), OSSA_OK);
    assert_same_import(&memory, &through_assimp);
    ossa_import_output_destroy(&library), ossa_import_output_destroy(&memory);
    ossa_import_output_destroy(&stream), ossa_import_output_destroy(&through_assimp);
    free(data);
}

static void test_cmu_01_01(void **state)
{
    (void)state;
    check_file("BVH/01_01.bvh", false);
    check_file("BVH/01_01.bvh", true);
}

static void test_cmu_01_03(void **state)
{
    (void)state;
    check_file("BVH/01_03.bvh", false);
}

static void test_boxing_toes(void **state)
{
    (void)state;
    check_file("BVH/Boxing_Toes.bvh", false);
    check_file("BVH/Boxing_Toes.bvh", true);
}

/* ---- small files written here ---- */

static const char HEADER[] = "HIERARCHY\n"
                             "ROOT Hips\n"
                             "{\n"
                             "  OFFSET 0 0 0\n"
                             "  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation\n"
                             "  JOINT Leg\n"
                             "  {\n"
                             "    OFFSET 0 -1 0\n"
                             "    CHANNELS 3 Zrotation Xrotation Yrotation\n"
                             "    End Site\n"
                             "    {\n"
                             "      OFFSET 0 -1 0\n"
                             "    }\n"
                             "  }\n"
                             "}\n"
                             "MOTION\n"; /* lines 1 to 16 */

static ossa_result import_text(const char *motion, ossa_diag *diag, ossa_import_output *out)
{
    char text[1024];
    snprintf(text, sizeof text, "%s%s", HEADER, motion);
    ossa_diag_clear(diag);
    return ossa_import_bvh(text, strlen(text), NULL, out, diag);
}

static void expect_error(const char *motion, ossa_result code, uint32_t line, uint32_t column, const char *words)
{
    ossa_diag diag;
    ossa_import_output out = {0};
    assert_int_equal(import_text(motion, &diag, &out), code);
    assert_int_equal(diag.line, line);
    assert_int_equal(diag.column, column);
    if (!strstr(diag.message, words)) fail_msg("\"%s\" does not say \"%s\"", diag.message, words);
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_int_equal(out.animation_count, 0);
    ossa_import_output_destroy(&out);
}

static void test_small_file(void **state)
{
    (void)state;
    ossa_diag diag;
    ossa_import_output out = {0};
    assert_int_equal(import_text("Frames: 2\nFrame Time: 0.5\n1 2 3 90 0 0 0 0 0\n4 5 6 0 0 0 0 90 0\n", &diag, &out),
                     OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[2].name, "EndSite_Leg");
    assert_int_equal(out.skeleton.joints[2].parent, 1);
    const ossa_raw_animation *a = &out.animations[0];
    assert_float_equal(a->duration, .5f, 0.f);
    assert_int_equal(a->tracks[0].translation_count, 2);
    assert_float_equal(a->tracks[0].translations[1].value.z, 6.f, 0.f);
    assert_float_equal(a->tracks[0].translations[1].time, .5f, 0.f);
    /* 90 degrees about Z at frame 0: (0, 0, sin 45, cos 45). */
    assert_float_equal(a->tracks[0].rotations[0].value.z, sqrtf(.5f), 1e-6f);
    assert_float_equal(a->tracks[0].rotations[0].value.w, sqrtf(.5f), 1e-6f);
    /* The leg's second channel is Xrotation: 90 degrees about X at frame 1. */
    assert_float_equal(a->tracks[1].rotations[1].value.x, sqrtf(.5f), 1e-6f);
    assert_int_equal(a->tracks[1].translation_count, 1);
    assert_float_equal(a->tracks[1].translations[0].value.y, -1.f, 0.f);
    ossa_import_output_destroy(&out);
}

static void test_errors_name_line_and_column(void **state)
{
    (void)state;
    /* Truncated: the second frame stops after 4 values, at the end of the file. */
    expect_error("Frames: 2\nFrame Time: 0.5\n1 2 3 0 0 0 0 0 0\n1 2 3 0", OSSA_ERROR_PARSE, 20, 8, "end of file");
    /* A frame line with 8 of the 9 values the channels need. */
    expect_error("Frames: 2\nFrame Time: 0.5\n1 2 3 0 0 0 0 0\n1 2 3 0 0 0 0 0 0\n", OSSA_ERROR_PARSE, 19, 16,
                 "expected 9");
    /* One value too many. */
    expect_error("Frames: 1\nFrame Time: 0.5\n1 2 3 0 0 0 0 0 0 7\n", OSSA_ERROR_PARSE, 19, 19, "more values");
    /* Not a number. */
    expect_error("Frames: 1\nFrame Time: 0.5\n1 2 x3 0 0 0 0 0 0\n", OSSA_ERROR_PARSE, 19, 5, "\"x3\"");
    expect_error("Frames 1\nFrame Time: 0.5\n", OSSA_ERROR_PARSE, 17, 1, "\"Frames:\"");
    expect_error("Frames: 1\nFrame Time: 0\n1 2 3 0 0 0 0 0 0\n", OSSA_ERROR_INVALID_ANIMATION, 0, 0,
                 "ticks per second");
    /* A value that overflows a float makes a translation key that is not finite. */
    expect_error("Frames: 1\nFrame Time: 0.5\n1 2 3e39 0 0 0 0 0 0\n", OSSA_ERROR_INVALID_KEY, 19, 5, "translation");
}

/* An allocator that records the largest block asked for. */
static void *largest_alloc(size_t size, void *user)
{
    size_t *largest = user;
    if (size > *largest) *largest = size;
    return malloc(size);
}

static void largest_free(void *ptr, void *user)
{
    (void)user;
    free(ptr);
}

/* Imports `text` with an allocator that records the largest block asked for (*largest). */
static ossa_result import_counting(const char *text, size_t *largest, ossa_import_output *out, ossa_diag *diag)
{
    const ossa_allocator counting = {largest_alloc, largest_free, largest};
    const ossa_bvh_desc desc = {.allocator = &counting};
    ossa_diag_clear(diag);
    return ossa_import_bvh(text, strlen(text), &desc, out, diag);
}

static void test_declared_frames_beyond_the_bytes(void **state)
{
    (void)state;
    /* 4 billion frames declared in a file of a few hundred bytes: keys are allocated only for
     * the frames its bytes can hold, and the error names where the file ends. */
    char text[1024];
    snprintf(text, sizeof text, "%s%s", HEADER, "Frames: 4000000000\nFrame Time: 0.00001\n1 2 3 0 0 0 0 0 0\n");
    size_t largest = 0;
    ossa_diag diag;
    ossa_import_output out = {0};
    assert_int_equal(import_counting(text, &largest, &out, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, 20);
    assert_int_equal(diag.column, 1);
    assert_non_null(strstr(diag.message, "end of file in frame 2 of the 4000000000 declared"));
    assert_true(largest < 4096);
    ossa_import_output_destroy(&out);
}

/* The same without channels: frames that hold no values still take a line each, so a
 * hierarchy of CHANNELS 0 declaring 4 billion frames allocates for the lines its bytes can hold
 * and fails where the file ends, instead of allocating 4 billion keys a joint. */
static void test_frames_without_channels_beyond_the_bytes(void **state)
{
    (void)state;
    static const char text[] = "HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n  CHANNELS 0\n  End Site\n  {\n"
                               "    OFFSET 0 1 0\n  }\n}\nMOTION\nFrames: 4000000000\nFrame Time: 0.00001\n";
    size_t largest = 0;
    ossa_diag diag;
    ossa_import_output out = {0};
    assert_int_equal(import_counting(text, &largest, &out, &diag), OSSA_ERROR_PARSE);
    assert_non_null(strstr(diag.message, "of 4000000000 lies beyond the"));
    assert_true(largest < 4096);
    assert_int_equal(out.animation_count, 0);
    ossa_import_output_destroy(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmu_01_01),
        cmocka_unit_test(test_cmu_01_03),
        cmocka_unit_test(test_boxing_toes),
        cmocka_unit_test(test_small_file),
        cmocka_unit_test(test_errors_name_line_and_column),
        cmocka_unit_test(test_declared_frames_beyond_the_bytes),
        cmocka_unit_test(test_frames_without_channels_beyond_the_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
