/* The private SIMD layer and the public scalar maths against scalar references. */
#include <math.h>
#include <string.h>

#include "simd.h"
#include "test_util.h"

#ifndef M_PI_2
#define M_PI_2 1.57079632679489661923
#endif

static void test_float4_arithmetic(void **state)
{
    (void)state;
    uint32_t s = 1;
    for (int i = 0; i < 200; ++i) {
        OSSA_ALIGNAS(16) float a[4], b[4], c[4], r[4];
        for (int l = 0; l < 4; ++l) {
            a[l] = ossa_test_randf(&s, -10.f, 10.f);
            b[l] = ossa_test_randf(&s, .1f, 10.f);
            c[l] = ossa_test_randf(&s, -10.f, 10.f);
        }
        const v4f va = v4f_load(a), vb = v4f_load(b), vc = v4f_load(c);
        v4f_store(r, v4f_madd(va, vb, vc));
        for (int l = 0; l < 4; ++l) assert_float_equal(r[l], a[l] * b[l] + c[l], 1e-4f);
        v4f_store(r, v4f_div(va, vb));
        for (int l = 0; l < 4; ++l) assert_float_equal(r[l], a[l] / b[l], 1e-5f);
        v4f_store(r, v4f_rsqrt(vb));
        for (int l = 0; l < 4; ++l) assert_float_equal(r[l], 1.f / sqrtf(b[l]), 2e-6f * (1.f / sqrtf(b[l])) + 1e-7f);
        v4f_store(r, v4f_lerp(va, vc, v4f_set1(.25f)));
        for (int l = 0; l < 4; ++l) assert_float_equal(r[l], a[l] + (c[l] - a[l]) * .25f, 1e-5f);
        v4f_store(r, v4f_select(v4f_cmplt(va, vc), vb, va));
        for (int l = 0; l < 4; ++l) assert_true(r[l] == (a[l] < c[l] ? b[l] : a[l]));
        v4f_store(r, v4f_min(va, vc));
        for (int l = 0; l < 4; ++l) assert_true(r[l] == fminf(a[l], c[l]));
    }
}

static void test_transpose_and_splat(void **state)
{
    (void)state;
    v4f r0 = v4f_set(0, 1, 2, 3), r1 = v4f_set(4, 5, 6, 7), r2 = v4f_set(8, 9, 10, 11), r3 = v4f_set(12, 13, 14, 15);
    v4f_transpose4(&r0, &r1, &r2, &r3);
    OSSA_ALIGNAS(16) float out[4][4];
    v4f_store(out[0], r0), v4f_store(out[1], r1), v4f_store(out[2], r2), v4f_store(out[3], r3);
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) assert_true(out[i][j] == (float)(j * 4 + i));
    v4f_store(out[0], V4F_SPLAT(v4f_set(1, 2, 3, 4), 2));
    for (int j = 0; j < 4; ++j) assert_true(out[0][j] == 3.f);
    assert_true(v4f_x(v4f_set(7, 8, 9, 10)) == 7.f);
}

static void test_int4(void **state)
{
    (void)state;
    OSSA_ALIGNAS(16) int32_t out[4];
    v4i_store(out, v4i_add(v4i_set(1, -2, 3, 0x7ffffff0), v4i_set(5, 6, -7, 15)));
    assert_int_equal(out[0], 6), assert_int_equal(out[1], 4), assert_int_equal(out[2], -4);
    assert_int_equal(out[3], 0x7fffffff);
    v4i_store(out, V4I_SRL(v4i_set(-1, 256, 3, 8), 2));
    assert_int_equal((uint32_t)out[0], 0x3fffffffu), assert_int_equal(out[1], 64), assert_int_equal(out[3], 2);
    v4i_store(out, v4i_cmpgt(v4i_set(1, 2, 3, 4), v4i_set1(2)));
    assert_int_equal(out[0], 0), assert_int_equal(out[2], -1);
}

/* Every one of the 65536 half values converts like the scalar reference, and scalar
 * float->half->float round trips for every half. */
static void test_half_conversion_exhaustive(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; h += 4) {
        OSSA_ALIGNAS(16) float out[4];
        v4f_store(out, v4f_from_half(v4i_set((int32_t)h, (int32_t)h + 1, (int32_t)h + 2, (int32_t)h + 3)));
        for (uint32_t l = 0; l < 4; ++l) {
            const float ref = ossa_half_to_float((uint16_t)(h + l));
            if (isnan(ref)) {
                assert_true(isnan(out[l]));
                continue;
            }
            assert_memory_equal(&out[l], &ref, sizeof ref);
            assert_int_equal(ossa_float_to_half(ref), h + l);
        }
    }
    /* Known values and rounding. */
    assert_int_equal(ossa_float_to_half(1.f), 0x3c00);
    assert_int_equal(ossa_float_to_half(-2.f), 0xc000);
    assert_int_equal(ossa_float_to_half(65504.f), 0x7bff);
    assert_int_equal(ossa_float_to_half(65520.f), 0x7c00);
    assert_int_equal(ossa_float_to_half(5.9604645e-8f), 0x0001);
    assert_int_equal(ossa_float_to_half(1.f + 1.f / 2048.f), 0x3c00); /* tie to even */
    assert_int_equal(ossa_float_to_half(1.f + 3.f / 2048.f), 0x3c02); /* tie to even, up */
    assert_true(ossa_half_to_float(0x3555) > .333f && ossa_half_to_float(0x3555) < .3334f);
    /* Relative error bound 2^-11 for normal values. */
    uint32_t s = 5;
    for (int i = 0; i < 10000; ++i) {
        const float f = ossa_test_randf(&s, -60000.f, 60000.f);
        const float back = ossa_half_to_float(ossa_float_to_half(f));
        assert_true(fabsf(back - f) <= fabsf(f) / 2048.f + 6e-8f);
    }
}

static void quat_ref_normalize(const float in[4], float out[4])
{
    double n = 0;
    for (int i = 0; i < 4; ++i) n += (double)in[i] * (double)in[i];
    n = sqrt(n);
    for (int i = 0; i < 4; ++i) out[i] = (float)((double)in[i] / n);
}

static void test_soa_quaternion_normalize_nlerp(void **state)
{
    (void)state;
    uint32_t s = 9;
    for (int it = 0; it < 200; ++it) {
        ossa_soa_quat a, b, r;
        float qa[4][4], qb[4][4];
        for (int l = 0; l < 4; ++l) {
            for (int c = 0; c < 4; ++c)
                qa[l][c] = ossa_test_randf(&s, -1.f, 1.f), qb[l][c] = ossa_test_randf(&s, -1.f, 1.f);
            quat_ref_normalize(qa[l], qa[l]);
            quat_ref_normalize(qb[l], qb[l]);
            a.x[l] = qa[l][0], a.y[l] = qa[l][1], a.z[l] = qa[l][2], a.w[l] = qa[l][3];
            b.x[l] = qb[l][0], b.y[l] = qb[l][1], b.z[l] = qb[l][2], b.w[l] = qb[l][3];
        }
        const float alpha = ossa_test_randf(&s, 0.f, 1.f);
        v4fq_store(&r, v4fq_nlerp(v4fq_load(&a), v4fq_load(&b), v4f_set1(alpha), true));
        for (int l = 0; l < 4; ++l) {
            double dot = 0;
            for (int c = 0; c < 4; ++c) dot += (double)qa[l][c] * (double)qb[l][c];
            float mix[4], ref[4];
            for (int c = 0; c < 4; ++c) {
                const float bc = dot < 0 ? -qb[l][c] : qb[l][c];
                mix[c] = qa[l][c] + (bc - qa[l][c]) * alpha;
            }
            quat_ref_normalize(mix, ref);
            assert_float_equal(r.x[l], ref[0], 1e-5f);
            assert_float_equal(r.y[l], ref[1], 1e-5f);
            assert_float_equal(r.z[l], ref[2], 1e-5f);
            assert_float_equal(r.w[l], ref[3], 1e-5f);
        }
    }
}

static void test_scalar_quaternion_and_matrix(void **state)
{
    (void)state;
    /* 90 degrees about z maps x to y. */
    const ossa_quat qz = ossa_quat_from_euler(0.f, 0.f, (float)M_PI_2, "xyz");
    const ossa_float3 v = ossa_quat_rotate(qz, (ossa_float3){1.f, 0.f, 0.f});
    assert_float_equal(v.x, 0.f, 1e-6f), assert_float_equal(v.y, 1.f, 1e-6f);
    /* Order matters: x then z, versus z then x, on the y axis. */
    const ossa_quat xz = ossa_quat_from_euler((float)M_PI_2, 0.f, (float)M_PI_2, "xyz");
    const ossa_float3 w = ossa_quat_rotate(xz, (ossa_float3){0.f, 1.f, 0.f}); /* y -x-> z -z-> z */
    assert_float_equal(w.z, 1.f, 1e-6f);
    const ossa_quat zx = ossa_quat_from_euler((float)M_PI_2, 0.f, (float)M_PI_2, "zyx");
    const ossa_float3 u = ossa_quat_rotate(zx, (ossa_float3){0.f, 1.f, 0.f}); /* y -z-> -x -x-> -x */
    assert_float_equal(u.x, -1.f, 1e-6f);
    /* Matrix of a transform applied to a point equals scale, rotate, translate by hand. */
    const ossa_transform t = {{1.f, 2.f, 3.f}, qz, {2.f, 3.f, 4.f}};
    const ossa_float4x4 m = ossa_float4x4_from_transform(&t);
    const ossa_float3 p = {1.f, 1.f, 1.f};
    const ossa_float3 rp = ossa_quat_rotate(qz, (ossa_float3){2.f, 3.f, 4.f});
    for (int r = 0; r < 3; ++r) {
        const float got = m.cols[0][r] * p.x + m.cols[1][r] * p.y + m.cols[2][r] * p.z + m.cols[3][r];
        const float want = (r == 0 ? rp.x + 1.f : r == 1 ? rp.y + 2.f : rp.z + 3.f);
        assert_float_equal(got, want, 1e-5f);
    }
    const ossa_float4x4 id = ossa_float4x4_identity();
    const ossa_float4x4 mm = ossa_float4x4_mul(&id, &m);
    assert_memory_equal(&mm, &m, sizeof m);
    assert_float_equal(ossa_quat_normalize((ossa_quat){0.f, 0.f, 0.f, 0.f}).w, 1.f, 0.f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float4_arithmetic),
        cmocka_unit_test(test_transpose_and_splat),
        cmocka_unit_test(test_int4),
        cmocka_unit_test(test_half_conversion_exhaustive),
        cmocka_unit_test(test_soa_quaternion_normalize_nlerp),
        cmocka_unit_test(test_scalar_quaternion_and_matrix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
