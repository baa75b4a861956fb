/* The import format registry: one row per format, names and detection drawn from it, and the
 * README's format table naming every importer it lists. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import.h"
#include "test_util.h"

static void test_one_row_per_format(void **state)
{
    (void)state;
    const size_t n = ossa_import_format_count();
    assert_true(n >= 2);
    assert_null(ossa_import_format_at(n));
    int seen[64] = {0};
    for (size_t i = 0; i < n; ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        assert_non_null(f);
        assert_true(f->format > OSSA_FORMAT_UNKNOWN && (size_t)f->format < sizeof seen / sizeof *seen);
        assert_int_equal(seen[f->format]++, 0);
        assert_string_equal(ossa_import_format_name(f->format), f->name);
        assert_true(strlen(f->title) > 4 && strlen(f->unit) > 4);
        for (size_t j = 0; j < i; ++j) assert_string_not_equal(ossa_import_format_at(j)->name, f->name);
        /* Every listed extension detects as this format unless an earlier row claims it
         * (Metroid's .anim needs its version word; Maya's .anim is recognised by content). */
        if (f->importer && strcmp(f->extensions, "*") && f->format != OSSA_FORMAT_METROID_ANIM &&
            f->format != OSSA_FORMAT_MAYA_ANIM && *f->extensions) {
            char name[64];
            snprintf(name, sizeof name, "clip.%.*s", (int)strcspn(f->extensions, " "), f->extensions);
            assert_int_equal(ossa_import_detect("", 0, name), f->format);
        }
    }
    assert_string_equal(ossa_import_format_name(OSSA_FORMAT_UNKNOWN), "unknown");
    assert_int_equal(ossa_import_detect("", 0, "clip.nothing-reads-this"), OSSA_FORMAT_UNKNOWN);
    assert_int_equal(ossa_import_detect(NULL, 0, NULL), OSSA_FORMAT_UNKNOWN);
}

/* The README's format table names the importer of every row. */
static void test_readme_lists_every_importer(void **state)
{
    (void)state;
    const char *root = getenv("OSSA_SOURCE_DIR");
    if (!root) {
        print_message("skipped: OSSA_SOURCE_DIR is not set (meson test sets it)\n");
        skip();
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/README.md", root);
    size_t size = 0;
    char *text = ossa_test_read_or_skip(path, "README.md", &size);
    char *table = strstr(text, "| format | importer |");
    assert_non_null(table);
    char *end = strstr(table, "\n\n");
    if (end) *end = 0;
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        if (!f->importer) continue;
        char quoted[128];
        snprintf(quoted, sizeof quoted, "`%s`", f->importer);
        /* Metroid's two importers share one row ("`ossa_import_metroid_anim`, `_cinf`"). */
        const bool found = strstr(table, quoted) || (f->format == OSSA_FORMAT_METROID_CINF && strstr(table, "`_cinf`"));
        if (!found) fail_msg("README's format table does not name %s (format %s)", f->importer, f->name);
    }
    free(text);
}

/* A counting allocator, to see that a failed import leaves nothing allocated. */
static size_t live_blocks;
static void *count_alloc(size_t size, void *user)
{
    (void)user;
    void *p = malloc(size);
    live_blocks += p != NULL;
    return p;
}
static void count_free(void *p, void *user)
{
    (void)user;
    live_blocks -= p != NULL;
    free(p);
}

/* The import contract on every importer of the registry: NULL data with a size is refused;
 * bytes that are not the format fail with `out` empty, its allocator kept and nothing left
 * allocated. */
static void test_every_importer_keeps_the_contract(void **state)
{
    (void)state;
    static const char junk[] = "\x01\x02 not a file of any format \xff\xfe";
    const ossa_allocator counting = {count_alloc, count_free, NULL};
    size_t checked = 0;
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        if (!f->importer || !f->available || !strcmp(f->extensions, "*") || !*f->extensions) continue;
        char name[64];
        snprintf(name, sizeof name, "clip.%.*s", (int)strcspn(f->extensions, " "), f->extensions);
        if (ossa_import_detect(junk, sizeof junk - 1, name) != f->format) continue; /* claimed by content */
        ossa_import_output out = {0};
        out.allocator = counting;
        ossa_diag diag;
        ossa_diag_clear(&diag);
        live_blocks = 0;
        const ossa_result r = ossa_import_any(junk, sizeof junk - 1, name, &out, &diag);
        if (r == OSSA_OK) fail_msg("%s: junk imported", f->name);
        assert_int_equal(diag.code, r);
        assert_true(strlen(diag.message) > 8);
        assert_int_equal(out.animation_count + out.track_count + out.event_count + out.skeleton.joint_count, 0);
        assert_null(out.metadata);
        assert_ptr_equal(out.allocator.alloc, count_alloc);
        assert_int_equal(live_blocks, 0);
        assert_int_equal(ossa_import_any(NULL, 4, name, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
        ossa_import_output_destroy(&out);
        ++checked;
    }
    assert_true(checked >= 3); /* AnimX, AnimJ, ozz and CINF are claimed by their extension */
}

/* ossa_import_output_scale_lengths: rest and key translations and position tracks scale,
 * nothing else does; a product beyond float range is refused with `out` unchanged. */
static void test_scale_lengths(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    assert_int_equal(ossa_raw_skeleton_create(&out.skeleton, 2, NULL), OSSA_OK);
    out.skeleton.joints[1].parent = 0;
    out.skeleton.joints[0].rest.translation = (ossa_float3){1.f, 17.5f, -3.f};
    out.skeleton.joints[1].rest = (ossa_transform){{0.f, 4.f, 0.f}, {0.f, .6f, 0.f, .8f}, {2.f, 2.f, 2.f}};
    ossa_raw_animation *anim = NULL;
    assert_int_equal(ossa_import_output_add_animation(&out, 2, &anim), OSSA_OK);
    assert_int_equal(ossa_raw_joint_track_resize(anim, 0, 2, 1, 1), OSSA_OK);
    anim->tracks[0].translations[0] = (ossa_raw_float3_key){0.f, {10.f, 20.f, 30.f}};
    anim->tracks[0].translations[1] = (ossa_raw_float3_key){1.f, {-10.f, 0.f, 1e-3f}};
    anim->tracks[0].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, .6f, .8f}};
    anim->tracks[0].scales[0] = (ossa_raw_float3_key){0.f, {3.f, 3.f, 3.f}};
    static const char *const names[] = {"Walk/root_motion.position", "eye_gaze/origin", "Hand/Position",
                                        "eye_gaze/direction",        "positions",       "weight"};
    static const ossa_track_type types[] = {OSSA_TRACK_FLOAT3, OSSA_TRACK_FLOAT3, OSSA_TRACK_FLOAT3,
                                            OSSA_TRACK_FLOAT3, OSSA_TRACK_FLOAT3, OSSA_TRACK_FLOAT};
    for (int i = 0; i < 6; ++i) {
        ossa_raw_track *t = NULL;
        assert_int_equal(ossa_import_output_add_track(&out, types[i], 1, &t), OSSA_OK);
        assert_int_equal(ossa_raw_track_set_name(t, names[i]), OSSA_OK);
        t->keys[0] = (ossa_raw_track_key){0.f, OSSA_INTERP_LINEAR, {2.f, 4.f, 8.f, 16.f}};
    }
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const float s = 0.05644f;
    assert_int_equal(ossa_import_output_scale_lengths(&out, s, &diag), OSSA_OK);
    const ossa_float3 rest0 = out.skeleton.joints[0].rest.translation;
    assert_true(rest0.x == 1.f * s && rest0.y == 17.5f * s && rest0.z == -3.f * s);
    const ossa_transform rest1 = out.skeleton.joints[1].rest;
    assert_true(rest1.translation.y == 4.f * s && rest1.translation.x == 0.f);
    assert_true(rest1.rotation.y == .6f && rest1.rotation.w == .8f && rest1.scale.x == 2.f);
    const ossa_raw_joint_track *track = &out.animations[0].tracks[0];
    assert_true(track->translations[0].value.x == 10.f * s && track->translations[0].value.y == 20.f * s &&
                track->translations[0].value.z == 30.f * s);
    assert_true(track->translations[1].value.x == -10.f * s && track->translations[1].value.z == 1e-3f * s);
    assert_true(track->translations[1].time == 1.f);
    assert_true(track->rotations[0].value.z == .6f && track->scales[0].value.x == 3.f);
    for (int i = 0; i < 6; ++i) {
        const float *v = out.tracks[i].keys[0].value, f = i < 3 ? s : 1.f;
        if (!(v[0] == 2.f * f && v[1] == 4.f * f && v[2] == 8.f * f && v[3] == 16.f))
            fail_msg("track \"%s\": (%g, %g, %g, %g)", names[i], (double)v[0], (double)v[1], (double)v[2],
                     (double)v[3]);
    }
    /* Factor 1 changes nothing; a bad factor or an overflow is an error and changes nothing. */
    const ossa_float3 key = track->translations[0].value;
    assert_int_equal(ossa_import_output_scale_lengths(&out, 1.f, &diag), OSSA_OK);
    assert_memory_equal(&track->translations[0].value, &key, sizeof key);
    const float bad[] = {0.f, -1.f, INFINITY, NAN};
    for (int i = 0; i < 4; ++i) {
        ossa_diag_clear(&diag);
        assert_int_equal(ossa_import_output_scale_lengths(&out, bad[i], &diag), OSSA_ERROR_INVALID_ARGUMENT);
        assert_int_equal(diag.code, OSSA_ERROR_INVALID_ARGUMENT);
    }
    out.tracks[1].keys[0].value[1] = 3e38f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_output_scale_lengths(&out, 10.f, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(diag.offset, 1); /* the track */
    assert_non_null(strstr(diag.message, "eye_gaze/origin"));
    assert_true(rest0.x == out.skeleton.joints[0].rest.translation.x); /* checked before any change */
    assert_memory_equal(&track->translations[0].value, &key, sizeof key);
    assert_true(out.tracks[0].keys[0].value[0] == 2.f * s);
    assert_int_equal(ossa_raw_joint_track_resize(out.animations, 1, 1, 0, 0), OSSA_OK);
    out.animations[0].tracks[1].translations[0].value.x = -2e38f;
    out.tracks[1].keys[0].value[1] = 1.f;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_output_scale_lengths(&out, 10.f, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(diag.message, "translation key 0 of track 1 of animation 0"));
    assert_int_equal(ossa_import_output_scale_lengths(NULL, 2.f, &diag), OSSA_ERROR_NULL_ARGUMENT);
    ossa_import_output_destroy(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row_per_format),
        cmocka_unit_test(test_readme_lists_every_importer),
        cmocka_unit_test(test_every_importer_keeps_the_contract),
        cmocka_unit_test(test_scale_lengths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
