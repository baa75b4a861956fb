/* ossa/offline/builders.h: raw skeleton and raw animation to runtime blobs.
 *
 *   ossa_blob skel_blob = {0}, anim_blob = {0};
 *   ossa_diag diag = {0};
 *   ossa_skeleton_build(&raw_skeleton, NULL, &skel_blob, &diag);
 *   ossa_animation_build(&raw_animation, NULL, &anim_blob, &diag);
 *   ossa_skeleton skel; ossa_skeleton_init(&skel, skel_blob.data, skel_blob.size);
 *   ...
 *   ossa_blob_destroy(&anim_blob); ossa_blob_destroy(&skel_blob);
 *
 * The blobs are the exact bytes a .ossa archive stores (see ossa/skeleton.h and
 * ossa/animation.h for their layouts); ossa_skeleton_init / ossa_animation_init view them.
 */
#ifndef OSSA_OFFLINE_BUILDERS_H
#define OSSA_OFFLINE_BUILDERS_H

#include "ossa/offline/raw_animation.h"
#include "ossa/offline/raw_skeleton.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Builds a runtime skeleton blob. The raw skeleton must be valid and in depth-first order
 * (ossa_raw_skeleton_sort_depth_first). Rest rotations are normalised.
 * Errors: OSSA_ERROR_NULL_ARGUMENT; validate's errors; OSSA_ERROR_INVALID_SKELETON when not
 * depth-first; OSSA_ERROR_OUT_OF_MEMORY. `out` stays empty on error.
 * Source: ozz-animation SkeletonBuilder. */
OSSA_API ossa_result ossa_skeleton_build(const ossa_raw_skeleton *raw, const ossa_allocator *allocator, ossa_blob *out,
                                         ossa_diag *diag);

/* A tolerance and shell distance for one joint's own points (its virtual vertices must stay
 * within `tolerance`); the rest of the skeleton keeps the desc's values. */
typedef struct ossa_joint_tolerance {
    size_t joint;         /* joint index in the skeleton, < joint_count */
    float tolerance;      /* skeleton units, >= 0; 0 -> the desc's tolerance */
    float shell_distance; /* skeleton units, >= 0; 0 -> the desc's shell distance */
} ossa_joint_tolerance;

/* Default model-space tolerance and shell distance, in metres (ACL's default precision). */
#define OSSA_BUILD_DEFAULT_TOLERANCE      0.0001f
#define OSSA_BUILD_DEFAULT_SHELL_DISTANCE 0.03f

/* What a build measured (optional output of ossa_animation_build). */
typedef struct ossa_animation_build_stats {
    float max_error;    /* error of the worst joint (largest error / its tolerance) over virtual
                           vertices and times, skeleton units; the largest error when no
                           override changes a tolerance (0 when lossless: not measured) */
    float error_ratio;  /* largest error / tolerance of its joint (<= 1 when the bound holds) */
    size_t worst_joint; /* joint of the largest error ratio */
    float worst_time;   /* seconds */
    size_t key_count;   /* keys of animated sub-tracks */
    size_t evaluations; /* candidate encodings measured */
    /* Where the build's time went, seconds: wall clock (monotonic) and the CPU time of the
     * whole process over the same stretches (every thread's; 0 where the system does not
     * say). Stages do not overlap, so their sum is at most the build's time. Lossless builds
     * fill prepare, search (the encoding) and write. */
    double prepare_seconds; /* sampling the source at its time points */
    double search_seconds;  /* encoding and screening candidates (and the source's reference
                               points at each time the first measure that reaches it),
                               loosening sub-tracks */
    double verify_seconds;  /* the exact measurement of candidates (ossa_measure_error's) */
    double write_seconds;   /* writing candidate blobs */
    double prepare_cpu_seconds, search_cpu_seconds, verify_cpu_seconds, write_cpu_seconds;
} ossa_animation_build_stats;

/* Progress of one ossa_animation_build (see ossa_animation_build_desc.progress). `fraction` is
 * the share of the build done, in [0, 1]; `stage` is a short static text naming the step that
 * is running ("measure source", "search", "refine", "encode", "write"). */
typedef void (*ossa_build_progress_fn)(float fraction, const char *stage, void *user);

/* Options of the animation builder. Zero-initialised means a lossless build: every time point
 * is a key and every animated sub-track is quantised on 24 bits per component. */
typedef struct ossa_animation_build_desc {
    const ossa_raw_skeleton *skeleton;     /* with tolerance > 0: the skeleton whose model space the
                                              error is measured in (track i animates joint i;
                                              depth-first) */
    float tolerance;                       /* largest model-space error of any joint's virtual
                                              vertices, skeleton units; 0 -> lossless; >= 0 */
    float shell_distance;                  /* distance of the virtual vertices from each joint, skeleton
                                              units; 0 -> OSSA_BUILD_DEFAULT_SHELL_DISTANCE / unit_scale */
    float unit_scale;                      /* metres per skeleton unit; 0 -> 1; only scales the default
                                              shell distance */
    const ossa_joint_tolerance *overrides; /* [override_count]; a later entry for the same joint
                                              replaces an earlier one */
    size_t override_count;
    const ossa_allocator *allocator;   /* NULL -> malloc/free */
    ossa_animation_build_stats *stats; /* optional: filled on success */
    unsigned threads;                  /* encoding threads (error-bounded builds); 0 -> 1, at most
                                          16 are used; the result does not depend on it; 1 where
                                          the library was built without POSIX threads */
    /* Optional progress report; NULL: none. Called with `progress_user` on the thread that
     * called ossa_animation_build (never from its encoding threads), between steps of work:
     * after the source is sampled, after each candidate encoding of the search is
     * measured, every few sub-tracks while they are encoded or refined, and once more after
     * the blob is written. Fractions never decrease over one build; a successful build ends
     * with a call at exactly 1 (a failed one may stop below it). Up to about 600 calls per
     * build, whatever its size. The callback must return quickly and must not call back into
     * the builder (nor free anything the build reads); it cannot stop the build. The blob is
     * the same bytes with or without it. */
    ossa_build_progress_fn progress;
    void *progress_user;
    /* Key layout of the blob: OSSA_ANIMATION_LAYOUT_PACKED (0, the default: bit-packed segments)
     * or OSSA_ANIMATION_LAYOUT_SORTED (one stream sorted by the time the sampler needs each key,
     * 16-bit values; ossa/animation.h, OSSA_ANIMATION_FLAG_SORTED_KEYS). The sorted layout needs
     * a tolerance: the search then measures the sorted blob, and a build whose error stays above
     * the tolerance fails (OSSA_ERROR_INVALID_ARGUMENT naming the joint) instead of returning it. */
    int layout;
} ossa_animation_build_desc;

/* ossa_animation_build_desc.layout values. */
enum { OSSA_ANIMATION_LAYOUT_PACKED = 0, OSSA_ANIMATION_LAYOUT_SORTED = 1 };

/* Builds a runtime animation blob (layout in ossa/animation.h) from a valid raw animation.
 * The clip is sampled at its time points: the union of all key times, plus 0 and the
 * duration (uniform time points need no table). Each (joint, channel) sub-track becomes
 * default, constant or animated; animated sub-tracks keep a subset of the time points as keys
 * (always every 16th and the last) with per-component ranges and bit widths.
 *
 * Lossless (tolerance 0): each animated sub-track keeps its own key times (plus the first
 * time point of every segment of 16 and the last), widths are 24 bits, and only sub-tracks
 * exactly at their default or exactly constant are stored as such (a constant rotation only
 * when its 8-byte packing decodes to the same floats; otherwise it is an animated sub-track
 * of zero extent, which its range holds exactly); a rotation key the source does not have
 * holds the unnormalised lerp of its neighbours, so the normalised lerps on both sides trace
 * the source's curve. The error is the quantisation's: at most range / 2^25 per component of
 * a sub-track's range.
 *
 * Error-bounded (tolerance > 0, skeleton given): keys and widths are chosen against the
 * model-space error at the joint and at virtual vertices `shell_distance` from it along its
 * x, y and z axes (ACL's metric), measured on what the runtime sampling job decodes, at every
 * time point: each sub-track is encoded so that its own error (a translation's distance; a
 * rotation's or scale's displacement of the farthest point of the joint's subtree) stays
 * within k times the smallest tolerance of its subtree; k is searched (doubling, then
 * bisection) for the smallest blob whose measured error stays within every joint's
 * tolerance; then each sub-track's share is loosened where the measured error leaves room.
 * The tolerance is a verified bound at the time points: the returned blob was measured by the
 * computation of ossa_measure_error (double-precision model space at the source's key times
 * and 60 Hz, as `ossa info --against` reports it); between them both curves are
 * interpolations of neighbouring samples. When no encoding reaches it (a tolerance below
 * what float model space resolves at the skeleton's scale), the finest one is returned with
 * OSSA_OK and stats->error_ratio > 1: check it.
 * Units: times become ratios (time / duration); tolerance and shell distance in skeleton
 * units. Work: O(sub-tracks x time points x tries).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; validate's errors; OSSA_ERROR_INVALID_ARGUMENT (negative
 * or non-finite desc values, a tolerance without a skeleton, an override's joint out of range);
 * OSSA_ERROR_JOINT_MISMATCH (skeleton joint count differs from the track count);
 * OSSA_ERROR_INVALID_SKELETON (not depth-first) and the skeleton validator's errors;
 * OSSA_ERROR_INVALID_ANIMATION (key data of 2^29 bytes or more, or more than 2^31 time points);
 * OSSA_ERROR_OUT_OF_MEMORY.
 * `out` stays empty on error.
 * Source: ozz-animation AnimationBuilder and AnimationOptimizer (keys, per-joint tolerance
 * and distance); ACL (virtual-vertex metric, range reduction, variable bit rate). */
OSSA_API ossa_result ossa_animation_build(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc,
                                          ossa_blob *out, ossa_diag *diag);

/* An estimate of the peak bytes ossa_animation_build allocates for `raw` with `desc` (NULL:
 * the defaults), besides `raw` itself and the returned blob, so that a tool or a service can
 * refuse a build before it starts. With J tracks, S = 3J sub-tracks, T time points (distinct
 * key times plus 0 and the duration) and, for error-bounded builds, M measured times (the key
 * times plus the 60 Hz samples, at most 15 of those between two key times; see
 * docs/error-metric.md) and `threads` encoders:
 *   lossless:       S x T x 17 B + K x T x 17 B + T x 92 B (samples and source-key flags;
 *                   key flags and quantised keys of the K sub-tracks that may be keyed: all
 *                   but those without keys, translations whose keys are all the same and
 *                   scales whose keys are all 1, 1, 1; one encoder's scratch, the time point
 *                   table)
 *   error-bounded:  the same + M x J x 136 B (reference points, 48 B, at every measured
 *                   time; poses, 40 B, and model matrices, 48 B, while loosening) + M x 20 B
 *                   + T x 88 B per extra thread + T x 17 B + one candidate blob (at most
 *                   S x T x 12 B)
 * or the table every key time is first collected in, when that is larger. Against the
 * allocator's peak it is within 15 % above (an over-estimate when the search keeps few keys,
 * when rotation keys are all the identity, which the builder finds exactly default, and by
 * M x J x 88 B when no encoding reaches the tolerance, since such a clip is never loosened).
 * Work: the key times are sorted, O(keys log keys), and the measured times listed.
 * Rounded up to whole bytes, saturating at SIZE_MAX; 0 for NULL or an invalid `raw`. */
OSSA_API size_t ossa_animation_build_memory(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc);

/* An estimate of the seconds ossa_animation_build takes for `raw` with `desc` (NULL: the
 * defaults), from the work it does, so that a tool or a service can refuse a build before it
 * starts. With the counts of ossa_animation_build_memory and D the sum over joints of their
 * depth in `desc->skeleton` (1 for a root):
 *   lossless:       S x T x 300 ns (sampling the clip at its time points, encoding)
 *   error-bounded:  S x T x 300 ns + 12 encodings x (S x T x 5 ns + M x J x 80 ns) / threads
 *                   + 9 loosening tries per sub-track x M x D x 30 ns (on one thread)
 * Units: CPU seconds of one idle core. The constants were fitted on single-threaded builds on
 * an x86-64 server core of 2020 (SSE2 build); the search's real number of encodings varies
 * from about 6 to 20 with the clip and a loaded machine takes longer, so take the result as
 * the order of magnitude (it was within about 30 % on the clips it was fitted on), not as a
 * deadline. Work: as ossa_animation_build_memory. 0 for NULL or an invalid `raw`. */
OSSA_API double ossa_animation_build_seconds(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_BUILDERS_H */
