/* Maya curve evaluator: every tangent type, weighted spans and infinity mode against values
 * worked out by hand or with textbook formulas written independently here (Hermite basis
 * functions, Bernstein Bezier solved by bisection), not with the evaluator's own code. */
#include <math.h>
#include <string.h>

#include "ossa/offline/import_maya.h"
#include "test_util.h"

#define PI      3.14159265358979323846
#define MAX_TAN 5729577.9485111479

/* |a - b| <= eps, printing both values when not. */
#define assert_near(a, b, eps) near_at((a), (b), (eps), __FILE__, __LINE__)
static void near_at(double a, double b, double eps, const char *file, int line)
{
    if (fabs(a - b) <= eps) return;
    print_error("%.17g != %.17g (tolerance %g)\n", a, b, eps);
    _fail(file, line);
}

typedef struct spec {
    double t, v;
    ossa_maya_tangent_type in, out;
} spec;

/* A curve of up to 8 keys from (time, value, in, out) rows. */
typedef struct test_curve {
    ossa_maya_curve c;
    ossa_maya_key keys[8];
} test_curve;

static void make(test_curve *tc, const spec *s, size_t n, bool weighted)
{
    memset(tc, 0, sizeof *tc);
    for (size_t i = 0; i < n; ++i) {
        tc->keys[i].time = s[i].t;
        tc->keys[i].value = s[i].v;
        tc->keys[i].in_type = s[i].in;
        tc->keys[i].out_type = s[i].out;
    }
    tc->c.keys = tc->keys;
    tc->c.key_count = n;
    tc->c.weighted = weighted;
}

static void prepare(test_curve *tc) { assert_int_equal(ossa_maya_curve_prepare(&tc->c), OSSA_OK); }

static double eval(const test_curve *tc, double t) { return ossa_maya_curve_evaluate(&tc->c, t); }

/* Cubic Hermite with the four basis functions, slopes m0, m1 per unit time. */
static double hermite(double t0, double v0, double m0, double t1, double v1, double m1, double t)
{
    const double dx = t1 - t0, s = (t - t0) / dx, s2 = s * s, s3 = s2 * s;
    return (2 * s3 - 3 * s2 + 1) * v0 + (s3 - 2 * s2 + s) * dx * m0 + (-2 * s3 + 3 * s2) * v1 + (s3 - s2) * dx * m1;
}

static double bernstein(double p0, double p1, double p2, double p3, double s)
{
    const double r = 1 - s;
    return r * r * r * p0 + 3 * s * r * r * p1 + 3 * s * s * r * p2 + s * s * s * p3;
}

/* Bezier (x0..x3, y0..y3) at x = t, the parameter found by bisection (x is monotonic). */
static double bezier_at(const double x[4], const double y[4], double t)
{
    double lo = 0, hi = 1;
    for (int i = 0; i < 200; ++i) {
        const double mid = 0.5 * (lo + hi);
        if (bernstein(x[0], x[1], x[2], x[3], mid) < t)
            lo = mid;
        else
            hi = mid;
    }
    return bernstein(y[0], y[1], y[2], y[3], 0.5 * (lo + hi));
}

static double slope_in(const test_curve *tc, size_t i) { return tc->keys[i].in_y / tc->keys[i].in_x; }

static double slope_out(const test_curve *tc, size_t i) { return tc->keys[i].out_y / tc->keys[i].out_x; }

#define L OSSA_MAYA_TANGENT_LINEAR
#define S OSSA_MAYA_TANGENT_SPLINE

static void test_linear(void **state)
{
    (void)state;
    test_curve tc;
    make(&tc, (spec[]){{0, 0, L, L}, {10, 20, L, L}, {12, 0, L, L}}, 3, false);
    prepare(&tc);
    assert_near(eval(&tc, 2.5), 5.0, 1e-12);
    assert_near(eval(&tc, 10), 20.0, 0);
    assert_near(eval(&tc, 11.5), 5.0, 1e-12);
    /* Devkit rule: a first key's linear in-tangent is (1, 0), normalised. */
    assert_near(tc.keys[0].in_x, 1.0, 0);
    assert_near(tc.keys[0].in_y, 0.0, 0);
    /* Out-tangent of key 0 points at key 1: unit vector along (10, 20). */
    assert_near(tc.keys[0].out_x, 10 / sqrt(500.0), 1e-12);
    assert_near(tc.keys[0].out_y, 20 / sqrt(500.0), 1e-12);
}

/* The spline joint1.rotateZ of the .anim specification's example. */
static void test_spline_spec_example(void **state)
{
    (void)state;
    const double t[5] = {1, 10, 15, 22, 30}, v[5] = {0, -16.774359, -1.6493069, -3.064691, 0};
    spec s[5];
    for (int i = 0; i < 5; ++i) s[i] = (spec){t[i], v[i], S, S};
    test_curve tc;
    make(&tc, s, 5, false);
    prepare(&tc);
    /* Slopes: chord at the ends, (v[i+1] - v[i-1]) / (t[i+1] - t[i-1]) inside. */
    const double m[5] = {(-16.774359 - 0) / 9, (-1.6493069 - 0) / 14, (-3.064691 + 16.774359) / 12,
                         (0 + 1.6493069) / 15, (0 + 3.064691) / 8};
    for (int i = 0; i < 5; ++i) {
        assert_near(slope_in(&tc, (size_t)i), m[i], 1e-9);
        assert_near(slope_out(&tc, (size_t)i), m[i], 1e-9);
        assert_near(tc.keys[i].in_x * tc.keys[i].in_x + tc.keys[i].in_y * tc.keys[i].in_y, 1.0, 1e-12);
    }
    for (int i = 0; i < 4; ++i)
        for (double f = 0.1; f < 1.0; f += 0.2) {
            const double x = t[i] + f * (t[i + 1] - t[i]);
            assert_near(eval(&tc, x), hermite(t[i], v[i], m[i], t[i + 1], v[i + 1], m[i + 1], x), 1e-9);
        }
    /* Worked by hand for frame 5 (s = 4/9 in the first span): */
    const double s1 = 4.0 / 9, h10 = s1 * s1 * s1 - 2 * s1 * s1 + s1, h01 = -2 * s1 * s1 * s1 + 3 * s1 * s1,
                 h11 = s1 * s1 * s1 - s1 * s1;
    assert_near(eval(&tc, 5), 9 * m[0] * h10 - 16.774359 * h01 + 9 * m[1] * h11, 1e-9);
}

static void test_flat(void **state)
{
    (void)state;
    test_curve tc;
    const ossa_maya_tangent_type F = OSSA_MAYA_TANGENT_FLAT;
    make(&tc, (spec[]){{0, 2, F, F}, {4, 10, F, F}}, 2, false);
    prepare(&tc);
    /* s = 1/4: 2 + 8 (3/16 - 2/64) = 3.25 */
    assert_near(eval(&tc, 1), 3.25, 1e-12);
    assert_near(eval(&tc, 2), 6.0, 1e-12);
    assert_near(tc.keys[0].in_y, 0.0, 0);
    assert_near(tc.keys[1].out_y, 0.0, 0);
}

static void test_step_and_stepnext(void **state)
{
    (void)state;
    test_curve tc;
    const ossa_maya_tangent_type ST = OSSA_MAYA_TANGENT_STEP, SN = OSSA_MAYA_TANGENT_STEPNEXT;
    make(&tc, (spec[]){{0, 1, S, ST}, {5, 3, S, ST}, {10, -2, S, ST}}, 3, false);
    prepare(&tc);
    assert_near(eval(&tc, 4.999), 1.0, 0);
    assert_near(eval(&tc, 5), 3.0, 0);
    assert_near(eval(&tc, 9.9), 3.0, 0);
    assert_near(eval(&tc, 10), -2.0, 0);
    make(&tc, (spec[]){{0, 1, S, SN}, {5, 3, S, SN}, {10, -2, S, SN}}, 3, false);
    prepare(&tc);
    assert_near(eval(&tc, 0), 1.0, 0);
    assert_near(eval(&tc, 0.001), 3.0, 0);
    assert_near(eval(&tc, 5), 3.0, 0);
    assert_near(eval(&tc, 5.5), -2.0, 0);
}

static void test_fixed(void **state)
{
    (void)state;
    test_curve tc;
    const ossa_maya_tangent_type FX = OSSA_MAYA_TANGENT_FIXED;
    make(&tc, (spec[]){{0, 0, FX, FX}, {10, 10, FX, FX}}, 2, false);
    tc.keys[0].out_angle = PI / 4; /* slope 1 */
    tc.keys[0].out_weight = 1;
    tc.keys[1].in_angle = atan(0.5); /* slope 0.5 */
    tc.keys[1].in_weight = 7;        /* irrelevant when not weighted */
    prepare(&tc);
    /* s = 1/2: 10 * 1 * 1/8 + 10 * 1/2 + 10 * 0.5 * (-1/8) = 5.625 */
    assert_near(eval(&tc, 5), 5.625, 1e-12);
    assert_near(eval(&tc, 2), hermite(0, 0, 1, 10, 10, 0.5, 2), 1e-12);
    /* A vertical tangent becomes Maya's largest slope. */
    tc.keys[0].out_angle = PI / 2;
    prepare(&tc);
    assert_near(tc.keys[0].out_x, 1e-4, 1e-18);
    assert_near(slope_out(&tc, 0), MAX_TAN, 1e-3);
}

static void test_clamped(void **state)
{
    (void)state;
    test_curve tc;
    const ossa_maya_tangent_type C = OSSA_MAYA_TANGENT_CLAMPED;
    make(&tc, (spec[]){{0, 0, C, C}, {10, 0.03, C, C}, {20, 5, C, C}}, 3, false);
    prepare(&tc);
    /* Key 1 is within 0.05 of key 0: flat; key 0 likewise; key 2 keeps the chord slope. */
    assert_near(tc.keys[1].in_y, 0.0, 0);
    assert_near(tc.keys[1].out_y, 0.0, 0);
    assert_near(tc.keys[0].out_y, 0.0, 0);
    assert_near(slope_in(&tc, 2), (5 - 0.03) / 10, 1e-12);
    assert_near(eval(&tc, 15), hermite(10, 0.03, 0, 20, 5, 0.497, 15), 1e-12);
    make(&tc, (spec[]){{0, 0, C, C}, {10, 1, C, C}, {20, 5, C, C}}, 3, false);
    prepare(&tc);
    assert_near(slope_out(&tc, 1), 0.25, 1e-12); /* spline: (5 - 0) / 20 */
}

static void test_auto_family(void **state)
{
    (void)state;
    test_curve tc;
    const ossa_maya_tangent_type A = OSSA_MAYA_TANGENT_AUTO, P = OSSA_MAYA_TANGENT_PLATEAU;
    const ossa_maya_tangent_type AE = OSSA_MAYA_TANGENT_AUTOEASE, AM = OSSA_MAYA_TANGENT_AUTOMIX;
    /* Central slope 1 is inside [0, 3 * min(0.5, 1.5)]; the ends are flat. */
    make(&tc, (spec[]){{0, 0, A, A}, {10, 5, A, A}, {20, 20, A, A}}, 3, false);
    prepare(&tc);
    assert_near(slope_out(&tc, 1), 1.0, 1e-12);
    assert_near(tc.keys[0].out_y, 0.0, 0);
    assert_near(tc.keys[2].in_y, 0.0, 0);
    assert_near(eval(&tc, 4), hermite(0, 0, 0, 10, 5, 1, 4), 1e-12);
    /* Overshoot guard: central 10/11 is clamped to 3 * 0.1. */
    make(&tc, (spec[]){{0, 0, P, P}, {10, 1, P, P}, {11, 10, P, P}}, 3, false);
    prepare(&tc);
    assert_near(slope_in(&tc, 1), 0.3, 1e-12);
    /* A local extremum is flat. */
    make(&tc, (spec[]){{0, 0, A, A}, {10, 5, A, A}, {20, 0, A, A}}, 3, false);
    prepare(&tc);
    assert_near(tc.keys[1].out_y, 0.0, 0);
    /* Chords 0.5 and 1, key at f = 1/4 between its neighbours: auto 35/40; automix
     * 0.75 * 0.5 + 0.25 * 1; autoease g = 0.5 - 0.25 * (1.5 - 0.125) = 0.15625. */
    const ossa_maya_tangent_type types[3] = {A, AM, AE};
    const double expect[3] = {0.875, 0.625, 0.84375 * 0.5 + 0.15625};
    for (int i = 0; i < 3; ++i) {
        make(&tc, (spec[]){{0, 0, types[i], types[i]}, {10, 5, types[i], types[i]}, {40, 35, types[i], types[i]}}, 3,
             false);
        prepare(&tc);
        assert_near(slope_out(&tc, 1), expect[i], 1e-12);
    }
    /* Two auto keys (as in Maya exports): an ease in/out, midpoint halfway. */
    make(&tc, (spec[]){{1, 1.3784618, A, A}, {3, 2.4244321, A, A}}, 2, false);
    prepare(&tc);
    assert_near(eval(&tc, 2), (1.3784618 + 2.4244321) / 2, 1e-12);
}

static void test_slow_fast_as_spline(void **state)
{
    (void)state;
    test_curve a, b, c;
    const spec base[3] = {{0, 0, S, S}, {4, 3, S, S}, {9, -1, S, S}};
    spec sl[3], fa[3];
    for (int i = 0; i < 3; ++i) {
        sl[i] = base[i];
        fa[i] = base[i];
        sl[i].in = sl[i].out = OSSA_MAYA_TANGENT_SLOW;
        fa[i].in = fa[i].out = OSSA_MAYA_TANGENT_FAST;
    }
    make(&a, base, 3, false);
    make(&b, sl, 3, false);
    make(&c, fa, 3, false);
    prepare(&a);
    prepare(&b);
    prepare(&c);
    for (double t = 0; t <= 9; t += 0.25) {
        assert_near(eval(&b, t), eval(&a, t), 1e-12);
        assert_near(eval(&c, t), eval(&a, t), 1e-12);
    }
    assert_near(eval(&a, 2), hermite(0, 0, 0.75, 4, 3, -1.0 / 9, 2), 1e-12);
}

/* Weighted fixed key sides with the given x and y arm lengths (a third of the vector). */
static void set_arm(ossa_maya_key *k, bool out, double ax, double ay)
{
    const double angle = atan2(ay, ax), weight = sqrt(ax * ax + ay * ay);
    if (out) {
        k->out_type = OSSA_MAYA_TANGENT_FIXED;
        k->out_angle = angle;
        k->out_weight = weight;
    } else {
        k->in_type = OSSA_MAYA_TANGENT_FIXED;
        k->in_angle = angle;
        k->in_weight = weight;
    }
}

static void test_weighted(void **state)
{
    (void)state;
    test_curve tc;
    /* x arms of a third: x(s) = 10 s. P1 = (10/3, 2), P2 = (20/3, 9). At s = 1/4:
     * 3/4 * 9/16 * 2 + 3/16 * 3/4 * 9 + 1/64 * 10 = 2.265625. */
    make(&tc, (spec[]){{0, 0, S, S}, {10, 10, S, S}}, 2, true);
    set_arm(&tc.keys[0], true, 10.0 / 3, 2);
    set_arm(&tc.keys[1], false, 10.0 / 3, 1);
    prepare(&tc);
    assert_near(eval(&tc, 2.5), 2.265625, 1e-12);
    /* General arms (alpha 0.5, beta 0.1): P1 = (5, 3), P2 = (9, 5), end (10, 4). */
    make(&tc, (spec[]){{0, 0, S, S}, {10, 4, S, S}}, 2, true);
    set_arm(&tc.keys[0], true, 5, 3);
    set_arm(&tc.keys[1], false, 1, -1);
    prepare(&tc);
    for (double t = 0.5; t < 10; t += 1.5)
        assert_near(eval(&tc, t), bezier_at((double[]){0, 5, 9, 10}, (double[]){0, 3, 5, 4}, t), 1e-9);
    /* Arms 1.2 and 0.9 of the span fold x back: both scale by k onto the monotonic boundary
     * a^2 + b^2 + ab - 2(a + b) + 1 = 0, and the y arms by the same k. */
    make(&tc, (spec[]){{0, 0, S, S}, {10, 4, S, S}}, 2, true);
    set_arm(&tc.keys[0], true, 12, 6);
    set_arm(&tc.keys[1], false, 9, 3);
    prepare(&tc);
    const double a = 1.2, b = 0.9, k = (a + b + sqrt(a * b)) / (a * a + b * b + a * b);
    const double ka = k * a, kb = k * b;
    assert_near(ka * ka + kb * kb + ka * kb - 2 * (ka + kb) + 1, 0.0, 1e-12);
    for (double t = 0.5; t < 10; t += 1.5)
        assert_near(eval(&tc, t),
                    bezier_at((double[]){0, 10 * ka, 10 - 10 * kb, 10}, (double[]){0, 6 * k, 4 - 3 * k, 4}, t), 1e-9);
    /* An arm pointing back in time is clamped to x = 0 and its y arm dropped: P1 = P0. */
    make(&tc, (spec[]){{0, 0, S, S}, {10, 4, S, S}}, 2, true);
    set_arm(&tc.keys[0], true, -2, 5);
    set_arm(&tc.keys[1], false, 10.0 / 3, 0);
    prepare(&tc);
    assert_near(tc.keys[0].out_x, 0.0, 0);
    assert_near(eval(&tc, 6), bezier_at((double[]){0, 0, 10 - 10.0 / 3, 10}, (double[]){0, 0, 4, 4}, 6), 1e-9);
    /* Two linear sides still make a straight span on a weighted curve. */
    make(&tc, (spec[]){{0, 0, L, L}, {10, 4, L, L}}, 2, true);
    prepare(&tc);
    assert_near(eval(&tc, 2.5), 1.0, 1e-12);
}

static void test_infinity(void **state)
{
    (void)state;
    test_curve tc;
    /* Constant. */
    make(&tc, (spec[]){{0, 0, L, L}, {10, 10, L, L}, {20, 0, L, L}}, 3, false);
    prepare(&tc);
    assert_near(eval(&tc, -100), 0.0, 0);
    assert_near(eval(&tc, 1e9), 0.0, 0);
    /* Linear: the end keys' outer spline tangents are the chords (slope 1 before, 2 after). */
    make(&tc, (spec[]){{0, 0, S, S}, {10, 10, S, S}, {20, 30, S, S}}, 3, false);
    tc.c.pre_infinity = tc.c.post_infinity = OSSA_MAYA_INFINITY_LINEAR;
    prepare(&tc);
    assert_near(eval(&tc, -5), -5.0, 1e-9);
    assert_near(eval(&tc, 25), 40.0, 1e-9);
    /* Cycle over a triangle 0 -> 10 -> 0. */
    make(&tc, (spec[]){{0, 0, L, L}, {10, 10, L, L}, {20, 0, L, L}}, 3, false);
    tc.c.pre_infinity = tc.c.post_infinity = OSSA_MAYA_INFINITY_CYCLE;
    prepare(&tc);
    assert_near(eval(&tc, 25), 5.0, 1e-12);
    assert_near(eval(&tc, 35), 5.0, 1e-12);
    assert_near(eval(&tc, 42), 2.0, 1e-12);
    assert_near(eval(&tc, -5), 5.0, 1e-12);
    assert_near(eval(&tc, -18), 2.0, 1e-12);
    /* Cycle relative: 0 -> 10 -> 5, each cycle shifted by +5. */
    make(&tc, (spec[]){{0, 0, L, L}, {10, 10, L, L}, {20, 5, L, L}}, 3, false);
    tc.c.pre_infinity = tc.c.post_infinity = OSSA_MAYA_INFINITY_CYCLE_RELATIVE;
    prepare(&tc);
    assert_near(eval(&tc, 25), 10.0, 1e-12);  /* 5 + 5 */
    assert_near(eval(&tc, 45), 15.0, 1e-12);  /* 5 + 10 */
    assert_near(eval(&tc, -5), 2.5, 1e-12);   /* 7.5 - 5 */
    assert_near(eval(&tc, -25), -2.5, 1e-12); /* 7.5 - 10 */
    /* Oscillate: mirrored every other cycle. */
    tc.c.pre_infinity = tc.c.post_infinity = OSSA_MAYA_INFINITY_OSCILLATE;
    assert_near(eval(&tc, 25), 7.5, 1e-12); /* mirror: value at 15 */
    assert_near(eval(&tc, 45), 5.0, 1e-12); /* forward again: value at 5 */
    assert_near(eval(&tc, -5), 5.0, 1e-12); /* mirror: value at 5 */
    assert_near(eval(&tc, -25), 7.5, 1e-12);
    /* A single key holds everywhere in cycle modes. */
    make(&tc, (spec[]){{3, 7, S, S}}, 1, false);
    tc.c.post_infinity = OSSA_MAYA_INFINITY_CYCLE;
    prepare(&tc);
    assert_near(eval(&tc, 100), 7.0, 0);
}

static void test_tick_quantisation(void **state)
{
    (void)state;
    test_curve tc;
    make(&tc, (spec[]){{0, 0, L, L}, {20, 20, L, L}}, 2, false);
    tc.c.post_infinity = OSSA_MAYA_INFINITY_CYCLE;
    prepare(&tc);
    const double tick = 24.0 / 141120000.0; /* one tick in film frames */
    assert_near(eval(&tc, 25 + 0.3 * tick), 5 + 0.3 * tick, 1e-12);
    tc.c.frame_rate = 24.0;
    assert_near(eval(&tc, 25 + 0.3 * tick), 5.0, 1e-12);
    assert_near(eval(&tc, 25 + 0.7 * tick), 5 + tick, 1e-12);
    assert_near(eval(&tc, 5 + 0.3 * tick), 5 + 0.3 * tick, 1e-12); /* inside: not quantised */
}

static void test_prepare_errors(void **state)
{
    (void)state;
    test_curve tc;
    assert_int_equal(ossa_maya_curve_prepare(NULL), OSSA_ERROR_NULL_ARGUMENT);
    make(&tc, (spec[]){{0, 0, L, L}, {0, 1, L, L}}, 2, false);
    assert_int_equal(ossa_maya_curve_prepare(&tc.c), OSSA_ERROR_INVALID_KEY);
    make(&tc, (spec[]){{0, 0, L, L}, {(double)NAN, 1, L, L}}, 2, false);
    assert_int_equal(ossa_maya_curve_prepare(&tc.c), OSSA_ERROR_INVALID_KEY);
    make(&tc, (spec[]){{0, 0, L, L}, {1, 1, L, (ossa_maya_tangent_type)99}}, 2, false);
    assert_int_equal(ossa_maya_curve_prepare(&tc.c), OSSA_ERROR_INVALID_ARGUMENT);
    make(&tc, (spec[]){{0, 0, L, L}, {1, 1, L, L}}, 2, false);
    tc.keys[1].out_x = 123.0; /* untouched on error */
    tc.c.post_infinity = (ossa_maya_infinity)7;
    assert_int_equal(ossa_maya_curve_prepare(&tc.c), OSSA_ERROR_INVALID_ARGUMENT);
    assert_near(tc.keys[1].out_x, 123.0, 0);
    /* No keys: value 0; NaN time: NaN. */
    make(&tc, NULL, 0, false);
    assert_int_equal(ossa_maya_curve_prepare(&tc.c), OSSA_OK);
    assert_near(eval(&tc, 3), 0.0, 0);
    make(&tc, (spec[]){{0, 0, L, L}}, 1, false);
    prepare(&tc);
    assert_true(isnan(eval(&tc, (double)NAN)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_spline_spec_example),
        cmocka_unit_test(test_flat),
        cmocka_unit_test(test_step_and_stepnext),
        cmocka_unit_test(test_fixed),
        cmocka_unit_test(test_clamped),
        cmocka_unit_test(test_auto_family),
        cmocka_unit_test(test_slow_fast_as_spline),
        cmocka_unit_test(test_weighted),
        cmocka_unit_test(test_infinity),
        cmocka_unit_test(test_tick_quantisation),
        cmocka_unit_test(test_prepare_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
