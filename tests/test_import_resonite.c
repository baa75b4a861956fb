/* Resonite AnimJ / AnimX import and AnimX export.
 * Fixtures tests/data/animj_seed_*.animj are transcribed from the Resonite wiki AnimJ page
 * (the seed document): its typical-structure, float3, Raw, Discrete, Curve ("Universe
 * Timing") and Bezier-keyframe examples and its Value Examples table (one Discrete track per
 * row, True/False as the wiki writes them). AnimX inputs are built by resonite_test_bytes.c
 * from the layout tables, independently of the writer under test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_resonite.h"
#include "resonite_test_bytes.h"
#include "test_util.h"

#define HERMITE(p0, m0, p1, m1, s)                                                                                     \
    ((2 * (s) * (s) * (s)-3 * (s) * (s) + 1) * (p0) + ((s) * (s) * (s)-2 * (s) * (s) + (s)) * (m0) +                   \
     (-2 * (s) * (s) * (s) + 3 * (s) * (s)) * (p1) + ((s) * (s) * (s) - (s) * (s)) * (m1))
#define BEZIER(a, b, c, d, s)                                                                                          \
    ((1 - (s)) * (1 - (s)) * (1 - (s)) * (a) + 3 * (1 - (s)) * (1 - (s)) * (s) * (b) +                                 \
     3 * (1 - (s)) * (s) * (s) * (c) + (s) * (s) * (s) * (d))

TB_MAYBE_UNUSED static ossa_result import_text(const char *text, const ossa_resonite_desc *desc,
                                               ossa_import_output *out, ossa_diag *diag)
{
    ossa_diag_clear(diag);
    return ossa_import_animj(text, strlen(text), desc, out, diag);
}

static ossa_result import_bytes(const test_bytes *b, const ossa_resonite_desc *desc, ossa_import_output *out,
                                ossa_diag *diag)
{
    ossa_diag_clear(diag);
    return ossa_import_animx(b->d, b->n, desc, out, diag);
}

static void *fixture(const char *name, size_t *size)
{
    char path[1024];
    const char *root = getenv("OSSA_TEST_DATA");
    snprintf(path, sizeof path, "%s/%s", root ? root : "tests/data", name);
    void *data = ossa_test_read_file(path, size);
    if (!data) print_message("cannot read %s\n", path);
    assert_non_null(data);
    return data;
}

TB_MAYBE_UNUSED static void import_fixture(const char *name, ossa_import_output *out)
{
    size_t size;
    void *data = fixture(name, &size);
    ossa_diag diag;
    ossa_diag_clear(&diag);
    ossa_result r = ossa_import_animj(data, size, NULL, out, &diag);
    if (r != OSSA_OK) print_message("%s: %s\n", name, diag.message);
    assert_int_equal(r, OSSA_OK);
    free(data);
}

static const ossa_raw_track *find(const ossa_import_output *o, const char *name)
{
    for (size_t i = 0; i < o->track_count; ++i)
        if (!strcmp(o->tracks[i].name, name)) return &o->tracks[i];
    print_message("no track %s\n", name);
    fail();
    return NULL;
}

static double eval(const ossa_raw_track *t, double ratio, int c)
{
    float v[4];
    ossa_raw_track_evaluate(t, (float)ratio, v);
    return (double)v[c];
}

TB_MAYBE_UNUSED static double meta(const ossa_import_output *o, const char *key)
{
    char text[128];
    assert_true(ossa_import_output_metadata(o, key, text, sizeof text));
    return strtod(text, NULL);
}

static void assert_meta(const ossa_import_output *o, const char *key, const char *value)
{
    char text[128];
    assert_true(ossa_import_output_metadata(o, key, text, sizeof text));
    assert_string_equal(text, value);
}

TB_MAYBE_UNUSED static void assert_key(const ossa_raw_track *t, size_t k, double ratio, ossa_interp interp, double v0)
{
    assert_true(k < t->key_count);
    assert_float_equal(t->keys[k].ratio, ratio, 1e-6);
    assert_int_equal(t->keys[k].interpolation, interp);
    assert_float_equal(t->keys[k].value[0], v0, (1e-5 * fmax(1.0, fabs(v0))));
}

/* Same tracks, keys, events, skeleton and animations, bit for bit. */
static void assert_same_output(const ossa_import_output *a, const ossa_import_output *b)
{
    assert_int_equal(a->track_count, b->track_count);
    for (size_t i = 0; i < a->track_count; ++i) {
        assert_string_equal(a->tracks[i].name, b->tracks[i].name);
        assert_int_equal(a->tracks[i].type, b->tracks[i].type);
        assert_int_equal(a->tracks[i].key_count, b->tracks[i].key_count);
        assert_memory_equal(a->tracks[i].keys, b->tracks[i].keys, a->tracks[i].key_count * sizeof *a->tracks[i].keys);
    }
    assert_int_equal(a->event_count, b->event_count);
    for (size_t i = 0; i < a->event_count; ++i) {
        assert_string_equal(a->events[i].name, b->events[i].name);
        assert_true(a->events[i].time == b->events[i].time);
    }
    assert_int_equal(a->skeleton.joint_count, b->skeleton.joint_count);
    for (size_t j = 0; j < a->skeleton.joint_count; ++j)
        assert_string_equal(a->skeleton.joints[j].name, b->skeleton.joints[j].name);
    assert_int_equal(a->animation_count, b->animation_count);
    for (size_t n = 0; n < a->animation_count; ++n)
        for (size_t j = 0; j < a->animations[n].track_count; ++j) {
            const ossa_raw_joint_track *x = &a->animations[n].tracks[j], *y = &b->animations[n].tracks[j];
            assert_int_equal(x->translation_count, y->translation_count);
            assert_int_equal(x->rotation_count, y->rotation_count);
            assert_memory_equal(x->translations, y->translations, x->translation_count * sizeof *x->translations);
            assert_memory_equal(x->rotations, y->rotations, x->rotation_count * sizeof *x->rotations);
        }
}

#ifdef OSSA_HAVE_CJSON
static void test_wiki_example(void **state)
{
    (void)state;
    size_t size;
    void *data = ossa_test_read_or_skip(ossa_test_shared_path("animj/wiki_example.animj"),
                                        "DATA/animj/wiki_example.animj", &size);
    ossa_import_output out = {0}, typical = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_import_animj(data, size, NULL, &out, &diag), OSSA_OK);
    /* One Discrete float track, keys (0, 1), (1, 42), (5, 20); globalDuration 0 -> 5 s. */
    assert_int_equal(out.track_count, 1);
    const ossa_raw_track *t = find(&out, "Test/Test");
    assert_int_equal(t->type, OSSA_TRACK_FLOAT);
    assert_int_equal(t->key_count, 3);
    assert_key(t, 0, 0.0, OSSA_INTERP_STEP, 1.0);
    assert_key(t, 1, 0.2, OSSA_INTERP_STEP, 42.0);
    assert_key(t, 2, 1.0, OSSA_INTERP_STEP, 20.0);
    assert_float_equal(t->duration, 5.f, 0.f);
    assert_float_equal(eval(t, 0.9, 0), 42.f, 0.f);
    assert_int_equal(ossa_raw_track_validate(t, NULL), OSSA_OK);
    assert_meta(&out, "format", "animj");
    assert_meta(&out, "name", "My Animation");
    assert_meta(&out, "source_units", "metres");
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_int_equal(out.animation_count, 0);
    import_fixture("animj_seed_typical.animj", &typical);
    assert_same_output(&out, &typical);
    ossa_import_output_destroy(&typical);
    ossa_import_output_destroy(&out);
    free(data);
}

static void test_seed_examples(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    import_fixture("animj_seed_float3.animj", &out);
    const ossa_raw_track *t = find(&out, "TestData/TestData");
    assert_int_equal(t->type, OSSA_TRACK_FLOAT3);
    assert_int_equal(t->key_count, 1);
    assert_float_equal(t->keys[0].value[1], 2.f, 0.f);
    assert_float_equal(t->keys[0].value[2], 3.f, 0.f);
    ossa_import_output_destroy(&out);

    /* Raw without interval: 1/60 s assumed (and said), so 4 samples span 0.05 s, linear. */
    import_fixture("animj_seed_raw.animj", &out);
    t = find(&out, "Test/Test");
    assert_int_equal(t->key_count, 4);
    assert_key(t, 1, 1.0 / 3.0, OSSA_INTERP_LINEAR, 0.7);
    assert_key(t, 3, 1.0, OSSA_INTERP_LINEAR, 0.9);
    assert_float_equal(eval(t, 1.0 / 6.0, 0), 0.6f, 1e-6);
    assert_float_equal(meta(&out, "duration"), 0.05, 1e-7);
    assert_true(ossa_import_output_metadata(&out, "warning", NULL, 0));
    ossa_import_output_destroy(&out);

    /* Discrete with "keyframes" before "node": any property order. */
    import_fixture("animj_seed_discrete.animj", &out);
    t = find(&out, "Test/Test");
    assert_key(t, 0, 0.0, OSSA_INTERP_STEP, 2.0);
    assert_key(t, 1, 0.2, OSSA_INTERP_STEP, 8.0);
    assert_key(t, 2, 1.0, OSSA_INTERP_STEP, 20.0);
    ossa_import_output_destroy(&out);

    import_fixture("animj_seed_universe.animj", &out);
    assert_float_equal(meta(&out, "duration"), 247.0, 0.0);
    t = find(&out, "Scale");
    assert_int_equal(t->key_count, 10);
    assert_key(t, 2, 97.0 / 247.0, OSSA_INTERP_LINEAR, -5.0);
    assert_float_equal(eval(t, (49.97 + 97.0) / 2.0 / 247.0, 0), -11.f, 1e-4);
    t = find(&out, "Phase");
    assert_int_equal(t->key_count, 4);
    assert_key(t, 1, 45.0 / 247.0, OSSA_INTERP_STEP, 1.0);
    assert_float_equal(eval(t, 46.0 / 247.0, 0), 1.f, 0.f);
    ossa_import_output_destroy(&out);

    /* The Bezier-section keyframe (Tangent, right slope 5) to a key at 11 (left slope 2). */
    import_fixture("animj_seed_tangent.animj", &out);
    t = find(&out, "Test/Test");
    assert_float_equal(eval(t, 10.5 / 11.0, 0), HERMITE(0.0, 5.0, 1.0, 2.0, 0.5), 1e-4);
    assert_float_equal(eval(t, 10.25 / 11.0, 0), HERMITE(0.0, 5.0, 1.0, 2.0, 0.25), 1e-4);
    assert_float_equal(eval(t, 0.5, 0), 0.f, 0.f); /* before the first key: it holds */
    ossa_import_output_destroy(&out);
}

static void test_seed_values(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    import_fixture("animj_seed_values.animj", &out);
    assert_int_equal(out.track_count, 33);
    static const struct {
        const char *name;
        ossa_track_type type;
        float v[4];
    } expect[] = {
        {"Values/bool", OSSA_TRACK_FLOAT, {1}},
        {"Values/bool2", OSSA_TRACK_FLOAT2, {1, 0}},
        {"Values/bool4", OSSA_TRACK_FLOAT4, {1, 0, 1, 0}},
        {"Values/ulong", OSSA_TRACK_FLOAT, {2349587120938.f}},
        {"Values/sbyte", OSSA_TRACK_FLOAT, {-3}},
        {"Values/int3", OSSA_TRACK_FLOAT3, {12, -4, 203}},
        {"Values/uint3", OSSA_TRACK_FLOAT3, {9, 4, 2147483699.f}},
        {"Values/long", OSSA_TRACK_FLOAT, {9876543210.f}},
        {"Values/float4", OSSA_TRACK_FLOAT4, {4.3f, 1.34f, 2.333e9f, -5.000000001f}},
        {"Values/floatQ", OSSA_TRACK_QUAT, {1.889846e-07f, -0.5664063f, -1.762067e-07f, 0.8241262f}},
        {"Values/double3", OSSA_TRACK_FLOAT3, {4.3f, 1.34f, 2.333e9f}},
        {"Values/doubleQ", OSSA_TRACK_QUAT, {1.889846e-07f, -0.5664063f, -1.762067e-07f, 0.8241262f}},
        {"Values/color", OSSA_TRACK_FLOAT4, {0.2f, 0, 1, 0.85f}},
        {"Values/color32", OSSA_TRACK_FLOAT4, {51, 0, 1, 217}},
    };
    for (size_t i = 0; i < sizeof expect / sizeof *expect; ++i) {
        const ossa_raw_track *t = find(&out, expect[i].name);
        assert_int_equal(t->type, expect[i].type);
        assert_int_equal(t->key_count, 1);
        assert_memory_equal(t->keys[0].value, expect[i].v, ossa_track_type_width(t->type) * sizeof(float));
        assert_int_equal(ossa_raw_track_validate(t, NULL), OSSA_OK);
    }
    assert_int_equal(out.event_count, 1);
    assert_string_equal(out.events[0].name, "Values/string/Hello World!");
    ossa_import_output_destroy(&out);
}
#endif

/* Every integer type's exact extremes, as text and as bytes: accepted, and one past each
 * refused. 2^64 - 1 and 2^63 - 1 have no double; AnimJ reads a plain integer from its text
 * (cJSON keeps only the double) and AnimX from its bytes, so the range check is exact. */
static const struct {
    unsigned id;
    const char *name, *min, *max, *below, *above;
    bool negative_min;
    uint64_t min_magnitude, max_value;
} int_types[] = {
    {4, "byte", "0", "255", "-1", "256", false, 0, 255},
    {5, "ushort", "0", "65535", "-1", "65536", false, 0, 65535},
    {6, "uint", "0", "4294967295", "-1", "4294967296", false, 0, 4294967295u},
    {7, "ulong", "0", "18446744073709551615", "-1", "18446744073709551616", false, 0, UINT64_MAX},
    {8, "sbyte", "-128", "127", "-129", "128", true, 128, 127},
    {9, "short", "-32768", "32767", "-32769", "32768", true, 32768, 32767},
    {10, "int", "-2147483648", "2147483647", "-2147483649", "2147483648", true, 2147483648u, 2147483647},
    {11, "long", "-9223372036854775808", "9223372036854775807", "-9223372036854775809", "9223372036854775808", true,
     (uint64_t)1 << 63, INT64_MAX},
};

#define INT_TRACK                                                                                                      \
    "{\"tracks\": [{\"trackType\": \"Discrete\", \"valueType\": \"%s\", \"data\": {\"node\": \"N\", \"keyframes\": "   \
    "[{\"time\": 0, \"value\": %s}, {\"time\": 1, \"value\": %s}]}}]}"

static void test_int_extremes(void **state)
{
    (void)state;
    const size_t types = sizeof int_types / sizeof *int_types;
    ossa_import_output out = {0};
    ossa_diag diag;
    /* AnimX: one Discrete track per type, keys (0, min) and (1, max) as raw bytes. */
    test_bytes *b = calloc(1, sizeof *b);
    assert_non_null(b);
    tb_header(b, 1, (unsigned)types, 1.f, "ints", 0);
    for (size_t i = 0; i < types; ++i) {
        const size_t n = tb_type_size(int_types[i].id);
        tb_u8(b, 1), tb_u8(b, int_types[i].id), tb_str(b, "N"), tb_str(b, int_types[i].name), tb_var(b, 2);
        const uint64_t min = int_types[i].negative_min ? (uint64_t)0 - int_types[i].min_magnitude : 0;
        tb_f32(b, 0.f), tb_le(b, min, n);
        tb_f32(b, 1.f), tb_le(b, int_types[i].max_value, n);
    }
    assert_int_equal(import_bytes(b, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.track_count, types);
    for (size_t i = 0; i < types; ++i) {
        const double min = int_types[i].negative_min ? -(double)int_types[i].min_magnitude : 0.0;
        assert_float_equal(out.tracks[i].keys[0].value[0], (float)min, 0.f);
        assert_float_equal(out.tracks[i].keys[1].value[0], (float)(double)int_types[i].max_value, 0.f);
    }
    ossa_import_output_destroy(&out);
    free(b);
#ifdef OSSA_HAVE_CJSON
    char text[512];
    for (size_t i = 0; i < types; ++i) {
        snprintf(text, sizeof text, INT_TRACK, int_types[i].name, int_types[i].min, int_types[i].max);
        assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_OK);
        const double min = int_types[i].negative_min ? -(double)int_types[i].min_magnitude : 0.0;
        assert_float_equal(out.tracks[0].keys[0].value[0], (float)min, 0.f);
        assert_float_equal(out.tracks[0].keys[1].value[0], (float)(double)int_types[i].max_value, 0.f);
        ossa_import_output_destroy(&out);
        /* One below the minimum, then one above the maximum: refused where the number is. */
        for (int side = 0; side < 2; ++side) {
            const char *past = side ? int_types[i].above : int_types[i].below;
            snprintf(text, sizeof text, INT_TRACK, int_types[i].name, side ? int_types[i].min : past,
                     side ? past : int_types[i].max);
            assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_ERROR_INVALID_KEY);
            assert_int_equal(diag.offset, (size_t)(strstr(text, side ? "}]}}]}" : "}, {") - strlen(past) - text));
            assert_non_null(strstr(diag.message, past));
            assert_non_null(strstr(diag.message, "out of the type's range"));
            assert_int_equal(out.track_count, 0);
        }
    }
    /* With an exponent a number is a double: 1e19 fits ulong but not long, and 2^64 - 1
     * written with an exponent is the double 2^64, one past ulong. */
    const char *doubles[][3] = {{"ulong", "1e19", "ok"},
                                {"long", "1e19", "range"},
                                {"ulong", "1.8446744073709551615e19", "range"},
                                {"long", "-9.223372036854775808e18", "ok"},
                                {"int", "2.5e0", "integer"}};
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; ++i) {
        snprintf(text, sizeof text,
                 "{\"tracks\": [{\"trackType\": \"Discrete\", \"valueType\": \"%s\", \"data\": {\"node\": \"N\", "
                 "\"keyframes\": [{\"time\": 0, \"value\": %s}]}}]}",
                 doubles[i][0], doubles[i][1]);
        const bool ok = !strcmp(doubles[i][2], "ok");
        assert_int_equal(import_text(text, NULL, &out, &diag), ok ? OSSA_OK : OSSA_ERROR_INVALID_KEY);
        if (!ok) assert_non_null(strstr(diag.message, doubles[i][2]));
        ossa_import_output_destroy(&out);
    }
#endif
}

/* Discrete tracks "N<id>/<type name>" with keys at 0 and 0.5 for each type id in [first, last],
 * in AnimX (into b) and, for non-matrix types, AnimJ (into json). Plus a Raw double track and
 * a Curve float3 track with CubicBezier tangents, so those bodies are compared too. */
static void build_types(test_bytes *b, char *json, size_t cap, unsigned first, unsigned last, bool matrices)
{
    unsigned count = 2;
    for (unsigned id = first; id <= last; ++id)
        count += matrices || (!(id >= 26 && id <= 28) && !(id >= 34 && id <= 36));
    b->n = 0;
    tb_header(b, 1, count, 1.f, "types", 0);
    snprintf(json, cap, "{\"name\": \"types\", \"globalDuration\": 1, \"tracks\": [");
    for (unsigned id = first; id <= last; ++id) {
        const bool matrix = (id >= 26 && id <= 28) || (id >= 34 && id <= 36);
        if (matrix && !matrices) continue;
        char node[16];
        snprintf(node, sizeof node, "N%u", id);
        tb_u8(b, 1), tb_u8(b, id), tb_str(b, node), tb_str(b, tb_type_name(id)), tb_var(b, 2);
        for (unsigned k = 0; k < 2; ++k) {
            tb_f32(b, 0.5f * (float)k);
            tb_value_bytes(b, id, k);
        }
        if (matrix) continue; /* no AnimJ form */
        size_t len = strlen(json);
        snprintf(json + len, cap - len,
                 "%s{\"valueType\": \"%s\", \"trackType\": \"Discrete\", \"data\": {\"node\": \"%s\", "
                 "\"property\": \"%s\", \"keyframes\": [",
                 id == first ? "" : ",", tb_type_name(id), node, tb_type_name(id));
        for (unsigned k = 0; k < 2; ++k) {
            len = strlen(json);
            snprintf(json + len, cap - len, "%s{\"value\": ", k ? "," : "");
            tb_value_json(json, cap, id, k);
            len = strlen(json);
            snprintf(json + len, cap - len, ", \"time\": %g}", 0.5 * k);
        }
        len = strlen(json);
        snprintf(json + len, cap - len, "]}}");
    }
    /* Raw double, interval 0.25: 1, 3, 2. */
    tb_u8(b, 0), tb_u8(b, 29), tb_str(b, "raw"), tb_str(b, "d"), tb_var(b, 3), tb_f32(b, 0.25f);
    tb_f64(b, 1.0), tb_f64(b, 3.0), tb_f64(b, 2.0);
    /* Curve float3, per-key interpolations CubicBezier then Linear, with tangents. */
    tb_u8(b, 2), tb_u8(b, 23), tb_str(b, "curve"), tb_str(b, "c"), tb_var(b, 2), tb_u8(b, 3);
    tb_u8(b, 3), tb_u8(b, 1);
    tb_f32(b, 0.f), tb_f32(b, 0.f), tb_f32(b, 1.f), tb_f32(b, 2.f);
    tb_f32(b, 1.f), tb_f32(b, 4.f), tb_f32(b, 5.f), tb_f32(b, 6.f);
    for (int k = 0; k < 2; ++k)
        for (int side = 0; side < 2; ++side) /* left, right */
            for (int c = 0; c < 3; ++c) tb_f32(b, (float)(side ? 10 + c : -10 - c) + (float)k);
    size_t len = strlen(json);
    snprintf(
        json + len, cap - len,
        ",{\"trackType\": \"Raw\", \"valueType\": \"double\", \"data\": {\"node\": \"raw\", "
        "\"property\": \"d\", \"interval\": 0.25, \"keyframes\": [1, 3, 2]}}"
        ",{\"trackType\": \"Curve\", \"valueType\": \"float3\", \"data\": {\"node\": \"curve\", \"property\": \"c\", "
        "\"keyframes\": [{\"time\": 0, \"value\": {\"x\": 0, \"y\": 1, \"z\": 2}, \"interpolation\": \"CubicBezier\", "
        "\"leftTangent\": {\"x\": -10, \"y\": -11, \"z\": -12}, \"rightTangent\": {\"x\": 10, \"y\": 11, \"z\": 12}}, "
        "{\"time\": 1, \"value\": {\"x\": 4, \"y\": 5, \"z\": 6}, \"interpolation\": \"Linear\", "
        "\"leftTangent\": {\"x\": -9, \"y\": -10, \"z\": -11}, \"rightTangent\": {\"x\": 11, \"y\": 12, \"z\": "
        "13}}]}}]}");
}

static void check_type_values(const ossa_import_output *out)
{
    for (unsigned id = 0; id < 40; ++id) {
        char name[64];
        const unsigned comps = tb_type_components(id), rows = comps == 9 ? 3 : comps == 16 ? 4 : 1;
        for (unsigned row = 0; row < rows; ++row) {
            if (tb_type_kind(id) == 's') break;
            if (rows > 1)
                snprintf(name, sizeof name, "N%u/%s.row%u", id, tb_type_name(id), row);
            else
                snprintf(name, sizeof name, "N%u/%s", id, tb_type_name(id));
            const ossa_raw_track *t = find(out, name);
            const unsigned width = rows > 1 ? rows : comps;
            assert_int_equal(ossa_track_type_width(t->type), width);
            assert_int_equal(t->key_count, 2);
            for (unsigned k = 0; k < 2; ++k) {
                assert_float_equal(t->keys[k].ratio, 0.5 * k, 0.0);
                for (unsigned c = 0; c < width; ++c)
                    assert_float_equal(t->keys[k].value[c], (float)tb_value(id, k, row * width + c), 0.0);
            }
        }
    }
    const ossa_raw_track *t = find(out, "raw/d");
    assert_float_equal(eval(t, 0.125, 0), 2.f, 1e-6); /* halfway between 1 and 3 */
    assert_int_equal(out->event_count, 2);
    assert_string_equal(out->events[1].name, "N39/string/s1");
    assert_float_equal(out->events[1].time, 0.5f, 0.f);
}

static test_bytes all_types;
static char all_json[1 << 16];

static void test_all_types(void **state)
{
    (void)state;
    ossa_import_output x = {0};
    ossa_diag diag;
    build_types(&all_types, all_json, sizeof all_json, 0, 39, true);
    assert_int_equal(import_bytes(&all_types, NULL, &x, &diag), OSSA_OK);
    check_type_values(&x);
    /* The CubicBezier segment (controls right_0 = 10, left_1 = -9 for x) at t = 0.5. */
    assert_float_equal(eval(find(&x, "curve/c"), 0.5, 0), BEZIER(0.0, 10.0, -9.0, 4.0, 0.5), 1e-4);
    ossa_import_output_destroy(&x);
#ifdef OSSA_HAVE_CJSON
    /* Every type AnimJ can express: AnimJ and AnimX give identical outputs. */
    ossa_import_output j = {0};
    build_types(&all_types, all_json, sizeof all_json, 0, 39, false);
    assert_int_equal(import_bytes(&all_types, NULL, &x, &diag), OSSA_OK);
    ossa_result r = import_text(all_json, NULL, &j, &diag);
    if (r != OSSA_OK) print_message("%s\n", diag.message);
    assert_int_equal(r, OSSA_OK);
    assert_same_output(&x, &j);
    ossa_import_output_destroy(&j);
    ossa_import_output_destroy(&x);
#endif
}

/* A literal-only LZ4 block (LZ4 block format: token, length bytes, literals). */
static void lz4_literals(test_bytes *b, const uint8_t *data, size_t n)
{
    tb_u8(b, (unsigned)((n >= 15 ? 15 : n) << 4));
    if (n >= 15) {
        size_t rest = n - 15;
        for (; rest >= 255; rest -= 255) tb_u8(b, 255);
        tb_u8(b, (unsigned)rest);
    }
    tb_raw(b, data, n);
}

static void lz4_chunk(test_bytes *file, bool compressed, size_t original, const test_bytes *data)
{
    tb_var(file, compressed ? 1 : 0);
    tb_var(file, original);
    if (compressed) tb_var(file, data->n);
    tb_raw(file, data->d, data->n);
}

static void test_encodings(void **state)
{
    (void)state;
    static test_bytes file, block, part;
    ossa_import_output ref = {0}, out = {0};
    ossa_diag diag;
    build_types(&all_types, all_json, sizeof all_json, 0, 39, true);
    assert_int_equal(import_bytes(&all_types, NULL, &ref, &diag), OSSA_OK);
    const size_t header = 6 + 4 + 1 + 4 + 1 + 5 + 1; /* magic, version, count, duration, "types", encoding */
    const uint8_t *payload = all_types.d + header;
    const size_t payload_size = all_types.n - header;
    for (int enc = 1; enc <= 2; ++enc) {
        ossa_blob blob = {0};
        ossa_diag_clear(&diag);
        ossa_result r = ossa_animx_recode(all_types.d, all_types.n, (ossa_animx_encoding)enc, 0, NULL, &blob, &diag);
        const bool have = enc == 1 ? TB_HAVE_LZ4 : TB_HAVE_LZMA;
        if (!have) {
            assert_int_equal(r, OSSA_ERROR_UNSUPPORTED_FORMAT);
            continue;
        }
        assert_int_equal(r, OSSA_OK);
        const uint8_t *p = (const uint8_t *)blob.data + header;
        assert_int_equal(p[-1], enc);
        if (enc == 2) { /* props lc 3 lp 0 pb 2, 2 MiB dictionary, unpacked size, packed size */
            assert_int_equal(p[0], (2 * 5 + 0) * 9 + 3);
            assert_int_equal(p[1] | p[2] << 8 | p[3] << 16 | (uint32_t)p[4] << 24, 2u << 20);
            uint64_t unpacked = 0, packed = 0;
            for (int i = 7; i >= 0; --i) unpacked = unpacked << 8 | p[5 + i], packed = packed << 8 | p[13 + i];
            assert_int_equal(unpacked, payload_size);
            assert_int_equal(packed, blob.size - header - 21);
        }
        ossa_diag_clear(&diag);
        assert_int_equal(ossa_import_animx(blob.data, blob.size, NULL, &out, &diag), OSSA_OK);
        assert_same_output(&ref, &out);
        assert_meta(&out, "animx_encoding", enc == 1 ? "lz4" : "lzma");
        ossa_import_output_destroy(&out);
        ossa_blob_destroy(&blob);
    }
    /* Hand-made lz4net chunk streams: one stored chunk; a literal-only block then a stored chunk. */
    for (int variant = 0; variant < 2; ++variant) {
        file.n = 0;
        tb_raw(&file, all_types.d, header - 1);
        tb_u8(&file, 1);
        part.n = 0;
        if (variant == 0) {
            tb_raw(&part, payload, payload_size);
            lz4_chunk(&file, false, payload_size, &part);
        } else {
            block.n = 0;
            lz4_literals(&block, payload, 300);
            lz4_chunk(&file, true, 300, &block);
            tb_raw(&part, payload + 300, payload_size - 300);
            lz4_chunk(&file, false, payload_size - 300, &part);
        }
        ossa_result r = import_bytes(&file, NULL, &out, &diag);
        if (!TB_HAVE_LZ4) {
            assert_int_equal(r, OSSA_ERROR_UNSUPPORTED_FORMAT);
            continue;
        }
        assert_int_equal(r, OSSA_OK);
        assert_same_output(&ref, &out);
        ossa_import_output_destroy(&out);
    }
    /* A block with an overlapping match: Raw float track of 16 ones; literals = track header
     * and the first value, match offset 4 length 52, then the last two values as literals. */
    file.n = 0;
    tb_header(&file, 1, 1, 0.f, "", 0);
    const size_t start = file.n;
    tb_u8(&file, 0), tb_u8(&file, 21), tb_str(&file, "n"), tb_str(&file, "p"), tb_var(&file, 16), tb_f32(&file, 0.1f);
    for (int i = 0; i < 16; ++i) tb_f32(&file, 1.f);
    ossa_import_output plain = {0};
    assert_int_equal(import_bytes(&file, NULL, &plain, &diag), OSSA_OK);
    const size_t lits = file.n - start - 60;
    block.n = 0;
    assert_true(lits >= 15 && lits < 15 + 255);
    tb_u8(&block, 15 << 4 | 15), tb_u8(&block, (unsigned)(lits - 15)); /* literal length 15 + extra */
    tb_raw(&block, file.d + start, lits);
    tb_u8(&block, 4), tb_u8(&block, 0), tb_u8(&block, 52 - 4 - 15);
    tb_u8(&block, 8 << 4);
    tb_raw(&block, file.d + file.n - 8, 8);
    const size_t original = file.n - start;
    file.n = start;
    file.d[start - 1] = 1;
    lz4_chunk(&file, true, original, &block);
    ossa_result r = import_bytes(&file, NULL, &out, &diag);
    if (TB_HAVE_LZ4) {
        assert_int_equal(r, OSSA_OK);
        assert_same_output(&plain, &out);
        assert_int_equal(out.tracks[0].key_count, 16);
    }
    ossa_import_output_destroy(&out);
    ossa_import_output_destroy(&plain);
    ossa_import_output_destroy(&ref);
}

/* Version 0 track headers: one byte, bit 0 = Curve (else Raw), value type = byte >> 1. */
static void test_version0(void **state)
{
    (void)state;
    static test_bytes b;
    tb_header(&b, 0, 2, 1.f, "v0", 0);
    tb_u8(&b, 21 << 1), tb_str(&b, "a"), tb_str(&b, "b"), tb_var(&b, 2), tb_f32(&b, 1.f), tb_f32(&b, 1.f),
        tb_f32(&b, 3.f);
    tb_u8(&b, 31 << 1 | 1), tb_str(&b, "c"), tb_str(&b, "d"), tb_var(&b, 2), tb_u8(&b, 0), tb_u8(&b, 1);
    tb_f32(&b, 0.f), tb_f64(&b, 1.0), tb_f64(&b, 2.0), tb_f64(&b, 3.0);
    tb_f32(&b, 1.f), tb_f64(&b, 3.0), tb_f64(&b, 2.0), tb_f64(&b, 1.0);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_bytes(&b, NULL, &out, &diag), OSSA_OK);
    assert_meta(&out, "animx_version", "0");
    const ossa_raw_track *raw = find(&out, "a/b");
    assert_int_equal(raw->type, OSSA_TRACK_FLOAT);
    assert_float_equal(eval(raw, 0.5, 0), 2.f, 1e-6);
    const ossa_raw_track *curve = find(&out, "c/d");
    assert_int_equal(curve->type, OSSA_TRACK_FLOAT3);
    assert_int_equal(curve->keys[0].interpolation, OSSA_INTERP_LINEAR);
    assert_float_equal(eval(curve, 0.25, 2), 2.5f, 1e-6);
    ossa_import_output_destroy(&out);
}

#ifdef OSSA_HAVE_CJSON
static const char *curves_json =
    "{\"globalDuration\": 4, \"tracks\": ["
    "{\"trackType\": \"Curve\", \"valueType\": \"float\", \"data\": {\"node\": \"e\", \"property\": \"v\", "
    "\"keyframes\": ["
    "{\"time\": 0, \"value\": 0, \"interpolation\": \"Hold\"},"
    "{\"time\": 1, \"value\": 2, \"interpolation\": \"Linear\"},"
    "{\"time\": 2, \"value\": 4, \"interpolation\": \"Tangent\", \"rightTangent\": 1},"
    "{\"time\": 3, \"value\": 1, \"interpolation\": \"CubicBezier\", \"leftTangent\": -2, \"rightTangent\": 5},"
    "{\"time\": 4, \"value\": 3, \"interpolation\": \"Linear\", \"leftTangent\": 0}]}},"
    "{\"trackType\": \"Curve\", \"valueType\": \"floatQ\", \"data\": {\"node\": \"q\", \"property\": \"r\", "
    "\"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 0, \"y\": 0, \"z\": 0, \"w\": 1}, \"interpolation\": \"Linear\"},"
    "{\"time\": 4, \"value\": {\"x\": 0, \"y\": 0, \"z\": 0.8660254037844386, \"w\": 0.5}, \"interpolation\": "
    "\"Linear\"}]}},"
    "{\"trackType\": \"Raw\", \"valueType\": \"float\", \"data\": {\"node\": \"raw\", \"interval\": 2, \"keyframes\": "
    "[0, 1, 4]}},"
    "{\"trackType\": \"Curve\", \"valueType\": \"float\", \"data\": {\"node\": \"clip\", \"keyframes\": ["
    "{\"time\": 5, \"value\": 50, \"interpolation\": \"Linear\"}, {\"time\": -1, \"value\": -10, \"interpolation\": "
    "\"Linear\"},"
    "{\"time\": 3, \"value\": 30, \"interpolation\": \"Linear\"}]}}]}";

/* Hand-derived curve value of track "e/v" at time t. */
static double curve_e(double t)
{
    if (t < 1.0) return 0.0;                                   /* Hold 0 */
    if (t < 2.0) return 2.0 + 2.0 * (t - 1.0);                 /* Linear 2 -> 4 */
    if (t < 3.0) return HERMITE(4.0, 1.0, 1.0, -2.0, t - 2.0); /* slopes right 1, left -2, dt 1 */
    return BEZIER(1.0, 5.0, 0.0, 3.0, t - 3.0);                /* controls right 5, left 0 */
}

static void test_interpolation(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    uint32_t seed = 99;
    /* 10 Hz: exactly 10 linear keys per 1 s cubic segment. */
    ossa_resonite_desc coarse = {.sample_rate = 10.f};
    assert_int_equal(import_text(curves_json, &coarse, &out, &diag), OSSA_OK);
    const ossa_raw_track *e = find(&out, "e/v");
    assert_float_equal(eval(e, 0.5 / 4, 0), 0.f, 0.f);
    assert_float_equal(eval(e, 1.5 / 4, 0), 3.f, 1e-6);
    assert_float_equal(eval(e, 2.3 / 4, 0), curve_e(2.3), 1e-5);
    assert_float_equal(eval(e, 3.5 / 4, 0), 2.375, 1e-5);
    /* Bound 6 max|P0 - 2P1 + P2| / (8 n^2): Bezier (1, 5, 0, 3) has 9 -> 0.0675 at n = 10. */
    const double bound = 6.0 * 9.0 / (8.0 * 100.0);
    assert_float_equal(meta(&out, "resample_error"), bound, 1e-9);
    double worst = 0.0;
    for (int i = 0; i < 2000; ++i) {
        const double t = ossa_test_randf(&seed, 2.f, 4.f);
        worst = fmax(worst, fabs(eval(e, t / 4, 0) - curve_e(t)));
    }
    assert_true(worst <= bound + 1e-5);
    assert_true(worst > bound / 4); /* the bound is not vacuous */
    /* The slerp over 4 s is sampled at 10 Hz too (40 slices of 3 degrees): at a quarter of
     * 120 degrees about z, 30 degrees. */
    const ossa_raw_track *q = find(&out, "q/r");
    assert_int_equal(q->key_count, 41);
    assert_float_equal(eval(q, 0.25, 2), sin(3.14159265358979323846 / 12), 1e-6);
    ossa_import_output_destroy(&out);

    /* The default 60 Hz: the bound is the Bezier's at n = 60, every value within it. */
    assert_int_equal(import_text(curves_json, NULL, &out, &diag), OSSA_OK);
    e = find(&out, "e/v");
    const double bound60 = 6.0 * 9.0 / (8.0 * 3600.0);
    assert_float_equal(meta(&out, "resample_error"), bound60, 1e-9);
    for (int i = 0; i < 2000; ++i) {
        const double t = ossa_test_randf(&seed, 0.f, 4.f);
        assert_float_equal(eval(e, t / 4, 0), curve_e(t), (bound60 + 2e-6));
    }
    /* Quaternion Linear is slerp: at a quarter of 120 degrees about z, 30 degrees. */
    q = find(&out, "q/r");
    assert_float_equal(eval(q, 0.25, 2), sin(3.14159265358979323846 / 12), 1e-6);
    assert_float_equal(eval(q, 0.25, 3), cos(3.14159265358979323846 / 12), 1e-6);
    /* Raw: samples every 2 s, linear. */
    const ossa_raw_track *raw = find(&out, "raw");
    assert_float_equal(eval(raw, 0.25, 0), 0.5f, 1e-6);
    assert_float_equal(eval(raw, 0.75, 0), 2.5f, 1e-6);
    /* Unsorted keys at -1, 3, 5 clipped to [0, 4]: 0 at 0, 30 at 3, 40 at 4. */
    const ossa_raw_track *clip = find(&out, "clip");
    assert_int_equal(clip->key_count, 3);
    assert_key(clip, 0, 0.0, OSSA_INTERP_LINEAR, 0.0);
    assert_key(clip, 1, 0.75, OSSA_INTERP_LINEAR, 30.0);
    assert_key(clip, 2, 1.0, OSSA_INTERP_LINEAR, 40.0);
    for (size_t i = 0; i < out.track_count; ++i)
        assert_int_equal(ossa_raw_track_validate(&out.tracks[i], NULL), OSSA_OK);
    ossa_import_output_destroy(&out);
}

static const char *binding_json =
    "{\"tracks\": ["
    "{\"trackType\": \"Curve\", \"valueType\": \"float3\", \"data\": {\"node\": \"Hips\", \"property\": \"Position\", "
    "\"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 1, \"y\": 2, \"z\": 3}, \"interpolation\": \"Linear\"},"
    "{\"time\": 2, \"value\": {\"x\": 3, \"y\": 2, \"z\": 1}, \"interpolation\": \"Linear\"}]}},"
    "{\"trackType\": \"Discrete\", \"valueType\": \"floatQ\", \"data\": {\"node\": \"Hips\", \"property\": "
    "\"rotation\", \"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 0, \"y\": 0, \"z\": 0, \"w\": 1}}, {\"time\": 1, \"value\": {\"x\": 0, \"y\": 1, "
    "\"z\": 0, \"w\": 0}}]}},"
    "{\"trackType\": \"Discrete\", \"valueType\": \"double3\", \"data\": {\"node\": \"Spine\", \"property\": "
    "\"scale\", \"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 2, \"y\": 2, \"z\": 2}}]}},"
    "{\"trackType\": \"Discrete\", \"valueType\": \"float4\", \"data\": {\"node\": \"Spine\", \"property\": \"Color\", "
    "\"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 1, \"y\": 0, \"z\": 0, \"w\": 1}}]}},"
    "{\"trackType\": \"Discrete\", \"valueType\": \"float3\", \"data\": {\"node\": \"Ghost\", \"property\": "
    "\"position\", \"keyframes\": ["
    "{\"time\": 0, \"value\": {\"x\": 0, \"y\": 0, \"z\": 0}}]}}]}";

static void test_binding(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    /* Flat: joints Hips, Spine, Ghost in order of appearance; rest pose = first values. */
    assert_int_equal(import_text(binding_json, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[0].name, "Hips");
    assert_string_equal(out.skeleton.joints[2].name, "Ghost");
    assert_float_equal(out.skeleton.joints[0].rest.translation.z, 3.f, 0.f);
    assert_float_equal(out.skeleton.joints[1].rest.scale.x, 2.f, 0.f);
    assert_int_equal(out.track_count, 1);
    assert_string_equal(out.tracks[0].name, "Spine/Color");
    const ossa_raw_animation *a = &out.animations[0];
    assert_float_equal(a->duration, 2.f, 0.f);
    assert_int_equal(a->tracks[0].translation_count, 2);
    assert_float_equal(a->tracks[0].translations[1].time, 2.f, 0.f);
    /* Hold on a joint channel: a ramp over min(dt / 2, 1 / (8 * 60 Hz)) before the next key. */
    assert_int_equal(a->tracks[0].rotation_count, 3);
    assert_float_equal((double)a->tracks[0].rotations[1].time, (1.0 - 1.0 / 480.0), 1e-6);
    assert_float_equal(a->tracks[0].rotations[1].value.w, 1.f, 0.f);
    assert_float_equal(a->tracks[0].rotations[2].value.y, 1.f, 0.f);
    assert_int_equal(a->tracks[1].scale_count, 1);
    assert_int_equal(ossa_raw_animation_validate(a, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_skeleton_validate(&out.skeleton, NULL), OSSA_OK);
    ossa_import_output_destroy(&out);

    /* Bound to a skeleton: copied, matched by name; Ghost stays a user channel with a warning. */
    ossa_raw_skeleton skel = {0};
    ossa_raw_skeleton_create(&skel, 3, NULL);
    ossa_raw_skeleton_set_name(&skel, 0, "Root");
    ossa_raw_skeleton_set_name(&skel, 1, "Spine");
    ossa_raw_skeleton_set_name(&skel, 2, "Hips");
    skel.joints[1].parent = 0, skel.joints[2].parent = 1;
    skel.joints[0].rest.translation.y = 1.f;
    ossa_resonite_desc desc = {.bind_skeleton = &skel};
    assert_int_equal(import_text(binding_json, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_int_equal(out.skeleton.joints[2].parent, 1);
    a = &out.animations[0];
    assert_int_equal(a->tracks[2].translation_count, 2);
    assert_int_equal(a->tracks[0].translation_count, 1);
    assert_float_equal(a->tracks[0].translations[0].value.y, 1.f, 0.f);
    assert_int_equal(out.track_count, 2);
    assert_non_null(find(&out, "Ghost/position"));
    char warning[128];
    assert_true(ossa_import_output_metadata(&out, "warning", warning, sizeof warning));
    assert_non_null(strstr(warning, "Ghost"));
    ossa_import_output_destroy(&out);

    desc = (ossa_resonite_desc){.no_joint_binding = true};
    assert_int_equal(import_text(binding_json, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_int_equal(out.track_count, 5);
    assert_int_equal(find(&out, "Hips/rotation")->type, OSSA_TRACK_QUAT);
    ossa_import_output_destroy(&out);
    ossa_raw_skeleton_destroy(&skel);
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
#ifdef OSSA_HAVE_CJSON
        cmocka_unit_test(test_wiki_example),
        cmocka_unit_test(test_seed_examples),
        cmocka_unit_test(test_seed_values),
        cmocka_unit_test(test_interpolation),
        cmocka_unit_test(test_binding),
#endif
        cmocka_unit_test(test_all_types),
        cmocka_unit_test(test_encodings),
        cmocka_unit_test(test_version0),
        cmocka_unit_test(test_write_read),
        cmocka_unit_test(test_write_read_joints),
        cmocka_unit_test(test_animj_errors),
        cmocka_unit_test(test_animx_errors),
        cmocka_unit_test(test_truncations),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_int_extremes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
