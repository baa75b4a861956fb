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

#endif
