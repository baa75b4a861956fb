/* ossa bench FILE.ossa: sampling throughput of any archive's clips, for the people who measure
 * the runtime on their own assets. Per clip: forward and backward playback at 60 Hz (looping)
 * with a playback-cache context and with the smallest context, random ratios (xorshift32 seeded
 * 12345, the sequence bench/ uses), local-to-model of the sampled pose, and a blend of the
 * archive's clips. Times are thread CPU time (CLOCK_THREAD_CPUTIME_ID where the platform has it,
 * else the monotonic clock), per call, as the median over rounds with the rounds' spread; with
 * --threads N every thread runs the same loop on its own context and output at once. --simd
 * runs the whole table once per SIMD path the CPU has, each in a child process started with
 * OSSA_SIMD set (the runtime picks its path at first use). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "ossa/simd_level.h"
#include "tools.h"

#if defined(OSSA_HAVE_PTHREADS)
#include <pthread.h>
#endif
#if defined(__unix__) || defined(__APPLE__)
#include <sys/wait.h>
#include <unistd.h>
#define BENCH_HAVE_SPAWN 1
#endif

#define BENCH_MAX_ROUNDS  99
#define BENCH_MAX_THREADS 64
#define BENCH_MAX_LAYERS  3

typedef enum measure_kind { FORWARD, BACKWARD, RANDOM, LOCAL_TO_MODEL, BLEND, MEASURE_COUNT } measure_kind;

typedef struct measure_def {
    measure_kind kind;
    bool playback; /* sampling with the playback cache; else the smallest context */
    const char *name;
} measure_def;

static const measure_def measures[] = {
    {FORWARD, true, "forward"},   {FORWARD, false, "forward, small context"},
    {BACKWARD, true, "backward"}, {RANDOM, false, "random"},
    {LOCAL_TO_MODEL, false, "local-to-model"}, {BLEND, false, "blend"},
};
#define MEASURE_DEF_COUNT (sizeof measures / sizeof *measures)

typedef struct bench_options {
    unsigned rounds;
    double seconds; /* per measure, all rounds together */
    unsigned threads;
    long clip;      /* -1: every clip */
} bench_options;

/* What one thread needs for one measure: its own context, pose, matrices. */
typedef struct worker {
    const ossa_skeleton *skel;
    const ossa_animation *anim;
    const measure_def *def;
    const ossa_blend_layer *layers;
    size_t layer_count;
    void *context_memory;
    ossa_sampling_context *context;
    size_t context_bytes;
    ossa_soa_transform *pose;
    ossa_float4x4 *matrices;
    size_t calls;
    uint32_t rng;
    size_t step;    /* the position in a forward or backward loop */
    double seconds; /* thread CPU time of the last run */
    bool failed;
} worker;

static double thread_seconds(void)
{
#if defined(CLOCK_THREAD_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
#endif
    return tool_now();
}

static uint32_t xorshift32(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *state = x;
}

/* The steps of a 60 Hz loop over the clip (at least 2). */
static size_t loop_steps(const ossa_animation *anim)
{
    const double frames = (double)anim->duration * 60.0;
    return frames < 36000.0 ? (size_t)frames + 1 : 36001;
}

static ossa_result sample(worker *w, float ratio)
{
    const ossa_sampling_job job = {.animation = w->anim,
                                   .context = w->context,
                                   .ratio = ratio,
                                   .output = w->pose,
                                   .output_count = w->skel->soa_count,
                                   .rest_pose = w->skel->rest_pose,
                                   .rest_pose_count = w->skel->soa_count};
    return ossa_sampling_job_run(&job);
}

/* Runs w->calls calls of w's measure and records their thread CPU time. */
static void run_worker(worker *w)
{
    const size_t steps = loop_steps(w->anim);
    const float last = (float)(steps - 1);
    ossa_result r = OSSA_OK;
    const double t0 = thread_seconds();
    switch (w->def->kind) {
    case FORWARD:
        for (size_t i = 0; i < w->calls && !r; ++i, w->step = (w->step + 1) % steps)
            r = sample(w, (float)w->step / last);
        break;
    case BACKWARD:
        for (size_t i = 0; i < w->calls && !r; ++i, w->step = (w->step + 1) % steps)
            r = sample(w, (float)(steps - 1 - w->step) / last);
        break;
    case RANDOM:
        for (size_t i = 0; i < w->calls && !r; ++i)
            r = sample(w, (float)(xorshift32(&w->rng) >> 8) * (1.f / 16777216.f));
        break;
    case LOCAL_TO_MODEL: {
        const ossa_local_to_model_job job = {.skeleton = w->skel,
                                             .input = w->pose,
                                             .input_count = w->skel->soa_count,
                                             .output = w->matrices,
                                             .output_count = w->skel->joint_count};
        for (size_t i = 0; i < w->calls && !r; ++i) r = ossa_local_to_model_job_run(&job);
        break;
    }
    case BLEND: {
        const ossa_blending_job job = {.layers = w->layers,
                                       .layer_count = w->layer_count,
                                       .rest_pose = w->skel->rest_pose,
                                       .rest_pose_count = w->skel->soa_count,
                                       .output = w->pose,
                                       .output_count = w->skel->soa_count};
        for (size_t i = 0; i < w->calls && !r; ++i) r = ossa_blending_job_run(&job);
        break;
    }
    case MEASURE_COUNT:
        break;
    }
    w->seconds = thread_seconds() - t0;
    if (r != OSSA_OK) w->failed = true;
}

#if defined(OSSA_HAVE_PTHREADS)
static void *worker_main(void *p)
{
    run_worker(p);
    return NULL;
}
#endif

/* Runs every worker once, on threads when there are several (each times itself). */
static void run_workers(worker *ws, unsigned n)
{
#if defined(OSSA_HAVE_PTHREADS)
    pthread_t th[BENCH_MAX_THREADS];
    unsigned started = 0;
    for (unsigned i = 1; i < n; ++i, ++started)
        if (pthread_create(&th[i], NULL, worker_main, &ws[i]) != 0) break;
    run_worker(&ws[0]);
    for (unsigned i = 1; i <= started; ++i) pthread_join(th[i], NULL);
    for (unsigned i = started + 1; i < n; ++i) ws[i].failed = true;
#else
    for (unsigned i = 0; i < n; ++i) run_worker(&ws[i]);
#endif
}

static bool worker_init(worker *w, const ossa_skeleton *skel, const ossa_animation *anim, const measure_def *def,
                        const ossa_blend_layer *layers, size_t layer_count)
{
    *w = (worker){.skel = skel, .anim = anim, .def = def, .layers = layers, .layer_count = layer_count,
                  .rng = 12345u};
    const bool samples = def->kind == FORWARD || def->kind == BACKWARD || def->kind == RANDOM;
    w->pose = aligned_alloc(16, skel->soa_count * sizeof *w->pose);
    w->matrices = aligned_alloc(16, (skel->joint_count ? skel->joint_count : 1) * sizeof *w->matrices);
    if (!w->pose || !w->matrices) return false;
    /* Every measure starts from the clip's pose at ratio 0 (local-to-model converts it). */
    const size_t bytes = def->playback ? ossa_sampling_context_playback_size_for(anim)
                                       : ossa_sampling_context_size_for(anim);
    w->context_memory = aligned_alloc(16, (bytes + 15) / 16 * 16);
    w->context = w->context_memory ? ossa_sampling_context_init_for(w->context_memory, bytes, anim) : NULL;
    if (!w->context) return false;
    w->context_bytes = samples ? bytes : 0;
    return sample(w, 0.f) == OSSA_OK;
}

static void worker_free(worker *w)
{
    free(w->context_memory);
    free(w->pose);
    free(w->matrices);
}

typedef struct result_row {
    const char *measure;
    double ns_median, ns_min, ns_max; /* per call, thread CPU time */
    double joints_per_second;         /* all threads together, per second of thread CPU time each */
    size_t context_bytes;             /* per thread; 0 when the measure samples nothing */
} result_row;

/* Measures one row: calibrates the call count on a first run, then `rounds` runs of all threads. */
static bool measure_row(const ossa_skeleton *skel, const ossa_animation *anim, const measure_def *def,
                        const ossa_blend_layer *layers, size_t layer_count, const bench_options *o, result_row *row)
{
    worker ws[BENCH_MAX_THREADS];
    unsigned made = 0;
    bool ok = true;
    for (; made < o->threads && ok; ++made) ok = worker_init(&ws[made], skel, anim, def, layers, layer_count);
    double per_round[BENCH_MAX_ROUNDS];
    size_t calls = 1;
    if (ok) {
        /* Calibrate: double the calls until a run takes 1/20 of a round, then scale. */
        const double round_seconds = o->seconds / (double)o->rounds;
        for (;;) {
            for (unsigned i = 0; i < made; ++i) ws[i].calls = calls;
            /* The wall clock bounds the calibration too, where a thread's CPU clock is coarse
             * or does not advance (some emulators). */
            const double w0 = tool_now();
            run_workers(ws, made);
            if (ws[0].failed || ws[0].seconds >= round_seconds / 20.0 || tool_now() - w0 >= round_seconds ||
                calls >= ((size_t)1 << 30))
                break;
            calls *= 2;
        }
        if (ws[0].seconds > 0.0 && ws[0].seconds >= round_seconds / 20.0) {
            const double scaled = (double)calls * round_seconds / ws[0].seconds;
            calls = scaled < 1.0 ? 1 : scaled > 1e9 ? (size_t)1e9 : (size_t)scaled;
        }
        for (unsigned r = 0; r < o->rounds && ok; ++r) {
            for (unsigned i = 0; i < made; ++i) ws[i].calls = calls;
            run_workers(ws, made);
            double thread_ns[BENCH_MAX_THREADS];
            for (unsigned i = 0; i < made; ++i) {
                ok = ok && !ws[i].failed;
                thread_ns[i] = ws[i].seconds * 1e9 / (double)calls;
            }
            qsort(thread_ns, made, sizeof *thread_ns, tool_compare_doubles);
            per_round[r] = thread_ns[made / 2];
        }
    }
    if (ok) {
        qsort(per_round, o->rounds, sizeof *per_round, tool_compare_doubles);
        const double ns = per_round[o->rounds / 2];
        *row = (result_row){.measure = def->name,
                            .ns_median = ns,
                            .ns_min = per_round[0],
                            .ns_max = per_round[o->rounds - 1],
                            .joints_per_second = ns > 0.0 ? (double)made * (double)skel->joint_count * 1e9 / ns : 0.0,
                            .context_bytes = ws[0].context_bytes};
    }
    for (unsigned i = 0; i < made; ++i) worker_free(&ws[i]);
    return ok;
}

/* The poses the blend mixes: the archive's first clips (up to three) at ratio 0.5, or, with one
 * clip, that clip at ratios 0.25 and 0.75; equal weights. */
static size_t blend_layers(const ossa_archive *ar, const ossa_skeleton *skel, size_t anim_count,
                           ossa_soa_transform *poses[BENCH_MAX_LAYERS], ossa_blend_layer layers[BENCH_MAX_LAYERS])
{
    const size_t n = anim_count >= 2 ? (anim_count < BENCH_MAX_LAYERS ? anim_count : BENCH_MAX_LAYERS) : 2;
    for (size_t l = 0; l < n; ++l) {
        ossa_animation anim;
        if (ossa_archive_animation(ar, anim_count >= 2 ? l : 0, &anim) != OSSA_OK || anim.track_count != skel->joint_count)
            return 0;
        worker w;
        const measure_def def = {RANDOM, false, ""};
        if (!worker_init(&w, skel, &anim, &def, NULL, 0) ||
            sample(&w, anim_count >= 2 ? 0.5f : 0.25f + 0.5f * (float)l) != OSSA_OK) {
            worker_free(&w);
            return 0;
        }
        poses[l] = w.pose;
        w.pose = NULL;
        worker_free(&w);
        layers[l] = (ossa_blend_layer){.weight = 1.f / (float)n, .transform = poses[l], .transform_count = skel->soa_count};
    }
    return n;
}

static void print_row(FILE *f, const result_row *row, size_t joints)
{
    const double spread = row->ns_median > 0.0 ? 100.0 * (row->ns_max - row->ns_min) / row->ns_median : 0.0;
    fprintf(f, "  %-24s %10.0f %7.1f%% %9.2f %13.3g", row->measure, row->ns_median, spread,
            row->ns_median / (double)(joints ? joints : 1), row->joints_per_second);
    if (row->context_bytes)
        fprintf(f, " %10zu\n", row->context_bytes);
    else
        fprintf(f, " %10s\n", "-");
}

static void json_row(FILE *f, const result_row *row, size_t joints, bool last)
{
    fprintf(f,
            "        {\"measure\": \"%s\", \"ns_per_call\": %.3f, \"ns_per_call_min\": %.3f, \"ns_per_call_max\": %.3f, "
            "\"ns_per_joint\": %.3f, \"joints_per_second\": %.0f, \"context_bytes\": %zu}%s\n",
            row->measure, row->ns_median, row->ns_min, row->ns_max, row->ns_median / (double)(joints ? joints : 1),
            row->joints_per_second, row->context_bytes, last ? "" : ",");
}

/* JSON string contents of `s`: quotes, backslashes and control characters escaped; bytes that
 * are not ASCII are written as they are (names in archives are UTF-8). */
static void json_string(FILE *f, const char *s)
{
    for (; *s; ++s) {
        const unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
}

/* The instruction set the jobs run on (the dispatch's choice, made at the first use). */
static const char *simd_path_name(void) { return ossa_simd_string(ossa_simd_level()); }

/* The OSSA_SIMD value a --simd child was started with ("" when none). */
static const char *simd_requested(void)
{
    const char *forced = getenv("OSSA_SIMD");
    return forced ? forced : "";
}

/* The whole table for one SIMD path; `json` may be NULL. Returns the exit status. */
static int bench_archive(const char *path, const bench_options *o, FILE *json)
{
    size_t size = 0;
    void *data = tool_read_file(path, &size);
    if (!data) return 1;
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_result r = ossa_archive_init(&ar, data, size);
    if (r == OSSA_OK) r = ossa_archive_skeleton(&ar, &skel);
    if (r != OSSA_OK) {
        fprintf(stderr, "ossa: %s: %s (%s)\n", path, ossa_result_string(r), ossa_result_name(r));
        free(data);
        return 1;
    }
    const size_t anim_count = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    if (o->clip >= 0 && (size_t)o->clip >= anim_count) {
        fprintf(stderr, "ossa: bench: --clip %ld: %s has %zu clips (0 to %zu)\n", o->clip, path, anim_count,
                anim_count ? anim_count - 1 : 0);
        free(data);
        return 2;
    }
    ossa_soa_transform *poses[BENCH_MAX_LAYERS] = {0};
    ossa_blend_layer layers[BENCH_MAX_LAYERS];
    const size_t layer_count = anim_count ? blend_layers(&ar, &skel, anim_count, poses, layers) : 0;
    printf("%s: %zu joints, %zu clips; SIMD path %s; %u thread%s, %u rounds, thread CPU time per call\n", path,
           skel.joint_count, anim_count, simd_path_name(), o->threads, o->threads == 1 ? "" : "s", o->rounds);
    if (*simd_requested() && strcmp(simd_requested(), simd_path_name()))
        printf("note: OSSA_SIMD=%s asked for a copy of the jobs this build or CPU does not have\n", simd_requested());
    if (json)
        fprintf(json,
                "    {\"simd\": \"%s\", \"requested\": \"%s\", \"threads\": %u, \"rounds\": %u, \"joints\": %zu, "
                "\"clips\": [\n",
                simd_path_name(), simd_requested(), o->threads, o->rounds, skel.joint_count);
    int status = 0;
    bool first_clip = true;
    for (size_t a = 0; a < anim_count && !status; ++a) {
        if (o->clip >= 0 && (size_t)o->clip != a) continue;
        ossa_animation anim;
        if ((r = ossa_archive_animation(&ar, a, &anim)) != OSSA_OK) {
            fprintf(stderr, "ossa: %s: animation %zu: %s (%s)\n", path, a, ossa_result_string(r), ossa_result_name(r));
            status = 1;
            break;
        }
        if (anim.track_count != skel.joint_count) {
            fprintf(stderr, "ossa: %s: animation %zu has %zu tracks for %zu joints: skipped\n", path, a,
                    anim.track_count, skel.joint_count);
            continue;
        }
        printf("\nclip %zu \"%s\" (%.3f s)\n  %-24s %10s %8s %9s %13s %10s\n", a, anim.name, (double)anim.duration,
               "measure", "ns/call", "spread", "ns/joint", "joints/s", "context B");
        if (json) {
            fprintf(json, "%s      {\"index\": %zu, \"name\": \"", first_clip ? "" : ",\n", a);
            json_string(json, anim.name);
            fprintf(json, "\", \"duration\": %.6f, \"measures\": [\n", (double)anim.duration);
        }
        first_clip = false;
        result_row rows[MEASURE_DEF_COUNT];
        size_t row_count = 0;
        for (size_t m = 0; m < MEASURE_DEF_COUNT; ++m) {
            if (measures[m].kind == BLEND && !layer_count) continue;
            if (!measure_row(&skel, &anim, &measures[m], layers, layer_count, o, &rows[row_count])) {
                fprintf(stderr, "ossa: %s: clip %zu: %s failed (out of memory or a job error)\n", path, a,
                        measures[m].name);
                status = 1;
                break;
            }
            print_row(stdout, &rows[row_count++], skel.joint_count);
            fflush(stdout);
        }
        for (size_t i = 0; json && i < row_count; ++i) json_row(json, &rows[i], skel.joint_count, i + 1 == row_count);
        if (json) fprintf(json, "      ]}");
    }
    if (json) fprintf(json, "\n    ]}");
    for (size_t l = 0; l < BENCH_MAX_LAYERS; ++l) free(poses[l]);
    free(data);
    return status;
}

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ossa bench FILE.ossa [--clip N] [--rounds N] [--seconds S] [--threads N] [--simd PATHS]\n"
            "                  [--json OUT.json]\n"
            "  Sampling throughput of every clip of an archive: forward and backward playback at 60 Hz\n"
            "  (looping), random ratios, local-to-model and a blend of the archive's clips; ns per call and\n"
            "  per joint (thread CPU time, median over rounds and threads, spread = (max - min) / median),\n"
            "  joints per second of CPU time summed over the threads, and the sampling context's bytes.\n"
            "  --clip N        only clip N (0-based)\n"
            "  --rounds N      rounds per measure, 3 to %d (default 7)\n"
            "  --seconds S     seconds per measure, all rounds together, 0.01 to 60 (default 0.35)\n"
            "  --threads N     run each measure on N threads at once, each with its own context (default 1)\n"
            "  --simd PATHS    sse2, avx2 or all (comma-separated): the table once per SIMD path, each in a\n"
            "                  process started with OSSA_SIMD set; default: the path the runtime picks\n"
            "  --json OUT.json the same figures as JSON\n",
            BENCH_MAX_ROUNDS);
}

static bool parse_unsigned(const char *text, unsigned lo, unsigned hi, unsigned *value)
{
    char *end;
    errno = 0;
    const unsigned long v = strtoul(text, &end, 10);
    if (errno || end == text || *end || *text == '-' || v < lo || v > hi) return false;
    *value = (unsigned)v;
    return true;
}

/* The SIMD paths this CPU can run, as OSSA_SIMD values. */
static size_t cpu_paths(const char *paths[2])
{
    size_t n = 0;
#if defined(__x86_64__) || defined(_M_X64)
    paths[n++] = "sse2";
#if defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("bmi2"))
        paths[n++] = "avx2";
#endif
#endif
    return n;
}

#if defined(BENCH_HAVE_SPAWN)
/* Runs this program again with OSSA_SIMD=path and `args`; its exit status. */
static int run_child(const char *path, char **args)
{
    fflush(stdout);
    const pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        setenv("OSSA_SIMD", path, 1);
        execv("/proc/self/exe", args);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}
#endif

int tool_bench(int argc, char **argv)
{
    bench_options o = {.rounds = 7, .seconds = 0.35, .threads = 1, .clip = -1};
    const char *path = NULL, *json_path = NULL, *simd = NULL, *part_path = NULL;
    for (int i = 0; i < argc; ++i) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        unsigned u;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--rounds") && v && parse_unsigned(v, 3, BENCH_MAX_ROUNDS, &u)) {
            o.rounds = u, ++i;
        } else if (!strcmp(a, "--threads") && v && parse_unsigned(v, 1, BENCH_MAX_THREADS, &u)) {
            o.threads = u, ++i;
        } else if (!strcmp(a, "--clip") && v && parse_unsigned(v, 0, 1u << 30, &u)) {
            o.clip = (long)u, ++i;
        } else if (!strcmp(a, "--seconds") && v) {
            char *end;
            const double s = strtod(v, &end);
            if (end == v || *end || !(s >= 0.01 && s <= 60.0))
                return tool_usage_error("bench", "--seconds needs seconds from 0.01 to 60 (found \"%s\")", v);
            o.seconds = s, ++i;
        } else if (!strcmp(a, "--json") && v) {
            json_path = v, ++i;
        } else if (!strcmp(a, "--simd") && v) {
            simd = v, ++i;
        } else if (!strcmp(a, "--json-part") && v) { /* internal: one run's object, for --simd */
            part_path = v, ++i;
        } else if (a[0] == '-' || path) {
            return tool_usage_error("bench", "%s \"%s\"%s",
                                    a[0] == '-' ? "unknown option or bad value:" : "extra argument", a,
                                    a[0] == '-' && !v ? " (missing value)" : "");
        } else {
            path = a;
        }
    }
    if (!path) {
        return tool_usage_error("bench", "expected an archive (FILE.ossa)");
    }
#if !defined(OSSA_HAVE_PTHREADS)
    if (o.threads > 1) {
        fprintf(stderr, "ossa: bench: --threads needs POSIX threads, which this build lacks\n");
        return 2;
    }
#endif
    if (simd) {
        const char *have[2];
        const size_t have_count = cpu_paths(have);
        const char *want[2];
        size_t want_count = 0;
        if (!strcmp(simd, "all")) {
            for (size_t i = 0; i < have_count; ++i) want[want_count++] = have[i];
        } else {
            char list[64];
            snprintf(list, sizeof list, "%s", simd);
            for (char *save = NULL, *t = strtok_r(list, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t k = 0;
                while (k < have_count && strcmp(have[k], t)) ++k;
                if (k == have_count || want_count == 2) {
                    fprintf(stderr, "ossa: bench: --simd: \"%s\" is not a path this CPU runs (it has:%s%s%s%s)\n", t,
                            have_count ? " " : " none to choose from", have_count ? have[0] : "",
                            have_count > 1 ? ", " : "", have_count > 1 ? have[1] : "");
                    return 2;
                }
                want[want_count++] = have[k];
            }
        }
        if (!want_count) {
            fprintf(stderr, "ossa: bench: --simd: this CPU offers no choice of SIMD path\n");
            return 2;
        }
#if defined(BENCH_HAVE_SPAWN)
        /* Each path in a child: the same arguments without --simd, with --json-part for JSON. */
        char *args[64];
        int n = 0;
        args[n++] = "ossa";
        args[n++] = "bench";
        for (int i = 0; i < argc && n < 56; ++i) {
            if (!strcmp(argv[i], "--simd") || !strcmp(argv[i], "--json")) {
                ++i;
                continue;
            }
            args[n++] = argv[i];
        }
        char part[4096] = "";
        if (json_path) snprintf(part, sizeof part, "%s.part", json_path);
        FILE *json = json_path ? fopen(json_path, "w") : NULL;
        if (json_path && !json) {
            fprintf(stderr, "ossa: %s: cannot write: %s\n", json_path, strerror(errno));
            return 1;
        }
        if (json) fprintf(json, "{\n  \"archive\": \""), json_string(json, path), fprintf(json, "\",\n  \"runs\": [\n");
        int status = 0;
        for (size_t p = 0; p < want_count && !status; ++p) {
            int m = n;
            if (json) args[m++] = "--json-part", args[m++] = part;
            args[m] = NULL;
            if (p) printf("\n");
            status = run_child(want[p], args);
            if (json && !status) {
                size_t len;
                char *text = tool_read_file(part, &len);
                if (text) fprintf(json, "%s%.*s", p ? ",\n" : "", (int)len, text);
                free(text);
                remove(part);
            }
        }
        if (json) fprintf(json, "\n  ]\n}\n"), fclose(json);
        return status;
#else
        fprintf(stderr, "ossa: bench: --simd needs a POSIX system; set OSSA_SIMD instead\n");
        return 2;
#endif
    }
    /* One path: the table, and the JSON document (or, in a --simd child, its run object). */
    const char *out_path = part_path ? part_path : json_path;
    FILE *json = NULL;
    if (out_path && !(json = fopen(out_path, "w"))) {
        fprintf(stderr, "ossa: %s: cannot write: %s\n", out_path, strerror(errno));
        return 1;
    }
    if (json && !part_path) fprintf(json, "{\n  \"archive\": \""), json_string(json, path), fprintf(json, "\",\n  \"runs\": [\n");
    const int status = bench_archive(path, &o, json);
    if (json && !part_path) fprintf(json, "\n  ]\n}\n");
    if (json && fclose(json) != 0 && !status) {
        fprintf(stderr, "ossa: %s: write failed\n", out_path);
        return 1;
    }
    if (json && status) remove(out_path);
    return status;
}
