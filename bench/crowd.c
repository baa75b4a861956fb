/* ossa-crowd: a crowd of characters per frame on 1 to T threads.
 *
 *   ossa-crowd [--shared DIR] [--threads LIST] [--characters LIST] [--seconds S] [--frames F]
 *              [--repeat R] [--tsv FILE] [--free-running] [--small-contexts]
 *
 * Each character owns three sampling contexts and plays three of the pab clips (walk, jog,
 * run, atlas; character k plays clips k, k+1 and k+2 modulo 4), each from its own start time,
 * at 60 frames per second. A frame of a character is three forward sampling jobs, one blend
 * of the three poses (weights 0.5, 0.3, 0.2 in an order that depends on k) and one
 * local-to-model job. A frame of the crowd splits the characters into T contiguous ranges, one
 * per thread (the main thread is thread 0), and ends at a barrier: no locks, the clips and the
 * skeleton are shared read-only, every other byte belongs to one character. The barrier spins
 * (then yields) as the worker threads of an engine's job system do: a frame of 100 characters
 * is about 150 µs of work, and a sleeping thread's wake-up would be a large part of it.
 *
 * Thread counts above the character count are skipped. For every (characters, threads) cell
 * the frame count is fixed by timing one thread after three warm-up frames (which bind the
 * contexts and fill their playback caches): enough frames for about --seconds (default 0.2) of
 * work, at least 3; --frames F fixes it instead (for hyperfine). A cell makes --repeat rounds
 * (default 3) of one run per thread count, in alternating order, and reports medians over the
 * rounds. Printed: characters/s, joints/s, µs per frame, the scaling efficiency (the median over
 * rounds of the single-thread time of a round over T times the T-thread time of the same round)
 * and the bytes of state per character. --tsv also writes the table as tab-separated values.
 * --free-running drops the barrier between frames (threads meet after the last one): the
 * difference from the default is what the frame barrier costs. --small-contexts gives every
 * character the smallest sampling contexts (ossa_sampling_context_size_for, no playback cache):
 * the state printed last is then below ozz-animation's equivalent, also printed.
 */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clips.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "tools.h"

enum { CLIPS = 4, PLAYED = 3, MAX_LIST = 16, MAX_THREADS = 64, WARM_UP_FRAMES = 3 };

typedef struct character {
    ossa_sampling_context *ctx[PLAYED];
    ossa_soa_transform *pose[PLAYED];
    ossa_soa_transform *blended;
    ossa_float4x4 *models;
    const ossa_animation *anim[PLAYED];
    float offset[PLAYED]; /* seconds into each clip at frame 0 */
    float weight[PLAYED];
    void *memory; /* one block holding everything above that the character owns */
} character;

/* Bytes of state per character, by kind. */
typedef struct state_bytes {
    size_t contexts, poses, matrices;
} state_bytes;

/* A barrier for `count` threads that spins on a generation counter, yielding the CPU after
 * 1,024 checks (so that more threads than cores still progress). */
typedef struct spin_barrier {
    atomic_uint arrived, generation;
    unsigned count;
} spin_barrier;

static void spin_barrier_init(spin_barrier *b, unsigned count)
{
    atomic_init(&b->arrived, 0u);
    atomic_init(&b->generation, 0u);
    b->count = count;
}

static void spin_barrier_wait(spin_barrier *b)
{
    const unsigned generation = atomic_load_explicit(&b->generation, memory_order_acquire);
    if (atomic_fetch_add_explicit(&b->arrived, 1u, memory_order_acq_rel) + 1u == b->count) {
        atomic_store_explicit(&b->arrived, 0u, memory_order_relaxed);
        atomic_fetch_add_explicit(&b->generation, 1u, memory_order_release);
        return;
    }
    for (unsigned spins = 0; atomic_load_explicit(&b->generation, memory_order_acquire) == generation; ++spins)
        if (spins >= 1024u) sched_yield();
}

typedef struct crowd {
    const ossa_skeleton *skel;
    character *chars;
    size_t count;   /* characters in this cell */
    size_t threads; /* in this cell */
    size_t frames;
    size_t first_frame; /* frame index of the first frame run (time keeps advancing across runs) */
    double seconds;     /* of the last run, measured by thread 0 */
    bool free_running;  /* threads wait for each other after the last frame only */
    spin_barrier barrier;
} crowd;

static size_t align16(size_t n) { return (n + 15) & ~(size_t)15; }

/* --small-contexts: characters sample through the smallest contexts (no playback caches). */
static bool small_contexts;
/* ozz-animation 0.16's SamplingJob::Context for the 67-joint pab skeleton, in bytes, as
 * bench/compare.sh measures it (ozz_side.cc): a character of ozz holds three of them and the
 * same poses and matrices as ossa's. */
enum { OZZ_CONTEXT_PAB = 7897 };

/* Bytes of character k's three sampling contexts, each sized for the clip it plays, with the
 * playback cache (ossa_sampling_context_playback_size_for) or without it. */
static size_t context_bytes(const bench_clip *clips, size_t k, bool playback)
{
    size_t bytes = 0;
    for (size_t i = 0; i < PLAYED; ++i) {
        const ossa_animation *a = &clips[(k + i) % CLIPS].anim;
        bytes += align16(playback ? ossa_sampling_context_playback_size_for(a) : ossa_sampling_context_size_for(a));
    }
    return bytes;
}

/* State of character k: its three sampling contexts (with playback caches unless
 * --small-contexts), its poses and its
 * model matrices. */
static state_bytes character_bytes(const ossa_skeleton *skel, const bench_clip *clips, size_t k)
{
    const size_t pose = skel->soa_count * sizeof(ossa_soa_transform);
    return (state_bytes){context_bytes(clips, k, !small_contexts), (PLAYED + 1) * pose,
                         skel->joint_count * sizeof(ossa_float4x4)};
}

static uint32_t hash(uint32_t x)
{
    x ^= x >> 16, x *= 0x7feb352dU, x ^= x >> 15, x *= 0x846ca68bU, x ^= x >> 16;
    return x;
}

static bool character_init(character *ch, size_t k, const bench_clip *clips, const ossa_skeleton *skel)
{
    const state_bytes b = character_bytes(skel, clips, k);
    const size_t pose = skel->soa_count * sizeof(ossa_soa_transform);
    uint8_t *m = aligned_alloc(64, (b.contexts + b.poses + b.matrices + 63) & ~(size_t)63);
    if (!m) return false;
    ch->memory = m;
    static const float weights[3] = {.5f, .3f, .2f};
    for (size_t i = 0; i < PLAYED; ++i) {
        const bench_clip *c = &clips[(k + i) % CLIPS];
        const size_t ctx_size = small_contexts ? ossa_sampling_context_size_for(&c->anim)
                                               : ossa_sampling_context_playback_size_for(&c->anim);
        ch->ctx[i] = ossa_sampling_context_init_for(m, ctx_size, &c->anim);
        m += align16(ctx_size);
        ch->anim[i] = &c->anim;
        ch->offset[i] = (float)(hash((uint32_t)(k * PLAYED + i)) >> 8) * (1.f / 16777216.f) * c->anim.duration;
        ch->weight[i] = weights[(i + k) % 3];
    }
    for (size_t i = 0; i < PLAYED; ++i) ch->pose[i] = (ossa_soa_transform *)(void *)m, m += pose;
    ch->blended = (ossa_soa_transform *)(void *)m, m += pose;
    ch->models = (ossa_float4x4 *)(void *)m;
    return ch->ctx[0] && ch->ctx[1] && ch->ctx[2];
}

/* One frame of one character at `time` seconds. */
static void character_frame(const ossa_skeleton *skel, character *ch, float time)
{
    const size_t soa = skel->soa_count;
    ossa_blend_layer layers[PLAYED];
    for (size_t i = 0; i < PLAYED; ++i) {
        const float duration = ch->anim[i]->duration;
        const ossa_sampling_job job = {.animation = ch->anim[i],
                                       .context = ch->ctx[i],
                                       .ratio = fmodf(time + ch->offset[i], duration) / duration,
                                       .output = ch->pose[i],
                                       .output_count = soa,
                                       .rest_pose = skel->rest_pose,
                                       .rest_pose_count = soa};
        ossa_sampling_job_run(&job);
        layers[i] = (ossa_blend_layer){.weight = ch->weight[i], .transform = ch->pose[i], .transform_count = soa};
    }
    const ossa_blending_job blend = {.layers = layers,
                                     .layer_count = PLAYED,
                                     .rest_pose = skel->rest_pose,
                                     .rest_pose_count = soa,
                                     .output = ch->blended,
                                     .output_count = soa};
    ossa_blending_job_run(&blend);
    const ossa_local_to_model_job l2m = {.skeleton = skel,
                                         .input = ch->blended,
                                         .input_count = soa,
                                         .output = ch->models,
                                         .output_count = skel->joint_count};
    ossa_local_to_model_job_run(&l2m);
}

typedef struct worker {
    crowd *cr;
    size_t index;
    pthread_t thread;
} worker;

/* Thread `index`'s frames: its range of characters, then the frame's barrier. The first
 * barrier lines the threads up; thread 0 starts the clock after it and stops it after the
 * last frame's barrier, so thread creation and joining are not counted. */
static void run_frames(crowd *cr, size_t index)
{
    const size_t begin = cr->count * index / cr->threads, end = cr->count * (index + 1) / cr->threads;
    spin_barrier_wait(&cr->barrier);
    const double t0 = index == 0 ? tool_now() : 0.;
    for (size_t f = 0; f < cr->frames; ++f) {
        const float time = (float)(cr->first_frame + f) * (1.f / 60.f);
        for (size_t k = begin; k < end; ++k) character_frame(cr->skel, &cr->chars[k], time);
        if (!cr->free_running || f + 1 == cr->frames) spin_barrier_wait(&cr->barrier);
    }
    if (index == 0) cr->seconds = tool_now() - t0;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    run_frames(w->cr, w->index);
    return NULL;
}

/* Runs `frames` frames of the first `count` characters on `threads` threads; seconds. */
static double run_cell(crowd *cr, size_t count, size_t threads, size_t frames)
{
    cr->count = count, cr->threads = threads, cr->frames = frames;
    worker w[MAX_THREADS];
    spin_barrier_init(&cr->barrier, (unsigned)threads);
    for (size_t i = 1; i < threads; ++i) {
        w[i] = (worker){cr, i, 0};
        pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
    }
    run_frames(cr, 0);
    for (size_t i = 1; i < threads; ++i) pthread_join(w[i].thread, NULL);
    cr->first_frame += frames;
    return cr->seconds;
}

/* Comma-separated positive integers into `out` (at most MAX_LIST); 0 on a bad list. */
static size_t parse_list(const char *text, size_t *out)
{
    size_t n = 0;
    for (const char *p = text; *p && n < MAX_LIST;) {
        char *end;
        const long v = strtol(p, &end, 10);
        if (end == p || v <= 0 || v > 1000000) return 0;
        out[n++] = (size_t)v;
        if (*end == ',')
            ++end;
        else if (*end)
            return 0;
        p = end;
    }
    return n;
}

static int usage(void)
{
    fprintf(stderr, "usage: ossa-crowd [--shared DIR] [--threads LIST] [--characters LIST] [--seconds S] [--frames F]\n"
                    "                  [--repeat R] [--tsv FILE] [--free-running] [--small-contexts]\n"
                    "  --threads LIST     comma-separated thread counts (default 1 to the online cores)\n"
                    "  --characters LIST  comma-separated crowd sizes (default 1,10,100,1000)\n"
                    "  --seconds S        single-thread work per cell that sets its frame count (default 0.2)\n"
                    "  --frames F         fixed frame count per cell instead\n"
                    "  --repeat R         rounds per cell, one run per thread count each; medians (default 3)\n"
                    "  --tsv FILE         also write the table as tab-separated values\n"
                    "  --free-running     threads wait for each other after the last frame only, not\n"
                    "                     after every frame (what the frame barrier costs)\n"
                    "  --small-contexts   sampling contexts without playback caches (smallest state)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *shared = getenv("OSSA_SHARED_DATA") ? getenv("OSSA_SHARED_DATA") : "data";
    const char *tsv_path = NULL;
    size_t threads[MAX_LIST], sizes[MAX_LIST] = {1, 10, 100, 1000}, thread_count = 0, size_count = 4;
    size_t fixed_frames = 0, repeat = 3;
    double seconds = .2;
    bool free_running = false;
    const long cores = sysconf(_SC_NPROCESSORS_ONLN);
    for (int i = 1; i < argc; ++i) {
        const bool has_value = i + 1 < argc;
        if (!strcmp(argv[i], "--shared") && has_value)
            shared = argv[++i];
        else if (!strcmp(argv[i], "--threads") && has_value) {
            if (!(thread_count = parse_list(argv[++i], threads))) return usage();
        } else if (!strcmp(argv[i], "--characters") && has_value) {
            if (!(size_count = parse_list(argv[++i], sizes))) return usage();
        } else if (!strcmp(argv[i], "--seconds") && has_value) {
            seconds = strtod(argv[++i], NULL);
            if (!(seconds > 0. && seconds <= 60.)) return usage();
        } else if (!strcmp(argv[i], "--frames") && has_value) {
            fixed_frames = (size_t)strtoul(argv[++i], NULL, 10);
            if (fixed_frames == 0) return usage();
        } else if (!strcmp(argv[i], "--repeat") && has_value) {
            repeat = (size_t)strtoul(argv[++i], NULL, 10);
            if (repeat == 0 || repeat > 99) return usage();
        } else if (!strcmp(argv[i], "--tsv") && has_value)
            tsv_path = argv[++i];
        else if (!strcmp(argv[i], "--free-running"))
            free_running = true;
        else if (!strcmp(argv[i], "--small-contexts"))
            small_contexts = true;
        else
            return usage();
    }
    if (thread_count == 0)
        for (long t = 1; t <= (cores > 0 ? cores : 1) && thread_count < MAX_LIST; ++t)
            threads[thread_count++] = (size_t)t;
    for (size_t i = 0; i < thread_count; ++i)
        if (threads[i] > MAX_THREADS) return usage();

    static const char *const files[CLIPS] = {"ozz/pab_walk_raw.ozz", "ozz/pab_jog_raw.ozz", "ozz/pab_run_raw.ozz",
                                             "ozz/pab_atlas_raw.ozz"};
    char skel_path[4096], path[4096];
    snprintf(skel_path, sizeof skel_path, "%s/ozz/pab_skeleton.ozz", shared);
    bench_clip clips[CLIPS];
    for (size_t i = 0; i < CLIPS; ++i) {
        snprintf(path, sizeof path, "%s/%s", shared, files[i]);
        if (!bench_load(&clips[i], path, skel_path)) {
            fprintf(stderr, "ossa-crowd: %s could not be loaded (set OSSA_SHARED_DATA or --shared)\n", path);
            return 1;
        }
    }
    const ossa_skeleton *skel = &clips[0].skel;
    size_t max_count = 0;
    for (size_t i = 0; i < size_count; ++i) max_count = sizes[i] > max_count ? sizes[i] : max_count;
    crowd cr = {.skel = skel, .chars = calloc(max_count, sizeof(character)), .free_running = free_running};
    for (size_t k = 0; cr.chars && k < max_count; ++k)
        if (!character_init(&cr.chars[k], k, clips, skel)) return fprintf(stderr, "ossa-crowd: out of memory\n"), 1;

    FILE *tsv = tsv_path ? fopen(tsv_path, "w") : NULL;
    if (tsv_path && !tsv) return fprintf(stderr, "ossa-crowd: cannot write %s\n", tsv_path), 1;
    if (tsv) fprintf(tsv, "characters\tthreads\tframes\tcharacters_per_s\tjoints_per_s\tus_per_frame\tefficiency\n");
    if (free_running) printf("Free-running: the threads meet after the last frame only.\n\n");
    printf("| characters | threads | frames | characters/s | joints/s | µs/frame | efficiency vs 1 thread |\n"
           "|---:|---:|---:|---:|---:|---:|---:|\n");
    for (size_t si = 0; si < size_count; ++si) {
        const size_t n = sizes[si];
        /* Warm-up: binds every context, and fills its playback cache on its third frame
         * (ossa_sampling_job_run fills after two near steps in a row). */
        run_cell(&cr, n, 1, WARM_UP_FRAMES);
        size_t frames = fixed_frames;
        if (!frames) {
            /* Calibrated on at least 1/8 of the target time, so that the cache fills that
             * playback spreads over its frames (one per segment, every 16 time points of a
             * clip) weigh as in the timed runs, and a clock tick does not decide the count. */
            size_t probe = 4;
            double took = run_cell(&cr, n, 1, probe);
            while (took < seconds / 8. && probe < 1000000) probe *= 2, took = run_cell(&cr, n, 1, probe);
            frames = (size_t)fmax(3., fmin(1e6, seconds * (double)probe / fmax(took, 1e-9)));
        }
        /* Rounds of one run per thread count, in alternating order, so that the machine's
         * drift (other tenants, frequency) falls alike on the runs an efficiency compares: the
         * efficiency of a count is the median over rounds of its round's single-thread time
         * over T times its own. */
        double runs[MAX_LIST][99];
        for (size_t r = 0; r < repeat; ++r)
            for (size_t k = 0; k < thread_count; ++k) {
                const size_t ti = r % 2 ? thread_count - 1 - k : k;
                if (threads[ti] <= n) runs[ti][r] = run_cell(&cr, n, threads[ti], frames);
            }
        size_t one = thread_count;
        for (size_t ti = 0; ti < thread_count; ++ti)
            if (threads[ti] == 1) one = ti;
        for (size_t ti = 0; ti < thread_count; ++ti) {
            const size_t t = threads[ti];
            if (t > n) continue; /* a thread with no character */
            double ratio[99];
            for (size_t r = 0; r < repeat; ++r)
                ratio[r] = one < thread_count ? runs[one][r] / (runs[ti][r] * (double)t) : (double)NAN;
            qsort(ratio, repeat, sizeof *ratio, tool_compare_doubles);
            qsort(runs[ti], repeat, sizeof *runs[ti], tool_compare_doubles);
            const double s = runs[ti][repeat / 2], per_s = (double)(n * frames) / s, efficiency = ratio[repeat / 2];
            printf("| %zu | %zu | %zu | %.0f | %.3g | %.1f | %.2f |\n", n, t, frames, per_s,
                   per_s * (double)skel->joint_count, s / (double)frames * 1e6, efficiency);
            if (tsv)
                fprintf(tsv, "%zu\t%zu\t%zu\t%.1f\t%.1f\t%.3f\t%.4f\n", n, t, frames, per_s,
                        per_s * (double)skel->joint_count, s / (double)frames * 1e6, efficiency);
            fflush(stdout);
        }
    }
    /* Characters repeat their clips every CLIPS: the mean over CLIPS of them. */
    state_bytes b = {0, 0, 0};
    size_t lean = 0;
    for (size_t k = 0; k < CLIPS; ++k) {
        const state_bytes c = character_bytes(skel, clips, k);
        b.contexts += c.contexts, b.poses += c.poses, b.matrices += c.matrices;
        lean += context_bytes(clips, k, false);
    }
    b.contexts /= CLIPS, b.poses /= CLIPS, b.matrices /= CLIPS, lean /= CLIPS;
    printf("\nState per character (%zu joints, %zu SoA groups), mean: %zu B = 3 sampling contexts sized for their "
           "clips %s %zu B (without the caches: %zu B; sized for the skeleton: %zu B) + 4 SoA poses "
           "(3 sampled, 1 blended) %zu B + model matrices %zu B. Shared read-only: the skeleton and the clips (%zu B "
           "of animation blobs).\n",
           (size_t)skel->joint_count, (size_t)skel->soa_count, b.contexts + b.poses + b.matrices,
           small_contexts ? "without playback caches (--small-contexts)" : "with playback caches", b.contexts, lean,
           PLAYED * align16(ossa_sampling_context_size(skel->joint_count)), b.poses, b.matrices,
           clips[0].anim_blob.size + clips[1].anim_blob.size + clips[2].anim_blob.size + clips[3].anim_blob.size);
    const size_t ozz_state = PLAYED * (size_t)OZZ_CONTEXT_PAB + b.poses + b.matrices;
    printf("ozz-animation 0.16's equivalent: 3 SamplingJob contexts of %d B + the same poses and matrices = %zu B; "
           "ossa/ozz %.2f.\n",
           OZZ_CONTEXT_PAB, ozz_state, (double)(b.contexts + b.poses + b.matrices) / (double)ozz_state);
    if (tsv) fclose(tsv);
    for (size_t k = 0; k < max_count; ++k) free(cr.chars[k].memory);
    free(cr.chars);
    for (size_t i = 0; i < CLIPS; ++i) bench_unload(&clips[i]);
    return 0;
}
