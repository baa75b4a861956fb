/* The importers' private byte reader: each read at the exact end of the data and one byte
 * short (code, offset, message, position kept), both byte orders, varint limits and the
 * overflow-safe size check. Expected values are written out by hand. */
#include <stdio.h>
#include <string.h>

#include "test_util.h"

#include "import/byte_reader.h"

static ossa__byte_reader reader_over(const uint8_t *data, size_t size, bool big, ossa_diag *diag)
{
    ossa__byte_reader r;
    ossa_diag_clear(diag);
    ossa__br_init(&r, data, size, big, diag, NULL);
    return r;
}

/* The last error is `code` at `offset` with exactly `message`. */
static void expect_diag(const ossa_diag *diag, ossa_result code, size_t offset, const char *message)
{
    if (diag->code != code || diag->offset != offset || strcmp(diag->message, message) != 0)
        print_error("got %s at %zu: \"%s\"\n", ossa_result_name(diag->code), diag->offset, diag->message);
    assert_int_equal(diag->code, code);
    assert_int_equal(diag->offset, offset);
    assert_string_equal(diag->message, message);
}

static const uint8_t bytes8[8] = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x88};

static void test_fixed_reads_both_orders(void **state)
{
    (void)state;
    ossa_diag diag;
    ossa__byte_reader le = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    ossa__byte_reader be = reader_over(bytes8, 8, OSSA__BR_BIG, &diag);
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    assert_int_equal(ossa__br_u8(&le, "a", &u8), OSSA_OK), assert_int_equal(u8, 0x01);
    assert_int_equal(ossa__br_u16(&le, "a", &u16), OSSA_OK), assert_int_equal(u16, 0x0302);
    assert_int_equal(ossa__br_u8(&be, "a", &u8), OSSA_OK), assert_int_equal(u8, 0x01);
    assert_int_equal(ossa__br_u16(&be, "a", &u16), OSSA_OK), assert_int_equal(u16, 0x0203);
    le.pos = be.pos = 0;
    assert_int_equal(ossa__br_u32(&le, "a", &u32), OSSA_OK), assert_int_equal(u32, 0x04030201u);
    assert_int_equal(ossa__br_u32(&be, "a", &u32), OSSA_OK), assert_int_equal(u32, 0x01020304u);
    le.pos = be.pos = 0;
    assert_int_equal(ossa__br_u64(&le, "a", &u64), OSSA_OK), assert_true(u64 == UINT64_C(0x8807060504030201));
    assert_int_equal(ossa__br_u64(&be, "a", &u64), OSSA_OK), assert_true(u64 == UINT64_C(0x0102030405060788));
    assert_int_equal(le.pos, 8), assert_int_equal(be.pos, 8);

    /* Signed: the high byte 0x88 (little-endian last) or 0xff. */
    static const uint8_t neg[4] = {0xfe, 0xff, 0xff, 0xff};
    int16_t i16;
    int32_t i32;
    ossa__byte_reader r = reader_over(neg, 4, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_i16(&r, "a", &i16), OSSA_OK), assert_int_equal(i16, -2);
    r.pos = 0;
    assert_int_equal(ossa__br_i32(&r, "a", &i32), OSSA_OK), assert_int_equal(i32, -2);
    r = reader_over(neg, 4, OSSA__BR_BIG, &diag);
    assert_int_equal(ossa__br_i16(&r, "a", &i16), OSSA_OK), assert_int_equal(i16, -257);
    r.pos = 0;
    assert_int_equal(ossa__br_i32(&r, "a", &i32), OSSA_OK), assert_int_equal(i32, -16777217);
    static const uint8_t min32[4] = {0x80, 0, 0, 0};
    r = reader_over(min32, 4, OSSA__BR_BIG, &diag);
    assert_int_equal(ossa__br_i32(&r, "a", &i32), OSSA_OK), assert_true(i32 == INT32_MIN);

    /* Floats: 1.5f is 0x3fc00000, -2.0 is 0xc000000000000000. */
    static const uint8_t f_le[4] = {0x00, 0x00, 0xc0, 0x3f}, f_be[4] = {0x3f, 0xc0, 0x00, 0x00};
    static const uint8_t d_le[8] = {0, 0, 0, 0, 0, 0, 0, 0xc0}, d_be[8] = {0xc0, 0, 0, 0, 0, 0, 0, 0};
    float f;
    double d;
    r = reader_over(f_le, 4, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_f32(&r, "a", &f), OSSA_OK), assert_true(f == 1.5f);
    r = reader_over(f_be, 4, OSSA__BR_BIG, &diag);
    assert_int_equal(ossa__br_f32(&r, "a", &f), OSSA_OK), assert_true(f == 1.5f);
    r = reader_over(d_le, 8, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_f64(&r, "a", &d), OSSA_OK), assert_true(d == -2.0);
    r = reader_over(d_be, 8, OSSA__BR_BIG, &diag);
    assert_int_equal(ossa__br_f64(&r, "a", &d), OSSA_OK), assert_true(d == -2.0);
    assert_int_equal(diag.code, OSSA_OK);

    /* The pointer decoders agree with the reads. */
    assert_int_equal(ossa__br_load_u16(bytes8, true), 0x0102);
    assert_int_equal(ossa__br_load_u32(bytes8 + 4, false), 0x88070605u);
    assert_true(ossa__br_load_u64(bytes8, false) == UINT64_C(0x8807060504030201));
    assert_true(ossa__br_load_f32(f_be, true) == 1.5f);
}

/* Each fixed-size read of `size` bytes: fits exactly at the end, fails one byte short. */
static void test_reads_at_the_end(void **state)
{
    (void)state;
    uint8_t data[16];
    for (size_t i = 0; i < sizeof data; ++i) data[i] = (uint8_t)(0xa0 + i);
    static const size_t sizes[8] = {1, 2, 2, 4, 4, 8, 4, 8};
    for (int kind = 0; kind < 8; ++kind) {
        const size_t n = sizes[kind];
        for (int short_by = 0; short_by < 2; ++short_by) {
            ossa_diag diag;
            /* Start at 3 so that the offset is not the start of the data. */
            const size_t size = 3 + n - (size_t)short_by;
            ossa__byte_reader r = reader_over(data, size, kind % 2 == 0, &diag);
            r.pos = 3;
            union {
                uint8_t u8;
                uint16_t u16;
                int16_t i16;
                uint32_t u32;
                int32_t i32;
                uint64_t u64;
                float f;
                double d;
            } v;
            memset(&v, 0x5a, sizeof v);
            ossa_result res = OSSA_OK;
            switch (kind) {
            case 0:
                res = ossa__br_u8(&r, "the value", &v.u8);
                break;
            case 1:
                res = ossa__br_u16(&r, "the value", &v.u16);
                break;
            case 2:
                res = ossa__br_i16(&r, "the value", &v.i16);
                break;
            case 3:
                res = ossa__br_u32(&r, "the value", &v.u32);
                break;
            case 4:
                res = ossa__br_i32(&r, "the value", &v.i32);
                break;
            case 5:
                res = ossa__br_u64(&r, "the value", &v.u64);
                break;
            case 6:
                res = ossa__br_f32(&r, "the value", &v.f);
                break;
            default:
                res = ossa__br_f64(&r, "the value", &v.d);
                break;
            }
            if (!short_by) {
                assert_int_equal(res, OSSA_OK);
                assert_int_equal(r.pos, size);
                assert_int_equal(ossa__br_remaining(&r), 0);
                assert_int_equal(diag.code, OSSA_OK);
                continue;
            }
            char message[128];
            snprintf(message, sizeof message, "the value needs %zu byte%s at offset 3, but only %zu remain", n,
                     n == 1 ? "" : "s", n - 1);
            assert_int_equal(res, OSSA_ERROR_TRUNCATED);
            assert_int_equal(r.code, OSSA_ERROR_TRUNCATED);
            assert_int_equal(r.pos, 3);
            expect_diag(&diag, OSSA_ERROR_TRUNCATED, 3, message);
            /* A failed read stores 0 (all bits clear) in its output. */
            for (size_t b = 0; b < n; ++b) assert_int_equal(((const uint8_t *)&v)[b], 0);
        }
    }
}

static void test_spans_skip_seek(void **state)
{
    (void)state;
    ossa_diag diag;
    ossa__byte_reader r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    const uint8_t *p = NULL;
    assert_int_equal(ossa__br_skip(&r, 2, "a"), OSSA_OK);
    assert_int_equal(ossa__br_bytes(&r, 6, "the tail", &p), OSSA_OK);
    assert_ptr_equal(p, bytes8 + 2);
    assert_int_equal(ossa__br_bytes(&r, 0, "nothing", &p), OSSA_OK); /* empty span at the end */
    assert_ptr_equal(p, bytes8 + 8);
    assert_int_equal(ossa__br_seek(&r, 8, "the end"), OSSA_OK);
    assert_int_equal(ossa__br_seek(&r, 1, "back"), OSSA_OK), assert_int_equal(r.pos, 1);
    assert_int_equal(diag.code, OSSA_OK);

    assert_int_equal(ossa__br_bytes(&r, 8, "the name", &p), OSSA_ERROR_TRUNCATED);
    assert_null(p);
    assert_int_equal(r.pos, 1);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 1, "the name needs 8 bytes at offset 1, but only 7 remain");

    r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    r.pos = 5;
    assert_int_equal(ossa__br_skip(&r, 4, "padding"), OSSA_ERROR_TRUNCATED);
    assert_int_equal(r.pos, 5);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 5, "padding needs 4 bytes at offset 5, but only 3 remain");

    r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    r.pos = 2;
    assert_int_equal(ossa__br_seek(&r, 9, "the table"), OSSA_ERROR_TRUNCATED);
    assert_int_equal(r.pos, 2);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 2, "the table needs 7 bytes at offset 2, but only 6 remain");

    /* Empty and NULL data. */
    r = reader_over(NULL, 0, OSSA__BR_BIG, &diag);
    assert_non_null(r.data);
    assert_int_equal(ossa__br_need(&r, 0, 4, "nothing"), OSSA_OK);
    uint8_t b;
    assert_int_equal(ossa__br_u8(&r, "the endianness byte", &b), OSSA_ERROR_TRUNCATED);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 0, "the endianness byte needs 1 byte at offset 0, but only 0 remain");
}

static void test_need_and_overflow(void **state)
{
    (void)state;
    ossa_diag diag;
    ossa__byte_reader r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    r.pos = 2;
    assert_int_equal(ossa__br_need(&r, 3, 2, "keys"), OSSA_OK);
    assert_int_equal(ossa__br_need(&r, 1, 6, "keys"), OSSA_OK);
    assert_int_equal(ossa__br_need(&r, UINT64_MAX, 0, "empty items"), OSSA_OK);
    assert_int_equal(diag.code, OSSA_OK);
    assert_int_equal(ossa__br_need(&r, 7, 1, "keys"), OSSA_ERROR_TRUNCATED);
    assert_int_equal(r.pos, 2);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 2, "keys needs 7 bytes at offset 2, but only 6 remain");

    /* count * item_size wraps size_t (and 64 bits): refused, and the message does not wrap. */
    r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    const uint64_t wraps = (uint64_t)SIZE_MAX / 16u + 2u; /* * 16 wraps to a small number */
    assert_int_equal(ossa__br_need(&r, wraps, 16, "tracks"), OSSA_ERROR_TRUNCATED);
    char message[160];
    if ((uint64_t)SIZE_MAX == UINT64_MAX)
        snprintf(message, sizeof message, "tracks needs %llu x 16 bytes at offset 0, but only 8 remain",
                 (unsigned long long)wraps);
    else
        snprintf(message, sizeof message, "tracks needs %llu bytes at offset 0, but only 8 remain",
                 (unsigned long long)(wraps * 16u));
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 0, message);

    r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_need(&r, UINT64_MAX, 2, "joints"), OSSA_ERROR_TRUNCATED);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 0,
                "joints needs 18446744073709551615 x 2 bytes at offset 0, but only 8 remain");

    /* need_at: the error sits on the field that declared the count. */
    r = reader_over(bytes8, 8, OSSA__BR_LITTLE, &diag);
    r.pos = 4;
    assert_int_equal(ossa__br_need_at(&r, 2, 4, 0, "2 tracks"), OSSA_ERROR_TRUNCATED);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 0, "2 tracks needs 8 bytes at offset 4, but only 4 remain");
    assert_int_equal(ossa__br_need_at(&r, 1, 4, 0, "1 track"), OSSA_OK);
}

static void test_varint(void **state)
{
    (void)state;
    ossa_diag diag;
    uint64_t v;
    /* 300 = 0b10_0101100: 0xac 0x02. */
    static const uint8_t v300[2] = {0xac, 0x02};
    ossa__byte_reader r = reader_over(v300, 2, OSSA__BR_BIG, &diag);
    assert_int_equal(ossa__br_varint(&r, 5, "count", &v), OSSA_OK);
    assert_int_equal(v, 300), assert_int_equal(r.pos, 2);

    /* The largest 5-byte value, INT32_MAX, and the 5th byte's extra bits kept for the caller. */
    static const uint8_t i32max[5] = {0xff, 0xff, 0xff, 0xff, 0x07}, big5[5] = {0xff, 0xff, 0xff, 0xff, 0x7f};
    r = reader_over(i32max, 5, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_varint(&r, 5, "count", &v), OSSA_OK), assert_true(v == INT32_MAX);
    r = reader_over(big5, 5, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_varint(&r, 5, "count", &v), OSSA_OK), assert_true(v == UINT64_C(0x7ffffffff));

    /* A 5th byte that continues: CORRUPT at the first byte, position kept. */
    static const uint8_t long5[7] = {0x00, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    r = reader_over(long5, 7, OSSA__BR_LITTLE, &diag);
    r.pos = 1;
    assert_int_equal(ossa__br_varint(&r, 5, "the name length", &v), OSSA_ERROR_CORRUPT);
    assert_int_equal(r.pos, 1);
    expect_diag(&diag, OSSA_ERROR_CORRUPT, 1, "the name length runs past 5 bytes (7-bit encoded integer)");
    /* ... which a 10-byte varint accepts. */
    r.pos = 1;
    assert_int_equal(ossa__br_varint(&r, 10, "chunk length", &v), OSSA_OK);
    assert_true(v == UINT64_C(1) << 35), assert_int_equal(r.pos, 7);

    /* 10 bytes: UINT64_MAX fits (the 10th byte holds bit 63); an 11th is refused. */
    uint8_t ten[11];
    memset(ten, 0xff, sizeof ten);
    ten[9] = 0x01;
    r = reader_over(ten, 10, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_varint(&r, 10, "chunk length", &v), OSSA_OK), assert_true(v == UINT64_MAX);
    ten[9] = 0x81;
    ten[10] = 0x00;
    r = reader_over(ten, 11, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_varint(&r, 10, "chunk length", &v), OSSA_ERROR_CORRUPT);
    expect_diag(&diag, OSSA_ERROR_CORRUPT, 0, "chunk length runs past 10 bytes (7-bit encoded integer)");

    /* At the exact end, and one byte short: TRUNCATED at the missing byte. */
    static const uint8_t cut[3] = {0x07, 0x81, 0x81};
    r = reader_over(cut, 1, OSSA__BR_LITTLE, &diag);
    assert_int_equal(ossa__br_varint(&r, 5, "count", &v), OSSA_OK), assert_int_equal(v, 7);
    r = reader_over(cut, 3, OSSA__BR_LITTLE, &diag);
    r.pos = 1;
    assert_int_equal(ossa__br_varint(&r, 5, "track count", &v), OSSA_ERROR_TRUNCATED);
    assert_int_equal(r.pos, 1);
    assert_int_equal(v, 0);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 3, "track count needs 1 byte at offset 3, but only 0 remain");
}

static void test_prefix_suffix_first_error(void **state)
{
    (void)state;
    ossa_diag diag;
    ossa__byte_reader r = reader_over(bytes8, 2, OSSA__BR_BIG, &diag);
    r.prefix = "CINF: ";
    r.suffix = " (in the payload)";
    uint32_t v;
    assert_int_equal(ossa__br_u32(&r, "bone count", &v), OSSA_ERROR_TRUNCATED);
    expect_diag(&diag, OSSA_ERROR_TRUNCATED, 0,
                "CINF: bone count needs 4 bytes at offset 0, but only 2 remain (in the payload)");
    /* A later error changes neither the diag nor the reader's code. */
    assert_int_equal(ossa__br_fail(&r, OSSA_ERROR_CORRUPT, 1, "later %d", 1), OSSA_ERROR_CORRUPT);
    assert_int_equal(r.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(diag.code, OSSA_ERROR_TRUNCATED);

    /* Without a diag the code is still kept. */
    r = reader_over(bytes8, 2, OSSA__BR_BIG, &diag);
    r.diag = NULL;
    assert_int_equal(ossa__br_u32(&r, "bone count", &v), OSSA_ERROR_TRUNCATED);
    assert_int_equal(r.code, OSSA_ERROR_TRUNCATED);
    assert_int_equal(diag.code, OSSA_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixed_reads_both_orders),
        cmocka_unit_test(test_reads_at_the_end),
        cmocka_unit_test(test_spans_skip_seek),
        cmocka_unit_test(test_need_and_overflow),
        cmocka_unit_test(test_varint),
        cmocka_unit_test(test_prefix_suffix_first_error),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
