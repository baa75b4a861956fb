/* The C11 counterpart of consumer.cpp, built with pkg-config's flags for ossa-offline: builds
 * a two-joint skeleton and a one-second clip, bakes them into an archive in memory, loads and
 * samples it half-way and checks the tip's model-space position. With an argument, also writes
 * the archive to that file (the README's example samples it). Exit status 0 when it matches,
 * 1 otherwise. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/archive.h>
#include <ossa/local_to_model_job.h>
#include <ossa/offline/archive_writer.h>
#include <ossa/offline/builders.h>
#include <ossa/sampling_job.h>

static bool check(ossa_result r, const ossa_diag *diag, const char *what)
{
    if (r == OSSA_OK) return true;
    fprintf(stderr, "%s: %s (%s)\n", what, ossa_result_name(r), diag->message);
    return false;
}

int main(int argc, char **argv)
{
    ossa_diag diag = {0};
    ossa_raw_skeleton raw_skel = {0};
    ossa_raw_skeleton_create(&raw_skel, 2, NULL);
    ossa_raw_skeleton_set_name(&raw_skel, 0, "root");
    ossa_raw_skeleton_set_name(&raw_skel, 1, "tip");
    raw_skel.joints[1].parent = 0;
    raw_skel.joints[1].rest.translation.y = 1.f;

    /* The root moves from 0 to x = 2 and turns 90 degrees about z in one second. */
    ossa_raw_animation raw_anim = {0};
    ossa_raw_animation_create(&raw_anim, 2, NULL);
    raw_anim.duration = 1.f;
    ossa_raw_joint_track_resize(&raw_anim, 0, 2, 2, 0);
    ossa_raw_joint_track_resize(&raw_anim, 1, 1, 0, 0);
    const float s = sqrtf(.5f);
    raw_anim.tracks[0].translations[1] = (ossa_raw_float3_key){1.f, {2.f, 0.f, 0.f}};
    raw_anim.tracks[0].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
    raw_anim.tracks[0].rotations[1] = (ossa_raw_quat_key){1.f, {0.f, 0.f, s, s}};
    raw_anim.tracks[1].translations[0] = (ossa_raw_float3_key){0.f, {0.f, 1.f, 0.f}};

    ossa_blob skel_blob = {0}, anim_blob = {0}, file = {0};
    bool ok = check(ossa_raw_animation_validate(&raw_anim, &diag), &diag, "validate") &&
              check(ossa_skeleton_build(&raw_skel, NULL, &skel_blob, &diag), &diag, "skeleton") &&
              check(ossa_animation_build(&raw_anim, NULL, &anim_blob, &diag), &diag, "animation");
    ossa_raw_animation_destroy(&raw_anim);
    ossa_raw_skeleton_destroy(&raw_skel);
    if (ok) {
        const ossa_archive_entry entries[] = {
            {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, skel_blob.data, skel_blob.size},
            {OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, anim_blob.data, anim_blob.size}};
        ok = check(ossa_archive_write(entries, 2, NULL, &file, &diag), &diag, "archive");
    }
    if (ok && argc > 1) {
        FILE *out = fopen(argv[1], "wb");
        ok = out && fwrite(file.data, 1, file.size, out) == file.size;
        ok = out && fclose(out) == 0 && ok;
        if (!ok) fprintf(stderr, "%s: cannot write the archive\n", argv[1]);
    }
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    ok = ok && check(ossa_archive_init(&ar, file.data, file.size), &diag, "load") &&
         check(ossa_archive_skeleton(&ar, &skel), &diag, "load skeleton") &&
         check(ossa_archive_animation(&ar, 0, &anim), &diag, "load animation") && skel.joint_count == 2;
    float error = INFINITY;
    if (ok) {
        const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
        void *ctx_mem = aligned_alloc(16, (ctx_size + 15) / 16 * 16);
        ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count);
        ossa_soa_transform pose[1];
        ossa_float4x4 models[2];
        const ossa_sampling_job sampling = {&anim, ctx, .5f, pose, 1, skel.rest_pose, skel.soa_count};
        const ossa_local_to_model_job l2m = {
            .skeleton = &skel, .input = pose, .input_count = 1, .output = models, .output_count = 2};
        if (check(ossa_sampling_job_run(&sampling), &diag, "sampling") &&
            check(ossa_local_to_model_job_run(&l2m), &diag, "local to model")) {
            /* Half-way: the root at x = 1 turned 45 degrees, the tip at (1 - sin 45, cos 45, 0). */
            const float *tip = models[1].cols[3];
            error = hypotf(hypotf(tip[0] - (1.f - s), tip[1] - s), tip[2]);
            printf("ossa %d.%d.%d: tip at (%.4f, %.4f, %.4f), error %.2g\n", OSSA_VERSION_MAJOR, OSSA_VERSION_MINOR,
                   OSSA_VERSION_PATCH, (double)tip[0], (double)tip[1], (double)tip[2], (double)error);
        }
        free(ctx_mem);
    }
    ossa_blob_destroy(&file);
    ossa_blob_destroy(&anim_blob);
    ossa_blob_destroy(&skel_blob);
    return error < 1e-3f ? 0 : 1;
}
