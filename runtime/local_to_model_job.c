#include "ossa/local_to_model_job.h"

#include <string.h>

#include "checks.h"
#include "baseline_jobs.h"
#include "dispatch.h"
#include "simd.h"

#if !defined(OSSA__AVX2_KERNELS) /* validation: in the baseline compile only (dispatch.h) */

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
    if (ossa__misaligned(job->input) || ossa__misaligned(job->output) || (job->root && ossa__misaligned(job->root)))
        return OSSA_ERROR_MISALIGNED;
    if (!ossa__fits(job->input, job->input_count, sizeof *job->input) ||
        !ossa__fits(job->output, job->output_count, sizeof *job->output))
        return OSSA_ERROR_SIZE_OVERFLOW;
    if (ossa__overlaps(job->input, job->input_count * sizeof *job->input, job->output,
                       job->output_count * sizeof *job->output))
        return OSSA_ERROR_ALIASING;
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

/* Local matrices of a SoA group, kept in SoA: m[c][r] holds row r of column c for the 4
 * joints (rotation from the quaternion, scaled per column; column 3 is the translation). The
 * bottom row (0, 0, 0, 1) is implicit. */
typedef struct soa_affine {
    v4f m[4][3];
} soa_affine;

static inline void soa_to_affine(const ossa_soa_transform *t, soa_affine *o)
{
    const v4f x = v4f_load(t->rotation.x), y = v4f_load(t->rotation.y), z = v4f_load(t->rotation.z),
              w = v4f_load(t->rotation.w);
    const v4f two = v4f_set1(2.f), one = v4f_one();
    const v4f x2 = v4f_mul(x, two), y2 = v4f_mul(y, two), z2 = v4f_mul(z, two);
    const v4f xx = v4f_mul(x, x2), yy = v4f_mul(y, y2), zz = v4f_mul(z, z2);
    const v4f xy = v4f_mul(x, y2), xz = v4f_mul(x, z2), yz = v4f_mul(y, z2);
    const v4f wx = v4f_mul(w, x2), wy = v4f_mul(w, y2), wz = v4f_mul(w, z2);
    const v4f sx = v4f_load(t->scale.x), sy = v4f_load(t->scale.y), sz = v4f_load(t->scale.z);
    o->m[0][0] = v4f_mul(v4f_sub(one, v4f_add(yy, zz)), sx);
    o->m[0][1] = v4f_mul(v4f_add(xy, wz), sx);
    o->m[0][2] = v4f_mul(v4f_sub(xz, wy), sx);
    o->m[1][0] = v4f_mul(v4f_sub(xy, wz), sy);
    o->m[1][1] = v4f_mul(v4f_sub(one, v4f_add(xx, zz)), sy);
    o->m[1][2] = v4f_mul(v4f_add(yz, wx), sy);
    o->m[2][0] = v4f_mul(v4f_add(xz, wy), sz);
    o->m[2][1] = v4f_mul(v4f_sub(yz, wx), sz);
    o->m[2][2] = v4f_mul(v4f_sub(one, v4f_add(xx, yy)), sz);
    o->m[3][0] = v4f_load(t->translation.x);
    o->m[3][1] = v4f_load(t->translation.y);
    o->m[3][2] = v4f_load(t->translation.z);
}

/* model = parent * local for the joint in lane LANE (a constant once inlined): each local
 * entry is splat straight from the SoA registers, so no transpose is needed, and the
 * implicit bottom row saves the terms that multiply by 0 or 1. The parent is read through
 * its pointer at each use: the stores to `dst` between columns keep the compiler from
 * holding it in registers, so its loads fold into the multiplications. */
#define JOINT_MATRIX(o, parent, LANE, dst)                                                                             \
    do {                                                                                                               \
        const ossa_float4x4 *p = (parent);                                                                             \
        ossa_float4x4 *d = (dst);                                                                                      \
        for (int c_ = 0; c_ < 3; ++c_)                                                                                 \
            v4f_store(d->cols[c_], v4f_madd(v4f_load(p->cols[0]), V4F_SPLAT((o)->m[c_][0], LANE),                      \
                                            v4f_madd(v4f_load(p->cols[1]), V4F_SPLAT((o)->m[c_][1], LANE),             \
                                                     v4f_mul(v4f_load(p->cols[2]), V4F_SPLAT((o)->m[c_][2], LANE))))); \
        v4f_store(d->cols[3], v4f_madd(v4f_load(p->cols[0]), V4F_SPLAT((o)->m[3][0], LANE),                            \
                                       v4f_madd(v4f_load(p->cols[1]), V4F_SPLAT((o)->m[3][1], LANE),                   \
                                                v4f_madd(v4f_load(p->cols[2]), V4F_SPLAT((o)->m[3][2], LANE),          \
                                                         v4f_load(p->cols[3])))));                                     \
    } while (0)

/* The job: validation, then the work. */
OSSA__INLINE ossa_result run(const ossa_local_to_model_job *job)
{
    const ossa_result r = ossa_local_to_model_job_validate(job);
    if (r != OSSA_OK) return r;
    const ossa_skeleton *skel = job->skeleton;
    const size_t begin = job->joint_begin, end = job->joint_end ? job->joint_end : skel->joint_count;
    static const ossa_float4x4 identity = {
        {{1.f, 0.f, 0.f, 0.f}, {0.f, 1.f, 0.f, 0.f}, {0.f, 0.f, 1.f, 0.f}, {0.f, 0.f, 0.f, 1.f}}};
    const ossa_float4x4 *root = job->root ? job->root : &identity;
    const int16_t *parents = skel->parents;
    ossa_float4x4 *out = job->output;
    /* Parents are read back from the output, already written (depth-first order). */
#define PARENT(j) (parents[(j)] < 0 ? root : &out[parents[(j)]])

    /* Whole groups in one loop with the four lanes unrolled; the partial groups at either end
     * of the range go lane by lane. */
    size_t group = begin / 4;
    const size_t full_begin = (begin + 3) / 4, full_end = end / 4;
    for (; group * 4 < end; ++group) {
        soa_affine local;
        if (group >= full_begin && group < full_end) {
            for (; group < full_end; ++group) {
                soa_to_affine(&job->input[group], &local);
                const size_t base = group * 4;
                JOINT_MATRIX(&local, PARENT(base), 0, &out[base]);
                JOINT_MATRIX(&local, PARENT(base + 1), 1, &out[base + 1]);
                JOINT_MATRIX(&local, PARENT(base + 2), 2, &out[base + 2]);
                JOINT_MATRIX(&local, PARENT(base + 3), 3, &out[base + 3]);
            }
            if (group * 4 >= end) break;
        }
        soa_to_affine(&job->input[group], &local);
        const size_t base = group * 4;
        const size_t first = base < begin ? begin : base, last = base + 4 < end ? base + 4 : end;
        for (size_t j = first; j < last; ++j) {
            const ossa_float4x4 *pm = PARENT(j);
            switch (j - base) {
            case 0:
                JOINT_MATRIX(&local, pm, 0, &out[j]);
                break;
            case 1:
                JOINT_MATRIX(&local, pm, 1, &out[j]);
                break;
            case 2:
                JOINT_MATRIX(&local, pm, 2, &out[j]);
                break;
            default:
                JOINT_MATRIX(&local, pm, 3, &out[j]);
                break;
            }
        }
    }
#undef PARENT
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__local_to_model_avx2(const ossa_local_to_model_job *job) { return run(job); }
#else
ossa_result ossa_local_to_model_job_run(const ossa_local_to_model_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__local_to_model_avx2(job);
#endif
    return run(job);
}

ossa_result ossa__local_to_model_job_run_baseline(const ossa_local_to_model_job *job) { return run(job); }
#endif
