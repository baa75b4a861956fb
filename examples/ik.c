/* ik.c: two-bone IK (an arm reaching for a point) and aim IK (a head looking at a point) on a
 * real skeleton: the CMU motion-capture skeleton of 01_01.bvh (Debian's assimp-testmodels).
 *
 *   examples/ik [FILE.bvh]     (default: $OSSA_ASSIMP_MODELS/BVH/01_01.bvh; exit 77 without it)
 *
 * IK works on model-space matrices and returns joint-local corrections: sample (here: take
 * the rest pose), convert to model space, solve, multiply the corrections into the local pose
 * (ossa_ik_apply_correction), convert again from the first corrected joint down. It prints,
 * for the left arm, the hand's distance to the target before and after and the bone lengths
 * (IK only rotates: they do not change), and for the head, the angle between its forward axis
 * and the direction to the target before and after. Positions in metres (CMU's unit is
 * 1/0.45 inch = 0.05644 m; the importer reads BVH offsets as they are).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ossa/ik_aim_job.h>
#include <ossa/ik_two_bone_job.h>
#include <ossa/offline/import_assimp.h>

#include "common.h"

static ossa_float3 position(const ossa_float4x4 *m)
{
    return (ossa_float3){m->cols[3][0], m->cols[3][1], m->cols[3][2]};
}
static float distance(ossa_float3 a, ossa_float3 b)
{
    return sqrtf((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y) + (a.z - b.z) * (a.z - b.z));
}

/* Degrees between the joint's model-space +z axis (its forward here) and the way to `target`. */
static float aim_error(const ossa_float4x4 *m, ossa_float3 target)
{
    const ossa_float3 p = position(m), axis = {m->cols[2][0], m->cols[2][1], m->cols[2][2]};
    const ossa_float3 to = {target.x - p.x, target.y - p.y, target.z - p.z};
    const float c = (axis.x * to.x + axis.y * to.y + axis.z * to.z) /
                    (distance(axis, (ossa_float3){0}) * distance(to, (ossa_float3){0}));
    return acosf(fminf(1.f, fmaxf(-1.f, c))) * 180.f / 3.14159265f;
}

/* Converts the pose to model space again from `joint` down: only its descendants moved, and
 * its ancestors' matrices are already in `models`. */
static bool update_from(const ossa_skeleton *skel, const ossa_soa_transform *pose, ossa_float4x4 *models, int joint)
{
    ossa_local_to_model_job job = {.skeleton = skel, .joint_begin = (size_t)joint, .input = pose};
    job.input_count = skel->soa_count, job.output = models, job.output_count = skel->joint_count;
    return example_check(ossa_local_to_model_job_run(&job), NULL, "local to model");
}

int main(int argc, char **argv)
{
    char path[4096];
    const char *models_dir = getenv("OSSA_ASSIMP_MODELS");
    snprintf(path, sizeof path, "%s", argc > 1 ? argv[1] : "");
    if (argc <= 1)
        snprintf(path, sizeof path, "%s/BVH/01_01.bvh", models_dir ? models_dir : "/usr/share/assimp/models");
    size_t size = 0;
    void *bvh = example_load_file(path, &size);
    if (!bvh) {
        fprintf(stderr, "%s: cannot read the file (Debian's assimp-testmodels has it)\n", path);
        return 77;
    }

    /* Offline: import the file's skeleton (its clip is not needed), in metres, and build it. */
    ossa_import_output in = {0};
    ossa_diag diag = {0};
    ossa_blob blob = {0};
    bool ok = example_check(ossa_import_assimp(bvh, size, &(ossa_assimp_desc){.format_hint = "bvh"}, &in, &diag), &diag,
                            path);
    for (size_t j = 0; ok && j < in.skeleton.joint_count; j++) {
        ossa_float3 *t = &in.skeleton.joints[j].rest.translation;
        *t = (ossa_float3){t->x * .05644f, t->y * .05644f, t->z * .05644f};
    }
    ok = ok && example_check(ossa_skeleton_build(&in.skeleton, NULL, &blob, &diag), &diag, "skeleton");
    ossa_import_output_destroy(&in);
    free(bvh);
    ossa_skeleton skel;
    ok = ok && example_check(ossa_skeleton_init(&skel, blob.data, blob.size), NULL, "skeleton");
    const int arm = ok ? ossa_skeleton_find_joint(&skel, "LeftArm") : -1;
    const int forearm = ok ? ossa_skeleton_find_joint(&skel, "LeftForeArm") : -1;
    const int hand = ok ? ossa_skeleton_find_joint(&skel, "LeftHand") : -1;
    const int head = ok ? ossa_skeleton_find_joint(&skel, "Head") : -1;
    if (!ok || arm < 0 || forearm < 0 || hand < 0 || head < 0) {
        fprintf(stderr, "%s: no LeftArm, LeftForeArm, LeftHand or Head joint\n", path);
        ossa_blob_destroy(&blob);
        return 1;
    }

    /* Runtime: a pose we may change (the skeleton's rest pose is read-only) and its matrices. */
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    ok = pose && models;
    if (ok) memcpy(pose, skel.rest_pose, skel.soa_count * sizeof *pose);
    ok = ok && example_to_model(&skel, pose, models);
    printf("%s: %zu joints\n", strrchr(path, '/') ? strrchr(path, '/') + 1 : path, skel.joint_count);

    /* Two-bone IK: the hand reaches for a point 25 % nearer the shoulder and 10 cm forward
     * (+z), so the elbow must bend; the elbow bends towards the pole (down, -y), about the
     * forearm's local z axis (the rest pose's joint frames are the model frame's). */
    const ossa_float3 s0 = position(&models[arm]), e0 = position(&models[forearm]), h0 = position(&models[hand]);
    const ossa_float3 target = {s0.x + .75f * (h0.x - s0.x), s0.y + .75f * (h0.y - s0.y),
                                s0.z + .75f * (h0.z - s0.z) + .1f};
    ossa_quat fix_arm, fix_forearm;
    bool reached = false;
    ossa_ik_two_bone_job two_bone = {.target = target, .weight = 1.f, .reached = &reached};
    two_bone.pole_vector = (ossa_float3){0.f, -1.f, 0.f}, two_bone.mid_axis = (ossa_float3){0.f, 0.f, 1.f};
    two_bone.start_joint = &models[arm], two_bone.mid_joint = &models[forearm], two_bone.end_joint = &models[hand];
    two_bone.start_correction = &fix_arm, two_bone.mid_correction = &fix_forearm;
    ok = ok && example_check(ossa_ik_two_bone_job_run(&two_bone), NULL, "two-bone IK") &&
         example_check(ossa_ik_apply_correction(pose, skel.soa_count, (size_t)arm, fix_arm), NULL, "correction") &&
         example_check(ossa_ik_apply_correction(pose, skel.soa_count, (size_t)forearm, fix_forearm), NULL, "fix") &&
         update_from(&skel, pose, models, arm);
    if (ok) {
        const ossa_float3 s1 = position(&models[arm]), e1 = position(&models[forearm]), h1 = position(&models[hand]);
        printf("two-bone reached %s\n", reached ? "yes" : "no");
        printf("two-bone hand-to-target before %.4f after %.4f\n", (double)distance(h0, target),
               (double)distance(h1, target));
        printf("two-bone upper-arm %.4f %.4f forearm %.4f %.4f\n", (double)distance(s0, e0), (double)distance(s1, e1),
               (double)distance(e0, h0), (double)distance(e1, h1));
        printf("two-bone elbow-moved-down %s\n", e1.y < e0.y ? "yes" : "no");
    }

    /* Aim IK: the head's +z (its forward in this skeleton) turns to a point 1 m to its left
     * (+x) and 1 m ahead (+z), its +y kept on the side of model up. */
    const ossa_float3 p = position(&models[head]);
    const ossa_float3 look_at = {p.x + 1.f, p.y, p.z + 1.f};
    ossa_quat fix_head;
    const float before = aim_error(&models[head], look_at);
    ossa_ik_aim_job aim = {.joint = &models[head], .target = look_at, .weight = 1.f, .correction = &fix_head};
    aim.forward = (ossa_float3){0.f, 0.f, 1.f}, aim.up = (ossa_float3){0.f, 1.f, 0.f};
    aim.pole_vector = (ossa_float3){0.f, 1.f, 0.f}, aim.reached = &reached;
    ok = ok && example_check(ossa_ik_aim_job_run(&aim), NULL, "aim IK") &&
         example_check(ossa_ik_apply_correction(pose, skel.soa_count, (size_t)head, fix_head), NULL, "correction") &&
         update_from(&skel, pose, models, head);
    if (ok) {
        printf("aim reached %s\n", reached ? "yes" : "no");
        printf("aim degrees-off before %.2f after %.2f\n", (double)before, (double)aim_error(&models[head], look_at));
    }

    free(models);
    free(pose);
    ossa_blob_destroy(&blob);
    return ok ? 0 : 1;
}
