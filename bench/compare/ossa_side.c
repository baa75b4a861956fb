/* ossa's side of bench/compare.sh: the measured loops of ossa-bench on baked .ossa archives,
 * one measure per run, so that compare.sh can run it under callgrind and interleave its timed
 * rounds with ozz_side.cc's and acl_side.cc's, which run the same loops.
 *
 *   ossa-compare run MEASURE CALLS A.ossa [B.ossa C.ossa]
 *     MEASURE: forward | random | l2m | blend | frame (blend and frame take walk, jog, run), or
 *     one of them with -small: the same loop with the smallest sampling contexts
 *     prints "calls N", "ns X" (thread CPU time per call of the measured loop), the context
 *     bytes and the per-character state bytes
 *   ossa-compare dump SOURCE [--skeleton FILE] -o OUT.keys
 *     SOURCE: a file ossa imports, or synthetic_1024 (bench/clips.h's generator); writes the
 *     imported skeleton and keys in the plain layout below, which ozz_side.cc turns into ozz
 *     archives so that all three libraries start from the same raw clip
 *
 * The loops (the definition the other two sides copy):
 *   forward  ratio = (i % steps) / (steps - 1), steps = duration * 60 + 1: 60 Hz, looping, with
 *            the context a player allocates (ossa_sampling_context_recommended_size_for: the
 *            playback cache where it pays), as every measure but those ending in -small
 *            (ossa_sampling_context_size_for)
 *   random   ratio = (xorshift32 >> 8) / 2^24, the generator seeded with 12345 at loop start
 *   l2m      local-to-model of the whole skeleton from the pose sampled at ratio 0
 *   blend    3 layers, weights .3 .3 .4, over the poses of walk, jog and run at ratio 0
 *   frame    the 3 clips sampled at walk's forward ratio, blended, local-to-model
 * Each run makes one untimed warm-up pass of the loop, then the measured pass: it alone is
 * bracketed by callgrind's start/stop requests and timed with CLOCK_THREAD_CPUTIME_ID.
 *
 * The .keys layout (little-endian, our own): "OSSAKEYS", u32 joints, f32 duration; per joint
 * i32 parent, u32 name length, the name bytes, f32[10] rest (translation, rotation x y z w,
 * scale); per joint u32 n, n x f32[4] translations (time, x, y, z); u32 n, n x f32[5]
 * rotations (time, x, y, z, w); u32 n, n x f32[4] scales. Times in seconds. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ossa/archive.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "clips.h"
#include "measure.h"
#include "tools.h"

typedef enum mode { FORWARD, RANDOM, LOCAL_TO_MODEL, BLEND, FRAME } mode;

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}

static double thread_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* One baked clip opened from its archive. */
typedef struct clip {
    void *bytes;
    ossa_skeleton skel;
    ossa_animation anim;
    void *ctx_mem;
    size_t ctx_size; /* bytes of ctx_mem */
    ossa_sampling_context *ctx;
    ossa_soa_transform *pose;
} clip;

static bool open_clip(clip *c, const char *path, bool small)
{
    size_t size;
    memset(c, 0, sizeof *c);
    ossa_archive ar;
    if (!(c->bytes = tool_read_file(path, &size))) return false;
    if (ossa_archive_init(&ar, c->bytes, size) != OSSA_OK || ossa_archive_skeleton(&ar, &c->skel) != OSSA_OK ||
        ossa_archive_animation(&ar, 0, &c->anim) != OSSA_OK) {
        fprintf(stderr, "ossa-compare: %s: not an archive with a skeleton and an animation\n", path);
        return false;
    }
    /* As a player sizes it (the playback cache where it pays), or `small`: the smallest context
     * for the clip. */
    c->ctx_size =
        small ? ossa_sampling_context_size_for(&c->anim) : ossa_sampling_context_recommended_size_for(&c->anim);
    c->ctx_mem = aligned_alloc(64, (c->ctx_size + 63) & ~(size_t)63);
    c->ctx = ossa_sampling_context_init_for(c->ctx_mem, c->ctx_size, &c->anim);
    c->pose = aligned_alloc(64, (c->skel.soa_count * sizeof *c->pose + 63) & ~(size_t)63);
    return c->ctx && c->pose;
}

static int run(mode m, bool small, size_t calls, int clip_count, char **paths)
{
    clip c[3];
    const int n = (m == BLEND || m == FRAME) ? 3 : 1;
    if (clip_count != n) return fprintf(stderr, "ossa-compare: this measure takes %d archive(s)\n", n), 2;
    for (int i = 0; i < n; ++i)
        if (!open_clip(&c[i], paths[i], small)) return 1;
    const ossa_skeleton *skel = &c[0].skel;
    const size_t soa = skel->soa_count;
    ossa_soa_transform *blended = aligned_alloc(16, soa * sizeof *blended);
    ossa_float4x4 *models = aligned_alloc(16, skel->joint_count * sizeof *models);
    ossa_sampling_job jobs[3];
    for (int i = 0; i < n; ++i) {
        jobs[i] = (ossa_sampling_job){&c[i].anim, c[i].ctx, 0.f, c[i].pose, soa, skel->rest_pose, soa};
        if (ossa_sampling_job_run(&jobs[i]) != OSSA_OK) return fprintf(stderr, "ossa-compare: sampling failed\n"), 1;
    }
    const ossa_blend_layer layers[3] = {{.3f, c[0].pose, soa, NULL, 0},
                                        {.3f, c[n > 1 ? 1 : 0].pose, soa, NULL, 0},
                                        {.4f, c[n > 2 ? 2 : 0].pose, soa, NULL, 0}};
    const ossa_blending_job blend = {0.f, layers, 3, NULL, 0, skel->rest_pose, soa, blended, soa};
    const ossa_local_to_model_job l2m = {
        skel, NULL, 0, 0, m == FRAME ? blended : c[0].pose, soa, models, skel->joint_count};
    const size_t steps = (size_t)(c[0].anim.duration * 60.f) + 1;
    double ns = 0.0;
    for (int pass = 0; pass < 2; ++pass) { /* 0: warm-up, 1: measured */
        uint32_t seed = 12345;
        const double t0 = thread_ns();
        if (pass == 1) MEASURE_START();
        for (size_t i = 0; i < calls; ++i) {
            switch (m) {
            case FORWARD:
                jobs[0].ratio = (float)(i % steps) / (float)(steps - 1);
                ossa_sampling_job_run(&jobs[0]);
                break;
            case RANDOM:
                jobs[0].ratio = (float)(next_random(&seed) >> 8) * (1.f / 16777216.f);
                ossa_sampling_job_run(&jobs[0]);
                break;
            case LOCAL_TO_MODEL:
                ossa_local_to_model_job_run(&l2m);
                break;
            case BLEND:
                ossa_blending_job_run(&blend);
                break;
            case FRAME:
                for (int k = 0; k < 3; ++k) {
                    jobs[k].ratio = (float)(i % steps) / (float)(steps - 1);
                    ossa_sampling_job_run(&jobs[k]);
                }
                ossa_blending_job_run(&blend);
                ossa_local_to_model_job_run(&l2m);
                break;
            }
        }
        if (pass == 1) MEASURE_STOP();
        ns = (thread_ns() - t0) / (double)calls;
    }
    /* A character playing 3 clips of this skeleton: 3 contexts of the size this run sampled
     * with, the 3 sampled poses and the blended one, and the model matrices. The context sizes
     * printed are the smallest and the one with the playback cache. */
    const size_t ctx_bytes = ossa_sampling_context_size_for(&c[0].anim);
    const size_t ctx_playback = ossa_sampling_context_playback_size_for(&c[0].anim);
    const size_t poses = 4 * soa * sizeof(ossa_soa_transform), mats = skel->joint_count * sizeof(ossa_float4x4);
    printf("calls %zu\nns %.3f\njoints %zu\ncontext_bytes %zu\ncontext_playback_bytes %zu\nstate_bytes %zu\nbytes %zu\n",
           calls, ns, skel->joint_count, ctx_bytes, ctx_playback,
           3 * c[0].ctx_size + poses + mats,
           ossa_animation_data_size(&c[0].anim));
    for (int i = 0; i < n; ++i) free(c[i].bytes), free(c[i].ctx_mem), free(c[i].pose);
    free(blended), free(models);
    return 0;
}

static void put_u32(FILE *f, uint32_t v) { fwrite(&v, 4, 1, f); }
static void put_floats(FILE *f, const float *v, size_t n) { fwrite(v, sizeof *v, n, f); }

static bool write_keys(const ossa_import_output *imp, const char *out)
{
    const ossa_raw_skeleton *s = &imp->skeleton;
    const ossa_raw_animation *a = &imp->animations[0];
    FILE *f = fopen(out, "wb");
    if (!f) return perror(out), false;
    fwrite("OSSAKEYS", 1, 8, f);
    put_u32(f, (uint32_t)s->joint_count);
    put_floats(f, &a->duration, 1);
    for (size_t j = 0; j < s->joint_count; ++j) {
        const ossa_raw_joint *jt = &s->joints[j];
        const int32_t parent = jt->parent;
        fwrite(&parent, 4, 1, f);
        const uint32_t len = (uint32_t)strlen(jt->name);
        put_u32(f, len);
        fwrite(jt->name, 1, len, f);
        const ossa_transform r = jt->rest;
        const float rest[10] = {r.translation.x, r.translation.y, r.translation.z, r.rotation.x, r.rotation.y,
                                r.rotation.z,    r.rotation.w,    r.scale.x,       r.scale.y,    r.scale.z};
        put_floats(f, rest, 10);
    }
    for (size_t j = 0; j < s->joint_count; ++j) {
        const ossa_raw_joint_track *t = &a->tracks[j];
        put_u32(f, (uint32_t)t->translation_count);
        for (size_t k = 0; k < t->translation_count; ++k) {
            const ossa_raw_float3_key *key = &t->translations[k];
            put_floats(f, (const float[4]){key->time, key->value.x, key->value.y, key->value.z}, 4);
        }
        put_u32(f, (uint32_t)t->rotation_count);
        for (size_t k = 0; k < t->rotation_count; ++k) {
            const ossa_raw_quat_key *key = &t->rotations[k];
            put_floats(f, (const float[5]){key->time, key->value.x, key->value.y, key->value.z, key->value.w}, 5);
        }
        put_u32(f, (uint32_t)t->scale_count);
        for (size_t k = 0; k < t->scale_count; ++k) {
            const ossa_raw_float3_key *key = &t->scales[k];
            put_floats(f, (const float[4]){key->time, key->value.x, key->value.y, key->value.z}, 4);
        }
    }
    const bool ok = !ferror(f);
    return (fclose(f) == 0 && ok) || (perror(out), false);
}

static int dump(int argc, char **argv)
{
    const char *source = NULL, *skeleton = NULL, *out = NULL;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton = argv[++i];
        else if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else
            source = argv[i];
    }
    if (!source || !out) return fprintf(stderr, "usage: ossa-compare dump SOURCE [--skeleton FILE] -o OUT.keys\n"), 2;
    bench_clip c;
    bool ok;
    if (!strncmp(source, "synthetic_", 10))
        ok = bench_synthetic(&c, (size_t)strtoul(source + 10, NULL, 10));
    else
        ok = bench_load(&c, source, skeleton);
    ok = ok && c.imp.animation_count > 0 && write_keys(&c.imp, out);
    bench_unload(&c);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"forward", "random", "l2m", "blend", "frame"};
    if (argc >= 2 && !strcmp(argv[1], "dump")) return dump(argc - 2, argv + 2);
    if (argc >= 5 && !strcmp(argv[1], "run")) {
        /* MEASURE-small: the same loop with the smallest contexts. */
        const size_t len = strlen(argv[2]);
        const bool small = len > 6 && !strcmp(argv[2] + len - 6, "-small");
        for (int m = 0; m < (int)(sizeof names / sizeof *names); ++m)
            if (strlen(names[m]) == (small ? len - 6 : len) && !strncmp(argv[2], names[m], strlen(names[m])))
                return run((mode)m, small, strtoul(argv[3], NULL, 10), argc - 4, argv + 4);
    }
    fprintf(stderr, "usage: ossa-compare run forward|random|l2m|blend|frame[-small] CALLS A.ossa [B.ossa C.ossa]\n"
                    "       ossa-compare dump SOURCE [--skeleton FILE] -o OUT.keys\n");
    return 2;
}
