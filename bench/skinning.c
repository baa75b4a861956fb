/* Skinning job measures next to ozz-animation's SkinningJob figures (docs/benchmarks.md):
 * 10,000 vertices, the 67-joint pab palette (walk pose at mid-clip times inverse bind), 1, 2
 * and 4 influences, positions only and positions + normals + tangents.
 *
 *   ossa-bench-skinning [--shared DIR] [--only N] [--list] [--simd]
 *
 * Wall-clock figures are medians of 9 repetitions, in ns per vertex. Under
 * `valgrind --tool=callgrind --instr-atstart=no ossa-bench-skinning --only N`
 * (bench/callgrind_skinning.sh) only the middle repetition is instrumented; Ir per vertex is
 * the run's Ir over the "vertices" line printed (calls x vertex count). Without the pab files
 * the palette is a synthetic 67-joint one (said on stderr); instruction counts do not depend on
 * the palette's values. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/local_to_model_job.h"
#include "ossa/offline/builders.h"
#include "ossa/sampling_job.h"
#include "ossa/skinning_job.h"
#include "tools.h"

#include "measure.h"

#define VERTICES 10000
#define JOINTS   67
#define CALLS    20

typedef enum layout { PACKED, INTERLEAVED } layout;

typedef struct measure {
    const char *label;
    ossa_skinning_method method;
    size_t influences;
    bool nt; /* normals and tangents too */
    layout layout;
    double ozz_ir, ozz_ns; /* per vertex; 0: no reference */
} measure;

static const measure measures[] = {
    {"linear, 1 influence, P", OSSA_SKINNING_LINEAR, 1, false, PACKED, 24, .79},
    {"linear, 1 influence, PNT", OSSA_SKINNING_LINEAR, 1, true, PACKED, 59, 2.27},
    {"linear, 2 influences, P", OSSA_SKINNING_LINEAR, 2, false, PACKED, 52, 1.74},
    {"linear, 2 influences, PNT", OSSA_SKINNING_LINEAR, 2, true, PACKED, 89, 3.18},
    {"linear, 4 influences, P", OSSA_SKINNING_LINEAR, 4, false, PACKED, 86, 3.36},
    {"linear, 4 influences, PNT", OSSA_SKINNING_LINEAR, 4, true, PACKED, 125, 4.63},
    {"linear, 4 influences, P, interleaved", OSSA_SKINNING_LINEAR, 4, false, INTERLEAVED, 0, 0},
    {"linear, 4 influences, PNT, interleaved", OSSA_SKINNING_LINEAR, 4, true, INTERLEAVED, 0, 0},
    {"dual quat, 1 influence, P", OSSA_SKINNING_DUAL_QUAT, 1, false, PACKED, 0, 0},
    {"dual quat, 1 influence, PNT", OSSA_SKINNING_DUAL_QUAT, 1, true, PACKED, 0, 0},
    {"dual quat, 2 influences, P", OSSA_SKINNING_DUAL_QUAT, 2, false, PACKED, 0, 0},
    {"dual quat, 2 influences, PNT", OSSA_SKINNING_DUAL_QUAT, 2, true, PACKED, 0, 0},
    {"dual quat, 4 influences, P", OSSA_SKINNING_DUAL_QUAT, 4, false, PACKED, 0, 0},
    {"dual quat, 4 influences, PNT", OSSA_SKINNING_DUAL_QUAT, 4, true, PACKED, 0, 0},
};
#define MEASURE_COUNT (sizeof measures / sizeof *measures)

/* 16-byte aligned memory; C11's aligned_alloc wants a size that is a multiple of 16. */
static void *alloc16(size_t size) { return aligned_alloc(16, (size + 15) & ~(size_t)15); }

static uint32_t next_random(uint32_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 17, *s ^= *s << 5;
    return *s;
}
static float random_in(uint32_t *s, float lo, float hi)
{
    return lo + (hi - lo) * (float)(next_random(s) >> 8) * (1.f / 16777216.f);
}

/* Inverse of an affine matrix (3x3 by cofactors, then the translation). */
static ossa_float4x4 affine_inverse(const ossa_float4x4 *m)
{
    const float(*c)[4] = m->cols;
    const float a = c[0][0], b = c[1][0], cc = c[2][0], d = c[0][1], e = c[1][1], f = c[2][1], g = c[0][2], h = c[1][2],
                i = c[2][2];
    const float A = e * i - f * h, B = -(d * i - f * g), C = d * h - e * g;
    const float det = a * A + b * B + cc * C, inv = 1.f / det;
    float r[3][3]; /* r[row][col] of the inverse */
    r[0][0] = A * inv, r[0][1] = -(b * i - cc * h) * inv, r[0][2] = (b * f - cc * e) * inv;
    r[1][0] = B * inv, r[1][1] = (a * i - cc * g) * inv, r[1][2] = -(a * f - cc * d) * inv;
    r[2][0] = C * inv, r[2][1] = -(a * h - b * g) * inv, r[2][2] = (a * e - b * d) * inv;
    ossa_float4x4 o = ossa_float4x4_identity();
    for (int row = 0; row < 3; ++row) {
        for (int col = 0; col < 3; ++col) o.cols[col][row] = r[row][col];
        o.cols[3][row] = -(r[row][0] * c[3][0] + r[row][1] * c[3][1] + r[row][2] * c[3][2]);
    }
    return o;
}

/* The walk pose's model matrices times the inverse of the rest pose's; false when the files
 * cannot be read (the caller then uses a synthetic palette). */
static bool pab_palette(const char *shared, ossa_float4x4 *palette, ossa_dual_quat *dqs)
{
    if (!shared || !*shared) return false;
    char walk[4096], skel_path[4096];
    snprintf(walk, sizeof walk, "%s/ozz/pab_walk_raw.ozz", shared);
    snprintf(skel_path, sizeof skel_path, "%s/ozz/pab_skeleton.ozz", shared);
    ossa_import_output imp = {0};
    ossa_blob skel_blob = {0}, anim_blob = {0};
    ossa_skeleton skel;
    ossa_animation anim;
    bool ok = tool_import(walk, false, &imp) && tool_attach_skeleton(skel_path, &imp) && imp.animation_count > 0 &&
              ossa_skeleton_build(&imp.skeleton, NULL, &skel_blob, NULL) == OSSA_OK &&
              ossa_skeleton_init(&skel, skel_blob.data, skel_blob.size) == OSSA_OK && skel.joint_count == JOINTS;
    const ossa_animation_build_desc desc = {.skeleton = &imp.skeleton};
    ok = ok && ossa_animation_build(&imp.animations[0], &desc, &anim_blob, NULL) == OSSA_OK &&
         ossa_animation_init(&anim, anim_blob.data, anim_blob.size) == OSSA_OK;
    if (ok) {
        const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
        void *ctx_mem = alloc16(ctx_size);
        ossa_soa_transform *pose = alloc16(skel.soa_count * sizeof *pose);
        ossa_float4x4 *model = alloc16(JOINTS * sizeof *model);
        ossa_float4x4 *bind = alloc16(JOINTS * sizeof *bind);
        ossa_sampling_job sample = {&anim,
                                    ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count),
                                    .5f,
                                    pose,
                                    skel.soa_count,
                                    skel.rest_pose,
                                    skel.soa_count};
        const ossa_local_to_model_job l2m = {&skel, NULL, 0, 0, pose, skel.soa_count, model, JOINTS};
        const ossa_local_to_model_job rest = {&skel, NULL, 0, 0, skel.rest_pose, skel.soa_count, bind, JOINTS};
        ok = ossa_sampling_job_run(&sample) == OSSA_OK && ossa_local_to_model_job_run(&l2m) == OSSA_OK &&
             ossa_local_to_model_job_run(&rest) == OSSA_OK;
        for (size_t j = 0; j < JOINTS; ++j) bind[j] = affine_inverse(&bind[j]);
        const ossa_skinning_palette_job pal = {.model = model,
                                               .model_count = JOINTS,
                                               .inverse_bind = bind,
                                               .inverse_bind_count = JOINTS,
                                               .output = palette,
                                               .output_count = JOINTS,
                                               .dual_quats = dqs,
                                               .dual_quat_count = JOINTS};
        ok = ok && ossa_skinning_palette_job_run(&pal) == OSSA_OK;
        free(ctx_mem), free(pose), free(model), free(bind);
    }
    ossa_blob_destroy(&skel_blob), ossa_blob_destroy(&anim_blob);
    ossa_import_output_destroy(&imp);
    return ok;
}

static void synthetic_palette(ossa_float4x4 *palette, ossa_dual_quat *dqs)
{
    uint32_t s = 7;
    for (size_t j = 0; j < JOINTS; ++j) {
        const ossa_transform t = {{random_in(&s, -1.f, 1.f), random_in(&s, -1.f, 1.f), random_in(&s, -1.f, 1.f)},
                                  ossa_quat_normalize((ossa_quat){random_in(&s, -1.f, 1.f), random_in(&s, -1.f, 1.f),
                                                                  random_in(&s, -1.f, 1.f), random_in(&s, -1.f, 1.f)}),
                                  {1.f, 1.f, 1.f}};
        palette[j] = ossa_float4x4_from_transform(&t);
        dqs[j] = ossa_dual_quat_from_float4x4(&palette[j]);
    }
}

/* Median ns per vertex of 9 repetitions of CALLS runs; the 5th repetition is the one
 * callgrind instruments. */
static double run(const measure *me, const ossa_float4x4 *palette, const ossa_dual_quat *dqs)
{
    const size_t k = me->influences, n = VERTICES;
    /* Interleaved: one vertex buffer {position, normal, tangent, indices, weights}, and one
     * output buffer {position, normal, tangent}. */
    const size_t in_stride = (12 + 12 + 16 + 2 * k + 4 * (k - 1) + 3) & ~(size_t)3, out_stride = 40;
    char *in = alloc16(n * in_stride + 64), *out = alloc16(n * out_stride + 64);
    float *pos = alloc16(n * 12 + 16), *nrm = alloc16(n * 12 + 16);
    float *tan = alloc16(n * 16), *opos = alloc16(n * 12 + 16);
    float *onrm = alloc16(n * 12 + 16), *otan = alloc16(n * 16);
    uint16_t *idx = alloc16(n * k * 2 + 16);
    float *w = alloc16(n * 4 * (k - 1) + 16);
    uint32_t s = 12345;
    for (size_t v = 0; v < n; ++v) {
        float *pv = (float *)(void *)(in + v * in_stride);
        uint16_t *iv = (uint16_t *)(void *)(in + v * in_stride + 40);
        float *wv = (float *)(void *)(in + v * in_stride + ((40 + 2 * k + 3) & ~(size_t)3));
        for (int c = 0; c < 3; ++c) pos[3 * v + c] = pv[c] = random_in(&s, -1.f, 1.f);
        for (int c = 0; c < 3; ++c) nrm[3 * v + c] = pv[3 + c] = random_in(&s, -1.f, 1.f);
        for (int c = 0; c < 4; ++c) tan[4 * v + c] = pv[6 + c] = random_in(&s, -1.f, 1.f);
        float left = 1.f;
        for (size_t j = 0; j < k; ++j) {
            idx[k * v + j] = iv[j] = (uint16_t)(next_random(&s) % JOINTS);
            if (j + 1 < k) {
                const float wj = left * random_in(&s, 0.f, 1.f);
                w[(k - 1) * v + j] = wv[j] = wj;
                left -= wj;
            }
        }
    }
    ossa_skinning_job job = {.method = me->method,
                             .vertex_count = n,
                             .influence_count = k,
                             .palette = palette,
                             .palette_count = JOINTS,
                             .dual_quats = dqs,
                             .dual_quat_count = JOINTS};
    if (me->layout == PACKED) {
        job.joint_indices = (ossa_joint_indices){idx, 0, n};
        job.joint_weights = (ossa_joint_weights){w, 0, n};
        job.in_positions = (ossa_vertex_input){pos, 0, n};
        job.out_positions = (ossa_vertex_output){opos, 0, n};
        if (me->nt) {
            job.in_normals = (ossa_vertex_input){nrm, 0, n}, job.out_normals = (ossa_vertex_output){onrm, 0, n};
            job.in_tangents = (ossa_vertex_input){tan, 0, n}, job.out_tangents = (ossa_vertex_output){otan, 0, n};
        }
    } else {
        const size_t wo = (40 + 2 * k + 3) & ~(size_t)3;
        job.joint_indices = (ossa_joint_indices){(const uint16_t *)(void *)(in + 40), in_stride, n};
        job.joint_weights = (ossa_joint_weights){(const float *)(void *)(in + wo), in_stride, n};
        job.in_positions = (ossa_vertex_input){(const float *)(void *)in, in_stride, n};
        job.out_positions = (ossa_vertex_output){(float *)(void *)out, out_stride, n};
        if (me->nt) {
            job.in_normals = (ossa_vertex_input){(const float *)(void *)(in + 12), in_stride, n};
            job.out_normals = (ossa_vertex_output){(float *)(void *)(out + 12), out_stride, n};
            job.in_tangents = (ossa_vertex_input){(const float *)(void *)(in + 24), in_stride, n};
            job.out_tangents = (ossa_vertex_output){(float *)(void *)(out + 24), out_stride, n};
        }
    }
    if (ossa_skinning_job_run(&job) != OSSA_OK) {
        fprintf(stderr, "ossa-bench-skinning: %s: %s\n", me->label,
                ossa_result_string(ossa_skinning_job_validate(&job)));
        exit(1);
    }
    double reps[BENCH_REPS];
    for (int r = 0; r < BENCH_REPS; ++r) {
        const double t0 = tool_now();
        if (r == BENCH_INSTRUMENTED) MEASURE_START();
        for (int c = 0; c < CALLS; ++c) ossa_skinning_job_run(&job);
        if (r == BENCH_INSTRUMENTED) MEASURE_STOP();
        reps[r] = (tool_now() - t0) / (double)(CALLS * n) * 1e9;
    }
    free(in), free(out), free(pos), free(nrm), free(tan), free(opos), free(onrm), free(otan), free(idx), free(w);
    return bench_median(reps);
}

int main(int argc, char **argv)
{
    const char *shared = getenv("OSSA_SHARED_DATA");
    long only = -1;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--shared") && i + 1 < argc)
            shared = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = strtol(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--simd"))
            return printf("%s\n", bench_simd()) < 0;
        else if (!strcmp(argv[i], "--list")) {
            for (size_t m = 0; m < MEASURE_COUNT; ++m)
                printf("%zu\t%s\t%.0f\t%.2f\n", m, measures[m].label, measures[m].ozz_ir, measures[m].ozz_ns);
            return 0;
        } else {
            fprintf(stderr, "usage: ossa-bench-skinning [--shared DIR] [--only N] [--list] [--simd]\n"
                            "  --only N   run measure N alone (for callgrind: bench/callgrind_skinning.sh)\n");
            return 2;
        }
    }
    if (only >= (long)MEASURE_COUNT) return fprintf(stderr, "ossa-bench-skinning: no measure %ld\n", only), 2;
    ossa_float4x4 *palette = alloc16(JOINTS * sizeof *palette);
    ossa_dual_quat *dqs = alloc16(JOINTS * sizeof *dqs);
    if (!pab_palette(shared, palette, dqs)) {
        fprintf(stderr, "ossa-bench-skinning: pab files not found (OSSA_SHARED_DATA or --shared): synthetic "
                        "67-joint palette\n");
        synthetic_palette(palette, dqs);
    }
    if (only < 0) bench_print_simd_line();
    if (only < 0) printf("| measure | ossa ns/vertex | ozz ns/vertex | ossa/ozz |\n|---|---:|---:|---:|\n");
    for (size_t m = 0; m < MEASURE_COUNT; ++m) {
        if (only >= 0 && (size_t)only != m) continue;
        const measure *me = &measures[m];
        const double ns = run(me, palette, dqs);
        if (only >= 0)
            printf("simd %s\ncalls %d\nvertices %d\n", bench_simd(), CALLS, CALLS * VERTICES);
        else if (me->ozz_ns > 0)
            printf("| %s | %.2f | %.2f | %.2f |\n", me->label, ns, me->ozz_ns, ns / me->ozz_ns);
        else
            printf("| %s | %.2f | | |\n", me->label, ns);
    }
    free(palette), free(dqs);
    return 0;
}
