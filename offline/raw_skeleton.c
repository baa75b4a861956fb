#include "ossa/offline/raw_skeleton.h"

#include <math.h>
#include <string.h>

#include "internal.h"

ossa_result ossa_raw_skeleton_create(ossa_raw_skeleton *skeleton, size_t joint_count, const ossa_allocator *allocator)
{
    if (!skeleton) return OSSA_ERROR_NULL_ARGUMENT;
    memset(skeleton, 0, sizeof *skeleton);
    if (allocator) skeleton->allocator = *allocator;
    if (joint_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (joint_count == 0) return OSSA_OK;
    skeleton->joints = ossa__calloc(allocator, joint_count, sizeof *skeleton->joints);
    if (!skeleton->joints) return OSSA_ERROR_OUT_OF_MEMORY;
    skeleton->joint_count = joint_count;
    for (size_t i = 0; i < joint_count; ++i) {
        skeleton->joints[i].parent = -1;
        skeleton->joints[i].rest = ossa_transform_identity();
        skeleton->joints[i].name = ossa_strdup(allocator, "");
        if (!skeleton->joints[i].name) {
            ossa_raw_skeleton_destroy(skeleton);
            return OSSA_ERROR_OUT_OF_MEMORY;
        }
    }
    return OSSA_OK;
}

ossa_result ossa_raw_skeleton_set_name(ossa_raw_skeleton *skeleton, size_t joint, const char *name)
{
    if (!skeleton || !name) return OSSA_ERROR_NULL_ARGUMENT;
    if (joint >= skeleton->joint_count) return OSSA_ERROR_INVALID_ARGUMENT;
    char *copy = ossa_strdup(&skeleton->allocator, name);
    if (!copy) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_free(&skeleton->allocator, skeleton->joints[joint].name);
    skeleton->joints[joint].name = copy;
    return OSSA_OK;
}

void ossa_raw_skeleton_destroy(ossa_raw_skeleton *skeleton)
{
    if (!skeleton) return;
    ossa_allocator allocator = skeleton->allocator;
    for (size_t i = 0; i < skeleton->joint_count && skeleton->joints; ++i)
        ossa_free(&allocator, skeleton->joints[i].name);
    ossa_free(&allocator, skeleton->joints);
    memset(skeleton, 0, sizeof *skeleton);
    skeleton->allocator = allocator;
}

static bool finite3(ossa_float3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }

ossa_result ossa_raw_skeleton_validate(const ossa_raw_skeleton *skeleton, ossa_diag *diag)
{
    if (!skeleton) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no skeleton");
    size_t n = skeleton->joint_count;
    if (n > OSSA_MAX_JOINTS)
        return ossa__fail(diag, OSSA_ERROR_TOO_MANY_JOINTS, "skeleton has %zu joints, at most %d are supported", n,
                          OSSA_MAX_JOINTS);
    if (n && !skeleton->joints) return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON, "joint array is NULL");
    for (size_t i = 0; i < n; ++i) {
        const ossa_raw_joint *j = &skeleton->joints[i];
        if (!j->name) return ossa__fail_at(diag, OSSA_ERROR_INVALID_SKELETON, i, "joint %zu has no name", i);
        if (j->parent < -1 || j->parent >= (int32_t)n || j->parent == (int32_t)i)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_SKELETON, i,
                                 "joint %zu \"%s\": parent %d is not -1 or another joint index below %zu", i, j->name,
                                 (int)j->parent, n);
        const ossa_quat q = j->rest.rotation;
        const float len2 = q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w;
        if (!finite3(j->rest.translation) || !finite3(j->rest.scale) || !isfinite(len2) ||
            fabsf(sqrtf(len2) - 1.f) > 1e-3f)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_SKELETON, i,
                                 "joint %zu \"%s\": rest pose must be finite with a unit rotation (|q| = %g)", i,
                                 j->name, (double)sqrtf(len2));
    }
    /* Cycle check: walking up from any joint must reach a root within n steps. */
    for (size_t i = 0; i < n; ++i) {
        int32_t p = skeleton->joints[i].parent;
        size_t steps = 0;
        while (p >= 0 && steps <= n) {
            p = skeleton->joints[p].parent;
            ++steps;
        }
        if (p >= 0)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_SKELETON, i, "joint %zu \"%s\" is part of a parent cycle", i,
                                 skeleton->joints[i].name);
    }
    return OSSA_OK;
}

bool ossa_raw_skeleton_is_depth_first(const ossa_raw_skeleton *skeleton)
{
    if (!skeleton) return false;
    /* Pre-order: each joint's parent is on the stack of open ancestors of the previous joint. */
    int32_t stack[OSSA_MAX_JOINTS];
    size_t depth = 0;
    if (skeleton->joint_count > OSSA_MAX_JOINTS) return false;
    for (size_t i = 0; i < skeleton->joint_count; ++i) {
        int32_t parent = skeleton->joints[i].parent;
        if (parent >= (int32_t)i) return false;
        while (depth > 0 && stack[depth - 1] != parent) --depth;
        if (parent >= 0 && depth == 0) return false;
        stack[depth++] = (int32_t)i;
    }
    return true;
}

ossa_result ossa_raw_skeleton_sort_depth_first(ossa_raw_skeleton *skeleton, size_t *new_index, ossa_diag *diag)
{
    ossa_result r = ossa_raw_skeleton_validate(skeleton, diag);
    if (r != OSSA_OK) return r;
    size_t n = skeleton->joint_count;
    if (n == 0) return OSSA_OK;
    const ossa_allocator *a = &skeleton->allocator;
    size_t *order = ossa__calloc(a, n, sizeof *order);     /* new -> old */
    size_t *mapping = ossa__calloc(a, n, sizeof *mapping); /* old -> new */
    size_t *stack = ossa__calloc(a, n, sizeof *stack);
    ossa_raw_joint *joints = ossa__calloc(a, n, sizeof *joints);
    if (!order || !mapping || !stack || !joints) {
        ossa_free(a, order), ossa_free(a, mapping), ossa_free(a, stack), ossa_free(a, joints);
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory sorting joints");
    }
    size_t count = 0;
    for (size_t root = 0; root < n; ++root) {
        if (skeleton->joints[root].parent != -1) continue;
        size_t depth = 0;
        stack[depth++] = root;
        while (depth) {
            size_t j = stack[--depth];
            order[count++] = j;
            /* Push children in reverse so the first child is visited first. */
            for (size_t c = n; c-- > 0;)
                if (skeleton->joints[c].parent == (int32_t)j) stack[depth++] = c;
        }
    }
    for (size_t i = 0; i < n; ++i) mapping[order[i]] = i;
    for (size_t i = 0; i < n; ++i) {
        joints[i] = skeleton->joints[order[i]];
        if (joints[i].parent >= 0) joints[i].parent = (int32_t)mapping[joints[i].parent];
    }
    ossa_free(a, skeleton->joints);
    skeleton->joints = joints;
    if (new_index) memcpy(new_index, mapping, n * sizeof *mapping);
    ossa_free(a, order), ossa_free(a, mapping), ossa_free(a, stack);
    return OSSA_OK;
}

ossa_result ossa_raw_skeleton_rest_height(const ossa_raw_skeleton *skeleton, float *height, ossa_diag *diag)
{
    if (!skeleton || !height) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no skeleton");
    *height = 0.f;
    ossa_result r = ossa_raw_skeleton_validate(skeleton, diag);
    if (r != OSSA_OK) return r;
    const size_t n = skeleton->joint_count;
    for (size_t i = 0; i < n; ++i)
        if (skeleton->joints[i].parent >= (int32_t)i)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, i,
                                 "joint %zu comes before its parent %d: sort the skeleton first", i,
                                 (int)skeleton->joints[i].parent);
    ossa_float4x4 *model = ossa__calloc(&skeleton->allocator, n + 1, sizeof *model);
    if (!model) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (size_t i = 0; i < n; ++i) {
        const ossa_raw_joint *j = &skeleton->joints[i];
        const ossa_float4x4 local = ossa_float4x4_from_transform(&j->rest);
        model[i] = j->parent < 0 ? local : ossa_float4x4_mul(&model[j->parent], &local);
        for (int a = 0; a < 3; ++a) {
            const float p = model[i].cols[3][a];
            lo[a] = p < lo[a] ? p : lo[a];
            hi[a] = p > hi[a] ? p : hi[a];
        }
    }
    for (int a = 0; a < 3 && n > 1; ++a)
        if (hi[a] - lo[a] > *height) *height = hi[a] - lo[a];
    ossa_free(&skeleton->allocator, model);
    return OSSA_OK;
}
