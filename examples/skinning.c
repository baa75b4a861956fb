/* skinning.c: deforms a mesh by the skeleton, with linear blend skinning and with dual
 * quaternion skinning, and shows how they differ at a bent joint.
 *
 * The mesh is generated here: a flat strip 0.2 m wide around the example arm (common.h),
 * three rows of two vertices at y = 0 (on the shoulder alone), y = 1 (half shoulder, half
 * elbow) and y = 2 (on the elbow alone), x = -0.1 and +0.1. The arm plays "bent": the elbow
 * turned 90 degrees about z. Each mesh joint's inverse bind matrix undoes its rest position
 * (the elbow's rest model matrix is a translation by (0, 1, 0): its inverse, by (0, -1, 0)).
 * At the elbow row, linear blending averages the two matrices, which pulls the vertices 0.1 m
 * out to 0.0707 m from the joint (the "candy wrapper"); dual quaternions turn them by 45
 * degrees about the elbow and keep them 0.1 m from it. The top row follows the forearm:
 * (-1, 1 -+ 0.1, 0) both ways.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <ossa/skinning_job.h>

#include "common.h"

enum { VERTICES = 6, MESH_JOINTS = 2 }; /* mesh joint i is skeleton joint i: shoulder, elbow */

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation bent = {0};
    bool ok = example_arm(&skel) && example_arm_clip(&bent, "bent", 1.f);
    if (ok) {
        bent.tracks[ARM_ELBOW].rotations[0].value = example_rot_z(90.f);
        ok = example_archive(&skel, &bent, 1, NULL, 0, file);
    }
    ossa_raw_animation_destroy(&bent);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

int main(void)
{
    ossa_blob file = {0};
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation bent;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_skeleton(&ar, &skel), NULL, "skeleton") &&
              example_check(ossa_archive_animation(&ar, 0, &bent), NULL, "bent");
    if (!ok) return 1;

    /* The mesh: positions (x, y, z), two joint indices and one weight per vertex (the second
     * influence's weight is 1 minus the first's). */
    float positions[VERTICES * 3], skinned[VERTICES * 3];
    uint16_t indices[VERTICES * 2];
    float weights[VERTICES];
    for (int v = 0; v < VERTICES; v++) {
        const int row = v / 2;
        positions[3 * v] = v % 2 ? .1f : -.1f;
        positions[3 * v + 1] = (float)row;
        positions[3 * v + 2] = 0.f;
        indices[2 * v] = ARM_SHOULDER;
        indices[2 * v + 1] = ARM_ELBOW;
        weights[v] = 1.f - .5f * (float)row; /* shoulder: 1, 0.5, 0 */
    }
    /* Inverse bind matrices: the inverse of each joint's rest model matrix (translations here). */
    static ossa_float4x4 inverse_bind[MESH_JOINTS];
    for (int j = 0; j < MESH_JOINTS; j++) {
        inverse_bind[j] = ossa_float4x4_identity();
        inverse_bind[j].cols[3][1] = -(float)j;
    }

    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    ossa_sampling_context *ctx = ctx_mem ? ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count) : NULL;
    ok = ctx && pose && models && example_sample(&skel, &bent, ctx, 0.f, pose) && example_to_model(&skel, pose, models);

    /* The palette: model * inverse bind per mesh joint, as matrices and as dual quaternions. */
    static ossa_float4x4 palette[MESH_JOINTS];
    static ossa_dual_quat dual_quats[MESH_JOINTS];
    const ossa_skinning_palette_job pal = {.model = models,
                                           .model_count = skel.joint_count,
                                           .inverse_bind = inverse_bind,
                                           .inverse_bind_count = MESH_JOINTS,
                                           .output = palette,
                                           .output_count = MESH_JOINTS,
                                           .dual_quats = dual_quats,
                                           .dual_quat_count = MESH_JOINTS};
    ok = ok && example_check(ossa_skinning_palette_job_run(&pal), NULL, "palette");

    static const char *method_names[2] = {"linear", "dual-quat"};
    for (int m = 0; ok && m < 2; m++) {
        const ossa_skinning_job job = {.method = m ? OSSA_SKINNING_DUAL_QUAT : OSSA_SKINNING_LINEAR,
                                       .vertex_count = VERTICES,
                                       .influence_count = 2,
                                       .palette = palette,
                                       .palette_count = MESH_JOINTS,
                                       .dual_quats = dual_quats,
                                       .dual_quat_count = MESH_JOINTS,
                                       .joint_indices = {indices, 0, VERTICES},
                                       .joint_weights = {weights, 0, VERTICES},
                                       .in_positions = {positions, 0, VERTICES},
                                       .out_positions = {skinned, 0, VERTICES}};
        ok = example_check(ossa_skinning_job_run(&job), NULL, "skinning");
        for (int v = 0; ok && v < VERTICES; v++) {
            const float *p = &skinned[3 * v];
            /* Distance from the elbow joint, (0, 1, 0) in this pose. */
            const float from_elbow = sqrtf(p[0] * p[0] + (p[1] - 1.f) * (p[1] - 1.f) + p[2] * p[2]);
            printf("%s vertex %d %.4f %.4f %.4f from-elbow %.4f\n", method_names[m], v, (double)p[0], (double)p[1],
                   (double)p[2], (double)from_elbow);
        }
    }

    free(models);
    free(pose);
    free(ctx_mem);
    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
