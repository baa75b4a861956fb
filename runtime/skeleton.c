#include "ossa/skeleton.h"

#include <math.h>
#include <string.h>

#include "blob.h"

enum { HEADER_SIZE = 16 };

ossa_result ossa_skeleton_init(ossa_skeleton *skeleton, const void *blob, size_t size)
{
    if (!skeleton) return OSSA_ERROR_NULL_ARGUMENT;
    memset(skeleton, 0, sizeof *skeleton);
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    if (!ossa__host_is_little_endian()) return OSSA_ERROR_UNSUPPORTED_HOST;
    if ((uintptr_t)blob & 15u) return OSSA_ERROR_MISALIGNED;
    ossa__cursor c = {blob, size, 0};
    const uint8_t *header = ossa__take(&c, HEADER_SIZE, 1, 1);
    if (!header) return OSSA_ERROR_TRUNCATED;
    const uint32_t joint_count = ossa__load_u32(header + OSSA__SKELETON_JOINT_COUNT);
    const uint32_t names_size = ossa__load_u32(header + OSSA__SKELETON_NAMES_SIZE);
    if (ossa__load_u32(header + OSSA__SKELETON_RESERVED0) != 0 ||
        ossa__load_u32(header + OSSA__SKELETON_RESERVED1) != 0)
        return OSSA_ERROR_INVALID_SKELETON;
    if (joint_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    const size_t soa_count = (joint_count + 3u) / 4u;
    const uint8_t *rest = ossa__take(&c, soa_count, sizeof(ossa_soa_transform), 16);
    const uint8_t *parents = ossa__take(&c, joint_count, sizeof(int16_t), 2);
    const uint8_t *offsets = ossa__take(&c, joint_count, sizeof(uint32_t), 4);
    const uint8_t *names = ossa__take(&c, names_size, 1, 1);
    if (!rest || !parents || !offsets || !names) return OSSA_ERROR_TRUNCATED;
    if (size > ossa__pad16(c.pos)) return OSSA_ERROR_INVALID_SKELETON; /* trailing bytes */

    const int16_t *parent = (const int16_t *)(const void *)parents;
    const uint32_t *offset = (const uint32_t *)(const void *)offsets;
    if (joint_count && (names_size == 0 || names[names_size - 1] != '\0')) return OSSA_ERROR_INVALID_SKELETON;
    for (uint32_t i = 0; i < joint_count; ++i) {
        if (parent[i] < -1 || parent[i] >= (int32_t)i) return OSSA_ERROR_INVALID_SKELETON;
        if (offset[i] >= names_size) return OSSA_ERROR_INVALID_SKELETON;
    }
    const float *values = (const float *)(const void *)rest;
    for (size_t i = 0; i < soa_count * sizeof(ossa_soa_transform) / sizeof(float); ++i)
        if (!isfinite(values[i])) return OSSA_ERROR_INVALID_SKELETON;

    skeleton->joint_count = joint_count;
    skeleton->soa_count = soa_count;
    skeleton->parents = parent;
    skeleton->rest_pose = (const ossa_soa_transform *)(const void *)rest;
    skeleton->name_offsets = offset;
    skeleton->names = (const char *)names;
    skeleton->names_size = names_size;
    return OSSA_OK;
}

const char *ossa_skeleton_joint_name(const ossa_skeleton *skeleton, size_t joint)
{
    if (!skeleton || joint >= skeleton->joint_count) return "";
    return skeleton->names + skeleton->name_offsets[joint];
}

int ossa_skeleton_find_joint(const ossa_skeleton *skeleton, const char *name)
{
    if (!skeleton || !name) return -1;
    for (size_t i = 0; i < skeleton->joint_count; ++i)
        if (strcmp(ossa_skeleton_joint_name(skeleton, i), name) == 0) return (int)i;
    return -1;
}

ossa_transform ossa_skeleton_rest_transform(const ossa_skeleton *skeleton, size_t joint)
{
    if (!skeleton || joint >= skeleton->joint_count) return ossa_transform_identity();
    return ossa_soa_transform_get(&skeleton->rest_pose[joint / 4], (int)(joint % 4));
}
