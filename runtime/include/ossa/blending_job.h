/* ossa/blending_job.h: blends SoA local poses (normalised weighted layers with per-joint
 * weights, then additive layers) over a skeleton's rest pose.
 *
 *   ossa_blend_layer layers[2] = {{.weight = 1.f - t, .transform = walk, .transform_count = n},
 *                                 {.weight = t, .transform = run, .transform_count = n}};
 *   ossa_blend_layer wave = {.weight = 1.f, .transform = wave_delta, .transform_count = n};
 *   ossa_blending_job job = {.layers = layers, .layer_count = 2,
 *                            .additive_layers = &wave, .additive_layer_count = 1,
 *                            .rest_pose = skel.rest_pose, .rest_pose_count = skel.soa_count,
 *                            .output = pose, .output_count = n};
 *   ossa_result r = ossa_blending_job_run(&job);
 *
 * Ownership: the job and its layers are plain structs in caller memory; nothing is allocated
 * and nothing is kept between runs. Jobs with distinct outputs run in parallel safely.
 */
#ifndef OSSA_BLENDING_JOB_H
#define OSSA_BLENDING_JOB_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Threshold used when ossa_blending_job.threshold is 0 (ozz-animation's default). */
#define OSSA_BLEND_DEFAULT_THRESHOLD 0.1f

/* One input pose of a blend.
 *   weight           normal layers: any finite value, <= 0 contributes nothing.
 *                    additive layers: any finite value; 1 applies the delta once, 0.5 half
 *                    of it, 2 twice, negative values remove it (the inverse delta).
 *   transform        [transform_count >= rest_pose_count] SoA local transforms (a sampled
 *                    pose for normal layers, a delta pose for additive layers, as built by
 *                    ossa_additive_animation_build)
 *   joint_weights    NULL: every joint has weight 1. Otherwise
 *                    [joint_weight_count >= 4 * rest_pose_count] per-joint factors in joint
 *                    order (entry j multiplies joint j; the entries of padding lanes are
 *                    read but unused), typically in [0, 1]; negative entries count as 0.
 *                    No alignment needed. A joint's effective weight is weight * factor,
 *                    e.g. 0 on the legs and 1 on the upper body for a partial blend.
 * Units: weights are unitless factors. */
typedef struct ossa_blend_layer {
    float weight;
    const ossa_soa_transform *transform;
    size_t transform_count;
    const float *joint_weights;
    size_t joint_weight_count;
} ossa_blend_layer;

/* Blends `layers`, fills in the rest pose below `threshold`, then applies `additive_layers`.
 * Fields (zero-initialised means: threshold 0.1, no layers, no rest pose, no output; only
 * the threshold is valid as zero):
 *   threshold        0 -> OSSA_BLEND_DEFAULT_THRESHOLD; otherwise > 0 and finite
 *   layers           [layer_count] normal layers (may be NULL when layer_count is 0)
 *   additive_layers  [additive_layer_count] additive layers (NULL when the count is 0)
 *   rest_pose        [rest_pose_count] SoA groups of 4 joints: the skeleton's rest pose. Its
 *                    count sets the work size.
 *   output           [output_count >= rest_pose_count] SoA local transforms; groups past
 *                    rest_pose_count are untouched
 * Per joint, with w_i = weight_i * max(0, factor_i) over normal layers with weight_i > 0:
 *   W = sum w_i. If no normal layer has weight > 0, the joint is the rest pose. Else, when
 *   W < threshold, the rest pose joins with weight threshold - W (so a joint all layers
 *   leave out becomes the rest pose); then translation = sum w_i t_i / W', scale =
 *   sum w_i s_i / W' (W' = max(W, threshold)), rotation = normalise(sum w_i q_i) where each
 *   q_i is negated when it lies in the opposite hemisphere of the running sum (shortest
 *   path). The weights are divided by W' before the sums. The rotation is normalised with
 *   an inverse length rounded to a multiple of 2^-20, so sums already of unit length to
 *   float precision (|q|^2 within about 2^-20 of 1) are kept as they are and a single layer
 *   of weight 1 reproduces its input exactly.
 *   Then, for each additive layer with a = weight * max(0, factor) (delta t_d, q_d, s_d):
 *   a >= 0: t += a t_d, q = q * nlerp(identity, q_d, a), s *= lerp(1, s_d, a);
 *   a < 0:  t += a t_d, q = q * conj(nlerp(identity, q_d, -a)), s /= lerp(1, s_d, -a);
 *   q_d is first taken with w >= 0 so the nlerp is the shortest path, and the nlerp
 *   extrapolates for |a| > 1. The delta convention (q_d applied on the right, in the joint's
 *   own frame) is the one of ossa_additive_animation_build: pose = reference * delta.
 * Accuracy: against the formulas above evaluated in double precision, each translation and
 *   scale component is within 1e-6 * max(1, |exact|) and each rotation component within
 *   1e-6 (tests/test_blending.c checks this bound over seeded random blends of 1 to 12
 *   layers with joint weights, thresholds and additive layers; the largest errors it finds
 *   are 2.6e-7, 3.2e-7 and 4.9e-7).
 * Units: the poses' (translations in source units, rotations unit quaternions x, y, z, w).
 * Errors (nothing is written): OSSA_ERROR_NULL_ARGUMENT (job, or layers / additive_layers
 * NULL with a count > 0), OSSA_ERROR_INVALID_THRESHOLD (negative or not finite),
 * OSSA_ERROR_NO_LAYERS (no normal and no additive layer), OSSA_ERROR_NO_REST_POSE,
 * OSSA_ERROR_NO_OUTPUT, OSSA_ERROR_OUTPUT_TOO_SMALL, OSSA_ERROR_NO_INPUT (a layer's
 * transform is NULL), OSSA_ERROR_INPUT_TOO_SMALL (a layer's transform_count is below
 * rest_pose_count), OSSA_ERROR_JOINT_WEIGHTS_TOO_SMALL, OSSA_ERROR_INVALID_WEIGHT (a layer
 * weight or a joint weight is NaN or infinite), OSSA_ERROR_MISALIGNED (output, rest pose or a
 * layer's transforms not 16-byte aligned), OSSA_ERROR_SIZE_OVERFLOW (rest_pose_count groups
 * from the output, the rest pose or a layer's arrays run past the end of the address space),
 * OSSA_ERROR_ALIASING (output overlaps the rest pose, a layer's transforms or joint weights).
 * Cost: O(rest_pose_count * (layer_count + additive_layer_count)), four joints per SIMD
 * operation; validation reads every joint weight once. Without joint weights the per-layer
 * weights are computed once per job; with them, once per SoA group. Up to 8 normal layers
 * are gathered at once (more take one extra pass over the output per 8).
 * Source: ozz-animation BlendingJob (weights, threshold, rest pose, hemisphere correction,
 * additive and subtractive passes); ossa normalises with a correctly rounded square root and
 * division (fewer instructions than ozz's estimate and Newton step, and the same result on
 * SSE2, NEON and the portable build) and composes additive rotations on the right (ozz
 * multiplies on the left). */
typedef struct ossa_blending_job {
    float threshold;
    const ossa_blend_layer *layers;
    size_t layer_count;
    const ossa_blend_layer *additive_layers;
    size_t additive_layer_count;
    const ossa_soa_transform *rest_pose;
    size_t rest_pose_count;
    ossa_soa_transform *output;
    size_t output_count;
} ossa_blending_job;

/* Checks the job's fields as ossa_blending_job_run does, without running. */
OSSA_API ossa_result ossa_blending_job_validate(const ossa_blending_job *job);

/* Validates then blends; see ossa_blending_job. */
OSSA_API ossa_result ossa_blending_job_run(const ossa_blending_job *job);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_BLENDING_JOB_H */
