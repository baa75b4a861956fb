/* Private SIMD layer: the only file that includes SIMDe. SSE2 on x86-64 and NEON on AArch64
 * are chosen by SIMDe from the compiler flags; with -DSIMDE_NO_NATIVE everything runs on
 * SIMDe's portable code. SoA maths is built on these 4-wide wrappers only. Where the target
 * has fused multiply-add (x86-64-v3: the AVX2 copy of the hot jobs in the dispatching build,
 * dispatch.h, or everything with -Dsimd=avx2), v4f_madd and v4f_nmadd round once instead of
 * twice: results then differ from the SSE2 code's in the last bit, within every bound the
 * jobs document. */
#ifndef OSSA_RUNTIME_SIMD_H
#define OSSA_RUNTIME_SIMD_H

#include <string.h>

#include <simde/x86/sse2.h>
#include <simde/x86/sse4.1.h> /* native where the target has SSE4.1, SIMDe's SSE2 code otherwise */

#if defined(__FMA__)
#include <simde/x86/fma.h>
#define OSSA__FMA 1
#endif

#include "ossa/maths.h"
#include "ossa/simd_level.h"

/* The instruction set SIMDe compiles this translation unit for (ossa_simd_level). */
#if defined(SIMDE_X86_AVX2_NATIVE) && defined(SIMDE_X86_FMA_NATIVE)
#define OSSA__SIMD_COMPILED OSSA_SIMD_AVX2
#elif defined(SIMDE_X86_SSE2_NATIVE)
#define OSSA__SIMD_COMPILED OSSA_SIMD_SSE2
#elif defined(SIMDE_ARM_NEON_A32V7_NATIVE)
#define OSSA__SIMD_COMPILED OSSA_SIMD_NEON
#elif defined(SIMDE_WASM_SIMD128_NATIVE)
#define OSSA__SIMD_COMPILED OSSA_SIMD_WASM
#else
#define OSSA__SIMD_COMPILED OSSA_SIMD_PORTABLE
#endif
#if defined(OSSA__AVX2_KERNELS)
_Static_assert(OSSA__SIMD_COMPILED == OSSA_SIMD_AVX2, "the AVX2 copy of the jobs (dispatch.h) needs -march=x86-64-v3");
#endif

typedef simde__m128 v4f;
typedef simde__m128i v4i;

/* ---- float4 ---- */
static inline v4f v4f_load(const float *p) { return simde_mm_load_ps(p); } /* 16-byte aligned */
static inline v4f v4f_loadu(const float *p) { return simde_mm_loadu_ps(p); }
static inline void v4f_store(float *p, v4f v) { simde_mm_store_ps(p, v); } /* 16-byte aligned */
static inline void v4f_storeu(float *p, v4f v) { simde_mm_storeu_ps(p, v); }
static inline v4f v4f_set1(float f) { return simde_mm_set1_ps(f); }
static inline v4f v4f_set(float x, float y, float z, float w) { return simde_mm_setr_ps(x, y, z, w); }
static inline v4f v4f_zero(void) { return simde_mm_setzero_ps(); }
static inline v4f v4f_one(void) { return simde_mm_set1_ps(1.f); }
static inline v4f v4f_add(v4f a, v4f b) { return simde_mm_add_ps(a, b); }
static inline v4f v4f_sub(v4f a, v4f b) { return simde_mm_sub_ps(a, b); }
static inline v4f v4f_mul(v4f a, v4f b) { return simde_mm_mul_ps(a, b); }
static inline v4f v4f_div(v4f a, v4f b) { return simde_mm_div_ps(a, b); }
#if defined(OSSA__FMA)
static inline v4f v4f_madd(v4f a, v4f b, v4f c) { return simde_mm_fmadd_ps(a, b, c); }   /* a*b+c */
static inline v4f v4f_nmadd(v4f a, v4f b, v4f c) { return simde_mm_fnmadd_ps(a, b, c); } /* c-a*b */
#else
static inline v4f v4f_madd(v4f a, v4f b, v4f c) { return simde_mm_add_ps(simde_mm_mul_ps(a, b), c); }  /* a*b+c */
static inline v4f v4f_nmadd(v4f a, v4f b, v4f c) { return simde_mm_sub_ps(c, simde_mm_mul_ps(a, b)); } /* c-a*b */
#endif
static inline v4f v4f_min(v4f a, v4f b) { return simde_mm_min_ps(a, b); }
static inline v4f v4f_max(v4f a, v4f b) { return simde_mm_max_ps(a, b); }
static inline v4f v4f_sqrt(v4f a) { return simde_mm_sqrt_ps(a); }
static inline v4f v4f_and(v4f a, v4f b) { return simde_mm_and_ps(a, b); }
static inline v4f v4f_or(v4f a, v4f b) { return simde_mm_or_ps(a, b); }
static inline v4f v4f_xor(v4f a, v4f b) { return simde_mm_xor_ps(a, b); }
static inline v4f v4f_andnot(v4f a, v4f b) { return simde_mm_andnot_ps(a, b); } /* ~a & b */
static inline v4f v4f_cmplt(v4f a, v4f b) { return simde_mm_cmplt_ps(a, b); }
static inline v4f v4f_cmpge(v4f a, v4f b) { return simde_mm_cmpge_ps(a, b); }
/* The sign bits of the four lanes, lane 0 in bit 0. */
static inline unsigned v4f_movemask(v4f a) { return (unsigned)simde_mm_movemask_ps(a); }
/* True when some lane of a is greater than the same lane of b. */
static inline bool v4f_any_gt(v4f a, v4f b) { return simde_mm_movemask_ps(simde_mm_cmpgt_ps(a, b)) != 0; }
/* mask ? b : a, per lane (mask lanes all ones or all zeros): one blendvps where the target
 * has SSE4.1 (x86-64-v3), otherwise a ^ ((a ^ b) & mask), bit for bit the same, which with
 * two-operand instructions needs one register copy fewer than (mask & b) | (~mask & a). */
static inline v4f v4f_select(v4f mask, v4f b, v4f a)
{
#if defined(__SSE4_1__)
    return simde_mm_blendv_ps(a, b, mask);
#else
    return simde_mm_xor_ps(a, simde_mm_and_ps(simde_mm_xor_ps(a, b), mask));
#endif
}
static inline v4f v4f_lerp(v4f a, v4f b, v4f alpha) { return v4f_madd(v4f_sub(b, a), alpha, a); }
/* Lane i of v (i constant 0..3) in every lane. The integer shuffle (pshufd on SSE2) has a
 * separate destination, so no register copy precedes it as shufps would need. */
#define V4F_SPLAT(v, i)                                                                                                \
    simde_mm_castsi128_ps(simde_mm_shuffle_epi32(simde_mm_castps_si128(v), SIMDE_MM_SHUFFLE(i, i, i, i)))
static inline float v4f_x(v4f v) { return simde_mm_cvtss_f32(v); }
/* Stores lane i (a constant 0..3) of v at the float *p: one extractps to memory where the
 * target has SSE4.1 (x86-64-v3), otherwise a scalar store, after an integer shuffle for lanes
 * 1 to 3. */
#if defined(__SSE4_1__)
#define V4F_STORE_LANE(p, v, i)                                                                                        \
    do {                                                                                                               \
        const int bits_ = simde_mm_extract_ps((v), (i));                                                               \
        memcpy((p), &bits_, sizeof bits_);                                                                             \
    } while (0)
#else
#define V4F_STORE_LANE(p, v, i) (*(p) = (i) == 0 ? v4f_x(v) : v4f_x(V4F_SPLAT((v), (i))))
#endif
/* Lanes (x, y, z, w) of v in that order (each a constant 0..3): (v[x], v[y], v[z], v[w]). */
#define V4F_SWIZZLE(v, x, y, z, w) simde_mm_shuffle_ps((v), (v), SIMDE_MM_SHUFFLE((w), (z), (y), (x)))
/* 1/sqrt(a), correctly rounded square root then division: the hardware estimates differ by
 * ISA (SSE 2^-12, NEON 2^-8) and a Newton step leaves NEON at 1.6e-5, too coarse for
 * normalised quaternions that must agree on every platform. */
static inline v4f v4f_rsqrt(v4f a) { return simde_mm_div_ps(simde_mm_set1_ps(1.f), simde_mm_sqrt_ps(a)); }
/* Transposes 4 rows in place. */
static inline void v4f_transpose4(v4f *r0, v4f *r1, v4f *r2, v4f *r3)
{
    const v4f t0 = simde_mm_unpacklo_ps(*r0, *r1), t1 = simde_mm_unpacklo_ps(*r2, *r3);
    const v4f t2 = simde_mm_unpackhi_ps(*r0, *r1), t3 = simde_mm_unpackhi_ps(*r2, *r3);
    *r0 = simde_mm_movelh_ps(t0, t1);
    *r1 = simde_mm_movehl_ps(t1, t0);
    *r2 = simde_mm_movelh_ps(t2, t3);
    *r3 = simde_mm_movehl_ps(t3, t2);
}

/* Lanes (a[i0], a[i1], b[i2], b[i3]); indices constant 0..3. */
#define V4F_SHUFFLE(a, b, i0, i1, i2, i3) simde_mm_shuffle_ps((a), (b), SIMDE_MM_SHUFFLE(i3, i2, i1, i0))
/* Three floats at p (4-byte aligned) in lanes 0..2, lane 3 zero; reads exactly 12 bytes. */
static inline v4f v4f_load3(const float *p)
{
    return simde_mm_movelh_ps(simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)(const void *)p)),
                              simde_mm_load_ss(p + 2));
}
/* Two floats at p in lanes 0..1, lanes 2..3 zero; reads exactly 8 bytes. */
static inline v4f v4f_load2(const float *p)
{
    return simde_mm_castsi128_ps(simde_mm_loadl_epi64((const simde__m128i *)(const void *)p));
}
/* Lanes 0..2 of v to p (4-byte aligned); writes exactly 12 bytes. */
static inline void v4f_store3(float *p, v4f v)
{
    simde_mm_storel_epi64((simde__m128i *)(void *)p, simde_mm_castps_si128(v));
    simde_mm_store_ss(p + 2, simde_mm_movehl_ps(v, v));
}
/* The dot product of all four lanes, in every lane. */
static inline v4f v4f_dot4(v4f a, v4f b)
{
    const v4f m = v4f_mul(a, b);
    const v4f s = v4f_add(m, V4F_SHUFFLE(m, m, 1, 0, 3, 2));
    return v4f_add(s, V4F_SHUFFLE(s, s, 2, 3, 0, 1));
}
/* Cross product of lanes 0..2 (lane 3 of the result is 0 for finite inputs). */
static inline v4f v4f_cross3(v4f a, v4f b)
{
    const v4f a_yzx = V4F_SHUFFLE(a, a, 1, 2, 0, 3), b_yzx = V4F_SHUFFLE(b, b, 1, 2, 0, 3);
    const v4f c = v4f_sub(v4f_mul(a, b_yzx), v4f_mul(a_yzx, b));
    return V4F_SHUFFLE(c, c, 1, 2, 0, 3);
}

/* ---- int4 ---- */
static inline v4i v4i_set(int32_t x, int32_t y, int32_t z, int32_t w) { return simde_mm_setr_epi32(x, y, z, w); }
static inline v4i v4i_set1(int32_t i) { return simde_mm_set1_epi32(i); }
static inline v4i v4i_zero(void) { return simde_mm_setzero_si128(); }
static inline v4i v4i_load(const int32_t *p) { return simde_mm_load_si128((const simde__m128i *)(const void *)p); }
static inline void v4i_store(int32_t *p, v4i v) { simde_mm_store_si128((simde__m128i *)(void *)p, v); }
static inline v4i v4i_add(v4i a, v4i b) { return simde_mm_add_epi32(a, b); }
static inline v4i v4i_sub(v4i a, v4i b) { return simde_mm_sub_epi32(a, b); }
static inline v4i v4i_and(v4i a, v4i b) { return simde_mm_and_si128(a, b); }
static inline v4i v4i_or(v4i a, v4i b) { return simde_mm_or_si128(a, b); }
static inline v4i v4i_cmpeq(v4i a, v4i b) { return simde_mm_cmpeq_epi32(a, b); }
static inline v4i v4i_cmpgt(v4i a, v4i b) { return simde_mm_cmpgt_epi32(a, b); }
/* Per-lane signed maximum and minimum: pmaxsd / pminsd where the target has SSE4.1, SIMDe's
 * compare and select otherwise. */
static inline v4i v4i_max(v4i a, v4i b) { return simde_mm_max_epi32(a, b); }
static inline v4i v4i_min(v4i a, v4i b) { return simde_mm_min_epi32(a, b); }
/* The largest and the smallest of the four signed lanes. */
static inline int32_t v4i_hmax(v4i a)
{
    a = v4i_max(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    return simde_mm_cvtsi128_si32(v4i_max(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(2, 3, 0, 1))));
}
static inline int32_t v4i_hmin(v4i a)
{
    a = v4i_min(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    return simde_mm_cvtsi128_si32(v4i_min(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(2, 3, 0, 1))));
}
/* True when every lane of a equals the same lane of b. */
static inline bool v4i_all_equal(v4i a, v4i b) { return simde_mm_movemask_epi8(simde_mm_cmpeq_epi32(a, b)) == 0xffff; }
#define V4I_SLL(v, n) simde_mm_slli_epi32((v), (n))
#define V4I_SRL(v, n) simde_mm_srli_epi32((v), (n))
#define V4I_SRA(v, n) simde_mm_srai_epi32((v), (n))
/* Each lane shifted left by n (0..31, not a constant). */
static inline v4i v4i_sll(v4i v, int n) { return simde_mm_sll_epi32(v, simde_mm_cvtsi32_si128(n)); }
static inline v4f v4i_as_f(v4i v) { return simde_mm_castsi128_ps(v); }
static inline v4i v4f_as_i(v4f v) { return simde_mm_castps_si128(v); }
static inline v4f v4i_to_f(v4i v) { return simde_mm_cvtepi32_ps(v); }
static inline v4i v4f_to_i_round(v4f v) { return simde_mm_cvtps_epi32(v); }

/* Four IEEE binary16 values (low 16 bits of each lane) to floats, exactly, including
 * subnormals, infinities and NaN. Source: the magic-number method of F. Giesen,
 * "Half to float done quick" (2012), as used by ozz-animation's HalfToFloat. */
static inline v4f v4f_from_half(v4i h)
{
    const v4i mask_nosign = v4i_set1(0x7fff);
    const v4f magic = v4i_as_f(v4i_set1((254 - 15) << 23));
    const v4i was_infnan = v4i_set1(0x7bff);
    const v4f exp_infnan = v4i_as_f(v4i_set1(255 << 23));
    const v4i expmant = v4i_and(mask_nosign, h);
    const v4i shifted = V4I_SLL(expmant, 13);
    const v4f scaled = v4f_mul(v4i_as_f(shifted), magic);
    const v4i b_wasinfnan = v4i_cmpgt(expmant, was_infnan);
    const v4i sign = V4I_SLL(v4i_and(h, v4i_set1(0x8000)), 16);
    const v4f infnanexp = v4f_and(v4i_as_f(b_wasinfnan), exp_infnan);
    return v4f_or(v4f_or(scaled, infnanexp), v4i_as_f(sign));
}

/* ---- 8 x u16 (key bitmaps) ---- */
static inline v4i v8u16_loadu(const uint8_t *p) { return simde_mm_loadu_si128((const simde__m128i *)(const void *)p); }
static inline v4i v8u16_set1(uint16_t v) { return simde_mm_set1_epi16((int16_t)v); }
static inline v4i v8u16_add(v4i a, v4i b) { return simde_mm_add_epi16(a, b); }
static inline v4i v8u16_sub(v4i a, v4i b) { return simde_mm_sub_epi16(a, b); }
static inline v4i v8u16_mullo(v4i a, v4i b) { return simde_mm_mullo_epi16(a, b); }
static inline void v4i_storeu(uint32_t *p, v4i v) { simde_mm_storeu_si128((simde__m128i *)(void *)p, v); }
static inline v4i v8u16_lo32(v4i a) { return simde_mm_unpacklo_epi16(a, simde_mm_setzero_si128()); }
static inline v4i v8u16_hi32(v4i a) { return simde_mm_unpackhi_epi16(a, simde_mm_setzero_si128()); }
/* Four u16 at p (2-byte aligned) in lanes 0..3, lanes 4..7 zero; reads exactly 8 bytes. */
static inline v4i v8u16_load4(const uint16_t *p) { return simde_mm_loadl_epi64((const simde__m128i *)(const void *)p); }
static inline v4i v4i_xor(v4i a, v4i b) { return simde_mm_xor_si128(a, b); }
/* Per-lane signed maximum of 8 x i16. */
static inline v4i v8i16_max(v4i a, v4i b) { return simde_mm_max_epi16(a, b); }
/* Per-lane unsigned maximum of 8 x u16 (SSE2 has only the signed one: bias by 0x8000). */
static inline v4i v8u16_max(v4i a, v4i b)
{
    const v4i bias = simde_mm_set1_epi16((int16_t)-32768);
    return simde_mm_xor_si128(simde_mm_max_epi16(simde_mm_xor_si128(a, bias), simde_mm_xor_si128(b, bias)), bias);
}
/* The largest of the 8 u16 lanes. */
static inline uint32_t v8u16_hmax(v4i a)
{
    a = v8u16_max(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(1, 0, 3, 2)));
    a = v8u16_max(a, simde_mm_shuffle_epi32(a, SIMDE_MM_SHUFFLE(2, 3, 0, 1)));
    a = v8u16_max(a, simde_mm_srli_epi32(a, 16));
    return (uint32_t)simde_mm_cvtsi128_si32(a) & 0xffffu;
}
static inline uint32_t v8u16_last(v4i a) { return (uint32_t)simde_mm_extract_epi16(a, 7) & 0xffffu; }
#define V8U16_SRL(v, n)        simde_mm_srli_epi16((v), (n))
#define V128_SHIFT_BYTES(v, n) simde_mm_slli_si128((v), (n))

/* Population count of each 16-bit lane. */
static inline v4i v8u16_popcount(v4i v)
{
    v = v8u16_sub(v, v4i_and(V8U16_SRL(v, 1), v8u16_set1(0x5555)));
    v = v8u16_add(v4i_and(v, v8u16_set1(0x3333)), v4i_and(V8U16_SRL(v, 2), v8u16_set1(0x3333)));
    v = v4i_and(v8u16_add(v, V8U16_SRL(v, 4)), v8u16_set1(0x0f0f));
    return v4i_and(v8u16_add(v, V8U16_SRL(v, 8)), v8u16_set1(0x1f));
}

/* Inclusive prefix sums of the 8 lanes. */
static inline v4i v8u16_prefix(v4i v)
{
    v = v8u16_add(v, V128_SHIFT_BYTES(v, 2));
    v = v8u16_add(v, V128_SHIFT_BYTES(v, 4));
    return v8u16_add(v, V128_SHIFT_BYTES(v, 8));
}

#if defined(__AVX2__)
#include <simde/x86/avx2.h>
/* ---- 64-bit lanes and per-lane shifts: x86-64-v3 only (the key reads of the sampling job,
 * which keeps lane-by-lane code where the target has no per-lane shifts) ---- */
typedef simde__m256i v4u64;
/* The 64-bit words at base + off (byte offsets; any alignment): one gather instruction, which
 * on the CPUs measured took less time than four loads here (but more than scalar loads for
 * 32-bit table entries: docs/benchmarks.md). */
static inline v4u64 v4u64_gather(const void *base, v4i off)
{
    return simde_mm256_i32gather_epi64((const int64_t *)base, off, 1);
}
/* Each 64-bit lane shifted right by the same lane of n (0..63). */
static inline v4u64 v4u64_srlv(v4u64 v, v4i n) { return simde_mm256_srlv_epi64(v, simde_mm256_cvtepu32_epi64(n)); }
/* The low 32 bits of each 64-bit lane. */
static inline v4i v4u64_lo32(v4u64 v)
{
    return simde_mm256_castsi256_si128(
        simde_mm256_permutevar8x32_epi32(v, simde_mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6)));
}
/* Population count of each lane's low 16 bits, the upper 16 being zero: two nibble lookups and
 * a sum of byte pairs, half the instructions of v8u16_popcount. */
static inline v4i v4i_popcount16(v4i v)
{
    const v4i lut = simde_mm_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4),
              nibble = simde_mm_set1_epi8(0x0f);
    const v4i lo = simde_mm_shuffle_epi8(lut, simde_mm_and_si128(v, nibble));
    const v4i hi = simde_mm_shuffle_epi8(lut, simde_mm_and_si128(simde_mm_srli_epi16(v, 4), nibble));
    return simde_mm_maddubs_epi16(simde_mm_add_epi8(lo, hi), simde_mm_set1_epi8(1));
}
/* The bytes of v at the byte indices of `index` (an index with bit 7 set gives 0). */
static inline v4i v16u8_shuffle(v4i v, v4i index) { return simde_mm_shuffle_epi8(v, index); }
/* 8 bytes at p in bytes 0..7, the others zero; reads exactly 8 bytes. */
static inline v4i v16u8_load8(const uint8_t *p) { return simde_mm_loadl_epi64((const simde__m128i *)(const void *)p); }
/* Four bytes at p, zero-extended to the four lanes; reads exactly 4 bytes. */
static inline v4i v4i_load_u8x4(const uint8_t *p)
{
    int32_t w;
    memcpy(&w, p, sizeof w);
    return simde_mm_cvtepu8_epi32(simde_mm_cvtsi32_si128(w));
}
/* Lane 0 of v. */
static inline int32_t v4i_x(v4i v) { return simde_mm_cvtsi128_si32(v); }
/* The sum of bytes 0..7 of v. */
static inline uint32_t v16u8_sum8(v4i v)
{
    return (uint32_t)simde_mm_cvtsi128_si32(simde_mm_sad_epu8(v, simde_mm_setzero_si128()));
}
/* Each lane shifted left by the same lane of n (0..31). */
static inline v4i v4i_sllv(v4i v, v4i n) { return simde_mm_sllv_epi32(v, n); }
static inline v4i v4i_mullo(v4i a, v4i b) { return simde_mm_mullo_epi32(a, b); }
static inline v4i v4i_andnot(v4i a, v4i b) { return simde_mm_andnot_si128(a, b); } /* ~a & b */

/* ---- 8 floats: x86-64-v3 only (two SoA components of four lanes side by side, as the
 * sampling job interpolates the groups of big clips) ---- */
typedef simde__m256 v8f;
static inline v8f v8f_loadu(const float *p) { return simde_mm256_loadu_ps(p); }
static inline void v8f_storeu(float *p, v8f v) { simde_mm256_storeu_ps(p, v); }
static inline v8f v8f_mul(v8f a, v8f b) { return simde_mm256_mul_ps(a, b); }
/* a * b + c, rounded once: per lane the same float as v4f_madd's on this target. */
static inline v8f v8f_madd(v8f a, v8f b, v8f c) { return simde_mm256_fmadd_ps(a, b, c); }
/* a + (b - a) * alpha with one rounding of the product and sum: per lane the same float as
 * v4f_lerp's on this target. */
static inline v8f v8f_lerp(v8f a, v8f b, v8f alpha) { return simde_mm256_fmadd_ps(simde_mm256_sub_ps(b, a), alpha, a); }
/* v in both halves. */
static inline v8f v8f_dup(v4f v) { return simde_mm256_set_m128(v, v); }
/* The low and the high four lanes. */
static inline v4f v8f_lo(v8f v) { return simde_mm256_castps256_ps128(v); }
static inline v4f v8f_hi(v8f v) { return simde_mm256_extractf128_ps(v, 1); }
#endif

/* ---- SoA helpers ---- */
typedef struct v4f3 {
    v4f x, y, z;
} v4f3;
typedef struct v4fq {
    v4f x, y, z, w;
} v4fq;

static inline v4f3 v4f3_load(const ossa_soa_float3 *s)
{
    return (v4f3){v4f_load(s->x), v4f_load(s->y), v4f_load(s->z)};
}
static inline void v4f3_store(ossa_soa_float3 *s, v4f3 v)
{
    v4f_store(s->x, v.x), v4f_store(s->y, v.y), v4f_store(s->z, v.z);
}
static inline v4fq v4fq_load(const ossa_soa_quat *s)
{
    return (v4fq){v4f_load(s->x), v4f_load(s->y), v4f_load(s->z), v4f_load(s->w)};
}
static inline void v4fq_store(ossa_soa_quat *s, v4fq q)
{
    v4f_store(s->x, q.x), v4f_store(s->y, q.y), v4f_store(s->z, q.z), v4f_store(s->w, q.w);
}
static inline v4f3 v4f3_lerp(v4f3 a, v4f3 b, v4f alpha)
{
    return (v4f3){v4f_lerp(a.x, b.x, alpha), v4f_lerp(a.y, b.y, alpha), v4f_lerp(a.z, b.z, alpha)};
}
static inline v4f v4fq_dot(v4fq a, v4fq b)
{
    return v4f_madd(a.x, b.x, v4f_madd(a.y, b.y, v4f_madd(a.z, b.z, v4f_mul(a.w, b.w))));
}
/* Normalised quaternions; zero-length lanes give NaN (callers never pass them). */
static inline v4fq v4fq_normalize(v4fq q)
{
    const v4f inv = v4f_rsqrt(v4fq_dot(q, q));
    return (v4fq){v4f_mul(q.x, inv), v4f_mul(q.y, inv), v4f_mul(q.z, inv), v4f_mul(q.w, inv)};
}
/* Normalised lerp; b is taken in a's hemisphere when `shortest` (b negated where a.b < 0). */
static inline v4fq v4fq_nlerp(v4fq a, v4fq b, v4f alpha, bool shortest)
{
    if (shortest) {
        const v4f sign = v4f_and(v4f_cmplt(v4fq_dot(a, b), v4f_zero()), v4f_set1(-0.f));
        b = (v4fq){v4f_xor(b.x, sign), v4f_xor(b.y, sign), v4f_xor(b.z, sign), v4f_xor(b.w, sign)};
    }
    return v4fq_normalize((v4fq){v4f_lerp(a.x, b.x, alpha), v4f_lerp(a.y, b.y, alpha), v4f_lerp(a.z, b.z, alpha),
                                 v4f_lerp(a.w, b.w, alpha)});
}

#endif /* OSSA_RUNTIME_SIMD_H */
