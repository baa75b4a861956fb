/* ossa export IN.ossa -o OUT.glb [--mesh SOURCE]: the skeleton and the baked clips as binary
 * glTF 2.0, with the meshes of SOURCE (export_mesh.c).
 *
 * Every joint becomes a node (name, rest translation / rotation / scale in metres: the
 * archive's unit_scale applied), children in skeleton order, the roots in the scene, and a
 * skin over the leaf joints that no copied skin holds, with inverse bind matrices from the rest
 * pose, which marks every joint as one for importers that take a skin's joints and their
 * ancestors (ossa's own). Every clip becomes an animation: the runtime sampling job decodes
 * the clip, and each animated sub-track becomes a LINEAR channel over its own kept keys
 * (ossa_animation_keys), the values the job gives there, or over a superset of them when that
 * costs fewer bytes; a sub-track that does not move is one key, or no channel when its value is
 * the node's (within 1e-6). Animated rotations are normalised SHORT (8 bytes a key for 16,
 * within 6.1e-5 radians; --float-rotations keeps floats for readers that take them for floats,
 * as assimp did until July 2026); what glTF defaults is not written. Between keys glTF players
 * slerp rotations where ossa's runtime nlerps: the two differ by about 2e-8 x angle^3 radians
 * (angle between the keys in degrees), 1e-5 at 8 degrees. User-channel tracks are not exported.
 * Source: the glTF 2.0 specification (3.5 nodes, 3.6 accessors, 3.7 skins, 3.11 animations,
 * 4.4 GLB). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/sampling_job.h"
#include "tools.h"
#include "export.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#include <cjson/cJSON.h>

typedef tool_glb bin;

/* A JSON array of `n` finite floats, each in its shortest text that reads back as the same float
 * (cJSON prints the double of a float with 17 digits: "0.015437356196343899" for 0.015437356). */
static cJSON *float_array(const float *v, int n)
{
    cJSON *array = cJSON_CreateArray();
    for (int i = 0; array && i < n; ++i) {
        char text[32];
        tool_format_float(text, sizeof text, v[i]);
        cJSON_AddItemToArray(array, cJSON_CreateRaw(text));
    }
    return array;
}

int tool_glb_add_view(tool_glb *g, int target, size_t stride)
{
    if (g->view_count == g->view_capacity) {
        const size_t cap = g->view_capacity ? 2 * g->view_capacity : 4;
        tool_glb_view *grown = realloc(g->views, cap * sizeof *grown);
        if (!grown) return -1;
        g->views = grown, g->view_capacity = cap;
    }
    g->views[g->view_count] = (tool_glb_view){NULL, 0, 0, stride, target};
    return g->view_count < INT32_MAX ? (int)g->view_count++ : -1;
}

bool tool_glb_append(tool_glb *g, size_t view, const void *data, size_t bytes, size_t *offset)
{
    tool_glb_view *v = &g->views[view];
    const size_t start = (v->size + 3) & ~(size_t)3;
    if (bytes > SIZE_MAX / 2 - start) return false;
    if (start + bytes > v->capacity) {
        size_t cap = v->capacity ? v->capacity : 4096;
        while (cap < start + bytes) cap *= 2;
        uint8_t *grown = realloc(v->data, cap);
        if (!grown) return false;
        v->data = grown, v->capacity = cap;
    }
    memset(v->data + v->size, 0, start - v->size);
    if (bytes) memcpy(v->data + start, data, bytes); /* glTF is little-endian, as the hosts ossa runs on */
    v->size = start + bytes;
    *offset = start;
    return true;
}

int tool_glb_add_accessor(tool_glb *g, size_t view, const void *data, size_t bytes, int component, bool normalized,
                          size_t count, const char *type, cJSON *min, cJSON *max)
{
    size_t offset;
    if (!tool_glb_append(g, view, data, bytes, &offset) || g->accessor_count >= INT32_MAX) {
        cJSON_Delete(min), cJSON_Delete(max);
        return -1;
    }
    cJSON *acc = cJSON_CreateObject();
    cJSON_AddNumberToObject(acc, "bufferView", (double)view);
    if (offset) cJSON_AddNumberToObject(acc, "byteOffset", (double)offset);
    cJSON_AddNumberToObject(acc, "componentType", component);
    if (normalized) cJSON_AddTrueToObject(acc, "normalized");
    cJSON_AddNumberToObject(acc, "count", (double)count);
    cJSON_AddStringToObject(acc, "type", type);
    if (min) cJSON_AddItemToObject(acc, "min", min);
    if (max) cJSON_AddItemToObject(acc, "max", max);
    cJSON_AddItemToArray(g->accessors, acc);
    return (int)g->accessor_count++;
}

/* Appends `bytes` of raw data as an accessor into buffer view 0 (each accessor starts 4-byte
 * aligned, as glTF requires of every component type; a view per accessor cost about 50 bytes
 * of JSON each); returns the accessor index or -1. `component` is the glTF component type (5126
 * FLOAT, 5122 SHORT), `type` "SCALAR", "VEC3", "VEC4" or "MAT4". With `lo` and `hi` (`comps`
 * floats each), min and max are written (required for animation inputs). */
static int add_accessor(bin *b, const void *v, size_t bytes, int component, bool normalized, size_t count,
                        const char *type, const float *lo, const float *hi, int comps)
{
    return tool_glb_add_accessor(b, 0, v, bytes, component, normalized, count, type, lo ? float_array(lo, comps) : NULL,
                                 hi ? float_array(hi, comps) : NULL);
}

/* `count` elements of `comps` floats as a FLOAT accessor, with min and max when `bounds`. */
static int add_floats(bin *b, const float *v, size_t count, int comps, const char *type, bool bounds)
{
    float lo[4] = {INFINITY, INFINITY, INFINITY, INFINITY}, hi[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; bounds && i < count; ++i)
        for (int c = 0; c < comps && c < 4; ++c) {
            lo[c] = fminf(lo[c], v[i * (size_t)comps + (size_t)c]);
            hi[c] = fmaxf(hi[c], v[i * (size_t)comps + (size_t)c]);
        }
    return add_accessor(b, v, count * (size_t)comps * sizeof(float), 5126, false, count, type, bounds ? lo : NULL,
                        bounds ? hi : NULL, comps);
}

/* `count` unit quaternions as a normalised SHORT VEC4 accessor (glTF 2.0, 3.11 allows rotation
 * outputs of this type; a reader maps c back to max(c / 32767, -1) and renormalises). Rounding
 * each component alone is off by up to half a step, 1.5e-5, per component: the quaternions up
 * to 3.05e-5 apart, 6.1e-5 radians of rotation. Of the 16 ways to round the four components
 * down or up, the one nearest the quaternion in direction is kept (on the pab walk: the largest
 * angle 4.8e-5 radians for 5.4e-5, the mean 2.3e-5 for 2.6e-5, the largest joint error from the
 * archive 0.088 mm for 0.127 mm). `scratch` holds 4 x `count` int16. */
static int add_rotations(bin *b, const float *q, size_t count, int16_t *scratch)
{
    for (size_t i = 0; i < count; ++i) {
        double lo[4], best = -1.;
        for (int c = 0; c < 4; ++c) lo[c] = floor((double)fminf(fmaxf(q[4 * i + (size_t)c], -1.f), 1.f) * 32767.);
        for (int m = 0; m < 16; ++m) {
            double v[4], dot = 0., norm = 0.;
            for (int c = 0; c < 4; ++c) {
                v[c] = fmin(lo[c] + ((m >> c) & 1), 32767.);
                dot += v[c] * (double)q[4 * i + (size_t)c];
                norm += v[c] * v[c];
            }
            const double cosine = norm > 0. ? dot / sqrt(norm) : -1.;
            if (cosine > best) {
                best = cosine;
                for (int c = 0; c < 4; ++c) scratch[4 * i + (size_t)c] = (int16_t)v[c];
            }
        }
    }
    return add_accessor(b, scratch, count * 4 * sizeof(int16_t), 5122, true, count, "VEC4", NULL, NULL, 4);
}

/* Inverse of a rigid-with-scale column-major 4x4 (general 4x4 inverse by cofactors). */
static bool invert4(const float *m, float *out)
{
    double inv[16], a[16];
    for (int i = 0; i < 16; ++i) a[i] = (double)m[i];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15] + a[9] * a[7] * a[14] +
             a[13] * a[6] * a[11] - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15] - a[8] * a[7] * a[14] -
             a[12] * a[6] * a[11] + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15] + a[8] * a[7] * a[13] +
             a[12] * a[5] * a[11] - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14] - a[8] * a[6] * a[13] -
              a[12] * a[5] * a[10] + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15] - a[9] * a[3] * a[14] -
             a[13] * a[2] * a[11] + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15] + a[8] * a[3] * a[14] +
             a[12] * a[2] * a[11] - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15] - a[8] * a[3] * a[13] -
             a[12] * a[1] * a[11] + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14] + a[8] * a[2] * a[13] +
              a[12] * a[1] * a[10] - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15] + a[5] * a[3] * a[14] +
             a[13] * a[2] * a[7] - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15] - a[4] * a[3] * a[14] -
             a[12] * a[2] * a[7] + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15] + a[4] * a[3] * a[13] +
              a[12] * a[1] * a[7] - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14] - a[4] * a[2] * a[13] -
              a[12] * a[1] * a[6] + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11] - a[5] * a[3] * a[10] -
             a[9] * a[2] * a[7] + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11] + a[4] * a[3] * a[10] +
             a[8] * a[2] * a[7] - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11] - a[4] * a[3] * a[9] -
              a[8] * a[1] * a[7] + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10] + a[4] * a[2] * a[9] + a[8] * a[1] * a[6] -
              a[8] * a[2] * a[5];
    const double det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if (!(fabs(det) > 1e-30)) return false;
    for (int i = 0; i < 16; ++i) out[i] = (float)(inv[i] / det);
    return true;
}

/* Joint j's transform in metres. */
static ossa_transform in_metres(ossa_transform t, float unit)
{
    t.translation.x *= unit, t.translation.y *= unit, t.translation.z *= unit;
    return t;
}

/* 64-bit FNV-1a of `n` bytes: the key masks of two channels are compared only when these match. */
static uint64_t hash_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 14695981039346656037u;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211u;
    return h;
}

/* The largest difference, per component (metres, scale factor, quaternion component), at which
 * a channel that does not move is left to the node's value: a skeleton's rest scale of
 * 1.0000001 against a clip's exact 1 is a float's rounding, not motion. */
#define SAME_VALUE 1e-6f

/* Whether `a` and `b` (`comps` floats; quaternions when 4, q the same as -q) are within
 * SAME_VALUE of each other. */
static bool same_value(const float *a, const float *b, int comps)
{
    bool same = true, negated = comps == 4;
    for (int k = 0; k < comps; ++k) {
        same = same && fabsf(a[k] - b[k]) <= SAME_VALUE;
        negated = negated && fabsf(a[k] + b[k]) <= SAME_VALUE;
    }
    return same || negated;
}

/* What an input accessor of its own costs besides its times (4 bytes a key): its JSON with
 * min and max, {"bufferView":0,"byteOffset":12345,"componentType":5126,"count":40,...}. */
#define INPUT_JSON_BYTES 100

/* Merging key sets is tried when a clip has at most this many distinct ones (each pass compares
 * every pair). */
#define MAX_KEY_SETS 64

/* Whether every key of `a` is one of `b` (`F` bytes each). */
static bool is_subset(const uint8_t *a, const uint8_t *b, size_t F)
{
    for (size_t f = 0; f < F; ++f)
        if (a[f] && !b[f]) return false;
    return true;
}

/* Channels whose key times are a subset of another channel's take that one's times, and with it
 * its input accessor, when the values at the added times cost fewer bytes than an input of
 * their own: the walk's channels of 40 and 33 of the 41 time points. The value added at a time
 * is the sampling job's there (the runtime interpolating between the kept keys), so nothing
 * moves. `masks` [S x F] and `keys` [S] are updated; `constant` [S] marks the one-key channels,
 * which keep their own input. Greedy: the best saving first, until none is left. */
static void merge_inputs(uint8_t *masks, size_t *keys, const bool *constant, size_t S, size_t F, bool float_rotations)
{
    size_t sets[MAX_KEY_SETS], members[MAX_KEY_SETS];
    for (;;) {
        size_t set_count = 0;
        long value_bytes[MAX_KEY_SETS] = {0}; /* bytes a key of every channel of the set */
        for (size_t s = 0; s < S; ++s) {
            if (!keys[s] || constant[s]) continue;
            size_t k = 0;
            while (k < set_count && memcmp(&masks[sets[k] * F], &masks[s * F], F)) ++k;
            if (k == set_count) {
                if (set_count == MAX_KEY_SETS) return;
                sets[set_count] = s, members[set_count] = 0, ++set_count;
            }
            ++members[k];
            value_bytes[k] += s % 3 == 1 ? (float_rotations ? 16 : 8) : 12;
        }
        long best_gain = 0;
        size_t from = 0, to = 0;
        for (size_t a = 0; a < set_count; ++a)
            for (size_t t = 0; t < set_count; ++t) {
                if (keys[sets[t]] <= keys[sets[a]] || !is_subset(&masks[sets[a] * F], &masks[sets[t] * F], F)) continue;
                const long saved = (long)(4 * keys[sets[a]]) + INPUT_JSON_BYTES;
                const long gain = saved - (long)(keys[sets[t]] - keys[sets[a]]) * value_bytes[a];
                if (gain > best_gain) best_gain = gain, from = a, to = t;
            }
        if (best_gain <= 0) return;
        /* The set's first channel last: the others are compared with its mask. */
        const size_t first = sets[from], target = sets[to];
        for (size_t s = first + 1; s < S; ++s)
            if (keys[s] && !constant[s] && !memcmp(&masks[s * F], &masks[first * F], F)) {
                memcpy(&masks[s * F], &masks[target * F], F);
                keys[s] = keys[target];
            }
        memcpy(&masks[first * F], &masks[target * F], F);
        keys[first] = keys[target];
    }
}

/* One clip: the pose at every time point through the sampling job, then one sampler per channel
 * that the clip moves. An animated sub-track keeps its own keys (ossa_animation_keys: the
 * sampling job interpolates between them, so the values between are what LINEAR gives, up to
 * slerp against nlerp for rotations); channels with the same key times share one input
 * accessor. A default, constant or rest-pose sub-track is one key, or no channel at all when
 * its value is the node's own (the rest pose in metres, within SAME_VALUE), which a player keeps. */
static bool add_animation(bin *b, cJSON *animations, const ossa_animation *anim, const ossa_skeleton *skel, float unit,
                          bool float_rotations)
{
    const size_t F = anim->frame_count, J = skel->joint_count, S = 3 * J;
    /* values (10 floats) and masks (3 bytes) per time point and joint. */
    if (J && F > SIZE_MAX / (J * (10 * sizeof(float) + 3))) return false;
    float *times = malloc(F * sizeof *times), *key_times = malloc(F * sizeof *key_times);
    int16_t *quantised = malloc(F * 4 * sizeof *quantised); /* a channel's rotations as SHORT */
    float *values = malloc(F * J * 10 * sizeof(float)), *column = malloc(F * 4 * sizeof(float));
    uint8_t *masks = malloc(S * F + 1);
    uint64_t *hashes = malloc((S + 1) * sizeof *hashes);
    int *inputs = malloc((S + 1) * sizeof *inputs);         /* each sub-track's input accessor; -1: none yet */
    size_t *keys = malloc((S + 1) * sizeof *keys);          /* each sub-track's key count; 0: no channel */
    bool *constant = malloc(S + 1);                         /* one value over the clip */
    int *sampler_of = malloc((S + 1) * sizeof *sampler_of); /* each channel's sampler */
    const size_t ctx_size = ossa_sampling_context_size(J);
    void *ctx_mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    ossa_soa_transform *pose = aligned_alloc(16, (skel->soa_count + 1) * sizeof *pose);
    bool ok = times && key_times && quantised && values && column && masks && hashes && inputs && keys && constant &&
              sampler_of && ctx_mem && pose;
    ossa_sampling_context *ctx = ok ? ossa_sampling_context_init(ctx_mem, ctx_size, J) : NULL;
    ok = ok && ctx;
    /* values[(f * J + j) * 10 + ...]: translation (3), rotation (4), scale (3), in metres. */
    for (size_t f = 0; ok && f < F; ++f) {
        const float ratio = anim->timepoints ? anim->timepoints[f] : (float)f / (float)(F - 1);
        times[f] = ratio * anim->duration;
        const ossa_sampling_job job = {anim, ctx, ratio, pose, skel->soa_count, skel->rest_pose, skel->soa_count};
        ok = ossa_sampling_job_run(&job) == OSSA_OK;
        for (size_t j = 0; ok && j < J; ++j) {
            const ossa_transform t = in_metres(ossa_soa_transform_get(&pose[j / 4], (int)(j % 4)), unit);
            float *v = &values[(f * J + j) * 10];
            memcpy(v, &t.translation, 3 * sizeof(float));
            memcpy(v + 3, &t.rotation, 4 * sizeof(float));
            memcpy(v + 7, &t.scale, 3 * sizeof(float));
        }
    }
    cJSON *a = cJSON_CreateObject(), *samplers = cJSON_CreateArray(), *channels = cJSON_CreateArray();
    tool_json_add_string(a, "name", anim->name);
    cJSON_AddItemToObject(a, "samplers", samplers);
    cJSON_AddItemToObject(a, "channels", channels);
    cJSON_AddItemToArray(animations, a);
    static const char *const paths[3] = {"translation", "rotation", "scale"};
    static const int offsets[3] = {0, 3, 7};
    /* Each sub-track's keys: keys[s] 0 when it writes no channel, its mask at masks[s * F]. */
    for (size_t s = 0; ok && s < S; ++s) {
        const size_t j = s / 3;
        const int c = (int)(s % 3), comps = c == 1 ? 4 : 3;
        uint8_t *mask = &masks[s * F];
        constant[s] = false;
        keys[s] = ossa_animation_channel_kind(anim, j, c) == 2 ? ossa_animation_keys(anim, j, c, mask, F) : 0;
        if (keys[s] == 0) {
            /* One value over the clip: none when the node holds it already. */
            const ossa_transform rest = in_metres(ossa_skeleton_rest_transform(skel, j), unit);
            const float *node = c == 0 ? &rest.translation.x : c == 1 ? &rest.rotation.x : &rest.scale.x;
            if (same_value(node, &values[j * 10 + (size_t)offsets[c]], comps)) continue;
            memset(mask, 0, F);
            mask[0] = 1;
            keys[s] = 1;
            constant[s] = true;
        }
    }
    merge_inputs(masks, keys, constant, S, F, float_rotations);
    size_t sampler_count = 0;
    int single_input = -1; /* the input of one key at time 0, shared */
    for (size_t s = 0; ok && s < S; ++s) {
        const size_t j = s / 3;
        const int c = (int)(s % 3), comps = c == 1 ? 4 : 3;
        const uint8_t *mask = &masks[s * F];
        if (!keys[s]) continue;
        if (constant[s]) {
            if (single_input < 0) single_input = add_floats(b, times, 1, 1, "SCALAR", true);
            ok = single_input >= 0;
            inputs[s] = single_input;
        } else {
            hashes[s] = hash_bytes(mask, F);
            inputs[s] = -1;
            for (size_t e = 0; e < s && inputs[s] < 0; ++e)
                if (keys[e] && !constant[e] && hashes[e] == hashes[s] && !memcmp(&masks[e * F], mask, F))
                    inputs[s] = inputs[e];
            if (inputs[s] < 0) {
                size_t n = 0;
                for (size_t f = 0; f < F; ++f)
                    if (mask[f]) key_times[n++] = times[f];
                inputs[s] = add_floats(b, key_times, n, 1, "SCALAR", true);
                ok = inputs[s] >= 0;
            }
        }
        const size_t key_count = keys[s];
        size_t n = 0;
        for (size_t f = 0; ok && f < F; ++f) {
            if (!mask[f]) continue;
            float *out = &column[n * (size_t)comps];
            memcpy(out, &values[(f * J + j) * 10 + (size_t)offsets[c]], (size_t)comps * sizeof(float));
            if (c == 1 && n) { /* one hemisphere from key to key */
                const float *p = out - 4;
                if (p[0] * out[0] + p[1] * out[1] + p[2] * out[2] + p[3] * out[3] < 0.f)
                    for (int k = 0; k < 4; ++k) out[k] = -out[k];
            }
            ++n;
        }
        /* A constant the same, bit for bit, as an earlier one of its kind (a left finger held as
         * the right one) shares that one's sampler: glTF lets channels share samplers (3.11). */
        sampler_of[s] = -1;
        for (size_t e = c; constant[s] && e < s && sampler_of[s] < 0; e += 3)
            if (keys[e] && constant[e] &&
                !memcmp(&values[e / 3 * 10 + (size_t)offsets[c]], column, (size_t)comps * sizeof(float)))
                sampler_of[s] = sampler_of[e];
        if (sampler_of[s] < 0) {
            /* An animated rotation as SHORT (8 bytes a key for 16); a constant one stays FLOAT,
             * exact and no larger: "normalized":true costs the 8 bytes it saves. */
            const int output = !ok ? -1
                               : c == 1 && !constant[s] && !float_rotations
                                   ? add_rotations(b, column, key_count, quantised)
                                   : add_floats(b, column, key_count, comps, comps == 4 ? "VEC4" : "VEC3", false);
            ok = ok && output >= 0;
            cJSON *sampler = cJSON_CreateObject(); /* interpolation: LINEAR, glTF's default */
            cJSON_AddNumberToObject(sampler, "input", inputs[s]);
            cJSON_AddNumberToObject(sampler, "output", output);
            cJSON_AddItemToArray(samplers, sampler);
            sampler_of[s] = (int)sampler_count++;
        }
        cJSON *channel = cJSON_CreateObject(), *target = cJSON_CreateObject();
        cJSON_AddNumberToObject(channel, "sampler", sampler_of[s]);
        cJSON_AddNumberToObject(target, "node", (double)j);
        cJSON_AddStringToObject(target, "path", paths[c]);
        cJSON_AddItemToObject(channel, "target", target);
        cJSON_AddItemToArray(channels, channel);
    }
    free(times), free(key_times), free(quantised), free(values), free(column), free(masks), free(hashes), free(inputs);
    free(keys), free(constant), free(sampler_of);
    free(ctx_mem), free(pose);
    return ok;
}

/* Points the "bufferView" of `object` at the view's place in `index` (empty views left out). */
static void renumber_view(cJSON *object, const size_t *index)
{
    cJSON *v = cJSON_GetObjectItemCaseSensitive(object, "bufferView");
    if (cJSON_IsNumber(v)) cJSON_SetNumberValue(v, (double)index[v->valueint]);
}

/* The binary chunk of `b`'s views one after the other (each 4-byte aligned), and their JSON
 * in `views`. An empty view (view 0 of an export without clips when the copied skins hold every
 * joint) is left out: glTF views hold at least a byte. `images` may be NULL. */
static uint8_t *lay_out_views(const bin *b, cJSON *views, cJSON *images, size_t *size)
{
    size_t total = 0;
    for (size_t v = 0; v < b->view_count; ++v) {
        if (b->views[v].size > SIZE_MAX / 2 - total) return NULL;
        total = (total + b->views[v].size + 3) & ~(size_t)3;
    }
    uint8_t *data = calloc(1, total + 1);
    size_t *index = calloc(b->view_count + 1, sizeof *index);
    size_t at = 0, written = 0;
    for (size_t v = 0; data && index && v < b->view_count; ++v) {
        const tool_glb_view *w = &b->views[v];
        index[v] = written;
        if (!w->size) continue;
        memcpy(data + at, w->data, w->size);
        cJSON *view = cJSON_CreateObject();
        cJSON_AddNumberToObject(view, "buffer", 0);
        if (at) cJSON_AddNumberToObject(view, "byteOffset", (double)at);
        cJSON_AddNumberToObject(view, "byteLength", (double)w->size);
        if (w->stride) cJSON_AddNumberToObject(view, "byteStride", (double)w->stride);
        if (w->target) cJSON_AddNumberToObject(view, "target", w->target);
        cJSON_AddItemToArray(views, view);
        at = (at + w->size + 3) & ~(size_t)3;
        ++written;
    }
    if (data && index && written < b->view_count) {
        cJSON *item;
        cJSON_ArrayForEach(item, b->accessors) renumber_view(item, index);
        cJSON_ArrayForEach(item, images) renumber_view(item, index);
    }
    if (!index) free(data), data = NULL;
    free(index);
    *size = total;
    return data;
}

/* Writes the GLB of `archive` to `out_path` (temporary file, then rename), with the meshes of
 * `mesh_path` when not NULL. */
static int export_glb(const char *in_path, const void *data, size_t size, const char *out_path, const char *mesh_path,
                      bool float_rotations)
{
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_result r = ossa_archive_init(&ar, data, size);
    if (r == OSSA_OK) r = ossa_archive_skeleton(&ar, &skel);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa: %s: %s (%s)\n", in_path,
                r == OSSA_ERROR_NOT_FOUND ? "no skeleton to export" : ossa_result_string(r), ossa_result_name(r));
        return 1;
    }
    const float unit = ossa_archive_unit_scale(&ar);
    const size_t J = skel.joint_count;
    cJSON *root = cJSON_CreateObject(), *asset = cJSON_CreateObject(), *nodes = cJSON_CreateArray();
    cJSON_AddStringToObject(asset, "version", "2.0");
    cJSON_AddStringToObject(asset, "generator", "ossa export");
    cJSON_AddItemToObject(root, "asset", asset);
    bin b = {NULL, 0, 0, cJSON_CreateArray(), 0};
    float *inverse_bind = malloc((J + 1) * 16 * sizeof(float));
    ossa_float4x4 *model = malloc((J + 1) * sizeof *model);
    bool *covered = calloc(J + 1, sizeof *covered);
    bool ok = inverse_bind && model && covered && tool_glb_add_view(&b, 0, 0) == 0;
    for (size_t j = 0; ok && j < J; ++j) {
        const ossa_transform t = in_metres(ossa_skeleton_rest_transform(&skel, j), unit);
        cJSON *node = cJSON_CreateObject();
        tool_json_add_string(node, "name", ossa_skeleton_joint_name(&skel, j));
        /* glTF's defaults (3.5.3: no translation, the identity, unit scale) are left out. */
        if (t.translation.x != 0.f || t.translation.y != 0.f || t.translation.z != 0.f)
            cJSON_AddItemToObject(node, "translation", float_array(&t.translation.x, 3));
        if (t.rotation.x != 0.f || t.rotation.y != 0.f || t.rotation.z != 0.f || t.rotation.w != 1.f)
            cJSON_AddItemToObject(node, "rotation", float_array(&t.rotation.x, 4));
        if (t.scale.x != 1.f || t.scale.y != 1.f || t.scale.z != 1.f)
            cJSON_AddItemToObject(node, "scale", float_array(&t.scale.x, 3));
        cJSON *children = cJSON_CreateArray();
        for (size_t c = j + 1; c < J; ++c)
            if (skel.parents[c] == (int16_t)j) cJSON_AddItemToArray(children, cJSON_CreateNumber((double)c));
        if (cJSON_GetArraySize(children))
            cJSON_AddItemToObject(node, "children", children);
        else
            cJSON_Delete(children);
        cJSON_AddItemToArray(nodes, node);
        const ossa_float4x4 local = ossa_float4x4_from_transform(&t);
        model[j] = skel.parents[j] < 0 ? local : ossa_float4x4_mul(&model[skel.parents[j]], &local);
        ok = invert4(&model[j].cols[0][0], &inverse_bind[j * 16]);
        if (!ok) fprintf(stderr, "ossa: %s: joint %zu's rest pose has no inverse (zero scale)\n", in_path, j);
    }
    cJSON_AddItemToObject(root, "nodes", nodes);
    cJSON *scene = cJSON_CreateObject(), *scene_nodes = cJSON_CreateArray(), *skins = cJSON_CreateArray();
    for (size_t j = 0; j < J; ++j)
        if (skel.parents[j] < 0) cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber((double)j));
    cJSON_AddItemToObject(scene, "nodes", scene_nodes);
    cJSON *scenes = cJSON_CreateArray();
    cJSON_AddItemToArray(scenes, scene);
    cJSON_AddItemToObject(root, "scenes", scenes);
    cJSON_AddNumberToObject(root, "scene", 0);
    cJSON_AddItemToObject(root, "skins", skins);
    /* The source's meshes and skins. */
    if (ok && mesh_path) ok = tool_export_meshes(mesh_path, &skel, root, nodes, scene_nodes, &b, covered);
    /* Unless the copied skins cover every joint, a skin lists the leaf joints that they do not:
     * every other joint is an ancestor of one, and importers that take a skin's joints with
     * their ancestors as the skeleton (ossa's) rebuild it whole, also the joints no clip moves.
     * Their inverse bind matrices from the rest pose: assimp 5.2 crashes on a skin without them.
     * All joints would cost 64 bytes of matrix each. */
    cJSON *joints = cJSON_CreateArray();
    size_t leaf_count = 0;
    for (size_t j = J; ok && j-- > 0;)
        if (covered[j] && skel.parents[j] >= 0) covered[skel.parents[j]] = true;
    for (size_t j = 0; ok && j < J; ++j) {
        bool leaf = !covered[j];
        for (size_t c = j + 1; c < J && leaf; ++c) leaf = skel.parents[c] != (int16_t)j;
        if (!leaf) continue;
        cJSON_AddItemToArray(joints, cJSON_CreateNumber((double)j));
        memmove(&inverse_bind[leaf_count * 16], &inverse_bind[j * 16], 16 * sizeof(float));
        ++leaf_count;
    }
    if (leaf_count) {
        cJSON *skin = cJSON_CreateObject();
        cJSON_AddItemToObject(skin, "joints", joints);
        const int ibm = add_floats(&b, inverse_bind, leaf_count, 16, "MAT4", false);
        ok = ok && ibm >= 0;
        cJSON_AddNumberToObject(skin, "inverseBindMatrices", ibm);
        cJSON_AddItemToArray(skins, skin);
    } else {
        cJSON_Delete(joints);
    }
    cJSON *animations = cJSON_CreateArray();
    ossa_archive_chunk *chunks = NULL;
    size_t anim_count = ok ? tool_archive_chunks(&ar, OSSA_TAG_ANIMATION, &chunks) : 0;
    if (anim_count == SIZE_MAX) {
        fprintf(stderr, "ossa: %s: out of memory\n", in_path);
        ok = false;
        anim_count = 0;
    }
    for (size_t a = 0; ok && a < anim_count; ++a) {
        ossa_animation anim;
        ok = tool_chunk_animation(&chunks[a], &anim) == OSSA_OK && anim.track_count == J &&
             add_animation(&b, animations, &anim, &skel, unit, float_rotations);
        if (!ok) fprintf(stderr, "ossa: %s: animation %zu could not be exported\n", in_path, a);
    }
    free(chunks);
    if (anim_count)
        cJSON_AddItemToObject(root, "animations", animations);
    else
        cJSON_Delete(animations);
    size_t bin_size = 0;
    cJSON *views = cJSON_CreateArray();
    uint8_t *bin_data =
        ok ? lay_out_views(&b, views, cJSON_GetObjectItemCaseSensitive(root, "images"), &bin_size) : NULL;
    ok = ok && bin_data;
    /* glTF's arrays hold at least one element (5.x: minItems 1). */
    if (cJSON_GetArraySize(views))
        cJSON_AddItemToObject(root, "bufferViews", views);
    else
        cJSON_Delete(views);
    if (b.accessor_count)
        cJSON_AddItemToObject(root, "accessors", b.accessors);
    else
        cJSON_Delete(b.accessors);
    if (!cJSON_GetArraySize(skins)) cJSON_DeleteItemFromObjectCaseSensitive(root, "skins");
    cJSON *buffers = cJSON_CreateArray(), *buffer = cJSON_CreateObject();
    cJSON_AddNumberToObject(buffer, "byteLength", (double)bin_size);
    cJSON_AddItemToArray(buffers, buffer);
    cJSON_AddItemToObject(root, "buffers", buffers);
    char *json = ok ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    int status = 1;
    if (json) {
        /* GLB: 12-byte header, the JSON chunk padded with spaces, the BIN chunk with zeros. */
        const size_t json_size = (strlen(json) + 3) & ~(size_t)3;
        const size_t total = 12 + 8 + json_size + 8 + bin_size;
        uint8_t *glb = total <= UINT32_MAX ? calloc(1, total) : NULL;
        if (glb) {
            const uint32_t header[3] = {0x46546C67u, 2u, (uint32_t)total}; /* "glTF" */
            const uint32_t json_head[2] = {(uint32_t)json_size, 0x4E4F534Au},
                           bin_head[2] = {(uint32_t)bin_size, 0x004E4942u};
            memcpy(glb, header, 12);
            memcpy(glb + 12, json_head, 8);
            memset(glb + 20, ' ', json_size);
            memcpy(glb + 20, json, strlen(json));
            memcpy(glb + 20 + json_size, bin_head, 8);
            if (bin_size) memcpy(glb + 28 + json_size, bin_data, bin_size);
            status = tool_write_file(out_path, glb, total, in_path) ? 0 : 1;
            free(glb);
        } else {
            fprintf(stderr, "ossa: %s: the glTF would exceed 4 GiB\n", out_path);
        }
    }
    for (size_t v = 0; v < b.view_count; ++v) free(b.views[v].data);
    free(b.views), free(json), free(bin_data), free(inverse_bind), free(model), free(covered);
    return status;
}
#endif

static const char export_usage[] =
    "usage: ossa export IN.ossa -o OUT.glb [--mesh SOURCE.gltf|.glb] [--float-rotations]\n"
    "  write the archive's skeleton and every clip as binary glTF 2.0: one node per joint, lengths\n"
    "  in metres (the archive's unit), times in seconds, animated rotations as normalised 16-bit\n"
    "  integers (within 6.1e-5 radians of the archive's)\n"
    "  -o OUT.glb          the file to write\n"
    "  --mesh SOURCE       copy the meshes of this glTF 2.0 file (.gltf or .glb; other formats are\n"
    "                      refused), with their skins (joints bound to the archive's by name,\n"
    "                      the source's inverse bind matrices), materials and textures\n"
    "  --float-rotations   animated rotations as 32-bit floats: the archive's to float rounding, for\n"
    "                      8 more bytes a key; for readers that take integer rotations for floats\n"
    "                      (assimp 5, as Debian 12 has it)\n";

int tool_export(int argc, char **argv)
{
    const char *in = NULL, *out = NULL, *mesh = NULL;
    bool float_rotations = false;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return fputs(export_usage, stdout), 0;
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--mesh") && i + 1 < argc)
            mesh = argv[++i];
        else if (!strcmp(argv[i], "--float-rotations"))
            float_rotations = true;
        else if (argv[i][0] == '-' || in)
            return tool_usage_error("export", "unexpected argument \"%s\"", argv[i]);
        else
            in = argv[i];
    }
    if (!in || !out) return tool_usage_error("export", "%s", in ? "no output given (-o OUT.glb)" : "no archive given");
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
    if (!tool_check_output(out, in) || (mesh && !tool_check_output(out, mesh))) return 1;
    size_t size = 0;
    void *data = tool_read_file(in, &size);
    if (!data) return 1;
    const int status = export_glb(in, data, size, out, mesh, float_rotations);
    free(data);
    return status;
#else
    fprintf(stderr, "ossa: export: this build has no cJSON, which glTF export needs\n");
    return 2;
#endif
}
