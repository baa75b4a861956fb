/* ossa/offline/common.h: allocator hooks, diagnostics and owned blobs shared by all offline
 * code (importers, builders, archive writer).
 *
 *   ossa_diag diag = {0};
 *   ossa_blob blob = {0};
 *   if (ossa_animation_build(&raw, NULL, &blob, &diag) != OSSA_OK)
 *       fprintf(stderr, "%s\n", diag.message);
 *   ossa_blob_destroy(&blob);
 *
 * Ownership: whatever an offline function allocates is released by the matching _destroy,
 * with the allocator given at creation (NULL or zero fields mean malloc/free). A failed call
 * leaves its output empty and safe to destroy.
 */
#ifndef OSSA_OFFLINE_COMMON_H
#define OSSA_OFFLINE_COMMON_H

#include "ossa/result.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Allocator hooks. `alloc` returns memory aligned on at least 16 bytes or NULL; `free`
 * accepts NULL. Zero-initialised means malloc/free (aligned_alloc for 16 bytes). */
typedef struct ossa_allocator {
    void *(*alloc)(size_t size, void *user);
    void (*free)(void *ptr, void *user);
    void *user;
} ossa_allocator;

/* First-error diagnostic. `code` is OSSA_OK until an error is recorded; later errors do not
 * overwrite the first. `offset` is a byte offset in the input (SIZE_MAX when unknown); `line`
 * and `column` are 1-based for text inputs and 0 otherwise. `message` says what was expected
 * and what was found. */
typedef struct ossa_diag {
    ossa_result code;
    size_t offset;
    uint32_t line;
    uint32_t column;
    char message[256];
} ossa_diag;

/* Bytes owned by an allocator: `data` is 16-byte aligned, `size` bytes long. */
typedef struct ossa_blob {
    void *data;
    size_t size;
    ossa_allocator allocator;
} ossa_blob;

/* Records an error in `diag` (may be NULL) unless it already holds one; returns `code`.
 * `fmt` is printf-style. */
OSSA_API ossa_result ossa_diag_set(ossa_diag *diag, ossa_result code, size_t offset, uint32_t line, uint32_t column,
                                   const char *fmt, ...) OSSA_PRINTF_FORMAT(6, 7);

/* Resets `diag` to "no error". */
OSSA_API void ossa_diag_clear(ossa_diag *diag);

/* Formats `diag` as one line ("ERROR_TRUNCATED at byte 12: ..." or "ERROR_PARSE at line 3:7: ...") into
 * `buffer` (`size` bytes, always NUL-terminated); returns buffer. */
OSSA_API const char *ossa_diag_format(const ossa_diag *diag, char *buffer, size_t size);

/* Allocates `size` bytes (16-byte aligned) with `allocator` (NULL -> malloc). NULL on failure
 * or when size is 0. */
OSSA_API void *ossa_alloc(const ossa_allocator *allocator, size_t size);

/* Releases memory from ossa_alloc with the same allocator. NULL is ignored. */
OSSA_API void ossa_free(const ossa_allocator *allocator, void *ptr);

/* Copies `text` with `allocator`; NULL text gives "". NULL on allocation failure. */
OSSA_API char *ossa_strdup(const ossa_allocator *allocator, const char *text);

/* Whether the NUL-terminated `text` is well-formed UTF-8 (Unicode 15, 3.9, Table 3-7: no
 * overlong form, no surrogate U+D800..DFFF, nothing above U+10FFFF, no truncated sequence).
 * NULL counts as "" (valid). */
OSSA_API bool ossa_utf8_valid(const char *text);

/* Copies the NUL-terminated `text` into `output` (`output_size` bytes, always NUL-terminated
 * when output_size > 0) with each maximal subpart of an ill-formed sequence replaced by one
 * U+FFFD (EF BF BD), as Unicode 15, 3.9 "U+FFFD Substitution of Maximal Subparts" recommends:
 * "caf\xE9" becomes "caf\uFFFD", "\xF0\x9F\x98" (a truncated emoji) one U+FFFD, "\xED\xA0\x80"
 * (a surrogate) three. Returns the length of the whole result in bytes without the NUL, so
 * output NULL with output_size 0 asks how big it is (at most three times strlen(text)). A short
 * `output` receives whole characters only. NULL text counts as "". Aliasing: `output` must not
 * overlap `text`. Source: Unicode 15.0, chapter 3.9 and Table 3-7. */
OSSA_API size_t ossa_utf8_sanitize(const char *text, char *output, size_t output_size);

/* Allocates a zeroed blob of `size` bytes into `blob`. OSSA_ERROR_OUT_OF_MEMORY on failure. */
OSSA_API ossa_result ossa_blob_create(ossa_blob *blob, size_t size, const ossa_allocator *allocator);

/* Releases the blob's bytes and zeroes it. NULL or empty blobs are ignored. */
OSSA_API void ossa_blob_destroy(ossa_blob *blob);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_COMMON_H */
