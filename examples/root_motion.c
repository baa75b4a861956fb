/* root_motion.c: root motion across loops: the clip walks its root forward; the game plays it
 * in place and moves the character by the motion instead, loop after loop.
 *
 * Offline: the example arm's (common.h) clip "walk" moves the shoulder (the root) from x = 0
 * to x = 1 m over 1 s while it bobs up by 0.1 m half-way. ossa_motion_extract takes the ground
 * motion (x and z) out into two tracks (position, rotation) and, with `bake`, leaves only the
 * bob in the clip; the tracks go into the archive beside the clip.
 * Runtime: every frame the clip is sampled at the looping ratio and the accumulator adds the
 * motion from the last ratio to this one, across the loops crossed. The character's transform
 * goes in as the local-to-model job's root, so the matrices are in world space: at time T the
 * shoulder is at (T, bob, 0), bob = 0.1 (1 - |2 r - 1|) at ratio r, 1 m further every loop.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/motion.h>
#include <ossa/offline/motion_extractor.h>

#include "common.h"

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation walk = {0};
    ossa_raw_track motion[2] = {{0}}; /* position, rotation */
    ossa_diag diag = {0};
    bool ok = example_arm(&skel) && example_arm_clip(&walk, "walk", 1.f) &&
              ossa_raw_joint_track_resize(&walk, ARM_SHOULDER, 3, 1, 0) == OSSA_OK;
    if (ok) {
        ossa_raw_joint_track *root = &walk.tracks[ARM_SHOULDER];
        root->translations[0] = (ossa_raw_float3_key){0.f, {0.f, 0.f, 0.f}};
        root->translations[1] = (ossa_raw_float3_key){.5f, {.5f, .1f, 0.f}};
        root->translations[2] = (ossa_raw_float3_key){1.f, {1.f, 0.f, 0.f}};
        root->rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        const ossa_motion_extract_desc desc = {.joint = ARM_SHOULDER, .position = {true, false, true}, .bake = true};
        ok = example_check(ossa_motion_extract(&walk, &skel, &desc, &motion[0], &motion[1], &diag), &diag, "extract") &&
             example_archive(&skel, &walk, 1, motion, 2, file);
    }
    ossa_raw_track_destroy(&motion[1]);
    ossa_raw_track_destroy(&motion[0]);
    ossa_raw_animation_destroy(&walk);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

int main(void)
{
    ossa_blob file = {0};
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation walk;
    ossa_track position, rotation;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &walk), NULL, "walk") &&
              example_check(ossa_archive_track(&ar, 0, &position), NULL, "position track") &&
              example_check(ossa_archive_track(&ar, 1, &rotation), NULL, "rotation track");
    if (!ok) return 1;

    const size_t ctx_size = ossa_sampling_context_playback_size_for(&walk);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *world = aligned_alloc(16, skel.joint_count * sizeof *world);
    ossa_sampling_context *ctx = ctx_mem ? ossa_sampling_context_init_for(ctx_mem, ctx_size, &walk) : NULL;
    ok = ctx && pose && world;

    /* The character starts at the world origin, at the clip's start. */
    ossa_motion_accumulator acc;
    ok = ok && example_check(ossa_motion_accumulator_reset(&acc, &position, &rotation, 0.f, ossa_transform_identity()),
                             NULL, "reset");
    int last_loop = 0;
    for (int frame = 0; ok && frame <= 25; frame++) { /* 2.5 s at 10 Hz */
        const float now = (float)frame / 10.f;
        const int loop = (int)floorf(now / walk.duration); /* whole loops played so far */
        const float ratio = now / walk.duration - (float)loop;
        ok = example_check(ossa_motion_accumulate(&acc, &position, &rotation, ratio, loop - last_loop), NULL,
                           "accumulate") &&
             example_sample(&skel, &walk, ctx, ratio, pose);
        last_loop = loop;
        /* Model space placed in the world by the accumulated transform. */
        const ossa_float4x4 root = ossa_float4x4_from_transform(&acc.transform);
        const ossa_local_to_model_job l2m = {.skeleton = &skel,
                                             .root = &root,
                                             .input = pose,
                                             .input_count = skel.soa_count,
                                             .output = world,
                                             .output_count = skel.joint_count};
        ok = ok && example_check(ossa_local_to_model_job_run(&l2m), NULL, "local to model");
        if (ok && frame % 5 == 0) {
            char label[48];
            snprintf(label, sizeof label, "time %.1f loop %d ratio %.1f", (double)now, loop, (double)ratio);
            example_print_joint(label, &skel, world, ARM_SHOULDER);
        }
    }

    free(world);
    free(pose);
    free(ctx_mem);
    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
