/* Animation optimiser: key reduction on synthetic chains and on the pab clips. Errors are
 * measured independently: model-space positions of each joint and of its virtual vertices
 * sampled from both raw animations by the test's own scalar code (the optimiser's own bound,
 * without quantisation), and ossa_measure_error on the built optimised animation (with the
 * builder's quantisation, bounded by the formula in quantisation_bound below). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/offline/optimizer.h"
#include "ossa/skeleton.h"
#include "test_util.h"

enum { MAX_JOINTS = 128 };

/* ---- independent model-space evaluation ---- */

static void to_model(const ossa_raw_skeleton *skel, const ossa_transform *local, ossa_float4x4 *model)
{
    for (size_t j = 0; j < skel->joint_count; ++j) {
        const ossa_float4x4 m = ossa_float4x4_from_transform(&local[j]);
        const int p = skel->joints[j].parent;
        model[j] = p < 0 ? m : ossa_float4x4_mul(&model[p], &m);
    }
}

static double point_distance(const ossa_float4x4 *a, const ossa_float4x4 *b, float x, float y, float z)
{
    const double p[3] = {(double)x, (double)y, (double)z};
    double d2 = 0.;
    for (int r = 0; r < 3; ++r) {
        double pa = (double)a->cols[3][r], pb = (double)b->cols[3][r];
        for (int c = 0; c < 3; ++c) {
            pa += (double)a->cols[c][r] * p[c];
            pb += (double)b->cols[c][r] * p[c];
        }
        d2 += (pa - pb) * (pa - pb);
    }
    return sqrt(d2);
}

/* Largest distance between the two clips' positions of every joint and of its virtual
 * vertices (`shell` along each local axis), sampled at `rate` Hz; per joint in worst[] when
 * not NULL. */
static double raw_error(const ossa_raw_skeleton *skel, const ossa_raw_animation *a, const ossa_raw_animation *b,
                        float shell, float rate, double *worst)
{
    static ossa_transform la[MAX_JOINTS], lb[MAX_JOINTS];
    static ossa_float4x4 ma[MAX_JOINTS], mb[MAX_JOINTS];
    static double unused[MAX_JOINTS];
    const size_t n = skel->joint_count;
    assert_true(n <= MAX_JOINTS);
    double max = 0.;
    if (!worst) worst = unused;
    for (size_t j = 0; j < n; ++j) worst[j] = 0.;
    const size_t samples = (size_t)ceilf(a->duration * rate) + 1;
    for (size_t s = 0; s < samples; ++s) {
        const float t = fminf((float)s / rate, a->duration);
        assert_int_equal(ossa_raw_animation_sample(a, t, la, n), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(b, t, lb, n), OSSA_OK);
        to_model(skel, la, ma);
        to_model(skel, lb, mb);
        for (size_t j = 0; j < n; ++j) {
            for (int p = 0; p < 4; ++p) {
                const float d = shell;
                const double e = point_distance(&ma[j], &mb[j], p == 1 ? d : 0.f, p == 2 ? d : 0.f, p == 3 ? d : 0.f);
                worst[j] = fmax(worst[j], e);
                max = fmax(max, e);
            }
        }
    }
    return max;
}

/* Largest component error of a float3 stored as half floats. */
static double half_error(ossa_float3 v)
{
    const float c[3] = {v.x, v.y, v.z};
    double worst = 0.;
    for (int i = 0; i < 3; ++i)
        worst = fmax(worst, fabs((double)c[i] - (double)ossa_half_to_float(ossa_float_to_half(c[i]))));
    return worst;
}

/* Quantisation bound of ossa_animation_build for `raw` on `skel`, at points within `shell`
 * of every joint, from the builder's encodings; it also bounds any clip made of a subset of
 * raw's keys. Between keys the error is the interpolation of the keys' errors, so at most the
 * largest. Half floats (scales; translations with OSSA_TRANSLATION_HALF): the rounding error
 * of each key is computed (ossa_float_to_half). Ranged translations (the default): at most
 * half a step, (max - min) / 131070, per component of the track's range, plus float rounding
 * of the decoding (2^-23 of the largest magnitude). A translation error vector is at most
 * sqrt(3) times its largest component. A smallest-three rotation stores three
 * components within e = 1 / (32767 sqrt 2) (half a step) and rebuilds the largest (>= 1/2)
 * within 3e, so |dq| <= sqrt(12) e, which turns any vector v by at most
 * 2 sin(half angle) |v| <= 2 |dq| / (1 - |dq|) |v| (10 % margin for interpolating between two
 * quantised keys). Errors add along the chain, each scaled by the product of the ancestors'
 * largest scale components, with each joint's subtree radius taken from the keys: the
 * largest over children of |t_child| + |s_child| radius_child, at least the shell. */
static double quantisation_bound(const ossa_raw_skeleton *skel, const ossa_raw_animation *raw, float shell,
                                 ossa_translation_encoding encoding)
{
    const size_t n = skel->joint_count;
    double radius[MAX_JOINTS], tmax[MAX_JOINTS], smax[MAX_JOINTS], chain[MAX_JOINTS], sigma[MAX_JOINTS];
    double terr[MAX_JOINTS], serr[MAX_JOINTS];
    assert_true(n <= MAX_JOINTS);
    for (size_t j = 0; j < n; ++j) {
        const ossa_raw_joint_track *tr = &raw->tracks[j];
        tmax[j] = terr[j] = serr[j] = 0.;
        smax[j] = tr->scale_count ? 0. : 1.;
        double lo[3] = {HUGE_VAL, HUGE_VAL, HUGE_VAL}, hi[3] = {-HUGE_VAL, -HUGE_VAL, -HUGE_VAL};
        for (size_t k = 0; k < tr->translation_count; ++k) {
            const ossa_float3 v = tr->translations[k].value;
            const double c[3] = {(double)v.x, (double)v.y, (double)v.z};
            tmax[j] = fmax(tmax[j], sqrt(c[0] * c[0] + c[1] * c[1] + c[2] * c[2]));
            if (encoding == OSSA_TRANSLATION_HALF) terr[j] = fmax(terr[j], sqrt(3.) * half_error(v));
            for (int i = 0; i < 3; ++i) lo[i] = fmin(lo[i], c[i]), hi[i] = fmax(hi[i], c[i]);
        }
        for (int i = 0; encoding == OSSA_TRANSLATION_RANGED && tr->translation_count && i < 3; ++i) {
            const double step = (hi[i] - lo[i]) / 131070. + ldexp(fmax(fabs(lo[i]), fabs(hi[i])), -23);
            terr[j] = fmax(terr[j], sqrt(3.) * step);
        }
        for (size_t k = 0; k < tr->scale_count; ++k) {
            const ossa_float3 v = tr->scales[k].value;
            smax[j] = fmax(smax[j], fmax(fabs((double)v.x), fmax(fabs((double)v.y), fabs((double)v.z))));
            serr[j] = fmax(serr[j], half_error(v));
        }
        radius[j] = (double)shell;
    }
    for (size_t j = n; j-- > 0;) {
        const int p = skel->joints[j].parent;
        if (p >= 0) radius[p] = fmax(radius[p], tmax[j] + smax[j] * radius[j]);
    }
    const double e = 1. / (32767. * sqrt(2.)), dq = sqrt(12.) * e;
    const double turn = 1.1 * 2. * dq / (1. - dq);
    double worst = 0.;
    for (size_t j = 0; j < n; ++j) {
        const int p = skel->joints[j].parent;
        sigma[j] = p < 0 ? 1. : sigma[p] * smax[p];
        const double own = terr[j] + turn * smax[j] * radius[j] + serr[j] * radius[j];
        chain[j] = (p < 0 ? 0. : chain[p]) + sigma[j] * own;
        worst = fmax(worst, chain[j]);
    }
    return worst;
}

/* Channel c (0 translations, 1 rotations, 2 scales) of a track as bytes, count and key size. */
static const unsigned char *channel_keys(const ossa_raw_joint_track *tr, int c, size_t *count, size_t *size)
{
    *size = c == 1 ? sizeof(ossa_raw_quat_key) : sizeof(ossa_raw_float3_key);
    *count = c == 0 ? tr->translation_count : c == 1 ? tr->rotation_count : tr->scale_count;
    return c == 0 ? (const void *)tr->translations : c == 1 ? (const void *)tr->rotations : (const void *)tr->scales;
}

static size_t key_count(const ossa_raw_animation *a, int channel)
{
    size_t keys = 0, count, size;
    for (size_t t = 0; t < a->track_count; ++t) keys += (channel_keys(&a->tracks[t], channel, &count, &size), count);
    return keys;
}

static size_t track_keys(const ossa_raw_animation *a, size_t t)
{
    return a->tracks[t].translation_count + a->tracks[t].rotation_count + a->tracks[t].scale_count;
}

/* Every output key is an input key (same time and value, in order), first and last included
 * unless the channel was reduced to its first key. */
static void assert_subset(const ossa_raw_animation *in, const ossa_raw_animation *out)
{
    assert_int_equal(out->track_count, in->track_count);
    assert_true(out->duration == in->duration);
    assert_string_equal(out->name, in->name);
    for (size_t t = 0; t < in->track_count; ++t) {
        for (int c = 0; c < 3; ++c) {
            size_t na, nb, size, at = 0;
            const unsigned char *a = channel_keys(&in->tracks[t], c, &na, &size);
            const unsigned char *b = channel_keys(&out->tracks[t], c, &nb, &size);
            assert_true(nb <= na && (na == 0) == (nb == 0));
            for (size_t k = 0; k < nb; ++k, ++at) {
                while (at < na && memcmp(a + at * size, b + k * size, size) != 0) ++at;
                assert_true(at < na);
                if (k == 0) assert_int_equal(at, 0);
                if (k == nb - 1 && nb > 1) assert_int_equal(at, na - 1);
            }
        }
    }
}

/* ---- synthetic chains (metres) ---- */

/* A chain of `n` joints along x, `bone` apart; parent[] may make a tree. */
static void make_skeleton(ossa_raw_skeleton *skel, size_t n, const int *parent, float bone)
{
    assert_int_equal(ossa_raw_skeleton_create(skel, n, NULL), OSSA_OK);
    for (size_t j = 0; j < n; ++j) {
        skel->joints[j].parent = parent ? parent[j] : (int)j - 1;
        skel->joints[j].rest.translation.x = j ? bone : 0.f;
    }
}

static ossa_quat axis_angle(float x, float y, float z, float angle)
{
    const float s = sinf(.5f * angle), l = sqrtf(x * x + y * y + z * z);
    return (ossa_quat){x / l * s, y / l * s, z / l * s, cosf(.5f * angle)};
}

static ossa_quat nlerp(ossa_quat a, ossa_quat b, float u)
{
    return ossa_quat_normalize(
        (ossa_quat){a.x + (b.x - a.x) * u, a.y + (b.y - a.y) * u, a.z + (b.z - a.z) * u, a.w + (b.w - a.w) * u});
}

/* `keys` keys per channel over 2 s. Linear: every channel moves on the interpolation between
 * its first and last key. Otherwise smooth waves plus noise of `noise` radians / metres. The
 * root translates, every joint rotates, joint 1 (if any) scales; bones keep constant
 * translations `bone` along x. */
static void make_clip(ossa_raw_animation *raw, const ossa_raw_skeleton *skel, size_t keys, bool linear, float noise,
                      float bone, uint32_t seed)
{
    const size_t n = skel->joint_count;
    assert_int_equal(ossa_raw_animation_create(raw, n, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_set_name(raw, "synthetic"), OSSA_OK);
    raw->duration = 2.f;
    uint32_t s = seed;
    for (size_t j = 0; j < n; ++j) {
        assert_int_equal(ossa_raw_joint_track_resize(raw, j, keys, keys, j == 1 ? keys : 0), OSSA_OK);
        ossa_raw_joint_track *tr = &raw->tracks[j];
        const ossa_quat q0 = axis_angle(.2f, 1.f, .3f * (float)j, .1f), q1 = axis_angle(1.f, .1f, .5f, 1.2f);
        for (size_t k = 0; k < keys; ++k) {
            const float t = raw->duration * (float)k / (float)(keys - 1), u = t / raw->duration;
            ossa_float3 tv = {j ? bone : 0.f, 0.f, 0.f};
            ossa_quat q;
            ossa_float3 sv = {1.f + .2f * u, 1.f, 1.f - .1f * u};
            if (linear) {
                if (j == 0) tv = (ossa_float3){.8f * u, .1f, -.3f * u};
                q = nlerp(q0, q1, u);
            } else {
                const float w = 6.2831853f * u * (1.f + .3f * (float)j);
                if (j == 0)
                    tv = (ossa_float3){.8f * u + ossa_test_randf(&s, -noise, noise), .1f + .05f * sinf(w),
                                       ossa_test_randf(&s, -noise, noise)};
                q = ossa_quat_normalize(axis_angle(.3f, 1.f, .2f, .6f * sinf(w) + ossa_test_randf(&s, -noise, noise)));
                q = ossa_quat_mul(axis_angle(1.f, 0.f, .4f, .4f * cosf(1.7f * w)), q);
                sv.y = 1.f + .05f * sinf(w) + ossa_test_randf(&s, -noise, noise);
            }
            tr->translations[k] = (ossa_raw_float3_key){t, tv};
            tr->rotations[k] = (ossa_raw_quat_key){t, q};
            if (j == 1) tr->scales[k] = (ossa_raw_float3_key){t, sv};
        }
    }
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_animation_validate(raw, &diag), OSSA_OK);
}

static void test_linear_chain(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, out = {0};
    make_skeleton(&skel, 4, NULL, .3f);
    make_clip(&raw, &skel, 61, true, 0.f, .3f, 1);
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, &out, &diag), OSSA_OK);
    assert_subset(&raw, &out);
    /* Root translation and every rotation move linearly: first and last keys only. Bone
     * translations are constant: one key. Joint 1's scale is linear: two keys. */
    assert_int_equal(out.tracks[0].translation_count, 2);
    for (size_t j = 1; j < 4; ++j) assert_int_equal(out.tracks[j].translation_count, 1);
    for (size_t j = 0; j < 4; ++j) assert_int_equal(out.tracks[j].rotation_count, 2);
    assert_int_equal(out.tracks[1].scale_count, 2);
    assert_int_equal(out.tracks[0].scale_count, 0);
    /* Within the default tolerance; not 0: the original is a chain of short nlerps along the
     * arc, the kept one long nlerp, and nlerp's speed varies along an arc. */
    const double error = raw_error(&skel, &raw, &out, .03f, 480.f, NULL);
    print_message("linear chain: optimiser error %.5f mm\n", error * 1e3);
    assert_true(error <= (double)OSSA_OPTIMIZER_DEFAULT_TOLERANCE);
    ossa_raw_animation_destroy(&out);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* Built, measured by ossa_measure_error against the original raw clip. */
static ossa_error_report measure_built(const ossa_raw_skeleton *skel, const ossa_raw_animation *raw,
                                       const ossa_raw_animation *optimised, ossa_translation_encoding encoding,
                                       float shell, size_t *bytes)
{
    ossa_blob skel_blob = {0}, anim_blob = {0};
    ossa_diag diag = {0};
    const ossa_animation_build_desc build = {.translation_encoding = encoding};
    assert_int_equal(ossa_skeleton_build(skel, NULL, &skel_blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(optimised, &build, &anim_blob, &diag), OSSA_OK);
    ossa_skeleton runtime_skel;
    ossa_animation anim;
    assert_int_equal(ossa_skeleton_init(&runtime_skel, skel_blob.data, skel_blob.size), OSSA_OK);
    assert_int_equal(ossa_animation_init(&anim, anim_blob.data, anim_blob.size), OSSA_OK);
    ossa_error_report report;
    const ossa_error_desc desc = {.sample_rate = 60.f, .shell_distance = shell};
    assert_int_equal(ossa_measure_error(&runtime_skel, raw, &anim, &desc, &report, &diag), OSSA_OK);
    if (bytes) *bytes = anim_blob.size;
    ossa_blob_destroy(&anim_blob);
    ossa_blob_destroy(&skel_blob);
    return report;
}

static void test_noisy_chain(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, out = {0};
    make_skeleton(&skel, 5, NULL, .25f);
    make_clip(&raw, &skel, 121, false, .002f, .25f, 7);
    const ossa_optimizer_desc desc = {.tolerance = .001f, .shell_distance = .05f};
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, &desc, &out, &diag), OSSA_OK);
    assert_subset(&raw, &out);
    assert_true(key_count(&out, 1) < key_count(&raw, 1));
    assert_true(key_count(&out, 0) < key_count(&raw, 0));
    const double opt_error = raw_error(&skel, &raw, &out, desc.shell_distance, 960.f, NULL);
    assert_true(opt_error <= (double)desc.tolerance);
    for (int enc = 0; enc < 2; ++enc) {
        const ossa_translation_encoding encoding = enc ? OSSA_TRANSLATION_HALF : OSSA_TRANSLATION_RANGED;
        size_t bytes;
        const ossa_error_report rep = measure_built(&skel, &raw, &out, encoding, desc.shell_distance, &bytes);
        const double bound = quantisation_bound(&skel, &raw, desc.shell_distance, encoding);
        print_message("noisy chain (%s): keys %zu/%zu -> %zu/%zu, %zu bytes, optimiser error %.4f mm, built max "
                      "%.4f mm (bound %.4f + %.4f mm)\n",
                      enc ? "half" : "ranged", key_count(&raw, 0), key_count(&raw, 1), key_count(&out, 0),
                      key_count(&out, 1), bytes, opt_error * 1e3, (double)rep.max * 1e3, (double)desc.tolerance * 1e3,
                      bound * 1e3);
        assert_true((double)rep.max <= (double)desc.tolerance + bound);
    }
    ossa_raw_animation_destroy(&out);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* root -> spine -> arm -> {hand_a, hand_b}: the two hands move alike, so hand_b's default
 * tolerance keeps constraining the arm, spine and root when hand_a's is raised. */
static void test_override(void **state)
{
    (void)state;
    const int parent[5] = {-1, 0, 1, 2, 2};
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, base = {0}, loose = {0};
    make_skeleton(&skel, 5, parent, .2f);
    make_clip(&raw, &skel, 121, false, .003f, .2f, 3);
    ossa_raw_joint_track *a = &raw.tracks[3], *b = &raw.tracks[4];
    memcpy(b->rotations, a->rotations, a->rotation_count * sizeof *a->rotations);
    memcpy(b->translations, a->translations, a->translation_count * sizeof *a->translations);
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, &base, &diag), OSSA_OK);
    const ossa_joint_tolerance override = {3, .02f, 0.f};
    const ossa_optimizer_desc desc = {.overrides = &override, .override_count = 1};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, &desc, &loose, &diag), OSSA_OK);
    assert_subset(&raw, &loose);
    print_message("override: hand_a keys %zu -> %zu, hand_b %zu -> %zu\n", track_keys(&base, 3), track_keys(&loose, 3),
                  track_keys(&base, 4), track_keys(&loose, 4));
    assert_true(track_keys(&loose, 3) * 2 < track_keys(&base, 3));
    for (size_t j = 0; j < 5; ++j) {
        if (j == 3) continue;
        assert_int_equal(track_keys(&loose, j), track_keys(&base, j));
    }
    double worst[5];
    raw_error(&skel, &raw, &loose, .03f, 960.f, worst);
    for (size_t j = 0; j < 5; ++j) assert_true(worst[j] <= (j == 3 ? .02 : .0005));
    assert_true(worst[3] > .0005); /* the larger tolerance is used */
    ossa_raw_animation_destroy(&loose);
    ossa_raw_animation_destroy(&base);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* A skeleton in units of 25 cm (a power of two apart from metres, so every comparison
 * scales exactly) with unit_scale 0.25 keeps the same keys as the metre version. */
static void test_unit_scale(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, big = {0}, out_m = {0}, out_u = {0};
    make_skeleton(&skel, 4, NULL, .3f);
    make_clip(&raw, &skel, 91, false, .002f, .3f, 11);
    make_clip(&big, &skel, 91, false, .002f, .3f, 11);
    for (size_t j = 0; j < 4; ++j)
        for (size_t k = 0; k < big.tracks[j].translation_count; ++k) {
            ossa_float3 *v = &big.tracks[j].translations[k].value;
            v->x *= 4.f, v->y *= 4.f, v->z *= 4.f;
        }
    ossa_diag diag = {0};
    const ossa_optimizer_desc units = {.unit_scale = .25f};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, &out_m, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_optimize(&big, &skel, &units, &out_u, &diag), OSSA_OK);
    for (size_t j = 0; j < 4; ++j) {
        assert_int_equal(out_m.tracks[j].translation_count, out_u.tracks[j].translation_count);
        assert_int_equal(out_m.tracks[j].rotation_count, out_u.tracks[j].rotation_count);
        assert_int_equal(out_m.tracks[j].scale_count, out_u.tracks[j].scale_count);
    }
    assert_true(key_count(&out_m, 1) < key_count(&raw, 1));
    ossa_raw_animation_destroy(&out_u);
    ossa_raw_animation_destroy(&out_m);
    ossa_raw_animation_destroy(&big);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* Allocations through the desc's allocator, all released by destroy. */
static int live_blocks;
static void *count_alloc(size_t size, void *user)
{
    (void)user;
    ++live_blocks;
    return aligned_alloc(16, (size + 15) & ~(size_t)15);
}
static void count_free(void *ptr, void *user)
{
    (void)user;
    if (ptr) --live_blocks;
    free(ptr);
}

static void test_allocator(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, out = {0};
    make_skeleton(&skel, 3, NULL, .3f);
    make_clip(&raw, &skel, 31, false, .001f, .3f, 5);
    const ossa_allocator alloc = {count_alloc, count_free, NULL};
    const ossa_optimizer_desc desc = {.allocator = &alloc};
    ossa_diag diag = {0};
    live_blocks = 0;
    assert_int_equal(ossa_animation_optimize(&raw, &skel, &desc, &out, &diag), OSSA_OK);
    assert_true(live_blocks > 0);
    ossa_raw_animation_destroy(&out);
    assert_int_equal(live_blocks, 0);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* Extreme but valid input: huge translations, quaternions of norm 3e-6,
 * zero scales, empty and single-key channels. The result is a valid subset. */
static void test_extreme(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation raw = {0}, out = {0};
    make_skeleton(&skel, 4, NULL, .3f);
    assert_int_equal(ossa_raw_animation_create(&raw, 4, NULL), OSSA_OK);
    raw.duration = 1.f;
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 0, 5, 5, 5), OSSA_OK);
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 2, 1, 1, 1), OSSA_OK);
    assert_int_equal(ossa_raw_joint_track_resize(&raw, 3, 3, 3, 0), OSSA_OK);
    for (size_t k = 0; k < 5; ++k) {
        const float t = .25f * (float)k;
        raw.tracks[0].translations[k] = (ossa_raw_float3_key){t, {k % 2 ? 3e37f : -3e37f, 1e30f, 0.f}};
        raw.tracks[0].rotations[k] = (ossa_raw_quat_key){t, {2e-6f, 0.f, (float)k * 1e-6f, 2e-6f}};
        raw.tracks[0].scales[k] = (ossa_raw_float3_key){t, {0.f, 0.f, 0.f}};
    }
    raw.tracks[2].translations[0] = (ossa_raw_float3_key){.5f, {1.f, 2.f, 3.f}};
    raw.tracks[2].rotations[0] = (ossa_raw_quat_key){.5f, {0.f, 0.f, 1.f, 0.f}};
    raw.tracks[2].scales[0] = (ossa_raw_float3_key){.5f, {2.f, 2.f, 2.f}};
    for (size_t k = 0; k < 3; ++k) {
        raw.tracks[3].translations[k] = (ossa_raw_float3_key){.5f * (float)k, {(float)k, 0.f, 0.f}};
        raw.tracks[3].rotations[k] = (ossa_raw_quat_key){.5f * (float)k, {0.f, 0.f, k == 1 ? -1.f : 1.f, 0.f}};
    }
    ossa_diag diag = {0};
    const ossa_result r = ossa_animation_optimize(&raw, &skel, NULL, &out, &diag);
    if (r != OSSA_OK) print_message("%s\n", diag.message);
    assert_int_equal(r, OSSA_OK);
    assert_int_equal(ossa_raw_animation_validate(&out, &diag), OSSA_OK);
    assert_subset(&raw, &out);
    assert_int_equal(track_keys(&out, 1), 0);
    assert_int_equal(track_keys(&out, 2), 3);
    /* Joint 3 under zero scales moves nothing: its keys go. q and -q are one rotation. */
    assert_int_equal(out.tracks[3].translation_count, 1);
    assert_int_equal(out.tracks[3].rotation_count, 1);
    ossa_raw_animation_destroy(&out);
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&skel);
}

/* ---- invalid inputs ---- */

static void expect_error(const ossa_raw_animation *raw, const ossa_raw_skeleton *skel, const ossa_optimizer_desc *desc,
                         ossa_result code, size_t offset, const char *words)
{
    ossa_raw_animation out;
    memset(&out, 0xa5, sizeof out);
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_optimize(raw, skel, desc, &out, &diag), code);
    assert_int_equal(diag.code, code);
    assert_int_equal(diag.offset, offset);
    assert_non_null(strstr(diag.message, words));
    assert_null(out.tracks);
    assert_int_equal(out.track_count, 0);
    ossa_raw_animation_destroy(&out);
}

static void test_invalid(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0}, small = {0}, shuffled = {0};
    ossa_raw_animation raw = {0}, out = {0};
    make_skeleton(&skel, 3, NULL, .3f);
    make_skeleton(&small, 2, NULL, .3f);
    const int parent[3] = {-1, 2, 0}; /* joint 1's parent comes after it */
    make_skeleton(&shuffled, 3, parent, .3f);
    make_clip(&raw, &skel, 11, false, .001f, .3f, 9);
    ossa_diag diag = {0};

    assert_int_equal(ossa_animation_optimize(NULL, &skel, NULL, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_animation_optimize(&raw, NULL, NULL, &out, NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, NULL, NULL), OSSA_ERROR_NULL_ARGUMENT);
    expect_error(&raw, &small, NULL, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX, "3 tracks");
    expect_error(&raw, &shuffled, NULL, OSSA_ERROR_INVALID_SKELETON, SIZE_MAX, "depth-first");

    const ossa_optimizer_desc negative = {.tolerance = -1e-3f};
    expect_error(&raw, &skel, &negative, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "tolerance");
    const ossa_optimizer_desc nan_tol = {.tolerance = NAN};
    expect_error(&raw, &skel, &nan_tol, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "tolerance");
    const ossa_optimizer_desc inf_shell = {.shell_distance = INFINITY};
    expect_error(&raw, &skel, &inf_shell, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "shell_distance");
    const ossa_optimizer_desc bad_unit = {.unit_scale = -1.f};
    expect_error(&raw, &skel, &bad_unit, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "unit_scale");
    const ossa_optimizer_desc tiny_unit = {.unit_scale = 1e-45f};
    expect_error(&raw, &skel, &tiny_unit, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "infinite");

    const ossa_joint_tolerance overrides[2] = {{1, .01f, 0.f}, {3, .01f, 0.f}};
    const ossa_optimizer_desc far = {.overrides = overrides, .override_count = 2};
    expect_error(&raw, &skel, &far, OSSA_ERROR_INVALID_ARGUMENT, 1, "joint 3");
    const ossa_joint_tolerance nan_override = {2, 0.f, NAN};
    const ossa_optimizer_desc bad_override = {.overrides = &nan_override, .override_count = 1};
    expect_error(&raw, &skel, &bad_override, OSSA_ERROR_INVALID_ARGUMENT, 0, "override 0");
    const ossa_optimizer_desc no_array = {.override_count = 1};
    expect_error(&raw, &skel, &no_array, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, "override");

    /* The animation's own validation: a NaN key, named by track and key. */
    raw.tracks[2].rotations[4].value.y = NAN;
    ossa_raw_animation out2;
    memset(&out2, 0xa5, sizeof out2);
    diag = (ossa_diag){0};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, &out2, &diag), OSSA_ERROR_INVALID_KEY);
    assert_int_equal(diag.code, OSSA_ERROR_INVALID_KEY);
    assert_null(out2.tracks);
    raw.tracks[2].rotations[4].value.y = 0.f;

    /* In place is refused before anything is touched. */
    diag = (ossa_diag){0};
    assert_int_equal(ossa_animation_optimize(&raw, &skel, NULL, &raw, &diag), OSSA_ERROR_INVALID_ARGUMENT);
    assert_int_equal(raw.track_count, 3);
    assert_non_null(raw.tracks);

    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&shuffled);
    ossa_raw_skeleton_destroy(&small);
    ossa_raw_skeleton_destroy(&skel);
}

/* ---- reference clips ---- */

static bool import_file(const char *path, const char *shown, bool bvh, ossa_import_output *out)
{
    size_t size = 0;
    void *data = ossa_test_read_file(path, &size);
    if (!data) {
        print_message("skipped: %s not found\n", shown);
        return false;
    }
    ossa_diag diag = {0};
    ossa_result r;
    if (bvh) {
        const ossa_assimp_desc desc = {.format_hint = "bvh"};
        r = ossa_import_assimp(data, size, &desc, out, &diag);
    } else {
        r = ossa_import_ozz(data, size, NULL, out, &diag);
    }
    free(data);
    if (r == OSSA_ERROR_UNSUPPORTED_FORMAT && bvh) {
        print_message("skipped: this build has no assimp importer\n");
        return false;
    }
    assert_int_equal(r, OSSA_OK);
    return true;
}

/* Optimises with the defaults for `unit` metres per unit, builds, measures and prints. */
static void check_clip(const char *name, const ossa_raw_skeleton *skel, const ossa_raw_animation *raw, float unit)
{
    const ossa_optimizer_desc desc = {.unit_scale = unit};
    const float tolerance = OSSA_OPTIMIZER_DEFAULT_TOLERANCE / unit,
                shell = OSSA_OPTIMIZER_DEFAULT_SHELL_DISTANCE / unit;
    ossa_raw_animation out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_animation_optimize(raw, skel, &desc, &out, &diag), OSSA_OK);
    assert_subset(raw, &out);
    assert_true(key_count(&out, 1) < key_count(raw, 1));
    const double opt_error = raw_error(skel, raw, &out, shell, 240.f, NULL);
    const double mm = 1e3 * (double)unit; /* millimetres per skeleton unit */
    print_message("%s: keys T/R/S %zu/%zu/%zu -> %zu/%zu/%zu; optimiser alone max %.4f mm (tolerance %.4f)\n", name,
                  key_count(raw, 0), key_count(raw, 1), key_count(raw, 2), key_count(&out, 0), key_count(&out, 1),
                  key_count(&out, 2), opt_error * mm, (double)tolerance * mm);
    assert_true(opt_error <= (double)tolerance * 1.0001);
    for (int enc = 0; enc < 2; ++enc) {
        const ossa_translation_encoding encoding = enc ? OSSA_TRANSLATION_HALF : OSSA_TRANSLATION_RANGED;
        size_t raw_bytes, bytes;
        const ossa_error_report q = measure_built(skel, raw, raw, encoding, shell, &raw_bytes);
        const ossa_error_report s = measure_built(skel, raw, &out, encoding, shell, &bytes);
        const ossa_error_report j = measure_built(skel, raw, &out, encoding, 0.f, NULL);
        const double bound = quantisation_bound(skel, raw, shell, encoding);
        print_message("%s (%s translations): built %zu -> %zu bytes; at %.3g shell: max %.4f p99 %.4f mean %.4f; "
                      "joints: max %.4f p99 %.4f mean %.4f; unoptimised max %.4f; quantisation bound %.4f [mm]\n",
                      name, enc ? "half" : "ranged", raw_bytes, bytes, (double)shell, (double)s.max * mm,
                      (double)s.p99 * mm, (double)s.mean * mm, (double)j.max * mm, (double)j.p99 * mm,
                      (double)j.mean * mm, (double)q.max * mm, bound * mm);
        assert_true((double)s.max <= (double)tolerance + bound);
    }
    ossa_raw_animation_destroy(&out);
}

static void test_pab(void **state)
{
    (void)state;
    ossa_import_output skel = {0};
    if (!import_file(ossa_test_shared_path("ozz/pab_skeleton.ozz"), "../shared/data/ozz/pab_skeleton.ozz", false,
                     &skel)) {
        skip();
        return;
    }
    assert_true(ossa_raw_skeleton_is_depth_first(&skel.skeleton));
    const char *const clips[4] = {"walk", "jog", "run", "atlas"};
    int done = 0;
    for (int c = 0; c < 4; ++c) {
        char rel[64], shown[96];
        snprintf(rel, sizeof rel, "ozz/pab_%s_raw.ozz", clips[c]);
        snprintf(shown, sizeof shown, "../shared/data/%s", rel);
        ossa_import_output clip = {0};
        if (!import_file(ossa_test_shared_path(rel), shown, false, &clip)) continue;
        assert_int_equal(clip.animation_count, 1);
        check_clip(clips[c], &skel.skeleton, &clip.animations[0], 1.f);
        ossa_import_output_destroy(&clip);
        ++done;
    }
    ossa_import_output_destroy(&skel);
    if (!done) skip();
}

/* CMU 01_01 is in CMU's units of (1 / 0.45) inch = 5.64 cm. */
static void test_cmu_bvh(void **state)
{
    (void)state;
    ossa_import_output in = {0};
    if (!import_file(ossa_test_assimp_path("BVH/01_01.bvh"), "/usr/share/assimp/models/BVH/01_01.bvh", true, &in)) {
        skip();
        return;
    }
    assert_int_equal(in.animation_count, 1);
    check_clip("cmu 01_01", &in.skeleton, &in.animations[0], .0254f / .45f);
    ossa_import_output_destroy(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_chain), cmocka_unit_test(test_noisy_chain), cmocka_unit_test(test_override),
        cmocka_unit_test(test_unit_scale),   cmocka_unit_test(test_allocator),   cmocka_unit_test(test_extreme),
        cmocka_unit_test(test_invalid),      cmocka_unit_test(test_pab),         cmocka_unit_test(test_cmu_bvh),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
