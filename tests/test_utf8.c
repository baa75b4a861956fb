/* UTF-8 repair (ossa_utf8_valid, ossa_utf8_sanitize) on the sequences that trip decoders, checked
 * against Unicode 15's maximal-subpart examples (3.9, Table 3-8) and against an independent
 * decoder over every one- and two-byte string; and the import contract that every name an
 * importer hands over is UTF-8, with a warning when it was repaired. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/common.h"
#include "ossa/offline/import.h"
#include "ossa/offline/import_gltf.h"
#include "import_internal.h" /* ossa__import_end, the shared end of every import */
#include "test_util.h"

#define FFFD "\xEF\xBF\xBD"

/* `in` sanitised equals `expected`, with its length returned and `in` valid only when equal. */
static void expect(const char *in, const char *expected)
{
    char out[256];
    const size_t n = ossa_utf8_sanitize(in, out, sizeof out);
    if (strcmp(out, expected)) fail_msg("sanitising \"%s\" gave \"%s\", not \"%s\"", in, out, expected);
    assert_int_equal(n, strlen(expected));
    assert_int_equal(ossa_utf8_sanitize(in, NULL, 0), n);
    assert_int_equal(ossa_utf8_valid(in), !strcmp(in, expected));
    assert_true(ossa_utf8_valid(out));
}

static void test_tricky_sequences(void **state)
{
    (void)state;
    expect("", "");
    expect("Hips", "Hips");
    expect("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"); /* é € 😀 */
    expect("\x01\x1F\x7F", "\x01\x1F\x7F"); /* control characters are UTF-8: JSON writers escape them */
    /* Latin-1 bytes: each a lead byte without its continuation, or a lone continuation. */
    expect("H\xE9ps", "H" FFFD "ps");
    expect("caf\xE9", "caf" FFFD);
    expect("\xB0", FFFD);
    /* Overlong encodings: C0, C1 never lead; E0 needs A0..BF next, F0 needs 90..BF. */
    expect("\xC0\xAF", FFFD FFFD);
    expect("\xC1\xBF", FFFD FFFD);
    expect("\xE0\x80\xAF", FFFD FFFD FFFD);
    expect("\xE0\x9F\xBF", FFFD FFFD FFFD);
    expect("\xF0\x80\x80\xAF", FFFD FFFD FFFD FFFD);
    expect("\xF0\x8F\xBF\xBF", FFFD FFFD FFFD FFFD);
    expect("\xE0\xA0\x80", "\xE0\xA0\x80");         /* U+0800, the first three-byte code point */
    expect("\xF0\x90\x80\x80", "\xF0\x90\x80\x80"); /* U+10000 */
    /* Surrogates D800..DFFF encoded in UTF-8 (CESU-8, WTF-8): ED needs 80..9F next. */
    expect("\xED\xA0\x80", FFFD FFFD FFFD);
    expect("\xED\xBF\xBF", FFFD FFFD FFFD);
    expect("\xED\xA0\xBD\xED\xB8\x80", FFFD FFFD FFFD FFFD FFFD FFFD); /* a surrogate pair */
    expect("\xED\x9F\xBF", "\xED\x9F\xBF");                            /* U+D7FF */
    expect("\xEE\x80\x80", "\xEE\x80\x80");                            /* U+E000 */
    /* Above U+10FFFF: F4 needs 80..8F next; F5..FF never lead. */
    expect("\xF4\x8F\xBF\xBF", "\xF4\x8F\xBF\xBF"); /* U+10FFFF kept */
    expect("\xF4\x90\x80\x80", FFFD FFFD FFFD FFFD);
    expect("\xF5\x80\x80\x80", FFFD FFFD FFFD FFFD);
    expect("\xF7\xBF\xBF\xBF", FFFD FFFD FFFD FFFD);
    expect("\xF8\x88\x80\x80\x80", FFFD FFFD FFFD FFFD FFFD); /* the old five-byte form */
    expect("\xFE\xFF", FFFD FFFD);
    /* Truncated sequences: the maximal subpart is one U+FFFD, whatever follows. */
    expect("\xF0\x9F\x98", FFFD);
    expect("\xF0\x9F\x98x", FFFD "x");
    expect("\xF0\x9F", FFFD);
    expect("\xE2\x82", FFFD);
    expect("\xE2\x82"
           "A\xC3",
           FFFD "A" FFFD);
    expect("\xF0\x9F\x98\xF0\x9F\x98\x80", FFFD "\xF0\x9F\x98\x80");
    /* Unicode 15, Table 3-8: 61 F1 80 80 E1 80 C2 62 80 63 80 BF 64. */
    expect("\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64", "a" FFFD FFFD FFFD "b" FFFD "c" FFFD FFFD "d");
    /* NULL is "". */
    assert_true(ossa_utf8_valid(NULL));
    assert_int_equal(ossa_utf8_sanitize(NULL, NULL, 0), 0);
}

/* A short output holds whole characters only, NUL-terminated; the length returned is the whole. */
static void test_short_output(void **state)
{
    (void)state;
    char out[8];
    memset(out, 'x', sizeof out);
    assert_int_equal(ossa_utf8_sanitize("ab\xE9", out, 4), 5);
    assert_string_equal(out, "ab"); /* U+FFFD would need bytes 2..4 and the NUL a fifth */
    assert_int_equal(ossa_utf8_sanitize("ab\xE9", out, 6), 5);
    assert_string_equal(out, "ab" FFFD);
    assert_int_equal(ossa_utf8_sanitize("\xF0\x9F\x98\x80z", out, 4), 5);
    assert_string_equal(out, "");
    memset(out, 'x', sizeof out);
    assert_int_equal(ossa_utf8_sanitize("abc", out, 1), 3);
    assert_int_equal(out[0], '\0');
    assert_int_equal(out[1], 'x');
    assert_int_equal(ossa_utf8_sanitize("abc", out, 0), 3);
    assert_int_equal(out[0], '\0');
}

/* The independent reference: the code point of the sequence at `s` by its bit pattern, and
 * whether the sequence is well formed (shortest form, not a surrogate, at most U+10FFFF). */
static size_t reference_length(const unsigned char *s)
{
    const unsigned b = s[0];
    size_t n;
    unsigned cp;
    if (b < 0x80) return 1;
    if ((b & 0xE0) == 0xC0)
        n = 2, cp = b & 0x1F;
    else if ((b & 0xF0) == 0xE0)
        n = 3, cp = b & 0x0F;
    else if ((b & 0xF8) == 0xF0)
        n = 4, cp = b & 0x07;
    else
        return 0;
    for (size_t i = 1; i < n; ++i) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    static const unsigned shortest[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < shortest[n] || (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF) return 0;
    return n;
}

static bool reference_valid(const unsigned char *s)
{
    for (size_t n; *s; s += n)
        if ((n = reference_length(s)) == 0) return false;
    return true;
}

/* Every string of one or two bytes, every three-byte string of lead bytes E0..EF, and every
 * four-byte string of lead F0..F7 over a set of continuation bytes around the range limits:
 * valid exactly when the reference decoder says so, and sanitised valid strings unchanged. */
static void test_against_a_reference_decoder(void **state)
{
    (void)state;
    static const unsigned char edges[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xF0};
    const size_t edge_count = sizeof edges;
    unsigned char s[5] = {0};
    size_t valid = 0;
    for (unsigned a = 1; a < 256; ++a)
        for (unsigned b = 0; b < 256; ++b)
            for (size_t c = 0; c < (a >= 0xE0 ? edge_count : 1); ++c)
                for (size_t d = 0; d < (a >= 0xF0 ? edge_count : 1); ++d) {
                    s[0] = (unsigned char)a, s[1] = (unsigned char)b;
                    s[2] = a >= 0xE0 ? edges[c] : 0, s[3] = a >= 0xF0 ? edges[d] : 0;
                    const bool expected = reference_valid(s);
                    if (ossa_utf8_valid((const char *)s) != expected)
                        fail_msg("%02X %02X %02X %02X: valid should be %d", s[0], s[1], s[2], s[3], expected);
                    char out[16];
                    const size_t n = ossa_utf8_sanitize((const char *)s, out, sizeof out);
                    assert_true(ossa_utf8_valid(out));
                    assert_int_equal(n, strlen(out));
                    if (expected) assert_string_equal(out, (const char *)s), ++valid;
                }
    assert_true(valid > 1000);
}

/* glTF (one importer of many: the repair is in the shared end of every import) with Latin-1
 * joint and clip names: they arrive as UTF-8 with U+FFFD, and a warning says so. */
static void test_import_repairs_names(void **state)
{
    (void)state;
    bool have_gltf = false;
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        have_gltf = have_gltf || (f->format == OSSA_FORMAT_GLTF && f->available);
    }
    if (!have_gltf) {
        print_message("skipped: this build has no glTF import (no cJSON)\n");
        skip();
    }
    static const char json[] = "{\"asset\":{\"version\":\"2.0\"},\"nodes\":[{\"name\":\"H\xE9ps\",\"children\":[1]},"
                               "{\"name\":\"Spine\\u0001\\n\",\"children\":[2]},{\"name\":\"Head\xF0\x9F\x98\"},"
                               "{\"name\":\"body\",\"skin\":0}],\"skins\":[{\"joints\":[0,1,2]}]}";
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_gltf(json, sizeof json - 1, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 3);
    size_t repaired = 0;
    for (size_t j = 0; j < out.skeleton.joint_count; ++j) {
        const char *name = out.skeleton.joints[j].name;
        assert_true(ossa_utf8_valid(name));
        if (!strcmp(name, "H" FFFD "ps") || !strcmp(name, "Head" FFFD)) ++repaired;
        if (!strncmp(name, "Spine", 5)) assert_string_equal(name, "Spine\x01\n"); /* valid: kept */
    }
    assert_int_equal(repaired, 2);
    assert_non_null(out.metadata);
    const char *warning = strstr(out.metadata, "warning=2 joint names were not valid UTF-8");
    if (!warning) fail_msg("no warning about the repaired names in:\n%s", out.metadata);
    assert_true(ossa_utf8_valid(out.metadata));
    ossa_import_output_destroy(&out);
}

/* The shared end of every import (ossa__import_end) repairs each kind of name and the
 * metadata, with one warning per kind naming how many and the first. */
static void test_import_end_repairs_every_kind(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_skeleton_create(&out.skeleton, 3, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_set_name(&out.skeleton, 0, "root"), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_set_name(&out.skeleton, 1, "\xC0\xAF"), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_set_name(&out.skeleton, 2, "ok\xED\xA0\x80"), OSSA_OK);
    ossa_raw_animation *clip = NULL;
    assert_int_equal(ossa_import_output_add_animation(&out, 3, &clip), OSSA_OK);
    assert_int_equal(ossa_raw_animation_set_name(clip, "Gr\xFC\xDF"
                                                       "e"),
                     OSSA_OK);
    ossa_raw_track *track = NULL;
    assert_int_equal(ossa_import_output_add_track(&out, OSSA_TRACK_FLOAT, 1, &track), OSSA_OK);
    assert_int_equal(ossa_raw_track_set_name(track, "blink\xF4\x90\x80\x80"), OSSA_OK);
    assert_int_equal(ossa_import_output_add_event(&out, 0.5f, "step\xE2\x82"), OSSA_OK);
    assert_int_equal(ossa_import_output_add_metadata(&out, "take", "caf\xE9"), OSSA_OK);
    assert_int_equal(ossa__import_end(&out, OSSA_OK, &diag), OSSA_OK);
    assert_string_equal(out.skeleton.joints[0].name, "root");
    assert_string_equal(out.skeleton.joints[1].name, FFFD FFFD);
    assert_string_equal(out.skeleton.joints[2].name, "ok" FFFD FFFD FFFD);
    assert_string_equal(out.animations[0].name, "Gr" FFFD FFFD "e");
    assert_string_equal(out.tracks[0].name, "blink" FFFD FFFD FFFD FFFD);
    assert_string_equal(out.events[0].name, "step" FFFD);
    char value[64];
    assert_true(ossa_import_output_metadata(&out, "take", value, sizeof value));
    assert_string_equal(value, "caf" FFFD);
    static const char *const warnings[] = {
        "warning=2 joint names were not valid UTF-8: each ill-formed byte sequence is now U+FFFD (the first, joint 1: "
        "\"" FFFD FFFD "\")\n",
        "warning=1 clip name was not valid UTF-8: each ill-formed byte sequence is now U+FFFD (the first, clip 0: "
        "\"Gr" FFFD FFFD "e\")\n",
        "warning=1 track name was not valid UTF-8",
        "warning=1 event name was not valid UTF-8",
    };
    for (size_t i = 0; i < sizeof warnings / sizeof *warnings; ++i)
        if (!strstr(out.metadata, warnings[i])) fail_msg("metadata lacks \"%s\":\n%s", warnings[i], out.metadata);
    ossa_import_output_destroy(&out);

    /* Valid names: no warning, nothing changed. */
    assert_int_equal(ossa_raw_skeleton_create(&out.skeleton, 1, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_set_name(&out.skeleton, 0, "\xF0\x9F\x98\x80"), OSSA_OK);
    assert_int_equal(ossa__import_end(&out, OSSA_OK, &diag), OSSA_OK);
    assert_string_equal(out.skeleton.joints[0].name, "\xF0\x9F\x98\x80");
    assert_null(out.metadata);
    ossa_import_output_destroy(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tricky_sequences),
        cmocka_unit_test(test_short_output),
        cmocka_unit_test(test_against_a_reference_decoder),
        cmocka_unit_test(test_import_repairs_names),
        cmocka_unit_test(test_import_end_repairs_every_kind),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
