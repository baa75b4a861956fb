/* ossa/sampling_job.h: samples an animation at a ratio into SoA local-space transforms.
 *
 *   size_t bytes = ossa_sampling_context_size(skeleton.joint_count);
 *   void *mem = aligned_alloc(16, bytes);                  // caller memory, 16-byte aligned
 *   ossa_sampling_context *ctx = ossa_sampling_context_init(mem, bytes, skeleton.joint_count);
 *   ossa_sampling_job job = {.animation = &anim, .context = ctx, .ratio = t / anim.duration,
 *                            .output = pose, .output_count = skeleton.soa_count,
 *                            .rest_pose = skeleton.rest_pose, .rest_pose_count = skeleton.soa_count};
 *   ossa_result r = ossa_sampling_job_run(&job);
 *
 * Ownership: the context is per playing instance (it caches, per animated sub-track, the
 * decoded keys around the last ratio and the current segment's key offsets) and lives in
 * caller memory; it is bound to the last animation sampled and
 * resets itself when another one is given. Jobs with distinct contexts and outputs may run
 * in parallel over the same animation.
 */
#ifndef OSSA_SAMPLING_JOB_H
#define OSSA_SAMPLING_JOB_H

#include "ossa/animation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-instance sampling cache (opaque; lives in caller memory). */
typedef struct ossa_sampling_context ossa_sampling_context;

/* Bytes of memory a context able to sample animations of up to `max_tracks` joints needs
 * (room for all of their sub-tracks animated). 0 when max_tracks exceeds OSSA_MAX_JOINTS. */
OSSA_API size_t ossa_sampling_context_size(size_t max_tracks);

/* Bytes of memory a context sized for `animation` needs: room for its joints, its animated
 * sub-tracks, those of them with per-segment ranges, and the default and constant values of
 * the channels that its animated sub-tracks do not cover whole SoA groups of. It also samples
 * any animation that needs at most as much of each; one that needs more fails with
 * OSSA_ERROR_CONTEXT_TOO_SMALL at the call that binds it. A crowd's characters thus keep
 * their state small: for the pab walk (67 joints, 27 animated sub-tracks) about a fifth of
 * ossa_sampling_context_size(67) (bench/crowd.c prints both).
 * 0 when animation is NULL or not initialised. */
OSSA_API size_t ossa_sampling_context_size_for(const ossa_animation *animation);

/* Bytes of memory a context sized for `animation` with a playback cache needs:
 * ossa_sampling_context_size_for plus, per group of four animated sub-tracks, the keys
 * around each of a segment's 16 time points (2,560 bytes a group), and 2 KB of scratch. When
 * the time point has moved by at most two over each of the last two runs (forward or backward
 * playback at a frame rate of at least half the clip's sample rate), a run that enters a
 * segment decodes all of its keys at once and the runs within it only interpolate; other
 * access (jumps, random ratios) samples as a context without the cache does. Poses are the
 * same bit for bit either way. For the pab walk (67 joints, 27 animated sub-tracks, 7 groups)
 * 27,840 bytes against 7,744. 0 when animation is NULL or not initialised. */
OSSA_API size_t ossa_sampling_context_playback_size_for(const ossa_animation *animation);

/* Keys per second of an average animated sub-track below which the playback cache does not pay
 * (see ossa_sampling_context_cache_pays). */
#define OSSA_SAMPLING_CACHE_MIN_KEY_RATE 6.0

/* Whether forward or backward playback of `animation` at 60 Hz is cheaper with the playback
 * cache than without it: true when its animated sub-tracks average at least
 * OSSA_SAMPLING_CACHE_MIN_KEY_RATE keys per second (key_count / (animated_count x duration)).
 * Without the cache a call decodes only the lanes that pass a key; with it, the first call in a
 * segment decodes every key of the segment and the others read two cached keys a group from a
 * cache four times the context's size. Measured with bench/compare.sh (docs/benchmarks.md): the
 * cache saves 19-55 % of the instructions on clips of 8.9 to 110 keys per second (pab, ruby,
 * CMU 01_01, a synthetic 1,024-joint clip) and nothing on ozz-animation's 1,007-joint "baked"
 * clip at 3.3 (47,562 Ir a call without it, 48,183 with it, in 1.3 MB more memory). Playing at
 * a lower frame rate lowers the cache's gain. false for NULL or an animation without animated
 * sub-tracks. */
OSSA_API bool ossa_sampling_context_cache_pays(const ossa_animation *animation);

/* The context size a player of `animation` should allocate:
 * ossa_sampling_context_playback_size_for when the cache pays (ossa_sampling_context_cache_pays),
 * else ossa_sampling_context_size_for. 0 when animation is NULL or not initialised. */
OSSA_API size_t ossa_sampling_context_recommended_size_for(const ossa_animation *animation);

/* Places an empty context in `memory` (`size` bytes, 16-byte aligned) for up to `max_tracks`
 * joints. Returns NULL when memory is NULL or misaligned, size is below
 * ossa_sampling_context_size(max_tracks) or max_tracks exceeds OSSA_MAX_JOINTS. */
OSSA_API ossa_sampling_context *ossa_sampling_context_init(void *memory, size_t size, size_t max_tracks);

/* Places an empty context sized for `animation` (see ossa_sampling_context_size_for) in
 * `memory` (`size` bytes, 16-byte aligned), with a playback cache when size is at least
 * ossa_sampling_context_playback_size_for(animation). Returns NULL when memory is NULL or
 * misaligned, animation is NULL or not initialised, or size is below
 * ossa_sampling_context_size_for. */
OSSA_API ossa_sampling_context *ossa_sampling_context_init_for(void *memory, size_t size,
                                                               const ossa_animation *animation);

/* Forgets the bound animation and its cached keys; the next run decodes from scratch. */
OSSA_API void ossa_sampling_context_invalidate(ossa_sampling_context *context);

/* Largest joint count `context` can sample (0 for NULL). */
OSSA_API size_t ossa_sampling_context_max_tracks(const ossa_sampling_context *context);

/* Largest animated sub-track count (ossa_animation.animated_count) `context` can sample (0 for
 * NULL). */
OSSA_API size_t ossa_sampling_context_max_animated(const ossa_sampling_context *context);

/* Samples `animation` at `ratio` into `output`.
 * Fields (zero-initialised means: no animation, no context, ratio 0, no output, which are
 * errors except the ratio):
 *   animation      validated animation view
 *   context        from ossa_sampling_context_init, max_tracks >= animation->track_count and
 *                  max_animated >= animation->animated_count
 *   ratio          time / duration; clamped to [0, 1]; must be finite
 *   output         [output_count >= animation->soa_count] SoA local transforms; lanes past
 *                  track_count in the last group are written with identity
 *   rest_pose      the skeleton's rest pose, for the rest-pose sub-tracks (see below)
 * Units: output translations and scales in the animation's units, rotations normalised.
 * Cost: the context keeps, for every animated sub-track, the two keys around the last ratio;
 * a call reads keys only for the sub-tracks whose keys no longer bracket the ratio, and each
 * such key is found in its 16-time-point segment from the segment's bitmaps (forward and
 * backward playback reuse the key they move past), so a jump costs the same as a step to a
 * new key and random access does not grow with clip length.
 * The context recognises its animation by the address of the blob's tables, its key count
 * and data size, and the rest pose by its address (its values are copied when binding):
 * call ossa_sampling_context_invalidate when another blob is placed at the same address or
 * the rest pose is changed in place. Sampling another blob through a stale binding applies
 * the old blob's offsets to the new one's data: undefined results.
 * Errors (nothing is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_NO_ANIMATION,
 * OSSA_ERROR_NO_CONTEXT, OSSA_ERROR_CONTEXT_TOO_SMALL (also, from the call that binds the
 * animation and not from ossa_sampling_job_validate, a context sized for another animation
 * with ossa_sampling_context_size_for that has less room than this one needs),
 * OSSA_ERROR_INVALID_RATIO,
 * OSSA_ERROR_NO_OUTPUT, OSSA_ERROR_OUTPUT_TOO_SMALL, OSSA_ERROR_NO_REST_POSE (the animation has
 * rest-pose sub-tracks and the job no rest pose of soa_count groups), OSSA_ERROR_MISALIGNED
 * (output, or rest_pose when not NULL, not 16-byte aligned), OSSA_ERROR_ALIASING (output overlaps the context, the
 * animation's blob or the rest pose).
 * Aliasing: output must not overlap the context, the animation's blob or the rest pose.
 * Source: the job shape of ozz-animation's SamplingJob; keys are found from per-segment
 * bitmaps (ossa/animation.h, docs/animation-format.md); interpolation is
 * linear for translation and scale, normalised lerp for rotation (the builder keeps
 * consecutive rotation keys in one hemisphere). */
typedef struct ossa_sampling_job {
    const ossa_animation *animation;
    ossa_sampling_context *context;
    float ratio;
    ossa_soa_transform *output;
    size_t output_count;
    const ossa_soa_transform *rest_pose; /* [rest_pose_count >= animation->soa_count] the skeleton's
                                            rest pose (ossa_skeleton.rest_pose), 16-byte aligned;
                                            needed only when the animation has rest-pose sub-tracks
                                            (rest_count > 0), which builds against a skeleton have */
    size_t rest_pose_count;
} ossa_sampling_job;

/* Checks the job's fields as ossa_sampling_job_run does, without running. */
OSSA_API ossa_result ossa_sampling_job_validate(const ossa_sampling_job *job);

/* Validates then samples; see ossa_sampling_job. */
OSSA_API ossa_result ossa_sampling_job_run(const ossa_sampling_job *job);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_SAMPLING_JOB_H */
