/* Private: the search's reference (animation_reference.c), each joint's four points at every
 * measured time as the error report (ossa_measure_error) computes them from the source:
 * ossa__raw_animation_sample_pass at the time, model space along the parents
 * (ossa__raw_to_model), the joint's origin and its shell vertices (ossa__reference_joint_points).
 *
 * A row is one measured time of every joint. It is made the first time a measure reaches its
 * time, into blocks of OSSA__REFERENCE_BLOCK rows allocated then: a search whose every measure
 * stops at an early failing time (the long BVH captures, whose jumps from the last frame back
 * to the first no encoding holds) never makes or holds the rows after it.
 *
 * A root's model matrix is its local transform's, so a root's row keeps its rotation only
 * (16 B instead of 48 B): its points are rebuilt from that rotation and its translation and
 * scale, sampled from the source again (the same floats: the same function at the same time),
 * or taken once for a held channel (see ossa__clip), whose samples all == its first. A held
 * channel's sample can differ from the first only in the sign of a zero component, which
 * changes no point by more than the sign of a zero coordinate, and so no distance. Every
 * other joint keeps its four points (48 B). */
#ifndef OSSA_OFFLINE_ANIMATION_REFERENCE_H
#define OSSA_OFFLINE_ANIMATION_REFERENCE_H

#include <stdatomic.h>

#include "internal.h"
#include "matrix.h"
#include "ossa/offline/raw_animation.h"
#include "raw_sampling.h"

/* Rows per block of the reference. */
#define OSSA__REFERENCE_BLOCK 64
/* Bytes of a row per root and per other joint. */
#define OSSA__REFERENCE_ROOT_BYTES  (4 * sizeof(float))
#define OSSA__REFERENCE_OTHER_BYTES (12 * sizeof(float))

/* ossa__joint_points without its products by zero: origin c3 and vertices c3 + shell c_k, the
 * same floats for a finite matrix (x + 0 is x), with a third of the arithmetic. */
static inline void ossa__reference_joint_points(const ossa_float4x4 *m, float shell, float out[12])
{
    const float *t = m->cols[3];
    out[0] = t[0], out[1] = t[1], out[2] = t[2];
    for (int k = 0; k < 3; ++k)
        for (int c = 0; c < 3; ++c) out[3 * (k + 1) + c] = m->cols[k][c] * shell + t[c];
}

typedef struct ossa__reference {
    const ossa_raw_animation *raw;
    const int16_t *parents; /* [J] */
    const float *times;     /* [M] seconds */
    const float *shell;     /* [J] */
    const ossa_allocator *allocator;
    size_t J, M, roots, others;
    size_t *slot;             /* [J] a root's index among the roots, another joint's among the others */
    size_t *root;             /* [roots] the roots' joints */
    uint8_t *chained;         /* [J] 1: the row pass needs the joint's model matrix (not a root without children) */
    ossa_float3 *held;        /* [2 roots] a root's translation and scale when held; */
    uint8_t *is_held;         /* [2 roots] which of them is */
    size_t row_floats;        /* 4 roots + 12 others */
    _Atomic(float *) *blocks; /* [M / OSSA__REFERENCE_BLOCK + 1] */
    uint8_t *made;            /* [M] 1: the row is made */
    atomic_bool failed;       /* a block could not be allocated */
} ossa__reference;

/* One thread's working memory for rows and points. */
typedef struct ossa__reference_pass {
    ossa_transform *local; /* [J] */
    ossa_float4x4 *model;  /* [J] */
    size_t *cursors;       /* [3 J + 1] the row pass's key cursors */
    size_t *root_cursors;  /* [2 roots + 1] the roots' translation and scale cursors */
    float *roots;          /* [12 roots] every root's points at one time (ossa__reference_roots) */
} ossa__reference_pass;

/* Sets up the reference of `raw` at `times` [M] (kept, not copied, as are parents and shell);
 * no row is made. False when out of memory (ossa__reference_destroy releases what was made). */
bool ossa__reference_init(ossa__reference *ref, const ossa_raw_animation *raw, const int16_t *parents,
                          const float *times, size_t M, const float *shell, const ossa_allocator *allocator);
void ossa__reference_destroy(ossa__reference *ref);
bool ossa__reference_pass_init(const ossa__reference *ref, ossa__reference_pass *pass);
void ossa__reference_pass_free(const ossa__reference *ref, ossa__reference_pass *pass);

/* Makes row m if it is not made (false when out of memory: then ref->failed is set). Two
 * threads must not make the same row at once; once made, rows are only read. */
bool ossa__reference_make_row(ossa__reference *ref, ossa__reference_pass *pass, size_t m);

/* Row m (made): the roots' rotations (4 floats each), then the other joints' points (12). */
static inline const float *ossa__reference_row(const ossa__reference *ref, size_t m)
{
    return atomic_load_explicit(&ref->blocks[m / OSSA__REFERENCE_BLOCK], memory_order_relaxed) +
           (m % OSSA__REFERENCE_BLOCK) * ref->row_floats;
}

/* Root number r's points at measured time m (row m made) into `out`, with the pass's cursors. */
static inline void ossa__reference_root_points(const ossa__reference *ref, ossa__reference_pass *pass, size_t m,
                                               size_t r, float out[12])
{
    const size_t j = ref->root[r], slot = r;
    const ossa_raw_joint_track *t = &ref->raw->tracks[j];
    const float *q = ossa__reference_row(ref, m) + 4 * slot;
    ossa_transform local;
    local.rotation = (ossa_quat){q[0], q[1], q[2], q[3]};
    local.translation = ref->is_held[2 * slot]
                            ? ref->held[2 * slot]
                            : ossa__raw_sample_float3(ref->raw, t->translations, t->translation_count, ref->times[m],
                                                      (ossa_float3){0.f, 0.f, 0.f}, &pass->root_cursors[2 * slot]);
    local.scale = ref->is_held[2 * slot + 1]
                      ? ref->held[2 * slot + 1]
                      : ossa__raw_sample_float3(ref->raw, t->scales, t->scale_count, ref->times[m],
                                                (ossa_float3){1.f, 1.f, 1.f}, &pass->root_cursors[2 * slot + 1]);
    const ossa_float4x4 model = ossa__float4x4_from_transform(&local);
    ossa__reference_joint_points(&model, ref->shell[j], out);
}

/* Every root's points at measured time m (row m made) into pass->roots. */
void ossa__reference_roots(const ossa__reference *ref, ossa__reference_pass *pass, size_t m);

/* Joint j's points at measured time m (row m made), 12 floats: in the row for a joint that is
 * not a root, else rebuilt into `out` with the pass's cursors. */
static inline const float *ossa__reference_points(const ossa__reference *ref, ossa__reference_pass *pass, size_t m,
                                                  size_t j, float out[12])
{
    if (ref->parents[j] >= 0) return ossa__reference_row(ref, m) + 4 * ref->roots + 12 * ref->slot[j];
    ossa__reference_root_points(ref, pass, m, ref->slot[j], out);
    return out;
}

#endif
