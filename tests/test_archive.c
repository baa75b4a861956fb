/* .ossa archive: write/read round trip, truncation and bit flips. */
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/offline/archive_writer.h"
#include "ossa/offline/builders.h"
#include "test_util.h"

typedef struct fixture {
    ossa_blob skel_blob, anim_blob, file;
} fixture;

static void build(fixture *f)
{
    memset(f, 0, sizeof *f);
    ossa_raw_skeleton rs;
    assert_int_equal(ossa_raw_skeleton_create(&rs, 5, NULL), OSSA_OK);
    for (int i = 1; i < 5; ++i) rs.joints[i].parent = i - 1;
    assert_int_equal(ossa_raw_skeleton_set_name(&rs, 4, "tip"), OSSA_OK);
    assert_int_equal(ossa_skeleton_build(&rs, NULL, &f->skel_blob, NULL), OSSA_OK);
    ossa_raw_skeleton_destroy(&rs);
    ossa_raw_animation ra;
    assert_int_equal(ossa_raw_animation_create(&ra, 5, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_set_name(&ra, "wave"), OSSA_OK);
    ra.duration = 2.f;
    for (size_t t = 0; t < 5; ++t) {
        assert_int_equal(ossa_raw_joint_track_resize(&ra, t, 3, 2, 0), OSSA_OK);
        for (int k = 0; k < 3; ++k)
            ra.tracks[t].translations[k] = (ossa_raw_float3_key){(float)k, {(float)t, (float)k, .5f}};
        ra.tracks[t].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        ra.tracks[t].rotations[1] = (ossa_raw_quat_key){1.5f, {0.f, .6f, 0.f, .8f}};
    }
    assert_int_equal(ossa_animation_build(&ra, NULL, &f->anim_blob, NULL), OSSA_OK);
    ossa_raw_animation_destroy(&ra);
    static const char meta[] = "source_units=m\n";
    const ossa_archive_entry entries[] = {
        {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, f->skel_blob.data, f->skel_blob.size},
        {OSSA_TAG_META, 1, meta, sizeof meta - 1},
        {OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, f->anim_blob.data, f->anim_blob.size},
    };
    assert_int_equal(ossa_archive_write(entries, 3, NULL, &f->file, NULL), OSSA_OK);
}

static void teardown(fixture *f)
{
    ossa_blob_destroy(&f->skel_blob), ossa_blob_destroy(&f->anim_blob), ossa_blob_destroy(&f->file);
}

static void test_round_trip_bit_exact(void **state)
{
    (void)state;
    fixture f;
    build(&f);
    ossa_archive ar;
    assert_int_equal(ossa_archive_init(&ar, f.file.data, f.file.size), OSSA_OK);
    assert_int_equal(ar.chunk_count, 3);
    assert_int_equal(ossa_archive_count(&ar, OSSA_TAG_ANIMATION), 1);
    ossa_archive_chunk c;
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_SKELETON, 0, &c), OSSA_OK);
    assert_int_equal(c.size, f.skel_blob.size);
    assert_memory_equal(c.data, f.skel_blob.data, c.size);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_ANIMATION, 0, &c), OSSA_OK);
    assert_int_equal(c.size, f.anim_blob.size);
    assert_memory_equal(c.data, f.anim_blob.data, c.size);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_META, 0, &c), OSSA_OK);
    assert_memory_equal(c.data, "source_units=m\n", c.size);
    assert_int_equal(ossa_archive_find(&ar, OSSA_TAG_ANIMATION, 1, &c), OSSA_ERROR_NOT_FOUND);
    ossa_skeleton skel;
    ossa_animation anim;
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_string_equal(ossa_skeleton_joint_name(&skel, 4), "tip");
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
    assert_string_equal(anim.name, "wave");
    assert_float_equal(anim.duration, 2.f, 0.f);
    /* Writing the loaded chunks again gives the same bytes. */
    ossa_archive_entry again[3];
    for (size_t i = 0; i < 3; ++i) {
        assert_int_equal(ossa_archive_chunk_at(&ar, i, &c), OSSA_OK);
        again[i] = (ossa_archive_entry){c.tag, c.version, c.data, c.size};
    }
    ossa_blob copy = {0};
    assert_int_equal(ossa_archive_write(again, 3, NULL, &copy, NULL), OSSA_OK);
    assert_int_equal(copy.size, f.file.size);
    assert_memory_equal(copy.data, f.file.data, copy.size);
    ossa_blob_destroy(&copy);
    teardown(&f);
}

static void test_known_crc(void **state)
{
    (void)state;
    assert_int_equal(ossa_crc32(0, "123456789", 9), 0xCBF43926u); /* the standard check value */
    assert_int_equal(ossa_crc32(ossa_crc32(0, "1234", 4), "56789", 5), 0xCBF43926u);
}

/* Opens the archive and every view in it; OSSA_OK only if all succeed. */
static ossa_result load_all(const void *data, size_t size)
{
    ossa_archive ar;
    ossa_result r = ossa_archive_init(&ar, data, size);
    if (r != OSSA_OK) return r;
    ossa_skeleton skel;
    ossa_animation anim;
    if ((r = ossa_archive_skeleton(&ar, &skel)) != OSSA_OK) return r;
    return ossa_archive_animation(&ar, 0, &anim);
}

static void test_truncated_and_flipped_rejected(void **state)
{
    (void)state;
    fixture f;
    build(&f);
    unsigned char *copy = aligned_alloc(16, f.file.size);
    for (size_t n = 0; n < f.file.size; ++n) {
        memcpy(copy, f.file.data, n);
        const ossa_result r = load_all(copy, n);
        if (r == OSSA_OK) fail_msg("truncated to %zu of %zu bytes but loaded", n, f.file.size);
    }
    /* Every single-bit flip anywhere in the file is rejected. */
    for (size_t byte = 0; byte < f.file.size; ++byte) {
        for (int bit = 0; bit < 8; ++bit) {
            memcpy(copy, f.file.data, f.file.size);
            copy[byte] ^= (unsigned char)(1u << bit);
            const ossa_result r = load_all(copy, f.file.size);
            /* Flips in the zero padding between chunks change no data and no checksum. */
            if (r == OSSA_OK) {
                ossa_archive ar;
                assert_int_equal(ossa_archive_init(&ar, f.file.data, f.file.size), OSSA_OK);
                bool in_chunk = byte < OSSA_ARCHIVE_HEADER_SIZE + 3 * OSSA_ARCHIVE_CHUNK_ENTRY_SIZE;
                for (size_t i = 0; i < 3; ++i) {
                    ossa_archive_chunk c;
                    ossa_archive_chunk_at(&ar, i, &c);
                    const size_t at = (size_t)((const unsigned char *)c.data - (const unsigned char *)f.file.data);
                    if (byte >= at && byte < at + c.size) in_chunk = true;
                }
                if (in_chunk) fail_msg("bit %d of byte %zu flipped but the archive loaded", bit, byte);
            }
        }
    }
    memcpy(copy, f.file.data, f.file.size);
    copy[0] = 'X';
    assert_int_equal(load_all(copy, f.file.size), OSSA_ERROR_BAD_MAGIC);
    memcpy(copy, f.file.data, f.file.size);
    copy[4] = 2;
    assert_int_equal(load_all(copy, f.file.size), OSSA_ERROR_UNSUPPORTED_VERSION);
    memcpy(copy, f.file.data, f.file.size);
    copy[8] = 0xff, copy[9] = 0xff; /* chunk count beyond the file */
    assert_int_equal(load_all(copy, f.file.size), OSSA_ERROR_TRUNCATED);
    assert_int_equal(load_all(NULL, 4), OSSA_ERROR_NULL_ARGUMENT);
    free(copy);
    teardown(&f);
}

/* Little-endian fields of the archive, written here independently of runtime/blob.h. */
static uint32_t get_u32(const unsigned char *p)
{
    return p[0] | p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; ++i) p[i] = (unsigned char)(v >> (8 * i));
}
static uint64_t get_u64(const unsigned char *p) { return get_u32(p) | (uint64_t)get_u32(p + 4) << 32; }
static void put_u64(unsigned char *p, uint64_t v) { put_u32(p, (uint32_t)v), put_u32(p + 4, (uint32_t)(v >> 32)); }
static unsigned char *entry_at(unsigned char *archive, size_t i) { return archive + 16 + 32 * i; }

/* Recomputes every payload CRC of the table as it now stands (payloads inside the file) and
 * the table CRC, as a forger would: only checks beyond the checksums can refuse the result. */
static void recompute_crcs(unsigned char *archive, size_t size)
{
    const uint32_t count = get_u32(archive + 8);
    for (uint32_t i = 0; i < count && 16 + 32 * (size_t)(i + 1) <= size; ++i) {
        unsigned char *e = entry_at(archive, i);
        const uint64_t offset = get_u64(e + 8), bytes = get_u64(e + 16);
        if (offset <= size && bytes <= size - offset) put_u32(e + 24, ossa_crc32(0, archive + offset, (size_t)bytes));
    }
    put_u32(archive + 12, ossa__archive_table_crc(archive, count));
}

static ossa_result init_only(const void *data, size_t size)
{
    ossa_archive ar;
    return ossa_archive_init(&ar, data, size);
}

/* Mutants of a real archive with their CRCs recomputed: a changed chunk tag, the META chunk's
 * version and size, a smaller chunk_count, bytes after the end. Each used to load. */
static void test_rewritten_table_rejected(void **state)
{
    (void)state;
    fixture f;
    build(&f);
    const size_t size = f.file.size;
    unsigned char *copy = aligned_alloc(16, size + 16);
    /* the fixture: SKEL, META, ANIM; the CRC recomputation alone changes nothing */
    memcpy(copy, f.file.data, size);
    recompute_crcs(copy, size);
    assert_memory_equal(copy, f.file.data, size);
    assert_int_equal(init_only(copy, size), OSSA_OK);
    unsigned char *meta = entry_at(copy, 1);
    assert_int_equal(get_u32(meta), OSSA_TAG_META);

    /* tags: an unknown one; a binary chunk relabelled META (not text) */
    const uint32_t tags[4] = {OSSA_TAG('S', 'K', 'E', 'X'), OSSA_TAG('a', 'N', 'I', 'M'), 0, OSSA_TAG_META};
    for (size_t i = 0; i < 3; ++i) {
        for (int t = 0; t < 4; ++t) {
            memcpy(copy, f.file.data, size);
            if (get_u32(entry_at(copy, i)) == tags[t]) continue;
            put_u32(entry_at(copy, i), tags[t]);
            recompute_crcs(copy, size);
            /* ANIM (chunk version 2) as META is a META version this build does not read */
            const bool bad_meta_version = tags[t] == OSSA_TAG_META && get_u32(entry_at(copy, i) + 4) != 1;
            const ossa_result want = bad_meta_version ? OSSA_ERROR_UNSUPPORTED_VERSION : OSSA_ERROR_CORRUPT;
            const ossa_result got = init_only(copy, size);
            if (got != want) fail_msg("chunk %zu retagged %08x: %s", i, tags[t], ossa_result_name(got));
        }
    }
    /* a known tag on another blob: refused when its view is made */
    memcpy(copy, f.file.data, size);
    put_u32(entry_at(copy, 2), OSSA_TAG_TRACK);
    recompute_crcs(copy, size);
    ossa_archive ar;
    assert_int_equal(ossa_archive_init(&ar, copy, size), OSSA_OK);
    ossa_track track;
    assert_int_equal(ossa_archive_track(&ar, 0, &track), OSSA_ERROR_UNSUPPORTED_VERSION);
    ossa_animation anim;
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_ERROR_NOT_FOUND);

    /* META's version */
    const uint32_t versions[3] = {0, 2, 0xffffffffu};
    for (int v = 0; v < 3; ++v) {
        memcpy(copy, f.file.data, size);
        put_u32(meta + 4, versions[v]);
        recompute_crcs(copy, size);
        assert_int_equal(init_only(copy, size), OSSA_ERROR_UNSUPPORTED_VERSION);
    }
    /* META's size, every change from empty to past the next chunk (15 bytes of text, padded
     * to 16, then ANIM): cut text, text grown into the padding, or overlap */
    const uint64_t meta_size = get_u64(meta + 16);
    assert_int_equal(meta_size, 15);
    for (uint64_t n = 0; n <= meta_size + 20; ++n) {
        if (n == meta_size) continue;
        memcpy(copy, f.file.data, size);
        put_u64(meta + 16, n);
        recompute_crcs(copy, size);
        const ossa_result r = init_only(copy, size);
        if (r != OSSA_ERROR_CORRUPT) fail_msg("META size %llu: %s", (unsigned long long)n, ossa_result_name(r));
    }
    /* chunk_count smaller (the table CRC then covers fewer entries) */
    for (uint32_t count = 0; count < 3; ++count) {
        memcpy(copy, f.file.data, size);
        put_u32(copy + 8, count);
        recompute_crcs(copy, size);
        assert_int_equal(init_only(copy, size), OSSA_ERROR_CORRUPT);
    }
    /* bytes after the end, zero or not, and a last payload's padding cut */
    memcpy(copy, f.file.data, size);
    memset(copy + size, 0, 16);
    assert_int_equal(init_only(copy, size + 16), OSSA_ERROR_CORRUPT);
    assert_int_equal(init_only(copy, size + 1), OSSA_ERROR_CORRUPT);
    const uint64_t last_end = get_u64(entry_at(copy, 2) + 8) + get_u64(entry_at(copy, 2) + 16);
    if (last_end < size) assert_int_equal(init_only(copy, (size_t)last_end), OSSA_ERROR_TRUNCATED);
    /* non-zero padding between payloads (META's 16th byte) */
    memcpy(copy, f.file.data, size);
    copy[get_u64(meta + 8) + 15] = '\n';
    recompute_crcs(copy, size);
    assert_int_equal(init_only(copy, size), OSSA_ERROR_CORRUPT);
    free(copy);
    teardown(&f);
}

/* ossa_archive_unit_scale reads META's unit_scale line as a number, as strtof reads it in
 * the C locale, and falls back to 1 when there is no META, no line or no number > 0. */
static void test_unit_scale(void **state)
{
    (void)state;
    static const struct {
        const char *meta; /* NULL: no META chunk */
        float expected;   /* 0: strtof of `text` */
        const char *text;
    } cases[] = {
        {"input=a.bvh\nunit_scale=1\nimport_unit_scale=0.05644\n", 1.f, NULL},
        {"unit_scale=0.05644\n", 0.f, "0.05644"},
        {"source_units=cm\nunit_scale=0.01\n", 0.f, "0.01"},
        {"unit_scale=2.5e-2\n", 0.f, "2.5e-2"},
        {"unit_scale=1E3\n", 0.f, "1E3"},
        {"unit_scale=+.5\n", 0.f, "+.5"},
        {"unit_scale=0.0000012345678901234567891\n", 0.f, "0.0000012345678901234567891"},
        {"unit_scale=12345678901234567890123\n", 0.f, "12345678901234567890123"},
        {"unit_scale_in_root=true\nunit_scale=0.3048\n", 0.f, "0.3048"}, /* a longer key is not it */
        {"unit_scale=0,05\n", 1.f, NULL},                                /* a locale's comma: not a number */
        {"unit_scale=-0.5\n", 1.f, NULL},
        {"unit_scale=0\n", 1.f, NULL},
        {"unit_scale=1e39\n", 1.f, NULL}, /* beyond float */
        {"unit_scale=nan\n", 1.f, NULL},
        {"unit_scale=\n", 1.f, NULL},
        {"unit_scale=1e\n", 1.f, NULL},
        {"unit_scale=.\n", 1.f, NULL},
        {"source_units=m\n", 1.f, NULL},
        {NULL, 1.f, NULL},
    };
    fixture f;
    build(&f);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        ossa_archive_entry entries[2] = {
            {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, f.skel_blob.data, f.skel_blob.size}};
        size_t count = 1;
        if (cases[i].meta)
            entries[count++] = (ossa_archive_entry){OSSA_TAG_META, 1, cases[i].meta, strlen(cases[i].meta)};
        ossa_blob file = {0};
        assert_int_equal(ossa_archive_write(entries, count, NULL, &file, NULL), OSSA_OK);
        ossa_archive ar;
        assert_int_equal(ossa_archive_init(&ar, file.data, file.size), OSSA_OK);
        const float expected = cases[i].text ? strtof(cases[i].text, NULL) : cases[i].expected;
        const float got = ossa_archive_unit_scale(&ar);
        if (got != expected) fail_msg("META \"%s\": %.9g, expected %.9g", cases[i].meta, (double)got, (double)expected);
        ossa_blob_destroy(&file);
    }
    assert_true(ossa_archive_unit_scale(NULL) == 1.f);
    teardown(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_bit_exact),
        cmocka_unit_test(test_known_crc),
        cmocka_unit_test(test_truncated_and_flipped_rejected),
        cmocka_unit_test(test_rewritten_table_rejected),
        cmocka_unit_test(test_unit_scale),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
