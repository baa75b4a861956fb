#include <math.h>
#include <string.h>

#include "ossa/track_jobs.h"

#include "checks.h"

ossa_result ossa_track_sampling_job_validate(const ossa_track_sampling_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    const ossa_track *t = job->track;
    if (!t) return OSSA_ERROR_NO_TRACK;
    if (t->key_count < 2 || t->width < 1 || t->width > 4 || !t->ratios || !t->values || !t->interpolations)
        return OSSA_ERROR_INVALID_TRACK;
    if (!isfinite(job->ratio)) return OSSA_ERROR_INVALID_RATIO;
    if (!job->output) return OSSA_ERROR_NO_OUTPUT;
    if (job->output_count < t->width) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if (!ossa__fits(t->ratios, t->key_count, sizeof(float)) ||
        !ossa__fits(t->values, t->key_count, t->width * sizeof(float)) ||
        !ossa__fits(t->interpolations, t->key_count, 1))
        return OSSA_ERROR_INVALID_TRACK;
    const size_t out_bytes = t->width * sizeof(float);
    if (ossa__overlaps(job->output, out_bytes, t->ratios, t->key_count * sizeof(float)) ||
        ossa__overlaps(job->output, out_bytes, t->values, t->key_count * t->width * sizeof(float)) ||
        ossa__overlaps(job->output, out_bytes, t->interpolations, t->key_count))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

/* Same arithmetic as ossa_raw_track_evaluate, so a runtime track and its raw source agree to
 * rounding. */
static void quat_normalize(float q[4])
{
    const ossa_quat n = ossa_quat_normalize((ossa_quat){q[0], q[1], q[2], q[3]});
    q[0] = n.x, q[1] = n.y, q[2] = n.z, q[3] = n.w;
}

ossa_result ossa_track_sampling_job_run(const ossa_track_sampling_job *job)
{
    const ossa_result r = ossa_track_sampling_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_track *t = job->track;
    const size_t width = t->width, n = t->key_count;
    const float *ratios = t->ratios;
    const float ratio = job->ratio < 0.f ? 0.f : (job->ratio > 1.f ? 1.f : job->ratio);

    /* k: last key at or before ratio (ratios[0] is 0, so it exists). */
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (ratios[mid] <= ratio)
            lo = mid;
        else
            hi = mid;
    }
    const size_t k = lo;
    const float *a = t->values + k * width;
    float value[4];
    const uint8_t interp = t->interpolations[k];
    if (k + 1 == n || interp == OSSA_INTERP_STEP || ratio <= ratios[k]) {
        memcpy(value, a, width * sizeof *value);
    } else {
        const float *b = a + width;
        const float alpha = (ratio - ratios[k]) / (ratios[k + 1] - ratios[k]);
        if (interp == OSSA_INTERP_SLERP) {
            const ossa_quat q =
                ossa_quat_slerp((ossa_quat){a[0], a[1], a[2], a[3]}, (ossa_quat){b[0], b[1], b[2], b[3]}, alpha);
            value[0] = q.x, value[1] = q.y, value[2] = q.z, value[3] = q.w;
        } else {
            float sign = 1.f;
            if (t->type == OSSA_TRACK_QUAT && a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0.f) sign = -1.f;
            for (size_t c = 0; c < width; ++c) value[c] = a[c] + (sign * b[c] - a[c]) * alpha;
        }
    }
    if (t->type == OSSA_TRACK_QUAT) quat_normalize(value);
    memcpy(job->output, value, width * sizeof *value);
    return OSSA_OK;
}
