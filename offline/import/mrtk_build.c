#include "import/mrtk_internal.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define MAX_SAMPLES ((size_t)1 << 20)

/* clang-format off */
static const char *const joint_names[OSSA_MRTK_HAND_JOINT_COUNT] = {
    "None", "Wrist", "Palm", "ThumbMetacarpalJoint", "ThumbProximalJoint", "ThumbDistalJoint", "ThumbTip",
    "IndexMetacarpal", "IndexKnuckle", "IndexMiddleJoint", "IndexDistalJoint", "IndexTip",
    "MiddleMetacarpal", "MiddleKnuckle", "MiddleMiddleJoint", "MiddleDistalJoint", "MiddleTip",
    "RingMetacarpal", "RingKnuckle", "RingMiddleJoint", "RingDistalJoint", "RingTip",
    "PinkyMetacarpal", "PinkyKnuckle", "PinkyMiddleJoint", "PinkyDistalJoint", "PinkyTip",
};

/* MRTK's finger chains: every metacarpal and the palm hang from the wrist, the wrist from
 * the None slot (the hand's root). */
static const int8_t joint_parents[OSSA_MRTK_HAND_JOINT_COUNT] = {
    -1, 0, 1,
    1, 3, 4, 5,
    1, 7, 8, 9, 10,
    1, 12, 13, 14, 15,
    1, 17, 18, 19, 20,
    1, 22, 23, 24, 25,
};
/* clang-format on */

static const char *const pose_parts[OSSA__MRTK_POSE_CURVES] = {"position.x", "position.y", "position.z", "rotation.x",
                                                               "rotation.y", "rotation.z", "rotation.w"};
static const char *const state_names[4] = {"hand_left/tracked", "hand_right/tracked", "hand_left/pinching",
                                           "hand_right/pinching"};
static const char *const gaze_parts[6] = {"origin.x",    "origin.y",    "origin.z",
                                          "direction.x", "direction.y", "direction.z"};

void ossa__mrtk_curve_name(size_t index, char *buffer, size_t size)
{
    if (index < OSSA__MRTK_CURVE_STATE) {
        snprintf(buffer, size, "camera %s", pose_parts[index]);
    } else if (index < OSSA__MRTK_CURVE_HANDS) {
        snprintf(buffer, size, "%s", state_names[index - OSSA__MRTK_CURVE_STATE]);
    } else if (index < OSSA__MRTK_CURVE_GAZE) {
        const size_t j = index - OSSA__MRTK_CURVE_HANDS;
        snprintf(buffer, size, "%s/%s %s", j < OSSA__MRTK_HAND_CURVES ? "hand_left" : "hand_right",
                 joint_names[(j % OSSA__MRTK_HAND_CURVES) / OSSA__MRTK_POSE_CURVES],
                 pose_parts[j % OSSA__MRTK_POSE_CURVES]);
    } else {
        snprintf(buffer, size, "eye_gaze %s", gaze_parts[index - OSSA__MRTK_CURVE_GAZE]);
    }
}

typedef struct sampler {
    const ossa__mrtk_recording *rec;
    ossa_diag *diag;
    size_t n;        /* samples */
    float duration;  /* seconds the samples span, > 0 */
    float *times;    /* [n] */
    float *ratios;   /* [n] */
    ossa_float3 *v3; /* [n] translations or gaze vectors */
    ossa_quat *q;    /* [n] rotations */
} sampler;

static ossa_result eval_curves(sampler *s, size_t first, size_t count, float time, float *v)
{
    for (size_t c = 0; c < count; ++c) {
        v[c] = ossa__unity_curve_evaluate(&s->rec->curves[first + c].c, time);
        if (!isfinite(v[c])) {
            char name[64];
            ossa__mrtk_curve_name(first + c, name, sizeof name);
            return ossa__fail_at(s->diag, OSSA_ERROR_INVALID_KEY, s->rec->curves[first + c].offset,
                                 "curve '%s' evaluates to %g at %g s; expected a finite value (values, tangents "
                                 "or weights too large)",
                                 name, (double)v[c], (double)time);
        }
    }
    return OSSA_OK;
}

/* World pose of a pose slot (MRTK PoseCurves.Evaluate: 7 curves, rotation normalised). */
static ossa_result eval_pose(sampler *s, size_t first, float time, ossa_float3 *pos, ossa_quat *rot)
{
    float v[OSSA__MRTK_POSE_CURVES] = {0};
    ossa_result res = eval_curves(s, first, OSSA__MRTK_POSE_CURVES, time, v);
    *pos = (ossa_float3){v[0], v[1], v[2]};
    *rot = ossa_quat_normalize((ossa_quat){v[3], v[4], v[5], v[6]});
    return res;
}

/* Samples joint `joint` in local space and writes every sample as a key, and its rest pose. */
static ossa_result build_joint(sampler *s, size_t joint, ossa_import_output *out)
{
    size_t first, parent_first = SIZE_MAX;
    if (joint == OSSA_MRTK_JOINT_CAMERA) {
        first = OSSA__MRTK_CURVE_CAMERA;
    } else {
        const size_t hand = (joint - OSSA_MRTK_JOINT_HAND_LEFT) / OSSA_MRTK_HAND_JOINT_COUNT;
        const size_t k = (joint - OSSA_MRTK_JOINT_HAND_LEFT) % OSSA_MRTK_HAND_JOINT_COUNT;
        first = OSSA__MRTK_CURVE_HANDS + hand * OSSA__MRTK_HAND_CURVES + k * OSSA__MRTK_POSE_CURVES;
        if (joint_parents[k] >= 0)
            parent_first = OSSA__MRTK_CURVE_HANDS + hand * OSSA__MRTK_HAND_CURVES +
                           (size_t)joint_parents[k] * OSSA__MRTK_POSE_CURVES;
    }
    for (size_t i = 0; i < s->n; ++i) {
        ossa_float3 p;
        ossa_quat q;
        ossa_result res = eval_pose(s, first, s->times[i], &p, &q);
        if (res != OSSA_OK) return res;
        if (parent_first != SIZE_MAX) {
            ossa_float3 pp;
            ossa_quat pq;
            res = eval_pose(s, parent_first, s->times[i], &pp, &pq);
            if (res != OSSA_OK) return res;
            const ossa_quat inv = {-pq.x, -pq.y, -pq.z, pq.w};
            p = ossa_quat_rotate(inv, (ossa_float3){p.x - pp.x, p.y - pp.y, p.z - pp.z});
            q = ossa_quat_normalize(ossa_quat_mul(inv, q));
            if (!isfinite(p.x) || !isfinite(p.y) || !isfinite(p.z)) {
                char name[64];
                ossa__mrtk_curve_name(first, name, sizeof name);
                return ossa__fail_at(s->diag, OSSA_ERROR_INVALID_KEY, s->rec->curves[first].offset,
                                     "curve '%s': the position relative to the parent joint overflows at %g s; "
                                     "expected positions within the float range",
                                     name, (double)s->times[i]);
            }
        }
        if (i > 0) {
            const ossa_quat prev = s->q[i - 1];
            if (prev.x * q.x + prev.y * q.y + prev.z * q.z + prev.w * q.w < 0.f)
                q = (ossa_quat){-q.x, -q.y, -q.z, -q.w};
        }
        s->v3[i] = p;
        s->q[i] = q;
    }
    ossa_raw_joint *rj = &out->skeleton.joints[joint];
    rj->rest.translation = s->v3[0];
    rj->rest.rotation = s->q[0];
    ossa_raw_animation *anim = &out->animations[0];
    /* A channel that never changes (a joint the file does not record) is one key: exact. */
    bool moves = false, turns = false;
    for (size_t i = 1; i < s->n; ++i) {
        moves = moves || memcmp(&s->v3[i], &s->v3[0], sizeof s->v3[0]);
        turns = turns || memcmp(&s->q[i], &s->q[0], sizeof s->q[0]);
    }
    const size_t nt = moves ? s->n : 1, nr = turns ? s->n : 1;
    ossa_result res = ossa_raw_joint_track_resize(anim, joint, nt, nr, 0);
    if (res == OSSA_OK) {
        ossa_raw_joint_track *t = &anim->tracks[joint];
        for (size_t i = 0; i < nt; ++i) t->translations[i] = (ossa_raw_float3_key){s->times[i], s->v3[i]};
        for (size_t i = 0; i < nr; ++i) t->rotations[i] = (ossa_raw_quat_key){s->times[i], s->q[i]};
    }
    if (res != OSSA_OK) return ossa__fail(s->diag, res, "out of memory for joint %zu", joint);
    return OSSA_OK;
}

/* Hand state as a ratio-keyed step track, keyed where the thresholded value changes. The
 * candidate times are the sample grid (for wrapped curves) merged with the key times. */
static size_t state_keys(const sampler *s, const ossa__mrtk_curve *c, ossa_raw_track_key *keys)
{
    size_t count = 0, g = 0, k = 0;
    float last_ratio = -1.f, last_value = -1.f, prev_time = -1.f;
    while (g < s->n) {
        float t = s->times[g];
        while (k < c->c.key_count && !(c->keys[k].time > 0.f)) ++k;
        if (k < c->c.key_count && c->keys[k].time < t)
            t = c->keys[k++].time;
        else
            ++g;
        if (t <= prev_time) continue;
        prev_time = t;
        const float v = ossa__unity_curve_evaluate_step(&c->c, t) > 0.5f ? 1.f : 0.f;
        if (count && v == last_value) continue;
        float ratio = t / s->duration;
        ratio = ratio < 0.f ? 0.f : (ratio > 1.f ? 1.f : ratio);
        last_value = v;
        if (count && ratio <= last_ratio) {
            if (keys) keys[count - 1].value[0] = v;
            continue;
        }
        if (keys) keys[count] = (ossa_raw_track_key){ratio, OSSA_INTERP_STEP, {v, 0.f, 0.f, 0.f}};
        last_ratio = ratio;
        ++count;
    }
    return count;
}

static ossa_result add_track(ossa_import_output *out, sampler *s, ossa_track_type type, size_t count, const char *name,
                             ossa_raw_track **track)
{
    ossa_result res = ossa_import_output_add_track(out, type, count, track);
    if (res == OSSA_OK) res = ossa_raw_track_set_name(*track, name);
    if (res != OSSA_OK) return ossa__fail(s->diag, res, "could not add track '%s'", name);
    (*track)->duration = s->duration;
    return OSSA_OK;
}

static ossa_result build_gaze(sampler *s, bool direction, ossa_import_output *out)
{
    const size_t first = OSSA__MRTK_CURVE_GAZE + (direction ? 3 : 0);
    for (size_t i = 0; i < s->n; ++i) {
        float v[3];
        ossa_result res = eval_curves(s, first, 3, s->times[i], v);
        if (res != OSSA_OK) return res;
        if (direction) {
            /* Vector3.Normalize: zero below a magnitude of 1e-5. */
            const float m = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
            for (int c = 0; c < 3; ++c) v[c] = m > 1e-5f ? v[c] / m : 0.f;
        }
        s->v3[i] = (ossa_float3){v[0], v[1], v[2]};
    }
    ossa_raw_track *t;
    ossa_result res =
        add_track(out, s, OSSA_TRACK_FLOAT3, s->n, direction ? "eye_gaze/direction" : "eye_gaze/origin", &t);
    if (res != OSSA_OK) return res;
    for (size_t i = 0; i < s->n; ++i)
        t->keys[i] = (ossa_raw_track_key){s->ratios[i], OSSA_INTERP_LINEAR, {s->v3[i].x, s->v3[i].y, s->v3[i].z, 0.f}};
    return OSSA_OK;
}

static ossa_result add_metadata(ossa_import_output *out, const ossa__mrtk_recording *rec, ossa_diag *diag)
{
    char version[32], duration[32], markers[32];
    snprintf(version, sizeof version, "%d.%d", (int)rec->major, (int)rec->minor);
    snprintf(duration, sizeof duration, "%.9g", (double)rec->duration);
    snprintf(markers, sizeof markers, "%zu", rec->marker_count);
    const char *const pairs[][2] = {
        {"format", "mrtk"},
        {"version", version},
        {"source_units", "metres"},
        {"unit_scale", "1"},
        {"axes", "unity"},
        {"duration", duration},
        {"has_camera_pose", rec->has_camera ? "1" : "0"},
        {"has_hand_data", rec->has_hands ? "1" : "0"},
        {"has_eye_gaze", rec->has_gaze ? "1" : "0"},
        {"markers", markers},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; ++i)
        if (ossa_import_output_add_metadata(out, pairs[i][0], pairs[i][1]) != OSSA_OK)
            return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for metadata");
    /* MRTK's reader ignores them too, but a count smaller than the data written ends here. */
    if (rec->trailing) {
        char text[160];
        snprintf(text, sizeof text,
                 "%zu bytes after the marker list are ignored (a key or marker count smaller than the data?)",
                 rec->trailing);
        if (ossa_import_output_add_metadata(out, "warning", text) != OSSA_OK)
            return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for metadata");
    }
    return OSSA_OK;
}

ossa_result ossa__mrtk_build(const ossa__mrtk_recording *rec, const ossa__mrtk_settings *set, const uint8_t *data,
                             ossa_import_output *out, ossa_diag *diag)
{
    if (rec->duration > set->max_duration)
        return ossa__fail_at(diag, OSSA_ERROR_UNSUPPORTED_FORMAT, rec->duration_offset,
                             "a key at %g s makes the recording longer than max_duration (%g s); expected a "
                             "shorter recording or a larger desc max_duration",
                             (double)rec->duration, (double)set->max_duration);
    sampler s = {.rec = rec, .diag = diag};
    s.duration = rec->duration > 0.f ? rec->duration : 1.f / set->rate;
    const float want = ceilf(rec->duration * set->rate) + 1.f;
    if (!(want <= (float)MAX_SAMPLES))
        return ossa__fail_at(diag, OSSA_ERROR_UNSUPPORTED_FORMAT, rec->duration_offset,
                             "%g s at %g samples per second needs %g samples; expected at most %zu",
                             (double)rec->duration, (double)set->rate, (double)want, MAX_SAMPLES);
    s.n = want < 2.f ? 2 : (size_t)want;
    const ossa_allocator *a = &out->allocator;
    s.times = ossa__calloc(a, s.n, sizeof *s.times);
    s.ratios = ossa__calloc(a, s.n, sizeof *s.ratios);
    s.v3 = ossa__calloc(a, s.n, sizeof *s.v3);
    s.q = ossa__calloc(a, s.n, sizeof *s.q);
    ossa_result res = OSSA_OK;
    if (!s.times || !s.ratios || !s.v3 || !s.q)
        res = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu samples", s.n);
    for (size_t i = 0; res == OSSA_OK && i < s.n; ++i) {
        s.ratios[i] = i + 1 == s.n ? 1.f : (float)i / (float)(s.n - 1);
        s.times[i] = s.ratios[i] * s.duration;
    }
    ossa_raw_animation *anim = NULL;
    if (res == OSSA_OK) {
        res = ossa_raw_skeleton_create(&out->skeleton, OSSA_MRTK_JOINT_COUNT, a);
        if (res == OSSA_OK) res = ossa_import_output_add_animation(out, OSSA_MRTK_JOINT_COUNT, &anim);
        if (res == OSSA_OK) res = ossa_raw_animation_set_name(anim, "input_animation");
        for (size_t j = 0; res == OSSA_OK && j < OSSA_MRTK_JOINT_COUNT; ++j) {
            char name[64];
            if (j == OSSA_MRTK_JOINT_CAMERA) {
                snprintf(name, sizeof name, "camera");
            } else {
                const size_t k = (j - 1) % OSSA_MRTK_HAND_JOINT_COUNT;
                snprintf(name, sizeof name, "%s/%s", j < OSSA_MRTK_JOINT_HAND_RIGHT ? "hand_left" : "hand_right",
                         joint_names[k]);
                if (joint_parents[k] >= 0) out->skeleton.joints[j].parent = (int32_t)(j - k + (size_t)joint_parents[k]);
            }
            res = ossa_raw_skeleton_set_name(&out->skeleton, j, name);
        }
        if (res != OSSA_OK) res = ossa__fail(diag, res, "out of memory for the skeleton");
    }
    if (res == OSSA_OK) anim->duration = s.duration;
    for (size_t j = 0; res == OSSA_OK && j < OSSA_MRTK_JOINT_COUNT; ++j) res = build_joint(&s, j, out);
    for (size_t i = 0; res == OSSA_OK && i < 4; ++i) {
        const ossa__mrtk_curve *c = &rec->curves[OSSA__MRTK_CURVE_STATE + i];
        ossa_raw_track *t;
        res = add_track(out, &s, OSSA_TRACK_FLOAT, state_keys(&s, c, NULL), state_names[i], &t);
        if (res == OSSA_OK) state_keys(&s, c, t->keys);
    }
    if (res == OSSA_OK && rec->has_gaze) res = build_gaze(&s, false, out);
    if (res == OSSA_OK && rec->has_gaze) res = build_gaze(&s, true, out);
    for (size_t i = 0; res == OSSA_OK && i < rec->marker_count; ++i) {
        const ossa__mrtk_marker *m = &rec->markers[i];
        char *name = ossa_alloc(a, m->name_size + 1);
        if (!name) {
            res = ossa__fail_at(diag, OSSA_ERROR_OUT_OF_MEMORY, m->name_offset, "out of memory for a marker name");
            break;
        }
        memcpy(name, data + m->name_offset, m->name_size);
        name[m->name_size] = '\0';
        res = ossa_import_output_add_event(out, m->time, name);
        ossa_free(a, name);
        if (res != OSSA_OK) res = ossa__fail_at(diag, res, m->name_offset, "out of memory for marker %zu", i);
    }
    if (res == OSSA_OK) res = add_metadata(out, rec, diag);
    ossa_free(a, s.times);
    ossa_free(a, s.ratios);
    ossa_free(a, s.v3);
    ossa_free(a, s.q);
    return res;
}
