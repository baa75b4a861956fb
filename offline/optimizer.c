/* Animation optimiser: per-joint error budgets from a model-space bound along the hierarchy,
 * then greedy key reduction per channel (see ossa/offline/optimizer.h for the bound). */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "ossa/offline/optimizer.h"

enum { CH_TRANSLATION, CH_ROTATION, CH_SCALE };

/* Spans up to this many keys are grown one key at a time, longer ones by doubling. */
enum { WALK = 8 };

/* A channel whose held first key costs at most FIX_SHARE of the smallest tolerance below its
 * joint is fixed (reduced to that key) before budgets are handed out, as long as the fixed
 * errors on its chain stay within FIX_TOTAL of that tolerance. */
#define FIX_SHARE (1.f / 64.f)
#define FIX_TOTAL .25f

/* One channel's keys: translations and scales are read in place; rotations from a copy that
 * is normalised and kept in one hemisphere from key to key, as the sampler sees them. */
typedef struct channel {
    int kind;
    size_t count;
    const ossa_raw_float3_key *keys; /* translations, scales */
    const float *time;               /* rotations: [count] */
    const float *quat;               /* rotations: [4 * count] */
    const float *pair;               /* rotations: [2 * count] per key k < count - 1, of keys k and
                                        k + 1: least |lerp|^2 (1 + cos) / 2 and chord |q1 - q0| */
} channel;

/* The normalised copy of every track's rotations (see channel), track after track. */
typedef struct rotation_copy {
    float *time, *quat, *pair;
} rotation_copy;

/* Per joint figures of the hierarchy, all over the whole clip. */
typedef struct joint_info {
    float tmax;      /* largest |translation| */
    float smax;      /* largest |scale component| */
    float radius;    /* farthest point of the subtree in the local space before own scale */
    float sigma;     /* largest product of the ancestors' scales */
    float gain[3];   /* model-space error per unit of each channel's error measure */
    float tolerance; /* of the joint's own points, then less the chain's reserve */
    float shell;
    float floor;      /* smallest tolerance in the subtree */
    float reserve;    /* fixed channels' errors from the root to the joint, included */
    float weight;     /* share of a chain's budget; 0 when every channel is fixed */
    float prefix;     /* summed weights from the root to the joint, included */
    float used;       /* measured errors of the ancestors; the joint's own added once done */
    size_t end;       /* one past the last joint of the subtree */
    size_t rotations; /* first key of the joint's rotations in the scratch copy */
    bool fixed[3];
} joint_info;

/* ---- span checks ---- */

static float dot4(const float *a, const float *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]; }

/* For unit q: d's part along q (*along) and the squared norm of the rest, which is |q ^ d|^2,
 * computed as that part so that no cancellation occurs when d lies mostly along q. */
static float wedge2(const float *q, const float *d, float *along)
{
    const float k = dot4(q, d);
    const float p[4] = {d[0] - k * q[0], d[1] - k * q[1], d[2] - k * q[2], d[3] - k * q[3]};
    *along = k;
    return dot4(p, p);
}

/* Rotation span: the largest sin^2(theta / 2) between the original curve on keys [a, c] and
 * nlerp(q0, q1) over the same times (q0 = key a, q1 = key c, or key a when holding).
 * On an original interval [qa, qb] both curves are normalised lerps, o(u) = lerp(qa, qb, u)
 * and s(u) = lerp(sa, sb, u), so the wedge product W(u) = o ^ s = o ^ (s - o) is quadratic in
 * u with Bernstein control points qa ^ da, (qa ^ db + qb ^ da) / 2 and qb ^ db (d = s - q at
 * the keys) and |W| is at most the largest of their norms. Writing d = l q + p (p orthogonal
 * to q), the middle one is ((lb - la) qa ^ qb + qa ^ pb + qb ^ pa) / 2, of norm at most
 * (|lb - la| |qb - qa| + |pa| + |pb|) / 2. Then sin^2 = |W|^2 / (|o|^2 |s|^2), both norms
 * bounded below exactly. Returns early with a value above limit2 once one interval exceeds
 * it. */
static float rotation_span(const channel *ch, size_t a, size_t c, bool hold, float limit2)
{
    const float *t = ch->time, *q = ch->quat, *q0 = &q[4 * a], *q1_in = hold ? q0 : &q[4 * c];
    float q1[4] = {q1_in[0], q1_in[1], q1_in[2], q1_in[3]};
    float cs = dot4(q0, q1);
    if (cs < 0.f) {
        for (int i = 0; i < 4; ++i) q1[i] = -q1[i];
        cs = -cs;
    }
    const float inv = c > a ? 1.f / (t[c] - t[a]) : 0.f, one_minus = 1.f - cs;
    const float dq[4] = {q1[0] - q0[0], q1[1] - q0[1], q1[2] - q0[2], q1[3] - q0[3]};
    float worst = 0.f, v_prev = 0.f, la, wa, ra;
    {
        const float d[4] = {q0[0] - q[4 * a], q0[1] - q[4 * a + 1], q0[2] - q[4 * a + 2], q0[3] - q[4 * a + 3]};
        wa = wedge2(&q[4 * a], d, &la);
        ra = sqrtf(wa);
    }
    for (size_t k = a; k < c; ++k) {
        const float *qb = &q[4 * k + 4];
        const float v = k + 1 == c ? 1.f : (t[k + 1] - t[a]) * inv;
        const float d[4] = {q0[0] + dq[0] * v - qb[0], q0[1] + dq[1] * v - qb[1], q0[2] + dq[2] * v - qb[2],
                            q0[3] + dq[3] * v - qb[3]};
        const float *pair = &ch->pair[2 * k];
        float lb;
        const float wb = wedge2(qb, d, &lb), rb = sqrtf(wb);
        const float r1 = .5f * (ra + rb + fabsf(lb - la) * pair[1]);
        float top = wa > wb ? wa : wb;
        top = top > r1 * r1 ? top : r1 * r1;
        /* |lerp|^2 of unit ends with cosine c is 1 - 2 u (1 - u)(1 - c), least nearest u = 1/2. */
        const float vm = v_prev > .5f ? v_prev : (v < .5f ? v : .5f);
        const float smin = 1.f - 2.f * vm * (1.f - vm) * one_minus;
        const float e = top / (pair[0] * smin);
        if (e > worst) {
            worst = e;
            if (worst > limit2) return worst;
        }
        v_prev = v, la = lb, wa = wb, ra = rb;
    }
    return worst;
}

/* Span of a translation (squared Euclidean error) or scale (largest component error) channel:
 * both curves are piecewise linear with breaks at the original keys, so those keys bound the
 * error. The reduced curve runs from key a to key c (or holds key a). */
static float linear_span(const channel *ch, size_t a, size_t c, bool hold, float limit)
{
    const ossa_raw_float3_key *keys = ch->keys;
    const ossa_float3 v0 = keys[a].value, v1 = hold ? v0 : keys[c].value;
    const float t0 = keys[a].time, inv = c > a ? 1.f / (keys[c].time - t0) : 0.f;
    const float dx = v1.x - v0.x, dy = v1.y - v0.y, dz = v1.z - v0.z;
    float worst = 0.f;
    for (size_t k = a + 1; k <= c; ++k) {
        const float u = (keys[k].time - t0) * inv;
        const ossa_float3 o = keys[k].value;
        const float ex = v0.x + dx * u - o.x, ey = v0.y + dy * u - o.y, ez = v0.z + dz * u - o.z;
        float e;
        if (ch->kind == CH_TRANSLATION) {
            e = ex * ex + ey * ey + ez * ez;
        } else {
            e = fabsf(ex) > fabsf(ey) ? fabsf(ex) : fabsf(ey);
            e = e > fabsf(ez) ? e : fabsf(ez);
        }
        if (e > worst) {
            worst = e;
            if (worst > limit) return worst;
        }
    }
    return worst;
}

/* Error measure of replacing keys a+1 .. c-1 by the interpolation of keys a and c (or of
 * holding key a through key c), in the channel's comparison units: squared distance for
 * translations, largest component for scales, sin^2 of half the angle for rotations. */
static float span_error(const channel *ch, size_t a, size_t c, bool hold, float limit)
{
    if (ch->kind == CH_ROTATION) return rotation_span(ch, a, c, hold, limit);
    return linear_span(ch, a, c, hold, limit);
}

/* Reduces one channel: writes kept key indices to `kept` and returns their count; *worst
 * receives the largest error measure of the accepted spans. `limit` is in comparison units.
 * From each kept key the farthest passing span is searched key by key, then by doubling and
 * bisection; every accepted span was checked in full. */
static size_t reduce_channel(const channel *ch, float limit, size_t *kept, float *worst)
{
    const size_t n = ch->count;
    *worst = 0.f;
    if (n <= 1) {
        if (n) kept[0] = 0;
        return n;
    }
    /* Holding the first key everywhere (also outside the keys, as before). */
    const float hold = span_error(ch, 0, n - 1, true, limit);
    if (hold <= limit) {
        kept[0] = 0;
        *worst = hold;
        return 1;
    }
    /* One segment: short spans can fail where the whole one passes (nlerp's speed varies
     * along an arc, so keys taken from one long nlerp are off a short one). */
    const float whole = span_error(ch, 0, n - 1, false, limit);
    if (whole <= limit) {
        kept[0] = 0, kept[1] = n - 1;
        *worst = whole;
        return 2;
    }
    size_t count = 0, a = 0;
    kept[count++] = 0;
    while (a + 1 < n) {
        size_t good = a + 1, bad = n;
        float good_error = 0.f;
        for (size_t c = a + 2; c < n;) {
            const float e = span_error(ch, a, c, false, limit);
            if (!(e <= limit)) {
                bad = c;
                break;
            }
            good = c, good_error = e;
            if (c == n - 1) break;
            c = c - a < WALK ? c + 1 : (c - a < n - 1 - c ? a + 2 * (c - a) : n - 1);
        }
        while (bad < n && bad - good > 1) {
            const size_t mid = good + (bad - good) / 2;
            const float e = span_error(ch, a, mid, false, limit);
            if (e <= limit)
                good = mid, good_error = e;
            else
                bad = mid;
        }
        *worst = good_error > *worst ? good_error : *worst;
        kept[count++] = good;
        a = good;
    }
    return count;
}

/* ---- hierarchy ---- */

static ossa_result check_desc(const ossa_optimizer_desc *desc, size_t joints, float *tolerance, float *shell,
                              ossa_diag *diag)
{
    const float values[3] = {desc->tolerance, desc->shell_distance, desc->unit_scale};
    static const char *const names[3] = {"tolerance", "shell_distance", "unit_scale"};
    for (int i = 0; i < 3; ++i)
        if (!isfinite(values[i]) || values[i] < 0.f)
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0,
                                 "desc %s must be finite and >= 0 (0 for the default), found %g", names[i],
                                 (double)values[i]);
    if (desc->override_count && !desc->overrides)
        return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "%zu overrides but no override array",
                             desc->override_count);
    for (size_t i = 0; i < desc->override_count; ++i) {
        const ossa_joint_tolerance *o = &desc->overrides[i];
        if (o->joint >= joints)
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, i, 0, 0,
                                 "override %zu names joint %zu, the skeleton has %zu joints", i, o->joint, joints);
        if (!isfinite(o->tolerance) || o->tolerance < 0.f || !isfinite(o->shell_distance) || o->shell_distance < 0.f)
            return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, i, 0, 0,
                                 "override %zu (joint %zu): tolerance %g and shell_distance %g must be finite and >= 0",
                                 i, o->joint, (double)o->tolerance, (double)o->shell_distance);
    }
    const float unit = desc->unit_scale > 0.f ? desc->unit_scale : 1.f;
    *tolerance = desc->tolerance > 0.f ? desc->tolerance : OSSA_OPTIMIZER_DEFAULT_TOLERANCE / unit;
    *shell = desc->shell_distance > 0.f ? desc->shell_distance : OSSA_OPTIMIZER_DEFAULT_SHELL_DISTANCE / unit;
    if (!isfinite(*tolerance) || !isfinite(*shell))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0,
                             "unit_scale %g makes the default tolerance or shell distance infinite",
                             (double)desc->unit_scale);
    return OSSA_OK;
}

/* Channel extents, then radii, smallest tolerances and subtree ends bottom-up, then scale
 * products and gains top-down. */
static void analyse(const ossa_raw_animation *in, const ossa_raw_skeleton *skel, joint_info *info)
{
    const size_t n = skel->joint_count;
    for (size_t j = 0; j < n; ++j) {
        const ossa_raw_joint_track *tr = &in->tracks[j];
        joint_info *ji = &info[j];
        float t2 = 0.f, s = tr->scale_count ? 0.f : 1.f;
        for (size_t k = 0; k < tr->translation_count; ++k) {
            const ossa_float3 v = tr->translations[k].value;
            const float m = v.x * v.x + v.y * v.y + v.z * v.z;
            t2 = m > t2 ? m : t2;
        }
        for (size_t k = 0; k < tr->scale_count; ++k) {
            const ossa_float3 v = tr->scales[k].value;
            s = fabsf(v.x) > s ? fabsf(v.x) : s;
            s = fabsf(v.y) > s ? fabsf(v.y) : s;
            s = fabsf(v.z) > s ? fabsf(v.z) : s;
        }
        ji->tmax = sqrtf(t2);
        ji->smax = s;
        ji->radius = ji->shell;
        ji->floor = ji->tolerance;
        ji->end = j + 1;
    }
    for (size_t j = n; j-- > 0;) {
        const int p = skel->joints[j].parent;
        if (p < 0) continue;
        const float r = info[j].tmax + info[j].smax * info[j].radius;
        info[p].radius = r > info[p].radius ? r : info[p].radius;
        info[p].floor = info[j].floor < info[p].floor ? info[j].floor : info[p].floor;
        info[p].end = info[j].end > info[p].end ? info[j].end : info[p].end;
    }
    for (size_t j = 0; j < n; ++j) {
        const int p = skel->joints[j].parent;
        joint_info *ji = &info[j];
        ji->sigma = p < 0 ? 1.f : info[p].sigma * info[p].smax;
        ji->gain[CH_TRANSLATION] = ji->sigma;
        ji->gain[CH_ROTATION] = 2.f * ji->sigma * ji->smax * ji->radius;
        ji->gain[CH_SCALE] = ji->sigma * ji->radius;
    }
}

/* Model-space budget of joint k: its weight's share of what its ancestors left, for the
 * most constraining joint of its subtree. */
static float joint_budget(const joint_info *info, size_t k)
{
    const joint_info *jk = &info[k];
    if (jk->weight <= 0.f) return 0.f;
    float best = INFINITY;
    for (size_t j = k; j < jk->end; ++j) {
        const float path = info[j].prefix - jk->prefix + jk->weight;
        const float share = (info[j].tolerance - jk->used) / path;
        best = share < best ? share : best;
    }
    best *= jk->weight;
    return best > 0.f ? best : 0.f;
}

/* Model-space error of a channel error measure (squared for translations and rotations). */
static float to_model(const joint_info *ji, int c, float measure)
{
    if (!(measure > 0.f)) return 0.f; /* also when the gain is infinite */
    return ji->gain[c] * (c == CH_SCALE ? measure : sqrtf(measure));
}

/* The channel limit, in its comparison units, for a model-space error `e`. */
static float to_measure(const joint_info *ji, int c, float e)
{
    if (!(ji->gain[c] > 0.f)) return INFINITY;
    const float m = e / ji->gain[c];
    if (c == CH_SCALE) return m;
    return c == CH_ROTATION && m > 1.f ? 1.f : m * m;
}

/* Joint j's channel c; rotations come from the normalised copy made by classify. */
static channel get_channel(const ossa_raw_animation *in, const joint_info *ji, size_t j, int c,
                           const rotation_copy *rot)
{
    const ossa_raw_joint_track *tr = &in->tracks[j];
    const size_t at = ji->rotations;
    if (c == CH_ROTATION)
        return (channel){c, tr->rotation_count, NULL, rot->time + at, rot->quat + 4 * at, rot->pair + 2 * at};
    if (c == CH_TRANSLATION) return (channel){c, tr->translation_count, tr->translations, NULL, NULL, NULL};
    return (channel){c, tr->scale_count, tr->scales, NULL, NULL, NULL};
}

/* Copies the rotations of every track, normalised and with each key in the hemisphere of
 * the one before. */
static void load_rotations(const ossa_raw_animation *in, joint_info *info, const rotation_copy *rot)
{
    float *time = rot->time, *quat = rot->quat, *pair = rot->pair;
    size_t at = 0;
    for (size_t j = 0; j < in->track_count; ++j) {
        const ossa_raw_joint_track *tr = &in->tracks[j];
        info[j].rotations = at;
        for (size_t k = 0; k < tr->rotation_count; ++k, ++at) {
            const ossa_quat q = tr->rotations[k].value;
            float *v = &quat[4 * at];
            v[0] = q.x, v[1] = q.y, v[2] = q.z, v[3] = q.w;
            float scale = 1.f / sqrtf(dot4(v, v)); /* validate ensures |q|^2 > 1e-12 */
            if (k && dot4(v - 4, v) < 0.f) scale = -scale;
            for (int i = 0; i < 4; ++i) v[i] *= scale;
            time[at] = tr->rotations[k].time;
            if (!k) continue;
            const float step[4] = {v[0] - v[-4], v[1] - v[-3], v[2] - v[-2], v[3] - v[-1]};
            pair[2 * at - 2] = .5f * (1.f + dot4(v - 4, v));
            pair[2 * at - 1] = sqrtf(dot4(step, step));
        }
    }
}

/* Fixes the channels that barely move (see FIX_SHARE), reserving their errors on every chain
 * below, and sets the weights. */
static void classify(const ossa_raw_animation *in, const ossa_raw_skeleton *skel, joint_info *info,
                     const rotation_copy *rot)
{
    const size_t n = skel->joint_count;
    for (size_t j = 0; j < n; ++j) {
        const int p = skel->joints[j].parent;
        joint_info *ji = &info[j];
        const float allowed = ji->floor * FIX_SHARE;
        float reserve = p < 0 ? 0.f : info[p].reserve;
        for (int c = 0; c < 3; ++c) {
            const channel ch = get_channel(in, ji, j, c, rot);
            const float limit = to_measure(ji, c, allowed);
            const float hold = ch.count > 1 ? span_error(&ch, 0, ch.count - 1, true, limit) : 0.f;
            const float e = hold <= limit ? to_model(ji, c, hold) : INFINITY;
            if (e <= allowed && reserve + e <= ji->floor * FIX_TOTAL) {
                ji->fixed[c] = true;
                reserve += e;
            }
        }
        /* Joints nearer the leaves take larger shares: their rotations move less of the body
         * per radian; on pab_atlas (fingers, wrists) this keeps 4 % fewer keys than equal
         * shares. */
        const bool moving = !ji->fixed[0] || !ji->fixed[1] || !ji->fixed[2];
        ji->weight = moving ? 1.f / sqrtf(ji->radius) : 0.f;
        ji->reserve = reserve;
        ji->prefix = (p < 0 ? 0.f : info[p].prefix) + ji->weight;
    }
    for (size_t j = 0; j < n; ++j) info[j].tolerance -= info[j].reserve;
}

/* Reduces joint j's channels into `out`: fixed ones to their first key, the moving ones
 * within `budget` (model units, split evenly, each passing on what it leaves unused);
 * *used receives the model-space error of the moving ones. */
static ossa_result optimize_joint(const ossa_raw_animation *in, const joint_info *ji, size_t j, float budget,
                                  const rotation_copy *rot, size_t *kept, ossa_raw_animation *out, float *used)
{
    size_t kept_count[3], *kept_at[3], offset = 0;
    int moving = !ji->fixed[0] + !ji->fixed[1] + !ji->fixed[2];
    *used = 0.f;
    for (int c = 0; c < 3; ++c) {
        const channel ch = get_channel(in, ji, j, c, rot);
        kept_at[c] = kept + offset;
        if (ji->fixed[c]) {
            kept_count[c] = ch.count ? 1 : 0;
            kept_at[c][0] = 0;
            offset += 1;
            continue;
        }
        float worst;
        kept_count[c] = reduce_channel(&ch, to_measure(ji, c, budget / (float)moving--), kept_at[c], &worst);
        offset += kept_count[c];
        const float e = to_model(ji, c, worst);
        budget = budget - e > 0.f ? budget - e : 0.f;
        *used += e;
    }
    const ossa_raw_joint_track *tr = &in->tracks[j];
    ossa_result r = ossa_raw_joint_track_resize(out, j, kept_count[0], kept_count[1], kept_count[2]);
    if (r != OSSA_OK) return r;
    ossa_raw_joint_track *o = &out->tracks[j];
    for (size_t k = 0; k < kept_count[0]; ++k) o->translations[k] = tr->translations[kept_at[0][k]];
    for (size_t k = 0; k < kept_count[1]; ++k) o->rotations[k] = tr->rotations[kept_at[1][k]];
    for (size_t k = 0; k < kept_count[2]; ++k) o->scales[k] = tr->scales[kept_at[2][k]];
    return OSSA_OK;
}

ossa_result ossa_animation_optimize(const ossa_raw_animation *input, const ossa_raw_skeleton *skeleton,
                                    const ossa_optimizer_desc *desc, ossa_raw_animation *output, ossa_diag *diag)
{
    const ossa_optimizer_desc defaults = {0};
    if (!desc) desc = &defaults;
    const ossa_allocator *a = desc->allocator;
    if (!input || !skeleton || !output)
        return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "missing input, skeleton or output");
    if (output == input)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, 0, 0, "output must not be the input");
    memset(output, 0, sizeof *output);
    ossa_result r = ossa_raw_animation_validate(input, diag);
    if (r == OSSA_OK) r = ossa_raw_skeleton_validate(skeleton, diag);
    if (r != OSSA_OK) return r;
    const size_t n = skeleton->joint_count;
    if (input->track_count != n)
        return ossa_diag_set(diag, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX, 0, 0,
                             "the animation has %zu tracks, the skeleton %zu joints", input->track_count, n);
    if (!ossa_raw_skeleton_is_depth_first(skeleton))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_SKELETON, SIZE_MAX, 0, 0,
                             "the skeleton is not in depth-first order (see ossa_raw_skeleton_sort_depth_first)");
    float tolerance = 0.f, shell = 0.f;
    if ((r = check_desc(desc, n, &tolerance, &shell, diag)) != OSSA_OK) return r;

    /* Sizes are bounded by the validated input's own arrays, so the sums cannot overflow. */
    size_t longest = 1, rotation_keys = 1;
    for (size_t j = 0; j < n; ++j) {
        const ossa_raw_joint_track *tr = &input->tracks[j];
        const size_t c = tr->translation_count + tr->rotation_count + tr->scale_count;
        longest = c > longest ? c : longest;
        rotation_keys += tr->rotation_count;
    }
    joint_info *info = ossa__calloc(a, n + 1, sizeof *info);
    size_t *kept = ossa__calloc(a, longest + 3, sizeof *kept);
    const rotation_copy rot = {ossa__calloc(a, rotation_keys, sizeof(float)),
                               ossa__calloc(a, rotation_keys, 4 * sizeof(float)),
                               ossa__calloc(a, rotation_keys, 2 * sizeof(float))};
    if (!info || !kept || !rot.time || !rot.quat || !rot.pair) {
        r = ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory for %zu rotation keys",
                          rotation_keys);
        goto done;
    }
    for (size_t j = 0; j < n; ++j) info[j].tolerance = tolerance, info[j].shell = shell;
    for (size_t i = 0; i < desc->override_count; ++i) {
        const ossa_joint_tolerance *o = &desc->overrides[i];
        info[o->joint].tolerance = o->tolerance > 0.f ? o->tolerance : tolerance;
        info[o->joint].shell = o->shell_distance > 0.f ? o->shell_distance : shell;
    }
    analyse(input, skeleton, info);
    load_rotations(input, info, &rot);
    classify(input, skeleton, info, &rot);

    if ((r = ossa_raw_animation_create(output, n, a)) != OSSA_OK ||
        (r = ossa_raw_animation_set_name(output, input->name)) != OSSA_OK) {
        ossa_diag_set(diag, r, SIZE_MAX, 0, 0, "out of memory for the output animation");
        goto done;
    }
    output->duration = input->duration;
    for (size_t j = 0; j < n; ++j) {
        const int p = skeleton->joints[j].parent;
        info[j].used = p < 0 ? 0.f : info[p].used;
        float e = 0.f;
        r = optimize_joint(input, &info[j], j, joint_budget(info, j), &rot, kept, output, &e);
        if (r != OSSA_OK) {
            ossa_diag_set(diag, r, j, 0, 0, "out of memory for the keys of track %zu", j);
            goto done;
        }
        info[j].used += e;
    }
done:
    if (r != OSSA_OK) ossa_raw_animation_destroy(output);
    ossa_free(a, info), ossa_free(a, kept);
    ossa_free(a, rot.time), ossa_free(a, rot.quat), ossa_free(a, rot.pair);
    return r;
}
