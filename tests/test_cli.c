/* The `ossa` command line, run in process: bake and info on generated Metroid ANIM + CINF
 * files of both games (the pipeline `ossa bake ANIM --skeleton CINF`), the default BVH clip,
 * and its errors (one line, non-zero status, no partial archive). */
#include <dirent.h>
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
#include "ossa/simd_level.h"
#include "ossa/archive.h"
#include "ossa/local_to_model_job.h"
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

/* `bake --unit-scale` records the units in META: unit_scale (one line, replacing the
 * importer's "1": metres per stored unit, 1 as the poses are converted to metres, the source's
 * with --keep-source-units), unit_source=user and import_unit_scale; `info --against` reads
 * them back, converts the source as the bake did and prints the virtual-vertex error in
 * millimetres, in the shape the benchmark script parses, equal to ossa_measure_error's against
 * the source scaled the same way, times 1000 x the stored unit. */
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
    assert_non_null(strstr(meta, "\nunit_scale=1\nunit_source=file\nimport_unit_scale=1\n"));
    free(meta);

    for (int keep = 0; keep < 2; ++keep) {
        /* The last argument only when keep is 1. */
        const char *bake[] = {
            anim_path, "--skeleton",         cinf_path, "-o", out_path, "--unit-scale", "0.05", "-q", "--threads",
            "1",       "--keep-source-units"};
        assert_int_equal(run_bake(10 + keep, bake), 0);
        meta = read_meta(out_path);
        assert_int_equal(count_lines(meta, "\nunit_scale="), 1);
        assert_int_equal(count_lines(meta, "\nunit_source="), 1);
        assert_int_equal(count_lines(meta, "\nimport_unit_scale="), 1);
        assert_non_null(strstr(meta, keep ? "\nunit_scale=0.05\n" : "\nunit_scale=1\n"));
        assert_non_null(strstr(meta, "\nunit_source=user\n"));
        assert_non_null(strstr(meta, "\nimport_unit_scale=0.05\n"));
        assert_non_null(strstr(meta, "\nsource_units=metres\n")); /* the importer's other lines stay */
        free(meta);

        int status = -1;
        const char *info[] = {out_path, "--against", anim_path, "--skeleton", cinf_path};
        char *text = ossa_test_run_captured(tool_info, 5, info, &status);
        assert_non_null(text);
        assert_int_equal(status, 0);
        assert_non_null(strstr(text, "metres per unit  0.05 (--unit-scale)\n"));
        assert_non_null(strstr(text, keep ? "poses in         source units (0.05 m each: multiply by it for metres)\n"
                                          : "poses in         metres (converted from the source's unit)\n"));
        regex_t re;
        regmatch_t m[2];
        assert_int_equal(regcomp(&re, "^vertex error +max ([0-9.eE+-]+) mm", REG_EXTENDED | REG_NEWLINE), 0);
        const int found = regexec(&re, text, 2, m, 0);
        regfree(&re);
        assert_int_equal(found, 0);
        const double printed_mm = strtod(text + m[1].rm_so, NULL);
        assert_non_null(strstr(text + m[0].rm_so, " mm (0.03 m virtual vertices, every source sample and 60 Hz)\n"));
        /* --unit-scale naming the unit the bake used changes nothing: it replaces the source's
         * unit, and with the source's unit kept, the poses' too. */
        const char *info_unit_given[] = {out_path,  "--against",    anim_path, "--skeleton",
                                         cinf_path, "--unit-scale", "0.05"};
        char *again = ossa_test_run_captured(tool_info, 7, info_unit_given, &status);
        assert_non_null(again);
        assert_int_equal(status, 0);
        const char *vertex_line = text + m[0].rm_so, *again_line = strstr(again, "\nvertex error ");
        assert_non_null(again_line);
        assert_memory_equal(vertex_line, again_line + 1, strcspn(vertex_line, "\n"));
        free(again);
        free(text);

        /* The same measure through the error module: 3 cm is 0.6 units of 5 cm; in metres, the
         * source's translations times 0.05. */
        ossa_archive ar;
        ossa_skeleton skel;
        ossa_animation built;
        void *bytes = ossa_test_open_archive(out_path, &ar);
        assert_true(ossa_archive_unit_scale(&ar) == (keep ? .05f : 1.f));
        assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
        assert_int_equal(ossa_archive_animation(&ar, 0, &built), OSSA_OK);
        const ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size};
        ossa_import_output raw = {0};
        ossa_diag diag = {0};
        assert_int_equal(ossa_import_metroid_anim(anim.data, anim.size, &desc, &raw, &diag), OSSA_OK);
        assert_int_equal(ossa_import_output_sort_depth_first(&raw, &diag), OSSA_OK);
        for (size_t t = 0; !keep && t < raw.animations[0].track_count; ++t)
            for (size_t k = 0; k < raw.animations[0].tracks[t].translation_count; ++k) {
                ossa_float3 *v = &raw.animations[0].tracks[t].translations[k].value;
                v->x *= .05f, v->y *= .05f, v->z *= .05f;
            }
        const ossa_error_desc vertices = {.shell_distance = keep ? .03f / .05f : .03f, .source_times = 1};
        ossa_error_report rep;
        assert_int_equal(ossa_measure_error(&skel, &raw.animations[0], &built, &vertices, &rep, &diag), OSSA_OK);
        const double expected_mm = (double)rep.max * (keep ? .05 : 1.) * 1e3;
        assert_true(fabs(printed_mm - expected_mm) <= 1e-3 * expected_mm + 1e-9);
        assert_true(printed_mm > 0. && printed_mm <= 0.1);

        /* info without --against and without --unit-scale: the unit comes from META. */
        const char *alone[] = {out_path};
        text = ossa_test_run_captured(tool_info, 1, alone, &status);
        assert_non_null(text);
        assert_int_equal(status, 0);
        assert_non_null(strstr(text, "metres per unit  0.05 (--unit-scale)\n"));
        free(text);
        ossa_import_output_destroy(&raw);
        free(bytes);
    }
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
    assert_non_null(strstr(meta, "\nunit_scale=1\n")); /* the poses are in metres */
    const char *scale = strstr(meta, "\nimport_unit_scale=");
    assert_non_null(scale);
    const double metres = strtod(scale + strlen("\nimport_unit_scale="), NULL);
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

/* Model-space position of joint `name` at ratio 0 of the first clip of the archive at `path`
 * (sampling and local-to-model jobs), in the archive's unit; *unit gets its metres per unit. */
static ossa_float3 archive_joint_at_start(const char *path, const char *name, float *unit)
{
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    void *bytes = ossa_test_open_archive(path, &ar);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
    *unit = ossa_archive_unit_scale(&ar);
    const int joint = ossa_skeleton_find_joint(&skel, name);
    assert_true(joint >= 0);
    const size_t J = skel.joint_count, ctx_size = ossa_sampling_context_size(J);
    void *mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, J * sizeof *models);
    assert_true(mem && pose && models);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, J);
    const ossa_sampling_job job = {&anim, ctx, 0.f, pose, skel.soa_count, skel.rest_pose, skel.soa_count};
    const ossa_local_to_model_job l2m = {&skel, NULL, 0, 0, pose, skel.soa_count, models, J};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
    assert_int_equal(ossa_local_to_model_job_run(&l2m), OSSA_OK);
    const ossa_float3 p = {models[joint].cols[3][0], models[joint].cols[3][1], models[joint].cols[3][2]};
    free(mem), free(pose), free(models), free(bytes);
    return p;
}

/* The bake stores metres: CMU 01_01's right thumb tip at t = 0, 28.6 BVH units from the
 * origin (the actor stands 1 m from it, arms out), is 1.6 m from it in the archive, whose unit
 * is 1 m, and within 1 m of the hips; it is where the bake that keeps the BVH's unit puts it
 * times 0.05644, and where the BVH itself puts it (imported and composed here in float) times
 * 0.05644, each within the bakes' 0.1 mm tolerance. */
static void bake_stores_metres(void **state)
{
    (void)state;
    need_assimp();
    size_t size = 0;
    free(ossa_test_read_or_skip(OSSA_DEFAULT_INPUT, OSSA_DEFAULT_INPUT, &size));
    char metres_path[512], kept_path[512];
    snprintf(metres_path, sizeof metres_path, "%s", ossa_test_scratch_path("01_01_metres.ossa"));
    snprintf(kept_path, sizeof kept_path, "%s", ossa_test_scratch_path("01_01_kept.ossa"));
    const char *metres[] = {OSSA_DEFAULT_INPUT, "--unit-scale", "0.05644", "-o", metres_path, "-q"};
    const char *kept[] = {OSSA_DEFAULT_INPUT, "--unit-scale", "0.05644", "-o", kept_path, "-q", "--keep-source-units"};
    assert_int_equal(run_bake(6, metres), 0);
    assert_int_equal(run_bake(7, kept), 0);
    float unit = 0.f, kept_unit = 0.f;
    const ossa_float3 m = archive_joint_at_start(metres_path, "EndSite_RThumb", &unit);
    const ossa_float3 k = archive_joint_at_start(kept_path, "EndSite_RThumb", &kept_unit);
    assert_true(unit == 1.f);
    assert_true(kept_unit == 0.05644f);
    print_message("EndSite_RThumb at t = 0: (%.4f, %.4f, %.4f) m; kept: (%.3f, %.3f, %.3f) units\n", (double)m.x,
                  (double)m.y, (double)m.z, (double)k.x, (double)k.y, (double)k.z);
    const ossa_float3 hips = archive_joint_at_start(metres_path, "Hips", &unit);
    const float dx = m.x - hips.x, dy = m.y - hips.y, dz = m.z - hips.z;
    assert_true(sqrtf(dx * dx + dy * dy + dz * dz) < 1.f);       /* an arm's length */
    assert_true(sqrtf(m.x * m.x + m.y * m.y + m.z * m.z) < 2.f); /* not 28.6 m */
    assert_true(m.y > 1.f && m.y < 2.f);                         /* a raised hand of a standing figure, not 22.5 m */
    const float bound = 2e-4f + 1e-5f;
    assert_true(fabsf(m.x - k.x * kept_unit) < bound && fabsf(m.y - k.y * kept_unit) < bound &&
                fabsf(m.z - k.z * kept_unit) < bound);

    ossa_import_output imp = {0};
    assert_true(tool_import(OSSA_DEFAULT_INPUT, false, &imp));
    const size_t J = imp.skeleton.joint_count;
    ossa_transform *local = malloc(J * sizeof *local);
    ossa_float4x4 *model = malloc(J * sizeof *model);
    assert_true(local && model);
    assert_int_equal(ossa_raw_animation_sample(&imp.animations[0], 0.f, local, J), OSSA_OK);
    size_t thumb = J;
    for (size_t j = 0; j < J; ++j) {
        const ossa_float4x4 l = ossa_float4x4_from_transform(&local[j]);
        const int parent = imp.skeleton.joints[j].parent;
        model[j] = parent < 0 ? l : ossa_float4x4_mul(&model[parent], &l);
        if (!strcmp(imp.skeleton.joints[j].name, "EndSite_RThumb")) thumb = j;
    }
    assert_true(thumb < J);
    const float s = 0.05644f, x = model[thumb].cols[3][0] * s, y = model[thumb].cols[3][1] * s,
                z = model[thumb].cols[3][2] * s;
    assert_true(fabsf(m.x - x) < 1e-4f + 1e-5f && fabsf(m.y - y) < 1e-4f + 1e-5f && fabsf(m.z - z) < 1e-4f + 1e-5f);
    free(local), free(model);
    ossa_import_output_destroy(&imp);
}

/* META names the input's file, not the path typed: the same file baked by an absolute path, by
 * a relative one from its folder, and as a copy in another folder gives the same bytes. */
static void bakes_do_not_depend_on_the_path(void **state)
{
    (void)state;
    need_assimp();
    char dir[512], other[600], input[600], copy[700], outs[3][600], cwd[4096];
    snprintf(input, sizeof input, "%s", tiny_bvh("where.bvh", "0.1"));
    snprintf(dir, sizeof dir, "%.*s", (int)(strrchr(input, '/') - input), input);
    snprintf(other, sizeof other, "%s/elsewhere", dir);
    snprintf(copy, sizeof copy, "%s/where.bvh", other);
    (void)mkdir(other, 0755);
    size_t size = 0;
    void *text = ossa_test_read_file(input, &size);
    assert_non_null(text);
    ossa_test_write_file(copy, text, size);
    free(text);
    for (int i = 0; i < 3; ++i) snprintf(outs[i], sizeof outs[i], "%s/where%d.ossa", dir, i);
    const char *absolute[] = {input, "-o", outs[0], "-q"};
    assert_int_equal(run_bake(4, absolute), 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(dir), 0);
    const char *relative[] = {"where.bvh", "-o", outs[1], "-q"};
    const int status = run_bake(4, relative);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(status, 0);
    const char *copied[] = {copy, "-o", outs[2], "-q"};
    assert_int_equal(run_bake(4, copied), 0);
    size_t sizes[3];
    void *bytes[3];
    for (int i = 0; i < 3; ++i) bytes[i] = ossa_test_read_file(outs[i], &sizes[i]);
    for (int i = 1; i < 3; ++i) {
        assert_true(bytes[0] && bytes[i] && sizes[i] == sizes[0]);
        assert_memory_equal(bytes[0], bytes[i], sizes[0]);
    }
    char *meta = read_meta(outs[0]);
    assert_non_null(strstr(meta, "\ninput=where.bvh\n"));
    free(meta);
    for (int i = 0; i < 3; ++i) free(bytes[i]);
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

/* --layout sorted: the archive holds the sorted-key layout, `ossa info` names it and measures it
 * within the default 0.1 mm tolerance against the source; an unknown layout and a lossless
 * sorted bake are argument errors (exit 2, nothing written). */
static void bake_layout_sorted_stays_within_tolerance(void **state)
{
    (void)state;
    char walk[512], skeleton[512], out[512];
    snprintf(walk, sizeof walk, "%s", ossa_test_shared_path("ozz/pab_walk_raw.ozz"));
    snprintf(skeleton, sizeof skeleton, "%s", ossa_test_shared_path("ozz/pab_skeleton.ozz"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("sorted.ossa"));
    size_t size = 0;
    free(ossa_test_read_or_skip(walk, "DATA/ozz/pab_walk_raw.ozz", &size));
    remove(out);
    int status = -1;
    const char *bogus[] = {walk, "--skeleton", skeleton, "-o", out, "-q", "--layout", "bitmap"};
    char *err = bake_stderr(8, bogus, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(err, "--layout needs packed or sorted"));
    free(err);
    const char *lossless[] = {walk, "--skeleton", skeleton, "-o", out, "-q", "--layout", "sorted", "--no-optimize"};
    err = bake_stderr(9, lossless, &status);
    assert_int_equal(status, 2);
    assert_non_null(strstr(err, "needs a tolerance"));
    free(err);
    FILE *none = fopen(out, "rb");
    assert_null(none);
    const char *bake[] = {walk, "--skeleton", skeleton, "-o", out, "-q", "--layout", "sorted"};
    assert_int_equal(run_bake(8, bake), 0);
    const char *info[] = {out, "--against", walk, "--skeleton", skeleton};
    char *text = ossa_test_run_captured(tool_info, 5, info, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(text, "\nlayout           sorted"));
    const char *line = strstr(text, "\nvertex error     max ");
    assert_non_null(line);
    double mm = -1.0;
    assert_int_equal(sscanf(line + 22, "%lf mm", &mm), 1);
    assert_true(mm > 0.0 && mm <= 0.1);
    free(text);
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
    print_message("skipped: this build has no assimp (BVH) support\n");
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
    const char *want[3] = {"\nimport_unit_scale=1\n", "\nimport_unit_scale=0.01\n", "\nimport_unit_scale=1\n"};
    for (int i = 0; i < 3; ++i) {
        snprintf(out_path, sizeof out_path, "%s", ossa_test_scratch_path("ozz_unit.ossa"));
        const char *argv[] = {paths[i], "-o", out_path, "-q"};
        assert_int_equal(run_bake(4, argv), 0);
        char *meta = read_meta(out_path);
        if (!strstr(meta, want[i])) fail_msg("file %d: expected %s in META:%s", i, want[i] + 1, meta);
        assert_non_null(strstr(meta, "\nunit_scale=1\n")); /* converted to metres */
        assert_non_null(strstr(meta, "\nunit_source=inferred\n"));
        assert_non_null(strstr(meta, "\nsource_units=unknown\n"));
        free(meta);
    }
}

/* --root-motion: the clip's root travel becomes two tracks in the archive, in metres as the
 * poses are, and the baked root no longer travels (tiny_bvh moves its root 1 unit along x per
 * frame). */
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
    /* The last key holds the whole clip's travel: 2 units along x (frames at x = 0, 1, 2),
     * times the metres per unit the bake recorded. */
    char text[64];
    assert_true(ossa_archive_meta(&ar, "import_unit_scale", text, sizeof text));
    const float unit = strtof(text, NULL);
    assert_true(unit > 0.f && ossa_archive_unit_scale(&ar) == 1.f);
    const float *last = position.values + (position.key_count - 1) * position.width;
    assert_true(fabsf(last[0] - 2.f * unit) < 1e-3f * unit && fabsf(last[2]) < 1e-3f * unit);
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
 * joint at every time point of the clip, in metres (the archive's unit applied: 1 for a bake
 * in metres, 0.01 for one that kept the source's centimetres). */
static void export_reimports_to_the_same_poses(void **state)
{
    (void)state;
    need_assimp();
    char in[512], out[512], glb[512];
    snprintf(in, sizeof in, "%s", tiny_bvh("dance.bvh", "0.1"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("dance.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("dance.glb"));
    for (int keep = 0; keep < 2; ++keep) {
        const char *bake[] = {in, "-o", out, "-q", "--unit-scale", "0.01", "--keep-source-units"};
        assert_int_equal(run_bake(6 + keep, bake), 0);
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
        const float unit = keep ? .01f : 1.f;
        assert_true(ossa_archive_unit_scale(&ar) == unit);
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
                assert_true(fabsf(raw[j].translation.x - unit * t.translation.x) < 1e-6f);
                assert_true(fabsf(raw[j].translation.y - unit * t.translation.y) < 1e-6f);
                assert_true(fabsf(raw[j].translation.z - unit * t.translation.z) < 1e-6f);
                const float dot = raw[j].rotation.x * t.rotation.x + raw[j].rotation.y * t.rotation.y +
                                  raw[j].rotation.z * t.rotation.z + raw[j].rotation.w * t.rotation.w;
                assert_true(fabsf(fabsf(dot) - 1.f) < 1e-5f);
            }
        }
        free(mem), free(pose), free(data), free(bytes);
        ossa_import_output_destroy(&back);
    }
}
#endif

/* ossa export --mesh: no value is a usage error (2); a source that is not glTF (here the
 * archive itself) is one line naming it (1), and nothing is written. */
static void export_mesh_needs_a_gltf(void **state)
{
    (void)state;
    need_assimp();
    char in[512], out[512], glb[512];
    snprintf(in, sizeof in, "%s", tiny_bvh("mesh.bvh", "0.1"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("mesh.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("mesh.glb"));
    const char *bake[] = {in, "-o", out, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    const char *no_value[] = {out, "-o", glb, "--mesh"};
    assert_int_equal(tool_export(4, (char **)(uintptr_t)no_value), 2);
    const char *not_gltf[] = {out, "-o", glb, "--mesh", out};
    int status;
    char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_export, 5, not_gltf, &status);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, out));
    assert_non_null(strstr(err, "not glTF 2.0"));
    free(err);
    assert_int_equal(access(glb, F_OK), -1);
}

/* ossa export writes each animated sub-track over its own kept keys and a sub-track that does
 * not move as one key or, at the node's value, not at all: the GLB's channels have exactly the
 * archive's key counts (fewer than its time points for the translation, so writing every time
 * point would fail), and the GLB read back by ossa's glTF importer gives the archive's pose at
 * every time point and half-way between them. A Maya chain a -> b over 40 frames: a moves along
 * x in a straight line (two keys of a line: the builder keeps few), b turns about z. */
static void export_keeps_the_kept_keys(void **state)
{
    (void)state;
    static const char chain[] =
        "animVersion 1.1;\ntimeUnit film;\nlinearUnit cm;\nangularUnit deg;\nstartTime 0;\nendTime 40;\n"
        "anim translate.translateX translateX a 0 1 0;\nanimData {\n  keys {\n"
        "    0 0 linear linear 1 1 0;\n    40 80 linear linear 1 1 0;\n  }\n}\n"
        "anim rotate.rotateZ rotateZ b 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
        "    0 0 spline spline 1 1 0;\n    20 70 spline spline 1 1 0;\n    40 10 spline spline 1 1 0;\n  }\n}\n";
    char source[512], archive[512], glb[512];
    snprintf(source, sizeof source, "%s", ossa_test_scratch_path("keys.anim"));
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("keys.ossa"));
    snprintf(glb, sizeof glb, "%s", ossa_test_scratch_path("keys.glb"));
    ossa_test_write_file(source, chain, sizeof chain - 1);
    const char *bake_args[] = {source, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake_args), 0);
    const char *export_args[] = {archive, "-o", glb};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)export_args), 0);

    size_t size = 0, glb_size = 0;
    void *data = tool_read_file(archive, &size);
    uint8_t *bytes = tool_read_file(glb, &glb_size);
    assert_non_null(data);
    assert_non_null(bytes);
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    assert_int_equal(ossa_archive_init(&ar, data, size), OSSA_OK);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
    const size_t J = skel.joint_count, F = anim.frame_count;
    assert_int_equal(J, 2);

    /* The GLB's channels: node, path, and the key count of their sampler's output. */
    uint32_t json_size;
    memcpy(&json_size, bytes + 12, 4);
    cJSON *gltf = cJSON_ParseWithLength((const char *)bytes + 20, json_size);
    assert_non_null(gltf);
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(gltf, "accessors");
    const cJSON *clip = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(gltf, "animations"), 0);
    const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(clip, "samplers"), *channel;
    static const char *const paths[3] = {"translation", "rotation", "scale"};
    bool written[2][3] = {{false}};
    size_t fewer = 0;
    uint8_t *mask = malloc(F);
    assert_non_null(mask);
    cJSON_ArrayForEach(channel, cJSON_GetObjectItemCaseSensitive(clip, "channels"))
    {
        const cJSON *target = cJSON_GetObjectItemCaseSensitive(channel, "target");
        const size_t j = (size_t)cJSON_GetObjectItemCaseSensitive(target, "node")->valueint;
        const char *path = cJSON_GetObjectItemCaseSensitive(target, "path")->valuestring;
        int c = 0;
        while (c < 3 && strcmp(paths[c], path)) ++c;
        assert_true(j < J && c < 3 && !written[j][c]);
        written[j][c] = true;
        const cJSON *sampler =
            cJSON_GetArrayItem(samplers, cJSON_GetObjectItemCaseSensitive(channel, "sampler")->valueint);
        const cJSON *output =
            cJSON_GetArrayItem(accessors, cJSON_GetObjectItemCaseSensitive(sampler, "output")->valueint);
        const cJSON *input =
            cJSON_GetArrayItem(accessors, cJSON_GetObjectItemCaseSensitive(sampler, "input")->valueint);
        const size_t count = (size_t)cJSON_GetObjectItemCaseSensitive(output, "count")->valueint;
        assert_int_equal(cJSON_GetObjectItemCaseSensitive(input, "count")->valueint, (int)count);
        const size_t keys =
            ossa_animation_channel_kind(&anim, j, c) == 2 ? ossa_animation_keys(&anim, j, c, mask, F) : 1;
        if (count != keys) fail_msg("joint %zu %s: %zu keys in the GLB, %zu in the archive", j, path, count, keys);
        fewer += keys < F;
    }
    free(mask);
    /* a's translation and b's rotation move; their scales are the node's (no channel). */
    assert_true(written[0][0] && written[1][1]);
    assert_false(written[0][2] || written[1][2]);
    assert_true(ossa_animation_keys(&anim, 0, 0, (uint8_t[64]){0}, 64) < F);
    assert_true(fewer > 0);
    cJSON_Delete(gltf);

    ossa_import_output back = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_gltf(bytes, glb_size, NULL, &back, &diag), OSSA_OK);
    assert_int_equal(back.skeleton.joint_count, J);
    assert_int_equal(back.animation_count, 1);
    const size_t ctx_size = ossa_sampling_context_size(J);
    void *mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_soa_transform *pose = aligned_alloc(16, (skel.soa_count + 1) * sizeof *pose);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, J);
    assert_non_null(ctx);
    ossa_transform raw[2];
    for (size_t step = 0; step < 2 * (F - 1) + 1; ++step) {
        const size_t f = step / 2;
        const float at = anim.timepoints ? anim.timepoints[f] : (float)f / (float)(F - 1);
        const float next =
            f + 1 < F ? (anim.timepoints ? anim.timepoints[f + 1] : (float)(f + 1) / (float)(F - 1)) : at;
        const float ratio = step % 2 ? 0.5f * (at + next) : at;
        const ossa_sampling_job job = {&anim, ctx, ratio, pose, skel.soa_count, skel.rest_pose, skel.soa_count};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&back.animations[0], ratio * anim.duration, raw, 2), OSSA_OK);
        for (size_t j = 0; j < J; ++j) {
            const int k = ossa_skeleton_find_joint(&skel, back.skeleton.joints[j].name);
            assert_true(k >= 0);
            const ossa_transform t = ossa_soa_transform_get(&pose[k / 4], k % 4);
            const float d[3] = {raw[j].translation.x - t.translation.x, raw[j].translation.y - t.translation.y,
                                raw[j].translation.z - t.translation.z};
            const float dot = raw[j].rotation.x * t.rotation.x + raw[j].rotation.y * t.rotation.y +
                              raw[j].rotation.z * t.rotation.z + raw[j].rotation.w * t.rotation.w;
            if (fabsf(d[0]) > 1e-6f || fabsf(d[1]) > 1e-6f || fabsf(d[2]) > 1e-6f || 1.f - fabsf(dot) > 1e-6f ||
                fabsf(raw[j].scale.x - t.scale.x) > 1e-6f)
                fail_msg("joint %s at ratio %g: the GLB read back differs from the archive",
                         back.skeleton.joints[j].name, (double)ratio);
        }
    }
    free(mem), free(pose), free(data), free(bytes);
    ossa_import_output_destroy(&back);
}

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
    /* The source's unit kept: the errors convert with 0.05 m per unit. */
    const char *bake[] = {
        anim_path, "--skeleton",         cinf_path, "-o", out_path, "--unit-scale", "0.05", "-q", "--threads",
        "1",       "--keep-source-units"};
    assert_int_equal(run_bake(11, bake), 0);
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
    /* The SIMD path the timings ran on, as the runtime reports it in this process. */
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(doc, "simd")),
                        ossa_simd_string(ossa_simd_level()));
    assert_true(number_at(archive, "bytes") == (double)ar.size); /* the whole file */
    assert_true(number_at(archive, "chunks") == (double)ar.chunk_count);
    const cJSON *meta = cJSON_GetObjectItemCaseSensitive(doc, "meta");
    assert_string_equal(cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(meta, "unit_scale")), "0.05");
    assert_true(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "events")));
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(doc, "unit");
    assert_true(number_at(unit, "metres_per_unit") == 0.05);
    assert_true(number_at(unit, "source_metres_per_unit") == 0.05);
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
/* `ossa --version` and `ossa -V` print "ossa X.Y.Z", the library's version, and exit 0. */
static void version_is_printed(void **state)
{
    (void)state;
    const char *exe = getenv("OSSA_EXE");
    if (!exe || !*exe) {
        print_message("skipped: OSSA_EXE is not set (cross builds run no executable)\n");
        skip();
    }
    char expected[64];
    snprintf(expected, sizeof expected, "ossa %d.%d.%d\n", OSSA_VERSION_MAJOR, OSSA_VERSION_MINOR, OSSA_VERSION_PATCH);
    const char *const flags[2] = {"--version", "-V"};
    for (int i = 0; i < 2; ++i) {
        char command[4096], line[128] = "";
        snprintf(command, sizeof command, "'%s' %s", exe, flags[i]);
        FILE *p = popen(command, "r");
        assert_non_null(p);
        const size_t n = fread(line, 1, sizeof line - 1, p);
        line[n] = '\0';
        const int st = pclose(p);
        assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        assert_string_equal(line, expected);
    }
}

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
    assert_true(unit.stored == 1.f);     /* the poses are in metres */
    assert_true(info_against_in_stored_units(&imp, source, unit));
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

/* A clip no encoding can hold to 0.1 mm: the root jumps 100 m between two of its 240 samples
 * (a cut), faster than the float ratio of a time can place it, so both keys are kept and the
 * runtime still misses the source by about a millimetre at the times around the jump. The bake
 * refuses it with the joint, the time and the tolerance that the closest encoding reaches,
 * writing nothing; --allow-over-tolerance writes that encoding with a warning; the tolerance
 * the message names bakes, and info measures the archive within it. */
static void over_tolerance_is_refused(void **state)
{
    (void)state;
    need_assimp();
    char text[16384];
    int n = snprintf(text, sizeof text,
                     "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition Zrotation "
                     "Xrotation Yrotation\n JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation Xrotation "
                     "Yrotation\n  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n}\nMOTION\nFrames: 240\nFrame Time: "
                     "0.0083333\n");
    for (int f = 0; f < 240; ++f)
        n += snprintf(text + n, sizeof text - (size_t)n, "%d 30 0 0 0 0 %d 0 0\n", f < 120 ? 0 : 10000, f % 7);
    assert_true(n > 0 && (size_t)n < sizeof text);
    const char *source = ossa_test_scratch_path("jump.bvh");
    ossa_test_write_file(source, text, (size_t)n);
    const char *out_path = ossa_test_scratch_path("jump.ossa");
    remove(out_path);
    int status = 0;
    const char *bake[] = {source, "--unit-scale", "0.01", "-o", out_path, "-q", "--allow-over-tolerance"};
    char *err = bake_stderr(6, bake, &status);
    print_message("%s", err);
    assert_int_equal(status, 1);
    assert_non_null(strstr(err, "no encoding reached the tolerance of 0.1 mm"));
    assert_non_null(strstr(err, "at joint \""));
    assert_non_null(strstr(err, "nothing written"));
    assert_int_equal(access(out_path, F_OK), -1);
    const char *hint = strstr(err, "--tolerance ");
    assert_non_null(hint);
    char reach[32];
    assert_int_equal(sscanf(hint, "--tolerance %31s", reach), 1);
    const double reach_m = strtod(reach, NULL);
    assert_true(reach_m > 1e-4 && reach_m < 0.1);
    free(err);

    /* Asked for: the closest encoding, with a warning, above the tolerance as measured. */
    err = bake_stderr(7, bake, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(err, "ossa: warning: animation"));
    assert_null(strstr(err, "nothing written"));
    free(err);
    ossa_import_output imp = {0};
    size_t size = 0;
    assert_true(tool_import(source, false, &imp));
    void *archive = tool_read_file(out_path, &size);
    assert_non_null(archive);
    const tool_unit unit = info_unit(archive, size, &imp, 0.f);
    assert_true(info_against_in_stored_units(&imp, source, unit));
    info_report rep;
    assert_int_equal(info_measure(&rep, out_path, archive, size, &imp, source, unit, false), 0);
    const double closest_mm = rep.animations[0].errors[INFO_ERROR_VERTICES].max_mm;
    print_message("closest encoding: %.4f mm; the message's tolerance: %s m\n", closest_mm, reach);
    assert_true(closest_mm > 0.1);
    assert_true(closest_mm <= reach_m * 1e3);
    info_report_free(&rep);
    free(archive);

    /* The tolerance the message named. */
    const char *again[] = {source, "--unit-scale", "0.01", "--tolerance", reach, "-o", out_path, "-q"};
    assert_int_equal(run_bake(8, again), 0);
    archive = tool_read_file(out_path, &size);
    assert_non_null(archive);
    assert_int_equal(info_measure(&rep, out_path, archive, size, &imp, source, unit, false), 0);
    assert_true(rep.animations[0].errors[INFO_ERROR_VERTICES].max_mm <= reach_m * 1e3);
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
    /* The skin's inverse bind matrices, then per clip the key times its rotations share and one
     * rotation per joint (the translations are the rest pose's, the scales the default: the
     * nodes hold them, no channel), all in one buffer view at increasing offsets. */
    const int per_clip = 1 + JOINTS;
    assert_int_equal(cJSON_GetArraySize(animations), CLIPS);
    assert_int_equal(cJSON_GetArraySize(accessors), 1 + CLIPS * per_clip);
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(doc, "bufferViews")), 1);
    double offset = -1.0;
    for (const cJSON *acc = accessors ? accessors->child : NULL; acc; acc = acc->next) {
        assert_int_equal((int)number_at(acc, "bufferView"), 0);
        const cJSON *at = cJSON_GetObjectItemCaseSensitive(acc, "byteOffset");
        assert_true((at ? at->valuedouble : 0.0) > offset);
        offset = at ? at->valuedouble : 0.0;
    }
    c = 0;
    for (const cJSON *anim = animations ? animations->child : NULL; anim; anim = anim->next, ++c) {
        snprintf(name, sizeof name, "clip %zu", c);
        assert_string_equal(string_at(anim, "name"), name);
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(anim, "channels");
        assert_int_equal(cJSON_GetArraySize(samplers), JOINTS);
        int k = 0;
        for (const cJSON *ch = channels ? channels->child : NULL; ch; ch = ch->next, ++k)
            assert_int_equal((int)number_at(ch, "sampler"), k);
        assert_int_equal(k, JOINTS);
        const cJSON *last = cJSON_GetArrayItem(samplers, JOINTS - 1);
        assert_int_equal((int)number_at(last, "input"), 1 + (int)c * per_clip);
        assert_int_equal((int)number_at(last, "output"), (int)(c + 1) * per_clip);
    }
    assert_int_equal(c, CLIPS);
    cJSON_Delete(doc);
}
#endif

/* ---- every command's --help, and usage errors ---- */

/* The commands, the tool function that runs each and the source file that parses its options
 * (the test reads the option names from there, so they are written once, in the parser). */
typedef struct cli_command {
    const char *name;
    int (*run)(int, char **);
    const char *source; /* under tools/ */
} cli_command;

static const cli_command commands[] = {
    {"bake", tool_bake, "bake.c"}, {"batch", tool_batch, "batch.c"},    {"info", tool_info, "info.c"},
    {"plot", tool_plot, "plot.c"}, {"export", tool_export, "export.c"}, {"formats", tool_formats, "formats.c"},
    {"view", tool_view, "view.c"}, {"bench", tool_bench, "bench.c"},
};
#define COMMAND_COUNT (sizeof commands / sizeof *commands)

/* True when `option` appears in `text` as a word of its own: after the start, a space, '[',
 * '|', ',' or '(' and before the end, a space, ']', '=', ',', ')' or a line break. */
static bool mentions_option(const char *text, const char *option)
{
    const size_t n = strlen(option);
    for (const char *at = strstr(text, option); at; at = strstr(at + 1, option)) {
        const char before = at == text ? ' ' : at[-1], after = at[n];
        if (strchr(" [|,(\n", before) && (after == '\0' || strchr(" ]=,)\n", after))) return true;
    }
    return false;
}

/* The options a command's parser compares its arguments with: the string literals starting
 * with '-' that are the second argument of a strcmp or strncmp in tools/<source>, except
 * -h/--help and those on a line that says "internal:". Returns the count; names are copied
 * into options[i] ([64] each). */
static size_t parsed_options(const char *source, char options[][64], size_t capacity)
{
    char path[1024];
    const char *root = getenv("OSSA_SOURCE_DIR");
    assert_non_null(root);
    snprintf(path, sizeof path, "%s/tools/%s", root, source);
    size_t size = 0;
    char *text = ossa_test_read_file(path, &size);
    if (!text) fail_msg("cannot read %s", path);
    char *copy = malloc(size + 1);
    assert_non_null(copy);
    memcpy(copy, text, size);
    copy[size] = '\0';
    free(text);
    size_t count = 0;
    for (char *line = copy, *next; line; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        if (strstr(line, "internal:")) continue;
        for (const char *at = strstr(line, "cmp("); at; at = strstr(at + 1, "cmp(")) {
            const char *comma = strchr(at, ',');
            if (!comma || strchr(at, ')') < comma) continue;
            const char *quote = comma + 1;
            while (*quote == ' ') ++quote;
            if (quote[0] != '"' || quote[1] != '-') continue;
            const size_t n = strcspn(quote + 1, "\"");
            if (n >= 64) continue;
            char option[64];
            memcpy(option, quote + 1, n);
            option[n] = '\0';
            if (!strcmp(option, "-h") || !strcmp(option, "--help")) continue;
            bool seen = false;
            for (size_t i = 0; i < count; ++i) seen = seen || !strcmp(options[i], option);
            if (seen) continue;
            assert_true(count < capacity);
            memcpy(options[count++], option, n + 1);
        }
    }
    free(copy);
    return count;
}

/* `ossa COMMAND --help` (and -h) prints the usage to standard output and exits 0; every option
 * the command's parser knows is in it, and every option of its synopsis (the "usage:" line and
 * the bracketed lines under it) is one the parser knows. A wrong option is one error line and
 * the hint to --help on standard error, exit 2. */
static void every_command_has_help(void **state)
{
    (void)state;
    if (!getenv("OSSA_SOURCE_DIR")) {
        print_message("skipped: OSSA_SOURCE_DIR is not set (meson test sets it)\n");
        skip();
    }
    for (size_t c = 0; c < COMMAND_COUNT; ++c) {
        const cli_command *cmd = &commands[c];
        int status = -1;
        const char *help[] = {"--help"}, *h[] = {"-h"};
        char *text = ossa_test_run_captured(cmd->run, 1, help, &status);
        if (status != 0) fail_msg("ossa %s --help: exit %d", cmd->name, status);
        char usage[64];
        snprintf(usage, sizeof usage, "usage: ossa %s", cmd->name);
        if (strncmp(text, usage, strlen(usage)))
            fail_msg("ossa %s --help does not start with \"%s\":\n%s", cmd->name, usage, text);
        char *short_text = ossa_test_run_captured(cmd->run, 1, h, &status);
        assert_int_equal(status, 0);
        assert_string_equal(short_text, text);
        free(short_text);

        char options[64][64];
        const size_t count = parsed_options(cmd->source, options, 64);
        for (size_t i = 0; i < count; ++i)
            if (!mentions_option(text, options[i]))
                fail_msg("ossa %s parses %s, which its --help does not mention:\n%s", cmd->name, options[i], text);
        /* The synopsis: the first line and the lines under it that start with '['. */
        for (const char *line = text; line && *line;) {
            const char *end = strchr(line, '\n');
            const size_t length = end ? (size_t)(end - line) : strlen(line);
            const char *first = line + strspn(line, " ");
            if (line != text && *first != '[') break;
            for (const char *at = line; at < line + length; ++at) {
                if (*at != '-' || !strchr(" [|", at[-1])) continue;
                const size_t n = strspn(at, "-abcdefghijklmnopqrstuvwxyz0123456789");
                char option[64];
                snprintf(option, sizeof option, "%.*s", (int)n, at);
                bool known = false;
                for (size_t i = 0; i < count; ++i) known = known || !strcmp(options[i], option);
                if (!known) fail_msg("ossa %s --help shows %s, which its parser does not take", cmd->name, option);
                at += n - 1;
            }
            line = end ? end + 1 : NULL;
        }
        free(text);

        const char *wrong[] = {"--no-such-option"};
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, cmd->run, 1, wrong, &status);
        assert_int_equal(status, 2);
        char expected[256];
        snprintf(expected, sizeof expected, "ossa: %s: ", cmd->name);
        if (strncmp(err, expected, strlen(expected)))
            fail_msg("ossa %s --no-such-option: expected \"ossa: %s: ...\", found:\n%s", cmd->name, cmd->name, err);
        snprintf(expected, sizeof expected, "\n(ossa %s --help lists every option)\n", cmd->name);
        const char *hint = strstr(err, expected);
        if (!hint || hint[strlen(expected)] != '\0' || memchr(err, '\n', (size_t)(hint - err)))
            fail_msg("ossa %s --no-such-option: expected one error line and the hint, found:\n%s", cmd->name, err);
        free(err);
    }
}

/* Runs the ossa executable with `args` (a shell fragment) in the folder "exe" of the scratch
 * folder; its standard output and error into *out and *err (free both). Returns the exit status. */
static int run_exe(const char *exe, const char *args, char **out, char **err)
{
    char command[4096];
    snprintf(command, sizeof command, "mkdir -p '%s' && cd '%s' && '%s' %s > '%s' 2> '%s'",
             ossa_test_scratch_path("exe"), ossa_test_scratch_path("exe"), exe, args,
             ossa_test_scratch_path("exe_stdout.txt"), ossa_test_scratch_path("exe_stderr.txt"));
    const int st = system(command);
    assert_true(WIFEXITED(st));
    const char *paths[2] = {ossa_test_scratch_path("exe_stdout.txt"), ossa_test_scratch_path("exe_stderr.txt")};
    char **texts[2] = {out, err};
    for (int i = 0; i < 2; ++i) {
        size_t size = 0;
        char *bytes = ossa_test_read_file(paths[i], &size);
        assert_non_null(bytes);
        *texts[i] = malloc(size + 1);
        assert_non_null(*texts[i]);
        memcpy(*texts[i], bytes, size);
        (*texts[i])[size] = '\0';
        free(bytes);
    }
    return WEXITSTATUS(st);
}

/* Bare `ossa` does nothing but print the general usage to standard error (exit 2): no file is
 * written where it runs. `ossa --help` and `ossa help` print it to standard output (exit 0),
 * and it names every command this test knows, and only those; `ossa help COMMAND` is
 * `ossa COMMAND --help`. */
static void bare_ossa_prints_usage(void **state)
{
    (void)state;
    const char *exe = getenv("OSSA_EXE");
    if (!exe || !*exe) {
        print_message("skipped: OSSA_EXE is not set (cross builds run no executable)\n");
        skip();
    }
    char *out, *err;
    assert_int_equal(run_exe(exe, "", &out, &err), 2);
    assert_string_equal(out, "");
    assert_true(!strncmp(err, "usage: ossa COMMAND", 19));
    DIR *folder = opendir(ossa_test_scratch_path("exe"));
    assert_non_null(folder);
    for (struct dirent *e; (e = readdir(folder));)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) fail_msg("bare ossa wrote %s", e->d_name);
    closedir(folder);
    const char *variants[] = {"--help", "-h", "help"};
    for (size_t v = 0; v < 3; ++v) {
        char *help, *none;
        assert_int_equal(run_exe(exe, variants[v], &help, &none), 0);
        assert_string_equal(help, err);
        assert_string_equal(none, "");
        free(help), free(none);
    }
    /* The commands the general usage lists ("  ossa NAME ...") are the ones above. */
    size_t listed = 0;
    for (const char *at = strstr(err, "\n  ossa "); at; at = strstr(at + 1, "\n  ossa ")) {
        const char *name = at + 8;
        const size_t n = strspn(name, "abcdefghijklmnopqrstuvwxyz");
        if (!n) continue; /* "ossa COMMAND --help" */
        size_t c = 0;
        while (c < COMMAND_COUNT && (strlen(commands[c].name) != n || strncmp(commands[c].name, name, n))) ++c;
        if (c == COMMAND_COUNT) fail_msg("ossa --help lists \"%.*s\", which this test does not know", (int)n, name);
        ++listed;
    }
    assert_int_equal(listed, COMMAND_COUNT);
    free(out), free(err);
    for (size_t c = 0; c < COMMAND_COUNT; ++c) {
        char args[64], *help, *none;
        snprintf(args, sizeof args, "help %s", commands[c].name);
        assert_int_equal(run_exe(exe, args, &help, &none), 0);
        int status = -1;
        const char *flag[] = {"--help"};
        char *direct = ossa_test_run_captured(commands[c].run, 1, flag, &status);
        assert_string_equal(help, direct);
        free(help), free(none), free(direct);
    }
    assert_int_equal(run_exe(exe, "no-such-command", &out, &err), 2);
    assert_non_null(strstr(err, "unknown command \"no-such-command\""));
    free(out), free(err);
}

/* `info --against` a source of another skeleton prints one line naming the first difference
 * (exit 1) and no report; the source the archive was baked from passes; plot and view --against
 * refuse it with the same line, and view refuses a second archive of that other skeleton. Maya
 * clips: a -> b. */
static void info_against_checks_the_skeleton_first(void **state)
{
    (void)state;
    static const char chain[] = "animVersion 1.1;\ntimeUnit film;\nstartTime 0;\nendTime 10;\nanim a 0 1 0;\n"
                                "anim rotate.rotateZ rotateZ b 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                                "    0 0 linear linear 1 1 0;\n    10 45 linear linear 1 1 0;\n  }\n}\n";
    char source[512], archive[512];
    snprintf(source, sizeof source, "%s", ossa_test_scratch_path("against.anim"));
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("against.ossa"));
    ossa_test_write_file(source, chain, sizeof chain - 1);
    const char *bake_args[] = {source, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake_args), 0);
    int status = -1;
    const char *same[] = {archive, "--against", source};
    char *report = ossa_test_run_captured(tool_info, 3, same, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(report, "vertex error"));
    free(report);

    /* The same clip with node b renamed c; with b a root; with a third node. */
    char renamed[sizeof chain], flat[sizeof chain], longer[sizeof chain + 32];
    memcpy(renamed, chain, sizeof chain);
    renamed[strstr(renamed, "rotateZ b 0") - renamed + 8] = 'c';
    memcpy(flat, chain, sizeof chain);
    flat[strstr(flat, "anim a 0 1 0;") - flat + 9] = '0';
    snprintf(longer, sizeof longer, "%sanim d 0 0 0;\n", chain);
    const char *texts[3] = {renamed, flat, longer};
    const char *expected[3] = {"joint 1 is \"b\" in the archive, \"c\" in the source\n",
                               "joint 1 \"b\" has the parent 0 in the archive, -1 in the source\n",
                               "the archive has 2 joints, the source 3\n"};
    for (int i = 0; i < 3; ++i) {
        char other[512];
        snprintf(other, sizeof other, "%s", ossa_test_scratch_path("other.anim"));
        ossa_test_write_file(other, texts[i], strlen(texts[i]));
        const char *argv[] = {archive, "--against", other};
        char *printed = ossa_test_run_captured(tool_info, 3, argv, &status);
        assert_int_equal(status, 1);
        assert_string_equal(printed, "");
        free(printed);
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_info, 3, argv, &status);
        assert_int_equal(status, 1);
        char want[2048];
        snprintf(want, sizeof want, "ossa: %s does not match the skeleton of %s: %s", other, archive, expected[i]);
        assert_string_equal(err, want);
        free(err);
    }
    /* ossa plot and ossa view --against make the same check before drawing or serving (view
     * finds a viewer folder first: five empty files stand for one). */
    char other[512], svg[512], viewer[512];
    snprintf(other, sizeof other, "%s", ossa_test_scratch_path("other.anim"));
    snprintf(svg, sizeof svg, "%s", ossa_test_scratch_path("other.svg"));
    snprintf(viewer, sizeof viewer, "%s", ossa_test_scratch_path("fake_viewer"));
    ossa_test_write_file(other, renamed, strlen(renamed));
    assert_int_equal(mkdir(viewer, 0700), 0);
    static const char *const viewer_files[] = {"index.html", "viewer.js", "ossa_viewer.js", "ossa_viewer.wasm",
                                               "serve.py"};
    for (size_t i = 0; i < 5; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", viewer, viewer_files[i]);
        ossa_test_write_file(path, "", 0);
    }
    assert_int_equal(setenv("OSSA_VIEWER_DIR", viewer, 1), 0);
    const char *plot_args[] = {archive, "--against", other, "-o", svg};
    const char *view_args[] = {archive, "--against", other, "--port", "0"};
    int (*const tools[2])(int, char **) = {tool_plot, tool_view};
    const char **tool_args[2] = {plot_args, view_args};
    for (int t = 0; t < 2; ++t) {
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, tools[t], 5, tool_args[t], &status);
        assert_int_equal(status, 1);
        char want[2048];
        snprintf(want, sizeof want, "ossa: %s does not match the skeleton of %s: %s", other, archive, expected[0]);
        assert_string_equal(err, want);
        free(err);
    }
    /* ossa view refuses a second archive of another skeleton before serving anything. */
    char other_archive[512];
    snprintf(other_archive, sizeof other_archive, "%s", ossa_test_scratch_path("other.ossa"));
    const char *bake_other[] = {other, "-o", other_archive, "-q"};
    assert_int_equal(run_bake(4, bake_other), 0);
    const char *two_args[] = {archive, other_archive, "--port", "0"};
    char *two_err = ossa_test_run_captured_fd(STDERR_FILENO, tool_view, 4, two_args, &status);
    assert_int_equal(status, 1);
    char two_want[2048];
    snprintf(two_want, sizeof two_want,
             "ossa: view: %s: its skeleton differs from the first archive's: joint 1 is \"c\" there, \"b\" in the "
             "first archive\n",
             other_archive);
    assert_string_equal(two_err, two_want);
    free(two_err);
    assert_int_equal(unsetenv("OSSA_VIEWER_DIR"), 0);
    assert_int_equal(access(svg, F_OK), -1);
}

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

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
/* ossa view --mesh checks the model before serving: each refusal is one line, exit 1. A skin
 * joint missing from the archive's skeleton is named (in a .gltf and in a .glb); a model
 * without a skin, a buffer outside the model's folder (a path, a link) or missing, a GLB
 * without its JSON chunk and text that is not JSON are refused. */
static void view_mesh_checks_the_model(void **state)
{
    (void)state;
    /* Joints hips and SPINE (the first %s), a mesh node with the skin (the second %s), one
     * buffer (the third): a translation clip of the hips in a data: URI. */
    static const char format[] =
        "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"hips\",\"children\":[1]},{\"name\":\"%s\"},"
        "{\"name\":\"body\",\"mesh\":0%s}],\"skins\":[{\"joints\":[0,1]}],\"meshes\":[{\"primitives\":[{"
        "\"attributes\":{\"POSITION\":1,\"JOINTS_0\":1,\"WEIGHTS_0\":1}}]}],\"buffers\":[{\"byteLength\":32,"
        "\"uri\":\"%s\"}],\"bufferViews\":[{\"buffer\":0,\"byteLength\":8},{\"buffer\":0,\"byteOffset\":8,"
        "\"byteLength\":24}],\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"type\":\"SCALAR\","
        "\"count\":2},{\"bufferView\":1,\"componentType\":5126,\"type\":\"VEC3\",\"count\":2}],"
        "\"animations\":[{\"samplers\":[{\"input\":0,\"output\":1}],\"channels\":[{\"sampler\":0,"
        "\"target\":{\"node\":0,\"path\":\"translation\"}}]}]}";
    static const char data_uri[] = "data:application/octet-stream;base64,AAAAAAAAgD8AAAAAAAAAAAAAAAAAAAAAAAAAPwAAAAA=";
    char json[2048], model[512], archive[512], viewer[512];
    snprintf(json, sizeof json, format, "spine", ",\"skin\":0", data_uri);
    snprintf(model, sizeof model, "%s", ossa_test_scratch_path("skinned.gltf"));
    ossa_test_write_file(model, json, strlen(json));
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("skinned.ossa"));
    const char *bake[] = {model, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    /* view finds a viewer folder first: five empty files stand for one. */
    snprintf(viewer, sizeof viewer, "%s", ossa_test_scratch_path("mesh_viewer"));
    assert_int_equal(mkdir(viewer, 0700), 0);
    static const char *const viewer_files[] = {"index.html", "viewer.js", "ossa_viewer.js", "ossa_viewer.wasm",
                                               "serve.py"};
    for (size_t i = 0; i < 5; ++i) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", viewer, viewer_files[i]);
        ossa_test_write_file(path, "", 0);
    }
    assert_int_equal(setenv("OSSA_VIEWER_DIR", viewer, 1), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("mesh"), 0700), 0);
    ossa_test_write_file(ossa_test_scratch_path("outside.bin"), json, 32);
    assert_int_equal(symlink("../outside.bin", ossa_test_scratch_path("mesh/link.bin")), 0);
    char dir[512];
    snprintf(dir, sizeof dir, "%s", ossa_test_scratch_path("mesh"));
    static const struct {
        const char *joint, *skin, *uri, *file, *why; /* why: after "ossa: view: DIR/FILE: " */
    } cases[] = {
        {"tail", ",\"skin\":0", data_uri, "renamed.gltf",
         "the skin's joint \"tail\" is not a joint of the first archive's skeleton"},
        {"spine", "", data_uri, "unskinned.gltf",
         "not a skinned glTF (it needs a node with a mesh and a skin, a skin with joints, and a mesh primitive with "
         "POSITION, JOINTS_0 and WEIGHTS_0)"},
        {"spine", ",\"skin\":0", "sub/x.bin", "path.gltf",
         "the buffer \"sub/x.bin\" is not a file name beside the model (the viewer serves only those)"},
        {"spine", ",\"skin\":0", "%2e%2e", "dots.gltf",
         "the buffer \"%2e%2e\" is not a file name beside the model (the viewer serves only those)"},
        {"spine", ",\"skin\":0", "missing.bin", "missing.gltf",
         "cannot read its buffer DIR/missing.bin: No such file or directory"},
        {"spine", ",\"skin\":0", "link.bin", "link.gltf",
         "cannot read its buffer DIR/link.bin: it resolves outside the model's folder"},
        {NULL, NULL, NULL, "text.gltf", "not a glTF file (its JSON does not parse)"},
        {NULL, NULL, NULL, "nojson.glb", "a GLB whose first chunk is not a JSON chunk inside the file"},
        {"tail", ",\"skin\":0", data_uri, "renamed.glb",
         "the skin's joint \"tail\" is not a joint of the first archive's skeleton"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        char path[1024], bytes[2048 + 20] = "not json at all";
        size_t size = strlen(bytes);
        snprintf(path, sizeof path, "%s/%s", dir, cases[i].file);
        if (cases[i].joint)
            size = (size_t)snprintf(bytes, sizeof bytes, format, cases[i].joint, cases[i].skin, cases[i].uri);
        if (strstr(cases[i].file, ".glb")) { /* a 12-byte header, then the chunk: JSON, or BIN for nojson */
            const size_t chunk = cases[i].joint ? size : 4;
            memmove(bytes + 20, bytes, size);
            memcpy(bytes, "glTF\2\0\0\0", 8);
            const uint32_t total = (uint32_t)(20 + chunk);
            for (int b = 0; b < 4; ++b) {
                bytes[8 + b] = (char)(total >> (8 * b));
                bytes[12 + b] = (char)(chunk >> (8 * b));
            }
            memcpy(bytes + 16, cases[i].joint ? "JSON" : "BIN\0", 4);
            size = total;
        }
        ossa_test_write_file(path, bytes, size);
        const char *args[] = {archive, "--port", "0", "--mesh", path};
        int status = 0;
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_view, 5, args, &status);
        char want[2048], why[512];
        const char *at = strstr(cases[i].why, "DIR");
        const int length =
            snprintf(why, sizeof why, "%.*s%s%s", at ? (int)(at - cases[i].why) : (int)strlen(cases[i].why),
                     cases[i].why, at ? dir : "", at ? at + 3 : "");
        assert_true(length < (int)sizeof why);
        snprintf(want, sizeof want, "ossa: view: %s: %s\n", path, why);
        assert_int_equal(status, 1);
        assert_string_equal(err, want);
        free(err);
    }
    /* A model naming itself as its buffer passes the checks up to serving, where the name is
     * taken: refused each time, never with "more than 8 external buffers" (the buffers of one
     * call were once counted into the next). */
    char self[1024], bytes[2048];
    snprintf(self, sizeof self, "%s/self.gltf", dir);
    ossa_test_write_file(self, bytes,
                         (size_t)snprintf(bytes, sizeof bytes, format, "spine", ",\"skin\":0", "self.gltf"));
    for (int i = 0; i < 10; ++i) {
        const char *args[] = {archive, "--port", "0", "--mesh", self};
        int status = 0;
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_view, 5, args, &status);
        char want[2048];
        snprintf(want, sizeof want,
                 "ossa: view: %s: its buffer is named self.gltf, which the viewer serves for another file\n", self);
        assert_int_equal(status, 1);
        assert_string_equal(err, want);
        free(err);
    }
    assert_int_equal(unsetenv("OSSA_VIEWER_DIR"), 0);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(metroid_bake_with_cinf),
        cmocka_unit_test(default_clip_and_info),
        cmocka_unit_test(unit_scale_in_meta_and_report),
        cmocka_unit_test(bake_stores_metres),
        cmocka_unit_test(bakes_do_not_depend_on_the_path),
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
        cmocka_unit_test(export_keeps_the_kept_keys),
        cmocka_unit_test(export_mesh_needs_a_gltf),
#endif
        cmocka_unit_test(info_json_matches_text),
        cmocka_unit_test(bake_bound_holds_in_info),
        cmocka_unit_test(over_tolerance_is_refused),
        cmocka_unit_test(bakes_do_not_depend_on_the_simd_path),
        cmocka_unit_test(version_is_printed),
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
        cmocka_unit_test(names_that_are_not_utf8),
        cmocka_unit_test(many_clips),
#endif
        cmocka_unit_test(every_command_has_help),
        cmocka_unit_test(bare_ossa_prints_usage),
        cmocka_unit_test(info_against_checks_the_skeleton_first),
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
        cmocka_unit_test(view_mesh_checks_the_model),
#endif
        cmocka_unit_test(bake_layout_sorted_stays_within_tolerance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
