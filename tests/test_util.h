/* Small helpers shared by the test executables (not part of any library). */
#ifndef OSSA_TESTS_TEST_UTIL_H
#define OSSA_TESTS_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#if defined(_WIN32)
#include <stdlib.h>
/* The Windows C runtime has no C11 aligned_alloc; on 64-bit Windows malloc returns 16-byte
 * aligned blocks, freed with free() as aligned_alloc's are. The tests ask for 16 at most. */
static inline void *ossa_test_aligned_alloc(size_t alignment, size_t size)
{
    return alignment <= 16 ? malloc(size) : NULL;
}
#define aligned_alloc ossa_test_aligned_alloc
#endif

/* Reads a whole file into 16-byte aligned memory (free with free()); NULL if unreadable. */
void *ossa_test_read_file(const char *path, size_t *size);

/* Reads the archive file at `path` and opens it into `ar`, failing the current test when
 * either fails; returns its bytes, which `ar` and the views taken from it point into (free()
 * them after their last use). */
struct ossa_archive;
void *ossa_test_open_archive(const char *path, struct ossa_archive *ar);

/* Path of `relative` under the data directory (env OSSA_SHARED_DATA, set by meson from the
 * data_dir option; shown as DATA/ in messages) in a static buffer. */
const char *ossa_test_shared_path(const char *relative);

/* Path of `relative` under Debian's assimp-testmodels (env OSSA_ASSIMP_MODELS). */
const char *ossa_test_assimp_path(const char *relative);

/* Reads `path` (16-byte aligned, free with free()); when missing prints
 * "skipped: <shown> not found" and skips the current cmocka test (never returns then). */
void *ossa_test_read_or_skip(const char *path, const char *shown, size_t *size);

#if !defined(_WIN32)
/* (POSIX only: the command-line tests that use these are not built for Windows.)
 * A scratch folder for tests that write files: ossa_test_scratch_create makes a fresh
 * $TMPDIR/<prefix>-XXXXXX (or under /tmp) and ossa_test_scratch_remove deletes it with all it
 * holds; both return 0 on success, as cmocka group setup and teardown expect. */
int ossa_test_scratch_create(const char *prefix);
int ossa_test_scratch_remove(void);
/* The scratch folder, and <scratch folder>/name in one of 8 rotating static buffers. */
const char *ossa_test_scratch_dir(void);
const char *ossa_test_scratch_path(const char *name);
/* Writes `size` bytes to `path`, failing the current test if it cannot. */
void ossa_test_write_file(const char *path, const void *data, size_t size);
/* Runs a command-line tool in process with stdout (and any child it starts) going to a file in
 * the scratch folder; returns what it printed, NUL-terminated (free with free()), and its exit
 * status in *status. Fails the current test if the output cannot be captured. */
/* As ossa_test_run_captured, capturing file descriptor `fd` (STDOUT_FILENO or STDERR_FILENO). */
char *ossa_test_run_captured_fd(int fd, int (*tool)(int, char **), int argc, const char **argv, int *status);
char *ossa_test_run_captured(int (*tool)(int, char **), int argc, const char **argv, int *status);
#endif

/* Deterministic xorshift PRNG for reproducible random tests. */
uint32_t ossa_test_rand(uint32_t *state);
/* Uniform float in [lo, hi). */
float ossa_test_randf(uint32_t *state, float lo, float hi);

#endif
