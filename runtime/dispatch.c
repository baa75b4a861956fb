#include "dispatch.h"

#include <stdlib.h>

#include "simd.h"

#if defined(OSSA__DISPATCH)
#if !defined(__x86_64__) || !(defined(__GNUC__) || defined(__clang__))
#error "OSSA__DISPATCH is for x86-64 with GCC or Clang (meson.build enables it only there)"
#endif

/* The runtime's one global (dispatch.h): which copy of the hot jobs runs. */
atomic_int ossa__simd_picked;

static void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])
{
    __asm__ volatile("cpuid" : "=a"(out[0]), "=b"(out[1]), "=c"(out[2]), "=d"(out[3]) : "a"(leaf), "c"(subleaf));
}

/* cpuid and xgetbv, read only as far as they are defined: leaves up to the maximum each range
 * reports, xgetbv only when the OS has enabled it (OSXSAVE). The instruction is spelled in
 * bytes, so no -mxsave (which would allow xsave instructions elsewhere) is needed. */
static ossa__x86_cpu read_cpu(void)
{
    ossa__x86_cpu c = {0};
    uint32_t r[4];
    cpuid(0, 0, r);
    c.max_leaf = r[0];
    if (c.max_leaf >= 1) {
        cpuid(1, 0, r);
        c.leaf1_ecx = r[2];
    }
    if (c.max_leaf >= 7) {
        cpuid(7, 0, r);
        c.leaf7_ebx = r[1];
    }
    cpuid(0x80000000u, 0, r);
    c.max_ext_leaf = r[0];
    if (c.max_ext_leaf >= 0x80000001u) {
        cpuid(0x80000001u, 0, r);
        c.ext1_ecx = r[2];
    }
    if (c.leaf1_ecx & 1u << 27) {
        uint32_t lo, hi;
        __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0u)); /* xgetbv */
        c.xcr0 = (uint64_t)hi << 32 | lo;
    }
    return c;
}

int ossa__simd_pick_now(void)
{
    const ossa__x86_cpu cpu = read_cpu();
    const int picked = ossa__simd_pick(getenv("OSSA_SIMD"), ossa__x86_64_v3(&cpu));
    atomic_store_explicit(&ossa__simd_picked, picked, memory_order_relaxed);
    return picked;
}
#endif

ossa_simd ossa_simd_level(void)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return OSSA_SIMD_AVX2;
#endif
    return OSSA__SIMD_COMPILED;
}

const char *ossa_simd_string(ossa_simd level)
{
    switch (level) {
    case OSSA_SIMD_PORTABLE:
        return "portable";
    case OSSA_SIMD_SSE2:
        return "sse2";
    case OSSA_SIMD_AVX2:
        return "avx2";
    case OSSA_SIMD_NEON:
        return "neon";
    case OSSA_SIMD_WASM:
        return "wasm";
    }
    return "unknown";
}
