/* The IK measures of docs/benchmarks.md: ossa's two-bone and aim jobs on the pab skeleton in
 * its walk pose, with a moving target, next to ozz-animation's IKTwoBoneJob and IKAimJob.
 *
 *   ossa-bench-ik [--shared DIR] [--only N] [--list] [--simd]
 *
 * Setup: pab_skeleton.ozz posed by pab_walk_raw.ozz at ratio 0.5 (baked at 0.1 mm, in
 * metres); two-bone: LeftArm -> LeftForeArm -> Lefthand, mid_axis (0, 0, 1), pole (0, 1, 0),
 * soften 0.97, weight 1, the target on a Lissajous path from 0.35 to 1.1 chain lengths from
 * the shoulder (so some calls soften or cannot reach); aim: Head, forward (0, 1, 0), up
 * (1, 0, 0), offset (0.07, 0.1, 0), pole (0, 1, 0), the target on a 1 m circle in front of the
 * head. Each call runs one job (validation included) on the next of 256 precomputed targets.
 * Wall-clock figures are medians of 9 repetitions; under
 * `valgrind --tool=callgrind --instr-atstart=no ossa-bench-ik --only N` (bench/callgrind_ik.sh)
 * only the middle repetition's loop is instrumented and the Ir per call is the run's Ir
 * divided by the calls printed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/ik_aim_job.h"
#include "ossa/ik_two_bone_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/sampling_job.h"
#include "tools.h"

#include "measure.h"

enum { TARGETS = 256, CALLS = 20000 };

typedef enum mode { TWO_BONE, AIM, AIM_CHAIN } mode;

static const struct {
    const char *label;
    mode mode;
    double ozz_ir, ozz_ns; /* 0: no reference */
} measures[] = {
    {"two-bone IK (LeftArm, LeftForeArm, Lefthand)", TWO_BONE, 1051, 122},
    {"aim IK (Head)", AIM, 475, 60},
    {"aim IK chain (Head, Neck, Spine3, Spine2)", AIM_CHAIN, 0, 0},
};

typedef struct scene {
    ossa_import_output imp;
    ossa_blob skel_blob, anim_blob;
    ossa_skeleton skel;
    ossa_animation anim;
    ossa_float4x4 *models;
} scene;

static bool load(scene *s, const char *anim_path, const char *skel_path)
{
    memset(s, 0, sizeof *s);
    if (!tool_import_with_skeleton(anim_path, skel_path, false, &s->imp)) return false;
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const float unit = tool_unit_of_import(&s->imp, 0.f).scale;
    const ossa_animation_build_desc build = {
        .skeleton = &s->imp.skeleton, .tolerance = OSSA_BUILD_DEFAULT_TOLERANCE / unit, .unit_scale = unit};
    if (s->imp.animation_count == 0 || ossa_skeleton_build(&s->imp.skeleton, NULL, &s->skel_blob, &diag) != OSSA_OK ||
        ossa_animation_build(&s->imp.animations[0], &build, &s->anim_blob, &diag) != OSSA_OK ||
        ossa_skeleton_init(&s->skel, s->skel_blob.data, s->skel_blob.size) != OSSA_OK ||
        ossa_animation_init(&s->anim, s->anim_blob.data, s->anim_blob.size) != OSSA_OK) {
        tool_print_diag(anim_path, &diag);
        return false;
    }
    const size_t ctx_size = ossa_sampling_context_size(s->skel.joint_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *pose = aligned_alloc(16, s->skel.soa_count * sizeof *pose);
    s->models = aligned_alloc(16, s->skel.joint_count * sizeof *s->models);
    const ossa_sampling_job sample = {.animation = &s->anim,
                                      .context = ossa_sampling_context_init(ctx_mem, ctx_size, s->skel.joint_count),
                                      .ratio = .5f,
                                      .output = pose,
                                      .output_count = s->skel.soa_count,
                                      .rest_pose = s->skel.rest_pose,
                                      .rest_pose_count = s->skel.soa_count};
    const ossa_local_to_model_job l2m = {.skeleton = &s->skel,
                                         .input = pose,
                                         .input_count = s->skel.soa_count,
                                         .output = s->models,
                                         .output_count = s->skel.joint_count};
    const bool ok = ossa_sampling_job_run(&sample) == OSSA_OK && ossa_local_to_model_job_run(&l2m) == OSSA_OK;
    free(ctx_mem), free(pose);
    return ok;
}

static void unload(scene *s)
{
    free(s->models);
    ossa_blob_destroy(&s->skel_blob), ossa_blob_destroy(&s->anim_blob);
    ossa_import_output_destroy(&s->imp);
}

static ossa_float3 position(const ossa_float4x4 *m)
{
    return (ossa_float3){m->cols[3][0], m->cols[3][1], m->cols[3][2]};
}
static float distance(ossa_float3 a, ossa_float3 b)
{
    return sqrtf((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

/* Sink for the outputs, so that the compiler keeps every call's work. */
static volatile float sink;

/* ns per call, median of 9 repetitions; the middle one is instrumented. -1 when a joint is
 * missing. */
static double run(const scene *s, mode m)
{
    const ossa_skeleton *skel = &s->skel;
    const int arm = ossa_skeleton_find_joint(skel, "LeftArm"), forearm = ossa_skeleton_find_joint(skel, "LeftForeArm"),
              hand = ossa_skeleton_find_joint(skel, "Lefthand"), head = ossa_skeleton_find_joint(skel, "Head"),
              neck = ossa_skeleton_find_joint(skel, "Neck"), spine3 = ossa_skeleton_find_joint(skel, "Spine3"),
              spine2 = ossa_skeleton_find_joint(skel, "Spine2");
    if (arm < 0 || forearm < 0 || hand < 0 || head < 0 || neck < 0 || spine3 < 0 || spine2 < 0) return -1.;
    const ossa_float4x4 *models = s->models;
    ossa_float3 targets[TARGETS];
    const ossa_float3 shoulder = position(&models[arm]), eyes = position(&models[head]);
    const float length =
        distance(shoulder, position(&models[forearm])) + distance(position(&models[forearm]), position(&models[hand]));
    for (int i = 0; i < TARGETS; ++i) {
        const float t = 6.2831853f * (float)i / TARGETS;
        if (m == TWO_BONE) { /* distance 0.35 .. 1.1 chain lengths, sweeping around the shoulder */
            const float r = length * (.725f + .375f * sinf(3.f * t));
            targets[i] = (ossa_float3){shoulder.x + r * cosf(t), shoulder.y + r * sinf(2.f * t) * .6f,
                                       shoulder.z + r * sinf(t) * .8f};
        } else { /* a 1 m circle, 1 m in front of the head (+y is ahead of pab) */
            targets[i] = (ossa_float3){eyes.x + cosf(t), eyes.y + 1.f, eyes.z + sinf(t)};
        }
    }
    ossa_quat start_fix, mid_fix, fixes[4];
    bool reached;
    ossa_ik_two_bone_job two = {.start_joint = &models[arm],
                                .mid_joint = &models[forearm],
                                .end_joint = &models[hand],
                                .pole_vector = {0.f, 1.f, 0.f},
                                .mid_axis = {0.f, 0.f, 1.f},
                                .soften = .97f,
                                .weight = 1.f,
                                .start_correction = &start_fix,
                                .mid_correction = &mid_fix,
                                .reached = &reached};
    ossa_ik_aim_job aim = {.joint = &models[head],
                           .forward = {0.f, 1.f, 0.f},
                           .up = {1.f, 0.f, 0.f},
                           .pole_vector = {0.f, 1.f, 0.f},
                           .offset = {.07f, .1f, 0.f},
                           .weight = 1.f,
                           .correction = &start_fix,
                           .reached = &reached};
    const int chain[4] = {head, neck, spine3, spine2};
    ossa_ik_aim_chain_job chain_job = {.models = models,
                                       .model_count = skel->joint_count,
                                       .joints = chain,
                                       .joint_count = 4,
                                       .forward = aim.forward,
                                       .up = aim.up,
                                       .pole_vector = aim.pole_vector,
                                       .offset = aim.offset,
                                       .weight = 1.f,
                                       .corrections = fixes,
                                       .correction_count = 4,
                                       .reached = &reached};
    double reps[BENCH_REPS];
    for (int r = 0; r < BENCH_REPS; ++r) {
        const double t0 = tool_now();
        if (r == BENCH_INSTRUMENTED) MEASURE_START();
        for (size_t i = 0; i < CALLS; ++i) {
            switch (m) {
            case TWO_BONE:
                two.target = targets[i % TARGETS];
                ossa_ik_two_bone_job_run(&two);
                break;
            case AIM:
                aim.target = targets[i % TARGETS];
                ossa_ik_aim_job_run(&aim);
                break;
            case AIM_CHAIN:
                chain_job.target = targets[i % TARGETS];
                ossa_ik_aim_chain_job_run(&chain_job);
                break;
            }
        }
        if (r == BENCH_INSTRUMENTED) MEASURE_STOP();
        reps[r] = (tool_now() - t0) / CALLS * 1e9;
        sink = start_fix.x + mid_fix.y + fixes[3].z + (reached ? 1.f : 0.f);
    }
    return bench_median(reps);
}

int main(int argc, char **argv)
{
    const char *shared = getenv("OSSA_SHARED_DATA");
    long only = -1;
    const size_t count = sizeof measures / sizeof *measures;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--shared") && i + 1 < argc)
            shared = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--simd"))
            return printf("%s\n", bench_simd()) < 0;
        else if (!strcmp(argv[i], "--list")) {
            for (size_t m = 0; m < count; ++m)
                printf("%zu\t%s\tpab_walk_raw.ozz\t%.0f\t%.0f\n", m, measures[m].label, measures[m].ozz_ir,
                       measures[m].ozz_ns);
            return 0;
        } else {
            fprintf(stderr, "usage: ossa-bench-ik [--shared DIR] [--only N] [--list] [--simd]\n"
                            "  --only N   run measure N alone (for callgrind: bench/callgrind_ik.sh)\n");
            return 2;
        }
    }
    if (!shared || !*shared) {
        fprintf(stderr, "ossa-bench-ik: no data directory: set OSSA_SHARED_DATA or give --shared DIR (the folder of "
                        "ozz/pab_*.ozz described in docs/benchmarks.md)\n");
        return 2;
    }
    char skel_path[4096], anim_path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/ozz/pab_skeleton.ozz", shared);
    snprintf(anim_path, sizeof anim_path, "%s/ozz/pab_walk_raw.ozz", shared);
    scene s;
    if (!load(&s, anim_path, skel_path)) {
        fprintf(stderr, "ossa-bench-ik: %s could not be loaded\n", anim_path);
        unload(&s);
        return 1;
    }
    if (only < 0) bench_print_simd_line();
    if (only < 0) printf("| measure | ossa ns/call | ozz ns/call | ossa/ozz |\n|---|---:|---:|---:|\n");
    int status = 0;
    for (size_t m = 0; m < count; ++m) {
        if (only >= 0 && (size_t)only != m) continue;
        const double ns = run(&s, measures[m].mode);
        if (ns < 0.) {
            fprintf(stderr, "ossa-bench-ik: a joint of the measure is missing from the skeleton\n");
            status = 1;
        } else if (only >= 0)
            printf("simd %s\ncalls %d\n", bench_simd(), CALLS);
        else if (measures[m].ozz_ns > 0)
            printf("| %s | %.0f | %.0f | %.2f |\n", measures[m].label, ns, measures[m].ozz_ns, ns / measures[m].ozz_ns);
        else
            printf("| %s | %.0f | | |\n", measures[m].label, ns);
    }
    unload(&s);
    return status;
}
