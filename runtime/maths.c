#include <math.h>
#include <string.h>

#include "matrix.h"
#include "ossa/maths.h"

ossa_transform ossa_transform_identity(void)
{
    return (ossa_transform){{0.f, 0.f, 0.f}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f}};
}

ossa_transform ossa_soa_transform_get(const ossa_soa_transform *soa, int lane)
{
    const int l = lane & 3;
    return (ossa_transform){
        {soa->translation.x[l], soa->translation.y[l], soa->translation.z[l]},
        {soa->rotation.x[l], soa->rotation.y[l], soa->rotation.z[l], soa->rotation.w[l]},
        {soa->scale.x[l], soa->scale.y[l], soa->scale.z[l]},
    };
}

void ossa_soa_transform_set(ossa_soa_transform *soa, int lane, const ossa_transform *t)
{
    const int l = lane & 3;
    soa->translation.x[l] = t->translation.x;
    soa->translation.y[l] = t->translation.y;
    soa->translation.z[l] = t->translation.z;
    soa->rotation.x[l] = t->rotation.x;
    soa->rotation.y[l] = t->rotation.y;
    soa->rotation.z[l] = t->rotation.z;
    soa->rotation.w[l] = t->rotation.w;
    soa->scale.x[l] = t->scale.x;
    soa->scale.y[l] = t->scale.y;
    soa->scale.z[l] = t->scale.z;
}

void ossa_soa_transform_set_identity(ossa_soa_transform *soa)
{
    const ossa_transform id = ossa_transform_identity();
    for (int l = 0; l < 4; ++l) ossa_soa_transform_set(soa, l, &id);
}

ossa_float4x4 ossa_float4x4_identity(void)
{
    ossa_float4x4 m;
    memset(&m, 0, sizeof m);
    m.cols[0][0] = m.cols[1][1] = m.cols[2][2] = m.cols[3][3] = 1.f;
    return m;
}

ossa_float4x4 ossa_float4x4_from_transform(const ossa_transform *t) { return ossa__float4x4_from_transform(t); }

ossa_float4x4 ossa_float4x4_mul(const ossa_float4x4 *a, const ossa_float4x4 *b) { return ossa__float4x4_mul(a, b); }

ossa_quat ossa_quat_mul(ossa_quat a, ossa_quat b)
{
    return (ossa_quat){
        a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
        a.w * b.y + a.y * b.w + a.z * b.x - a.x * b.z,
        a.w * b.z + a.z * b.w + a.x * b.y - a.y * b.x,
        a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z,
    };
}

ossa_quat ossa_quat_normalize(ossa_quat q) { return ossa__quat_normalize(q); }

ossa_quat ossa_quat_slerp(ossa_quat a, ossa_quat b, float alpha)
{
    float dot = a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
    const float sign = dot < 0.f ? -1.f : 1.f;
    dot *= sign;
    float wa = 1.f - alpha, wb = alpha * sign;
    if (dot < .9995f) {
        const float theta = acosf(dot), inv_sin = 1.f / sinf(theta);
        wa = sinf(wa * theta) * inv_sin;
        wb = sinf(alpha * theta) * inv_sin * sign;
    }
    return ossa_quat_normalize(
        (ossa_quat){wa * a.x + wb * b.x, wa * a.y + wb * b.y, wa * a.z + wb * b.z, wa * a.w + wb * b.w});
}

ossa_float3 ossa_quat_rotate(ossa_quat q, ossa_float3 v)
{
    /* v' = v + 2w (u x v) + 2 u x (u x v), u = q.xyz */
    const float cx = q.y * v.z - q.z * v.y, cy = q.z * v.x - q.x * v.z, cz = q.x * v.y - q.y * v.x;
    const float ccx = q.y * cz - q.z * cy, ccy = q.z * cx - q.x * cz, ccz = q.x * cy - q.y * cx;
    return (ossa_float3){v.x + 2.f * (q.w * cx + ccx), v.y + 2.f * (q.w * cy + ccy), v.z + 2.f * (q.w * cz + ccz)};
}

ossa_quat ossa_quat_from_euler(float x, float y, float z, const char *order)
{
    const ossa_quat qx = {sinf(x * .5f), 0.f, 0.f, cosf(x * .5f)};
    const ossa_quat qy = {0.f, sinf(y * .5f), 0.f, cosf(y * .5f)};
    const ossa_quat qz = {0.f, 0.f, sinf(z * .5f), cosf(z * .5f)};
    if (!order || strlen(order) != 3) order = "xyz";
    ossa_quat q = {0.f, 0.f, 0.f, 1.f};
    /* The first axis in `order` is applied first, so it is the rightmost factor. */
    for (int i = 0; i < 3; ++i) {
        const char c = order[i];
        const ossa_quat r = (c == 'x' || c == 'X') ? qx : (c == 'y' || c == 'Y') ? qy : qz;
        q = ossa_quat_mul(r, q);
    }
    return q;
}

uint16_t ossa_float_to_half(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    const uint32_t sign = (u >> 16) & 0x8000u;
    const uint32_t abs = u & 0x7fffffffu;
    if (abs >= 0x7f800000u) /* inf or NaN */
        return (uint16_t)(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u | ((abs >> 13) & 0x3ffu) : 0u));
    if (abs >= 0x477ff000u) /* rounds to >= 65520: overflow */
        return (uint16_t)(sign | 0x7c00u);
    if (abs < 0x38800000u) { /* half subnormal or zero: value / 2^-24, rounded to nearest even */
        if (abs < 0x33000000u) return (uint16_t)sign; /* < 2^-25 rounds to 0 */
        const uint32_t mant = (abs & 0x7fffffu) | 0x800000u;
        const int shift = 126 - (int)(abs >> 23); /* 14..24 */
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) ++h;
        return (uint16_t)(sign | h);
    }
    uint32_t h = ((abs - 0x38000000u) >> 13);
    const uint32_t rem = abs & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h; /* carries into the exponent correctly */
    return (uint16_t)(sign | h);
}

float ossa_half_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;
    uint32_t u;
    if (exp == 0) {
        if (mant == 0) {
            u = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            uint32_t m = mant;
            do {
                ++e;
                m <<= 1;
            } while (!(m & 0x400u));
            u = sign | ((uint32_t)(127 - 15 - e) << 23) | ((m & 0x3ffu) << 13);
        }
    } else if (exp == 31) {
        u = sign | 0x7f800000u | (mant << 13);
    } else {
        u = sign | ((exp + 127 - 15) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}
