/* Blending job against a scalar double-precision reference of the documented formulas
 * (ossa/blending_job.h), plus exactness properties and every error code. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/blending_job.h"
#include "test_util.h"

enum { JOINTS = 10, GROUPS = (JOINTS + 3) / 4, LANES = GROUPS * 4, MAX_LAYERS = 12 };

/* One layer for the reference: an AoS pose per joint and optional joint factors. */
typedef struct ref_layer {
    float weight;
    const ossa_transform *pose; /* [LANES] */
    const float *factors;       /* [LANES] or NULL */
} ref_layer;

typedef struct dq {
    double x, y, z, w;
} dq;

static dq to_dq(ossa_quat q) { return (dq){(double)q.x, (double)q.y, (double)q.z, (double)q.w}; }
static void to_d3(ossa_float3 v, double out[3]) { out[0] = (double)v.x, out[1] = (double)v.y, out[2] = (double)v.z; }
static dq dq_normalize(dq q)
{
    const double l = sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
    return (dq){q.x / l, q.y / l, q.z / l, q.w / l};
}
static dq dq_mul(dq a, dq b)
{
    return (dq){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
                a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

/* Reference blend of joint j, in double. t, s as [3]; q. */
static void reference(const ref_layer *layers, size_t nl, const ref_layer *adds, size_t na, const ossa_transform *rest,
                      float threshold, size_t j, double t[3], dq *q, double s[3])
{
    const double thr = threshold > 0.f ? (double)threshold : 0.1;
    double w_sum = 0.0;
    bool any = false;
    dq acc = {0, 0, 0, 0};
    t[0] = t[1] = t[2] = s[0] = s[1] = s[2] = 0.0;
    for (size_t i = 0; i <= nl; ++i) {
        const ossa_transform *p;
        double w;
        if (i < nl) {
            if (!(layers[i].weight > 0.f)) continue;
            any = true;
            const double f = layers[i].factors ? (double)layers[i].factors[j] : 1.0;
            w = (double)layers[i].weight * (f > 0.0 ? f : 0.0);
            p = &layers[i].pose[j];
        } else {
            if (!any || w_sum >= thr) break;
            w = thr - w_sum;
            p = &rest[j];
        }
        const dq in = to_dq(p->rotation);
        const double sign = acc.x * in.x + acc.y * in.y + acc.z * in.z + acc.w * in.w < 0.0 ? -1.0 : 1.0;
        acc = (dq){acc.x + sign * w * in.x, acc.y + sign * w * in.y, acc.z + sign * w * in.z, acc.w + sign * w * in.w};
        double pt[3], ps[3];
        to_d3(p->translation, pt), to_d3(p->scale, ps);
        for (int c = 0; c < 3; ++c) t[c] += w * pt[c], s[c] += w * ps[c];
        w_sum += w;
    }
    if (!any) {
        const ossa_transform *r = &rest[j];
        to_d3(r->translation, t), to_d3(r->scale, s);
        *q = to_dq(r->rotation);
    } else {
        for (int c = 0; c < 3; ++c) t[c] /= w_sum, s[c] /= w_sum;
        *q = dq_normalize(acc);
    }
    for (size_t i = 0; i < na; ++i) {
        if (adds[i].weight == 0.f) continue;
        const double f = adds[i].factors ? (double)adds[i].factors[j] : 1.0;
        const double a = (double)adds[i].weight * (f > 0.0 ? f : 0.0), b = fabs(a);
        const ossa_transform *d = &adds[i].pose[j];
        dq delta = to_dq(d->rotation);
        if (delta.w < 0.0) delta = (dq){-delta.x, -delta.y, -delta.z, -delta.w};
        dq iq = dq_normalize((dq){delta.x * b, delta.y * b, delta.z * b, (delta.w - 1.0) * b + 1.0});
        if (a < 0.0) iq = (dq){-iq.x, -iq.y, -iq.z, iq.w};
        *q = dq_mul(*q, iq);
        double dt[3], ds[3];
        to_d3(d->translation, dt), to_d3(d->scale, ds);
        for (int c = 0; c < 3; ++c) {
            t[c] += a * dt[c];
            const double ls = 1.0 + (ds[c] - 1.0) * b;
            s[c] = a < 0.0 ? s[c] / ls : s[c] * ls;
        }
    }
}

static void random_pose(ossa_transform *pose, uint32_t *seed, float scale_lo)
{
    for (size_t j = 0; j < LANES; ++j) {
        pose[j].translation = (ossa_float3){ossa_test_randf(seed, -2.f, 2.f), ossa_test_randf(seed, -2.f, 2.f),
                                            ossa_test_randf(seed, -2.f, 2.f)};
        const ossa_quat q = {ossa_test_randf(seed, -1.f, 1.f), ossa_test_randf(seed, -1.f, 1.f),
                             ossa_test_randf(seed, -1.f, 1.f), ossa_test_randf(seed, -1.f, 1.f)};
        pose[j].rotation = ossa_quat_normalize(q);
        pose[j].scale = (ossa_float3){ossa_test_randf(seed, scale_lo, 2.f), ossa_test_randf(seed, scale_lo, 2.f),
                                      ossa_test_randf(seed, scale_lo, 2.f)};
    }
}

static void to_soa(const ossa_transform *pose, ossa_soa_transform *soa)
{
    for (size_t j = 0; j < LANES; ++j) ossa_soa_transform_set(&soa[j / 4], (int)(j % 4), &pose[j]);
}

/* Largest differences between the job and the reference over every joint: translation and
 * scale relative to max(1, |exact|), rotation components absolute (after matching signs). */
typedef struct errors {
    double t, s, q;
} errors;

/* Runs the job over ref layers converted to SoA and returns its errors against the reference. */
static errors measure_against_reference(const ref_layer *layers, size_t nl, const ref_layer *adds, size_t na,
                                        const ossa_transform *rest, float threshold)
{
    static ossa_soa_transform soa_rest[GROUPS], soa_layers[MAX_LAYERS][GROUPS], soa_adds[MAX_LAYERS][GROUPS],
        out[GROUPS];
    ossa_blend_layer bl[MAX_LAYERS], ba[MAX_LAYERS];
    assert_true(nl <= MAX_LAYERS && na <= MAX_LAYERS);
    to_soa(rest, soa_rest);
    for (size_t i = 0; i < nl; ++i) {
        to_soa(layers[i].pose, soa_layers[i]);
        const size_t count = layers[i].factors ? LANES : 0;
        bl[i] = (ossa_blend_layer){layers[i].weight, soa_layers[i], GROUPS, layers[i].factors, count};
    }
    for (size_t i = 0; i < na; ++i) {
        to_soa(adds[i].pose, soa_adds[i]);
        ba[i] = (ossa_blend_layer){adds[i].weight, soa_adds[i], GROUPS, adds[i].factors, adds[i].factors ? LANES : 0};
    }
    ossa_blending_job job = {.threshold = threshold,
                             .layers = nl ? bl : NULL,
                             .layer_count = nl,
                             .additive_layers = na ? ba : NULL,
                             .additive_layer_count = na,
                             .rest_pose = soa_rest,
                             .rest_pose_count = GROUPS,
                             .output = out,
                             .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    errors e = {0, 0, 0};
    for (size_t j = 0; j < JOINTS; ++j) {
        double t[3], s[3];
        dq q;
        reference(layers, nl, adds, na, rest, threshold, j, t, &q, s);
        const ossa_transform o = ossa_soa_transform_get(&out[j / 4], (int)(j % 4));
        double ot[3], os[3];
        to_d3(o.translation, ot), to_d3(o.scale, os);
        for (int c = 0; c < 3; ++c) {
            e.t = fmax(e.t, fabs(ot[c] - t[c]) / fmax(1.0, fabs(t[c])));
            e.s = fmax(e.s, fabs(os[c] - s[c]) / fmax(1.0, fabs(s[c])));
        }
        const dq oq = to_dq(o.rotation);
        const double sign = oq.w * q.w + oq.x * q.x + oq.y * q.y + oq.z * q.z < 0 ? -1 : 1;
        e.q = fmax(e.q, fmax(fmax(fabs(oq.x - sign * q.x), fabs(oq.y - sign * q.y)),
                             fmax(fabs(oq.z - sign * q.z), fabs(oq.w - sign * q.w))));
    }
    return e;
}

/* The job matches the reference within `tolerance` (translation, scale relative to
 * max(1, |exact|); rotation components absolute). */
static void check_against_reference(const ref_layer *layers, size_t nl, const ref_layer *adds, size_t na,
                                    const ossa_transform *rest, float threshold, double tolerance)
{
    const errors e = measure_against_reference(layers, nl, adds, na, rest, threshold);
    assert_true(e.t <= tolerance);
    assert_true(e.s <= tolerance);
    assert_true(e.q <= tolerance);
}

static ossa_transform poses[6][LANES];

static int setup(void **state)
{
    (void)state;
    uint32_t seed = 7;
    for (int i = 0; i < 6; ++i) random_pose(poses[i], &seed, .5f);
    return 0;
}

static void test_single_layer_exact(void **state)
{
    (void)state;
    ossa_soa_transform in[GROUPS], rest[GROUPS], out[GROUPS];
    to_soa(poses[0], in);
    to_soa(poses[1], rest);
    const ossa_blend_layer layer = {1.f, in, GROUPS, NULL, 0};
    ossa_blending_job job = {.layers = &layer,
                             .layer_count = 1,
                             .rest_pose = rest,
                             .rest_pose_count = GROUPS,
                             .output = out,
                             .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    assert_memory_equal(out, in, sizeof in);
    /* The same input twice at any weights is the input again, to rounding. */
    const ossa_blend_layer twice[2] = {{.3f, in, GROUPS, NULL, 0}, {.7f, in, GROUPS, NULL, 0}};
    job.layers = twice, job.layer_count = 2;
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    for (size_t g = 0; g < GROUPS; ++g)
        for (int l = 0; l < 4; ++l) {
            assert_float_equal(out[g].translation.y[l], in[g].translation.y[l], 1e-6f);
            assert_float_equal(out[g].rotation.w[l], in[g].rotation.w[l], 1e-6f);
            assert_float_equal(out[g].scale.z[l], in[g].scale.z[l], 1e-6f);
        }
}

static void test_weights_normalised(void **state)
{
    (void)state;
    const ref_layer a[3] = {{2.f, poses[0], NULL}, {6.f, poses[2], NULL}, {-1.f, poses[3], NULL}};
    const ref_layer b[2] = {{.25f, poses[0], NULL}, {.75f, poses[2], NULL}};
    check_against_reference(a, 3, NULL, 0, poses[1], 0.f, 2e-6);
    check_against_reference(b, 2, NULL, 0, poses[1], 0.f, 2e-6);
    /* Three layers with a custom threshold that is not reached. */
    const ref_layer c[3] = {{.5f, poses[0], NULL}, {1.5f, poses[2], NULL}, {.25f, poses[3], NULL}};
    check_against_reference(c, 3, NULL, 0, poses[1], .5f, 2e-6);
}

static void test_joint_weights(void **state)
{
    (void)state;
    /* Upper body (joints 5..9) from layer A, everything from B; joints 0..4 are B alone. */
    float upper[LANES] = {0}, half[LANES];
    for (size_t j = 5; j < LANES; ++j) upper[j] = 1.f;
    for (size_t j = 0; j < LANES; ++j) half[j] = j % 3 == 0 ? -.5f : .5f; /* negatives count as 0 */
    const ref_layer layers[2] = {{1.f, poses[0], upper}, {1.f, poses[2], NULL}};
    check_against_reference(layers, 2, NULL, 0, poses[1], 0.f, 2e-6);
    const ref_layer mixed[2] = {{1.f, poses[0], half}, {.4f, poses[2], upper}};
    check_against_reference(mixed, 2, NULL, 0, poses[1], 0.f, 2e-6);

    ossa_soa_transform a[GROUPS], b[GROUPS], rest[GROUPS], out[GROUPS];
    to_soa(poses[0], a);
    to_soa(poses[2], b);
    to_soa(poses[1], rest);
    const ossa_blend_layer bl[2] = {{1.f, a, GROUPS, upper, LANES}, {1.f, b, GROUPS, NULL, 0}};
    ossa_blending_job job = {.layers = bl,
                             .layer_count = 2,
                             .rest_pose = rest,
                             .rest_pose_count = GROUPS,
                             .output = out,
                             .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    for (size_t j = 0; j < 5; ++j) {
        const ossa_transform o = ossa_soa_transform_get(&out[j / 4], (int)(j % 4));
        assert_memory_equal(&o, &poses[2][j], sizeof o);
    }
    /* A joint every layer leaves out is the rest pose. */
    job.layers = bl, job.layer_count = 1;
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    for (size_t j = 0; j < 5; ++j) {
        const ossa_transform o = ossa_soa_transform_get(&out[j / 4], (int)(j % 4));
        assert_float_equal(o.translation.x, poses[1][j].translation.x, 1e-6f);
        assert_float_equal(o.rotation.y, poses[1][j].rotation.y, 1e-6f);
        assert_float_equal(o.scale.z, poses[1][j].scale.z, 1e-6f);
    }
}

static void test_threshold_and_rest_pose(void **state)
{
    (void)state;
    /* 0.05 < default threshold 0.1: the rest pose fills in with weight 0.05. */
    const ref_layer low[1] = {{.05f, poses[0], NULL}};
    check_against_reference(low, 1, NULL, 0, poses[1], 0.f, 2e-6);
    const ref_layer mid[2] = {{.2f, poses[0], NULL}, {.1f, poses[2], NULL}};
    check_against_reference(mid, 2, NULL, 0, poses[1], .5f, 2e-6);
    /* No layer with weight > 0: the rest pose, exactly. */
    ossa_soa_transform in[GROUPS], rest[GROUPS], out[GROUPS];
    to_soa(poses[0], in);
    to_soa(poses[1], rest);
    const ossa_blend_layer zero[2] = {{0.f, in, GROUPS, NULL, 0}, {-2.f, in, GROUPS, NULL, 0}};
    ossa_blending_job job = {.layers = zero,
                             .layer_count = 2,
                             .rest_pose = rest,
                             .rest_pose_count = GROUPS,
                             .output = out,
                             .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    assert_memory_equal(out, rest, sizeof rest);
}

static void test_additive(void **state)
{
    (void)state;
    static ossa_transform identity[LANES];
    for (size_t j = 0; j < LANES; ++j) identity[j] = ossa_transform_identity();
    ossa_soa_transform base[GROUPS], rest[GROUPS], id[GROUPS], out[GROUPS];
    to_soa(poses[0], base);
    to_soa(poses[1], rest);
    to_soa(identity, id);
    const ossa_blend_layer layer = {1.f, base, GROUPS, NULL, 0};
    const float weights[] = {1.f, .5f, -1.f, 3.f, -.25f};
    for (size_t i = 0; i < sizeof weights / sizeof weights[0]; ++i) {
        const ossa_blend_layer add = {weights[i], id, GROUPS, NULL, 0};
        ossa_blending_job job = {.layers = &layer,
                                 .layer_count = 1,
                                 .additive_layers = &add,
                                 .additive_layer_count = 1,
                                 .rest_pose = rest,
                                 .rest_pose_count = GROUPS,
                                 .output = out,
                                 .output_count = GROUPS};
        assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
        assert_memory_equal(out, base, sizeof base); /* identity delta: unchanged, exactly */
    }
    /* Deltas: small rotations, scales near 1 (as additive clips have). */
    static ossa_transform delta[2][LANES];
    uint32_t seed = 3;
    for (int d = 0; d < 2; ++d) {
        random_pose(delta[d], &seed, .8f);
        for (size_t j = 0; j < LANES; ++j) {
            ossa_quat *q = &delta[d][j].rotation;
            const float w = q->w < 0.f ? q->w - 1.f : q->w + 1.f;
            *q = ossa_quat_normalize((ossa_quat){.3f * q->x, .3f * q->y, .3f * q->z, w});
            if (j % 2) *q = (ossa_quat){-q->x, -q->y, -q->z, -q->w}; /* both hemispheres */
        }
    }
    float factors[LANES];
    for (size_t j = 0; j < LANES; ++j) factors[j] = (float)j / (float)LANES;
    const ref_layer normal[1] = {{1.f, poses[0], NULL}};
    const ref_layer adds[3] = {{.7f, delta[0], NULL}, {-.4f, delta[1], factors}, {1.5f, delta[1], NULL}};
    check_against_reference(normal, 1, adds, 3, poses[1], 0.f, 1e-5);
    /* Additive layers alone apply to the rest pose. */
    check_against_reference(NULL, 0, adds, 1, poses[1], 0.f, 1e-5);
    /* Adding then removing the same delta gives the base back. */
    ossa_soa_transform d0[GROUPS];
    to_soa(delta[0], d0);
    const ossa_blend_layer both[2] = {{.6f, d0, GROUPS, NULL, 0}, {-.6f, d0, GROUPS, NULL, 0}};
    ossa_blending_job job = {.layers = &layer,
                             .layer_count = 1,
                             .additive_layers = both,
                             .additive_layer_count = 2,
                             .rest_pose = rest,
                             .rest_pose_count = GROUPS,
                             .output = out,
                             .output_count = GROUPS};
    assert_int_equal(ossa_blending_job_run(&job), OSSA_OK);
    for (size_t g = 0; g < GROUPS; ++g)
        for (int l = 0; l < 4; ++l) {
            assert_float_equal(out[g].translation.x[l], base[g].translation.x[l], 1e-6f);
            assert_float_equal(out[g].rotation.x[l], base[g].rotation.x[l], 1e-6f);
            assert_float_equal(out[g].rotation.w[l], base[g].rotation.w[l], 1e-6f);
            assert_float_equal(out[g].scale.y[l], base[g].scale.y[l], 1e-6f);
        }
}

/* The bound stated in ossa/blending_job.h, over seeded random blends: 1 to 12 normal layers
 * (more than the job gathers at once), weights in [-0.5, 2] (some leave the layer out), joint
 * weights on some layers, thresholds from 0.05 to 1.5 (some not reached), up to 2 additive
 * layers, against the formulas evaluated in double precision. */
static void test_random_blends_within_bound(void **state)
{
    (void)state;
    static ossa_transform pool[MAX_LAYERS + 3][LANES];
    static float factors[MAX_LAYERS][LANES];
    uint32_t seed = 2024;
    errors worst = {0, 0, 0};
    for (int trial = 0; trial < 400; ++trial) {
        for (size_t i = 0; i < MAX_LAYERS + 3; ++i) random_pose(pool[i], &seed, .5f);
        const size_t nl = 1 + ossa_test_rand(&seed) % MAX_LAYERS, na = trial % 4 == 0 ? ossa_test_rand(&seed) % 3 : 0;
        const bool per_lane = trial % 2 == 1;
        ref_layer layers[MAX_LAYERS], adds[2];
        for (size_t i = 0; i < nl; ++i) {
            const float *f = NULL;
            if (per_lane && ossa_test_rand(&seed) % 2) {
                for (size_t j = 0; j < LANES; ++j) factors[i][j] = ossa_test_randf(&seed, -.2f, 1.f);
                f = factors[i];
            }
            layers[i] = (ref_layer){ossa_test_randf(&seed, -.5f, 2.f), pool[i], f};
        }
        for (size_t i = 0; i < na; ++i) {
            /* Deltas near identity, as additive clips have. */
            for (size_t j = 0; j < LANES; ++j) {
                ossa_quat *q = &pool[MAX_LAYERS + i][j].rotation;
                *q = ossa_quat_normalize(
                    (ossa_quat){.3f * q->x, .3f * q->y, .3f * q->z, q->w < 0.f ? q->w - 1.f : q->w + 1.f});
            }
            adds[i] = (ref_layer){ossa_test_randf(&seed, -1.f, 1.5f), pool[MAX_LAYERS + i], NULL};
        }
        const float threshold = trial % 3 == 0 ? 0.f : ossa_test_randf(&seed, .05f, 1.5f);
        const errors e = measure_against_reference(layers, nl, adds, na, pool[MAX_LAYERS + 2], threshold);
        worst.t = fmax(worst.t, e.t), worst.s = fmax(worst.s, e.s), worst.q = fmax(worst.q, e.q);
    }
    print_message("largest errors: translation %.3g, scale %.3g (relative), rotation %.3g\n", worst.t, worst.s,
                  worst.q);
    /* The bound of ossa/blending_job.h (measured: 2.6e-7, 3.2e-7, 4.9e-7). */
    assert_true(worst.t <= 1e-6);
    assert_true(worst.s <= 1e-6);
    assert_true(worst.q <= 1e-6);
}

static void test_errors_write_nothing(void **state)
{
    (void)state;
    static ossa_soa_transform in[GROUPS], rest[GROUPS], out[GROUPS + 1], pattern[GROUPS + 1];
    to_soa(poses[0], in);
    to_soa(poses[1], rest);
    memset(pattern, 0xa5, sizeof pattern);
    memcpy(out, pattern, sizeof out);
    float factors[LANES] = {0}, bad_factors[LANES] = {0};
    bad_factors[LANES - 1] = NAN;
    const ossa_blending_job good = {
        .rest_pose = rest, .rest_pose_count = GROUPS, .output = out, .output_count = GROUPS};
    ossa_blend_layer layer = {1.f, in, GROUPS, factors, LANES};
    struct {
        ossa_blend_layer layer;
        ossa_blending_job job;
        bool additive;
        ossa_result expected;
    } cases[] = {
        {layer, good, false, OSSA_OK}, /* sanity: the base case runs (out restored below) */
        {layer,
         {.rest_pose = rest, .rest_pose_count = GROUPS, .output = out, .output_count = GROUPS},
         false,
         OSSA_ERROR_NO_LAYERS},
        {layer, {.threshold = -.1f}, false, OSSA_ERROR_INVALID_THRESHOLD},
        {layer, {.threshold = NAN}, false, OSSA_ERROR_INVALID_THRESHOLD},
        {layer, {.threshold = INFINITY}, false, OSSA_ERROR_INVALID_THRESHOLD},
        {layer,
         {.rest_pose = NULL, .rest_pose_count = GROUPS, .output = out, .output_count = GROUPS},
         false,
         OSSA_ERROR_NO_REST_POSE},
        {layer,
         {.rest_pose = rest, .rest_pose_count = GROUPS, .output = NULL, .output_count = GROUPS},
         false,
         OSSA_ERROR_NO_OUTPUT},
        {layer,
         {.rest_pose = rest, .rest_pose_count = GROUPS, .output = out, .output_count = GROUPS - 1},
         false,
         OSSA_ERROR_OUTPUT_TOO_SMALL},
        {{1.f, NULL, GROUPS, NULL, 0}, good, false, OSSA_ERROR_NO_INPUT},
        {{1.f, in, GROUPS - 1, NULL, 0}, good, true, OSSA_ERROR_INPUT_TOO_SMALL},
        {{1.f, in, GROUPS, factors, LANES - 1}, good, false, OSSA_ERROR_JOINT_WEIGHTS_TOO_SMALL},
        {{NAN, in, GROUPS, NULL, 0}, good, false, OSSA_ERROR_INVALID_WEIGHT},
        {{-INFINITY, in, GROUPS, NULL, 0}, good, true, OSSA_ERROR_INVALID_WEIGHT},
        {{1.f, in, GROUPS, bad_factors, LANES}, good, true, OSSA_ERROR_INVALID_WEIGHT},
        {{1.f, (const ossa_soa_transform *)(const void *)((const char *)in + 4), GROUPS, NULL, 0},
         good,
         false,
         OSSA_ERROR_MISALIGNED},
        {{1.f, out, GROUPS, NULL, 0}, good, false, OSSA_ERROR_ALIASING},
        {{1.f, in, GROUPS, (const float *)(const void *)&out[1], LANES}, good, true, OSSA_ERROR_ALIASING},
        {layer,
         {.rest_pose = out + 1, .rest_pose_count = GROUPS, .output = out, .output_count = GROUPS + 1},
         false,
         OSSA_ERROR_ALIASING},
        /* a group count whose bytes wrap around the address space (the aliasing checks' spans
         * used to wrap with it) */
        {{1.f, in, SIZE_MAX, NULL, 0},
         {.rest_pose = rest, .rest_pose_count = SIZE_MAX / 64, .output = out, .output_count = SIZE_MAX},
         false,
         OSSA_ERROR_SIZE_OVERFLOW},
        {{1.f, in, SIZE_MAX, NULL, 0},
         {.rest_pose = rest, .rest_pose_count = SIZE_MAX / 64, .output = out, .output_count = SIZE_MAX},
         true,
         OSSA_ERROR_SIZE_OVERFLOW},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        ossa_blending_job job = cases[i].job;
        if (!job.output && !job.rest_pose)
            job = (ossa_blending_job){.threshold = job.threshold,
                                      .rest_pose = rest,
                                      .rest_pose_count = GROUPS,
                                      .output = out,
                                      .output_count = GROUPS};
        const bool no_layers = cases[i].expected == OSSA_ERROR_NO_LAYERS;
        if (!no_layers) {
            if (cases[i].additive)
                job.additive_layers = &cases[i].layer, job.additive_layer_count = 1;
            else
                job.layers = &cases[i].layer, job.layer_count = 1;
        }
        assert_int_equal(ossa_blending_job_validate(&job), cases[i].expected);
        assert_int_equal(ossa_blending_job_run(&job), cases[i].expected);
        if (cases[i].expected != OSSA_OK) assert_memory_equal(out, pattern, sizeof out);
        memcpy(out, pattern, sizeof out);
    }
    assert_int_equal(ossa_blending_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    ossa_blending_job job = good;
    job.layer_count = 1; /* layers NULL */
    assert_int_equal(ossa_blending_job_run(&job), OSSA_ERROR_NULL_ARGUMENT);
    job = good;
    job.additive_layer_count = 2;
    assert_int_equal(ossa_blending_job_run(&job), OSSA_ERROR_NULL_ARGUMENT);
    assert_memory_equal(out, pattern, sizeof out);
    const ossa_blending_job zero = {0};
    assert_int_equal(ossa_blending_job_run(&zero), OSSA_ERROR_NO_LAYERS);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_single_layer_exact),
        cmocka_unit_test(test_weights_normalised),
        cmocka_unit_test(test_joint_weights),
        cmocka_unit_test(test_threshold_and_rest_pose),
        cmocka_unit_test(test_additive),
        cmocka_unit_test(test_random_blends_within_bound),
        cmocka_unit_test(test_errors_write_nothing),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
