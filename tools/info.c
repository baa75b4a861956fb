#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/local_to_model_job.h"
#include "info.h"
#include "ossa/offline/error.h"
#include "ossa/offline/error_joints.h"
#include "ossa/sampling_job.h"
#include "ossa/simd_level.h"
#include "ossa/track_jobs.h"

/* Median over 7 repetitions of forward playback at 60 Hz over the whole clip, looping, with a
 * context of its own sized as a playing character's (ossa_sampling_context_recommended_size_for:
 * the playback cache where it pays); -1 when its memory cannot be had. */
static double time_sampling(const ossa_animation *anim, const ossa_skeleton *skel, ossa_soa_transform *pose)
{
    const size_t ctx_size = ossa_sampling_context_recommended_size_for(anim);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_sampling_context *ctx = ctx_mem ? ossa_sampling_context_init_for(ctx_mem, ctx_size, anim) : NULL;
    if (!ctx) {
        free(ctx_mem);
        return -1.0;
    }
    /* Bounded: the timing needs no more than 10 minutes of frames. */
    const double frames = (double)anim->duration * 60.0;
    const size_t steps = frames < 36000.0 ? (size_t)frames + 1 : 36001;
    const size_t calls = steps < 2000 ? 2000 : steps;
    double reps[7];
    for (int r = 0; r < 7; ++r) {
        const double t0 = tool_now();
        for (size_t i = 0; i < calls; ++i) {
            const ossa_sampling_job job = {anim,
                                           ctx,
                                           (float)(i % steps) / (float)(steps - 1 ? steps - 1 : 1),
                                           pose,
                                           anim->soa_count,
                                           skel->rest_pose,
                                           skel->soa_count};
            ossa_sampling_job_run(&job);
        }
        reps[r] = (tool_now() - t0) / (double)calls;
    }
    free(ctx_mem);
    qsort(reps, 7, sizeof *reps, tool_compare_doubles);
    return reps[3];
}

ossa_archive_chunk info_meta_chunk(const ossa_archive *archive)
{
    ossa_archive_chunk c = {0};
    if (ossa_archive_find(archive, OSSA_TAG_META, 0, &c) != OSSA_OK) c = (ossa_archive_chunk){0};
    return c;
}

bool info_meta_line(const ossa_archive_chunk *meta, size_t *at, const char **line, size_t *length)
{
    if (!meta->data || *at >= meta->size) return false;
    *line = (const char *)meta->data + *at;
    const char *end = memchr(*line, '\n', meta->size - *at);
    *length = end ? (size_t)(end - *line) : meta->size - *at;
    *at += *length + 1;
    return true;
}

static void print_meta(const ossa_archive *ar, const char *key, const char *label)
{
    char value[512];
    if (ossa_archive_meta(ar, key, value, sizeof value)) printf("%-16s %s\n", label, value);
}

/* unit_source's value as a tool_unit source (static text). */
static const char *unit_source_name(const char *source)
{
    return !strcmp(source, "user")       ? "user"
           : !strcmp(source, "inferred") ? "inferred"
           : !strcmp(source, "default")  ? "default"
                                         : "file";
}

tool_unit info_unit(const void *data, size_t size, const ossa_import_output *against, float user_scale)
{
    ossa_archive ar;
    char scale[64] = "", imported[64] = "", source[32] = "", units[64] = "";
    const bool opened = ossa_archive_init(&ar, data, size) == OSSA_OK;
    if (opened) ossa_archive_meta(&ar, "unit_source", source, sizeof source);
    /* Archives that record the import's unit beside the stored one (unit_scale): the bake
     * converted the translations from the first to the second, and a source compared with the
     * archive is converted the same way. */
    if (opened && ossa_archive_meta(&ar, "import_unit_scale", imported, sizeof imported)) {
        const float stored = ossa_archive_unit_scale(&ar), value = strtof(imported, NULL);
        tool_unit u = {value > 0.f && isfinite(value) ? value : stored, unit_source_name(source), 0.f, stored};
        if (user_scale > 0.f) {
            /* Poses kept in the source's unit are in the unit --unit-scale names too. */
            if (u.stored == u.scale) u.stored = user_scale;
            u.scale = user_scale, u.source = "user";
        }
        return u;
    }
    /* Older archives kept the source's unit: one unit for both. */
    if (user_scale > 0.f) return (tool_unit){user_scale, "user", 0.f, user_scale};
    if (opened && ossa_archive_meta(&ar, "unit_scale", scale, sizeof scale)) {
        const float value = strtof(scale, NULL);
        ossa_archive_meta(&ar, "source_units", units, sizeof units);
        /* Archives from before unit_source: a unit the source did not state was a default. */
        const bool by_default = !strcmp(source, "default") || (!source[0] && !strcmp(units, "unknown"));
        if (value > 0.f && isfinite(value) && !by_default)
            return (tool_unit){value, source[0] ? unit_source_name(source) : "file", 0.f, value};
    }
    tool_unit u = against ? tool_unit_of_import(against, 0.f) : (tool_unit){1.f, "default", 0.f, 1.f};
    u.stored = u.scale;
    return u;
}

bool info_against_in_stored_units(ossa_import_output *against, const char *against_path, tool_unit unit)
{
    ossa_diag diag;
    ossa_diag_clear(&diag);
    if (ossa_import_output_scale_lengths(against, unit.scale / unit.stored, &diag) == OSSA_OK) return true;
    char what[300];
    snprintf(what, sizeof what, "%s: conversion to the archive's unit", against_path);
    tool_print_diag(what, &diag);
    return false;
}

/* User-channel tracks: name, type, keys and range of values. */
static int measure_tracks(info_report *rep)
{
    static const char *const type_names[] = {"?", "float", "float2", "float3", "float4", "quaternion"};
    ossa_archive_chunk *chunks;
    const size_t count = tool_archive_chunks(&rep->archive, OSSA_TAG_TRACK, &chunks);
    rep->tracks = count && count != SIZE_MAX ? calloc(count, sizeof *rep->tracks) : NULL;
    if (count && !rep->tracks) {
        free(chunks);
        fprintf(stderr, "ossa: %s: out of memory\n", rep->path);
        return 1;
    }
    for (size_t i = 0; i < count; ++i) {
        ossa_track track = {0};
        const ossa_result r = chunks[i].version != OSSA_TRACK_BLOB_VERSION
                                  ? OSSA_ERROR_UNSUPPORTED_VERSION
                                  : ossa_track_init(&track, chunks[i].data, chunks[i].size);
        if (r != OSSA_OK) {
            free(chunks);
            fprintf(stderr, "ossa: %s: track %zu: %s (%s)\n", rep->path, i, ossa_result_string(r), ossa_result_name(r));
            return 1;
        }
        float lo = track.values[0], hi = track.values[0];
        for (size_t k = 0; k < track.key_count * track.width; ++k) {
            lo = track.values[k] < lo ? track.values[k] : lo;
            hi = track.values[k] > hi ? track.values[k] : hi;
        }
        rep->tracks[rep->track_count++] =
            (info_track){track.name, type_names[track.type <= 5 ? track.type : 0], track.key_count, lo, hi};
    }
    free(chunks);
    return 0;
}

/* Joint positions, then ACL's virtual vertices 3 cm away (in stored units), at 60 Hz and at
 * every source key time: the whole skeleton's figures and, with joint_errors, each joint's
 * maximum, in mm. */
static int measure_errors(const info_report *rep, const ossa_raw_animation *raw, info_animation *ia, bool joint_errors)
{
    const ossa_error_desc descs[INFO_ERROR_COUNT] = {
        {.source_times = 1}, {.shell_distance = INFO_SHELL_METRES / rep->unit.stored, .source_times = 1}};
    const double mm = (double)rep->unit.stored * 1e3;
    const size_t n = rep->skeleton.joint_count;
    float *joint_max = joint_errors ? malloc((n + 1) * sizeof *joint_max) : NULL;
    for (int d = 0; d < INFO_ERROR_COUNT; ++d) {
        info_error *e = &ia->errors[d];
        e->joint_max_mm = joint_errors ? calloc(n + 1, sizeof *e->joint_max_mm) : NULL;
        if (joint_errors && (!joint_max || !e->joint_max_mm)) {
            fprintf(stderr, "ossa: %s: out of memory\n", rep->path);
            free(joint_max);
            return 1;
        }
        ossa_error_report er;
        ossa_diag diag;
        ossa_diag_clear(&diag);
        if (ossa_measure_error(&rep->skeleton, raw, &ia->anim, &descs[d], &er, &diag) != OSSA_OK ||
            (joint_errors &&
             ossa_measure_joint_errors(&rep->skeleton, raw, &ia->anim, &descs[d], joint_max, n, &diag) != OSSA_OK)) {
            tool_print_diag("error measurement", &diag);
            free(joint_max);
            return 1;
        }
        e->max_mm = (double)er.max * mm;
        e->p99_mm = (double)er.p99 * mm;
        e->mean_mm = (double)er.mean * mm;
        e->worst_joint = er.worst_joint;
        e->worst_time = (double)er.worst_time;
        for (size_t j = 0; joint_errors && j < n; ++j) e->joint_max_mm[j] = (double)joint_max[j] * mm;
    }
    free(joint_max);
    ia->measured = true;
    return 0;
}

int info_measure(info_report *rep, const char *archive_path, const void *archive, size_t size,
                 const ossa_import_output *against, const char *against_path, tool_unit unit, bool joint_errors)
{
    *rep = (info_report){.path = archive_path, .size = size, .unit = unit, .against_path = against_path};
    ossa_result r = ossa_archive_init(&rep->archive, archive, size);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa: %s: %s (%s)\n", archive_path, ossa_result_string(r), ossa_result_name(r));
        return 1;
    }
    if ((r = ossa_archive_skeleton(&rep->archive, &rep->skeleton)) != OSSA_OK && r != OSSA_ERROR_NOT_FOUND) {
        fprintf(stderr, "ossa: %s: skeleton: %s (%s)\n", archive_path, ossa_result_string(r), ossa_result_name(r));
        return 1;
    }
    rep->loaded = true;
    const ossa_skeleton *skel = &rep->skeleton;
    ossa_archive_chunk *chunks;
    size_t anim_count = tool_archive_chunks(&rep->archive, OSSA_TAG_ANIMATION, &chunks);
    ossa_soa_transform *pose = aligned_alloc(16, (skel->soa_count + 1) * sizeof *pose);
    rep->animations = anim_count != SIZE_MAX ? calloc(anim_count + 1, sizeof *rep->animations) : NULL;
    int status = 0;
    if (!pose || !rep->animations) {
        fprintf(stderr, "ossa: %s: out of memory\n", archive_path);
        status = 1;
        anim_count = 0;
    }
    for (size_t a = 0; a < anim_count && status == 0; ++a) {
        info_animation *ia = &rep->animations[a];
        if ((r = tool_chunk_animation(&chunks[a], &ia->anim)) != OSSA_OK) {
            fprintf(stderr, "ossa: %s: animation %zu: %s (%s)\n", archive_path, a, ossa_result_string(r),
                    ossa_result_name(r));
            status = 1;
            break;
        }
        rep->animation_count = a + 1;
        const ossa_animation *anim = &ia->anim;
        ia->baked_bytes = chunks[a].size;
        for (size_t j = 0; j < anim->track_count; ++j)
            for (int c = 0; c < 3; ++c) ia->kinds[c][ossa_animation_channel_kind(anim, j, c)]++;
        ossa_animation_sizes(anim, &ia->sizes);
        const ossa_raw_animation *raw = against && a < against->animation_count ? &against->animations[a] : NULL;
        ia->has_source = raw != NULL;
        ia->raw_bytes = raw ? ossa_raw_animation_size(raw) : 0;
        if (against && (!raw || raw->track_count != anim->track_count || anim->track_count != skel->joint_count)) {
            fprintf(stderr,
                    "ossa: %s does not match animation %zu of %s: expected %zu tracks for %zu joints, found %s%zu\n",
                    against_path, a, archive_path, anim->track_count, skel->joint_count,
                    raw ? "" : "no animation, the source has ", raw ? raw->track_count : against->animation_count);
            status = 1;
        } else if (raw && measure_errors(rep, raw, ia, joint_errors) != 0) {
            /* The animation's other figures are still reported. */
            status = 1;
        }
        if (anim->track_count <= skel->joint_count) {
            const double seconds = time_sampling(anim, skel, pose);
            ia->timed = seconds >= 0.0;
            ia->ns_per_call = seconds * 1e9;
        }
    }
    free(pose);
    free(chunks);
    if (status == 0) status = measure_tracks(rep);
    return status;
}

void info_report_free(info_report *rep)
{
    for (size_t a = 0; rep->animations && a < rep->animation_count; ++a)
        for (int d = 0; d < INFO_ERROR_COUNT; ++d) free(rep->animations[a].errors[d].joint_max_mm);
    free(rep->animations);
    free(rep->tracks);
    *rep = (info_report){0};
}

/* Sub-track kinds, keys and where the bytes go (ossa_animation_sizes). */
static void print_animation_layout(const info_animation *ia)
{
    const ossa_animation *anim = &ia->anim;
    const size_t(*kinds)[4] = ia->kinds;
    const bool sorted = (anim->flags & OSSA_ANIMATION_FLAG_SORTED_KEYS) != 0;
    if (sorted)
        printf("%-16s sorted (keys in playback order, 16-bit values; an iframe every %zu time points)\n", "layout",
               anim->iframe_interval);
    else
        printf("%-16s packed (bit-packed segments of 16 time points)\n", "layout");
    printf("%-16s %zu time points (%s), %zu %s\n", "time points", anim->frame_count,
           anim->timepoints ? "table" : "uniform", anim->segment_count, sorted ? "iframes" : "segments");
    printf("%-16s animated / constant / rest pose / default: translation %zu/%zu/%zu/%zu, rotation "
           "%zu/%zu/%zu/%zu,\n%-16s scale %zu/%zu/%zu/%zu\n",
           "sub-tracks", kinds[0][2], kinds[0][1], kinds[0][3], kinds[0][0], kinds[1][2], kinds[1][1], kinds[1][3],
           kinds[1][0], "", kinds[2][2], kinds[2][1], kinds[2][3], kinds[2][0]);
    const size_t samples = anim->animated_count * anim->frame_count;
    printf("%-16s %zu (%.1f %% of the animated sub-tracks' samples)\n", "keys", anim->key_count,
           samples ? 100.0 * (double)anim->key_count / (double)samples : 0.0);
    const ossa_animation_size_breakdown *b = &ia->sizes;
    printf("%-16s header %zu, time points %zu, kinds %zu, constants %zu, descriptors %zu, ranges %zu,\n", "bytes",
           b->header, b->timepoints, b->kinds, b->constants, b->descriptors, b->ranges);
    if (sorted)
        printf("%-16s iframes %zu, key times and slots %zu,\n", "", b->segment_table, b->bitmaps);
    else
        printf("%-16s segment table %zu, key bitmaps %zu, segment ranges %zu,\n", "", b->segment_table, b->bitmaps,
               b->segment_ranges);
    printf("%-16s values: translation %zu, rotation %zu, scale %zu;\n", "", b->translation_values, b->rotation_values,
           b->scale_values);
    printf("%-16s name %zu, padding %zu\n", "", b->name, b->padding);
}

static void print_animation(const info_report *rep, size_t a)
{
    const info_animation *ia = &rep->animations[a];
    const ossa_animation *anim = &ia->anim;
    printf("\nanimation %zu       \"%s\"\n", a, anim->name);
    printf("%-16s %.4g s, %zu tracks\n", "duration", (double)anim->duration, anim->track_count);
    print_animation_layout(ia);
    if (ia->has_source) {
        printf("%-16s %zu\n", "raw bytes", ia->raw_bytes);
        printf("%-16s %zu (ratio %.2f; %.2f by ACL's definition, 10 floats x 4 B x joints x samples)\n", "baked bytes",
               ia->baked_bytes, (double)ia->raw_bytes / (double)ia->baked_bytes,
               40.0 * (double)anim->track_count * (double)anim->frame_count / (double)ia->baked_bytes);
    } else {
        printf("%-16s %zu\n", "baked bytes", ia->baked_bytes);
    }
    for (int d = 0; d < INFO_ERROR_COUNT && ia->measured; ++d) {
        const info_error *e = &ia->errors[d];
        if (d == INFO_ERROR_JOINTS)
            printf("%-16s max %.4g mm / p99 %.4g mm / mean %.4g mm at joints (model space, every source sample "
                   "and 60 Hz, vs %s)\n",
                   "error", e->max_mm, e->p99_mm, e->mean_mm, rep->against_path);
        else
            printf("%-16s max %.4g mm / p99 %.4g mm / mean %.4g mm (0.03 m virtual vertices, every source "
                   "sample and 60 Hz)\n",
                   "vertex error", e->max_mm, e->p99_mm, e->mean_mm);
        printf("%-16s joint %zu \"%s\" at %.3f s\n", "  worst", e->worst_joint,
               ossa_skeleton_joint_name(&rep->skeleton, e->worst_joint), e->worst_time);
    }
    if (ia->timed)
        printf("%-16s %.0f ns/call, %.1f ns/joint (forward playback at 60 Hz, median of 7)\n", "sampling",
               ia->ns_per_call, ia->ns_per_call / (double)(anim->track_count ? anim->track_count : 1));
}

/* The text report of what info_measure read, in the order it was read. */
static void print_text(const info_report *rep, bool with_tracks)
{
    const ossa_archive *ar = &rep->archive;
    printf("%-16s %s (%zu bytes, %zu chunks)\n", "archive", rep->path, rep->size, ar->chunk_count);
    printf("%-16s %s (the instruction set the jobs run on here)\n", "simd", ossa_simd_string(ossa_simd_level()));
    print_meta(ar, "input", "source");
    print_meta(ar, "format", "format");
    print_meta(ar, "source_units", "source units");
    print_meta(ar, "retarget", "retargeted to");
    print_meta(ar, "retarget_bound_joints", "bound joints");
    char scale_text[32];
    tool_format_float(scale_text, sizeof scale_text, rep->unit.scale);
    printf("%-16s %s (%s)\n", "metres per unit", scale_text,
           !strcmp(rep->unit.source, "user")       ? "--unit-scale"
           : !strcmp(rep->unit.source, "file")     ? "source metadata"
           : !strcmp(rep->unit.source, "inferred") ? "inferred from the rest pose's extent, a 1.7 m human"
                                                   : "assumed");
    char stored_text[32];
    tool_format_float(stored_text, sizeof stored_text, rep->unit.stored);
    if (rep->unit.stored == 1.f && rep->unit.scale != 1.f)
        printf("%-16s metres (converted from the source's unit)\n", "poses in");
    else if (rep->unit.stored == 1.f)
        printf("%-16s metres\n", "poses in");
    else
        printf("%-16s source units (%s m each: multiply by it for metres)\n", "poses in", stored_text);
    printf("%-16s %zu joints (%zu SoA groups)\n", "skeleton", rep->skeleton.joint_count, rep->skeleton.soa_count);
    for (size_t a = 0; a < rep->animation_count; ++a) print_animation(rep, a);
    if (!with_tracks) return;
    if (rep->track_count) printf("\n%-16s %zu\n", "tracks", rep->track_count);
    for (size_t i = 0; i < rep->track_count; ++i) {
        const info_track *t = &rep->tracks[i];
        printf("  %-32s %-10s %zu keys, values in [%g, %g]\n", t->name, t->type, t->keys, (double)t->min,
               (double)t->max);
    }
    const char *line;
    size_t len, events = 0;
    const ossa_archive_chunk meta = info_meta_chunk(ar);
    for (size_t at = 0; info_meta_line(&meta, &at, &line, &len);) {
        if (len > 6 && !strncmp(line, "event=", 6)) {
            if (events++ == 0) printf("\n%-16s (seconds, name)\n", "events");
            printf("  %.*s\n", (int)(len - 6), line + 6);
        }
    }
}

int tool_report(const char *archive_path, const void *archive, size_t size, const ossa_import_output *against,
                const char *against_path, tool_unit unit)
{
    info_report rep;
    const int status = info_measure(&rep, archive_path, archive, size, against, against_path, unit, false);
    if (rep.loaded) print_text(&rep, status == 0);
    info_report_free(&rep);
    return status;
}

int info_check_against(const char *archive_path, const void *archive, size_t size, const ossa_import_output *source,
                       const char *source_path)
{
    ossa_archive ar;
    ossa_skeleton skel;
    if (ossa_archive_init(&ar, archive, size) != OSSA_OK || ossa_archive_skeleton(&ar, &skel) != OSSA_OK) return 0;
    const ossa_raw_skeleton *raw = &source->skeleton;
    /* A source without a skeleton of its own (an ozz raw animation without --skeleton) is
     * measured on the archive's: only its track counts can differ. */
    if (raw->joint_count && raw->joint_count != skel.joint_count) {
        fprintf(stderr, "ossa: %s does not match the skeleton of %s: the archive has %zu joints, the source %zu\n",
                source_path, archive_path, skel.joint_count, raw->joint_count);
        return 1;
    }
    for (size_t j = 0; j < raw->joint_count; ++j) {
        const char *name = ossa_skeleton_joint_name(&skel, j);
        if (strcmp(name, raw->joints[j].name)) {
            fprintf(stderr,
                    "ossa: %s does not match the skeleton of %s: joint %zu is \"%s\" in the archive, \"%s\" in the "
                    "source\n",
                    source_path, archive_path, j, name, raw->joints[j].name);
            return 1;
        }
        const int parent = skel.parents[j] == OSSA_NO_PARENT ? -1 : skel.parents[j];
        if (parent != (raw->joints[j].parent < 0 ? -1 : raw->joints[j].parent)) {
            fprintf(stderr,
                    "ossa: %s does not match the skeleton of %s: joint %zu \"%s\" has the parent %d in the archive, %d "
                    "in the source\n",
                    source_path, archive_path, j, name, parent, (int)raw->joints[j].parent);
            return 1;
        }
    }
    ossa_archive_chunk *chunks;
    const size_t count = tool_archive_chunks(&ar, OSSA_TAG_ANIMATION, &chunks);
    if (count == SIZE_MAX) return 0; /* out of memory: info_measure says so */
    int status = 0;
    for (size_t a = 0; a < count && status == 0; ++a) {
        ossa_animation anim;
        if (tool_chunk_animation(&chunks[a], &anim) != OSSA_OK) break; /* info_measure reports it */
        if (a >= source->animation_count) {
            fprintf(stderr, "ossa: %s does not match %s: the archive has %zu clips, the source %zu\n", source_path,
                    archive_path, count, source->animation_count);
            status = 1;
        } else if (source->animations[a].track_count != anim.track_count) {
            fprintf(stderr, "ossa: %s does not match %s: clip %zu has %zu tracks in the archive, %zu in the source\n",
                    source_path, archive_path, a, anim.track_count, source->animations[a].track_count);
            status = 1;
        }
    }
    free(chunks);
    return status;
}

static const char info_usage[] =
    "usage: ossa info FILE.ossa [--against SOURCE [--skeleton FILE] [--drop-end-sites]] [--unit-scale METRES]\n"
    "                 [--json]\n"
    "  print the archive's skeleton, each clip's duration, keys and bytes (by part), its tracks and\n"
    "  events, and the sampling time (ns per call, forward playback at 60 Hz)\n"
    "  --against SOURCE    the file the archive was baked from: each clip's error against it, in mm,\n"
    "                      at the joints and at 3 cm virtual vertices (every source sample and 60 Hz);\n"
    "                      its skeleton must be the archive's (same joints, names and order)\n"
    "  --skeleton FILE     the skeleton SOURCE takes, as for ossa bake --skeleton\n"
    "  --drop-end-sites    read SOURCE without its BVH end sites, as a bake with --drop-end-sites did\n"
    "  --unit-scale M      metres per source unit, for the errors in mm (default: the one in the\n"
    "                      archive's META, else SOURCE's)\n"
    "  --json              the same figures and each joint's error as one JSON document\n"
    "                      (docs/info-json.md)\n";

int tool_info(int argc, char **argv)
{
    const char *path = NULL, *against = NULL, *skeleton_path = NULL;
    bool drop_end_sites = false, json = false;
    float unit_scale = 0.f;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return fputs(info_usage, stdout), 0;
        else if (!strcmp(argv[i], "--against") && i + 1 < argc)
            against = argv[++i];
        else if (!strcmp(argv[i], "--unit-scale") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], TOOL_UNIT_SCALE_MIN, TOOL_UNIT_SCALE_MAX, &unit_scale))
                return tool_usage_error("info", "--unit-scale needs metres per unit from 1e-6 to 1e4 (found \"%s\")",
                                        argv[i]);
        } else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton_path = argv[++i];
        else if (!strcmp(argv[i], "--drop-end-sites"))
            drop_end_sites = true;
        else if (!strcmp(argv[i], "--json"))
            json = true;
        else if (argv[i][0] == '-' || path)
            return tool_usage_error("info", "unexpected argument \"%s\"", argv[i]);
        else
            path = argv[i];
    }
    if (!path) return tool_usage_error("info", "no archive given");
    if (skeleton_path && !against) return tool_usage_error("info", "--skeleton goes with --against");
    if (json && !info_json_available()) {
        fprintf(stderr, "ossa: info: --json needs cJSON, and this ossa was built without it (install libcjson-dev "
                        "and reconfigure)\n");
        return 2;
    }
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return 1;
    ossa_import_output imp = {0};
    /* A source of another skeleton is refused before anything is printed. */
    if (against && (!tool_import_with_skeleton(against, skeleton_path, drop_end_sites, &imp) ||
                    info_check_against(path, data, size, &imp, against) != 0)) {
        ossa_import_output_destroy(&imp);
        free(data);
        return 1;
    }
    const tool_unit unit = info_unit(data, size, against ? &imp : NULL, unit_scale);
    if (against && !info_against_in_stored_units(&imp, against, unit)) {
        ossa_import_output_destroy(&imp);
        free(data);
        return 1;
    }
    int status;
    if (json) {
        /* The document is written only when everything was read and measured. */
        info_report rep;
        status = info_measure(&rep, path, data, size, against ? &imp : NULL, against, unit, true);
        if (status == 0) status = info_print_json(&rep);
        info_report_free(&rep);
    } else {
        status = tool_report(path, data, size, against ? &imp : NULL, against, unit);
    }
    ossa_import_output_destroy(&imp);
    free(data);
    return status;
}
