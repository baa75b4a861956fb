/* The import output container: what every importer fills, independent of any format. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "import_internal.h"
#include "ossa/offline/import.h"

static bool grow_one(ossa_import_output *out, void **array, size_t count, size_t elem)
{
    /* Arrays grow geometrically; capacity is implied by count (powers of two from 4). */
    size_t capacity = 0;
    if (count) {
        capacity = 4;
        while (capacity < count) capacity *= 2;
    }
    return ossa__grow(&out->allocator, array, &capacity, count + 1, elem);
}

ossa_result ossa_import_output_add_animation(ossa_import_output *out, size_t track_count, ossa_raw_animation **added)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (!grow_one(out, (void **)&out->animations, out->animation_count, sizeof *out->animations))
        return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_raw_animation *a = &out->animations[out->animation_count];
    ossa_result r = ossa_raw_animation_create(a, track_count, &out->allocator);
    if (r != OSSA_OK) return r;
    ++out->animation_count;
    if (added) *added = a;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_track(ossa_import_output *out, ossa_track_type type, size_t key_count,
                                         ossa_raw_track **added)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (!grow_one(out, (void **)&out->tracks, out->track_count, sizeof *out->tracks)) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_raw_track *t = &out->tracks[out->track_count];
    ossa_result r = ossa_raw_track_create(t, type, key_count, &out->allocator);
    if (r != OSSA_OK) return r;
    ++out->track_count;
    if (added) *added = t;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_event(ossa_import_output *out, float time, const char *name)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (!grow_one(out, (void **)&out->events, out->event_count, sizeof *out->events)) return OSSA_ERROR_OUT_OF_MEMORY;
    char *copy = ossa_strdup(&out->allocator, name);
    if (!copy) return OSSA_ERROR_OUT_OF_MEMORY;
    out->events[out->event_count].time = time;
    out->events[out->event_count].name = copy;
    ++out->event_count;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_metadata(ossa_import_output *out, const char *key, const char *value)
{
    if (!out || !key) return OSSA_ERROR_NULL_ARGUMENT;
    if (!value) value = "";
    size_t old = out->metadata ? strlen(out->metadata) : 0;
    size_t klen = strlen(key), vlen = strlen(value), total;
    if (!ossa__add_size(old, klen, &total) || !ossa__add_size(total, vlen, &total) || !ossa__add_size(total, 3, &total))
        return OSSA_ERROR_OUT_OF_MEMORY;
    char *text = ossa_alloc(&out->allocator, total);
    if (!text) return OSSA_ERROR_OUT_OF_MEMORY;
    if (old) memcpy(text, out->metadata, old);
    char *p = text + old;
    for (size_t i = 0; i < klen; ++i) *p++ = (key[i] == '=' || key[i] == '\n') ? '_' : key[i];
    *p++ = '=';
    for (size_t i = 0; i < vlen; ++i) *p++ = (value[i] == '\n' || value[i] == '\r') ? ' ' : value[i];
    *p++ = '\n';
    *p = '\0';
    ossa_free(&out->allocator, out->metadata);
    out->metadata = text;
    return OSSA_OK;
}

bool ossa_import_output_metadata(const ossa_import_output *out, const char *key, char *buffer, size_t size)
{
    if (!out || !key || !out->metadata) return false;
    size_t klen = strlen(key);
    for (const char *line = out->metadata; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        if ((size_t)(end - line) > klen && strncmp(line, key, klen) == 0 && line[klen] == '=') {
            if (buffer && size) {
                size_t n = (size_t)(end - line) - klen - 1;
                if (n >= size) n = size - 1;
                memcpy(buffer, line + klen + 1, n);
                buffer[n] = '\0';
            }
            return true;
        }
        line = *end ? end + 1 : end;
    }
    return false;
}

ossa_result ossa_import_output_sort_depth_first(ossa_import_output *out, ossa_diag *diag)
{
    if (!out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no import output");
    size_t n = out->skeleton.joint_count;
    if (n == 0) return OSSA_OK; /* an animation without a skeleton: nothing to order */
    for (size_t a = 0; a < out->animation_count; ++a)
        if (out->animations[a].track_count != n)
            return ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH,
                              "animation %zu has %zu tracks but the skeleton has %zu joints", a,
                              out->animations[a].track_count, n);
    if (n == 0 || ossa_raw_skeleton_is_depth_first(&out->skeleton)) return OSSA_OK;
    size_t *mapping = ossa__calloc(&out->allocator, n, sizeof *mapping);
    if (!mapping) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    ossa_result r = ossa_raw_skeleton_sort_depth_first(&out->skeleton, mapping, diag);
    for (size_t a = 0; r == OSSA_OK && a < out->animation_count; ++a) {
        r = ossa_raw_animation_permute_tracks(&out->animations[a], mapping);
        if (r != OSSA_OK) ossa__fail(diag, r, "could not reorder animation %zu", a);
    }
    ossa_free(&out->allocator, mapping);
    return r;
}

void ossa_import_output_destroy(ossa_import_output *out)
{
    if (!out) return;
    ossa_allocator a = out->allocator;
    ossa_raw_skeleton_destroy(&out->skeleton);
    for (size_t i = 0; i < out->animation_count; ++i) ossa_raw_animation_destroy(&out->animations[i]);
    for (size_t i = 0; i < out->track_count; ++i) ossa_raw_track_destroy(&out->tracks[i]);
    for (size_t i = 0; i < out->event_count; ++i) ossa_free(&a, out->events[i].name);
    ossa_free(&a, out->animations);
    ossa_free(&a, out->tracks);
    ossa_free(&a, out->events);
    ossa_free(&a, out->metadata);
    memset(out, 0, sizeof *out);
    out->allocator = a;
}

ossa_result ossa__import_begin(ossa_import_output *out, const void *data, size_t size, const ossa_allocator *allocator,
                               const char *what, ossa_diag *diag)
{
    if (!out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no import output");
    ossa_import_output_destroy(out);
    if (allocator) out->allocator = *allocator;
    if (!data && size)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no %s data (NULL with %zu bytes)", what, size);
    return OSSA_OK;
}

/* Replaces `*text` (allocated with `allocator`) by its copy with U+FFFD for each ill-formed
 * UTF-8 sequence. False when out of memory (`*text` is then unchanged). */
static bool sanitize_text(const ossa_allocator *allocator, char **text)
{
    const size_t size = ossa_utf8_sanitize(*text, NULL, 0) + 1;
    char *clean = ossa_alloc(allocator, size);
    if (!clean) return false;
    ossa_utf8_sanitize(*text, clean, size);
    ossa_free(allocator, *text);
    *text = clean;
    return true;
}

/* The names of one kind that were not UTF-8: how many, and the first. */
typedef struct bad_names {
    const char *what; /* "joint", "clip", ... */
    size_t count, first;
    const char *first_name; /* after the repair */
} bad_names;

/* Repairs `*name` when it is not UTF-8 and counts it in `bad`. */
static bool repair_name(const ossa_allocator *allocator, char **name, size_t index, bad_names *bad)
{
    if (!*name || ossa_utf8_valid(*name)) return true;
    if (!sanitize_text(allocator, name)) return false;
    if (bad->count++ == 0) bad->first = index, bad->first_name = *name;
    return true;
}

/* Names go on into JSON and glTF (ossa info --json, ossa export) and to the viewer, which all
 * need UTF-8, while formats carry whatever bytes their writer had (a Latin-1 BVH, a Shift JIS
 * FBX). They are repaired here, once for every importer, with one "warning=" line per kind. */
static ossa_result repair_names(ossa_import_output *out, ossa_diag *diag)
{
    bad_names bad[4] = {{"joint", 0, 0, NULL}, {"clip", 0, 0, NULL}, {"track", 0, 0, NULL}, {"event", 0, 0, NULL}};
    bool ok = true;
    for (size_t i = 0; ok && i < out->skeleton.joint_count; ++i)
        ok = repair_name(&out->skeleton.allocator, &out->skeleton.joints[i].name, i, &bad[0]);
    for (size_t i = 0; ok && i < out->animation_count; ++i)
        ok = repair_name(&out->animations[i].allocator, &out->animations[i].name, i, &bad[1]);
    for (size_t i = 0; ok && i < out->track_count; ++i)
        ok = repair_name(&out->tracks[i].allocator, &out->tracks[i].name, i, &bad[2]);
    for (size_t i = 0; ok && i < out->event_count; ++i)
        ok = repair_name(&out->allocator, &out->events[i].name, i, &bad[3]);
    /* Metadata values quote the file too (a glTF generator, a take name); no warning of their own. */
    if (ok && out->metadata && !ossa_utf8_valid(out->metadata)) ok = sanitize_text(&out->allocator, &out->metadata);
    if (!ok) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory repairing names that are not UTF-8");
    for (size_t k = 0; k < sizeof bad / sizeof *bad; ++k) {
        if (!bad[k].count) continue;
        char shown[64], line[192];
        ossa_utf8_sanitize(bad[k].first_name, shown, sizeof shown); /* shortened on a character */
        snprintf(line, sizeof line,
                 "%zu %s name%s not valid UTF-8: each ill-formed byte sequence is now U+FFFD (the first, %s %zu: "
                 "\"%s\")",
                 bad[k].count, bad[k].what, bad[k].count == 1 ? " was" : "s were", bad[k].what, bad[k].first, shown);
        const ossa_result r = ossa_import_output_add_metadata(out, "warning", line);
        if (r != OSSA_OK) return ossa__fail(diag, r, "out of memory recording a warning");
    }
    return OSSA_OK;
}

ossa_result ossa__import_end(ossa_import_output *out, ossa_result result, ossa_diag *diag)
{
    if (!out) return result;
    for (size_t i = 0; result == OSSA_OK && i < out->animation_count; ++i)
        result = ossa_raw_animation_validate(&out->animations[i], diag);
    for (size_t i = 0; result == OSSA_OK && i < out->track_count; ++i)
        result = ossa_raw_track_validate(&out->tracks[i], diag);
    if (result == OSSA_OK) result = repair_names(out, diag);
    if (result != OSSA_OK) ossa_import_output_destroy(out);
    return result;
}

/* A float3 track whose values are points in space: its name's last part (after '/' or '.')
 * is "position" or "origin", in any case. */
static bool is_position_track(const ossa_raw_track *t)
{
    if (t->type != OSSA_TRACK_FLOAT3 || !t->name) return false;
    const char *last = t->name;
    for (const char *c = t->name; *c; ++c)
        if (*c == '/' || *c == '.') last = c + 1;
    return !strcasecmp(last, "position") || !strcasecmp(last, "origin");
}

/* Whether every component of v times factor is a finite float. */
static bool scales_finitely(ossa_float3 v, float factor)
{
    return isfinite(v.x * factor) && isfinite(v.y * factor) && isfinite(v.z * factor);
}

ossa_result ossa_import_output_scale_lengths(ossa_import_output *out, float factor, ossa_diag *diag)
{
    if (!out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no import output");
    if (!(factor > 0.f) || !isfinite(factor))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "the length factor %g is not a finite number > 0",
                          (double)factor);
    if (factor == 1.f) return OSSA_OK;
    /* Checked before anything changes, so that an error leaves `out` as it was. */
    for (size_t j = 0; j < out->skeleton.joint_count; ++j)
        if (!scales_finitely(out->skeleton.joints[j].rest.translation, factor))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, j,
                                 "the rest translation of joint %zu times %g is beyond float range", j, (double)factor);
    for (size_t a = 0; a < out->animation_count; ++a)
        for (size_t t = 0; t < out->animations[a].track_count; ++t) {
            const ossa_raw_joint_track *track = &out->animations[a].tracks[t];
            for (size_t k = 0; k < track->translation_count; ++k)
                if (!scales_finitely(track->translations[k].value, factor))
                    return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, t,
                                         "translation key %zu of track %zu of animation %zu times %g is beyond "
                                         "float range",
                                         k, t, a, (double)factor);
        }
    for (size_t i = 0; i < out->track_count; ++i)
        for (size_t k = 0; is_position_track(&out->tracks[i]) && k < out->tracks[i].key_count; ++k)
            if (!scales_finitely((ossa_float3){out->tracks[i].keys[k].value[0], out->tracks[i].keys[k].value[1],
                                               out->tracks[i].keys[k].value[2]},
                                 factor))
                return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, i,
                                     "key %zu of track \"%s\" times %g is beyond float range", k, out->tracks[i].name,
                                     (double)factor);
    for (size_t j = 0; j < out->skeleton.joint_count; ++j) {
        ossa_float3 *v = &out->skeleton.joints[j].rest.translation;
        v->x *= factor, v->y *= factor, v->z *= factor;
    }
    for (size_t a = 0; a < out->animation_count; ++a)
        for (size_t t = 0; t < out->animations[a].track_count; ++t) {
            const ossa_raw_joint_track *track = &out->animations[a].tracks[t];
            for (size_t k = 0; k < track->translation_count; ++k) {
                ossa_float3 *v = &track->translations[k].value;
                v->x *= factor, v->y *= factor, v->z *= factor;
            }
        }
    for (size_t i = 0; i < out->track_count; ++i)
        for (size_t k = 0; is_position_track(&out->tracks[i]) && k < out->tracks[i].key_count; ++k)
            for (int c = 0; c < 3; ++c) out->tracks[i].keys[k].value[c] *= factor;
    return OSSA_OK;
}
