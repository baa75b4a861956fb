/* ossa/offline/additive_builder.h: turns a raw animation into an additive (delta) one, for
 * additive layers of the blending job (ossa/blending_job.h).
 *
 *   ossa_raw_animation delta = {0};
 *   ossa_diag diag = {0};
 *   if (ossa_additive_animation_build(&wave, NULL, &delta, &diag) == OSSA_OK)   // vs first frame
 *       ossa_animation_build(&delta, NULL, &blob, &diag);                     // then as usual
 *   ossa_raw_animation_destroy(&delta);
 *
 * Ownership: `out` is allocated with the desc's allocator (NULL means malloc/free) and
 * released by ossa_raw_animation_destroy; it stays empty and safe to destroy on error.
 *
 * Convention (pose = reference * delta, per joint, in the joint's local space):
 *   translation delta = t - t_ref
 *   rotation delta    = conj(q_ref) * q          (q_ref * delta = q; both normalised first)
 *   scale delta       = s / s_ref                (component-wise)
 * The blending job applies an additive layer of weight w as t += w * delta_t,
 * q = q * nlerp(identity, delta_q, w), s *= lerp(1, delta_s, w), so at w = 1 on top of the
 * reference pose it rebuilds the source pose. ozz-animation composes the rotation on the
 * other side (delta = q * conj(q_ref), applied on the left); ossa's right-hand delta keeps
 * the delta in the joint's own frame, independent of the parent's orientation.
 */
#ifndef OSSA_OFFLINE_ADDITIVE_BUILDER_H
#define OSSA_OFFLINE_ADDITIVE_BUILDER_H

#include "ossa/offline/raw_animation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of the additive builder. Zero-initialised means: reference = first frame,
 * malloc/free. */
typedef struct ossa_additive_build_desc {
    const ossa_transform *reference; /* NULL: each channel's first key (its value at time 0)
                                        is its reference, as ozz does. Else
                                        [reference_count >= track_count] local transforms,
                                        one per track, e.g. the skeleton's rest pose */
    size_t reference_count;
    const ossa_allocator *allocator; /* of the output; NULL -> malloc/free */
} ossa_additive_build_desc;

/* Builds `out`, the additive version of `raw`: same name, duration, tracks and key times,
 * each key's value replaced by its delta against the reference (see the convention above).
 * Channels without keys stay without keys: they are the identity delta (a channel that
 * does not move adds nothing), as in ozz-animation.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (raw or out); ossa_raw_animation_validate's errors;
 * OSSA_ERROR_INPUT_TOO_SMALL (reference_count below track_count); OSSA_ERROR_INVALID_ARGUMENT
 * (a reference value not finite, a zero-length reference rotation, or a reference scale
 * with a zero component: the diag names the track); OSSA_ERROR_OUT_OF_MEMORY.
 * Source: ozz-animation AdditiveAnimationBuilder (first-frame or given reference pose). */
OSSA_API ossa_result ossa_additive_animation_build(const ossa_raw_animation *raw, const ossa_additive_build_desc *desc,
                                                   ossa_raw_animation *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_ADDITIVE_BUILDER_H */
