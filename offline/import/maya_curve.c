/* Maya animation curve evaluation: tangent construction from key tangent types, Hermite and
 * weighted Bezier spans, pre/post infinities. Double precision throughout, as Maya and
 * Autodesk/animx evaluate curves in double (frame times of long clips need more than 24 bits). */
#include "maya_curve.h"

#include <float.h>
#include <math.h>

/* Neighbours closer than this (input units) make the spline slope vertical (devkit). */
#define SPLINE_MIN_DT 1e-4
/* Keys within this value difference flatten a clamped tangent (devkit). */
#define CLAMPED_TOLERANCE 0.05
/* Relative tolerance under which a Hermite span whose two slopes equal the chord is linear
 * (Autodesk/animx). */
#define PARALLEL_EPSILON 2e-7
/* x of a (near-)vertical non-weighted tangent after normalisation (animx validateTangent). */
#define VERTICAL_X 1e-4

static double chord_slope(const ossa_maya_key *a, const ossa_maya_key *b)
{
    return (b->value - a->value) / (b->time - a->time);
}

/* Spline ("smooth") slope: central difference over both neighbours, or the chord to the only
 * neighbour at the ends. */
static double spline_slope(const ossa_maya_key *prev, const ossa_maya_key *key, const ossa_maya_key *next)
{
    if (prev && next) {
        const double dt = next->time - prev->time;
        const double dv = next->value - prev->value;
        if (dt < SPLINE_MIN_DT) return dv == 0.0 ? 0.0 : copysign(OSSA__MAYA_MAX_TAN, dv);
        return dv / dt;
    }
    if (next) return chord_slope(key, next);
    if (prev) return chord_slope(prev, key);
    return 0.0;
}

/* Clamped: flat when a neighbour's value is within CLAMPED_TOLERANCE, else spline. */
static double clamped_slope(const ossa_maya_key *prev, const ossa_maya_key *key, const ossa_maya_key *next)
{
    if (prev && fabs(prev->value - key->value) <= CLAMPED_TOLERANCE) return 0.0;
    if (next && fabs(next->value - key->value) <= CLAMPED_TOLERANCE) return 0.0;
    return spline_slope(prev, key, next);
}

/* Auto family: flat at the ends and at extrema (chords of opposite sign or zero); otherwise a
 * target slope clamped into [0, 3 * smaller chord] so no span overshoots (Fritsch-Carlson
 * bound). auto/plateau target the central difference; automix blends the two chords by the
 * key's position f between its neighbours, autoease by the eased g(f). */
static double auto_slope(ossa_maya_tangent_type type, const ossa_maya_key *prev, const ossa_maya_key *key,
                         const ossa_maya_key *next)
{
    if (!prev || !next) return 0.0;
    const double d0 = chord_slope(prev, key), d1 = chord_slope(key, next);
    if (d0 == 0.0 || d1 == 0.0 || (d0 > 0.0) != (d1 > 0.0) || isnan(d0) || isnan(d1)) return 0.0;
    const double f = (key->time - prev->time) / (next->time - prev->time);
    double s;
    if (type == OSSA_MAYA_TANGENT_AUTOMIX) {
        s = (1.0 - f) * d0 + f * d1;
    } else if (type == OSSA_MAYA_TANGENT_AUTOEASE) {
        const double c = -0.5, h = f - 0.5;
        const double g = 0.5 + h * (1.0 - c + 4.0 * c * h * h);
        s = (1.0 - g) * d0 + g * d1;
    } else {
        s = (next->value - prev->value) / (next->time - prev->time);
    }
    const double limit = 3.0 * (fabs(d0) < fabs(d1) ? fabs(d0) : fabs(d1));
    const double mag = fabs(s) < limit ? fabs(s) : limit;
    return d0 > 0.0 ? mag : -mag;
}

static bool is_step(ossa_maya_tangent_type t) { return t == OSSA_MAYA_TANGENT_STEP || t == OSSA_MAYA_TANGENT_STEPNEXT; }

/* One side's tangent vector before post-processing. `len` is the time distance to the
 * neighbour on that side (the other neighbour at the ends, 1 for a lone key). */
static void side_vector(const ossa_maya_curve *c, size_t i, bool in, double *x, double *y)
{
    const ossa_maya_key *key = &c->keys[i];
    const ossa_maya_key *prev = i > 0 ? &c->keys[i - 1] : NULL;
    const ossa_maya_key *next = i + 1 < c->key_count ? &c->keys[i + 1] : NULL;
    const ossa_maya_tangent_type type = in ? key->in_type : key->out_type;
    const ossa_maya_key *near = in ? prev : next, *far = in ? next : prev;
    const double len = near ? fabs(key->time - near->time) : far ? fabs(key->time - far->time) : 1.0;
    double slope = 0.0;
    switch (type) {
    case OSSA_MAYA_TANGENT_FIXED: {
        const double a = in ? key->in_angle : key->out_angle, w = in ? key->in_weight : key->out_weight;
        *x = 3.0 * w * cos(a);
        *y = 3.0 * w * sin(a);
        return;
    }
    case OSSA_MAYA_TANGENT_LINEAR:
        if (!near) {
            *x = 1.0;
            *y = 0.0;
        } else {
            *x = len;
            *y = in ? key->value - prev->value : next->value - key->value;
        }
        return;
    case OSSA_MAYA_TANGENT_STEP:
    case OSSA_MAYA_TANGENT_STEPNEXT:
        /* Only the span type matters; (0, 0) reads as flat in a Hermite slope. */
        *x = 0.0;
        *y = 0.0;
        return;
    case OSSA_MAYA_TANGENT_FLAT:
        slope = 0.0;
        break;
    case OSSA_MAYA_TANGENT_CLAMPED:
        slope = clamped_slope(prev, key, next);
        break;
    case OSSA_MAYA_TANGENT_PLATEAU:
    case OSSA_MAYA_TANGENT_AUTO:
    case OSSA_MAYA_TANGENT_AUTOEASE:
    case OSSA_MAYA_TANGENT_AUTOMIX:
        slope = auto_slope(type, prev, key, next);
        break;
    case OSSA_MAYA_TANGENT_SPLINE:
    case OSSA_MAYA_TANGENT_SLOW:
    case OSSA_MAYA_TANGENT_FAST:
    default:
        slope = spline_slope(prev, key, next);
        break;
    }
    *x = len;
    *y = slope * len;
}

/* Maya keeps tangents pointing forward in time; non-weighted ones are unit vectors whose
 * vertical limit is the slope OSSA__MAYA_MAX_TAN. */
static void post_process(bool weighted, double *x, double *y)
{
    if (weighted) {
        if (*x < 0.0) *x = 0.0;
        return;
    }
    const double len = hypot(*x, *y);
    if (len > 0.0 && isfinite(len)) {
        *x /= len;
        *y /= len;
    }
    if (*x < 0.0) *x = 0.0;
    if (fabs(*y) > *x * OSSA__MAYA_MAX_TAN) { /* steeper than Maya represents */
        *x = VERTICAL_X;
        *y = copysign(VERTICAL_X * OSSA__MAYA_MAX_TAN, *y);
    }
}

ossa_result ossa_maya_curve_prepare(ossa_maya_curve *c)
{
    if (!c || (c->key_count && !c->keys)) return OSSA_ERROR_NULL_ARGUMENT;
    if ((unsigned)c->pre_infinity > OSSA_MAYA_INFINITY_OSCILLATE ||
        (unsigned)c->post_infinity > OSSA_MAYA_INFINITY_OSCILLATE || !isfinite(c->frame_rate) || c->frame_rate < 0.0)
        return OSSA_ERROR_INVALID_ARGUMENT;
    for (size_t i = 0; i < c->key_count; ++i) {
        const ossa_maya_key *k = &c->keys[i];
        if ((unsigned)k->in_type > OSSA_MAYA_TANGENT_FAST || (unsigned)k->out_type > OSSA_MAYA_TANGENT_FAST)
            return OSSA_ERROR_INVALID_ARGUMENT;
        if (!isfinite(k->time) || !isfinite(k->value) || !isfinite(k->in_angle) || !isfinite(k->in_weight) ||
            !isfinite(k->out_angle) || !isfinite(k->out_weight))
            return OSSA_ERROR_INVALID_KEY;
        if (i > 0 && !(k->time > c->keys[i - 1].time)) return OSSA_ERROR_INVALID_KEY;
    }
    for (size_t i = 0; i < c->key_count; ++i) {
        ossa_maya_key *k = &c->keys[i];
        double x, y;
        side_vector(c, i, true, &x, &y);
        if (!is_step(k->in_type)) post_process(c->weighted, &x, &y);
        k->in_x = x;
        k->in_y = y;
        side_vector(c, i, false, &x, &y);
        if (!is_step(k->out_type)) post_process(c->weighted, &x, &y);
        k->out_x = x;
        k->out_y = y;
    }
    return OSSA_OK;
}

static double vector_slope(double x, double y)
{
    if (x > 0.0) return y / x;
    if (y == 0.0) return 0.0;
    return copysign(OSSA__MAYA_MAX_TAN, y);
}

/* Non-weighted span: cubic Hermite on the two slopes (animx interpolators.h hermite). */
static double hermite(const ossa_maya_key *a, const ossa_maya_key *b, double t)
{
    const double dx = b->time - a->time, dy = b->value - a->value;
    const double m1 = a->out_x != 0.0 ? a->out_y / a->out_x : 0.0;
    const double m2 = b->in_x != 0.0 ? b->in_y / b->in_x : 0.0;
    const double s = dy / dx, tau = t - a->time;
    if (fabs(m1 - s) <= PARALLEL_EPSILON * fabs(s) && fabs(m2 - s) <= PARALLEL_EPSILON * fabs(s))
        return a->value + tau * s;
    const double c3 = (dx * (m1 + m2) - 2.0 * dy) / (dx * dx * dx);
    const double c2 = (3.0 * dy - dx * (2.0 * m1 + m2)) / (dx * dx);
    return ((c3 * tau + c2) * tau + m1) * tau + a->value;
}

/* X(s) of a Bezier with x control values 0, p, q, 1 in power basis, and its derivative. */
static double bezier_x(double p, double q, double s, double *ds)
{
    const double c1 = 3.0 * p, c2 = 3.0 * q - 6.0 * p, c3 = 1.0 + 3.0 * p - 3.0 * q;
    *ds = (3.0 * c3 * s + 2.0 * c2) * s + c1;
    return ((c3 * s + c2) * s + c1) * s;
}

/* The s in [0, 1] with X(s) = u for a non-decreasing X: Newton steps kept inside a
 * shrinking bracket, bisection when a step leaves it. At most 100 iterations. */
static double bezier_solve(double p, double q, double u)
{
    double lo = 0.0, hi = 1.0, s = u;
    for (int it = 0; it < 100; ++it) {
        double d;
        const double f = bezier_x(p, q, s, &d) - u;
        if (f == 0.0) break;
        if (f < 0.0)
            lo = s;
        else
            hi = s;
        double next = d > 0.0 ? s - f / d : 0.5 * (lo + hi);
        if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
        if (next == s || hi - lo <= 4.0 * DBL_EPSILON) {
            s = next;
            break;
        }
        s = next;
    }
    return s;
}

/* Weighted span: 2-D cubic Bezier (animx Tbezier.h). The normalised x arms alpha (from the
 * start) and beta (from the end) are clamped to >= 0 and, when the x polynomial would not be
 * monotonic (alpha + beta > 1 outside the ellipse a^2 + b^2 + ab - 2(a + b) + 1 <= 0), scaled
 * together onto the ellipse; the y arms scale with them. */
static double bezier(const ossa_maya_key *a, const ossa_maya_key *b, double t)
{
    const double dx = b->time - a->time;
    double alpha = a->out_x / 3.0 / dx, beta = b->in_x / 3.0 / dx;
    double ya = a->out_y / 3.0, yb = b->in_y / 3.0;
    if (!(alpha > 0.0)) {
        alpha = 0.0;
        ya = 0.0;
    }
    if (!(beta > 0.0)) {
        beta = 0.0;
        yb = 0.0;
    }
    if (alpha + beta > 1.0) {
        const double sq = alpha * alpha + beta * beta + alpha * beta;
        if (sq - 2.0 * (alpha + beta) + 1.0 > 0.0) {
            const double k = (alpha + beta + sqrt(alpha * beta)) / sq;
            alpha *= k;
            beta *= k;
            ya *= k;
            yb *= k;
        }
    }
    const double u = (t - a->time) / dx;
    const double s = (alpha == 1.0 / 3.0 && beta == 1.0 / 3.0) ? u : bezier_solve(alpha, 1.0 - beta, u);
    const double r = 1.0 - s;
    const double y1 = a->value + ya, y2 = b->value - yb;
    return r * r * r * a->value + 3.0 * s * r * r * y1 + 3.0 * s * s * r * y2 + s * s * s * b->value;
}

/* Index of the last key at or before `t` (t within the key range). */
static size_t find_key(const ossa_maya_curve *c, double t)
{
    size_t lo = 0, hi = c->key_count;
    while (hi - lo > 1) {
        const size_t mid = lo + (hi - lo) / 2;
        if (c->keys[mid].time <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static double evaluate_inside(const ossa_maya_curve *c, double t)
{
    const size_t k = find_key(c, t);
    const ossa_maya_key *a = &c->keys[k];
    if (t == a->time || k + 1 >= c->key_count) return a->value;
    const ossa_maya_key *b = &c->keys[k + 1];
    if (a->out_type == OSSA_MAYA_TANGENT_STEP) return a->value;
    if (a->out_type == OSSA_MAYA_TANGENT_STEPNEXT) return b->value;
    if (a->out_type == OSSA_MAYA_TANGENT_LINEAR && b->in_type == OSSA_MAYA_TANGENT_LINEAR)
        return a->value + (t - a->time) / (b->time - a->time) * (b->value - a->value);
    return c->weighted ? bezier(a, b, t) : hermite(a, b, t);
}

/* Maps a cycled time back onto Maya's tick grid and into the key range. */
static double quantise(const ossa_maya_curve *c, double t)
{
    const double first = c->keys[0].time, last = c->keys[c->key_count - 1].time;
    if (c->frame_rate > 0.0) {
        const double ticks = floor(t / c->frame_rate * OSSA__MAYA_TICKS_PER_SECOND + 0.5);
        t = ticks / OSSA__MAYA_TICKS_PER_SECOND * c->frame_rate;
    }
    return t < first ? first : (t > last ? last : t);
}

/* Cycle, cycle relative and oscillate outside the keys (animx evaluateInfinity). `d` is the
 * signed distance past the last key (post) or before the first (pre, negative). */
static double evaluate_cycled(const ossa_maya_curve *c, ossa_maya_infinity mode, bool post, double d)
{
    const ossa_maya_key *first = &c->keys[0], *last = &c->keys[c->key_count - 1];
    const double range = last->time - first->time;
    if (!(range > 0.0)) return post ? last->value : first->value;
    const double ratio = d / range;
    const double whole = trunc(ratio);
    const double rem = fabs(ratio - whole), n = fabs(whole) + 1.0, ft = range * rem;
    const bool odd = fmod(n, 2.0) == 1.0;
    double t;
    if (mode == OSSA_MAYA_INFINITY_OSCILLATE)
        t = (odd == post) ? last->time - ft : first->time + ft;
    else
        t = post ? first->time + ft : last->time - ft;
    double v = evaluate_inside(c, quantise(c, t));
    if (mode == OSSA_MAYA_INFINITY_CYCLE_RELATIVE) {
        const double offset = n * (last->value - first->value);
        v = post ? v + offset : v - offset;
    }
    return v;
}

double ossa_maya_curve_evaluate(const ossa_maya_curve *c, double t)
{
    if (!c || c->key_count == 0 || !c->keys) return 0.0;
    if (isnan(t)) return t;
    const ossa_maya_key *first = &c->keys[0], *last = &c->keys[c->key_count - 1];
    if (t < first->time) {
        switch (c->pre_infinity) {
        case OSSA_MAYA_INFINITY_LINEAR:
            return first->value - (first->time - t) * vector_slope(first->in_x, first->in_y);
        case OSSA_MAYA_INFINITY_CYCLE:
        case OSSA_MAYA_INFINITY_CYCLE_RELATIVE:
        case OSSA_MAYA_INFINITY_OSCILLATE:
            return evaluate_cycled(c, c->pre_infinity, false, t - first->time);
        case OSSA_MAYA_INFINITY_CONSTANT:
        default:
            return first->value;
        }
    }
    if (t > last->time) {
        switch (c->post_infinity) {
        case OSSA_MAYA_INFINITY_LINEAR:
            return last->value + (t - last->time) * vector_slope(last->out_x, last->out_y);
        case OSSA_MAYA_INFINITY_CYCLE:
        case OSSA_MAYA_INFINITY_CYCLE_RELATIVE:
        case OSSA_MAYA_INFINITY_OSCILLATE:
            return evaluate_cycled(c, c->post_infinity, true, t - last->time);
        case OSSA_MAYA_INFINITY_CONSTANT:
        default:
            return last->value;
        }
    }
    return evaluate_inside(c, t);
}

bool ossa__maya_curve_in_step_span(const ossa_maya_curve *c, double t)
{
    if (!c || c->key_count < 2 || !(t >= c->keys[0].time) || !(t < c->keys[c->key_count - 1].time)) return false;
    return c->keys[find_key(c, t)].out_type == OSSA_MAYA_TANGENT_STEP;
}
