/* The browser viewer's binding: the runtime compiled to WebAssembly with this file
 * (tools/viewer/meson.build), called from viewer.js. One scene per page: the archives the
 * user opened, the skeleton of the first one, the clips of all of them, and the model-space
 * joint positions of the last evaluated pose.
 *
 *   uint8_t *bytes = ossa_viewer_alloc(size);     // JS copies the file in
 *   if (ossa_viewer_add(bytes, size) < 0) puts(ossa_viewer_error());
 *   ossa_viewer_evaluate(0, 0.5f, -1, 0.f, 0.f);  // clip 0 at 0.5 s
 *   const float *xyz = ossa_viewer_positions();   // [3 * ossa_viewer_joint_count()]
 *
 * Every function reports failure through its return value and ossa_viewer_error(); none
 * aborts on a bad file (the archive loader validates every byte it will read). Single
 * threaded, like the page. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#define VIEWER_API EMSCRIPTEN_KEEPALIVE
#else
#define VIEWER_API
#endif

/* Archives a page may open at once (each holds any number of clips). */
#define VIEWER_MAX_ARCHIVES 16
/* Clips over all archives. */
#define VIEWER_MAX_CLIPS 256

typedef struct viewer_clip {
    ossa_animation anim;
    int archive;
} viewer_clip;

typedef struct viewer_scene {
    void *bytes[VIEWER_MAX_ARCHIVES]; /* owned, 16-byte aligned */
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
static int fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(scene.error, sizeof scene.error, format, args);
    va_end(args);
    return -1;
}

/* Text of the last failure ("" when the last call succeeded). */
VIEWER_API const char *ossa_viewer_error(void) { return scene.error; }

/* `size` bytes, 16-byte aligned (what ossa_archive_init needs), or NULL. Free with
 * ossa_viewer_free unless ossa_viewer_add took them. */
VIEWER_API void *ossa_viewer_alloc(size_t size)
{
    const size_t rounded = (size + 15) & ~(size_t)15; /* aligned_alloc wants a multiple */
    return size && rounded ? aligned_alloc(16, rounded) : NULL;
}

VIEWER_API void ossa_viewer_free(void *p) { free(p); }

/* Forgets every archive and clip and frees their memory. */
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

/* Adds the archive in `bytes` (from ossa_viewer_alloc, `size` bytes). On success the scene
 * owns the bytes and the return value is the number of clips added (0 or more): the first
 * archive gives the skeleton, later ones must have a skeleton of the same hierarchy, or none.
 * On error (not an archive, corrupt, no skeleton in the first one, another hierarchy, a clip
 * whose track count is not the skeleton's joint count, too many archives or clips) the scene
 * is unchanged, the bytes are freed and -1 is returned; ossa_viewer_error says why. */
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
    scene.bytes[scene.archive_count++] = bytes;
    scene.clip_count += count;
    return (int)count;
done:
    free(bytes);
    return status;
}

/* The scene's skeleton: joint count (0 before the first archive), a joint's name ("" out of
 * range) and parent index (-1 for a root or out of range). */
VIEWER_API int ossa_viewer_joint_count(void) { return (int)scene.skeleton.joint_count; }

VIEWER_API const char *ossa_viewer_joint_name(int joint)
{
    return joint < 0 ? "" : ossa_skeleton_joint_name(&scene.skeleton, (size_t)joint);
}

VIEWER_API int ossa_viewer_joint_parent(int joint)
{
    return joint < 0 || (size_t)joint >= scene.skeleton.joint_count ? -1 : scene.skeleton.parents[joint];
}

/* Clips over every archive, in the order they were added: count, name ("" out of range),
 * duration in seconds (0 out of range), index of the archive holding it (-1 out of range). */
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

/* Poses the skeleton: clip `clip_a` at `time_a` seconds, blended with clip `clip_b` at
 * `time_b` seconds with weight `weight_b` in [0, 1] (clip_a gets 1 - weight_b; clip_b < 0 or
 * weight_b <= 0: clip_a alone, exactly as sampled), then local-to-model. Times are clamped
 * to each clip's [0, duration] (ratio = time / duration, in float, as a native caller would
 * compute it). Returns 0, or -1 (bad clip index, non-finite time or weight, no skeleton, a
 * job error) with ossa_viewer_error set; the positions then keep the previous pose. */
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

/* Model-space joint positions of the last ossa_viewer_evaluate: [3 * joint_count] floats
 * (x, y, z of joint 0, then joint 1, ...), in the skeleton's units; NULL before the first
 * archive. */
VIEWER_API const float *ossa_viewer_positions(void) { return scene.positions; }
