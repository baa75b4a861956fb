/* play.c: loads an archive and plays its first clip in a loop, as a game does every frame:
 * advance the time, sample the clip into a local-space pose, convert it to model space.
 *
 *   examples/play [FILE.ossa]
 *
 * Without a file it bakes the example arm (common.h) with a 2 s clip "raise": the shoulder
 * turns from 0 to 90 degrees about z (keys every 0.5 s, 22.5 degrees apart) while sliding from
 * x = 0 to x = 1. At clip time t the shoulder is at (t/2, 0, 0), turned by 45 t degrees, so the
 * hand, 2 m along the turned +y, is at (t/2 - 2 sin(45 t), 2 cos(45 t), 0).
 * It plays 3 s at 30 frames a second (1.5 loops) and prints every 15th frame.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ossa/archive.h>
#include <ossa/local_to_model_job.h>
#include <ossa/sampling_job.h>

#include "common.h"

/* The built-in archive (see the top of this file), in `file`. */
static bool bake_raise(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation clip = {0};
    bool ok = example_arm(&skel) && example_arm_clip(&clip, "raise", 2.f) &&
              ossa_raw_joint_track_resize(&clip, ARM_SHOULDER, 2, 5, 0) == OSSA_OK;
    if (ok) {
        ossa_raw_joint_track *shoulder = &clip.tracks[ARM_SHOULDER];
        shoulder->translations[0] = (ossa_raw_float3_key){0.f, {0.f, 0.f, 0.f}};
        shoulder->translations[1] = (ossa_raw_float3_key){2.f, {1.f, 0.f, 0.f}};
        for (int k = 0; k < 5; k++)
            shoulder->rotations[k] = (ossa_raw_quat_key){.5f * (float)k, example_rot_z(22.5f * (float)k)};
        ok = example_archive(&skel, &clip, 1, NULL, 0, file);
    }
    ossa_raw_animation_destroy(&clip);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

int main(int argc, char **argv)
{
    /* 1. The archive's bytes, 16-byte aligned: from a file, or baked here. */
    ossa_blob baked = {0};
    void *bytes = NULL;
    size_t size = 0;
    if (argc > 1) {
        bytes = example_load_file(argv[1], &size);
        if (!bytes) {
            fprintf(stderr, "%s: cannot read the file\n", argv[1]);
            return 1;
        }
    } else if (bake_raise(&baked)) {
        bytes = baked.data; /* the builder's blobs are 16-byte aligned */
        size = baked.size;
    } else {
        return 1;
    }

    /* 2. Views into those bytes: nothing is copied, so the bytes must outlive them. */
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    bool ok = example_check(ossa_archive_init(&ar, bytes, size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &anim), NULL, "animation");

    /* 3. One character's state, in memory we own: a sampling context (the playback cache makes
     * forward play decode each 16-key segment once), a pose of skel.soa_count SoA groups of 4
     * joints, and one model-space matrix per joint. All 16-byte aligned. */
    void *ctx_mem = NULL;
    ossa_soa_transform *pose = NULL;
    ossa_float4x4 *models = NULL;
    ossa_sampling_context *ctx = NULL;
    if (ok) {
        size_t ctx_size = ossa_sampling_context_playback_size_for(&anim);
        ctx_mem = aligned_alloc(16, ctx_size);
        pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
        models = aligned_alloc(16, skel.joint_count * sizeof *models);
        ctx = ctx_mem ? ossa_sampling_context_init_for(ctx_mem, ctx_size, &anim) : NULL;
        ok = ctx && pose && models;
    }
    if (ok) printf("%zu joints, clip \"%s\", %.2f s\n", skel.joint_count, anim.name, (double)anim.duration);

    /* 4. The frame loop. The last joint stands for "the hand" of any skeleton. */
    const size_t last = skel.joint_count - 1;
    for (int frame = 0; ok && frame <= 90; frame++) {
        const float now = (float)frame / 30.f;     /* game time, seconds */
        const float t = fmodf(now, anim.duration); /* looping clip time */
        const ossa_sampling_job sampling = {.animation = &anim,
                                            .context = ctx,
                                            .ratio = t / anim.duration, /* ratio in [0, 1] */
                                            .output = pose,
                                            .output_count = skel.soa_count,
                                            .rest_pose = skel.rest_pose,
                                            .rest_pose_count = skel.soa_count};
        const ossa_local_to_model_job l2m = {.skeleton = &skel,
                                             .input = pose,
                                             .input_count = skel.soa_count,
                                             .output = models,
                                             .output_count = skel.joint_count};
        ok = example_check(ossa_sampling_job_run(&sampling), NULL, "sampling") &&
             example_check(ossa_local_to_model_job_run(&l2m), NULL, "local to model");
        if (ok && frame % 15 == 0) {
            const float *p = models[last].cols[3]; /* a model matrix's translation column */
            printf("time %.2f clip %.2f %s %.4f %.4f %.4f\n", (double)now, (double)t,
                   ossa_skeleton_joint_name(&skel, last), (double)p[0], (double)p[1], (double)p[2]);
        }
    }

    free(models);
    free(pose);
    free(ctx_mem);
    if (argc > 1) free(bytes);
    ossa_blob_destroy(&baked);
    return ok ? 0 : 1;
}
