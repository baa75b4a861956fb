/* Runs each ozz-animation measure of docs/benchmarks.md with ossa on the same files and prints
 * ossa's value, the reference value and their ratio.
 *
 *   ossa-bench [--shared DIR] [--only N] [--list] [--simd] [--tolerance METRES] [--layout packed|sorted]
 *
 * Wall-clock figures are medians of 9 repetitions. Under
 * `valgrind --tool=callgrind --instr-atstart=no ossa-bench --only N` (bench/callgrind.sh)
 * the measured loop of measure N is bracketed by callgrind's start/stop requests; the
 * per-call instruction count is the Ir of the run divided by the calls printed. The clips are
 * baked as `ossa bake` does, at --tolerance (default 0.1 mm) at 3 cm virtual vertices, in
 * metres: CMU 01_01 with its unit, 0.05644 m. */
#include <stdlib.h>
#include <string.h>

#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/motion.h"
#include "ossa/offline/motion_extractor.h"
#include "ossa/offline/track_builder.h"
#include "ossa/track_jobs.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/sampling_job.h"
#include "clips.h"
#include "tools.h"

#include "measure.h"

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

typedef enum mode { FORWARD, BACKWARD, RANDOM, LOCAL_TO_MODEL, BLEND, FULL_FRAME, ROOT_MOTION, TRACK } mode;

/* Per-clip runtime state. */
typedef struct player {
    void *ctx_mem;
    ossa_sampling_context *ctx;
    ossa_soa_transform *pose;
} player;

static void player_init(player *p, const bench_clip *c)
{
    const size_t ctx_size = ossa_sampling_context_playback_size_for(&c->anim);
    p->ctx_mem = aligned_alloc(16, ctx_size);
    p->ctx = ossa_sampling_context_init_for(p->ctx_mem, ctx_size, &c->anim);
    p->pose = aligned_alloc(16, (c->skel.soa_count + 1) * sizeof *p->pose);
}

/* ns per call, median of 9 repetitions of `calls` calls; the middle repetition is the one
 * callgrind instruments. `c` holds 3 clips for BLEND and FULL_FRAME (walk, jog, run). */
static double run(bench_clip *c, mode m, size_t calls)
{
    const int n = (m == BLEND || m == FULL_FRAME) ? 3 : 1;
    player p[3];
    for (int i = 0; i < n; ++i) player_init(&p[i], &c[i]);
    const ossa_skeleton *skel = &c[0].skel;
    ossa_soa_transform *blended = aligned_alloc(16, (skel->soa_count + 1) * sizeof *blended);
    ossa_float4x4 *models = aligned_alloc(16, (skel->joint_count + 1) * sizeof *models);
    const size_t steps = (size_t)(c[0].anim.duration * 60.f) + 1;
    ossa_sampling_job jobs[3];
    for (int i = 0; i < n; ++i) {
        jobs[i] = (ossa_sampling_job){&c[i].anim,      p[i].ctx,       0.f, p[i].pose, skel->soa_count,
                                      skel->rest_pose, skel->soa_count};
        ossa_sampling_job_run(&jobs[i]);
    }
    const ossa_blend_layer layers[3] = {{.3f, p[0].pose, skel->soa_count, NULL, 0},
                                        {.3f, p[n > 1 ? 1 : 0].pose, skel->soa_count, NULL, 0},
                                        {.4f, p[n > 2 ? 2 : 0].pose, skel->soa_count, NULL, 0}};
    const ossa_blending_job blend = {0.f,     layers,         3, NULL, 0, skel->rest_pose, skel->soa_count,
                                     blended, skel->soa_count};
    const ossa_local_to_model_job l2m = {
        skel, NULL, 0, 0, m == FULL_FRAME ? blended : p[0].pose, skel->soa_count, models, skel->joint_count};
    /* Root motion of the clip (x, z, yaw of joint 0) as built tracks, for ROOT_MOTION (the
     * accumulation per frame at 60 Hz, wrapping) and TRACK (one float3 track sampling). */
    ossa_blob motion_blobs[2] = {{0}, {0}};
    ossa_track motion[2];
    ossa_motion_accumulator acc;
    if (m == ROOT_MOTION || m == TRACK) {
        ossa_raw_track raw[2] = {{0}, {0}};
        /* Without bake the clip is left as it is. */
        const ossa_motion_extract_desc md = {.position = {true, false, true}, .yaw = true};
        bool ok =
            ossa_motion_extract(&c[0].imp.animations[0], &c[0].imp.skeleton, &md, &raw[0], &raw[1], NULL) == OSSA_OK;
        for (int t = 0; ok && t < 2; ++t)
            ok = ossa_track_build(&raw[t], NULL, &motion_blobs[t], NULL) == OSSA_OK &&
                 ossa_track_init(&motion[t], motion_blobs[t].data, motion_blobs[t].size) == OSSA_OK;
        ossa_raw_track_destroy(&raw[0]), ossa_raw_track_destroy(&raw[1]);
        if (!ok ||
            ossa_motion_accumulator_reset(&acc, &motion[0], &motion[1], 0.f, ossa_transform_identity()) != OSSA_OK) {
            fprintf(stderr, "ossa-bench: root motion of %s failed\n", c[0].name);
            return -1.0;
        }
    }
    float value[4];
    double reps[BENCH_REPS];
    uint32_t seed = 12345;
    for (int r = 0; r < BENCH_REPS; ++r) {
        const double t0 = tool_now();
        if (r == BENCH_INSTRUMENTED) MEASURE_START();
        for (size_t i = 0; i < calls; ++i) {
            switch (m) {
            case FORWARD:
                jobs[0].ratio = (float)(i % steps) / (float)(steps - 1);
                ossa_sampling_job_run(&jobs[0]);
                break;
            case BACKWARD:
                jobs[0].ratio = (float)(steps - 1 - i % steps) / (float)(steps - 1);
                ossa_sampling_job_run(&jobs[0]);
                break;
            case RANDOM:
                jobs[0].ratio = (float)(next_random(&seed) >> 8) * (1.f / 16777216.f);
                ossa_sampling_job_run(&jobs[0]);
                break;
            case LOCAL_TO_MODEL:
                ossa_local_to_model_job_run(&l2m);
                break;
            case BLEND:
                ossa_blending_job_run(&blend);
                break;
            case ROOT_MOTION: {
                const size_t f = i % steps;
                ossa_motion_accumulate(&acc, &motion[0], &motion[1], (float)f / (float)(steps - 1), f == 0);
                break;
            }
            case TRACK: {
                const ossa_track_sampling_job tj = {&motion[0], (float)(i % steps) / (float)(steps - 1), value, 4};
                ossa_track_sampling_job_run(&tj);
                break;
            }
            case FULL_FRAME:
                for (int k = 0; k < 3; ++k) {
                    jobs[k].ratio = (float)(i % steps) / (float)(steps - 1);
                    ossa_sampling_job_run(&jobs[k]);
                }
                ossa_blending_job_run(&blend);
                ossa_local_to_model_job_run(&l2m);
                break;
            }
        }
        if (r == BENCH_INSTRUMENTED) MEASURE_STOP();
        reps[r] = (tool_now() - t0) / (double)calls * 1e9;
    }
    ossa_blob_destroy(&motion_blobs[0]), ossa_blob_destroy(&motion_blobs[1]);
    for (int i = 0; i < n; ++i) free(p[i].ctx_mem), free(p[i].pose);
    free(blended), free(models);
    return bench_median(reps);
}

typedef struct measure {
    const char *label;
    const char *clip; /* file under the shared data folder, an absolute path, SYNTHETIC or TILED */
    mode mode;
    size_t calls;
    double ozz_ir, ozz_ns;
} measure;

/* The synthetic character of bench/clips.h, 1,024 joints: cost per joint at scale. */
#define SYNTHETIC        "synthetic_1024"
#define SYNTHETIC_JOINTS 1024
/* pab_walk 15 times side by side (bench_tiled), 1,005 joints: cost per joint at scale with
 * pab_walk's own content per joint. */
#define TILED        "pab_walk_x15"
#define TILED_SOURCE "ozz/pab_walk_raw.ozz"
#define TILED_COPIES 15

/* ozz-animation 0.16's figures (Ir per call and thread CPU ns per call, SSE2 build) are the
 * ones bench/compare.sh measured on the same loops, ratio streams and call counts (see
 * docs/benchmarks.md, "Side by side with ozz-animation and ACL"); 0: no reference. */
static const measure measures[] = {
    {"sampling forward 60 Hz", "ozz/pab_walk_raw.ozz", FORWARD, 20000, 5766, 425},
    {"sampling forward 60 Hz", "ozz/pab_jog_raw.ozz", FORWARD, 20000, 5915, 428},
    {"sampling forward 60 Hz", "ozz/pab_run_raw.ozz", FORWARD, 20000, 5819, 436},
    {"sampling forward 60 Hz", "ozz/pab_atlas_raw.ozz", FORWARD, 20000, 5544, 418},
    {"sampling backward 60 Hz", "ozz/pab_walk_raw.ozz", BACKWARD, 20000, 0, 0},
    {"sampling backward 60 Hz", "ozz/pab_atlas_raw.ozz", BACKWARD, 20000, 0, 0},
    {"sampling random ratios", "ozz/pab_walk_raw.ozz", RANDOM, 5000, 24153, 1537},
    {"sampling random ratios", "ozz/pab_jog_raw.ozz", RANDOM, 5000, 0, 0},
    {"sampling random ratios", "ozz/pab_run_raw.ozz", RANDOM, 5000, 0, 0},
    {"sampling random ratios", "ozz/pab_atlas_raw.ozz", RANDOM, 5000, 167179, 9660},
    {"local-to-model (67 joints)", "ozz/pab_walk_raw.ozz", LOCAL_TO_MODEL, 20000, 8503, 476},
    {"sampling forward 60 Hz", OSSA_DEFAULT_INPUT, FORWARD, 20000, 9224, 808},
    {"sampling random ratios", OSSA_DEFAULT_INPUT, RANDOM, 2000, 626421, 80984},
    {"blending 3 layers (67 joints)", "ozz/pab_walk_raw.ozz", BLEND, 20000, 3994, 269},
    {"full frame: 3 sample+blend+l2m", "ozz/pab_walk_raw.ozz", FULL_FRAME, 5000, 26757, 1820},
    {"sampling forward 60 Hz", SYNTHETIC, FORWARD, 2000, 0, 0},
    {"local-to-model (1,024 joints)", SYNTHETIC, LOCAL_TO_MODEL, 2000, 0, 0},
    {"root motion accumulate 60 Hz", "ozz/pab_walk_raw.ozz", ROOT_MOTION, 20000, 0, 0},
    {"track sampling (float3) 60 Hz", "ozz/pab_walk_raw.ozz", TRACK, 20000, 0, 0},
    {"sampling forward 60 Hz", TILED, FORWARD, 2000, 0, 0},
    {"local-to-model (1,005 joints)", TILED, LOCAL_TO_MODEL, 2000, 0, 0},
};

/* Size, error and build time of the default optimiser + builder on the pab clips, next to
 * ozz's (docs/benchmarks.md: joint position error at 60 Hz over all joints and frames). */
static void compression_table(const char *shared, const char *skel_path)
{
    static const struct {
        const char *file;
        double ozz_bytes, ozz_max_mm, ozz_mean_mm, ozz_build_ms;
    } refs[] = {
        {"ozz/pab_walk_raw.ozz", 10827, 1.97, .57, .3},
        {"ozz/pab_jog_raw.ozz", 7721, 1.36, .39, 0},
        {"ozz/pab_run_raw.ozz", 7174, 1.42, .50, 0},
        {"ozz/pab_atlas_raw.ozz", 78774, 2.62, .70, 4.6},
    };
    printf("\n| clip | ossa bytes | ozz bytes | ossa/ozz | max joint err mm (ozz) | mean mm (ozz) | "
           "max err at 3 cm mm | optimise+build ms (ozz) |\n|---|---:|---:|---:|---|---|---:|---|\n");
    for (size_t i = 0; i < sizeof refs / sizeof *refs; ++i) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", shared, refs[i].file);
        bench_clip c;
        if (!bench_load(&c, path, skel_path)) {
            fprintf(stderr, "skipped: %s could not be loaded\n", path);
            bench_unload(&c);
            continue;
        }
        ossa_error_report joints, shell;
        /* The one metric: every source key time and 60 Hz; joints, then 3 cm virtual vertices. */
        const ossa_error_desc jd = {.source_times = 1}, sd = {.shell_distance = .03f / c.unit, .source_times = 1};
        ossa_measure_error(&c.skel, &c.imp.animations[0], &c.anim, &jd, &joints, NULL);
        ossa_measure_error(&c.skel, &c.imp.animations[0], &c.anim, &sd, &shell, NULL);
        double times[BENCH_REPS];
        for (int r = 0; r < BENCH_REPS; ++r) {
            ossa_blob blob = {0};
            const ossa_animation_build_desc build = bench_build_desc(&c);
            const double t0 = tool_now();
            ossa_animation_build(&c.imp.animations[0], &build, &blob, NULL);
            times[r] = (tool_now() - t0) * 1e3;
            ossa_blob_destroy(&blob);
        }
        const double build_ms = bench_median(times);
        char build_ref[32] = "";
        if (refs[i].ozz_build_ms > 0) snprintf(build_ref, sizeof build_ref, " (%.1f)", refs[i].ozz_build_ms);
        printf("| %s | %zu | %.0f | %.2f | %.2f (%.2f) | %.2f (%.2f) | %.2f | %.2f%s |\n",
               bench_short_name(refs[i].file), c.anim_blob.size, refs[i].ozz_bytes,
               (double)c.anim_blob.size / refs[i].ozz_bytes, (double)joints.max * 1e3, refs[i].ozz_max_mm,
               (double)joints.mean * 1e3, refs[i].ozz_mean_mm, (double)shell.max * 1e3, build_ms, build_ref);
        bench_unload(&c);
    }
}

int main(int argc, char **argv)
{
    const char *shared = getenv("OSSA_SHARED_DATA");
    long only = -1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--shared") && i + 1 < argc)
            shared = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--tolerance") && i + 1 < argc) {
            if (!tool_parse_metres(argv[++i], 1e-7f, 1.f, &bench_tolerance))
                return fprintf(stderr, "ossa-bench: --tolerance needs metres from 1e-7 to 1 (found \"%s\")\n", argv[i]),
                       2;
        } else if (!strcmp(argv[i], "--layout") && i + 1 < argc) {
            ++i;
            if (strcmp(argv[i], "packed") && strcmp(argv[i], "sorted"))
                return fprintf(stderr, "ossa-bench: --layout needs packed or sorted (found \"%s\")\n", argv[i]), 2;
            bench_layout = strcmp(argv[i], "sorted") ? OSSA_ANIMATION_LAYOUT_PACKED : OSSA_ANIMATION_LAYOUT_SORTED;
        } else if (!strcmp(argv[i], "--simd")) {
            return printf("%s\n", bench_simd()) < 0;
        } else if (!strcmp(argv[i], "--list")) {
            for (size_t m = 0; m < sizeof measures / sizeof *measures; ++m)
                printf("%zu\t%s\t%s\t%.0f\t%.0f\n", m, measures[m].label, bench_short_name(measures[m].clip),
                       measures[m].ozz_ir, measures[m].ozz_ns);
            return 0;
        } else {
            fprintf(stderr, "usage: ossa-bench [--shared DIR] [--only N] [--list] [--simd] [--tolerance METRES]\n"
                            "                  [--layout packed|sorted]\n"
                            "  --simd           print the instruction set the jobs run on (sse2, avx2, ...)\n"
                            "  --only N         run measure N alone (for callgrind: bench/callgrind.sh)\n"
                            "  --tolerance M    bake the clips at M metres (default 0.0001)\n"
                            "  --layout L       bake them in key layout L (default packed)\n");
            return 2;
        }
    }
    if (!shared || !*shared) {
        fprintf(stderr, "ossa-bench: no data directory: set OSSA_SHARED_DATA or give --shared DIR (the folder of "
                        "ozz/pab_*.ozz described in docs/benchmarks.md)\n");
        return 2;
    }
    char skel_path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/ozz/pab_skeleton.ozz", shared);
    if (only < 0) bench_print_simd_line();
    if (only < 0)
        printf("| measure                    | clip                  | ossa ns/call | ozz ns/call | ossa/ozz | ossa "
               "ns/joint |\n"
               "|----------------------------|-----------------------|-------------:|------------:|---------:|---------"
               "-----:|\n");
    int status = 0;
    for (size_t m = 0; m < sizeof measures / sizeof *measures; ++m) {
        if (only >= 0 && (size_t)only != m) continue;
        const measure *me = &measures[m];
        char path[4096];
        if (me->clip[0] == '/')
            snprintf(path, sizeof path, "%s", me->clip);
        else
            snprintf(path, sizeof path, "%s/%s", shared, me->clip);
        bench_clip c[3];
        const int n = (me->mode == BLEND || me->mode == FULL_FRAME) ? 3 : 1;
        static const char *const blend_clips[3] = {"ozz/pab_walk_raw.ozz", "ozz/pab_jog_raw.ozz",
                                                   "ozz/pab_run_raw.ozz"};
        bool ok = true;
        for (int i = 0; i < n; ++i) {
            if (n == 3) snprintf(path, sizeof path, "%s/%s", shared, blend_clips[i]);
            bool loaded;
            if (!strcmp(me->clip, SYNTHETIC)) {
                loaded = bench_synthetic(&c[i], SYNTHETIC_JOINTS);
            } else if (!strcmp(me->clip, TILED)) {
                snprintf(path, sizeof path, "%s/%s", shared, TILED_SOURCE);
                loaded = bench_tiled(&c[i], path, skel_path, TILED_COPIES);
            } else {
                loaded = bench_load(&c[i], path, skel_path);
            }
            if (!loaded) {
                fprintf(stderr, "skipped: %s could not be loaded\n", path);
                ok = false;
            }
        }
        if (!ok) {
            status = 1;
            for (int i = 0; i < n; ++i) bench_unload(&c[i]);
            continue;
        }
        const double ns = run(c, me->mode, me->calls);
        if (only >= 0)
            printf("simd %s\ncalls %zu\n", bench_simd(), me->calls);
        else if (me->ozz_ns > 0)
            printf("| %-26s | %-21s | %12.0f | %11.0f | %8.2f | %13.1f |\n", me->label, bench_short_name(me->clip), ns,
                   me->ozz_ns, ns / me->ozz_ns, ns / (double)c[0].skel.joint_count);
        else /* no reference figure */
            printf("| %-26s | %-21s | %12.0f | %11s | %8s | %13.1f |\n", me->label, bench_short_name(me->clip), ns, "",
                   "", ns / (double)c[0].skel.joint_count);
        for (int i = 0; i < n; ++i) bench_unload(&c[i]);
    }
    if (only < 0) compression_table(shared, skel_path);
    return status;
}
