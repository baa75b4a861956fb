/* The `ossa` command line, run in process: bake and info on generated Metroid ANIM + CINF
 * files of both games (the pipeline `ossa bake ANIM --skeleton CINF`), the default BVH clip,
 * and its errors (one line, non-zero status, no partial archive). */
#include <float.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(OSSA_HAVE_CJSON)
#include <cjson/cJSON.h>
#endif

#include "metroid_writer.h"
#include "ossa/archive.h"
#include "ossa/sampling_job.h"
#include "ossa/offline/archive_writer.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import_gltf.h"
#include "ossa/offline/import_metroid.h"
#include "info.h"
#include "test_util.h"
#include "tools.h"

/* ossa bake in process, on one encoding thread unless the test asks for more: the AArch64
 * tests run under qemu-user, whose threads can hang. */
static int run_bake(int argc, const char **argv)
{
    const char *args[64];
    assert_true(argc + 2 <= 64);
    bool threads = false;
    for (int i = 0; i < argc; ++i) args[i] = argv[i], threads = threads || !strcmp(argv[i], "--threads");
    if (!threads) args[argc++] = "--threads", args[argc++] = "1";
    return tool_bake(argc, (char **)(uintptr_t)args);
}

/* Skips the calling test when this build reads no BVH (built without assimp). */
static void need_assimp(void)
{
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        if (f->format == OSSA_FORMAT_ASSIMP && f->available) return;
    }
    print_message("skipped: this build has no assimp (BVH) support\n");
    skip();
}

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
        const char *anim_path = ossa_test_scratch_path(game == 1 ? "mp1.anim" : "mp2.anim");
        const char *cinf_path = ossa_test_scratch_path(game == 1 ? "mp1.cinf" : "mp2.cinf");
        const char *out_path = ossa_test_scratch_path("metroid.ossa");
        ossa_test_write_file(anim_path, anim.data, anim.size);
        ossa_test_write_file(cinf_path, cinf.data, cinf.size);
        const char *argv[] = {anim_path, "--skeleton", cinf_path, "-o", out_path, "--no-optimize", "-q"};
        assert_int_equal(run_bake(7, argv), 0);

        ossa_archive ar;
        ossa_skeleton skel;
        ossa_animation built;
        void *bytes = ossa_test_open_archive(out_path, &ar);
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

/* The META chunk of the archive at `path` as a NUL-terminated string (free with free()). */
static char *read_meta(const char *path)
{
    ossa_archive ar;
    ossa_archive_chunk meta;
    void *bytes = ossa_test_open_archive(path, &ar);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_META, 0, &meta), OSSA_OK);
    char *text = malloc(meta.size + 2);
    assert_non_null(text);
    text[0] = '\n'; /* so that every line, the first too, follows a newline */
    memcpy(text + 1, meta.data, meta.size);
    text[meta.size + 1] = '\0';
    free(bytes);
    return text;
}

static size_t count_lines(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *at = strstr(text, prefix); at; at = strstr(at + 1, prefix)) ++n;
    return n;
}

/* `bake --unit-scale` records the unit it used in META (one unit_scale line, replacing the
 * importer's "1", and unit_source=user); `info --against` reads it back and prints the
 * virtual-vertex error in millimetres, in the shape the benchmark script parses, equal to
 * ossa_measure_error's (in source units) times 1000 x unit scale. */
static void unit_scale_in_meta_and_report(void **state)
{
    (void)state;
    mw_canim a = mw_fixture_compressed(1);
    mw_buf anim = {0}, cinf = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    mw_fixture_cinf(&cinf, 1, NULL);
    const char *anim_path = ossa_test_scratch_path("unit.anim"), *cinf_path = ossa_test_scratch_path("unit.cinf");
    const char *out_path = ossa_test_scratch_path("unit.ossa");
    ossa_test_write_file(anim_path, anim.data, anim.size);
    ossa_test_write_file(cinf_path, cinf.data, cinf.size);

    /* One encoding thread: the AArch64 tests run under qemu-user, whose threads hang here. */
    const char *file_unit[] = {anim_path, "--skeleton", cinf_path, "-o", out_path, "-q", "--threads", "1"};
    assert_int_equal(run_bake(8, file_unit), 0);
    char *meta = read_meta(out_path);
    assert_int_equal(count_lines(meta, "\nunit_scale="), 1);
    assert_non_null(strstr(meta, "\nunit_scale=1\nunit_source=file\n"));
    free(meta);

    const char *bake[] = {anim_path,      "--skeleton", cinf_path, "-o",        out_path,
                          "--unit-scale", "0.05",       "-q",      "--threads", "1"};
    assert_int_equal(run_bake(10, bake), 0);
    meta = read_meta(out_path);
    assert_int_equal(count_lines(meta, "\nunit_scale="), 1);
    assert_int_equal(count_lines(meta, "\nunit_source="), 1);
    assert_non_null(strstr(meta, "\nunit_scale=0.05\n"));
    assert_non_null(strstr(meta, "\nunit_source=user\n"));
    assert_non_null(strstr(meta, "\nsource_units=metres\n")); /* the importer's other lines stay */
    free(meta);

    int status = -1;
    const char *info[] = {out_path, "--against", anim_path, "--skeleton", cinf_path};
    char *text = ossa_test_run_captured(tool_info, 5, info, &status);
    assert_non_null(text);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "metres per unit  0.05 (--unit-scale)\n"));
    regex_t re;
    regmatch_t m[2];
    assert_int_equal(regcomp(&re, "^vertex error +max ([0-9.eE+-]+) mm", REG_EXTENDED | REG_NEWLINE), 0);
    const int found = regexec(&re, text, 2, m, 0);
    regfree(&re);
    assert_int_equal(found, 0);
    const double printed_mm = strtod(text + m[1].rm_so, NULL);
    assert_non_null(strstr(text + m[0].rm_so, " mm (0.03 m virtual vertices, every source sample and 60 Hz)\n"));
    free(text);

    /* The same measure through the error module: 3 cm is 0.6 units of 5 cm. */
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation built;
    void *bytes = ossa_test_open_archive(out_path, &ar);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &built), OSSA_OK);
    const ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size};
    ossa_import_output raw = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_metroid_anim(anim.data, anim.size, &desc, &raw, &diag), OSSA_OK);
    assert_int_equal(ossa_import_output_sort_depth_first(&raw, &diag), OSSA_OK);
    const ossa_error_desc vertices = {.shell_distance = .03f / .05f, .source_times = 1};
    ossa_error_report rep;
    assert_int_equal(ossa_measure_error(&skel, &raw.animations[0], &built, &vertices, &rep, &diag), OSSA_OK);
    const double expected_mm = (double)rep.max * .05 * 1e3;
    assert_true(fabs(printed_mm - expected_mm) <= 1e-3 * expected_mm + 1e-9);

    /* info without --against and without --unit-scale: the unit comes from META. */
    const char *alone[] = {out_path};
    text = ossa_test_run_captured(tool_info, 1, alone, &status);
    assert_non_null(text);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "metres per unit  0.05 (--unit-scale)\n"));
    free(text);
    ossa_import_output_destroy(&raw);
    free(bytes);
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

static void default_clip_and_info(void **state)
{
    (void)state;
    need_assimp();
    size_t size = 0;
    void *probe = ossa_test_read_or_skip(OSSA_DEFAULT_INPUT, OSSA_DEFAULT_INPUT, &size);
    free(probe);
    const char *out_path = ossa_test_scratch_path("01_01.ossa");
    /* CMU's unit (BVH states none): the default 0.1 mm tolerance is then 1.8e-3 units. */
    const char *bake[] = {"-o", out_path, "--unit-scale", "0.05644", "-q", "--threads", "1"};
    assert_int_equal(run_bake(7, bake), 0);
    const char *info[] = {out_path, "--against", OSSA_DEFAULT_INPUT};
    assert_int_equal(tool_info(3, (char **)(uintptr_t)info), 0);
    ossa_archive ar;
    ossa_skeleton skel;
    void *bytes = ossa_test_open_archive(out_path, &ar);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(skel.joint_count, 38); /* CMU 01_01: 31 joints and 7 end sites */
    free(bytes);
    /* Without --unit-scale the unit is inferred from the rest pose: within 3 % of CMU's
     * 1/0.45 inch, recorded as inferred. */
    const char *inferred_path = ossa_test_scratch_path("01_01_inferred.ossa");
    const char *bake_inferred[] = {"-o", inferred_path, "-q", "--threads", "1"};
    assert_int_equal(run_bake(5, bake_inferred), 0);
    char *meta = read_meta(inferred_path);
    assert_non_null(strstr(meta, "\nunit_source=inferred\n"));
    const char *scale = strstr(meta, "\nunit_scale=");
    assert_non_null(scale);
    const double metres = strtod(scale + strlen("\nunit_scale="), NULL);
    if (fabs(metres / 0.05644 - 1.0) > 0.03) fail_msg("inferred %g m per unit, CMU's is 0.05644", metres);
    free(meta);
}

static void errors_leave_no_archive(void **state)
{
    (void)state;
    const char *out_path = ossa_test_scratch_path("never.ossa");
    const char *missing[] = {ossa_test_scratch_path("missing.bvh"), "-o", out_path, "-q"};
    assert_int_not_equal(run_bake(4, missing), 0);
    const char *junk_path = ossa_test_scratch_path("junk.xyz");
    ossa_test_write_file(junk_path, "not an animation", 16);
    const char *junk[] = {junk_path, "-o", out_path, "-q"};
    assert_int_not_equal(run_bake(4, junk), 0);
    const char *bad_flag[] = {"--tolerance", "-1"};
    assert_int_not_equal(run_bake(2, bad_flag), 0);
    /* A corrupted archive is reported by info, not loaded. */
    const char *corrupt_path = ossa_test_scratch_path("corrupt.ossa");
    ossa_test_write_file(corrupt_path, "OSSA\x01\x00\x00\x00\x09\x00\x00\x00\x00\x00\x00\x00", 16);
    const char *info[] = {corrupt_path};
    assert_int_not_equal(tool_info(1, (char **)(uintptr_t)info), 0);
    assert_int_equal(access(out_path, F_OK), -1);
}

/* A two-joint BVH of 3 frames at `frame_time` seconds (text written here, read by assimp). */
static const char *tiny_bvh(const char *name, const char *frame_time)
{
    char text[1024];
    const int n = snprintf(text, sizeof text,
                           "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                           "Zrotation Xrotation Yrotation\n JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation "
                           "Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n}\nMOTION\nFrames: 3\n"
                           "Frame Time: %s\n0 30 0 0 0 0 0 0 0\n1 30 0 10 0 0 5 0 0\n2 30 0 20 0 0 10 0 0\n",
                           frame_time);
    const char *path = ossa_test_scratch_path(name);
    ossa_test_write_file(path, text, (size_t)n);
    return path;
}

static size_t file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (size_t)st.st_size : 0;
}

/* run_bake as a tool function, for ossa_test_run_captured_fd. */
static int run_bake_tool(int argc, char **argv) { return run_bake(argc, (const char **)(uintptr_t)argv); }

/* ossa bake with its standard error captured: returns the text (free it) and the status. */
static char *bake_stderr(int argc, const char **argv, int *status)
{
    return ossa_test_run_captured_fd(STDERR_FILENO, run_bake_tool, argc, argv, status);
}

/* -v: one line per stage (import, prepare, search, verify, write, report) and the total, in
 * wall seconds and CPU seconds; the stages are disjoint stretches of the total, so each column
 * adds up to no more than its total (plus the rounding of the printed figures). */
static void verbose_bake_breaks_down_the_time(void **state)
{
    (void)state;
    char walk[512], skeleton[512], out[512];
    snprintf(walk, sizeof walk, "%s", ossa_test_shared_path("ozz/pab_walk_raw.ozz"));
    snprintf(skeleton, sizeof skeleton, "%s", ossa_test_shared_path("ozz/pab_skeleton.ozz"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("verbose.ossa"));
    size_t size = 0;
    free(ossa_test_read_or_skip(walk, "DATA/ozz/pab_walk_raw.ozz", &size));
    static const char *const stages[] = {"import", "prepare", "search", "verify", "write", "report"};
    enum { STAGES = sizeof stages / sizeof *stages };
    for (int quiet = 0; quiet < 2; ++quiet) {
        const char *argv[] = {walk, "--skeleton", skeleton, "-o", out, "-v", "-q"};
        int status = -1;
        char *text = ossa_test_run_captured(run_bake_tool, 6 + quiet, argv, &status);
        assert_int_equal(status, 0);
        double sum = 0.0, cpu_sum = 0.0, total = -1.0, cpu_total = -1.0, rss = -1.0, peak = -1.0;
        for (int i = 0; i < STAGES; ++i) {
            char key[32];
            snprintf(key, sizeof key, "\nstage %s ", stages[i]);
            const char *line = strstr(text, key);
            assert_non_null(line);
            assert_null(strstr(line + 1, key)); /* once */
            double wall = -1.0, cpu = -1.0;
            assert_int_equal(sscanf(line + strlen(key), " %lf s CPU %lf s", &wall, &cpu), 2);
            assert_true(wall >= 0.0 && cpu >= 0.0);
            sum += wall, cpu_sum += cpu;
            if (i == 0) assert_int_equal(sscanf(strstr(line, " s  peak RSS ") + 13, "%lf MB", &rss), 1);
            if (i == 2) assert_int_equal(sscanf(strstr(line, "build peak ") + 11, "%lf MB allocated", &peak), 1);
        }
        const char *line = strstr(text, "\nstage total ");
        assert_non_null(line);
        assert_int_equal(sscanf(line + 14, " %lf s CPU %lf s", &total, &cpu_total), 2);
        /* Six figures printed to the millisecond, each rounded by at most half of one. */
        assert_true(sum <= total + STAGES * .0005 + .0005);
        assert_true(cpu_sum <= cpu_total + STAGES * .0005 + .0005);
        assert_true(total > 0.0);
        assert_true(rss > 0.0 && peak > 0.0); /* the walk's build holds well over 0.05 MB */
        free(text);
    }
}

/* --max-memory and --max-seconds: a clip over either is refused before its build, in one line
 * naming the clip, the estimate and the budget (exit 1, nothing written); 0 removes each. */
static void budgets_refuse_before_building(void **state)
{
    (void)state;
    char walk[512], skeleton[512], out[512];
    snprintf(walk, sizeof walk, "%s", ossa_test_shared_path("ozz/pab_walk_raw.ozz"));
    snprintf(skeleton, sizeof skeleton, "%s", ossa_test_shared_path("ozz/pab_skeleton.ozz"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("budget.ossa"));
    size_t size = 0;
    free(ossa_test_read_or_skip(walk, "DATA/ozz/pab_walk_raw.ozz", &size));
    int status = -1;
    const char *small[] = {walk, "--skeleton", skeleton, "-o", out, "-q", "--max-memory", "1"};
    char *err = bake_stderr(8, small, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "animation \"walk\" (1 s, 67 joints) needs about "));
    assert_non_null(
        strstr(err, "MB to build, over the memory budget of 1 MB (--max-memory MB raises it, 0 removes it)\n"));
    assert_int_equal(count_lines(err, "ossa: "), 1);
    free(err);
    assert_int_equal(access(out, F_OK), -1);
    const char *slow[] = {walk, "--skeleton", skeleton, "-o", out, "-q", "--max-seconds", "0.000001"};
    err = bake_stderr(8, slow, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "over the time budget of 0 s (--max-seconds S raises it, 0 removes it)\n"));
    assert_int_equal(count_lines(err, "ossa: "), 1);
    free(err);
    assert_int_equal(access(out, F_OK), -1);
    const char *unlimited[] = {walk,           "--skeleton", skeleton,        "-o", out, "-q",
                               "--max-memory", "0",          "--max-seconds", "0"};
    assert_int_equal(run_bake(10, unlimited), 0);
    assert_true(file_size(out) > 0);
    const char *bad[][2] = {{"--max-memory", "-1"}, {"--max-memory", "lots"}, {"--max-seconds", "inf"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        const char *argv[] = {walk, "--skeleton", skeleton, "-o", out, bad[i][0], bad[i][1], "-q"};
        assert_int_equal(run_bake(8, argv), 2);
    }
}

#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP
/* A BVH with Frame Time 1000 (frames 1000 s apart) bakes at the default budgets, and the
 * importer's key budget follows --max-memory: 3 frames x 2 moving joints x 2 keys is over
 * 500 B / 48 B per key, refused before assimp reads the frames. */
static void sparse_bvh_within_budgets(void **state)
{
    (void)state;
    need_assimp();
    char bvh[512], out[512];
    snprintf(bvh, sizeof bvh, "%s", tiny_bvh("sparse.bvh", "1000"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("sparse.ossa"));
    const char *baked[] = {bvh, "-o", out, "-q"};
    assert_int_equal(run_bake(4, baked), 0);
    assert_true(file_size(out) > 0);
    remove(out);
    int status = -1;
    const char *tight[] = {bvh, "-o", out, "-q", "--max-memory", "0.0005"};
    char *err = bake_stderr(6, tight, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "BVH declares 3 frames of 2 moving joints, 12 keys; more than the import's budget of "
                                "10 keys (max_keys); the budget is --max-memory / 48 B per key"));
    assert_int_equal(count_lines(err, "ossa: "), 1);
    free(err);
    assert_int_equal(access(out, F_OK), -1);
}
#endif

/* The bad-input audit of the command line: each case exits non-zero with nothing written,
 * and a valid bake next to it succeeds (so the refusals are not an importer failure). */
static void bad_invocations_are_refused(void **state)
{
    (void)state;
    need_assimp();
#if !defined(OSSA_HAVE_ASSIMP)
    skip();
#endif
    /* path_in's buffers are reused: keep copies of the names used throughout. */
    char bvh[512], out[512];
    snprintf(bvh, sizeof bvh, "%s", tiny_bvh("tiny.bvh", "0.0333333"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("tiny.ossa"));
    const char *ok[] = {bvh, "-o", out, "-q", "--threads", "1"};
    assert_int_equal(run_bake(6, ok), 0);
    assert_true(file_size(out) > 0);
    /* Output = input (same inode): refused, the input is unchanged. */
    const size_t bvh_size = file_size(bvh);
    const char *self[] = {bvh, "-o", bvh, "-q"};
    assert_int_equal(run_bake(4, self), 1);
    assert_int_equal(file_size(bvh), bvh_size);
    /* A directory as input; a device as output. */
    const char *dir_in[] = {ossa_test_scratch_dir(), "-o", ossa_test_scratch_path("dir.ossa"), "-q"};
    assert_int_equal(run_bake(4, dir_in), 1);
    assert_int_equal(access(ossa_test_scratch_path("dir.ossa"), F_OK), -1);
    const char *dev_out[] = {bvh, "-o", "/dev/null", "-q"};
    assert_int_equal(run_bake(4, dev_out), 1);
    /* Out-of-range numbers are usage errors (2), infinities too. */
    const char *args[][2] = {{"--tolerance", "1e30"},   {"--tolerance", "inf"},  {"--tolerance", "0"},
                             {"--unit-scale", "1e-30"}, {"--unit-scale", "inf"}, {"--unit-scale", "nan"},
                             {"--threads", "0"},        {"--threads", ""}};
    for (size_t i = 0; i < sizeof args / sizeof *args; ++i) {
        const char *argv[] = {bvh, "-o", ossa_test_scratch_path("never.ossa"), args[i][0], args[i][1], "-q"};
        assert_int_equal(run_bake(6, argv), 2);
    }
    assert_int_equal(access(ossa_test_scratch_path("never.ossa"), F_OK), -1);
    /* An absurd frame time is refused at import (the clip would last 2.8 days). */
    const char *slow[] = {tiny_bvh("slow.bvh", "100000"), "-o", ossa_test_scratch_path("slow.ossa"), "-q"};
    assert_int_equal(run_bake(4, slow), 1);
    assert_int_equal(access(ossa_test_scratch_path("slow.ossa"), F_OK), -1);
    /* A dot inside the stem is no format hint: walk.take_2.bvh is read as BVH. */
    char dotted[512];
    snprintf(dotted, sizeof dotted, "%s", ossa_test_scratch_path("walk.take_2.bvh"));
    ossa_test_write_file(dotted, "", 0);
    assert_int_equal(rename(bvh, dotted), 0);
    char dotted_out[512];
    snprintf(dotted_out, sizeof dotted_out, "%s", ossa_test_scratch_path("walk.take_2.ossa"));
    const char *dotted_bake[] = {dotted, "-o", dotted_out, "-q", "--threads", "1"};
    assert_int_equal(run_bake(6, dotted_bake), 0);
    assert_int_equal(rename(dotted, bvh), 0);
    /* A 250-byte output name (the temporary file no longer appends to it). */
    char long_name[251];
    memset(long_name, 'a', 245);
    memcpy(long_name + 245, ".ossa", 6);
    const char *long_out = ossa_test_scratch_path(long_name);
    const char *longer[] = {bvh, "-o", long_out, "-q", "--threads", "1"};
    assert_int_equal(run_bake(6, longer), 0);
    assert_int_equal(file_size(long_out), file_size(out));
    /* info against a source of another skeleton: an error, exit 1. */
    const char *other_path = ossa_test_scratch_path("other.bvh");
    static const char other[] = "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                                "Zrotation Xrotation Yrotation\n End Site\n {\n  OFFSET 0 10 0\n }\n}\nMOTION\n"
                                "Frames: 2\nFrame Time: 0.1\n0 0 0 0 0 0\n1 0 0 0 0 0\n";
    ossa_test_write_file(other_path, other, sizeof other - 1);
    int status = -1;
    const char *wrong[] = {out, "--against", other_path};
    free(ossa_test_run_captured(tool_info, 3, wrong, &status));
    assert_int_equal(status, 1);
    const char *right[] = {out, "--against", bvh};
    free(ossa_test_run_captured(tool_info, 3, right, &status));
    assert_int_equal(status, 0);
    const char *info_bad[] = {out, "--unit-scale", "inf"};
    assert_int_equal(tool_info(3, (char **)(uintptr_t)info_bad), 2);
}

/* Files an input names (glTF buffer URIs) resolve only inside the input's folder. */
static void references_stay_inside_the_folder(void **state)
{
    (void)state;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/sub", ossa_test_scratch_dir());
    assert_int_equal(mkdir(sub, 0700), 0);
    ossa_test_write_file(ossa_test_scratch_path("secret.bin"), "secret", 6);
    ossa_test_write_file(ossa_test_scratch_path("sub/buffer.bin"), "buffer", 6);
    void *data = NULL;
    size_t size = 0;
    assert_int_equal(tool_read_relative("buffer.bin", &data, &size, sub), OSSA_OK);
    assert_int_equal(size, 6);
    assert_memory_equal(data, "buffer", 6);
    free(data);
    const char *refused[] = {"../secret.bin",      "./../secret.bin",
                             "x/../../secret.bin", ossa_test_scratch_path("secret.bin"),
                             "..\\secret.bin",     "C:/secret.bin"};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; ++i) {
        data = NULL;
        assert_int_equal(tool_read_relative(refused[i], &data, &size, sub), OSSA_ERROR_IO);
        assert_null(data);
    }
    /* Symbolic links: the resolved file must be inside too. A link to a file beside it works;
     * a link to a file outside, or a linked folder outside, is refused. */
    char target[512];
    snprintf(target, sizeof target, "%s", ossa_test_scratch_path("secret.bin"));
    assert_int_equal(symlink("buffer.bin", ossa_test_scratch_path("sub/inside.bin")), 0);
    assert_int_equal(symlink("../secret.bin", ossa_test_scratch_path("sub/up.bin")), 0);
    assert_int_equal(symlink(target, ossa_test_scratch_path("sub/absolute.bin")), 0);
    assert_int_equal(symlink("..", ossa_test_scratch_path("sub/parent")), 0);
    data = NULL;
    assert_int_equal(tool_read_relative("inside.bin", &data, &size, sub), OSSA_OK);
    assert_int_equal(size, 6);
    assert_memory_equal(data, "buffer", 6);
    free(data);
    const char *linked_out[] = {"up.bin", "absolute.bin", "parent/secret.bin"};
    for (size_t i = 0; i < sizeof linked_out / sizeof *linked_out; ++i) {
        data = NULL;
        assert_int_equal(tool_read_relative(linked_out[i], &data, &size, sub), OSSA_ERROR_IO);
        assert_null(data);
    }
}

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
/* A glTF file's buffer beside it is read through the same confined path: it bakes with the
 * file's metres, and a buffer URI leaving the folder is refused (exit 1, no archive). */
static void gltf_buffers_stay_inside_the_folder(void **state)
{
    (void)state;
    const float bin[8] = {0.f, 1.f, 0.f, 0.f, 0.f, .5f, 0.f, 0.f}; /* times, then two translations */
    ossa_test_write_file(ossa_test_scratch_path("walk.bin"), bin, sizeof bin);
    static const char format[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"hips\"}],\"buffers\":[{\"byteLength\":32,"
        "\"uri\":\"%s\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,"
        "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\","
        "\"count\":2},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
        "\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
    char json[1024], out[512];
    snprintf(json, sizeof json, format, "walk.bin");
    ossa_test_write_file(ossa_test_scratch_path("walk.gltf"), json, strlen(json));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("walk.ossa"));
    const char *good[] = {ossa_test_scratch_path("walk.gltf"), "-o", out, "-q"};
    assert_int_equal(run_bake(4, good), 0);
    char *meta = read_meta(out);
    assert_non_null(strstr(meta, "\nformat=gltf\n"));
    assert_non_null(strstr(meta, "\nunit_scale=1\nunit_source=file\n"));
    free(meta);
    char sub[512];
    snprintf(sub, sizeof sub, "%s/gltf-sub", ossa_test_scratch_dir());
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(json, sizeof json, format, "../walk.bin");
    ossa_test_write_file(ossa_test_scratch_path("gltf-sub/escape.gltf"), json, strlen(json));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("escape.ossa"));
    const char *escape[] = {ossa_test_scratch_path("gltf-sub/escape.gltf"), "-o", out, "-q"};
    assert_int_equal(run_bake(4, escape), 1);
    assert_int_equal(access(out, F_OK), -1);
    /* A link inside the folder to the buffer outside it: refused, one line naming the uri. */
    assert_int_equal(symlink("../walk.bin", ossa_test_scratch_path("gltf-sub/link.bin")), 0);
    snprintf(json, sizeof json, format, "link.bin");
    ossa_test_write_file(ossa_test_scratch_path("gltf-sub/linked.gltf"), json, strlen(json));
    const char *linked[] = {ossa_test_scratch_path("gltf-sub/linked.gltf"), "-o", out, "-q"};
    int status = -1;
    char *err = bake_stderr(4, linked, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "refused to read \"link.bin\": it resolves to "));
    assert_non_null(strstr(err, "outside the input's folder"));
    free(err);
    assert_int_equal(access(out, F_OK), -1);
    /* A link to a file inside the folder is read. */
    assert_int_equal(rename(ossa_test_scratch_path("walk.bin"), ossa_test_scratch_path("gltf-sub/walk.bin")), 0);
    const char *inside[] = {ossa_test_scratch_path("gltf-sub/linked.gltf"), "-o", out, "-q"};
    assert_int_equal(run_bake(4, inside), 1); /* link.bin still points to ../walk.bin: gone */
    assert_int_equal(remove(ossa_test_scratch_path("gltf-sub/link.bin")), 0);
    assert_int_equal(symlink("walk.bin", ossa_test_scratch_path("gltf-sub/link.bin")), 0);
    assert_int_equal(run_bake(4, inside), 0);
    assert_true(file_size(out) > 0);
    /* The glTF importer's key budget follows --max-memory: 100 B is 2 keys, the file has 4. */
    remove(out);
    const char *tight[] = {ossa_test_scratch_path("gltf-sub/linked.gltf"), "-o", out, "-q", "--max-memory", "0.0001"};
    err = bake_stderr(6, tight, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "more keys than the import's budget (max_keys); the budget is --max-memory / 48 B"));
    assert_int_equal(count_lines(err, "ossa: "), 1);
    free(err);
    assert_int_equal(access(out, F_OK), -1);
}
#endif

/* A source cut so short that nothing is left (the Maya header alone) bakes nothing: an error. */
static void empty_bake_is_an_error(void **state)
{
    (void)state;
    static const char header[] = "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\n";
    const char *path = ossa_test_scratch_path("cut.anim");
    ossa_test_write_file(path, header, sizeof header - 1);
    char out[512];
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("cut.ossa"));
    const char *argv[] = {path, "-o", out, "-q"};
    assert_int_equal(run_bake(4, argv), 1);
    assert_int_equal(access(out, F_OK), -1);
}

/* A clip from a format without clip names (Maya .anim) is named after the file's stem (the
 * name without its last extension, as the default output name). */
static void clips_are_named_after_the_file(void **state)
{
    (void)state;
    static const char anim[] = "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\nlinearUnit cm;\n"
                               "angularUnit deg;\nstartTime 0;\nendTime 10;\n"
                               "anim translate.translateX translateX j1 0 0 0;\nanimData {\n  keys {\n"
                               "    0 0 linear linear 1 1 0;\n    10 5 linear linear 1 1 0;\n  }\n}\n";
    const char *path = ossa_test_scratch_path("wave.take2.anim");
    ossa_test_write_file(path, anim, sizeof anim - 1);
    ossa_import_output out = {0};
    assert_true(tool_import(path, false, &out));
    assert_int_equal(out.animation_count, 1);
    assert_string_equal(out.animations[0].name, "wave.take2");
    ossa_import_output_destroy(&out);
}

/* The bake says where a Maya clip's joint hierarchy comes from: the file's child counts
 * (a -> b), or none (every node a root, errors per joint). */
static void maya_hierarchy_in_report(void **state)
{
    (void)state;
    static const char chain[] = "animVersion 1.1;\ntimeUnit film;\nstartTime 0;\nendTime 10;\nanim a 0 1 0;\n"
                                "anim rotate.rotateZ rotateZ b 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                                "    0 0 linear linear 1 1 0;\n    10 45 linear linear 1 1 0;\n  }\n}\n";
    const char *kinds[2] = {"from the file (1 root)", "flat: the file gives no parents"};
    for (int flat = 0; flat < 2; ++flat) {
        char text[sizeof chain], path[512], out_path[512];
        memcpy(text, chain, sizeof chain);
        if (flat) text[strstr(text, "anim a 0 1 0;") - text + 9] = '0';
        snprintf(path, sizeof path, "%s", ossa_test_scratch_path(flat ? "flat.anim" : "chain.anim"));
        snprintf(out_path, sizeof out_path, "%s", ossa_test_scratch_path("chain.ossa"));
        ossa_test_write_file(path, text, sizeof text - 1);
        const char *argv[] = {path, "-o", out_path, "--threads", "1"};
        int status = -1;
        char *printed = ossa_test_run_captured(tool_bake, 5, argv, &status);
        assert_int_equal(status, 0);
        if (!strstr(printed, kinds[flat])) fail_msg("expected \"%s\" in:\n%s", kinds[flat], printed);
        free(printed);
    }
}

/* A Maya clip names its nodes: --skeleton binds them to the given skeleton's joints (here a
 * BVH's Hips and Spine) instead of a flat skeleton of the clip's nodes. Its centimetres are
 * converted on import, so the archive records 1 m per unit. */
static void maya_clip_binds_to_skeleton(void **state)
{
    (void)state;
    need_assimp();
    static const char anim[] = "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\nlinearUnit cm;\n"
                               "angularUnit deg;\nstartTime 0;\nendTime 10;\n"
                               "anim rotate.rotateZ rotateZ Spine 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                               "    0 0 linear linear 1 1 0;\n    10 45 linear linear 1 1 0;\n  }\n}\n"
                               "anim translate.translateY translateY Hips 0 0 1;\nanimData {\n  keys {\n"
                               "    0 90 linear linear 1 1 0;\n    10 100 linear linear 1 1 0;\n  }\n}\n";
    const char *anim_path = ossa_test_scratch_path("bound.anim");
    ossa_test_write_file(anim_path, anim, sizeof anim - 1);
    char skel_path[512], out_path[512];
    snprintf(skel_path, sizeof skel_path, "%s", tiny_bvh("bind.bvh", "0.1"));
    snprintf(out_path, sizeof out_path, "%s", ossa_test_scratch_path("bound.ossa"));
    ossa_import_output out = {0};
    assert_true(tool_import_with_skeleton(anim_path, skel_path, false, &out));
    /* The BVH's three joints (Hips, Spine, its end site), animated by name. */
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[0].name, "Hips");
    assert_string_equal(out.skeleton.joints[1].name, "Spine");
    assert_int_equal(out.skeleton.joints[1].parent, 0);
    ossa_transform pose[3];
    assert_int_equal(ossa_raw_animation_sample(&out.animations[0], 10.f / 24.f, pose, 3), OSSA_OK);
    assert_true(fabsf(pose[0].translation.y - 1.f) < 1e-6f); /* 100 cm */
    assert_true(fabsf(pose[1].rotation.z - sinf(22.5f * 3.14159265f / 180.f)) < 1e-5f);
    ossa_import_output_destroy(&out);
    /* One encoding thread: the AArch64 tests run under qemu-user, whose threads hang here. */
    const char *argv[] = {anim_path, "--skeleton", skel_path, "-o", out_path, "-q", "--threads", "1"};
    assert_int_equal(run_bake(8, argv), 0);
    char *meta = read_meta(out_path);
    assert_non_null(strstr(meta, "unit_scale=1\n"));
    assert_non_null(strstr(meta, "source_unit_scale=0.01\n"));
    free(meta);
}

/* ozz archives store no unit: the bake infers it from the rest pose and rounds it to the
 * nearest of metres, centimetres and millimetres. ozz's own skeletons (metres: the 1.8 m
 * human, the 0.3 m robot) stay at 1; the human with every rest translation times 100 is
 * taken as centimetres. */
static void ozz_unit_is_inferred(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *bytes =
        ossa_test_read_or_skip(ossa_test_shared_path("ozz/pab_skeleton.ozz"), "DATA/ozz/pab_skeleton.ozz", &size);
    /* Runtime Skeleton v2, little-endian: endianness byte, "ozz-skeleton\0", version, joint
     * count, name bytes, names, int16 parents, then per SoA group of 4 joints 10 x 4 floats
     * (translation x, y, z lanes first). */
    static const char tag[] = "ozz-skeleton";
    assert_true(size > 32 && bytes[0] == 1 && !memcmp(bytes + 1, tag, sizeof tag));
    uint32_t joints, chars;
    memcpy(&joints, bytes + 1 + sizeof tag + 4, 4);
    memcpy(&chars, bytes + 1 + sizeof tag + 8, 4);
    const size_t soa = 1 + sizeof tag + 12 + chars + 2 * (size_t)joints, groups = (joints + 3) / 4;
    assert_int_equal(size, soa + groups * 160);
    char paths[3][512], out_path[512]; /* ossa_test_*_path return one static buffer */
    snprintf(paths[0], sizeof paths[0], "%s", ossa_test_shared_path("ozz/pab_skeleton.ozz"));
    snprintf(paths[1], sizeof paths[1], "%s", ossa_test_scratch_path("pab_cm.ozz"));
    snprintf(paths[2], sizeof paths[2], "%s", ossa_test_shared_path("ozz/robot_skeleton.ozz"));
    for (size_t g = 0; g < groups; ++g)
        for (size_t f = 0; f < 12; ++f) {
            float v;
            memcpy(&v, bytes + soa + g * 160 + f * 4, 4);
            v *= 100.f;
            memcpy(bytes + soa + g * 160 + f * 4, &v, 4);
        }
    ossa_test_write_file(paths[1], bytes, size);
    free(bytes);
    const char *want[3] = {"\nunit_scale=1\n", "\nunit_scale=0.01\n", "\nunit_scale=1\n"};
    for (int i = 0; i < 3; ++i) {
        snprintf(out_path, sizeof out_path, "%s", ossa_test_scratch_path("ozz_unit.ossa"));
        const char *argv[] = {paths[i], "-o", out_path, "-q"};
        assert_int_equal(run_bake(4, argv), 0);
        char *meta = read_meta(out_path);
        if (!strstr(meta, want[i])) fail_msg("file %d: expected %s in META:%s", i, want[i] + 1, meta);
        assert_non_null(strstr(meta, "\nunit_source=inferred\n"));
        assert_non_null(strstr(meta, "\nsource_units=unknown\n"));
        free(meta);
    }
}

/* --root-motion: the clip's root travel becomes two tracks in the archive, and the baked root
 * no longer travels (tiny_bvh moves its root 1 unit along x per frame). */
static void root_motion_tracks(void **state)
{
    (void)state;
    need_assimp();
    char in[512], out[512];
    snprintf(in, sizeof in, "%s", tiny_bvh("walk.bvh", "0.1"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("walk.ossa"));
    const char *argv[] = {in, "--root-motion", "-o", out, "-q", "--threads", "1"};
    assert_int_equal(run_bake(7, argv), 0);
    size_t size = 0;
    void *data = tool_read_file(out, &size);
    assert_non_null(data);
    ossa_archive ar;
    assert_int_equal(ossa_archive_init(&ar, data, size), OSSA_OK);
    assert_int_equal(ossa_archive_count(&ar, OSSA_TAG_TRACK), 2);
    ossa_track position, rotation;
    assert_int_equal(ossa_archive_track(&ar, 0, &position), OSSA_OK);
    assert_int_equal(ossa_archive_track(&ar, 1, &rotation), OSSA_OK);
    assert_string_equal(position.name, "Motion/root_motion.position");
    assert_string_equal(rotation.name, "Motion/root_motion.rotation");
    assert_int_equal(position.type, OSSA_TRACK_FLOAT3);
    /* The last key holds the whole clip's travel: 2 units along x (frames at x = 0, 1, 2). */
    const float *last = position.values + (position.key_count - 1) * position.width;
    assert_true(fabsf(last[0] - 2.f) < 1e-3f && fabsf(last[2]) < 1e-3f);
    free(data);
}

/* --retarget with a --joint-map: the archive holds the target's skeleton and names the
 * retarget; a map line with one name is refused with its line number. */
static void retarget_onto_another_skeleton(void **state)
{
    (void)state;
    need_assimp();
    static const char target[] =
        "HIERARCHY\nROOT pelvis\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition "
        "Zposition Zrotation Xrotation Yrotation\n JOINT chest\n {\n  OFFSET 0 5 0\n  CHANNELS 3 "
        "Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 5 0\n  }\n }\n}\nMOTION\n"
        "Frames: 1\nFrame Time: 0.1\n0 20 0 0 0 0 0 0 0\n";
    char src[512], tgt[512], map[512], out[512];
    snprintf(src, sizeof src, "%s", tiny_bvh("mover.bvh", "0.1"));
    snprintf(tgt, sizeof tgt, "%s", ossa_test_scratch_path("target.bvh"));
    ossa_test_write_file(tgt, target, sizeof target - 1);
    snprintf(map, sizeof map, "%s", ossa_test_scratch_path("map.txt"));
    static const char pairs[] = "# target source\npelvis Hips\n\nchest Spine\n";
    ossa_test_write_file(map, pairs, sizeof pairs - 1);
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("moved.ossa"));
    const char *argv[] = {src, "--retarget", tgt, "--joint-map", map, "-o", out, "-q", "--threads", "1"};
    assert_int_equal(run_bake(10, argv), 0);
    size_t size = 0;
    void *data = tool_read_file(out, &size);
    ossa_archive ar;
    assert_int_equal(ossa_archive_init(&ar, data, size), OSSA_OK);
    ossa_skeleton skel;
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(skel.joint_count, 3);
    assert_string_equal(ossa_skeleton_joint_name(&skel, 0), "pelvis");
    free(data);
    char *meta = read_meta(out);
    assert_non_null(strstr(meta, "\nretarget_bound_joints=2 of 3\n"));
    free(meta);
    static const char broken[] = "pelvis Hips\nchest\n";
    ossa_test_write_file(map, broken, sizeof broken - 1);
    assert_int_equal(run_bake(10, argv), 1);
    const char *lonely[] = {src, "--joint-map", map, "-o", out};
    assert_int_equal(run_bake(5, lonely), 2);
}

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
/* ossa export writes a GLB that the native glTF importer reads back to the same poses: every
 * joint at every time point of the clip, in metres (the archive's unit applied). */
static void export_reimports_to_the_same_poses(void **state)
{
    (void)state;
    need_assimp();
    char in[512], out[512], glb[512];
    snprintf(in, sizeof in, "%s", tiny_bvh("dance.bvh", "0.1"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("dance.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("dance.glb"));
    const char *bake[] = {in, "-o", out, "-q", "--unit-scale", "0.01"};
    assert_int_equal(run_bake(6, bake), 0);
    const char *exp[] = {out, "-o", glb};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    const char *no_out[] = {out};
    assert_int_equal(tool_export(1, (char **)(uintptr_t)no_out), 2);
    size_t size = 0, glb_size = 0;
    void *data = tool_read_file(out, &size), *bytes = tool_read_file(glb, &glb_size);
    assert_non_null(data);
    assert_non_null(bytes);
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    assert_int_equal(ossa_archive_init(&ar, data, size), OSSA_OK);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
    ossa_import_output back = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_gltf(bytes, glb_size, NULL, &back, &diag), OSSA_OK);
    assert_int_equal(back.skeleton.joint_count, skel.joint_count);
    assert_int_equal(back.animation_count, 1);
    const size_t J = skel.joint_count, ctx_size = ossa_sampling_context_size(J);
    void *mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_soa_transform *pose = aligned_alloc(16, (skel.soa_count + 1) * sizeof *pose);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, J);
    ossa_transform raw[16];
    for (size_t f = 0; f < anim.frame_count; ++f) {
        const float ratio = anim.timepoints ? anim.timepoints[f] : (float)f / (float)(anim.frame_count - 1);
        const ossa_sampling_job job = {&anim, ctx, ratio, pose, skel.soa_count, skel.rest_pose, skel.soa_count};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&back.animations[0], ratio * anim.duration, raw, 16), OSSA_OK);
        for (size_t j = 0; j < J; ++j) {
            const int k = ossa_skeleton_find_joint(&skel, back.skeleton.joints[j].name);
            assert_true(k >= 0);
            const ossa_transform t = ossa_soa_transform_get(&pose[k / 4], k % 4);
            assert_true(fabsf(raw[j].translation.x - .01f * t.translation.x) < 1e-6f);
            assert_true(fabsf(raw[j].translation.y - .01f * t.translation.y) < 1e-6f);
            assert_true(fabsf(raw[j].translation.z - .01f * t.translation.z) < 1e-6f);
            const float dot = raw[j].rotation.x * t.rotation.x + raw[j].rotation.y * t.rotation.y +
                              raw[j].rotation.z * t.rotation.z + raw[j].rotation.w * t.rotation.w;
            assert_true(fabsf(fabsf(dot) - 1.f) < 1e-5f);
        }
    }
    free(mem), free(pose), free(data), free(bytes);
    ossa_import_output_destroy(&back);
}
#endif

/* Whether `program` is on the PATH. */
static bool on_path(const char *program)
{
    const char *path = getenv("PATH");
    char candidate[4096];
    while (path && *path) {
        const char *end = strchr(path, ':');
        const size_t len = end ? (size_t)(end - path) : strlen(path);
        snprintf(candidate, sizeof candidate, "%.*s/%s", (int)len, path, program);
        if (access(candidate, X_OK) == 0) return true;
        path = end ? end + 1 : NULL;
    }
    return false;
}

/* ossa plot: an SVG with the three panels, or a clear usage error. */
static void plot_draws_an_svg(void **state)
{
    (void)state;
    need_assimp();
    char in[512], out[512], svg[512];
    snprintf(in, sizeof in, "%s", tiny_bvh("plotted.bvh", "0.1"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("plotted.ossa"));
    snprintf(svg, sizeof svg, "%s", ossa_test_scratch_path("plotted.svg"));
    const char *bake[] = {in, "-o", out, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    const char *no_source[] = {out, "-o", svg};
    assert_int_equal(tool_plot(3, (char **)(uintptr_t)no_source), 2);
    const char *bad_joint[] = {out, "--against", in, "-o", svg, "--joint", "NoSuchJoint"};
    assert_int_equal(tool_plot(7, (char **)(uintptr_t)bad_joint), 2);
    if (!on_path("gnuplot")) {
        print_message("skipped the drawing: gnuplot is not installed\n");
        return;
    }
    const char *argv[] = {out, "--against", in, "-o", svg, "--joint", "Spine"};
    assert_int_equal(tool_plot(7, (char **)(uintptr_t)argv), 0);
    size_t size = 0;
    char *text = tool_read_file(svg, &size);
    assert_non_null(text);
    assert_non_null(strstr(text, "<svg"));
    assert_non_null(strstr(text, "rotation (degrees)"));
    assert_non_null(strstr(text, "error (mm)"));
    assert_non_null(strstr(text, "Spine"));
    free(text);
}

#if defined(OSSA_HAVE_CJSON)
/* The number after `label` ("error", "vertex error") and "max", "p99" or "mean" in the text
 * report, in mm. */
static double text_mm(const char *text, const char *label, const char *what)
{
    char pattern[128];
    snprintf(pattern, sizeof pattern, "^%s +max [^\n]*", label);
    regex_t re;
    regmatch_t m[1];
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NEWLINE), 0);
    const int found = regexec(&re, text, 1, m, 0);
    regfree(&re);
    assert_int_equal(found, 0);
    char key[16];
    snprintf(key, sizeof key, "%s ", what);
    const char *at = strstr(text + m[0].rm_so, key);
    assert_non_null(at);
    assert_true(at < text + m[0].rm_eo);
    return strtod(at + strlen(key), NULL);
}

static double number_at(const cJSON *object, const char *name)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive(object, name);
    if (!cJSON_IsNumber(item)) fail_msg("JSON member \"%s\" is not a number", name);
    return item->valuedouble;
}
#endif

/* `info --json` against the source: one JSON document whose figures are the archive's (bytes,
 * joints, time points, keys), the error module's (maximum error in mm, and the per-joint
 * maxima of which it is the largest) and the text report's (mm to its 4 digits). */
static void info_json_matches_text(void **state)
{
    (void)state;
    mw_canim a = mw_fixture_compressed(2);
    mw_buf anim = {0}, cinf = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    mw_fixture_cinf(&cinf, 2, NULL);
    char anim_path[512], cinf_path[512], out_path[512];
    snprintf(anim_path, sizeof anim_path, "%s", ossa_test_scratch_path("json.anim"));
    snprintf(cinf_path, sizeof cinf_path, "%s", ossa_test_scratch_path("json.cinf"));
    snprintf(out_path, sizeof out_path, "%s", ossa_test_scratch_path("json.ossa"));
    ossa_test_write_file(anim_path, anim.data, anim.size);
    ossa_test_write_file(cinf_path, cinf.data, cinf.size);
    const char *bake[] = {anim_path,      "--skeleton", cinf_path, "-o",        out_path,
                          "--unit-scale", "0.05",       "-q",      "--threads", "1"};
    assert_int_equal(run_bake(10, bake), 0);
    int status = -1;
    const char *json_args[] = {out_path, "--against", anim_path, "--skeleton", cinf_path, "--json"};
#if !defined(OSSA_HAVE_CJSON)
    free(ossa_test_run_captured(tool_info, 6, json_args, &status));
    assert_int_equal(status, 2); /* a usage error: this build cannot write JSON */
#else
    char *json_text = ossa_test_run_captured(tool_info, 6, json_args, &status);
    assert_non_null(json_text);
    assert_int_equal(status, 0);
    cJSON *doc = cJSON_Parse(json_text);
    if (!doc) fail_msg("ossa info --json printed no JSON document:\n%s", json_text);
    char *text = ossa_test_run_captured(tool_info, 5, json_args, &status);
    assert_non_null(text);
    assert_int_equal(status, 0);

    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation built;
    ossa_archive_chunk chunk;
    void *bytes = ossa_test_open_archive(out_path, &ar);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &built), OSSA_OK);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_ANIMATION, 0, &chunk), OSSA_OK);

    const cJSON *archive = cJSON_GetObjectItemCaseSensitive(doc, "archive");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(archive, "path")), out_path);
    assert_true(number_at(archive, "bytes") == (double)ar.size); /* the whole file */
    assert_true(number_at(archive, "chunks") == (double)ar.chunk_count);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "meta");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "unit_scale")), "0.05");
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "events")));
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(doc, "unit");
    assert_true(number_at(unit, "metres_per_unit") == 0.05);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(unit, "source")), "user");
    const cJSON *skeleton = cJSON_GetObjectItemCaseSensitive(doc, "skeleton");
    assert_true(number_at(skeleton, "joints") == (double)skel.joint_count);
    assert_true(number_at(skeleton, "soa_groups") == (double)skel.soa_count);
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(skeleton, "names");
    assert_int_equal(cJSON_GetArraySize(names), (int)skel.joint_count);
    for (size_t j = 0; j < skel.joint_count; ++j)
        assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, (int)j)),
                            ossa_skeleton_joint_name(&skel, j));

    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(doc, "animations");
    assert_int_equal(cJSON_GetArraySize(animations), 1);
    const cJSON *a0 = cJSON_GetArrayItem(animations, 0);
    assert_true(number_at(a0, "tracks") == (double)skel.joint_count);
    assert_true(number_at(a0, "time_points") == (double)built.frame_count);
    assert_true(number_at(a0, "keys") == (double)built.key_count);
    assert_true(number_at(a0, "baked_bytes") == (double)chunk.size);
    assert_true(number_at(cJSON_GetObjectItemCaseSensitive(a0, "bytes"), "total") == (double)chunk.size);
    assert_true(cJSON_IsBool(cJSON_GetObjectItemCaseSensitive(a0, "uniform")));

    /* The source as the tool imports it, measured here through the error module. */
    const ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size};
    ossa_import_output raw = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_metroid_anim(anim.data, anim.size, &desc, &raw, &diag), OSSA_OK);
    assert_int_equal(ossa_import_output_sort_depth_first(&raw, &diag), OSSA_OK);
    assert_true(number_at(a0, "raw_bytes") == (double)ossa_raw_animation_size(&raw.animations[0]));

    const cJSON *errors = cJSON_GetObjectItemCaseSensitive(a0, "errors");
    const char *const kinds[2] = {"joints", "vertices"}, *const labels[2] = {"error", "vertex error"};
    for (int k = 0; k < 2; ++k) {
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(errors, kinds[k]);
        assert_non_null(e);
        const double max = number_at(e, "max_mm");
        const ossa_error_desc measure = {.shell_distance = k ? .03f / .05f : 0.f, .source_times = 1};
        ossa_error_report rep;
        assert_int_equal(ossa_measure_error(&skel, &raw.animations[0], &built, &measure, &rep, &diag), OSSA_OK);
        /* The tool's conversion: metres per unit (a float, as parsed) x 1000. cJSON writes 15
         * digits when they read back within a relative DBL_EPSILON, so the last bit may differ. */
        const double expected = (double)rep.max * ((double).05f * 1e3);
        assert_true(fabs(max - expected) <= DBL_EPSILON * expected);
        assert_true(max > 0.);
        /* The per-joint maxima: none above the maximum, the largest equal to it, at the worst joint. */
        const cJSON *per_joint = cJSON_GetObjectItemCaseSensitive(e, "joint_max_mm");
        assert_int_equal(cJSON_GetArraySize(per_joint), (int)skel.joint_count);
        double largest = 0.;
        for (size_t j = 0; j < skel.joint_count; ++j) {
            const double v = cJSON_GetArrayItem(per_joint, (int)j)->valuedouble;
            assert_true(v >= 0. && v <= max);
            largest = v > largest ? v : largest;
        }
        assert_true(largest == max);
        const size_t worst = (size_t)number_at(e, "worst_joint");
        assert_int_equal(worst, rep.worst_joint);
        assert_true(cJSON_GetArrayItem(per_joint, (int)worst)->valuedouble == max);
        assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(e, "worst_joint_name")),
                            ossa_skeleton_joint_name(&skel, worst));
        /* The text report prints the same figures to 4 significant digits. */
        const char *const figures[3][2] = {{"max", "max_mm"}, {"p99", "p99_mm"}, {"mean", "mean_mm"}};
        for (int f = 0; f < 3; ++f) {
            const double printed = text_mm(text, labels[k], figures[f][0]), exact = number_at(e, figures[f][1]);
            if (fabs(printed - exact) > 5e-4 * exact)
                fail_msg("%s %s: text %g mm, JSON %g mm", labels[k], figures[f][0], printed, exact);
        }
    }
    const cJSON *sampling = cJSON_GetObjectItemCaseSensitive(a0, "sampling");
    assert_true(number_at(sampling, "ns_per_call") > 0.);
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "tracks")));

    /* Without --against: no source figures. */
    const char *alone[] = {out_path, "--json"};
    char *alone_text = ossa_test_run_captured(tool_info, 2, alone, &status);
    assert_int_equal(status, 0);
    cJSON *alone_doc = cJSON_Parse(alone_text);
    assert_non_null(alone_doc);
    const cJSON *alone_a0 = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(alone_doc, "animations"), 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(alone_a0, "errors"));
    assert_null(cJSON_GetObjectItemCaseSensitive(alone_a0, "raw_bytes"));
    assert_true(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(alone_doc, "against")));
    cJSON_Delete(alone_doc);
    free(alone_text);

    /* META as an object (a repeated key keeps its first value) and its events as an array:
     * the archive again, with another META chunk. */
    static const char meta_text[] = "input=clip.bvh\nformat=first\nevent=0.5 left foot down\nformat=second\n"
                                    "event=1.25 jump\nunit_scale=0.05\n";
    ossa_archive_entry entries[8];
    size_t entry_count = 0;
    for (size_t c = 0; c < ar.chunk_count && entry_count < 7; ++c) {
        ossa_archive_chunk ch;
        assert_int_equal(ossa_archive_chunk_at(&ar, c, &ch), OSSA_OK);
        if (ch.tag != OSSA_TAG_META)
            entries[entry_count++] = (ossa_archive_entry){ch.tag, ch.version, ch.data, ch.size};
    }
    entries[entry_count++] = (ossa_archive_entry){OSSA_TAG_META, 1, meta_text, sizeof meta_text - 1};
    ossa_blob file = {0};
    assert_int_equal(ossa_archive_write(entries, entry_count, NULL, &file, NULL), OSSA_OK);
    char meta_path[512];
    snprintf(meta_path, sizeof meta_path, "%s", ossa_test_scratch_path("meta.ossa"));
    ossa_test_write_file(meta_path, file.data, file.size);
    ossa_blob_destroy(&file);
    const char *meta_args[] = {meta_path, "--json"};
    char *meta_json = ossa_test_run_captured(tool_info, 2, meta_args, &status);
    assert_int_equal(status, 0);
    cJSON *meta_doc = cJSON_Parse(meta_json);
    assert_non_null(meta_doc);
    const cJSON *meta2 = cJSON_GetObjectItemCaseSensitive(meta_doc, "meta");
    assert_int_equal(cJSON_GetArraySize(meta2), 3); /* input, format, unit_scale */
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta2, "format")), "first");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta2, "input")), "clip.bvh");
    const cJSON *events = cJSON_GetObjectItemCaseSensitive(meta_doc, "events");
    assert_int_equal(cJSON_GetArraySize(events), 2);
    assert_true(number_at(cJSON_GetArrayItem(events, 0), "time_s") == 0.5);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(events, 0), "name")),
                        "left foot down");
    assert_true(number_at(cJSON_GetArrayItem(events, 1), "time_s") == 1.25);
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(events, 1), "name")),
                        "jump");
    cJSON_Delete(meta_doc);
    free(meta_json);

    ossa_import_output_destroy(&raw);
    free(bytes);
    free(text);
    cJSON_Delete(doc);
    free(json_text);
#endif
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

/* A bake's bytes do not depend on the instruction set the jobs run on: the builder measures
 * through the baseline copies of the jobs (runtime/baseline_jobs.h), so the x86-64-v3 copy's
 * fused multiply-adds cannot move a measured error across the tolerance. The ossa executable
 * bakes CMU 01_01 once with OSSA_SIMD=sse2 and once with OSSA_SIMD=avx2 (the v3 copy where the
 * CPU has it; elsewhere both runs take the same path and the check is trivially met). */
static void bakes_do_not_depend_on_the_simd_path(void **state)
{
    (void)state;
    need_assimp();
    const char *exe = getenv("OSSA_EXE");
    if (!exe || !*exe) {
        print_message("skipped: OSSA_EXE is not set (cross builds run no executable)\n");
        skip();
    }
    size_t size = 0;
    free(ossa_test_read_or_skip(OSSA_DEFAULT_INPUT, OSSA_DEFAULT_INPUT, &size));
    const char *paths[2] = {ossa_test_scratch_path("simd_sse2.ossa"), ossa_test_scratch_path("simd_avx2.ossa")};
    const char *levels[2] = {"sse2", "avx2"};
    for (int i = 0; i < 2; ++i) {
        char command[4096];
        snprintf(command, sizeof command, "OSSA_SIMD=%s '%s' bake '%s' --unit-scale 0.05644 -q --threads 1 -o '%s'",
                 levels[i], exe, OSSA_DEFAULT_INPUT, paths[i]);
        const int st = system(command);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    }
    size_t a_size = 0, b_size = 0;
    void *a = ossa_test_read_file(paths[0], &a_size), *b = ossa_test_read_file(paths[1], &b_size);
    assert_int_equal(a_size, b_size);
    assert_memory_equal(a, b, a_size);
    free(a), free(b);
}

/* The tolerance is a hard bound in the figure `ossa info --against` reports: CMU 01_03 (37.6 s,
 * a run whose toes reach 4 m/s) baked at 0.05 mm measures at most 0.05 mm in info's own
 * measurement (info_measure, as `ossa info` runs it), and the bake's recorded figure is that
 * same measurement. Before the builder verified with info's computation it accepted an
 * archive that info measured at 0.05197 mm: its reference poses were sampled at
 * (time / duration) x duration, a float step (1.9e-6 s) away from the times info samples. */
static void bake_bound_holds_in_info(void **state)
{
    (void)state;
    need_assimp();
    char source[512];
    snprintf(source, sizeof source, "%s", ossa_test_assimp_path("BVH/01_03.bvh"));
    size_t size = 0;
    free(ossa_test_read_or_skip(source, source, &size));
    const char *out_path = ossa_test_scratch_path("bound.ossa");
    const char *bake[] = {source, "--unit-scale", "0.05644", "--tolerance", "5e-05", "-o", out_path, "-q"};
    assert_int_equal(run_bake(8, bake), 0);

    ossa_import_output imp = {0};
    assert_true(tool_import(source, false, &imp));
    void *archive = tool_read_file(out_path, &size);
    assert_non_null(archive);
    const tool_unit unit = info_unit(archive, size, &imp, 0.f);
    assert_true(unit.scale == 0.05644f); /* from META, as the bake recorded it */
    info_report rep;
    assert_int_equal(info_measure(&rep, out_path, archive, size, &imp, source, unit, false), 0);
    assert_int_equal(rep.animation_count, 1);
    const info_error *e = &rep.animations[0].errors[INFO_ERROR_VERTICES];
    const double tolerance_mm = (double)5e-05f * 1e3; /* --tolerance as the tool parses it */
    print_message("01_03 at %.4f mm: info measures %.6f mm (joint %zu at %.3f s)\n", tolerance_mm, e->max_mm,
                  e->worst_joint, e->worst_time);
    if (!(e->max_mm <= tolerance_mm))
        fail_msg("info measures %.6f mm, above the %.4f mm the bake accepted", e->max_mm, tolerance_mm);
    /* Not a lossless bake that passes trivially: the search used most of the room. */
    assert_true(e->max_mm > .5 * tolerance_mm);

    /* The bake's own figure (META max_error_mm, a float) is info's, to float precision. */
    char *meta = read_meta(out_path);
    const char *line = strstr(meta, "\nmax_error_mm=");
    assert_non_null(line);
    const double bake_mm = strtod(line + strlen("\nmax_error_mm="), NULL);
    if (!(fabs(bake_mm - e->max_mm) <= 1e-6 * e->max_mm))
        fail_msg("the bake recorded %.7f mm, info measures %.7f mm", bake_mm, e->max_mm);
    free(meta);
    info_report_free(&rep);
    free(archive);
    ossa_import_output_destroy(&imp);
}

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
/* Writes to `path` an archive made through the offline library, as a hand-made archive would
 * be: a chain of `joint_count` joints named `names[j]` (bytes as given) and `clip_count` clips of
 * two keys, named `clip_name` followed by the clip's index. */
static void write_archive(const char *path, const char *const *names, size_t joint_count, size_t clip_count,
                          const char *clip_name)
{
    ossa_raw_skeleton rs;
    assert_int_equal(ossa_raw_skeleton_create(&rs, joint_count, NULL), OSSA_OK);
    for (size_t j = 0; j < joint_count; ++j) {
        rs.joints[j].parent = (int)j - 1;
        rs.joints[j].rest.translation.y = j ? 0.25f : 0.f;
        assert_int_equal(ossa_raw_skeleton_set_name(&rs, j, names[j]), OSSA_OK);
    }
    ossa_blob *blobs = calloc(clip_count + 1, sizeof *blobs);
    ossa_archive_entry *entries = calloc(clip_count + 1, sizeof *entries);
    assert_non_null(blobs);
    assert_non_null(entries);
    assert_int_equal(ossa_skeleton_build(&rs, NULL, &blobs[0], NULL), OSSA_OK);
    entries[0] = (ossa_archive_entry){OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, blobs[0].data, blobs[0].size};
    ossa_raw_animation ra;
    assert_int_equal(ossa_raw_animation_create(&ra, joint_count, NULL), OSSA_OK);
    ra.duration = 0.5f;
    for (size_t j = 0; j < joint_count; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(&ra, j, 1, 2, 0), OSSA_OK);
        ra.tracks[j].translations[0] = (ossa_raw_float3_key){0.f, {0.f, j ? 0.25f : 0.f, 0.f}};
        ra.tracks[j].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        ra.tracks[j].rotations[1] = (ossa_raw_quat_key){0.5f, {0.f, .6f, 0.f, .8f}};
    }
    for (size_t c = 0; c < clip_count; ++c) {
        char name[128];
        snprintf(name, sizeof name, "%s%zu", clip_name, c);
        assert_int_equal(ossa_raw_animation_set_name(&ra, name), OSSA_OK);
        assert_int_equal(ossa_animation_build(&ra, NULL, &blobs[c + 1], NULL), OSSA_OK);
        entries[c + 1] =
            (ossa_archive_entry){OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, blobs[c + 1].data, blobs[c + 1].size};
    }
    ossa_blob file = {0};
    assert_int_equal(ossa_archive_write(entries, clip_count + 1, NULL, &file, NULL), OSSA_OK);
    ossa_test_write_file(path, file.data, file.size);
    ossa_blob_destroy(&file);
    for (size_t i = 0; i <= clip_count; ++i) ossa_blob_destroy(&blobs[i]);
    free(blobs), free(entries);
    ossa_raw_animation_destroy(&ra);
    ossa_raw_skeleton_destroy(&rs);
}

/* The JSON chunk of the GLB at `path`, parsed (the glTF 2.0 specification, 4.4: a 12-byte
 * header, then the chunk's length, type "JSON" and bytes). Fails the test when it is not JSON. */
static cJSON *glb_json(const char *path)
{
    size_t size = 0;
    unsigned char *glb = tool_read_file(path, &size);
    assert_non_null(glb);
    assert_true(size >= 20 && !memcmp(glb, "glTF", 4) && !memcmp(glb + 16, "JSON", 4));
    const uint32_t length =
        (uint32_t)glb[12] | (uint32_t)glb[13] << 8 | (uint32_t)glb[14] << 16 | (uint32_t)glb[15] << 24;
    assert_true(length <= size - 20);
    char *text = malloc(length + 1);
    assert_non_null(text);
    memcpy(text, glb + 20, length);
    text[length] = '\0';
    if (!ossa_utf8_valid(text)) fail_msg("the JSON chunk of %s is not UTF-8", path);
    cJSON *doc = cJSON_ParseWithLength(text, length);
    if (!doc) fail_msg("the JSON chunk of %s does not parse", path);
    free(text), free(glb);
    return doc;
}

/* `ossa info --json ARCHIVE` as one parsed document, checked to be UTF-8. */
static cJSON *info_json(const char *archive)
{
    int status = -1;
    const char *args[] = {archive, "--json"};
    char *text = ossa_test_run_captured(tool_info, 2, args, &status);
    assert_non_null(text);
    assert_int_equal(status, 0);
    if (!ossa_utf8_valid(text)) fail_msg("ossa info --json printed bytes that are not UTF-8:\n%s", text);
    cJSON *doc = cJSON_Parse(text);
    if (!doc) fail_msg("ossa info --json printed no JSON document:\n%s", text);
    free(text);
    return doc;
}

static const char *string_at(const cJSON *item, const char *name)
{
    const char *s = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(item, name));
    if (!s) fail_msg("JSON member \"%s\" is not a string", name);
    return s;
}

/* A BVH whose joint is named in Latin-1 ("H\xE9ps", as a Western European Windows tool writes
 * it) bakes with a warning and the joint named "H\uFFFDps"; ossa info --json and ossa export
 * then write documents that parse and name it so. An archive made by hand with names that are
 * not UTF-8 (the importers never make one) still gives valid JSON and glTF. */
static void names_that_are_not_utf8(void **state)
{
    (void)state;
    need_assimp();
    static const char bvh[] = "HIERARCHY\nROOT H\xE9ps\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                              "Zrotation Xrotation Yrotation\n JOINT Sp\xEDne\n {\n  OFFSET 0 10 0\n  CHANNELS 3 "
                              "Zrotation Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n}\nMOTION\n"
                              "Frames: 2\nFrame Time: 0.1\n0 30 0 0 0 0 0 0 0\n1 30 0 10 0 0 5 0 0\n";
    char in[512], out[512], glb[512];
    snprintf(in, sizeof in, "%s", ossa_test_scratch_path("latin1.bvh"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("latin1.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("latin1.glb"));
    ossa_test_write_file(in, bvh, sizeof bvh - 1);
    const char *bake[] = {in, "-o", out, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    cJSON *doc = info_json(out);
    const cJSON *names = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "skeleton"), "names");
    assert_int_equal(cJSON_GetArraySize(names), 3); /* Hips, Spine and its end site */
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, 0)), "H\xEF\xBF\xBDps");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, 1)), "Sp\xEF\xBF\xBDne");
    const char *warning = string_at(cJSON_GetObjectItemCaseSensitive(doc, "meta"), "warning");
    /* Hips, Spine and Spine's end site, named after it. */
    if (!strstr(warning, "3 joint names were not valid UTF-8")) fail_msg("warning: %s", warning);
    cJSON_Delete(doc);
    const char *exp[] = {out, "-o", glb};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    doc = glb_json(glb);
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    assert_string_equal(string_at(cJSON_GetArrayItem(nodes, 0), "name"), "H\xEF\xBF\xBDps");
    assert_string_equal(string_at(cJSON_GetArrayItem(nodes, 1), "name"), "Sp\xEF\xBF\xBDne");
    cJSON_Delete(doc);

    /* By hand: a surrogate, a truncated sequence, control characters and a quote. */
    static const char *const raw_names[] = {"root\xED\xA0\x80", "tip\xF0\x9F\x98", "tab\t\"q\"\x01"};
    write_archive(out, raw_names, 3, 2, "w\xE4lk ");
    doc = info_json(out);
    names = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "skeleton"), "names");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, 0)), "root\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, 1)), "tip\xEF\xBF\xBD");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetArrayItem(names, 2)), "tab\t\"q\"\x01");
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(doc, "animations");
    assert_int_equal(cJSON_GetArraySize(clips), 2);
    assert_string_equal(string_at(cJSON_GetArrayItem(clips, 1), "name"), "w\xEF\xBF\xBDlk 1");
    cJSON_Delete(doc);
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    doc = glb_json(glb);
    nodes = cJSON_GetObjectItemCaseSensitive(doc, "nodes");
    assert_string_equal(string_at(cJSON_GetArrayItem(nodes, 0), "name"), "root\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
    assert_string_equal(string_at(cJSON_GetArrayItem(nodes, 2), "name"), "tab\t\"q\"\x01");
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(doc, "animations");
    assert_string_equal(string_at(cJSON_GetArrayItem(animations, 0), "name"), "w\xEF\xBF\xBDlk 0");
    cJSON_Delete(doc);
}

/* An archive of 2,000 two-key clips: info (text and JSON) and export read every clip, in order,
 * and the GLB's indices (accessor to buffer view, channel to sampler) are each item's own.
 * Both used to walk a list per clip (cJSON_GetArraySize per accessor, ossa_archive_find per
 * clip), quadratic in the clip count: 10,000 clips took minutes to export. */
static void many_clips(void **state)
{
    (void)state;
    enum { CLIPS = 2000, JOINTS = 3 };
    static const char *const names[JOINTS] = {"root", "mid", "tip"};
    char out[512], glb[512], name[32];
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("many.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("many.glb"));
    write_archive(out, names, JOINTS, CLIPS, "clip ");

    cJSON *doc = info_json(out);
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(doc, "animations");
    assert_int_equal(cJSON_GetArraySize(clips), CLIPS);
    size_t c = 0;
    for (const cJSON *clip = clips ? clips->child : NULL; clip; clip = clip->next, ++c) {
        snprintf(name, sizeof name, "clip %zu", c);
        assert_string_equal(string_at(clip, "name"), name);
        assert_true(number_at(clip, "duration_s") == 0.5);
    }
    assert_int_equal(c, CLIPS);
    cJSON_Delete(doc);
    int status = -1;
    const char *info_args[] = {out};
    char *text = ossa_test_run_captured(tool_info, 1, info_args, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "animation 1999       \"clip 1999\""));
    assert_null(strstr(text, "animation 2000"));
    free(text);

    const char *exp[] = {out, "-o", glb};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    doc = glb_json(glb);
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(doc, "animations");
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(doc, "accessors");
    /* The skin's inverse bind matrices, then per clip its times and 3 channels per joint. */
    const int per_clip = 1 + 3 * JOINTS;
    assert_int_equal(cJSON_GetArraySize(animations), CLIPS);
    assert_int_equal(cJSON_GetArraySize(accessors), 1 + CLIPS * per_clip);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "bufferViews")), 1 + CLIPS * per_clip);
    int index = 0;
    for (const cJSON *acc = accessors ? accessors->child : NULL; acc; acc = acc->next, ++index)
        assert_int_equal((int)number_at(acc, "bufferView"), index);
    c = 0;
    for (const cJSON *anim = animations ? animations->child : NULL; anim; anim = anim->next, ++c) {
        snprintf(name, sizeof name, "clip %zu", c);
        assert_string_equal(string_at(anim, "name"), name);
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(anim, "channels");
        assert_int_equal(cJSON_GetArraySize(samplers), 3 * JOINTS);
        int k = 0;
        for (const cJSON *ch = channels ? channels->child : NULL; ch; ch = ch->next, ++k)
            assert_int_equal((int)number_at(ch, "sampler"), k);
        assert_int_equal(k, 3 * JOINTS);
        const cJSON *last = cJSON_GetArrayItem(samplers, 3 * JOINTS - 1);
        assert_int_equal((int)number_at(last, "input"), 1 + (int)c * per_clip);
        assert_int_equal((int)number_at(last, "output"), (int)(c + 1) * per_clip);
    }
    assert_int_equal(c, CLIPS);
    cJSON_Delete(doc);
}
#endif

static int setup(void **state)
{
    (void)state;
    return ossa_test_scratch_create("ossa-cli");
}

static int teardown(void **state)
{
    (void)state;
    return ossa_test_scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metroid_bake_with_cinf),
        cmocka_unit_test(default_clip_and_info),
        cmocka_unit_test(unit_scale_in_meta_and_report),
        cmocka_unit_test(errors_leave_no_archive),
        cmocka_unit_test(bad_invocations_are_refused),
        cmocka_unit_test(references_stay_inside_the_folder),
        cmocka_unit_test(budgets_refuse_before_building),
        cmocka_unit_test(verbose_bake_breaks_down_the_time),
#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP
        cmocka_unit_test(sparse_bvh_within_budgets),
#endif
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
        cmocka_unit_test(gltf_buffers_stay_inside_the_folder),
#endif
        cmocka_unit_test(clips_are_named_after_the_file),
        cmocka_unit_test(empty_bake_is_an_error),
        cmocka_unit_test(maya_clip_binds_to_skeleton),
        cmocka_unit_test(maya_hierarchy_in_report),
        cmocka_unit_test(ozz_unit_is_inferred),
        cmocka_unit_test(root_motion_tracks),
        cmocka_unit_test(retarget_onto_another_skeleton),
        cmocka_unit_test(plot_draws_an_svg),
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
        cmocka_unit_test(export_reimports_to_the_same_poses),
#endif
        cmocka_unit_test(info_json_matches_text),
        cmocka_unit_test(bake_bound_holds_in_info),
        cmocka_unit_test(bakes_do_not_depend_on_the_simd_path),
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
        cmocka_unit_test(names_that_are_not_utf8),
        cmocka_unit_test(many_clips),
#endif
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
