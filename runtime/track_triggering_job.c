#include <math.h>
#include <string.h>

#include "ossa/track_jobs.h"

/* Largest |from| or |to|: beyond it a float's spacing reaches 1 and a loop has no ratios. */
#define MAX_LOOPS 8388608.f

ossa_result ossa_track_triggering_job_validate(const ossa_track_triggering_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    const ossa_track *t = job->track;
    if (!t) return OSSA_ERROR_NO_TRACK;
    if (t->key_count < 2 || !t->ratios || !t->values || !t->interpolations) return OSSA_ERROR_INVALID_TRACK;
    if (t->type != OSSA_TRACK_FLOAT || t->width != 1) return OSSA_ERROR_TRACK_TYPE_MISMATCH;
    if (!(fabsf(job->from) <= MAX_LOOPS) || !(fabsf(job->to) <= MAX_LOOPS)) return OSSA_ERROR_INVALID_RATIO;
    if (!isfinite(job->threshold)) return OSSA_ERROR_INVALID_THRESHOLD;
    if (!job->iterator) return OSSA_ERROR_NO_OUTPUT;
    return OSSA_OK;
}

ossa_result ossa_track_triggering_job_run(const ossa_track_triggering_job *job)
{
    const ossa_result r = ossa_track_triggering_job_validate(job);
    if (r != OSSA_OK) return r;
    ossa_track_edge_iterator *it = job->iterator;
    memset(it, 0, sizeof *it);
    it->track = *job->track;
    it->forward = job->to >= job->from;
    it->lo = it->forward ? job->from : job->to;
    it->hi = it->forward ? job->to : job->from;
    it->threshold = job->threshold;
    /* An edge at ratio e (in [0, 1]) of loop k lies in [lo, hi) when lo - k <= e < hi - k
     * (see `before`); that needs k in [floor(lo) - 1, floor(hi)]: loop floor(lo) - 1 only
     * contributes an edge at its very end, when lo is a whole number. */
    const int64_t first = (int64_t)floorf(it->lo) - 1, last = (int64_t)floorf(it->hi);
    it->loop = it->forward ? first : last;
    it->last_loop = it->forward ? last : first;
    it->done = !(it->hi > it->lo);
    return OSSA_OK;
}

/* Ratio where segment `s` of a loop begins and ends. Segment 0 is the jump from the last key
 * of the previous loop to key 0, at ratio 0; segment s > 0 runs from key s - 1 to key s. */
static float segment_begin(const ossa_track *t, size_t s) { return s ? t->ratios[s - 1] : 0.f; }
static float segment_end(const ossa_track *t, size_t s) { return t->ratios[s]; }

/* Whether the value crosses the threshold over segment `s`, and where (ratio within the
 * loop, in [segment_begin, segment_end]) and which way along the curve. */
static bool detect_edge(const ossa_track *t, size_t s, float threshold, float *ratio, bool *rising)
{
    const size_t n = t->key_count;
    const size_t k0 = s ? s - 1 : n - 1;
    const float v0 = t->values[k0], v1 = t->values[s];
    const bool high0 = v0 > threshold, high1 = v1 > threshold;
    if (high0 == high1) return false;
    *rising = high1;
    if (s == 0) {
        *ratio = 0.f;
    } else if (t->interpolations[k0] == OSSA_INTERP_STEP) {
        *ratio = t->ratios[s];
    } else {
        /* Inverse of the sampling lerp v0 + (v1 - v0) * alpha; v0 != v1 as they straddle
         * the threshold. Clamped so that rounding keeps edges in key order. */
        const float r0 = t->ratios[k0], r1 = t->ratios[s];
        const float alpha = (threshold - v0) / (v1 - v0);
        float e = r0 + (r1 - r0) * alpha;
        e = e < r0 ? r0 : (e > r1 ? r1 : e);
        *ratio = e;
    }
    return true;
}

/* Ratio `e` of loop `loop` is before time `x` (in loops). The comparison is within the loop:
 * x - loop rounds monotonically in x, so for a fixed edge the answer only changes once as x
 * grows, and spans that share an end never both hold (or both miss) an edge. */
static bool before(float e, int64_t loop, float x) { return e < x - (float)loop; }

/* Where the scan of the current loop starts. Forward: the first segment whose end is not
 * before lo (edges of earlier segments are all before lo). Backward: one past the last
 * segment whose beginning is before hi. Both are prefix counts, found by binary search. */
static size_t first_segment(const ossa_track_edge_iterator *it)
{
    const ossa_track *t = &it->track;
    size_t lo = 0, hi = t->key_count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        const bool in_prefix = it->forward ? before(segment_end(t, mid), it->loop, it->lo)
                                           : before(segment_begin(t, mid), it->loop, it->hi);
        if (in_prefix)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

bool ossa_track_edge_next(ossa_track_edge_iterator *it, ossa_track_edge *edge)
{
    if (!it || !edge) return false;
    const ossa_track *t = &it->track;
    const size_t n = t->key_count;
    while (!it->done) {
        if (!it->started) {
            it->segment = first_segment(it);
            it->started = true;
        }
        /* it->segment is the next segment forward, one past the next one backward. Edges of
         * segment s lie in [segment_begin(s), segment_end(s)], so the loop's scan ends at
         * the first segment beginning at or after hi (forward) or ending before lo. */
        size_t s;
        bool loop_over;
        if (it->forward) {
            s = it->segment;
            loop_over = s >= n || !before(segment_begin(t, s), it->loop, it->hi);
        } else {
            s = it->segment - 1;
            loop_over = it->segment == 0 || before(segment_end(t, s), it->loop, it->lo);
        }
        if (loop_over) {
            if (it->loop == it->last_loop) {
                it->done = true;
                break;
            }
            it->loop += it->forward ? 1 : -1;
            it->started = false;
            continue;
        }
        it->segment = it->forward ? s + 1 : s;
        float e;
        bool rising;
        if (!detect_edge(t, s, it->threshold, &e, &rising)) continue;
        if (before(e, it->loop, it->lo) || !before(e, it->loop, it->hi)) continue;
        edge->ratio = (float)it->loop + e;
        edge->rising = rising == it->forward;
        return true;
    }
    return false;
}
