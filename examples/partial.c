/* partial.c: partial (per-joint) blending: one clip drives some joints, another the rest, or
 * both share a joint (a run on the legs, a wave on the arm).
 *
 * Two one-pose clips of the example arm (common.h): "down" (the rest pose) and "bent" (the
 * shoulder and the elbow each turned 90 degrees about z). Each layer's joint_weights scale its
 * weight joint by joint (one float per joint, 4 per SoA group, here shoulder, elbow, hand and
 * the group's unused fourth lane).
 *   1. "down" on the shoulder only, "bent" on the elbow and hand: the upper arm stays up, the
 *      forearm turns 90 degrees: the hand is at (-1, 1, 0).
 *   2. "down" everywhere, "bent" on the elbow and hand too: the shoulder is down's, the elbow
 *      half of each (nlerp of 0 and 90 degrees: 45): the hand is at (-sin 45, 1 + cos 45, 0).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ossa/blending_job.h>

#include "common.h"

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation clips[2] = {{0}};
    bool ok =
        example_arm(&skel) && example_arm_clip(&clips[0], "down", 1.f) && example_arm_clip(&clips[1], "bent", 1.f);
    if (ok) {
        clips[1].tracks[ARM_SHOULDER].rotations[0].value = example_rot_z(90.f);
        clips[1].tracks[ARM_ELBOW].rotations[0].value = example_rot_z(90.f);
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
    ossa_animation down, bent;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &down), NULL, "down") &&
              example_check(ossa_archive_animation(&ar, 1, &bent), NULL, "bent");
    if (!ok) return 1;

    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *poses = aligned_alloc(16, 3 * skel.soa_count * sizeof *poses);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    ossa_sampling_context *ctx = ctx_mem ? ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count) : NULL;
    ok = ctx && poses && models;
    ossa_soa_transform *pose_down = poses, *pose_bent = poses + skel.soa_count, *blended = poses + 2 * skel.soa_count;
    /* One context for both clips: it rebinds (and forgets its cache) when the clip changes. */
    ok = ok && example_sample(&skel, &down, ctx, 0.f, pose_down) && example_sample(&skel, &bent, ctx, 0.f, pose_bent);

    /* [4 * soa_count] factors per layer: shoulder, elbow, hand, unused lane. */
    static const float shoulder_only[4] = {1.f, 0.f, 0.f, 0.f}, everywhere[4] = {1.f, 1.f, 1.f, 1.f},
                       arm_below_elbow[4] = {0.f, 1.f, 1.f, 0.f};
    const float *down_weights[2] = {shoulder_only, everywhere};
    for (int c = 0; ok && c < 2; c++) {
        const ossa_blend_layer layers[2] = {{.weight = 1.f,
                                             .transform = pose_down,
                                             .transform_count = skel.soa_count,
                                             .joint_weights = down_weights[c],
                                             .joint_weight_count = 4},
                                            {.weight = 1.f,
                                             .transform = pose_bent,
                                             .transform_count = skel.soa_count,
                                             .joint_weights = arm_below_elbow,
                                             .joint_weight_count = 4}};
        const ossa_blending_job job = {.layers = layers,
                                       .layer_count = 2,
                                       .rest_pose = skel.rest_pose,
                                       .rest_pose_count = skel.soa_count,
                                       .output = blended,
                                       .output_count = skel.soa_count};
        ok = example_check(ossa_blending_job_run(&job), NULL, "blending") && example_to_model(&skel, blended, models);
        if (ok) example_print_joint(c == 0 ? "down-on-shoulder" : "down-everywhere", &skel, models, ARM_HAND);
    }

    free(models);
    free(poses);
    free(ctx_mem);
    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
