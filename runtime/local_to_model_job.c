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

/* The columns of a model matrix in registers: those of the joint written last, which its
 * first child in depth-first order (most often the next joint) takes as its parent. Read back
 * from the output instead, each would wait on the store that just wrote it (store-to-load
 * forwarding adds its latency to every level of the chain). */
typedef struct columns {
    v4f c[4];
} columns;

static inline columns load_columns(const ossa_float4x4 *m)
{
    return (columns){{v4f_load(m->cols[0]), v4f_load(m->cols[1]), v4f_load(m->cols[2]), v4f_load(m->cols[3])}};
}

/* model = parent * local for the joint in lane LANE (a constant once inlined), with the
 * parent's column k given by PCOL(k): each local entry is splat straight from the SoA
 * registers, so no transpose is needed, and the implicit bottom row saves the terms that
 * multiply by 0 or 1. The result stays in `res` for a child. */
#define JOINT_MATRIX(o, PCOL, LANE, dst, res)                                                                          \
    do {                                                                                                               \
        ossa_float4x4 *d_ = (dst);                                                                                     \
        for (int c_ = 0; c_ < 3; ++c_)                                                                                 \
            (res).c[c_] = v4f_madd(                                                                                    \
                PCOL(0), V4F_SPLAT((o)->m[c_][0], LANE),                                                               \
                v4f_madd(PCOL(1), V4F_SPLAT((o)->m[c_][1], LANE), v4f_mul(PCOL(2), V4F_SPLAT((o)->m[c_][2], LANE))));  \
        (res).c[3] = v4f_madd(PCOL(0), V4F_SPLAT((o)->m[3][0], LANE),                                                  \
                              v4f_madd(PCOL(1), V4F_SPLAT((o)->m[3][1], LANE),                                         \
                                       v4f_madd(PCOL(2), V4F_SPLAT((o)->m[3][2], LANE), PCOL(3))));                    \
        for (int c_ = 0; c_ < 4; ++c_) v4f_store(d_->cols[c_], (res).c[c_]);                                           \
    } while (0)
/* The parent's columns: the registers of the joint before when it is the parent (and was
 * computed in this call: not `fresh`), the root's (in registers too) for a joint without
 * parent, else read from the output. */
#define PCOL(k) pc_.c[k]
#define JOINT(o, j, LANE, fresh)                                                                                       \
    do {                                                                                                               \
        const int p_ = parents[(j)];                                                                                   \
        const columns pc_ = !(fresh) && (size_t)p_ + 1u == (j) ? prev                                                  \
                            : p_ < 0                           ? root_columns                                          \
                                                               : load_columns(&out[p_]);                                                         \
        JOINT_MATRIX(o, PCOL, LANE, &out[(j)], prev);                                                                  \
    } while (0)

/* The model matrices of the four joints of a group as joints without a parent under the
 * identity root: their local matrices, the SoA rows transposed into each lane's columns
 * (column c of lane l is m[c][0..2] of lane l, then 0, or 1 for the translation). These are
 * the values of the product by the identity (a physics bake, whose joints all hang from the
 * root, then costs four transposes a group instead of four matrix products), but for the sign
 * of zero entries, so every joint without a parent takes this path, in whole and partial
 * groups alike, and a range writes the same bytes as a whole run. */
static inline void unparented(const soa_affine *o, columns lane[4])
{
    for (int c = 0; c < 4; ++c) {
        v4f r0 = o->m[c][0], r1 = o->m[c][1], r2 = o->m[c][2], r3 = c == 3 ? v4f_one() : v4f_zero();
        v4f_transpose4(&r0, &r1, &r2, &r3);
        lane[0].c[c] = r0, lane[1].c[c] = r1, lane[2].c[c] = r2, lane[3].c[c] = r3;
    }
}

static inline void store_columns(ossa_float4x4 *m, const columns *c)
{
    for (int k = 0; k < 4; ++k) v4f_store(m->cols[k], c->c[k]);
}

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
    const columns root_columns = load_columns(root);
    columns prev = root_columns; /* read only after a joint of this call has set it */
    /* Joints without a parent under the identity root take unparented(); with a root matrix
     * they multiply it like any parent. */
    const bool identity_root = job->root == NULL;

    /* Whole groups in one loop with the four lanes unrolled; the partial groups at either end
     * of the range, and groups that mix joints with and without a parent under the identity
     * root, go lane by lane. */
    size_t group = begin / 4;
    const size_t full_begin = (begin + 3) / 4, full_end = end / 4;
    for (; group * 4 < end; ++group) {
        soa_affine local;
        for (; group >= full_begin && group < full_end; ++group) {
            const size_t b = group * 4;
            /* The sign bits of the group's four parents in one load: all set, none, or mixed. */
            uint64_t signs;
            memcpy(&signs, parents + b, sizeof signs);
            signs = identity_root ? signs & UINT64_C(0x8000800080008000) : 0u;
            const bool all_roots = signs == UINT64_C(0x8000800080008000);
            if (signs != 0u && !all_roots) break;
            soa_to_affine(&job->input[group], &local);
            if (all_roots) {
                columns lane[4];
                unparented(&local, lane);
                for (int l = 0; l < 4; ++l) store_columns(&out[b + (size_t)l], &lane[l]);
                prev = lane[3];
                continue;
            }
            JOINT(&local, b, 0, b == begin);
            JOINT(&local, b + 1, 1, false);
            JOINT(&local, b + 2, 2, false);
            JOINT(&local, b + 3, 3, false);
        }
        if (group * 4 >= end) break;
        const size_t g0 = group * 4;
        soa_to_affine(&job->input[group], &local);
        columns lane[4];
        unparented(&local, lane);
        const size_t first = g0 < begin ? begin : g0, last = g0 + 4 < end ? g0 + 4 : end;
        for (size_t j = first; j < last; ++j) {
            if (identity_root && parents[j] < 0) {
                store_columns(&out[j], &lane[j - g0]);
                prev = lane[j - g0];
                continue;
            }
            /* The first joint of the range has no joint before it in this call. */
            switch (j - g0) {
            case 0:
                JOINT(&local, j, 0, j == begin);
                break;
            case 1:
                JOINT(&local, j, 1, j == begin);
                break;
            case 2:
                JOINT(&local, j, 2, j == begin);
                break;
            default:
                JOINT(&local, j, 3, j == begin);
                break;
            }
        }
    }
#undef JOINT
#undef PCOL
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
