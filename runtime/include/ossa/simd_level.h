/* ossa/simd_level.h: which instruction set runs the runtime's jobs.
 *
 *   printf("ossa jobs run on %s\n", ossa_simd_string(ossa_simd_level()));  // "avx2", "sse2", ...
 *
 * The default x86-64 build compiles the hot jobs twice (sampling, blending, local-to-model,
 * skinning, two-bone and aim IK): once for SSE2, the x86-64 baseline, and once for x86-64-v3
 * (AVX, AVX2, FMA, BMI1, BMI2, F16C, LZCNT and MOVBE, every x86-64 CPU since 2013-2015). The
 * first job run (or the first ossa_simd_level call) asks the CPU, with cpuid and xgetbv, whether
 * it has all of those and whether the operating system saves the YMM registers, and picks one
 * copy for the rest of the process. The environment variable OSSA_SIMD, read at that moment,
 * overrides the choice:
 *   OSSA_SIMD=sse2   the SSE2 copy;
 *   OSSA_SIMD=avx2   the x86-64-v3 copy where the CPU has it, the SSE2 copy otherwise;
 *   other values, or none: by the CPU.
 * The two copies give the same results up to the last bit of a fused multiply-add (one
 * rounding instead of two), within every bound the jobs document.
 *
 * The other builds have one copy and ignore OSSA_SIMD: AArch64 runs NEON; `-Dsimd=baseline`
 * SSE2 only; `-Dsimd=avx2` x86-64-v3 throughout (it needs such a CPU); `-DSIMDE_NO_NATIVE`
 * SIMDe's portable scalar code; the browser viewer WebAssembly SIMD.
 *
 * Threads: any thread may call these; the choice is made once (a race at the first use picks
 * the same copy in every thread).
 */
#ifndef OSSA_SIMD_LEVEL_H
#define OSSA_SIMD_LEVEL_H

#include "ossa/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An instruction set the jobs run on. */
typedef enum ossa_simd {
    OSSA_SIMD_PORTABLE, /* SIMDe's scalar code (-DSIMDE_NO_NATIVE, or a CPU SIMDe has no native path for) */
    OSSA_SIMD_SSE2,     /* x86-64 baseline */
    OSSA_SIMD_AVX2,     /* x86-64-v3: AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE */
    OSSA_SIMD_NEON,     /* AArch64 (and 32-bit ARM with NEON) */
    OSSA_SIMD_WASM,     /* WebAssembly SIMD (simd128) */
} ossa_simd;

/* The instruction set this process's jobs run on: in the dispatching x86-64 build, the copy
 * picked at the first use (OSSA_SIMD_SSE2 when OSSA_SIMD=avx2 asks for a copy the CPU cannot
 * run); elsewhere the one the library was compiled for. */
OSSA_API ossa_simd ossa_simd_level(void);

/* Lower-case name of a level: "portable", "sse2", "avx2", "neon", "wasm" (the values
 * OSSA_SIMD takes are "sse2" and "avx2"); "unknown" for a value outside the enum. Static
 * storage; never NULL. */
OSSA_API const char *ossa_simd_string(ossa_simd level);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_SIMD_LEVEL_H */
