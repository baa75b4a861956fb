#include <string.h>

#include "blob.h"
#include "internal.h"
#include "ossa/offline/builders.h"
#include "ossa/skeleton.h"

ossa_result ossa_skeleton_build(const ossa_raw_skeleton *raw, const ossa_allocator *allocator, ossa_blob *out,
                                ossa_diag *diag)
{
    if (out) memset(out, 0, sizeof *out);
    if (!raw || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no skeleton or output");
    ossa_result r = ossa_raw_skeleton_validate(raw, diag);
    if (r != OSSA_OK) return r;
    if (!ossa_raw_skeleton_is_depth_first(raw))
        return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON,
                          "joints are not in depth-first order (use ossa_raw_skeleton_sort_depth_first)");
    const size_t n = raw->joint_count, soa = (n + 3) / 4;
    size_t names_size = 0;
    for (size_t i = 0; i < n; ++i) names_size += strlen(raw->joints[i].name) + 1;
    if (names_size > UINT32_MAX) return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON, "joint names are too long");
    const size_t rest_at = 16, parents_at = rest_at + soa * sizeof(ossa_soa_transform);
    const size_t offsets_at = parents_at + ((n * 2 + 3) & ~(size_t)3), names_at = offsets_at + n * 4;
    const size_t size = (names_at + names_size + 15) & ~(size_t)15;
    r = ossa_blob_create(out, size, allocator);
    if (r != OSSA_OK) return ossa__fail(diag, r, "out of memory for a %zu-byte skeleton", size);
    uint8_t *b = out->data;
    ossa__store_u32(b + OSSA__SKELETON_JOINT_COUNT, (uint32_t)n);
    ossa__store_u32(b + OSSA__SKELETON_NAMES_SIZE, (uint32_t)names_size);
    size_t name_at = 0;
    for (size_t g = 0; g < soa; ++g) {
        ossa_soa_transform t;
        ossa_soa_transform_set_identity(&t);
        for (size_t l = 0; l < 4 && g * 4 + l < n; ++l) {
            ossa_transform rest = raw->joints[g * 4 + l].rest;
            rest.rotation = ossa_quat_normalize(rest.rotation);
            ossa_soa_transform_set(&t, (int)l, &rest);
        }
        const float *f = (const float *)&t;
        for (size_t k = 0; k < sizeof t / sizeof(float); ++k) ossa__store_f32(b + rest_at + g * sizeof t + k * 4, f[k]);
    }
    for (size_t i = 0; i < n; ++i) {
        ossa__store_u16(b + parents_at + i * 2, (uint16_t)(int16_t)raw->joints[i].parent);
        ossa__store_u32(b + offsets_at + i * 4, (uint32_t)name_at);
        const size_t len = strlen(raw->joints[i].name) + 1;
        memcpy(b + names_at + name_at, raw->joints[i].name, len);
        name_at += len;
    }
    return OSSA_OK;
}
