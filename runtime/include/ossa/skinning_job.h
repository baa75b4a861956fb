/* ossa/skinning_job.h: skinning palettes and the skinning job (linear blend and dual
 * quaternion), deforming vertex positions, normals and tangents by weighted joints.
 *
 *   ossa_skinning_palette_job pal = {.model = models, .model_count = skel.joint_count,
 *                                    .inverse_bind = inv_bind, .inverse_bind_count = mesh_joints,
 *                                    .joint_remap = remap, .joint_remap_count = mesh_joints,
 *                                    .output = palette, .output_count = mesh_joints};
 *   ossa_skinning_palette_job_run(&pal);
 *   ossa_skinning_job job = {.vertex_count = n, .influence_count = 4,
 *                            .palette = palette, .palette_count = mesh_joints,
 *                            .joint_indices = {indices, 0, n}, .joint_weights = {weights, 0, n},
 *                            .in_positions = {pos, 0, n}, .out_positions = {skinned, 0, n}};
 *   ossa_result r = ossa_skinning_job_run(&job);
 *
 * Ownership: jobs are plain structs over caller memory; nothing is allocated or kept between
 * runs. Jobs with distinct outputs run in parallel safely. docs/skinning.md has a walk-through.
 */
#ifndef OSSA_SKINNING_JOB_H
#define OSSA_SKINNING_JOB_H

#include "ossa/maths.h"
#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A unit dual quaternion: rigid transform "rotate by `real`, then translate by t", with
 * dual = 0.5 * (t, 0) * real. Both parts are (x, y, z, w), 16-byte aligned (32 bytes).
 * Source: L. Kavan, S. Collins, J. Zara, C. O'Sullivan, "Geometric skinning with approximate
 * dual quaternion blending", ACM TOG 27(4), 2008 (the 2007 I3D paper's journal version). */
typedef struct ossa_dual_quat {
    OSSA_ALIGNAS(16) float real[4];
    OSSA_ALIGNAS(16) float dual[4];
} ossa_dual_quat;

/* The unit dual quaternion of the rigid part of affine matrix `m`: the rotation of its 3x3
 * after each column is normalised (scale and shear are dropped), and its translation. A
 * column of length 0 gives the identity rotation. The real part has w >= 0. */
OSSA_API ossa_dual_quat ossa_dual_quat_from_float4x4(const ossa_float4x4 *m);

/* Builds skinning matrices (and, optionally, their dual quaternions):
 *   output[i] = model[joint_remap[i]] * inverse_bind[i]   for i in [0, inverse_bind_count).
 * Fields (zero-initialised: nothing set; each pointer below except joint_remap is required
 * unless marked optional):
 *   model          [model_count] model-space joint matrices of the skeleton (the output of
 *                  ossa_local_to_model_job), 16-byte aligned
 *   inverse_bind   [inverse_bind_count] inverse bind matrices of the mesh's joints, 16-byte
 *                  aligned. Its count is the palette size and sets the work size.
 *   joint_remap    optional [joint_remap_count >= inverse_bind_count] skeleton joint of each
 *                  mesh joint, each < model_count; NULL: mesh joint i is skeleton joint i
 *                  (then model_count >= inverse_bind_count)
 *   output         optional [output_count >= inverse_bind_count] skinning matrices for
 *                  OSSA_SKINNING_LINEAR, 16-byte aligned
 *   dual_quats     optional [dual_quat_count >= inverse_bind_count] the same transforms as
 *                  ossa_dual_quat_from_float4x4 gives, for OSSA_SKINNING_DUAL_QUAT
 * At least one of output and dual_quats is needed.
 * Shapes: matrices column-major, p' = M * p (ossa/maths.h).
 * Units: the skeleton's and the mesh's (they must agree; translations in the same unit).
 * Errors (nothing is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_NO_INPUT (model or
 * inverse_bind NULL), OSSA_ERROR_INPUT_TOO_SMALL (no remap and model_count <
 * inverse_bind_count, or joint_remap_count < inverse_bind_count), OSSA_ERROR_NO_OUTPUT (both
 * outputs NULL), OSSA_ERROR_OUTPUT_TOO_SMALL, OSSA_ERROR_INVALID_JOINT_INDEX (a remap entry >=
 * model_count), OSSA_ERROR_MISALIGNED (a matrix or dual quaternion array not 16-byte
 * aligned), OSSA_ERROR_SIZE_OVERFLOW (an array's count of elements from its pointer runs past
 * the end of the address space), OSSA_ERROR_ALIASING (an output overlaps an input or the other
 * output).
 * Aliasing: none; outputs are distinct from every input.
 * Source: the usual engine convention (e.g. ozz-animation's skinning sample: model matrix
 * times inverse bind matrix, joints remapped through the mesh's joint table). */
typedef struct ossa_skinning_palette_job {
    const ossa_float4x4 *model;
    size_t model_count;
    const ossa_float4x4 *inverse_bind;
    size_t inverse_bind_count;
    const uint16_t *joint_remap;
    size_t joint_remap_count;
    ossa_float4x4 *output;
    size_t output_count;
    ossa_dual_quat *dual_quats;
    size_t dual_quat_count;
} ossa_skinning_palette_job;

OSSA_API ossa_result ossa_skinning_palette_job_validate(const ossa_skinning_palette_job *job);
OSSA_API ossa_result ossa_skinning_palette_job_run(const ossa_skinning_palette_job *job);

/* How the skinning job combines the joints of a vertex. */
typedef enum ossa_skinning_method {
    /* Linear blend skinning: the weighted sum of the vertex's palette matrices transforms the
     * vertex. Handles any affine palette (scale included); joints twisted far apart shrink
     * the skin between them ("candy wrapper"). */
    OSSA_SKINNING_LINEAR = 0,
    /* Dual quaternion skinning: the weighted sum of unit dual quaternions, each taken in the
     * hemisphere of the vertex's first influence, normalised, transforms the vertex. Keeps
     * volume under twist; rigid transforms only (palette scale is not applied: see
     * ossa_dual_quat_from_float4x4). Source: Kavan et al. (ossa_dual_quat). */
    OSSA_SKINNING_DUAL_QUAT = 1,
} ossa_skinning_method;

/* A vertex stream read by the skinning job: element v starts at byte v * stride of `data`.
 *   data    4-byte aligned floats; NULL: stream absent
 *   stride  bytes between elements, a multiple of 4; 0: packed (12 for positions and normals,
 *           16 for tangents); otherwise >= the element's size (12, tangents 16)
 *   count   elements the stream holds, >= the job's vertex_count */
typedef struct ossa_vertex_input {
    const float *data;
    size_t stride;
    size_t count;
} ossa_vertex_input;

/* A vertex stream written by the skinning job, as ossa_vertex_input. */
typedef struct ossa_vertex_output {
    float *data;
    size_t stride;
    size_t count;
} ossa_vertex_output;

/* Joint indices of the vertices: element v is influence_count uint16 at byte v * stride.
 *   stride  0: packed (2 * influence_count); otherwise a multiple of 2, >= 2 * influence_count */
typedef struct ossa_joint_indices {
    const uint16_t *data;
    size_t stride;
    size_t count;
} ossa_joint_indices;

/* Joint weights of the vertices: element v is influence_count - 1 floats at byte v * stride;
 * the last influence's weight is implicit, 1 minus the sum of the others.
 *   stride  0: packed (4 * (influence_count - 1)); otherwise a multiple of 4 and >= that */
typedef struct ossa_joint_weights {
    const float *data;
    size_t stride;
    size_t count;
} ossa_joint_weights;

/* Skins vertex_count vertices.
 * Fields (zero means the default where one is given):
 *   method           OSSA_SKINNING_LINEAR (0) or OSSA_SKINNING_DUAL_QUAT
 *   vertex_count     vertices to skin; sets the work size (0: nothing to do, OSSA_OK)
 *   influence_count  joints per vertex, >= 1 (1 to 4 have specialised loops, more a general one)
 *                    and <= SIZE_MAX / 4 (a vertex's index and weight bytes must be countable)
 *   palette          LINEAR: [palette_count] skinning matrices (ossa_skinning_palette_job),
 *                    16-byte aligned; DUAL_QUAT: unused
 *   dual_quats       DUAL_QUAT: [dual_quat_count] unit dual quaternions, 16-byte aligned;
 *                    LINEAR: unused
 *   joint_indices    [count >= vertex_count] each < the palette's count (checked by
 *                    _validate over every vertex before anything is written)
 *   joint_weights    [count >= vertex_count] when influence_count > 1; unused otherwise.
 *                    Weights are not checked: they should be finite, the explicit ones in
 *                    [0, 1] with a sum <= 1 (then the implicit last one is in [0, 1]).
 *   in_positions, out_positions   required, float3 (x, y, z)
 *   in_normals, out_normals       optional (both or neither), float3
 *   in_tangents, out_tangents     optional (both or neither), float4 (x, y, z, w): x, y, z
 *                                 are transformed like normals, w (the bitangent sign) is
 *                                 copied unchanged
 * Shapes: a vertex's influences are joint_indices[v][0..influence_count); weight j of the
 * first influence_count - 1 applies to index j, 1 minus their sum to the last index (the
 * ozz-animation SkinningJob layout).
 * Units: the palette's (positions in model units; normals and tangents are directions).
 * Normals and tangents: transformed by the blended matrix's 3x3 (LINEAR) or rotated by the
 * blended rotation (DUAL_QUAT), not renormalised. Exact for rotation and uniform scale; under
 * non-uniform scale the LINEAR result approximates the inverse-transpose (normals lean towards
 * the stretched axis); a caller needing exact normals there runs a second job, positions to a
 * scratch stream, with an inverse-transpose palette. Renormalise where unit length matters.
 * Reads: for every vertex but the last, up to 4 bytes past a position or normal (inside the
 * stream's span, so inside the caller's buffer); those bytes are not used.
 * Errors (nothing is written): OSSA_ERROR_NULL_ARGUMENT (job), OSSA_ERROR_INVALID_ARGUMENT
 * (unknown method), OSSA_ERROR_INVALID_INFLUENCES (influence_count 0 or above SIZE_MAX / 4),
 * OSSA_ERROR_NO_PALETTE
 * (the method's palette NULL), OSSA_ERROR_NO_JOINT_DATA (indices NULL, or weights NULL with more
 * than one influence), OSSA_ERROR_NO_INPUT (input positions NULL, or a normal/tangent output
 * without its input), OSSA_ERROR_NO_OUTPUT (output positions NULL, or a normal/tangent input
 * without its output), OSSA_ERROR_INPUT_TOO_SMALL / OSSA_ERROR_OUTPUT_TOO_SMALL (a stream's
 * count < vertex_count), OSSA_ERROR_INVALID_STRIDE, OSSA_ERROR_MISALIGNED (palette not 16-byte
 * aligned, float streams not 4-byte, indices not 2-byte), OSSA_ERROR_SIZE_OVERFLOW (a stream's
 * span, (vertex_count - 1) * stride + its element's size, or the palette's count of elements
 * runs past the end of the address space: checked before any of these products is used),
 * OSSA_ERROR_INVALID_JOINT_INDEX, OSSA_ERROR_ALIASING.
 * Aliasing: an output may be its own input exactly (same data and stride: in-place skinning,
 * interleaved buffers included). Otherwise the bytes an output writes must not be any bytes
 * another stream or the palette reads or another output writes; streams of one interleaved
 * vertex buffer (same stride, disjoint fields) pass.
 * Source: ozz-animation SkinningJob (layout, implicit last weight, one blended matrix per
 * vertex); Kavan et al. 2007/2008 for OSSA_SKINNING_DUAL_QUAT. */
typedef struct ossa_skinning_job {
    ossa_skinning_method method;
    size_t vertex_count;
    size_t influence_count;
    const ossa_float4x4 *palette;
    size_t palette_count;
    const ossa_dual_quat *dual_quats;
    size_t dual_quat_count;
    ossa_joint_indices joint_indices;
    ossa_joint_weights joint_weights;
    ossa_vertex_input in_positions;
    ossa_vertex_input in_normals;
    ossa_vertex_input in_tangents;
    ossa_vertex_output out_positions;
    ossa_vertex_output out_normals;
    ossa_vertex_output out_tangents;
} ossa_skinning_job;

OSSA_API ossa_result ossa_skinning_job_validate(const ossa_skinning_job *job);
OSSA_API ossa_result ossa_skinning_job_run(const ossa_skinning_job *job);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_SKINNING_JOB_H */
