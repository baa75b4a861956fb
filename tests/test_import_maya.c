/* Maya .anim import: real Maya 2026 exports and converter output from the data directory's maya/,
 * synthetic files for units, binding, rotate order, resampling error and every rejected input
 * (code and line:column worked out by hand from the text). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/builders.h"
#include "ossa/offline/import_maya.h"
#include "ossa/offline/track_builder.h"
#include "ossa/sampling_job.h"
#include "test_util.h"

#define PI  3.14159265358979323846
#define DEG (PI / 180.0)

#define assert_near(a, b, eps) near_at((double)(a), (double)(b), (double)(eps), __FILE__, __LINE__)
static void near_at(double a, double b, double eps, const char *file, int line)
{
    if (fabs(a - b) <= eps) return;
    print_error("%.17g != %.17g (tolerance %g)\n", a, b, eps);
    _fail(file, line);
}

#define HEADER  "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\nlinearUnit cm;\nangularUnit deg;\n"
#define CURVE_X "anim translate.translateX translateX j1 0 0 0;\nanimData {\n  keys {\n"
#define CLOSE   "  }\n}\n"

static ossa_result import_text(const char *text, const ossa_maya_desc *desc, ossa_import_output *out, ossa_diag *diag)
{
    ossa_diag_clear(diag);
    return ossa_import_maya_anim(text, strlen(text), desc, out, diag);
}

static void *read_shared(const char *name, size_t *size)
{
    char rel[128], shown[160];
    snprintf(rel, sizeof rel, "maya/%s", name);
    snprintf(shown, sizeof shown, "DATA/maya/%s", name);
    return ossa_test_read_or_skip(ossa_test_shared_path(rel), shown, size);
}

static void assert_metadata(const ossa_import_output *out, const char *key, const char *value)
{
    char buffer[256];
    if (!ossa_import_output_metadata(out, key, buffer, sizeof buffer)) {
        print_error("metadata %s missing\n", key);
        fail();
    }
    assert_string_equal(buffer, value);
}

static size_t joint_named(const ossa_import_output *out, const char *name)
{
    for (size_t j = 0; j < out->skeleton.joint_count; ++j)
        if (!strcmp(out->skeleton.joints[j].name, name)) return j;
    print_error("no joint %s\n", name);
    fail();
    return 0;
}

/* A baked (runtime) animation and its sampling context; the raw one is sampled without. */
typedef struct baked_clip {
    const ossa_animation *animation;
    ossa_sampling_context *context;
} baked_clip;

static ossa_transform sample_joint(const ossa_import_output *out, size_t joint, double time, const baked_clip *baked)
{
    if (baked) {
        static ossa_soa_transform soa[OSSA_MAX_SOA_JOINTS];
        const ossa_sampling_job job = {baked->animation,
                                       baked->context,
                                       (float)(time / (double)baked->animation->duration),
                                       soa,
                                       OSSA_MAX_SOA_JOINTS,
                                       NULL,
                                       0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        return ossa_soa_transform_get(&soa[joint / 4], (int)(joint % 4));
    }
    ossa_transform pose[OSSA_MAX_JOINTS];
    assert_int_equal(ossa_raw_animation_sample(&out->animations[0], (float)time, pose, OSSA_MAX_JOINTS), OSSA_OK);
    return pose[joint];
}

/* Rotation angle between unit quaternions, well conditioned for small angles. */
static double quat_angle(ossa_quat a, ossa_quat b)
{
    const double ax = (double)a.x, ay = (double)a.y, az = (double)a.z, aw = (double)a.w;
    const double bx = (double)b.x, by = (double)b.y, bz = (double)b.z, bw = (double)b.w;
    const double s = ax * bx + ay * by + az * bz + aw * bw < 0 ? -1.0 : 1.0;
    const double dx = ax - s * bx, dy = ay - s * by, dz = az - s * bz, dw = aw - s * bw;
    const double chord = sqrt(dx * dx + dy * dy + dz * dz + dw * dw);
    return 4.0 * asin(chord / 2 > 1 ? 1 : chord / 2);
}

/* Hamilton product written out, for quaternions built by hand. */
static ossa_quat qmul(ossa_quat a, ossa_quat b)
{
    return (ossa_quat){a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
                       a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}

static ossa_quat axis_angle(int axis, double angle)
{
    ossa_quat q = {0.f, 0.f, 0.f, (float)cos(angle / 2)};
    const float s = (float)sin(angle / 2);
    if (axis == 0) q.x = s;
    if (axis == 1) q.y = s;
    if (axis == 2) q.z = s;
    return q;
}

static void assert_empty(const ossa_import_output *out)
{
    assert_int_equal(out->skeleton.joint_count, 0);
    assert_int_equal(out->animation_count, 0);
    assert_int_equal(out->track_count, 0);
    assert_null(out->metadata);
}

/* Checks every resample time of every joint against the curves evaluated directly: translation
 * and scale per component, rotation as an angle, within `tol` (plus float rounding). */
static void check_against_curves(const ossa_import_output *out, const ossa_maya_anim *anim, double start_f, double rate,
                                 double tol, const char *order, const baked_clip *baked)
{
    static const char *const names[9] = {"translateX", "translateY", "translateZ", "rotateX", "rotateY",
                                         "rotateZ",    "scaleX",     "scaleY",     "scaleZ"};
    const double fps = anim->frame_rate, duration = (double)out->animations[0].duration;
    size_t checked = 0;
    for (size_t j = 0; j < out->skeleton.joint_count; ++j) {
        const ossa_maya_curve *ch[9] = {0};
        for (size_t i = 0; i < anim->curve_count; ++i)
            for (int c = 0; c < 9; ++c)
                if (!strcmp(anim->curves[i].node, out->skeleton.joints[j].name) &&
                    !strcmp(anim->curves[i].leaf, names[c]))
                    ch[c] = &anim->curves[i];
        const ossa_transform rest = out->skeleton.joints[j].rest;
        for (size_t k = 0;; ++k) {
            double t = (double)k / rate;
            const bool last = t >= duration - 0.01 / rate;
            if (last) t = duration;
            const double frame = last ? start_f + duration * fps : start_f + (double)k * fps / rate;
            float v[9];
            for (int c = 0; c < 9; ++c) {
                const double unit = c < 3 ? 0.01 : c < 6 ? DEG : 1.0;
                const float restv = c < 3 ? (&rest.translation.x)[c] : c < 6 ? 0.f : (&rest.scale.x)[c - 6];
                v[c] = ch[c] ? (float)(ossa_maya_curve_evaluate(ch[c], frame) * unit) : restv;
            }
            const ossa_transform got = sample_joint(out, j, t, baked);
            for (int c = 0; c < 3; ++c) {
                assert_near((&got.translation.x)[c], v[c], tol + 1e-6 * (1 + fabs((double)v[c])));
                assert_near((&got.scale.x)[c], v[6 + c], tol + 1e-6 * (1 + fabs((double)v[6 + c])));
            }
            if (ch[3] || ch[4] || ch[5]) {
                const ossa_quat want = ossa_quat_from_euler(v[3], v[4], v[5], order);
                assert_near(quat_angle(got.rotation, want), 0.0, tol + 2e-6);
            } else {
                /* 15-bit rotations when baked: well under 1e-4 rad. */
                assert_near(quat_angle(got.rotation, rest.rotation), 0.0, baked ? 1e-4 : 2e-6);
            }
            ++checked;
            if (last) break;
        }
    }
    assert_true(checked > 0);
}

/* Samples of a clip of `duration` s at `rate` Hz as import_maya.h states them: t = k / rate,
 * plus the end unless the last grid time is within 1 % of an interval of it; at least 2. */
static size_t expected_samples(double duration, double rate)
{
    const size_t grid = (size_t)floor(duration * rate + 1e-9) + 1;
    const size_t n = duration - (double)(grid - 1) / rate > 0.01 / rate ? grid + 1 : grid;
    return n < 2 ? 2 : n;
}

/* Every channel of every track holds one key (no curve: the rest pose) or one per sample. */
static void assert_dense(const ossa_raw_animation *a, size_t samples)
{
    size_t dense = 0;
    for (size_t j = 0; j < a->track_count; ++j) {
        const ossa_raw_joint_track *t = &a->tracks[j];
        const size_t counts[3] = {t->translation_count, t->rotation_count, t->scale_count};
        for (int c = 0; c < 3; ++c) {
            assert_true(counts[c] == 1 || counts[c] == samples);
            dense += counts[c] == samples;
        }
    }
    assert_true(dense > 0);
}

static void bake(const ossa_import_output *out)
{
    ossa_blob skel = {0}, anim = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_skeleton_build(&out->skeleton, NULL, &skel, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(&out->animations[0], NULL, &anim, &diag), OSSA_OK);
    assert_true(skel.size > 0 && anim.size > 0);
    ossa_blob_destroy(&skel);
    ossa_blob_destroy(&anim);
}

static void test_example_file(void **state)
{
    (void)state;
    size_t size;
    void *data = read_shared("example_maya2026.anim", &size);
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_maya_anim(data, size, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "format", "maya-anim");
    assert_metadata(&out, "anim_version", "1.1");
    assert_metadata(&out, "maya_version", "2026");
    assert_metadata(&out, "source_units", "cm");
    /* Values are converted to metres: unit_scale 1, the file's factor kept beside it. */
    assert_metadata(&out, "unit_scale", "1");
    assert_metadata(&out, "source_unit_scale", "0.01");
    assert_metadata(&out, "time_unit", "ntscf");
    assert_metadata(&out, "frame_rate", "60");
    assert_metadata(&out, "angular_unit", "deg");
    assert_metadata(&out, "sample_rate", "60");
    assert_metadata(&out, "curves", "20");
    /* Placeholders joint1, joint3, joint4 are joints too, in file order; every node declares
     * one child but joint5: a chain. */
    assert_int_equal(out.skeleton.joint_count, 5);
    const char *names[5] = {"joint1", "joint2", "joint3", "joint4", "joint5"};
    for (size_t j = 0; j < 5; ++j) {
        assert_string_equal(out.skeleton.joints[j].name, names[j]);
        assert_int_equal(out.skeleton.joints[j].parent, (int)j - 1);
    }
    assert_metadata(&out, "hierarchy", "file");
    assert_metadata(&out, "hierarchy_roots", "1");
    assert_int_equal(out.animation_count, 1);
    assert_near(out.animations[0].duration, 3.0 / 60, 1e-7); /* startTime 1, endTime 4 */
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], &diag), OSSA_OK);
    /* joint2's translate curves are two auto keys (flat ends) at frames 1 and 3: frame 2 is
     * halfway between the key values; cm become metres. */
    ossa_transform t = sample_joint(&out, 1, 1.0 / 60, NULL);
    assert_near(t.translation.x, 0.01 * (1.3784618 + 2.4244321) / 2, 1e-4);
    assert_near(t.translation.y, 0.01 * 2.0087959 / 2, 1e-4);
    assert_near(t.translation.z, 0.01 * 3.9513241 / 2, 1e-4);
    t = sample_joint(&out, 1, 3.0 / 60, NULL); /* frame 4: held after the last key */
    assert_near(t.translation.z, 0.039513241, 1e-6);
    /* Unanimated placeholder: one identity key per channel. */
    assert_int_equal(out.animations[0].tracks[0].translation_count, 1);
    assert_int_equal(out.animations[0].tracks[0].rotation_count, 1);
    /* Visibility curves ("spline step") become step user tracks. */
    assert_int_equal(out.track_count, 2);
    assert_string_equal(out.tracks[0].name, "joint2.visibility");
    assert_string_equal(out.tracks[1].name, "joint5.visibility");
    /* A single "step" key at frame 1: one key per sample, all 1, stepping from the curve's key
     * (after it, post-infinity holds); the track optimiser keeps the first and last. */
    assert_int_equal(out.tracks[0].key_count, 4);
    assert_int_equal(out.tracks[0].keys[0].interpolation, OSSA_INTERP_STEP);
    for (size_t k = 0; k < 4; ++k) assert_near(out.tracks[0].keys[k].value[0], 1.0, 0);
    ossa_raw_track visible = {0};
    assert_int_equal(ossa_track_optimize(&out.tracks[0], NULL, &visible, &diag), OSSA_OK);
    assert_int_equal(visible.key_count, 2);
    ossa_raw_track_destroy(&visible);
    assert_int_equal(ossa_raw_track_validate(&out.tracks[1], &diag), OSSA_OK);
    bake(&out);
    ossa_import_output_destroy(&out);
    free(data);
}

static void test_front_file(void **state)
{
    (void)state;
    size_t size;
    void *data = read_shared("front_maya2026.anim", &size);
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_maya_anim(data, size, NULL, &out, &diag), OSSA_OK);
    ossa_maya_anim anim;
    assert_int_equal(ossa_maya_anim_parse(data, size, NULL, &anim, &diag), OSSA_OK);
    assert_int_equal(anim.curve_count, 216);
    assert_int_equal(out.skeleton.joint_count, anim.node_count);
    /* The anim lines' child counts make one tree: GBL_RT (1) > CENTER_RT (1) > BASE (2) >
     * MUNE1 (1) > MUNE2 (7) > SAKOTSU_L (3) > KATA_L. */
    assert_int_equal(anim.node_count, 50);
    const char *chain[7] = {"GBL_RT", "CENTER_RT", "BASE", "MUNE1", "MUNE2", "SAKOTSU_L", "KATA_L"};
    for (int i = 0; i < 7; ++i) {
        const size_t j = joint_named(&out, chain[i]);
        assert_int_equal(j, (size_t)i);
        assert_int_equal(out.skeleton.joints[j].parent, i - 1);
        assert_int_equal(anim.parents[j], i - 1);
    }
    size_t roots = 0;
    for (size_t j = 0; j < anim.node_count; ++j) roots += anim.parents[j] < 0;
    assert_int_equal(roots, 1);
    assert_metadata(&out, "hierarchy", "file");
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], &diag), OSSA_OK);
    assert_near(out.animations[0].duration, 39.0 / 60, 1e-6); /* frames 1.00002 .. 40.00002 */
    /* A fixed out-tangent written as 42.792758 degrees is the slope per frame to the next key
     * in file units: tan(42.792758 deg) = (1.721675 - 0.795937) / (1.9999796 - 1.00002). */
    const ossa_maya_curve *z = NULL;
    for (size_t i = 0; i < anim.curve_count; ++i)
        if (!strcmp(anim.curves[i].node, "GBL_RT") && !strcmp(anim.curves[i].leaf, "translateZ")) z = &anim.curves[i];
    assert_non_null(z);
    assert_near(z->keys[0].out_angle, 42.792758 * DEG, 1e-12);
    assert_near(z->keys[0].out_y / z->keys[0].out_x, (1.721675 - 0.795937) / (1.9999796 - 1.00002), 1e-6);
    assert_near(ossa_maya_curve_evaluate(z, 1.9999796), 1.721675, 0);
    /* Every resample time a key, at the curves' value (float rounding only). */
    check_against_curves(&out, &anim, 1.00002, 60.0, 1e-5, "xyz", NULL);
    assert_dense(&out.animations[0], expected_samples(out.animations[0].duration, 60.0));
    bake(&out);
    /* The baked clip, sampled by the runtime job, matches the curves within the resampling
     * tolerance plus the quantisation bound of builders.h: half-float scales near 1 are off
     * by up to 2^-11 (4.9e-4); ranged translations and 15-bit rotations by far less. */
    ossa_blob anim_blob = {0};
    ossa_animation view;
    assert_int_equal(ossa_animation_build(&out.animations[0], NULL, &anim_blob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_init(&view, anim_blob.data, anim_blob.size), OSSA_OK);
    const size_t ctx_size = ossa_sampling_context_size(view.track_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    const baked_clip clip = {&view, ossa_sampling_context_init(ctx_mem, ctx_size, view.track_count)};
    check_against_curves(&out, &anim, 1.00002, 60.0, 1e-5 + 5e-4, "xyz", &clip);
    free(ctx_mem);
    ossa_blob_destroy(&anim_blob);
    ossa_maya_anim_destroy(&anim);
    ossa_import_output_destroy(&out);
    free(data);
}

static void test_kamae_file(void **state)
{
    (void)state;
    size_t size;
    char *data = read_shared("kamae_toolgen.anim", &size);
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    /* The converter writes child count 1 on every placeholder line: each takes the next node
     * as its child, and the last one, "anim ATH_TE_R90 0 1 0;" (line 2417), has none after
     * it: the child count (column 19) does not fit the node list. */
    assert_int_equal(ossa_import_maya_anim(data, size, NULL, &out, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, 2417);
    assert_int_equal(diag.column, 19);
    assert_non_null(strstr(diag.message, "'ATH_TE_R90' declares 1 children"));
    assert_empty(&out);
    /* With those counts set to 0 (every node a root) the curves import. */
    size_t patched = 0;
    for (char *line = data, *end; line < data + size; line = end + 1) {
        end = memchr(line, '\n', size - (size_t)(line - data));
        if (!end) end = data + size;
        char *stop = end > line && end[-1] == '\r' ? end - 1 : end; /* the file has CRLF lines */
        /* a placeholder: "anim NAME 0 1 0;", one name, no dotted attribute */
        if (stop - line > 12 && !memcmp(line, "anim ", 5) && !memcmp(stop - 6, "0 1 0;", 6) &&
            !memchr(line + 5, '.', (size_t)(stop - line - 5))) {
            stop[-4] = '0';
            ++patched;
        }
    }
    assert_int_equal(patched, 34);
    assert_int_equal(ossa_import_maya_anim(data, size, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "hierarchy", "flat");
    assert_metadata(&out, "time_unit", "ntsc");
    assert_metadata(&out, "maya_version", "2020");
    /* startTime = endTime = 0: the clip lasts one sample interval. */
    assert_near(out.animations[0].duration, 1.0 / 30, 1e-7);
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], &diag), OSSA_OK);
    /* CENTER_RT translateY is 10 cm. */
    assert_near(sample_joint(&out, joint_named(&out, "CENTER_RT"), 0.0, NULL).translation.y, 0.1, 1e-7);
    /* MUNE1 rotate 70.53091716833487, -4.591584067215057, 91.1713324189463 degrees, order xyz:
     * q = qz * qy * qx. */
    const ossa_quat want = qmul(axis_angle(2, 91.1713324189463 * DEG),
                                qmul(axis_angle(1, -4.591584067215057 * DEG), axis_angle(0, 70.53091716833487 * DEG)));
    const ossa_transform t = sample_joint(&out, joint_named(&out, "MUNE1"), 0.0, NULL);
    assert_near(quat_angle(t.rotation, want), 0.0, 1e-5);
    /* One sample interval: two samples, both keys. */
    assert_int_equal(out.animations[0].tracks[joint_named(&out, "MUNE1")].rotation_count, 2);
    bake(&out);
    ossa_import_output_destroy(&out);
    free(data);
}

static void test_nonconforming_file(void **state)
{
    (void)state;
    size_t size;
    void *data = read_shared("f00damagehi1_nonconforming_toolgen.anim", &size);
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    /* "    0 1.85 fixed fixed 1 1 0;" on line 16: the ';' (column 29) comes before the two
     * angle/weight pairs a key with fixed tangents needs. */
    assert_int_equal(ossa_import_maya_anim(data, size, NULL, &out, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, 16);
    assert_int_equal(diag.column, 29);
    assert_non_null(strstr(diag.message, "4 angle/weight values"));
    assert_empty(&out);
    ossa_import_output_destroy(&out);
    free(data);
}

/* Byte offset of 1-based line:column in text (newlines are "\n"). */
static size_t offset_of(const char *text, uint32_t line, uint32_t column)
{
    size_t offset = 0;
    for (uint32_t l = 1; l < line; ++l) offset = (size_t)(strchr(text + offset, '\n') - text) + 1;
    return offset + column - 1;
}

typedef struct bad_case {
    const char *text;
    ossa_result code;
    uint32_t line, column;
    const char *message; /* a substring of the diag message */
} bad_case;

static void test_errors(void **state)
{
    (void)state;
    static char long_number[512];
    memset(long_number, 0, sizeof long_number);
    strcpy(long_number, HEADER CURVE_X "    1 ");
    memset(long_number + strlen(long_number), '1', 130);
    strcat(long_number, " linear linear 1 1 0;\n" CLOSE);
    const bad_case cases[] = {
        {HEADER CURVE_X "    1 2 linear foo 1 1 0;\n" CLOSE, OSSA_ERROR_PARSE, 9, 16, "unknown out-tangent type 'foo'"},
        {HEADER CURVE_X "    1 2 linear linear 1 1 0\n    2 3 linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_PARSE, 10, 5,
         "expected ';' to end the key that starts at line 9"},
        {"animVersion 1.1;\ntimeUnit film\nlinearUnit cm;\n", OSSA_ERROR_PARSE, 3, 1,
         "expected ';' after the timeUnit"},
        {HEADER CURVE_X "    nan 2 linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_PARSE, 9, 5, "finite number"},
        {HEADER CURVE_X "    1 inf linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_PARSE, 9, 7, "the key value"},
        {HEADER CURVE_X "    1 1e999 linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_PARSE, 9, 7, "finite number"},
        {long_number, OSSA_ERROR_PARSE, 9, 7, "the key value"},
        {HEADER CURVE_X "    5 2 linear linear 1 1 0;\n    3 2 linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_INVALID_KEY,
         10, 5, "not after the previous key time 5"},
        {HEADER CURVE_X "    5 2 linear linear 1 1 0;\n    5 2 linear linear 1 1 0;\n" CLOSE, OSSA_ERROR_INVALID_KEY,
         10, 5, "strictly increase"},
        {HEADER CURVE_X "    1 2 linear linear 1 1 0;\n", OSSA_ERROR_TRUNCATED, 10, 1, "keys block of line 8"},
        {HEADER CURVE_X "    1 2 linear", OSSA_ERROR_TRUNCATED, 9, 15, "out-tangent type, found end of file"},
        {"animVersion 1.1", OSSA_ERROR_TRUNCATED, 1, 16, "expected ';'"},
        {"", OSSA_ERROR_TRUNCATED, 1, 1, "animVersion"},
        {HEADER CURVE_X "    1 2 linear linear 1 1;\n" CLOSE, OSSA_ERROR_PARSE, 9, 26,
         "expected the breakdown flag after"},
        {HEADER CURVE_X "    1 2 fixed linear 1 1 0 45;\n" CLOSE, OSSA_ERROR_PARSE, 9, 30,
         "breakdown flag and 2 angle/weight values (one tangent is fixed)"},
        {HEADER CURVE_X "    1 2 linear linear 1 1 0 7;\n" CLOSE, OSSA_ERROR_PARSE, 9, 29, "found '7'"},
        {HEADER CURVE_X "    1 2 linear linear 1 1 0;\n" CLOSE "}\n", OSSA_ERROR_PARSE, 12, 1, "expected a keyword"},
        {"animVersion 1.1;\nfoo 3;\n", OSSA_ERROR_PARSE, 2, 1, "unknown keyword 'foo'"},
        {"animVersion 2.0;\n", OSSA_ERROR_UNSUPPORTED_VERSION, 1, 13, "animVersion '2.0'"},
        {"timeUnit film;\nanim a 0 0 0;\n", OSSA_ERROR_PARSE, 2, 1, "expected animVersion before"},
        {HEADER "anim a 0 0 0;\ntimeUnit film;\n", OSSA_ERROR_PARSE, 7, 1, "after the first anim statement"},
        {HEADER "animData {\n}\n", OSSA_ERROR_PARSE, 6, 1, "without an anim statement"},
        {"animVersion 1.1;\ntimeUnit furlong;\n", OSSA_ERROR_PARSE, 2, 10, "unknown timeUnit 'furlong'"},
        {"animVersion 1.1;\ntimeUnit 0fps;\n", OSSA_ERROR_PARSE, 2, 10, "unknown timeUnit"},
        {HEADER
         "anim rotate.rotateX rotateX j1 0 1 0;\nanimData {\n  output angular;\n  outputUnit cm;\n  keys {\n" CLOSE,
         OSSA_ERROR_PARSE, 9, 14, "not name a angular"},
        {HEADER "anim a b 0 0 0;\n", OSSA_ERROR_PARSE, 6, 6, "found 2"},
        {HEADER "anim a 0 1.5 0;\n", OSSA_ERROR_PARSE, 6, 10, "expected an integer"},
        {HEADER "anim a 0 0 0;\nanimData {\n  preInfinity bounce;\n}\n", OSSA_ERROR_PARSE, 8, 15, "unknown infinity"},
        {HEADER "anim a 0 0 0;\nanimData {\n  color 1;\n}\n", OSSA_ERROR_PARSE, 8, 3, "unknown animData setting"},
        {HEADER "anim a 0 0 0;\nanimData {\n  keys {\n  }\n  keys {\n", OSSA_ERROR_PARSE, 10, 3, "second keys block"},
        {HEADER "anim translate.translateX translateX j1 0 1 0\nanimData {\n", OSSA_ERROR_PARSE, 7, 1,
         "expected ';' to end the anim statement of line 6"},
        {HEADER "anim a 0 0 0;\nanimData\n  keys {\n", OSSA_ERROR_PARSE, 8, 3, "expected '{' after animData"},
        {"\x01\x02\x03;", OSSA_ERROR_PARSE, 1, 1, "unknown keyword '\?\?\?'"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        ossa_import_output out = {0};
        ossa_diag diag;
        const ossa_result r = import_text(cases[i].text, NULL, &out, &diag);
        if (r != cases[i].code || diag.line != cases[i].line || diag.column != cases[i].column ||
            !strstr(diag.message, cases[i].message)) {
            print_error("case %zu: got %s at %u:%u \"%s\"\n", i, ossa_result_name(r), (unsigned)diag.line,
                        (unsigned)diag.column, diag.message);
            fail();
        }
        assert_int_equal(diag.offset, offset_of(cases[i].text, diag.line, diag.column));
        assert_empty(&out);
        ossa_import_output_destroy(&out);
    }
}

/* Sizes the file asks for that would need unbounded work are refused. */
static void test_limits(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    /* 100,000 film frames (69 minutes) at 24 Hz: more samples than a clip may have. */
    const char *huge = HEADER "startTime 0;\nendTime 100000;\n" CURVE_X "    0 1 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(huge, NULL, &out, &diag), OSSA_ERROR_INVALID_ANIMATION);
    assert_non_null(strstr(diag.message, "65536 samples"));
    assert_empty(&out);
    /* The default rate is 30 Hz for clock and extreme units. */
    const char *fast = "animVersion 1.1;\ntimeUnit 48000fps;\n" CURVE_X "    0 1 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(fast, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "sample_rate", "30");
    ossa_import_output_destroy(&out);
    /* At one sample per 1000 s it would fit in samples, but 1e9 frames last over a year: a
     * clip longer than a day is refused whatever the rate. */
    const char *year = HEADER "startTime 0;\nendTime 1e9;\n" CURVE_X "    0 1 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(year, &(ossa_maya_desc){.sample_rate = 0.001f}, &out, &diag),
                     OSSA_ERROR_INVALID_ANIMATION);
    assert_non_null(strstr(diag.message, "a day"));
    assert_empty(&out);
    /* 1100 nodes make too many joints for a flat skeleton. */
    size_t cap = 64 + 1100 * 24, used;
    char *text = malloc(cap);
    used = (size_t)snprintf(text, cap, "animVersion 1.1;\n");
    for (int i = 0; i < 1100; ++i) used += (size_t)snprintf(text + used, cap - used, "anim node%d 0 0 0;\n", i);
    assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_ERROR_TOO_MANY_JOINTS);
    assert_empty(&out);
    ossa_maya_anim anim;
    assert_int_equal(ossa_maya_anim_parse(text, used, NULL, &anim, &diag), OSSA_OK);
    assert_int_equal(anim.node_count, 1100);
    assert_string_equal(anim.nodes[1099], "node1099");
    ossa_maya_anim_destroy(&anim);
    free(text);
}

static void test_units(void **state)
{
    (void)state;
    ossa_maya_anim anim;
    ossa_diag diag;
    const char *text = "animVersion 1.1;\ntimeUnit 23.976fps;\nlinearUnit mm;\nangularUnit rad;\n"
                       "anim translate.translateX translateX a 0 0 0;\nanimData {\n  keys {\n"
                       "    0 0 fixed fixed 1 1 0 0.5 1 0.5 1;\n    10 5 linear linear 1 1 0;\n  }\n}\n"
                       "anim rotate.rotateX rotateX a 0 0 1;\nanimData {\n  output angular;\n  outputUnit deg;\n"
                       "  tangentAngleUnit deg;\n  inputUnit 2fps;\n  keys {\n"
                       "    0 0 fixed fixed 1 1 0 30 1 30 1;\n  }\n}\n"
                       "anim custom custom a 0 0 2;\nanimData {\n  output time;\n  outputUnit ntsc;\n  keys {\n"
                       "    0 30 linear linear 1 1 0;\n  }\n}\n";
    assert_int_equal(ossa_maya_anim_parse(text, strlen(text), NULL, &anim, &diag), OSSA_OK);
    assert_near(anim.frame_rate, 24000.0 / 1001.0, 1e-12);
    /* Maya's NTSC names (k * 1000/1001 frames per second) and the drop-frame unit. */
    const char *ntsc_names[4] = {"29.97fps", "59.94fps", "29.97df", "120fps"};
    const double ntsc_rates[4] = {30000.0 / 1001.0, 60000.0 / 1001.0, 30000.0 / 1001.0, 120.0};
    for (int i = 0; i < 4; ++i) {
        char header[64];
        snprintf(header, sizeof header, "animVersion 1.1;\ntimeUnit %s;\n", ntsc_names[i]);
        ossa_maya_anim other;
        assert_int_equal(ossa_maya_anim_parse(header, strlen(header), NULL, &other, &diag), OSSA_OK);
        assert_near(other.frame_rate, ntsc_rates[i], 1e-12);
        ossa_maya_anim_destroy(&other);
    }
    assert_near(anim.linear_scale, 0.001, 0);
    assert_near(anim.angular_scale, 1.0, 0);
    const ossa_maya_curve *tx = &anim.curves[0], *rx = &anim.curves[1], *tc = &anim.curves[2];
    assert_near(tx->value_scale, 0.001, 0);
    assert_near(tx->frame_rate, 24000.0 / 1001.0, 1e-12);
    assert_near(tx->keys[0].out_angle, 0.5, 0); /* tangentAngleUnit defaults to angularUnit (rad) */
    assert_near(rx->keys[0].out_angle, 30 * DEG, 1e-15);
    assert_near(rx->value_scale, DEG, 1e-15);
    assert_near(rx->frame_rate, 2.0, 0);
    assert_int_equal(rx->output, OSSA_MAYA_OUTPUT_ANGULAR);
    assert_near(tc->value_scale, 1.0 / 30, 1e-15);
    assert_string_equal(tc->node, "a");
    assert_string_equal(tc->attribute, "custom");
    ossa_maya_anim_destroy(&anim);
    /* The time-output curve becomes a user track in seconds (30 ntsc frames = 1 s). */
    ossa_import_output out = {0};
    assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "source_units", "mm");
    assert_metadata(&out, "unit_scale", "1");
    assert_metadata(&out, "source_unit_scale", "0.001");
    assert_metadata(&out, "time_unit", "23.976fps");
    assert_metadata(&out, "sample_rate", "23.976024");
    assert_int_equal(out.track_count, 1);
    assert_string_equal(out.tracks[0].name, "a.custom");
    assert_near(out.tracks[0].keys[0].value[0], 1.0, 1e-7);
    ossa_import_output_destroy(&out);
}

static void test_version_10(void **state)
{
    (void)state;
    ossa_maya_anim anim;
    ossa_diag diag;
    const char *text =
        "animVersion 1.0;\ntimeUnit ntsc;\nanim translate.translateX translateX a 0 0 0;\nanimData {\n"
        "  keys {\n    0 0 linear fixed 1 1 45 1;\n    # comment line\n    10 10 linear linear 1 1; // c\n"
        "  }\n}\n";
    assert_int_equal(ossa_maya_anim_parse(text, strlen(text), NULL, &anim, &diag), OSSA_OK);
    assert_int_equal(anim.version, 10);
    assert_int_equal(anim.curves[0].key_count, 2);
    assert_near(anim.curves[0].keys[0].out_angle, PI / 4, 1e-15);
    assert_false(anim.curves[0].keys[0].breakdown);
    ossa_maya_anim_destroy(&anim);
    /* A 1.1 breakdown flag is read. */
    const char *v11 = HEADER CURVE_X "    1 2 linear linear 0 1 1;\n" CLOSE;
    assert_int_equal(ossa_maya_anim_parse(v11, strlen(v11), NULL, &anim, &diag), OSSA_OK);
    assert_true(anim.curves[0].keys[0].breakdown);
    assert_true(anim.curves[0].keys[0].weight_locked);
    assert_false(anim.curves[0].keys[0].tangent_locked);
    ossa_maya_anim_destroy(&anim);
}

static void test_bind_skeleton(void **state)
{
    (void)state;
    ossa_raw_skeleton bind = {0};
    assert_int_equal(ossa_raw_skeleton_create(&bind, 3, NULL), OSSA_OK);
    ossa_raw_skeleton_set_name(&bind, 0, "hips");
    ossa_raw_skeleton_set_name(&bind, 1, "spine");
    ossa_raw_skeleton_set_name(&bind, 2, "head");
    bind.joints[1].parent = 0;
    bind.joints[2].parent = 1;
    bind.joints[0].rest.translation = (ossa_float3){0.5f, 1.f, 0.25f};
    bind.joints[0].rest.rotation = axis_angle(1, 30 * DEG);
    bind.joints[2].rest.translation = (ossa_float3){0.f, 0.3f, 0.f};
    bind.joints[2].rest.scale = (ossa_float3){2.f, 2.f, 2.f};
    const char *text =
        HEADER "anim ghost2 0 0 0;\n"
               "anim rotate.rotateX rotateX |root|hips 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
               "    0 0 linear linear 1 1 0;\n    10 90 linear linear 1 1 0;\n" CLOSE
               "anim translate.translateY translateY |root|hips 0 0 1;\nanimData {\n  keys {\n"
               "    0 100 linear linear 1 1 0;\n    10 200 linear linear 1 1 0;\n" CLOSE
               "anim ikBlend ikBlend |root|hips 0 0 2;\nanimData {\n  output unitless;\n  keys {\n"
               "    0 0 linear linear 1 1 0;\n    10 1 linear linear 1 1 0;\n" CLOSE
               "anim scale.scaleX scaleX |rig|ns:spine 0 0 0;\nanimData {\n  output unitless;\n  keys {\n"
               "    0 1 linear linear 1 1 0;\n    10 3 linear linear 1 1 0;\n" CLOSE
               "anim translate.translateX translateX ghost 0 0 0;\nanimData {\n  keys {\n"
               "    0 1 linear linear 1 1 0;\n" CLOSE;
    ossa_import_output out = {0};
    ossa_diag diag;
    const ossa_maya_desc desc = {.bind_skeleton = &bind, .sample_rate = 24.f};
    assert_int_equal(import_text(text, &desc, &out, &diag), OSSA_OK);
    assert_metadata(&out, "unmatched_nodes", "ghost");
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[2].name, "head");
    assert_int_equal(out.skeleton.joints[2].parent, 1);
    /* Frame 5 (0.2083 s): rotateX 45 degrees over the rest's 30 degrees about y. */
    const ossa_transform hips = sample_joint(&out, 0, 5.0 / 24, NULL);
    assert_near(quat_angle(hips.rotation, qmul(axis_angle(1, 30 * DEG), axis_angle(0, 45 * DEG))), 0.0, 1e-4);
    assert_near(hips.translation.x, 0.5, 1e-6); /* rest */
    assert_near(hips.translation.y, 1.5, 1e-4); /* 150 cm */
    assert_near(hips.translation.z, 0.25, 1e-6);
    const ossa_transform spine = sample_joint(&out, 1, 5.0 / 24, NULL);
    assert_near(spine.scale.x, 2.0, 1e-4);
    assert_near(spine.scale.y, 1.0, 0);
    const ossa_raw_joint_track *head = &out.animations[0].tracks[2];
    assert_int_equal(head->translation_count, 1);
    assert_near(head->translations[0].value.y, 0.3, 1e-7);
    assert_near(head->scales[0].value.z, 2.0, 0);
    /* Frames 0 to 10 at 24 Hz: 11 samples, every one a key, the straight line included (the
     * builders reduce); the track optimiser brings the linear ikBlend back to its 2 keys. */
    assert_int_equal(out.animations[0].tracks[0].rotation_count, 11);
    assert_int_equal(out.animations[0].tracks[0].translation_count, 11);
    assert_int_equal(out.track_count, 1);
    assert_string_equal(out.tracks[0].name, "|root|hips.ikBlend");
    assert_int_equal(out.tracks[0].key_count, 11);
    ossa_raw_track reduced = {0};
    assert_int_equal(ossa_track_optimize(&out.tracks[0], NULL, &reduced, &diag), OSSA_OK);
    assert_int_equal(reduced.key_count, 2);
    assert_near(reduced.keys[1].ratio, 1.0, 0);
    assert_near(reduced.keys[1].value[0], 1.0, 0);
    ossa_raw_track_destroy(&reduced);
    bake(&out);
    /* Output and bind skeleton may not be the same object. */
    ossa_import_output same = {0};
    same.skeleton = bind;
    const ossa_maya_desc alias = {.bind_skeleton = &same.skeleton};
    assert_int_equal(import_text(text, &alias, &same, &diag), OSSA_ERROR_ALIASING);
    ossa_import_output_destroy(&out);
    ossa_raw_skeleton_destroy(&bind);
}

static void test_rotate_order(void **state)
{
    (void)state;
    const char *text = HEADER "anim rotate.rotateX rotateX a 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                              "    0 90 linear linear 1 1 0;\n" CLOSE
                              "anim rotate.rotateY rotateY a 0 0 1;\nanimData {\n  output angular;\n  keys {\n"
                              "    0 90 linear linear 1 1 0;\n" CLOSE;
    /* xyz: x turns +y to +z, then y turns +z to +x. zyx: y keeps +y, then x turns it to +z. */
    const char *orders[2] = {"xyz", "ZYX"};
    const ossa_float3 expect[2] = {{1.f, 0.f, 0.f}, {0.f, 0.f, 1.f}};
    for (int i = 0; i < 2; ++i) {
        ossa_import_output out = {0};
        ossa_diag diag;
        assert_int_equal(import_text(text, &(ossa_maya_desc){.rotate_order = orders[i]}, &out, &diag), OSSA_OK);
        const ossa_float3 v = ossa_quat_rotate(sample_joint(&out, 0, 0.0, NULL).rotation, (ossa_float3){0.f, 1.f, 0.f});
        assert_near(v.x, expect[i].x, 1e-6);
        assert_near(v.y, expect[i].y, 1e-6);
        assert_near(v.z, expect[i].z, 1e-6);
        ossa_import_output_destroy(&out);
    }
}

/* For every rotate order: a joint whose rest rotation has three Euler angles and whose file
 * animates one axis keeps the other two angles of its rest pose. */
static void test_rest_euler_all_orders(void **state)
{
    (void)state;
    const char *orders[6] = {"xyz", "yzx", "zxy", "xzy", "zyx", "yxz"};
    const double rest_angles[3] = {20 * DEG, -35 * DEG, 50 * DEG}; /* about x, y, z */
    for (int o = 0; o < 6; ++o) {
        const char *order = orders[o];
        double animated[3] = {rest_angles[0], rest_angles[1], rest_angles[2]};
        const int axis = order[1] - 'x'; /* the middle axis: its angle is the asin branch */
        animated[axis] = 10 * DEG;
        ossa_quat rest = {0.f, 0.f, 0.f, 1.f}, want = rest;
        for (int i = 0; i < 3; ++i) { /* order[0] applied first: leftmost factor last */
            rest = qmul(axis_angle(order[i] - 'x', rest_angles[order[i] - 'x']), rest);
            want = qmul(axis_angle(order[i] - 'x', animated[order[i] - 'x']), want);
        }
        ossa_raw_skeleton bind = {0};
        ossa_raw_skeleton_create(&bind, 1, NULL);
        ossa_raw_skeleton_set_name(&bind, 0, "j");
        bind.joints[0].rest.rotation = rest;
        char text[512];
        snprintf(text, sizeof text,
                 HEADER "anim rotate.rotate%c rotate%c j 0 0 0;\nanimData {\n  output angular;\n  keys {\n"
                        "    0 10 linear linear 1 1 0;\n" CLOSE,
                 'X' + axis, 'X' + axis);
        ossa_import_output out = {0};
        ossa_diag diag;
        assert_int_equal(
            import_text(text, &(ossa_maya_desc){.bind_skeleton = &bind, .rotate_order = order}, &out, &diag), OSSA_OK);
        assert_near(quat_angle(sample_joint(&out, 0, 0.0, NULL).rotation, want), 0.0, 1e-5);
        ossa_import_output_destroy(&out);
        ossa_raw_skeleton_destroy(&bind);
    }
}

/* Every tangent type, a weighted curve and all infinities (the clip is longer than the keys)
 * on translate, rotate and scale: every resample time is a key, holding the curves' value
 * there (the importer does not reduce; the builders do). */
static void test_resample_matches_curves(void **state)
{
    (void)state;
    const char *text = HEADER
        "startTime -10;\nendTime 60;\n"
        "anim translate.translateX translateX a 0 0 0;\nanimData {\n  preInfinity oscillate;\n  postInfinity cycle;\n"
        "  keys {\n    0 0 spline spline 1 1 0;\n    7 12 clamped clamped 1 1 0;\n    13 -4 plateau plateau 1 1 0;\n"
        "    20 3 auto auto 1 1 0;\n  }\n}\n"
        "anim translate.translateY translateY a 0 0 1;\nanimData {\n  weighted 1;\n  postInfinity cycleRelative;\n"
        "  keys {\n    0 0 fixed fixed 0 0 0 10 2 80 4;\n    15 5 fixed fixed 0 0 0 -20 6 30 1;\n"
        "    20 9 linear linear 1 1 0;\n  }\n}\n"
        "anim rotate.rotateZ rotateZ a 0 0 2;\nanimData {\n  output angular;\n  preInfinity linear;\n"
        "  postInfinity linear;\n  keys {\n    0 -30 autoease autoease 1 1 0;\n    8 80 automix automix 1 1 0;\n"
        "    16 10 slow fast 1 1 0;\n    24 120 flat flat 1 1 0;\n  }\n}\n"
        "anim rotate.rotateX rotateX a 0 0 3;\nanimData {\n  output angular;\n  keys {\n"
        "    0 0 spline step 1 1 0;\n    5 40 spline stepnext 1 1 0;\n    10 -20 linear linear 1 1 0;\n  }\n}\n"
        "anim scale.scaleY scaleY b 0 0 0;\nanimData {\n  output unitless;\n  keys {\n"
        "    0 1 spline spline 1 1 0;\n    30 2.5 spline spline 1 1 0;\n  }\n}\n";
    ossa_maya_anim anim;
    ossa_diag diag;
    assert_int_equal(ossa_maya_anim_parse(text, strlen(text), NULL, &anim, &diag), OSSA_OK);
    ossa_import_output out = {0};
    assert_int_equal(import_text(text, &(ossa_maya_desc){.sample_rate = 30.f}, &out, &diag), OSSA_OK);
    assert_int_equal(ossa_raw_animation_validate(&out.animations[0], &diag), OSSA_OK);
    assert_near(out.animations[0].duration, 70.0 / 24, 1e-6);
    /* Float rounding of the evaluated values only. */
    check_against_curves(&out, &anim, -10, 30.0, 1e-5, "xyz", NULL);
    /* 70 frames at 24 fps resampled at 30 Hz: 88 grid times (0 .. 87/30 s) and the end. */
    const size_t samples = 89;
    assert_int_equal(out.animations[0].tracks[0].translation_count, samples);
    assert_int_equal(out.animations[0].tracks[0].rotation_count, samples);
    assert_int_equal(out.animations[0].tracks[1].scale_count, samples);
    assert_near(out.animations[0].tracks[0].translations[samples - 1].time, 70.0 / 24, 1e-6);
    bake(&out);
    ossa_import_output_destroy(&out);
    ossa_maya_anim_destroy(&anim);
}

static void test_user_tracks_and_range(void **state)
{
    (void)state;
    /* No startTime/endTime: the clip covers the keys (frames 2 .. 8). The visibility step
     * switches at frame 5; the driven key curve (input unitless) is skipped. */
    const char *text =
        HEADER "anim visibility visibility a 0 0 0;\nanimData {\n  output unitless;\n  keys {\n"
               "    2 1 spline step 1 1 0;\n    5 0 spline step 1 1 0;\n    8 1 spline step 1 1 0;\n" CLOSE
               "anim driven driven a 0 0 1;\nanimData {\n  input unitless;\n  output unitless;\n  keys {\n"
               "    0 0 linear linear 1 1 0;\n    1 4 linear linear 1 1 0;\n" CLOSE
               "anim lonely 0 0 0;\nanimData {\n  output unitless;\n  keys {\n"
               "    2 3 linear linear 1 1 0;\n    8 6 linear linear 1 1 0;\n" CLOSE;
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "start_time", "0.0833333333");
    assert_metadata(&out, "unitless_input_curves", "1");
    assert_metadata(&out, "sample_rate", "24");
    assert_near(out.animations[0].duration, 6.0 / 24, 1e-7);
    assert_int_equal(out.track_count, 2);
    const ossa_raw_track *vis = &out.tracks[0];
    assert_string_equal(vis->name, "a.visibility");
    assert_int_equal(ossa_raw_track_validate(vis, &diag), OSSA_OK);
    float v[4];
    const float ratios[4] = {0.f, 0.49f, 0.5f, 1.f}, want[4] = {1.f, 1.f, 0.f, 1.f};
    for (int i = 0; i < 4; ++i) {
        ossa_raw_track_evaluate(vis, ratios[i], v);
        assert_near(v[0], want[i], 0);
    }
    assert_int_equal(vis->keys[0].interpolation, OSSA_INTERP_STEP);
    /* A curve connected to no node keeps its attribute name; 7 samples over 6 frames at 24 Hz,
     * which the track optimiser reduces to the 2 of the linear curve. */
    assert_string_equal(out.tracks[1].name, "lonely");
    assert_int_equal(out.tracks[1].key_count, 7);
    ossa_raw_track lonely = {0};
    assert_int_equal(ossa_track_optimize(&out.tracks[1], NULL, &lonely, &diag), OSSA_OK);
    assert_int_equal(lonely.key_count, 2);
    ossa_raw_track_destroy(&lonely);
    ossa_raw_track_evaluate(&out.tracks[1], 0.5f, v);
    assert_near(v[0], 4.5, 1e-6);
    assert_near(out.tracks[1].duration, 0.25, 1e-7);
    ossa_import_output_destroy(&out);
    /* endTime before startTime. */
    const char *backwards = HEADER "startTime 5;\nendTime 2;\n" CURVE_X "    0 1 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(backwards, NULL, &out, &diag), OSSA_ERROR_INVALID_ANIMATION);
    assert_empty(&out);
}

/* Keys that stop before endTime (a file cut after a curve) bake, with a warning that names
 * both frames; keys up to endTime (within half a frame) give none. */
static void test_keys_end_before_end_time(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    char warning[256];
    const char *cut = HEADER "startTime 0;\nendTime 24;\n" CURVE_X "    0 1 linear linear 1 1 0;\n"
                             "    12 3 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(cut, NULL, &out, &diag), OSSA_OK);
    assert_near(out.animations[0].duration, 1.0, 1e-6); /* the declared range is kept */
    assert_true(ossa_import_output_metadata(&out, "warning", warning, sizeof warning));
    assert_non_null(strstr(warning, "frame 12"));
    assert_non_null(strstr(warning, "endTime is 24"));
    assert_non_null(strstr(warning, "0.5 s"));
    ossa_import_output_destroy(&out);
    const char *whole = HEADER "startTime 0;\nendTime 24;\n" CURVE_X "    0 1 linear linear 1 1 0;\n"
                               "    23.6 3 linear linear 1 1 0;\n" CLOSE;
    assert_int_equal(import_text(whole, NULL, &out, &diag), OSSA_OK);
    assert_false(ossa_import_output_metadata(&out, "warning", warning, sizeof warning));
    ossa_import_output_destroy(&out);
}

static void test_detect(void **state)
{
    (void)state;
    const char *yes[] = {"animVersion 1.1;", "// exported\n# by hand\r\n  animVersion\t1.0;", HEADER};
    const char *no[] = {"", "animVersion", "animVersions 1.1;", "%YAML 1.1\n--- !u!74 &7400000", "// animVersion 1.1;"};
    for (size_t i = 0; i < 3; ++i) assert_true(ossa_maya_anim_detect(yes[i], strlen(yes[i])));
    for (size_t i = 0; i < 5; ++i) assert_false(ossa_maya_anim_detect(no[i], strlen(no[i])));
    assert_false(ossa_maya_anim_detect(NULL, 10));
    assert_false(ossa_maya_anim_detect("animVersion 1.1;", 11)); /* never reads past size */
}

static void test_desc_errors(void **state)
{
    (void)state;
    const char *text = HEADER CURVE_X "    0 1 linear linear 1 1 0;\n" CLOSE;
    const ossa_maya_desc bad[] = {
        {.rotate_order = "xxy"}, {.rotate_order = "xy"}, {.rotate_order = "abc"},
        {.sample_rate = 1e6f},   {.sample_rate = 1e-5f}, {.sample_rate = -30.f},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; ++i) {
        ossa_import_output out = {0};
        ossa_diag diag;
        assert_int_equal(import_text(text, &bad[i], &out, &diag), OSSA_ERROR_INVALID_ARGUMENT);
        assert_empty(&out);
    }
    ossa_diag diag;
    assert_int_equal(ossa_import_maya_anim(text, strlen(text), NULL, NULL, &diag), OSSA_ERROR_NULL_ARGUMENT);
    ossa_import_output out = {0};
    assert_int_equal(ossa_import_maya_anim(NULL, 5, NULL, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    /* An invalid bind skeleton is reported as such. */
    ossa_raw_skeleton bind = {0};
    ossa_raw_skeleton_create(&bind, 2, NULL);
    bind.joints[0].parent = 1;
    bind.joints[1].parent = 0;
    assert_int_equal(import_text(text, &(ossa_maya_desc){.bind_skeleton = &bind}, &out, &diag),
                     OSSA_ERROR_INVALID_SKELETON);
    ossa_raw_skeleton_destroy(&bind);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_example_file),
        cmocka_unit_test(test_front_file),
        cmocka_unit_test(test_kamae_file),
        cmocka_unit_test(test_nonconforming_file),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_units),
        cmocka_unit_test(test_version_10),
        cmocka_unit_test(test_bind_skeleton),
        cmocka_unit_test(test_rotate_order),
        cmocka_unit_test(test_rest_euler_all_orders),
        cmocka_unit_test(test_resample_matches_curves),
        cmocka_unit_test(test_user_tracks_and_range),
        cmocka_unit_test(test_keys_end_before_end_time),
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_desc_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
