/* Private helpers shared by the offline sources (not installed). */
#ifndef OSSA_OFFLINE_INTERNAL_H
#define OSSA_OFFLINE_INTERNAL_H

#include <math.h>
#include <string.h>

#include "ossa/offline/common.h"

/* The first error of an offline function, recorded in `diag` and returned: ossa__fail when
 * the input has no position to name, ossa__fail_at with a byte offset into it. Both take a
 * printf format and its arguments; errors with a line and column go through ossa_diag_set
 * (ossa/offline/common.h) itself. */
#define ossa__fail(diag, code, ...)            ossa_diag_set((diag), (code), SIZE_MAX, 0, 0, __VA_ARGS__)
#define ossa__fail_at(diag, code, offset, ...) ossa_diag_set((diag), (code), (offset), 0, 0, __VA_ARGS__)

/* a * b into *out; false on overflow. */
static inline bool ossa__mul_size(size_t a, size_t b, size_t *out)
{
    if (b && a > SIZE_MAX / b) return false;
    *out = a * b;
    return true;
}

/* a + b into *out; false on overflow. */
static inline bool ossa__add_size(size_t a, size_t b, size_t *out)
{
    if (a > SIZE_MAX - b) return false;
    *out = a + b;
    return true;
}

/* qsort comparison of floats, ascending. */
static inline int ossa__compare_floats(const void *pa, const void *pb)
{
    const float a = *(const float *)pa, b = *(const float *)pb;
    return a < b ? -1 : a > b;
}

/* Zeroed array of count elements of size bytes; NULL on overflow or failure (or count 0). */
void *ossa__calloc(const ossa_allocator *allocator, size_t count, size_t size);

/* Grows *array (of *capacity elements of elem bytes) to hold at least `needed`. */
bool ossa__grow(const ossa_allocator *allocator, void **array, size_t *capacity, size_t needed, size_t elem);

static inline void ossa__store_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void ossa__store_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void ossa__store_u64(uint8_t *p, uint64_t v)
{
    ossa__store_u32(p, (uint32_t)v);
    ossa__store_u32(p + 4, (uint32_t)(v >> 32));
}

static inline void ossa__store_f32(uint8_t *p, float f)
{
    union {
        float f;
        uint32_t u;
    } c;
    c.f = f;
    ossa__store_u32(p, c.u);
}

/* Seconds on a monotonic clock from an unspecified start, and CPU seconds of the whole
 * process (0 where the system has no such clock): the build's stage times
 * (ossa_animation_build_stats). */
double ossa__seconds(void);
double ossa__cpu_seconds(void);

/* Shared by the error report (error.c) and the builder's search, so that both measure the
 * same thing the same way. */
#include "ossa/offline/raw_animation.h"
/* Model-space matrices of AoS local transforms along `parents` (depth-first), scalar. */
void ossa__raw_to_model(const int16_t *parents, size_t count, const ossa_transform *local, ossa_float4x4 *model);
/* ossa_raw_animation_sample of a valid animation (output [track_count]), the same floats, for
 * a pass whose times mostly ascend: cursors [3 * track_count], zeroed before the pass, keep
 * each channel's last key, so the next is found by a short walk instead of a binary search
 * (which on a dense clip of a thousand tracks misses the cache at every step). */
void ossa__raw_animation_sample_pass(const ossa_raw_animation *animation, float time, ossa_transform *output,
                                     size_t *cursors);
static inline ossa_float3 ossa__transform_point(const ossa_float4x4 *m, ossa_float3 p)
{
    return (ossa_float3){m->cols[0][0] * p.x + m->cols[1][0] * p.y + m->cols[2][0] * p.z + m->cols[3][0],
                         m->cols[0][1] * p.x + m->cols[1][1] * p.y + m->cols[2][1] * p.z + m->cols[3][1],
                         m->cols[0][2] * p.x + m->cols[1][2] * p.y + m->cols[2][2] * p.z + m->cols[3][2]};
}
/* A joint's origin and its virtual vertices `shell` along its x, y and z axes. */
static inline void ossa__joint_points(const ossa_float4x4 *m, float shell, ossa_float3 out[4])
{
    const ossa_float3 offsets[4] = {{0.f, 0.f, 0.f}, {shell, 0.f, 0.f}, {0.f, shell, 0.f}, {0.f, 0.f, shell}};
    for (int p = 0; p < 4; ++p) out[p] = ossa__transform_point(m, offsets[p]);
}
static inline float ossa__point_distance(ossa_float3 a, ossa_float3 b)
{
    const float dx = a.x - b.x, dy = a.y - b.y, dz = a.z - b.z;
    return sqrtf(dx * dx + dy * dy + dz * dz);
}
/* The key times of the channel last collected (keys: an array of raw keys `stride` bytes
 * apart, each starting with its time). ossa__same_key_times is true when `keys` has the same
 * count and the same times (then collecting them again adds only duplicates: a dense clip's
 * 3,000 channels usually share one list); otherwise it makes `keys` the last and is false. */
typedef struct ossa__key_times_run {
    const void *keys;
    size_t count, stride;
} ossa__key_times_run;
static inline bool ossa__same_key_times(ossa__key_times_run *last, const void *keys, size_t count, size_t stride)
{
    if (count == 0) return true;
    bool same = last->keys && last->count == count;
    for (size_t k = 0; same && k < count; ++k) {
        float a, b;
        memcpy(&a, (const unsigned char *)last->keys + k * last->stride, sizeof a);
        memcpy(&b, (const unsigned char *)keys + k * stride, sizeof b);
        same = a == b;
    }
    if (!same) *last = (ossa__key_times_run){keys, count, stride};
    return same;
}
/* Whether `keys` has the times of one of the two channels last collected (runs[0] the last,
 * runs[1] the one before), which are in the list already; if not, they become the last. Two,
 * for clips whose channels alternate between two lists: a BVH joint's one translation key and
 * its rotations at every frame (CMU 01_01 collected 31 x 2,751 times instead of 2 x 2,751 with
 * the last alone, and sorting them took 6 % of its bake's instructions). Times left out are
 * ones the list holds already. */
static inline bool ossa__collected_key_times(ossa__key_times_run runs[2], const void *keys, size_t count,
                                             size_t stride)
{
    ossa__key_times_run last = runs[0], before = runs[1];
    if (ossa__same_key_times(&last, keys, count, stride) || ossa__same_key_times(&before, keys, count, stride))
        return true;
    runs[1] = runs[0], runs[0] = last; /* same_key_times made `keys` the last */
    return false;
}
/* Distinct key times of every channel of every track, clamped to [0, duration], ascending
 * ([*count + 1] floats, NULL when out of memory). */
float *ossa__source_key_times(const ossa_raw_animation *raw, const ossa_allocator *a, size_t *count);
/* The fixed sample rate error measurement uses: `rate`, or lower for a clip so long that it
 * would take more than OSSA_ERROR_MAX_FIXED_SAMPLES samples; and how many samples that is. */
float ossa__fixed_rate(float rate, float duration);
size_t ossa__fixed_count(float rate, float duration);
/* Fixed-rate sample i, in seconds, clamped to the duration. */
float ossa__fixed_time(size_t i, float rate, float duration);
/* At most this many fixed-rate samples are measured strictly between two consecutive source
 * key times. Between them every curve, source and built, interpolates its values at the two
 * ends in the interval's own parameter (the built keys are a subset of the source's time
 * points), so the error's shape over the interval does not depend on its length in seconds:
 * a 1000 s gap between BVH frames needs no more checks than a 1/30 s one, and the fixed rate
 * alone would make the work follow the duration (60 000 samples per such gap). 15 keeps
 * every fixed sample of any clip keyed at 4 Hz or faster, whose results stay as they were. */
#define OSSA__MAX_FIXED_PER_INTERVAL 15
/* The fixed-rate samples the error is measured at when the source's key times are measured
 * too (the builder's search and verification, ossa_measure_error with source_times): all of
 * them, except that a run of more than OSSA__MAX_FIXED_PER_INTERVAL between two consecutive
 * key times is thinned to that many, evenly spread. Written ascending into `out` when not NULL
 * (room for the returned count); returns how many. `key_times` [keys] distinct, ascending. */
size_t ossa__thinned_fixed(const float *key_times, size_t keys, float rate, float duration, float *out);
/* The bytes ossa__measure_joints allocates for one pass over a skeleton of joint_count joints
 * (the builder's memory estimate counts them). */
size_t ossa__measure_joints_memory(size_t joint_count);
/* The error measurement itself (error.c), which ossa_measure_error and the builder's final
 * verification both run: at each of `times` (seconds, ascending), the source interpolated in
 * double and `built` decoded by the runtime sampling job at time / duration, both taken to
 * model space in double; each joint's largest point distance (origin and the three vertices
 * at shells[j]) into joint_max[j], at joint_time[j] (both [joint_count], in skeleton units
 * and seconds). The caller has checked that track and joint counts agree. With threads > 1
 * (at most OSSA__MEASURE_MAX_THREADS), the times are shared among that many threads, each
 * with its own ossa__measure_joints_memory and two floats per joint; the results are those
 * of one thread. */
#define OSSA__MEASURE_MAX_THREADS 16
#include "ossa/animation.h"
#include "ossa/skeleton.h"
ossa_result ossa__measure_joints(const ossa_skeleton *skeleton, const ossa_raw_animation *raw,
                                 const ossa_animation *built, const float *times, size_t time_count,
                                 const float *shells, const ossa_allocator *allocator, unsigned threads,
                                 float *joint_max, float *joint_time, ossa_diag *diag);

#endif
