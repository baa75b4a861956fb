#include "internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(_WIN32)
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#endif

ossa_result ossa_diag_set(ossa_diag *diag, ossa_result code, size_t offset, uint32_t line, uint32_t column,
                          const char *fmt, ...)
{
    if (!diag || diag->code != OSSA_OK) return code;
    diag->code = code;
    diag->offset = offset;
    diag->line = line;
    diag->column = column;
    va_list args;
    va_start(args, fmt);
    vsnprintf(diag->message, sizeof diag->message, fmt, args);
    va_end(args);
    return code;
}

void ossa_diag_clear(ossa_diag *diag)
{
    if (!diag) return;
    memset(diag, 0, sizeof *diag);
    diag->offset = SIZE_MAX;
}

const char *ossa_diag_format(const ossa_diag *diag, char *buffer, size_t size)
{
    if (!buffer || size == 0) return buffer;
    if (!diag || diag->code == OSSA_OK) {
        snprintf(buffer, size, "no error");
    } else if (diag->line > 0) {
        snprintf(buffer, size, "%s at line %u:%u: %s", ossa_result_name(diag->code), (unsigned)diag->line,
                 (unsigned)diag->column, diag->message);
    } else if (diag->offset != SIZE_MAX) {
        snprintf(buffer, size, "%s at byte %zu: %s", ossa_result_name(diag->code), diag->offset, diag->message);
    } else {
        snprintf(buffer, size, "%s: %s", ossa_result_name(diag->code), diag->message);
    }
    return buffer;
}

#if defined(_WIN32)
/* The Windows C runtime has neither clock_gettime nor timespec_get (msvcrt); the performance
 * counter is Windows' monotonic clock, and GetProcessTimes gives the CPU time of all threads. */
double ossa__seconds(void)
{
    LARGE_INTEGER frequency, now;
    if (!QueryPerformanceFrequency(&frequency) || !QueryPerformanceCounter(&now)) return 0.0;
    return (double)now.QuadPart / (double)frequency.QuadPart;
}

double ossa__cpu_seconds(void)
{
    FILETIME created, exited, kernel, user;
    if (!GetProcessTimes(GetCurrentProcess(), &created, &exited, &kernel, &user)) return 0.0;
    /* FILETIME counts 100 ns ticks. */
    const uint64_t k = (uint64_t)kernel.dwHighDateTime << 32 | kernel.dwLowDateTime;
    const uint64_t u = (uint64_t)user.dwHighDateTime << 32 | user.dwLowDateTime;
    return (double)(k + u) * 1e-7;
}
#else
double ossa__seconds(void)
{
    struct timespec ts;
#if defined(CLOCK_MONOTONIC)
    if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    if (timespec_get(&ts, TIME_UTC) == TIME_UTC) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
    return 0.0;
}

double ossa__cpu_seconds(void)
{
#if defined(CLOCK_PROCESS_CPUTIME_ID)
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0) return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
#endif
    return 0.0;
}
#endif

void *ossa_alloc(const ossa_allocator *allocator, size_t size)
{
    if (size == 0) return NULL;
    if (allocator && allocator->alloc) return allocator->alloc(size, allocator->user);
    size_t rounded = (size + 15) & ~(size_t)15;
    if (rounded < size) return NULL;
#if defined(_WIN64)
    /* No C11 aligned_alloc in the Windows C runtime (_aligned_malloc would need _aligned_free,
     * and ossa_free releases with free()); 64-bit Windows' malloc returns 16-byte aligned
     * blocks (MEMORY_ALLOCATION_ALIGNMENT, the fundamental alignment of MSVC's x64 CRT). */
    return malloc(rounded);
#else
    return aligned_alloc(16, rounded);
#endif
}

void ossa_free(const ossa_allocator *allocator, void *ptr)
{
    if (!ptr) return;
    if (allocator && allocator->free) {
        allocator->free(ptr, allocator->user);
        return;
    }
    free(ptr);
}

char *ossa_strdup(const ossa_allocator *allocator, const char *text)
{
    if (!text) text = "";
    size_t n = strlen(text) + 1;
    char *copy = ossa_alloc(allocator, n);
    if (copy) memcpy(copy, text, n);
    return copy;
}

void *ossa__calloc(const ossa_allocator *allocator, size_t count, size_t size)
{
    size_t bytes;
    if (!ossa__mul_size(count, size, &bytes) || bytes == 0) return NULL;
    void *p = ossa_alloc(allocator, bytes);
    if (p) memset(p, 0, bytes);
    return p;
}

bool ossa__grow(const ossa_allocator *allocator, void **array, size_t *capacity, size_t needed, size_t elem)
{
    if (needed <= *capacity) return true;
    size_t cap = *capacity ? *capacity : 4;
    while (cap < needed) {
        if (cap > SIZE_MAX / 2) return false;
        cap *= 2;
    }
    size_t bytes, old_bytes;
    if (!ossa__mul_size(cap, elem, &bytes)) return false;
    void *p = ossa_alloc(allocator, bytes);
    if (!p) return false;
    old_bytes = *capacity * elem;
    if (*array && old_bytes) memcpy(p, *array, old_bytes);
    memset((char *)p + old_bytes, 0, bytes - old_bytes);
    ossa_free(allocator, *array);
    *array = p;
    *capacity = cap;
    return true;
}

ossa_result ossa_blob_create(ossa_blob *blob, size_t size, const ossa_allocator *allocator)
{
    if (!blob) return OSSA_ERROR_NULL_ARGUMENT;
    memset(blob, 0, sizeof *blob);
    if (allocator) blob->allocator = *allocator;
    if (size == 0) return OSSA_OK;
    blob->data = ossa_alloc(allocator, size);
    if (!blob->data) return OSSA_ERROR_OUT_OF_MEMORY;
    memset(blob->data, 0, size);
    blob->size = size;
    return OSSA_OK;
}

void ossa_blob_destroy(ossa_blob *blob)
{
    if (!blob) return;
    ossa_free(&blob->allocator, blob->data);
    memset(blob, 0, sizeof *blob);
}

/* The length of the well-formed UTF-8 sequence at `s` (1 to 4), or 0 with `*subpart` set to the
 * length of its maximal subpart (at least 1): the longest prefix that starts a well-formed
 * sequence, which Unicode 15, 3.9 (U+FFFD substitution of maximal subparts, Table 3-7) replaces
 * by one U+FFFD. Lead bytes C0, C1 and F5..FF start nothing (overlong forms, beyond U+10FFFF);
 * the second byte's range after E0, ED, F0 and F4 excludes overlong forms, the surrogates
 * U+D800..DFFF and code points above U+10FFFF. A NUL byte ends `s` (it is no continuation). */
static size_t utf8_sequence(const unsigned char *s, size_t *subpart)
{
    const unsigned char b = s[0];
    if (b < 0x80) return 1;
    size_t length;
    unsigned char lo = 0x80, hi = 0xBF; /* the second byte's range */
    if (b >= 0xC2 && b <= 0xDF)
        length = 2;
    else if (b >= 0xE0 && b <= 0xEF)
        length = 3, lo = b == 0xE0 ? 0xA0 : 0x80, hi = b == 0xED ? 0x9F : 0xBF;
    else if (b >= 0xF0 && b <= 0xF4)
        length = 4, lo = b == 0xF0 ? 0x90 : 0x80, hi = b == 0xF4 ? 0x8F : 0xBF;
    else {
        *subpart = 1;
        return 0;
    }
    for (size_t i = 1; i < length; ++i) {
        const unsigned char c = s[i];
        if (c < (i == 1 ? lo : 0x80) || c > (i == 1 ? hi : 0xBF)) {
            *subpart = i;
            return 0;
        }
    }
    return length;
}

bool ossa_utf8_valid(const char *text)
{
    if (!text) return true;
    const unsigned char *s = (const unsigned char *)text;
    size_t n, subpart;
    while (*s) {
        if ((n = utf8_sequence(s, &subpart)) == 0) return false;
        s += n;
    }
    return true;
}

size_t ossa_utf8_sanitize(const char *text, char *output, size_t output_size)
{
    static const char replacement[3] = {(char)0xEF, (char)0xBF, (char)0xBD}; /* U+FFFD */
    size_t length = 0, written = 0;
    bool room = output && output_size;
    for (const unsigned char *s = (const unsigned char *)(text ? text : ""); *s;) {
        size_t subpart = 0;
        const size_t n = utf8_sequence(s, &subpart);
        const char *piece = n ? (const char *)s : replacement;
        const size_t piece_size = n ? n : sizeof replacement;
        /* Whole characters only, so that a truncated output is still valid UTF-8. */
        room = room && written + piece_size < output_size;
        if (room) {
            memcpy(output + written, piece, piece_size);
            written += piece_size;
        }
        length += piece_size;
        s += n ? n : subpart;
    }
    if (output && output_size) output[written] = '\0';
    return length;
}
