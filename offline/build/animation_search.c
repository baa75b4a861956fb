/* Error-driven encoding: local tolerances per sub-track, chosen against the model-space error
 * measured on the blob the runtime decodes (see ossa_animation_build in
 * ossa/offline/builders.h). */
#include <limits.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_jobs.h" /* measurements that do not depend on the CPU */
#include "animation_codec.h"
#include "animation_reference.h"
#include "animation_search.h"
#include "animation_format.h"
#include "internal.h"
#include "matrix.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "ossa/skeleton.h"

#if OSSA_HAVE_PTHREADS
#include <pthread.h>
#endif

static inline float max_f(float a, float b) { return a > b ? a : b; }
static inline float min_f(float a, float b) { return a < b ? a : b; }

/* Multiplier k of the local tolerances: searched by doubling or halving from 1 within these
 * bounds, then by this many bisection steps (in log space). */
#define K_MIN      (1.f / 1024.f)
#define K_MAX      64.f
#define BISECTIONS 3
/* After halving to this factor without a pass, the finest encoding is tried once. */
#define FLOOR_CHECK (1.f / 8.f)
/* Per-sub-track loosening after the search: factors tried, largest first. */
static const float LOOSEN[] = {4.f, 2.f, 1.41421356f};
_Static_assert(sizeof LOOSEN / sizeof *LOOSEN == OSSA__LOOSEN_FACTORS, "the estimates count the factors");
/* Loosening is checked with scalar float model-space maths, the verification (verify) in
 * double: they differ by float rounding, up to ~1e-7 of the model's size, which at a 0.05 mm
 * tolerance and 2 m is 0.5 %; this margin keeps the verification from failing. */
#define LOOSEN_MARGIN .99f
/* The least work (joints of the shares' subtrees, summed, times measured times) worth sharing
 * a hierarchy's loosening among the threads (share_hierarchy). */
#define HIERARCHY_SHARE_MIN 100000u
#define FIXED_RATE          OSSA__SEARCH_FIXED_RATE
/* Progress (ossa_animation_build_desc.progress): the share of the build at the start of the
 * search (the source sampled), at its end and at the end of the refinement (from timings of
 * the pab atlas and CMU 01_01 builds on 1 and 2 threads). The search's evaluations are not
 * known in advance: the n-th one reports 1 - SEARCH_DECAY^n of the search's share. */
#define PROGRESS_REFERENCE .10f
#define PROGRESS_SEARCH    .55f
#define PROGRESS_REFINE    .97f
#define SEARCH_DECAY       .75f

/* A model-space matrix without its bottom row, which is (0, 0, 0, 1) for every matrix the
 * search makes: the top three rows of a product a * b depend only on the top three rows of
 * a, and the points only on the top three rows, so storing them loses nothing (48 B instead
 * of 64 B per joint and time while loosening). */
typedef struct affine {
    float cols[4][3];
} affine;
_Static_assert(sizeof(affine) == OSSA__AFFINE_BYTES, "the estimates count its bytes");

static inline affine affine_of(const ossa_float4x4 *m)
{
    affine a;
    for (int c = 0; c < 4; ++c)
        a.cols[c][0] = m->cols[c][0], a.cols[c][1] = m->cols[c][1], a.cols[c][2] = m->cols[c][2];
    return a;
}

/* The matrix of transform t without its bottom row (ossa__float4x4_from_transform). */
static inline affine affine_of_transform(const ossa_transform *t)
{
    const ossa_float4x4 m = ossa__float4x4_from_transform(t);
    return affine_of(&m);
}

static inline ossa_float4x4 matrix_of(const affine *a)
{
    ossa_float4x4 m;
    for (int c = 0; c < 4; ++c)
        m.cols[c][0] = a->cols[c][0], m.cols[c][1] = a->cols[c][1], m.cols[c][2] = a->cols[c][2],
        m.cols[c][3] = c == 3 ? 1.f : 0.f;
    return m;
}

typedef struct search {
    const ossa__clip *clip;
    const ossa_raw_animation *raw;
    const ossa_animation_build_desc *desc;
    const char *name;
    ossa_diag *diag;
    size_t J, soa;
    const int16_t *parents;
    size_t *end;                         /* [J] one past the last joint of each subtree */
    float *tol, *shell, *radius, *floor; /* [J] */
    float *reach_scale;                  /* [J] largest model-space scale of each joint over the clip */
    float *mult;                         /* [3 J] per sub-track factor of its local tolerance */
    size_t M;                            /* measured samples: time points and fixed-rate times */
    float *times;                        /* [M] seconds, ascending */
    float *joint_max, *joint_time;       /* [J] the exact measurement's (verify) */
    float *joint_ratio;                  /* [J] each joint's largest error / tolerance (measure, per_joint) */
    float *last_ratio;                   /* [J] the same one round of tighten_failing before */
    float *best_mult;                    /* [3 J] mult when the best candidate was encoded */
    size_t isolated;                     /* joints that are roots without children */
    uint8_t *changed;                    /* [3 J] sub-tracks to encode again (encode_changed) */
    ossa__reference ref;                 /* the source's points at the measured times */
    /* Only while loosening (NULL before; see loosen): */
    ossa_transform *local; /* [M * L] decoded local transforms of the kept encoding, of the L joints
                              that are not isolated, joint j's at lslot[j] */
    affine *local_matrix;  /* [M * L + 1] their matrices (ossa__float4x4_from_transform), when
                              they fit OSSA__LOCAL_MATRIX_BUDGET; NULL otherwise */
    size_t *lslot;         /* [J] j's index among them; SIZE_MAX for an isolated joint */
    size_t L;
    ossa_transform *alone; /* [M] the same for the isolated joint being loosened */
    /* Slack of the L joints in a hierarchy, at [m * L + lslot[j]]: a lower bound of joint j's
     * tolerance (times LOOSEN_MARGIN) less its error at measured time m with the kept
     * encoding (own), the least of it over j's subtree (subtree), and a passing try's exact
     * figures (tried). A try whose change moves no point of the subtree by more than the
     * subtree's slack passes at m without its matrices (see slack_passes). */
    float *own_slack, *subtree_slack, *tried_slack;
    float *moved;    /* [threads * M] each worker's try's bound of the subtree's movement at m (see
                        worker.moved) */
    unsigned *owner; /* [J] while loosening on threads: the worker that loosens each joint of a
                        hierarchy (see share_hierarchy), UINT_MAX for the trunk */
    affine *model;   /* [M * P] the model-space matrices of the P joints that have children (the
                        only ones loosening reads), joint j's at slot[j] */
    size_t *slot;    /* [J] j's index among the joints with children; SIZE_MAX for a leaf */
    size_t P;
    ossa_skeleton skeleton;
    ossa_blob skeleton_blob;
    unsigned threads;      /* workers, 1 to MAX_THREADS */
    struct worker *worker; /* [threads] */
    ossa__subtrack *st;    /* [3 J] */
    ossa__subtrack trial;
    float *values; /* [4 M] a trial's decoded values */
    size_t evaluations;
    ossa__progress progress;
    bool refining;    /* in loosen(): evaluations no longer count as the search's */
    atomic_bool stop; /* a quick measure failed at some time: the other workers stop too */
    bool st_is_best;  /* st holds the encoding of the best candidate (no need to encode it again) */
    ossa__clock *clock;
} search;

/* Largest distance between the points of matrix m and the reference points, as the error
 * report (ossa_measure_error) computes it: the largest of the four squared distances, then
 * its square root, which is the largest of the four distances (sqrtf rounds correctly, so it
 * keeps their order) for one root instead of four. The points are ossa__reference_joint_points'
 * (origin c3, vertices c_k shell + c3) and each squared distance (dx dx + dy dy) + dz dz, in
 * four lanes: the same roundings as the scalar expressions, so the same floats. The fourth
 * lane of each row is a lane the sums never read; no load reads past ref[11]. */
OSSA__INLINE float point_error(const ossa_float4x4 *m, float shell, const float *ref)
{
    const v4f s = v4f_set1(shell), t = v4f_loadu(m->cols[3]);
    const v4f r3 = v4f_loadu(ref + 8); /* z of the third vertex, then the fourth's x, y, z */
    v4f d0 = v4f_sub(t, v4f_loadu(ref));
    v4f d1 = v4f_sub(v4f_add(v4f_mul(v4f_loadu(m->cols[0]), s), t), v4f_loadu(ref + 3));
    v4f d2 = v4f_sub(v4f_add(v4f_mul(v4f_loadu(m->cols[1]), s), t), v4f_loadu(ref + 6));
    v4f d3 = v4f_sub(v4f_add(v4f_mul(v4f_loadu(m->cols[2]), s), t), V4F_SHUFFLE(r3, r3, 1, 2, 3, 3));
    d0 = v4f_mul(d0, d0), d1 = v4f_mul(d1, d1), d2 = v4f_mul(d2, d2), d3 = v4f_mul(d3, d3);
    v4f_transpose4(&d0, &d1, &d2, &d3); /* d0: the four dx^2, d1: dy^2, d2: dz^2 */
    const v4f e = v4f_add(v4f_add(d0, d1), d2);
    const v4f h = v4f_max(e, V4F_SHUFFLE(e, e, 2, 3, 0, 1));
    return sqrtf(max_f(0.f, max_f(v4f_x(h), v4f_x(V4F_SHUFFLE(h, h, 1, 1, 1, 1)))));
}

enum { MAX_THREADS = OSSA__SEARCH_MAX_THREADS };

atomic_bool ossa__loosen_by_slack = true;
atomic_size_t ossa__loosen_slack_passes;

/* One thread's sampling state, and its share of a measure. */
typedef struct worker {
    search *s;
    void *context_memory;
    ossa_sampling_context *context;
    ossa_soa_transform *pose; /* [soa] */
    ossa_float4x4 *matrices;  /* [J] */
    ossa__encode_scratch scratch;
    ossa__reference_pass rpass; /* the reference's rows and roots' points */
    const ossa_animation *anim;
    size_t begin, end; /* measured times */
    bool quick, per_joint;
    float *joint_ratio; /* [J] with per_joint: each joint's largest ratio over the worker's times */
    /* While loosening isolated joints (worker 0's are the search's own): */
    ossa__subtrack *trial, own_trial;
    float *values;         /* [4 M] */
    ossa_transform *alone; /* [M] */
    float *points;         /* [12 M] the reference points of the isolated joint being loosened */
    bool changed;
    size_t failed_at;    /* the measured time the worker's last try failed at (SIZE_MAX: none yet) */
    float *moved;        /* [M] its try's bound of the subtree's movement at m; -1 where checked exactly */
    size_t slack_passes; /* the tries' times the bound passed (ossa__loosen_slack_passes) */
    float worst, worst_error;
    size_t worst_joint, worst_m;
    bool failed;
} worker;

static ossa_result model_space(search *s, worker *w)
{
    const ossa_local_to_model_job job = {
        .skeleton = &s->skeleton, .input = w->pose, .input_count = s->soa, .output = w->matrices, .output_count = s->J};
    return ossa__local_to_model_job_run_baseline(&job);
}

/* Runs `fn` on workers 1..count-1 in threads and on worker 0 here (all here when the library
 * has no threads or a thread does not start). */
static void run_workers(void *(*fn)(void *), void *items, size_t item_size, unsigned count)
{
    unsigned started = 1;
#if OSSA_HAVE_PTHREADS
    pthread_t ids[MAX_THREADS];
    for (unsigned t = 1; t < count; ++t, ++started)
        if (pthread_create(&ids[t], NULL, fn, (char *)items + t * item_size) != 0) break;
#endif
    for (unsigned t = 0; t < count; ++t)
        if (t == 0 || t >= started) fn((char *)items + t * item_size);
#if OSSA_HAVE_PTHREADS
    for (unsigned t = 1; t < started; ++t) pthread_join(ids[t], NULL);
#endif
}

/* The measured times, in seconds, distinct and ascending (*count of them): every source key
 * time and the fixed-rate samples thinned as ossa__thinned_fixed says, the times `ossa info`
 * measures too (ossa_measure_error). They stay times: the source is sampled at each time
 * itself and the blob at time / duration, as ossa_measure_error does. A reference taken at
 * ratio x duration instead is off by a float step of the time (1.9e-6 s at 21 s), which for a
 * toe moving at 4 m/s is 0.008 mm: the measure would judge another pose than `ossa info` does.
 * NULL when out of memory. */
static float *measured_times(const ossa_raw_animation *raw, const ossa_allocator *a, size_t *count)
{
    const float rate = ossa__fixed_rate(FIXED_RATE, raw->duration);
    size_t keys = 0, total = 0;
    float *key_times = ossa__source_key_times(raw, a, &keys);
    const size_t fixed = key_times ? ossa__thinned_fixed(key_times, keys, rate, raw->duration, NULL) : 0;
    float *times =
        key_times && ossa__add_size(keys, fixed, &total) ? ossa__calloc(a, total ? total : 1, sizeof *times) : NULL;
    if (!times) {
        ossa_free(a, key_times);
        return NULL;
    }
    memcpy(times, key_times, keys * sizeof *times);
    const size_t n = keys + ossa__thinned_fixed(key_times, keys, rate, raw->duration, times + keys);
    ossa_free(a, key_times);
    qsort(times, n, sizeof *times, ossa__compare_floats);
    size_t distinct = n ? 1 : 0;
    for (size_t i = 1; i < n; ++i)
        if (times[i] != times[distinct - 1]) times[distinct++] = times[i];
    *count = distinct;
    return times;
}

static bool sample_times(search *s, const ossa_raw_animation *raw)
{
    s->times = measured_times(raw, s->desc->allocator, &s->M);
    return s->times != NULL;
}

/* The error of a reference row that could not be allocated (s->ref.failed). */
static ossa_result reference_failed(search *s)
{
    return ossa__fail(s->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for the reference points at %zu times", s->M);
}

/* One worker's share of reference_all(): times [begin, end). */
static void *reference_some(void *arg)
{
    worker *w = arg;
    for (size_t m = w->begin; m < w->end; ++m)
        if (!ossa__reference_make_row(&w->s->ref, &w->rpass, m)) return NULL;
    return NULL;
}

/* Makes every row of the reference that no measure has made (the rows shared among the
 * workers as a measure shares them), for the passes that read them all in joint order
 * (tighten_failing, loosen). False when out of memory. */
static bool reference_all(search *s)
{
    const unsigned n = s->threads;
    for (unsigned t = 0; t < n; ++t) s->worker[t].begin = s->M * t / n, s->worker[t].end = s->M * (t + 1) / n;
    run_workers(reference_some, s->worker, sizeof *s->worker, n);
    return !atomic_load_explicit(&s->ref.failed, memory_order_relaxed);
}

/* One worker's share of measure(): times [begin, end). */
static void *measure_some(void *arg)
{
    worker *w = arg;
    search *s = w->s;
    /* A new blob may sit where the last one was: the context must not trust the address. */
    ossa_sampling_context_invalidate(w->context);
    w->worst = w->worst_error = 0.f, w->worst_joint = w->worst_m = 0, w->failed = false;
    if (w->per_joint) memset(w->joint_ratio, 0, s->J * sizeof *w->joint_ratio);
    for (size_t m = w->begin; m < w->end; ++m) {
        if (w->quick && atomic_load_explicit(&s->stop, memory_order_relaxed)) return NULL;
        if (!ossa__reference_make_row(&s->ref, &w->rpass, m)) {
            w->failed = true;
            return NULL;
        }
        const float at = s->times[m] / s->clip->duration; /* the ratio ossa_measure_error samples at */
        const ossa_sampling_job job = {
            w->anim, w->context, at, w->pose, s->soa, s->skeleton.rest_pose, s->skeleton.soa_count};
        if (ossa__sampling_job_run_baseline(&job) != OSSA_OK || model_space(s, w) != OSSA_OK) {
            w->failed = true;
            return NULL;
        }
        ossa__reference_roots(&s->ref, &w->rpass, m);
        const float *others = ossa__reference_row(&s->ref, m) + 4 * s->ref.roots;
        for (size_t j = 0; j < s->J; ++j) {
            if (s->local) {
                if (s->lslot[j] != SIZE_MAX) {
                    const size_t l = m * s->L + s->lslot[j];
                    s->local[l] = ossa_soa_transform_get(&w->pose[j / 4], (int)(j % 4));
                    if (s->local_matrix) s->local_matrix[l] = affine_of_transform(&s->local[l]);
                }
                if (s->slot[j] != SIZE_MAX) s->model[m * s->P + s->slot[j]] = affine_of(&w->matrices[j]);
            }
            const float *ref = s->parents[j] < 0 ? w->rpass.roots + 12 * s->ref.slot[j] : others + 12 * s->ref.slot[j];
            const float e = point_error(&w->matrices[j], s->shell[j], ref);
            if (s->own_slack && s->lslot[j] != SIZE_MAX)
                s->own_slack[m * s->L + s->lslot[j]] = s->tol[j] * LOOSEN_MARGIN - e;
            const float ratio = e / s->tol[j];
            if (ratio > w->worst) w->worst = ratio, w->worst_error = e, w->worst_joint = j, w->worst_m = m;
            if (w->per_joint && !(ratio <= w->joint_ratio[j])) w->joint_ratio[j] = ratio;
        }
        if (w->quick && w->worst > 1.f) {
            atomic_store_explicit(&s->stop, true, memory_order_relaxed);
            return NULL;
        }
    }
    return NULL;
}

/* Measures the blob with the runtime: sampling job at every measured time, local-to-model,
 * the points against the reference (the times shared among the workers). Keeps the decoded
 * poses and matrices when loosening has their arrays (see loosen) and returns the largest
 * error / tolerance; fills the stats' worst joint and time. With `quick`, a worker stops at
 * its first time that fails and the others at their next time (the result is then above 1,
 * whichever stopped first, but not the largest). With
 * `per_joint` (and not quick), also each joint's largest ratio into s->joint_ratio: the
 * maximum over the workers' shares, so the same for any thread count. */
static float measure(search *s, const ossa_blob *blob, ossa_animation_build_stats *stats, bool quick, bool per_joint)
{
    ossa_animation anim;
    if (ossa_animation_init(&anim, blob->data, blob->size) != OSSA_OK) return INFINITY;
    const unsigned n = s->threads;
    for (unsigned t = 0; t < n; ++t) {
        worker *w = &s->worker[t];
        w->anim = &anim, w->quick = quick, w->per_joint = per_joint && !quick;
        w->begin = s->M * t / n, w->end = s->M * (t + 1) / n;
    }
    atomic_store_explicit(&s->stop, false, memory_order_relaxed);
    run_workers(measure_some, s->worker, sizeof *s->worker, n);
    worker best = s->worker[0];
    for (unsigned t = 0; t < n; ++t) {
        const worker *w = &s->worker[t];
        if (w->failed) return INFINITY;
        if (w->worst > best.worst) best = *w;
    }
    if (per_joint && !quick) {
        memcpy(s->joint_ratio, s->worker[0].joint_ratio, s->J * sizeof *s->joint_ratio);
        for (unsigned t = 1; t < n; ++t)
            for (size_t j = 0; j < s->J; ++j)
                if (!(s->worker[t].joint_ratio[j] <= s->joint_ratio[j]))
                    s->joint_ratio[j] = s->worker[t].joint_ratio[j];
    }
    if (stats) {
        stats->max_error = best.worst_error;
        stats->error_ratio = best.worst;
        stats->worst_joint = best.worst_joint;
        stats->worst_time = s->times[best.worst_m];
    }
    return best.worst;
}

/* The final word on a blob: the measurement of ossa_measure_error and `ossa info --against`
 * (ossa__measure_joints: the source interpolated at the same times, model space in double),
 * against each joint's tolerance and shell. Fills the stats' error, ratio, worst joint and
 * time from it and returns the largest error / tolerance (INFINITY when it could not be
 * measured: *status says why). */
static float verify_blob(search *s, const ossa_blob *blob, ossa_animation_build_stats *stats, ossa_result *status)
{
    ossa_animation anim;
    if ((*status = ossa_animation_init(&anim, blob->data, blob->size)) != OSSA_OK) {
        ossa__fail(s->diag, *status, "the built animation does not load: %s", ossa_result_string(*status));
        return INFINITY;
    }
    if ((*status = ossa__measure_joints(&s->skeleton, s->raw, &anim, s->times, s->M, s->shell, s->desc->allocator,
                                        s->threads, s->joint_max, s->joint_time, s->diag)) != OSSA_OK)
        return INFINITY;
    float worst = 0.f;
    size_t joint = 0;
    for (size_t j = 0; j < s->J; ++j) {
        /* A NaN error fails rather than slip past the comparison. */
        const float ratio = isnan(s->joint_max[j]) ? INFINITY : s->joint_max[j] / s->tol[j];
        if (ratio > worst) worst = ratio, joint = j;
    }
    stats->max_error = s->joint_max[joint];
    stats->error_ratio = worst;
    stats->worst_joint = joint;
    stats->worst_time = s->joint_time[joint];
    return worst;
}

static float verify(search *s, const ossa_blob *blob, ossa_animation_build_stats *stats, ossa_result *status)
{
    const int was = ossa__clock_switch(s->clock, OSSA__STAGE_VERIFY);
    const float ratio = verify_blob(s, blob, stats, status);
    ossa__clock_switch(s->clock, was);
    return ratio;
}

/* ossa__animation_write of the current encoding, timed as the write stage. */
static ossa_result write_blob(search *s, ossa_blob *blob)
{
    const int was = ossa__clock_switch(s->clock, OSSA__STAGE_WRITE);
    const ossa_result r = s->desc->layout == OSSA_ANIMATION_LAYOUT_SORTED
                              ? ossa__animation_write_sorted(s->clip, s->st, s->name, s->desc->allocator, blob, s->diag)
                              : ossa__animation_write(s->clip, s->st, s->name, s->desc->allocator, blob, s->diag);
    ossa__clock_switch(s->clock, was);
    return r;
}

/* Sub-tracks first, first + step, ... at factor k (one thread's share of encode_all). */
typedef struct encode_share {
    search *s;
    float k;
    size_t first, step;
    bool only_changed; /* only the sub-tracks s->changed marks */
} encode_share;

static void *encode_some(void *arg)
{
    const encode_share *e = arg;
    search *s = e->s;
    for (size_t i = e->first; i < 3 * s->J; i += e->step) {
        if (e->only_changed && !s->changed[i]) continue;
        const size_t j = i / 3;
        ossa__subtrack_encode(s->clip, i, e->k * s->mult[i] * s->floor[j], s->radius[j], &s->st[i],
                              &s->worker[e->first].scratch);
    }
    return NULL;
}

/* Encodes every sub-track at factor k; sub-tracks are independent, so threads share them
 * (interleaved, for balance) and the result is the same. */
static void encode_all(search *s, float k)
{
    s->st_is_best = false;
    encode_share shares[MAX_THREADS];
    for (unsigned t = 0; t < s->threads; ++t) shares[t] = (encode_share){s, k, t, s->threads, false};
    run_workers(encode_some, shares, sizeof *shares, s->threads);
}

/* Encodes again, at factor k, only the sub-tracks s->changed marks (the others keep their
 * encoding, which depends only on their own tolerance). */
static void encode_changed(search *s, float k)
{
    s->st_is_best = false;
    encode_share shares[MAX_THREADS];
    for (unsigned t = 0; t < s->threads; ++t) shares[t] = (encode_share){s, k, t, s->threads, true};
    run_workers(encode_some, shares, sizeof *shares, s->threads);
}

/* The best passing candidate so far. */
typedef struct best {
    ossa_blob blob;
    float k;
    float ratio;
    ossa_animation_build_stats stats;
} best;

/* Writes and measures the current encoding with the search's measure (float, on the kept
 * reference points); keeps the blob in `b` when it passes and is not larger. With `verified`,
 * such a blob is also verified (verify) and kept only if that passes too; the ratio returned
 * is then the verification's. Else the kept blob still awaits its verification (see
 * search_verified). Returns the ratio (INFINITY when writing or measuring failed: *status). */
static float evaluate(search *s, best *b, float k, bool verified, bool per_joint, ossa_result *status)
{
    ossa_blob blob = {0};
    *status = write_blob(s, &blob);
    if (*status != OSSA_OK) return INFINITY;
    ossa_animation_build_stats stats = {0};
    float ratio = measure(s, &blob, &stats, !per_joint, per_joint);
    ++s->evaluations;
    if (atomic_load_explicit(&s->ref.failed, memory_order_relaxed)) {
        ossa_blob_destroy(&blob);
        *status = reference_failed(s);
        return INFINITY;
    }
    if (!s->refining)
        ossa__progress_report(&s->progress,
                              PROGRESS_REFERENCE + (PROGRESS_SEARCH - PROGRESS_REFERENCE) *
                                                       (1.f - powf(SEARCH_DECAY, (float)s->evaluations)),
                              "search");
    if (verified && ratio <= 1.f && (!b->blob.data || blob.size <= b->blob.size))
        ratio = verify(s, &blob, &stats, status);
    if (ratio <= 1.f && (!b->blob.data || blob.size <= b->blob.size)) {
        ossa_blob_destroy(&b->blob);
        b->blob = blob, b->k = k, b->ratio = ratio, b->stats = stats;
        memcpy(s->best_mult, s->mult, 3 * s->J * sizeof *s->mult);
        s->st_is_best = true;
        return ratio;
    }
    ossa_blob_destroy(&blob);
    return ratio;
}

/* Per-joint figures: tolerance, shell, subtree end, and what a sub-track's local error is
 * measured against. Model space multiplies a joint's local translation error by its parent's
 * accumulated scale, and its rotation error by the model-space extent of its subtree; so the
 * radius (the farthest point of the subtree over the clip, virtual vertices included) and the
 * smallest tolerance in the subtree are both expressed in the parent's units: model-space
 * figures divided by the largest accumulated scale of the parent (1 for a root). Without
 * this, a root scaled by 100 (Blender's FBX armatures) would get local tolerances 100 times
 * too loose. */
static void joint_figures(search *s)
{
    const ossa_animation_build_desc *d = s->desc;
    const float unit = d->unit_scale > 0.f ? d->unit_scale : 1.f;
    const float shell = d->shell_distance > 0.f ? d->shell_distance : OSSA_BUILD_DEFAULT_SHELL_DISTANCE / unit;
    for (size_t j = 0; j < s->J; ++j) s->tol[j] = d->tolerance, s->shell[j] = shell;
    for (size_t i = 0; i < d->override_count; ++i) {
        const ossa_joint_tolerance *o = &d->overrides[i];
        s->tol[o->joint] = o->tolerance > 0.f ? o->tolerance : d->tolerance;
        s->shell[o->joint] = o->shell_distance > 0.f ? o->shell_distance : shell;
    }
    /* Parents first: the accumulated scale bound (largest component magnitude per frame). */
    for (size_t j = 0; j < s->J; ++j) {
        const float *sc = ossa__clip_samples(s->clip, j * 3 + 2);
        float own = 0.f;
        for (size_t f = 0, rows = ossa__clip_rows(s->clip, j * 3 + 2); f < rows; ++f)
            own = max_f(own, max_f(fabsf(sc[4 * f]), max_f(fabsf(sc[4 * f + 1]), fabsf(sc[4 * f + 2]))));
        const int p = s->parents[j];
        s->reach_scale[j] = (p < 0 ? 1.f : s->reach_scale[p]) * own;
    }
    for (size_t j = 0; j < s->J; ++j)
        s->radius[j] = s->shell[j] * s->reach_scale[j], s->floor[j] = s->tol[j], s->end[j] = j + 1;
    /* Slots of the joints with children (see search.model). */
    for (size_t j = 0; j < s->J; ++j) s->slot[j] = SIZE_MAX;
    s->P = 0;
    for (size_t j = 0; j < s->J; ++j)
        if (s->parents[j] >= 0 && s->slot[s->parents[j]] == SIZE_MAX) s->slot[s->parents[j]] = 0;
    for (size_t j = 0; j < s->J; ++j)
        if (s->slot[j] != SIZE_MAX) s->slot[j] = s->P++;
    s->isolated = 0, s->L = 0;
    for (size_t j = 0; j < s->J; ++j) {
        const bool isolated = s->parents[j] < 0 && s->slot[j] == SIZE_MAX;
        s->isolated += isolated;
        s->lslot[j] = isolated ? SIZE_MAX : s->L++;
    }
    /* Depth-first: children after parents, so a reverse pass sees every child first. The
     * radius is in model units until the last pass. */
    for (size_t j = s->J; j-- > 0;) {
        const int p = s->parents[j];
        if (p < 0) continue;
        const float *t = ossa__clip_samples(s->clip, j * 3);
        float reach = 0.f;
        for (size_t f = 0, rows = ossa__clip_rows(s->clip, j * 3); f < rows; ++f)
            reach =
                max_f(reach, sqrtf(t[4 * f] * t[4 * f] + t[4 * f + 1] * t[4 * f + 1] + t[4 * f + 2] * t[4 * f + 2]));
        s->radius[p] = max_f(s->radius[p], reach * s->reach_scale[p] + s->radius[j]);
        s->floor[p] = min_f(s->floor[p], s->floor[j]);
        s->end[p] = s->end[j] > s->end[p] ? s->end[j] : s->end[p];
    }
    for (size_t j = 0; j < s->J; ++j) {
        const int p = s->parents[j];
        /* A zero scale hides the subtree: any local error passes; keep the figures finite. */
        const float parent_scale = max_f(p < 0 ? 1.f : s->reach_scale[p], 1e-6f);
        s->radius[j] /= parent_scale, s->floor[j] /= parent_scale;
    }
}

/* Bits sub-track i costs in the blob with encoding `st`. */
static size_t cost(const search *s, size_t i, const ossa__subtrack *st)
{
    if (st->kind == OSSA__KIND_DEFAULT || st->kind == OSSA__KIND_REST) return 0;
    if (st->kind == OSSA__KIND_CONSTANT) return i % 3 == OSSA__CH_ROTATION ? 64 : 96;
    const size_t segments = (s->clip->frames - 1) / OSSA__SEGMENT_FRAMES + 1;
    return st->key_count * ((size_t)st->bits[0] + st->bits[1] + st->bits[2] + st->bits[3]) + 16 * segments +
           64 * (size_t)st->n + 40;
}

/* Tries sub-track i's tolerance times `factor`: decodes the trial encoding at every measured
 * time and recomputes the model space of the joint's subtree from the kept poses. Keeps it
 * (and updates the kept poses and matrices) when no joint of the subtree passes its
 * tolerance and the encoding is smaller. */
/* The kept local transform of joint c at measured time m (see search.local and .alone). */
static inline ossa_transform *local_at(search *s, worker *w, size_t m, size_t c)
{
    return s->lslot[c] == SIZE_MAX ? &w->alone[m] : &s->local[m * s->L + s->lslot[c]];
}

/* Whether joint c's model matrix `model` at measured time m is within its tolerance (a try's
 * check). */
OSSA__INLINE bool joint_passes(search *s, worker *w, size_t m, size_t c, const ossa_float4x4 *model)
{
    float rebuilt[12];
    const float *ref =
        s->lslot[c] == SIZE_MAX ? w->points + 12 * m : ossa__reference_points(&s->ref, &w->rpass, m, c, rebuilt);
    const float slack = s->tol[c] * LOOSEN_MARGIN - point_error(model, s->shell[c], ref);
    if (s->tried_slack && s->lslot[c] != SIZE_MAX) s->tried_slack[m * s->L + s->lslot[c]] = slack;
    return !(slack < 0.f);
}

/* A bound of how far the trial's local transform `t` of joint j, in place of the kept one
 * `kept`, moves any point of j's subtree at measured time m; -1 when there is none (a scale).
 * The parent's model-space linear part stretches by at most reach_scale[parent]; a translation
 * moves every point by |dt|; a rotation by at most |R(q') - R(q)| |S z| <= 2 min(|q' - q|,
 * |q' + q|) radius[j] (radius[j] bounds |S z| over the subtree's points z). The bound is
 * widened by 1 % and a millionth of the subtree's reach against float rounding. A subtree
 * whose slack at m is at least the bound passes without its matrices (see trial_passes_at). */
OSSA__INLINE float movement_bound(const search *s, size_t j, size_t channel, const ossa_transform *t,
                                  const ossa_transform *kept)
{
    if (channel == OSSA__CH_SCALE) return -1.f;
    const int p = s->parents[j];
    const float stretch = p < 0 ? 1.f : s->reach_scale[p];
    float moved;
    if (channel == OSSA__CH_TRANSLATION) {
        const float dx = t->translation.x - kept->translation.x, dy = t->translation.y - kept->translation.y,
                    dz = t->translation.z - kept->translation.z;
        moved = sqrtf(dx * dx + dy * dy + dz * dz);
    } else {
        const ossa_quat a = t->rotation, b = kept->rotation;
        const float d2 = (a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z) +
                         (a.w - b.w) * (a.w - b.w),
                    s2 = (a.x + b.x) * (a.x + b.x) + (a.y + b.y) * (a.y + b.y) + (a.z + b.z) * (a.z + b.z) +
                         (a.w + b.w) * (a.w + b.w);
        moved = 2.f * sqrtf(min_f(d2, s2)) * s->radius[j];
    }
    return (moved * 1.01f + 1e-6f * s->radius[j]) * stretch;
}

/* Whether sub-track i's trial keeps every joint of j's subtree within its tolerance at measured
 * time m: decodes it there into w->values (with `cursor`) and recomputes the subtree's model
 * space from the kept poses into w->matrices. With the slack (search.subtree_slack), a subtree
 * whose least slack at m is at least the trial's movement bound (movement_bound) passes without
 * its matrices: all of j's (w->moved[m] is then the bound; -1 otherwise), or, below j, each
 * child's whose is, its joints' tried slack then their own less the bound, what update_slack
 * keeps for them. Every joint checked exactly passes or fails as it would without the bound. */
OSSA__INLINE bool trial_passes_at(search *s, worker *w, size_t i, const ossa__subtrack *trial, size_t m,
                                  ossa__decode_cursor *cursor)
{
    const size_t j = i / 3, end = s->end[j], channel = i % 3;
    ossa_float4x4 *chain = w->matrices; /* [J] scratch: the subtree's new matrices */
    const int parent = s->parents[j];
    float *v = w->values + 4 * m;
    ossa__subtrack_decode_ratio(s->clip, i, trial, s->times[m] / s->clip->duration, v, cursor);
    const ossa_transform *kept = local_at(s, w, m, j);
    ossa_transform t = *kept;
    if (channel == OSSA__CH_TRANSLATION) t.translation = (ossa_float3){v[0], v[1], v[2]};
    if (channel == OSSA__CH_ROTATION) t.rotation = (ossa_quat){v[0], v[1], v[2], v[3]};
    if (channel == OSSA__CH_SCALE) t.scale = (ossa_float3){v[0], v[1], v[2]};
    float bound = -1.f;
    const float *sub = NULL;
    if (s->subtree_slack && s->lslot[j] != SIZE_MAX) {
        sub = s->subtree_slack + m * s->L;
        bound = movement_bound(s, j, channel, &t, kept);
        w->moved[m] = -1.f;
        if (bound >= 0.f && bound <= sub[s->lslot[j]]) {
            w->moved[m] = bound;
            ++w->slack_passes;
            return true;
        }
    }
    const ossa_float4x4 lm = ossa__float4x4_from_transform(&t);
    if (parent < 0) {
        chain[j] = lm;
    } else {
        /* The one parent outside the subtree: j's own (the others are in it). */
        const ossa_float4x4 outside = matrix_of(&s->model[m * s->P + s->slot[parent]]);
        chain[j] = ossa__float4x4_mul_affine(&outside, &lm);
    }
    if (!joint_passes(s, w, m, j, &chain[j])) return false;
    for (size_t c = j + 1; c < end;) {
        if (bound >= 0.f && bound <= sub[s->lslot[c]]) {
            float *tried = s->tried_slack + m * s->L;
            const float *own = s->own_slack + m * s->L;
            for (size_t d = c; d < s->end[c]; ++d) tried[s->lslot[d]] = own[s->lslot[d]] - bound;
            c = s->end[c];
            continue;
        }
        /* Joints below j are in a hierarchy: their kept matrices, when loosening keeps them. */
        if (s->local_matrix) {
            chain[c] =
                ossa__float4x4_mul_affine_at(&chain[s->parents[c]], s->local_matrix[m * s->L + s->lslot[c]].cols[0], 3);
        } else {
            const ossa_float4x4 local = ossa__float4x4_from_transform(local_at(s, w, m, c));
            chain[c] = ossa__float4x4_mul_affine(&chain[s->parents[c]], &local);
        }
        if (!joint_passes(s, w, m, c, &chain[c])) return false;
        ++c;
    }
    return true;
}

/* Each joint's least slack over its subtree (sub) from the joints' own (own), for the joints in
 * a hierarchy of [first, end): every joint there whose parent is there too is folded into it,
 * children (after their parents) first. */
static void least_over_subtrees(const search *s, float *sub, const float *own, size_t first, size_t end)
{
    for (size_t c = first; c < end; ++c)
        if (s->lslot[c] != SIZE_MAX) sub[s->lslot[c]] = own[s->lslot[c]];
    for (size_t c = end; c-- > first;) {
        const int p = s->parents[c];
        if (s->lslot[c] != SIZE_MAX && p >= (int)first) sub[s->lslot[p]] = min_f(sub[s->lslot[p]], sub[s->lslot[c]]);
    }
}

/* Lowers the least slack of joint `from` and its ancestors to `least` where it is higher; with
 * an owner (not UINT_MAX), only those in that worker's share (see share_hierarchy). */
static void lower_ancestors(const search *s, float *sub, int from, float least, unsigned owner)
{
    for (int a = from; a >= 0 && (owner == UINT_MAX || s->owner[a] == owner); a = s->parents[a])
        sub[s->lslot[a]] = min_f(sub[s->lslot[a]], least);
}

/* After an accepted try of joint j: its subtree's slack at each measured time becomes the try's
 * exact figures where it was checked exactly and the old ones less the bound of the movement
 * where the bound passed it; the subtree's least slack is formed again, and each ancestor's
 * least slack falls to it where it is lower (it may only have risen elsewhere, so the old
 * figure stays a lower bound). While the threads share the hierarchy (share_hierarchy), only
 * the ancestors in the worker's own share: the trunk's are lowered after (fold_shares). */
static void update_slack(search *s, const worker *w, size_t j)
{
    const unsigned owner = s->owner ? s->owner[j] : UINT_MAX;
    const size_t end = s->end[j], L = s->L;
    for (size_t m = 0; m < s->M; ++m) {
        float *own = s->own_slack + m * L, *sub = s->subtree_slack + m * L;
        const float *tried = s->tried_slack + m * L, moved = w->moved[m];
        for (size_t c = j; c < end; ++c) {
            const size_t l = s->lslot[c];
            own[l] = moved < 0.f ? tried[l] : own[l] - moved;
        }
        least_over_subtrees(s, sub, own, j, end);
        lower_ancestors(s, sub, s->parents[j], sub[s->lslot[j]], owner);
    }
}

/* One try (see loosen) with worker w's scratch. A try passes only if it passes at every time,
 * so the order they are checked in changes nothing: the time the worker's last try failed at
 * is checked first (most tries fail, and most often where the last one did: at factor 4 on
 * baked 1,975 of 2,000), then every time in order. */
static bool try_loosen(search *s, worker *w, size_t i, float k, float factor)
{
    const size_t j = i / 3, end = s->end[j], channel = i % 3;
    ossa__subtrack *old = &s->st[i], *trial = w->trial;
    ossa__subtrack_encode(s->clip, i, k * s->mult[i] * factor * s->floor[j], s->radius[j], trial, &w->scratch);
    if (cost(s, i, trial) >= cost(s, i, old)) return false;
    ossa__decode_cursor cursor = {0};
    if (w->failed_at < s->M && !trial_passes_at(s, w, i, trial, w->failed_at, &cursor)) return false;
    cursor = (ossa__decode_cursor){0};
    for (size_t m = 0; m < s->M; ++m)
        if (!trial_passes_at(s, w, i, trial, m, &cursor)) {
            w->failed_at = m;
            return false;
        }
    ossa_float4x4 *chain = w->matrices;
    const int parent = s->parents[j];
    const ossa_float4x4 identity = ossa_float4x4_identity();
    const affine *parent_model = parent < 0 ? NULL : s->model + s->slot[parent];
    /* Accepted: recompute and keep the matrices of the subtree's joints with children (a
     * leaf's is no one's parent and is not kept). */
    const bool matrices = s->slot[j] != SIZE_MAX;
    for (size_t m = 0; m < s->M; ++m) {
        const float *v = w->values + 4 * m;
        ossa_transform *t = local_at(s, w, m, j);
        if (channel == OSSA__CH_TRANSLATION) t->translation = (ossa_float3){v[0], v[1], v[2]};
        if (channel == OSSA__CH_ROTATION) t->rotation = (ossa_quat){v[0], v[1], v[2], v[3]};
        if (channel == OSSA__CH_SCALE) t->scale = (ossa_float3){v[0], v[1], v[2]};
        const bool kept_matrix = s->local_matrix && s->lslot[j] != SIZE_MAX;
        if (kept_matrix) s->local_matrix[m * s->L + s->lslot[j]] = affine_of_transform(t);
        if (!matrices) continue;
        const ossa_float4x4 outside = parent < 0 ? identity : matrix_of(&parent_model[m * s->P]);
        for (size_t c = j; c < end; ++c) {
            if (s->slot[c] == SIZE_MAX) continue;
            const ossa_float4x4 lm = kept_matrix ? matrix_of(&s->local_matrix[m * s->L + s->lslot[c]])
                                                 : ossa__float4x4_from_transform(local_at(s, w, m, c));
            const int p = s->parents[c];
            chain[c] = p < 0 ? lm : ossa__float4x4_mul_affine((size_t)p < j ? &outside : &chain[p], &lm);
            if (s->slot[c] != SIZE_MAX) s->model[m * s->P + s->slot[c]] = affine_of(&chain[c]);
        }
    }
    if (s->subtree_slack && s->lslot[j] != SIZE_MAX) update_slack(s, w, j);
    s->mult[i] *= factor;
    ossa__subtrack swap = *old;
    *old = *trial;
    *trial = swap;
    if (!swap.keys) {
        /* A sub-track without arrays (never keyed) is never keyed on trial either: the trial
         * keeps its arrays for the next one. */
        trial->keys = old->keys, trial->q = old->q;
        old->keys = NULL, old->q = NULL;
    }
    return true;
}

/* One worker's share of a hierarchy pass (loosen): the sub-tracks of the joints it owns, in
 * joint order. */
typedef struct hierarchy_share {
    search *s;
    worker *w;
    float k, factor;
    unsigned index;
} hierarchy_share;

static void *loosen_share(void *arg)
{
    const hierarchy_share *e = arg;
    search *s = e->s;
    for (size_t i = 0; i < 3 * s->J; ++i)
        if (s->owner[i / 3] == e->index && s->st[i].kind != OSSA__KIND_DEFAULT && s->st[i].kind != OSSA__KIND_REST)
            e->w->changed |= try_loosen(s, e->w, i, e->k, e->factor);
    return NULL;
}

/* The least slack of each share's top joint, into the trunk's ancestors of it (update_slack
 * left them to this, after the pass). */
static void fold_shares(search *s)
{
    if (!s->subtree_slack) return;
    for (size_t r = 0; r < s->J; ++r) {
        const int p = s->parents[r];
        if (s->owner[r] == UINT_MAX || p < 0 || s->owner[p] != UINT_MAX) continue;
        for (size_t m = 0; m < s->M; ++m) {
            float *sub = s->subtree_slack + m * s->L;
            lower_ancestors(s, sub, p, sub[s->lslot[r]], UINT_MAX);
        }
    }
}

/* The index among piece[0 .. count) (count > 0) of the piece with the most work. */
static size_t largest_piece(const size_t *work, const size_t *piece, size_t count)
{
    size_t big = 0;
    for (size_t k = 1; k < count; ++k)
        if (work[piece[k]] > work[piece[big]]) big = k;
    return big;
}

/* Shares the joints in a hierarchy among the threads for loosening (search.owner): whole
 * subtrees (shares), each tried by one worker in joint order, and the trunk, the ancestors of
 * the shares, tried first on worker 0. A try reads its joint's ancestors' matrices and its
 * subtree's poses, matrices and slack, and changes only its subtree's (and, through
 * fold_shares, lowers its ancestors' slack, which no try of the pass reads), so a pass gives
 * the decisions of one pass in joint order: the trunk's tries come before those of their
 * subtrees as they would, a trunk joint that comes after a share in joint order is neither
 * its ancestor nor in it, and a share's tries read nothing another share changes. The shares
 * are split from the hierarchy's roots down while that shortens the estimated span (a try
 * costs its subtree's joints), then dealt, largest first, to the least loaded worker. One
 * thread, or too little work to share: no shares (NULL). False when out of memory. */
static bool share_hierarchy(search *s)
{
    const unsigned n = s->threads;
    if (n < 2 || !s->L) return true;
    const ossa_allocator *a = s->desc->allocator;
    size_t *work = ossa__calloc(a, 2 * s->J, sizeof *work), *piece = work ? work + s->J : NULL;
    s->owner = ossa__calloc(a, s->J, sizeof *s->owner);
    if (!work || !s->owner) {
        ossa_free(a, work);
        return false;
    }
    /* work[j]: the sum of the subtree sizes over j's subtree (children come after parents). */
    for (size_t j = s->J; j-- > 0;) {
        if (s->lslot[j] == SIZE_MAX) continue;
        work[j] += s->end[j] - j;
        if (s->parents[j] >= 0) work[s->parents[j]] += work[j];
    }
    size_t pieces = 0, total = 0, trunk = 0;
    for (size_t j = 0; j < s->J; ++j)
        if (s->lslot[j] != SIZE_MAX && s->parents[j] < 0) piece[pieces++] = j, total += work[j];
    /* A split takes the largest share's top joint to the trunk, with the chain of only
     * children below it, down to the first joint with more than one child; its children
     * become shares. Splits go on while they shorten the estimated span: the trunk's work,
     * then the larger of the largest share and an even part of all of them. */
    for (;;) {
        const size_t big = largest_piece(work, piece, pieces);
        size_t second = 0;
        for (size_t k = 0; k < pieces; ++k)
            if (k != big && work[piece[k]] > second) second = work[piece[k]];
        size_t x = piece[big], moved = 0, children = 0, largest = 0;
        for (;;) {
            children = 0, largest = 0;
            size_t only = x;
            for (size_t c = x + 1; c < s->end[x]; ++c)
                if (s->parents[c] == (int)x) ++children, only = c, largest = work[c] > largest ? work[c] : largest;
            moved += s->end[x] - x;
            if (children != 1) break;
            x = only;
        }
        if (children == 0) break;
        const size_t now = trunk + (work[piece[big]] > (total + n - 1) / n ? work[piece[big]] : (total + n - 1) / n);
        const size_t rest = total - moved, share = (rest + n - 1) / n;
        const size_t most = second > largest ? second : largest;
        if (!(trunk + moved + (most > share ? most : share) < now)) break;
        trunk += moved, total = rest;
        piece[big] = piece[--pieces];
        for (size_t c = x + 1; c < s->end[x]; ++c)
            if (s->parents[c] == (int)x) piece[pieces++] = c;
    }
    for (size_t j = 0; j < s->J; ++j) s->owner[j] = UINT_MAX;
    /* Too little to share: the threads' start would cost more than it saves. */
    if (total * s->M < HIERARCHY_SHARE_MIN) {
        ossa_free(a, work), ossa_free(a, s->owner);
        s->owner = NULL;
        return true;
    }
    size_t load[MAX_THREADS] = {0};
    for (size_t left = pieces; left > 0; --left) {
        const size_t big = largest_piece(work, piece, left);
        const size_t r = piece[big];
        piece[big] = piece[left - 1];
        unsigned t = 0;
        for (unsigned u = 1; u < n; ++u)
            if (load[u] < load[t]) t = u;
        load[t] += work[r];
        for (size_t c = r; c < s->end[r]; ++c) s->owner[c] = t;
    }
    ossa_free(a, work);
    return true;
}

/* The hierarchy's slack (see search.own_slack) and its shares (search.owner). */
static void free_slack(search *s)
{
    const ossa_allocator *a = s->desc->allocator;
    ossa_free(a, s->own_slack), ossa_free(a, s->subtree_slack), ossa_free(a, s->tried_slack), ossa_free(a, s->moved);
    s->own_slack = s->subtree_slack = s->tried_slack = s->moved = NULL;
    ossa_free(a, s->owner);
    s->owner = NULL;
    for (unsigned t = 0; s->worker && t < s->threads; ++t) s->worker[t].moved = NULL;
}

/* The extra threads' scratch of the isolated joints' loosening (worker 0's is the search's). */
static void free_loosening_scratch(search *s)
{
    for (unsigned t = 0; s->worker && t < s->threads; ++t) {
        ossa_free(s->desc->allocator, s->worker[t].points);
        s->worker[t].points = NULL;
    }
    for (unsigned t = 1; s->worker && t < s->threads; ++t) {
        worker *w = &s->worker[t];
        if (w->trial) ossa__subtracks_free(s->clip, w->trial, 1);
        ossa_free(s->desc->allocator, w->values), ossa_free(s->desc->allocator, w->alone);
        w->trial = NULL, w->values = NULL, w->alone = NULL;
    }
}

/* The isolated joints first, first + step, ... (counted among the isolated ones) of one
 * thread's share of loosen(). */
typedef struct isolated_share {
    search *s;
    worker *w;
    float k;
    unsigned first, step;
} isolated_share;

static void *loosen_isolated(void *arg)
{
    const isolated_share *e = arg;
    search *s = e->s;
    worker *w = e->w;
    const size_t factors = sizeof LOOSEN / sizeof *LOOSEN;
    for (size_t j = 0, index = 0; j < s->J; ++j) {
        if (s->lslot[j] != SIZE_MAX) continue;
        if (index++ % e->step != e->first) continue;
        bool tries = false;
        for (size_t i = 3 * j; i < 3 * j + 3; ++i)
            tries = tries || (s->st[i].kind != OSSA__KIND_DEFAULT && s->st[i].kind != OSSA__KIND_REST);
        if (!tries) continue;
        w->failed_at = SIZE_MAX; /* another joint's errors are elsewhere */
        /* The joint's reference points, rebuilt once for its nine tries. */
        for (size_t m = 0; m < s->M; ++m) {
            float *out = w->points + 12 * m;
            const float *ref = ossa__reference_points(&s->ref, &w->rpass, m, j, out);
            if (ref != out) memcpy(out, ref, 12 * sizeof *out);
        }
        ossa__decode_cursor cursors[3] = {{0}};
        for (size_t m = 0; m < s->M; ++m) {
            float v[3][4];
            for (size_t c = 0; c < 3; ++c)
                ossa__subtrack_decode_ratio(s->clip, 3 * j + c, &s->st[3 * j + c], s->times[m] / s->clip->duration,
                                            v[c], &cursors[c]);
            w->alone[m] = (ossa_transform){
                {v[0][0], v[0][1], v[0][2]}, {v[1][0], v[1][1], v[1][2], v[1][3]}, {v[2][0], v[2][1], v[2][2]}};
        }
        for (size_t f = 0; f < factors; ++f)
            for (size_t i = 3 * j; i < 3 * j + 3; ++i)
                if (s->st[i].kind != OSSA__KIND_DEFAULT && s->st[i].kind != OSSA__KIND_REST)
                    w->changed |= try_loosen(s, w, i, e->k, LOOSEN[f]);
    }
    return NULL;
}

/* Loosens sub-tracks one at a time where the measured error leaves room (see try_loosen),
 * then verifies the result with the runtime; keeps it only if it passes and is smaller, and
 * then sets *verified (the blob in `b` passed the verification). The kept poses and matrices
 * at every measured time exist only here: the search before needs just the reference points,
 * and a clip that never passed is never loosened. */
static ossa_result loosen(search *s, best *b, bool *verified)
{
    s->refining = true;
    ossa__progress_report(&s->progress, PROGRESS_SEARCH, "refine");
    const ossa_allocator *a = s->desc->allocator;
    const size_t ml = s->M * s->L, mp = s->M * s->P; /* checked by allocate() */
    s->local = ossa__calloc(a, ml ? ml : 1, sizeof *s->local);
    /* One more than the rows: ossa__float4x4_mul_affine_at reads a float past the last. */
    const bool local_matrices = ml && ml <= OSSA__LOCAL_MATRIX_BUDGET / sizeof *s->local_matrix;
    if (local_matrices) s->local_matrix = ossa__calloc(a, ml + 1, sizeof *s->local_matrix);
    s->model = ossa__calloc(a, mp ? mp : 1, sizeof *s->model);
    s->alone = ossa__calloc(a, s->M ? s->M : 1, sizeof *s->alone);
    bool scratch = true;
    if (s->L && atomic_load_explicit(&ossa__loosen_by_slack, memory_order_relaxed)) {
        s->own_slack = ossa__calloc(a, ml, sizeof *s->own_slack);
        s->subtree_slack = ossa__calloc(a, ml, sizeof *s->subtree_slack);
        s->tried_slack = ossa__calloc(a, ml, sizeof *s->tried_slack);
        s->moved = ossa__calloc(a, s->M * s->threads, sizeof *s->moved);
        scratch = s->own_slack && s->subtree_slack && s->tried_slack && s->moved;
        for (unsigned t = 0; scratch && t < s->threads; ++t) s->worker[t].moved = s->moved + t * s->M;
    }
    scratch = share_hierarchy(s) && scratch;
    scratch = reference_all(s) && scratch;
    for (unsigned t = 0; t < s->threads; ++t) {
        worker *w = &s->worker[t];
        w->changed = false, w->failed_at = SIZE_MAX;
        if (s->isolated) {
            w->points = ossa__calloc(a, 12 * s->M + 1, sizeof *w->points);
            scratch = scratch && w->points;
        }
        if (t == 0) {
            w->trial = &s->trial, w->values = s->values, w->alone = s->alone;
            continue;
        }
        w->trial = &w->own_trial;
        w->values = ossa__calloc(a, 4 * s->M + 1, sizeof *w->values);
        w->alone = ossa__calloc(a, s->M + 1, sizeof *w->alone);
        scratch = scratch && ossa__subtracks_alloc(s->clip, w->trial, 1) && w->values && w->alone;
    }
    if (!s->local || (local_matrices && !s->local_matrix) || !s->model || !s->alone || !scratch)
        return ossa__fail(s->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory loosening %zu joints at %zu times", s->J,
                          s->M);
    if (!s->st_is_best) {
        memcpy(s->mult, s->best_mult, 3 * s->J * sizeof *s->mult);
        encode_all(s, b->k);
    }
    /* The kept blob's poses and matrices of the joints in a hierarchy; a clip of isolated
     * joints only (a physics bake) needs none, and this blob passed the same measure already. */
    if (s->L && !(measure(s, &b->blob, NULL, false, false) <= 1.f))
        return atomic_load_explicit(&s->ref.failed, memory_order_relaxed) ? reference_failed(s) : OSSA_OK;
    /* Each subtree's least slack. */
    for (size_t m = 0; s->subtree_slack && m < s->M; ++m)
        least_over_subtrees(s, s->subtree_slack + m * s->L, s->own_slack + m * s->L, 0, s->J);
    bool changed = false;
    const size_t factors = sizeof LOOSEN / sizeof *LOOSEN, steps = factors * 3 * s->J;
    size_t done = 0;
    /* Joints in a hierarchy: one pass over their sub-tracks per factor, parents first; with
     * shares (share_hierarchy), the trunk's on worker 0 and then each share's on its worker. */
    for (size_t f = 0; f < factors; ++f) {
        size_t shared = 0;
        for (size_t i = 0; i < 3 * s->J; ++i) {
            if (s->lslot[i / 3] == SIZE_MAX) continue;
            if (s->owner && s->owner[i / 3] != UINT_MAX) {
                ++shared;
                continue;
            }
            if (s->st[i].kind != OSSA__KIND_DEFAULT && s->st[i].kind != OSSA__KIND_REST)
                changed |= try_loosen(s, &s->worker[0], i, b->k, LOOSEN[f]);
            ossa__progress_report(&s->progress,
                                  PROGRESS_SEARCH + (PROGRESS_REFINE - PROGRESS_SEARCH) * (float)++done / (float)steps,
                                  "refine");
        }
        if (!s->owner) continue;
        hierarchy_share shares[MAX_THREADS];
        for (unsigned t = 0; t < s->threads; ++t) shares[t] = (hierarchy_share){s, &s->worker[t], b->k, LOOSEN[f], t};
        run_workers(loosen_share, shares, sizeof *shares, s->threads);
        fold_shares(s);
        done += shared;
        ossa__progress_report(
            &s->progress, PROGRESS_SEARCH + (PROGRESS_REFINE - PROGRESS_SEARCH) * (float)done / (float)steps, "refine");
    }
    /* Isolated joints, one at a time with every factor: nothing else reads or changes what
     * their tries read and change (their own sub-tracks, poses and reference points), so the
     * order is free and gives what the passes above would; the threads share them. Their
     * poses at the measured times are decoded from the kept encoding, the floats the runtime
     * sampling job decodes, into the worker's `alone`: no pose of all J joints at all M
     * times is kept for them. */
    const unsigned n = s->isolated > 1 ? s->threads : 1;
    isolated_share shares[MAX_THREADS];
    for (unsigned t = 0; t < n; ++t) shares[t] = (isolated_share){s, &s->worker[t], b->k, t, n};
    run_workers(loosen_isolated, shares, sizeof *shares, n);
    for (unsigned t = 0; t < n; ++t) changed |= s->worker[t].changed;
    ossa__progress_report(&s->progress, PROGRESS_REFINE, "refine");
    /* The check of the loosened blob needs none of them. */
    ossa_free(a, s->local), ossa_free(a, s->local_matrix), ossa_free(a, s->model), ossa_free(a, s->alone);
    s->local = NULL, s->local_matrix = NULL, s->model = NULL, s->alone = NULL;
    free_slack(s);
    free_loosening_scratch(s);
    for (unsigned t = 0; t < s->threads; ++t) {
        atomic_fetch_add_explicit(&ossa__loosen_slack_passes, s->worker[t].slack_passes, memory_order_relaxed);
        s->worker[t].slack_passes = 0;
    }
    if (!changed) return OSSA_OK;
    ossa_result r;
    const void *kept = b->blob.data;
    evaluate(s, b, b->k, true, false, &r);
    *verified = r == OSSA_OK && b->blob.data != kept;
    return r;
}

static void release(search *s)
{
    const ossa_allocator *a = s->desc->allocator;
    free_slack(s); /* before the workers, whose `moved` it clears */
    free_loosening_scratch(s);
    if (s->st) ossa__subtracks_free(s->clip, s->st, 3 * s->J);
    ossa__subtracks_free(s->clip, &s->trial, 1);
    ossa_free(a, s->st), ossa_free(a, s->end);
    ossa_free(a, s->tol), ossa_free(a, s->shell), ossa_free(a, s->radius), ossa_free(a, s->floor);
    ossa_free(a, s->reach_scale);
    for (unsigned t = 0; s->worker && t < s->threads; ++t) {
        ossa_free(a, s->worker[t].pose), ossa_free(a, s->worker[t].matrices);
        ossa_free(a, s->worker[t].context_memory), ossa_free(a, s->worker[t].joint_ratio);
        ossa__encode_scratch_free(s->clip, &s->worker[t].scratch, 1);
        if (s->ref.slot) ossa__reference_pass_free(&s->ref, &s->worker[t].rpass);
    }
    ossa__reference_destroy(&s->ref);
    ossa_free(a, s->worker);
    ossa_free(a, s->mult);
    ossa_free(a, s->times);
    ossa_free(a, s->local), ossa_free(a, s->local_matrix), ossa_free(a, s->model), ossa_free(a, s->alone);
    ossa_free(a, s->lslot);
    ossa_free(a, s->joint_max), ossa_free(a, s->joint_time), ossa_free(a, s->joint_ratio), ossa_free(a, s->changed);
    ossa_free(a, s->slot), ossa_free(a, s->last_ratio), ossa_free(a, s->best_mult);
    ossa_free(a, s->values);
    ossa_blob_destroy(&s->skeleton_blob);
}

static bool allocate(search *s)
{
    const ossa_allocator *a = s->desc->allocator;
    const size_t J = s->J ? s->J : 1, M = s->M;
    size_t mj, loosening;
    /* loosen() allocates M * J poses and matrices later, and the reference M * J points at
     * most: their size is checked here. */
    if (!ossa__mul_size(M, J, &mj) ||
        !ossa__mul_size(mj, sizeof(ossa_transform) + sizeof(affine) + OSSA__REFERENCE_OTHER_BYTES, &loosening))
        return false;
    s->end = ossa__calloc(a, J, sizeof *s->end);
    s->tol = ossa__calloc(a, J, sizeof(float));
    s->shell = ossa__calloc(a, J, sizeof(float));
    s->radius = ossa__calloc(a, J, sizeof(float));
    s->floor = ossa__calloc(a, J, sizeof(float));
    s->reach_scale = ossa__calloc(a, J, sizeof(float));
    s->mult = ossa__calloc(a, 3 * J, sizeof(float));
    s->values = ossa__calloc(a, 4 * M, sizeof *s->values);
    s->joint_max = ossa__calloc(a, J, sizeof(float));
    s->joint_time = ossa__calloc(a, J, sizeof(float));
    s->joint_ratio = ossa__calloc(a, J, sizeof(float));
    s->last_ratio = ossa__calloc(a, J, sizeof(float));
    s->best_mult = ossa__calloc(a, 3 * J, sizeof(float));
    s->changed = ossa__calloc(a, 3 * J, 1);
    s->slot = ossa__calloc(a, J, sizeof *s->slot);
    s->lslot = ossa__calloc(a, J, sizeof *s->lslot);
    s->threads = s->desc->threads > MAX_THREADS ? MAX_THREADS : (s->desc->threads ? s->desc->threads : 1);
#if !OSSA_HAVE_PTHREADS
    s->threads = 1;
#endif
    s->worker = ossa__calloc(a, s->threads, sizeof *s->worker);
    const size_t ctx_size = ossa_sampling_context_size(s->J);
    for (unsigned t = 0; s->worker && t < s->threads; ++t) {
        worker *w = &s->worker[t];
        w->s = s;
        w->pose = ossa_alloc(a, (s->soa + 1) * sizeof *w->pose);
        w->matrices = ossa_alloc(a, J * sizeof *w->matrices);
        w->context_memory = ossa_alloc(a, ctx_size);
        w->joint_ratio = ossa__calloc(a, J, sizeof *w->joint_ratio);
        if (!w->pose || !w->matrices || !w->context_memory || !w->joint_ratio ||
            !ossa__encode_scratch_alloc(s->clip, &w->scratch, 1))
            return false;
        w->context = ossa_sampling_context_init(w->context_memory, ctx_size, s->J);
    }
    s->st = ossa__calloc(a, 3 * J, sizeof *s->st);
    if (!s->end || !s->tol || !s->shell || !s->radius || !s->floor || !s->reach_scale || !s->mult || !s->values ||
        !s->joint_max || !s->joint_time || !s->joint_ratio || !s->last_ratio || !s->best_mult || !s->changed ||
        !s->slot || !s->lslot || !s->worker || !s->st || !ossa__clip_subtracks_alloc(s->clip, s->st) ||
        !ossa__subtracks_alloc(s->clip, &s->trial, 1))
        return false;
    for (size_t i = 0; i < 3 * s->J; ++i) s->mult[i] = 1.f;
    return true;
}

/* Whether the last per-joint measure (s->joint_ratio) failed at a few joints only (at most
 * one in FEW_FAILING, at least one), every one of them isolated: a root without children
 * (the rigid bodies of a physics bake, props), whose model-space error comes from its own
 * sub-tracks alone. */
#define FEW_FAILING 8
static bool few_isolated_fail(const search *s)
{
    size_t failing = 0;
    for (size_t j = 0; j < s->J; ++j) {
        if (s->joint_ratio[j] <= 1.f) continue;
        if (s->parents[j] >= 0 || s->end[j] != j + 1) return false;
        ++failing;
    }
    return failing > 0 && failing * FEW_FAILING <= s->J;
}

/* When the encoding at factor k fails at a few isolated joints (few_isolated_fail): the
 * sub-tracks of each failing joint get a tighter local tolerance, and only those are encoded
 * and measured again, until the encoding passes. A clip of a thousand boxes of which a dozen
 * spin fast between two frames then keeps the others at k, where halving every tolerance
 * with theirs (the global search) costs bytes and an encoding of every sub-track per try.
 * The factor is a half, a quarter when the joint is more than twice its tolerance, and a
 * sixteenth when the last step did not bring its error down by a tenth (its error is between
 * time points, where the key selection and refit do not look, and only keeping nearly every
 * key helps). Joints in a hierarchy are left to the global search: their error is shared with
 * their ancestors, and tightening them alone measured larger archives on human clips (by up
 * to 4 %). True when an encoding passed (the smallest passing one is in `b`); false, with
 * every factor back at 1, when a joint that fails is not isolated or is at K_MIN already, or
 * on an error (*status). */
/* Isolated joint j's largest error / tolerance over the measured times with its current
 * encoding: its sub-tracks decoded as the runtime decodes them, its matrix (a root's is its
 * local transform's) against the reference points. What the measure gives for it, without
 * writing a blob and sampling every joint: tighten_failing's rounds use it, and the measure
 * has the last word. */
static float isolated_ratio(search *s, size_t j)
{
    float worst = 0.f;
    ossa__decode_cursor cursors[3] = {{0}};
    for (size_t m = 0; m < s->M; ++m) {
        float v[3][4];
        for (size_t c = 0; c < 3; ++c)
            ossa__subtrack_decode_ratio(s->clip, 3 * j + c, &s->st[3 * j + c], s->times[m] / s->clip->duration, v[c],
                                        &cursors[c]);
        const ossa_transform t = {
            {v[0][0], v[0][1], v[0][2]}, {v[1][0], v[1][1], v[1][2], v[1][3]}, {v[2][0], v[2][1], v[2][2]}};
        const ossa_float4x4 matrix = ossa__float4x4_from_transform(&t);
        float rebuilt[12];
        const float *ref = ossa__reference_points(&s->ref, &s->worker[0].rpass, m, j, rebuilt);
        const float ratio = point_error(&matrix, s->shell[j], ref) / s->tol[j];
        if (!(ratio <= worst)) worst = ratio;
    }
    return worst;
}

static bool tighten_failing(search *s, best *b, float k, ossa_result *status)
{
    const size_t J = s->J;
    if (!reference_all(s)) {
        *status = reference_failed(s);
        return false;
    }
    for (size_t j = 0; j < J; ++j) s->last_ratio[j] = INFINITY;
    for (;;) {
        memset(s->changed, 0, 3 * J);
        bool give_up = false;
        for (size_t j = 0; j < J && !give_up; ++j) {
            const float r = s->joint_ratio[j];
            if (r <= 1.f) continue;
            give_up = s->parents[j] >= 0 || s->end[j] != j + 1;
            float f = r > 2.f ? .25f : .5f;
            if (r > .9f * s->last_ratio[j]) f = 1.f / 16.f;
            for (size_t i = 3 * j; i < 3 * j + 3 && !give_up; ++i) {
                while (f < .5f && k * s->mult[i] * f < K_MIN) f *= 2.f;
                give_up = k * s->mult[i] * f < K_MIN;
            }
            for (size_t i = 3 * j; i < 3 * j + 3 && !give_up; ++i) s->mult[i] *= f, s->changed[i] = 1;
        }
        if (give_up) break;
        memcpy(s->last_ratio, s->joint_ratio, J * sizeof *s->last_ratio);
        encode_changed(s, k);
        /* Only the tightened joints' errors changed: while one of them still fails by its own
         * figure, the next round follows without a blob. */
        bool passes = true;
        for (size_t j = 0; j < J; ++j) {
            if (s->changed[3 * j] || s->changed[3 * j + 1] || s->changed[3 * j + 2])
                s->joint_ratio[j] = isolated_ratio(s, j);
            passes = passes && s->joint_ratio[j] <= 1.f;
        }
        if (!passes) continue;
        const float ratio = evaluate(s, b, k, false, true, status);
        if (*status != OSSA_OK) return false;
        if (ratio <= 1.f) return true;
    }
    for (size_t i = 0; i < 3 * J; ++i) s->mult[i] = 1.f;
    return false;
}

/* k: doubled while the encoding passes, halved while it fails, then bisected between the last
 * pass and fail. The measured error is not monotonic in k, so every passing encoding is a
 * candidate and the smallest wins. Candidates are only screened here: see search_verified. */
static ossa_result search_k(search *s, best *b)
{
    ossa_result r = OSSA_OK;
    float k = 1.f, pass = 0.f, fail = 0.f;
    for (size_t i = 0; i < 3 * s->J; ++i) s->mult[i] = 1.f;
    /* While nothing has passed, failures are measured per joint where some joint is isolated
     * (see tighten_failing); otherwise a failing measure stops at its first failing time. */
    const bool isolated = s->isolated > 0;
    encode_all(s, k);
    if (evaluate(s, b, k, false, isolated, &r) <= 1.f)
        pass = k;
    else if (r == OSSA_OK && isolated && few_isolated_fail(s) && tighten_failing(s, b, k, &r))
        return r;
    else
        fail = k;
    while (r == OSSA_OK && (pass == 0.f || fail == 0.f) && k > K_MIN && k < K_MAX) {
        k = pass > 0.f ? k * 2.f : k * .5f;
        if (pass == 0.f && k == FLOOR_CHECK) {
            /* Still failing: if even the finest encoding fails, the tolerance is below what the
             * data and float model space can resolve, and halving further is wasted. */
            encode_all(s, K_MIN);
            if (evaluate(s, b, K_MIN, false, false, &r) > 1.f) return r;
        }
        encode_all(s, k);
        const bool per_joint = isolated && pass == 0.f;
        if (evaluate(s, b, k, false, per_joint, &r) <= 1.f)
            pass = k;
        else if (r == OSSA_OK && per_joint && few_isolated_fail(s) && tighten_failing(s, b, k, &r))
            return r;
        else
            fail = k;
    }
    for (int i = 0; r == OSSA_OK && i < BISECTIONS && pass > 0.f && fail > 0.f; ++i) {
        const float mid = sqrtf(pass * fail);
        encode_all(s, mid);
        if (evaluate(s, b, mid, false, false, &r) <= 1.f)
            pass = mid;
        else
            fail = mid;
    }
    return r;
}

/* search_k, loosening (loosen) and the verification of the blob they keep. The blob search_k
 * keeps (the smallest that passed the screening) is loosened before it is verified: when the
 * loosened blob passes its verification, the one it came from needs none, and the search costs
 * one double-precision pass instead of two. Otherwise that blob is verified. Should this fail,
 * float rounding at this model's size is about as large as the tolerance and the screening
 * cannot be trusted near it: the blob is dropped and the search goes on with every candidate
 * verified, first the finest encoding (if even that fails, `b` is left empty: no encoding
 * reaches the tolerance), then k halved from the failed one until an encoding passes, which is
 * loosened in turn. One verification per search on every clip we measured; more only when the
 * screening was wrong or loosening changed nothing. */
static ossa_result search_verified(search *s, best *b)
{
    ossa_result r = search_k(s, b);
    if (r != OSSA_OK || !b->blob.data) return r;
    bool verified = false;
    if ((r = loosen(s, b, &verified)) != OSSA_OK || verified) return r;
    if (verify(s, &b->blob, &b->stats, &r) <= 1.f || r != OSSA_OK) return r;
    float k = b->k;
    ossa_blob_destroy(&b->blob);
    memset(b, 0, sizeof *b);
    for (size_t i = 0; i < 3 * s->J; ++i) s->mult[i] = 1.f;
    encode_all(s, K_MIN);
    if (evaluate(s, b, K_MIN, true, false, &r) > 1.f) return r;
    while (r == OSSA_OK && (k *= .5f) > K_MIN) {
        encode_all(s, k);
        if (evaluate(s, b, k, true, false, &r) <= 1.f) break;
    }
    if (r == OSSA_OK && b->blob.data) r = loosen(s, b, &verified);
    return r;
}

ossa_result ossa__animation_search(ossa__clip *clip, const ossa_raw_animation *raw, const ossa_raw_skeleton *skel,
                                   const ossa_animation_build_desc *desc, const char *name, ossa__clock *clock,
                                   ossa_blob *out, ossa_diag *diag)
{
    search s;
    memset(&s, 0, sizeof s);
    s.clock = clock;
    s.clip = clip, s.raw = raw, s.desc = desc, s.name = name, s.diag = diag, s.J = clip->joints,
    s.soa = (clip->joints + 3) / 4;
    s.progress = (ossa__progress){.fn = desc->progress, .user = desc->progress_user};
    best b;
    memset(&b, 0, sizeof b);
    ossa_result r = OSSA_OK;
    if (!sample_times(&s, raw) || !allocate(&s) || !ossa__clip_facts_init(clip)) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring %zu joints at %zu times", s.J, s.M);
        goto done;
    }
    if ((r = ossa_skeleton_build(skel, desc->allocator, &s.skeleton_blob, diag)) != OSSA_OK) goto done;
    if ((r = ossa_skeleton_init(&s.skeleton, s.skeleton_blob.data, s.skeleton_blob.size)) != OSSA_OK) {
        r = ossa__fail(diag, r, "skeleton view failed");
        goto done;
    }
    s.parents = s.skeleton.parents;
    ossa__progress_report(&s.progress, 0.f, "measure source");
    joint_figures(&s);
    bool passes = ossa__reference_init(&s.ref, raw, s.parents, s.times, s.M, s.shell, desc->allocator);
    for (unsigned t = 0; passes && t < s.threads; ++t) passes = ossa__reference_pass_init(&s.ref, &s.worker[t].rpass);
    if (!passes) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring %zu joints at %zu times", s.J, s.M);
        goto done;
    }
    ossa__clock_switch(clock, OSSA__STAGE_SEARCH);
    ossa__progress_report(&s.progress, PROGRESS_REFERENCE, "search");
    if ((r = search_verified(&s, &b)) != OSSA_OK) goto done;
    if (!b.blob.data) {
        /* Nothing passed: the local checks at the time points may have dropped rotation keys
         * whose removal bends the curve between them (two nlerps agree at the points and part
         * in between). Search again with those checks half-way between time points too. */
        clip->midpoints = true;
        if ((r = search_verified(&s, &b)) != OSSA_OK) goto done;
    }
    if (!b.blob.data) {
        /* Nothing passed even at K_MIN: the quantisation floor is above the tolerance. Keep
         * the tightest encoding and report what it measures. */
        encode_all(&s, K_MIN);
        if ((r = write_blob(&s, &b.blob)) != OSSA_OK) goto done;
        verify(&s, &b.blob, &b.stats, &r);
        if (r != OSSA_OK) goto done;
    }
    if (desc->stats) {
        *desc->stats = b.stats; /* the stage times follow in ossa_animation_build */
        ossa_animation anim;
        if (ossa_animation_init(&anim, b.blob.data, b.blob.size) == OSSA_OK) desc->stats->key_count = anim.key_count;
        desc->stats->evaluations = s.evaluations;
    }
    *out = b.blob;
    b.blob = (ossa_blob){0};
    ossa__progress_report(&s.progress, 1.f, "write");
done:
    ossa_blob_destroy(&b.blob);
    release(&s);
    return r;
}
