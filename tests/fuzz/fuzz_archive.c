/* libFuzzer target: the .ossa archive reader and the views it hands out. Any input must
 * either be rejected or give views that the jobs can run on without reading out of bounds. */
#include <float.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "ossa/track_jobs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The reader needs 16-byte aligned bytes, as a loaded file would be. */
    uint8_t *copy = aligned_alloc(16, (size + 16) & ~(size_t)15);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    ossa_archive ar;
    if (ossa_archive_init(&ar, copy, size) == OSSA_OK) {
        /* META's unit_scale, whatever its text, reads as a usable unit. */
        const float unit = ossa_archive_unit_scale(&ar);
        if (!(unit > 0.f && unit <= FLT_MAX)) abort();
        ossa_skeleton skel;
        const bool has_skeleton = ossa_archive_skeleton(&ar, &skel) == OSSA_OK;
        for (size_t a = 0; a < ossa_archive_count(&ar, OSSA_TAG_ANIMATION); ++a) {
            ossa_animation anim;
            if (ossa_archive_animation(&ar, a, &anim) != OSSA_OK) continue;
            const size_t ctx_size = ossa_sampling_context_size(anim.track_count);
            void *mem = aligned_alloc(16, ctx_size);
            ossa_soa_transform *pose = aligned_alloc(16, (anim.soa_count + 1) * sizeof *pose);
            ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, anim.track_count);
            static const float ratios[] = {0.f, .3f, .31f, 1.f, .5f, .1f, .9f, 0.f};
            /* Rest-pose sub-tracks take the skeleton's when it covers the animation. */
            const bool rest = has_skeleton && skel.soa_count >= anim.soa_count;
            for (size_t i = 0; ctx && pose && i < sizeof ratios / sizeof *ratios; ++i) {
                const ossa_sampling_job job = {&anim,
                                               ctx,
                                               ratios[i],
                                               pose,
                                               anim.soa_count,
                                               rest ? skel.rest_pose : NULL,
                                               rest ? skel.soa_count : 0};
                ossa_sampling_job_run(&job);
            }
            if (has_skeleton && pose && skel.soa_count <= anim.soa_count) {
                ossa_float4x4 *models = aligned_alloc(16, (skel.joint_count + 1) * sizeof *models);
                const ossa_local_to_model_job l2m = {&skel, NULL, 0, 0, pose, anim.soa_count, models, skel.joint_count};
                if (models) ossa_local_to_model_job_run(&l2m);
                free(models);
            }
            free(mem);
            free(pose);
        }
        for (size_t t = 0; t < ossa_archive_count(&ar, OSSA_TAG_TRACK); ++t) {
            ossa_track track;
            if (ossa_archive_track(&ar, t, &track) != OSSA_OK) continue;
            float value[4];
            const ossa_track_sampling_job job = {&track, .5f, value, 4};
            ossa_track_sampling_job_run(&job);
        }
    }
    free(copy);
    return 0;
}
