/* ossa/config.h: build-wide macros shared by every public header.
 *
 * OSSA_API marks exported functions (the libraries build with hidden visibility);
 * OSSA_ALIGNAS(n) aligns public SoA types without depending on SIMD compile flags.
 * Nothing here includes SIMDe: public headers never do.
 */
#ifndef OSSA_CONFIG_H
#define OSSA_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(_WIN32) && defined(OSSA_BUILDING)
#define OSSA_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define OSSA_API __attribute__((visibility("default")))
#else
#define OSSA_API
#endif

#if defined(__cplusplus)
#define OSSA_ALIGNAS(n) alignas(n)
#else
#define OSSA_ALIGNAS(n) _Alignas(n)
#endif

/* OSSA_VERSION_MAJOR, _MINOR, _PATCH and _STRING, and ossa_version() (generated from
 * meson.build's project version). */
#include "ossa/version.h"

/* Largest joint count a skeleton or animation may have (parents are int16). */
#define OSSA_MAX_JOINTS 1024
/* Largest number of SoA groups of 4 joints. */
#define OSSA_MAX_SOA_JOINTS ((OSSA_MAX_JOINTS + 3) / 4)

#endif /* OSSA_CONFIG_H */
