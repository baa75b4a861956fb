/* The instruction-set choice (ossa/simd_level.h, runtime/dispatch.h): the x86-64-v3 check on
 * register values, the OSSA_SIMD override, and the level this process runs against the
 * compiler's own view of the CPU. The jobs' results on each path are covered by the other
 * runtime tests, which CI runs with OSSA_SIMD=sse2 and OSSA_SIMD=avx2. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "simd.h"
#include "test_util.h"

/* A CPU with every x86-64-v3 feature, as cpuid and xgetbv report one. */
static ossa__x86_cpu full_v3(void)
{
    return (ossa__x86_cpu){
        .max_leaf = 0x10,
        .leaf1_ecx = 1u << 0 | 1u << 9 | 1u << 12 | 1u << 13 | 1u << 19 | 1u << 20 | 1u << 22 | 1u << 23 | 1u << 27 |
                     1u << 28 | 1u << 29,
        .leaf7_ebx = 1u << 3 | 1u << 5 | 1u << 8,
        .max_ext_leaf = 0x80000008u,
        .ext1_ecx = 1u << 0 | 1u << 5,
        .xcr0 = 0x7, /* x87, XMM, YMM */
    };
}

enum { THREADS = 4 };

static void *level_in_thread(void *out)
{
    *(ossa_simd *)out = ossa_simd_level();
    return NULL;
}

/* First in the program, so that the threads race at the choice: they all see one level, the
 * one every later call returns. */
static void test_first_use_from_threads(void **state)
{
    (void)state;
    /* Threads under qemu-user (the AArch64 build's test runner) can hang: not there. That build
     * has one copy of the jobs, so there is no choice to race at anyway; the Windows build has
     * both, and wine runs its threads natively. */
    const char *wrapper = getenv("MESON_EXE_WRAPPER");
    if (wrapper && strstr(wrapper, "qemu")) {
        print_message("skipped: threads under qemu-user (MESON_EXE_WRAPPER is %s)\n", wrapper);
        skip();
    }
    pthread_t t[THREADS];
    ossa_simd got[THREADS];
    for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_create(&t[i], NULL, level_in_thread, &got[i]), 0);
    for (int i = 0; i < THREADS; ++i) assert_int_equal(pthread_join(t[i], NULL), 0);
    for (int i = 0; i < THREADS; ++i) assert_int_equal(got[i], ossa_simd_level());
}

static void test_x86_64_v3_check(void **state)
{
    (void)state;
    ossa__x86_cpu c = full_v3();
    assert_true(ossa__x86_64_v3(&c));
    /* Each required bit alone missing. */
    const int leaf1_bits[] = {0, 9, 12, 13, 19, 20, 22, 23, 27, 28, 29};
    for (size_t i = 0; i < sizeof leaf1_bits / sizeof *leaf1_bits; ++i) {
        c = full_v3();
        c.leaf1_ecx &= ~(1u << leaf1_bits[i]);
        assert_false(ossa__x86_64_v3(&c));
    }
    const int leaf7_bits[] = {3, 5, 8};
    for (size_t i = 0; i < 3; ++i) {
        c = full_v3();
        c.leaf7_ebx &= ~(1u << leaf7_bits[i]);
        assert_false(ossa__x86_64_v3(&c));
    }
    const int ext_bits[] = {0, 5};
    for (size_t i = 0; i < 2; ++i) {
        c = full_v3();
        c.ext1_ecx &= ~(1u << ext_bits[i]);
        assert_false(ossa__x86_64_v3(&c));
    }
    /* The OS does not save the YMM (or XMM) state: AVX code would fault. */
    c = full_v3(), c.xcr0 = 0x3;
    assert_false(ossa__x86_64_v3(&c));
    c = full_v3(), c.xcr0 = 0x5;
    assert_false(ossa__x86_64_v3(&c));
    /* Leaves beyond the reported maxima read as absent even if the bits were there. */
    c = full_v3(), c.max_leaf = 6;
    assert_false(ossa__x86_64_v3(&c));
    c = full_v3(), c.max_ext_leaf = 0x80000000u;
    assert_false(ossa__x86_64_v3(&c));
    /* Extra features (AVX-512 bits, other xcr0 state) change nothing. */
    c = full_v3(), c.leaf7_ebx = 0xffffffffu, c.xcr0 = 0xe7;
    assert_true(ossa__x86_64_v3(&c));
}

static void test_override(void **state)
{
    (void)state;
    assert_int_equal(ossa__simd_pick(NULL, true), OSSA__PICK_AVX2);
    assert_int_equal(ossa__simd_pick(NULL, false), OSSA__PICK_BASELINE);
    assert_int_equal(ossa__simd_pick("sse2", true), OSSA__PICK_BASELINE);
    assert_int_equal(ossa__simd_pick("sse2", false), OSSA__PICK_BASELINE);
    assert_int_equal(ossa__simd_pick("avx2", true), OSSA__PICK_AVX2);
    /* avx2 asked of a CPU without it: the baseline, which ossa_simd_level then reports. */
    assert_int_equal(ossa__simd_pick("avx2", false), OSSA__PICK_BASELINE);
    /* Other values choose by the CPU. */
    assert_int_equal(ossa__simd_pick("", true), OSSA__PICK_AVX2);
    assert_int_equal(ossa__simd_pick("SSE2", true), OSSA__PICK_AVX2);
    assert_int_equal(ossa__simd_pick("neon", false), OSSA__PICK_BASELINE);
}

/* The level against what the compiler's run-time CPU detection (libgcc's or compiler-rt's
 * __builtin_cpu_supports, which also checks the OS's YMM support) and OSSA_SIMD say. */
static void test_level_of_this_process(void **state)
{
    (void)state;
    const ossa_simd level = ossa_simd_level();
    print_message("ossa_simd_level: %s (OSSA_SIMD=%s)\n", ossa_simd_string(level),
                  getenv("OSSA_SIMD") ? getenv("OSSA_SIMD") : "(unset)");
#if defined(OSSA__DISPATCH)
    __builtin_cpu_init();
    bool v3 = __builtin_cpu_supports("avx") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
              __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt") &&
              __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("ssse3");
#if !defined(__clang__)
    v3 = v3 && __builtin_cpu_supports("f16c") && __builtin_cpu_supports("lzcnt") && __builtin_cpu_supports("movbe");
#endif
    const char *env = getenv("OSSA_SIMD");
    const bool forced_sse2 = env && strcmp(env, "sse2") == 0;
    assert_int_equal(level, v3 && !forced_sse2 ? OSSA_SIMD_AVX2 : OSSA_SIMD_SSE2);
#else
    /* One copy, the one this build's flags give (the test is compiled with the same ones). */
    assert_int_equal(level, OSSA__SIMD_COMPILED);
#endif
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(ossa_simd_string(OSSA_SIMD_PORTABLE), "portable");
    assert_string_equal(ossa_simd_string(OSSA_SIMD_SSE2), "sse2");
    assert_string_equal(ossa_simd_string(OSSA_SIMD_AVX2), "avx2");
    assert_string_equal(ossa_simd_string(OSSA_SIMD_NEON), "neon");
    assert_string_equal(ossa_simd_string(OSSA_SIMD_WASM), "wasm");
    assert_string_equal(ossa_simd_string((ossa_simd)99), "unknown");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_use_from_threads),
        cmocka_unit_test(test_x86_64_v3_check),
        cmocka_unit_test(test_override),
        cmocka_unit_test(test_level_of_this_process),
        cmocka_unit_test(test_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
