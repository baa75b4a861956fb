/* ossa/offline/optimizer.h: error-bounded keyframe reduction of a raw animation, with the
 * error measured in model space at virtual vertices around every joint.
 *
 *   ossa_raw_animation small = {0};
 *   ossa_diag diag = {0};
 *   ossa_optimizer_desc opt = {0};                      // 0.5 mm at 3 cm, metres
 *   if (ossa_animation_optimize(&raw, &raw_skeleton, &opt, &small, &diag) == OSSA_OK)
 *       ossa_animation_build(&small, NULL, &blob, &diag);
 *   ossa_raw_animation_destroy(&small);
 *
 * Ownership: `output` is allocated with the desc's allocator (NULL means malloc/free) and
 * released by ossa_raw_animation_destroy; it is empty and safe to destroy after an error.
 * The input and the skeleton are only read.
 *
 * The guarantee. For every joint j, every time in [0, duration] and every point at distance
 * up to shell_distance(j) from j in j's local space (its origin and ACL's virtual vertices
 * along its x, y and z axes among them), the model-space position of the point under the
 * optimised clip differs from its position under the input clip by at most tolerance(j),
 * both clips sampled by ossa_raw_animation_sample's rules (linear translations and scales,
 * normalised lerp of rotations along the shortest arc). The bound is exact to first order in
 * the scale error: with constant scales (the usual case) it is a proof, not an estimate.
 * The runtime's quantisation (ossa_animation_build: ranged or half-float translations,
 * 15-bit rotations) comes on top of it. The optimiser's own float rounding is not accounted
 * for: about 1e-7 in quaternion units, well under a micrometre per joint for a body a few
 * metres across.
 *
 * How. A point p of joint j's subtree seen from joint k (an ancestor of j, or j itself) is
 * y = A_{k+1} ... A_j p in k's local space, whatever the other joints do; writing the
 * optimised transforms with primes, the model-space error telescopes into
 *   |M' p - M p| <= sum over k on the chain root..j of  sigma_k * (|dt_k| + |ds_k| |y|
 *                                                          + 2 sin(theta_k / 2) s_k |y|)
 * where sigma_k is the largest product of scale components of k's ancestors, s_k the largest
 * scale component of k, dt, ds, theta the translation, scale (largest component) and
 * rotation-angle errors of joint k's channels, and |y| <= radius_k = max(shell(k), over
 * children c of max|t_c| + max|s_c| radius_c), maxima over the keys and so over the clip.
 * Budgets are then handed out so that on every chain the errors add up to at most the
 * tolerance of each joint on it:
 * - a channel whose first key held through the clip stays within 1/64 of the smallest
 *   tolerance below its joint is reduced to that key first, and its error is reserved on every
 *   chain through it (at most a quarter of the tolerance in all);
 * - from the root down, each joint k with a moving channel gets b_k = w_k * min over joints j
 *   of its subtree of (tolerance(j) - reserve(j) - measured errors of k's ancestors) / W(k..j),
 *   W(k..j) summing the weights w along the path from k to j, so what is left always covers
 *   the weights still below. w = 1 / sqrt(radius): joints nearer the leaves take larger
 *   shares (on pab_atlas 4 % fewer keys than equal shares per joint, 7 % fewer than one
 *   share per moving channel);
 * - inside a joint the budget is split evenly between its moving channels, each passing
 *   what it leaves unused to the next, and a channel's limit is its share divided by its
 *   factor in the sum above.
 * Since each joint's measured error (not its budget) is what its descendants see, the bound
 * holds with whatever keys the reduction kept.
 *
 * Each channel is reduced greedily: if holding the first key, or one segment from the first
 * to the last key, stays within the limit, that is the result; otherwise from each kept key
 * the farthest key whose segment stays within it is searched key by key up to 8 keys, then by
 * doubling and bisection, so the cost is O(keys log span) and every kept segment was checked
 * in full. Translations and scales are piecewise linear, so the original keys bound the
 * error of a segment (Euclidean for translations, largest component for scales). For
 * rotations, between two original keys both curves are normalised lerps, so the wedge
 * product of the original and reduced quaternions (its norm over theirs is the sine of half
 * the rotation angle between them) is quadratic in time: its Bernstein control points and
 * the exact least norms of the two lerps there bound the angle over the whole interval.
 * First and last keys are kept unless the channel reduces to its first key.
 *
 * Source: ozz-animation AnimationOptimizer (per-joint tolerance and distance, hierarchical
 * lengths, greedy decimation); ACL (virtual vertices at a shell distance as the metric). The
 * chain bound, the budget split and the rotation interval bound are ossa's own.
 */
#ifndef OSSA_OFFLINE_OPTIMIZER_H
#define OSSA_OFFLINE_OPTIMIZER_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default model-space tolerance and shell distance, in metres. */
#define OSSA_OPTIMIZER_DEFAULT_TOLERANCE      0.0005f
#define OSSA_OPTIMIZER_DEFAULT_SHELL_DISTANCE 0.03f

/* A tolerance and shell distance for one joint's own points (its vertices must stay within
 * `tolerance`); the rest of the skeleton keeps the desc's values. */
typedef struct ossa_joint_tolerance {
    size_t joint;         /* joint index in the skeleton, < joint_count */
    float tolerance;      /* skeleton units, >= 0; 0 -> the desc's tolerance */
    float shell_distance; /* skeleton units, >= 0; 0 -> the desc's shell distance */
} ossa_joint_tolerance;

/* Options of the optimiser. Zero-initialised means the defaults. */
typedef struct ossa_optimizer_desc {
    float tolerance;                       /* largest model-space error of any joint's points, skeleton units;
                                              0 -> OSSA_OPTIMIZER_DEFAULT_TOLERANCE / unit_scale; >= 0, finite */
    float shell_distance;                  /* distance of the virtual vertices from each joint, skeleton units;
                                              0 -> OSSA_OPTIMIZER_DEFAULT_SHELL_DISTANCE / unit_scale */
    float unit_scale;                      /* metres per skeleton unit (0.01 for centimetres); 0 -> 1; only
                                              scales the defaults above */
    const ossa_joint_tolerance *overrides; /* [override_count]; a later entry for the same
                                              joint replaces an earlier one */
    size_t override_count;
    const ossa_allocator *allocator; /* of the output and scratch; NULL -> malloc/free */
} ossa_optimizer_desc;

/* Writes to `output` a copy of `input` (same name, duration and track count) keeping only
 * the keys needed to stay within the tolerance described at the top of this header. Kept
 * keys are copied unchanged (time and value).
 * Shapes: `skeleton` has one joint per track of `input` (track i animates joint i) and is in
 * depth-first order (ossa_raw_skeleton_sort_depth_first). Work: O(keys log span) plus
 * O(joints x depth); scratch memory: 28 bytes per rotation key.
 * Units: tolerance and shell distances in the skeleton's units, times in seconds.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (input, skeleton or output; overrides NULL with a count);
 * ossa_raw_animation_validate's and ossa_raw_skeleton_validate's errors;
 * OSSA_ERROR_INVALID_SKELETON (not depth-first); OSSA_ERROR_JOINT_MISMATCH (track count
 * differs from joint count); OSSA_ERROR_INVALID_ARGUMENT (a tolerance, shell distance or unit
 * scale negative or not finite, a unit scale so small the defaults overflow, an override's
 * joint out of range: the diag names the field and, in `offset`, the override index; or
 * `output` == `input`); OSSA_ERROR_OUT_OF_MEMORY. `output` is emptied first (except when it
 * is the input, which is left untouched) and stays empty on error.
 * Aliasing: `output` must not be `input`. */
OSSA_API ossa_result ossa_animation_optimize(const ossa_raw_animation *input, const ossa_raw_skeleton *skeleton,
                                             const ossa_optimizer_desc *desc, ossa_raw_animation *output,
                                             ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_OPTIMIZER_H */
