#include "ossa/track.h"

#include <math.h>
#include <string.h>

#include "blob.h"
#include "ossa/archive.h"

size_t ossa_track_type_width(ossa_track_type type)
{
    switch (type) {
    case OSSA_TRACK_FLOAT:
        return 1;
    case OSSA_TRACK_FLOAT2:
        return 2;
    case OSSA_TRACK_FLOAT3:
        return 3;
    case OSSA_TRACK_FLOAT4:
    case OSSA_TRACK_QUAT:
        return 4;
    }
    return 0;
}

/* Checks what the jobs rely on: the key search needs sorted ratios spanning [0, 1], the
 * interpolation needs finite values and, for quaternions, unit length (so normalisation never
 * divides by zero). */
static ossa_result validate_keys(const ossa_track *t)
{
    const size_t n = t->key_count;
    if (t->ratios[0] != 0.f || t->ratios[n - 1] != 1.f) return OSSA_ERROR_INVALID_KEY;
    for (size_t k = 1; k < n; ++k)
        if (!(t->ratios[k] > t->ratios[k - 1])) return OSSA_ERROR_INVALID_KEY;
    /* Finite and at most 2^127 in magnitude, so that differences of values (interpolation,
     * threshold crossings) stay finite too. */
    for (size_t i = 0; i < n * t->width; ++i)
        if (!(fabsf(t->values[i]) <= OSSA_TRACK_MAX_VALUE)) return OSSA_ERROR_INVALID_KEY;
    const bool quat = t->type == OSSA_TRACK_QUAT;
    for (size_t k = 0; k < n; ++k) {
        const uint8_t interp = t->interpolations[k];
        if (interp > OSSA_INTERP_SLERP || (interp == OSSA_INTERP_SLERP && !quat)) return OSSA_ERROR_INVALID_KEY;
        if (quat) {
            const float *q = t->values + 4 * k;
            const float len2 = q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3];
            if (!(fabsf(len2 - 1.f) <= 2e-3f)) return OSSA_ERROR_INVALID_KEY;
        }
    }
    return OSSA_OK;
}

static ossa_result init(ossa_track *t, const uint8_t *blob, size_t size)
{
    ossa__cursor cur = {blob, size, 0};
    const uint8_t *h = ossa__take(&cur, OSSA_TRACK_HEADER_SIZE, 1, 1);
    if (!h) return OSSA_ERROR_TRUNCATED;
    const uint32_t type = ossa__load_u32(h + OSSA__TRACK_TYPE);
    const uint32_t key_count = ossa__load_u32(h + OSSA__TRACK_KEY_COUNT);
    const uint32_t name_size = ossa__load_u32(h + OSSA__TRACK_NAME_SIZE);
    if (ossa__load_u32(h + OSSA__TRACK_RESERVED) != 0) return OSSA_ERROR_INVALID_TRACK;
    const size_t width = ossa_track_type_width((ossa_track_type)type);
    if (width == 0 || key_count < 2 || key_count > OSSA_TRACK_MAX_KEYS) return OSSA_ERROR_INVALID_TRACK;
    t->type = (ossa_track_type)type;
    t->width = width;
    t->key_count = key_count;
    /* key_count <= 2^24 and width <= 4, so key_count * width cannot overflow. */
    t->ratios = (const float *)(const void *)ossa__take(&cur, key_count, 4, 16);
    t->values = (const float *)(const void *)ossa__take(&cur, (size_t)key_count * width, 4, 16);
    t->interpolations = ossa__take(&cur, key_count, 1, 16);
    const uint8_t *name = ossa__take(&cur, name_size, 1, 16);
    if (!t->ratios || !t->values || !t->interpolations || !name) return OSSA_ERROR_TRUNCATED;
    if (name_size == 0 || name[name_size - 1] != '\0') return OSSA_ERROR_INVALID_TRACK;
    if (size > ossa__pad16(cur.pos)) return OSSA_ERROR_INVALID_TRACK;
    t->name = (const char *)name;
    return validate_keys(t);
}

ossa_result ossa_track_init(ossa_track *track, const void *blob, size_t size)
{
    if (!track) return OSSA_ERROR_NULL_ARGUMENT;
    memset(track, 0, sizeof *track);
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    if (!ossa__host_is_little_endian()) return OSSA_ERROR_UNSUPPORTED_HOST;
    if ((uintptr_t)blob & 15u) return OSSA_ERROR_MISALIGNED;
    const ossa_result r = init(track, blob, size);
    if (r != OSSA_OK) memset(track, 0, sizeof *track);
    return r;
}

size_t ossa_track_data_size(const ossa_track *track)
{
    if (!track || !track->name) return 0;
    return OSSA_TRACK_HEADER_SIZE + track->key_count * (sizeof(float) * (1 + track->width) + 1) + strlen(track->name) +
           1;
}

ossa_result ossa_archive_track(const ossa_archive *archive, size_t index, ossa_track *track)
{
    if (!track) return OSSA_ERROR_NULL_ARGUMENT;
    memset(track, 0, sizeof *track);
    ossa_archive_chunk chunk;
    const ossa_result r = ossa_archive_find(archive, OSSA_TAG_TRACK, index, &chunk);
    if (r != OSSA_OK) return r;
    if (chunk.version != OSSA_TRACK_BLOB_VERSION) return OSSA_ERROR_UNSUPPORTED_VERSION;
    return ossa_track_init(track, chunk.data, chunk.size);
}
