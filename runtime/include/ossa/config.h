/* ossa/config.h: build-wide macros shared by every public header.
 *
 * OSSA_API marks exported functions (the libraries build with hidden visibility);
 * OSSA_ALIGNAS(n) aligns public SoA types without depending on SIMD compile flags;
 * OSSA_PRINTF_FORMAT(f, a) lets GCC and Clang check printf-style arguments (empty elsewhere).
 * Nothing here includes SIMDe: public headers never do. Every macro expands to standard C or
 * C++ for compilers that are neither GCC nor Clang (MSVC), so the headers compile there too.
 */
#ifndef OSSA_CONFIG_H
#define OSSA_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* On Windows a user of the DLLs needs no attribute: exported functions (the libraries export
 * no data) are reached through the import library's thunks, and the same declarations serve a
 * static link. */
#if defined(_WIN32) && defined(OSSA_BUILDING)
#define OSSA_API __declspec(dllexport)
#elif defined(_WIN32)
#define OSSA_API
#elif defined(__GNUC__) || defined(__clang__)
#define OSSA_API __attribute__((visibility("default")))
#else
#define OSSA_API
#endif

/* The library formats with the C99 conversions (%zu, %lld): on MinGW it is built with
 * __USE_MINGW_ANSI_STDIO, so GCC checks against gnu_printf there (its plain printf archetype
 * means the Microsoft C runtime's). */
#if defined(__MINGW32__) && defined(__GNUC__) && !defined(__clang__)
#define OSSA_PRINTF_FORMAT(format_index, first_arg) __attribute__((format(gnu_printf, format_index, first_arg)))
#elif defined(__GNUC__) || defined(__clang__)
#define OSSA_PRINTF_FORMAT(format_index, first_arg) __attribute__((format(printf, format_index, first_arg)))
#else
#define OSSA_PRINTF_FORMAT(format_index, first_arg)
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
