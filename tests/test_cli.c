/* The `ossa` command line, run in process: bake and info on generated Metroid ANIM + CINF
 * files of both games (the pipeline `ossa bake ANIM --skeleton CINF`), the default BVH clip,
 * and its errors (one line, non-zero status, no partial archive). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metroid_writer.h"
#include "ossa/archive.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import_metroid.h"
#include "test_util.h"
#include "tools.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "%s/ossa-cli-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : -1;
}

static const char *path_in(const char *name)
{
    static char paths[4][512];
    static int next;
    char *p = paths[next++ & 3];
    snprintf(p, 512, "%s/%s", dir, name);
    return p;
}

static void write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, size, f), size);
    assert_int_equal(fclose(f), 0);
}

static int run_bake(int argc, const char **argv) { return tool_bake(argc, (char **)(uintptr_t)argv); }

/* Bakes a compressed ANIM bound to its CINF with the tool, then compares the archive with
 * the importer's raw animation through the independent error module. */
static void metroid_bake_with_cinf(void **state)
{
    (void)state;
    for (int game = 1; game <= 2; ++game) {
        mw_canim a = mw_fixture_compressed(game);
        mw_buf anim = {0}, cinf = {0};
        assert_true(mw_write_compressed(&anim, &a, NULL));
        mw_fixture_cinf(&cinf, game, NULL);
        const char *anim_path = path_in(game == 1 ? "mp1.anim" : "mp2.anim");
        const char *cinf_path = path_in(game == 1 ? "mp1.cinf" : "mp2.cinf");
        const char *out_path = path_in("metroid.ossa");
        write_file(anim_path, anim.data, anim.size);
        write_file(cinf_path, cinf.data, cinf.size);
        const char *argv[] = {anim_path, "--skeleton", cinf_path, "-o", out_path, "--no-optimize", "-q"};
        assert_int_equal(run_bake(7, argv), 0);

        size_t size = 0;
        void *bytes = ossa_test_read_file(out_path, &size);
        assert_non_null(bytes);
        ossa_archive ar;
        ossa_skeleton skel;
        ossa_animation built;
        assert_int_equal(ossa_archive_init(&ar, bytes, size), OSSA_OK);
        assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
        assert_int_equal(ossa_archive_animation(&ar, 0, &built), OSSA_OK);
        assert_int_equal(skel.joint_count, 5); /* the fixture CINF's five bones */

        const ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size};
        ossa_import_output raw = {0};
        ossa_diag diag = {0};
        assert_int_equal(ossa_import_metroid_anim(anim.data, anim.size, &desc, &raw, &diag), OSSA_OK);
        assert_int_equal(ossa_import_output_sort_depth_first(&raw, &diag), OSSA_OK);
        ossa_error_report rep;
        assert_int_equal(ossa_measure_error(&skel, &raw.animations[0], &built, NULL, &rep, &diag), OSSA_OK);
        /* Unoptimised: only quantisation (ranged translations, 15-bit rotations) remains. */
        assert_true(rep.max < 1e-3f);
        ossa_import_output_destroy(&raw);
        free(bytes);
        mw_buf_free(&anim);
        mw_buf_free(&cinf);
    }
}

static void default_clip_and_info(void **state)
{
    (void)state;
    size_t size = 0;
    void *probe = ossa_test_read_or_skip(OSSA_DEFAULT_INPUT, OSSA_DEFAULT_INPUT, &size);
    free(probe);
    const char *out_path = path_in("01_01.ossa");
    const char *bake[] = {"-o", out_path, "-q"};
    assert_int_equal(run_bake(3, bake), 0);
    const char *info[] = {out_path, "--against", OSSA_DEFAULT_INPUT};
    assert_int_equal(tool_info(3, (char **)(uintptr_t)info), 0);
    void *bytes = ossa_test_read_file(out_path, &size);
    ossa_archive ar;
    ossa_skeleton skel;
    assert_int_equal(ossa_archive_init(&ar, bytes, size), OSSA_OK);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(skel.joint_count, 38); /* CMU 01_01: 31 joints and 7 end sites */
    free(bytes);
}

static void errors_leave_no_archive(void **state)
{
    (void)state;
    const char *out_path = path_in("never.ossa");
    const char *missing[] = {path_in("missing.bvh"), "-o", out_path, "-q"};
    assert_int_not_equal(run_bake(4, missing), 0);
    const char *junk_path = path_in("junk.xyz");
    write_file(junk_path, "not an animation", 16);
    const char *junk[] = {junk_path, "-o", out_path, "-q"};
    assert_int_not_equal(run_bake(4, junk), 0);
    const char *bad_flag[] = {"--tolerance", "-1"};
    assert_int_not_equal(run_bake(2, bad_flag), 0);
    /* A corrupted archive is reported by info, not loaded. */
    const char *corrupt_path = path_in("corrupt.ossa");
    write_file(corrupt_path, "OSSA\x01\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00", 16);
    const char *info[] = {corrupt_path};
    assert_int_not_equal(tool_info(1, (char **)(uintptr_t)info), 0);
    assert_int_equal(access(out_path, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metroid_bake_with_cinf),
        cmocka_unit_test(default_clip_and_info),
        cmocka_unit_test(errors_leave_no_archive),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
