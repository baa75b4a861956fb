/* ossa/offline/error.h: how far a built animation is from its source, in model space.
 *
 *   ossa_error_report rep;
 *   ossa_measure_error(&skeleton, &raw, &anim, NULL, &rep, &diag);
 *   printf("max %g p99 %g mean %g (joint %zu at %g s)\n", rep.max, rep.p99, rep.mean,
 *          rep.worst_joint, rep.worst_time);
 *
 * Both animations are sampled at the same times t (the raw one's keys interpolated at t as
 * ossa_raw_animation_sample does, in double; the built one by the runtime sampling job at
 * t / duration): every 1 / sample_rate seconds and, when `source_times` is set, also at every
 * key time of the raw animation (an error that lives between two fixed-rate samples, such as
 * a spike key, is then seen). They are converted to model space with the skeleton's
 * hierarchy in double precision (so a skeleton far from the origin loses nothing to float
 * rounding), and compared at each joint's position and, when
 * `shell_distance` > 0, at virtual vertices that far from the joint along its local x, y
 * and z axes (ACL's metric). The error is the distance between the two positions of a point,
 * in the skeleton's units.
 */
#ifndef OSSA_OFFLINE_ERROR_H
#define OSSA_OFFLINE_ERROR_H

#include "ossa/animation.h"
#include "ossa/skeleton.h"
#include "ossa/offline/raw_animation.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most fixed-rate samples one measurement takes (about 4.9 hours at 60 Hz). */
#define OSSA_ERROR_MAX_FIXED_SAMPLES 1048576

/* Zero-initialised means the defaults. */
typedef struct ossa_error_desc {
    float sample_rate;    /* samples per second; 0 -> 60 */
    float shell_distance; /* virtual vertex distance in skeleton units; 0 -> joints only */
    const ossa_allocator *allocator;
    /* 0 -> fixed-rate samples only. Nonzero -> also every distinct key time of `raw` (the
     * union of the translation, rotation and scale key times of all tracks, clamped to
     * [0, duration]), in addition to the fixed-rate samples: a key time that falls on the
     * fixed-rate grid is measured twice, which weighs it twice in p99 and mean. */
    int source_times;
} ossa_error_desc;

typedef struct ossa_error_report {
    float max;           /* largest error over all points and samples */
    float p99;           /* 99th percentile over all (point, sample) pairs */
    float mean;          /* mean over all (point, sample) pairs */
    size_t worst_joint;  /* joint of the largest error */
    float worst_time;    /* seconds */
    size_t sample_count; /* time samples taken (fixed-rate plus source key times) */
    size_t point_count;  /* (point, sample) pairs measured */
    /* Of sample_count, the distinct source key times (0 without source_times). */
    size_t source_sample_count;
} ossa_error_report;

/* Measures `built` against `raw`, both for `skeleton` (track i = joint i).
 * Shapes: the work is sample_count x joint_count x (4 with a shell distance, else 1) points;
 * sample_count = ceil(duration x sample_rate) + 1, plus the distinct key times with
 * source_times. The fixed-rate part is at most OSSA_ERROR_MAX_FIXED_SAMPLES + 1: a clip
 * longer than that at sample_rate is measured at the rate that gives that count. Samples are
 * taken in increasing time (the sampling job's fast path); the results do not depend on that
 * order.
 * Units: seconds; errors and shell_distance in the skeleton's units (multiply by metres per
 * unit for metres).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_JOINT_MISMATCH when track counts differ from
 * the joint count; OSSA_ERROR_INVALID_ARGUMENT (negative or non-finite desc values);
 * OSSA_ERROR_INVALID_ANIMATION (raw duration not in (0, OSSA_RAW_ANIMATION_MAX_DURATION]);
 * OSSA_ERROR_OUT_OF_MEMORY. `report` is zeroed on error. */
OSSA_API ossa_result ossa_measure_error(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                        const ossa_animation *built, const ossa_error_desc *desc,
                                        ossa_error_report *report, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_ERROR_H */
