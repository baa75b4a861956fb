/* Maya .anim to ossa raw data: curves grouped by node, bound to joints and evaluated at a fixed
 * rate; every sample is kept, the builders reduce (see ossa_import_maya_anim in import_maya.h). */
#include "import_internal.h"
#include "import/maya_curve.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

enum { CH_TX, CH_TY, CH_TZ, CH_RX, CH_RY, CH_RZ, CH_SX, CH_SY, CH_SZ, CH_COUNT };

/* Long and short names of the transform attributes, in channel order. */
static const char *const channel_names[CH_COUNT][2] = {{"translateX", "tx"}, {"translateY", "ty"}, {"translateZ", "tz"},
                                                       {"rotateX", "rx"},    {"rotateY", "ry"},    {"rotateZ", "rz"},
                                                       {"scaleX", "sx"},     {"scaleY", "sy"},     {"scaleZ", "sz"}};

/* The sampling grid: index i < count - 1 is at i / rate seconds, the last is the clip end. */
typedef struct clip {
    double fps;     /* header frames per second */
    double start_f; /* clip start and end in header frames */
    double end_f;
    double last_key_f; /* the last key of any time curve, header frames (-inf without keys) */
    double rate;       /* samples per second */
    double duration;   /* seconds */
    size_t count;      /* samples */
} clip;

typedef struct context {
    const ossa_maya_anim *anim;
    const ossa_maya_desc *desc;
    ossa_import_output *out;
    ossa_diag *diag;
    clip clip;
    const char *order;
    float *times;   /* [count] seconds from the clip start */
    float *values;  /* [count][4] */
    bool *step;     /* [count] */
    float *kept[3]; /* [count][5] (time, value) rows per joint channel */
} context;

static int channel_of(const ossa_maya_curve *c)
{
    const char *leaf = c->leaf && *c->leaf ? c->leaf : c->attribute;
    if (!leaf) return CH_COUNT;
    for (int i = 0; i < CH_COUNT; ++i)
        if (!strcmp(leaf, channel_names[i][0]) || !strcmp(leaf, channel_names[i][1])) return i;
    return CH_COUNT;
}

/* Time of sample i in curve c's input units. Same-rate curves use header frames directly so
 * that samples on key frames land exactly on the keys (step spans switch there). */
static double curve_time(const clip *cl, const ossa_maya_curve *c, size_t i)
{
    const bool same = c->frame_rate == cl->fps;
    if (i + 1 == cl->count) return same ? cl->end_f : cl->end_f / cl->fps * c->frame_rate;
    if (same) return cl->start_f + (double)i * (cl->fps / cl->rate);
    return (cl->start_f / cl->fps + (double)i / cl->rate) * c->frame_rate;
}

static ossa_result bad_value(context *cx, const ossa_maya_curve *c, size_t i)
{
    return ossa_diag_set(cx->diag, OSSA_ERROR_INVALID_KEY, SIZE_MAX, c->line, 1,
                         "curve %s.%s (anim statement at line %u) does not evaluate to a finite float at %g s", c->node,
                         c->attribute, (unsigned)c->line, (double)cx->times[i]);
}

/* Samples curve c (or the constant `rest` when c is NULL) into component `comp` of values. */
static ossa_result sample_curve(context *cx, const ossa_maya_curve *c, double scale, float rest, size_t comp)
{
    for (size_t i = 0; i < cx->clip.count; ++i) {
        if (!c) {
            cx->values[i * 4 + comp] = rest;
            continue;
        }
        const double v = ossa_maya_curve_evaluate(c, curve_time(&cx->clip, c, i)) * scale;
        if (!(fabs(v) <= (double)FLT_MAX)) return bad_value(cx, c, i);
        cx->values[i * 4 + comp] = (float)v;
    }
    return OSSA_OK;
}

/* Euler angles (radians, per axis x, y, z) of unit quaternion q for rotate order `order`
 * (order[0] applied first: R = R_k R_j R_i). */
static void quat_to_euler(ossa_quat q, const char *order, double euler[3])
{
    const double x = (double)q.x, y = (double)q.y, z = (double)q.z, w = (double)q.w;
    const double m[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)},
                            {2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)},
                            {2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)}};
    const int i = order[0] - 'x', j = order[1] - 'x', k = order[2] - 'x';
    const double parity = ((j - i + 3) % 3 == 1) ? 1.0 : -1.0; /* +1 for xyz, yzx, zxy */
    double s = -parity * m[k][i];
    s = s > 1.0 ? 1.0 : (s < -1.0 ? -1.0 : s);
    euler[i] = atan2(parity * m[k][j], m[k][k]);
    euler[j] = asin(s);
    euler[k] = atan2(parity * m[j][i], m[i][i]);
}

static ossa_result alloc_fail(context *cx) { return ossa__fail(cx->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory"); }

/* Samples channel ch (0 translation, 1 rotation, 2 scale) of a joint into cx->kept[ch] as
 * (time, value[4]) rows, one per sample; returns the key count through *count. */
static ossa_result bake_channel(context *cx, int ch, const ossa_maya_curve *const *cc, const ossa_transform *rest,
                                size_t *count)
{
    ossa_result r;
    if (ch == 1) {
        double e[3];
        quat_to_euler(ossa_quat_normalize(rest->rotation), cx->order, e);
        for (int c = 0; c < 3; ++c)
            if ((r = sample_curve(cx, cc[c], cc[c] ? cc[c]->angular_scale : 1.0, (float)e[c], (size_t)c)) != OSSA_OK)
                return r;
        ossa_quat prev = {0.f, 0.f, 0.f, 1.f};
        for (size_t i = 0; i < cx->clip.count; ++i) {
            float *v = cx->values + i * 4;
            ossa_quat q = ossa_quat_from_euler(v[0], v[1], v[2], cx->order);
            if (i && q.x * prev.x + q.y * prev.y + q.z * prev.z + q.w * prev.w < 0.f)
                q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
            v[0] = q.x;
            v[1] = q.y;
            v[2] = q.z;
            v[3] = q.w;
            prev = q;
        }
    } else {
        const float *restv = ch == 0 ? &rest->translation.x : &rest->scale.x;
        for (int c = 0; c < 3; ++c) {
            const double scale = !cc[c] ? 1.0 : ch == 0 ? cc[c]->linear_scale : 1.0;
            if ((r = sample_curve(cx, cc[c], scale, restv[c], (size_t)c)) != OSSA_OK) return r;
        }
    }
    *count = cx->clip.count;
    for (size_t k = 0; k < *count; ++k) {
        float *row = cx->kept[ch] + k * 5;
        row[0] = cx->times[k];
        memcpy(row + 1, cx->values + k * 4, 4 * sizeof *row);
    }
    return OSSA_OK;
}

/* Fills joint track j from curves[9] (NULL where the channel has no curve); channels without
 * any curve get one key holding the rest pose. */
static ossa_result bake_joint(context *cx, ossa_raw_animation *ra, size_t j, const ossa_maya_curve *const *curves,
                              const ossa_transform *rest)
{
    size_t counts[3] = {1, 1, 1};
    bool has[3];
    for (int ch = 0; ch < 3; ++ch) {
        const ossa_maya_curve *const *cc = curves + 3 * ch;
        has[ch] = cc[0] || cc[1] || cc[2];
        if (has[ch]) {
            const ossa_result r = bake_channel(cx, ch, cc, rest, &counts[ch]);
            if (r != OSSA_OK) return r;
        }
    }
    if (ossa_raw_joint_track_resize(ra, j, counts[0], counts[1], counts[2]) != OSSA_OK) return alloc_fail(cx);
    ossa_raw_joint_track *tr = &ra->tracks[j];
    if (!has[0]) tr->translations[0] = (ossa_raw_float3_key){0.f, rest->translation};
    if (!has[1]) tr->rotations[0] = (ossa_raw_quat_key){0.f, rest->rotation};
    if (!has[2]) tr->scales[0] = (ossa_raw_float3_key){0.f, rest->scale};
    for (size_t k = 0; has[0] && k < counts[0]; ++k) {
        const float *row = cx->kept[0] + k * 5;
        tr->translations[k] = (ossa_raw_float3_key){row[0], {row[1], row[2], row[3]}};
    }
    for (size_t k = 0; has[1] && k < counts[1]; ++k) {
        const float *row = cx->kept[1] + k * 5;
        tr->rotations[k] = (ossa_raw_quat_key){row[0], {row[1], row[2], row[3], row[4]}};
    }
    for (size_t k = 0; has[2] && k < counts[2]; ++k) {
        const float *row = cx->kept[2] + k * 5;
        tr->scales[k] = (ossa_raw_float3_key){row[0], {row[1], row[2], row[3]}};
    }
    return OSSA_OK;
}

/* One OSSA_TRACK_FLOAT track for a non-transform time curve. */
static ossa_result bake_track(context *cx, const ossa_maya_curve *c)
{
    const size_t count = cx->clip.count;
    for (size_t i = 0; i < count; ++i) cx->step[i] = ossa__maya_curve_in_step_span(c, curve_time(&cx->clip, c, i));
    ossa_result r = sample_curve(cx, c, c->value_scale, 0.f, 0);
    const size_t n = r == OSSA_OK ? count : 0;
    ossa_raw_track *tr = NULL;
    if (r == OSSA_OK && ossa_import_output_add_track(cx->out, OSSA_TRACK_FLOAT, n, &tr) != OSSA_OK) r = alloc_fail(cx);
    char name[512];
    if (r == OSSA_OK) {
        if (*c->node)
            snprintf(name, sizeof name, "%s.%s", c->node, c->attribute);
        else if (*c->attribute)
            snprintf(name, sizeof name, "%s", c->attribute);
        else
            snprintf(name, sizeof name, "curve@%u", (unsigned)c->line);
        if (ossa_raw_track_set_name(tr, name) != OSSA_OK) r = alloc_fail(cx);
    }
    for (size_t k = 0; r == OSSA_OK && k < n; ++k) {
        const size_t i = k;
        float ratio = i + 1 == count ? 1.f : (float)((double)cx->times[i] / cx->clip.duration);
        tr->keys[k].ratio = ratio > 1.f ? 1.f : ratio;
        tr->keys[k].interpolation = cx->step[i] ? OSSA_INTERP_STEP : OSSA_INTERP_LINEAR;
        tr->keys[k].value[0] = cx->values[i * 4];
    }
    if (tr) tr->duration = (float)cx->clip.duration;
    memset(cx->step, 0, count * sizeof *cx->step);
    return r;
}

/* The clip range in header frames and the sampling grid. */
static ossa_result setup_clip(context *cx)
{
    const ossa_maya_anim *a = cx->anim;
    clip *cl = &cx->clip;
    cl->fps = a->frame_rate;
    double lo = HUGE_VAL, hi = -HUGE_VAL;
    for (size_t i = 0; i < a->curve_count; ++i) {
        const ossa_maya_curve *c = &a->curves[i];
        if (c->unitless_input || !c->key_count || !(c->frame_rate > 0.0)) continue;
        lo = fmin(lo, c->keys[0].time / c->frame_rate * cl->fps);
        hi = fmax(hi, c->keys[c->key_count - 1].time / c->frame_rate * cl->fps);
    }
    cl->last_key_f = hi;
    cl->start_f = a->has_start_time ? a->start_time : (isfinite(lo) ? lo : 0.0);
    cl->end_f = a->has_end_time ? a->end_time : (isfinite(hi) ? hi : cl->start_f);
    if (cl->end_f < cl->start_f)
        return ossa__fail(cx->diag, OSSA_ERROR_INVALID_ANIMATION, "clip ends (frame %g) before it starts (frame %g)",
                          cl->end_f, cl->start_f);
    const double desc_rate = (double)cx->desc->sample_rate;
    cl->rate = desc_rate > 0.0 ? desc_rate : (cl->fps >= 15.0 && cl->fps <= 240.0) ? cl->fps : 30.0;
    cl->duration = (cl->end_f - cl->start_f) / cl->fps;
    if (!(cl->duration > 0.0)) {
        cl->duration = 1.0 / cl->rate;
        cl->end_f = cl->start_f + cl->fps / cl->rate;
    }
    if (cl->duration > (double)OSSA_RAW_ANIMATION_MAX_DURATION)
        return ossa__fail(cx->diag, OSSA_ERROR_INVALID_ANIMATION,
                          "the clip runs from frame %g to %g, %g s; expected at most %g s (a day)", cl->start_f,
                          cl->end_f, cl->duration, (double)OSSA_RAW_ANIMATION_MAX_DURATION);
    const double intervals = cl->duration * cl->rate;
    if (!(intervals <= (double)(OSSA_MAYA_MAX_SAMPLES - 2)) || !isfinite(cl->end_f))
        return ossa__fail(cx->diag, OSSA_ERROR_INVALID_ANIMATION,
                          "a clip of %g s at %g Hz needs more than %d samples (lower the sample rate)", cl->duration,
                          cl->rate, OSSA_MAYA_MAX_SAMPLES);
    const size_t grid = (size_t)floor(intervals + 1e-9) + 1;
    /* The end becomes its own sample unless the last grid time is within 1 % of an interval. */
    cl->count = cl->duration - (double)(grid - 1) / cl->rate > 0.01 / cl->rate ? grid + 1 : grid;
    if (cl->count < 2) cl->count = 2;
    return OSSA_OK;
}

/* A node or joint name without DAG path and namespaces ("|rig|ns:hips" -> "hips"). */
static const char *short_name(const char *name)
{
    const char *bar = strrchr(name, '|');
    if (bar) name = bar + 1;
    const char *colon = strrchr(name, ':');
    return colon ? colon + 1 : name;
}

static size_t find_joint(const ossa_raw_skeleton *s, const char *node)
{
    for (size_t j = 0; j < s->joint_count; ++j)
        if (s->joints[j].name && !strcmp(s->joints[j].name, node)) return j;
    for (size_t j = 0; j < s->joint_count; ++j)
        if (s->joints[j].name && !strcmp(short_name(node), short_name(s->joints[j].name))) return j;
    return SIZE_MAX;
}

static ossa_result build_skeleton(context *cx, size_t *node_joint)
{
    const ossa_raw_skeleton *bind = cx->desc->bind_skeleton;
    const ossa_maya_anim *a = cx->anim;
    ossa_raw_skeleton *s = &cx->out->skeleton;
    const size_t n = bind ? bind->joint_count : a->node_count;
    if (n && ossa_raw_skeleton_create(s, n, &cx->out->allocator) != OSSA_OK) return alloc_fail(cx);
    for (size_t j = 0; j < n; ++j) {
        if (ossa_raw_skeleton_set_name(s, j, bind ? bind->joints[j].name : a->nodes[j]) != OSSA_OK)
            return alloc_fail(cx);
        if (bind) {
            s->joints[j].parent = bind->joints[j].parent;
            s->joints[j].rest = bind->joints[j].rest;
        } else {
            s->joints[j].parent = a->parents[j]; /* depth-first: parents come first */
        }
    }
    for (size_t i = 0; i < a->node_count; ++i) node_joint[i] = bind ? find_joint(bind, a->nodes[i]) : i;
    return OSSA_OK;
}

/* Where the hierarchy comes from ("skeleton", "file" or "flat") and, with a bound skeleton, a
 * warning when the file's tree gives a bound node another parent than the skeleton does
 * (between nodes both bound: the skeleton may have joints the clip does not list). */
static ossa_result add_hierarchy(context *cx, const size_t *node_joint)
{
    const ossa_maya_anim *a = cx->anim;
    size_t roots = 0, differ = 0, first = SIZE_MAX;
    for (size_t i = 0; i < a->node_count; ++i) {
        roots += a->parents[i] < 0;
        const size_t parent = a->parents[i] < 0 ? SIZE_MAX : (size_t)a->parents[i];
        if (!cx->desc->bind_skeleton || node_joint[i] == SIZE_MAX || parent == SIZE_MAX ||
            node_joint[parent] == SIZE_MAX)
            continue;
        if (cx->desc->bind_skeleton->joints[node_joint[i]].parent != (int32_t)node_joint[parent]) {
            differ += 1;
            if (first == SIZE_MAX) first = i;
        }
    }
    const char *source = cx->desc->bind_skeleton ? "skeleton" : roots < a->node_count ? "file" : "flat";
    char text[512];
    snprintf(text, sizeof text, "%zu", roots);
    if (ossa_import_output_add_metadata(cx->out, "hierarchy", source) != OSSA_OK ||
        ossa_import_output_add_metadata(cx->out, "hierarchy_roots", text) != OSSA_OK)
        return alloc_fail(cx);
    if (!differ) return OSSA_OK;
    const ossa_raw_skeleton *bind = cx->desc->bind_skeleton;
    const int32_t bound_parent = bind->joints[node_joint[first]].parent;
    snprintf(text, sizeof text,
             "%zu node%s of the file sit under another parent than in the bound skeleton, whose hierarchy is used "
             "(first: %.80s under %.80s in the file, under %.80s in the skeleton)",
             differ, differ == 1 ? "" : "s", a->nodes[first], a->nodes[a->parents[first]],
             bound_parent < 0 ? "no joint" : bind->joints[bound_parent].name);
    return ossa_import_output_add_metadata(cx->out, "warning", text) != OSSA_OK ? alloc_fail(cx) : OSSA_OK;
}

static ossa_result add_metadata(context *cx, size_t unitless, const char *unmatched)
{
    const ossa_maya_anim *a = cx->anim;
    char buf[8][64];
    snprintf(buf[0], sizeof buf[0], "%d.%d", a->version / 10, a->version % 10);
    snprintf(buf[1], sizeof buf[1], "%.9g", a->linear_scale);
    snprintf(buf[2], sizeof buf[2], "%.9g", a->frame_rate);
    snprintf(buf[3], sizeof buf[3], "%.9g", cx->clip.rate);
    snprintf(buf[5], sizeof buf[5], "%.9g", cx->clip.start_f / cx->clip.fps);
    snprintf(buf[6], sizeof buf[6], "%zu", a->curve_count);
    snprintf(buf[7], sizeof buf[7], "%zu", unitless);
    const char *pairs[][2] = {{"format", "maya-anim"},
                              {"anim_version", buf[0]},
                              {"maya_version", a->maya_version},
                              {"source_units", a->linear_unit},
                              {"unit_scale", "1"}, /* values are converted to metres */
                              {"source_unit_scale", buf[1]},
                              {"time_unit", a->time_unit},
                              {"frame_rate", buf[2]},
                              {"angular_unit", a->angular_unit},
                              {"rotate_order", cx->order},
                              {"sample_rate", buf[3]},
                              {"start_time", buf[5]},
                              {"curves", buf[6]},
                              {"unitless_input_curves", unitless ? buf[7] : NULL},
                              {"unmatched_nodes", unmatched}};
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; ++i)
        if (pairs[i][1] && ossa_import_output_add_metadata(cx->out, pairs[i][0], pairs[i][1]) != OSSA_OK)
            return alloc_fail(cx);
    /* Keys that stop more than half a frame before the declared end: a file cut short (or a
     * clip that holds its last pose); the bake goes on, the user is told. */
    if (a->has_end_time && isfinite(cx->clip.last_key_f) && cx->clip.last_key_f < a->end_time - 0.5) {
        char text[160];
        snprintf(text, sizeof text,
                 "the last key is at frame %g but endTime is %g: the last pose is held for %g s (file cut short?)",
                 cx->clip.last_key_f, a->end_time, (a->end_time - cx->clip.last_key_f) / cx->clip.fps);
        if (ossa_import_output_add_metadata(cx->out, "warning", text) != OSSA_OK) return alloc_fail(cx);
    }
    return OSSA_OK;
}

/* "a,b,c" of the nodes flagged in `unmatched` (NULL when none). */
static char *join_unmatched(context *cx, const bool *unmatched, bool *failed)
{
    const ossa_maya_anim *a = cx->anim;
    size_t len = 0;
    for (size_t i = 0; i < a->node_count; ++i)
        if (unmatched[i]) len += strlen(a->nodes[i]) + 1;
    if (!len) return NULL;
    char *s = ossa_alloc(&cx->out->allocator, len), *p = s;
    if (!s) {
        *failed = true;
        return NULL;
    }
    for (size_t i = 0; i < a->node_count; ++i)
        if (unmatched[i]) {
            if (p != s) *p++ = ',';
            const size_t n = strlen(a->nodes[i]);
            memcpy(p, a->nodes[i], n);
            p += n;
        }
    *p = '\0';
    return s;
}

static ossa_result run(context *cx)
{
    const ossa_maya_anim *a = cx->anim;
    const ossa_allocator *al = &cx->out->allocator;
    const size_t joints = cx->desc->bind_skeleton ? cx->desc->bind_skeleton->joint_count : a->node_count;
    if (joints > OSSA_MAX_JOINTS)
        return ossa__fail(cx->diag, OSSA_ERROR_TOO_MANY_JOINTS,
                          "%zu nodes make more joints than OSSA_MAX_JOINTS (%d); bind to a skeleton instead", joints,
                          OSSA_MAX_JOINTS);
    ossa_result r = setup_clip(cx);
    if (r != OSSA_OK) return r;
    const size_t n = cx->clip.count;
    cx->times = ossa__calloc(al, n, sizeof *cx->times);
    cx->values = ossa__calloc(al, n * 4, sizeof *cx->values);
    cx->step = ossa__calloc(al, n, sizeof *cx->step);
    for (int ch = 0; ch < 3; ++ch) cx->kept[ch] = ossa__calloc(al, n * 5, sizeof *cx->kept[ch]);
    size_t *node_joint = ossa__calloc(al, a->node_count + 1, sizeof *node_joint);
    bool *unmatched = ossa__calloc(al, a->node_count + 1, sizeof *unmatched);
    bool *is_track = ossa__calloc(al, a->curve_count + 1, sizeof *is_track);
    const ossa_maya_curve **curves = ossa__calloc(al, joints * CH_COUNT + 1, sizeof *curves);
    char *unmatched_list = NULL;
    if (!cx->times || !cx->values || !cx->step || !cx->kept[0] || !cx->kept[1] || !cx->kept[2] || !node_joint ||
        !unmatched || !is_track || !curves) {
        r = alloc_fail(cx);
        goto done;
    }
    for (size_t i = 0; i < n; ++i) cx->times[i] = (float)(i + 1 == n ? cx->clip.duration : (double)i / cx->clip.rate);
    if ((r = build_skeleton(cx, node_joint)) != OSSA_OK) goto done;
    size_t unitless = 0;
    for (size_t i = 0; i < a->curve_count; ++i) {
        const ossa_maya_curve *c = &a->curves[i];
        const int ch = channel_of(c);
        if (c->unitless_input)
            ++unitless;
        else if (ch == CH_COUNT || c->node_index == SIZE_MAX)
            is_track[i] = true;
        else if (node_joint[c->node_index] == SIZE_MAX)
            unmatched[c->node_index] = true;
        else if (!curves[node_joint[c->node_index] * CH_COUNT + (size_t)ch] && c->key_count)
            curves[node_joint[c->node_index] * CH_COUNT + (size_t)ch] = c;
    }
    if (joints) {
        ossa_raw_animation *ra;
        if (ossa_import_output_add_animation(cx->out, joints, &ra) != OSSA_OK) {
            r = alloc_fail(cx);
            goto done;
        }
        ra->duration = (float)cx->clip.duration;
        for (size_t j = 0; r == OSSA_OK && j < joints; ++j)
            r = bake_joint(cx, ra, j, curves + j * CH_COUNT, &cx->out->skeleton.joints[j].rest);
    }
    for (size_t i = 0; r == OSSA_OK && i < a->curve_count; ++i)
        if (is_track[i] && a->curves[i].key_count) r = bake_track(cx, &a->curves[i]);
    bool failed = false;
    if (r == OSSA_OK) unmatched_list = join_unmatched(cx, unmatched, &failed);
    if (r == OSSA_OK) r = failed ? alloc_fail(cx) : add_metadata(cx, unitless, unmatched_list);
    if (r == OSSA_OK) r = add_hierarchy(cx, node_joint);
done:
    ossa_free(al, unmatched_list);
    ossa_free(al, (void *)curves);
    ossa_free(al, is_track);
    ossa_free(al, unmatched);
    ossa_free(al, node_joint);
    for (int ch = 0; ch < 3; ++ch) ossa_free(al, cx->kept[ch]);
    ossa_free(al, cx->step);
    ossa_free(al, cx->values);
    ossa_free(al, cx->times);
    return r;
}

ossa_result ossa_import_maya_anim(const void *data, size_t size, const ossa_maya_desc *desc, ossa_import_output *out,
                                  ossa_diag *diag)
{
    static const ossa_maya_desc defaults;
    if (!desc) desc = &defaults;
    if (out && desc->bind_skeleton == &out->skeleton)
        return ossa__fail(diag, OSSA_ERROR_ALIASING, "the bind skeleton is the output's skeleton");
    ossa_result r = ossa__import_begin(out, data, size, desc->allocator, "Maya .anim", diag);
    if (r != OSSA_OK) return r;
    char order[4] = "xyz";
    if (desc->rotate_order) {
        const char *o = desc->rotate_order;
        if (strlen(o) != 3 || !strchr("xyzXYZ", o[0]) || !strchr("xyzXYZ", o[1]) || !strchr("xyzXYZ", o[2]))
            return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "rotate_order \"%.8s\" is not a permutation of xyz",
                              o);
        for (int i = 0; i < 3; ++i) order[i] = (char)(o[i] | 0x20);
        if (order[0] == order[1] || order[1] == order[2] || order[0] == order[2])
            return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "rotate_order \"%s\" is not a permutation of xyz",
                              order);
    }
    const float rate = desc->sample_rate;
    if (!isfinite(rate) || rate < 0.f || (rate > 0.f && rate < 0.001f) || rate > 100000.f)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "sample_rate %g is outside (0.001, 100000] Hz",
                          (double)rate);
    if (desc->bind_skeleton && (r = ossa_raw_skeleton_validate(desc->bind_skeleton, diag)) != OSSA_OK) return r;
    ossa_maya_anim anim;
    if ((r = ossa_maya_anim_parse(data, size, &out->allocator, &anim, diag)) != OSSA_OK) return r;
    context cx = {.anim = &anim, .desc = desc, .out = out, .diag = diag, .order = order};
    r = run(&cx);
    ossa_maya_anim_destroy(&anim);
    return ossa__import_end(out, r, diag);
}
