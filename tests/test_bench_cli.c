/* `ossa bench FILE.ossa` in process (and, for --simd, as the ossa executable): its JSON against
 * the archive it measured (clip names, joint counts, context bytes from the sampling API),
 * its per-joint figures against its per-call ones, and its argument errors. The timings
 * themselves are not asserted beyond being positive and ordered (min <= median <= max). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#if defined(OSSA_HAVE_CJSON)
#include <cjson/cJSON.h>
#endif

#include "ossa/archive.h"
#include "ossa/offline/archive_writer.h"
#include "ossa/offline/builders.h"
#include "ossa/sampling_job.h"
#include "test_util.h"
#include "tools.h"

/* An archive of a 6-joint chain and `clips` clips of 2 s (keys at 0, 1, 2 s), written to `name`
 * in the scratch folder. */
static const char *write_archive(const char *name, size_t clips)
{
    ossa_raw_skeleton rs;
    assert_int_equal(ossa_raw_skeleton_create(&rs, 6, NULL), OSSA_OK);
    for (int i = 1; i < 6; ++i) rs.joints[i].parent = i - 1;
    ossa_blob skel = {0}, anims[3] = {{0}}, file = {0};
    assert_int_equal(ossa_skeleton_build(&rs, NULL, &skel, NULL), OSSA_OK);
    ossa_raw_skeleton_destroy(&rs);
    ossa_archive_entry entries[4] = {{OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, skel.data, skel.size}};
    assert_true(clips <= 3);
    for (size_t c = 0; c < clips; ++c) {
        ossa_raw_animation ra;
        assert_int_equal(ossa_raw_animation_create(&ra, 6, NULL), OSSA_OK);
        char clip_name[32];
        snprintf(clip_name, sizeof clip_name, "clip%zu", c);
        assert_int_equal(ossa_raw_animation_set_name(&ra, clip_name), OSSA_OK);
        ra.duration = 2.f;
        for (size_t t = 0; t < 6; ++t) {
            assert_int_equal(ossa_raw_joint_track_resize(&ra, t, 3, 2, 0), OSSA_OK);
            for (int k = 0; k < 3; ++k)
                ra.tracks[t].translations[k] =
                    (ossa_raw_float3_key){(float)k, {(float)t, (float)(k * (int)(c + 1)), .5f}};
            ra.tracks[t].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
            ra.tracks[t].rotations[1] = (ossa_raw_quat_key){1.5f, {0.f, .6f, 0.f, .8f}};
        }
        assert_int_equal(ossa_animation_build(&ra, NULL, &anims[c], NULL), OSSA_OK);
        ossa_raw_animation_destroy(&ra);
        entries[c + 1] = (ossa_archive_entry){OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, anims[c].data,
                                              anims[c].size};
    }
    assert_int_equal(ossa_archive_write(entries, clips + 1, NULL, &file, NULL), OSSA_OK);
    const char *path = ossa_test_scratch_path(name);
    ossa_test_write_file(path, file.data, file.size);
    ossa_blob_destroy(&skel), ossa_blob_destroy(&file);
    for (size_t c = 0; c < clips; ++c) ossa_blob_destroy(&anims[c]);
    return path;
}

static int bench(int argc, const char **argv)
{
    return tool_bench(argc, (char **)(uintptr_t)argv);
}

#if defined(OSSA_HAVE_CJSON)
static cJSON *read_json(const char *path)
{
    size_t size = 0;
    char *text = ossa_test_read_file(path, &size);
    assert_non_null(text);
    cJSON *doc = cJSON_ParseWithLength(text, size);
    free(text);
    if (!doc) fail_msg("%s is not JSON", path);
    return doc;
}

static double number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v)) fail_msg("\"%s\" is not a number", key);
    return v->valuedouble;
}

/* One run object of the JSON against the archive at `path`: every clip, every measure. */
static void check_run(const cJSON *run, const char *path, size_t threads)
{
    ossa_archive ar;
    void *bytes = ossa_test_open_archive(path, &ar);
    ossa_skeleton skel;
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal((size_t)number(run, "joints"), skel.joint_count);
    assert_int_equal((size_t)number(run, "threads"), threads);
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(run, "clips");
    const size_t clip_count = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    assert_int_equal((size_t)cJSON_GetArraySize(clips), clip_count);
    size_t index = 0;
    for (const cJSON *clip = clips->child; clip; clip = clip->next, ++index) {
        ossa_animation anim;
        assert_int_equal(ossa_archive_animation(&ar, index, &anim), OSSA_OK);
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(clip, "name")->valuestring, anim.name);
        assert_true(fabs(number(clip, "duration") - (double)anim.duration) < 1e-5);
        const size_t playback = ossa_sampling_context_playback_size_for(&anim);
        const size_t smallest = ossa_sampling_context_size_for(&anim);
        const cJSON *ms = cJSON_GetObjectItemCaseSensitive(clip, "measures");
        /* Forward (two contexts), backward, random, local-to-model; a blend as there are layers. */
        assert_int_equal(cJSON_GetArraySize(ms), 6);
        for (const cJSON *m = ms->child; m; m = m->next) {
            const char *name = cJSON_GetObjectItemCaseSensitive(m, "measure")->valuestring;
            const double ns = number(m, "ns_per_call");
            assert_true(ns > 0.0);
            assert_true(number(m, "ns_per_call_min") <= ns && ns <= number(m, "ns_per_call_max"));
            const double per_joint = ns / (double)skel.joint_count;
            assert_true(fabs(number(m, "ns_per_joint") - per_joint) <= 1e-3 * per_joint + 1e-3);
            const double jps = (double)threads * 1e9 / per_joint;
            assert_true(fabs(number(m, "joints_per_second") - jps) <= 1e-3 * jps + 1.0);
            const size_t ctx = (size_t)number(m, "context_bytes");
            if (!strcmp(name, "forward") || !strcmp(name, "backward"))
                assert_int_equal(ctx, playback);
            else if (!strcmp(name, "forward, small context") || !strcmp(name, "random"))
                assert_int_equal(ctx, smallest);
            else if (!strcmp(name, "local-to-model") || !strcmp(name, "blend"))
                assert_int_equal(ctx, 0);
            else
                fail_msg("unexpected measure \"%s\"", name);
        }
    }
    free(bytes);
}
#endif

static void json_matches_the_archive(void **state)
{
    (void)state;
#if defined(OSSA_HAVE_CJSON)
    const char *path = write_archive("three.ossa", 3);
    const char *json_path = ossa_test_scratch_path("three.json");
    const char *args[] = {path, "--seconds", "0.03", "--rounds", "3", "--json", json_path};
    int status = -1;
    free(ossa_test_run_captured(tool_bench, 7, args, &status));
    assert_int_equal(status, 0);
    cJSON *doc = read_json(json_path);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), 1);
    check_run(runs->child, path, 1);
    cJSON_Delete(doc);
    /* One clip: the blend mixes it at two ratios; --clip picks one of several. */
    const char *one = write_archive("one.ossa", 1);
    const char *one_args[] = {one, "--seconds", "0.03", "--rounds", "3", "--json", json_path};
    free(ossa_test_run_captured(tool_bench, 7, one_args, &status));
    assert_int_equal(status, 0);
    doc = read_json(json_path);
    check_run(cJSON_GetObjectItemCaseSensitive(doc, "runs")->child, one, 1);
    cJSON_Delete(doc);
    const char *pick[] = {path, "--seconds", "0.03", "--rounds", "3", "--clip", "2", "--json", json_path};
    free(ossa_test_run_captured(tool_bench, 9, pick, &status));
    assert_int_equal(status, 0);
    doc = read_json(json_path);
    const cJSON *clips = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "runs")->child, "clips");
    assert_int_equal(cJSON_GetArraySize(clips), 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(clips->child, "name")->valuestring, "clip2");
    cJSON_Delete(doc);
#if defined(OSSA_HAVE_PTHREADS)
    /* Threads under qemu-user (the cross builds' test runner) can hang: natively only. */
    const char *cross = getenv("OSSA_CROSS");
    if (cross && !strcmp(cross, "1")) return;
    const char *threaded[] = {path, "--seconds", "0.03", "--rounds", "3", "--threads", "2", "--json", json_path};
    free(ossa_test_run_captured(tool_bench, 9, threaded, &status));
    assert_int_equal(status, 0);
    doc = read_json(json_path);
    check_run(cJSON_GetObjectItemCaseSensitive(doc, "runs")->child, path, 2);
    cJSON_Delete(doc);
#endif
#else
    print_message("skipped: this build has no cJSON to read the JSON back\n");
    skip();
#endif
}

/* --simd runs the ossa executable once per path the CPU has (x86-64: sse2, and avx2 with
 * AVX2, FMA and BMI2), each run labelled with its path. */
static void simd_runs_one_table_per_path(void **state)
{
    (void)state;
#if defined(OSSA_HAVE_CJSON) && (defined(__x86_64__) || defined(_M_X64)) && defined(__GNUC__)
    const char *exe = getenv("OSSA_EXE");
    if (!exe || !*exe) {
        print_message("skipped: OSSA_EXE is not set (cross builds run no executable)\n");
        skip();
    }
    const char *path = write_archive("simd.ossa", 2);
    const char *json_path = ossa_test_scratch_path("simd.json");
    char command[4096];
    snprintf(command, sizeof command, "'%s' bench '%s' --seconds 0.03 --rounds 3 --simd all --json '%s' >/dev/null",
             exe, path, json_path);
    assert_int_equal(system(command), 0);
    __builtin_cpu_init();
    const bool v3 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2");
    cJSON *doc = read_json(json_path);
    const cJSON *runs = cJSON_GetObjectItemCaseSensitive(doc, "runs");
    assert_int_equal(cJSON_GetArraySize(runs), v3 ? 2 : 1);
    const char *asked[2] = {"sse2", "avx2"};
    const char *first = cJSON_GetObjectItemCaseSensitive(runs->child, "simd")->valuestring;
    int i = 0;
    for (const cJSON *run = runs->child; run; run = run->next, ++i) {
        assert_string_equal(cJSON_GetObjectItemCaseSensitive(run, "requested")->valuestring, asked[i]);
        /* The dispatching build runs the copy asked for; a build with one copy (SSE2, x86-64-v3
         * throughout, or SIMDe's portable code) runs that one whatever is asked. */
        const char *ran = cJSON_GetObjectItemCaseSensitive(run, "simd")->valuestring;
#if defined(OSSA__DISPATCH)
        (void)first;
        assert_string_equal(ran, asked[i]);
#else
        assert_string_equal(ran, first);
#endif
        check_run(run, path, 1);
    }
    cJSON_Delete(doc);
    snprintf(command, sizeof command, "'%s' bench '%s' --simd neon 2>/dev/null", exe, path);
    const int st = system(command);
    assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 2);
#else
    print_message("skipped: --simd chooses between x86-64 paths (and the check reads JSON with cJSON)\n");
    skip();
#endif
}

static void bad_invocations_are_refused(void **state)
{
    (void)state;
    const char *path = write_archive("bad.ossa", 1);
    int status = -1;
    const char *help[] = {"--help"};
    char *out = ossa_test_run_captured(tool_bench, 1, help, &status);
    assert_int_equal(status, 0);
    assert_non_null(strstr(out, "usage: ossa bench"));
    free(out);
    const char *none[] = {"--rounds", "3"};
    assert_int_equal(bench(2, none), 2);
    const char *rounds[] = {path, "--rounds", "2"};
    assert_int_equal(bench(3, rounds), 2);
    const char *seconds[] = {path, "--seconds", "nan"};
    assert_int_equal(bench(3, seconds), 2);
    const char *clip[] = {path, "--clip", "1"};
    assert_int_equal(bench(3, clip), 2);
    const char *threads[] = {path, "--threads", "0"};
    assert_int_equal(bench(3, threads), 2);
    const char *unknown[] = {path, "--fast"};
    assert_int_equal(bench(2, unknown), 2);
    const char *missing[] = {ossa_test_scratch_path("missing.ossa")};
    assert_int_equal(bench(1, missing), 1);
    /* Not an archive. */
    const char *text_path = ossa_test_scratch_path("text.ossa");
    ossa_test_write_file(text_path, "not an archive, just text", 25);
    const char *text[] = {text_path};
    assert_int_equal(bench(1, text), 1);
}

static int setup(void **state)
{
    (void)state;
    return ossa_test_scratch_create("ossa-bench-cli");
}

static int teardown(void **state)
{
    (void)state;
    return ossa_test_scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(json_matches_the_archive),
        cmocka_unit_test(simd_runs_one_table_per_path),
        cmocka_unit_test(bad_invocations_are_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
