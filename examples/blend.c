/* blend.c: blends two clips with a weight (a walk-to-run transition, a speed blend).
 *
 * Two one-pose clips of the example arm (common.h): "down" (the rest pose) and "up" (the
 * shoulder turned 90 degrees about z and moved to x = 2). Each is sampled into its own pose,
 * then the blending job mixes them: translations by the weights (x = 2 w), rotations by the
 * normalised weighted sum of quaternions (nlerp), so the shoulder turns by
 * a = 2 atan2(w sin 45, (1 - w) + w cos 45) and the hand is at (2 w - 2 sin a, 2 cos a, 0).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ossa/blending_job.h>

#include "common.h"

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation clips[2] = {{0}};
    bool ok = example_arm(&skel) && example_arm_clip(&clips[0], "down", 1.f) && example_arm_clip(&clips[1], "up", 1.f);
    if (ok) {
        clips[1].tracks[ARM_SHOULDER].translations[0].value.x = 2.f;
        clips[1].tracks[ARM_SHOULDER].rotations[0].value = example_rot_z(90.f);
        ok = example_archive(&skel, clips, 2, NULL, 0, file);
    }
    ossa_raw_animation_destroy(&clips[1]);
    ossa_raw_animation_destroy(&clips[0]);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

int main(void)
{
    ossa_blob file = {0};
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation down, up;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &down), NULL, "down") &&
              example_check(ossa_archive_animation(&ar, 1, &up), NULL, "up");
    if (!ok) return 1;

    /* One context can sample any clip of the skeleton (it rebinds when the clip changes), but
     * a context per playing clip keeps each clip's cache warm: two here. */
    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *mem[2] = {aligned_alloc(16, ctx_size), aligned_alloc(16, ctx_size)};
    ossa_soa_transform *poses = aligned_alloc(16, 3 * skel.soa_count * sizeof *poses); /* down, up, blended */
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    ossa_sampling_context *ctx[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) ctx[i] = mem[i] ? ossa_sampling_context_init(mem[i], ctx_size, skel.joint_count) : NULL;
    ok = ctx[0] && ctx[1] && poses && models;
    ossa_soa_transform *pose_down = poses, *pose_up = poses + skel.soa_count, *blended = poses + 2 * skel.soa_count;
    ok = ok && example_sample(&skel, &down, ctx[0], 0.f, pose_down) && example_sample(&skel, &up, ctx[1], 0.f, pose_up);

    for (int i = 0; ok && i <= 4; i++) {
        const float w = .25f * (float)i; /* the weight of "up" */
        /* Weights need not sum to 1: the job divides by their sum. */
        const ossa_blend_layer layers[2] = {
            {.weight = 1.f - w, .transform = pose_down, .transform_count = skel.soa_count},
            {.weight = w, .transform = pose_up, .transform_count = skel.soa_count}};
        const ossa_blending_job job = {.layers = layers,
                                       .layer_count = 2,
                                       .rest_pose = skel.rest_pose,
                                       .rest_pose_count = skel.soa_count,
                                       .output = blended,
                                       .output_count = skel.soa_count};
        char label[32];
        snprintf(label, sizeof label, "weight %.2f", (double)w);
        ok = example_check(ossa_blending_job_run(&job), NULL, "blending") && example_to_model(&skel, blended, models);
        if (ok) example_print_joint(label, &skel, models, ARM_HAND);
    }

    free(models);
    free(poses);
    free(mem[1]);
    free(mem[0]);
    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
