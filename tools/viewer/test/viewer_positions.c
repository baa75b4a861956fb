/* viewer_positions FILE.ossa CLIP TIME [FILE_B.ossa CLIP_B TIME_B WEIGHT_B]: the model-space
 * joint positions the native runtime computes for clip CLIP of FILE at TIME seconds on FILE's
 * skeleton (blended with clip CLIP_B of FILE_B at TIME_B seconds with weight WEIGHT_B), as JSON
 * on stdout:
 *   {"joints": N, "positions": [x0, y0, z0, x1, ...], "names": ["...", ...],
 *    "models": [m0[0], ..., m0[15], m1[0], ...]}   (skeleton units, %.9g)
 * "models" are the model-space matrices, column-major (the skinned mesh test builds its own
 * skinning palette from them); TIME "rest" gives the skeleton's rest pose instead of a clip.
 * The headless viewer test compares the page's positions (the same runtime as WebAssembly)
 * with these. Written against the public runtime API only, independently of viewer.c, the
 * ratio computed as a caller would: time / duration in float, clamped to [0, 1].
 * Exit status: 0, 1 on a file or runtime error, 2 on bad arguments. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"

static void *read_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    void *data = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        const long len = ftell(f);
        if (len > 0 && fseek(f, 0, SEEK_SET) == 0) {
            data = aligned_alloc(16, ((size_t)len + 15) & ~(size_t)15);
            if (data && fread(data, 1, (size_t)len, f) != (size_t)len) {
                free(data);
                data = NULL;
            }
            *size = (size_t)len;
        }
    }
    fclose(f);
    return data;
}

static ossa_result sample(const ossa_skeleton *skel, const ossa_animation *anim, ossa_sampling_context *ctx, float time,
                          ossa_soa_transform *out)
{
    const ossa_sampling_job job = {
        anim,           ctx, fminf(fmaxf(time / anim->duration, 0.f), 1.f), out, skel->soa_count, skel->rest_pose,
        skel->soa_count};
    return ossa_sampling_job_run(&job);
}

int main(int argc, char **argv)
{
    if (argc != 4 && argc != 8) {
        fprintf(stderr, "usage: viewer_positions FILE.ossa CLIP TIME [FILE_B.ossa CLIP_B TIME_B WEIGHT_B]\n");
        return 2;
    }
    const bool blend = argc == 8;
    const char *path[2] = {argv[1], blend ? argv[4] : NULL};
    const int clip[2] = {atoi(argv[2]), blend ? atoi(argv[5]) : -1};
    const bool rest = !strcmp(argv[3], "rest");
    const float time[2] = {rest ? 0.f : strtof(argv[3], NULL), blend ? strtof(argv[6], NULL) : 0.f};
    const float weight = blend ? strtof(argv[7], NULL) : 0.f;
    void *data[2] = {NULL, NULL};
    ossa_skeleton skel;
    ossa_animation anim[2];
    for (int i = 0; i < 1 + blend; ++i) {
        size_t size = 0;
        ossa_archive ar;
        data[i] = read_file(path[i], &size);
        ossa_result r = data[i] ? ossa_archive_init(&ar, data[i], size) : OSSA_ERROR_IO;
        if (r == OSSA_OK && i == 0) r = ossa_archive_skeleton(&ar, &skel);
        if (r == OSSA_OK) r = ossa_archive_animation(&ar, (size_t)clip[i], &anim[i]);
        if (r == OSSA_OK && anim[i].track_count != skel.joint_count) r = OSSA_ERROR_INVALID_ANIMATION;
        if (r != OSSA_OK) {
            fprintf(stderr, "viewer_positions: %s: %s\n", path[i], ossa_result_string(r));
            return 1;
        }
    }
    const size_t n = skel.soa_count, ctx_size = ossa_sampling_context_size(skel.joint_count);
    ossa_sampling_context *ctx = ossa_sampling_context_init(aligned_alloc(16, ctx_size), ctx_size, skel.joint_count);
    ossa_soa_transform *pose = aligned_alloc(16, 3 * n * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    if (!ctx || !pose || !models) {
        fprintf(stderr, "viewer_positions: out of memory\n");
        return 1;
    }
    ossa_result r = sample(&skel, &anim[0], ctx, time[0], pose);
    const ossa_soa_transform *local = rest ? skel.rest_pose : pose;
    if (r == OSSA_OK && blend && weight > 0.f) {
        ossa_sampling_context_invalidate(ctx);
        r = sample(&skel, &anim[1], ctx, time[1], pose + n);
        const ossa_blend_layer layers[2] = {{.weight = 1.f - weight, .transform = pose, .transform_count = n},
                                            {.weight = weight, .transform = pose + n, .transform_count = n}};
        const ossa_blending_job blending = {.layers = layers,
                                            .layer_count = 2,
                                            .rest_pose = skel.rest_pose,
                                            .rest_pose_count = n,
                                            .output = pose + 2 * n,
                                            .output_count = n};
        if (r == OSSA_OK) r = ossa_blending_job_run(&blending);
        local = pose + 2 * n;
    }
    const ossa_local_to_model_job l2m = {
        .skeleton = &skel, .input = local, .input_count = n, .output = models, .output_count = skel.joint_count};
    if (r == OSSA_OK) r = ossa_local_to_model_job_run(&l2m);
    if (r != OSSA_OK) {
        fprintf(stderr, "viewer_positions: %s\n", ossa_result_string(r));
        return 1;
    }
    printf("{\"joints\": %zu, \"positions\": [", skel.joint_count);
    for (size_t j = 0; j < skel.joint_count; ++j)
        for (int c = 0; c < 3; ++c) printf("%s%.9g", j || c ? ", " : "", (double)models[j].cols[3][c]);
    printf("], \"names\": [");
    for (size_t j = 0; j < skel.joint_count; ++j) {
        printf("%s\"", j ? ", " : "");
        for (const char *c = ossa_skeleton_joint_name(&skel, j); *c; ++c)
            printf((unsigned char)*c < 0x20 || *c == '"' || *c == '\\' ? "\\u%04x" : "%c", (unsigned char)*c);
        printf("\"");
    }
    printf("], \"models\": [");
    for (size_t j = 0; j < skel.joint_count; ++j)
        for (int e = 0; e < 16; ++e) printf("%s%.9g", j || e ? ", " : "", (double)models[j].cols[e / 4][e % 4]);
    printf("]}\n");
    free(models);
    free(pose);
    free(ctx);
    free(data[0]);
    free(data[1]);
    return 0;
}
