/* The measurement frame the ossa benchmarks share (bench.c, ik.c, skinning.c): BENCH_REPS timed
 * repetitions of a measured loop, of which the middle one, BENCH_INSTRUMENTED, is bracketed by
 * MEASURE_START/MEASURE_STOP: callgrind's start and stop requests when valgrind/callgrind.h was
 * found (OSSA_HAVE_CALLGRIND; bench/callgrind*.sh run `--only N` under
 * `valgrind --tool=callgrind --instr-atstart=no`), nothing otherwise. The figure is the median. */
#ifndef OSSA_BENCH_MEASURE_H
#define OSSA_BENCH_MEASURE_H

#include <stdio.h>
#include <stdlib.h>

#include "ossa/simd_level.h"
#include "tools.h"

#if defined(OSSA_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#define MEASURE_START() CALLGRIND_START_INSTRUMENTATION
#define MEASURE_STOP()  CALLGRIND_STOP_INSTRUMENTATION
#else
#define MEASURE_START() ((void)0)
#define MEASURE_STOP()  ((void)0)
#endif

/* The instruction set the jobs run on (ossa_simd_level: in the dispatching x86-64 build the
 * CPU's, or OSSA_SIMD's), printed by `--simd` and above the tables: figures of the SSE2 and
 * the x86-64-v3 paths differ. */
static inline const char *bench_simd(void) { return ossa_simd_string(ossa_simd_level()); }
static inline void bench_print_simd_line(void)
{
    printf("Jobs run on: %s (OSSA_SIMD=%s)\n\n", bench_simd(), getenv("OSSA_SIMD") ? getenv("OSSA_SIMD") : "unset");
}

#define BENCH_REPS         9
#define BENCH_INSTRUMENTED (BENCH_REPS / 2)

/* The median of the BENCH_REPS figures (sorts them). */
static inline double bench_median(double reps[BENCH_REPS])
{
    qsort(reps, BENCH_REPS, sizeof *reps, tool_compare_doubles);
    return reps[BENCH_REPS / 2];
}

#endif /* OSSA_BENCH_MEASURE_H */
