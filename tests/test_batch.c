/* `ossa batch` and the determinism of `ossa bake`, in process: a folder of small generated
 * Maya .anim (and BVH, with assimp) clips baked through ninja (first run, no-op run, one
 * deleted output, a changed option, shards, removed sources), Metroid ANIM and ozz raw
 * animations bound to the skeletons of their folders or of --skeleton rules, and archives
 * compared byte for byte across runs, thread counts and with `ossa bake` run alone. The batch
 * tests skip when ninja is not in PATH or the ossa executable is not known (OSSA_EXE). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef OSSA_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

#include "ossa/animation.h"
#include "ossa/archive.h"
#include "ossa/skeleton.h"
#include "metroid_writer.h"
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

/* ---- sources that need a skeleton: Metroid ANIM + CINF, ozz RawAnimation + RawSkeleton ---- */

/* A CINF of the fixture's five bones, every origin times `scale` (another skeleton). */
static void write_cinf(const char *path, int game, float scale)
{
    mw_bone bones[5];
    memcpy(bones, mw_fixture_bones, sizeof bones);
    for (int b = 0; b < 5; ++b)
        for (int k = 0; k < 3; ++k) bones[b].origin[k] *= scale;
    const mw_cinf cinf = {.game = game, .bone_count = 5, .bones = bones};
    mw_buf buf = {0};
    mw_write_cinf(&buf, &cinf, NULL);
    ossa_test_write_file(path, buf.data, buf.size);
    mw_buf_free(&buf);
}

static void write_metroid_anim(const char *path, int game)
{
    mw_canim a = mw_fixture_compressed(game);
    mw_buf buf = {0};
    assert_true(mw_write_compressed(&buf, &a, NULL));
    ossa_test_write_file(path, buf.data, buf.size);
    mw_buf_free(&buf);
}

/* Little-endian ozz archive fields (ossa/offline/import_ozz.h). */
typedef struct ozz_buf {
    uint8_t data[2048];
    size_t size;
} ozz_buf;

static void ozz_bytes(ozz_buf *w, const void *p, size_t n)
{
    assert_true(w->size + n <= sizeof w->data);
    memcpy(w->data + w->size, p, n);
    w->size += n;
}

static void ozz_u32(ozz_buf *w, uint32_t v)
{
    const uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    ozz_bytes(w, le, 4);
}

static void ozz_floats(ozz_buf *w, int n, const float *v)
{
    for (int i = 0; i < n; ++i) {
        uint32_t u;
        memcpy(&u, &v[i], 4);
        ozz_u32(w, u);
    }
}

/* A count and, when not 0, the element version 1. */
static void ozz_array(ozz_buf *w, uint32_t count)
{
    ozz_u32(w, count);
    if (count) ozz_u32(w, 1);
}

static void ozz_begin(ozz_buf *w, const char *tag, uint32_t version)
{
    w->size = 0;
    ozz_bytes(w, "\1", 1);
    ozz_bytes(w, tag, strlen(tag) + 1);
    ozz_u32(w, version);
}

/* RawSkeleton: hips > spine, the spine `length` above the hips. */
static void write_ozz_skeleton(const char *path, float length)
{
    ozz_buf w;
    ozz_begin(&w, "ozz-raw_skeleton", 1);
    const float hips[10] = {0.f, 1.f, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f};
    const float spine[10] = {0.f, length, 0.f, 0.f, 0.f, 0.f, 1.f, 1.f, 1.f, 1.f};
    ozz_array(&w, 1);
    ozz_u32(&w, 4), ozz_bytes(&w, "hips", 4), ozz_floats(&w, 10, hips);
    ozz_array(&w, 1);
    ozz_u32(&w, 5), ozz_bytes(&w, "spine", 5), ozz_floats(&w, 10, spine);
    ozz_array(&w, 0);
    ossa_test_write_file(path, w.data, w.size);
}

/* RawAnimation of 2 tracks over 1 s: the hips rise, the spine turns about y. */
static void write_ozz_animation(const char *path)
{
    ozz_buf w;
    ozz_begin(&w, "ozz-raw_animation", 3);
    const float duration = 1.f;
    ozz_floats(&w, 1, &duration);
    ozz_array(&w, 2);
    for (int t = 0; t < 2; ++t) {
        const float translations[2][4] = {{0.f, 0.f, 1.f, 0.f}, {1.f, 0.f, 1.f + 0.1f * (float)(1 - t), 0.f}};
        const float rotations[2][5] = {{0.f, 0.f, 0.f, 0.f, 1.f}, {1.f, 0.f, 0.6f * (float)t, 0.f, t ? 0.8f : 1.f}};
        const float scale[4] = {0.f, 1.f, 1.f, 1.f};
        ozz_array(&w, 2), ozz_floats(&w, 8, translations[0]);
        ozz_array(&w, 2), ozz_floats(&w, 10, rotations[0]);
        ozz_array(&w, 1), ozz_floats(&w, 4, scale);
    }
    ozz_u32(&w, 4), ozz_bytes(&w, "rise", 4);
    ossa_test_write_file(path, w.data, w.size);
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
 * encoding threads gives the same bytes; META names the input's file, not the path given. */
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
    ossa_archive ar;
    ossa_archive_chunk meta;
    void *bytes = ossa_test_open_archive(first, &ar);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_META, 0, &meta), OSSA_OK);
    char expected[1100];
    snprintf(expected, sizeof expected, "input=%s\n", strrchr(input, '/') ? strrchr(input, '/') + 1 : input);
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

/* ossa batch SRC -o OUT --ossa EXE -j 2 [EXTRA...] (SRC and OUT under the scratch folder); the
 * exit status, and what it printed in *printed when not NULL. */
static int batch_from(const char *src_name, const char *out, const char *const *extra, size_t extra_count,
                      char **printed)
{
    char src[1024], out_dir[1024];
    snprintf(src, sizeof src, "%s", ossa_test_scratch_path(src_name));
    snprintf(out_dir, sizeof out_dir, "%s", ossa_test_scratch_path(out));
    const char *argv[16] = {src, "-o", out_dir, "--ossa", getenv("OSSA_EXE"), "-j", "2"};
    assert_true(extra_count <= 9);
    for (size_t i = 0; i < extra_count; ++i) argv[7 + i] = extra[i];
    int status = -1;
    char *text = ossa_test_run_captured(tool_batch, 7 + (int)extra_count, argv, &status);
    if (printed)
        *printed = text;
    else
        free(text);
    return status;
}

static int batch(const char *out, const char *extra1, const char *extra2, char **printed)
{
    const char *extra[2] = {extra1, extra2};
    return batch_from("src", out, extra, (extra1 != NULL) + (extra2 != NULL), printed);
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
        ossa_archive ar;
        ossa_skeleton skel;
        ossa_animation anim;
        void *bytes = ossa_test_open_archive(path, &ar);
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

/* The batch's bakes store metres (unit_scale=1) unless --keep-source-units, which it passes
 * on to every bake (unit_scale = --unit-scale); the rest poses differ by that factor. */
static void batch_stores_metres(void **state)
{
    (void)state;
    skip_without_ninja();
    if (access(ossa_test_scratch_path("src"), F_OK) != 0) make_sources();
    const char *kept_options[] = {"--unit-scale", "0.01", "--keep-source-units"};
    assert_int_equal(batch("units_metres", "--unit-scale", "0.01", NULL), 0);
    assert_int_equal(batch_from("src", "units_kept", kept_options, 3, NULL), 0);
    for (size_t i = 0; i < source_count; ++i) {
        char metres_path[1024], kept_path[1024];
        snprintf(metres_path, sizeof metres_path, "%s", output_of("units_metres", sources[i]));
        snprintf(kept_path, sizeof kept_path, "%s", output_of("units_kept", sources[i]));
        ossa_archive metres, kept;
        void *a = ossa_test_open_archive(metres_path, &metres), *b = ossa_test_open_archive(kept_path, &kept);
        assert_true(ossa_archive_unit_scale(&metres) == 1.f);
        assert_true(ossa_archive_unit_scale(&kept) == .01f);
        ossa_skeleton sm, sk;
        assert_int_equal(ossa_archive_skeleton(&metres, &sm), OSSA_OK);
        assert_int_equal(ossa_archive_skeleton(&kept, &sk), OSSA_OK);
        assert_int_equal(sm.joint_count, sk.joint_count);
        for (size_t j = 0; j < sm.joint_count; ++j) {
            const ossa_transform tm = ossa_skeleton_rest_transform(&sm, j), tk = ossa_skeleton_rest_transform(&sk, j);
            assert_true(tm.translation.x == tk.translation.x * .01f && tm.translation.y == tk.translation.y * .01f &&
                        tm.translation.z == tk.translation.z * .01f);
        }
        free(a), free(b);
    }
}

/* --json writes the summary as JSON: one object per source. */
static void json_summary(void **state)
{
    (void)state;
    skip_without_ninja();
#ifndef OSSA_HAVE_CJSON
    print_message("skipped: this build has no cJSON (--json)\n");
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

/* The input= line of an archive's META. */
static void meta_input(const char *archive, char *input, size_t size)
{
    size_t bytes = 0;
    void *data = ossa_test_read_file(archive, &bytes);
    assert_non_null(data);
    ossa_archive ar;
    ossa_archive_chunk meta;
    assert_int_equal(ossa_archive_init(&ar, data, bytes), OSSA_OK);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_META, 0, &meta), OSSA_OK);
    const char *text = meta.data;
    assert_true(meta.size > 6 && !memcmp(text, "input=", 6));
    const size_t length = strcspn(text + 6, "\n");
    assert_true(length < size && 6 + length < meta.size);
    memcpy(input, text + 6, length);
    input[length] = '\0';
    free(data);
}

/* True when `archive` (skel_out/REL.ossa under the scratch folder) holds the bytes `ossa bake`
 * gives its source skel/REL alone with --skeleton `skeleton` (under the scratch folder) and
 * the batch's options. The batch gives its bakes absolute paths: META names the file alone. */
static bool bakes_like(const char *archive, const char *skeleton)
{
    char path[1024], rel[512], source[1024], input[1024], skeleton_path[1024], alone[1024];
    assert_true(!strncmp(archive, "skel_out/", 9) && strlen(archive) > 14);
    snprintf(rel, sizeof rel, "skel/%.*s", (int)(strlen(archive) - 14), archive + 9);
    snprintf(source, sizeof source, "%s", ossa_test_scratch_path(rel));
    snprintf(path, sizeof path, "%s", ossa_test_scratch_path(archive));
    snprintf(skeleton_path, sizeof skeleton_path, "%s", ossa_test_scratch_path(skeleton));
    snprintf(alone, sizeof alone, "%s", ossa_test_scratch_path("alone.ossa"));
    meta_input(path, input, sizeof input);
    assert_string_equal(input, strrchr(source, '/') + 1);
    const char *argv[] = {source, "-o", alone, "-q", "--threads", "1", "--skeleton", skeleton_path};
    assert_int_equal(bake(8, argv), 0);
    const bool same = same_bytes(path, alone);
    assert_int_equal(remove(alone), 0);
    return same;
}

/* skel/: mp1/ (a Metroid ANIM and its CINF), ozz/ (an ozz RawAnimation and a RawSkeleton) and
 * two/ (an ANIM beside two CINFs of different skeletons). */
static const char *const skel_sources[] = {"mp1/bones.CINF", "mp1/walk.ANIM", "ozz/body.ozz", "ozz/rise.ozz",
                                           "two/a.CINF",     "two/b.CINF",    "two/run.ANIM"};
#define SKEL_SOURCES (sizeof skel_sources / sizeof *skel_sources)

static void make_skeleton_sources(void)
{
    assert_int_equal(mkdir(ossa_test_scratch_path("skel"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("skel/mp1"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("skel/ozz"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("skel/two"), 0700), 0);
    write_metroid_anim(ossa_test_scratch_path("skel/mp1/walk.ANIM"), 1);
    write_cinf(ossa_test_scratch_path("skel/mp1/bones.CINF"), 1, 1.f);
    write_ozz_animation(ossa_test_scratch_path("skel/ozz/rise.ozz"));
    write_ozz_skeleton(ossa_test_scratch_path("skel/ozz/body.ozz"), 0.5f);
    write_metroid_anim(ossa_test_scratch_path("skel/two/run.ANIM"), 1);
    write_cinf(ossa_test_scratch_path("skel/two/a.CINF"), 1, 1.f);
    write_cinf(ossa_test_scratch_path("skel/two/b.CINF"), 1, 2.f);
}

/* Sources that need a skeleton take the one of their kind in their folder; a folder with two
 * is reported per file, not baked, until a --skeleton rule chooses; changing a skeleton rebakes
 * the clips bound to it and nothing else. */
static void batch_binds_skeletons(void **state)
{
    (void)state;
    skip_without_ninja();
    make_skeleton_sources();
    char *text = NULL;
    assert_int_equal(batch_from("skel", "skel_out", NULL, 0, &text), 1);
    assert_non_null(strstr(text, "two/run.ANIM"));
    assert_non_null(strstr(text, "not baked: needs a skeleton: 2 Metroid CINF files in two/ (a.CINF, b.CINF)"));
    assert_non_null(strstr(text, "7 sources, 6 baked, 0 failed, 1 without a skeleton"));
    free(text);
    assert_int_equal(access(output_of("skel_out", "two/run.ANIM"), F_OK), -1);
    /* Each folder's clip is what ossa bake makes of it with that folder's skeleton. */
    assert_true(bakes_like("skel_out/mp1/walk.ANIM.ossa", "skel/mp1/bones.CINF"));
    assert_true(bakes_like("skel_out/ozz/rise.ozz.ossa", "skel/ozz/body.ozz"));
    long long times[SKEL_SOURCES];
    for (size_t i = 0; i < SKEL_SOURCES; ++i) times[i] = mtime_of(output_of("skel_out", skel_sources[i]));

    /* A rule chooses b.CINF: that clip alone is baked, with b's skeleton, not a's. */
    const char *rule[] = {"--skeleton", "two/*.ANIM=two/b.CINF"};
    assert_int_equal(batch_from("skel", "skel_out", rule, 2, &text), 0);
    assert_non_null(strstr(text, "[1/1] bake two/run.ANIM\n"));
    assert_non_null(strstr(text, "7 sources, 7 baked, 0 failed;"));
    free(text);
    assert_true(bakes_like("skel_out/two/run.ANIM.ossa", "skel/two/b.CINF"));
    assert_false(bakes_like("skel_out/two/run.ANIM.ossa", "skel/two/a.CINF"));
    for (size_t i = 0; i < SKEL_SOURCES; ++i)
        if (strcmp(skel_sources[i], "two/run.ANIM"))
            assert_true(mtime_of(output_of("skel_out", skel_sources[i])) == times[i]);
    times[6] = mtime_of(output_of("skel_out", "two/run.ANIM"));

    /* mp1's skeleton changes: the CINF's own archive and the clip bound to it are baked again,
     * the clip with the new skeleton; the other folders' archives are left as they were. */
    size_t old_size = 0;
    void *old_walk = ossa_test_read_file(output_of("skel_out", "mp1/walk.ANIM"), &old_size);
    assert_non_null(old_walk);
    write_cinf(ossa_test_scratch_path("skel/mp1/bones.CINF"), 1, 1.5f);
    assert_int_equal(batch_from("skel", "skel_out", rule, 2, &text), 0);
    assert_non_null(strstr(text, "[2/2] bake "));
    assert_non_null(strstr(text, "bake mp1/walk.ANIM\n"));
    assert_non_null(strstr(text, "bake mp1/bones.CINF\n"));
    free(text);
    assert_true(bakes_like("skel_out/mp1/walk.ANIM.ossa", "skel/mp1/bones.CINF"));
    size_t new_size = 0;
    void *new_walk = ossa_test_read_file(output_of("skel_out", "mp1/walk.ANIM"), &new_size);
    assert_non_null(new_walk);
    assert_false(new_size == old_size && !memcmp(new_walk, old_walk, old_size));
    free(old_walk);
    free(new_walk);
    for (size_t i = 0; i < SKEL_SOURCES; ++i)
        if (strncmp(skel_sources[i], "mp1/", 4))
            assert_true(mtime_of(output_of("skel_out", skel_sources[i])) == times[i]);
        else
            assert_true(mtime_of(output_of("skel_out", skel_sources[i])) != times[i]);

    /* A folder pattern binds the folder's tree: the clip now takes a.CINF, and is baked again
     * with it (b.CINF's own edge, now given a.CINF, which it does not use, too); mp1 and ozz
     * are left as they were. */
    const char *folder_rule[] = {"--skeleton", "two/=two/a.CINF"};
    for (size_t i = 0; i < SKEL_SOURCES; ++i) times[i] = mtime_of(output_of("skel_out", skel_sources[i]));
    assert_int_equal(batch_from("skel", "skel_out", folder_rule, 2, &text), 0);
    assert_non_null(strstr(text, "[2/2] bake "));
    assert_non_null(strstr(text, "bake two/run.ANIM\n"));
    free(text);
    assert_true(bakes_like("skel_out/two/run.ANIM.ossa", "skel/two/a.CINF"));
    for (size_t i = 0; i < SKEL_SOURCES; ++i)
        if (strncmp(skel_sources[i], "two/", 4))
            assert_true(mtime_of(output_of("skel_out", skel_sources[i])) == times[i]);

    /* Without the rule the clip has no skeleton again: it is not baked and its archive, no
     * longer produced, is removed. */
    assert_int_equal(batch_from("skel", "skel_out", NULL, 0, &text), 1);
    assert_non_null(strstr(text, "removed two/run.ANIM.ossa"));
    free(text);
    assert_int_equal(access(output_of("skel_out", "two/run.ANIM"), F_OK), -1);
    assert_int_equal(access(output_of("skel_out", "two/a.CINF"), F_OK), 0);

    /* A rule whose file does not exist is an error before anything is written. */
    const char *missing[] = {"--skeleton", "two/*.ANIM=two/c.CINF"};
    assert_int_equal(batch_from("skel", "skel_never", missing, 2, &text), 1);
    free(text);
    assert_int_equal(access(ossa_test_scratch_path("skel_never"), F_OK), -1);
}

/* A copy of the bytes of `path`, and its size. */
typedef struct snapshot {
    void *bytes;
    size_t size;
    long long mtime;
} snapshot;

static snapshot take_snapshot(const char *path)
{
    snapshot s = {NULL, 0, mtime_of(path)};
    s.bytes = ossa_test_read_file(path, &s.size);
    assert_non_null(s.bytes);
    return s;
}

static bool unchanged(const char *path, snapshot *s)
{
    size_t size = 0;
    void *bytes = ossa_test_read_file(path, &size);
    const bool same = bytes && size == s->size && !memcmp(bytes, s->bytes, size) && mtime_of(path) == s->mtime;
    free(bytes);
    free(s->bytes);
    s->bytes = NULL;
    return same;
}

/* A source removed since the last run: its archive (and the folder it leaves empty) goes, the
 * other archives and the files ossa batch did not make stay as they were; an OUT_DIR holding
 * another build.ninja is refused untouched; shards sharing an OUT_DIR keep each other's. */
static void batch_removes_archives_of_removed_sources(void **state)
{
    (void)state;
    skip_without_ninja();
    assert_int_equal(mkdir(ossa_test_scratch_path("gone"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("gone/sub"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("gone/sub/deeper"), 0700), 0);
    write_maya(ossa_test_scratch_path("gone/a.anim"), 3, 1);
    write_maya(ossa_test_scratch_path("gone/sub/b.anim"), 4, 2);
    write_maya(ossa_test_scratch_path("gone/sub/deeper/c.anim"), 5, 3);
    char *text = NULL;
    assert_int_equal(batch_from("gone", "gone_out", NULL, 0, &text), 0);
    free(text);
    /* Files of the user's in OUT_DIR, one of them an archive. */
    write_text(ossa_test_scratch_path("gone_out/notes.txt"), "mine\n");
    assert_int_equal(
        rename(ossa_test_scratch_path("gone_out/sub/b.anim.ossa"), ossa_test_scratch_path("gone_out/sub/kept.ossa")),
        0);
    assert_int_equal(batch_from("gone", "gone_out", NULL, 0, &text), 0);
    assert_non_null(strstr(text, "[1/1] bake sub/b.anim\n"));
    free(text);
    snapshot a = take_snapshot(output_of("gone_out", "a.anim")), b = take_snapshot(output_of("gone_out", "sub/b.anim")),
             kept = take_snapshot(ossa_test_scratch_path("gone_out/sub/kept.ossa")),
             notes = take_snapshot(ossa_test_scratch_path("gone_out/notes.txt"));

    assert_int_equal(remove(ossa_test_scratch_path("gone/sub/deeper/c.anim")), 0);
    assert_int_equal(batch_from("gone", "gone_out", NULL, 0, &text), 0);
    assert_non_null(strstr(text, "removed sub/deeper/c.anim.ossa"));
    assert_non_null(strstr(text, "ninja: no work to do."));
    assert_non_null(strstr(text, "2 sources, 2 baked, 0 failed"));
    free(text);
    assert_int_equal(access(output_of("gone_out", "sub/deeper/c.anim"), F_OK), -1);
    assert_int_equal(access(ossa_test_scratch_path("gone_out/sub/deeper"), F_OK), -1);
    assert_true(unchanged(output_of("gone_out", "a.anim"), &a));
    assert_true(unchanged(output_of("gone_out", "sub/b.anim"), &b));
    assert_true(unchanged(ossa_test_scratch_path("gone_out/sub/kept.ossa"), &kept));
    assert_true(unchanged(ossa_test_scratch_path("gone_out/notes.txt"), &notes));

    /* Another build system's folder: refused, nothing written or removed. */
    assert_int_equal(mkdir(ossa_test_scratch_path("foreign"), 0700), 0);
    write_text(ossa_test_scratch_path("foreign/build.ninja"), "rule cc\n  command = cc $in\n");
    write_text(ossa_test_scratch_path("foreign/a.anim.ossa"), "OSSA");
    snapshot manifest = take_snapshot(ossa_test_scratch_path("foreign/build.ninja")),
             archive = take_snapshot(ossa_test_scratch_path("foreign/a.anim.ossa"));
    assert_int_equal(batch_from("gone", "foreign", NULL, 0, &text), 1);
    free(text);
    assert_true(unchanged(ossa_test_scratch_path("foreign/build.ninja"), &manifest));
    assert_true(unchanged(ossa_test_scratch_path("foreign/a.anim.ossa"), &archive));
    assert_int_equal(access(ossa_test_scratch_path("foreign/sub"), F_OK), -1);

    /* Two shards baked into one OUT_DIR in turn: neither removes the other's archives. */
    const char *first[] = {"--shard", "1/2"}, *second[] = {"--shard", "2/2"};
    assert_int_equal(batch_from("gone", "gone_shared", first, 2, NULL), 0);
    assert_int_equal(access(output_of("gone_shared", "a.anim"), F_OK), 0);
    assert_int_equal(batch_from("gone", "gone_shared", second, 2, &text), 0);
    assert_non_null(strstr(text, "last held shard 1/2"));
    free(text);
    assert_int_equal(batch_from("gone", "gone_shared", first, 2, NULL), 0);
    assert_int_equal(access(output_of("gone_shared", "a.anim"), F_OK), 0);
    assert_int_equal(access(output_of("gone_shared", "sub/b.anim"), F_OK), 0);
}

/* batch_from with stderr also captured: *errors receives what it printed there. */
static int batch_errors(const char *src_name, const char *out, const char *const *extra, size_t extra_count,
                        char **printed, char **errors)
{
    char path[1024];
    snprintf(path, sizeof path, "%s", ossa_test_scratch_path("stderr.txt"));
    fflush(stderr);
    const int saved = dup(STDERR_FILENO);
    const int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(saved >= 0 && fd >= 0);
    dup2(fd, STDERR_FILENO);
    close(fd);
    const int status = batch_from(src_name, out, extra, extra_count, printed);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    size_t size = 0;
    char *bytes = ossa_test_read_file(path, &size);
    assert_non_null(bytes);
    *errors = malloc(size + 1);
    assert_non_null(*errors);
    memcpy(*errors, bytes, size);
    (*errors)[size] = '\0';
    free(bytes);
    return status;
}

static void append_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "ab");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* What OUT_DIR's files say never removes anything outside it: a .ninja_log naming ../victim and
 * an absolute path outside, and a build.ninja naming them, a path through a symbolic link to a
 * folder outside and a symbolic link to a file outside, leave those files as they were; the
 * archive of a removed source is still removed. */
static void batch_removes_nothing_outside_out_dir(void **state)
{
    (void)state;
    skip_without_ninja();
    assert_int_equal(mkdir(ossa_test_scratch_path("tamper"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("tamper/sub"), 0700), 0);
    write_maya(ossa_test_scratch_path("tamper/a.anim"), 3, 1);
    write_maya(ossa_test_scratch_path("tamper/sub/b.anim"), 4, 2);
    char *text = NULL, *errors = NULL;
    assert_int_equal(batch_from("tamper", "tamper_out", NULL, 0, &text), 0);
    free(text);

    /* Files outside OUT_DIR, named relative to it and absolutely. */
    char victim[1024], absolute[1024], line[4096];
    snprintf(victim, sizeof victim, "%s", ossa_test_scratch_path("victim"));
    snprintf(absolute, sizeof absolute, "%s", ossa_test_scratch_path("elsewhere.ossa"));
    write_text(victim, "not ossa batch's\n");
    write_text(absolute, "not ossa batch's either\n");
    assert_int_equal(mkdir(ossa_test_scratch_path("outside"), 0700), 0);
    write_text(ossa_test_scratch_path("outside/x.ossa"), "outside\n");
    assert_int_equal(symlink(ossa_test_scratch_path("outside"), ossa_test_scratch_path("tamper_out/link")), 0);
    assert_int_equal(symlink(absolute, ossa_test_scratch_path("tamper_out/sym.ossa")), 0);
    snapshot v = take_snapshot(victim), e = take_snapshot(absolute),
             x = take_snapshot(ossa_test_scratch_path("outside/x.ossa"));
    /* ninja's log lines: start, end, mtime, path, command hash. */
    snprintf(line, sizeof line, "1\t2\t3\t../victim\t0123456789abcdef\n1\t2\t3\t%s\t0123456789abcdef\n", absolute);
    append_text(ossa_test_scratch_path("tamper_out/.ninja_log"), line);
    snprintf(line, sizeof line, "build ../victim.ossa %s link/x.ossa sym.ossa: bake ../victim\n", absolute);
    append_text(ossa_test_scratch_path("tamper_out/build.ninja"), line);

    assert_int_equal(remove(ossa_test_scratch_path("tamper/sub/b.anim")), 0);
    assert_int_equal(batch_errors("tamper", "tamper_out", NULL, 0, &text, &errors), 0);
    assert_true(unchanged(victim, &v));
    assert_true(unchanged(absolute, &e));
    assert_true(unchanged(ossa_test_scratch_path("outside/x.ossa"), &x));
    assert_non_null(strstr(text, "removed sub/b.anim.ossa"));
    assert_non_null(strstr(text, "1 sources, 1 baked, 0 failed"));
    assert_non_null(strstr(errors, "left ../victim.ossa: not an archive path inside OUT_DIR"));
    assert_non_null(strstr(errors, "left link/x.ossa: link is not a folder"));
    assert_non_null(strstr(errors, "left sym.ossa: not a regular file"));
    free(text);
    free(errors);
    assert_int_equal(access(output_of("tamper_out", "sub/b.anim"), F_OK), -1);
    assert_int_equal(access(ossa_test_scratch_path("tamper_out/sub"), F_OK), -1);
    assert_int_equal(access(output_of("tamper_out", "a.anim"), F_OK), 0);
    struct stat st;
    assert_int_equal(lstat(ossa_test_scratch_path("tamper_out/sym.ossa"), &st), 0);
    assert_true(S_ISLNK(st.st_mode));

    /* The next run starts from the build.ninja it wrote: nothing is left to remove. */
    assert_int_equal(batch_errors("tamper", "tamper_out", NULL, 0, &text, &errors), 0);
    assert_null(strstr(text, "removed "));
    assert_null(strstr(errors, "left "));
    free(text);
    free(errors);
}

/* An OUT_DIR that is SRC_DIR or lies in it, however named (a folder of it, "..", a symbolic
 * link), is refused with one line and exit 2 before anything is created; with
 * --allow-out-inside-src it is baked into and its tree is not read as sources. */
static void batch_refuses_out_dir_in_src(void **state)
{
    (void)state;
    skip_without_ninja();
    assert_int_equal(mkdir(ossa_test_scratch_path("inner"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("inner/sub"), 0700), 0);
    write_maya(ossa_test_scratch_path("inner/a.anim"), 3, 1);
    write_maya(ossa_test_scratch_path("inner/sub/b.anim"), 3, 2);
    assert_int_equal(symlink(ossa_test_scratch_path("inner"), ossa_test_scratch_path("inner_link")), 0);
    static const char *const outs[] = {"inner",     "inner/",     "inner/sub",      "inner/sub/..",
                                       "inner/new", "inner_link", "inner_link/sub", "inner/../inner/sub"};
    for (size_t i = 0; i < sizeof outs / sizeof *outs; ++i) {
        char *text = NULL, *errors = NULL;
        assert_int_equal(batch_errors("inner", outs[i], NULL, 0, &text, &errors), 2);
        assert_true(strstr(errors, "is SRC_DIR") || strstr(errors, "lies inside SRC_DIR"));
        assert_non_null(strchr(errors, '\n'));
        assert_int_equal(strchr(errors, '\n')[1], '\0'); /* one line */
        assert_string_equal(text, "");
        free(text);
        free(errors);
    }
    assert_int_equal(access(ossa_test_scratch_path("inner/new"), F_OK), -1);
    assert_int_equal(access(ossa_test_scratch_path("inner/build.ninja"), F_OK), -1);
    assert_int_equal(access(ossa_test_scratch_path("inner/sub/build.ninja"), F_OK), -1);
    /* SRC_DIR named through the link, OUT_DIR inside the real folder: the same. */
    char *text = NULL, *errors = NULL;
    assert_int_equal(batch_errors("inner_link", "inner/sub", NULL, 0, &text, &errors), 2);
    free(text);
    free(errors);

    /* Allowed: the archives go to inner/baked, and a second run still sees two sources. */
    const char *allow[] = {"--allow-out-inside-src"};
    assert_int_equal(batch_from("inner", "inner/baked", allow, 1, &text), 0);
    assert_non_null(strstr(text, "2 sources, 2 baked, 0 failed"));
    free(text);
    assert_int_equal(access(output_of("inner/baked", "sub/b.anim"), F_OK), 0);
    assert_int_equal(batch_from("inner", "inner/baked", allow, 1, &text), 0);
    assert_non_null(strstr(text, "ninja: no work to do."));
    assert_non_null(strstr(text, "2 sources, 2 baked, 0 failed"));
    free(text);
    /* OUT_DIR = SRC_DIR stays refused: none of its files could be a source. */
    assert_int_equal(batch_errors("inner", "inner", allow, 1, &text, &errors), 2);
    free(text);
    free(errors);
}

/* Awkward names: '|', ' ', '$', ':' (and quotes, '&') are carried through build.ninja, the
 * shell and the depfile, so they bake and a second run has nothing to do; a name with a
 * carriage return or a line break is refused alone, with the reason in the summary and the JSON,
 * and the rest bakes. The archive of a removed '|' source is removed. */
static void batch_carries_awkward_names(void **state)
{
    (void)state;
    skip_without_ninja();
#ifdef OSSA_HAVE_ASSIMP
#define CLIP             ".bvh"
#define WRITE_CLIP(path) write_bvh(path)
#else
#define CLIP             ".anim"
#define WRITE_CLIP(path) write_maya(path, 2, 0)
#endif
    static const char *const good[] = {"a|b" CLIP, "a b" CLIP, "a$b" CLIP, "a:b" CLIP, "Bob's & co" CLIP};
    static const char *const bad[] = {"cr\r" CLIP, "nl\n" CLIP};
    assert_int_equal(mkdir(ossa_test_scratch_path("names"), 0700), 0);
    char name[256];
    for (size_t i = 0; i < 5; ++i) {
        snprintf(name, sizeof name, "names/%s", good[i]);
        WRITE_CLIP(ossa_test_scratch_path(name));
    }
    for (size_t i = 0; i < 2; ++i) {
        snprintf(name, sizeof name, "names/%s", bad[i]);
        WRITE_CLIP(ossa_test_scratch_path(name));
    }
    char json[1024];
    snprintf(json, sizeof json, "%s", ossa_test_scratch_path("names.json"));
    const char *options[] = {"--json", json};
#ifdef OSSA_HAVE_CJSON
    const size_t option_count = 2;
#else
    const size_t option_count = 0;
#endif
    char *text = NULL;
    assert_int_equal(batch_from("names", "names_out", options, option_count, &text), 1);
    assert_non_null(strstr(text, "7 sources, 5 baked, 0 failed, 2 refused for their name"));
    assert_non_null(strstr(text, "cr\\r" CLIP));
    assert_non_null(strstr(text, "not baked: its name holds a carriage return"));
    assert_non_null(strstr(text, "nl\\n" CLIP));
    assert_non_null(strstr(text, "not baked: its name holds a line break"));
    free(text);
    for (size_t i = 0; i < 5; ++i) {
        ossa_archive ar;
        ossa_skeleton skel;
        void *bytes = ossa_test_open_archive(output_of("names_out", good[i]), &ar);
        assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
        assert_int_equal(skel.joint_count > 0, 1);
        free(bytes);
    }
    for (size_t i = 0; i < 2; ++i) assert_int_equal(access(output_of("names_out", bad[i]), F_OK), -1);
#ifdef OSSA_HAVE_CJSON
    size_t size = 0;
    char *bytes = ossa_test_read_file(json, &size);
    assert_non_null(bytes);
    cJSON *root = cJSON_ParseWithLength(bytes, size);
    assert_non_null(root);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "sources"), *row;
    size_t refused = 0;
    cJSON_ArrayForEach(row, list)
    {
        const char *source = cJSON_GetObjectItemCaseSensitive(row, "source")->valuestring;
        const bool baked = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(row, "baked"));
        const cJSON *problem = cJSON_GetObjectItemCaseSensitive(row, "problem");
        if (strpbrk(source, "\r\n")) {
            assert_false(baked);
            assert_non_null(strstr(problem->valuestring, strchr(source, '\r') ? "carriage return" : "line break"));
            ++refused;
        } else
            assert_true(baked && !problem);
    }
    assert_int_equal(refused, 2);
    cJSON_Delete(root);
    free(bytes);
#endif
    /* Every name reads back from build.ninja and the depfile as it is: nothing to do. */
    assert_int_equal(batch_from("names", "names_out", NULL, 0, &text), 1);
    assert_non_null(strstr(text, "ninja: no work to do."));
    free(text);
    /* The '|' source removed: its archive goes, declared through a variable in build.ninja. */
    snprintf(name, sizeof name, "names/%s", good[0]);
    assert_int_equal(remove(ossa_test_scratch_path(name)), 0);
    assert_int_equal(batch_from("names", "names_out", NULL, 0, &text), 1);
    assert_non_null(strstr(text, "removed a|b" CLIP ".ossa"));
    assert_non_null(strstr(text, "6 sources, 4 baked, 0 failed, 2 refused for their name"));
    free(text);
    assert_int_equal(access(output_of("names_out", good[0]), F_OK), -1);
    for (size_t i = 1; i < 5; ++i) assert_int_equal(access(output_of("names_out", good[i]), F_OK), 0);
#undef CLIP
#undef WRITE_CLIP
}

/* --exclude leaves out the files and folders its shell patterns match ('*' stays within a
 * folder), before sharding and skeleton binding; the archive of a newly excluded source is
 * removed like that of a removed one. A failed bake's error line is in the summary and the
 * JSON row ("error"): the line `ossa bake` prints for that source alone. */
static void batch_excludes_and_reports_errors(void **state)
{
    (void)state;
    skip_without_ninja();
    static const char *files[] = {"ex/a.anim",     "ex/skip.anim",  "ex/sub/b.anim",
                                  "ex/sub/x.anim", "ex/wip/c.anim", "ex/wip/deeper/d.anim"};
    assert_int_equal(mkdir(ossa_test_scratch_path("ex"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("ex/sub"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("ex/wip"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("ex/wip/deeper"), 0700), 0);
    for (size_t i = 0; i < sizeof files / sizeof *files; ++i) write_maya(ossa_test_scratch_path(files[i]), 2, (int)i);
    /* A Maya clip whose first key value is not a number. */
    char bad[1024];
    snprintf(bad, sizeof bad, "%s", ossa_test_scratch_path("ex/bad.anim"));
    write_text(bad, "animVersion 1.1;\nanim rotate.rotateZ rotateZ b 0 0 0;\nanimData {\n keys {\n 0 x linear\n");
    /* The same one in a folder whose output folder is a symbolic link planted outside OUT_DIR:
     * the bake's error file lands there, and the batch reads it but removes nothing outside. */
    assert_int_equal(mkdir(ossa_test_scratch_path("ex/deep"), 0700), 0);
    write_text(ossa_test_scratch_path("ex/deep/bad2.anim"),
               "animVersion 1.1;\nanim rotate.rotateZ rotateZ b 0 0 0;\nanimData {\n keys {\n 0 x linear\n");
    assert_int_equal(mkdir(ossa_test_scratch_path("out_ex"), 0700), 0);
    assert_int_equal(mkdir(ossa_test_scratch_path("elsewhere"), 0700), 0);
    assert_int_equal(symlink(ossa_test_scratch_path("elsewhere"), ossa_test_scratch_path("out_ex/deep")), 0);
    char json[1024];
    snprintf(json, sizeof json, "%s", ossa_test_scratch_path("ex.json"));
    const char *extra[] = {"--exclude", "skip.anim", "--exclude", "*/x.anim", "--exclude", "wip/", "--json", json};
    char *text = NULL;
    assert_int_equal(batch_from("ex", "out_ex", extra, 8, &text), 1);
    assert_non_null(strstr(text, "4 sources, 2 baked, 2 failed"));
    assert_non_null(strstr(text, "deep/bad2.anim"));
    assert_int_equal(access(ossa_test_scratch_path("elsewhere/bad2.anim.ossa.err"), F_OK), 0);
    assert_int_equal(access(output_of("out_ex", "a.anim"), F_OK), 0);
    assert_int_equal(access(output_of("out_ex", "sub/b.anim"), F_OK), 0);
    static const char *left_out[] = {"skip.anim", "sub/x.anim", "wip/c.anim", "wip/deeper/d.anim", "bad.anim"};
    for (size_t i = 0; i < sizeof left_out / sizeof *left_out; ++i)
        assert_int_equal(access(output_of("out_ex", left_out[i]), F_OK), -1);
    /* The bake alone prints "ossa: <error>\n"; the summary says "failed: <error>". */
    char alone_out[1024];
    snprintf(alone_out, sizeof alone_out, "%s", ossa_test_scratch_path("alone_bad.ossa"));
    const char *alone[] = {bad, "-o", alone_out, "-q", "--threads", "1"};
    int status = -1;
    char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_bake, 6, alone, &status);
    assert_int_equal(status, 1);
    assert_true(!strncmp(err, "ossa: ", 6) && strchr(err, '\n') == err + strlen(err) - 1);
    assert_non_null(strstr(err, "at line 5:"));
    err[strlen(err) - 1] = '\0';
    char line[2048];
    snprintf(line, sizeof line, "bad.anim%*sfailed: %s\n", 17, "", err + 6);
    if (!strstr(text, line)) fail_msg("expected \"%s\" in:\n%s", line, text);
    free(text);
    /* No error file is left behind. */
    char err_file[1100];
    snprintf(err_file, sizeof err_file, "%s.err", output_of("out_ex", "bad.anim"));
    assert_int_equal(access(err_file, F_OK), -1);
#ifdef OSSA_HAVE_CJSON
    size_t size = 0;
    char *bytes = ossa_test_read_file(json, &size);
    assert_non_null(bytes);
    cJSON *root = cJSON_ParseWithLength(bytes, size);
    assert_non_null(root);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(root, "sources");
    assert_int_equal(cJSON_GetArraySize(list), 4);
    const cJSON *row = cJSON_GetArrayItem(list, 1);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(row, "source")->valuestring, "bad.anim");
    assert_true(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(row, "baked")));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(row, "error")->valuestring, err + 6);
    assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(list, 0), "error"));
    cJSON_Delete(root);
    free(bytes);
#endif
    free(err);

    /* '*' does not cross '/': '*.anim' excludes the top folder's clips only, and the archive
     * of a.anim, baked by the last run, is removed. A pattern that matches nothing is said. */
    char src[1024], out_dir[1024];
    snprintf(src, sizeof src, "%s", ossa_test_scratch_path("ex"));
    snprintf(out_dir, sizeof out_dir, "%s", ossa_test_scratch_path("out_ex"));
    const char *top[] = {src,         "-o",    out_dir,     "--ossa", getenv("OSSA_EXE"), "--exclude", "*.anim",
                         "--exclude", "*.fbx", "--exclude", "deep"};
    char *warnings = ossa_test_run_captured_fd(STDERR_FILENO, tool_batch, 11, top, &status);
    assert_int_equal(status, 0);
    char warning[2048];
    snprintf(warning, sizeof warning, "ossa: batch: warning: --exclude '*.fbx' matches nothing under %s", src);
    if (!strstr(warnings, warning) || strstr(warnings, "'*.anim' matches nothing"))
        fail_msg("expected \"%s\" (and no warning for '*.anim') in:\n%s", warning, warnings);
    free(warnings);
    assert_int_equal(access(output_of("out_ex", "a.anim"), F_OK), -1);
    assert_int_equal(access(output_of("out_ex", "sub/b.anim"), F_OK), 0);
    assert_int_equal(access(output_of("out_ex", "sub/x.anim"), F_OK), 0);
    assert_int_equal(access(output_of("out_ex", "wip/deeper/d.anim"), F_OK), 0);
}

/* A run holding OUT_DIR's lock makes a second run fail at once, naming the lock, and write
 * nothing; once it is released the run goes ahead. */
static void batch_lock_excludes_a_second_run(void **state)
{
    (void)state;
    skip_without_ninja();
    assert_int_equal(mkdir(ossa_test_scratch_path("locked"), 0700), 0);
    write_maya(ossa_test_scratch_path("locked/a.anim"), 3, 1);
    assert_int_equal(mkdir(ossa_test_scratch_path("locked_out"), 0700), 0);
    /* flock locks belong to an open file: this one conflicts with the batch's own open. */
    const int fd = open(ossa_test_scratch_path("locked_out/.ossa-batch.lock"), O_RDWR | O_CREAT, 0600);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    char *text = NULL, *errors = NULL;
    assert_int_equal(batch_errors("locked", "locked_out", NULL, 0, &text, &errors), 1);
    assert_non_null(strstr(errors, "locked_out/.ossa-batch.lock is locked: another ossa batch is running"));
    assert_non_null(strchr(errors, '\n'));
    assert_int_equal(strchr(errors, '\n')[1], '\0');
    free(text);
    free(errors);
    assert_int_equal(access(ossa_test_scratch_path("locked_out/build.ninja"), F_OK), -1);
    assert_int_equal(access(output_of("locked_out", "a.anim"), F_OK), -1);
    assert_int_equal(close(fd), 0);
    assert_int_equal(batch_from("locked", "locked_out", NULL, 0, &text), 0);
    free(text);
    assert_int_equal(access(output_of("locked_out", "a.anim"), F_OK), 0);
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
        cmocka_unit_test(batch_stores_metres),
        cmocka_unit_test(json_summary),
        cmocka_unit_test(batch_binds_skeletons),
        cmocka_unit_test(batch_removes_archives_of_removed_sources),
        cmocka_unit_test(batch_removes_nothing_outside_out_dir),
        cmocka_unit_test(batch_refuses_out_dir_in_src),
        cmocka_unit_test(batch_carries_awkward_names),
        cmocka_unit_test(batch_lock_excludes_a_second_run),
        cmocka_unit_test(batch_excludes_and_reports_errors),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
