#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ossa/local_to_model_job.h"
#include "ossa/offline/error_joints.h"
#include "ossa/sampling_job.h"

ossa_result ossa_measure_joint_errors(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                      const ossa_animation *built, const ossa_error_desc *desc, float *joint_max,
                                      size_t joint_max_count, ossa_diag *diag)
{
    if (!skeleton || !raw || !built || !joint_max)
        return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0,
                             "missing skeleton, animation or per-joint output");
    const size_t n = skeleton->joint_count;
    if (joint_max_count < n)
        return ossa_diag_set(diag, OSSA_ERROR_OUTPUT_TOO_SMALL, SIZE_MAX, 0, 0,
                             "per-joint output holds %zu joints, the skeleton has %zu", joint_max_count, n);
    memset(joint_max, 0, n * sizeof *joint_max);
    const ossa_error_desc defaults = {0};
    if (!desc) desc = &defaults;
    /* The same checks, times and points as ossa_measure_error (error.c), so that the largest
     * per-joint value is its maximum. */
    if (raw->track_count != n || built->track_count != n)
        return ossa_diag_set(diag, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX, 0, 0,
                             "skeleton has %zu joints, raw animation %zu tracks, built animation %zu", n,
                             raw->track_count, built->track_count);
    if (!isfinite(desc->sample_rate) || desc->sample_rate < 0.f || !isfinite(desc->shell_distance) ||
        desc->shell_distance < 0.f)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0,
                             "sample_rate and shell_distance must be finite and >= 0");
    const float duration = raw->duration;
    if (!(duration > 0.f && duration <= OSSA_RAW_ANIMATION_MAX_DURATION))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, 0, 0,
                             "raw animation duration %g s is outside (0, %g]", (double)duration,
                             (double)OSSA_RAW_ANIMATION_MAX_DURATION);
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
            return ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory listing key times");
        }
    }
    const size_t ctx_size = ossa_sampling_context_size(n);
    float *times = ossa__calloc(a, samples + 1, sizeof *times);
    void *ctx_mem = ossa_alloc(a, ctx_size);
    ossa_transform *local = ossa__calloc(a, n + 1, sizeof *local);
    ossa_soa_transform *soa = ossa__calloc(a, skeleton->soa_count + 1, sizeof *soa);
    ossa_float4x4 *m_raw = ossa__calloc(a, n + 1, sizeof *m_raw);
    ossa_float4x4 *m_built = ossa__calloc(a, n + 1, sizeof *m_built);
    ossa_result r = OSSA_OK;
    if (!times || !ctx_mem || !local || !soa || !m_raw || !m_built) {
        r = ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory measuring error");
        goto done;
    }
    for (size_t s = 0; s < fixed_samples; ++s) times[s] = ossa__fixed_time(s, rate, duration);
    if (key_time_count) memcpy(times + fixed_samples, key_times, key_time_count * sizeof *times);
    qsort(times, samples, sizeof *times, ossa__compare_floats);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, n);
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
            ossa_diag_set(diag, r, SIZE_MAX, 0, 0, "sampling the built animation failed: %s", ossa_result_string(r));
            goto done;
        }
        for (size_t j = 0; j < n; ++j)
            for (size_t p = 0; p < points_per_joint; ++p) {
                const float e = ossa__point_distance(ossa__transform_point(&m_raw[j], offsets[p]),
                                                     ossa__transform_point(&m_built[j], offsets[p]));
                if (e > joint_max[j]) joint_max[j] = e;
            }
    }
done:
    ossa_free(a, ctx_mem), ossa_free(a, local), ossa_free(a, soa), ossa_free(a, m_raw), ossa_free(a, m_built);
    ossa_free(a, times), ossa_free(a, key_times);
    if (r != OSSA_OK) memset(joint_max, 0, n * sizeof *joint_max);
    return r;
}
