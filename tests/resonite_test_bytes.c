#include "resonite_test_bytes.h"

#include <stdio.h>
#include <string.h>

void tb_raw(test_bytes *b, const void *data, size_t n)
{
    if (b->n + n > sizeof b->d) return;
    memcpy(b->d + b->n, data, n);
    b->n += n;
}

void tb_u8(test_bytes *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    tb_raw(b, &c, 1);
}

void tb_le(test_bytes *b, uint64_t v, size_t n)
{
    for (size_t i = 0; i < n; ++i) tb_u8(b, (unsigned)((v >> (8 * i)) & 0xFF));
}

void tb_f32(test_bytes *b, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    tb_le(b, u, 4);
}

void tb_f64(test_bytes *b, double f)
{
    uint64_t u;
    memcpy(&u, &f, 8);
    tb_le(b, u, 8);
}

void tb_var(test_bytes *b, uint64_t v)
{
    while (v > 0x7F) {
        tb_u8(b, (unsigned)(v & 0x7F) | 0x80);
        v >>= 7;
    }
    tb_u8(b, (unsigned)v);
}

void tb_str(test_bytes *b, const char *s)
{
    tb_var(b, strlen(s));
    tb_raw(b, s, strlen(s));
}

void tb_header(test_bytes *b, int version, unsigned tracks, float duration, const char *name, unsigned encoding)
{
    tb_str(b, "AnimX");
    tb_le(b, (uint32_t)version, 4);
    tb_var(b, tracks);
    tb_f32(b, duration);
    tb_str(b, name);
    tb_u8(b, encoding);
}

/* The seed's table: name, components, kind, bytes per component. */
static const struct {
    const char *name;
    unsigned comps;
    char kind;
    unsigned bytes;
} table[40] = {
    {"bool", 1, 'b', 0},       {"bool2", 2, 'b', 0},   {"bool3", 3, 'b', 0},     {"bool4", 4, 'b', 0},
    {"byte", 1, 'u', 1},       {"ushort", 1, 'u', 2},  {"uint", 1, 'u', 4},      {"ulong", 1, 'u', 8},
    {"sbyte", 1, 'i', 1},      {"short", 1, 'i', 2},   {"int", 1, 'i', 4},       {"long", 1, 'i', 8},
    {"int2", 2, 'i', 4},       {"int3", 3, 'i', 4},    {"int4", 4, 'i', 4},      {"uint2", 2, 'u', 4},
    {"uint3", 3, 'u', 4},      {"uint4", 4, 'u', 4},   {"long2", 2, 'i', 8},     {"long3", 3, 'i', 8},
    {"long4", 4, 'i', 8},      {"float", 1, 'f', 4},   {"float2", 2, 'f', 4},    {"float3", 3, 'f', 4},
    {"float4", 4, 'f', 4},     {"floatQ", 4, 'f', 4},  {"float2x2", 4, 'f', 4},  {"float3x3", 9, 'f', 4},
    {"float4x4", 16, 'f', 4},  {"double", 1, 'd', 8},  {"double2", 2, 'd', 8},   {"double3", 3, 'd', 8},
    {"double4", 4, 'd', 8},    {"doubleQ", 4, 'd', 8}, {"double2x2", 4, 'd', 8}, {"double3x3", 9, 'd', 8},
    {"double4x4", 16, 'd', 8}, {"color", 4, 'f', 4},   {"color32", 4, 'u', 1},   {"string", 1, 's', 0},
};

size_t tb_type_size(unsigned type)
{
    if (table[type].kind == 'b') return 1;
    return table[type].comps * table[type].bytes;
}

unsigned tb_type_components(unsigned type) { return table[type].comps; }
char tb_type_kind(unsigned type) { return table[type].kind; }
const char *tb_type_name(unsigned type) { return table[type].name; }

double tb_value(unsigned type, unsigned key, unsigned c)
{
    switch (table[type].kind) {
    case 'b':
        return (double)((key + c) % 2);
    case 'u':
        return (double)((key + 1) * 10 + c);
    case 'i':
        return (c % 2 ? 1.0 : -1.0) * (double)((key + 1) * 10 + c);
    default:
        return 0.25 * (double)(key + 1) + 1.5 * (double)c;
    }
}

void tb_value_bytes(test_bytes *b, unsigned type, unsigned key)
{
    const unsigned n = table[type].comps;
    if (table[type].kind == 's') {
        char s[16];
        snprintf(s, sizeof s, "s%u", key);
        tb_u8(b, 1);
        tb_str(b, s);
        return;
    }
    if (table[type].kind == 'b') {
        unsigned bits = 0;
        for (unsigned c = 0; c < n; ++c) bits |= (unsigned)tb_value(type, key, c) << c;
        tb_u8(b, bits);
        return;
    }
    for (unsigned c = 0; c < n; ++c) {
        const double v = tb_value(type, key, c);
        switch (table[type].kind) {
        case 'u':
            tb_le(b, (uint64_t)v, table[type].bytes);
            break;
        case 'i':
            tb_le(b, (uint64_t)(int64_t)v, table[type].bytes);
            break;
        case 'f':
            tb_f32(b, (float)v);
            break;
        default:
            tb_f64(b, v);
            break;
        }
    }
}

void tb_value_json(char *text, size_t cap, unsigned type, unsigned key)
{
    static const char *const xyzw[] = {"x", "y", "z", "w"}, *const rgba[] = {"r", "g", "b", "a"};
    const char *const *names = (type == 37 || type == 38) ? rgba : xyzw;
    const unsigned n = table[type].comps;
    size_t len = strlen(text);
    if (table[type].kind == 's') {
        snprintf(text + len, cap - len, "\"s%u\"", key);
        return;
    }
    if (n > 1) snprintf(text + len, cap - len, "{");
    for (unsigned c = 0; c < n; ++c) {
        len = strlen(text);
        const double v = tb_value(type, key, c);
        if (n > 1) snprintf(text + len, cap - len, "%s\"%s\": ", c ? ", " : "", names[c]), len = strlen(text);
        if (table[type].kind == 'b')
            snprintf(text + len, cap - len, "%s", v != 0.0 ? "true" : "false");
        else
            snprintf(text + len, cap - len, "%.17g", v);
    }
    len = strlen(text);
    if (n > 1) snprintf(text + len, cap - len, "}");
}
