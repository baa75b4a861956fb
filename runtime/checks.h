/* Private: argument checks shared by the runtime jobs. Not installed. */
#ifndef OSSA_RUNTIME_CHECKS_H
#define OSSA_RUNTIME_CHECKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A static function the compiler must inline (where it can be told so): small kernels whose
 * call sites pass constants, and the checks a job's run shares with its validate function. */
#if defined(__GNUC__) || defined(__clang__)
#define OSSA__INLINE static inline __attribute__((always_inline))
#else
#define OSSA__INLINE static inline
#endif

/* A static function the compiler must keep out of line and compile for any arguments (GCC's
 * noipa: neither inlined nor cloned for the constants of a call site). */
#if defined(__GNUC__) && !defined(__clang__)
#define OSSA__OUT_OF_LINE static __attribute__((noipa))
#elif defined(__clang__)
#define OSSA__OUT_OF_LINE static __attribute__((noinline))
#else
#define OSSA__OUT_OF_LINE static
#endif

/* Whether [a, a + a_bytes) and [b, b + b_bytes) share a byte. */
static inline bool ossa__overlaps(const void *a, size_t a_bytes, const void *b, size_t b_bytes)
{
    const uintptr_t a0 = (uintptr_t)a, b0 = (uintptr_t)b;
    return a0 < b0 + b_bytes && b0 < a0 + a_bytes;
}

/* Whether `count` elements of `size` bytes from p fit in the address space: count * size does
 * not overflow and p + count * size does not wrap around. A count that fails this describes
 * no buffer (a negative value converted to size_t, an uninitialised field), and the byte
 * sizes computed from it for the aliasing checks would wrap. */
static inline bool ossa__fits(const void *p, size_t count, size_t size)
{
    return size == 0 || count <= (UINTPTR_MAX - (uintptr_t)p) / size;
}

/* Whether p is not 16-byte aligned (SoA data is loaded and stored four floats at a time). */
static inline bool ossa__misaligned(const void *p) { return ((uintptr_t)p & 15u) != 0; }

#endif /* OSSA_RUNTIME_CHECKS_H */
