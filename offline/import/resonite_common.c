/* The Resonite value-type table and the pieces AnimJ, AnimX and the writer share. */
#include "resonite_common.h"

#include <float.h>
#include <math.h>
#include <string.h>
#include <strings.h>

#include "../internal.h"

/* Order and sizes: the seed's AnimX byte table, confirmed by resonite-core's writer, animx.js
 * FRAME_TYPES and Avatar-Toolkit elementTypes; doubleQ is 32 bytes (resonite-core
 * DoubleQ = Double4), not the seed's 40. */
static const ossa__res_type types[OSSA__RES_TYPE_COUNT] = {
    {"bool", OSSA__RES_KIND_BOOL, 1, 1, 0, 0},
    {"bool2", OSSA__RES_KIND_BOOL, 2, 1, 0, 0},
    {"bool3", OSSA__RES_KIND_BOOL, 3, 1, 0, 0},
    {"bool4", OSSA__RES_KIND_BOOL, 4, 1, 0, 0},
    {"byte", OSSA__RES_KIND_UINT, 1, 1, 0, 0},
    {"ushort", OSSA__RES_KIND_UINT, 1, 2, 0, 0},
    {"uint", OSSA__RES_KIND_UINT, 1, 4, 0, 0},
    {"ulong", OSSA__RES_KIND_UINT, 1, 8, 0, 0},
    {"sbyte", OSSA__RES_KIND_INT, 1, 1, 0, 0},
    {"short", OSSA__RES_KIND_INT, 1, 2, 0, 0},
    {"int", OSSA__RES_KIND_INT, 1, 4, 0, 0},
    {"long", OSSA__RES_KIND_INT, 1, 8, 0, 0},
    {"int2", OSSA__RES_KIND_INT, 2, 4, 0, 0},
    {"int3", OSSA__RES_KIND_INT, 3, 4, 0, 0},
    {"int4", OSSA__RES_KIND_INT, 4, 4, 0, 0},
    {"uint2", OSSA__RES_KIND_UINT, 2, 4, 0, 0},
    {"uint3", OSSA__RES_KIND_UINT, 3, 4, 0, 0},
    {"uint4", OSSA__RES_KIND_UINT, 4, 4, 0, 0},
    {"long2", OSSA__RES_KIND_INT, 2, 8, 0, 0},
    {"long3", OSSA__RES_KIND_INT, 3, 8, 0, 0},
    {"long4", OSSA__RES_KIND_INT, 4, 8, 0, 0},
    {"float", OSSA__RES_KIND_FLOAT, 1, 4, 0, 0},
    {"float2", OSSA__RES_KIND_FLOAT, 2, 4, 0, 0},
    {"float3", OSSA__RES_KIND_FLOAT, 3, 4, 0, 0},
    {"float4", OSSA__RES_KIND_FLOAT, 4, 4, 0, 0},
    {"floatQ", OSSA__RES_KIND_FLOAT, 4, 4, OSSA__RES_QUAT, 0},
    {"float2x2", OSSA__RES_KIND_FLOAT, 4, 4, OSSA__RES_MATRIX, 2},
    {"float3x3", OSSA__RES_KIND_FLOAT, 9, 4, OSSA__RES_MATRIX, 3},
    {"float4x4", OSSA__RES_KIND_FLOAT, 16, 4, OSSA__RES_MATRIX, 4},
    {"double", OSSA__RES_KIND_DOUBLE, 1, 8, 0, 0},
    {"double2", OSSA__RES_KIND_DOUBLE, 2, 8, 0, 0},
    {"double3", OSSA__RES_KIND_DOUBLE, 3, 8, 0, 0},
    {"double4", OSSA__RES_KIND_DOUBLE, 4, 8, 0, 0},
    {"doubleQ", OSSA__RES_KIND_DOUBLE, 4, 8, OSSA__RES_QUAT, 0},
    {"double2x2", OSSA__RES_KIND_DOUBLE, 4, 8, OSSA__RES_MATRIX, 2},
    {"double3x3", OSSA__RES_KIND_DOUBLE, 9, 8, OSSA__RES_MATRIX, 3},
    {"double4x4", OSSA__RES_KIND_DOUBLE, 16, 8, OSSA__RES_MATRIX, 4},
    {"color", OSSA__RES_KIND_FLOAT, 4, 4, OSSA__RES_COLOR, 0},
    {"color32", OSSA__RES_KIND_UINT, 4, 1, OSSA__RES_COLOR, 0},
    {"string", OSSA__RES_KIND_STRING, 1, 0, 0, 0},
};

const ossa__res_type *ossa__res_type_get(unsigned id) { return id < OSSA__RES_TYPE_COUNT ? &types[id] : NULL; }

int ossa__res_type_find(const char *name)
{
    for (int i = 0; i < OSSA__RES_TYPE_COUNT; ++i)
        if (!strcasecmp(name, types[i].name)) return i;
    return -1;
}

size_t ossa__res_type_size(const ossa__res_type *type)
{
    if (type->kind == OSSA__RES_KIND_STRING) return 0;
    if (type->kind == OSSA__RES_KIND_BOOL) return 1;
    return (size_t)type->components * type->component_bytes;
}

bool ossa__res_type_is_stepped(const ossa__res_type *type)
{
    return type->kind == OSSA__RES_KIND_BOOL || type->kind == OSSA__RES_KIND_UINT || type->kind == OSSA__RES_KIND_INT ||
           type->kind == OSSA__RES_KIND_STRING;
}

const char *ossa__res_check_component(const ossa__res_type *type, double v)
{
    if (!isfinite(v)) return "is not a finite number";
    if (fabs(v) > (double)FLT_MAX) return "is beyond the float range";
    if (type->kind != OSSA__RES_KIND_BOOL && type->kind != OSSA__RES_KIND_UINT && type->kind != OSSA__RES_KIND_INT)
        return NULL;
    if (v != floor(v)) return "is not an integer";
    /* The bounds as powers of two, exact in double: [0, 2^bits) unsigned, [-2^(bits-1),
     * 2^(bits-1)) signed, [0, 1] bool. A double cannot hold 2^64 - 1 or 2^63 - 1 (they round
     * up to the excluded power of two); text and bytes carry them exactly through
     * ossa__res_check_integer. */
    const int bits = 8 * type->component_bytes;
    double lo = 0.0, end = 2.0;
    if (type->kind == OSSA__RES_KIND_UINT) end = ldexp(1.0, bits);
    if (type->kind == OSSA__RES_KIND_INT) end = ldexp(1.0, bits - 1), lo = -end;
    return v < lo || v >= end ? "is out of the type's range" : NULL;
}

const char *ossa__res_check_integer(const ossa__res_type *type, bool negative, uint64_t magnitude)
{
    if (type->kind != OSSA__RES_KIND_BOOL && type->kind != OSSA__RES_KIND_UINT && type->kind != OSSA__RES_KIND_INT)
        return NULL;
    const unsigned bits = 8u * type->component_bytes;
    uint64_t max; /* the largest magnitude on this side of zero */
    if (type->kind == OSSA__RES_KIND_BOOL)
        max = negative ? 0u : 1u;
    else if (type->kind == OSSA__RES_KIND_UINT)
        max = negative ? 0u : bits >= 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1u;
    else
        max = ((uint64_t)1 << (bits - 1)) - (negative ? 0u : 1u);
    return magnitude > max ? "is out of the type's range" : NULL;
}

size_t ossa__res_utf8_invalid(const uint8_t *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c >= 0x01 && c < 0x80) {
            ++i;
            continue;
        }
        size_t len;
        uint32_t cp, min;
        if (c >= 0xC2 && c <= 0xDF)
            len = 2, cp = c & 0x1Fu, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF)
            len = 3, cp = c & 0x0Fu, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4)
            len = 4, cp = c & 0x07u, min = 0x10000;
        else
            return i;
        if (n - i < len) return i;
        for (size_t k = 1; k < len; ++k) {
            if ((s[i + k] & 0xC0) != 0x80) return i;
            cp = (cp << 6) | (s[i + k] & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return i;
        i += len;
    }
    return SIZE_MAX;
}

const char *ossa__res_track_type_name(unsigned type)
{
    static const char *const names[] = {"Raw", "Discrete", "Curve", "Bezier"};
    return type < 4 ? names[type] : "unknown";
}

const char *ossa__res_interp_name(unsigned interp)
{
    static const char *const names[] = {"Hold", "Linear", "Tangent", "CubicBezier"};
    return interp < 4 ? names[interp] : "unknown";
}

ossa_result ossa__res_track_alloc(ossa__res_track *t, const ossa_allocator *a, bool tangents)
{
    const ossa__res_type *type = ossa__res_type_get(t->value_type);
    const size_t n = t->key_count;
    if (!type) return OSSA_ERROR_INVALID_ARGUMENT;
    if (n == 0) return OSSA_OK;
    size_t values;
    if (!ossa__mul_size(n, type->components, &values)) return OSSA_ERROR_OUT_OF_MEMORY;
    if (t->track_type != OSSA__RES_RAW && !(t->times = ossa__calloc(a, n, sizeof *t->times)))
        return OSSA_ERROR_OUT_OF_MEMORY;
    if (t->track_type == OSSA__RES_CURVE && !(t->interps = ossa__calloc(a, n, 1))) return OSSA_ERROR_OUT_OF_MEMORY;
    if (type->kind == OSSA__RES_KIND_STRING)
        return (t->strings = ossa__calloc(a, n, sizeof *t->strings)) ? OSSA_OK : OSSA_ERROR_OUT_OF_MEMORY;
    if (!(t->values = ossa__calloc(a, values, sizeof *t->values))) return OSSA_ERROR_OUT_OF_MEMORY;
    if (tangents) {
        t->left = ossa__calloc(a, values, sizeof *t->left);
        t->right = ossa__calloc(a, values, sizeof *t->right);
        if (!t->left || !t->right) return OSSA_ERROR_OUT_OF_MEMORY;
    }
    return OSSA_OK;
}

void ossa__res_anim_free(ossa__res_anim *anim)
{
    if (!anim) return;
    const ossa_allocator *a = anim->allocator;
    for (size_t i = 0; i < anim->track_count && anim->tracks; ++i) {
        ossa__res_track *t = &anim->tracks[i];
        ossa_free(a, t->node);
        ossa_free(a, t->property);
        ossa_free(a, t->times);
        ossa_free(a, t->interps);
        ossa_free(a, t->values);
        ossa_free(a, t->left);
        ossa_free(a, t->right);
        if (t->strings)
            for (size_t k = 0; k < t->key_count; ++k) ossa_free(a, t->strings[k]);
        ossa_free(a, t->strings);
    }
    ossa_free(a, anim->tracks);
    ossa_free(a, anim->name);
    anim->tracks = NULL;
    anim->track_count = 0;
    anim->name = NULL;
}

ossa_result ossa__res_settings_get(const ossa_resonite_desc *desc, ossa__res_settings *s, ossa_diag *diag)
{
    static const ossa_resonite_desc defaults = {0};
    if (!desc) desc = &defaults;
    memset(s, 0, sizeof *s);
    if (!(desc->sample_rate >= 0.f) || !isfinite(desc->sample_rate))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "sample_rate must be a finite number >= 0 (0 means 60 Hz), found %g",
                          (double)desc->sample_rate);
    s->rate = desc->sample_rate > 0.f ? (double)desc->sample_rate : 60.0;
    s->max_keys = desc->max_keys ? desc->max_keys : (size_t)1 << 22;
    s->max_decompressed = desc->max_decompressed_size ? desc->max_decompressed_size : (size_t)256 << 20;
    s->bind = desc->bind_skeleton;
    s->no_binding = desc->no_joint_binding;
    s->allocator = desc->allocator;
    return OSSA_OK;
}

const char *ossa__res_key_budget(const ossa__res_settings *s, size_t count, size_t *total)
{
    if (count > s->max_keys) return "more keyframes than max_keys allows in one track";
    const size_t all = s->max_keys > SIZE_MAX / 4 ? SIZE_MAX : 4 * s->max_keys;
    if (count > all - *total) return "more keyframes in all tracks than 4 * max_keys";
    *total += count;
    return NULL;
}
