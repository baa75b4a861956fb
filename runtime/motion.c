/* Root motion accumulation (see ossa/motion.h). */
#include "ossa/motion.h"

#include <math.h>

#include "ossa/track_jobs.h"

/* A rigid transform: rotation q, then translation p (x -> q x + p). */
typedef struct rigid {
    ossa_float3 p;
    ossa_quat q;
} rigid;

static const rigid identity = {{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}};

static rigid compose(rigid a, rigid b) /* a * b: b first, then a */
{
    const ossa_float3 r = ossa_quat_rotate(a.q, b.p);
    return (rigid){{a.p.x + r.x, a.p.y + r.y, a.p.z + r.z}, ossa_quat_normalize(ossa_quat_mul(a.q, b.q))};
}

static rigid inverse(rigid a)
{
    const ossa_quat c = {-a.q.x, -a.q.y, -a.q.z, a.q.w};
    const ossa_float3 r = ossa_quat_rotate(c, a.p);
    return (rigid){{-r.x, -r.y, -r.z}, c};
}

/* a^n by squaring; n may be negative. */
static rigid power(rigid a, long n)
{
    if (n < 0) a = inverse(a), n = -n;
    rigid result = identity;
    while (n) {
        if (n & 1) result = compose(result, a);
        a = compose(a, a);
        n >>= 1;
    }
    return result;
}

static ossa_result check_tracks(const ossa_track *position, const ossa_track *rotation)
{
    if (!position) return OSSA_ERROR_NULL_ARGUMENT;
    if (position->type != OSSA_TRACK_FLOAT3 || (rotation && rotation->type != OSSA_TRACK_QUAT))
        return OSSA_ERROR_INVALID_TRACK;
    return OSSA_OK;
}

/* The motion at `ratio`. */
static ossa_result sample(const ossa_track *position, const ossa_track *rotation, float ratio, rigid *out)
{
    float v[4] = {0.f, 0.f, 0.f, 1.f};
    const ossa_track_sampling_job pj = {position, ratio, v, 4};
    ossa_result r = ossa_track_sampling_job_run(&pj);
    if (r != OSSA_OK) return r;
    out->p = (ossa_float3){v[0], v[1], v[2]};
    out->q = (ossa_quat){0.f, 0.f, 0.f, 1.f};
    if (rotation) {
        const ossa_track_sampling_job rj = {rotation, ratio, v, 4};
        if ((r = ossa_track_sampling_job_run(&rj)) != OSSA_OK) return r;
        out->q = (ossa_quat){v[0], v[1], v[2], v[3]};
    }
    return OSSA_OK;
}

static float clamp01(float r) { return r < 0.f ? 0.f : (r > 1.f ? 1.f : r); }

ossa_result ossa_motion_accumulator_reset(ossa_motion_accumulator *acc, const ossa_track *position,
                                          const ossa_track *rotation, float ratio, ossa_transform start)
{
    if (!acc) return OSSA_ERROR_NULL_ARGUMENT;
    ossa_result r = check_tracks(position, rotation);
    if (r != OSSA_OK) return r;
    if (!isfinite(ratio)) return OSSA_ERROR_INVALID_RATIO;
    rigid m;
    if ((r = sample(position, rotation, clamp01(ratio), &m)) != OSSA_OK) return r;
    acc->transform = (ossa_transform){start.translation, ossa_quat_normalize(start.rotation), {1.f, 1.f, 1.f}};
    acc->last_position = m.p;
    acc->last_rotation = m.q;
    acc->last_ratio = clamp01(ratio);
    return OSSA_OK;
}

ossa_result ossa_motion_accumulate(ossa_motion_accumulator *acc, const ossa_track *position, const ossa_track *rotation,
                                   float ratio, int loops)
{
    if (!acc) return OSSA_ERROR_NULL_ARGUMENT;
    ossa_result r = check_tracks(position, rotation);
    if (r != OSSA_OK) return r;
    if (!isfinite(ratio)) return OSSA_ERROR_INVALID_RATIO;
    if (loops > 1000000 || loops < -1000000) return OSSA_ERROR_INVALID_ARGUMENT;
    rigid now, end = identity;
    if ((r = sample(position, rotation, clamp01(ratio), &now)) != OSSA_OK) return r;
    if (loops && (r = sample(position, rotation, 1.f, &end)) != OSSA_OK) return r;
    const rigid last = {acc->last_position, acc->last_rotation};
    const rigid delta = compose(compose(inverse(last), power(end, loops)), now);
    const rigid placed = compose((rigid){acc->transform.translation, acc->transform.rotation}, delta);
    acc->transform.translation = placed.p;
    acc->transform.rotation = placed.q;
    acc->last_position = now.p;
    acc->last_rotation = now.q;
    acc->last_ratio = clamp01(ratio);
    return OSSA_OK;
}
