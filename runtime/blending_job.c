#include "ossa/blending_job.h"

#include <math.h>
#include <string.h>

#include "checks.h"
#include "dispatch.h"
#include "simd.h"

#if !defined(OSSA__AVX2_KERNELS) /* validation: in the baseline compile only (dispatch.h) */

/* Checks one layer array, one pass. A layer's sizes are checked before its values, so that a
 * short array is reported as such rather than read out of bounds. */
static ossa_result validate_layers(const ossa_blend_layer *layers, size_t count, size_t soa_count)
{
    for (size_t i = 0; i < count; ++i) {
        const ossa_blend_layer *l = &layers[i];
        if (!l->transform) return OSSA_ERROR_NO_INPUT;
        if (l->transform_count < soa_count) return OSSA_ERROR_INPUT_TOO_SMALL;
        if (l->joint_weights && l->joint_weight_count / 4 < soa_count) return OSSA_ERROR_JOINT_WEIGHTS_TOO_SMALL;
        if (ossa__misaligned(l->transform)) return OSSA_ERROR_MISALIGNED; /* joint weights need no alignment */
        if (!ossa__fits(l->transform, soa_count, sizeof(ossa_soa_transform)) ||
            (l->joint_weights && !ossa__fits(l->joint_weights, soa_count, 4 * sizeof(float))))
            return OSSA_ERROR_SIZE_OVERFLOW;
        if (!isfinite(l->weight)) return OSSA_ERROR_INVALID_WEIGHT;
        for (size_t j = 0; l->joint_weights && j < 4 * soa_count; ++j)
            if (!isfinite(l->joint_weights[j])) return OSSA_ERROR_INVALID_WEIGHT;
    }
    return OSSA_OK;
}

static bool layers_alias(const ossa_blend_layer *layers, size_t count, size_t soa_count, const void *out,
                         size_t out_bytes)
{
    for (size_t i = 0; i < count; ++i) {
        if (ossa__overlaps(out, out_bytes, layers[i].transform, soa_count * sizeof(ossa_soa_transform))) return true;
        if (layers[i].joint_weights &&
            ossa__overlaps(out, out_bytes, layers[i].joint_weights, 4 * soa_count * sizeof(float)))
            return true;
    }
    return false;
}

ossa_result ossa_blending_job_validate(const ossa_blending_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!(job->threshold >= 0.f) || !isfinite(job->threshold)) return OSSA_ERROR_INVALID_THRESHOLD;
    if (job->layer_count == 0 && job->additive_layer_count == 0) return OSSA_ERROR_NO_LAYERS;
    if ((!job->layers && job->layer_count) || (!job->additive_layers && job->additive_layer_count))
        return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->rest_pose) return OSSA_ERROR_NO_REST_POSE;
    if (!job->output) return OSSA_ERROR_NO_OUTPUT;
    const size_t n = job->rest_pose_count;
    if (job->output_count < n) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if (!ossa__fits(job->rest_pose, n, sizeof(ossa_soa_transform)) ||
        !ossa__fits(job->output, n, sizeof(ossa_soa_transform)))
        return OSSA_ERROR_SIZE_OVERFLOW;
    ossa_result r = validate_layers(job->layers, job->layer_count, n);
    if (r == OSSA_OK) r = validate_layers(job->additive_layers, job->additive_layer_count, n);
    if (r != OSSA_OK) return r;
    if (ossa__misaligned(job->output) || ossa__misaligned(job->rest_pose)) return OSSA_ERROR_MISALIGNED;
    const size_t out_bytes = n * sizeof(ossa_soa_transform);
    if (ossa__overlaps(job->output, out_bytes, job->rest_pose, out_bytes) ||
        layers_alias(job->layers, job->layer_count, n, job->output, out_bytes) ||
        layers_alias(job->additive_layers, job->additive_layer_count, n, job->output, out_bytes))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

/* ---- SoA arithmetic on the simd.h wrappers ---- */

static inline v4f3 f3_scale(v4f3 a, v4f w) { return (v4f3){v4f_mul(a.x, w), v4f_mul(a.y, w), v4f_mul(a.z, w)}; }
/* a * w + c */
static inline v4f3 f3_madd(v4f3 a, v4f w, v4f3 c)
{
    return (v4f3){v4f_madd(a.x, w, c.x), v4f_madd(a.y, w, c.y), v4f_madd(a.z, w, c.z)};
}
static inline v4fq q_scale(v4fq a, v4f w)
{
    return (v4fq){v4f_mul(a.x, w), v4f_mul(a.y, w), v4f_mul(a.z, w), v4f_mul(a.w, w)};
}
static inline v4fq q_madd(v4fq a, v4f w, v4fq c)
{
    return (v4fq){v4f_madd(a.x, w, c.x), v4f_madd(a.y, w, c.y), v4f_madd(a.z, w, c.z), v4f_madd(a.w, w, c.w)};
}
/* Hamilton product a * b (rotate by b, then by a), as ossa_quat_mul. */
static inline v4fq q_mul(v4fq a, v4fq b)
{
    return (v4fq){
        v4f_sub(v4f_add(v4f_add(v4f_mul(a.w, b.x), v4f_mul(a.x, b.w)), v4f_mul(a.y, b.z)), v4f_mul(a.z, b.y)),
        v4f_sub(v4f_add(v4f_add(v4f_mul(a.w, b.y), v4f_mul(a.y, b.w)), v4f_mul(a.z, b.x)), v4f_mul(a.x, b.z)),
        v4f_sub(v4f_add(v4f_add(v4f_mul(a.w, b.z), v4f_mul(a.z, b.w)), v4f_mul(a.x, b.y)), v4f_mul(a.y, b.x)),
        v4f_sub(v4f_sub(v4f_sub(v4f_mul(a.w, b.w), v4f_mul(a.x, b.x)), v4f_mul(a.y, b.y)), v4f_mul(a.z, b.z)),
    };
}
static inline v4f sign_bit(v4f mask) { return v4f_and(mask, v4f_set1(-0.f)); }
/* a . b as two independent halves added: three operations deep instead of four. */
static inline v4f q_dot(v4fq a, v4fq b)
{
    return v4f_add(v4f_madd(a.x, b.x, v4f_mul(a.y, b.y)), v4f_madd(a.z, b.z, v4f_mul(a.w, b.w)));
}

/* The inverse length normalize() scales q by: a correctly rounded square root and division (two
 * instructions, where an estimate plus a Newton step costs about eight and rounds differently
 * on SSE2, NEON and the portable build), then rounded to a multiple of 2^-20 by adding and
 * removing 8 (whose float spacing is 2^-20). The rounding moves the length by at most 2^-21
 * (4.8e-7) and maps every inverse within 2^-21 of 1, so every lane whose squared length is
 * already within about 2^-20 of 1, to exactly 1: such lanes are returned unchanged, which makes
 * pass-through exact, for the cost of two instructions instead of a per-lane test and select. */
static inline v4f rounded_inverse_length(v4fq q)
{
    const v4f eight = v4f_set1(8.f);
    return v4f_sub(v4f_add(v4f_div(v4f_one(), v4f_sqrt(v4fq_dot(q, q))), eight), eight);
}
/* Normalises q (rounded_inverse_length). */
static inline v4fq normalize(v4fq q) { return q_scale(q, rounded_inverse_length(q)); }

/* Normalises q with a correctly rounded square root and division, nothing else. */
static inline v4fq normalize_exact(v4fq q) { return q_scale(q, v4f_div(v4f_one(), v4f_sqrt(v4fq_dot(q, q)))); }

/* Normal layers handed to the group kernel at once: their transforms and lane weights stay in
 * a small array on the stack instead of being re-read from the job for every group. Jobs with
 * more contributing layers blend them BATCH at a time. */
enum { BATCH = 8 };

/* Adds `in` with per-lane weight w to the rotation sum, taking -in where it lies in the other
 * hemisphere of the sum (the shortest path). */
static inline v4fq q_accumulate(v4fq sum, const ossa_soa_quat *in, v4f w, bool zero_lanes)
{
    const v4fq q = v4fq_load(in);
    const v4f dot = q_dot(sum, q);
    /* A sum of weights > 0 is never zero, so the sign bit of the dot product says which
     * hemisphere (a dot of -0 means orthogonal, where both are as short). Lanes that every
     * layer so far left out have a zero sum, whose -0 dot must not flip the first layer that
     * does contribute: those use a comparison. */
    const v4f flip = zero_lanes ? sign_bit(v4f_cmplt(dot, v4f_zero())) : sign_bit(dot);
    return q_madd(q, v4f_xor(w, flip), sum);
}

/* Weighted sums of one SoA group over n inputs in[i][g] with weights w[i] (already
 * normalised, so they sum to 1 per lane): translations and scales first, then rotations, so
 * that each pass keeps its sums in registers. `first` is false when sums of an earlier batch
 * are in `out` (their rotation sum not yet normalised). */
static inline void blend_group(const ossa_soa_transform *const *in, const v4f *w, size_t n, size_t g, bool first,
                               bool zero_lanes, ossa_soa_transform *out)
{
    v4f3 t, s;
    size_t i = 0;
    if (first) {
        t = f3_scale(v4f3_load(&in[0][g].translation), w[0]);
        s = f3_scale(v4f3_load(&in[0][g].scale), w[0]);
        i = 1;
    } else {
        t = v4f3_load(&out->translation), s = v4f3_load(&out->scale);
    }
    for (; i < n; ++i) {
        t = f3_madd(v4f3_load(&in[i][g].translation), w[i], t);
        s = f3_madd(v4f3_load(&in[i][g].scale), w[i], s);
    }
    v4f3_store(&out->translation, t);
    v4f3_store(&out->scale, s);
    v4fq q;
    if (first && !zero_lanes && n <= 4) {
        /* The hemisphere test of layer k is the sign of sum_k . q_k, where sum_k is the sum of
         * the earlier layers with their signed weights: as sum over j < k of w_j' (q_j . q_k).
         * The dots q_j . q_k do not depend on the sum, so they are computed side by side, and
         * each layer's sign waits on one multiply-add of the previous signed weight instead of
         * on a dot product of the sum so far (the same sign but where the dot rounds to +-0:
         * orthogonal, where both paths are as short). The sum itself is formed as below. */
        v4fq r[4];
        v4f sw[4];
        for (size_t k = 0; k < n; ++k) r[k] = v4fq_load(&in[k][g].rotation);
        sw[0] = w[0];
        q = q_scale(r[0], w[0]);
        for (size_t k = 1; k < n; ++k) {
            /* w_0 > 0: the sign of w_0 (q_0 . q_k) is that of q_0 . q_k, even where it underflows. */
            v4f dot = k == 1 ? q_dot(r[0], r[1]) : v4f_mul(w[0], q_dot(r[0], r[k]));
            for (size_t j = 1; j < k; ++j) dot = v4f_madd(sw[j], q_dot(r[j], r[k]), dot);
            sw[k] = v4f_xor(w[k], sign_bit(dot));
            q = q_madd(r[k], sw[k], q);
        }
        v4fq_store(&out->rotation, q);
        return;
    }
    if (first) {
        q = q_scale(v4fq_load(&in[0][g].rotation), w[0]);
        i = 1;
    } else {
        q = v4fq_load(&out->rotation), i = 0;
    }
    for (; i < n; ++i) q = q_accumulate(q, &in[i][g].rotation, w[i], zero_lanes);
    v4fq_store(&out->rotation, q);
}

#if defined(__AVX2__)
/* a . b of two quaternions held as xy and zw halves: (x x' + z z') + (y y' + w w'), four
 * operations instead of q_dot's five. Only its sign is used, which can differ from q_dot's
 * only where the dot is within a few roundings of 0: rotations orthogonal to that precision,
 * where both paths are as short. */
static inline v4f q_dot8(v8f a_xy, v8f a_zw, v8f b_xy, v8f b_zw)
{
    const v8f p = v8f_madd(a_zw, b_zw, v8f_mul(a_xy, b_xy));
    return v4f_add(v8f_lo(p), v8f_hi(p));
}

/* blend_group for the first batch of n <= 4 layers with uniform weights and the
 * normalisation after it, on the x86-64-v3 path: x and y (and z and w) side by side in one
 * 256-bit register, so each sum and store takes half the operations. The weighted sums are the
 * same floats as blend_group's (lane by lane the same fused multiply-adds in the same order);
 * the hemisphere signs come from the same pairwise dot products, summed in another order
 * (q_dot8). */
static inline void blend_group8(const ossa_soa_transform *const *in, const v4f *w, const v8f *w8, size_t n, size_t g,
                                ossa_soa_transform *out)
{
    v8f txy = v8f_mul(v8f_loadu(in[0][g].translation.x), w8[0]), sxy = v8f_mul(v8f_loadu(in[0][g].scale.x), w8[0]);
    v4f tz = v4f_mul(v4f_load(in[0][g].translation.z), w[0]), sz = v4f_mul(v4f_load(in[0][g].scale.z), w[0]);
    for (size_t k = 1; k < n; ++k) {
        txy = v8f_madd(v8f_loadu(in[k][g].translation.x), w8[k], txy);
        tz = v4f_madd(v4f_load(in[k][g].translation.z), w[k], tz);
        sxy = v8f_madd(v8f_loadu(in[k][g].scale.x), w8[k], sxy);
        sz = v4f_madd(v4f_load(in[k][g].scale.z), w[k], sz);
    }
    v8f_storeu(out->translation.x, txy), v4f_store(out->translation.z, tz);
    v8f_storeu(out->scale.x, sxy), v4f_store(out->scale.z, sz);
    v8f xy[4], zw[4];
    v4f sw[4];
    for (size_t k = 0; k < n; ++k) xy[k] = v8f_loadu(in[k][g].rotation.x), zw[k] = v8f_loadu(in[k][g].rotation.z);
    sw[0] = w[0];
    v8f qxy = v8f_mul(xy[0], w8[0]), qzw = v8f_mul(zw[0], w8[0]);
    for (size_t k = 1; k < n; ++k) {
        v4f dot = k == 1 ? q_dot8(xy[0], zw[0], xy[1], zw[1]) : v4f_mul(w[0], q_dot8(xy[0], zw[0], xy[k], zw[k]));
        for (size_t j = 1; j < k; ++j) dot = v4f_madd(sw[j], q_dot8(xy[j], zw[j], xy[k], zw[k]), dot);
        sw[k] = v4f_xor(w[k], sign_bit(dot));
        const v8f sw8 = v8f_dup(sw[k]);
        qxy = v8f_madd(xy[k], sw8, qxy), qzw = v8f_madd(zw[k], sw8, qzw);
    }
    /* normalize(), its inverse length applied to both halves. */
    const v8f inv = v8f_dup(rounded_inverse_length((v4fq){v8f_lo(qxy), v8f_hi(qxy), v8f_lo(qzw), v8f_hi(qzw)}));
    v8f_storeu(out->rotation.x, v8f_mul(qxy, inv)), v8f_storeu(out->rotation.z, v8f_mul(qzw, inv));
}
#endif

/* The same with n a constant, so that the layer loops unroll (weights and input pointers stay
 * in registers across groups); BLEND_GROUPS8 for n of 1 to 4 on the x86-64-v3 path. */
#define BLEND_GROUPS(N)                                                                                                \
    for (size_t g = 0; g < count; ++g) {                                                                               \
        blend_group(in, w, (N), g, true, false, &out[g]);                                                              \
        v4fq_store(&out[g].rotation, normalize(v4fq_load(&out[g].rotation)));                                          \
    }
#if defined(__AVX2__)
#define BLEND_GROUPS8(N)                                                                                               \
    do {                                                                                                               \
        v8f w8[N];                                                                                                     \
        for (size_t k = 0; k < (N); ++k) w8[k] = v8f_dup(w[k]);                                                        \
        for (size_t g = 0; g < count; ++g) blend_group8(in, w, w8, (N), g, &out[g]);                                   \
    } while (0)
#else
#define BLEND_GROUPS8(N) BLEND_GROUPS(N)
#endif

/* Normal layers whose weights are the same in every lane (no joint weights): the weights and
 * the rest pose's share are scalars computed once and divided by the total up front. */
static void blend_uniform(const ossa_blending_job *job, float threshold, float total)
{
    const ossa_soa_transform *in[BATCH + 1];
    v4f w[BATCH + 1];
    const float fill = threshold - total;
    const float inv = 1.f / (fill > 0.f ? threshold : total);
    const size_t count = job->rest_pose_count;
    ossa_soa_transform *out = job->output;
    size_t i = 0;
    for (bool first = true;; first = false) {
        size_t n = 0;
        while (n < BATCH && i < job->layer_count) {
            const ossa_blend_layer *l = &job->layers[i++];
            if (l->weight > 0.f) in[n] = l->transform, w[n] = v4f_set1(l->weight * inv), ++n;
        }
        while (i < job->layer_count && !(job->layers[i].weight > 0.f)) ++i;
        const bool last = i == job->layer_count;
        if (last && fill > 0.f) in[n] = job->rest_pose, w[n] = v4f_set1(fill * inv), ++n;
        if (first && last) {
            switch (n) {
            case 1:
                BLEND_GROUPS8(1);
                return;
            case 2:
                BLEND_GROUPS8(2);
                return;
            case 3:
                BLEND_GROUPS8(3);
                return;
            case 4:
                BLEND_GROUPS8(4);
                return;
            default:
                BLEND_GROUPS(n);
                return;
            }
        }
        for (size_t g = 0; g < count; ++g) {
            blend_group(in, w, n, g, first, false, &out[g]);
            if (last) v4fq_store(&out[g].rotation, normalize(v4fq_load(&out[g].rotation)));
        }
        if (last) return;
    }
}
#undef BLEND_GROUPS
#undef BLEND_GROUPS8

/* Per-lane weight of layer `l` for group `g`: weight * max(0, joint factor). */
static inline v4f lane_weights(const ossa_blend_layer *l, float weight, size_t g)
{
    const v4f w = v4f_set1(weight);
    if (!l->joint_weights) return w;
    return v4f_mul(w, v4f_max(v4f_loadu(l->joint_weights + 4 * g), v4f_zero()));
}

/* Normal layers with joint weights: the total, the rest pose's share and the normalised
 * weights are per lane, so they are computed for each group. */
static void blend_per_lane(const ossa_blending_job *job, float threshold)
{
    const ossa_soa_transform *in[BATCH + 1];
    v4f w[BATCH + 1];
    const v4f thr = v4f_set1(threshold), zero = v4f_zero();
    for (size_t g = 0; g < job->rest_pose_count; ++g) {
        v4f total = zero;
        for (size_t i = 0; i < job->layer_count; ++i) {
            const ossa_blend_layer *l = &job->layers[i];
            if (l->weight > 0.f) total = v4f_add(total, lane_weights(l, l->weight, g));
        }
        const v4f fill = v4f_max(v4f_sub(thr, total), zero);
        const v4f inv = v4f_div(v4f_one(), v4f_max(total, thr));
        size_t i = 0;
        for (bool first = true;; first = false) {
            size_t n = 0;
            while (n < BATCH && i < job->layer_count) {
                const ossa_blend_layer *l = &job->layers[i++];
                if (l->weight > 0.f) in[n] = l->transform, w[n] = v4f_mul(lane_weights(l, l->weight, g), inv), ++n;
            }
            while (i < job->layer_count && !(job->layers[i].weight > 0.f)) ++i;
            const bool last = i == job->layer_count;
            /* The rest pose tops the weight up to the threshold in the lanes below it (weight
             * 0 elsewhere adds exact zeros); skipped when every lane is above it. */
            if (last && v4f_any_gt(fill, zero)) in[n] = job->rest_pose, w[n] = v4f_mul(fill, inv), ++n;
            blend_group(in, w, n, g, first, true, &job->output[g]);
            if (last) break;
        }
        ossa_soa_quat *q = &job->output[g].rotation;
        v4fq_store(q, normalize(v4fq_load(q)));
    }
}

/* Applies a delta with per-lane amount a >= 0, or removes it when `subtract`. */
static inline void add_delta(v4f3 *t, v4fq *q, v4f3 *s, const ossa_soa_transform *d, v4f a, bool subtract)
{
    const v4f3 dt = v4f3_load(&d->translation), ds = v4f3_load(&d->scale);
    v4fq dq = v4fq_load(&d->rotation);
    const v4f one = v4f_one();
    *t = f3_madd(dt, subtract ? v4f_xor(a, v4f_set1(-0.f)) : a, *t);
    /* nlerp(identity, dq, a) with dq taken with w >= 0, so the path is the shortest. */
    const v4f flip = sign_bit(v4f_cmplt(dq.w, v4f_zero()));
    dq = (v4fq){v4f_xor(dq.x, flip), v4f_xor(dq.y, flip), v4f_xor(dq.z, flip), v4f_xor(dq.w, flip)};
    /* Exactly normalised (an identity delta stays exactly the identity): the rounding of
     * normalize() would add up over additive layers. */
    v4fq iq = normalize_exact(
        (v4fq){v4f_mul(dq.x, a), v4f_mul(dq.y, a), v4f_mul(dq.z, a), v4f_madd(v4f_sub(dq.w, one), a, one)});
    if (subtract) {
        const v4f neg = v4f_set1(-0.f);
        iq = (v4fq){v4f_xor(iq.x, neg), v4f_xor(iq.y, neg), v4f_xor(iq.z, neg), iq.w};
    }
    *q = q_mul(*q, iq);
    /* lerp(1, ds, a) */
    const v4f3 ls = {v4f_madd(v4f_sub(ds.x, one), a, one), v4f_madd(v4f_sub(ds.y, one), a, one),
                     v4f_madd(v4f_sub(ds.z, one), a, one)};
    if (subtract) {
        *s = (v4f3){v4f_div(s->x, ls.x), v4f_div(s->y, ls.y), v4f_div(s->z, ls.z)};
    } else {
        *s = (v4f3){v4f_mul(s->x, ls.x), v4f_mul(s->y, ls.y), v4f_mul(s->z, ls.z)};
    }
}

/* Normal layers first, written to the output, then the additive layers as a second pass over
 * it: the common case (no additive layer) keeps its blending kernel small. */
OSSA__INLINE ossa_result run(const ossa_blending_job *job)
{
    const ossa_result r = ossa_blending_job_validate(job);
    if (r != OSSA_OK) return r;
    const float threshold = job->threshold > 0.f ? job->threshold : OSSA_BLEND_DEFAULT_THRESHOLD;
    bool any_layer = false, any_factors = false;
    float total = 0.f; /* of the weights > 0 */
    for (size_t i = 0; i < job->layer_count; ++i) {
        const ossa_blend_layer *l = &job->layers[i];
        if (!(l->weight > 0.f)) continue;
        any_layer = true, total += l->weight;
        any_factors |= l->joint_weights != NULL;
    }
    if (!any_layer)
        memcpy(job->output, job->rest_pose, job->rest_pose_count * sizeof *job->output);
    else if (any_factors)
        blend_per_lane(job, threshold);
    else
        blend_uniform(job, threshold, total);

    for (size_t g = 0; job->additive_layer_count && g < job->rest_pose_count; ++g) {
        ossa_soa_transform *out = &job->output[g];
        v4f3 t = v4f3_load(&out->translation), s = v4f3_load(&out->scale);
        v4fq q = v4fq_load(&out->rotation);
        for (size_t i = 0; i < job->additive_layer_count; ++i) {
            const ossa_blend_layer *l = &job->additive_layers[i];
            if (l->weight == 0.f) continue;
            const bool subtract = l->weight < 0.f;
            add_delta(&t, &q, &s, &l->transform[g], lane_weights(l, fabsf(l->weight), g), subtract);
        }
        v4f3_store(&out->translation, t);
        v4fq_store(&out->rotation, q);
        v4f3_store(&out->scale, s);
    }
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__blending_avx2(const ossa_blending_job *job) { return run(job); }
#else
ossa_result ossa_blending_job_run(const ossa_blending_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__blending_avx2(job);
#endif
    return run(job);
}
#endif
