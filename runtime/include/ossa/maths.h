/* ossa/maths.h: the public value types of ossa and a few scalar helpers.
 *
 *   ossa_soa_transform pose[OSSA_MAX_SOA_JOINTS];     // joints 4 at a time, lane j = joint 4*i+j
 *   ossa_transform t = ossa_soa_transform_get(&pose[i / 4], i % 4);
 *   ossa_float4x4 m;                                  // column-major: m.cols[3] is the translation
 *
 * Units: translations in the skeleton's units (metres unless an importer states otherwise),
 * rotations as unit quaternions (x, y, z, w), scales as factors. SoA types hold four lanes
 * aligned on 16 bytes so the ABI does not depend on SIMD compile flags. The SIMD code that
 * works on them is private (runtime/simd.h); these helpers are scalar references.
 */
#ifndef OSSA_MATHS_H
#define OSSA_MATHS_H

#include "ossa/config.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A 3D vector: translation (source units) or scale (factor). */
typedef struct ossa_float3 {
    float x, y, z;
} ossa_float3;

/* A rotation quaternion (x, y, z, w), normalised where documented. Identity is (0, 0, 0, 1). */
typedef struct ossa_quat {
    float x, y, z, w;
} ossa_quat;

/* An affine transform applied as scale, then rotation, then translation. */
typedef struct ossa_transform {
    ossa_float3 translation;
    ossa_quat rotation;
    ossa_float3 scale;
} ossa_transform;

/* Four float3 in SoA layout: lane j of x, y, z is vector j. */
typedef struct ossa_soa_float3 {
    OSSA_ALIGNAS(16) float x[4];
    OSSA_ALIGNAS(16) float y[4];
    OSSA_ALIGNAS(16) float z[4];
} ossa_soa_float3;

/* Four quaternions in SoA layout. */
typedef struct ossa_soa_quat {
    OSSA_ALIGNAS(16) float x[4];
    OSSA_ALIGNAS(16) float y[4];
    OSSA_ALIGNAS(16) float z[4];
    OSSA_ALIGNAS(16) float w[4];
} ossa_soa_quat;

/* Four local-space joint transforms in SoA layout (160 bytes). */
typedef struct ossa_soa_transform {
    ossa_soa_float3 translation;
    ossa_soa_quat rotation;
    ossa_soa_float3 scale;
} ossa_soa_transform;

/* A 4x4 matrix, column-major: cols[c][r]. cols[3] holds the translation; vectors are columns
 * multiplied on the right (p' = M * p). */
typedef struct ossa_float4x4 {
    OSSA_ALIGNAS(16) float cols[4][4];
} ossa_float4x4;

/* The identity transform: translation 0, rotation (0, 0, 0, 1), scale 1. */
OSSA_API ossa_transform ossa_transform_identity(void);

/* Lane `lane` (0..3) of `soa` as an AoS transform. Source: ozz math/soa_transform.h layout. */
OSSA_API ossa_transform ossa_soa_transform_get(const ossa_soa_transform *soa, int lane);

/* Writes `t` into lane `lane` (0..3) of `soa`; other lanes are untouched. */
OSSA_API void ossa_soa_transform_set(ossa_soa_transform *soa, int lane, const ossa_transform *t);

/* Fills all four lanes of `soa` with the identity transform. */
OSSA_API void ossa_soa_transform_set_identity(ossa_soa_transform *soa);

/* Matrix of `t` (scale, then rotation, then translation). `t->rotation` need not be exactly
 * normalised; it is used as given. */
OSSA_API ossa_float4x4 ossa_float4x4_from_transform(const ossa_transform *t);

/* a * b (apply b first). dest-free: returns by value, so a and b may be the same. */
OSSA_API ossa_float4x4 ossa_float4x4_mul(const ossa_float4x4 *a, const ossa_float4x4 *b);

/* The identity matrix. */
OSSA_API ossa_float4x4 ossa_float4x4_identity(void);

/* Quaternion product a * b (rotate by b, then by a). */
OSSA_API ossa_quat ossa_quat_mul(ossa_quat a, ossa_quat b);

/* q normalised; the identity when |q| is 0 or not finite. */
OSSA_API ossa_quat ossa_quat_normalize(ossa_quat q);

/* Spherical linear interpolation from a (alpha 0) to b (alpha 1) along the shortest arc,
 * normalised; normalised-lerp weights when the two are within about 3.6 degrees (dot above
 * 0.9995), where sin(theta) loses precision. a and b should be unit quaternions.
 * Source: K. Shoemake, "Animating rotation with quaternion curves", SIGGRAPH 1985. */
OSSA_API ossa_quat ossa_quat_slerp(ossa_quat a, ossa_quat b, float alpha);

/* Rotates vector v by unit quaternion q. */
OSSA_API ossa_float3 ossa_quat_rotate(ossa_quat q, ossa_float3 v);

/* Rotation from Euler angles in radians applied in the order given by `order`
 * (a string such as "xyz": x first, then y, then z, each about the fixed parent axes). */
OSSA_API ossa_quat ossa_quat_from_euler(float x, float y, float z, const char *order);

/* IEEE 754 binary16 of f, rounded to nearest even; overflow gives +-infinity, NaN stays NaN. */
OSSA_API uint16_t ossa_float_to_half(float f);

/* The float value of binary16 h (exact). */
OSSA_API float ossa_half_to_float(uint16_t h);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_MATHS_H */
