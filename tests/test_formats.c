/* The import format registry: one row per format, names and detection drawn from it, and the
 * README's format table naming every importer it lists. */
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_row_per_format),
        cmocka_unit_test(test_readme_lists_every_importer),
        cmocka_unit_test(test_every_importer_keeps_the_contract),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
