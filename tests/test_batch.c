/* `ossa batch` and the determinism of `ossa bake`, in process: a folder of small generated
 * Maya .anim (and BVH, with assimp) clips baked through ninja (first run, no-op run, one
 * deleted output, a changed option, shards), and archives compared byte for byte across runs
 * and thread counts. The batch tests skip when ninja is not in PATH or the ossa executable is
 * not known (OSSA_EXE). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef OSSA_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include "ossa/animation.h"
#include "ossa/archive.h"
#include "ossa/skeleton.h"
#include "test_util.h"
#include "tools.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* A Maya .anim of `joints` nodes, each with a rotateZ and a translateX curve over 10 frames of
 * film (24 Hz); `phase` varies the values. */
static void write_maya(const char *path, int joints, int phase)
{
    char text[16384];
    int n = snprintf(text, sizeof text,
                     "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\nlinearUnit cm;\nangularUnit deg;\n"
                     "startTime 0;\nendTime 10;\n");
    for (int j = 0; j < joints && n > 0 && (size_t)n < sizeof text; ++j)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "anim rotate.rotateZ rotateZ node%d 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                      "    0 %d spline spline 1 1 0;\n    5 %d spline spline 1 1 0;\n    10 %d spline spline 1 1 0;\n"
                      "  }\n}\nanim translate.translateX translateX node%d 0 0 1;\nanimData {\n  keys {\n"
                      "    0 %d spline spline 1 1 0;\n    10 %d spline spline 1 1 0;\n  }\n}\n",
                      j, phase + j, 30 + 7 * j, -phase, j, j, 10 + phase);
    assert_true(n > 0 && (size_t)n < sizeof text);
    write_text(path, text);
}

/* A two-joint BVH of 3 frames (read by assimp). */
static void write_bvh(const char *path)
{
    write_text(path, "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 6 Xposition Yposition Zposition "
                     "Zrotation Xrotation Yrotation\n JOINT Spine\n {\n  OFFSET 0 10 0\n  CHANNELS 3 Zrotation "
                     "Xrotation Yrotation\n  End Site\n  {\n   OFFSET 0 10 0\n  }\n }\n}\nMOTION\nFrames: 3\n"
                     "Frame Time: 0.0333333\n0 30 0 0 0 0 0 0 0\n1 30 0 10 0 0 5 0 0\n2 30 0 20 0 0 10 0 0\n");
}

static bool same_bytes(const char *a, const char *b)
{
    size_t size_a = 0, size_b = 0;
    void *bytes_a = ossa_test_read_file(a, &size_a), *bytes_b = ossa_test_read_file(b, &size_b);
    assert_non_null(bytes_a);
    assert_non_null(bytes_b);
    const bool same = size_a == size_b && !memcmp(bytes_a, bytes_b, size_a);
    free(bytes_a);
    free(bytes_b);
    return same;
}

static int bake(int argc, const char **argv) { return tool_bake(argc, (char **)(uintptr_t)argv); }

/* The same input baked twice (a second apart: a timestamp would show) and with one and two
 * encoding threads gives the same bytes; META names the input as it was given. */
static void bakes_are_deterministic(void **state)
{
    (void)state;
    char input[1024], first[1024], second[1024], threaded[1024];
    snprintf(input, sizeof input, "%s", ossa_test_scratch_path("clip.anim"));
    snprintf(first, sizeof first, "%s", ossa_test_scratch_path("first.ossa"));
    snprintf(second, sizeof second, "%s", ossa_test_scratch_path("second.ossa"));
    snprintf(threaded, sizeof threaded, "%s", ossa_test_scratch_path("threaded.ossa"));
    write_maya(input, 12, 3);
    const char *one[] = {input, "-o", first, "-q", "--threads", "1"};
    assert_int_equal(bake(6, one), 0);
    sleep(1);
    const char *again[] = {input, "-o", second, "-q", "--threads", "1"};
    assert_int_equal(bake(6, again), 0);
    assert_true(same_bytes(first, second));
    /* qemu-user (the AArch64 tests) hangs on the encoder's threads. */
    const char *cross = getenv("OSSA_CROSS");
    if (!cross || strcmp(cross, "1")) {
        const char *two[] = {input, "-o", threaded, "-q", "--threads", "2"};
        assert_int_equal(bake(6, two), 0);
        assert_true(same_bytes(first, threaded));
    }
    size_t size = 0;
    void *bytes = ossa_test_read_file(first, &size);
    ossa_archive ar;
    ossa_archive_chunk meta;
    assert_int_equal(ossa_archive_init(&ar, bytes, size), OSSA_OK);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_META, 0, &meta), OSSA_OK);
    char expected[1100];
    snprintf(expected, sizeof expected, "input=%s\n", input);
    assert_true(meta.size > strlen(expected) && !memcmp(meta.data, expected, strlen(expected)));
    /* The error-bounded build's worst error is recorded for ossa batch's summary. */
    char *text = malloc(meta.size + 1);
    assert_non_null(text);
    memcpy(text, meta.data, meta.size);
    text[meta.size] = '\0';
    const char *worst = strstr(text, "\nmax_error_mm=");
    assert_non_null(worst);
    const double mm = strtod(worst + strlen("\nmax_error_mm="), NULL);
    assert_true(mm >= 0.0 && mm <= 0.1 * 1.0001);
    free(text);
    free(bytes);
}

/* Modification time of `path` in nanoseconds; 0 when it does not exist. */
static long long mtime_of(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0) return 0;
    return (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec;
}

static bool ninja_in_path(void)
{
    const char *path = getenv("PATH");
    char candidate[1024];
    for (const char *d = path ? path : ""; *d;) {
        const size_t length = strcspn(d, ":");
        snprintf(candidate, sizeof candidate, "%.*s/ninja", (int)length, d);
        if (length && access(candidate, X_OK) == 0) return true;
        d += length + (d[length] == ':');
    }
    return false;
}

#define SOURCE_MAX 8
static const char *sources[SOURCE_MAX];
static size_t source_count;

/* src/ with a.anim, sub/b.anim, sub/deeper/c.anim (and sub/walk.bvh with assimp), plus files
 * batch must pass over: a text file, a hidden clip, an archive. */
static void make_sources(void)
{
    assert_int_equal(mkdir(ossa_test_scratch_path("src"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("src/sub"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("src/sub/deeper"), 0700), 0);
    source_count = 0;
    static const char *maya[] = {"a.anim", "sub/b.anim", "sub/deeper/c.anim"};
    char name[256];
    for (int i = 0; i < 3; ++i) {
        snprintf(name, sizeof name, "src/%s", maya[i]);
        write_maya(ossa_test_scratch_path(name), 3 + i, i);
        sources[source_count++] = maya[i];
    }
#ifdef OSSA_HAVE_ASSIMP
    write_bvh(ossa_test_scratch_path("src/sub/walk.bvh"));
    sources[source_count++] = "sub/walk.bvh";
#else
    (void)write_bvh;
#endif
    write_text(ossa_test_scratch_path("src/notes.txt"), "not a clip\n");
    write_maya(ossa_test_scratch_path("src/.hidden.anim"), 2, 0);
    write_text(ossa_test_scratch_path("src/sub/old.ossa"), "OSSA");
}

/* out/<source>.ossa */
static const char *output_of(const char *out, const char *source)
{
    char name[300];
    snprintf(name, sizeof name, "%s/%s.ossa", out, source);
    return ossa_test_scratch_path(name);
}

static int batch(const char *out, const char *extra1, const char *extra2, char **printed)
{
    char src[1024], out_dir[1024];
    snprintf(src, sizeof src, "%s", ossa_test_scratch_path("src"));
    snprintf(out_dir, sizeof out_dir, "%s", ossa_test_scratch_path(out));
    const char *argv[] = {src, "-o", out_dir, "--ossa", getenv("OSSA_EXE"), "-j", "2", extra1, extra2};
    int status = -1;
    char *text = ossa_test_run_captured(tool_batch, 7 + (extra1 != NULL) + (extra2 != NULL), argv, &status);
    if (printed)
        *printed = text;
    else
        free(text);
    return status;
}

static void skip_without_ninja(void)
{
    if (!ninja_in_path()) {
        fprintf(stderr, "skipped: ninja is not in PATH\n");
        skip();
    }
    if (!getenv("OSSA_EXE") || access(getenv("OSSA_EXE"), X_OK) != 0) {
        fprintf(stderr, "skipped: OSSA_EXE does not name the ossa executable (a cross build)\n");
        skip();
    }
}

static void batch_bakes_incrementally(void **state)
{
    (void)state;
    skip_without_ninja();
    make_sources();
    char *text = NULL;
    /* First run: every source is baked, nothing else; the archives load. */
    assert_int_equal(batch("out", NULL, NULL, &text), 0);
    long long times[SOURCE_MAX];
    for (size_t i = 0; i < source_count; ++i) {
        const char *path = output_of("out", sources[i]);
        size_t size = 0;
        void *bytes = ossa_test_read_file(path, &size);
        assert_non_null(bytes);
        ossa_archive ar;
        ossa_skeleton skel;
        ossa_animation anim;
        assert_int_equal(ossa_archive_init(&ar, bytes, size), OSSA_OK);
        assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
        assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
        free(bytes);
        times[i] = mtime_of(path);
        assert_non_null(strstr(text, sources[i]));
    }
    char summary[64];
    snprintf(summary, sizeof summary, "%zu sources, %zu baked, 0 failed", source_count, source_count);
    assert_non_null(strstr(text, summary));
    free(text);
    assert_int_equal(access(output_of("out", ".hidden.anim"), F_OK), -1);
    assert_int_equal(access(output_of("out", "notes.txt"), F_OK), -1);
    assert_int_equal(access(output_of("out", "sub/old.ossa"), F_OK), -1);

    /* Second run: nothing to do, nothing rewritten. */
    assert_int_equal(batch("out", NULL, NULL, &text), 0);
    assert_non_null(strstr(text, "ninja: no work to do."));
    free(text);
    for (size_t i = 0; i < source_count; ++i) assert_true(mtime_of(output_of("out", sources[i])) == times[i]);

    /* One output deleted: only that one is baked again. */
    assert_int_equal(remove(output_of("out", "sub/b.anim")), 0);
    assert_int_equal(batch("out", NULL, NULL, &text), 0);
    assert_non_null(strstr(text, "[1/1] bake sub/b.anim\n"));
    free(text);
    for (size_t i = 0; i < source_count; ++i) {
        const long long t = mtime_of(output_of("out", sources[i]));
        if (!strcmp(sources[i], "sub/b.anim"))
            assert_true(t != 0), times[i] = t;
        else
            assert_true(t == times[i]);
    }

    /* A changed option changes every edge's command line: all are baked again. */
    assert_int_equal(batch("out", "--tolerance", "0.001", &text), 0);
    char all[32];
    snprintf(all, sizeof all, "[%zu/%zu] bake ", source_count, source_count);
    assert_non_null(strstr(text, all));
    free(text);
    for (size_t i = 0; i < source_count; ++i) assert_true(mtime_of(output_of("out", sources[i])) != times[i]);
    assert_int_equal(batch("out", "--tolerance", "0.001", &text), 0);
    assert_non_null(strstr(text, "ninja: no work to do."));
    free(text);

    /* A source touched but not changed: its edge runs, the identical archive is left as it
     * was (restat), and the next run has nothing to do. */
    const long long before = mtime_of(output_of("out", "a.anim"));
    assert_int_equal(utimensat(AT_FDCWD, ossa_test_scratch_path("src/a.anim"), NULL, 0), 0);
    assert_int_equal(batch("out", "--tolerance", "0.001", &text), 0);
    assert_non_null(strstr(text, "[1/1] bake a.anim\n"));
    free(text);
    assert_true(mtime_of(output_of("out", "a.anim")) == before);
    assert_int_equal(batch("out", "--tolerance", "0.001", &text), 0);
    assert_non_null(strstr(text, "ninja: no work to do."));
    free(text);

    /* A changed source is baked again (its edge alone). */
    write_maya(ossa_test_scratch_path("src/a.anim"), 3, 9);
    assert_int_equal(batch("out", "--tolerance", "0.001", &text), 0);
    assert_non_null(strstr(text, "[1/1] bake a.anim\n"));
    free(text);
}

/* --shard 1/2 and 2/2 bake disjoint halves that together are the whole set. */
static void shards_cover_the_set_once(void **state)
{
    (void)state;
    skip_without_ninja();
    if (access(ossa_test_scratch_path("src"), F_OK) != 0) make_sources();
    char *text = NULL;
    assert_int_equal(batch("shard1", "--shard", "1/2", NULL), 0);
    assert_int_equal(batch("shard2", "--shard", "2/2", NULL), 0);
    size_t in_first = 0;
    for (size_t i = 0; i < source_count; ++i) {
        const bool first = access(output_of("shard1", sources[i]), F_OK) == 0;
        const bool second = access(output_of("shard2", sources[i]), F_OK) == 0;
        assert_true(first != second);
        in_first += first;
    }
    assert_int_equal(in_first, (source_count + 1) / 2);
    /* Bad shards are usage errors. */
    assert_int_equal(batch("never", "--shard", "3/2", &text), 2);
    free(text);
    assert_int_equal(batch("never", "--shard", "0/2", &text), 2);
    free(text);
    assert_int_equal(access(ossa_test_scratch_path("never"), F_OK), -1);
}

/* --json writes the summary as JSON: one object per source. */
static void json_summary(void **state)
{
    (void)state;
    skip_without_ninja();
#ifndef OSSA_HAVE_CJSON
    skip();
#else
    if (access(ossa_test_scratch_path("src"), F_OK) != 0) make_sources();
    char json[1024];
    snprintf(json, sizeof json, "%s", ossa_test_scratch_path("summary.json"));
    assert_int_equal(batch("out_json", "--json", json, NULL), 0);
    size_t size = 0;
    char *bytes = ossa_test_read_file(json, &size);
    assert_non_null(bytes);
    cJSON *root = cJSON_ParseWithLength(bytes, size);
    assert_non_null(root);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "sources");
    assert_int_equal(cJSON_GetArraySize(list), (int)source_count);
    const cJSON *first = cJSON_GetArrayItem(list, 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(first, "source")->valuestring, "a.anim");
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(first, "baked")));
    assert_true(cJSON_GetObjectItemCaseSensitive(first, "bytes")->valuedouble > 0.0);
    assert_non_null(cJSON_GetObjectItemCaseSensitive(first, "max_error_mm"));
    cJSON_Delete(root);
    free(bytes);
#endif
}

static int setup(void **state)
{
    (void)state;
    return ossa_test_scratch_create("ossa-batch");
}

static int teardown(void **state)
{
    (void)state;
    return ossa_test_scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bakes_are_deterministic),
        cmocka_unit_test(batch_bakes_incrementally),
        cmocka_unit_test(shards_cover_the_set_once),
        cmocka_unit_test(json_summary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
