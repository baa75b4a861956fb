#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "baseline_jobs.h" /* measurements that do not depend on the CPU */
#include "internal.h"
#include "matrix.h"
#include "ossa/offline/error.h"
#include "ossa/offline/error_joints.h"
#include "ossa/sampling_job.h"

#if OSSA_HAVE_PTHREADS
#include <pthread.h>
#endif

void ossa__raw_to_model(const int16_t *parents, size_t count, const ossa_transform *local, ossa_float4x4 *model)
{
    for (size_t j = 0; j < count; ++j) {
        const ossa_float4x4 m = ossa__float4x4_from_transform(&local[j]);
        const int p = parents[j];
        model[j] = p < 0 ? m : ossa__float4x4_mul_affine(&model[p], &m);
    }
}

static float clamp_time(float t, float duration)
{
    if (!(t >= 0.f)) return 0.f; /* also NaN: measuring must not trust unvalidated keys */
    return t > duration ? duration : t;
}

/* Distinct key times of all channels of all tracks, clamped, ascending, into a new array of
 * *count (+1) floats; NULL when out of memory or the key count overflows. */
float *ossa__source_key_times(const ossa_raw_animation *raw, const ossa_allocator *a, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < raw->track_count; ++i) {
        const ossa_raw_joint_track *tr = &raw->tracks[i];
        if (!ossa__add_size(total, tr->translation_count, &total) ||
            !ossa__add_size(total, tr->rotation_count, &total) || !ossa__add_size(total, tr->scale_count, &total) ||
            total == SIZE_MAX)
            return NULL;
    }
    float *times = ossa__calloc(a, total + 1, sizeof *times);
    if (!times) return NULL;
    size_t n = 0;
    ossa__key_times_run last[2] = {{NULL, 0, 0}, {NULL, 0, 0}};
    for (size_t i = 0; i < raw->track_count; ++i) {
        const ossa_raw_joint_track *tr = &raw->tracks[i];
        if (!ossa__collected_key_times(last, tr->translations, tr->translation_count, sizeof *tr->translations))
            for (size_t k = 0; k < tr->translation_count; ++k)
                times[n++] = clamp_time(tr->translations[k].time, raw->duration);
        if (!ossa__collected_key_times(last, tr->rotations, tr->rotation_count, sizeof *tr->rotations))
            for (size_t k = 0; k < tr->rotation_count; ++k)
                times[n++] = clamp_time(tr->rotations[k].time, raw->duration);
        if (!ossa__collected_key_times(last, tr->scales, tr->scale_count, sizeof *tr->scales))
            for (size_t k = 0; k < tr->scale_count; ++k) times[n++] = clamp_time(tr->scales[k].time, raw->duration);
    }
    qsort(times, n, sizeof *times, ossa__compare_floats);
    size_t distinct = 0;
    for (size_t k = 0; k < n; ++k)
        if (distinct == 0 || times[k] != times[distinct - 1]) times[distinct++] = times[k];
    *count = distinct;
    return times;
}

float ossa__fixed_rate(float rate, float duration)
{
    /* The fixed-rate samples are bounded: a long clip is measured at a lower rate. */
    if ((double)duration * (double)rate > (double)OSSA_ERROR_MAX_FIXED_SAMPLES)
        return (float)((double)OSSA_ERROR_MAX_FIXED_SAMPLES / (double)duration);
    return rate;
}

size_t ossa__fixed_count(float rate, float duration) { return (size_t)ceil((double)duration * (double)rate) + 1; }

float ossa__fixed_time(size_t i, float rate, float duration) { return clamp_time((float)i / rate, duration); }

/* See internal.h. A run: the fixed samples before the next key time. */
size_t ossa__thinned_fixed(const float *key_times, size_t keys, float rate, float duration, float *out)
{
    const size_t fixed = ossa__fixed_count(rate, duration);
    size_t n = 0;
    /* A run: the fixed samples below the next key time (k: the first key time above the run's
     * first sample). */
    for (size_t i = 0, k = 0; i < fixed;) {
        const float first = ossa__fixed_time(i, rate, duration);
        while (k < keys && key_times[k] <= first) ++k;
        size_t end = i + 1;
        while (end < fixed && (k == keys || ossa__fixed_time(end, rate, duration) < key_times[k])) ++end;
        const size_t run = end - i;
        if (run <= OSSA__MAX_FIXED_PER_INTERVAL) {
            for (size_t q = i; out && q < end; ++q) out[n + q - i] = ossa__fixed_time(q, rate, duration);
            n += run;
        } else {
            for (size_t m = 1; out && m <= OSSA__MAX_FIXED_PER_INTERVAL; ++m)
                out[n + m - 1] =
                    ossa__fixed_time(i + m * (run + 1) / (OSSA__MAX_FIXED_PER_INTERVAL + 1) - 1, rate, duration);
            n += OSSA__MAX_FIXED_PER_INTERVAL;
        }
        i = end;
    }
    return n;
}

/* ---- the measurement in double precision ----
 *
 * Model space is accumulated in double: a float chain of 20 joints 30 m from the origin rounds
 * each point by a few float steps there (about 2e-6 m each), a good part of a 0.05 mm bound
 * and different for the source and the built chain, so float model space would measure its
 * own rounding. In double that rounding is below 1e-12 m, and what is measured is the
 * difference between the two local poses: the source's keys interpolated exactly, and the
 * floats the runtime sampling job decodes. */

/* An affine transform, rows of a 3 x 4 matrix: m[4 r + c]. */
typedef struct affine {
    double m[12];
} affine;

/* The matrix of translation t, rotation q (x, y, z, w, as given: the runtime's
 * local-to-model job does not normalise it either) and scale s. */
static affine affine_of(const double t[3], const double q[4], const double s[3])
{
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1. - 2. * (y * y + z * z), 2. * (x * y - z * w),      2. * (x * z + y * w),
                         2. * (x * y + z * w),      1. - 2. * (x * x + z * z), 2. * (y * z - x * w),
                         2. * (x * z - y * w),      2. * (y * z + x * w),      1. - 2. * (x * x + y * y)};
    affine a;
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) a.m[4 * i + k] = r[3 * i + k] * s[k];
        a.m[4 * i + 3] = t[i];
    }
    return a;
}

static affine affine_mul(const affine *a, const affine *b)
{
    affine c;
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 4; ++k)
            c.m[4 * i + k] = a->m[4 * i] * b->m[k] + a->m[4 * i + 1] * b->m[4 + k] + a->m[4 * i + 2] * b->m[8 + k] +
                             (k == 3 ? a->m[4 * i + 3] : 0.);
    return c;
}

/* The distance between point k of a joint under a and under b: its origin (k = 0) or the
 * vertex `shell` along its axis k - 1. The difference is taken before the point is formed,
 * so a joint far from the origin loses nothing to the size of its translation. */
static float point_distance(const affine *a, const affine *b, int k, double shell)
{
    double v[3];
    for (int i = 0; i < 3; ++i) {
        v[i] = a->m[4 * i + 3] - b->m[4 * i + 3];
        if (k > 0) v[i] += (a->m[4 * i + k - 1] - b->m[4 * i + k - 1]) * shell;
    }
    return (float)sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Index of the last key at or before t (0 when t is before the first), as the raw sampler
 * finds it; *cursor holds the last answer. The times of a pass ascend, so the answer is
 * usually that key or one of the next few: a short walk from it, else a binary search (for a
 * time before it, or farther on). */
#define LAST_KEY(keys, count, t, cursor, out)                                                                          \
    do {                                                                                                               \
        size_t k_ = *(cursor) < (count) ? *(cursor) : 0;                                                               \
        int steps_ = 0;                                                                                                \
        if ((keys)[k_].time > (t)) steps_ = 8;                                                                         \
        for (; steps_ < 8 && k_ + 1 < (count) && (keys)[k_ + 1].time <= (t); ++steps_) ++k_;                           \
        if (steps_ == 8) {                                                                                             \
            size_t lo_ = 0, hi_ = (count);                                                                             \
            while (hi_ - lo_ > 1) {                                                                                    \
                const size_t mid_ = (lo_ + hi_) / 2;                                                                   \
                if ((keys)[mid_].time <= (t))                                                                          \
                    lo_ = mid_;                                                                                        \
                else                                                                                                   \
                    hi_ = mid_;                                                                                        \
            }                                                                                                          \
            k_ = lo_;                                                                                                  \
        }                                                                                                              \
        *(cursor) = (out) = k_;                                                                                        \
    } while (0)

static void float3_at(const ossa_raw_float3_key *keys, size_t count, float t, double fallback, size_t *cursor,
                      double out[3])
{
    if (count == 0) {
        out[0] = out[1] = out[2] = fallback;
        return;
    }
    size_t k = 0;
    double alpha = 0.;
    if (t >= keys[count - 1].time)
        k = count - 1;
    else if (t > keys[0].time) {
        LAST_KEY(keys, count, t, cursor, k);
        alpha = ((double)t - (double)keys[k].time) / ((double)keys[k + 1].time - (double)keys[k].time);
    }
    const ossa_float3 a = keys[k].value, b = alpha > 0. ? keys[k + 1].value : a;
    out[0] = (double)a.x + ((double)b.x - (double)a.x) * alpha;
    out[1] = (double)a.y + ((double)b.y - (double)a.y) * alpha;
    out[2] = (double)a.z + ((double)b.z - (double)a.z) * alpha;
}

static void normalize4(double q[4])
{
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.) || !isfinite(n)) {
        q[0] = q[1] = q[2] = 0., q[3] = 1.; /* as ossa_quat_normalize */
        return;
    }
    const double inv = 1. / n;
    for (int c = 0; c < 4; ++c) q[c] *= inv;
}

static void quat_at(const ossa_raw_quat_key *keys, size_t count, float t, size_t *cursor, double out[4])
{
    if (count == 0) {
        out[0] = out[1] = out[2] = 0., out[3] = 1.;
        return;
    }
    size_t k = 0;
    double alpha = 0.;
    if (t >= keys[count - 1].time)
        k = count - 1;
    else if (t > keys[0].time) {
        LAST_KEY(keys, count, t, cursor, k);
        alpha = ((double)t - (double)keys[k].time) / ((double)keys[k + 1].time - (double)keys[k].time);
    }
    const ossa_quat qa = keys[k].value;
    double a[4] = {(double)qa.x, (double)qa.y, (double)qa.z, (double)qa.w};
    normalize4(a);
    if (alpha > 0.) {
        const ossa_quat qb = keys[k + 1].value;
        double b[4] = {(double)qb.x, (double)qb.y, (double)qb.z, (double)qb.w};
        normalize4(b);
        const double sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0. ? -1. : 1.;
        for (int c = 0; c < 4; ++c) a[c] += (sign * b[c] - a[c]) * alpha;
        normalize4(a);
    }
    memcpy(out, a, sizeof a);
}

/* The source's local transform of track j at t (clamped to the duration): the keys of
 * ossa_raw_animation_sample, interpolated in double (lerp; nlerp on the shorter arc).
 * cursor: [3] the track's last keys (LAST_KEY). */
static affine source_local(const ossa_raw_animation *raw, size_t j, float t, size_t *cursor)
{
    t = clamp_time(t, raw->duration);
    const ossa_raw_joint_track *tr = &raw->tracks[j];
    double tt[3], q[4], s[3];
    float3_at(tr->translations, tr->translation_count, t, 0., cursor, tt);
    quat_at(tr->rotations, tr->rotation_count, t, cursor + 1, q);
    float3_at(tr->scales, tr->scale_count, t, 1., cursor + 2, s);
    return affine_of(tt, q, s);
}

static affine decoded_local(const ossa_soa_transform *pose, size_t j)
{
    const ossa_transform l = ossa_soa_transform_get(&pose[j / 4], (int)(j % 4));
    const double t[3] = {(double)l.translation.x, (double)l.translation.y, (double)l.translation.z};
    const double q[4] = {(double)l.rotation.x, (double)l.rotation.y, (double)l.rotation.z, (double)l.rotation.w};
    const double s[3] = {(double)l.scale.x, (double)l.scale.y, (double)l.scale.z};
    return affine_of(t, q, s);
}

/* Where the errors of one pass go: all of them (for the report's percentile, mean and
 * maximum) and/or each joint's largest and its time. Any pointer may be NULL. */
typedef struct sink {
    float *errors; /* [count so far] every (point or joint, time) error */
    size_t count;
    double sum;
    float max;
    size_t worst_joint;
    float worst_time;
    float *joint_max;  /* [J] */
    float *joint_time; /* [J] */
} sink;

/* The one sampling pass: at each of `times` (seconds, ascending), the source in double and
 * the built animation by the runtime sampling job at time / duration, both to model space in
 * double along the skeleton's parents. A joint's points are its origin and, with a shell
 * (shells[j], else `shell`) > 0, its three virtual vertices; each point's distance is one
 * error (the report's), and a joint's largest is its error at that time. */
static ossa_result measure_times(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                 const ossa_animation *built, const float *times, size_t time_count,
                                 const float *shells, float shell, const ossa_allocator *a, sink *out, ossa_diag *diag)
{
    const size_t n = skeleton->joint_count;
    const size_t ctx_size = ossa_sampling_context_size(n);
    void *ctx_mem = ossa_alloc(a, ctx_size);
    ossa_soa_transform *soa = ossa__calloc(a, skeleton->soa_count + 1, sizeof *soa);
    affine *m_raw = ossa__calloc(a, n + 1, sizeof *m_raw), *m_built = ossa__calloc(a, n + 1, sizeof *m_built);
    size_t *cursors = ossa__calloc(a, 3 * n + 1, sizeof *cursors);
    ossa_result r = OSSA_OK;
    if (!ctx_mem || !soa || !m_raw || !m_built || !cursors) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring error");
        goto done;
    }
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, n);
    const float duration = raw->duration;
    for (size_t s = 0; s < time_count; ++s) {
        const float time = times[s];
        const ossa_sampling_job job = {
            built, ctx, time / duration, soa, skeleton->soa_count, skeleton->rest_pose, skeleton->soa_count};
        if ((r = ossa__sampling_job_run_baseline(&job)) != OSSA_OK) {
            ossa__fail(diag, r, "sampling the built animation failed: %s", ossa_result_string(r));
            goto done;
        }
        for (size_t j = 0; j < n; ++j) {
            const int p = skeleton->parents[j];
            const affine lr = source_local(raw, j, time, cursors + 3 * j), lb = decoded_local(soa, j);
            m_raw[j] = p < 0 ? lr : affine_mul(&m_raw[p], &lr);
            m_built[j] = p < 0 ? lb : affine_mul(&m_built[p], &lb);
            const double d = shells ? (double)shells[j] : (double)shell;
            float joint_error = 0.f;
            for (int k = 0; k < (d > 0. ? 4 : 1); ++k) {
                const float e = point_distance(&m_raw[j], &m_built[j], k, d);
                joint_error = e > joint_error ? e : joint_error;
                if (out->errors) {
                    out->errors[out->count++] = e;
                    out->sum += (double)e;
                    if (e > out->max || out->count == 1) out->max = e, out->worst_joint = j, out->worst_time = time;
                }
            }
            if (out->joint_max && (joint_error > out->joint_max[j] || s == 0))
                out->joint_max[j] = joint_error, out->joint_time[j] = time;
        }
    }
done:
    ossa_free(a, ctx_mem), ossa_free(a, soa), ossa_free(a, m_raw), ossa_free(a, m_built), ossa_free(a, cursors);
    return r;
}

size_t ossa__measure_joints_memory(size_t joint_count)
{
    /* measure_times' allocations: the context, the decoded pose, two model-space transforms
     * and three key cursors per joint (each with the one element of slack it allocates). */
    const size_t soa = (joint_count + 3) / 4 + 1;
    return ossa_sampling_context_size(joint_count) + soa * sizeof(ossa_soa_transform) +
           2 * (joint_count + 1) * sizeof(affine) + (3 * joint_count + 1) * sizeof(size_t);
}

/* One thread's share of ossa__measure_joints: times [first, first + count), each joint's
 * largest error and its time into its own arrays. */
typedef struct measure_share {
    const ossa_skeleton *skeleton;
    const ossa_raw_animation *raw;
    const ossa_animation *built;
    const float *times, *shells;
    size_t first, count;
    const ossa_allocator *allocator;
    sink out;
    ossa_diag diag;
    ossa_result result;
} measure_share;

static void *measure_share_run(void *arg)
{
    measure_share *m = arg;
    m->result = measure_times(m->skeleton, m->raw, m->built, m->times + m->first, m->count, m->shells, 0.f,
                              m->allocator, &m->out, &m->diag);
    return NULL;
}

ossa_result ossa__measure_joints(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                 const ossa_animation *built, const float *times, size_t time_count,
                                 const float *shells, const ossa_allocator *allocator, unsigned threads,
                                 float *joint_max, float *joint_time, ossa_diag *diag)
{
    const size_t n = skeleton->joint_count;
    memset(joint_max, 0, n * sizeof *joint_max);
    memset(joint_time, 0, n * sizeof *joint_time);
    sink out = {.joint_max = joint_max, .joint_time = joint_time};
    if (threads > OSSA__MEASURE_MAX_THREADS) threads = OSSA__MEASURE_MAX_THREADS;
#if !OSSA_HAVE_PTHREADS
    threads = 1;
#endif
    if (threads > time_count) threads = time_count ? (unsigned)time_count : 1;
    if (threads <= 1) return measure_times(skeleton, raw, built, times, time_count, shells, 0.f, allocator, &out, diag);
    /* The times split in consecutive runs, one per thread; share 0 writes into the outputs.
     * Each share keeps a joint's first largest error over its run, so taking a later run's only
     * where it is strictly larger gives what one pass in time order gives. */
    measure_share shares[OSSA__MEASURE_MAX_THREADS];
    float *scratch = ossa__calloc(allocator, 2 * n * (threads - 1) + 1, sizeof *scratch);
    if (!scratch) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring error");
    for (unsigned t = 0; t < threads; ++t) {
        const size_t first = time_count * t / threads, end = time_count * (t + 1) / threads;
        shares[t] =
            (measure_share){skeleton, raw, built, times, shells, first, end - first, allocator, {0}, {0}, OSSA_OK};
        shares[t].out.joint_max = t ? scratch + 2 * n * (t - 1) : joint_max;
        shares[t].out.joint_time = t ? scratch + 2 * n * (t - 1) + n : joint_time;
    }
    unsigned started = 1;
#if OSSA_HAVE_PTHREADS
    pthread_t ids[OSSA__MEASURE_MAX_THREADS];
    for (unsigned t = 1; t < threads; ++t, ++started)
        if (pthread_create(&ids[t], NULL, measure_share_run, &shares[t]) != 0) break;
#endif
    for (unsigned t = 0; t < threads; ++t)
        if (t == 0 || t >= started) measure_share_run(&shares[t]);
#if OSSA_HAVE_PTHREADS
    for (unsigned t = 1; t < started; ++t) pthread_join(ids[t], NULL);
#endif
    ossa_result r = OSSA_OK;
    for (unsigned t = 0; t < threads && r == OSSA_OK; ++t)
        if ((r = shares[t].result) != OSSA_OK) {
            if (diag && diag->code == OSSA_OK) *diag = shares[t].diag;
        }
    for (unsigned t = 1; t < threads && r == OSSA_OK; ++t)
        for (size_t j = 0; j < n; ++j)
            if (shares[t].out.joint_max[j] > joint_max[j])
                joint_max[j] = shares[t].out.joint_max[j], joint_time[j] = shares[t].out.joint_time[j];
    ossa_free(allocator, scratch);
    if (r != OSSA_OK) memset(joint_max, 0, n * sizeof *joint_max), memset(joint_time, 0, n * sizeof *joint_time);
    return r;
}

/* ossa_measure_error and ossa_measure_joint_errors (ossa/offline/error_joints.h): checks the
 * inputs, lists the times (fixed rate, then the source key times) and measures them.
 * With `report`, fills it (max, worst joint and time, mean, p99 over a sorted copy of all
 * errors); with `joint_max`, the largest error of each joint ([joint_count], zeroed first).
 * Either may be NULL; the caller has checked that skeleton, raw and built are not. On error,
 * both outputs are left zeroed. */
static ossa_result measure_points(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                  const ossa_animation *built, const ossa_error_desc *desc, ossa_error_report *report,
                                  float *joint_max, ossa_diag *diag)
{
    const ossa_error_desc defaults = {0};
    if (!desc) desc = &defaults;
    const size_t n = skeleton->joint_count;
    if (joint_max) memset(joint_max, 0, n * sizeof *joint_max);
    if (raw->track_count != n || built->track_count != n)
        return ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH,
                          "skeleton has %zu joints, raw animation %zu tracks, built animation %zu", n, raw->track_count,
                          built->track_count);
    if (!isfinite(desc->sample_rate) || desc->sample_rate < 0.f || !isfinite(desc->shell_distance) ||
        desc->shell_distance < 0.f)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "sample_rate and shell_distance must be finite and >= 0");
    const float duration = raw->duration;
    if (!(duration > 0.f && duration <= OSSA_RAW_ANIMATION_MAX_DURATION))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION, "raw animation duration %g s is outside (0, %g]",
                          (double)duration, (double)OSSA_RAW_ANIMATION_MAX_DURATION);
    const float rate = ossa__fixed_rate(desc->sample_rate > 0.f ? desc->sample_rate : 60.f, duration);
    size_t fixed_samples = ossa__fixed_count(rate, duration);
    const size_t points_per_joint = desc->shell_distance > 0.f ? 4 : 1;
    const ossa_allocator *a = desc->allocator;
    size_t key_time_count = 0, samples = fixed_samples;
    float *key_times = NULL;
    if (desc->source_times) {
        /* With the key times, the fixed samples are thinned between keys far apart, as the
         * builder's measure does (ossa__thinned_fixed): the same times, the same error. */
        key_times = ossa__source_key_times(raw, a, &key_time_count);
        if (key_times) fixed_samples = ossa__thinned_fixed(key_times, key_time_count, rate, duration, NULL);
        if (!key_times || !ossa__add_size(fixed_samples, key_time_count, &samples)) {
            ossa_free(a, key_times);
            return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory listing key times");
        }
    }
    /* Every error is kept only for the report's percentile. */
    size_t error_count = 0;
    if (report && !ossa__mul_size(samples, n * points_per_joint, &error_count)) {
        ossa_free(a, key_times);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "too many samples");
    }
    float *times = ossa__calloc(a, samples + 1, sizeof *times);
    float *joint_time = joint_max ? ossa__calloc(a, n + 1, sizeof *joint_time) : NULL;
    sink out = {.joint_max = joint_max, .joint_time = joint_time};
    out.errors = report ? ossa__calloc(a, error_count + 1, sizeof *out.errors) : NULL;
    ossa_result r = OSSA_OK;
    if (!times || (joint_max && !joint_time) || (report && !out.errors)) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring error");
        goto done;
    }
    if (key_times)
        ossa__thinned_fixed(key_times, key_time_count, rate, duration, times);
    else
        for (size_t s = 0; s < fixed_samples; ++s) times[s] = ossa__fixed_time(s, rate, duration);
    if (key_time_count) memcpy(times + fixed_samples, key_times, key_time_count * sizeof *times);
    /* One ascending pass: the sampling job is fastest going forward. */
    qsort(times, samples, sizeof *times, ossa__compare_floats);
    r = measure_times(skeleton, raw, built, times, samples, NULL, desc->shell_distance, a, &out, diag);
    if (r == OSSA_OK && report) {
        qsort(out.errors, out.count, sizeof *out.errors, ossa__compare_floats);
        report->max = out.max;
        report->worst_joint = out.worst_joint;
        report->worst_time = out.worst_time;
        report->sample_count = samples;
        report->source_sample_count = key_time_count;
        report->point_count = out.count;
        report->mean = out.count ? (float)(out.sum / (double)out.count) : 0.f;
        report->p99 = out.count ? out.errors[(size_t)((double)(out.count - 1) * 0.99)] : 0.f;
    }
done:
    ossa_free(a, out.errors), ossa_free(a, times), ossa_free(a, key_times), ossa_free(a, joint_time);
    if (r != OSSA_OK && report) memset(report, 0, sizeof *report);
    if (r != OSSA_OK && joint_max) memset(joint_max, 0, n * sizeof *joint_max);
    return r;
}

ossa_result ossa_measure_error(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                               const ossa_animation *built, const ossa_error_desc *desc, ossa_error_report *report,
                               ossa_diag *diag)
{
    if (report) memset(report, 0, sizeof *report);
    if (!skeleton || !raw || !built || !report)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "missing skeleton, animation or report");
    return measure_points(skeleton, raw, built, desc, report, NULL, diag);
}

ossa_result ossa_measure_joint_errors(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                      const ossa_animation *built, const ossa_error_desc *desc, float *joint_max,
                                      size_t joint_max_count, ossa_diag *diag)
{
    if (!skeleton || !raw || !built || !joint_max)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "missing skeleton, animation or per-joint output");
    if (joint_max_count < skeleton->joint_count)
        return ossa__fail(diag, OSSA_ERROR_OUTPUT_TOO_SMALL, "per-joint output holds %zu joints, the skeleton has %zu",
                          joint_max_count, skeleton->joint_count);
    return measure_points(skeleton, raw, built, desc, NULL, joint_max, diag);
}
