/* The browser viewer's binding: see viewer.h. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "viewer.h"

typedef struct viewer_clip {
    ossa_animation anim;
    int archive;
} viewer_clip;

typedef struct viewer_scene {
    void *bytes[VIEWER_MAX_ARCHIVES]; /* owned, 16-byte aligned */
    float tolerance[VIEWER_MAX_ARCHIVES]; /* metres, from META; 0 when none */
    size_t archive_count;
    ossa_skeleton skeleton; /* the first archive's; joint_count 0 until one is added */
    viewer_clip clips[VIEWER_MAX_CLIPS];
    size_t clip_count;
    /* Buffers sized for the skeleton when the first archive is added. */
    ossa_sampling_context *context[2];
    ossa_soa_transform *pose[2];
    ossa_soa_transform *blended;
    ossa_float4x4 *models;
    float *positions; /* [3 * joint_count] */
    char error[256];
} viewer_scene;

static viewer_scene scene;

/* Records the error text; returns -1. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static int
fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(scene.error, sizeof scene.error, format, args);
    va_end(args);
    return -1;
}

VIEWER_API const char *ossa_viewer_error(void) { return scene.error; }

VIEWER_API void *ossa_viewer_alloc(size_t size)
{
    const size_t rounded = (size + 15) & ~(size_t)15; /* aligned_alloc wants a multiple */
    return size && rounded ? aligned_alloc(16, rounded) : NULL;
}

VIEWER_API void ossa_viewer_free(void *p) { free(p); }

VIEWER_API void ossa_viewer_reset(void)
{
    for (size_t i = 0; i < scene.archive_count; ++i) free(scene.bytes[i]);
    for (int i = 0; i < 2; ++i) {
        free(scene.context[i]);
        free(scene.pose[i]);
    }
    free(scene.blended);
    free(scene.models);
    free(scene.positions);
    memset(&scene, 0, sizeof scene);
}

static bool allocate_buffers(size_t joint_count, size_t soa_count)
{
    const size_t ctx_size = ossa_sampling_context_size(joint_count);
    const size_t pose_size = soa_count * sizeof(ossa_soa_transform);
    for (int i = 0; i < 2; ++i) {
        void *memory = aligned_alloc(16, ctx_size);
        scene.context[i] = memory ? ossa_sampling_context_init(memory, ctx_size, joint_count) : NULL;
        if (!scene.context[i]) free(memory);
        scene.pose[i] = aligned_alloc(16, pose_size);
    }
    scene.blended = aligned_alloc(16, pose_size);
    scene.models = aligned_alloc(16, joint_count * sizeof(ossa_float4x4));
    scene.positions = calloc(3 * joint_count, sizeof(float));
    return scene.context[0] && scene.context[1] && scene.pose[0] && scene.pose[1] && scene.blended && scene.models &&
           scene.positions;
}

/* True when `b` has the scene's joint count and parents. */
static bool same_hierarchy(const ossa_skeleton *a, const ossa_skeleton *b)
{
    return a->joint_count == b->joint_count && !memcmp(a->parents, b->parents, a->joint_count * sizeof(int16_t));
}

/* META's `tolerance=` as a finite number above 0 (the whole value), else 0. */
static float meta_tolerance(const ossa_archive *ar)
{
    char text[64], *end = NULL;
    if (!ossa_archive_meta(ar, "tolerance", text, sizeof text) || !text[0]) return 0.f;
    const float value = strtof(text, &end);
    return *end == '\0' && isfinite(value) && value > 0.f ? value : 0.f;
}

VIEWER_API int ossa_viewer_add(void *bytes, size_t size)
{
    scene.error[0] = '\0';
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_result r = ossa_archive_init(&ar, bytes, size);
    int status = -1;
    if (r != OSSA_OK) {
        fail("not a valid .ossa archive: %s", ossa_result_string(r));
        goto done;
    }
    if (scene.archive_count == VIEWER_MAX_ARCHIVES) {
        fail("too many archives open (at most %d)", VIEWER_MAX_ARCHIVES);
        goto done;
    }
    r = ossa_archive_skeleton(&ar, &skel);
    if (r == OSSA_OK) {
        if (!skel.joint_count) {
            fail("the archive's skeleton has no joints");
            goto done;
        }
        if (scene.skeleton.joint_count && !same_hierarchy(&scene.skeleton, &skel)) {
            fail("its skeleton is not the first archive's (%zu joints, or other parents; the first has %zu)",
                 skel.joint_count, scene.skeleton.joint_count);
            goto done;
        }
    } else if (r != OSSA_ERROR_NOT_FOUND || !scene.skeleton.joint_count) {
        if (r == OSSA_ERROR_NOT_FOUND)
            fail("the archive has no skeleton (the first archive opened must have one)");
        else
            fail("the archive's skeleton cannot be read: %s", ossa_result_string(r));
        goto done;
    } else {
        skel = scene.skeleton;
    }
    const size_t count = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    if (scene.clip_count + count > VIEWER_MAX_CLIPS) {
        fail("too many clips open (at most %d)", VIEWER_MAX_CLIPS);
        goto done;
    }
    for (size_t i = 0; i < count; ++i) {
        ossa_animation *anim = &scene.clips[scene.clip_count + i].anim;
        r = ossa_archive_animation(&ar, i, anim);
        if (r != OSSA_OK) {
            fail("animation %zu of the archive cannot be read: %s", i, ossa_result_string(r));
            goto done;
        }
        if (anim->track_count != skel.joint_count) {
            fail("the clip \"%s\" animates %zu joints, the skeleton has %zu", anim->name, anim->track_count,
                 skel.joint_count);
            goto done;
        }
        scene.clips[scene.clip_count + i].archive = (int)scene.archive_count;
    }
    if (!scene.skeleton.joint_count) {
        if (!allocate_buffers(skel.joint_count, skel.soa_count)) {
            ossa_viewer_reset();
            fail("out of memory");
            goto done;
        }
        scene.skeleton = skel;
    }
    scene.tolerance[scene.archive_count] = meta_tolerance(&ar);
    scene.bytes[scene.archive_count++] = bytes;
    scene.clip_count += count;
    return (int)count;
done:
    free(bytes);
    return status;
}

VIEWER_API float ossa_viewer_archive_tolerance(int archive)
{
    return archive < 0 || (size_t)archive >= scene.archive_count ? 0.f : scene.tolerance[archive];
}

VIEWER_API int ossa_viewer_joint_count(void) { return (int)scene.skeleton.joint_count; }

VIEWER_API const char *ossa_viewer_joint_name(int joint)
{
    return joint < 0 ? "" : ossa_skeleton_joint_name(&scene.skeleton, (size_t)joint);
}

VIEWER_API int ossa_viewer_joint_parent(int joint)
{
    return joint < 0 || (size_t)joint >= scene.skeleton.joint_count ? -1 : scene.skeleton.parents[joint];
}

VIEWER_API int ossa_viewer_clip_count(void) { return (int)scene.clip_count; }

VIEWER_API const char *ossa_viewer_clip_name(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? "" : scene.clips[clip].anim.name;
}

VIEWER_API float ossa_viewer_clip_duration(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? 0.f : scene.clips[clip].anim.duration;
}

VIEWER_API int ossa_viewer_clip_archive(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? -1 : scene.clips[clip].archive;
}

static ossa_result sample(int slot, int clip, float time)
{
    const ossa_animation *anim = &scene.clips[clip].anim;
    const float ratio = fminf(fmaxf(time / anim->duration, 0.f), 1.f);
    const ossa_sampling_job job = {anim,
                                   scene.context[slot],
                                   ratio,
                                   scene.pose[slot],
                                   scene.skeleton.soa_count,
                                   scene.skeleton.rest_pose,
                                   scene.skeleton.soa_count};
    return ossa_sampling_job_run(&job);
}

VIEWER_API int ossa_viewer_evaluate(int clip_a, float time_a, int clip_b, float time_b, float weight_b)
{
    scene.error[0] = '\0';
    if (!scene.skeleton.joint_count) return fail("no archive is open");
    if (clip_a < 0 || (size_t)clip_a >= scene.clip_count || (clip_b >= 0 && (size_t)clip_b >= scene.clip_count))
        return fail("no such clip");
    if (!isfinite(time_a) || !isfinite(time_b) || !isfinite(weight_b))
        return fail("time or weight is not a finite number");
    const bool blend = clip_b >= 0 && weight_b > 0.f;
    ossa_result r = sample(0, clip_a, time_a);
    if (r == OSSA_OK && blend) r = sample(1, clip_b, time_b);
    const ossa_soa_transform *local = scene.pose[0];
    if (r == OSSA_OK && blend) {
        const float w = fminf(weight_b, 1.f);
        const size_t n = scene.skeleton.soa_count;
        const ossa_blend_layer layers[2] = {{.weight = 1.f - w, .transform = scene.pose[0], .transform_count = n},
                                            {.weight = w, .transform = scene.pose[1], .transform_count = n}};
        const ossa_blending_job job = {.layers = layers,
                                       .layer_count = 2,
                                       .rest_pose = scene.skeleton.rest_pose,
                                       .rest_pose_count = n,
                                       .output = scene.blended,
                                       .output_count = n};
        r = ossa_blending_job_run(&job);
        local = scene.blended;
    }
    if (r == OSSA_OK) {
        const ossa_local_to_model_job job = {.skeleton = &scene.skeleton,
                                             .input = local,
                                             .input_count = scene.skeleton.soa_count,
                                             .output = scene.models,
                                             .output_count = scene.skeleton.joint_count};
        r = ossa_local_to_model_job_run(&job);
    }
    if (r != OSSA_OK) return fail("%s", ossa_result_string(r));
    for (size_t j = 0; j < scene.skeleton.joint_count; ++j)
        for (int c = 0; c < 3; ++c) scene.positions[3 * j + (size_t)c] = scene.models[j].cols[3][c];
    return 0;
}

VIEWER_API const float *ossa_viewer_positions(void) { return scene.positions; }
