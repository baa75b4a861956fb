#include "ossa/local_to_model_job.h"

#include <string.h>

#include "simd.h"

ossa_result ossa_local_to_model_job_validate(const ossa_local_to_model_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    const ossa_skeleton *skel = job->skeleton;
    if (!skel) return OSSA_ERROR_NO_SKELETON;
    if (!job->input) return OSSA_ERROR_NO_INPUT;
    if (job->input_count < skel->soa_count) return OSSA_ERROR_INPUT_TOO_SMALL;
    if (!job->output) return OSSA_ERROR_NO_OUTPUT;
    if (job->output_count < skel->joint_count) return OSSA_ERROR_OUTPUT_TOO_SMALL;
    const size_t end = job->joint_end ? job->joint_end : skel->joint_count;
    if (end > skel->joint_count || (job->joint_begin >= end && skel->joint_count > 0)) return OSSA_ERROR_INVALID_RANGE;
    const uintptr_t in0 = (uintptr_t)job->input, in1 = in0 + job->input_count * sizeof *job->input;
    const uintptr_t out0 = (uintptr_t)job->output, out1 = out0 + job->output_count * sizeof *job->output;
    if (in0 < out1 && out0 < in1) return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

/* Column-major matrix in four registers. */
typedef struct m44 { v4f c[4]; } m44;

static inline m44 m44_load(const ossa_float4x4 *m)
{
    return (m44){{v4f_load(m->cols[0]), v4f_load(m->cols[1]), v4f_load(m->cols[2]), v4f_load(m->cols[3])}};
}

static inline void m44_store(ossa_float4x4 *m, const m44 *v)
{
    for (int i = 0; i < 4; ++i) v4f_store(m->cols[i], v->c[i]);
}

/* a * b for an affine b (bottom row 0, 0, 0, 1, as every local transform's matrix is): b's
 * columns as combinations of a's columns, skipping the terms that multiply by 0 or 1. */
static inline m44 m44_mul_affine(const m44 *a, const m44 *b)
{
    m44 r;
    for (int i = 0; i < 3; ++i) {
        const v4f bc = b->c[i];
        r.c[i] = v4f_madd(a->c[0], V4F_SPLAT(bc, 0), v4f_madd(a->c[1], V4F_SPLAT(bc, 1), v4f_mul(a->c[2], V4F_SPLAT(bc, 2))));
    }
    const v4f t = b->c[3];
    r.c[3] = v4f_madd(a->c[0], V4F_SPLAT(t, 0), v4f_madd(a->c[1], V4F_SPLAT(t, 1), v4f_madd(a->c[2], V4F_SPLAT(t, 2), a->c[3])));
    return r;
}

/* Local matrices of the 4 joints of a SoA group, computed in SoA then transposed to AoS.
 * Rotation matrix entries from the quaternion, scaled per column. */
static void soa_to_matrices(const ossa_soa_transform *t, m44 out[4])
{
    const v4f x = v4f_load(t->rotation.x), y = v4f_load(t->rotation.y), z = v4f_load(t->rotation.z),
              w = v4f_load(t->rotation.w);
    const v4f two = v4f_set1(2.f), one = v4f_one();
    const v4f x2 = v4f_mul(x, two), y2 = v4f_mul(y, two), z2 = v4f_mul(z, two);
    const v4f xx = v4f_mul(x, x2), yy = v4f_mul(y, y2), zz = v4f_mul(z, z2);
    const v4f xy = v4f_mul(x, y2), xz = v4f_mul(x, z2), yz = v4f_mul(y, z2);
    const v4f wx = v4f_mul(w, x2), wy = v4f_mul(w, y2), wz = v4f_mul(w, z2);
    const v4f sx = v4f_load(t->scale.x), sy = v4f_load(t->scale.y), sz = v4f_load(t->scale.z);

    v4f c0x = v4f_mul(v4f_sub(one, v4f_add(yy, zz)), sx), c0y = v4f_mul(v4f_add(xy, wz), sx),
        c0z = v4f_mul(v4f_sub(xz, wy), sx), c0w = v4f_zero();
    v4f c1x = v4f_mul(v4f_sub(xy, wz), sy), c1y = v4f_mul(v4f_sub(one, v4f_add(xx, zz)), sy),
        c1z = v4f_mul(v4f_add(yz, wx), sy), c1w = v4f_zero();
    v4f c2x = v4f_mul(v4f_add(xz, wy), sz), c2y = v4f_mul(v4f_sub(yz, wx), sz),
        c2z = v4f_mul(v4f_sub(one, v4f_add(xx, yy)), sz), c2w = v4f_zero();
    v4f c3x = v4f_load(t->translation.x), c3y = v4f_load(t->translation.y), c3z = v4f_load(t->translation.z),
        c3w = one;
    /* After transposing (x, y, z, w) rows of column k, register j holds column k of joint j. */
    v4f_transpose4(&c0x, &c0y, &c0z, &c0w);
    v4f_transpose4(&c1x, &c1y, &c1z, &c1w);
    v4f_transpose4(&c2x, &c2y, &c2z, &c2w);
    v4f_transpose4(&c3x, &c3y, &c3z, &c3w);
    out[0] = (m44){{c0x, c1x, c2x, c3x}};
    out[1] = (m44){{c0y, c1y, c2y, c3y}};
    out[2] = (m44){{c0z, c1z, c2z, c3z}};
    out[3] = (m44){{c0w, c1w, c2w, c3w}};
}

ossa_result ossa_local_to_model_job_run(const ossa_local_to_model_job *job)
{
    const ossa_result r = ossa_local_to_model_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *skel = job->skeleton;
    const size_t end = job->joint_end ? job->joint_end : skel->joint_count;
    const ossa_float4x4 identity = ossa_float4x4_identity();
    const m44 root = m44_load(job->root ? job->root : &identity);
    const int16_t *parents = skel->parents;
    ossa_float4x4 *out = job->output;

    for (size_t group = job->joint_begin / 4; group * 4 < end; ++group) {
        m44 local[4];
        soa_to_matrices(&job->input[group], local);
        const size_t first = group * 4 < job->joint_begin ? job->joint_begin : group * 4;
        const size_t last = group * 4 + 4 < end ? group * 4 + 4 : end;
        for (size_t j = first; j < last; ++j) {
            const int parent = parents[j];
            m44 model;
            if (parent < 0) {
                model = m44_mul_affine(&root, &local[j - group * 4]);
            } else {
                const m44 pm = m44_load(&out[parent]);
                model = m44_mul_affine(&pm, &local[j - group * 4]);
            }
            m44_store(&out[j], &model);
        }
    }
    return OSSA_OK;
}
