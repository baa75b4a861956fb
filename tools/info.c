#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/local_to_model_job.h"
#include "ossa/offline/error.h"
#include "ossa/sampling_job.h"
#include "ossa/track_jobs.h"
#include "tools.h"

/* Median over 7 repetitions of forward playback at 60 Hz over the whole clip, looping. */
static double time_sampling(const ossa_animation *anim, const ossa_skeleton *skel, ossa_sampling_context *ctx,
                            ossa_soa_transform *pose)
{
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
    qsort(reps, 7, sizeof *reps, tool_compare_doubles);
    return reps[3];
}

/* The value of the first META line with `key`; false when there is none. */
static bool meta_value(const ossa_archive *ar, const char *key, char *buffer, size_t size)
{
    ossa_archive_chunk c;
    if (ossa_archive_find(ar, OSSA_TAG_META, 0, &c) != OSSA_OK) return false;
    const char *text = c.data;
    const size_t klen = strlen(key);
    for (size_t at = 0; at < c.size;) {
        const char *line = text + at;
        const char *end = memchr(line, '\n', c.size - at);
        const size_t len = end ? (size_t)(end - line) : c.size - at;
        if (len > klen && !strncmp(line, key, klen) && line[klen] == '=') {
            snprintf(buffer, size, "%.*s", (int)(len - klen - 1), line + klen + 1);
            return true;
        }
        at += len + 1;
    }
    return false;
}

static void print_meta(const ossa_archive *ar, const char *key, const char *label)
{
    char value[512];
    if (meta_value(ar, key, value, sizeof value)) printf("%-16s %s\n", label, value);
}

/* The unit of `ossa info`: --unit-scale, else the unit the archive's META records (unless
 * that was a default), else the source's metadata, else 1. */
static tool_unit info_unit(const void *data, size_t size, const ossa_import_output *against, float user_scale)
{
    if (user_scale > 0.f) return (tool_unit){user_scale, "user", 0.f};
    ossa_archive ar;
    char scale[64] = "", source[32] = "", units[64] = "";
    if (ossa_archive_init(&ar, data, size) == OSSA_OK && meta_value(&ar, "unit_scale", scale, sizeof scale)) {
        const float value = strtof(scale, NULL);
        meta_value(&ar, "unit_source", source, sizeof source);
        meta_value(&ar, "source_units", units, sizeof units);
        /* Archives from before unit_source: a unit the source did not state was a default. */
        const bool by_default = !strcmp(source, "default") || (!source[0] && !strcmp(units, "unknown"));
        if (value > 0.f && isfinite(value) && !by_default)
            return (tool_unit){value,
                               !strcmp(source, "user")       ? "user"
                               : !strcmp(source, "inferred") ? "inferred"
                                                             : "file",
                               0.f};
    }
    return against ? tool_unit_of_import(against, 0.f) : (tool_unit){1.f, "default", 0.f};
}

/* User-channel tracks (name, type, keys, range of values) and the events kept in META. */
static int report_tracks_and_events(const ossa_archive *ar, const char *archive_path)
{
    static const char *const type_names[] = {"?", "float", "float2", "float3", "float4", "quaternion"};
    const size_t count = ossa_archive_count(ar, OSSA_TAG_TRACK);
    if (count) printf("\n%-16s %zu\n", "tracks", count);
    for (size_t i = 0; i < count; ++i) {
        ossa_track track;
        const ossa_result r = ossa_archive_track(ar, i, &track);
        if (r != OSSA_OK) {
            fprintf(stderr, "ossa: %s: track %zu: %s (%s)\n", archive_path, i, ossa_result_string(r),
                    ossa_result_name(r));
            return 1;
        }
        float lo = track.values[0], hi = track.values[0];
        for (size_t k = 0; k < track.key_count * track.width; ++k) {
            lo = track.values[k] < lo ? track.values[k] : lo;
            hi = track.values[k] > hi ? track.values[k] : hi;
        }
        printf("  %-32s %-10s %zu keys, values in [%g, %g]\n", track.name, type_names[track.type <= 5 ? track.type : 0],
               track.key_count, (double)lo, (double)hi);
    }
    ossa_archive_chunk c;
    if (ossa_archive_find(ar, OSSA_TAG_META, 0, &c) != OSSA_OK) return 0;
    const char *text = c.data;
    size_t events = 0;
    for (size_t at = 0; at < c.size;) {
        const char *line = text + at;
        const char *end = memchr(line, '\n', c.size - at);
        const size_t len = end ? (size_t)(end - line) : c.size - at;
        if (len > 6 && !strncmp(line, "event=", 6)) {
            if (events++ == 0) printf("\n%-16s (seconds, name)\n", "events");
            printf("  %.*s\n", (int)(len - 6), line + 6);
        }
        at += len + 1;
    }
    return 0;
}

/* Sub-track kinds, keys and where the bytes go (ossa_animation_sizes). */
static void print_animation_layout(const ossa_animation *anim)
{
    size_t kinds[3][4] = {{0}};
    for (size_t j = 0; j < anim->track_count; ++j)
        for (int c = 0; c < 3; ++c) kinds[c][ossa_animation_channel_kind(anim, j, c)]++;
    printf("%-16s %zu time points (%s), %zu segments\n", "time points", anim->frame_count,
           anim->timepoints ? "table" : "uniform", anim->segment_count);
    printf("%-16s animated / constant / rest pose / default: translation %zu/%zu/%zu/%zu, rotation "
           "%zu/%zu/%zu/%zu,\n%-16s scale %zu/%zu/%zu/%zu\n",
           "sub-tracks", kinds[0][2], kinds[0][1], kinds[0][3], kinds[0][0], kinds[1][2], kinds[1][1], kinds[1][3],
           kinds[1][0], "", kinds[2][2], kinds[2][1], kinds[2][3], kinds[2][0]);
    const size_t samples = anim->animated_count * anim->frame_count;
    printf("%-16s %zu (%.1f %% of the animated sub-tracks' samples)\n", "keys", anim->key_count,
           samples ? 100.0 * (double)anim->key_count / (double)samples : 0.0);
    ossa_animation_size_breakdown b;
    ossa_animation_sizes(anim, &b);
    printf("%-16s header %zu, time points %zu, kinds %zu, constants %zu, descriptors %zu, ranges %zu,\n", "bytes",
           b.header, b.timepoints, b.kinds, b.constants, b.descriptors, b.ranges);
    printf("%-16s segment table %zu, key bitmaps %zu, segment ranges %zu,\n", "", b.segment_table, b.bitmaps,
           b.segment_ranges);
    printf("%-16s values: translation %zu, rotation %zu, scale %zu;\n", "", b.translation_values, b.rotation_values,
           b.scale_values);
    printf("%-16s name %zu, padding %zu\n", "", b.name, b.padding);
}

int tool_report(const char *archive_path, const void *archive, size_t size, const ossa_import_output *against,
                const char *against_path, tool_unit unit)
{
    ossa_archive ar;
    ossa_result r = ossa_archive_init(&ar, archive, size);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa: %s: %s (%s)\n", archive_path, ossa_result_string(r), ossa_result_name(r));
        return 1;
    }
    ossa_skeleton skel;
    if ((r = ossa_archive_skeleton(&ar, &skel)) != OSSA_OK && r != OSSA_ERROR_NOT_FOUND) {
        fprintf(stderr, "ossa: %s: skeleton: %s (%s)\n", archive_path, ossa_result_string(r), ossa_result_name(r));
        return 1;
    }
    printf("%-16s %s (%zu bytes, %zu chunks)\n", "archive", archive_path, size, ar.chunk_count);
    print_meta(&ar, "input", "source");
    print_meta(&ar, "format", "format");
    print_meta(&ar, "source_units", "source units");
    print_meta(&ar, "retarget", "retargeted to");
    print_meta(&ar, "retarget_bound_joints", "bound joints");
    char scale_text[32];
    tool_format_float(scale_text, sizeof scale_text, unit.scale);
    printf("%-16s %s (%s)\n", "metres per unit", scale_text,
           !strcmp(unit.source, "user")       ? "--unit-scale"
           : !strcmp(unit.source, "file")     ? "source metadata"
           : !strcmp(unit.source, "inferred") ? "inferred from the rest pose's extent, a 1.7 m human"
                                              : "assumed");
    printf("%-16s %zu joints (%zu SoA groups)\n", "skeleton", skel.joint_count, skel.soa_count);
    const size_t anim_count = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *pose = aligned_alloc(16, (skel.soa_count + 1) * sizeof *pose);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count);
    int status = 0;
    for (size_t a = 0; a < anim_count && ctx && pose; ++a) {
        ossa_animation anim;
        if ((r = ossa_archive_animation(&ar, a, &anim)) != OSSA_OK) {
            fprintf(stderr, "ossa: %s: animation %zu: %s (%s)\n", archive_path, a, ossa_result_string(r),
                    ossa_result_name(r));
            status = 1;
            break;
        }
        ossa_archive_chunk chunk;
        ossa_archive_find(&ar, OSSA_TAG_ANIMATION, a, &chunk);
        printf("\nanimation %zu       \"%s\"\n", a, anim.name);
        printf("%-16s %.4g s, %zu tracks\n", "duration", (double)anim.duration, anim.track_count);
        print_animation_layout(&anim);
        const ossa_raw_animation *raw = against && a < against->animation_count ? &against->animations[a] : NULL;
        if (raw) {
            const size_t raw_bytes = ossa_raw_animation_size(raw);
            printf("%-16s %zu\n", "raw bytes", raw_bytes);
            printf("%-16s %zu (ratio %.2f; %.2f by ACL's definition, 10 floats x 4 B x joints x samples)\n",
                   "baked bytes", chunk.size, (double)raw_bytes / (double)chunk.size,
                   40.0 * (double)anim.track_count * (double)anim.frame_count / (double)chunk.size);
        } else {
            printf("%-16s %zu\n", "baked bytes", chunk.size);
        }
        if (against && (!raw || raw->track_count != anim.track_count || anim.track_count != skel.joint_count)) {
            fprintf(stderr,
                    "ossa: %s does not match animation %zu of %s: expected %zu tracks for %zu joints, found %s%zu\n",
                    against_path, a, archive_path, anim.track_count, skel.joint_count,
                    raw ? "" : "no animation, the source has ", raw ? raw->track_count : against->animation_count);
            status = 1;
        } else if (raw) {
            /* Joint positions, then ACL's virtual vertices 3 cm away (in source units), at 60 Hz
             * and at every source key time; printed in millimetres. */
            const ossa_error_desc descs[2] = {{.source_times = 1},
                                              {.shell_distance = .03f / unit.scale, .source_times = 1}};
            const double mm = (double)unit.scale * 1e3;
            for (int d = 0; d < 2; ++d) {
                ossa_error_report rep;
                ossa_diag diag;
                ossa_diag_clear(&diag);
                if (ossa_measure_error(&skel, raw, &anim, &descs[d], &rep, &diag) != OSSA_OK) {
                    tool_print_diag("error measurement", &diag);
                    status = 1;
                    break;
                }
                const double max = (double)rep.max * mm, p99 = (double)rep.p99 * mm, mean = (double)rep.mean * mm;
                if (d == 0)
                    printf("%-16s max %.4g mm / p99 %.4g mm / mean %.4g mm at joints (model space, every source sample "
                           "and 60 Hz, vs %s)\n",
                           "error", max, p99, mean, against_path);
                else
                    printf("%-16s max %.4g mm / p99 %.4g mm / mean %.4g mm (0.03 m virtual vertices, every source "
                           "sample and 60 Hz)\n",
                           "vertex error", max, p99, mean);
                printf("%-16s joint %zu \"%s\" at %.3f s\n", "  worst", rep.worst_joint,
                       ossa_skeleton_joint_name(&skel, rep.worst_joint), (double)rep.worst_time);
            }
        }
        if (anim.track_count <= skel.joint_count) {
            const double per_call = time_sampling(&anim, &skel, ctx, pose);
            printf("%-16s %.0f ns/call, %.1f ns/joint (forward playback at 60 Hz, median of 7)\n", "sampling",
                   per_call * 1e9, per_call * 1e9 / (double)(anim.track_count ? anim.track_count : 1));
        }
    }
    free(ctx_mem);
    free(pose);
    if (status == 0) status = report_tracks_and_events(&ar, archive_path);
    return status;
}

static const char info_usage[] =
    "usage: ossa info FILE.ossa [--against INPUT [--skeleton FILE] [--drop-end-sites]] [--unit-scale M]\n";

int tool_info(int argc, char **argv)
{
    const char *path = NULL, *against = NULL, *skeleton_path = NULL;
    bool drop_end_sites = false;
    float unit_scale = 0.f;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--against") && i + 1 < argc)
            against = argv[++i];
        else if (!strcmp(argv[i], "--unit-scale") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], TOOL_UNIT_SCALE_MIN, TOOL_UNIT_SCALE_MAX, &unit_scale))
                return fprintf(stderr,
                               "ossa: info: --unit-scale needs metres per unit from 1e-6 to 1e4 (found \"%s\")\n%s",
                               argv[i], info_usage),
                       2;
        } else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton_path = argv[++i];
        else if (!strcmp(argv[i], "--drop-end-sites"))
            drop_end_sites = true;
        else if (argv[i][0] == '-' || path) {
            fprintf(stderr, "ossa: info: unexpected argument \"%s\"\n%s", argv[i], info_usage);
            return 2;
        } else
            path = argv[i];
    }
    if (!path) {
        fprintf(stderr, "ossa: info: no archive given\n%s", info_usage);
        return 2;
    }
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return 1;
    ossa_import_output imp = {0};
    if (against && !tool_import_with_skeleton(against, skeleton_path, drop_end_sites, &imp)) {
        free(data);
        return 1;
    }
    const tool_unit unit = info_unit(data, size, against ? &imp : NULL, unit_scale);
    const int status = tool_report(path, data, size, against ? &imp : NULL, against, unit);
    ossa_import_output_destroy(&imp);
    free(data);
    return status;
}
