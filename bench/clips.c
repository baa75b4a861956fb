#include "clips.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

float bench_tolerance = OSSA_BUILD_DEFAULT_TOLERANCE;
int bench_layout = OSSA_ANIMATION_LAYOUT_PACKED;

ossa_animation_build_desc bench_build_desc(const bench_clip *c)
{
    return (ossa_animation_build_desc){.skeleton = &c->imp.skeleton,
                                       .tolerance = bench_tolerance / c->unit,
                                       .unit_scale = c->unit,
                                       .layout = bench_layout};
}

/* Builds the blobs of c->imp and opens them. */
static bool bake(bench_clip *c)
{
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_animation_build_desc build = bench_build_desc(c);
    if (c->imp.animation_count == 0 || ossa_skeleton_build(&c->imp.skeleton, NULL, &c->skel_blob, &diag) != OSSA_OK ||
        ossa_animation_build(&c->imp.animations[0], &build, &c->anim_blob, &diag) != OSSA_OK ||
        ossa_skeleton_init(&c->skel, c->skel_blob.data, c->skel_blob.size) != OSSA_OK ||
        ossa_animation_init(&c->anim, c->anim_blob.data, c->anim_blob.size) != OSSA_OK ||
        c->anim.track_count != c->skel.joint_count) {
        tool_print_diag(c->name, &diag);
        return false;
    }
    return true;
}

/* Imports `path` into c->imp (see bench_load) and sets the unit, without baking. */
static bool import_clip(bench_clip *c, const char *path, const char *skeleton_path)
{
    memset(c, 0, sizeof *c);
    c->name = path;
    if (!tool_import(path, false, &c->imp)) return false;
    if (c->imp.skeleton.joint_count == 0 && skeleton_path) {
        ossa_import_output skel = {0};
        if (!tool_import(skeleton_path, false, &skel)) return false;
        c->imp.skeleton = skel.skeleton;
        memset(&skel.skeleton, 0, sizeof skel.skeleton);
        ossa_import_output_destroy(&skel);
    }
    /* BVH says no unit: CMU's is 1/0.45 inch (the reference figures use it too); the others
     * as `ossa bake` takes them. */
    c->unit = tool_unit_of_import(&c->imp, strstr(path, "01_01.bvh") ? BENCH_CMU_UNIT : 0.f).scale;
    return true;
}

bool bench_load(bench_clip *c, const char *path, const char *skeleton_path)
{
    return import_clip(c, path, skeleton_path) && bake(c);
}

/* Copies a channel's keys into a track resized for them. */
#define COPY_KEYS(to, from, member, count) memcpy((to)->member, (from)->member, (from)->count * sizeof *(from)->member)

bool bench_tiled(bench_clip *c, const char *path, const char *skeleton_path, size_t copies)
{
    if (!import_clip(c, path, skeleton_path) || c->imp.animation_count == 0) return false;
    const ossa_raw_skeleton *skel = &c->imp.skeleton;
    const ossa_raw_animation *src = &c->imp.animations[0];
    const size_t n = skel->joint_count;
    if (copies == 0 || n == 0 || copies * n > OSSA_MAX_JOINTS || src->track_count != n) return false;
    ossa_import_output tiled = {0};
    ossa_raw_animation *anim;
    bool ok = ossa_raw_skeleton_create(&tiled.skeleton, copies * n, NULL) == OSSA_OK &&
              ossa_import_output_add_animation(&tiled, copies * n, &anim) == OSSA_OK;
    for (size_t k = 0; ok && k < copies; ++k) {
        for (size_t j = 0; ok && j < n; ++j) {
            const size_t to = k * n + j;
            const ossa_raw_joint *sj = &skel->joints[j];
            ossa_raw_joint *tj = &tiled.skeleton.joints[to];
            char name[112];
            snprintf(name, sizeof name, "%zu/%.80s", k, sj->name);
            tj->parent = sj->parent < 0 ? -1 : (int32_t)(k * n) + sj->parent;
            tj->rest = sj->rest;
            const ossa_raw_joint_track *st = &src->tracks[j];
            ok = ossa_raw_skeleton_set_name(&tiled.skeleton, to, name) == OSSA_OK &&
                 ossa_raw_joint_track_resize(anim, to, st->translation_count, st->rotation_count, st->scale_count) ==
                     OSSA_OK;
            if (!ok) break;
            ossa_raw_joint_track *tt = &anim->tracks[to];
            COPY_KEYS(tt, st, translations, translation_count);
            COPY_KEYS(tt, st, rotations, rotation_count);
            COPY_KEYS(tt, st, scales, scale_count);
        }
    }
    if (ok) anim->duration = src->duration;
    ossa_import_output_destroy(&c->imp);
    c->imp = tiled;
    return ok && bake(c);
}
#undef COPY_KEYS

bool bench_synthetic(bench_clip *c, size_t joints)
{
    static const char name[] = "synthetic";
    memset(c, 0, sizeof *c);
    c->name = name;
    c->unit = 1.f;
    if (joints == 0 || joints > OSSA_MAX_JOINTS || ossa_raw_skeleton_create(&c->imp.skeleton, joints, NULL) != OSSA_OK)
        return false;
    ossa_raw_animation *anim;
    if (ossa_import_output_add_animation(&c->imp, joints, &anim) != OSSA_OK) return false;
    enum { KEYS = 61 };
    const float duration = 2.f, two_pi = 6.2831853f;
    anim->duration = duration;
    for (size_t j = 0; j < joints; ++j) {
        ossa_raw_joint *joint = &c->imp.skeleton.joints[j];
        char joint_name[16];
        snprintf(joint_name, sizeof joint_name, "j%zu", j);
        if (ossa_raw_skeleton_set_name(&c->imp.skeleton, j, joint_name) != OSSA_OK) return false;
        /* Branch joints every 8 form a binary tree (branch k hangs from branch (k - 1) / 2),
         * each followed by a chain of 7: about 14 levels deep at 1,024 joints, sorted
         * depth-first below. */
        const size_t branch = j / 8;
        joint->parent = j == 0 ? -1 : (int32_t)(j % 8 ? j - 1 : 8 * ((branch - 1) / 2));
        const float fj = (float)j;
        joint->rest = ossa_transform_identity();
        joint->rest.translation = (ossa_float3){.01f * sinf(fj), .05f, .01f * cosf(fj)};
        const bool moves = j % 4 == 0;
        if (ossa_raw_joint_track_resize(anim, j, moves ? KEYS : 1, KEYS, 1) != OSSA_OK) return false;
        ossa_raw_joint_track *t = &anim->tracks[j];
        /* An axis and a phase of its own, a frequency of 0.5 or 1 Hz (the clip loops). */
        const ossa_float3 axis = {sinf(1.3f * fj), cosf(1.3f * fj), .5f};
        const float len = sqrtf(axis.x * axis.x + axis.y * axis.y + axis.z * axis.z);
        const float phase = .7f * fj, frequency = j % 2 ? .5f : 1.f;
        for (size_t k = 0; k < KEYS; ++k) {
            const float time = duration * (float)k / (float)(KEYS - 1);
            const float angle = .4f * sinf(two_pi * frequency * time + phase), s = sinf(.5f * angle) / len;
            t->rotations[k] = (ossa_raw_quat_key){time, {axis.x * s, axis.y * s, axis.z * s, cosf(.5f * angle)}};
            if (moves) {
                ossa_float3 v = joint->rest.translation;
                v.y += .02f * sinf(two_pi * frequency * time + 2.f * phase);
                t->translations[k] = (ossa_raw_float3_key){time, v};
            }
        }
        if (!moves) t->translations[0] = (ossa_raw_float3_key){0.f, joint->rest.translation};
        t->scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    }
    return ossa_import_output_sort_depth_first(&c->imp, NULL) == OSSA_OK && bake(c);
}

void bench_unload(bench_clip *c)
{
    ossa_blob_destroy(&c->skel_blob), ossa_blob_destroy(&c->anim_blob);
    ossa_import_output_destroy(&c->imp);
}

const char *bench_short_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}
