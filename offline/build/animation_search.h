/* Private: what the search (animation_search.c) and its cost estimates (animation_estimate.c)
 * share, so that the estimates count what the search allocates and runs. */
#ifndef OSSA_OFFLINE_ANIMATION_SEARCH_H
#define OSSA_OFFLINE_ANIMATION_SEARCH_H

/* Encoding and measuring threads at most (ossa_animation_build_desc.threads is clamped). */
#define OSSA__SEARCH_MAX_THREADS 16
/* The fixed rate the error is also measured at (as ossa_measure_error's default), in Hz. */
#define OSSA__SEARCH_FIXED_RATE 60.f
/* Loosening's factors (one pass over the sub-tracks each). */
#define OSSA__LOOSEN_FACTORS 3
/* A model-space matrix without its bottom row, as loosening keeps it per joint with children
 * and measured time. */
#define OSSA__AFFINE_BYTES (12 * sizeof(float))
/* Loosening also keeps the matrix (48 B, without its bottom row) of each kept local transform
 * of a joint in a hierarchy at each measured time, so that a try's check multiplies the
 * subtree's matrices without forming them, when they take at most this many bytes: ruby's
 * 4.3 MB take 6.4 % of its bake's instructions off; CMU 01_01's 7.5 MB (31 joints at 5,000
 * times, where most tries check small subtrees) would take 0.7 %. */
#define OSSA__LOCAL_MATRIX_BUDGET ((size_t)6 << 20)

/* Loosening's slack bound (animation_search.c, slack_passes): on, unless a test turns it off to
 * compare a build's bytes with those of one whose tries are all checked at every time (they
 * must be the same); and the tries' times it has passed without their matrices, over every
 * build in the process. Hidden, as the library's other internal data. */
#include <stdatomic.h>
#if defined(_WIN32)
extern atomic_bool ossa__loosen_by_slack;
extern atomic_size_t ossa__loosen_slack_passes;
#else
extern __attribute__((visibility("hidden"))) atomic_bool ossa__loosen_by_slack;
extern __attribute__((visibility("hidden"))) atomic_size_t ossa__loosen_slack_passes;
#endif

#endif
