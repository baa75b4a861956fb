/* libFuzzer target: the animation blob validator and the sampling job, on raw blob bytes (the
 * archive target reaches blobs only through its checksums). Any input must either be rejected
 * by ossa_animation_init or sample, forward, backward and at jumps, without reading out of
 * bounds. Seeds: tests/fuzz/corpus/animation (blobs built by the lossless and the
 * error-bounded builder). */
#include <stdlib.h>
#include <string.h>

#include "ossa/animation.h"
#include "ossa/sampling_job.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The view needs 16-byte aligned bytes, as an archive chunk is. */
    uint8_t *copy = aligned_alloc(16, (size + 16) & ~(size_t)15);
    if (!copy) return 0;
    if (size) memcpy(copy, data, size);
    ossa_animation anim;
    if (ossa_animation_init(&anim, copy, size) == OSSA_OK) {
        /* Sizes stay in reach of the sum of the blob's own arrays. */
        ossa_animation_size_breakdown sizes;
        ossa_animation_sizes(&anim, &sizes);
        const size_t ctx_size = ossa_sampling_context_size(anim.track_count);
        void *mem = aligned_alloc(16, ctx_size);
        ossa_soa_transform *pose = aligned_alloc(16, (anim.soa_count + 1) * sizeof *pose);
        ossa_sampling_context *ctx = mem ? ossa_sampling_context_init(mem, ctx_size, anim.track_count) : NULL;
        /* Rest-pose sub-tracks take the skeleton's: identity here. */
        ossa_soa_transform *rest = aligned_alloc(16, (anim.soa_count + 1) * sizeof *rest);
        for (size_t g = 0; rest && g < anim.soa_count; ++g) ossa_soa_transform_set_identity(&rest[g]);
        static const float ratios[] = {0.f, .1f, .2f, .21f, .9f, 1.f, .95f, .5f, .49f, .03f, .77f, 0.f};
        for (size_t i = 0; ctx && pose && i < sizeof ratios / sizeof *ratios; ++i) {
            const ossa_sampling_job job = {&anim, ctx, ratios[i], pose, anim.soa_count, rest, anim.soa_count};
            ossa_sampling_job_run(&job);
        }
        free(mem);
        free(pose);
        free(rest);
    }
    free(copy);
    return 0;
}
