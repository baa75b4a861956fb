/* glTF 2.0 importer: one animation's samplers turned into ossa keys. ossa's raw animation
 * interpolates translations and scales linearly and rotations by normalised lerp, and holds
 * the nearest key outside the keys; glTF's three modes are mapped onto that as
 * import_gltf.h documents (slerp arcs split, STEP held until just before the next key,
 * CUBICSPLINE evaluated and resampled).
 * Source: glTF 2.0 specification, section 3.11 (animations) and Appendix C (interpolation:
 * slerp along the shortest arc, cubic Hermite spline with tangents scaled by the interval). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

#include "gltf_internal.h"

enum { INTERP_LINEAR, INTERP_STEP, INTERP_CUBIC };

/* A LINEAR rotation segment turning by more than this is split: nlerp departs from slerp by
 * about 2.1e-8 x angle^3 radians (angle in degrees), 1.1e-5 at 8 degrees (0.011 mm a metre
 * from the joint, a tenth of the default tolerance). Each split adds time points the builder
 * must follow: 4 degrees cost cesium_man 16 % more bytes than 8 at the same tolerance. */
#define MAX_SEGMENT_ANGLE (8.0 * 3.14159265358979323846 / 180.0)
/* A STEP value is held until this fraction of the duration before the next key: more than the
 * builder's 1e-7 (closer time points merge) and many float steps at any time in the clip. */
#define STEP_GAP 1e-6

/* CUBICSPLINE resampling: a segment's pieces are halved (at most CUBIC_MAX_DOUBLINGS times)
 * until every chord's middle is within this fraction of the values' size (at least 1: metres,
 * scale factors, quaternion components) of the spline. */
#define CUBIC_TOLERANCE     1e-5
#define CUBIC_MAX_DOUBLINGS 8
/* A segment's first cut is ceil(interval x sample_rate) pieces, but at most this many: a long
 * segment is then halved only as far as its curve needs (down to the sample rate's pieces,
 * then CUBIC_MAX_DOUBLINGS more), so two keys a day apart give the keys of the curve's shape
 * rather than 5 million. A cubic's chord error falls as 1 / pieces^2, and 64 pieces already
 * see its bends; segments up to 64 / sample_rate seconds (about 1 s) are cut as before. */
#define CUBIC_FIRST_PARTS 64

#define FAIL(x, code, ...) ossa__gltf_fail((x)->g, code, SIZE_MAX, __VA_ARGS__)

typedef struct key {
    float time;
    float v[4];
} key;

typedef struct key_list {
    key *keys;
    size_t count, capacity;
} key_list;

typedef struct anim {
    ossa__gltf_scene *s;
    ossa__gltf *g;
    size_t index;
    const cJSON *samplers;
    const cJSON **sampler; /* [sampler_count] */
    size_t sampler_count;
    float **times;      /* [sampler_count] inputs, read on first use */
    size_t *time_count; /* [sampler_count] */
    int *interp;        /* [sampler_count] */
    size_t *output;     /* [sampler_count] output accessor */
    double duration;
} anim;

static const cJSON *item(const cJSON *array, size_t index)
{
    const cJSON *e = array ? array->child : NULL;
    while (e && index--) e = e->next;
    return e;
}

/* The sampler's interpolation and inputs: times finite, >= 0, strictly increasing (3.11). */
static ossa_result sampler_input(anim *x, size_t i)
{
    if (x->times[i]) return OSSA_OK;
    char path[64], use[80];
    snprintf(path, sizeof path, "animations[%zu].samplers[%zu]", x->index, i);
    const cJSON *sm = x->sampler[i];
    if (!cJSON_IsObject(sm)) return FAIL(x, OSSA_ERROR_PARSE, "%s: expected an object", path);
    size_t input, n;
    const char *mode;
    ossa_result r = ossa__gltf_index(x->g, sm, "input", path, x->s->accessor_count, "accessor", true, &input);
    if (!r) r = ossa__gltf_index(x->g, sm, "output", path, x->s->accessor_count, "accessor", true, &x->output[i]);
    if (!r) r = ossa__gltf_string(x->g, sm, "interpolation", path, &mode);
    if (r) return r;
    if (!mode || !strcmp(mode, "LINEAR"))
        x->interp[i] = INTERP_LINEAR;
    else if (!strcmp(mode, "STEP"))
        x->interp[i] = INTERP_STEP;
    else if (!strcmp(mode, "CUBICSPLINE"))
        x->interp[i] = INTERP_CUBIC;
    else
        return FAIL(x, OSSA_ERROR_PARSE, "%s.interpolation: expected LINEAR, STEP or CUBICSPLINE, found \"%.20s\"",
                    path, mode);
    snprintf(use, sizeof use, "%s.input", path);
    float *t;
    if ((r = ossa__gltf_read_accessor(x->g, input, use, OSSA__GLTF_FLOAT, 1, &t, &n))) return r;
    x->times[i] = t, x->time_count[i] = n;
    for (size_t k = 0; k < n; ++k) {
        if (!isfinite(t[k]) || t[k] < 0.f)
            return FAIL(x, OSSA_ERROR_INVALID_KEY, "accessors[%zu][%zu] (%s): time %g; expected a finite time >= 0",
                        input, k, use, (double)t[k]);
        if (k && !(t[k] > t[k - 1]))
            return FAIL(x, OSSA_ERROR_INVALID_KEY,
                        "accessors[%zu][%zu] (%s): time %.9g is not after the previous %.9g (inputs increase "
                        "strictly)",
                        input, k, use, (double)t[k], (double)t[k - 1]);
    }
    if (x->interp[i] == INTERP_CUBIC && n < 2)
        return FAIL(x, OSSA_ERROR_CORRUPT, "%s: CUBICSPLINE needs at least two keys, found %zu", path, n);
    if ((double)t[n - 1] > (double)OSSA_RAW_ANIMATION_MAX_DURATION)
        return FAIL(x, OSSA_ERROR_INVALID_ANIMATION, "accessors[%zu] (%s): the last time %g s is beyond a day", input,
                    use, (double)t[n - 1]);
    return OSSA_OK;
}

/* Appends a key unless its time, in float, is not after the previous key or not before
 * `before` (the next source key, which must not be lost to a key inserted in front of it
 * where float times are coarse; INFINITY for source keys themselves). */
static ossa_result push(anim *x, key_list *list, double time, const float *v, size_t width, float before)
{
    const float t = (float)time;
    if ((list->count && !(t > list->keys[list->count - 1].time)) || !(t < before)) return OSSA_OK;
    if (!x->g->keys_left)
        return FAIL(x, OSSA_ERROR_INVALID_ANIMATION, "animations[%zu]: more keys than the import's budget (max_keys)",
                    x->index);
    if (!ossa__grow(x->g->a, (void **)&list->keys, &list->capacity, list->count + 1, sizeof *list->keys))
        return FAIL(x, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for the keys of animations[%zu]", x->index);
    --x->g->keys_left;
    key *k = &list->keys[list->count++];
    memset(k, 0, sizeof *k);
    k->time = t;
    memcpy(k->v, v, width * sizeof *v);
    return OSSA_OK;
}

static bool normalise(float *q)
{
    const double n = sqrt((double)q[0] * (double)q[0] + (double)q[1] * (double)q[1] + (double)q[2] * (double)q[2] +
                          (double)q[3] * (double)q[3]);
    if (!(n > 0) || !isfinite(n)) return false;
    for (int c = 0; c < 4; ++c) q[c] = (float)((double)q[c] / n);
    return true;
}

/* Spherical interpolation along the shortest arc (Appendix C), in double. */
static void slerp(const float *a, const float *b, double t, float *out)
{
    double dot = 0, s = 1;
    for (int c = 0; c < 4; ++c) dot += (double)a[c] * (double)b[c];
    if (dot < 0) dot = -dot, s = -1;
    double wa = 1 - t, wb = t;
    if (dot < 0.9999999) {
        const double angle = acos(dot > 1 ? 1 : dot), sa = sin(angle);
        wa = sin((1 - t) * angle) / sa, wb = sin(t * angle) / sa;
    }
    for (int c = 0; c < 4; ++c) out[c] = (float)(wa * (double)a[c] + s * wb * (double)b[c]);
    normalise(out);
}

/* The cubic Hermite spline of one segment at s in [0, 1], tangents scaled by the interval dt
 * (Appendix C). */
static void hermite(const float *v0, const float *b0, const float *a1, const float *v1, double dt, size_t width,
                    double s, double *out)
{
    const double s2 = s * s, s3 = s2 * s;
    const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2, h11 = s3 - s2;
    for (size_t c = 0; c < width; ++c)
        out[c] = h00 * (double)v0[c] + h10 * dt * (double)b0[c] + h01 * (double)v1[c] + h11 * dt * (double)a1[c];
}

/* The largest distance, per component and relative to the values' size (at least 1), between
 * the spline and the chords of `parts` equal pieces, at each chord's middle (normalised for
 * rotations, as the runtime's nlerp ends there). */
static double chord_error(const float *v0, const float *b0, const float *a1, const float *v1, double dt, size_t width,
                          bool rotation, size_t parts)
{
    double size = 1, worst = 0, a[4], b[4], m[4];
    /* Plain comparisons: GCC 12's AArch64 vectoriser crashes on these as fmax reductions. */
    for (size_t c = 0; c < width; ++c) {
        const double e = fabs((double)v0[c]) > fabs((double)v1[c]) ? fabs((double)v0[c]) : fabs((double)v1[c]);
        if (e > size) size = e;
    }
    hermite(v0, b0, a1, v1, dt, width, 0.0, a);
    for (size_t p = 0; p < parts; ++p) {
        hermite(v0, b0, a1, v1, dt, width, (p + 1.0) / (double)parts, b);
        hermite(v0, b0, a1, v1, dt, width, (p + .5) / (double)parts, m);
        double chord[4], nc = 0, nm = 0;
        for (size_t c = 0; c < width; ++c) chord[c] = (a[c] + b[c]) / 2, nc += chord[c] * chord[c], nm += m[c] * m[c];
        nc = rotation && nc > 0 ? sqrt(nc) : 1, nm = rotation && nm > 0 ? sqrt(nm) : 1;
        for (size_t c = 0; c < width; ++c) {
            const double e = fabs(chord[c] / nc - m[c] / nm) / size;
            if (e > worst) worst = e;
        }
        memcpy(a, b, sizeof a);
    }
    return worst;
}

/* Keys of one curve: `times` [n], `v` [n x width] (LINEAR, STEP) or [3n x width] (CUBICSPLINE:
 * in-tangent, value, out-tangent per key). `step_keys`: the caller keeps STEP as step keys
 * (raw tracks), so no hold keys are added. `what` names the curve for messages. */
static ossa_result curve_keys(anim *x, int interp, const float *times, size_t n, const float *v, size_t width,
                              bool rotation, bool step_keys, const char *what, key_list *list)
{
    ossa_result r;
    const size_t per = interp == INTERP_CUBIC ? 3 : 1, mid = interp == INTERP_CUBIC ? 1 : 0;
    float value[4], prev[4];
    for (size_t k = 0; k < n; ++k) {
        const float *vk = v + (k * per + mid) * width;
        for (size_t c = 0; c < width; ++c) {
            value[c] = vk[c];
            if (!isfinite(value[c]))
                return FAIL(x, OSSA_ERROR_INVALID_KEY, "%s: key %zu has a value that is not finite", what, k);
        }
        if (rotation && !normalise(value))
            return FAIL(x, OSSA_ERROR_INVALID_KEY, "%s: key %zu is a zero quaternion", what, k);
        if (k && interp == INTERP_STEP && !step_keys) {
            const double hold = (double)times[k] - STEP_GAP * x->duration;
            if ((float)hold > times[k - 1] && (float)hold < times[k] &&
                (r = push(x, list, hold, prev, width, times[k])))
                return r;
        }
        if (k && interp == INTERP_LINEAR && rotation) {
            double dot = 0;
            for (int c = 0; c < 4; ++c) dot += (double)prev[c] * (double)value[c];
            const double angle = 2 * acos(fmin(fabs(dot), 1.0));
            const size_t parts = (size_t)ceil(angle / MAX_SEGMENT_ANGLE); /* at most 45 */
            for (size_t p = 1; p < parts; ++p) {
                const double s = (double)p / (double)parts;
                float q[4];
                slerp(prev, value, s, q);
                if ((r = push(x, list, (double)times[k - 1] + s * ((double)times[k] - (double)times[k - 1]), q, width,
                              times[k])))
                    return r;
            }
        }
        if (k && interp == INTERP_CUBIC) {
            const double dt = (double)times[k] - (double)times[k - 1];
            const float *v0 = v + ((k - 1) * 3 + 1) * width, *b0 = v + ((k - 1) * 3 + 2) * width;
            const float *a1 = v + (k * 3) * width, *v1 = v + (k * 3 + 1) * width;
            for (size_t c = 0; c < width; ++c)
                if (!isfinite(b0[c]) || !isfinite(a1[c]))
                    return FAIL(x, OSSA_ERROR_INVALID_KEY, "%s: a tangent of key %zu or %zu is not finite", what, k - 1,
                                k);
            const double want = ceil(dt * (double)x->g->rate);
            size_t parts = want < 1 ? 1 : (want > CUBIC_FIRST_PARTS ? CUBIC_FIRST_PARTS : (size_t)want);
            if (parts > x->g->keys_left)
                return FAIL(x, OSSA_ERROR_INVALID_ANIMATION,
                            "%s: resampling %.9g s at %g Hz needs more keys than the import's budget (max_keys)", what,
                            dt, (double)x->g->rate);
            int rounds = CUBIC_MAX_DOUBLINGS;
            for (double p = (double)parts; p < want; p *= 2) ++rounds;
            /* Finer while a chord strays from the curve (see CUBIC_TOLERANCE); keys_left bounds it. */
            bool met = false;
            for (int round = 0; round < rounds && parts <= x->g->keys_left / 2; ++round) {
                if ((met = chord_error(v0, b0, a1, v1, dt, width, rotation, parts) <= CUBIC_TOLERANCE)) break;
                parts *= 2;
            }
            /* Coarser than the sample rate and still off the curve: the budget is what stopped it. */
            if ((double)parts < want && !met &&
                chord_error(v0, b0, a1, v1, dt, width, rotation, parts) > CUBIC_TOLERANCE)
                return FAIL(x, OSSA_ERROR_INVALID_ANIMATION,
                            "%s: resampling %.9g s at %g Hz needs more keys than the import's budget (max_keys)", what,
                            dt, (double)x->g->rate);
            for (size_t p = 1; p < parts; ++p) {
                const double s = (double)p / (double)parts;
                double h[4];
                hermite(v0, b0, a1, v1, dt, width, s, h);
                float q[4] = {0.f, 0.f, 0.f, 0.f};
                for (size_t c = 0; c < width; ++c) {
                    const double y = h[c];
                    if (!(fabs(y) <= (double)FLT_MAX)) /* before the conversion, which would be undefined */
                        return FAIL(x, OSSA_ERROR_INVALID_KEY,
                                    "%s: the spline between keys %zu and %zu leaves the float range", what, k - 1, k);
                    q[c] = (float)y;
                }
                if (rotation && !normalise(q))
                    return FAIL(x, OSSA_ERROR_INVALID_KEY,
                                "%s: the spline between keys %zu and %zu passes through "
                                "a zero quaternion",
                                what, k - 1, k);
                if ((r = push(x, list, (double)times[k - 1] + s * dt, q, width, times[k]))) return r;
            }
        }
        if ((r = push(x, list, (double)times[k], value, width, INFINITY))) return r;
        memcpy(prev, value, sizeof value);
    }
    return OSSA_OK;
}

/* The channel's outputs as floats: `elements` per key (1, or 3 for CUBICSPLINE) x `width`
 * (3, 4 or the target count for weights). */
static ossa_result channel_output(anim *x, size_t sampler, int path, size_t width, const char *use, float **values)
{
    const size_t n = x->time_count[sampler], per = x->interp[sampler] == INTERP_CUBIC ? 3 : 1;
    unsigned types = OSSA__GLTF_FLOAT;
    if (path == OSSA__GLTF_ROTATION || path == OSSA__GLTF_WEIGHTS) types |= OSSA__GLTF_NORMALIZED;
    if ((path == OSSA__GLTF_TRANSLATION || path == OSSA__GLTF_SCALE) && x->g->quantization)
        types |= OSSA__GLTF_NORMALIZED | OSSA__GLTF_INTEGER;
    const size_t components = path == OSSA__GLTF_WEIGHTS ? 1 : width;
    size_t count, expected;
    if (!ossa__mul_size(n * per, path == OSSA__GLTF_WEIGHTS ? width : 1, &expected))
        return FAIL(x, OSSA_ERROR_CORRUPT, "%s: %zu keys x %zu morph targets overflow", use, n, width);
    ossa_result r = ossa__gltf_read_accessor(x->g, x->output[sampler], use, types, components, values, &count);
    if (r) return r;
    if (count != expected) {
        ossa_free(x->g->a, *values);
        *values = NULL;
        return FAIL(x, OSSA_ERROR_CORRUPT, "accessors[%zu].count (%s): expected %zu (%zu keys%s%s), found %zu",
                    x->output[sampler], use, expected, n, per == 3 ? " x 3 for CUBICSPLINE" : "",
                    path == OSSA__GLTF_WEIGHTS ? " x the morph targets" : "", count);
    }
    return OSSA_OK;
}

/* Morph targets of the node's mesh, for a weights channel (spec 3.7.2.2). */
static ossa_result morph_targets(anim *x, size_t node, const char *use, const cJSON **mesh, size_t *targets)
{
    size_t m;
    char path[48];
    snprintf(path, sizeof path, "nodes[%zu]", node);
    ossa_result r = ossa__gltf_index(x->g, x->s->node[node], "mesh", path, x->s->mesh_count, "mesh", false, &m);
    if (r) return r;
    if (m == SIZE_MAX)
        return FAIL(x, OSSA_ERROR_CORRUPT, "%s: animates the weights of %s, which has no mesh", use, path);
    *mesh = item(x->s->meshes, m);
    const cJSON *prims = cJSON_GetObjectItemCaseSensitive(*mesh, "primitives");
    const cJSON *first = cJSON_IsArray(prims) ? prims->child : NULL;
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(first, "targets");
    *targets = 0;
    for (const cJSON *e = cJSON_IsArray(list) ? list->child : NULL; e; e = e->next) ++*targets;
    if (!*targets)
        return FAIL(x, OSSA_ERROR_CORRUPT,
                    "%s: animates the weights of meshes[%zu], whose first primitive has no "
                    "morph targets",
                    use, m);
    return OSSA_OK;
}

static ossa_result weights_tracks(anim *x, const ossa__gltf_channel *ch, size_t c, ossa_import_output *out)
{
    char use[96];
    snprintf(use, sizeof use, "animations[%zu].channels[%zu]", x->index, c);
    const cJSON *mesh = NULL;
    size_t targets = 0;
    float *values = NULL, *one = NULL;
    ossa_result r = morph_targets(x, ch->node, use, &mesh, &targets);
    if (!r) r = channel_output(x, ch->sampler, OSSA__GLTF_WEIGHTS, targets, use, &values);
    if (r) return r;
    const size_t n = x->time_count[ch->sampler], per = x->interp[ch->sampler] == INTERP_CUBIC ? 3 : 1;
    const float *times = x->times[ch->sampler];
    one = ossa__calloc(x->g->a, n * per, sizeof *one);
    if (!one) r = FAIL(x, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    const cJSON *names =
        cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(mesh, "extras"), "targetNames");
    const cJSON *mesh_name = cJSON_GetObjectItemCaseSensitive(mesh, "name");
    const cJSON *node_name = cJSON_GetObjectItemCaseSensitive(x->s->node[ch->node], "name");
    const cJSON *anim_name = cJSON_GetObjectItemCaseSensitive(item(x->s->animations, x->index), "name");
    for (size_t w = 0; !r && w < targets; ++w) {
        for (size_t k = 0; k < n * per; ++k) one[k] = values[k * targets + w];
        key_list list = {0};
        r = curve_keys(x, x->interp[ch->sampler], times, n, one, 1, false, true, use, &list);
        ossa_raw_track *t = NULL;
        if (!r && (r = ossa_import_output_add_track(out, OSSA_TRACK_FLOAT, list.count, &t)))
            r = FAIL(x, r, "cannot add a track of %zu keys", list.count);
        char name[300], prefix[80] = "", base[96], target[96];
        if (!r) {
            if (x->s->animation_count > 1) {
                if (cJSON_IsString(anim_name) && anim_name->valuestring[0])
                    snprintf(prefix, sizeof prefix, "%.70s/", anim_name->valuestring);
                else
                    snprintf(prefix, sizeof prefix, "%zu/", x->index);
            }
            if (cJSON_IsString(mesh_name) && mesh_name->valuestring[0])
                snprintf(base, sizeof base, "%.90s", mesh_name->valuestring);
            else if (cJSON_IsString(node_name) && node_name->valuestring[0])
                snprintf(base, sizeof base, "%.90s", node_name->valuestring);
            else
                snprintf(base, sizeof base, "nodes[%zu]", ch->node);
            const cJSON *tn = item(cJSON_IsArray(names) ? names : NULL, w);
            if (cJSON_IsString(tn) && tn->valuestring[0])
                snprintf(target, sizeof target, "%.90s", tn->valuestring);
            else
                snprintf(target, sizeof target, "%zu", w);
            snprintf(name, sizeof name, "%s%s.%s", prefix, base, target);
            if (ossa_raw_track_set_name(t, name)) r = FAIL(x, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        if (!r) {
            t->duration = (float)x->duration;
            size_t kept = 0;
            for (size_t k = 0; k < list.count; ++k) {
                float ratio = (float)((double)list.keys[k].time / x->duration);
                if (ratio > 1.f) ratio = 1.f;
                if (kept && !(ratio > t->keys[kept - 1].ratio)) continue;
                t->keys[kept].ratio = ratio;
                t->keys[kept].interpolation =
                    x->interp[ch->sampler] == INTERP_STEP ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
                t->keys[kept++].value[0] = list.keys[k].v[0];
            }
            t->key_count = kept;
        }
        ossa_free(x->g->a, list.keys);
    }
    ossa_free(x->g->a, one);
    ossa_free(x->g->a, values);
    return r;
}

/* Track `j` of `raw`: the channels `chan[3]` (SIZE_MAX: none, rest value). */
static ossa_result joint_track(anim *x, ossa_raw_animation *raw, size_t j, const ossa__gltf_channel *channels,
                               const size_t chan[3], const ossa_transform *rest)
{
    key_list lists[3] = {{0}};
    ossa_result r = OSSA_OK;
    const float rest_v[3][4] = {{rest->translation.x, rest->translation.y, rest->translation.z, 0.f},
                                {rest->rotation.x, rest->rotation.y, rest->rotation.z, rest->rotation.w},
                                {rest->scale.x, rest->scale.y, rest->scale.z, 0.f}};
    for (int p = 0; p < 3 && !r; ++p) {
        const size_t width = p == OSSA__GLTF_ROTATION ? 4 : 3;
        if (chan[p] == SIZE_MAX) {
            r = push(x, &lists[p], 0.0, rest_v[p], width, INFINITY);
            continue;
        }
        const ossa__gltf_channel *ch = &channels[chan[p]];
        char use[96];
        snprintf(use, sizeof use, "animations[%zu].channels[%zu]", x->index, chan[p]);
        float *values;
        if ((r = channel_output(x, ch->sampler, p, width, use, &values))) break;
        r = curve_keys(x, x->interp[ch->sampler], x->times[ch->sampler], x->time_count[ch->sampler], values, width,
                       p == OSSA__GLTF_ROTATION, false, use, &lists[p]);
        ossa_free(x->g->a, values);
    }
    if (!r && (r = ossa_raw_joint_track_resize(raw, j, lists[0].count, lists[1].count, lists[2].count)))
        r = FAIL(x, r, "cannot allocate the keys of track %zu", j);
    if (!r) {
        ossa_raw_joint_track *t = &raw->tracks[j];
        for (size_t k = 0; k < lists[0].count; ++k)
            t->translations[k] = (ossa_raw_float3_key){
                lists[0].keys[k].time, {lists[0].keys[k].v[0], lists[0].keys[k].v[1], lists[0].keys[k].v[2]}};
        for (size_t k = 0; k < lists[1].count; ++k)
            t->rotations[k] = (ossa_raw_quat_key){
                lists[1].keys[k].time,
                {lists[1].keys[k].v[0], lists[1].keys[k].v[1], lists[1].keys[k].v[2], lists[1].keys[k].v[3]}};
        for (size_t k = 0; k < lists[2].count; ++k)
            t->scales[k] = (ossa_raw_float3_key){lists[2].keys[k].time,
                                                 {lists[2].keys[k].v[0], lists[2].keys[k].v[1], lists[2].keys[k].v[2]}};
    }
    for (int p = 0; p < 3; ++p) ossa_free(x->g->a, lists[p].keys);
    return r;
}

/* The earlier channel that animates the weights of `node` (for the message). */
static size_t first_weights(const ossa__gltf_channel *parsed, size_t count, size_t node)
{
    for (size_t i = 0; i < count; ++i)
        if (parsed[i].node == node && parsed[i].path == OSSA__GLTF_WEIGHTS) return i;
    return count;
}

static ossa_result convert(anim *x, const cJSON *json, ossa_import_output *out)
{
    ossa__gltf_scene *s = x->s;
    char path[48];
    snprintf(path, sizeof path, "animations[%zu]", x->index);
    const cJSON *channels;
    size_t channel_count;
    ossa_result r = ossa__gltf_array(x->g, json, "channels", path, &channels, &channel_count);
    if (!r) r = ossa__gltf_array(x->g, json, "samplers", path, &x->samplers, &x->sampler_count);
    if (r) return r;
    const ossa_allocator *a = x->g->a;
    ossa__gltf_channel *parsed = ossa__calloc(a, channel_count + 1, sizeof *parsed);
    size_t *chan = ossa__calloc(a, s->joint_count * 3 + 1, sizeof *chan);
    x->times = ossa__calloc(a, x->sampler_count + 1, sizeof *x->times);
    x->time_count = ossa__calloc(a, x->sampler_count + 1, sizeof *x->time_count);
    x->interp = ossa__calloc(a, x->sampler_count + 1, sizeof *x->interp);
    x->output = ossa__calloc(a, x->sampler_count + 1, sizeof *x->output);
    x->sampler = ossa__calloc(a, x->sampler_count + 1, sizeof *x->sampler);
    uint8_t *weighted = ossa__calloc(a, s->node_count + 1, 1); /* nodes with a weights channel */
    if (!parsed || !chan || !x->times || !x->time_count || !x->interp || !x->output || !x->sampler || !weighted) {
        r = FAIL(x, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %s", path);
        goto done;
    }
    for (size_t i = 0; i < s->joint_count * 3; ++i) chan[i] = SIZE_MAX;
    size_t n = 0;
    for (const cJSON *e = x->samplers ? x->samplers->child : NULL; e; e = e->next) x->sampler[n++] = e;
    /* Targets, duplicates (one channel per node and path, spec 3.11) and the duration. */
    size_t c = 0;
    double last = 0;
    for (const cJSON *e = channels ? channels->child : NULL; e; e = e->next, ++c) {
        ossa__gltf_channel *ch = &parsed[c];
        if ((r = ossa__gltf_parse_channel(s, x->index, c, e, x->sampler_count, ch))) goto done;
        if (ch->node == SIZE_MAX) continue;
        size_t *slot = ch->path <= OSSA__GLTF_SCALE ? &chan[(size_t)s->joint[ch->node] * 3 + (size_t)ch->path] : NULL;
        if (slot ? *slot != SIZE_MAX : weighted[ch->node]) {
            r = FAIL(x, OSSA_ERROR_CORRUPT, "%s.channels[%zu]: targets node %zu and path %s as channels[%zu] does",
                     path, c, ch->node,
                     ch->path == OSSA__GLTF_WEIGHTS    ? "weights"
                     : ch->path == OSSA__GLTF_ROTATION ? "rotation"
                     : ch->path == OSSA__GLTF_SCALE    ? "scale"
                                                       : "translation",
                     slot ? *slot : first_weights(parsed, c, ch->node));
            goto done;
        }
        if (slot)
            *slot = c;
        else
            weighted[ch->node] = 1;
        if ((r = sampler_input(x, ch->sampler))) goto done;
        const double end = (double)x->times[ch->sampler][x->time_count[ch->sampler] - 1];
        if (end > last) last = end;
    }
    x->duration = last > 0 ? last : 1.0 / 60.0;
    if (s->joint_count) {
        ossa_raw_animation *raw = NULL;
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(json, "name");
        if ((r = ossa_import_output_add_animation(out, s->joint_count, &raw)) ||
            (r = ossa_raw_animation_set_name(raw, cJSON_IsString(name) ? name->valuestring : ""))) {
            r = FAIL(x, r, "cannot add %s", path);
            goto done;
        }
        raw->duration = (float)x->duration;
        for (size_t j = 0; j < s->joint_count && !r; ++j)
            r = joint_track(x, raw, j, parsed, chan + 3 * j, &out->skeleton.joints[j].rest);
    }
    for (size_t i = 0; i < channel_count && !r; ++i)
        if (parsed[i].node != SIZE_MAX && parsed[i].path == OSSA__GLTF_WEIGHTS)
            r = weights_tracks(x, &parsed[i], i, out);
done:
    for (size_t i = 0; x->times && i < x->sampler_count; ++i) ossa_free(a, x->times[i]);
    ossa_free(a, parsed);
    ossa_free(a, chan);
    ossa_free(a, weighted);
    return r;
}

ossa_result ossa__gltf_animation(ossa__gltf_scene *s, size_t index, ossa_import_output *out)
{
    anim x = {.s = s, .g = s->g, .index = index};
    const cJSON *json = item(s->animations, index);
    ossa_result r = convert(&x, json, out);
    ossa_free(s->g->a, x.times);
    ossa_free(s->g->a, x.time_count);
    ossa_free(s->g->a, x.interp);
    ossa_free(s->g->a, x.output);
    ossa_free(s->g->a, (void *)x.sampler);
    return r;
}

#endif
