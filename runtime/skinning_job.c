#include "ossa/skinning_job.h"

#include <math.h>
#include <string.h>

#include "checks.h"
#include "dispatch.h"
#include "simd.h"

/* The kernels below (KERNEL: OSSA__INLINE, checks.h) are instantiated per influence count and
 * stream set; forcing the inlining lets those constants remove the branches and unroll the
 * influence loops. */
#define KERNEL OSSA__INLINE
#if defined(__GNUC__) || defined(__clang__)
#define HIDE(x) __asm__("" : "+r"(x))
#define UNROLL2 _Pragma("GCC unroll 2")
#else
#define UNROLL2
#define HIDE(x) ((void)0)
#endif

#if !defined(OSSA__AVX2_KERNELS) /* the palette: in the baseline compile only (dispatch.h) */

/* ---- palette ---------------------------------------------------------------------------- */

ossa_dual_quat ossa_dual_quat_from_float4x4(const ossa_float4x4 *m)
{
    float c[3][3];
    for (int i = 0; i < 3; ++i) {
        const float len =
            sqrtf(m->cols[i][0] * m->cols[i][0] + m->cols[i][1] * m->cols[i][1] + m->cols[i][2] * m->cols[i][2]);
        const float inv = len > 0.f ? 1.f / len : 0.f;
        for (int r = 0; r < 3; ++r) c[i][r] = m->cols[i][r] * inv;
    }
    /* Rotation matrix to quaternion, branching on the largest of w, x, y, z so the square root
     * is taken of a value >= 1 (Shepperd 1978). c[col][row]. */
    const float tr = c[0][0] + c[1][1] + c[2][2];
    float q[4];
    if (tr > 0.f) {
        const float s = 2.f * sqrtf(tr + 1.f);
        q[3] = .25f * s, q[0] = (c[1][2] - c[2][1]) / s, q[1] = (c[2][0] - c[0][2]) / s, q[2] = (c[0][1] - c[1][0]) / s;
    } else if (c[0][0] >= c[1][1] && c[0][0] >= c[2][2]) {
        const float s = 2.f * sqrtf(1.f + c[0][0] - c[1][1] - c[2][2]);
        q[3] = (c[1][2] - c[2][1]) / s, q[0] = .25f * s, q[1] = (c[1][0] + c[0][1]) / s, q[2] = (c[2][0] + c[0][2]) / s;
    } else if (c[1][1] >= c[2][2]) {
        const float s = 2.f * sqrtf(1.f + c[1][1] - c[0][0] - c[2][2]);
        q[3] = (c[2][0] - c[0][2]) / s, q[0] = (c[1][0] + c[0][1]) / s, q[1] = .25f * s, q[2] = (c[2][1] + c[1][2]) / s;
    } else {
        const float s = 2.f * sqrtf(1.f + c[2][2] - c[0][0] - c[1][1]);
        q[3] = (c[0][1] - c[1][0]) / s, q[0] = (c[2][0] + c[0][2]) / s, q[1] = (c[2][1] + c[1][2]) / s, q[2] = .25f * s;
    }
    float n = sqrtf(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0.f) || !isfinite(n)) q[0] = q[1] = q[2] = 0.f, q[3] = 1.f, n = 1.f;
    if (q[3] < 0.f) n = -n;
    ossa_dual_quat dq;
    for (int i = 0; i < 4; ++i) dq.real[i] = q[i] / n;
    const float *r = dq.real, *t = m->cols[3];
    /* dual = 0.5 * (t, 0) * real */
    dq.dual[0] = .5f * (t[0] * r[3] + t[1] * r[2] - t[2] * r[1]);
    dq.dual[1] = .5f * (t[1] * r[3] + t[2] * r[0] - t[0] * r[2]);
    dq.dual[2] = .5f * (t[2] * r[3] + t[0] * r[1] - t[1] * r[0]);
    dq.dual[3] = -.5f * (t[0] * r[0] + t[1] * r[1] + t[2] * r[2]);
    return dq;
}

ossa_result ossa_skinning_palette_job_validate(const ossa_skinning_palette_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (!job->model || !job->inverse_bind) return OSSA_ERROR_NO_INPUT;
    const size_t n = job->inverse_bind_count;
    if (job->joint_remap ? job->joint_remap_count < n : job->model_count < n) return OSSA_ERROR_INPUT_TOO_SMALL;
    if (!job->output && !job->dual_quats) return OSSA_ERROR_NO_OUTPUT;
    if ((job->output && job->output_count < n) || (job->dual_quats && job->dual_quat_count < n))
        return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if (ossa__misaligned(job->model) || ossa__misaligned(job->inverse_bind) ||
        (job->output && ossa__misaligned(job->output)) || (job->dual_quats && ossa__misaligned(job->dual_quats)))
        return OSSA_ERROR_MISALIGNED;
    if (!ossa__fits(job->model, job->model_count, sizeof(ossa_float4x4)) ||
        !ossa__fits(job->inverse_bind, n, sizeof(ossa_float4x4)) ||
        (job->joint_remap && !ossa__fits(job->joint_remap, n, sizeof *job->joint_remap)) ||
        (job->output && !ossa__fits(job->output, n, sizeof(ossa_float4x4))) ||
        (job->dual_quats && !ossa__fits(job->dual_quats, n, sizeof(ossa_dual_quat))))
        return OSSA_ERROR_SIZE_OVERFLOW;
    const size_t mb = n * sizeof(ossa_float4x4), qb = n * sizeof(ossa_dual_quat);
    const size_t model_bytes = job->model_count * sizeof(ossa_float4x4);
    const size_t remap_bytes = job->joint_remap ? n * sizeof *job->joint_remap : 0;
    if (job->output && (ossa__overlaps(job->output, mb, job->model, model_bytes) ||
                        ossa__overlaps(job->output, mb, job->inverse_bind, mb) ||
                        (remap_bytes && ossa__overlaps(job->output, mb, job->joint_remap, remap_bytes))))
        return OSSA_ERROR_ALIASING;
    if (job->dual_quats && (ossa__overlaps(job->dual_quats, qb, job->model, model_bytes) ||
                            ossa__overlaps(job->dual_quats, qb, job->inverse_bind, mb) ||
                            (remap_bytes && ossa__overlaps(job->dual_quats, qb, job->joint_remap, remap_bytes)) ||
                            (job->output && ossa__overlaps(job->dual_quats, qb, job->output, mb))))
        return OSSA_ERROR_ALIASING;
    if (job->joint_remap)
        for (size_t i = 0; i < n; ++i)
            if (job->joint_remap[i] >= job->model_count) return OSSA_ERROR_INVALID_JOINT_INDEX;
    return OSSA_OK;
}

ossa_result ossa_skinning_palette_job_run(const ossa_skinning_palette_job *job)
{
    const ossa_result r = ossa_skinning_palette_job_validate(job);
    if (r != OSSA_OK) return r;
    for (size_t i = 0; i < job->inverse_bind_count; ++i) {
        const float *a = job->model[job->joint_remap ? job->joint_remap[i] : i].cols[0];
        const float *b = job->inverse_bind[i].cols[0];
        const v4f a0 = v4f_load(a), a1 = v4f_load(a + 4), a2 = v4f_load(a + 8), a3 = v4f_load(a + 12);
        ossa_float4x4 m;
        for (int c = 0; c < 4; ++c) {
            const v4f bc = v4f_load(b + 4 * c);
            v4f_store(m.cols[c], v4f_madd(a0, V4F_SPLAT(bc, 0),
                                          v4f_madd(a1, V4F_SPLAT(bc, 1),
                                                   v4f_madd(a2, V4F_SPLAT(bc, 2), v4f_mul(a3, V4F_SPLAT(bc, 3))))));
        }
        if (job->output) job->output[i] = m;
        if (job->dual_quats) job->dual_quats[i] = ossa_dual_quat_from_float4x4(&m);
    }
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

/* ---- skinning job: validation ----------------------------------------------------------- */

/* The bytes one stream touches: element v is [begin + v * stride, + size). */
typedef struct span {
    uintptr_t begin;
    size_t stride, size;
} span;

static size_t stride_or(size_t stride, size_t packed) { return stride ? stride : packed; }

#if !defined(OSSA__AVX2_KERNELS) /* validation: in the baseline compile only (dispatch.h) */

/* Whether two streams over `n` elements share a byte. Streams of one interleaved buffer (the
 * same stride, fields at disjoint offsets within it) do not. */
/* Bytes from the first element's start to the last one's end, saturated (a count too large
 * for the address space then overlaps everything rather than wrapping around). */
static size_t span_bytes(span a, size_t n)
{
    if (n - 1 > (SIZE_MAX - a.size) / a.stride) return SIZE_MAX - a.begin;
    return (n - 1) * a.stride + a.size;
}

static bool spans_conflict(span a, span b, size_t n)
{
    if (!a.begin || !b.begin || n == 0) return false;
    if (!ossa__overlaps((const void *)a.begin, span_bytes(a, n), (const void *)b.begin, span_bytes(b, n))) return false;
    if (a.stride != b.stride) return true;
    const size_t s = a.stride;
    const size_t r = b.begin >= a.begin ? (b.begin - a.begin) % s : (s - (a.begin - b.begin) % s) % s;
    return !(a.size <= r && r + b.size <= s);
}

/* Whether a stream's n elements lie within the address space from its start (absent streams
 * and n == 0 do): a span that wraps describes no buffer, and the byte offsets v * stride
 * computed from it would wrap too. */
static bool span_fits(span a, size_t n)
{
    if (!a.begin || n == 0) return true;
    const size_t room = UINTPTR_MAX - a.begin;
    return a.size <= room && n - 1 <= (room - a.size) / a.stride;
}

static bool stride_bad(size_t stride, size_t size, size_t align) { return stride < size || stride % align != 0; }

static bool misaligned4(const void *p) { return ((uintptr_t)p & 3u) != 0; }

/* Whether some joint index is >= limit: packed indices 8 at a time, strided ones one by one. */
static bool indices_out_of_range(const ossa_joint_indices *ji, size_t k, size_t n, size_t limit)
{
    if (limit == 0) return n > 0;
    const size_t stride = stride_or(ji->stride, 2 * k);
    if (limit > 0xffff) return false;
    const uint16_t *p = ji->data;
    if (stride == 2 * k) {
        const size_t total = n * k;
        size_t i = 0;
        uint32_t max = 0;
        if (total >= 8) {
            /* Four accumulators, 32 indices per step: this pass is part of every run. The
             * maxima are signed ones of indices biased by 0x8000 (SSE2 has no unsigned one). */
            const v4i bias = v8u16_set1(0x8000);
            v4i m0 = bias, m1 = bias, m2 = bias, m3 = bias;
            for (; i + 32 <= total; i += 32) {
                m0 = v8i16_max(m0, v4i_xor(v8u16_loadu((const uint8_t *)(p + i)), bias));
                m1 = v8i16_max(m1, v4i_xor(v8u16_loadu((const uint8_t *)(p + i + 8)), bias));
                m2 = v8i16_max(m2, v4i_xor(v8u16_loadu((const uint8_t *)(p + i + 16)), bias));
                m3 = v8i16_max(m3, v4i_xor(v8u16_loadu((const uint8_t *)(p + i + 24)), bias));
            }
            for (; i + 8 <= total; i += 8) m0 = v8i16_max(m0, v4i_xor(v8u16_loadu((const uint8_t *)(p + i)), bias));
            max = v8u16_hmax(v4i_xor(v8i16_max(v8i16_max(m0, m1), v8i16_max(m2, m3)), bias));
        }
        for (; i < total; ++i) max = p[i] > max ? p[i] : max;
        return max >= limit;
    }
    size_t v = 0;
    if (k <= 4 && stride + 2 * k >= 8 && n > 1) {
        /* Interleaved: 8 bytes per vertex, lanes past the influences masked to 0; an 8-byte
         * load stays inside the stream's span for every vertex but the last. */
        static const uint16_t lanes[12] = {0xffff, 0xffff, 0xffff, 0xffff};
        const v4i keep = v8u16_loadu((const uint8_t *)(lanes + 4 - k)), bias = v8u16_set1(0x8000);
        v4i m = bias;
        for (; v + 1 < n; ++v) {
            const v4i e = v8u16_load4((const uint16_t *)(const void *)((const char *)p + v * stride));
            m = v8i16_max(m, v4i_xor(v4i_and(e, keep), bias));
        }
        if (v8u16_hmax(v4i_xor(m, bias)) >= limit) return true;
    }
    for (; v < n; ++v) {
        const uint16_t *e = (const uint16_t *)(const void *)((const char *)p + v * stride);
        for (size_t j = 0; j < k; ++j)
            if (e[j] >= limit) return true;
    }
    return false;
}

ossa_result ossa_skinning_job_validate(const ossa_skinning_job *job)
{
    if (!job) return OSSA_ERROR_NULL_ARGUMENT;
    if (job->method != OSSA_SKINNING_LINEAR && job->method != OSSA_SKINNING_DUAL_QUAT)
        return OSSA_ERROR_INVALID_ARGUMENT;
    const size_t k = job->influence_count, n = job->vertex_count;
    /* 2 * k index bytes and 4 * (k - 1) weight bytes per vertex must be countable. */
    if (k == 0 || k > SIZE_MAX / 4) return OSSA_ERROR_INVALID_INFLUENCES;
    const bool linear = job->method == OSSA_SKINNING_LINEAR;
    if (linear ? !job->palette : !job->dual_quats) return OSSA_ERROR_NO_PALETTE;
    if (!job->joint_indices.data || (k > 1 && !job->joint_weights.data)) return OSSA_ERROR_NO_JOINT_DATA;
    if (!job->in_positions.data || (job->out_normals.data && !job->in_normals.data) ||
        (job->out_tangents.data && !job->in_tangents.data))
        return OSSA_ERROR_NO_INPUT;
    if (!job->out_positions.data || (job->in_normals.data && !job->out_normals.data) ||
        (job->in_tangents.data && !job->out_tangents.data))
        return OSSA_ERROR_NO_OUTPUT;
    const bool normals = job->in_normals.data != NULL, tangents = job->in_tangents.data != NULL;
    const size_t is = stride_or(job->joint_indices.stride, 2 * k),
                 ws = stride_or(job->joint_weights.stride, 4 * (k - 1));
    const size_t pis = stride_or(job->in_positions.stride, 12), pos = stride_or(job->out_positions.stride, 12);
    const size_t nis = stride_or(job->in_normals.stride, 12), nos = stride_or(job->out_normals.stride, 12);
    const size_t tis = stride_or(job->in_tangents.stride, 16), tos = stride_or(job->out_tangents.stride, 16);
    if (stride_bad(is, 2 * k, 2) || (k > 1 && stride_bad(ws, 4 * (k - 1), 4)) || stride_bad(pis, 12, 4) ||
        stride_bad(pos, 12, 4) || (normals && (stride_bad(nis, 12, 4) || stride_bad(nos, 12, 4))) ||
        (tangents && (stride_bad(tis, 16, 4) || stride_bad(tos, 16, 4))))
        return OSSA_ERROR_INVALID_STRIDE;
    if (job->joint_indices.count < n || (k > 1 && job->joint_weights.count < n) || job->in_positions.count < n ||
        (normals && job->in_normals.count < n) || (tangents && job->in_tangents.count < n))
        return OSSA_ERROR_INPUT_TOO_SMALL;
    if (job->out_positions.count < n || (normals && job->out_normals.count < n) ||
        (tangents && job->out_tangents.count < n))
        return OSSA_ERROR_OUTPUT_TOO_SMALL;
    if ((linear ? ossa__misaligned(job->palette) : ossa__misaligned(job->dual_quats)) ||
        ((uintptr_t)job->joint_indices.data & 1u) || (k > 1 && misaligned4(job->joint_weights.data)) ||
        misaligned4(job->in_positions.data) || misaligned4(job->out_positions.data) ||
        misaligned4(job->in_normals.data) || misaligned4(job->out_normals.data) || misaligned4(job->in_tangents.data) ||
        misaligned4(job->out_tangents.data))
        return OSSA_ERROR_MISALIGNED;

    /* Inputs: positions, normals, tangents, indices, weights; outputs: the first three. */
    const span in[5] = {{(uintptr_t)job->in_positions.data, pis, 12},
                        {(uintptr_t)job->in_normals.data, nis, 12},
                        {(uintptr_t)job->in_tangents.data, tis, 16},
                        {(uintptr_t)job->joint_indices.data, is, 2 * k},
                        {k > 1 ? (uintptr_t)job->joint_weights.data : 0, ws, 4 * (k - 1)}};
    const span out[3] = {{(uintptr_t)job->out_positions.data, pos, 12},
                         {(uintptr_t)job->out_normals.data, nos, 12},
                         {(uintptr_t)job->out_tangents.data, tos, 16}};
    const size_t palette_bytes =
        linear ? job->palette_count * sizeof(ossa_float4x4) : job->dual_quat_count * sizeof(ossa_dual_quat);
    const void *palette = linear ? (const void *)job->palette : (const void *)job->dual_quats;
    for (int i = 0; i < 5; ++i)
        if (!span_fits(in[i], n)) return OSSA_ERROR_SIZE_OVERFLOW;
    for (int o = 0; o < 3; ++o)
        if (!span_fits(out[o], n)) return OSSA_ERROR_SIZE_OVERFLOW;
    if (!ossa__fits(palette, linear ? job->palette_count : job->dual_quat_count,
                    linear ? sizeof(ossa_float4x4) : sizeof(ossa_dual_quat)))
        return OSSA_ERROR_SIZE_OVERFLOW;
    for (int o = 0; o < 3; ++o) {
        if (!out[o].begin || n == 0) continue;
        for (int i = 0; i < 5; ++i) {
            const bool in_place = i == o && out[o].begin == in[i].begin && out[o].stride == in[i].stride;
            if (!in_place && spans_conflict(out[o], in[i], n)) return OSSA_ERROR_ALIASING;
        }
        for (int p = o + 1; p < 3; ++p)
            if (spans_conflict(out[o], out[p], n)) return OSSA_ERROR_ALIASING;
        if (ossa__overlaps((const void *)out[o].begin, span_bytes(out[o], n), palette, palette_bytes))
            return OSSA_ERROR_ALIASING;
    }
    if (indices_out_of_range(&job->joint_indices, k, n, linear ? job->palette_count : job->dual_quat_count))
        return OSSA_ERROR_INVALID_JOINT_INDEX;
    return OSSA_OK;
}

#endif /* !OSSA__AVX2_KERNELS */

/* ---- skinning job: kernels -------------------------------------------------------------- */

/* The job's streams as byte pointers and resolved strides. */
typedef struct plan {
    const char *idx, *w, *pin, *nin, *tin;
    char *pout, *nout, *tout;
    size_t is, ws, pis, pos, nis, nos, tis, tos;
    size_t k;
    const ossa_float4x4 *pal;
    const ossa_dual_quat *dq;
} plan;

static inline v4f splat_lane(v4f v, size_t lane)
{
    switch (lane) {
    case 0:
        return V4F_SPLAT(v, 0);
    case 1:
        return V4F_SPLAT(v, 1);
    case 2:
        return V4F_SPLAT(v, 2);
    default:
        return V4F_SPLAT(v, 3);
    }
}

/* A float3: 16 bytes unless it is the stream's last element (the 4th lane is never used). */
KERNEL v4f load_float3(const char *p, bool last)
{
    return last ? v4f_load3((const float *)(const void *)p) : v4f_loadu((const float *)(const void *)p);
}

/* A float3: 16 bytes into a packed stream whose next element is written afterwards. */
KERNEL void store_float3(char *p, v4f v, bool wide)
{
    if (wide)
        v4f_storeu((float *)(void *)p, v);
    else
        v4f_store3((float *)(void *)p, v);
}

/* x, y, z, w of the tangent: the transformed direction with the input's w. */
KERNEL v4f with_w(v4f xyz, v4f in)
{
    const v4f zw = V4F_SHUFFLE(xyz, in, 2, 2, 3, 3);
    return V4F_SHUFFLE(xyz, zw, 0, 1, 0, 2);
}

KERNEL v4f xform_point(v4f c0, v4f c1, v4f c2, v4f c3, v4f p)
{
    return v4f_add(v4f_add(v4f_mul(c0, V4F_SPLAT(p, 0)), v4f_mul(c1, V4F_SPLAT(p, 1))),
                   v4f_add(v4f_mul(c2, V4F_SPLAT(p, 2)), c3));
}

KERNEL v4f xform_vector(v4f c0, v4f c1, v4f c2, v4f p)
{
    return v4f_add(v4f_add(v4f_mul(c0, V4F_SPLAT(p, 0)), v4f_mul(c1, V4F_SPLAT(p, 1))), v4f_mul(c2, V4F_SPLAT(p, 2)));
}

/* The palette as four column arrays: column c of matrix i is at c[c] + 64 i. The bases of
 * columns 1 to 3 are hidden from the optimiser, so each load addresses base + offset rather
 * than an add per index (pointer to the matrix) followed by displacements. */
typedef struct columns {
    const char *c[4];
} columns;

KERNEL columns palette_columns(const ossa_float4x4 *pal)
{
    columns r = {{(const char *)pal, (const char *)pal + 16, (const char *)pal + 32, (const char *)pal + 48}};
    HIDE(r.c[1]);
    HIDE(r.c[2]);
    HIDE(r.c[3]);
    return r;
}

/* Byte offset of matrix `joint`. */
KERNEL size_t matrix_offset(uint16_t joint) { return (size_t)joint * sizeof(ossa_float4x4); }

KERNEL v4f column(const columns *pc, size_t off, int c)
{
    return v4f_load((const float *)(const void *)(pc->c[c] + off));
}

KERNEL v4f xform_palette(const columns *pc, size_t off, v4f p)
{
    return xform_point(column(pc, off, 0), column(pc, off, 1), column(pc, off, 2), column(pc, off, 3), p);
}

/* The explicit weights of a vertex (K - 1 of them, K constant 3 or 4) in lanes 0..K-2. */
KERNEL v4f load_weights(const float *w, size_t K, bool last)
{
    if (K == 3) return v4f_load2(w);
    return last ? v4f_load3(w) : v4f_loadu(w);
}

/* How the streams of a range are addressed. */
enum {
    STRIDED, /* each stream by its own stride */
    PACKED,  /* default strides and nothing in place: 16-byte stores are safe (the next vertex
                overwrites the 4th float), and one offset serves every 12-byte stream */
    SHARED,  /* one interleaved input (every input stream has one stride) and one interleaved
                output (one stride): two offsets serve every stream */
};

/* Linear blend skinning of vertices [begin, end). K: the influence count when 1..4, 0 to read
 * it from the plan. N, T: normals, tangents. mode: STRIDED, PACKED or SHARED. last: the range
 * is the job's last vertex, loaded and stored with exact sizes. */
KERNEL void lbs(const plan *p, size_t begin, size_t end, size_t K, bool N, bool T, int mode, bool last)
{
    const bool packed = mode == PACKED, shared = mode == SHARED;
    const size_t k = K ? K : p->k;
    const size_t is = packed ? 2 * k : p->is, ws = packed ? 4 * (k - 1) : p->ws;
    const size_t pis = packed ? 12 : p->pis, pos = packed ? 12 : p->pos, nis = packed ? 12 : p->nis,
                 nos = packed ? 12 : p->nos, tis = packed ? 16 : p->tis, tos = packed ? 16 : p->tos;
    const columns pc = palette_columns(p->pal);
    const bool wide = packed && !last;
    /* Locals, so the stores (char pointers, which may alias the plan) need no reloads. */
    const char *const idx = p->idx, *const wts = p->w, *const pin = p->pin, *const nin = p->nin, *const tin = p->tin;
    char *const pout = p->pout, *const nout = p->nout, *const tout = p->tout;
    /* Input and output byte offsets (PACKED: the 12-byte streams'; SHARED: the interleaved
     * buffers'), hidden from the optimiser, which would otherwise turn each stream into its own
     * pointer and add to each per vertex. */
    const size_t in_step = packed ? 12 : shared ? pis : 0, out_step = shared ? pos : 0;
    size_t oi = begin * in_step, oo = begin * out_step;
    UNROLL2
    for (size_t v = begin; v < end; ++v, oi += in_step, oo += out_step) {
        HIDE(oi);
        if (shared) HIDE(oo);
        const size_t o_idx = shared ? oi : v * is, o_w = shared || (packed && K == 4) ? oi : v * ws;
        const size_t o_pin = packed || shared ? oi : v * pis, o_nin = packed || shared ? oi : v * nis;
        const size_t o_tin = shared ? oi : v * tis, o_tout = shared ? oo : v * tos;
        const size_t o_pout = packed ? oi : shared ? oo : v * pos, o_nout = packed ? oi : shared ? oo : v * nos;
        const uint16_t *ji = (const uint16_t *)(const void *)(idx + o_idx);
        const float *jw = (const float *)(const void *)(wts + o_w);
        const v4f pp = load_float3(pin + o_pin, last);
        const v4f nn = N ? load_float3(nin + o_nin, last) : v4f_zero();
        const v4f tt = T ? v4f_loadu((const float *)(const void *)(tin + o_tin)) : v4f_zero();
        char *const po = pout + o_pout;
        char *const no = N ? nout + o_nout : NULL; /* no offset on NULL */
        char *const to = T ? tout + o_tout : NULL;
        if (!N && !T && K >= 2) {
            /* Positions only: each joint transforms the point, then the results are blended
             * relative to the last joint's (r = r_last + sum w_j (r_j - r_last)), which needs
             * no implicit weight and fewer operations than blending 4 matrix columns. */
            const v4f rl = xform_palette(&pc, matrix_offset(ji[K - 1]), pp);
            v4f acc = rl;
            if (K == 2) {
                acc = v4f_madd(v4f_sub(xform_palette(&pc, matrix_offset(ji[0]), pp), rl), v4f_set1(jw[0]), acc);
            } else {
                const v4f wv = load_weights(jw, K, last);
                for (size_t j = 0; j + 1 < K; ++j)
                    acc = v4f_madd(v4f_sub(xform_palette(&pc, matrix_offset(ji[j]), pp), rl), splat_lane(wv, j), acc);
            }
            store_float3(po, acc, wide);
            continue;
        }
        v4f c0, c1, c2, c3;
        if (K == 1) {
            const size_t m = matrix_offset(ji[0]);
            c0 = column(&pc, m, 0), c1 = column(&pc, m, 1), c2 = column(&pc, m, 2), c3 = column(&pc, m, 3);
        } else if (K == 2) { /* m1 + w0 (m0 - m1) */
            const size_t a = matrix_offset(ji[0]), b = matrix_offset(ji[1]);
            const v4f w = v4f_set1(jw[0]);
            const v4f b0 = column(&pc, b, 0), b1 = column(&pc, b, 1), b2 = column(&pc, b, 2), b3 = column(&pc, b, 3);
            c0 = v4f_madd(v4f_sub(column(&pc, a, 0), b0), w, b0);
            c1 = v4f_madd(v4f_sub(column(&pc, a, 1), b1), w, b1);
            c2 = v4f_madd(v4f_sub(column(&pc, a, 2), b2), w, b2);
            c3 = v4f_madd(v4f_sub(column(&pc, a, 3), b3), w, b3);
        } else if (K == 3 || K == 4) {
            const v4f wv = load_weights(jw, K, last);
            v4f wl = v4f_one();
            size_t m = matrix_offset(ji[0]);
            const v4f w0 = splat_lane(wv, 0);
            wl = v4f_sub(wl, w0);
            c0 = v4f_mul(column(&pc, m, 0), w0), c1 = v4f_mul(column(&pc, m, 1), w0);
            c2 = v4f_mul(column(&pc, m, 2), w0), c3 = v4f_mul(column(&pc, m, 3), w0);
            for (size_t j = 1; j < K; ++j) {
                v4f w;
                if (j + 1 < K)
                    w = splat_lane(wv, j), wl = v4f_sub(wl, w);
                else
                    w = wl;
                m = matrix_offset(ji[j]);
                c0 = v4f_madd(column(&pc, m, 0), w, c0), c1 = v4f_madd(column(&pc, m, 1), w, c1);
                c2 = v4f_madd(column(&pc, m, 2), w, c2), c3 = v4f_madd(column(&pc, m, 3), w, c3);
            }
        } else { /* any count: weights one by one */
            c0 = c1 = c2 = c3 = v4f_zero();
            float wl = 1.f;
            for (size_t j = 0; j < k; ++j) {
                const float wj = j + 1 < k ? jw[j] : wl;
                wl -= wj;
                const v4f w = v4f_set1(wj);
                const size_t m = matrix_offset(ji[j]);
                c0 = v4f_madd(column(&pc, m, 0), w, c0), c1 = v4f_madd(column(&pc, m, 1), w, c1);
                c2 = v4f_madd(column(&pc, m, 2), w, c2), c3 = v4f_madd(column(&pc, m, 3), w, c3);
            }
        }
        store_float3(po, xform_point(c0, c1, c2, c3, pp), wide);
        if (N) store_float3(no, xform_vector(c0, c1, c2, nn), wide);
        if (T) v4f_storeu((float *)(void *)to, with_w(xform_vector(c0, c1, c2, tt), tt));
    }
}

/* p rotated by unit quaternion r (x, y, z, w lanes): p + 2 r.xyz x (r.xyz x p + r.w p). */
/* a x b (lanes 0..2), with a's lanes (y, z, x, w) precomputed once for several products. */
KERNEL v4f cross_with(v4f a, v4f a_yzx, v4f b)
{
    const v4f c = v4f_sub(v4f_mul(a, V4F_SHUFFLE(b, b, 1, 2, 0, 3)), v4f_mul(a_yzx, b));
    return V4F_SHUFFLE(c, c, 1, 2, 0, 3);
}

/* p rotated by unit quaternion r (x, y, z, w lanes): p + 2 r.xyz x (r.xyz x p + r.w p). */
KERNEL v4f rotate(v4f r, v4f r_yzx, v4f rw, v4f p)
{
    const v4f t = v4f_add(cross_with(r, r_yzx, p), v4f_mul(rw, p));
    const v4f c = cross_with(r, r_yzx, t);
    return v4f_add(p, v4f_add(c, c));
}

/* Dual quaternion skinning of vertices [begin, end); parameters as lbs(). Each dual quaternion
 * is taken in the hemisphere of the first influence's (its weight negated when the real parts'
 * dot product is negative), the sum is normalised by its real part's length, and the vertex is
 * rotated by the real part and translated by 2 dual * conj(real). */
KERNEL void dqs(const plan *p, size_t begin, size_t end, size_t K, bool N, bool T, bool last)
{
    const size_t k = K ? K : p->k;
    const ossa_dual_quat *dq = p->dq;
    const v4f sign_bit = v4f_set1(-0.f);
    const char *const idx = p->idx, *const wts = p->w, *const pin = p->pin, *const nin = p->nin, *const tin = p->tin;
    char *const pout = p->pout, *const nout = p->nout, *const tout = p->tout;
    const size_t is = p->is, ws = p->ws, pis = p->pis, pos = p->pos, nis = p->nis, nos = p->nos, tis = p->tis,
                 tos = p->tos;
    UNROLL2
    for (size_t v = begin; v < end; ++v) {
        const uint16_t *ji = (const uint16_t *)(const void *)(idx + v * is);
        const float *jw = (const float *)(const void *)(wts + v * ws);
        const v4f pp = load_float3(pin + v * pis, last);
        const v4f nn = N ? load_float3(nin + v * nis, last) : v4f_zero();
        const v4f tt = T ? v4f_loadu((const float *)(const void *)(tin + v * tis)) : v4f_zero();
        const v4f r0 = v4f_load(dq[ji[0]].real), d0 = v4f_load(dq[ji[0]].dual);
        v4f r = r0, d = d0;
        if (k > 1) {
            /* K 3 and 4: the explicit weights in one load, splat per influence. */
            const bool vec = K == 3 || K == 4;
            const v4f wv = vec ? load_weights(jw, K, last) : v4f_zero();
            const v4f w0 = vec ? splat_lane(wv, 0) : v4f_set1(jw[0]);
            v4f wl = v4f_sub(v4f_one(), w0);
            r = v4f_mul(r0, w0), d = v4f_mul(d0, w0);
            for (size_t j = 1; j < k; ++j) {
                v4f w = wl;
                if (j + 1 < k) w = vec ? splat_lane(wv, j) : v4f_set1(jw[j]), wl = v4f_sub(wl, w);
                const v4f rj = v4f_load(dq[ji[j]].real), dj = v4f_load(dq[ji[j]].dual);
                w = v4f_xor(w, v4f_and(v4f_dot4(r0, rj), sign_bit));
                r = v4f_madd(rj, w, r), d = v4f_madd(dj, w, d);
            }
            const v4f inv = v4f_rsqrt(v4f_dot4(r, r));
            r = v4f_mul(r, inv), d = v4f_mul(d, inv);
        }
        const v4f rw = V4F_SPLAT(r, 3), dw = V4F_SPLAT(d, 3), r_yzx = V4F_SHUFFLE(r, r, 1, 2, 0, 3);
        /* translation: 2 (r.w d.xyz - d.w r.xyz + r.xyz x d.xyz) */
        const v4f t = v4f_add(v4f_sub(v4f_mul(rw, d), v4f_mul(dw, r)), cross_with(r, r_yzx, d));
        store_float3(pout + v * pos, v4f_add(rotate(r, r_yzx, rw, pp), v4f_add(t, t)), false);
        if (N) store_float3(nout + v * nos, rotate(r, r_yzx, rw, nn), false);
        if (T) v4f_storeu((float *)(void *)(tout + v * tos), with_w(rotate(r, r_yzx, rw, tt), tt));
    }
}

typedef void (*kernel_fn)(const plan *p, size_t begin, size_t end);

#define LBS_KERNEL(K, N, T, M)                                                                                         \
    static void lbs_##K##_##N##T##_##M(const plan *p, size_t b, size_t e) { lbs(p, b, e, K, N, T, M, false); }
#define LBS_KERNELS_NT(K, N, T) LBS_KERNEL(K, N, T, STRIDED) LBS_KERNEL(K, N, T, PACKED) LBS_KERNEL(K, N, T, SHARED)
#define LBS_KERNELS(K)          LBS_KERNELS_NT(K, 0, 0) LBS_KERNELS_NT(K, 0, 1) LBS_KERNELS_NT(K, 1, 0) LBS_KERNELS_NT(K, 1, 1)
#define DQS_KERNEL(K, N, T)                                                                                            \
    static void dqs_##K##_##N##T(const plan *p, size_t b, size_t e) { dqs(p, b, e, K, N, T, false); }
#define DQS_KERNELS(K) DQS_KERNEL(K, 0, 0) DQS_KERNEL(K, 0, 1) DQS_KERNEL(K, 1, 0) DQS_KERNEL(K, 1, 1)

LBS_KERNELS(0)
LBS_KERNELS(1)
LBS_KERNELS(2)
LBS_KERNELS(3)
LBS_KERNELS(4)
DQS_KERNELS(0)
DQS_KERNELS(1)
DQS_KERNELS(2)
DQS_KERNELS(3)
DQS_KERNELS(4)

#define LBS_MODES(K, N, T)                                                                                             \
    {                                                                                                                  \
        lbs_##K##_##N##T##_STRIDED, lbs_##K##_##N##T##_PACKED, lbs_##K##_##N##T##_SHARED                               \
    }
#define LBS_ROW(K)                                                                                                     \
    {                                                                                                                  \
        {LBS_MODES(K, 0, 0), LBS_MODES(K, 0, 1)}, { LBS_MODES(K, 1, 0), LBS_MODES(K, 1, 1) }                           \
    }
/* [influences or 0][normals][tangents][mode] */
static const kernel_fn lbs_kernels[5][2][2][3] = {LBS_ROW(0), LBS_ROW(1), LBS_ROW(2), LBS_ROW(3), LBS_ROW(4)};
#define DQS_ROW(K)                                                                                                     \
    {                                                                                                                  \
        {dqs_##K##_00, dqs_##K##_01}, { dqs_##K##_10, dqs_##K##_11 }                                                   \
    }
static const kernel_fn dqs_kernels[5][2][2] = {DQS_ROW(0), DQS_ROW(1), DQS_ROW(2), DQS_ROW(3), DQS_ROW(4)};

/* The last vertex (exact-size loads and stores), any influence count and streams. */
static void lbs_last(const plan *p, size_t b, size_t e)
{
    lbs(p, b, e, 0, p->nin != NULL, p->tin != NULL, STRIDED, true);
}
static void dqs_last(const plan *p, size_t b, size_t e) { dqs(p, b, e, 0, p->nin != NULL, p->tin != NULL, true); }

/* The job: validation, then the work. */
OSSA__INLINE ossa_result run(const ossa_skinning_job *job)
{
    const ossa_result r = ossa_skinning_job_validate(job);
    if (r != OSSA_OK) return r;
    const size_t n = job->vertex_count, k = job->influence_count;
    if (n == 0) return OSSA_OK;
    const bool normals = job->in_normals.data != NULL, tangents = job->in_tangents.data != NULL;
    const plan p = {
        .idx = (const char *)job->joint_indices.data,
        .w = (const char *)job->joint_weights.data,
        .pin = (const char *)job->in_positions.data,
        .nin = (const char *)job->in_normals.data,
        .tin = (const char *)job->in_tangents.data,
        .pout = (char *)job->out_positions.data,
        .nout = (char *)job->out_normals.data,
        .tout = (char *)job->out_tangents.data,
        .is = stride_or(job->joint_indices.stride, 2 * k),
        .ws = k > 1 ? stride_or(job->joint_weights.stride, 4 * (k - 1)) : 0, /* weights may be NULL */
        .pis = stride_or(job->in_positions.stride, 12),
        .pos = stride_or(job->out_positions.stride, 12),
        .nis = stride_or(job->in_normals.stride, 12),
        .nos = stride_or(job->out_normals.stride, 12),
        .tis = stride_or(job->in_tangents.stride, 16),
        .tos = stride_or(job->out_tangents.stride, 16),
        .k = k,
        .pal = job->palette,
        .dq = job->dual_quats,
    };
    const size_t K = k <= 4 ? k : 0;
    if (job->method == OSSA_SKINNING_LINEAR) {
        /* Packed streams that are not in place take 16-byte stores and constant strides. */
        const bool packed = p.is == 2 * k && (k == 1 || p.ws == 4 * (k - 1)) && p.pis == 12 && p.pos == 12 &&
                            p.pin != p.pout && (!normals || (p.nis == 12 && p.nos == 12 && p.nin != p.nout)) &&
                            (!tangents || (p.tis == 16 && p.tos == 16 && p.tin != p.tout));
        /* One interleaved input and one interleaved output (in place or not). */
        const bool shared = p.is == p.pis && (k == 1 || p.ws == p.pis) &&
                            (!normals || (p.nis == p.pis && p.nos == p.pos)) &&
                            (!tangents || (p.tis == p.pis && p.tos == p.pos));
        lbs_kernels[K][normals][tangents][packed ? PACKED : shared ? SHARED : STRIDED](&p, 0, n - 1);
        lbs_last(&p, n - 1, n);
    } else {
        dqs_kernels[K][normals][tangents](&p, 0, n - 1);
        dqs_last(&p, n - 1, n);
    }
    return OSSA_OK;
}

#if defined(OSSA__AVX2_KERNELS)
ossa_result ossa__skinning_avx2(const ossa_skinning_job *job) { return run(job); }
#else
ossa_result ossa_skinning_job_run(const ossa_skinning_job *job)
{
#if defined(OSSA__DISPATCH)
    if (ossa__avx2_chosen()) return ossa__skinning_avx2(job);
#endif
    return run(job);
}
#endif
