/* examples/common.h: what the examples share. Each example is one C file that uses only the
 * public headers (<ossa/...> for the runtime, <ossa/offline/...> for the builders); this file
 * holds the three chores they all need:
 *   - example_load_file: a file into 16-byte aligned memory (archives are loaded in place, and
 *     the views the runtime hands out point into these bytes);
 *   - example_check: prints a failed call's result code (and the builder's message) once;
 *   - example_arm / example_archive: a three-joint arm (shoulder, elbow, hand; each bone 1 m
 *     long along +y) and an archive baked from it (and from tracks) in memory, so that the examples print
 *     values a reader can work out by hand.
 */
#ifndef OSSA_EXAMPLES_COMMON_H
#define OSSA_EXAMPLES_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/archive.h>
#include <ossa/local_to_model_job.h>
#include <ossa/sampling_job.h>
#include <ossa/offline/archive_writer.h>
#include <ossa/offline/builders.h>
#include <ossa/offline/track_builder.h>

/* Reads `path` into memory aligned to 16 bytes (free() it). NULL when it cannot be read. */
static inline void *example_load_file(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    void *bytes = NULL;
    long end = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    if (end > 0 && fseek(f, 0, SEEK_SET) == 0) {
        *size = (size_t)end;
        /* aligned_alloc wants a size that is a multiple of the alignment. */
        bytes = aligned_alloc(16, (*size + 15) / 16 * 16);
        if (bytes && fread(bytes, 1, *size, f) != *size) {
            free(bytes);
            bytes = NULL;
        }
    }
    fclose(f);
    return bytes;
}

/* True when r is OSSA_OK; otherwise prints what failed and why. */
static inline bool example_check(ossa_result r, const ossa_diag *diag, const char *what)
{
    if (r == OSSA_OK) return true;
    fprintf(stderr, "%s: %s%s%s\n", what, ossa_result_string(r), diag && diag->message[0] ? ": " : "",
            diag ? diag->message : "");
    return false;
}

/* Joints of the example arm. */
enum { ARM_SHOULDER, ARM_ELBOW, ARM_HAND, ARM_JOINTS };

/* The arm: the shoulder at the origin, the elbow 1 m above it, the hand 1 m above that. */
static inline bool example_arm(ossa_raw_skeleton *raw)
{
    static const char *names[ARM_JOINTS] = {"shoulder", "elbow", "hand"};
    if (ossa_raw_skeleton_create(raw, ARM_JOINTS, NULL) != OSSA_OK) return false;
    for (int j = 0; j < ARM_JOINTS; j++) {
        if (ossa_raw_skeleton_set_name(raw, (size_t)j, names[j]) != OSSA_OK) return false;
        raw->joints[j].parent = j - 1;
        raw->joints[j].rest.translation.y = j ? 1.f : 0.f;
    }
    return true;
}

/* A rotation of `degrees` about z (counter-clockwise seen from +z). */
static inline ossa_quat example_rot_z(float degrees)
{
    const float half = degrees * 3.14159265f / 360.f;
    return (ossa_quat){0.f, 0.f, sinf(half), cosf(half)};
}

/* A clip of the arm lasting `duration` seconds that holds the rest pose: one key per joint
 * for the translation (the bone's 1 m) and one for the rotation (identity). A joint channel
 * without keys would be the identity, not the rest pose, so each clip keeps these keys. The
 * examples then give the joints they animate more keys (ossa_raw_joint_track_resize). */
static inline bool example_arm_clip(ossa_raw_animation *raw, const char *name, float duration)
{
    if (ossa_raw_animation_create(raw, ARM_JOINTS, NULL) != OSSA_OK) return false;
    if (ossa_raw_animation_set_name(raw, name) != OSSA_OK) return false;
    raw->duration = duration;
    for (size_t j = 0; j < ARM_JOINTS; j++) {
        if (ossa_raw_joint_track_resize(raw, j, 1, 1, 0) != OSSA_OK) return false;
        raw->tracks[j].translations[0] = (ossa_raw_float3_key){0.f, {0.f, j ? 1.f : 0.f, 0.f}};
        raw->tracks[j].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
    }
    return true;
}

/* Bakes `skeleton`, `clips` (lossless: the keys as given) and user-channel `tracks` into one
 * archive in `file` (tracks may be NULL when track_count is 0). */
static inline bool example_archive(const ossa_raw_skeleton *skeleton, const ossa_raw_animation *clips,
                                   size_t clip_count, const ossa_raw_track *tracks, size_t track_count, ossa_blob *file)
{
    enum { MAX_ENTRIES = 8 };
    ossa_diag diag = {0};
    ossa_blob blobs[MAX_ENTRIES] = {{0}};
    ossa_archive_entry entries[MAX_ENTRIES];
    const size_t count = 1 + clip_count + track_count;
    bool ok =
        count <= MAX_ENTRIES && example_check(ossa_skeleton_build(skeleton, NULL, &blobs[0], &diag), &diag, "skeleton");
    entries[0] = (ossa_archive_entry){OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, blobs[0].data, blobs[0].size};
    for (size_t i = 1; ok && i < count; i++) {
        const bool clip = i <= clip_count;
        ok = clip
                 ? example_check(ossa_animation_build(&clips[i - 1], NULL, &blobs[i], &diag), &diag, "animation")
                 : example_check(ossa_track_build(&tracks[i - 1 - clip_count], NULL, &blobs[i], &diag), &diag, "track");
        entries[i] = (ossa_archive_entry){clip ? OSSA_TAG_ANIMATION : OSSA_TAG_TRACK,
                                          clip ? OSSA_ANIMATION_BLOB_VERSION : OSSA_TRACK_BLOB_VERSION, blobs[i].data,
                                          blobs[i].size};
    }
    ok = ok && example_check(ossa_archive_write(entries, count, NULL, file, &diag), &diag, "archive");
    for (size_t i = 0; i < MAX_ENTRIES; i++) ossa_blob_destroy(&blobs[i]);
    return ok;
}

/* Samples `anim` at `ratio` (time / duration) into `pose` ([skel->soa_count] SoA groups), as
 * play.c does step by step. */
static inline bool example_sample(const ossa_skeleton *skel, const ossa_animation *anim, ossa_sampling_context *ctx,
                                  float ratio, ossa_soa_transform *pose)
{
    const ossa_sampling_job job = {.animation = anim,
                                   .context = ctx,
                                   .ratio = ratio,
                                   .output = pose,
                                   .output_count = skel->soa_count,
                                   .rest_pose = skel->rest_pose,
                                   .rest_pose_count = skel->soa_count};
    return example_check(ossa_sampling_job_run(&job), NULL, "sampling");
}

/* Converts a local-space `pose` to model-space matrices ([skel->joint_count]). */
static inline bool example_to_model(const ossa_skeleton *skel, const ossa_soa_transform *pose, ossa_float4x4 *models)
{
    const ossa_local_to_model_job job = {.skeleton = skel,
                                         .input = pose,
                                         .input_count = skel->soa_count,
                                         .output = models,
                                         .output_count = skel->joint_count};
    return example_check(ossa_local_to_model_job_run(&job), NULL, "local to model");
}

/* Prints a joint's model-space position (the matrix's translation column) after `label`. */
static inline void example_print_joint(const char *label, const ossa_skeleton *skel, const ossa_float4x4 *models,
                                       size_t joint)
{
    const float *p = models[joint].cols[3];
    printf("%s %s %.4f %.4f %.4f\n", label, ossa_skeleton_joint_name(skel, joint), (double)p[0], (double)p[1],
           (double)p[2]);
}

#endif /* OSSA_EXAMPLES_COMMON_H */
