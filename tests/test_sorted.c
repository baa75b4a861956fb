/* The sorted-key layout (OSSA_ANIMATION_FLAG_SORTED_KEYS, ossa_animation_build_desc.layout):
 * pab clips built both ways measured against the source (ossa_measure_error) and against each
 * other in model space at forward, backward and random ratios; a context that plays a sequence
 * against one rebuilt from scratch at every call (the cursor and the iframes must not change a
 * pose); context sizes; corrupt blobs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/local_to_model_job.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/sampling_job.h"
#include "ossa/skeleton.h"
#include "test_util.h"

#define TOLERANCE 0.0001f /* metres, with 3 cm virtual vertices */
#define SHELL     0.03f

typedef struct clip {
    ossa_import_output out;
    ossa_blob skel_blob, packed_blob, sorted_blob;
    ossa_skeleton skel;
    ossa_animation packed, sorted;
    ossa_soa_transform *rest;
} clip;

static void *aligned_zero(size_t size)
{
    const size_t rounded = (size + 15) & ~(size_t)15;
    void *p = aligned_alloc(16, rounded ? rounded : 16);
    assert_non_null(p);
    memset(p, 0, rounded ? rounded : 16);
    return p;
}

static void import_ozz_file(const char *name, ossa_import_output *out)
{
    char relative[64], shown[96];
    snprintf(relative, sizeof relative, "ozz/%s", name);
    snprintf(shown, sizeof shown, "DATA/ozz/%s", name);
    size_t size;
    void *data = ossa_test_read_or_skip(ossa_test_shared_path(relative), shown, &size);
    ossa_diag diag = {0};
    *out = (ossa_import_output){0};
    if (ossa_import_ozz(data, size, NULL, out, &diag) != OSSA_OK) fail_msg("%s: %s", name, diag.message);
    free(data);
}

static void build(const ossa_import_output *out, int layout, ossa_blob *blob, ossa_animation *anim)
{
    const ossa_animation_build_desc desc = {.skeleton = &out->skeleton,
                                            .tolerance = TOLERANCE,
                                            .shell_distance = SHELL,
                                            .unit_scale = 1.f,
                                            .layout = layout};
    ossa_diag diag = {0};
    if (ossa_animation_build(&out->animations[0], &desc, blob, &diag) != OSSA_OK) fail_msg("build: %s", diag.message);
    assert_int_equal(ossa_animation_init(anim, blob->data, blob->size), OSSA_OK);
}

static void load_clip(const char *name, clip *c)
{
    memset(c, 0, sizeof *c);
    ossa_import_output skel = {0};
    import_ozz_file("pab_skeleton.ozz", &skel);
    import_ozz_file(name, &c->out);
    c->out.skeleton = skel.skeleton;
    skel.skeleton = (ossa_raw_skeleton){0};
    ossa_import_output_destroy(&skel);
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_output_sort_depth_first(&c->out, &diag), OSSA_OK);
    assert_int_equal(ossa_skeleton_build(&c->out.skeleton, NULL, &c->skel_blob, &diag), OSSA_OK);
    assert_int_equal(ossa_skeleton_init(&c->skel, c->skel_blob.data, c->skel_blob.size), OSSA_OK);
    build(&c->out, OSSA_ANIMATION_LAYOUT_PACKED, &c->packed_blob, &c->packed);
    build(&c->out, OSSA_ANIMATION_LAYOUT_SORTED, &c->sorted_blob, &c->sorted);
    assert_true(c->sorted.flags & OSSA_ANIMATION_FLAG_SORTED_KEYS);
    assert_false(c->packed.flags & OSSA_ANIMATION_FLAG_SORTED_KEYS);
    c->rest = (ossa_soa_transform *)c->skel.rest_pose;
}

static void free_clip(clip *c)
{
    ossa_blob_destroy(&c->packed_blob);
    ossa_blob_destroy(&c->sorted_blob);
    ossa_blob_destroy(&c->skel_blob);
    ossa_import_output_destroy(&c->out);
}

/* A context of exactly the size the sizing function gives (the sanitizer build catches a byte
 * too few). */
static ossa_sampling_context *context_for(const ossa_animation *a, void **mem)
{
    const size_t size = ossa_sampling_context_size_for(a);
    assert_true(size > 0);
    *mem = aligned_alloc(16, size);
    assert_non_null(*mem);
    ossa_sampling_context *ctx = ossa_sampling_context_init_for(*mem, size, a);
    assert_non_null(ctx);
    return ctx;
}

static void sample(const clip *c, const ossa_animation *a, ossa_sampling_context *ctx, float ratio,
                   ossa_soa_transform *pose)
{
    const ossa_sampling_job job = {a, ctx, ratio, pose, c->skel.soa_count, c->rest, c->skel.soa_count};
    assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
}

static void model(const clip *c, const ossa_soa_transform *pose, ossa_float4x4 *out)
{
    const ossa_local_to_model_job job = {.skeleton = &c->skel,
                                         .input = pose,
                                         .input_count = c->skel.soa_count,
                                         .output = out,
                                         .output_count = c->skel.joint_count};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
}

/* The ratios of one access pattern: 0 forward at 240 Hz, 1 backward, 2 random. */
static size_t ratios_of(int pattern, float duration, float *r, size_t max)
{
    size_t n = (size_t)(duration * 240.f) + 1;
    if (n > max) n = max;
    uint32_t seed = 12345u;
    for (size_t i = 0; i < n; ++i) {
        const float f = (float)i / (float)(n - 1);
        r[i] = pattern == 0 ? f : (pattern == 1 ? 1.f - f : ossa_test_randf(&seed, 0.f, 1.f));
    }
    return n;
}

static void check_clip(const char *name)
{
    clip c;
    load_clip(name, &c);
    /* Against the source: the same measurement as the builder's final check. */
    ossa_error_report rep;
    ossa_diag diag = {0};
    const ossa_error_desc ed = {.shell_distance = SHELL, .source_times = 1};
    assert_int_equal(ossa_measure_error(&c.skel, &c.out.animations[0], &c.sorted, &ed, &rep, &diag), OSSA_OK);
    print_message("%s: sorted %zu bytes, packed %zu bytes; sorted max error %.4g mm\n", name, c.sorted_blob.size,
                  c.packed_blob.size, (double)rep.max * 1e3);
    assert_true(rep.max <= TOLERANCE);
    void *m_sorted, *m_fresh, *m_packed;
    ossa_sampling_context *ctx = context_for(&c.sorted, &m_sorted);
    ossa_sampling_context *fresh = context_for(&c.sorted, &m_fresh);
    ossa_sampling_context *pctx = context_for(&c.packed, &m_packed);
    const size_t S = c.skel.soa_count, J = c.skel.joint_count;
    ossa_soa_transform *p0 = aligned_zero(S * sizeof *p0), *p1 = aligned_zero(S * sizeof *p1),
                       *p2 = aligned_zero(S * sizeof *p2);
    ossa_float4x4 *m0 = aligned_zero(J * sizeof *m0), *m2 = aligned_zero(J * sizeof *m2);
    static float r[8192];
    float worst = 0.f;
    for (int pattern = 0; pattern < 3; ++pattern) {
        const size_t n = ratios_of(pattern, c.sorted.duration, r, sizeof r / sizeof *r);
        for (size_t i = 0; i < n; ++i) {
            sample(&c, &c.sorted, ctx, r[i], p0);
            ossa_sampling_context_invalidate(fresh);
            sample(&c, &c.sorted, fresh, r[i], p1);
            /* The cursor and the iframes give the pose a context decoding from scratch gives. */
            if (memcmp(p0, p1, S * sizeof *p0) != 0)
                fail_msg("%s: pattern %d ratio %g: cursor pose differs", name, pattern, (double)r[i]);
            sample(&c, &c.packed, pctx, r[i], p2);
            model(&c, p0, m0), model(&c, p2, m2);
            for (size_t j = 0; j < J; ++j)
                for (int k = 0; k < 3; ++k) {
                    const float d = fabsf(m0[j].cols[3][k] - m2[j].cols[3][k]);
                    if (d > worst) worst = d;
                }
        }
    }
    print_message("%s: largest joint distance between the layouts %.4g mm\n", name, (double)worst * 1e3);
    /* Each is within the tolerance of the source at its measured times (virtual vertices 3 cm
     * out bound the joint too); between them both interpolate neighbouring keys. */
    assert_true(worst <= 2.f * TOLERANCE);
    free(m_sorted), free(m_fresh), free(m_packed);
    free(p0), free(p1), free(p2), free(m0), free(m2);
    free_clip(&c);
}

static void test_walk(void **state)
{
    (void)state;
    check_clip("pab_walk_raw.ozz");
}

static void test_jog(void **state)
{
    (void)state;
    check_clip("pab_jog_raw.ozz");
}

/* Context sizes: the sorted size is enough, smaller is refused; a packed-layout context
 * (ossa_sampling_context_init) also samples a sorted clip, and one context alternating between
 * the layouts gives the poses of two separate ones. */
static void test_contexts(void **state)
{
    (void)state;
    clip c;
    load_clip("pab_walk_raw.ozz", &c);
    const size_t size = ossa_sampling_context_size_for(&c.sorted);
    print_message("walk: sorted context %zu bytes, packed %zu (%zu with the playback cache)\n", size,
                  ossa_sampling_context_size_for(&c.packed), ossa_sampling_context_playback_size_for(&c.packed));
    assert_int_equal(ossa_sampling_context_playback_size_for(&c.sorted), size);
    assert_int_equal(ossa_sampling_context_recommended_size_for(&c.sorted), size);
    assert_false(ossa_sampling_context_cache_pays(&c.sorted));
    void *mem = aligned_alloc(16, size);
    assert_null(ossa_sampling_context_init_for(mem, size - 16, &c.sorted));
    assert_null(ossa_sampling_context_init_for(mem, size - 1, &c.sorted));
    ossa_sampling_context *ctx = ossa_sampling_context_init_for(mem, size, &c.sorted);
    assert_non_null(ctx);
    const size_t S = c.skel.soa_count;
    ossa_soa_transform *p0 = aligned_zero(S * sizeof *p0), *p1 = aligned_zero(S * sizeof *p1);
    /* A sorted-only context cannot sample the packed clip; nothing is written. */
    memset(p0, 0x5a, S * sizeof *p0);
    memset(p1, 0x5a, S * sizeof *p1);
    const ossa_sampling_job packed_job = {&c.packed, ctx, .5f, p0, S, c.rest, S};
    assert_int_equal(ossa_sampling_job_run(&packed_job), OSSA_ERROR_CONTEXT_TOO_SMALL);
    assert_memory_equal(p0, p1, S * sizeof *p0);
    /* A packed context for the skeleton's joints, alternating layouts. */
    const size_t big = ossa_sampling_context_size(c.skel.joint_count);
    void *mem2 = aligned_alloc(16, big);
    ossa_sampling_context *shared = ossa_sampling_context_init(mem2, big, c.skel.joint_count);
    void *m3;
    ossa_sampling_context *pctx = context_for(&c.packed, &m3);
    ossa_soa_transform *p2 = aligned_zero(S * sizeof *p2);
    for (int i = 0; i <= 60; ++i) {
        const float ratio = (float)i / 60.f;
        sample(&c, &c.sorted, ctx, ratio, p0);
        sample(&c, &c.sorted, shared, ratio, p1);
        assert_memory_equal(p0, p1, S * sizeof *p0);
        sample(&c, &c.packed, pctx, ratio, p0);
        sample(&c, &c.packed, shared, ratio, p2);
        assert_memory_equal(p0, p2, S * sizeof *p0);
    }
    free(mem), free(mem2), free(m3), free(p0), free(p1), free(p2);
    free_clip(&c);
}

/* Key k of a blob copy that `a` views (the view points into the copy). */
static uint8_t *key_at(uint8_t *b, const ossa_animation *a, size_t k)
{
    (void)b;
    return (uint8_t *)(uintptr_t)(a->data + 10 * k);
}

static ossa_result init_copy(const uint8_t *bytes, size_t size, void (*edit)(uint8_t *, const ossa_animation *))
{
    uint8_t *copy = aligned_zero(size);
    memcpy(copy, bytes, size);
    ossa_animation a;
    assert_int_equal(ossa_animation_init(&a, copy, size), OSSA_OK);
    if (edit) edit(copy, &a);
    const ossa_result r = ossa_animation_init(&a, copy, size);
    free(copy);
    return r;
}

static void put16(uint8_t *p, uint32_t v) { p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8); }
static uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }

static void slot_past_end(uint8_t *b, const ossa_animation *a)
{
    uint8_t *k = key_at(b, a, 2 * a->animated_count + 7);
    put16(k + 2, (get16(k + 2) & ~0xfffu) | (uint32_t)a->animated_count);
}
static void slot_swapped(uint8_t *b, const ossa_animation *a)
{
    uint8_t *k = key_at(b, a, 2 * a->animated_count + 7);
    const uint32_t slot = get16(k + 2) & 0xfffu;
    put16(k + 2, (get16(k + 2) & ~0xfffu) | (slot + 1) % (uint32_t)a->animated_count);
}
static void frame_past_end(uint8_t *b, const ossa_animation *a)
{
    put16(key_at(b, a, a->key_count - 1), (uint32_t)a->frame_count);
}
static void first_key_late(uint8_t *b, const ossa_animation *a) { put16(key_at(b, a, 3), 1); }
static void keys_swapped(uint8_t *b, const ossa_animation *a)
{
    /* The last key (needed last) moved to the front of the sorted run. */
    uint8_t t[10], *k = key_at(b, a, 2 * a->animated_count), *l = key_at(b, a, a->key_count - 1);
    memcpy(t, k, 10), memcpy(k, l, 10), memcpy(l, t, 10);
}
static void iframe_cursor(uint8_t *b, const ossa_animation *a)
{
    (void)b;
    ((uint8_t *)(uintptr_t)a->iframes)[0] ^= 1;
}
static void iframe_key(uint8_t *b, const ossa_animation *a)
{
    (void)b;
    ((uint8_t *)(uintptr_t)a->iframes)[4 * (1 + a->animated_count)] ^= 1; /* the first slot's right key */
}
static void interval_small(uint8_t *b, const ossa_animation *a) { (void)a, b[44] = 3, b[45] = 0; }
static void interval_other(uint8_t *b, const ossa_animation *a) { (void)a, b[44] = (uint8_t)(b[44] * 2); }
static void unknown_flag(uint8_t *b, const ossa_animation *a) { (void)a, b[12] |= 4; }
static void rotation_bit15(uint8_t *b, const ossa_animation *a)
{
    for (size_t k = 0; k < a->key_count; ++k) {
        uint8_t *p = key_at(b, a, k);
        if (get16(p + 2) >> 12) { /* a rotation key with a nonzero drop index or sign */
            p[3] |= 0x80;
            return;
        }
    }
    fail_msg("%s", "no rotation key found");
}
static void range_nan(uint8_t *b, const ossa_animation *a)
{
    (void)b;
    uint8_t *r = (uint8_t *)(uintptr_t)a->ranges;
    const float nan = NAN;
    memcpy(r + 12, &nan, 4); /* the first step */
}

/* Corrupt and truncated sorted blobs return the documented error; the view is zeroed. */
static void test_corrupt(void **state)
{
    (void)state;
    clip c;
    load_clip("pab_walk_raw.ozz", &c);
    const uint8_t *bytes = c.sorted_blob.data;
    const size_t size = c.sorted_blob.size;
    assert_true(c.sorted.segment_count > 0); /* the edits below reach an iframe */
    assert_int_equal(init_copy(bytes, size, NULL), OSSA_OK);
    /* Truncated: in the header, the ranges, the iframes, the keys, the name. */
    const size_t cuts[5] = {40, (size_t)((const uint8_t *)c.sorted.ranges - bytes) + 2,
                            (size_t)((const uint8_t *)c.sorted.iframes - bytes) + 9,
                            (size_t)(c.sorted.data - bytes) + 10 * c.sorted.key_count / 2,
                            (size_t)((const uint8_t *)c.sorted.name - bytes) + 1};
    for (int i = 0; i < 5; ++i) {
        uint8_t *copy = aligned_zero(cuts[i]);
        memcpy(copy, bytes, cuts[i]);
        ossa_animation a;
        memset(&a, 0x5a, sizeof a);
        assert_int_equal(ossa_animation_init(&a, copy, cuts[i]), OSSA_ERROR_TRUNCATED);
        assert_null(a.kinds);
        free(copy);
    }
    void (*const edits[])(uint8_t *, const ossa_animation *) = {
        slot_past_end, slot_swapped,   frame_past_end, first_key_late, keys_swapped,   iframe_cursor,
        iframe_key,    interval_small, interval_other, unknown_flag,   rotation_bit15, range_nan};
    for (size_t i = 0; i < sizeof edits / sizeof *edits; ++i)
        if (init_copy(bytes, size, edits[i]) != OSSA_ERROR_INVALID_ANIMATION) fail_msg("edit %zu accepted", i);
    free_clip(&c);
}

/* The fuzz corpus's sorted seeds, as the animation fuzz target opens them: the good one loads
 * and samples with a packed-layout context at any ratio order, the regressions are refused. */
static void test_corpus(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        ossa_result expected;
    } files[3] = {{"pab_jog_sorted", OSSA_OK},
                  {"regression_sorted_slot_past_end", OSSA_ERROR_INVALID_ANIMATION},
                  {"regression_sorted_iframe_cursor", OSSA_ERROR_INVALID_ANIMATION}};
    const char *src = getenv("OSSA_SOURCE_DIR");
    assert_non_null(src);
    for (int i = 0; i < 3; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/tests/fuzz/corpus/animation/%s", src, files[i].name);
        size_t size;
        void *data = ossa_test_read_file(path, &size);
        assert_non_null(data);
        uint8_t *copy = aligned_zero(size);
        memcpy(copy, data, size);
        ossa_animation a;
        assert_int_equal(ossa_animation_init(&a, copy, size), files[i].expected);
        if (files[i].expected == OSSA_OK) {
            assert_true(a.flags & OSSA_ANIMATION_FLAG_SORTED_KEYS);
            const size_t bytes = ossa_sampling_context_size(a.track_count);
            void *mem = aligned_alloc(16, bytes);
            ossa_sampling_context *ctx = ossa_sampling_context_init(mem, bytes, a.track_count);
            ossa_soa_transform *pose = aligned_zero(a.soa_count * sizeof *pose);
            ossa_soa_transform *rest = aligned_zero(a.soa_count * sizeof *rest);
            for (size_t g = 0; g < a.soa_count; ++g) ossa_soa_transform_set_identity(&rest[g]);
            static const float ratios[] = {0.f, .1f, .2f, .21f, .9f, 1.f, .95f, .5f, .49f, .03f, .77f, 0.f};
            for (size_t r = 0; r < sizeof ratios / sizeof *ratios; ++r) {
                const ossa_sampling_job job = {&a, ctx, ratios[r], pose, a.soa_count, rest, a.soa_count};
                assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
            }
            free(mem), free(pose), free(rest);
        }
        free(copy);
        free(data);
    }
}

/* Builder arguments: no lossless sorted build, no unknown layout. */
static void test_build_desc(void **state)
{
    (void)state;
    clip c;
    memset(&c, 0, sizeof c);
    ossa_import_output skel = {0};
    import_ozz_file("pab_skeleton.ozz", &skel);
    import_ozz_file("pab_walk_raw.ozz", &c.out);
    ossa_blob blob = {0};
    ossa_diag diag = {0};
    ossa_animation_build_desc desc = {.layout = OSSA_ANIMATION_LAYOUT_SORTED};
    assert_int_equal(ossa_animation_build(&c.out.animations[0], &desc, &blob, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(diag.message, "needs a tolerance"));
    assert_null(blob.data);
    desc.layout = 2;
    assert_int_equal(ossa_animation_build(&c.out.animations[0], &desc, &blob, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_import_output_destroy(&skel);
    ossa_import_output_destroy(&c.out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),    cmocka_unit_test(test_jog),        cmocka_unit_test(test_contexts),
        cmocka_unit_test(test_corrupt), cmocka_unit_test(test_build_desc), cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
