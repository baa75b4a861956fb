/* Decoded Resonite tracks -> ossa user channels, events and joint animation.
 *
 * Every numeric channel is turned into a list of (time, step|linear, value) keys on the
 * whole time line, then clipped to [0, duration] and narrowed to float. Segments that linear
 * keys cannot represent (Tangent, CubicBezier, and slerp for quaternions) are sampled; the
 * bound on what the samples miss is tracked so the import can state its error. */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../internal.h"
#include "resonite_common.h"

#define MAX_SUBDIVISIONS ((size_t)1 << 20)
#define MAX_WARNINGS     8

typedef struct key {
    double t;
    int interp; /* OSSA_INTERP_STEP or OSSA_INTERP_LINEAR */
    double v[4];
} key;

typedef struct keybuf {
    key *k;
    size_t n, cap, max;
    const ossa_allocator *a;
} keybuf;

typedef struct ctx {
    const ossa__res_anim *anim;
    const ossa__res_settings *s;
    ossa_import_output *out;
    ossa_diag *diag;
    double duration;
    double max_error;
    size_t warnings;
} ctx;

typedef struct channel {
    const ossa__res_track *track;
    const ossa__res_type *type;
    const size_t *order; /* sorted key order; NULL when already sorted */
    size_t c0, width;
    bool quat;
} channel;

static ossa_result fail(ctx *c, const ossa__res_track *t, ossa_result code, const char *what)
{
    return ossa_diag_set(c->diag, code, t->offset, t->line, t->column, "track \"%s/%s\": %s", t->node, t->property,
                         what);
}

static void warn(ctx *c, const char *text)
{
    if (++c->warnings <= MAX_WARNINGS) ossa_import_output_add_metadata(c->out, "warning", text);
}

static ossa_result push(keybuf *b, double t, int interp, const double *v)
{
    if (b->n && b->k[b->n - 1].t >= t) { /* a key at the same time: the last one wins */
        b->k[b->n - 1].interp = interp;
        memcpy(b->k[b->n - 1].v, v, sizeof b->k->v);
        return OSSA_OK;
    }
    if (b->n >= b->max) return OSSA_ERROR_INVALID_KEY;
    if (!ossa__grow(b->a, (void **)&b->k, &b->cap, b->n + 1, sizeof *b->k)) return OSSA_ERROR_OUT_OF_MEMORY;
    key *k = &b->k[b->n++];
    k->t = t;
    k->interp = interp;
    memcpy(k->v, v, sizeof k->v);
    return OSSA_OK;
}

static void normalize4(double q[4])
{
    double len = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(len > 1e-12) || !isfinite(len)) {
        q[0] = q[1] = q[2] = 0.0, q[3] = 1.0;
        return;
    }
    for (int i = 0; i < 4; ++i) q[i] /= len;
}

/* The value ossa's own interpolation gives between two keys (raw_track.h rules). */
static void eval_between(const key *a, const key *b, double t, bool quat, key *r)
{
    *r = *a;
    r->t = t;
    if (a->interp == OSSA_INTERP_STEP || !(b->t > a->t)) return;
    const double alpha = (t - a->t) / (b->t - a->t);
    double sign = 1.0;
    if (quat && a->v[0] * b->v[0] + a->v[1] * b->v[1] + a->v[2] * b->v[2] + a->v[3] * b->v[3] < 0.0) sign = -1.0;
    for (int i = 0; i < 4; ++i) r->v[i] = a->v[i] + (sign * b->v[i] - a->v[i]) * alpha;
    if (quat) normalize4(r->v);
}

/* Keeps [0, duration]: keys outside are replaced by one key on the boundary. */
static void clip(keybuf *b, double duration, bool quat)
{
    size_t n = b->n, f = 0;
    key *k = b->k;
    if (n == 0) return;
    while (f < n && k[f].t < 0.0) ++f;
    if (f == n) {
        k[0] = k[n - 1], k[0].t = 0.0, n = 1;
    } else if (f > 0) {
        if (k[f].t > 0.0) {
            key z;
            eval_between(&k[f - 1], &k[f], 0.0, quat, &z);
            k[--f] = z;
        }
        memmove(k, k + f, (n - f) * sizeof *k);
        n -= f;
    }
    size_t last = 0;
    while (last + 1 < n && k[last + 1].t <= duration) ++last;
    if (k[0].t > duration) {
        k[0].t = 0.0, n = 1;
    } else if (last + 1 < n && k[last].t < duration) {
        key z;
        eval_between(&k[last], &k[last + 1], duration, quat, &z);
        k[last + 1] = z;
        n = last + 2;
    } else {
        n = last + 1;
    }
    b->n = n;
}

static double key_time(const channel *ch, size_t i, double interval)
{
    return ch->track->track_type == OSSA__RES_RAW ? (double)i * interval : ch->track->times[i];
}

static void key_value(const channel *ch, const double *array, size_t k, double v[4])
{
    memset(v, 0, 4 * sizeof *v);
    if (!array) return;
    for (size_t c = 0; c < ch->width; ++c) v[c] = array[k * ch->type->components + ch->c0 + c];
}

static int segment_mode(const channel *ch, size_t k)
{
    if (ossa__res_type_is_stepped(ch->type)) return OSSA__RES_HOLD;
    switch (ch->track->track_type) {
    case OSSA__RES_RAW:
        return OSSA__RES_LINEAR;
    case OSSA__RES_DISCRETE:
        return OSSA__RES_HOLD;
    default:
        return ch->track->interps[k];
    }
}

/* Largest chord between slerp and nlerp on an arc of `phi` radians (4D angle). */
static double nlerp_error(double phi)
{
    double worst = 0.0;
    for (int i = 1; i <= 10; ++i) {
        const double t = i / 20.0;
        const double a = atan2(t * sin(phi), (1.0 - t) + t * cos(phi));
        const double d = 2.0 * sin(fabs(t * phi - a) / 2.0);
        if (d > worst) worst = d;
    }
    return worst;
}

static ossa_result push_samples(ctx *c, keybuf *b, double t0, double dt, size_t n, double p[4][4], bool quat,
                                bool bezier)
{
    const double h = dt / (double)n;
    size_t lo = 0, hi = n - 1;
    if (t0 < 0.0) lo = (size_t)fmin(floor(-t0 / h), (double)(n - 1));
    if (t0 + (double)(n - 1) * h > c->duration) {
        const double d = ceil((c->duration - t0) / h);
        hi = d < (double)lo ? lo : (size_t)fmin(d, (double)(n - 1));
    }
    if (hi - lo + 1 > b->max - (b->n < b->max ? b->n : b->max)) return OSSA_ERROR_INVALID_KEY;
    for (size_t k = lo; k <= hi; ++k) {
        const double s = (double)k / (double)n, u = 1.0 - s;
        double v[4];
        if (bezier) {
            for (int i = 0; i < 4; ++i)
                v[i] =
                    u * u * u * p[0][i] + 3.0 * u * u * s * p[1][i] + 3.0 * u * s * s * p[2][i] + s * s * s * p[3][i];
        } else { /* slerp from p[0] to p[3], both unit and in one hemisphere */
            const double dot = fmin(1.0, p[0][0] * p[3][0] + p[0][1] * p[3][1] + p[0][2] * p[3][2] + p[0][3] * p[3][3]);
            const double phi = acos(dot), st = sin(phi);
            const double wa = sin(u * phi) / st, wb = sin(s * phi) / st;
            for (int i = 0; i < 4; ++i) v[i] = wa * p[0][i] + wb * p[3][i];
        }
        if (quat) normalize4(v);
        ossa_result r = push(b, t0 + (double)k * h, OSSA_INTERP_LINEAR, k == 0 ? p[0] : v);
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

static ossa_result segment(ctx *c, const channel *ch, keybuf *b, size_t k0, size_t k1, double t0, double t1)
{
    const ossa__res_track *t = ch->track;
    const int mode = segment_mode(ch, k0);
    double p[4][4];
    key_value(ch, t->values, k0, p[0]);
    key_value(ch, t->values, k1, p[3]);
    if (mode == OSSA__RES_HOLD) return push(b, t0, OSSA_INTERP_STEP, p[0]);
    const double dt = t1 - t0;
    if (mode == OSSA__RES_LINEAR) {
        if (!ch->quat) return push(b, t0, OSSA_INTERP_LINEAR, p[0]);
        double a[4], e[4];
        memcpy(a, p[0], sizeof a);
        memcpy(e, p[3], sizeof e);
        normalize4(a);
        normalize4(e);
        double dot = a[0] * e[0] + a[1] * e[1] + a[2] * e[2] + a[3] * e[3];
        if (dot < 0.0)
            for (int i = 0; i < 4; ++i) e[i] = -e[i];
        const double phi = acos(fmin(1.0, fabs(dot)));
        /* Slerp sampled at the rate; nlerp between the samples. */
        const double slices = phi > 0.0 ? ceil(dt * c->s->rate) : 1.0;
        const size_t n = slices < 1.0 ? 1 : slices > (double)MAX_SUBDIVISIONS ? MAX_SUBDIVISIONS : (size_t)slices;
        c->max_error = fmax(c->max_error, nlerp_error(phi / (double)n));
        if (n == 1) return push(b, t0, OSSA_INTERP_LINEAR, p[0]);
        memcpy(p[0], a, sizeof a);
        memcpy(p[3], e, sizeof e);
        return push_samples(c, b, t0, dt, n, p, true, false);
    }
    /* Tangent and CubicBezier: one cubic Bezier per component, uniform in time. */
    double l[4], r[4];
    key_value(ch, t->left, k1, l);
    key_value(ch, t->right, k0, r);
    double m = 0.0;
    for (size_t i = 0; i < 4; ++i) {
        if (mode == OSSA__RES_TANGENT && OSSA_RESONITE_TANGENT_IS_SLOPE) {
            p[1][i] = p[0][i] + r[i] * dt / 3.0;
            p[2][i] = p[3][i] - l[i] * dt / 3.0;
        } else {
            p[1][i] = r[i];
            p[2][i] = l[i];
        }
        m = fmax(m, fmax(fabs(p[0][i] - 2.0 * p[1][i] + p[2][i]), fabs(p[1][i] - 2.0 * p[2][i] + p[3][i])));
    }
    if (m == 0.0) return push(b, t0, OSSA_INTERP_LINEAR, p[0]); /* the cubic is a straight line */
    if (!isfinite(m)) return fail(c, t, OSSA_ERROR_INVALID_KEY, "a tangent makes the curve overflow");
    /* Sampled at the rate. |y''(s)| <= 6 m on [0, 1], so linear keys every 1/n miss at most
     * 6 m / (8 n^2): that bound is reported, the builders reduce the samples. */
    double want = ceil(dt * c->s->rate);
    size_t n = want < 1.0 ? 1 : want > (double)MAX_SUBDIVISIONS ? MAX_SUBDIVISIONS : (size_t)want;
    c->max_error = fmax(c->max_error, 0.75 * m / ((double)n * (double)n));
    return push_samples(c, b, t0, dt, n, p, ch->quat, true);
}

static int compare_time(const void *pa, const void *pb)
{
    const double *a = pa, *b = pb; /* {time, index} pairs */
    if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
    return a[1] < b[1] ? -1 : a[1] > b[1];
}

/* Key order by time, stable; *order stays NULL when the keys are already sorted. */
static ossa_result sort_keys(const ossa__res_track *t, const ossa_allocator *a, size_t **order)
{
    *order = NULL;
    bool sorted = true;
    for (size_t i = 1; t->times && i < t->key_count && sorted; ++i) sorted = t->times[i - 1] <= t->times[i];
    if (sorted) return OSSA_OK;
    double *pairs = ossa__calloc(a, t->key_count, 2 * sizeof *pairs);
    size_t *o = ossa__calloc(a, t->key_count, sizeof *o);
    if (!pairs || !o) {
        ossa_free(a, pairs);
        ossa_free(a, o);
        return OSSA_ERROR_OUT_OF_MEMORY;
    }
    for (size_t i = 0; i < t->key_count; ++i) pairs[2 * i] = t->times[i], pairs[2 * i + 1] = (double)i;
    qsort(pairs, t->key_count, 2 * sizeof *pairs, compare_time);
    for (size_t i = 0; i < t->key_count; ++i) o[i] = (size_t)pairs[2 * i + 1];
    ossa_free(a, pairs);
    *order = o;
    return OSSA_OK;
}

static double raw_interval(ctx *c, const ossa__res_track *t, bool report)
{
    if (t->track_type != OSSA__RES_RAW) return 0.0;
    if (t->interval > 0.0 || t->key_count < 2) return t->interval > 0.0 ? t->interval : 0.0;
    const double d = c->anim->duration > 0.0 ? c->anim->duration / (double)(t->key_count - 1) : 1.0 / c->s->rate;
    if (report) {
        char text[160];
        snprintf(text, sizeof text, "Raw track %s/%s has no positive interval; %g s assumed", t->node, t->property, d);
        warn(c, text);
    }
    return d;
}

/* Builds the clipped key list of one channel into `b`. */
static ossa_result build_keys(ctx *c, const channel *ch, keybuf *b)
{
    const ossa__res_track *t = ch->track;
    const double interval = raw_interval(c, t, false);
    b->n = 0;
    for (size_t i = 0; i < t->key_count; ++i) {
        const size_t k0 = ch->order ? ch->order[i] : i;
        const double t0 = key_time(ch, k0, interval);
        ossa_result r;
        if (i + 1 < t->key_count && key_time(ch, ch->order ? ch->order[i + 1] : i + 1, interval) > t0) {
            const size_t k1 = ch->order ? ch->order[i + 1] : i + 1;
            r = segment(c, ch, b, k0, k1, t0, key_time(ch, k1, interval));
        } else {
            double v[4];
            key_value(ch, t->values, k0, v);
            r = push(b, t0, segment_mode(ch, k0) == OSSA__RES_HOLD ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR, v);
        }
        if (r == OSSA_ERROR_INVALID_KEY)
            return fail(c, t, r, "resampling needs more keys than max_keys (lower the sample rate or raise max_keys)");
        if (r != OSSA_OK) return c->diag && c->diag->code ? c->diag->code : fail(c, t, r, "out of memory");
        if (b->n && b->k[b->n - 1].t > c->duration) break; /* one key past the end is enough to clip */
    }
    clip(b, c->duration, ch->quat);
    return OSSA_OK;
}

/* Narrows a key list to float ratios (or seconds) and float values, dropping keys whose
 * narrowed time repeats the previous one. Returns the count kept in *count. */
static ossa_result narrow(ctx *c, const channel *ch, keybuf *b, bool ratios, size_t *count)
{
    size_t n = 0;
    for (size_t i = 0; i < b->n; ++i) {
        key k = b->k[i];
        float t = ratios ? (c->duration > 0.0 ? (float)fmin(1.0, k.t / c->duration) : 0.f) : (float)k.t;
        float len2 = 0.f;
        for (int j = 0; j < 4; ++j) {
            const float f = (float)k.v[j];
            if (!isfinite(f)) return fail(c, ch->track, OSSA_ERROR_INVALID_KEY, "a curve value overflows float");
            len2 += f * f;
        }
        /* A (near) zero quaternion is no rotation: identity, as ossa's validators require. */
        if (ch->quat && !(len2 > 1e-12f)) k.v[0] = k.v[1] = k.v[2] = 0.0, k.v[3] = 1.0;
        k.t = (double)t;
        if (n && b->k[n - 1].t == k.t) --n;
        b->k[n++] = k;
    }
    b->n = n;
    *count = n;
    return OSSA_OK;
}

static ossa_result user_channel(ctx *c, channel *ch, const char *suffix, keybuf *b)
{
    const ossa__res_track *t = ch->track;
    ossa_result r = build_keys(c, ch, b);
    size_t n = 0;
    if (r == OSSA_OK) r = narrow(c, ch, b, true, &n);
    if (r != OSSA_OK) return r;
    ossa_raw_track *out = NULL;
    const ossa_track_type type = ch->quat ? OSSA_TRACK_QUAT : (ossa_track_type)ch->width;
    r = ossa_import_output_add_track(c->out, type, n, &out);
    if (r != OSSA_OK) return fail(c, t, r, "out of memory");
    out->duration = (float)c->duration;
    for (size_t i = 0; i < n; ++i) {
        out->keys[i].ratio = (float)b->k[i].t;
        out->keys[i].interpolation = (ossa_interp)b->k[i].interp;
        for (int j = 0; j < 4; ++j) out->keys[i].value[j] = (float)b->k[i].v[j];
    }
    size_t len = strlen(t->node) + strlen(t->property) + strlen(suffix) + 2;
    char *name = ossa_alloc(c->s->allocator, len);
    if (!name) return fail(c, t, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    snprintf(name, len, "%s%s%s%s", t->node, *t->property ? "/" : "", t->property, suffix);
    r = ossa_raw_track_set_name(out, name);
    ossa_free(c->s->allocator, name);
    return r == OSSA_OK ? OSSA_OK : fail(c, t, r, "out of memory");
}

static ossa_result events(ctx *c, const ossa__res_track *t, const size_t *order)
{
    const double interval = raw_interval(c, t, false);
    const size_t base = strlen(t->node) + strlen(t->property) + 3;
    for (size_t i = 0; i < t->key_count; ++i) {
        const size_t k = order ? order[i] : i;
        const double time = t->track_type == OSSA__RES_RAW ? (double)k * interval : t->times[k];
        if (time < 0.0 || time > c->duration) continue;
        const char *value = t->strings[k] ? t->strings[k] : "";
        size_t len;
        if (!ossa__add_size(base, strlen(value), &len)) return fail(c, t, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
        char *name = ossa_alloc(c->s->allocator, len);
        if (!name) return fail(c, t, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
        snprintf(name, len, "%s%s%s/%s", t->node, *t->property ? "/" : "", t->property, value);
        ossa_result r = ossa_import_output_add_event(c->out, (float)time, name);
        ossa_free(c->s->allocator, name);
        if (r != OSSA_OK) return fail(c, t, r, "out of memory");
    }
    return OSSA_OK;
}

/* Which joint channel (0 position, 1 rotation, 2 scale) a track can drive, or -1. */
static int transform_channel(const ossa__res_track *t)
{
    const bool v3 = t->value_type == 23 || t->value_type == 31; /* float3, double3 */
    const bool q = t->value_type == 25 || t->value_type == 33;  /* floatQ, doubleQ */
    if (!strcasecmp(t->property, "position") && v3) return 0;
    if (!strcasecmp(t->property, "rotation") && q) return 1;
    if (!strcasecmp(t->property, "scale") && v3) return 2;
    return -1;
}

/* Step keys become a short ramp: joint channels only interpolate linearly. */
static ossa_result ramp_steps(ctx *c, const keybuf *in, keybuf *b)
{
    b->n = 0;
    for (size_t i = 0; i < in->n; ++i) {
        const key *k = &in->k[i];
        ossa_result r = push(b, k->t, OSSA_INTERP_LINEAR, k->v);
        if (r == OSSA_OK && k->interp == OSSA_INTERP_STEP && i + 1 < in->n) {
            const double d = fmin((in->k[i + 1].t - k->t) / 2.0, 1.0 / (8.0 * c->s->rate));
            r = push(b, in->k[i + 1].t - d, OSSA_INTERP_LINEAR, k->v);
        }
        if (r != OSSA_OK) return r;
    }
    return OSSA_OK;
}

static ossa_result joint_channel(ctx *c, const ossa__res_track *t, const size_t *order, keybuf *tmp, keybuf *b)
{
    const ossa__res_type *type = ossa__res_type_get(t->value_type);
    channel ch = {t, type, order, 0, type->components, (type->flags & OSSA__RES_QUAT) != 0};
    size_t n;
    ossa_result r = build_keys(c, &ch, tmp);
    if (r != OSSA_OK) return r;
    r = ramp_steps(c, tmp, b);
    if (r != OSSA_OK) return fail(c, t, r, r == OSSA_ERROR_INVALID_KEY ? "more keys than max_keys" : "out of memory");
    return narrow(c, &ch, b, false, &n);
}

static void copy3(ossa_float3 *d, const double *v) { d->x = (float)v[0], d->y = (float)v[1], d->z = (float)v[2]; }

static ossa_result bind_joints(ctx *c, const size_t *track_of, const char *const *names, size_t joints,
                               size_t *const *orders)
{
    ossa_import_output *out = c->out;
    const ossa_raw_skeleton *bind = c->s->bind;
    const ossa_allocator *a = c->s->allocator;
    ossa_raw_animation *anim = NULL;
    ossa_result r = ossa_raw_skeleton_create(&out->skeleton, joints, &out->allocator);
    if (r == OSSA_OK) r = ossa_import_output_add_animation(out, joints, &anim);
    if (r == OSSA_OK) r = ossa_raw_animation_set_name(anim, c->anim->name ? c->anim->name : "");
    for (size_t j = 0; r == OSSA_OK && j < joints; ++j) {
        r = ossa_raw_skeleton_set_name(&out->skeleton, j, names[j]);
        if (bind)
            out->skeleton.joints[j].parent = bind->joints[j].parent,
            out->skeleton.joints[j].rest = bind->joints[j].rest;
    }
    if (r != OSSA_OK) return ossa__fail(c->diag, r, "out of memory building the skeleton");
    anim->duration = c->duration > 0.0 ? (float)c->duration : (float)(1.0 / c->s->rate);
    keybuf tmp = {NULL, 0, 0, c->s->max_keys, a};
    keybuf b[3] = {{NULL, 0, 0, c->s->max_keys, a}, {NULL, 0, 0, c->s->max_keys, a}, {NULL, 0, 0, c->s->max_keys, a}};
    for (size_t j = 0; r == OSSA_OK && j < joints; ++j) {
        ossa_transform *rest = &out->skeleton.joints[j].rest;
        size_t n[3];
        for (int ch = 0; r == OSSA_OK && ch < 3; ++ch) {
            const size_t i = track_of[3 * j + (size_t)ch];
            b[ch].n = 0;
            if (i != SIZE_MAX) r = joint_channel(c, &c->anim->tracks[i], orders[i], &tmp, &b[ch]);
            if (r == OSSA_OK && b[ch].n == 0) { /* unanimated: one rest-pose key */
                const ossa_float3 f = ch == 2 ? rest->scale : rest->translation;
                const ossa_quat q = rest->rotation;
                double v[4] = {(double)f.x, (double)f.y, (double)f.z, 0.0};
                if (ch == 1) v[0] = (double)q.x, v[1] = (double)q.y, v[2] = (double)q.z, v[3] = (double)q.w;
                r = push(&b[ch], 0.0, OSSA_INTERP_LINEAR, v);
            } else if (r == OSSA_OK && !bind) { /* flat skeleton: the first value is the rest pose */
                double *v = b[ch].k[0].v;
                if (ch == 0) copy3(&rest->translation, v);
                if (ch == 2) copy3(&rest->scale, v);
                if (ch == 1) {
                    double q[4] = {v[0], v[1], v[2], v[3]};
                    normalize4(q);
                    rest->rotation = (ossa_quat){(float)q[0], (float)q[1], (float)q[2], (float)q[3]};
                }
            }
            n[ch] = b[ch].n;
        }
        if (r == OSSA_OK) r = ossa_raw_joint_track_resize(anim, j, n[0], n[1], n[2]);
        if (r != OSSA_OK) {
            if (!c->diag || !c->diag->code) ossa__fail(c->diag, r, "out of memory for joint %zu", j);
            break;
        }
        ossa_raw_joint_track *jt = &anim->tracks[j];
        for (size_t k = 0; k < n[0]; ++k)
            jt->translations[k].time = (float)b[0].k[k].t, copy3(&jt->translations[k].value, b[0].k[k].v);
        for (size_t k = 0; k < n[2]; ++k)
            jt->scales[k].time = (float)b[2].k[k].t, copy3(&jt->scales[k].value, b[2].k[k].v);
        for (size_t k = 0; k < n[1]; ++k) {
            const double *v = b[1].k[k].v;
            jt->rotations[k].time = (float)b[1].k[k].t;
            jt->rotations[k].value = (ossa_quat){(float)v[0], (float)v[1], (float)v[2], (float)v[3]};
        }
    }
    ossa_free(a, tmp.k);
    for (int ch = 0; ch < 3; ++ch) ossa_free(a, b[ch].k);
    return c->diag && c->diag->code ? c->diag->code : r;
}

/* Joint of each transform track (SIZE_MAX: none), and the track of each joint channel. */
static ossa_result assign_joints(ctx *c, size_t *joint_of, const char **names, size_t *joints, size_t **track_of)
{
    const ossa__res_anim *anim = c->anim;
    const ossa_raw_skeleton *bind = c->s->bind;
    const size_t limit = bind ? bind->joint_count : OSSA_MAX_JOINTS;
    size_t count = bind ? bind->joint_count : 0;
    for (size_t j = 0; j < count; ++j) names[j] = bind->joints[j].name;
    *track_of = ossa__calloc(c->s->allocator, 3 * (limit ? limit : 1), sizeof **track_of);
    if (!*track_of) return ossa__fail(c->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t j = 0; j < 3 * limit; ++j) (*track_of)[j] = SIZE_MAX;
    for (size_t i = 0; i < anim->track_count; ++i) {
        const ossa__res_track *t = &anim->tracks[i];
        const int ch = transform_channel(t);
        joint_of[i] = SIZE_MAX;
        if (c->s->no_binding || ch < 0) continue;
        size_t j = 0;
        while (j < count && strcmp(names[j] ? names[j] : "", t->node) != 0) ++j;
        char text[200];
        if (j == count && bind) {
            snprintf(text, sizeof text, "no joint \"%s\" in the bind skeleton; %s/%s stays a user channel", t->node,
                     t->node, t->property);
            warn(c, text);
            continue;
        }
        if (j == count) {
            if (count == OSSA_MAX_JOINTS)
                return fail(c, t, OSSA_ERROR_TOO_MANY_JOINTS, "more animated nodes than OSSA_MAX_JOINTS");
            names[count++] = t->node;
        }
        if ((*track_of)[3 * j + (size_t)ch] != SIZE_MAX) {
            snprintf(text, sizeof text, "%s/%s animates a joint channel again; it stays a user channel", t->node,
                     t->property);
            warn(c, text);
            continue;
        }
        (*track_of)[3 * j + (size_t)ch] = i;
        joint_of[i] = j;
    }
    *joints = count;
    return OSSA_OK;
}

ossa_result ossa__res_convert(const ossa__res_anim *anim, const ossa__res_settings *s, ossa_import_output *out,
                              ossa_diag *diag)
{
    ctx c = {anim, s, out, diag, 0.0, 0.0, 0};
    const ossa_allocator *a = s->allocator;
    double end = 0.0;
    for (size_t i = 0; i < anim->track_count; ++i) {
        const ossa__res_track *t = &anim->tracks[i];
        const double interval = raw_interval(&c, t, true);
        for (size_t k = 0; k < t->key_count; ++k)
            end = fmax(end, t->track_type == OSSA__RES_RAW ? (double)k * interval : t->times[k]);
    }
    c.duration = anim->duration > 0.0 ? anim->duration : end;
    if (c.duration > (double)FLT_MAX)
        return ossa__fail(diag, OSSA_ERROR_INVALID_KEY, "the animation lasts %g s, beyond the float range", c.duration);
    const size_t tracks = anim->track_count ? anim->track_count : 1;
    const size_t name_slots =
        s->bind && s->bind->joint_count > OSSA_MAX_JOINTS ? s->bind->joint_count : OSSA_MAX_JOINTS;
    size_t **orders = ossa__calloc(a, tracks, sizeof *orders);
    size_t *joint_of = ossa__calloc(a, tracks, sizeof *joint_of);
    const char **names = ossa__calloc(a, name_slots, sizeof *names);
    size_t *track_of = NULL, joints = 0;
    keybuf b = {NULL, 0, 0, s->max_keys, a};
    ossa_result r = OSSA_OK;
    if (!orders || !joint_of || !names) r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    if (r == OSSA_OK) r = assign_joints(&c, joint_of, names, &joints, &track_of);
    for (size_t i = 0; r == OSSA_OK && i < anim->track_count; ++i) {
        const ossa__res_track *t = &anim->tracks[i];
        const ossa__res_type *type = ossa__res_type_get(t->value_type);
        r = sort_keys(t, a, &orders[i]);
        if (r != OSSA_OK)
            r = fail(&c, t, r, "out of memory");
        else if (type->kind == OSSA__RES_KIND_STRING)
            r = events(&c, t, orders[i]);
        if (r != OSSA_OK || type->kind == OSSA__RES_KIND_STRING || joint_of[i] != SIZE_MAX) continue;
        channel ch = {t, type, orders[i], 0, type->components, (type->flags & OSSA__RES_QUAT) != 0};
        if (!(type->flags & OSSA__RES_MATRIX) || type->rows == 2) {
            r = user_channel(&c, &ch, "", &b);
            continue;
        }
        for (size_t row = 0; r == OSSA_OK && row < type->rows; ++row) {
            char suffix[16];
            snprintf(suffix, sizeof suffix, ".row%zu", row);
            ch.c0 = row * type->rows;
            ch.width = type->rows;
            r = user_channel(&c, &ch, suffix, &b);
        }
    }
    ossa_free(a, b.k);
    if (r == OSSA_OK && joints) r = bind_joints(&c, track_of, names, joints, orders);
    for (size_t i = 0; orders && i < anim->track_count; ++i) ossa_free(a, orders[i]);
    ossa_free(a, orders);
    ossa_free(a, joint_of);
    ossa_free(a, (void *)names);
    ossa_free(a, track_of);
    if (r != OSSA_OK) return r;
    char text[64];
    if (c.warnings > MAX_WARNINGS) {
        snprintf(text, sizeof text, "%zu more warnings", c.warnings - MAX_WARNINGS);
        ossa_import_output_add_metadata(out, "warning", text);
    }
    snprintf(text, sizeof text, "%.9g", c.duration);
    ossa_import_output_add_metadata(out, "duration", text);
    snprintf(text, sizeof text, "%.9g", s->rate);
    ossa_import_output_add_metadata(out, "resample_rate", text);
    snprintf(text, sizeof text, "%.9g", c.max_error);
    r = ossa_import_output_add_metadata(out, "resample_error", text);
    return r == OSSA_OK ? OSSA_OK : ossa__fail(diag, r, "out of memory");
}
