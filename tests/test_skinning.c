/* Skinning palette and skinning job against scalar double-precision references written here.
 *
 * Bounds: positions, normals and tangents within 5e-5 (absolute) of the double reference for
 * inputs in [-1, 1], palettes with translations in [-2, 2] and scales in [0.5, 1.5] (results up
 * to about 10: a few float roundings of that size); dual quaternions within 5e-5 as well. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/skinning_job.h"
#include "test_util.h"

#define TOL      5e-5
#define JOINTS   13
#define SENTINEL 0xa5

/* 16-byte aligned memory; C11's aligned_alloc wants a size that is a multiple of 16. */
static void *alloc16(size_t size) { return aligned_alloc(16, (size + 15) & ~(size_t)15); }

/* ---- random data ---- */

static ossa_float4x4 random_matrix(uint32_t *s, bool rigid)
{
    const ossa_transform t = {
        {ossa_test_randf(s, -2.f, 2.f), ossa_test_randf(s, -2.f, 2.f), ossa_test_randf(s, -2.f, 2.f)},
        ossa_quat_normalize((ossa_quat){ossa_test_randf(s, -1.f, 1.f), ossa_test_randf(s, -1.f, 1.f),
                                        ossa_test_randf(s, -1.f, 1.f), ossa_test_randf(s, -1.f, 1.f)}),
        rigid ? (ossa_float3){1.f, 1.f, 1.f}
              : (ossa_float3){ossa_test_randf(s, .5f, 1.5f), ossa_test_randf(s, .5f, 1.5f),
                              ossa_test_randf(s, .5f, 1.5f)}};
    return ossa_float4x4_from_transform(&t);
}

/* A mesh in canonical packed arrays. */
typedef struct mesh {
    size_t n, k;
    float *pos, *nrm, *tan, *w;
    uint16_t *idx;
} mesh;

static mesh random_mesh(size_t n, size_t k, uint32_t *s)
{
    mesh m = {n, k, malloc(n * 12), malloc(n * 12), malloc(n * 16), malloc(n * 4 * k + 4), malloc(n * 2 * k)};
    for (size_t v = 0; v < n; ++v) {
        for (int c = 0; c < 3; ++c) m.pos[3 * v + c] = ossa_test_randf(s, -1.f, 1.f);
        for (int c = 0; c < 3; ++c) m.nrm[3 * v + c] = ossa_test_randf(s, -1.f, 1.f);
        for (int c = 0; c < 4; ++c) m.tan[4 * v + c] = ossa_test_randf(s, -1.f, 1.f);
        float left = 1.f;
        for (size_t j = 0; j < k; ++j) {
            m.idx[k * v + j] = (uint16_t)(ossa_test_rand(s) % JOINTS);
            if (j + 1 < k) {
                m.w[(k - 1) * v + j] = left * ossa_test_randf(s, 0.f, 1.f);
                left -= m.w[(k - 1) * v + j];
            }
        }
    }
    return m;
}

static void mesh_free(mesh *m) { free(m->pos), free(m->nrm), free(m->tan), free(m->w), free(m->idx); }

static double weight(const mesh *m, size_t v, size_t j)
{
    if (j + 1 < m->k) return m->w[(m->k - 1) * v + j];
    double s = 1.;
    for (size_t i = 0; i + 1 < m->k; ++i) s -= (double)m->w[(m->k - 1) * v + i];
    return s;
}

/* ---- references ---- */

/* Linear blend: sum of w_j M_j, applied to the point and (3x3) to the normal and tangent. */
static void lbs_reference(const mesh *m, const ossa_float4x4 *pal, size_t v, double p[3], double nr[3], double t[4])
{
    double b[4][3] = {{0}};
    for (size_t j = 0; j < m->k; ++j) {
        const double w = weight(m, v, j);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 3; ++r) b[c][r] += w * (double)pal[m->idx[m->k * v + j]].cols[c][r];
    }
    for (int r = 0; r < 3; ++r) {
        p[r] = b[3][r], nr[r] = 0., t[r] = 0.;
        for (int c = 0; c < 3; ++c) {
            p[r] += b[c][r] * (double)m->pos[3 * v + c];
            nr[r] += b[c][r] * (double)m->nrm[3 * v + c];
            t[r] += b[c][r] * (double)m->tan[4 * v + c];
        }
    }
    t[3] = m->tan[4 * v + 3];
}

static void cross(const double a[3], const double b[3], double o[3])
{
    o[0] = a[1] * b[2] - a[2] * b[1], o[1] = a[2] * b[0] - a[0] * b[2], o[2] = a[0] * b[1] - a[1] * b[0];
}

/* Rotates v by unit quaternion q (x, y, z, w). */
static void rotate(const double q[4], const double v[3], double o[3])
{
    double t[3], u[3];
    cross(q, v, t);
    for (int i = 0; i < 3; ++i) t[i] += q[3] * v[i];
    cross(q, t, u);
    for (int i = 0; i < 3; ++i) o[i] = v[i] + 2. * u[i];
}

/* Dual quaternion blend (Kavan et al.): hemisphere of the first influence, normalised by the
 * real part; point = rotate(real, p) + 2 vec(dual * conj(real)). */
static void dqs_reference(const mesh *m, const ossa_dual_quat *dq, size_t v, double p[3], double nr[3], double t[4])
{
    double r[4] = {0}, d[4] = {0};
    const ossa_dual_quat *q0 = &dq[m->idx[m->k * v]];
    for (size_t j = 0; j < m->k; ++j) {
        const ossa_dual_quat *q = &dq[m->idx[m->k * v + j]];
        double dot = 0.;
        for (int i = 0; i < 4; ++i) dot += (double)q0->real[i] * (double)q->real[i];
        const double w = weight(m, v, j) * (dot < 0. ? -1. : 1.);
        for (int i = 0; i < 4; ++i) r[i] += w * (double)q->real[i], d[i] += w * (double)q->dual[i];
    }
    const double len = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2] + r[3] * r[3]);
    for (int i = 0; i < 4; ++i) r[i] /= len, d[i] /= len;
    double rd[3], in[3];
    cross(r, d, rd);
    for (int i = 0; i < 3; ++i) in[i] = m->pos[3 * v + i];
    rotate(r, in, p);
    for (int i = 0; i < 3; ++i) p[i] += 2. * (r[3] * d[i] - d[3] * r[i] + rd[i]);
    for (int i = 0; i < 3; ++i) in[i] = m->nrm[3 * v + i];
    rotate(r, in, nr);
    for (int i = 0; i < 3; ++i) in[i] = m->tan[4 * v + i];
    rotate(r, in, t);
    t[3] = m->tan[4 * v + 3];
}

/* ---- layouts ---- */

/* Input and output buffers of one layout. Interleaved: input vertex {pos, nrm, tan, idx, pad,
 * weights}; output vertex {pad 4, pos, nrm, tan, pad 8}, pads filled with SENTINEL. Packed:
 * one array per stream, with SENTINEL bytes after each output. */
typedef struct buffers {
    unsigned char *in, *out;
    size_t in_stride, out_stride, w_off, out_size;
    float *pos, *nrm, *tan, *w, *opos, *onrm, *otan;
    uint16_t *idx;
} buffers;

static void layout(ossa_skinning_job *job, buffers *b, const mesh *m, bool interleaved, bool nt)
{
    memset(b, 0, sizeof *b);
    const size_t n = m->n, k = m->k;
    job->vertex_count = n, job->influence_count = k;
    if (interleaved) {
        b->w_off = (40 + 2 * k + 3) & ~(size_t)3;
        b->in_stride = b->w_off + 4 * (k - 1) + 4, b->out_stride = 4 + 40 + 8;
        b->in = alloc16(n * b->in_stride + 16);
        b->out_size = n * b->out_stride + 16;
        b->out = alloc16(b->out_size);
        memset(b->out, SENTINEL, b->out_size);
        for (size_t v = 0; v < n; ++v) {
            unsigned char *e = b->in + v * b->in_stride;
            memcpy(e, &m->pos[3 * v], 12), memcpy(e + 12, &m->nrm[3 * v], 12), memcpy(e + 24, &m->tan[4 * v], 16);
            memcpy(e + 40, &m->idx[k * v], 2 * k), memcpy(e + b->w_off, &m->w[(k - 1) * v], 4 * (k - 1));
        }
        const size_t is = b->in_stride, os = b->out_stride;
        job->joint_indices = (ossa_joint_indices){(const uint16_t *)(void *)(b->in + 40), is, n};
        job->joint_weights = (ossa_joint_weights){(const float *)(void *)(b->in + b->w_off), is, n};
        job->in_positions = (ossa_vertex_input){(const float *)(void *)b->in, is, n};
        job->out_positions = (ossa_vertex_output){(float *)(void *)(b->out + 4), os, n};
        if (nt) {
            job->in_normals = (ossa_vertex_input){(const float *)(void *)(b->in + 12), is, n};
            job->in_tangents = (ossa_vertex_input){(const float *)(void *)(b->in + 24), is, n};
            job->out_normals = (ossa_vertex_output){(float *)(void *)(b->out + 16), os, n};
            job->out_tangents = (ossa_vertex_output){(float *)(void *)(b->out + 28), os, n};
        }
        return;
    }
    b->pos = malloc(n * 12), b->nrm = malloc(n * 12), b->tan = malloc(n * 16);
    b->w = malloc(n * 4 * k + 4), b->idx = malloc(n * 2 * k);
    memcpy(b->pos, m->pos, n * 12), memcpy(b->nrm, m->nrm, n * 12), memcpy(b->tan, m->tan, n * 16);
    memcpy(b->w, m->w, n * 4 * (k - 1)), memcpy(b->idx, m->idx, n * 2 * k);
    b->out_size = n * 40 + 3 * 16;
    b->out = alloc16(b->out_size);
    memset(b->out, SENTINEL, b->out_size);
    b->opos = (float *)(void *)b->out, b->onrm = (float *)(void *)(b->out + n * 12 + 16);
    b->otan = (float *)(void *)(b->out + n * 24 + 32);
    job->joint_indices = (ossa_joint_indices){b->idx, 0, n};
    job->joint_weights = (ossa_joint_weights){b->w, 0, n};
    job->in_positions = (ossa_vertex_input){b->pos, 0, n};
    job->out_positions = (ossa_vertex_output){b->opos, 0, n};
    if (nt) {
        job->in_normals = (ossa_vertex_input){b->nrm, 0, n}, job->in_tangents = (ossa_vertex_input){b->tan, 0, n};
        job->out_normals = (ossa_vertex_output){b->onrm, 0, n}, job->out_tangents = (ossa_vertex_output){b->otan, 0, n};
    }
}

static void buffers_free(buffers *b)
{
    free(b->in), free(b->out), free(b->pos), free(b->nrm), free(b->tan), free(b->w), free(b->idx);
}

static const float *elem(const ossa_vertex_output *o, size_t v, size_t packed)
{
    return (const float *)(const void *)((const char *)o->data + v * (o->stride ? o->stride : packed));
}

/* Every output byte that is not a written field still holds SENTINEL. */
static void assert_untouched(const ossa_skinning_job *job, const buffers *b)
{
    const ossa_vertex_output *outs[3] = {&job->out_positions, &job->out_normals, &job->out_tangents};
    const size_t sizes[3] = {12, 12, 16};
    unsigned char *mask = calloc(b->out_size, 1);
    for (int s = 0; s < 3; ++s) {
        if (!outs[s]->data) continue;
        for (size_t v = 0; v < job->vertex_count; ++v)
            memset(mask + ((const unsigned char *)elem(outs[s], v, sizes[s]) - b->out), 1, sizes[s]);
    }
    for (size_t i = 0; i < b->out_size; ++i)
        if (!mask[i] && b->out[i] != SENTINEL) fail_msg("output byte %zu outside the written fields changed", i);
    free(mask);
}

static void check(const ossa_skinning_job *job, const mesh *m, const ossa_float4x4 *pal, const ossa_dual_quat *dq)
{
    for (size_t v = 0; v < m->n; ++v) {
        double p[3], nr[3], t[4];
        if (job->method == OSSA_SKINNING_LINEAR)
            lbs_reference(m, pal, v, p, nr, t);
        else
            dqs_reference(m, dq, v, p, nr, t);
        const float *op = elem(&job->out_positions, v, 12);
        for (int c = 0; c < 3; ++c)
            if (fabs((double)op[c] - p[c]) > TOL)
                fail_msg("k %zu vertex %zu position %d: %.7g vs %.7g", m->k, v, c, (double)op[c], p[c]);
        if (!job->out_normals.data) continue;
        const float *on = elem(&job->out_normals, v, 12), *ot = elem(&job->out_tangents, v, 16);
        for (int c = 0; c < 3; ++c)
            if (fabs((double)on[c] - nr[c]) > TOL)
                fail_msg("k %zu vertex %zu normal %d: %.7g vs %.7g", m->k, v, c, (double)on[c], nr[c]);
        for (int c = 0; c < 4; ++c)
            if (fabs((double)ot[c] - t[c]) > TOL)
                fail_msg("k %zu vertex %zu tangent %d: %.7g vs %.7g", m->k, v, c, (double)ot[c], t[c]);
    }
}

static void run_against_reference(ossa_skinning_method method)
{
    uint32_t s = 99;
    ossa_float4x4 *pal = alloc16(JOINTS * sizeof *pal);
    ossa_dual_quat *dq = alloc16(JOINTS * sizeof *dq);
    for (size_t j = 0; j < JOINTS; ++j) {
        pal[j] = random_matrix(&s, method == OSSA_SKINNING_DUAL_QUAT);
        dq[j] = ossa_dual_quat_from_float4x4(&pal[j]);
    }
    const size_t ks[] = {1, 2, 3, 4, 6}, ns[] = {1, 2, 37, 100};
    for (size_t ki = 0; ki < sizeof ks / sizeof *ks; ++ki)
        for (size_t ni = 0; ni < sizeof ns / sizeof *ns; ++ni)
            for (int variant = 0; variant < 6; ++variant) {
                /* packed; interleaved; interleaved input into packed outputs (each stream its
                 * own stride) */
                const int streams = variant % 3;
                const bool nt = variant >= 3;
                mesh m = random_mesh(ns[ni], ks[ki], &s);
                ossa_skinning_job job = {.method = method,
                                         .palette = pal,
                                         .palette_count = JOINTS,
                                         .dual_quats = dq,
                                         .dual_quat_count = JOINTS};
                buffers b, bo;
                layout(&job, &b, &m, streams > 0, nt);
                if (streams == 2) {
                    ossa_skinning_job jo = job;
                    layout(&jo, &bo, &m, false, nt);
                    job.out_positions = jo.out_positions, job.out_normals = jo.out_normals;
                    job.out_tangents = jo.out_tangents;
                }
                assert_int_equal(ossa_skinning_job_run(&job), OSSA_OK);
                check(&job, &m, pal, dq);
                assert_untouched(&job, streams == 2 ? &bo : &b);
                buffers_free(&b);
                if (streams == 2) buffers_free(&bo);
                mesh_free(&m);
            }
    free(pal), free(dq);
}

static void test_linear_matches_reference(void **state)
{
    (void)state;
    run_against_reference(OSSA_SKINNING_LINEAR);
}

static void test_dual_quat_matches_reference(void **state)
{
    (void)state;
    run_against_reference(OSSA_SKINNING_DUAL_QUAT);
}

/* In place (output == input, same stride), packed and interleaved, equals out of place. */
static void test_in_place(void **state)
{
    (void)state;
    uint32_t s = 5;
    ossa_float4x4 *pal = alloc16(JOINTS * sizeof *pal);
    ossa_dual_quat *dq = alloc16(JOINTS * sizeof *dq);
    for (size_t j = 0; j < JOINTS; ++j) pal[j] = random_matrix(&s, true), dq[j] = ossa_dual_quat_from_float4x4(&pal[j]);
    for (int method = 0; method < 2; ++method)
        for (int interleaved = 0; interleaved < 2; ++interleaved) {
            mesh m = random_mesh(41, 3, &s);
            ossa_skinning_job job = {.method = (ossa_skinning_method)method,
                                     .palette = pal,
                                     .palette_count = JOINTS,
                                     .dual_quats = dq,
                                     .dual_quat_count = JOINTS};
            buffers b;
            layout(&job, &b, &m, interleaved, true);
            /* outputs onto the inputs */
            job.out_positions = (ossa_vertex_output){(float *)job.in_positions.data, job.in_positions.stride, m.n};
            job.out_normals = (ossa_vertex_output){(float *)job.in_normals.data, job.in_normals.stride, m.n};
            job.out_tangents = (ossa_vertex_output){(float *)job.in_tangents.data, job.in_tangents.stride, m.n};
            assert_int_equal(ossa_skinning_job_run(&job), OSSA_OK);
            check(&job, &m, pal, dq);
            buffers_free(&b);
            mesh_free(&m);
        }
    free(pal), free(dq);
}

/* Two influences with weight 0.25 given: the last joint gets 0.75. */
static void test_implicit_last_weight(void **state)
{
    (void)state;
    ossa_float4x4 pal[4];
    for (int j = 0; j < 4; ++j) pal[j] = ossa_float4x4_identity(), pal[j].cols[3][j % 3] = (float)(j + 1);
    const float in[3] = {0.f, 0.f, 0.f};
    float out[3];
    const uint16_t idx2[2] = {0, 1};
    const float w2[1] = {.25f};
    ossa_skinning_job job = {.vertex_count = 1,
                             .influence_count = 2,
                             .palette = pal,
                             .palette_count = 4,
                             .joint_indices = {idx2, 0, 1},
                             .joint_weights = {w2, 0, 1},
                             .in_positions = {in, 0, 1},
                             .out_positions = {out, 0, 1}};
    assert_int_equal(ossa_skinning_job_run(&job), OSSA_OK);
    assert_float_equal(out[0], .25f * 1.f, 1e-6f); /* joint 0 translates x by 1 */
    assert_float_equal(out[1], .75f * 2.f, 1e-6f); /* joint 1 translates y by 2 */
    assert_float_equal(out[2], 0.f, 1e-6f);
    /* Four influences: 0.1, 0.2, 0.3 given, 0.4 implicit on joint 3 (x by 4). */
    const uint16_t idx4[4] = {0, 1, 2, 3};
    const float w4[3] = {.1f, .2f, .3f};
    job.influence_count = 4, job.joint_indices.data = idx4, job.joint_weights.data = w4;
    for (int method = 0; method < 2; ++method) {
        ossa_dual_quat dq[4];
        for (int j = 0; j < 4; ++j) dq[j] = ossa_dual_quat_from_float4x4(&pal[j]);
        job.method = (ossa_skinning_method)method, job.dual_quats = dq, job.dual_quat_count = 4;
        assert_int_equal(ossa_skinning_job_run(&job), OSSA_OK);
        assert_float_equal(out[0], .1f * 1.f + .4f * 4.f, 1e-6f);
        assert_float_equal(out[1], .2f * 2.f, 1e-6f);
        assert_float_equal(out[2], .3f * 3.f, 1e-6f);
    }
}

/* A cylinder along x (radius 0.5, length 2) bound to joint 0 at x = 0 and joint 1 at x = 1,
 * weights going linearly from joint 0 at x = 0 to joint 1 at x = 2; joint 1 twisted 180 degrees
 * about x. Linear blending collapses the middle ring onto the axis; dual quaternions keep every
 * ring's radius. */
static void test_twisted_cylinder_volume(void **state)
{
    (void)state;
    enum { RINGS = 21, SIDES = 16, N = RINGS * SIDES };
    float *pos = malloc(N * 12), *out = malloc(N * 12), *w = malloc(N * 4);
    uint16_t *idx = malloc(N * 4);
    for (int r = 0; r < RINGS; ++r)
        for (int s = 0; s < SIDES; ++s) {
            const int v = r * SIDES + s;
            const float x = 2.f * (float)r / (RINGS - 1), a = 6.2831853f * (float)s / SIDES;
            pos[3 * v] = x, pos[3 * v + 1] = .5f * cosf(a), pos[3 * v + 2] = .5f * sinf(a);
            idx[2 * v] = 0, idx[2 * v + 1] = 1, w[v] = 1.f - x / 2.f;
        }
    /* model(joint 1) = T(1, 0, 0) Rx(180); inverse bind = T(-1, 0, 0). */
    const ossa_transform t1 = {{1.f, 0.f, 0.f}, {1.f, 0.f, 0.f, 0.f}, {1.f, 1.f, 1.f}};
    const ossa_transform b1 = {{-1.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f}};
    OSSA_ALIGNAS(16) ossa_float4x4 model[2], inv_bind[2], pal[2];
    OSSA_ALIGNAS(16) ossa_dual_quat dq[2];
    model[0] = inv_bind[0] = ossa_float4x4_identity();
    model[1] = ossa_float4x4_from_transform(&t1), inv_bind[1] = ossa_float4x4_from_transform(&b1);
    const ossa_skinning_palette_job pj = {.model = model,
                                          .model_count = 2,
                                          .inverse_bind = inv_bind,
                                          .inverse_bind_count = 2,
                                          .output = pal,
                                          .output_count = 2,
                                          .dual_quats = dq,
                                          .dual_quat_count = 2};
    assert_int_equal(ossa_skinning_palette_job_run(&pj), OSSA_OK);
    ossa_skinning_job job = {.vertex_count = N,
                             .influence_count = 2,
                             .palette = pal,
                             .palette_count = 2,
                             .dual_quats = dq,
                             .dual_quat_count = 2,
                             .joint_indices = {idx, 0, N},
                             .joint_weights = {w, 0, N},
                             .in_positions = {pos, 0, N},
                             .out_positions = {out, 0, N}};
    double radius[2][RINGS];
    for (int method = 0; method < 2; ++method) {
        job.method = (ossa_skinning_method)method;
        assert_int_equal(ossa_skinning_job_run(&job), OSSA_OK);
        for (int r = 0; r < RINGS; ++r) {
            double sum = 0.;
            for (int s = 0; s < SIDES; ++s) {
                const float *p = &out[3 * (r * SIDES + s)];
                sum += sqrt((double)p[1] * (double)p[1] + (double)p[2] * (double)p[2]);
                assert_true(fabs(p[0] - pos[3 * (r * SIDES + s)]) < 1e-5); /* stays on its ring */
            }
            radius[method][r] = sum / SIDES;
        }
    }
    const int mid = RINGS / 2;
    /* Linear: the middle ring collapses (0.5 p + 0.5 Rx(180) p is on the axis). */
    assert_true(radius[OSSA_SKINNING_LINEAR][mid] < .05 * .5);
    for (int r = 0; r < RINGS; ++r) {
        if (fabs(radius[OSSA_SKINNING_DUAL_QUAT][r] - .5) > .01 * .5)
            fail_msg("dual quaternion ring %d radius %.6f", r, radius[OSSA_SKINNING_DUAL_QUAT][r]);
        /* the ends are rigid either way */
        if (r == 0 || r == RINGS - 1) assert_true(fabs(radius[OSSA_SKINNING_LINEAR][r] - .5) < 1e-5);
    }
    free(pos), free(out), free(w), free(idx);
}

/* The palette job equals model[remap[i]] * inverse_bind[i]; its dual quaternions equal
 * ossa_dual_quat_from_float4x4 of those. */
static void test_palette(void **state)
{
    (void)state;
    uint32_t s = 3;
    enum { M = 9, P = 6 };
    OSSA_ALIGNAS(16) ossa_float4x4 model[M], inv[P], out[P];
    OSSA_ALIGNAS(16) ossa_dual_quat dq[P];
    for (int i = 0; i < M; ++i) model[i] = random_matrix(&s, false);
    for (int i = 0; i < P; ++i) inv[i] = random_matrix(&s, false);
    const uint16_t remap[P] = {8, 0, 3, 3, 5, 1};
    ossa_skinning_palette_job job = {.model = model,
                                     .model_count = M,
                                     .inverse_bind = inv,
                                     .inverse_bind_count = P,
                                     .joint_remap = remap,
                                     .joint_remap_count = P,
                                     .output = out,
                                     .output_count = P,
                                     .dual_quats = dq,
                                     .dual_quat_count = P};
    assert_int_equal(ossa_skinning_palette_job_run(&job), OSSA_OK);
    for (int i = 0; i < P; ++i) {
        const ossa_float4x4 ref = ossa_float4x4_mul(&model[remap[i]], &inv[i]);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) assert_float_equal(out[i].cols[c][r], ref.cols[c][r], 1e-5f);
        const ossa_dual_quat d = ossa_dual_quat_from_float4x4(&out[i]);
        for (int c = 0; c < 4; ++c) assert_float_equal(dq[i].real[c], d.real[c], 1e-6f);
    }
    /* Without a remap, mesh joint i is skeleton joint i. */
    job.joint_remap = NULL, job.dual_quats = NULL;
    assert_int_equal(ossa_skinning_palette_job_run(&job), OSSA_OK);
    const ossa_float4x4 ref = ossa_float4x4_mul(&model[4], &inv[4]);
    assert_float_equal(out[4].cols[3][1], ref.cols[3][1], 1e-5f);
}

/* A rigid matrix's dual quaternion gives back its rotation (up to sign) and translation. */
static void test_dual_quat_from_matrix(void **state)
{
    (void)state;
    uint32_t s = 11;
    for (int i = 0; i < 200; ++i) {
        ossa_transform t = {
            {ossa_test_randf(&s, -3.f, 3.f), ossa_test_randf(&s, -3.f, 3.f), ossa_test_randf(&s, -3.f, 3.f)},
            ossa_quat_normalize((ossa_quat){ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f),
                                            ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f)}),
            {1.f, 1.f, 1.f}};
        if (i % 3 == 0) t.scale = (ossa_float3){2.f, .5f, 3.f}; /* scale is dropped */
        const ossa_float4x4 m = ossa_float4x4_from_transform(&t);
        const ossa_dual_quat d = ossa_dual_quat_from_float4x4(&m);
        const float sign = t.rotation.w < 0.f ? -1.f : 1.f;
        assert_float_equal(d.real[0], sign * t.rotation.x, 1e-5f);
        assert_float_equal(d.real[1], sign * t.rotation.y, 1e-5f);
        assert_float_equal(d.real[2], sign * t.rotation.z, 1e-5f);
        assert_float_equal(d.real[3], sign * t.rotation.w, 1e-5f);
        /* translation = 2 vec(dual * conj(real)) */
        const double r[4] = {d.real[0], d.real[1], d.real[2], d.real[3]}, q[3] = {d.dual[0], d.dual[1], d.dual[2]};
        double rq[3];
        cross(r, q, rq);
        const float tr[3] = {t.translation.x, t.translation.y, t.translation.z};
        for (int c = 0; c < 3; ++c)
            assert_true(fabs(2. * (r[3] * q[c] - (double)d.dual[3] * r[c] + rq[c]) - (double)tr[c]) < 1e-5);
    }
}

/* ---- errors ---- */

typedef struct err_fixture {
    OSSA_ALIGNAS(16) ossa_float4x4 pal[4];
    OSSA_ALIGNAS(16) ossa_dual_quat dq[4];
    OSSA_ALIGNAS(16) float pos[3 * 8 + 4], nrm[3 * 8], tan[4 * 8], out[4 * 8 + 4], onrm[3 * 8], otan[4 * 8];
    uint16_t idx[4 * 8];
    float w[8];
    ossa_skinning_job job;
} err_fixture;

static void err_setup(err_fixture *f)
{
    memset(f, 0, sizeof *f);
    for (int j = 0; j < 4; ++j)
        f->pal[j] = ossa_float4x4_identity(), f->dq[j] = ossa_dual_quat_from_float4x4(&f->pal[j]);
    for (int i = 0; i < 32; ++i) f->idx[i] = (uint16_t)(i % 4);
    for (int i = 0; i < 8; ++i) f->w[i] = .5f;
    memset(f->out, SENTINEL, sizeof f->out);
    f->job = (ossa_skinning_job){.vertex_count = 8,
                                 .influence_count = 2,
                                 .palette = f->pal,
                                 .palette_count = 4,
                                 .dual_quats = f->dq,
                                 .dual_quat_count = 4,
                                 .joint_indices = {f->idx, 0, 8},
                                 .joint_weights = {f->w, 0, 8},
                                 .in_positions = {f->pos, 0, 8},
                                 .in_normals = {f->nrm, 0, 8},
                                 .in_tangents = {f->tan, 0, 8},
                                 .out_positions = {f->out, 0, 8},
                                 .out_normals = {f->onrm, 0, 8},
                                 .out_tangents = {f->otan, 0, 8}};
}

static void expect_at(err_fixture *f, ossa_result code, int line)
{
    const ossa_result got = ossa_skinning_job_validate(&f->job);
    if (got != code) fail_msg("line %d: %s, expected %s", line, ossa_result_name(got), ossa_result_name(code));
    assert_int_equal(ossa_skinning_job_run(&f->job), code);
    for (size_t i = 0; i < sizeof f->out; ++i)
        if (((const unsigned char *)f->out)[i] != SENTINEL) fail_msg("output written after %s", ossa_result_name(code));
    err_setup(f);
}
#define expect(f, code) expect_at(f, code, __LINE__)

static void test_errors(void **state)
{
    (void)state;
    static err_fixture f;
    err_setup(&f);
    assert_int_equal(ossa_skinning_job_validate(&f.job), OSSA_OK);
    assert_int_equal(ossa_skinning_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    const ossa_skinning_job zero = {0};
    assert_int_equal(ossa_skinning_job_run(&zero), OSSA_ERROR_INVALID_INFLUENCES);
    f.job.method = (ossa_skinning_method)7, expect(&f, OSSA_ERROR_INVALID_ARGUMENT);
    f.job.influence_count = 0, expect(&f, OSSA_ERROR_INVALID_INFLUENCES);
    f.job.palette = NULL, expect(&f, OSSA_ERROR_NO_PALETTE);
    f.job.method = OSSA_SKINNING_DUAL_QUAT, f.job.dual_quats = NULL, expect(&f, OSSA_ERROR_NO_PALETTE);
    f.job.joint_indices.data = NULL, expect(&f, OSSA_ERROR_NO_JOINT_DATA);
    f.job.joint_weights.data = NULL, expect(&f, OSSA_ERROR_NO_JOINT_DATA);
    f.job.in_positions.data = NULL, expect(&f, OSSA_ERROR_NO_INPUT);
    f.job.in_normals.data = NULL, expect(&f, OSSA_ERROR_NO_INPUT);
    f.job.in_tangents.data = NULL, expect(&f, OSSA_ERROR_NO_INPUT);
    f.job.out_normals.data = NULL, expect(&f, OSSA_ERROR_NO_OUTPUT);
    f.job.out_tangents.data = NULL, expect(&f, OSSA_ERROR_NO_OUTPUT);
    /* out_positions NULL: nothing to compare, but the code is still its own */
    f.job.out_positions.data = NULL;
    assert_int_equal(ossa_skinning_job_run(&f.job), OSSA_ERROR_NO_OUTPUT);
    err_setup(&f);
    f.job.in_positions.stride = 8, expect(&f, OSSA_ERROR_INVALID_STRIDE);
    f.job.out_positions.stride = 14, expect(&f, OSSA_ERROR_INVALID_STRIDE);
    f.job.in_tangents.stride = 12, expect(&f, OSSA_ERROR_INVALID_STRIDE);
    f.job.joint_indices.stride = 3, expect(&f, OSSA_ERROR_INVALID_STRIDE);
    f.job.joint_weights.stride = 2, expect(&f, OSSA_ERROR_INVALID_STRIDE);
    f.job.in_positions.count = 7, expect(&f, OSSA_ERROR_INPUT_TOO_SMALL);
    f.job.joint_weights.count = 7, expect(&f, OSSA_ERROR_INPUT_TOO_SMALL);
    f.job.out_tangents.count = 7, expect(&f, OSSA_ERROR_OUTPUT_TOO_SMALL);
    f.job.out_positions.count = 7, expect(&f, OSSA_ERROR_OUTPUT_TOO_SMALL);
    f.job.palette = (const ossa_float4x4 *)(const void *)((const char *)f.pal + 4), expect(&f, OSSA_ERROR_MISALIGNED);
    f.job.in_positions.data = (const float *)(const void *)((const char *)f.pos + 2), expect(&f, OSSA_ERROR_MISALIGNED);
    f.job.joint_indices.data = (const uint16_t *)(const void *)((const char *)f.idx + 1),
    expect(&f, OSSA_ERROR_MISALIGNED);
    /* aliasing: an output over another stream, a shifted in-place, the palette */
    f.job.in_normals.data = f.out, expect(&f, OSSA_ERROR_ALIASING);
    f.job.in_positions.data = f.out + 1, expect(&f, OSSA_ERROR_ALIASING);
    f.job.out_normals.data = f.out + 3, expect(&f, OSSA_ERROR_ALIASING);
    f.job.palette = (const ossa_float4x4 *)(const void *)f.out, f.job.palette_count = 1,
    expect(&f, OSSA_ERROR_ALIASING);
    /* a vertex count whose spans would wrap around the address space describes no buffer */
    f.job.vertex_count = SIZE_MAX / 8, f.job.joint_indices.count = f.job.joint_weights.count = SIZE_MAX;
    f.job.in_positions.count = f.job.in_normals.count = f.job.in_tangents.count = SIZE_MAX;
    f.job.out_positions.count = f.job.out_normals.count = f.job.out_tangents.count = SIZE_MAX;
    expect(&f, OSSA_ERROR_SIZE_OVERFLOW);
    /* joint indices beyond the palette: packed (SIMD pass) and strided, and the limit's edge */
    f.job.palette_count = 3, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.job.joint_indices.stride = 8, f.job.palette_count = 1, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    /* strided (8-byte loads, lanes past the influences ignored; the last vertex alone) */
    f.job.joint_indices.stride = 8, f.idx[2] = 40000, f.idx[3] = 40000;
    assert_int_equal(ossa_skinning_job_validate(&f.job), OSSA_OK);
    f.job.joint_indices.stride = 8, f.idx[4 * 3 + 1] = 40000, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.job.joint_indices.stride = 8, f.idx[4 * 7 + 1] = 4, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.job.joint_indices.stride = 6, f.job.influence_count = 3, f.job.joint_weights.stride = 8, f.idx[3 * 2 + 2] = 4,
    expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.job.method = OSSA_SKINNING_DUAL_QUAT, f.job.dual_quat_count = 3, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.idx[15] = 60000, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    f.job.palette_count = 0, expect(&f, OSSA_ERROR_INVALID_JOINT_INDEX);
    /* valid edge cases */
    f.job.vertex_count = 0;
    assert_int_equal(ossa_skinning_job_run(&f.job), OSSA_OK);
    err_setup(&f);
    f.job.influence_count = 1, f.job.joint_weights.data = NULL;
    assert_int_equal(ossa_skinning_job_run(&f.job), OSSA_OK);
    err_setup(&f);
    /* interleaved streams of one buffer are not aliasing */
    static OSSA_ALIGNAS(16) float inter[8 * 10];
    f.job.in_positions = (ossa_vertex_input){inter, 40, 8}, f.job.in_normals = (ossa_vertex_input){inter + 3, 40, 8};
    f.job.in_tangents = (ossa_vertex_input){inter + 6, 40, 8};
    f.job.out_positions = (ossa_vertex_output){inter, 40, 8},
    f.job.out_normals = (ossa_vertex_output){inter + 3, 40, 8};
    f.job.out_tangents = (ossa_vertex_output){inter + 6, 40, 8};
    assert_int_equal(ossa_skinning_job_validate(&f.job), OSSA_OK);
    f.job.out_normals.data = inter + 2, assert_int_equal(ossa_skinning_job_validate(&f.job), OSSA_ERROR_ALIASING);
}

/* Counts and strides whose byte sizes overflow, or whose spans run past the end of the address
 * space, are refused before any product is used (they used to divide by a wrapped stride of 0
 * or read far outside the streams); all three outputs are left as they were. */
static void expect_untouched_at(err_fixture *f, ossa_result code, int line)
{
    const ossa_result got = ossa_skinning_job_validate(&f->job);
    if (got != code) fail_msg("line %d: %s, expected %s", line, ossa_result_name(got), ossa_result_name(code));
    memset(f->onrm, SENTINEL, sizeof f->onrm), memset(f->otan, SENTINEL, sizeof f->otan);
    assert_int_equal(ossa_skinning_job_run(&f->job), code);
    const unsigned char *outs[3] = {(const unsigned char *)f->out, (const unsigned char *)f->onrm,
                                    (const unsigned char *)f->otan};
    const size_t sizes[3] = {sizeof f->out, sizeof f->onrm, sizeof f->otan};
    for (int o = 0; o < 3; ++o)
        for (size_t i = 0; i < sizes[o]; ++i)
            if (outs[o][i] != SENTINEL)
                fail_msg("line %d: output %d written after %s", line, o, ossa_result_name(code));
    err_setup(f);
}
#define expect_untouched(f, code) expect_untouched_at(f, code, __LINE__)

static void test_size_overflow(void **state)
{
    (void)state;
    static err_fixture f;
    err_setup(&f);
    /* influence counts: 2^62 (4 * (k - 1) weight bytes wrap), 2^63 (2 * k index bytes wrap to a
     * packed stride of 0), SIZE_MAX; the largest count whose bytes are countable passes that
     * check and is refused by its streams' spans instead */
    f.job.influence_count = (size_t)1 << 62, expect_untouched(&f, OSSA_ERROR_INVALID_INFLUENCES);
    f.job.influence_count = (size_t)1 << 63, expect_untouched(&f, OSSA_ERROR_INVALID_INFLUENCES);
    f.job.influence_count = SIZE_MAX, expect_untouched(&f, OSSA_ERROR_INVALID_INFLUENCES);
    f.job.method = OSSA_SKINNING_DUAL_QUAT, f.job.influence_count = (size_t)1 << 62,
    expect_untouched(&f, OSSA_ERROR_INVALID_INFLUENCES);
    f.job.influence_count = SIZE_MAX / 4, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    /* strides: (vertex_count - 1) * stride wraps; or it does not, but runs past the end of the
     * address space from the stream's start */
    const size_t wraps = (SIZE_MAX / 4) & ~(size_t)3, past_end = (SIZE_MAX / 7) & ~(size_t)3;
    f.job.in_positions.stride = wraps, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.in_positions.stride = past_end, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.out_positions.stride = past_end, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.in_normals.stride = wraps, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.out_tangents.stride = past_end, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.joint_indices.stride = wraps & ~(size_t)1, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.joint_indices.stride = past_end, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.joint_weights.stride = past_end, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    /* a palette count whose bytes wrap (it used to shrink the palette's aliasing span) */
    f.job.palette_count = SIZE_MAX / 32, expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    f.job.method = OSSA_SKINNING_DUAL_QUAT, f.job.dual_quat_count = SIZE_MAX / 16,
    expect_untouched(&f, OSSA_ERROR_SIZE_OVERFLOW);
    /* one vertex: the stride is never multiplied, so any valid one passes */
    f.job.vertex_count = 1, f.job.in_positions.stride = wraps;
    assert_int_equal(ossa_skinning_job_validate(&f.job), OSSA_OK);
}

static void test_palette_errors(void **state)
{
    (void)state;
    OSSA_ALIGNAS(16) ossa_float4x4 model[3], inv[2], out[3];
    OSSA_ALIGNAS(16) ossa_dual_quat dq[2];
    for (int i = 0; i < 3; ++i) model[i] = out[i] = ossa_float4x4_identity();
    inv[0] = inv[1] = model[0];
    const uint16_t remap[2] = {2, 3};
    const ossa_skinning_palette_job good = {.model = model,
                                            .model_count = 3,
                                            .inverse_bind = inv,
                                            .inverse_bind_count = 2,
                                            .output = out,
                                            .output_count = 2};
    ossa_skinning_palette_job j = good;
    assert_int_equal(ossa_skinning_palette_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    const ossa_skinning_palette_job zero = {0};
    assert_int_equal(ossa_skinning_palette_job_run(&zero), OSSA_ERROR_NO_INPUT);
    j.model = NULL, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_NO_INPUT), j = good;
    j.inverse_bind = NULL, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_NO_INPUT), j = good;
    j.model_count = 1, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_INPUT_TOO_SMALL), j = good;
    j.joint_remap = remap, j.joint_remap_count = 1;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_INPUT_TOO_SMALL), j = good;
    j.output = NULL, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_NO_OUTPUT), j = good;
    j.output_count = 1, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_OUTPUT_TOO_SMALL), j = good;
    j.dual_quats = dq, j.dual_quat_count = 1;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_OUTPUT_TOO_SMALL), j = good;
    j.output = (ossa_float4x4 *)(void *)((char *)out + 8);
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_MISALIGNED), j = good;
    j.output = model, assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_ALIASING), j = good;
    j.dual_quats = (ossa_dual_quat *)(void *)out, j.dual_quat_count = 2;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_ALIASING), j = good;
    memset(out, SENTINEL, sizeof out);
    j.joint_remap = remap, j.joint_remap_count = 2;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_INVALID_JOINT_INDEX);
    for (size_t i = 0; i < sizeof out; ++i) assert_int_equal(((const unsigned char *)out)[i], SENTINEL);
    /* counts whose bytes wrap around the address space */
    j = good, j.model_count = SIZE_MAX / 32;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_SIZE_OVERFLOW);
    j = good, j.inverse_bind_count = SIZE_MAX / 32, j.model_count = j.output_count = SIZE_MAX;
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_SIZE_OVERFLOW);
    j = good, j.dual_quats = dq, j.dual_quat_count = SIZE_MAX, j.inverse_bind_count = SIZE_MAX / 16;
    j.model_count = j.output_count = SIZE_MAX,
    assert_int_equal(ossa_skinning_palette_job_run(&j), OSSA_ERROR_SIZE_OVERFLOW);
    for (size_t i = 0; i < sizeof out; ++i) assert_int_equal(((const unsigned char *)out)[i], SENTINEL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear_matches_reference),
        cmocka_unit_test(test_dual_quat_matches_reference),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_implicit_last_weight),
        cmocka_unit_test(test_twisted_cylinder_volume),
        cmocka_unit_test(test_palette),
        cmocka_unit_test(test_dual_quat_from_matrix),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_size_overflow),
        cmocka_unit_test(test_palette_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
