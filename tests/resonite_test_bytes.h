/* Test-side AnimX byte builder, written from the layout tables (FORMATS section 2.2-2.3),
 * independently of offline/import/animx_writer.c. Not part of any library. */
#ifndef OSSA_TESTS_RESONITE_TEST_BYTES_H
#define OSSA_TESTS_RESONITE_TEST_BYTES_H

#include <stddef.h>
#include <stdint.h>

/* Which optional codecs the library was built with (1 or 0). */
#ifdef OSSA_HAVE_LZ4
#define TB_HAVE_LZ4 1
#else
#define TB_HAVE_LZ4 0
#endif
#ifdef OSSA_HAVE_LZMA
#define TB_HAVE_LZMA 1
#else
#define TB_HAVE_LZMA 0
#endif

/* For static test functions only some configurations use. */
#if defined(__GNUC__) || defined(__clang__)
#define TB_MAYBE_UNUSED __attribute__((unused))
#else
#define TB_MAYBE_UNUSED
#endif

typedef struct test_bytes {
    uint8_t d[1 << 16];
    size_t n;
} test_bytes;

void tb_u8(test_bytes *b, unsigned v);
void tb_le(test_bytes *b, uint64_t v, size_t n); /* n little-endian bytes */
void tb_f32(test_bytes *b, float f);
void tb_f64(test_bytes *b, double f);
void tb_var(test_bytes *b, uint64_t v);    /* 7 bits per byte, low first */
void tb_str(test_bytes *b, const char *s); /* 7-bit length + bytes */
void tb_raw(test_bytes *b, const void *data, size_t n);

/* magic, int32 version, 7-bit track count, float32 duration, name, encoding byte */
void tb_header(test_bytes *b, int version, unsigned tracks, float duration, const char *name, unsigned encoding);

/* AnimX bytes per value type id 0..39 (0 for string), from the seed's table with doubleQ = 32. */
size_t tb_type_size(unsigned type);

/* Component count of type id and its kind: 'b' bool, 'u' unsigned, 'i' signed, 'f' float32,
 * 'd' float64, 's' string. */
unsigned tb_type_components(unsigned type);
char tb_type_kind(unsigned type);
const char *tb_type_name(unsigned type);

/* The test value of component c of key k for type id `type` (an exact float). */
double tb_value(unsigned type, unsigned key, unsigned c);

/* Writes value (key k) of `type` in AnimX form. */
void tb_value_bytes(test_bytes *b, unsigned type, unsigned key);

/* Appends the AnimJ JSON of the same value to text (capacity cap). */
void tb_value_json(char *text, size_t cap, unsigned type, unsigned key);

/* Error and limit tests (test_import_resonite_errors.c), run by test_import_resonite.c. */
void test_animj_errors(void **state);
void test_animx_errors(void **state);
void test_truncations(void **state);
void test_limits(void **state);

/* Writer round trips (test_import_resonite_write.c). */
void test_write_read(void **state);
void test_write_read_joints(void **state);

#endif
