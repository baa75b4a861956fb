/* ossa/track_jobs.h: sampling a user-channel track, and finding where a float track crosses
 * a threshold (rising and falling edges) between two times.
 *
 *   float grip;
 *   ossa_track_sampling_job s = {.track = &grasp, .ratio = 0.25f, .output = &grip, .output_count = 1};
 *   ossa_track_sampling_job_run(&s);
 *
 *   ossa_track_edge_iterator it;
 *   ossa_track_triggering_job t = {.track = &grasp, .from = prev_time_in_loops,
 *                                  .to = time_in_loops, .threshold = .5f, .iterator = &it};
 *   ossa_track_edge edge;
 *   if (ossa_track_triggering_job_run(&t) == OSSA_OK)
 *       while (ossa_track_edge_next(&it, &edge)) on_edge(edge.ratio, edge.rising);
 *
 * Ownership: jobs and iterators live in caller memory and own nothing; an iterator copies the
 * track view (not the keys), so the track's blob must outlive it. Jobs over the same track
 * with distinct outputs run in parallel safely.
 */
#ifndef OSSA_TRACK_JOBS_H
#define OSSA_TRACK_JOBS_H

#include "ossa/track.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Samples `track` at `ratio`.
 * Fields (zero-initialised means: no track, ratio 0, no output; only the ratio is valid):
 *   track          validated track view (any type)
 *   ratio          in [0, 1], clamped; must be finite
 *   output         [output_count >= track->width] floats; quaternions as x, y, z, w
 * Shapes: writes exactly track->width floats.
 * Units: the track's; quaternions are normalised.
 * Semantics: the key at or before `ratio` and its interpolation decide the value: step holds
 * the key's value, linear lerps to the next key (quaternions: normalised lerp on the
 * shortest arc), slerp interpolates spherically on the shortest arc; at a key's ratio the
 * value is that key's. This is ossa_raw_track_evaluate's definition, in the same float
 * arithmetic.
 * Errors (nothing is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_NO_TRACK,
 * OSSA_ERROR_INVALID_TRACK (a view with fewer than 2 keys, NULL arrays, or a key_count whose
 * arrays would run past the end of the address space),
 * OSSA_ERROR_INVALID_RATIO, OSSA_ERROR_NO_OUTPUT, OSSA_ERROR_OUTPUT_TOO_SMALL,
 * OSSA_ERROR_ALIASING (output overlaps the track's ratios, values or interpolations).
 * Cost: O(log keys).
 * Source: ozz-animation TrackSamplingJob. */
typedef struct ossa_track_sampling_job {
    const ossa_track *track;
    float ratio;
    float *output;
    size_t output_count;
} ossa_track_sampling_job;

OSSA_API ossa_result ossa_track_sampling_job_validate(const ossa_track_sampling_job *job);
OSSA_API ossa_result ossa_track_sampling_job_run(const ossa_track_sampling_job *job);

/* A threshold crossing. */
typedef struct ossa_track_edge {
    float ratio; /* time in loops (loop index + ratio within the loop) where the crossing is */
    bool rising; /* true when the value goes from <= threshold to > threshold in the direction
                    of travel (walking backward, a curve going up is seen as falling) */
} ossa_track_edge;

/* Lazy edge enumeration state, in caller memory. Set up by ossa_track_triggering_job_run and
 * advanced by ossa_track_edge_next; fields are private. */
typedef struct ossa_track_edge_iterator {
    ossa_track track; /* copy of the view */
    float lo, hi;     /* the span [lo, hi) in loops */
    float threshold;
    int64_t loop;      /* loop being scanned */
    int64_t last_loop; /* loop where the scan ends */
    size_t segment;    /* next segment of `loop`: 0 is the jump from the last key to the first */
    bool forward;
    bool started; /* the current loop's first segment is chosen */
    bool done;
} ossa_track_edge_iterator;

/* Finds the edges of a float track between two times, for frame-rate independent events.
 * Fields (zero-initialised means: no track, from = to = 0 (no edge), threshold 0, no
 * iterator; the times and the threshold are valid as zero):
 *   track          validated OSSA_TRACK_FLOAT track
 *   from, to       times in loops, unbounded: the integer part counts loops of the track,
 *                  the fraction is the ratio within the loop (3.25 is ratio 0.25 of the
 *                  fourth loop; -0.5 is ratio 0.5 of the loop before the first). |from| and
 *                  |to| at most 2^23 (where a float still resolves ratios). to > from walks
 *                  forward, to < from walks backward.
 *   threshold      a value is high when > threshold, low when <= threshold; must be finite
 *   iterator       receives the enumeration state
 * Semantics: the span is [min(from, to), max(from, to)) whichever the direction, so
 * consecutive calls with to of one equal to from of the next see each edge exactly once
 * however the time is cut into steps, forward or backward. Edges come in time order of the
 * direction of travel (for equal times, in key order). Within a linear segment the edge is
 * where the line crosses the threshold; on a step segment it is at the next key's ratio; the
 * jump from the last key (ratio 1) to the first key of the next loop is an edge at that
 * loop's start. Looping is implicit (the curve repeats every 1.0), so when the last value and
 * the first differ there is an edge at every whole number, 0 included. A non-looping caller
 * keeps its times within [0, 1]; spans being half-open, an edge at exactly ratio 1 is only
 * reported by a span that reaches past 1.
 * Errors (the iterator is left untouched): OSSA_ERROR_NULL_ARGUMENT (job),
 * OSSA_ERROR_NO_TRACK, OSSA_ERROR_INVALID_TRACK (a view with fewer than 2 keys or NULL
 * arrays), OSSA_ERROR_TRACK_TYPE_MISMATCH (not a float track), OSSA_ERROR_INVALID_RATIO
 * (from or to not finite or beyond 2^23), OSSA_ERROR_INVALID_THRESHOLD (not finite),
 * OSSA_ERROR_NO_OUTPUT (no iterator).
 * Cost: run is O(1); each ossa_track_edge_next is O(log keys) plus the keys it passes.
 * Source: ozz-animation TrackTriggeringJob (edge detection and loop handling); the span
 * test compares within-loop ratios so that splitting the span never loses or repeats an
 * edge in float arithmetic. */
typedef struct ossa_track_triggering_job {
    const ossa_track *track;
    float from;
    float to;
    float threshold;
    ossa_track_edge_iterator *iterator;
} ossa_track_triggering_job;

OSSA_API ossa_result ossa_track_triggering_job_validate(const ossa_track_triggering_job *job);
OSSA_API ossa_result ossa_track_triggering_job_run(const ossa_track_triggering_job *job);

/* Writes the next edge to `edge` and returns true, or returns false when the span holds no
 * more edges (also for NULL arguments). */
OSSA_API bool ossa_track_edge_next(ossa_track_edge_iterator *iterator, ossa_track_edge *edge);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_TRACK_JOBS_H */
