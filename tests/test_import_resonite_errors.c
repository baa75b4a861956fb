/* Bad AnimJ / AnimX input: each error class with its code and line:column or byte offset,
 * truncated and corrupted files, limits. Part of test_import_resonite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_resonite.h"
#include "resonite_test_bytes.h"
#include "test_util.h"

/* 1-based line and column of the first occurrence of `token` (ASCII text before it). */
static void position_of(const char *text, const char *token, uint32_t *line, uint32_t *column)
{
    const char *at = strstr(text, token);
    assert_non_null(at);
    *line = 1, *column = 1;
    for (const char *p = text; p < at; ++p) {
        if (*p == '\n')
            ++*line, *column = 1;
        else
            ++*column;
    }
}

static void expect_animj(const char *text, size_t size, ossa_result code, uint32_t line, uint32_t column,
                         const char *needle)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r = ossa_import_animj(text, size, NULL, &out, &diag);
    char shown[400];
    print_message("%s\n", ossa_diag_format(&diag, shown, sizeof shown));
    assert_int_equal(r, code);
    assert_int_equal(diag.code, code);
    if (line) {
        assert_int_equal(diag.line, line);
        assert_int_equal(diag.column, column);
    }
    if (needle) assert_non_null(strstr(diag.message, needle));
    assert_int_equal(out.track_count, 0);
    assert_null(out.metadata);
}

TB_MAYBE_UNUSED static void expect_token(const char *text, ossa_result code, const char *token, const char *needle)
{
    uint32_t line, column;
    position_of(text, token, &line, &column);
    expect_animj(text, strlen(text), code, line, column, needle);
}

#define TRACK(type, value_type, data)                                                                                  \
    "{\"tracks\": [{\"trackType\": \"" type "\", \"valueType\": \"" value_type "\", \"data\": " data "}]}"

void test_animj_errors(void **state)
{
    (void)state;
#ifdef OSSA_HAVE_CJSON
    expect_token("{\n  \"name\": \"x\",\n  \"tracks\": [ 1, ]\n}", OSSA_ERROR_PARSE, "]", "malformed JSON");
    expect_token("{\n  \"tracks\": [\n    { \"trackType\": \"Discrete\", \"valueType\": \"float5\" } ] }",
                 OSSA_ERROR_UNSUPPORTED_FORMAT, "\"float5\"", "float5");
    expect_token("{ \"name\": \"\xc3\x28\" }", OSSA_ERROR_PARSE, "\xc3", "UTF-8");
    expect_token("{\n\"a\": 1,\n\"b\": \"\xed\xa0\x80\"}", OSSA_ERROR_PARSE, "\xed", "UTF-8"); /* a surrogate */
    expect_token("[1, 2]", OSSA_ERROR_PARSE, "[", "animation object");
    expect_token(TRACK("Bezier", "float", "{}"), OSSA_ERROR_UNSUPPORTED_FORMAT, "\"Bezier\"", "Bezier");
    expect_token(TRACK("Spline", "float", "{}"), OSSA_ERROR_UNSUPPORTED_FORMAT, "\"Spline\"", "trackType");
    expect_token(TRACK("Raw", "float4x4", "{}"), OSSA_ERROR_UNSUPPORTED_FORMAT, "\"float4x4\"", "AnimX");
    expect_token("{\"tracks\": [{\"valueType\": \"float\", \"data\": {}}]}", OSSA_ERROR_PARSE, "{\"valueType\"",
                 "trackType");
    expect_token(TRACK("Discrete", "float", "{\"keyframes\": [{\"value\": 1}]}"), OSSA_ERROR_PARSE, "{\"value\"",
                 "\"time\"");
    expect_token(TRACK("Discrete", "float", "{\"keyframes\": [{\"time\": 0, \"value\": \"a\"}]}"), OSSA_ERROR_PARSE,
                 "\"a\"", "expected a number");
    expect_token(TRACK("Discrete", "float", "{\"keyframes\": [{\"time\": \"0\", \"value\": 1}]}"), OSSA_ERROR_PARSE,
                 "\"0\"", "time");
    expect_token(
        TRACK("Curve", "float", "{\"keyframes\": [{\"time\": 0, \"value\": 1, \"interpolation\": \"Smooth\"}]}"),
        OSSA_ERROR_PARSE, "\"Smooth\"", "Smooth");
    expect_token(TRACK("Curve", "float", "{\"keyframes\": [{\"time\": 0, \"value\": 1}]}"), OSSA_ERROR_PARSE,
                 "{\"time\"", "interpolation");
    expect_token(TRACK("Discrete", "byte", "{\"keyframes\": [{\"time\": 0, \"value\": 300}]}"), OSSA_ERROR_INVALID_KEY,
                 "300", "range");
    expect_token(TRACK("Discrete", "int", "{\"keyframes\": [{\"time\": 0, \"value\": 1.5}]}"), OSSA_ERROR_INVALID_KEY,
                 "1.5", "integer");
    expect_token(TRACK("Discrete", "float", "{\"keyframes\": [{\"time\": 0, \"value\": 1e39}]}"),
                 OSSA_ERROR_INVALID_KEY, "1e39", "float range");
    expect_token(TRACK("Discrete", "float2", "{\"keyframes\": [{\"time\": 0, \"value\": {\"x\": 1}}]}"),
                 OSSA_ERROR_PARSE, "{\"x\"", "\"y\"");
    expect_token(TRACK("Discrete", "bool", "{\"keyframes\": [{\"time\": 0, \"value\": 1}]}"), OSSA_ERROR_PARSE, "1}",
                 "true or false");
    expect_token(TRACK("Raw", "float", "{\"interval\": -1, \"keyframes\": [1]}"), OSSA_ERROR_INVALID_KEY, "-1",
                 "interval");
    expect_token("{\"globalDuration\": -2}", OSSA_ERROR_INVALID_KEY, "-2", "globalDuration");
    expect_token("{\"tracks\": {}}", OSSA_ERROR_PARSE, "{}", "array of tracks");
    expect_token("{} x", OSSA_ERROR_PARSE, "x", "malformed");
    expect_token("{\"a\": Trueish}", OSSA_ERROR_PARSE, "Trueish", "malformed");
    expect_animj("", 0, OSSA_ERROR_PARSE, 1, 1, "the end");
    expect_animj("{\"a\"\0: 1}", 9, OSSA_ERROR_PARSE, 1, 5, "NUL");
    /* A BOM is skipped and not counted as a column. */
    expect_animj("\xEF\xBB\xBF{\"tracks\": [1]}", 18, OSSA_ERROR_PARSE, 1, 13, "track object");
    static char deep[2101];
    memset(deep, '[', 2100);
    expect_animj(deep, 2100, OSSA_ERROR_PARSE, 0, 0, "malformed");
    /* True/False: lowered outside strings only. */
    const char *text =
        "{\"name\": \"True False\", \"tracks\": [{\"trackType\": \"Discrete\", \"valueType\": \"bool2\", "
        "\"data\": {\"node\": \"n\", \"keyframes\": [{\"time\": 0, \"value\": {\"x\": True, \"y\": False}}]}}]}";
    ossa_import_output out = {0};
    assert_int_equal(ossa_import_animj(text, strlen(text), NULL, &out, NULL), OSSA_OK);
    char name[32];
    assert_true(ossa_import_output_metadata(&out, "name", name, sizeof name));
    assert_string_equal(name, "True False");
    assert_float_equal(out.tracks[0].keys[0].value[0], 1.f, 0.f);
    assert_float_equal(out.tracks[0].keys[0].value[1], 0.f, 0.f);
    ossa_import_output_destroy(&out);
#else
    ossa_import_output out = {0};
    assert_int_equal(ossa_import_animj("{}", 2, NULL, &out, NULL), OSSA_ERROR_UNSUPPORTED_FORMAT);
#endif
}

/* Header "A", one Discrete float track N/P with keys (0, 1) and (1, 2): 41 bytes.
 * Offsets: count 10, duration 11, name 15, encoding 17, track 18, value type 19, node 20,
 * property 22, key count 24, keys 25 (time, value, time, value). */
static void base_file(test_bytes *b)
{
    b->n = 0;
    tb_header(b, 1, 1, 1.f, "A", 0);
    tb_u8(b, 1), tb_u8(b, 21), tb_str(b, "N"), tb_str(b, "P"), tb_var(b, 2);
    tb_f32(b, 0.f), tb_f32(b, 1.f), tb_f32(b, 1.f), tb_f32(b, 2.f);
    assert_int_equal(b->n, 41);
}

static void expect_animx(const test_bytes *b, size_t size, const ossa_resonite_desc *desc, ossa_result code,
                         size_t offset, const char *needle)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r = ossa_import_animx(b->d, size, desc, &out, &diag);
    char shown[400];
    print_message("%s\n", ossa_diag_format(&diag, shown, sizeof shown));
    assert_int_equal(r, code);
    assert_int_equal(diag.code, code);
    assert_int_equal(diag.offset, offset);
    assert_int_equal(diag.line, 0);
    if (needle) assert_non_null(strstr(diag.message, needle));
    assert_int_equal(out.track_count, 0);
    assert_null(out.metadata);
}

static void patch(test_bytes *b, size_t at, const void *bytes, size_t n)
{
    base_file(b);
    memcpy(b->d + at, bytes, n);
}

void test_animx_errors(void **state)
{
    (void)state;
    static test_bytes b;
    const float nan = NAN, minus = -1.f;
    base_file(&b);
    ossa_import_output out = {0};
    assert_int_equal(ossa_import_animx(b.d, b.n, NULL, &out, NULL), OSSA_OK);
    ossa_import_output_destroy(&out);
    patch(&b, 1, "B", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_BAD_MAGIC, 0, "magic");
    patch(&b, 6, "\2", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_VERSION, 6, "version 2");
    base_file(&b), expect_animx(&b, 40, NULL, OSSA_ERROR_TRUNCATED, 24, "keyframe count");
    base_file(&b), expect_animx(&b, 17, NULL, OSSA_ERROR_TRUNCATED, 17, "encoding");
    base_file(&b), expect_animx(&b, 3, NULL, OSSA_ERROR_BAD_MAGIC, 0, NULL);
    patch(&b, 10, "\x7f", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_TRUNCATED, 10, "track count 127");
    patch(&b, 11, &nan, 4), expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 11, "globalDuration");
    patch(&b, 11, &minus, 4), expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 11, "globalDuration");
    patch(&b, 16, "\xff", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_PARSE, 16, "UTF-8");
    patch(&b, 17, "\3", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 17, "encoding");
    patch(&b, 18, "\3", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 18, "Bezier");
    patch(&b, 18, "\7", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 18, "track type 7");
    patch(&b, 19, "\x28", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 19, "value type 40");
    patch(&b, 21, "\xc0", 1), expect_animx(&b, b.n, NULL, OSSA_ERROR_PARSE, 21, "UTF-8");
    patch(&b, 29, &nan, 4), expect_animx(&b, b.n, NULL, OSSA_ERROR_INVALID_KEY, 29, "finite");
    patch(&b, 25, &nan, 4), expect_animx(&b, b.n, NULL, OSSA_ERROR_INVALID_KEY, 25, "time");
    /* Counts beyond the file and malformed 7-bit integers. */
    base_file(&b), b.n = 24, tb_raw(&b, "\xff\xff\xff\xff\x07", 5),
                   expect_animx(&b, b.n, NULL, OSSA_ERROR_TRUNCATED, 24, "2147483647");
    base_file(&b), b.n = 24, tb_raw(&b, "\xff\xff\xff\xff\x0f", 5),
                   expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 24, ".NET int");
    base_file(&b), b.n = 24, tb_raw(&b, "\xff\xff\xff\xff\xff\x01", 6),
                   expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 24, "5 bytes");
    base_file(&b), tb_u8(&b, 0), expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 41, "1 unexpected bytes");
    /* Curve: interpolation byte 4 (the second per-key byte, at 27); bad flags at 25. */
    b.n = 18, tb_u8(&b, 2), tb_u8(&b, 21), tb_str(&b, "N"), tb_str(&b, "P"), tb_var(&b, 2), tb_u8(&b, 1), tb_u8(&b, 1),
    tb_u8(&b, 4);
    for (int i = 0; i < 4; ++i) tb_f32(&b, (float)i);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 27, "interpolation byte 4");
    b.d[25] = 4, expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 25, "curve flags");
    /* A string value whose null flag is 2 (at 29). */
    b.n = 18, tb_u8(&b, 1), tb_u8(&b, 39), tb_str(&b, "N"), tb_str(&b, "P"), tb_var(&b, 1), tb_f32(&b, 0.f),
    tb_u8(&b, 2), tb_u8(&b, 0);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 29, "null flag");
    /* LZ4: an error inside the payload is at its offset there; stream-level errors are in the file. */
    b.n = 0, tb_header(&b, 1, 1, 1.f, "A", 1);
    tb_var(&b, 0), tb_var(&b, 8), tb_u8(&b, 1), tb_u8(&b, 40), tb_str(&b, "N"), tb_str(&b, "P"), tb_var(&b, 0),
        tb_u8(&b, 0);
#ifdef OSSA_HAVE_LZ4
    expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 1, "LZ4-decompressed");
    b.n = 18, tb_var(&b, 1), tb_var(&b, 100), tb_var(&b, 3), tb_raw(&b, "\xff\xff\xff", 3);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 18, "LZ4 block");
    b.n = 18, tb_var(&b, 0), tb_var(&b, 100), tb_raw(&b, "0123456789", 10);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_TRUNCATED, 18, "100 bytes");
    b.n = 18, tb_var(&b, 4), tb_var(&b, 1), tb_u8(&b, 0);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 18, "flags");
    b.n = 18, tb_var(&b, 1), tb_var(&b, 100000), tb_var(&b, 3), tb_raw(&b, "\xff\xff\xff", 3);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 18, "too large");
    /* Only empty chunks, compressed (a lone zero token) and stored: an empty payload, no
     * arithmetic on a NULL buffer. */
    b.n = 18, tb_var(&b, 1), tb_var(&b, 0), tb_var(&b, 1), tb_u8(&b, 0), tb_var(&b, 0), tb_var(&b, 0);
    expect_animx(&b, b.n, NULL, OSSA_ERROR_TRUNCATED, 10, "track count 1 needs 5 bytes at offset 0, but only 0 remain");
#else
    expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 18, "liblz4");
#endif
    /* LZMA: declared size beyond the limit; invalid properties; data cut short. */
    b.n = 0, tb_header(&b, 1, 1, 1.f, "A", 2);
    tb_raw(&b, "\x5d\x00\x00\x20\x00", 5), tb_le(&b, 2000, 8), tb_le(&b, 0, 8);
#ifdef OSSA_HAVE_LZMA
    ossa_resonite_desc small = {.max_decompressed_size = 1000};
    expect_animx(&b, b.n, &small, OSSA_ERROR_CORRUPT, 23, "limit");
    b.d[18] = 0xff, expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, 18, "properties");
    b.d[18] = 0x5d, expect_animx(&b, b.n, NULL, OSSA_ERROR_TRUNCATED, b.n, "ends after 0 of 2000");
    expect_animx(&b, 30, NULL, OSSA_ERROR_TRUNCATED, 18, "LZMA header");
    /* The declared packed size is checked against the bytes present, both ways. */
    ossa_blob blob = {0};
    base_file(&b);
    assert_int_equal(ossa_animx_recode(b.d, b.n, OSSA_ANIMX_LZMA, 0, NULL, &blob, NULL), OSSA_OK);
    b.n = 0, tb_raw(&b, blob.data, blob.size);
    expect_animx(&b, b.n - 1, NULL, OSSA_ERROR_TRUNCATED, 18 + 13, "the LZMA data the header declares needs");
    tb_u8(&b, 0), expect_animx(&b, b.n, NULL, OSSA_ERROR_CORRUPT, b.n - 1, "1 unexpected bytes after the LZMA data");
    ossa_blob_destroy(&blob);
#else
    expect_animx(&b, b.n, NULL, OSSA_ERROR_UNSUPPORTED_FORMAT, 18, "liblzma");
#endif
}

/* Four tracks covering strings, tangents, bytes and Raw bodies. */
static void sample_file(test_bytes *b)
{
    b->n = 0;
    tb_header(b, 1, 4, 2.f, "sample", 0);
    tb_u8(b, 1), tb_u8(b, 21), tb_str(b, "N"), tb_str(b, "P"), tb_var(b, 2);
    tb_f32(b, 0.f), tb_f32(b, 1.f), tb_f32(b, 1.f), tb_f32(b, 2.f);
    tb_u8(b, 2), tb_u8(b, 22), tb_str(b, "C"), tb_str(b, "v"), tb_var(b, 2), tb_u8(b, 3), tb_u8(b, 2), tb_u8(b, 3);
    for (int i = 0; i < 3 * 2 + 4 * 2; ++i) tb_f32(b, (float)(i % 5) - 1.5f);
    tb_u8(b, 0), tb_u8(b, 39), tb_str(b, "S"), tb_str(b, ""), tb_var(b, 3), tb_f32(b, 0.5f);
    tb_u8(b, 1), tb_str(b, "one"), tb_u8(b, 0), tb_u8(b, 1), tb_str(b, "three");
    tb_u8(b, 1), tb_u8(b, 38), tb_str(b, "K"), tb_str(b, "c"), tb_var(b, 1), tb_f32(b, 0.f), tb_raw(b, "\1\2\3\4", 4);
}

static void expect_clean_failure(const void *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r = ossa_import_animx(data, size, NULL, &out, &diag);
    assert_int_not_equal(r, OSSA_OK);
    assert_int_equal(diag.code, r);
    assert_true(diag.message[0] != '\0');
    assert_int_equal(out.track_count, 0);
    assert_int_equal(out.event_count, 0);
    assert_null(out.metadata);
}

void test_truncations(void **state)
{
    (void)state;
    static test_bytes b;
    sample_file(&b);
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_animx(b.d, b.n, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.event_count, 3); /* Raw, interval 0.5: "S/one" at 0, null "S/" at 0.5, "S/three" at 1 */
    assert_string_equal(out.events[1].name, "S/");
    assert_string_equal(out.events[2].name, "S/three");
    assert_float_equal(out.events[2].time, 1.f, 0.f);
    ossa_import_output_destroy(&out);
    for (int enc = 0; enc <= 2; ++enc) {
        ossa_blob blob = {0};
        if (ossa_animx_recode(b.d, b.n, (ossa_animx_encoding)enc, 0, NULL, &blob, NULL) != OSSA_OK) continue;
        for (size_t n = 0; n < blob.size; ++n) expect_clean_failure(blob.data, n);
        /* Flipped bytes: never a crash; a success must still be valid data. */
        uint8_t *copy = malloc(blob.size);
        for (size_t at = 0; at < blob.size; ++at)
            for (unsigned flip = 1; flip < 256; flip <<= 3) {
                memcpy(copy, blob.data, blob.size);
                copy[at] ^= (uint8_t)flip;
                ossa_diag_clear(&diag);
                ossa_result r = ossa_import_animx(copy, blob.size, NULL, &out, &diag);
                assert_int_equal(diag.code, r);
                for (size_t i = 0; i < out.track_count; ++i)
                    assert_int_equal(ossa_raw_track_validate(&out.tracks[i], NULL), OSSA_OK);
                ossa_import_output_destroy(&out);
            }
        free(copy);
        ossa_blob_destroy(&blob);
    }
#ifdef OSSA_HAVE_CJSON
    const char *text =
        "{\"name\": \"t\", \"tracks\": [{\"trackType\": \"Curve\", \"valueType\": \"color\", \"data\": {\"node\": "
        "\"n\", \"keyframes\": [{\"time\": 0, \"value\": {\"r\": 1, \"g\": 0, \"b\": 0, \"a\": 1}, "
        "\"interpolation\": \"Tangent\"}]}}]}";
    for (size_t n = 0; n < strlen(text); ++n) {
        ossa_diag_clear(&diag);
        assert_int_equal(ossa_import_animj(text, n, NULL, &out, &diag), OSSA_ERROR_PARSE);
        assert_true(diag.line >= 1 && diag.column >= 1);
        assert_null(out.metadata);
    }
#endif
}

void test_limits(void **state)
{
    (void)state;
    static test_bytes b;
    ossa_import_output out = {0};
    ossa_diag diag;
    (void)diag; /* used by the AnimJ cases */
    base_file(&b);
    ossa_resonite_desc bad = {.sample_rate = -1.f};
    expect_animx(&b, b.n, &bad, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "sample_rate");
    bad = (ossa_resonite_desc){.sample_rate = NAN};
    expect_animx(&b, b.n, &bad, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "sample_rate");
    assert_int_equal(ossa_import_animx(b.d, b.n, NULL, NULL, NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_import_animx(NULL, 4, NULL, &out, NULL), OSSA_ERROR_NULL_ARGUMENT);
    /* A stored LZ4 chunk larger than max_decompressed_size. */
    b.n = 0, tb_header(&b, 1, 0, 1.f, "A", 1), tb_var(&b, 0), tb_var(&b, 100);
    for (int i = 0; i < 100; ++i) tb_u8(&b, 0);
    ossa_resonite_desc cap = {.max_decompressed_size = 50};
    if (TB_HAVE_LZ4) expect_animx(&b, b.n, &cap, OSSA_ERROR_CORRUPT, 18, "limit 50");
#ifdef OSSA_HAVE_CJSON
    /* A Tangent segment of 100 s at 1 kHz needs 100000 keys. */
    const char *longer = TRACK("Curve", "float",
                               "{\"keyframes\": [{\"time\": 0, \"value\": 0, \"interpolation\": "
                               "\"Tangent\", \"rightTangent\": 1}, {\"time\": 100, \"value\": 0, "
                               "\"interpolation\": \"Linear\"}]}");
    ossa_resonite_desc few = {.sample_rate = 1000.f, .max_keys = 1000};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_animj(longer, strlen(longer), &few, &out, &diag), OSSA_ERROR_INVALID_KEY);
    assert_non_null(strstr(diag.message, "max_keys"));
    /* A segment of 3e38 s clipped to globalDuration 1 only samples what it needs. */
    const char *huge =
        "{\"globalDuration\": 1, \"tracks\": [{\"trackType\": \"Curve\", \"valueType\": \"float\", \"data\": "
        "{\"keyframes\": [{\"time\": 0, \"value\": 0, \"interpolation\": \"CubicBezier\", \"rightTangent\": 5}, "
        "{\"time\": 3e38, \"value\": 1, \"interpolation\": \"Linear\"}]}}]}";
    assert_int_equal(ossa_import_animj(huge, strlen(huge), &few, &out, &diag), OSSA_OK);
    assert_true(out.tracks[0].key_count <= 3);
    ossa_import_output_destroy(&out);
#endif
    /* Decoding budget: max_keys keyframes per track, 4 * max_keys in all. */
    base_file(&b);
    ossa_resonite_desc one = {.max_keys = 1};
    expect_animx(&b, b.n, &one, OSSA_ERROR_INVALID_KEY, 24, "max_keys");
    b.n = 0, tb_header(&b, 1, 5, 1.f, "A", 0);
    for (int i = 0; i < 5; ++i)
        tb_u8(&b, 1), tb_u8(&b, 0), tb_str(&b, "N"), tb_str(&b, "P"), tb_var(&b, 1), tb_f32(&b, 0.f), tb_u8(&b, 1);
    expect_animx(&b, b.n, &one, OSSA_ERROR_INVALID_KEY, 18 + 4 * 12 + 6, "4 * max_keys");
#ifdef OSSA_HAVE_CJSON
    const char *three = TRACK("Raw", "float", "{\"interval\": 1, \"keyframes\": [1, 2, 3]}");
    ossa_resonite_desc two = {.max_keys = 2};
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_animj(three, strlen(three), &two, &out, &diag), OSSA_ERROR_INVALID_KEY);
    assert_int_equal(diag.column, (uint32_t)(strstr(three, "[1, 2") - three + 1));
#endif
    /* Near-zero quaternions (fuzzer finding) become identity, on user channels and joints. */
    b.n = 0, tb_header(&b, 1, 2, 1.f, "q", 0);
    for (int i = 0; i < 2; ++i) {
        tb_u8(&b, 1), tb_u8(&b, 25), tb_str(&b, i ? "J" : "U"), tb_str(&b, i ? "rotation" : "q"), tb_var(&b, 1);
        tb_f32(&b, 0.f), tb_f32(&b, 1e-30f), tb_f32(&b, 0.f), tb_f32(&b, 0.f), tb_f32(&b, 0.f);
    }
    assert_int_equal(ossa_import_animx(b.d, b.n, NULL, &out, NULL), OSSA_OK);
    assert_float_equal(out.tracks[0].keys[0].value[3], 1.f, 0.f);
    assert_int_equal(ossa_raw_track_validate(&out.tracks[0], NULL), OSSA_OK);
    assert_float_equal(out.animations[0].tracks[0].rotations[0].value.w, 1.f, 0.f);
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], NULL), OSSA_OK);
    ossa_import_output_destroy(&out);
    /* Writer arguments. */
    ossa_blob blob = {0};
    ossa_animx_write_desc desc = {.encoding = (ossa_animx_encoding)7};
    assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    desc = (ossa_animx_write_desc){.duration = NAN};
    assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_raw_animation anim = {0};
    ossa_raw_animation_create(&anim, 1, NULL);
    desc = (ossa_animx_write_desc){.animation = &anim};
    assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_ERROR_INVALID_ARGUMENT);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_track t = {0};
    ossa_raw_track_create(&t, OSSA_TRACK_FLOAT, 2, NULL);
    t.keys[0].ratio = 0.5f;
    desc = (ossa_animx_write_desc){.tracks = &t, .track_count = 1};
    assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_ERROR_INVALID_KEY);
    assert_null(blob.data);
    ossa_raw_track_destroy(&t);
    /* An empty animation writes and reads back in every encoding. */
    for (int enc = 0; enc <= 2; ++enc) {
        desc = (ossa_animx_write_desc){.encoding = (ossa_animx_encoding)enc};
        if (ossa_animx_write(&desc, &blob, NULL) != OSSA_OK) continue;
        assert_int_equal(ossa_import_animx(blob.data, blob.size, NULL, &out, NULL), OSSA_OK);
        assert_int_equal(out.track_count, 0);
        assert_int_equal(ossa_import_detect(blob.data, blob.size, NULL), OSSA_FORMAT_ANIMX);
        ossa_import_output_destroy(&out);
        assert_int_equal(ossa_import_any(blob.data, blob.size, "x.animx", &out, NULL), OSSA_OK);
        ossa_import_output_destroy(&out);
        ossa_blob_destroy(&blob);
    }
    const char *json = "  {\"tracks\": [{\"trackType\": \"Raw\"}]}";
    assert_int_equal(ossa_import_detect(json, strlen(json), NULL), OSSA_FORMAT_ANIMJ);
    assert_int_equal(ossa_import_detect("{}", 2, "a/b.AnimJ"), OSSA_FORMAT_ANIMJ);
    assert_int_equal(ossa_import_detect("{\"asset\": {}}", 13, NULL), OSSA_FORMAT_UNKNOWN);
}
