/* additive.c: an additive layer: a clip stored as a difference from a reference pose (a nod, a
 * breath, a recoil) added on top of whatever the character plays, with a weight.
 *
 * The example arm (common.h) plays "raised" (the shoulder turned 30 degrees about z). The
 * additive source "bend" turns the elbow from 0 to 60 degrees over 1 s;
 * ossa_additive_animation_build turns it into deltas against its first frame (the elbow's
 * delta at 1 s is a 60 degree turn). The blending job applies an additive layer of weight a as
 * rotation = rotation * nlerp(identity, delta, a): the forearm turns by 30 + 60 a degrees in
 * all, the elbow stays at (-sin 30, cos 30, 0) and the hand is 1 m further along the forearm.
 * A negative weight takes the delta away (the forearm at 30 - 30 = 0 degrees for a = -0.5).
 */
#include <stdio.h>
#include <stdlib.h>

#include <ossa/blending_job.h>
#include <ossa/offline/additive_builder.h>

#include "common.h"

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation clips[2] = {{0}}, bend = {0};
    ossa_diag diag = {0};
    bool ok = example_arm(&skel) && example_arm_clip(&clips[0], "raised", 1.f) &&
              example_arm_clip(&bend, "bend", 1.f) && ossa_raw_joint_track_resize(&bend, ARM_ELBOW, 1, 2, 0) == OSSA_OK;
    if (ok) {
        clips[0].tracks[ARM_SHOULDER].rotations[0].value = example_rot_z(30.f);
        bend.tracks[ARM_ELBOW].translations[0] = (ossa_raw_float3_key){0.f, {0.f, 1.f, 0.f}};
        bend.tracks[ARM_ELBOW].rotations[0] = (ossa_raw_quat_key){0.f, example_rot_z(0.f)};
        bend.tracks[ARM_ELBOW].rotations[1] = (ossa_raw_quat_key){1.f, example_rot_z(60.f)};
        /* Deltas against the first frame (desc NULL); a desc can give another reference pose. */
        ok = example_check(ossa_additive_animation_build(&bend, NULL, &clips[1], &diag), &diag, "additive") &&
             example_archive(&skel, clips, 2, NULL, 0, file);
    }
    ossa_raw_animation_destroy(&bend);
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
    ossa_animation raised, bend;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &raised), NULL, "raised") &&
              example_check(ossa_archive_animation(&ar, 1, &bend), NULL, "bend");
    if (!ok) return 1;

    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *mem[2] = {aligned_alloc(16, ctx_size), aligned_alloc(16, ctx_size)};
    ossa_soa_transform *poses = aligned_alloc(16, 3 * skel.soa_count * sizeof *poses);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    ossa_sampling_context *ctx[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) ctx[i] = mem[i] ? ossa_sampling_context_init(mem[i], ctx_size, skel.joint_count) : NULL;
    ok = ctx[0] && ctx[1] && poses && models;
    ossa_soa_transform *base = poses, *delta = poses + skel.soa_count, *out = poses + 2 * skel.soa_count;
    /* An additive clip samples like any other; its pose is a delta, not a pose to show. (Built
     * without a skeleton it has no rest-pose sub-tracks, so the rest pose given is not used.) */
    ok = ok && example_sample(&skel, &raised, ctx[0], 0.f, base) && example_sample(&skel, &bend, ctx[1], 1.f, delta);

    const float weights[] = {0.f, .5f, 1.f, -.5f}; /* negative: the delta taken away */
    for (size_t i = 0; ok && i < sizeof weights / sizeof *weights; i++) {
        const ossa_blend_layer layer = {.weight = 1.f, .transform = base, .transform_count = skel.soa_count};
        const ossa_blend_layer additive = {.weight = weights[i], .transform = delta, .transform_count = skel.soa_count};
        const ossa_blending_job job = {.layers = &layer,
                                       .layer_count = 1,
                                       .additive_layers = &additive,
                                       .additive_layer_count = 1,
                                       .rest_pose = skel.rest_pose,
                                       .rest_pose_count = skel.soa_count,
                                       .output = out,
                                       .output_count = skel.soa_count};
        char label[32];
        snprintf(label, sizeof label, "additive %.2f", (double)weights[i]);
        ok = example_check(ossa_blending_job_run(&job), NULL, "blending") && example_to_model(&skel, out, models);
        if (ok) {
            example_print_joint(label, &skel, models, ARM_ELBOW);
            example_print_joint(label, &skel, models, ARM_HAND);
        }
    }

    free(models);
    free(poses);
    free(mem[1]);
    free(mem[0]);
    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
