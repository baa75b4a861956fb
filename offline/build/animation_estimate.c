/* What an error-bounded build will cost before it starts: ossa_animation_build_memory and
 * ossa_animation_build_seconds (ossa/offline/builders.h), from the counts that the clip's
 * (animation_clip.c) and the search's (animation_search.c) allocations and loops follow. */
#include <string.h>

#include "animation_codec.h"
#include "animation_reference.h"
#include "animation_search.h"
#include "internal.h"
#include "ossa/sampling_job.h"

/* Saturating a * b + c for the estimates. */
static size_t mul_add(size_t a, size_t b, size_t c)
{
    size_t ab;
    if (!ossa__mul_size(a, b, &ab) || !ossa__add_size(ab, c, &ab)) return SIZE_MAX;
    return ab;
}

/* What the estimates are made of: the counts the builder's allocations and loops follow. */
typedef struct build_shape {
    size_t J;        /* tracks */
    size_t T;        /* time points: distinct key times, plus 0 and the duration */
    size_t keys;     /* keys of every channel of every track, plus 2 */
    size_t M;        /* measured times (error-bounded builds) */
    size_t keyed;    /* sub-tracks that are not held: sampled at every time point, and that may be
                        stored as keys (see ossa__clip_subtracks_alloc) */
    size_t subtrees; /* error-bounded: the sum of every joint's subtree size (loosening's work) */
    size_t parents;  /* error-bounded: joints with children (loosening keeps their matrices) */
    size_t isolated; /* error-bounded: roots without children (loosening keeps no poses of them) */
    size_t roots;    /* error-bounded: joints without a parent (the reference keeps their rotations) */
    unsigned threads;
    bool bounded;
} build_shape;

static bool shape_of(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc, build_shape *shape)
{
    memset(shape, 0, sizeof *shape);
    if (!raw || ossa_raw_animation_validate(raw, NULL) != OSSA_OK) return false;
    shape->J = raw->track_count;
    shape->keys = 2;
    for (size_t j = 0; j < raw->track_count; ++j) {
        const ossa_raw_joint_track *t = &raw->tracks[j];
        /* Held sub-tracks are never keyed; exactly constant or default curves of more keys
         * count as keyed (and sampled). */
        for (int c = 0; c < 3; ++c) shape->keyed += !ossa__raw_channel_held(t, c);
        shape->keys = mul_add(1, shape->keys, t->translation_count);
        shape->keys = mul_add(1, shape->keys, t->rotation_count);
        shape->keys = mul_add(1, shape->keys, t->scale_count);
    }
    shape->bounded = desc->tolerance > 0.f;
    shape->threads =
        desc->threads > OSSA__SEARCH_MAX_THREADS ? OSSA__SEARCH_MAX_THREADS : (desc->threads ? desc->threads : 1);
#if !OSSA_HAVE_PTHREADS
    shape->threads = 1;
#endif
    /* Out of memory for the lists: the estimates saturate (a build would not start either). */
    size_t T = 0;
    const ossa_allocator *a = desc->allocator;
    float *times = ossa__source_key_times(raw, a, &T);
    shape->T = times ? mul_add(1, T, 2) : SIZE_MAX;
    shape->M = shape->bounded ? SIZE_MAX : 0;
    if (times && shape->bounded) {
        /* measured_times' count without its sort: both lists are ascending, so a merge counts
         * their distinct union. */
        const float rate = ossa__fixed_rate(OSSA__SEARCH_FIXED_RATE, raw->duration);
        const size_t n = ossa__thinned_fixed(times, T, rate, raw->duration, NULL);
        float *fixed = ossa__calloc(a, n ? n : 1, sizeof *fixed);
        if (fixed) {
            ossa__thinned_fixed(times, T, rate, raw->duration, fixed);
            size_t M = 0, i = 0, k = 0;
            float last = 0.f;
            while (i < T || k < n) {
                const float t = k == n || (i < T && times[i] <= fixed[k]) ? times[i++] : fixed[k++];
                if (M == 0 || t != last) ++M, last = t;
            }
            shape->M = M;
        }
        ossa_free(a, fixed);
    }
    ossa_free(a, times);
    if (!shape->bounded) return true;
    /* Each joint counts once per ancestor and once for itself (parents of a valid skeleton are
     * acyclic; without one, every joint is a root). */
    const ossa_raw_skeleton *skel = desc->skeleton;
    const bool chain =
        skel && skel->joint_count == raw->track_count && ossa_raw_skeleton_validate(skel, NULL) == OSSA_OK;
    for (size_t j = 0; j < shape->J; ++j) {
        size_t depth = 1;
        for (int32_t p = chain ? skel->joints[j].parent : -1; p >= 0; p = skel->joints[p].parent) ++depth;
        shape->subtrees = mul_add(1, shape->subtrees, depth);
        /* A parent is counted at its first child: children follow their parent depth-first,
         * so the joint just before a first child is its parent. */
        const int32_t p = chain ? skel->joints[j].parent : -1;
        if (p >= 0 && (size_t)p + 1 == j) ++shape->parents;
        const bool has_child = chain && j + 1 < shape->J && skel->joints[j + 1].parent == (int32_t)j;
        if (p < 0 && !has_child) ++shape->isolated;
        shape->roots += p < 0;
    }
    return true;
}

size_t ossa_animation_build_memory(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc)
{
    const ossa_animation_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    build_shape b;
    if (!shape_of(raw, desc, &b)) return 0;
    const size_t J = b.J, T = b.T, S = 3 * J, K = b.keyed;
    /* The clip: samples (16 B) and source-key flags (1 B) per sub-track that is not held and
     * time point, one row of them per held sub-track, each sub-track's first row and flag, and
     * the time point table. */
    size_t bytes = mul_add(mul_add(K, T, 0), 17, mul_add(T, sizeof(float), 0));
    bytes = mul_add(S - K, 17, bytes);
    bytes = mul_add(S, sizeof(size_t) + 1, bytes);
    /* Sub-tracks that may be keyed: key flags and quantised keys (17 B per time point); one
     * encoder's scratch (88 B per time point). */
    bytes = mul_add(mul_add(K, T, 0), 17, bytes);
    bytes = mul_add(S, sizeof(ossa__subtrack), bytes);
    bytes = mul_add(T, 88, bytes);
    /* The largest blob: 4 components of 24 bits per sub-track that is not held (a held one is
     * never stored as keys) and time point, the time point table, 12 B per sub-track for a
     * constant and 64 B per track for kinds, formats, widths and ranges. The lossless one is
     * the caller's; an error-bounded build holds the best candidate and the next. */
    const size_t blob = mul_add(mul_add(K, 12, 4), T, mul_add(S, 12, mul_add(J, 64, 4096)));
    /* Before all that, every key time is collected in a table grown by doubling (the old and
     * the new table at once); it can be the peak of a clip with many keys and few tracks. */
    size_t capacity = 4;
    while (capacity < b.keys && capacity <= SIZE_MAX / 4) capacity *= 2;
    const size_t collect = mul_add(capacity, 3 * sizeof(float) / 2, 0);
    if (collect > bytes) bytes = collect;
    if (!b.bounded) return bytes;
    bytes = mul_add(blob, 1, bytes);
    /* The search: per measured time (in whole blocks of rows), the reference's rotation per
     * root (16 B) and points per other joint (48 B), a flag, and a block's address per block;
     * while loosening decoded local transforms (40 B) per joint that is not isolated (and one
     * row for the isolated joint being loosened), their slack (12 B) and model matrices (48 B)
     * per joint with children, and the local transforms' matrices (48 B) within their budget;
     * the time (4 B), a trial's values (16 B); per extra thread an encoder's scratch; the trial
     * sub-track (17 B per time point). A clip that no encoding passes is not loosened and peaks
     * lower by the loosening's arrays, and by the reference rows its measures never reach. Per
     * joint: the ratios of the per-joint measure (one array per thread, two more), the marks
     * and slots. */
    const size_t blocks = b.M / OSSA__REFERENCE_BLOCK + 1;
    const size_t row =
        mul_add(b.roots, OSSA__REFERENCE_ROOT_BYTES, mul_add(J - b.roots, OSSA__REFERENCE_OTHER_BYTES, 0));
    bytes = mul_add(mul_add(blocks, OSSA__REFERENCE_BLOCK, 0), row, bytes);
    bytes = mul_add(blocks, sizeof(float *), mul_add(b.M, 1, bytes));
    bytes = mul_add(mul_add(b.M, J - b.isolated + 1, 0), sizeof(ossa_transform), bytes);
    bytes = mul_add(mul_add(b.M, b.parents, 0), OSSA__AFFINE_BYTES, bytes);
    /* The local transforms' matrices, when they fit their budget. */
    const size_t local_matrices = mul_add(mul_add(b.M, J - b.isolated, 0), OSSA__AFFINE_BYTES, 0);
    if (local_matrices <= OSSA__LOCAL_MATRIX_BUDGET)
        bytes = mul_add(local_matrices, 1, mul_add(1, OSSA__AFFINE_BYTES, bytes));
    /* Loosening's slack: three floats per joint in a hierarchy and time, a bound per time and
     * thread. */
    bytes = mul_add(mul_add(b.M, J - b.isolated, 0), 3 * sizeof(float), mul_add(b.M, b.threads * sizeof(float), bytes));
    /* Its shares among the threads: an owner per joint, and two words per joint while they are made. */
    bytes = mul_add(J, sizeof(unsigned) + 2 * sizeof(size_t), bytes);
    bytes = mul_add(b.M, 20, bytes);
    bytes = mul_add(mul_add(T, 88, 0), b.threads - 1, bytes);
    /* Per extra thread while loosening isolated joints: a trial sub-track, its values and
     * one joint's poses at every measured time. */
    bytes = mul_add(mul_add(b.M, 16 + sizeof(ossa_transform), mul_add(T, 17, 0)), b.threads - 1, bytes);
    bytes = mul_add(T, 17, bytes);
    /* Each sub-track's facts (ossa__clip_facts_init). */
    bytes = mul_add(S, sizeof(ossa__subtrack_facts), bytes);
    bytes = mul_add(J, 3 * sizeof(size_t) + sizeof(size_t) + 3 + 2 * sizeof(float) + b.threads * sizeof(float), bytes);
    /* Per thread of the reference: a pose, a matrix and key cursors per joint, and per root
     * two cursors, its points, its slot and held values; while loosening isolated joints, one
     * joint's points at every measured time. */
    const size_t pass = mul_add(
        J, sizeof(ossa_transform) + sizeof(ossa_float4x4) + 3 * sizeof(size_t) + 2,
        mul_add(b.roots, 2 * sizeof(size_t) + 12 * sizeof(float) + sizeof(size_t) + 2 * sizeof(ossa_float3) + 2, 0));
    bytes = mul_add(pass, b.threads, bytes);
    if (b.isolated) bytes = mul_add(mul_add(b.M, 12 * sizeof(float), 0), b.threads, bytes);
    /* The final verification (ossa__measure_joints, one pass at a time, its times shared among
     * the threads, each with its own pass's memory and, but the first, each joint's worst error
     * and its time) and each joint's worst error and its time. */
    bytes = mul_add(J, 2 * sizeof(float), bytes);
    bytes = mul_add(mul_add(J, 2 * sizeof(float), 0), b.threads - 1, bytes);
    /* ... beside every search worker's own sampling context, pose, model matrices and joint
     * ratios, which live through the whole search: the verification's passes add to them
     * (with three threads the counted peak held up to six contexts, three of each). */
    const size_t worker = mul_add(J, sizeof(ossa_float4x4) + sizeof(float),
                                  mul_add((J + 3) / 4 + 1, sizeof(ossa_soa_transform), ossa_sampling_context_size(J)));
    bytes = mul_add(worker, b.threads, bytes);
    return mul_add(b.threads, ossa__measure_joints_memory(J), bytes);
}

/* Calibration of ossa_animation_build_seconds (see its docstring and docs/error-metric.md):
 * nanoseconds of one core per unit of each kind of work, fitted on the CPU time of
 * single-threaded builds of CMU 01_01 (whole and five times over), the ozz pab clips and
 * generated sparse clips, on an x86-64 server core of 2020 (SSE2 build, -O3). */
#define NS_PER_SAMPLED    300.0 /* one sub-track at one time point: the clip's samples, a lossless encoding */
#define NS_PER_ENCODED    5.0   /* one sub-track at one time point, one encoding of the search */
#define NS_PER_MEASURED   80.0  /* one joint at one measured time: sampling, model space, points */
#define NS_PER_LOOSENED   30.0  /* one joint of a subtree at one measured time, one loosening try */
#define TYPICAL_ENCODINGS 12.0  /* encodings (and measurements) of a typical search */

double ossa_animation_build_seconds(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc)
{
    const ossa_animation_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    build_shape b;
    if (!shape_of(raw, desc, &b)) return 0.0;
    const double S = 3.0 * (double)b.J, T = (double)b.T;
    const double clip = S * T * NS_PER_SAMPLED;
    if (!b.bounded) return clip * 1e-9;
    /* Encoding and measuring are shared among the threads; loosening is not. */
    const double shared = TYPICAL_ENCODINGS * (S * T * NS_PER_ENCODED + (double)b.M * (double)b.J * NS_PER_MEASURED);
    const double alone = (double)OSSA__LOOSEN_FACTORS * 3.0 * (double)b.M * (double)b.subtrees * NS_PER_LOOSENED;
    return (clip + shared / (double)b.threads + alone) * 1e-9;
}
