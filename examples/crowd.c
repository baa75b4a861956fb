/* crowd.c: many characters animated on a pool of threads (POSIX threads).
 *
 * What may be shared: the archive bytes and the views into them (skeleton, animations) are
 * read-only, so every thread reads them at once. What may not: a sampling context, a pose and
 * the matrices belong to one character, and only one thread works on a character at a time.
 * So each character owns its state and each thread takes a fixed slice of the characters;
 * a barrier starts and ends each frame (the game would read the matrices in between).
 *
 * 64 characters play the example arm's 2 s clip "raise" (play.c) with character i starting
 * 0.1 i s into it, for 2 s at 30 Hz (61 frames) on 4 threads. The hand of a character at clip time t
 * is at (t/2 - 2 sin(45 t), 2 cos(45 t), 0) when t falls on a key (every 0.5 s); the program
 * prints a few characters at the last frame and checks every character against a run on one
 * thread (the same bits: the jobs do not depend on the thread they run on).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

enum { CHARACTERS = 64, THREADS = 4, FRAMES = 61 };

typedef struct character {
    void *memory;                   /* the context's aligned block, sized for the clip */
    ossa_sampling_context *context; /* placed in it */
    ossa_soa_transform *pose;
    ossa_float4x4 *models;
    float offset; /* seconds into the clip at frame 0 */
} character;

typedef struct crowd {
    const ossa_skeleton *skel; /* shared, read-only */
    const ossa_animation *anim;
    character *chars;
    pthread_barrier_t frame_start, frame_end;
    int frame;
    bool failed[THREADS];
} crowd;

typedef struct worker {
    crowd *crowd;
    int index;
} worker;

/* One frame of characters [begin, end): sample at their own time, convert to model space. */
static bool animate(crowd *c, int begin, int end, int frame)
{
    bool ok = true;
    for (int i = begin; ok && i < end; i++) {
        const float t = fmodf(c->chars[i].offset + (float)frame / 30.f, c->anim->duration);
        ok = example_sample(c->skel, c->anim, c->chars[i].context, t / c->anim->duration, c->chars[i].pose) &&
             example_to_model(c->skel, c->chars[i].pose, c->chars[i].models);
    }
    return ok;
}

static void *run_worker(void *arg)
{
    const worker *w = arg;
    crowd *c = w->crowd;
    const int per = CHARACTERS / THREADS;
    for (int frame = 0; frame < FRAMES; frame++) {
        pthread_barrier_wait(&c->frame_start);
        if (!animate(c, w->index * per, (w->index + 1) * per, frame)) c->failed[w->index] = true;
        pthread_barrier_wait(&c->frame_end);
    }
    return NULL;
}

int main(void)
{
    ossa_raw_skeleton raw_skel = {0};
    ossa_raw_animation raw = {0};
    ossa_blob file = {0};
    bool ok = example_arm(&raw_skel) && example_arm_clip(&raw, "raise", 2.f) &&
              ossa_raw_joint_track_resize(&raw, ARM_SHOULDER, 2, 5, 0) == OSSA_OK;
    if (ok) { /* the clip of play.c */
        raw.tracks[ARM_SHOULDER].translations[1] = (ossa_raw_float3_key){2.f, {1.f, 0.f, 0.f}};
        for (int k = 0; k < 5; k++)
            raw.tracks[ARM_SHOULDER].rotations[k] =
                (ossa_raw_quat_key){.5f * (float)k, example_rot_z(22.5f * (float)k)};
        ok = example_archive(&raw_skel, &raw, 1, NULL, 0, &file);
    }
    ossa_raw_animation_destroy(&raw);
    ossa_raw_skeleton_destroy(&raw_skel);
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    ok = ok && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
         example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
         example_check(ossa_archive_animation(&ar, 0, &anim), NULL, "animation");
    if (!ok) return 1;

    /* Per character: a context sized for this clip with a playback cache, a pose, matrices. */
    static character chars[CHARACTERS];
    const size_t ctx_size = ossa_sampling_context_playback_size_for(&anim);
    for (int i = 0; ok && i < CHARACTERS; i++) {
        chars[i].memory = aligned_alloc(16, ctx_size);
        chars[i].context = chars[i].memory ? ossa_sampling_context_init_for(chars[i].memory, ctx_size, &anim) : NULL;
        chars[i].pose = aligned_alloc(16, skel.soa_count * sizeof(ossa_soa_transform));
        chars[i].models = aligned_alloc(16, skel.joint_count * sizeof(ossa_float4x4));
        chars[i].offset = .1f * (float)i;
        ok = chars[i].context && chars[i].pose && chars[i].models;
    }

    /* The pool: THREADS - 1 threads and this one, in lockstep, frame by frame. */
    static crowd c;
    c = (crowd){.skel = &skel, .anim = &anim, .chars = chars};
    pthread_barrier_init(&c.frame_start, NULL, THREADS);
    pthread_barrier_init(&c.frame_end, NULL, THREADS);
    pthread_t threads[THREADS];
    worker workers[THREADS];
    for (int w = 0; w < THREADS; w++) workers[w] = (worker){&c, w};
    for (int w = 1; w < THREADS; w++)
        if (pthread_create(&threads[w], NULL, run_worker, &workers[w]) != 0) return 1;
    run_worker(&workers[0]);
    for (int w = 1; w < THREADS; w++) pthread_join(threads[w], NULL);
    for (int w = 0; w < THREADS; w++) ok = ok && !c.failed[w];

    /* The same last frame on one thread, into scratch matrices, for comparison. */
    int differ = 0;
    static ossa_float4x4 threaded[CHARACTERS][ARM_JOINTS];
    for (int i = 0; ok && i < CHARACTERS; i++) memcpy(threaded[i], chars[i].models, sizeof threaded[i]);
    ok = ok && animate(&c, 0, CHARACTERS, FRAMES - 1);
    for (int i = 0; ok && i < CHARACTERS; i++) differ += memcmp(threaded[i], chars[i].models, sizeof threaded[i]) != 0;
    for (int i = 0; ok && i < CHARACTERS; i += 15) {
        char label[48];
        snprintf(label, sizeof label, "character %d clip-time %.2f", i,
                 (double)fmodf(chars[i].offset + (float)(FRAMES - 1) / 30.f, anim.duration));
        example_print_joint(label, &skel, chars[i].models, ARM_HAND);
    }
    if (ok) printf("characters %d threads %d differ-from-one-thread %d\n", CHARACTERS, THREADS, differ);

    pthread_barrier_destroy(&c.frame_end);
    pthread_barrier_destroy(&c.frame_start);
    for (int i = 0; i < CHARACTERS; i++) {
        free(chars[i].models);
        free(chars[i].pose);
        free(chars[i].memory);
    }
    ossa_blob_destroy(&file);
    return ok && differ == 0 ? 0 : 1;
}
