/* Animation builder: one sub-track's encoding at a local tolerance, and its values as the
 * runtime decodes them. */
#include "animation_codec.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation_format.h"
#include "internal.h"
#include "simd.h"
#include "ossa/animation.h"

/* fmaxf and fminf are library calls at -O2; no NaN reaches these. */
static inline float max_f(float a, float b) { return a > b ? a : b; }
static inline float min_f(float a, float b) { return a < b ? a : b; }

/* Share of a sub-track's tolerance that key removal may use; quantisation takes the rest. */
#define KEY_SHARE .5f
/* A rotation component is rebuilt (not stored) only if it never comes closer to zero. */
#define REBUILD_MIN .1f

/* ---- values as the runtime decodes them ---- */

/* The constant value as stored and decoded. */
static void decoded_constant(int channel, const float *v, float out[4])
{
    if (channel != OSSA__CH_ROTATION) {
        memcpy(out, v, 3 * sizeof(float));
        out[3] = 0.f;
        return;
    }
    uint32_t w[2];
    ossa__pack_constant_quat(v, w);
    const ossa_quat q = ossa__unpack_constant_quat(w[0], w[1]);
    out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
}

/* A key's value (4 floats), as the runtime decodes it. Stored as one vector: its readers load
 * it whole, which four separate stores would make wait on store forwarding. */
OSSA__INLINE void key_value(int channel, const ossa__subtrack *st, const uint32_t *q, float out[4])
{
    float v[4] = {0.f, 0.f, 0.f, 0.f};
    for (int c = 0; c < st->n; ++c) v[c] = st->min[c] + (float)q[c] * st->step[c];
    if (channel == OSSA__CH_ROTATION) {
        const ossa_quat r = ossa__rotation_from(v, st->format);
        v4f_storeu(out, v4f_set(r.x, r.y, r.z, r.w));
    } else {
        v4f_storeu(out, v4f_set(v[0], v[1], v[2], 0.f));
    }
}

/* The runtime's interpolation between keys a (value va) and b (value vb) at `ratio`. */
OSSA__INLINE void interpolate_at(const ossa__clip *clip, int channel, size_t a, size_t b, const float *va,
                                 const float *vb, float ratio, float out[4])
{
    const float r0 = clip->ratios[a];
    const float span = clip->ratios[b] - r0;
    const float alpha = (ratio - r0) / (span > FLT_MIN ? span : FLT_MIN);
    /* On copies: out may alias neither, and the four lanes become one vector operation. */
    float x[4], y[4], o[4];
    memcpy(x, va, sizeof x), memcpy(y, vb, sizeof y);
    for (int c = 0; c < 4; ++c) o[c] = (y[c] - x[c]) * alpha + x[c];
    if (channel == OSSA__CH_ROTATION) {
        const float inv = 1.f / sqrtf(o[0] * o[0] + (o[1] * o[1] + (o[2] * o[2] + o[3] * o[3])));
        for (int c = 0; c < 4; ++c) o[c] *= inv;
    }
    memcpy(out, o, sizeof o);
}

/* The same at time point f. */
OSSA__INLINE void interpolate(const ossa__clip *clip, int channel, size_t a, size_t b, const float *va, const float *vb,
                              size_t f, float out[4])
{
    interpolate_at(clip, channel, a, b, va, vb, clip->ratios[f], out);
}

/* The two products of rotation_s2: d^2 and |ref|^2 |value|^2, d their dot product, in double. */
OSSA__INLINE void rotation_terms(const float *ref, const float *value, double *p, double *q)
{
    double d = 0.0, n = 0.0, m = 0.0;
    for (int c = 0; c < 4; ++c) {
        const double r = (double)ref[c], v = (double)value[c];
        d += r * v;
        n += v * v;
        m += r * r;
    }
    *p = d * d, *q = n * m;
}

/* A rotation's squared half-chord against the sample `ref`: sin^2(theta / 2) = 1 - p / q
 * (rotation_terms), in double, since it cancels for small angles (rotation_error takes it to
 * the local error). */
OSSA__INLINE double rotation_s2(const float *ref, const float *value)
{
    double p, q;
    rotation_terms(ref, value, &p, &q);
    return 1.0 - p / q;
}

/* 2 sin(theta / 2) = the chord a point at distance 1 moves by, times `radius`. It never falls
 * as s2 grows (sqrt and every rounding keep the order), which rotation_limit relies on. */
OSSA__INLINE float rotation_error(double s2, float radius) { return (float)(2.0 * sqrt(s2 > 0.0 ? s2 : 0.0)) * radius; }

/* Local error of `value` against the sample `ref` (see ossa__subtrack_encode). */
OSSA__INLINE float local_error(int channel, const float *ref, const float *value, float radius)
{
    if (channel == OSSA__CH_TRANSLATION) {
        const float dx = ref[0] - value[0], dy = ref[1] - value[1], dz = ref[2] - value[2];
        return sqrtf(dx * dx + dy * dy + dz * dz);
    }
    if (channel == OSSA__CH_SCALE) {
        float m = 0.f;
        for (int c = 0; c < 3; ++c) m = max_f(m, fabsf(ref[c] - value[c]));
        return m * radius;
    }
    return rotation_error(rotation_s2(ref, value), radius);
}

/* A rotation's local tolerance as tests on rotation_s2 and its terms (rotation_bound_of). */
typedef struct rotation_bound {
    double s2;    /* the largest s2 whose rotation_error is within the tolerance */
    double ratio; /* the least p / q whose s2 (1 - p / q, rounded) is at most s2, if at least
                     1/2; else 0 (not used) */
} rotation_bound;

/* The largest s2 whose rotation_error at `radius` is at most `tolerance` (> 0): since that error
 * never falls as s2 grows, rotation_error(s2, radius) <= tolerance exactly when !(s2 > limit)
 * (a NaN s2 is an error of 0 there, and passes here), with no square root. A bisection over
 * the doubles from 0 up (their bits ascend with them). */
static double rotation_limit(float tolerance, float radius)
{
    uint64_t lo = 0, hi = 0x7ff0000000000000u; /* +0 passes; +infinity does not (radius > 0) */
    while (hi - lo > 1) {
        const uint64_t mid = lo + (hi - lo) / 2;
        double x;
        memcpy(&x, &mid, sizeof x);
        if (rotation_error(x, radius) <= tolerance)
            lo = mid;
        else
            hi = mid;
    }
    double limit;
    memcpy(&limit, &lo, sizeof limit);
    return limit;
}

/* The bound of `tolerance` (> 0) at `radius`: its rotation_limit, and since 1 - x, rounded,
 * never grows with x, s2 <= that limit exactly when the rounded p / q is at least the ratio
 * found here (a bisection over [1/2, 1]). */
static rotation_bound rotation_bound_of(float tolerance, float radius)
{
    rotation_bound b = {rotation_limit(tolerance, radius), 0.0};
    /* The least x in [1/2, 1] with 1 - x <= s2 (1 passes: 1 - 1 = 0 <= s2). */
    uint64_t pass = 0x3ff0000000000000u, fail = 0x3fe0000000000000u;
    if (.5 <= b.s2) return b; /* 1 - 1/2 passes already: the terms do not decide */
    while (pass - fail > 1) {
        const uint64_t mid = fail + (pass - fail) / 2;
        double x;
        memcpy(&x, &mid, sizeof x);
        if (1.0 - x <= b.s2)
            pass = mid;
        else
            fail = mid;
    }
    memcpy(&b.ratio, &pass, sizeof b.ratio);
    return b;
}

/* Whether a rotation's s2 against `ref` is within `bound`, as !(rotation_s2 > bound->s2)
 * answers, mostly without its division: with t = ratio q, p >= t (1 + 4 eps) puts the exact
 * p / q above the ratio, so its rounding is at least the ratio (a double), and p <= t (1 - 4
 * eps) below ratio (1 - eps), which rounds below it (ratio >= 1/2: one ulp is 2 eps ratio at
 * most), each product rounded by eps at most. Between, and for a NaN or an infinity, the
 * division decides. */
OSSA__INLINE bool rotation_within(const float *ref, const float *value, const rotation_bound *bound)
{
    double p, q;
    rotation_terms(ref, value, &p, &q);
    if (bound->ratio > 0.0) {
        const double t = bound->ratio * q;
        if (p >= t * (1.0 + 4.0 * DBL_EPSILON) && t < (double)INFINITY) return true;
        if (p <= t * (1.0 - 4.0 * DBL_EPSILON) && p == p && t > 0.0 && t < (double)INFINITY) return false;
    }
    return !(1.0 - p / q > bound->s2);
}

bool ossa__rotation_within_tolerance(const float ref[4], const float value[4], float tolerance, float radius)
{
    const rotation_bound bound = rotation_bound_of(tolerance, radius);
    return rotation_within(ref, value, &bound);
}

/* Whether the local error of `value` against `ref` is at most `tolerance`, for a rotation with
 * its bound: the same answer as local_error, without its square root. */
OSSA__INLINE bool local_within(int channel, const float *ref, const float *value, float radius, float tolerance,
                               const rotation_bound *bound)
{
    if (channel == OSSA__CH_ROTATION) return rotation_within(ref, value, bound);
    return !(local_error(channel, ref, value, radius) > tolerance);
}

/* Rotations: the local error half-way between time points f and f + 1 of interpolating va
 * (key a) to vb (key b), against the nlerp of the samples there; 0 for other channels. Two
 * nlerps over different spans agree at the time points yet part between them, so a key on
 * the chord of its neighbours can still bend the curve when removed. */
OSSA__INLINE float mid_error(const ossa__clip *clip, size_t s, size_t a, size_t b, const float *va, const float *vb,
                             size_t f, float radius)
{
    if (!clip->midpoints || s % 3 != OSSA__CH_ROTATION || f + 1 >= clip->frames) return 0.f;
    const float *ref = ossa__clip_samples(clip, s);
    const float mid = .5f * (clip->ratios[f] + clip->ratios[f + 1]);
    float want[4], got[4];
    interpolate_at(clip, OSSA__CH_ROTATION, f, f + 1, ref + 4 * f, ref + 4 * (f + 1), mid, want);
    interpolate_at(clip, OSSA__CH_ROTATION, a, b, va, vb, mid, got);
    return local_error(OSSA__CH_ROTATION, want, got, radius);
}

/* Largest local error of holding `value` over the clip. */
static float hold_error(const ossa__clip *clip, size_t s, const float *value, float radius, float stop)
{
    const float *ref = ossa__clip_samples(clip, s);
    float e = 0.f;
    for (size_t f = 0, rows = ossa__clip_rows(clip, s); f < rows && e <= stop; ++f)
        e = max_f(e, local_error((int)(s % 3), ref + 4 * f, value, radius));
    return e;
}

/* Whether every local error of the encoded keys over the clip is at most `tolerance` (limit:
 * its rotation_bound_of, for a rotation); when one is not, its time point into *over. */
static bool encoded_passes(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float radius, float tolerance,
                           const rotation_bound *limit, size_t *over)
{
    const int channel = (int)(s % 3);
    const float *ref = ossa__clip_samples(clip, s);
    float va[4], vb[4], v[4];
    size_t a = 0;
    key_value(channel, st, st->q, va);
    for (size_t b = 1; b < clip->frames; ++b) {
        if (!st->keys[b]) continue;
        key_value(channel, st, st->q + 4 * b, vb);
        if (!local_within(channel, ref + 4 * a, va, radius, tolerance, limit)) {
            *over = a;
            return false;
        }
        for (size_t f = a + 1; f < b; ++f) {
            interpolate(clip, channel, a, b, va, vb, f, v);
            if (!local_within(channel, ref + 4 * f, v, radius, tolerance, limit)) {
                *over = f;
                return false;
            }
        }
        memcpy(va, vb, sizeof va);
        a = b;
    }
    if (local_within(channel, ref + 4 * a, va, radius, tolerance, limit)) return true;
    *over = a;
    return false;
}

/* Whether the local error encoded_passes checks at time point f (< clip->frames) is within. */
static bool encoded_passes_at(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float radius, float tolerance,
                              const rotation_bound *limit, size_t f)
{
    const int channel = (int)(s % 3);
    const float *ref = ossa__clip_samples(clip, s) + 4 * f;
    float va[4], vb[4], v[4];
    size_t a = f, b = f + 1;
    while (!st->keys[a]) --a;
    key_value(channel, st, st->q + 4 * a, va);
    if (a == f) return local_within(channel, ref, va, radius, tolerance, limit);
    while (!st->keys[b]) ++b;
    key_value(channel, st, st->q + 4 * b, vb);
    interpolate(clip, channel, a, b, va, vb, f, v);
    return local_within(channel, ref, v, radius, tolerance, limit);
}

/* encoded_passes, the time point *over (where the last check that failed did; SIZE_MAX for
 * none) first, since most failing checks fail there again. */
static bool encoded_within(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float radius, float tolerance,
                           const rotation_bound *limit, size_t *over)
{
    if (*over < clip->frames && !encoded_passes_at(clip, s, st, radius, tolerance, limit, *over)) return false;
    return encoded_passes(clip, s, st, radius, tolerance, limit, over);
}

/* Translations and scales: component c of the sample minus the value encoded_passes decodes,
 * at every time point up to the last key, into d[4 f + c] (the same floats it computes). */
static void component_diffs(const ossa__clip *clip, size_t s, const ossa__subtrack *st, int c, float *d)
{
    const float *ref = ossa__clip_samples(clip, s) + c;
    const size_t F = clip->frames, k = (size_t)c;
    float va = st->min[c] + (float)st->q[k] * st->step[c];
    d[k] = ref[0] - va;
    for (size_t a = 0, b = 1; b < F; ++b) {
        if (!st->keys[b]) continue;
        const float vb = st->min[c] + (float)st->q[4 * b + k] * st->step[c];
        const float r0 = clip->ratios[a], span = clip->ratios[b] - r0;
        for (size_t f = a + 1; f < b; ++f) {
            const float alpha = (clip->ratios[f] - r0) / (span > FLT_MIN ? span : FLT_MIN);
            d[4 * f + k] = ref[4 * f] - ((vb - va) * alpha + va);
        }
        d[4 * b + k] = ref[4 * b] - vb;
        va = vb, a = b;
    }
}

/* The largest local error of a translation or scale from its differences (component_diffs),
 * component c taken from `column` instead: local_error's arithmetic, stopping above `stop`. */
static float diffs_error(int channel, const float *d, const float *column, int c, size_t last, float radius, float stop)
{
    float e = 0.f;
    const size_t k = (size_t)c;
    for (size_t f = 0; f <= last && e <= stop; ++f) {
        float v[3] = {d[4 * f], d[4 * f + 1], d[4 * f + 2]};
        v[k] = column[4 * f + k];
        if (channel == OSSA__CH_TRANSLATION) {
            e = max_f(e, sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]));
        } else {
            float m = 0.f;
            for (int i = 0; i < 3; ++i) m = max_f(m, fabsf(v[i]));
            e = max_f(e, m * radius);
        }
    }
    return e;
}

/* Each channel's default value: translation 0, identity rotation, unit scale. */
static const float defaults[3][4] = {{0.f, 0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f, 0.f}};

/* The value of a default, constant or rest-pose sub-track (4 floats). */
static void fixed_value(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float out[4])
{
    const int channel = (int)(s % 3);
    if (st->kind == OSSA__KIND_DEFAULT)
        memcpy(out, defaults[channel], 4 * sizeof(float));
    else if (st->kind == OSSA__KIND_CONSTANT)
        decoded_constant(channel, st->constant, out);
    else
        memcpy(out, clip->rest + 4 * s, 4 * sizeof(float));
}

void ossa__subtrack_decode_ratio(const ossa__clip *clip, size_t s, const ossa__subtrack *st, float ratio, float out[4],
                                 ossa__decode_cursor *cursor)
{
    if (st->kind != OSSA__KIND_ANIMATED) {
        fixed_value(clip, s, st, out);
        return;
    }
    /* The time point the sampling job interpolates from. */
    const size_t f = ossa__frame_at(clip->uniform ? NULL : clip->ratios, clip->frames, ratio);
    const int channel = (int)(s % 3);
    ossa__decode_cursor local = {0}, *c = cursor ? cursor : &local;
    /* Keys a < b with none between: f in [a, b) has them as its keys. */
    if (!(c->b > 0 && c->a <= f && f < c->b)) {
        size_t a = f, b = f + 1;
        while (!st->keys[a]) --a;
        while (!st->keys[b]) ++b;
        c->a = a, c->b = b;
        key_value(channel, st, st->q + 4 * a, c->va);
        key_value(channel, st, st->q + 4 * b, c->vb);
    }
    interpolate_at(clip, channel, c->a, c->b, c->va, c->vb, ratio, out);
}

/* ---- encoding ---- */

static bool forced_key(const ossa__clip *clip, size_t f)
{
    return f % OSSA__SEGMENT_FRAMES == 0 || f + 1 == clip->frames;
}

/* Greedy key selection on the exact samples: from each key, the farthest time point (not past
 * the next forced key) whose interpolation keeps every sample between within `budget`.
 * Returns the largest local error of the time points between keys with the samples as the
 * keys' values, which the last check that extended each span computed (the same floats
 * values_error computes for them). */
static float select_keys(const ossa__clip *clip, size_t s, float budget, float radius, uint8_t *keys)
{
    const int channel = (int)(s % 3);
    const float *ref = ossa__clip_samples(clip, s);
    const size_t F = clip->frames;
    const bool mids = clip->midpoints && channel == OSSA__CH_ROTATION; /* else mid_error is 0 */
    /* Rotations are checked on their s2 (rotation_limit) and take the error of the largest
     * s2 only for the span kept: the largest of the errors, as the error never falls as s2
     * grows. */
    const bool rotation = channel == OSSA__CH_ROTATION;
    const double limit = rotation ? rotation_limit(budget, radius) : 0.0;
    memset(keys, 0, F);
    keys[0] = 1;
    size_t a = 0;
    float e = 0.f;
    while (a + 1 < F) {
        size_t b = a + 1;
        float span = 0.f;     /* the largest error between a and b */
        double span_s2 = 0.0; /* a rotation's: its largest s2 */
        while (!forced_key(clip, b)) {
            const size_t c = b + 1;
            bool ok = true;
            float v[4], largest = 0.f;
            double largest_s2 = 0.0;
            for (size_t f = a + 1; f < c && ok; ++f) {
                interpolate(clip, channel, a, c, ref + 4 * a, ref + 4 * c, f, v);
                if (rotation) {
                    const double s2 = rotation_s2(ref + 4 * f, v);
                    if (s2 > largest_s2) largest_s2 = s2;
                    ok = !(s2 > limit);
                } else {
                    const float ef = local_error(channel, ref + 4 * f, v, radius);
                    largest = max_f(largest, ef);
                    ok = ef <= budget;
                }
            }
            for (size_t f = a; mids && f < c && ok; ++f)
                ok = mid_error(clip, s, a, c, ref + 4 * a, ref + 4 * c, f, radius) <= budget;
            if (!ok) break;
            b = c, span = largest, span_s2 = largest_s2;
        }
        keys[b] = 1;
        e = max_f(e, rotation ? rotation_error(span_s2, radius) : span);
        a = b;
    }
    return e;
}

/* Largest local error over the clip of interpolating `values` (4 per time point, read at the
 * keys) between the keys; with `errors`, each time point's error too. Without, it may stop at
 * an error at or above `stop`, and returns one such. */
static float values_error(const ossa__clip *clip, size_t s, const uint8_t *keys, const float *values, float radius,
                          float *errors, float stop)
{
    const int channel = (int)(s % 3);
    const float *ref = ossa__clip_samples(clip, s);
    float e = 0.f, v[4];
    size_t a = 0;
    for (size_t b = 1; b < clip->frames; ++b) {
        if (!keys[b]) continue;
        for (size_t f = a; f < b; ++f) {
            if (f == a)
                memcpy(v, values + 4 * a, sizeof v);
            else
                interpolate(clip, channel, a, b, values + 4 * a, values + 4 * b, f, v);
            const float ef = local_error(channel, ref + 4 * f, v, radius);
            if (errors) errors[f] = ef;
            e = max_f(e, ef);
        }
        if (!errors && e >= stop) return e;
        a = b;
    }
    const float last = local_error(channel, ref + 4 * a, values + 4 * a, radius);
    if (errors) errors[a] = last;
    return max_f(e, last);
}

/* Key value refit: the values at the keys that minimise the weighted squared distance of the
 * interpolation to the samples (a tridiagonal system per component, solved by the Thomas
 * algorithm), reweighted twice toward the largest errors; rotations renormalised and kept in
 * one hemisphere. A fit is kept only where it lowers the largest local error, that of the
 * samples as the keys' values at first: `between` (select_keys) at the time points between
 * keys, and the keys' own here. Then keys that the fitted neighbours make
 * redundant (within `budget`) are dropped. Returns that error. */
static float refit(const ossa__clip *clip, size_t s, ossa__subtrack *st, ossa__encode_scratch *sc, float radius,
                   float budget, float between)
{
    const int channel = (int)(s % 3), width = channel == OSSA__CH_ROTATION ? 4 : 3;
    const float *ref = ossa__clip_samples(clip, s);
    const size_t F = clip->frames;
    /* Scratch: weight [F], error [F], fit [4 F] floats, then d [F], u [F], r [4 F] doubles. */
    float *values = sc->values, *weight = sc->refit, *error = sc->refit + F, *fit = sc->refit + 2 * F;
    double *d = (double *)(void *)(sc->refit + 6 * F), *u = d + F, *r = u + F;
    float best = between;
    for (size_t f = 0; f < F; ++f)
        if (st->keys[f]) best = max_f(best, local_error(channel, ref + 4 * f, values + 4 * f, radius));
    for (size_t f = 0; f < F; ++f) weight[f] = 1.f;
    for (int pass = 0; pass < 3 && best > 0.f; ++pass) {
        /* Normal equations per key i: d (diagonal), u (to key i + 1), r (right-hand side),
         * summed in registers for the keys either side of a span (di, ui, ri; dn, rn) and
         * stored at each key, each sum's terms in time order from 0 as before. The time
         * points 0 and F - 1 are keys. The fourth component of a translation or scale is
         * summed too (a 0 sample) and never read. */
        size_t m = 0;
        for (size_t f = 0; f < F; ++f) m += st->keys[f];
        double di = 0.0, ui = 0.0, dn = 0.0, ri[4] = {0.0, 0.0, 0.0, 0.0}, rn[4] = {0.0, 0.0, 0.0, 0.0};
        size_t a = 0, i = 0, b = 0;
        for (size_t f = 0; f < F; ++f) {
            const double w = (double)weight[f];
            const float *x = ref + 4 * f;
            if (st->keys[f]) {
                if (f) {
                    d[i] = di, u[i] = ui;
                    for (int c = 0; c < 4; ++c) r[4 * i + (size_t)c] = ri[c], ri[c] = rn[c], rn[c] = 0.0;
                    ++i, di = dn, ui = 0.0, dn = 0.0;
                }
                a = f;
                for (b = f + 1; b < F && !st->keys[b]; ++b) continue;
                di += w;
                for (int c = 0; c < 4; ++c) ri[c] += w * (double)x[c];
                continue;
            }
            const double alpha = ((double)clip->ratios[f] - (double)clip->ratios[a]) /
                                 ((double)clip->ratios[b] - (double)clip->ratios[a]);
            di += w * (1 - alpha) * (1 - alpha), ui += w * (1 - alpha) * alpha, dn += w * alpha * alpha;
            for (int c = 0; c < 4; ++c) {
                ri[c] += w * (1 - alpha) * (double)x[c];
                rn[c] += w * alpha * (double)x[c];
            }
        }
        d[i] = di, u[i] = ui;
        for (int c = 0; c < 4; ++c) r[4 * i + (size_t)c] = ri[c];
        /* Thomas algorithm (the matrix is symmetric: the lower diagonal is u shifted). */
        for (size_t k = 1; k < m; ++k) {
            const double q = u[k - 1] / d[k - 1];
            d[k] -= q * u[k - 1];
            for (int c = 0; c < width; ++c) r[4 * k + (size_t)c] -= q * r[4 * (k - 1) + (size_t)c];
        }
        memcpy(fit, values, 4 * F * sizeof *fit);
        size_t key = m, next = SIZE_MAX;
        for (size_t f = F; f-- > 0;) {
            if (!st->keys[f]) continue;
            --key;
            for (int c = 0; c < width; ++c) {
                double x = r[4 * key + (size_t)c];
                if (next != SIZE_MAX) x -= u[key] * (double)fit[4 * next + (size_t)c];
                fit[4 * f + (size_t)c] = (float)(x / d[key]);
            }
            next = f;
        }
        if (channel == OSSA__CH_ROTATION) {
            size_t prev = SIZE_MAX;
            for (size_t f = 0; f < F; ++f) {
                if (!st->keys[f]) continue;
                float *q = fit + 4 * f;
                const float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
                for (int c = 0; c < 4; ++c) q[c] /= n;
                if (prev != SIZE_MAX && q[0] * fit[4 * prev] + q[1] * fit[4 * prev + 1] + q[2] * fit[4 * prev + 2] +
                                                q[3] * fit[4 * prev + 3] <
                                            0.f)
                    for (int c = 0; c < 4; ++c) q[c] = -q[c];
                prev = f;
            }
        }
        /* The last pass's errors weigh nothing: it only has to tell whether the fit is better. */
        const bool last = pass == 2;
        const float e = values_error(clip, s, st->keys, fit, radius, last ? NULL : error, best);
        if (e < best) {
            best = e;
            for (size_t f = 0; f < F; ++f)
                if (st->keys[f]) memcpy(values + 4 * f, fit + 4 * f, 4 * sizeof(float));
        }
        /* Toward the minimax: the worst time points weigh more. */
        for (size_t f = 0; f < F && e > 0.f && !last; ++f) weight[f] *= 1.f + 4.f * (error[f] / e) * (error[f] / e);
    }
    /* Keys the fitted neighbours make redundant. */
    for (size_t k = 1, a = 0; k + 1 < F; ++k) {
        if (!st->keys[k]) continue;
        size_t c = k + 1;
        while (!st->keys[c]) ++c;
        bool ok = !forced_key(clip, k);
        float v[4];
        for (size_t f = a + 1; f < c && ok; ++f) {
            interpolate(clip, channel, a, c, values + 4 * a, values + 4 * c, f, v);
            ok = local_error(channel, ref + 4 * f, v, radius) <= budget;
        }
        for (size_t f = a; clip->midpoints && channel == OSSA__CH_ROTATION && f < c && ok; ++f)
            ok = mid_error(clip, s, a, c, values + 4 * a, values + 4 * c, f, radius) <= budget;
        if (ok)
            st->keys[k] = 0;
        else
            a = k;
    }
    return best;
}

/* Stored components of sample `v` for the sub-track's format (sign already applied). */
OSSA__INLINE void stored(int channel, int format, const float *v, float sign, float out[4])
{
    const float x = v[0], y = v[1], z = v[2], w = v[3];
    out[3] = 0.f;
    if (channel != OSSA__CH_ROTATION) {
        out[0] = x, out[1] = y, out[2] = z;
        return;
    }
    if (format == OSSA__ROT_FULL) {
        out[0] = x * sign, out[1] = y * sign, out[2] = z * sign, out[3] = w * sign;
        return;
    }
    /* The components but the dropped one, each to its own place (no store index that moves
     * with the format): out stays in registers. */
    for (int k = 0; k < 3; ++k) out[k] = v[k + (k >= format)] * sign;
}

/* The time points that are keys, ascending, into `list` (room for every time point); returns
 * how many. */
static size_t list_keys(const ossa__subtrack *st, size_t frames, uint32_t *list)
{
    size_t n = 0;
    for (size_t f = 0; f < frames; ++f)
        if (st->keys[f]) list[n++] = (uint32_t)f;
    return n;
}

/* Range and quantised keys (of the stored components in `values`) of component c for its
 * current width; `list` holds the keys' time points (list_keys). */
static void quantise_component(ossa__subtrack *st, const float *values, int c, const float *lo, const float *hi,
                               const uint32_t *list, size_t keys)
{
    const uint32_t top = (uint32_t)((1ull << st->bits[c]) - 1u);
    if (st->bits[c] == 0 || !(hi[c] > lo[c])) {
        st->min[c] = lo[c] + (hi[c] - lo[c]) * .5f;
        st->step[c] = 0.f;
        st->bits[c] = hi[c] > lo[c] ? st->bits[c] : 0;
    } else {
        st->min[c] = lo[c];
        st->step[c] = (hi[c] - lo[c]) / (float)top;
    }
    const float inv = st->step[c] > 0.f ? 1.f / st->step[c] : 0.f, ftop = (float)top, min = st->min[c];
    const float *v = values + c;
    uint32_t *q = st->q + c;
    /* x rounded to the nearest level, clamped to [0, top]: clamping x + 1/2 to [0, ftop]
     * before the truncation gives the same levels (0 for x <= 0, top for x >= ftop, ftop
     * exact) without a branch on where x falls. */
    for (size_t i = 0; i < keys; ++i) {
        const size_t f = list[i];
        const float y = (v[4 * f] - min) * inv + .5f;
        const float clamped = y > ftop ? ftop : y;
        q[4 * f] = (uint32_t)(clamped > 0.f ? clamped : 0.f);
    }
}

/* Ranges and quantised keys of every component. */
static void quantise(ossa__subtrack *st, const float *values, const float *lo, const float *hi, const uint32_t *list,
                     size_t keys)
{
    for (int c = 0; c < st->n; ++c) quantise_component(st, values, c, lo, hi, list, keys);
}

/* Rotation format from each component's least and largest sample: the component farthest
 * from zero over the clip, if it keeps one sign (its sign into *sign). */
static int rotation_format(const float *lo, const float *hi, float *sign)
{
    int best = OSSA__ROT_FULL;
    float best_min = REBUILD_MIN;
    for (int c = 0; c < 4; ++c) {
        const float m = lo[c] > 0.f ? lo[c] : (hi[c] < 0.f ? -hi[c] : 0.f);
        if (m >= best_min) best = c, best_min = m, *sign = lo[c] > 0.f ? 1.f : -1.f;
    }
    return best;
}

/* Sub-track s's facts (ossa__subtrack_facts); without `holds`, its hold errors are INFINITY
 * (a lossless encoding reads none). */
static void subtrack_facts(const ossa__clip *clip, size_t s, bool holds, ossa__subtrack_facts *out)
{
    const int channel = (int)(s % 3), width = channel == OSSA__CH_ROTATION ? 4 : 3;
    const float *ref = ossa__clip_samples(clip, s);
    const size_t F = clip->frames, rows = ossa__clip_rows(clip, s);
    bool exact_default = true, exact_constant = true;
    for (size_t f = 0; f < rows; ++f)
        for (int c = 0; c < width; ++c) {
            exact_default = exact_default && ref[4 * f + (size_t)c] == defaults[channel][c];
            exact_constant = exact_constant && ref[4 * f + (size_t)c] == ref[c];
        }
    out->exact_default = exact_default, out->exact_constant = exact_constant;
    for (int c = 0; c < 4; ++c) out->lo[c] = INFINITY, out->hi[c] = -INFINITY;
    for (size_t f = 0; f < rows; ++f)
        for (int c = 0; c < 4; ++c)
            out->lo[c] = min_f(out->lo[c], ref[4 * f + (size_t)c]),
            out->hi[c] = max_f(out->hi[c], ref[4 * f + (size_t)c]);
    if (exact_constant) {
        memcpy(out->held, ref, sizeof out->held);
    } else if (channel == OSSA__CH_ROTATION) {
        double sum[4] = {0, 0, 0, 0}, n2 = 0;
        for (size_t f = 0; f < F; ++f)
            for (int c = 0; c < 4; ++c) sum[c] += (double)ref[4 * f + (size_t)c];
        for (int c = 0; c < 4; ++c) n2 += sum[c] * sum[c];
        for (int c = 0; c < 4; ++c) out->held[c] = (float)(sum[c] / sqrt(n2));
    } else {
        for (int c = 0; c < 4; ++c) out->held[c] = out->lo[c] + (out->hi[c] - out->lo[c]) * .5f;
    }
    /* A held sub-track (one row) is constant: no format is read for it. */
    out->sign = 1.f;
    out->format = channel != OSSA__CH_ROTATION ? 0
                  : rows == F                  ? rotation_format(out->lo, out->hi, &out->sign)
                                               : OSSA__ROT_FULL;
    out->hold_default = out->hold_rest = out->hold_held = INFINITY;
    if (!holds) return;
    float decoded[4];
    decoded_constant(channel, out->held, decoded);
    out->hold_default = hold_error(clip, s, defaults[channel], 1.f, INFINITY);
    if (clip->rest) out->hold_rest = hold_error(clip, s, clip->rest + 4 * s, 1.f, INFINITY);
    out->hold_held = hold_error(clip, s, decoded, 1.f, INFINITY);
}

bool ossa__clip_facts_init(ossa__clip *clip)
{
    if (clip->facts) return true;
    const size_t count = 3 * clip->joints;
    clip->facts = ossa__calloc(clip->allocator, count ? count : 1, sizeof *clip->facts);
    if (!clip->facts) return false;
    for (size_t s = 0; s < count; ++s) subtrack_facts(clip, s, true, &clip->facts[s]);
    return true;
}

/* A hold error at radius 1 (ossa__subtrack_facts) at `radius`. */
static float at_radius(int channel, float error, float radius)
{
    return channel == OSSA__CH_TRANSLATION ? error : error * radius;
}

static unsigned width_for(float extent, float step)
{
    if (!(extent > 0.f)) return 0;
    if (!(step > 0.f)) return OSSA__MAX_BITS;
    const double levels = (double)(extent / step) + 1.0;
    unsigned w = 0;
    while (w < OSSA__MAX_BITS && (double)(1u << w) < levels) ++w;
    return w;
}

void ossa__subtrack_encode(const ossa__clip *clip, size_t s, float tolerance, float radius, ossa__subtrack *st,
                           ossa__encode_scratch *sc)
{
    float *values = sc->values;
    const int channel = (int)(s % 3);
    const float *ref = ossa__clip_samples(clip, s);
    const size_t F = clip->frames;
    /* The keys' time points while the widths are chosen, after the refit's scratch and the
     * narrowing's differences (8 F floats). */
    uint32_t *key_list = (uint32_t *)(void *)(sc->refit + 8 * F);
    st->kind = OSSA__KIND_ANIMATED;
    st->format = 0;
    st->n = 3;
    st->key_count = 0;
    memset(st->bits, 0, sizeof st->bits);
    /* Default, then constant (exactly, when lossless). A held sub-track (one row of samples)
     * is one of them and returns before its rows would run out. */
    ossa__subtrack_facts found;
    const ossa__subtrack_facts *fa =
        clip->facts ? &clip->facts[s] : (subtrack_facts(clip, s, tolerance > 0.f, &found), &found);
    if (fa->exact_default || (tolerance > 0.f && at_radius(channel, fa->hold_default, radius) <= tolerance)) {
        st->kind = OSSA__KIND_DEFAULT;
        return;
    }
    /* The skeleton's rest pose: free too (the sampling job is given it). */
    if (clip->rest && tolerance > 0.f && at_radius(channel, fa->hold_rest, radius) <= tolerance) {
        st->kind = OSSA__KIND_REST;
        return;
    }
    float decoded[4];
    decoded_constant(channel, fa->held, decoded);
    /* A packed constant rotation keeps about 21 bits a component: an exactly constant rotation
     * takes it only when it decodes exactly (lossless) or within the tolerance; otherwise it
     * becomes an animated sub-track of zero extent, whose range holds the floats exactly. */
    /* An exactly constant translation or scale decodes exactly: constant whatever its
     * radius (ossa__clip_subtracks_alloc gives it no key arrays). */
    bool constant = (fa->exact_constant && channel != OSSA__CH_ROTATION) ||
                    (tolerance > 0.f ? at_radius(channel, fa->hold_held, radius) <= tolerance : fa->exact_constant);
    if (constant && tolerance <= 0.f && channel == OSSA__CH_ROTATION) {
        bool same = true, opposite = true;
        for (int c = 0; c < 4; ++c)
            same = same && decoded[c] == fa->held[c], opposite = opposite && decoded[c] == -fa->held[c];
        constant = same || opposite;
    }
    if (constant) {
        st->kind = OSSA__KIND_CONSTANT;
        memcpy(st->constant, fa->held, sizeof fa->held);
        return;
    }

    float sign = 1.f;
    memcpy(values, ref, F * 4 * sizeof(float));
    if (channel == OSSA__CH_ROTATION && tolerance <= 0.f) {
        /* Lossless: a key the sub-track does not have of its own (a segment's first time
         * point) holds the unnormalised lerp of its own neighbours, so that the normalised
         * lerps on both sides of it trace exactly the source's; all four components stored. */
        const uint8_t *own = clip->own + clip->row[s];
        for (size_t a = 0, b; a + 1 < F; a = b) {
            for (b = a + 1; !own[b]; ++b) continue;
            const float span = clip->ratios[b] - clip->ratios[a];
            for (size_t f = a + 1; f < b; ++f) {
                const float alpha = (clip->ratios[f] - clip->ratios[a]) / span;
                for (int c = 0; c < 4; ++c)
                    values[4 * f + (size_t)c] =
                        (ref[4 * b + (size_t)c] - ref[4 * a + (size_t)c]) * alpha + ref[4 * a + (size_t)c];
            }
        }
        st->format = OSSA__ROT_FULL;
        st->n = 4;
    } else if (channel == OSSA__CH_ROTATION) {
        st->format = fa->format, sign = fa->sign;
        st->n = st->format == OSSA__ROT_FULL ? 4 : 3;
    }
    if (tolerance > 0.f) {
        const float between = select_keys(clip, s, tolerance * KEY_SHARE, radius, st->keys);
        /* With nearly every time point a key, the fit has nothing to move. */
        size_t keys = 0;
        for (size_t f = 0; f < F; ++f) keys += st->keys[f];
        if (20 * keys < 19 * F) refit(clip, s, st, sc, radius, tolerance * KEY_SHARE, between);
    }
    /* values from here on: the stored components (in order, the sign applied), and their
     * ranges (the fourth's read only when there are four). Scalars and one store per float:
     * four floats written to memory and read back as one would wait on store forwarding. */
    float lo0 = INFINITY, lo1 = INFINITY, lo2 = INFINITY, lo3 = INFINITY;
    float hi0 = -INFINITY, hi1 = -INFINITY, hi2 = -INFINITY, hi3 = -INFINITY;
    for (size_t f = 0; f < F; ++f) {
        float *p = values + 4 * f, v[4];
        stored(channel, st->format, p, sign, v);
        p[0] = v[0], p[1] = v[1], p[2] = v[2], p[3] = v[3];
        lo0 = min_f(lo0, v[0]), lo1 = min_f(lo1, v[1]), lo2 = min_f(lo2, v[2]), lo3 = min_f(lo3, v[3]);
        hi0 = max_f(hi0, v[0]), hi1 = max_f(hi1, v[1]), hi2 = max_f(hi2, v[2]), hi3 = max_f(hi3, v[3]);
    }
    float slo[4] = {lo0, lo1, lo2, st->n == 4 ? lo3 : INFINITY}, shi[4] = {hi0, hi1, hi2, st->n == 4 ? hi3 : -INFINITY};
    if (tolerance <= 0.f) {
        const uint8_t *own = clip->own + clip->row[s];
        for (size_t f = 0; f < F; ++f) st->keys[f] = own[f] || forced_key(clip, f);
        for (int c = 0; c < st->n; ++c) st->bits[c] = shi[c] > slo[c] ? OSSA__MAX_BITS : 0;
        quantise(st, values, slo, shi, key_list, list_keys(st, F, key_list));
        for (size_t f = 0; f < F; ++f) st->key_count += st->keys[f];
        return;
    }
    /* First widths: a step that spends the rest of the tolerance evenly over the components;
     * then widen all until the measured error fits, and narrow one component at a time while
     * it still does. */
    const float gain = channel == OSSA__CH_TRANSLATION ? 1.f : (channel == OSSA__CH_ROTATION ? 2.f * radius : radius);
    const float step = 2.f * (1.f - KEY_SHARE) * tolerance / gain;
    for (int c = 0; c < st->n; ++c) st->bits[c] = (uint8_t)width_for(shi[c] - slo[c], step);
    size_t keys = list_keys(st, F, key_list);
    quantise(st, values, slo, shi, key_list, keys);
    size_t over = SIZE_MAX;
    const rotation_bound bound =
        channel == OSSA__CH_ROTATION ? rotation_bound_of(tolerance, radius) : (rotation_bound){0.0, 0.0};
    for (bool all_keys = false; !encoded_within(clip, s, st, radius, tolerance, &bound, &over);) {
        bool widened = false;
        for (int c = 0; c < st->n; ++c)
            if (st->bits[c] < OSSA__MAX_BITS && shi[c] > slo[c]) st->bits[c]++, widened = true;
        if (!widened) {
            if (all_keys) break;
            memset(st->keys, 1, F); /* quantisation alone cannot fit: keep every time point */
            keys = list_keys(st, F, key_list);
            all_keys = true;
        }
        quantise(st, values, slo, shi, key_list, keys);
    }
    /* Translations and scales: a component's decoded values depend on its own keys alone, so
     * each narrowing re-decodes that component only, against the others' kept differences. */
    const bool by_component = channel != OSSA__CH_ROTATION;
    float *diff = sc->refit, *column = sc->refit + 4 * F; /* the refit is done with them */
    size_t last_key = 0;
    if (by_component) {
        for (size_t f = 0; f < F; ++f) last_key = st->keys[f] ? f : last_key;
        for (int c = 0; c < st->n; ++c) component_diffs(clip, s, st, c, diff);
    }
    for (bool narrowed = true; narrowed;) {
        narrowed = false;
        for (int c = 0; c < st->n; ++c) {
            if (st->bits[c] == 0) continue;
            st->bits[c]--;
            quantise_component(st, values, c, slo, shi, key_list, keys);
            bool within;
            if (by_component) {
                component_diffs(clip, s, st, c, column);
                within = diffs_error(channel, diff, column, c, last_key, radius, tolerance) <= tolerance;
                if (within)
                    for (size_t f = 0; f <= last_key; ++f) diff[4 * f + (size_t)c] = column[4 * f + (size_t)c];
            } else {
                within = encoded_within(clip, s, st, radius, tolerance, &bound, &over);
            }
            if (within) {
                narrowed = true;
            } else {
                st->bits[c]++;
                quantise_component(st, values, c, slo, shi, key_list, keys);
            }
        }
    }
    for (size_t f = 0; f < F; ++f) st->key_count += st->keys[f];
}
