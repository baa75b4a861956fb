#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ossa/local_to_model_job.h"
#include "ossa/offline/error.h"
#include "ossa/offline/error_joints.h"
#include "ossa/sampling_job.h"

void ossa__raw_to_model(const int16_t *parents, size_t count, const ossa_transform *local, ossa_float4x4 *model)
{
    for (size_t j = 0; j < count; ++j) {
        const ossa_float4x4 m = ossa_float4x4_from_transform(&local[j]);
        const int p = parents[j];
        model[j] = p < 0 ? m : ossa_float4x4_mul(&model[p], &m);
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
    for (size_t i = 0; i < raw->track_count; ++i) {
        const ossa_raw_joint_track *tr = &raw->tracks[i];
        for (size_t k = 0; k < tr->translation_count; ++k)
            times[n++] = clamp_time(tr->translations[k].time, raw->duration);
        for (size_t k = 0; k < tr->rotation_count; ++k) times[n++] = clamp_time(tr->rotations[k].time, raw->duration);
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

/* The one sampling pass behind ossa_measure_error and ossa_measure_joint_errors
 * (ossa/offline/error_joints.h): checks the inputs, samples source and built animation at
 * the same times and measures every point.
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
    const size_t fixed_samples = ossa__fixed_count(rate, duration);
    const size_t points_per_joint = desc->shell_distance > 0.f ? 4 : 1;
    const ossa_allocator *a = desc->allocator;
    size_t key_time_count = 0, samples = fixed_samples;
    float *key_times = NULL;
    if (desc->source_times) {
        key_times = ossa__source_key_times(raw, a, &key_time_count);
        if (!key_times || !ossa__add_size(fixed_samples, key_time_count, &samples)) {
            ossa_free(a, key_times);
            return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory listing key times");
        }
    }
    const size_t ctx_size = ossa_sampling_context_size(n);
    /* Every error is kept only for the report's percentile. */
    size_t error_count = 0;
    if (report && !ossa__mul_size(samples, n * points_per_joint, &error_count)) {
        ossa_free(a, key_times);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "too many samples");
    }
    float *times = ossa__calloc(a, samples + 1, sizeof *times);
    void *ctx_mem = ossa_alloc(a, ctx_size);
    ossa_transform *local = ossa__calloc(a, n + 1, sizeof *local);
    ossa_soa_transform *soa = ossa__calloc(a, skeleton->soa_count + 1, sizeof *soa);
    ossa_float4x4 *m_raw = ossa__calloc(a, n + 1, sizeof *m_raw);
    ossa_float4x4 *m_built = ossa__calloc(a, n + 1, sizeof *m_built);
    float *errors = report ? ossa__calloc(a, error_count + 1, sizeof *errors) : NULL;
    ossa_result r = OSSA_OK;
    if (!times || !ctx_mem || !local || !soa || !m_raw || !m_built || (report && !errors)) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory measuring error");
        goto done;
    }
    for (size_t s = 0; s < fixed_samples; ++s) times[s] = ossa__fixed_time(s, rate, duration);
    if (key_time_count) memcpy(times + fixed_samples, key_times, key_time_count * sizeof *times);
    /* One ascending pass: the sampling job is fastest going forward. */
    qsort(times, samples, sizeof *times, ossa__compare_floats);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, n);
    double sum = 0.;
    size_t count = 0;
    float max = 0.f;
    const float d = desc->shell_distance;
    const ossa_float3 offsets[4] = {{0.f, 0.f, 0.f}, {d, 0.f, 0.f}, {0.f, d, 0.f}, {0.f, 0.f, d}};
    for (size_t s = 0; s < samples; ++s) {
        const float time = times[s];
        ossa_raw_animation_sample(raw, time, local, n);
        ossa__raw_to_model(skeleton->parents, n, local, m_raw);
        const ossa_sampling_job sjob = {
            built, ctx, time / duration, soa, skeleton->soa_count, skeleton->rest_pose, skeleton->soa_count};
        const ossa_local_to_model_job ljob = {skeleton, NULL, 0, 0, soa, skeleton->soa_count, m_built, n};
        if ((r = ossa_sampling_job_run(&sjob)) != OSSA_OK || (r = ossa_local_to_model_job_run(&ljob)) != OSSA_OK) {
            ossa__fail(diag, r, "sampling the built animation failed: %s", ossa_result_string(r));
            goto done;
        }
        for (size_t j = 0; j < n; ++j) {
            for (size_t p = 0; p < points_per_joint; ++p) {
                const float e = ossa__point_distance(ossa__transform_point(&m_raw[j], offsets[p]),
                                                     ossa__transform_point(&m_built[j], offsets[p]));
                if (joint_max && e > joint_max[j]) joint_max[j] = e;
                if (!report) continue;
                errors[count++] = e;
                sum += (double)e;
                if (e > max || (s == 0 && j == 0 && p == 0)) {
                    max = e;
                    report->worst_joint = j;
                    report->worst_time = time;
                }
            }
        }
    }
    if (report) {
        qsort(errors, count, sizeof *errors, ossa__compare_floats);
        report->max = max;
        report->sample_count = samples;
        report->source_sample_count = key_time_count;
        report->point_count = count;
        report->mean = count ? (float)(sum / (double)count) : 0.f;
        report->p99 = count ? errors[(size_t)((double)(count - 1) * 0.99)] : 0.f;
    }
done:
    ossa_free(a, ctx_mem), ossa_free(a, local), ossa_free(a, soa), ossa_free(a, m_raw), ossa_free(a, m_built);
    ossa_free(a, errors), ossa_free(a, times), ossa_free(a, key_times);
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
