/* Private: the choice between the two compiled copies of the hot jobs on x86-64 (see
 * ossa/simd_level.h and docs/architecture.md, "Dispatch").
 *
 * The dispatching build (-Dsimd=dispatch on x86-64, the default, which defines OSSA__DISPATCH
 * everywhere) compiles the source file of each hot job twice:
 *   - as usual, at the SSE2 baseline: everything, the job's `_run` included;
 *   - with -march=x86-64-v3 and OSSA__AVX2_KERNELS defined (runtime/meson.build): only what
 *     `_run` does, behind one entry point, ossa__<job>_avx2. The public functions, and the
 *     helpers only they use, are left out of this copy by `#if !defined(OSSA__AVX2_KERNELS)`.
 * What `_run` does is a static always-inline function of the job's file, `run`: it validates
 * (calling the job's one `_validate`, or for the IK jobs inlining the same validate() source),
 * then works. The public `_run` is
 *     if (ossa__avx2_chosen()) return ossa__<job>_avx2(job);
 *     return run(job);
 * so the SSE2 path is the code of a build without dispatch behind one load, compare and
 * branch, and the x86-64-v3 path a second compare and a jump to the other copy.
 *
 * The choice is the runtime's one piece of global state: an atomic int in dispatch.c, 0 until
 * the first job run or ossa_simd_level() call sets it from cpuid and OSSA_SIMD. Threads that
 * race there compute the same value and store it atomically (C11 atomics, relaxed: the value
 * is all that is published), so there is no lock and no data race. */
#ifndef OSSA_RUNTIME_DISPATCH_H
#define OSSA_RUNTIME_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "ossa/blending_job.h"
#include "ossa/ik_aim_job.h"
#include "ossa/ik_two_bone_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "ossa/simd_level.h"
#include "ossa/skinning_job.h"

/* The x86-64-v3 copies of the jobs' `_run` (without the dispatch). */
ossa_result ossa__sampling_avx2(const ossa_sampling_job *job);
ossa_result ossa__blending_avx2(const ossa_blending_job *job);
ossa_result ossa__local_to_model_avx2(const ossa_local_to_model_job *job);
ossa_result ossa__skinning_avx2(const ossa_skinning_job *job);
ossa_result ossa__ik_two_bone_avx2(const ossa_ik_two_bone_job *job);
ossa_result ossa__ik_aim_avx2(const ossa_ik_aim_job *job);
ossa_result ossa__ik_aim_chain_avx2(const ossa_ik_aim_chain_job *job);

/* Values of the choice. */
enum { OSSA__PICK_NONE = 0, OSSA__PICK_BASELINE = 1, OSSA__PICK_AVX2 = 2 };

/* The copy to run given OSSA_SIMD's value (NULL when unset) and whether the CPU runs
 * x86-64-v3 code: "sse2" forces the baseline, anything else follows the CPU. */
static inline int ossa__simd_pick(const char *env, bool cpu_has_v3)
{
    if (env && strcmp(env, "sse2") == 0) return OSSA__PICK_BASELINE;
    return cpu_has_v3 ? OSSA__PICK_AVX2 : OSSA__PICK_BASELINE;
}

/* What cpuid and xgetbv report, as the x86-64-v3 check needs it. */
typedef struct ossa__x86_cpu {
    uint32_t max_leaf;     /* cpuid(0).eax */
    uint32_t leaf1_ecx;    /* cpuid(1).ecx */
    uint32_t leaf7_ebx;    /* cpuid(7, 0).ebx (0 when max_leaf < 7) */
    uint32_t max_ext_leaf; /* cpuid(0x80000000).eax */
    uint32_t ext1_ecx;     /* cpuid(0x80000001).ecx (0 when max_ext_leaf < 0x80000001) */
    uint64_t xcr0;         /* xgetbv(0) (0 when the OS has not enabled it: leaf1_ecx bit 27 clear) */
} ossa__x86_cpu;

/* True when the CPU has every x86-64-v3 feature and the OS saves the XMM and YMM state.
 * Source: the x86-64 psABI's microarchitecture levels (v2: CMPXCHG16B, LAHF/SAHF, POPCNT,
 * SSE3, SSE4.1, SSE4.2, SSSE3; v3 adds AVX, AVX2, BMI1, BMI2, F16C, FMA, LZCNT, MOVBE,
 * OSXSAVE) and Intel's SDM vol. 1 14.3 (AVX needs OSXSAVE and XCR0 bits 1 and 2). The bits:
 * cpuid(1).ecx SSE3 0, SSSE3 9, FMA 12, CX16 13, SSE4.1 19, SSE4.2 20, MOVBE 22, POPCNT 23,
 * OSXSAVE 27, AVX 28, F16C 29; cpuid(7).ebx BMI1 3, AVX2 5, BMI2 8; cpuid(0x80000001).ecx
 * LAHF/SAHF 0, LZCNT 5. */
static inline bool ossa__x86_64_v3(const ossa__x86_cpu *c)
{
    const uint32_t leaf1 = 1u << 0 | 1u << 9 | 1u << 12 | 1u << 13 | 1u << 19 | 1u << 20 | 1u << 22 | 1u << 23 |
                           1u << 27 | 1u << 28 | 1u << 29;
    const uint32_t leaf7 = 1u << 3 | 1u << 5 | 1u << 8;
    const uint32_t ext1 = 1u << 0 | 1u << 5;
    const uint64_t xcr0 = 1u << 1 | 1u << 2; /* XMM and YMM state */
    return c->max_leaf >= 7 && c->max_ext_leaf >= 0x80000001u && (c->leaf1_ecx & leaf1) == leaf1 &&
           (c->leaf7_ebx & leaf7) == leaf7 && (c->ext1_ecx & ext1) == ext1 && (c->xcr0 & xcr0) == xcr0;
}

#if defined(OSSA__DISPATCH)
#include <stdatomic.h>

/* OSSA__PICK_*; NONE until the first use. Hidden, so that the jobs read it PC-relative rather
 * than through the global offset table (PE/COFF has neither: a DLL's own data is always read
 * directly, and the attribute does not exist there). */
#if defined(_WIN32)
extern atomic_int ossa__simd_picked;
#else
extern __attribute__((visibility("hidden"))) atomic_int ossa__simd_picked;
#endif
/* Reads the CPU and OSSA_SIMD, stores the choice and returns it (OSSA__PICK_BASELINE or
 * OSSA__PICK_AVX2). */
int ossa__simd_pick_now(void);

/* True when the x86-64-v3 copy runs: once the choice is made, one load and a compare on the
 * SSE2 path, a second compare on the AVX2 one. */
static inline bool ossa__avx2_chosen(void)
{
    const int picked = atomic_load_explicit(&ossa__simd_picked, memory_order_relaxed);
    if (picked == OSSA__PICK_BASELINE) return false;
    return picked == OSSA__PICK_AVX2 || ossa__simd_pick_now() == OSSA__PICK_AVX2;
}
#endif

#endif /* OSSA_RUNTIME_DISPATCH_H */
