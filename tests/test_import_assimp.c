/* The assimp importer against values computed here from the source files' own text: BVH
 * hierarchies and MOTION numbers, glTF JSON, FBX GlobalSettings, Collada <unit>/<up_axis>. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_gltf.h"
#include "test_util.h"

#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP

/* ---- a small independent BVH reader ---- */

typedef struct bvh_joint {
    char name[64];
    int parent;
    bool end_site;
    double offset[3];
    int channel_first, channel_count;
    char channels[6][12];
} bvh_joint;

typedef struct bvh_file {
    bvh_joint joints[160];
    int joint_count, end_sites, channel_total, frames;
    double frame_time;
    double *motion; /* [frames * channel_total] */
} bvh_file;

static const char *next_token(const char **p, char *token, size_t size)
{
    while (**p == ' ' || **p == '\t' || **p == '\r' || **p == '\n') ++*p;
    size_t n = 0;
    while (**p && **p != ' ' && **p != '\t' && **p != '\r' && **p != '\n') {
        if (n + 1 < size) token[n++] = **p;
        ++*p;
    }
    token[n] = '\0';
    return n ? token : NULL;
}

static void bvh_parse(const char *text, bvh_file *b)
{
    memset(b, 0, sizeof *b);
    const char *p = text;
    char tok[64];
    int stack[64], depth = 0, current = -1;
    while (next_token(&p, tok, sizeof tok) && strcmp(tok, "MOTION") != 0) {
        if (!strcmp(tok, "ROOT") || !strcmp(tok, "JOINT") || !strcmp(tok, "End")) {
            assert_true(b->joint_count < 160);
            bvh_joint *j = &b->joints[b->joint_count];
            j->parent = depth ? stack[depth - 1] : -1;
            j->end_site = tok[0] == 'E';
            next_token(&p, tok, sizeof tok); /* the name, or "Site" */
            if (j->end_site) {
                char parent[64];
                memcpy(parent, b->joints[j->parent].name, sizeof parent);
                snprintf(j->name, sizeof j->name, "EndSite_%.55s", parent);
                b->end_sites++;
            } else {
                snprintf(j->name, sizeof j->name, "%s", tok);
            }
            current = b->joint_count++;
        } else if (!strcmp(tok, "{")) {
            stack[depth++] = current;
        } else if (!strcmp(tok, "}")) {
            --depth;
        } else if (!strcmp(tok, "OFFSET")) {
            for (int i = 0; i < 3; ++i) b->joints[current].offset[i] = strtod(next_token(&p, tok, sizeof tok), NULL);
        } else if (!strcmp(tok, "CHANNELS")) {
            bvh_joint *j = &b->joints[current];
            j->channel_count = atoi(next_token(&p, tok, sizeof tok));
            j->channel_first = b->channel_total;
            b->channel_total += j->channel_count;
            for (int i = 0; i < j->channel_count; ++i)
                snprintf(j->channels[i], 12, "%s", next_token(&p, tok, sizeof tok));
        }
    }
    next_token(&p, tok, sizeof tok); /* Frames: */
    b->frames = atoi(next_token(&p, tok, sizeof tok));
    next_token(&p, tok, sizeof tok); /* Frame */
    next_token(&p, tok, sizeof tok); /* Time: */
    b->frame_time = strtod(next_token(&p, tok, sizeof tok), NULL);
    size_t count = (size_t)b->frames * (size_t)b->channel_total;
    b->motion = calloc(count ? count : 1, sizeof *b->motion);
    assert_non_null(b->motion);
    char *end;
    for (size_t i = 0; i < count; ++i, p = end) b->motion[i] = strtod(p, &end);
}

/* Channel `name` ("Xrotation") of joint j at frame f, in the file's units. */
static double bvh_value(const bvh_file *b, int j, int f, const char *name)
{
    for (int c = 0; c < b->joints[j].channel_count; ++c)
        if (!strcmp(b->joints[j].channels[c], name))
            return b->motion[(size_t)f * (size_t)b->channel_total + (size_t)(b->joints[j].channel_first + c)];
    fail_msg("joint %s has no channel %s", b->joints[j].name, name);
    return 0;
}

/* BVH rotation channels apply in the order listed, each about the rotated frame:
 * M = R(first) * R(second) * R(third), so q = q1 * q2 * q3 (Hamilton products). */
static void bvh_rotation(const bvh_file *b, int j, int f, double q[4])
{
    q[0] = q[1] = q[2] = 0, q[3] = 1;
    for (int c = 0; c < b->joints[j].channel_count; ++c) {
        const char *name = b->joints[j].channels[c];
        if (strcmp(name + 1, "rotation") != 0) continue;
        double half = bvh_value(b, j, f, name) * 3.14159265358979323846 / 360.0;
        double r[4] = {0, 0, 0, cos(half)};
        r[name[0] - 'X'] = sin(half);
        double o[4] = {q[3] * r[0] + q[0] * r[3] + q[1] * r[2] - q[2] * r[1],
                       q[3] * r[1] - q[0] * r[2] + q[1] * r[3] + q[2] * r[0],
                       q[3] * r[2] + q[0] * r[1] - q[1] * r[0] + q[2] * r[3],
                       q[3] * r[3] - q[0] * r[0] - q[1] * r[1] - q[2] * r[2]};
        memcpy(q, o, sizeof o);
    }
}

static void assert_same_rotation(ossa_quat q, const double e[4], double tolerance)
{
    double dot = (double)q.x * e[0] + (double)q.y * e[1] + (double)q.z * e[2] + (double)q.w * e[3];
    if (fabs(fabs(dot) - 1.0) > tolerance)
        fail_msg("rotation (%g %g %g %g) != expected (%g %g %g %g)", (double)q.x, (double)q.y, (double)q.z, (double)q.w,
                 e[0], e[1], e[2], e[3]);
}

/* ---- shared checks ---- */

/* cmocka's assert_float_equal compares in float; these tolerances are in double. */
#define assert_near(a, b, tolerance) assert_near_at((double)(a), (double)(b), (double)(tolerance), __LINE__)

static void assert_near_at(double a, double b, double tolerance, int line)
{
    if (!(fabs(a - b) <= tolerance)) fail_msg("line %d: %.9g != %.9g (tolerance %g)", line, a, b, tolerance);
}

static void assert_empty(const ossa_import_output *out)
{
    assert_int_equal(out->skeleton.joint_count, 0);
    assert_null(out->skeleton.joints);
    assert_int_equal(out->animation_count, 0);
    assert_null(out->animations);
    assert_null(out->metadata);
}

static void assert_valid(const ossa_import_output *out)
{
    ossa_diag diag = {0};
    assert_int_equal(ossa_raw_skeleton_validate(&out->skeleton, &diag), OSSA_OK);
    assert_true(ossa_raw_skeleton_is_depth_first(&out->skeleton));
    for (size_t i = 0; i < out->animation_count; ++i) {
        if (ossa_raw_animation_validate(&out->animations[i], &diag) != OSSA_OK) fail_msg("%s", diag.message);
        assert_int_equal(out->animations[i].track_count, out->skeleton.joint_count);
    }
}

static void assert_metadata(const ossa_import_output *out, const char *key, const char *expected)
{
    char value[128];
    if (!ossa_import_output_metadata(out, key, value, sizeof value)) fail_msg("no metadata '%s'", key);
    if (strcmp(value, expected) != 0) fail_msg("metadata %s=%s, expected %s", key, value, expected);
}

static int find_joint(const ossa_raw_skeleton *s, const char *name)
{
    for (size_t i = 0; i < s->joint_count; ++i)
        if (!strcmp(s->joints[i].name, name)) return (int)i;
    fail_msg("no joint '%s'", name);
    return -1;
}

static char *read_model(const char *relative, size_t *size)
{
    char shown[256];
    snprintf(shown, sizeof shown, "%s", ossa_test_assimp_path(relative));
    return ossa_test_read_or_skip(shown, shown, size);
}

static ossa_result import(const void *data, size_t size, const ossa_assimp_desc *desc, ossa_import_output *out,
                          ossa_diag *diag)
{
    *out = (ossa_import_output){0};
    *diag = (ossa_diag){0};
    return ossa_import_assimp(data, size, desc, out, diag);
}

/* ---- BVH ---- */

static void check_cmu_bvh(const char *relative, int rotated_joint)
{
    size_t size;
    char *text = read_model(relative, &size);
    bvh_file *b = malloc(sizeof *b);
    assert_non_null(b);
    bvh_parse(text, b);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag), OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.skeleton.joint_count, b->joint_count);
    for (int j = 0; j < b->joint_count; ++j) {
        assert_string_equal(out.skeleton.joints[j].name, b->joints[j].name);
        assert_int_equal(out.skeleton.joints[j].parent, b->joints[j].parent);
        const ossa_float3 rest = out.skeleton.joints[j].rest.translation;
        const double offset[3] = {(double)rest.x, (double)rest.y, (double)rest.z};
        for (int k = 0; k < 3 && j; ++k) assert_near(offset[k], b->joints[j].offset[k], 1e-5);
    }
    assert_int_equal(out.animation_count, 1);
    const ossa_raw_animation *anim = &out.animations[0];
    /* assimp's BVH clip ends on the last frame: (frames - 1) * frame time. */
    assert_near((double)anim->duration, (b->frames - 1) * b->frame_time, 1e-6 * b->frames);
    const ossa_raw_joint_track *root = &anim->tracks[0];
    assert_int_equal(root->translation_count, b->frames);
    int frames[2] = {0, b->frames > 100 ? 100 : b->frames - 1};
    for (int i = 0; i < 2; ++i) {
        const ossa_raw_float3_key *k = &root->translations[frames[i]];
        assert_near((double)k->time, frames[i] * b->frame_time, 1e-5);
        assert_near((double)k->value.x, bvh_value(b, 0, frames[i], "Xposition"), 1e-4);
        assert_near((double)k->value.y, bvh_value(b, 0, frames[i], "Yposition"), 1e-4);
        assert_near((double)k->value.z, bvh_value(b, 0, frames[i], "Zposition"), 1e-4);
        for (int j = 0; j < b->joint_count; j += rotated_joint) {
            if (b->joints[j].end_site) continue;
            double q[4];
            bvh_rotation(b, j, frames[i], q);
            assert_int_equal(anim->tracks[j].rotation_count, b->frames);
            assert_same_rotation(anim->tracks[j].rotations[frames[i]].value, q, 2e-6);
        }
    }
    assert_metadata(&out, "format", "assimp:bvh");
    assert_metadata(&out, "source_units", "unknown");
    assert_metadata(&out, "unit_scale", "1");
    ossa_import_output_destroy(&out);

    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "bvh", .drop_end_sites = true}, &out, &diag),
                     OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.skeleton.joint_count, b->joint_count - b->end_sites);
    for (size_t j = 0; j < out.skeleton.joint_count; ++j) assert_null(strstr(out.skeleton.joints[j].name, "EndSite_"));
    ossa_import_output_destroy(&out);
    free(b->motion);
    free(b);
    free(text);
}

/* The 1-based line of the first occurrence of `needle` in `text`. */
static size_t count_lines_before(const char *text, const char *needle)
{
    const char *at = strstr(text, needle);
    size_t line = 1;
    for (const char *p = text; at && p < at; ++p) line += *p == '\n';
    return line;
}

static void test_bvh_cmu_01_01(void **state)
{
    (void)state;
    check_cmu_bvh("BVH/01_01.bvh", 1);
}

static void test_bvh_other_files(void **state)
{
    (void)state;
    check_cmu_bvh("BVH/01_03.bvh", 5);
    check_cmu_bvh("BVH/Boxing_Toes.bvh", 3);
}

/* Written here with values whose keys are known by hand. */
static const char small_bvh[] =
    "HIERARCHY\n"
    "ROOT hips\n{\n  OFFSET 0 0 0\n"
    "  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n"
    "  JOINT spine\n  {\n    OFFSET 0 1.5 -2\n    CHANNELS 3 Yrotation Xrotation Zrotation\n"
    "    End Site\n    {\n      OFFSET 0 0.25 0\n    }\n  }\n}\n"
    "MOTION\nFrames: 3\nFrame Time: 0.5\n"
    "1 2 3 0 0 0 0 0 0\n"
    "4 5 6 90 0 0 0 0 -90\n"
    "-7 8.5 9 90 90 0 90 0 0\n";

static void test_bvh_small_round_trip(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(small_bvh, sizeof small_bvh - 1, &(ossa_assimp_desc){.format_hint = ".bvh"}, &out, &diag),
                     OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[1].name, "spine");
    assert_string_equal(out.skeleton.joints[2].name, "EndSite_spine");
    assert_int_equal(out.skeleton.joints[2].parent, 1);
    assert_true(out.skeleton.joints[1].rest.translation.y == 1.5f && out.skeleton.joints[1].rest.translation.z == -2.f);
    assert_true(out.skeleton.joints[2].rest.translation.y == .25f);
    const ossa_raw_animation *a = &out.animations[0];
    assert_true(a->duration == 1.f);
    assert_string_equal(a->name, "Motion");
    const float t[3][3] = {{1, 2, 3}, {4, 5, 6}, {-7, 8.5f, 9}};
    assert_int_equal(a->tracks[0].translation_count, 3);
    for (int f = 0; f < 3; ++f) {
        assert_true(a->tracks[0].translations[f].time == .5f * (float)f);
        assert_true(a->tracks[0].translations[f].value.x == t[f][0] &&
                    a->tracks[0].translations[f].value.y == t[f][1] && a->tracks[0].translations[f].value.z == t[f][2]);
    }
    const double h = sqrt(.5);
    /* hips (Z then X): identity; Z 90; Z 90 * X 90 = (.5, .5, .5, .5). spine (Y X Z): identity;
     * Z -90; Y 90. End site: its rest offset, one key. */
    const double hips[3][4] = {{0, 0, 0, 1}, {0, 0, h, h}, {.5, .5, .5, .5}};
    const double spine[3][4] = {{0, 0, 0, 1}, {0, 0, -h, h}, {0, h, 0, h}};
    for (int f = 0; f < 3; ++f) {
        assert_same_rotation(a->tracks[0].rotations[f].value, hips[f], 1e-6);
        assert_same_rotation(a->tracks[1].rotations[f].value, spine[f], 1e-6);
    }
    assert_int_equal(a->tracks[1].translation_count, 1);
    assert_true(a->tracks[1].translations[0].value.y == 1.5f);
    assert_int_equal(a->tracks[2].translation_count, 1);
    assert_int_equal(a->tracks[2].rotation_count, 1);
    assert_true(a->tracks[2].translations[0].value.y == .25f && a->tracks[2].scales[0].value.x == 1.f);
    ossa_import_output_destroy(&out);

    /* Without a hint assimp recognises BVH by its content. */
    assert_int_equal(import(small_bvh, sizeof small_bvh - 1, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_metadata(&out, "format", "assimp:bvh");
    ossa_import_output_destroy(&out);
    assert_int_equal(import(small_bvh, sizeof small_bvh - 1, &(ossa_assimp_desc){.drop_end_sites = true}, &out, &diag),
                     OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 2);
    ossa_import_output_destroy(&out);
}

/* ---- glTF ---- */

/* Counts the numbers in the first JSON array after `key` (after `after` when not NULL). */
static int json_array_length(const char *text, const char *after, const char *key)
{
    const char *p = after ? strstr(text, after) : text;
    assert_non_null(p);
    p = strstr(p, key);
    assert_non_null(p);
    p = strchr(p, '[');
    int count = 0;
    for (++p; *p && *p != ']'; ++p)
        if ((*p >= '0' && *p <= '9') && !(p[-1] >= '0' && p[-1] <= '9')) ++count;
    return count;
}

/* Occurrences of `needle` in `size` bytes (binary safe). */
static size_t count_text(const char *data, size_t size, const char *needle)
{
    size_t n = strlen(needle), count = 0;
    for (size_t i = 0; i + n <= size; ++i) count += memcmp(data + i, needle, n) == 0;
    return count;
}

static const char *find_bytes(const char *data, size_t size, const char *needle, size_t n)
{
    for (size_t i = 0; i + n <= size; ++i)
        if (memcmp(data + i, needle, n) == 0) return data + i;
    return NULL;
}

static void test_gltf_cesium_man(void **state)
{
    (void)state;
    size_t size;
    char *text =
        ossa_test_read_or_skip(ossa_test_shared_path("gltf/cesium_man.gltf"), "DATA/gltf/cesium_man.gltf", &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "gltf"}, &out, &diag), OSSA_OK);
    assert_valid(&out);
    /* The skin's 19 joints plus their two ancestors: node 0, the scene root turning Z-up into
     * Y-up (matrix columns (1,0,0) (0,0,-1) (0,1,0): -90 degrees about X), and node 21, an
     * identity group; assimp names unnamed nodes "nodes[<index>]". */
    int skin_joints = json_array_length(text, "\"skins\"", "\"joints\"");
    assert_int_equal(skin_joints, 19);
    assert_int_equal(out.skeleton.joint_count, (size_t)skin_joints + 2);
    assert_string_equal(out.skeleton.joints[0].name, "nodes[0]");
    assert_string_equal(out.skeleton.joints[1].name, "nodes[21]");
    assert_int_equal(out.skeleton.joints[1].parent, 0);
    const double turn[4] = {-sqrt(.5), 0, 0, sqrt(.5)};
    assert_same_rotation(out.skeleton.joints[0].rest.rotation, turn, 1e-6);
    assert_int_equal(out.animation_count, 1);
    assert_string_equal(out.animations[0].name, "animation0");
    assert_near((double)out.animations[0].duration, 2.0, 1.0 / 30);
    /* 57 channels: translation, rotation and scale of each skin joint. */
    assert_int_equal(count_text(text, size, "\"path\""), 3 * skin_joints);
    for (size_t j = 2; j < out.skeleton.joint_count; ++j) {
        const ossa_raw_joint_track *t = &out.animations[0].tracks[j];
        assert_true(t->translation_count > 1 && t->rotation_count > 1 && t->scale_count > 1);
    }
    assert_int_equal(out.animations[0].tracks[0].rotation_count, 1);
    assert_metadata(&out, "format", "assimp:gltf");
    assert_metadata(&out, "source_units", "m");
    assert_metadata(&out, "up_axis", "+y");
    ossa_import_output_destroy(&out);
    free(text);
}

typedef struct read_log {
    int calls;
    char first[128];
    ossa_result fail_with;
} read_log;

static ossa_result read_shared_gltf(const char *path, void **data, size_t *size, void *user)
{
    read_log *log = user;
    log->calls++;
    if (log->calls == 1) snprintf(log->first, sizeof log->first, "%s", path);
    if (log->fail_with) return log->fail_with;
    char relative[160];
    snprintf(relative, sizeof relative, "gltf/%s", path);
    *data = ossa_test_read_file(ossa_test_shared_path(relative), size);
    return *data ? OSSA_OK : OSSA_ERROR_IO;
}

static void test_gltf_external_buffer(void **state)
{
    (void)state;
    size_t size;
    char *text = ossa_test_read_or_skip(ossa_test_shared_path("gltf/interpolation_test.gltf"),
                                        "DATA/gltf/interpolation_test.gltf", &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    read_log log = {0};
    ossa_assimp_desc desc = {.format_hint = "gltf", .read_file = read_shared_gltf, .read_file_user = &log};
    assert_int_equal(import(text, size, &desc, &out, &diag), OSSA_OK);
    assert_valid(&out);
    assert_int_equal(log.calls, 1);
    assert_string_equal(log.first, "interpolation_test.bin");
    /* Nine animations (one per interpolation and path), each driving one node. */
    assert_int_equal(out.animation_count, count_text(text, size, "\"samplers\""));
    assert_int_equal(out.animation_count, 9);
    assert_string_equal(out.animations[0].name, "Step Scale");
    assert_string_equal(out.animations[8].name, "Linear Translation");
    ossa_import_output_destroy(&out);

    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "gltf"}, &out, &diag), OSSA_ERROR_PARSE);
    assert_non_null(strstr(diag.message, "interpolation_test.bin"));
    assert_non_null(strstr(diag.message, "no read_file"));
    assert_empty(&out);

    log = (read_log){.fail_with = OSSA_ERROR_IO};
    assert_int_equal(import(text, size, &desc, &out, &diag), OSSA_ERROR_PARSE);
    assert_non_null(strstr(diag.message, "ERROR_IO"));
    /* Once per spelling: assimp retries a missing file as "./<name>". */
    assert_string_equal(log.first, "interpolation_test.bin");
    assert_true(log.calls >= 1 && log.calls <= 2);
    assert_empty(&out);
    free(text);
}

static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) | (i + 2 < n ? in[i + 2] : 0);
        *out++ = digits[v >> 18];
        *out++ = digits[(v >> 12) & 63];
        *out++ = i + 1 < n ? digits[(v >> 6) & 63] : '=';
        *out++ = i + 2 < n ? digits[v & 63] : '=';
    }
    *out = '\0';
}

/* A skinned triangle with joints "hip" (at y 1) and "knee" (y -0.5 below it); when `times`
 * is given, one animation moves the knee through (k, 0, 0) at times[k]. */
static char *skinned_gltf(const float *times, int key_count)
{
    struct {
        float pos[9];
        uint16_t joints[12];
        float weights[12];
        float ibm[32];
        float times[8];
        float values[24];
    } buf = {{0, 0, 0, 1, 0, 0, 0, 1, 0},
             {0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
             {1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0},
             {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -1, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, -.5f, 0, 1},
             {0},
             {0}};
    for (int k = 0; k < key_count; ++k) buf.times[k] = times[k], buf.values[3 * k] = (float)k;
    static char b64[512], json[4096];
    base64((const unsigned char *)&buf, sizeof buf, b64);
    const char *anim = "";
    char anim_text[512];
    if (times) {
        snprintf(anim_text, sizeof anim_text,
                 ",\"animations\":[{\"name\":\"walk\",\"channels\":[{\"sampler\":0,\"target\":{\"node\":2,\"path\":"
                 "\"translation\"}}],\"samplers\":[{\"input\":4,\"output\":5}]}]");
        anim = anim_text;
    }
    snprintf(json, sizeof json,
             "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,1]}],"
             "\"nodes\":[{\"name\":\"body\",\"mesh\":0,\"skin\":0},{\"name\":\"hip\",\"translation\":[0,1,0],"
             "\"children\":[2]},"
             "{\"name\":\"knee\",\"translation\":[0,-0.5,0]}],"
             "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2}}]}],"
             "\"skins\":[{\"joints\":[1,2],\"inverseBindMatrices\":3}],"
             "\"buffers\":[{\"byteLength\":%zu,\"uri\":\"data:application/octet-stream;base64,%s\"}],"
             "\"bufferViews\":[{\"buffer\":0,\"byteOffset\":0,\"byteLength\":36},{\"buffer\":0,\"byteOffset\":36,"
             "\"byteLength\":24},"
             "{\"buffer\":0,\"byteOffset\":60,\"byteLength\":48},{\"buffer\":0,\"byteOffset\":108,\"byteLength\":128},"
             "{\"buffer\":0,\"byteOffset\":236,\"byteLength\":32},{\"buffer\":0,\"byteOffset\":268,\"byteLength\":96}],"
             "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":3,\"type\":\"VEC3\",\"min\":[0,0,0],"
             "\"max\":[1,1,0]},"
             "{\"bufferView\":1,\"componentType\":5123,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":2,\"componentType\":5126,\"count\":3,\"type\":\"VEC4\"},"
             "{\"bufferView\":3,\"componentType\":5126,\"count\":2,\"type\":\"MAT4\"},"
             "{\"bufferView\":4,\"componentType\":5126,\"count\":%d,\"type\":\"SCALAR\"},"
             "{\"bufferView\":5,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\"}]%s}",
             sizeof buf, b64, key_count ? key_count : 1, key_count ? key_count : 1, anim);
    return json;
}

/* Reads files beside AnimatedMorphCube.gltf (the read_file callback). */
static ossa_result read_beside_model(const char *path, void **data, size_t *size, void *user)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", (const char *)user, path);
    *data = ossa_test_read_file(full, size);
    return *data ? OSSA_OK : OSSA_ERROR_IO;
}

/* Morph-target weights through assimp (the path FBX blend-shape channels take): a glTF with
 * weights only becomes one float track per target, with no skeleton, and equals the native
 * glTF importer's tracks at every ratio. */
static void test_morph_weights(void **state)
{
    (void)state;
    size_t size;
    char *text = read_model("glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF/AnimatedMorphCube.gltf", &size);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", ossa_test_assimp_path("glTF2/glTF-Sample-Models/AnimatedMorphCube-glTF"));
    ossa_import_output out = {0}, native = {0};
    ossa_diag diag = {0};
    const ossa_assimp_desc desc = {.format_hint = "gltf", .read_file = read_beside_model, .read_file_user = dir};
    assert_int_equal(import(text, size, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_int_equal(out.animation_count, 0);
    assert_int_equal(out.track_count, 2);
    assert_string_equal(out.tracks[0].name, "Cube.0");
    assert_string_equal(out.tracks[1].name, "Cube.1");
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
    const ossa_gltf_desc gdesc = {.read_file = read_beside_model, .read_file_user = dir};
    assert_int_equal(ossa_import_gltf(text, size, &gdesc, &native, &diag), OSSA_OK);
    assert_int_equal(native.track_count, 2);
    for (size_t t = 0; t < 2; ++t) {
        assert_string_equal(native.tracks[t].name, out.tracks[t].name);
        assert_float_equal(native.tracks[t].duration, out.tracks[t].duration, 1e-6);
        for (int i = 0; i <= 200; ++i) {
            float a[4], b[4];
            ossa_raw_track_evaluate(&out.tracks[t], (float)i / 200.f, a);
            ossa_raw_track_evaluate(&native.tracks[t], (float)i / 200.f, b);
            assert_float_equal(a[0], b[0], 1e-6);
        }
    }
    ossa_import_output_destroy(&native);
#endif
    ossa_import_output_destroy(&out);
    free(text);
}

static void test_gltf_generated(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    const ossa_assimp_desc desc = {.format_hint = "gltf"};
    char *json = skinned_gltf(NULL, 0);
    /* A skin and no animation: the skeleton alone. The mesh node is no joint. */
    assert_int_equal(import(json, strlen(json), &desc, &out, &diag), OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.skeleton.joint_count, 2);
    assert_string_equal(out.skeleton.joints[0].name, "hip");
    assert_int_equal(out.skeleton.joints[1].parent, 0);
    assert_true(out.skeleton.joints[1].rest.translation.y == -.5f);
    assert_int_equal(out.animation_count, 0);
    ossa_import_output_destroy(&out);

    /* Times 0 1 1 2: the two keys at 1 s merge into the later one (value 2). */
    json = skinned_gltf((const float[]){0, 1, 1, 2}, 4);
    assert_int_equal(import(json, strlen(json), &desc, &out, &diag), OSSA_OK);
    assert_valid(&out);
    const ossa_raw_joint_track *knee = &out.animations[0].tracks[1];
    assert_int_equal(knee->translation_count, 3);
    assert_true(knee->translations[1].time == 1.f && knee->translations[1].value.x == 2.f);
    assert_true(knee->translations[2].time == 2.f && knee->translations[2].value.x == 3.f);
    /* Channels the file leaves out hold the rest pose, not the identity. */
    assert_int_equal(out.animations[0].tracks[0].translation_count, 1);
    assert_true(out.animations[0].tracks[0].translations[0].value.y == 1.f);
    assert_true(out.animations[0].duration == 2.f);
    assert_string_equal(out.animations[0].name, "walk");
    ossa_import_output_destroy(&out);

    /* Times 0 1 -1 2: sorted, and shifted by 1 s so the first key is at 0. */
    json = skinned_gltf((const float[]){0, 1, -1, 2}, 4);
    assert_int_equal(import(json, strlen(json), &desc, &out, &diag), OSSA_OK);
    assert_valid(&out);
    knee = &out.animations[0].tracks[1];
    assert_int_equal(knee->translation_count, 4);
    const float expect_time[4] = {0, 1, 2, 3}, expect_x[4] = {2, 0, 1, 3};
    for (int k = 0; k < 4; ++k)
        assert_true(knee->translations[k].time == expect_time[k] && knee->translations[k].value.x == expect_x[k]);
    assert_true(out.animations[0].duration == 3.f);
    ossa_import_output_destroy(&out);

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
    /* A skin without inverseBindMatrices (valid glTF; assimp 5.2 crashes on it) is refused
     * before assimp reads it, as .gltf text and as the JSON chunk of a binary glTF. */
    json = skinned_gltf(NULL, 0);
    char *key = strstr(json, ",\"inverseBindMatrices\":3");
    assert_non_null(key);
    memmove(key, key + strlen(",\"inverseBindMatrices\":3"), strlen(key + strlen(",\"inverseBindMatrices\":3")) + 1);
    assert_int_equal(import(json, strlen(json), &desc, &out, &diag), OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "skin 0 has no inverseBindMatrices"));
    const size_t n = strlen(json), padded = (n + 3) & ~(size_t)3;
    unsigned char *glb = calloc(1, 20 + padded);
    assert_non_null(glb);
    const uint32_t words[5] = {0x46546c67u, 2, (uint32_t)(20 + padded), (uint32_t)padded, 0x4e4f534au};
    for (int w = 0; w < 5; ++w)
        for (int b = 0; b < 4; ++b) glb[4 * w + b] = (unsigned char)(words[w] >> (8 * b));
    memcpy(glb + 20, json, n);
    memset(glb + 20 + n, ' ', padded - n);
    assert_int_equal(import(glb, 20 + padded, &(ossa_assimp_desc){.format_hint = "glb"}, &out, &diag),
                     OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "inverseBindMatrices"));
    free(glb);
#endif
}

/* ---- FBX and Collada ---- */

/* A binary FBX property P: "<name>", "double", "Number", "", <double> of GlobalSettings:
 * a string record is 'S' + uint32 length + bytes, a double 'D' + 8 bytes, little-endian. */
static double fbx_global_double(const char *data, size_t size, const char *name)
{
    char pattern[64];
    size_t n = strlen(name);
    pattern[0] = 'S', pattern[1] = (char)n, pattern[2] = pattern[3] = pattern[4] = 0;
    memcpy(pattern + 5, name, n);
    const char *p = find_bytes(data, size, pattern, n + 5);
    assert_non_null(p);
    p += n + 5;
    for (int i = 0; i < 3; ++i) {
        assert_int_equal(p[0], 'S');
        p += 5 + ((unsigned char)p[1] | (unsigned char)p[2] << 8);
    }
    assert_int_equal(p[0], 'D');
    unsigned char b[8];
    memcpy(b, p + 1, 8);
    uint64_t bits = 0;
    for (int i = 7; i >= 0; --i) bits = bits << 8 | b[i];
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static void check_fbx(const char *relative, int bone_count, const char *unit)
{
    size_t size;
    char *data = read_model(relative, &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(data, size, &(ossa_assimp_desc){.format_hint = "fbx"}, &out, &diag), OSSA_OK);
    assert_valid(&out);
    /* Blender's armature: the "Armature" object (animated) over bones "Bone", "Bone.001", ...
     * Its "_end" leaves are neither bones nor animated, and "RootNode" is an identity container. */
    assert_int_equal(out.skeleton.joint_count, (size_t)bone_count + 1);
    assert_string_equal(out.skeleton.joints[0].name, "Armature");
    assert_int_equal(out.skeleton.joints[0].parent, -1);
    char name[32];
    for (int b = 0; b < bone_count; ++b) {
        snprintf(name, sizeof name, b ? "Bone.%03d" : "Bone", b);
        assert_true(find_joint(&out.skeleton, name) > 0);
    }
    assert_int_equal(out.animation_count, 1);
    /* Blender bakes whole frames at CustomFrameRate. */
    double fps = fbx_global_double(data, size, "CustomFrameRate");
    double frames = (double)out.animations[0].duration * fps;
    assert_true(frames >= 1 && fabs(frames - round(frames)) < 1e-3);
    double factor = fbx_global_double(data, size, "UnitScaleFactor");
    char scale[32];
    snprintf(scale, sizeof scale, "%.9g", factor / 100);
    assert_metadata(&out, "format", "assimp:fbx");
    assert_metadata(&out, "source_units", unit);
    assert_metadata(&out, "unit_scale", scale);
    assert_metadata(&out, "up_axis", "+y");
    ossa_import_output_destroy(&out);
    free(data);
}

static void test_fbx(void **state)
{
    (void)state;
    check_fbx("FBX/animation_with_skeleton.fbx", 14, "cm");
    check_fbx("FBX/huesitos.fbx", 9, "cm");
    size_t size;
    char *data = read_model("FBX/spider.fbx", &size);
    ossa_import_output out = {0};
    ossa_diag diag;
    /* spider.fbx has meshes only: no bone, no animation stack. */
    assert_int_equal(count_text(data, size, "AnimationStack"), 0);
    assert_int_equal(import(data, size, &(ossa_assimp_desc){.format_hint = "fbx"}, &out, &diag),
                     OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "no skeleton or animation found"));
    assert_empty(&out);
    free(data);
}

static void test_collada(void **state)
{
    (void)state;
    size_t size;
    char *text = read_model("Collada/box_nested_animation.dae", &size);
    /* <unit meter="1"/>, <up_axis>Z_UP</up_axis>: assimp turns the root -90 degrees about X. */
    const char *unit = strstr(text, "<unit");
    assert_non_null(unit);
    assert_near(strtod(strstr(unit, "meter=\"") + 7, NULL), 1.0, 0);
    assert_non_null(strstr(text, "<up_axis>Z_UP</up_axis>"));
    const char *input = strstr(text, "-input-array\" count=\"");
    assert_non_null(input);
    long key_count = strtol(input + 21, NULL, 10);
    const char *last = strstr(input, "</float_array>");
    while (last[-1] != ' ') --last;
    double end = strtod(last, NULL);

    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "dae"}, &out, &diag), OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.skeleton.joint_count, 3);
    assert_string_equal(out.skeleton.joints[1].name, "Armature");
    assert_string_equal(out.skeleton.joints[2].name, "Armature_Bone");
    const double turn[4] = {-sqrt(.5), 0, 0, sqrt(.5)};
    assert_same_rotation(out.skeleton.joints[0].rest.rotation, turn, 1e-6);
    assert_int_equal(out.animation_count, 1);
    assert_int_equal(out.animations[0].tracks[2].rotation_count, key_count);
    assert_near((double)out.animations[0].duration, end, 1e-5);
    assert_metadata(&out, "format", "assimp:dae");
    assert_metadata(&out, "source_units", "m");
    assert_metadata(&out, "unit_scale", "1");
    ossa_import_output_destroy(&out);
    free(text);
}

/* ---- formats found by asking assimp ---- */

/* LightWave scenes are not in ossa's own extension list: detection asks the linked assimp.
 * move_x.lws moves its object along x with three keys of channel 0 ("Key value time ..."),
 * read here from the text, and holds y at channel 1's value. */
static void test_lightwave_scene(void **state)
{
    (void)state;
    assert_int_equal(ossa_import_detect("LWSC", 4, "scene.lws"), OSSA_FORMAT_ASSIMP);
    assert_int_equal(ossa_import_detect("", 0, "frames.md2"), OSSA_FORMAT_ASSIMP);
    assert_true(ossa_assimp_reads_extension(".lws"));
    assert_false(ossa_assimp_reads_extension("ossa-not-a-format"));
    size_t size;
    char *text = read_model("LWS/move_x.lws", &size);
    double times[3], values[3], y;
    const char *at = strstr(text, "Channel 0");
    assert_non_null(at);
    for (int k = 0; k < 3; ++k) {
        at = strstr(at, "Key ");
        assert_non_null(at);
        char *end;
        values[k] = strtod(at + 4, &end);
        times[k] = strtod(end, NULL);
        at = end;
    }
    at = strstr(strstr(text, "Channel 1"), "Key ");
    y = strtod(at + 4, NULL);
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(text, size, &(ossa_assimp_desc){.format_hint = "lws"}, &out, &diag), OSSA_OK);
    assert_valid(&out);
    assert_int_equal(out.animation_count, 1);
    const ossa_raw_joint_track *t = &out.animations[0].tracks[0];
    assert_int_equal(t->translation_count, 3);
    for (int k = 0; k < 3; ++k) {
        assert_near(t->translations[k].time, times[k], 1e-6);
        assert_near(t->translations[k].value.x, values[k], 1e-6);
        assert_near(t->translations[k].value.y, y, 1e-6);
    }
    ossa_import_output_destroy(&out);
    free(text);
    /* MD2 animates vertices: the refusal says so. */
    char *md2 = read_model("MD2/faerie.md2", &size);
    assert_int_equal(import(md2, size, &(ossa_assimp_desc){.format_hint = "md2"}, &out, &diag),
                     OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "animates vertices"));
    free(md2);
}

/* ---- bad input ---- */

static void test_bad_input(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    static unsigned char garbage[4096];
    uint32_t seed = 12345;
    for (size_t i = 0; i < sizeof garbage; ++i) garbage[i] = (unsigned char)ossa_test_rand(&seed);
    assert_int_equal(import(garbage, sizeof garbage, &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag),
                     OSSA_ERROR_PARSE);
    assert_non_null(strstr(diag.message, "HIERARCHY"));
    assert_empty(&out);
    ossa_import_output_destroy(&out);
    ossa_result r = import(garbage, sizeof garbage, NULL, &out, &diag);
    assert_true(r == OSSA_ERROR_PARSE || r == OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_true(diag.message[0] != '\0');
    assert_empty(&out);

    assert_int_equal(import("", 0, NULL, &out, &diag), OSSA_ERROR_PARSE);
    assert_non_null(strstr(diag.message, "empty"));
    assert_int_equal(import(NULL, 0, NULL, &out, &diag), OSSA_ERROR_PARSE);
    assert_empty(&out);
    assert_int_equal(import(NULL, 10, NULL, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_import_assimp(small_bvh, 10, NULL, NULL, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(import(small_bvh, 10, &(ossa_assimp_desc){.format_hint = "b/h"}, &out, &diag),
                     OSSA_ERROR_INVALID_ARGUMENT);

    /* Cut inside the MOTION numbers and inside the hierarchy. */
    size_t cut = strlen(small_bvh) - 12;
    int lines = 1;
    for (size_t i = 0; i < cut; ++i) lines += small_bvh[i] == '\n';
    assert_int_equal(import(small_bvh, cut, &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, lines);
    assert_non_null(strstr(diag.message, "end of file"));
    assert_empty(&out);
    /* assimp 5.2 leaks the nodes it has built when the hierarchy is cut (BVHLoader::ReadNode
     * throws before linking them), which LeakSanitizer would report against this test. */
#if !defined(__SANITIZE_ADDRESS__)
    assert_int_equal(import(small_bvh, 60, &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, 5);
    assert_empty(&out);
#endif
    ossa_import_output_destroy(&out);

    /* A translation beyond float range; a Frame Time of 0 (an infinite tick rate). */
    char bad[sizeof small_bvh + 8];
    const char *frame1 = strstr(small_bvh, "\n4 5 6");
    snprintf(bad, sizeof bad, "%.*s\n4e99%s", (int)(frame1 - small_bvh), small_bvh, frame1 + 2);
    assert_int_equal(import(bad, strlen(bad), &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag),
                     OSSA_ERROR_INVALID_KEY);
    assert_non_null(strstr(diag.message, "translation key 1"));
    assert_empty(&out);
    memcpy(bad, small_bvh, sizeof small_bvh);
    memcpy(strstr(bad, "Time: 0.5") + 6, "0.0", 3);
    assert_int_equal(import(bad, strlen(bad), &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag),
                     OSSA_ERROR_INVALID_ANIMATION);
    assert_non_null(strstr(diag.message, "ticks per second"));
    assert_empty(&out);
    /* Frames x Frame Time over a day: refused from the header, before assimp reads a frame
     * (a 100 MB file would otherwise be parsed first); with the header's line. */
    const char *const long_clips[] = {"1e5", "3e4", "1e30"};
    for (size_t i = 0; i < 3; ++i) {
        const char *time_at = strstr(small_bvh, "Time: 0.5") + 6;
        snprintf(bad, sizeof bad, "%.*s%s%s", (int)(time_at - small_bvh), small_bvh, long_clips[i], time_at + 3);
        assert_int_equal(import(bad, strlen(bad), &(ossa_assimp_desc){.format_hint = "bvh"}, &out, &diag),
                         OSSA_ERROR_INVALID_ANIMATION);
        assert_non_null(strstr(diag.message, "expected at most 86400 s"));
        assert_int_equal(diag.line, count_lines_before(bad, "Frames:"));
        assert_empty(&out);
    }

    /* The key budget: small_bvh declares 3 frames of 2 joints with CHANNELS, 12 keys. 11 is
     * refused from the header, with its line; 12 is enough. */
    assert_int_equal(
        import(small_bvh, sizeof small_bvh - 1, &(ossa_assimp_desc){.format_hint = "bvh", .max_keys = 11}, &out, &diag),
        OSSA_ERROR_INVALID_ANIMATION);
    assert_string_equal(diag.message, "BVH declares 3 frames of 2 moving joints, 12 keys; more than the import's "
                                      "budget of 11 keys (max_keys)");
    assert_int_equal(diag.line, count_lines_before(small_bvh, "Frames:"));
    assert_empty(&out);
    assert_int_equal(
        import(small_bvh, sizeof small_bvh - 1, &(ossa_assimp_desc){.format_hint = "bvh", .max_keys = 12}, &out, &diag),
        OSSA_OK);
    ossa_import_output_destroy(&out);

    /* A valid scene with neither bones nor animation: assimp reads it, ossa finds nothing. */
    const char obj[] = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    assert_int_equal(import(obj, sizeof obj - 1, NULL, &out, &diag), OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "no skeleton or animation found"));
    assert_empty(&out);
    /* Named as a static-geometry format, it is refused before assimp reads it: an OFF header
     * declaring 35 billion vertices (assimp-testmodels' invalid/OutOfMemory.off) returns at once. */
    assert_int_equal(import(obj, sizeof obj - 1, &(ossa_assimp_desc){.format_hint = "obj"}, &out, &diag),
                     OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "static geometry"));
    assert_empty(&out);
    const char off[] = "OFF\n35353523535 8 6 0\n-0.5 -0.5 0.5\n";
    assert_int_equal(import(off, sizeof off - 1, &(ossa_assimp_desc){.format_hint = "off"}, &out, &diag),
                     OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, ".off file holds static geometry"));
    assert_empty(&out);
    /* Other formats are counted on assimp's scene: cesium_man's glTF, channel by channel. Last,
     * since without the data folder the case is reported as skipped after the checks above. */
    size_t man_size = 0;
    char *man =
        ossa_test_read_or_skip(ossa_test_shared_path("gltf/cesium_man.gltf"), "DATA/gltf/cesium_man.gltf", &man_size);
    assert_int_equal(import(man, man_size, &(ossa_assimp_desc){.format_hint = "gltf", .max_keys = 100}, &out, &diag),
                     OSSA_ERROR_INVALID_ANIMATION);
    assert_non_null(strstr(diag.message, "keys; more than the import's budget of 100 keys (max_keys)"));
    assert_empty(&out);
    free(man);
}

/* A root with `children` animated children, each with an end site. */
static char *wide_bvh(int children)
{
    size_t capacity = 256 + (size_t)children * 160;
    char *text = malloc(capacity);
    assert_non_null(text);
    size_t n = (size_t)snprintf(text, capacity,
                                "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 6 Xposition Yposition "
                                "Zposition Zrotation Xrotation Yrotation\n");
    for (int i = 0; i < children; ++i)
        n += (size_t)snprintf(text + n, capacity - n,
                              "JOINT j%d\n{\nOFFSET %d 0 0\nCHANNELS 3 Zrotation Xrotation Yrotation\n"
                              "End Site\n{\nOFFSET 0 1 0\n}\n}\n",
                              i, i);
    n += (size_t)snprintf(text + n, capacity - n, "}\nMOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0 0");
    for (int i = 0; i < children; ++i) n += (size_t)snprintf(text + n, capacity - n, " 0 0 %d", i % 90);
    snprintf(text + n, capacity - n, "\n");
    return text;
}

static void test_too_many_joints(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag;
    const ossa_assimp_desc keep = {.format_hint = "bvh"}, drop = {.format_hint = "bvh", .drop_end_sites = true};
    /* 1 + 1023 joints fit exactly once the end sites go; 1 + 1024 do not. */
    char *text = wide_bvh(OSSA_MAX_JOINTS - 1);
    assert_int_equal(import(text, strlen(text), &drop, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, OSSA_MAX_JOINTS);
    assert_valid(&out);
    ossa_import_output_destroy(&out);
    assert_int_equal(import(text, strlen(text), &keep, &out, &diag), OSSA_ERROR_TOO_MANY_JOINTS);
    assert_non_null(strstr(diag.message, "2047 joints"));
    assert_empty(&out);
    free(text);
    text = wide_bvh(OSSA_MAX_JOINTS);
    assert_int_equal(import(text, strlen(text), &drop, &out, &diag), OSSA_ERROR_TOO_MANY_JOINTS);
    assert_empty(&out);
    free(text);
}

typedef struct counting {
    long live;
    long total;
} counting;

static void *count_alloc(size_t size, void *user)
{
    ((counting *)user)->live++, ((counting *)user)->total++;
    return aligned_alloc(16, (size + 15) & ~(size_t)15);
}

static void count_free(void *ptr, void *user)
{
    if (ptr) ((counting *)user)->live--;
    free(ptr);
}

static void test_allocator(void **state)
{
    (void)state;
    counting c = {0};
    const ossa_allocator allocator = {count_alloc, count_free, &c};
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import(small_bvh, strlen(small_bvh),
                            &(ossa_assimp_desc){.format_hint = "bvh", .allocator = &allocator}, &out, &diag),
                     OSSA_OK);
    assert_true(c.total > 0 && c.live > 0);
    ossa_import_output_destroy(&out);
    assert_int_equal(c.live, 0);
    assert_int_equal(import(small_bvh, strlen(small_bvh) - 12,
                            &(ossa_assimp_desc){.format_hint = "bvh", .allocator = &allocator}, &out, &diag),
                     OSSA_ERROR_PARSE);
    assert_int_equal(c.live, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bvh_cmu_01_01),
        cmocka_unit_test(test_bvh_other_files),
        cmocka_unit_test(test_bvh_small_round_trip),
        cmocka_unit_test(test_gltf_cesium_man),
        cmocka_unit_test(test_gltf_external_buffer),
        cmocka_unit_test(test_gltf_generated),
        cmocka_unit_test(test_fbx),
        cmocka_unit_test(test_morph_weights),
        cmocka_unit_test(test_collada),
        cmocka_unit_test(test_lightwave_scene),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_too_many_joints),
        cmocka_unit_test(test_allocator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#else /* built without assimp */

static void test_unsupported(void **state)
{
    (void)state;
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_assimp("HIERARCHY", 9, NULL, &out, &diag), OSSA_ERROR_UNSUPPORTED_FORMAT);
    assert_non_null(strstr(diag.message, "assimp"));
    assert_int_equal(out.skeleton.joint_count, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_unsupported)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}

#endif
