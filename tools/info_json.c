/* `ossa info --json`: the report info_measure made, as one JSON document written with cJSON
 * (the schema is in docs/info-json.md). Built without cJSON, it says so and fails. */
#include <stdlib.h>
#include <string.h>

#include "info.h"
#include "ossa/simd_level.h"

#if defined(OSSA_HAVE_CJSON)
#include <cjson/cJSON.h>

bool info_json_available(void) { return true; }

/* cJSON drops a member whose allocation fails and carries on: its allocations are counted so
 * that a document with a hole is never printed. */
static bool allocation_failed;

static void *json_malloc(size_t size)
{
    void *p = malloc(size);
    if (!p) allocation_failed = true;
    return p;
}

/* A float as the shortest decimal that reads back as it ("0.3", not 0.30000001192092896). */
static cJSON *add_float(cJSON *object, const char *name, float value)
{
    char text[32];
    tool_format_float(text, sizeof text, value);
    return cJSON_AddNumberToObject(object, name, strtod(text, NULL));
}

static cJSON *add_size(cJSON *object, const char *name, size_t value)
{
    return cJSON_AddNumberToObject(object, name, (double)value);
}

/* The META chunk: each key=value line as a member (the first of a repeated key, as the text
 * report reads them), events apart as {time_s, name}. */
static void add_meta(cJSON *root, const ossa_archive *ar)
{
    cJSON *meta = cJSON_AddObjectToObject(root, "meta");
    cJSON *events = cJSON_AddArrayToObject(root, "events");
    const char *line;
    size_t len;
    const ossa_archive_chunk meta_chunk = info_meta_chunk(ar);
    for (size_t at = 0; info_meta_line(&meta_chunk, &at, &line, &len);) {
        const char *eq = memchr(line, '=', len);
        if (!eq || eq == line) continue; /* not a key=value line */
        char *key = malloc(len + 1);
        if (!key) {
            allocation_failed = true;
            continue;
        }
        memcpy(key, line, len);
        key[len] = '\0';
        key[eq - line] = '\0';
        char *value = key + (eq - line) + 1;
        if (!strcmp(key, "event")) {
            /* "event=<seconds> <name>" (ossa bake) */
            const char *name = strchr(value, ' ');
            cJSON *event = cJSON_CreateObject();
            cJSON_AddNumberToObject(event, "time_s", strtod(value, NULL));
            tool_json_add_string(event, "name", name ? name + 1 : "");
            cJSON_AddItemToArray(events, event);
        } else {
            /* A member name is a JSON string too: the key made UTF-8 (a hand-made archive). */
            cJSON *item = tool_json_string(key);
            const char *name = cJSON_GetStringValue(item);
            if (name && !cJSON_GetObjectItemCaseSensitive(meta, name)) tool_json_add_string(meta, name, value);
            cJSON_Delete(item);
        }
        free(key);
    }
}

static void add_unit(cJSON *root, const tool_unit *unit)
{
    cJSON *u = cJSON_AddObjectToObject(root, "unit");
    add_float(u, "metres_per_unit", unit->stored);
    add_float(u, "source_metres_per_unit", unit->scale);
    cJSON_AddStringToObject(u, "source", unit->source);
    if (!strcmp(unit->source, "inferred") && unit->height > 0.f) add_float(u, "rest_extent", unit->height);
}

static void add_skeleton(cJSON *root, const ossa_skeleton *skel)
{
    cJSON *s = cJSON_AddObjectToObject(root, "skeleton");
    add_size(s, "joints", skel->joint_count);
    add_size(s, "soa_groups", skel->soa_count);
    cJSON *names = cJSON_AddArrayToObject(s, "names");
    cJSON *parents = cJSON_AddArrayToObject(s, "parents");
    for (size_t j = 0; j < skel->joint_count; ++j) {
        cJSON_AddItemToArray(names, tool_json_string(ossa_skeleton_joint_name(skel, j)));
        cJSON_AddItemToArray(parents, cJSON_CreateNumber(skel->parents[j]));
    }
}

static void add_sub_tracks(cJSON *object, const size_t kinds[3][4])
{
    static const char *const channels[3] = {"translation", "rotation", "scale"};
    /* Indexed by ossa_animation_channel_kind. */
    static const char *const kind_names[4] = {"default", "constant", "animated", "rest_pose"};
    cJSON *sub = cJSON_AddObjectToObject(object, "sub_tracks");
    for (int c = 0; c < 3; ++c) {
        cJSON *channel = cJSON_AddObjectToObject(sub, channels[c]);
        for (int k = 0; k < 4; ++k) add_size(channel, kind_names[k], kinds[c][k]);
    }
}

static void add_bytes(cJSON *object, const ossa_animation_size_breakdown *b)
{
    const struct {
        const char *name;
        size_t value;
    } parts[] = {{"header", b->header},
                 {"time_points", b->timepoints},
                 {"kinds", b->kinds},
                 {"constants", b->constants},
                 {"descriptors", b->descriptors},
                 {"ranges", b->ranges},
                 {"segment_table", b->segment_table},
                 {"key_bitmaps", b->bitmaps},
                 {"segment_ranges", b->segment_ranges},
                 {"translation_values", b->translation_values},
                 {"rotation_values", b->rotation_values},
                 {"scale_values", b->scale_values},
                 {"name", b->name},
                 {"padding", b->padding}};
    cJSON *bytes = cJSON_AddObjectToObject(object, "bytes");
    size_t total = 0;
    for (size_t i = 0; i < sizeof parts / sizeof *parts; ++i) {
        add_size(bytes, parts[i].name, parts[i].value);
        total += parts[i].value;
    }
    add_size(bytes, "total", total);
}

static cJSON *error_object(const info_error *e, const ossa_skeleton *skel)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "max_mm", e->max_mm);
    cJSON_AddNumberToObject(o, "p99_mm", e->p99_mm);
    cJSON_AddNumberToObject(o, "mean_mm", e->mean_mm);
    add_size(o, "worst_joint", e->worst_joint);
    tool_json_add_string(o, "worst_joint_name", ossa_skeleton_joint_name(skel, e->worst_joint));
    add_float(o, "worst_time_s", (float)e->worst_time);
    cJSON *per_joint = cJSON_AddArrayToObject(o, "joint_max_mm");
    for (size_t j = 0; j < skel->joint_count; ++j)
        cJSON_AddItemToArray(per_joint, cJSON_CreateNumber(e->joint_max_mm[j]));
    return o;
}

static cJSON *animation_object(const info_report *rep, const info_animation *ia)
{
    const ossa_animation *anim = &ia->anim;
    cJSON *o = cJSON_CreateObject();
    tool_json_add_string(o, "name", anim->name);
    add_float(o, "duration_s", anim->duration);
    add_size(o, "tracks", anim->track_count);
    add_size(o, "time_points", anim->frame_count);
    cJSON_AddBoolToObject(o, "uniform", anim->timepoints == NULL);
    add_size(o, "segments", anim->segment_count);
    tool_json_add_string(o, "layout", anim->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS ? "sorted" : "packed");
    add_sub_tracks(o, ia->kinds);
    add_size(o, "keys", anim->key_count);
    add_size(o, "animated_samples", anim->animated_count * anim->frame_count);
    add_bytes(o, &ia->sizes);
    add_size(o, "baked_bytes", ia->baked_bytes);
    if (ia->has_source) {
        add_size(o, "raw_bytes", ia->raw_bytes);
        cJSON_AddNumberToObject(o, "ratio", (double)ia->raw_bytes / (double)ia->baked_bytes);
        cJSON_AddNumberToObject(o, "acl_ratio",
                                40.0 * (double)anim->track_count * (double)anim->frame_count / (double)ia->baked_bytes);
    }
    if (ia->measured) {
        cJSON *errors = cJSON_AddObjectToObject(o, "errors");
        cJSON_AddItemToObject(errors, "joints", error_object(&ia->errors[INFO_ERROR_JOINTS], &rep->skeleton));
        cJSON *vertices = error_object(&ia->errors[INFO_ERROR_VERTICES], &rep->skeleton);
        add_float(vertices, "shell_distance_m", INFO_SHELL_METRES);
        cJSON_AddItemToObject(errors, "vertices", vertices);
    }
    if (ia->timed) {
        cJSON *sampling = cJSON_AddObjectToObject(o, "sampling");
        cJSON_AddNumberToObject(sampling, "ns_per_call", ia->ns_per_call);
        cJSON_AddNumberToObject(sampling, "ns_per_joint",
                                ia->ns_per_call / (double)(anim->track_count ? anim->track_count : 1));
    }
    return o;
}

int info_print_json(const info_report *rep)
{
    cJSON_Hooks hooks = {json_malloc, free};
    cJSON_InitHooks(&hooks);
    allocation_failed = false;
    cJSON *root = cJSON_CreateObject();
    cJSON_AddNumberToObject(root, "schema", 1);
    cJSON_AddStringToObject(root, "simd", ossa_simd_string(ossa_simd_level()));
    cJSON *archive = cJSON_AddObjectToObject(root, "archive");
    tool_json_add_string(archive, "path", rep->path);
    add_size(archive, "bytes", rep->size);
    add_size(archive, "chunks", rep->archive.chunk_count);
    add_meta(root, &rep->archive);
    add_unit(root, &rep->unit);
    add_skeleton(root, &rep->skeleton);
    if (rep->against_path)
        tool_json_add_string(root, "against", rep->against_path);
    else
        cJSON_AddNullToObject(root, "against");
    cJSON *animations = cJSON_AddArrayToObject(root, "animations");
    for (size_t a = 0; a < rep->animation_count; ++a)
        cJSON_AddItemToArray(animations, animation_object(rep, &rep->animations[a]));
    cJSON *tracks = cJSON_AddArrayToObject(root, "tracks");
    for (size_t i = 0; i < rep->track_count; ++i) {
        const info_track *t = &rep->tracks[i];
        cJSON *track = cJSON_CreateObject();
        tool_json_add_string(track, "name", t->name);
        cJSON_AddStringToObject(track, "type", t->type);
        add_size(track, "keys", t->keys);
        add_float(track, "min", t->min);
        add_float(track, "max", t->max);
        cJSON_AddItemToArray(tracks, track);
    }
    char *text = root ? cJSON_Print(root) : NULL;
    cJSON_Delete(root);
    if (!text || allocation_failed) {
        cJSON_free(text);
        fprintf(stderr, "ossa: info: out of memory writing JSON\n");
        return 1;
    }
    puts(text);
    cJSON_free(text);
    return 0;
}

#else

bool info_json_available(void) { return false; }

int info_print_json(const info_report *report)
{
    (void)report;
    fprintf(stderr, "ossa: info: --json needs cJSON, and this ossa was built without it\n");
    return 2;
}

#endif
