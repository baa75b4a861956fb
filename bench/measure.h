/* The measurement frame the ossa benchmarks share (bench.c, ik.c, skinning.c): BENCH_REPS timed
 * repetitions of a measured loop, of which the middle one, BENCH_INSTRUMENTED, is bracketed by
 * MEASURE_START/MEASURE_STOP: callgrind's start and stop requests when valgrind/callgrind.h was
 * found (OSSA_HAVE_CALLGRIND; bench/callgrind*.sh run `--only N` under
 * `valgrind --tool=callgrind --instr-atstart=no`), nothing otherwise. The figure is the median. */
#ifndef OSSA_BENCH_MEASURE_H
#define OSSA_BENCH_MEASURE_H

#include <stdlib.h>

#include "tools.h"

#if defined(OSSA_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#define MEASURE_START() CALLGRIND_START_INSTRUMENTATION
#define MEASURE_STOP()  CALLGRIND_STOP_INSTRUMENTATION
#else
#define MEASURE_START() ((void)0)
#define MEASURE_STOP()  ((void)0)
#endif

#define BENCH_REPS         9
#define BENCH_INSTRUMENTED (BENCH_REPS / 2)

/* The median of the BENCH_REPS figures (sorts them). */
static inline double bench_median(double reps[BENCH_REPS])
{
    qsort(reps, BENCH_REPS, sizeof *reps, tool_compare_doubles);
    return reps[BENCH_REPS / 2];
}

#endif /* OSSA_BENCH_MEASURE_H */
