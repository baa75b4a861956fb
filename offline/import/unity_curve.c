#include "import/unity_curve.h"

#include <math.h>
#include <stdbool.h>

static float clampf(float v, float lo, float hi) { return v < lo ? lo : (v > hi ? hi : v); }

float ossa__unity_curve_wrap_time(const ossa__unity_curve *curve, float time)
{
    if (curve->key_count < 2) return time;
    const float first = curve->keys[0].time;
    const float last = curve->keys[curve->key_count - 1].time;
    const float range = last - first;
    if (!(range > 0.f) || !isfinite(range)) return time;
    int32_t mode;
    if (time < first)
        mode = curve->pre_wrap;
    else if (time > last)
        mode = curve->post_wrap;
    else
        return time;
    if (mode == OSSA__UNITY_WRAP_LOOP) {
        float r = fmodf(time - first, range);
        if (r < 0.f) r += range;
        return clampf(first + r, first, last);
    }
    if (mode == OSSA__UNITY_WRAP_PING_PONG) {
        const float period = 2.f * range;
        float r = isfinite(period) ? fmodf(time - first, period) : 0.f;
        if (r < 0.f) r += period;
        return clampf(first + (r <= range ? r : period - r), first, last);
    }
    /* Default, Once, ClampForever and unknown values hold the end keys. */
    return clampf(time, first, last);
}

/* Index of the last key whose time is <= time (0 when time precedes every key). */
static size_t find_key(const ossa__unity_curve *curve, float time)
{
    size_t lo = 0, hi = curve->key_count;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (curve->keys[mid].time <= time)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

float ossa__unity_curve_evaluate(const ossa__unity_curve *curve, float time)
{
    const size_t n = curve->key_count;
    if (n == 0) return 0.f;
    if (n == 1 || time != time) return curve->keys[0].value;
    time = ossa__unity_curve_wrap_time(curve, time);
    if (time <= curve->keys[0].time) return curve->keys[0].value;
    if (time >= curve->keys[n - 1].time) return curve->keys[n - 1].value;
    const size_t i = find_key(curve, time);
    return ossa__unity_segment_evaluate(&curve->keys[i], &curve->keys[i + 1], time);
}

float ossa__unity_curve_evaluate_step(const ossa__unity_curve *curve, float time)
{
    if (curve->key_count == 0) return 0.f;
    if (time != time) return curve->keys[0].value;
    time = ossa__unity_curve_wrap_time(curve, time);
    return curve->keys[find_key(curve, time)].value;
}

/* x(u) of the Bezier (0, p1, p2, 1) in power form: a u^3 + b u^2 + c u. */
static float bezier_x(float u, float a, float b, float c) { return ((a * u + b) * u + c) * u; }

/* Solves x(u) = s on [lo, hi] where x is monotonic and x(lo) - s, x(hi) - s differ in sign:
 * Newton steps kept inside a shrinking bracket, bisection when a step leaves it. */
static float solve_bracket(float s, float a, float b, float c, float lo, float hi)
{
    float flo = bezier_x(lo, a, b, c) - s;
    float u = 0.5f * (lo + hi);
    for (int i = 0; i < 64; ++i) {
        const float f = bezier_x(u, a, b, c) - s;
        if (f == 0.f) return u;
        if ((f < 0.f) == (flo < 0.f)) {
            lo = u;
            flo = f;
        } else {
            hi = u;
        }
        if (hi - lo <= 1e-7f) break;
        const float d = (3.f * a * u + 2.f * b) * u + c;
        const float next = d != 0.f ? u - f / d : lo - 1.f;
        u = (next > lo && next < hi) ? next : 0.5f * (lo + hi);
    }
    return u;
}

float ossa__unity_bezier_solve(float s, float p1, float p2)
{
    const float a = 3.f * p1 - 3.f * p2 + 1.f;
    const float b = -6.f * p1 + 3.f * p2;
    const float c = 3.f * p1;
    /* Split [0, 1] at the roots of x'(u) = 3a u^2 + 2b u + c into monotonic pieces, then
     * take the first piece whose ends bracket s: that holds the first root. */
    float cut[4];
    int n = 0;
    cut[n++] = 0.f;
    const float qa = 3.f * a, qb = 2.f * b, qc = c;
    float r[2];
    int nr = 0;
    if (fabsf(qa) < 1e-12f) {
        if (qb != 0.f) r[nr++] = -qc / qb;
    } else {
        const float disc = qb * qb - 4.f * qa * qc;
        if (disc >= 0.f) {
            const float q = -0.5f * (qb + (qb < 0.f ? -sqrtf(disc) : sqrtf(disc)));
            r[nr++] = q / qa;
            if (q != 0.f) r[nr++] = qc / q;
        }
    }
    if (nr == 2 && r[1] < r[0]) {
        const float t = r[0];
        r[0] = r[1];
        r[1] = t;
    }
    for (int i = 0; i < nr; ++i)
        if (r[i] > cut[n - 1] && r[i] < 1.f) cut[n++] = r[i];
    cut[n++] = 1.f;
    for (int i = 0; i + 1 < n; ++i) {
        const float flo = bezier_x(cut[i], a, b, c) - s;
        const float fhi = bezier_x(cut[i + 1], a, b, c) - s;
        if (flo == 0.f) return cut[i];
        if (fhi == 0.f) return cut[i + 1];
        if ((flo < 0.f) != (fhi < 0.f)) return solve_bracket(s, a, b, c, cut[i], cut[i + 1]);
    }
    return s < 0.5f ? 0.f : 1.f;
}

float ossa__unity_segment_evaluate(const ossa__unity_key *k0, const ossa__unity_key *k1, float time)
{
    if (isinf(k0->out_tangent) || isinf(k1->in_tangent)) return k0->value;
    const float dx = k1->time - k0->time;
    const float v0 = k0->value, v1 = k1->value;
    float s = 0.f, m0 = 0.f, m1 = 0.f;
    if (dx > 0.f) {
        s = clampf((time - k0->time) / dx, 0.f, 1.f);
        m0 = k0->out_tangent * dx;
        m1 = k1->in_tangent * dx;
    }
    const bool out_flag = (k0->weighted_mode & OSSA__UNITY_WEIGHTED_OUT) != 0;
    const bool in_flag = (k1->weighted_mode & OSSA__UNITY_WEIGHTED_IN) != 0;
    if (!out_flag && !in_flag) {
        const float ha = 2.f * v0 + m0 - 2.f * v1 + m1;
        const float hb = -3.f * v0 - 2.f * m0 + 3.f * v1 - m1;
        return ((ha * s + hb) * s + m0) * s + v0;
    }
    const float w0 = out_flag ? k0->out_weight : 1.f / 3.f;
    const float w1 = in_flag ? k1->in_weight : 1.f / 3.f;
    const float dv = v1 - v0;
    /* When the value control points are the time control points scaled by dv, y = v0 + dv x
     * and x = s: the segment is exactly linear (MRTK's zero-tangent, zero-weight keys). */
    if ((w0 == 0.f || m0 == dv) && (w1 == 0.f || m1 == dv)) return v0 + dv * s;
    const float u = ossa__unity_bezier_solve(s, w0, 1.f - w1);
    const float p1 = v0 + w0 * m0, p2 = v1 - w1 * m1;
    const float iu = 1.f - u;
    return iu * iu * iu * v0 + 3.f * u * iu * iu * p1 + 3.f * u * u * iu * p2 + u * u * u * v1;
}
