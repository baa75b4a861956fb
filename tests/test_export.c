/* ossa export on a character the test writes (a BVH of 33 joints: spine, two arms with two
 * fingers each, two legs; 41 frames at 30 Hz, swinging limbs, fingers held bent, the head
 * still): the GLB read back by ossa's glTF importer and by assimp is the archive within the
 * rotation quantisation, baked again it stays within the tolerance of what it was baked from,
 * and its animation bytes are within 4x of the archive's animation chunk. And the bake records
 * its tolerance in META, where the viewer's error colours turn red. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ossa/archive.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_gltf.h"
#include "test_util.h"
#include "tools.h"

#define PI 3.14159265358979323846

/* The bake tolerance of these tests, metres (the default). */
#define TOLERANCE 1e-4f

/* The largest angle, radians, between a unit quaternion and the normalised SHORT one ossa export
 * writes for it: each component off by at most half of 1/32767, so the quaternions at most
 * sqrt(4) x 1.53e-5 = 3.05e-5 apart, which is half the angle. */
#define QUANTISATION_ANGLE 6.11e-5f

/* ossa bake in process on one encoding thread (the AArch64 tests run under qemu-user). */
static int run_bake(int argc, const char **argv)
{
    const char *args[32];
    assert_true(argc + 2 <= 32);
    for (int i = 0; i < argc; ++i) args[i] = argv[i];
    args[argc++] = "--threads", args[argc++] = "1";
    return tool_bake(argc, (char **)(uintptr_t)args);
}

/* Skips the calling test when this build reads no BVH (built without assimp). */
static void need_assimp(void)
{
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        if (f->format == OSSA_FORMAT_ASSIMP && f->available) return;
    }
    print_message("skipped: this build has no assimp (BVH) support\n");
    skip();
}

typedef struct text {
    char *s;
    size_t n, cap;
} text;

static void add(text *t, const char *format, ...)
{
    va_list ap, again;
    va_start(ap, format);
    va_copy(again, ap);
    const int n = vsnprintf(NULL, 0, format, ap);
    va_end(ap);
    assert_true(n >= 0);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = 2 * (t->n + (size_t)n + 1);
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    vsnprintf(t->s + t->n, (size_t)n + 1, format, again);
    va_end(again);
    t->n += (size_t)n;
}

/* The character's joints: name, parent (index, -1 for the root), offset in cm, and how it
 * moves: 's' swings (three sines of its own amplitude and phase), 'b' is held bent (a constant
 * rotation away from its rest pose, the same in both hands), 'r' stays at rest. */
typedef struct joint {
    const char *name;
    int parent;
    float offset[3];
    char motion;
} joint;

static const joint character[] = {
    {"Hips", -1, {0, 90, 0}, 's'},        {"Spine", 0, {0, 10, 0}, 's'},
    {"Spine1", 1, {0, 12, 0}, 's'},       {"Neck", 2, {0, 15, 0}, 's'},
    {"Head", 3, {0, 8, 0}, 'r'},          {"LShoulder", 2, {6, 12, 0}, 's'},
    {"LArm", 5, {12, 0, 0}, 's'},         {"LForeArm", 6, {26, 0, 0}, 's'},
    {"LHand", 7, {24, 0, 0}, 's'},        {"LFinger0", 8, {8, 0, 2}, 'b'},
    {"LFinger01", 9, {3, 0, 0}, 'b'},     {"LFinger02", 10, {2.5f, 0, 0}, 'b'},
    {"LFinger1", 8, {8, 0, -2}, 'b'},     {"LFinger11", 12, {3, 0, 0}, 'b'},
    {"LFinger12", 13, {2.5f, 0, 0}, 'b'}, {"RShoulder", 2, {-6, 12, 0}, 's'},
    {"RArm", 15, {-12, 0, 0}, 's'},       {"RForeArm", 16, {-26, 0, 0}, 's'},
    {"RHand", 17, {-24, 0, 0}, 's'},      {"RFinger0", 18, {-8, 0, 2}, 'b'},
    {"RFinger01", 19, {-3, 0, 0}, 'b'},   {"RFinger02", 20, {-2.5f, 0, 0}, 'b'},
    {"RFinger1", 18, {-8, 0, -2}, 'b'},   {"RFinger11", 22, {-3, 0, 0}, 'b'},
    {"RFinger12", 23, {-2.5f, 0, 0}, 'b'}, {"LUpLeg", 0, {9, -5, 0}, 's'},
    {"LLeg", 25, {0, -42, 0}, 's'},       {"LFoot", 26, {0, -40, 0}, 's'},
    {"LToe", 27, {0, -8, 12}, 's'},       {"RUpLeg", 0, {-9, -5, 0}, 's'},
    {"RLeg", 29, {0, -42, 0}, 's'},       {"RFoot", 30, {0, -40, 0}, 's'},
    {"RToe", 31, {0, -8, 12}, 's'},
};
#define JOINTS (sizeof character / sizeof *character)
#define FRAMES 41

static void write_joint(text *t, size_t j, int depth)
{
    const joint *c = &character[j];
    add(t, "%*s%s %s\n%*s{\n%*sOFFSET %g %g %g\n", 2 * depth, "", j ? "JOINT" : "ROOT", c->name, 2 * depth, "",
        2 * depth + 2, "", (double)c->offset[0], (double)c->offset[1], (double)c->offset[2]);
    add(t, "%*sCHANNELS %s\n", 2 * depth + 2, "",
        j ? "3 Zrotation Xrotation Yrotation" : "6 Xposition Yposition Zposition Zrotation Xrotation Yrotation");
    bool leaf = true;
    for (size_t k = j + 1; k < JOINTS; ++k)
        if (character[k].parent == (int)j) write_joint(t, k, depth + 1), leaf = false;
    if (leaf) add(t, "%*sEnd Site\n%*s{\n%*sOFFSET 0 2 0\n%*s}\n", 2 * depth + 2, "", 2 * depth + 2, "", 2 * depth + 4,
                  "", 2 * depth + 2, "");
    add(t, "%*s}\n", 2 * depth, "");
}

/* Writes the character's BVH (centimetres) to the scratch folder; returns its path. */
static const char *character_bvh(void)
{
    text t = {0};
    add(&t, "HIERARCHY\n");
    write_joint(&t, 0, 0);
    add(&t, "MOTION\nFrames: %d\nFrame Time: 0.0333333\n", FRAMES);
    for (int f = 0; f < FRAMES; ++f) {
        const double time = f / 30.0, w = 2 * 3.14159265358979 / 1.3333;
        add(&t, "%.4f %.4f %.4f", 0.5 * sin(w * time), 90 + 2 * sin(2 * w * time), 100 * time);
        for (size_t j = 0; j < JOINTS; ++j)
            for (int c = 0; c < 3; ++c) {
                double angle = 0;
                const double phase = 0.7 * (double)j + 2.1 * c, amplitude = 4 + (double)((j * 7 + (size_t)c * 3) % 29);
                if (character[j].motion == 's') angle = amplitude * sin(w * time + phase);
                if (character[j].motion == 'b') {
                    /* Held the same in both hands: by the finger's place in its hand. */
                    const char *name = character[j].name; /* "LFinger12": finger 1, joint 2 */
                    const double finger = (double)(5 * (name[7] - '0') + 2 * ((int)strlen(name) - 8));
                    angle = c == 0 ? 20 + finger : 3 * c;
                }
                add(&t, " %.4f", angle);
            }
        add(&t, "\n");
    }
    const char *path = ossa_test_scratch_path("character.bvh");
    ossa_test_write_file(path, t.s, t.n);
    free(t.s);
    return path;
}

/* A GLB's JSON chunk parsed, and its binary chunk. */
typedef struct glb {
    uint8_t *bytes;
    size_t size;
    cJSON *json;
    const uint8_t *bin;
    size_t bin_size;
} glb;

static glb read_glb(const char *path)
{
    glb g = {0};
    g.bytes = ossa_test_read_file(path, &g.size);
    assert_non_null(g.bytes);
    uint32_t json_size, bin_size;
    assert_true(g.size >= 28);
    memcpy(&json_size, g.bytes + 12, 4);
    assert_true(20 + (size_t)json_size + 8 <= g.size);
    memcpy(&bin_size, g.bytes + 20 + json_size, 4);
    assert_true(28 + (size_t)json_size + bin_size == g.size);
    g.json = cJSON_ParseWithLength((const char *)g.bytes + 20, json_size);
    assert_non_null(g.json);
    g.bin = g.bytes + 28 + json_size;
    g.bin_size = bin_size;
    return g;
}

static void free_glb(glb *g) { cJSON_Delete(g->json), free(g->bytes); }

static int number(const cJSON *object, const char *key)
{
    const cJSON *n = cJSON_GetObjectItemCaseSensitive(object, key);
    return cJSON_IsNumber(n) ? n->valueint : 0;
}

/* What the GLB's animations cost: the bytes of the accessors their samplers read (each
 * padded to 4, as written) and, as JSON text, the "animations" array and those accessors.
 * *rotation_keys gets the keys of the rotation outputs of more than one key. */
static size_t animation_bytes(const glb *g, size_t *rotation_keys, int *short_rotations)
{
    const cJSON *accessors = cJSON_GetObjectItemCaseSensitive(g->json, "accessors");
    const cJSON *animations = cJSON_GetObjectItemCaseSensitive(g->json, "animations");
    const size_t count = (size_t)cJSON_GetArraySize(accessors);
    bool *used = calloc(count + 1, 1);
    assert_non_null(used);
    char *printed = cJSON_PrintUnformatted(animations);
    size_t total = strlen(printed) + 2 + strlen("\"animations\":");
    free(printed);
    *rotation_keys = 0, *short_rotations = 0;
    const cJSON *anim, *sampler;
    cJSON_ArrayForEach(anim, animations)
    {
        const cJSON *samplers = cJSON_GetObjectItemCaseSensitive(anim, "samplers");
        const cJSON *channels = cJSON_GetObjectItemCaseSensitive(anim, "channels");
        int s = 0;
        cJSON_ArrayForEach(sampler, samplers)
        {
            used[number(sampler, "input")] = used[number(sampler, "output")] = true;
            const cJSON *output = cJSON_GetArrayItem(accessors, number(sampler, "output"));
            const cJSON *channel = cJSON_GetArrayItem(channels, s++);
            const cJSON *path = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(channel, "target"), "path");
            assert_true(cJSON_IsString(path));
            if (!strcmp(path->valuestring, "rotation") && number(output, "count") > 1) {
                *rotation_keys += (size_t)number(output, "count");
                *short_rotations += number(output, "componentType") == 5122 &&
                                    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(output, "normalized"));
            }
        }
    }
    for (size_t i = 0; i < count; ++i) {
        if (!used[i]) continue;
        const cJSON *a = cJSON_GetArrayItem(accessors, (int)i);
        printed = cJSON_PrintUnformatted(a);
        total += strlen(printed) + 1;
        free(printed);
        const char *type = cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring;
        const size_t comps = !strcmp(type, "SCALAR") ? 1 : !strcmp(type, "VEC3") ? 3 : 4;
        const size_t size = number(a, "componentType") == 5122 ? 2 : 4;
        total += ((size_t)number(a, "count") * comps * size + 3) & ~(size_t)3;
    }
    free(used);
    return total;
}

/* The first clip of `path`'s archive, its skeleton, and the bytes they point into. */
typedef struct baked {
    void *bytes;
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    size_t anim_chunk;
} baked;

static baked open_baked(const char *path)
{
    baked b;
    b.bytes = ossa_test_open_archive(path, &b.ar);
    assert_int_equal(ossa_archive_skeleton(&b.ar, &b.skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&b.ar, 0, &b.anim), OSSA_OK);
    ossa_archive_chunk chunk;
    assert_int_equal(ossa_archive_find(&b.ar, OSSA_TAG_ANIMATION, 0, &chunk), OSSA_OK);
    b.anim_chunk = chunk.size;
    return b;
}

/* The first clip of `out` with a track per joint of `skel`, matched by name (the import's
 * tracks moved into it): a joint the import does not have gets its rest pose, and none of its
 * children may be there (assimp leaves out the ends of the hierarchy that no channel moves). Parents must match. Destroy it with
 * ossa_raw_animation_destroy. */
static ossa_raw_animation in_skeleton_order(ossa_import_output *out, const ossa_skeleton *skel)
{
    const size_t J = skel->joint_count;
    assert_true(out->animation_count >= 1);
    ossa_raw_animation ordered, *raw = &out->animations[0];
    assert_int_equal(ossa_raw_animation_create(&ordered, J, NULL), OSSA_OK);
    ordered.duration = raw->duration;
    bool *found = calloc(J, sizeof *found);
    assert_non_null(found);
    for (size_t j = 0; j < out->skeleton.joint_count; ++j) {
        const int k = ossa_skeleton_find_joint(skel, out->skeleton.joints[j].name);
        if (k < 0) fail_msg("joint \"%s\" of the GLB is not the archive's", out->skeleton.joints[j].name);
        const int32_t p = out->skeleton.joints[j].parent;
        const int expected = skel->parents[k];
        if (p < 0 ? expected >= 0 : ossa_skeleton_find_joint(skel, out->skeleton.joints[p].name) != expected)
            fail_msg("joint \"%s\": another parent in the GLB", out->skeleton.joints[j].name);
        const ossa_raw_joint_track moved = raw->tracks[j];
        raw->tracks[j] = ordered.tracks[k];
        ordered.tracks[k] = moved;
        found[k] = true;
    }
    for (size_t k = 0; k < J; ++k) {
        if (found[k]) continue;
        for (size_t c = k + 1; c < J; ++c)
            if (found[c] && skel->parents[c] == (int16_t)k)
                fail_msg("joint \"%s\" is missing, its child is there", ossa_skeleton_joint_name(skel, k));
        const ossa_transform rest = ossa_skeleton_rest_transform(skel, k);
        assert_int_equal(ossa_raw_joint_track_resize(&ordered, k, 1, 1, 1), OSSA_OK);
        ordered.tracks[k].translations[0].value = rest.translation;
        ordered.tracks[k].rotations[0].value = rest.rotation;
        ordered.tracks[k].scales[0].value = rest.scale;
    }
    free(found);
    return ordered;
}

/* The largest distance, metres, that rotation errors of `angle` radians at every joint can
 * move any joint in model space: the sum over its ancestors (and itself) of angle x their
 * distance to it (bones are rigid, so the rest pose's distances hold in every pose). */
static float rotation_bound(const ossa_skeleton *skel, float unit, float angle)
{
    const size_t J = skel->joint_count;
    ossa_float4x4 *model = malloc(J * sizeof *model);
    assert_non_null(model);
    float worst = 0.f;
    for (size_t j = 0; j < J; ++j) {
        const ossa_transform t = ossa_skeleton_rest_transform(skel, j);
        const ossa_float4x4 local = ossa_float4x4_from_transform(&t);
        model[j] = skel->parents[j] < 0 ? local : ossa_float4x4_mul(&model[skel->parents[j]], &local);
        float sum = 0.f;
        for (int a = skel->parents[j]; a >= 0; a = skel->parents[a]) {
            const float d[3] = {model[j].cols[3][0] - model[a].cols[3][0], model[j].cols[3][1] - model[a].cols[3][1],
                                model[j].cols[3][2] - model[a].cols[3][2]};
            sum += sqrtf(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
        }
        worst = fmaxf(worst, sum * unit * angle);
    }
    free(model);
    return worst;
}

static float measure(const baked *b, const ossa_raw_animation *raw)
{
    ossa_error_report rep;
    ossa_diag diag = {0};
    const ossa_error_desc desc = {.source_times = 1};
    assert_int_equal(ossa_measure_error(&b->skel, raw, &b->anim, &desc, &rep, &diag), OSSA_OK);
    return rep.max * ossa_archive_unit_scale(&b->ar);
}

/* The character baked at 0.1 mm, exported, and the GLB read back by ossa's glTF importer and by
 * assimp: both within the quantisation bound of the archive at every source sample and 60 Hz;
 * the GLB baked again (ossa bake reads .glb with ossa's importer) is within the tolerance of
 * the GLB and within twice the tolerance plus the quantisation of the character's BVH. */
static void export_round_trip_within_tolerance(void **state)
{
    (void)state;
    need_assimp();
    const char *bvh = character_bvh();
    char archive[512], out[512], again[512];
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("character.ossa"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("character.glb"));
    snprintf(again, sizeof again, "%s", ossa_test_scratch_path("again.ossa"));
    const char *bake[] = {bvh, "-o", archive, "-q", "--unit-scale", "0.01", "--tolerance", "0.0001"};
    assert_int_equal(run_bake(8, bake), 0);
    const char *exp[] = {archive, "-o", out};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    baked a = open_baked(archive);
    assert_true(a.skel.joint_count >= JOINTS); /* and the end sites */
    const float quantisation = rotation_bound(&a.skel, ossa_archive_unit_scale(&a.ar), QUANTISATION_ANGLE);
    assert_true(quantisation > 1e-5f && quantisation < 1e-3f);

    size_t size = 0;
    void *bytes = ossa_test_read_file(out, &size);
    assert_non_null(bytes);
    ossa_import_output native = {0}, other = {0}, source = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_gltf(bytes, size, NULL, &native, &diag), OSSA_OK);
    ossa_raw_animation native_raw = in_skeleton_order(&native, &a.skel);
    const float native_error = measure(&a, &native_raw);
    print_message("the GLB read by ossa's importer: %.4g mm from the archive (bound %.4g mm)\n",
                  (double)native_error * 1e3, (double)quantisation * 1e3);
    assert_true(native_error <= quantisation);
    /* SHORT rotations are exercised: the error is more than float rounding. */
    assert_true(native_error > 1e-7f);
    /* assimp without its July 2026 fix (Debian 12 has 5.2.5) reads normalised SHORT rotations
     * as floats (its issue 3560): it reads the --float-rotations export, within float rounding
     * and the slerp glTF asks for between keys. */
    char floats[512];
    snprintf(floats, sizeof floats, "%s", ossa_test_scratch_path("character_float.glb"));
    const char *exp_float[] = {archive, "-o", floats, "--float-rotations"};
    assert_int_equal(tool_export(4, (char **)(uintptr_t)exp_float), 0);
    size_t float_size = 0;
    void *float_bytes = ossa_test_read_file(floats, &float_size);
    assert_non_null(float_bytes);
    const ossa_assimp_desc glb_hint = {.format_hint = "glb"};
    const ossa_result assimp_read = ossa_import_assimp(float_bytes, float_size, &glb_hint, &other, &diag);
    if (assimp_read != OSSA_OK) fail_msg("assimp: %s: %s", ossa_result_name(assimp_read), diag.message);
    ossa_raw_animation assimp_raw = in_skeleton_order(&other, &a.skel);
    const float assimp_error = measure(&a, &assimp_raw);
    print_message("the --float-rotations GLB read by assimp: %.4g mm from the archive\n", (double)assimp_error * 1e3);
    assert_true(assimp_error <= 1e-5f);

    const char *rebake[] = {out, "-o", again, "-q", "--tolerance", "0.0001"};
    assert_int_equal(run_bake(6, rebake), 0);
    baked b = open_baked(again);
    assert_int_equal(b.skel.joint_count, a.skel.joint_count);
    for (size_t j = 0; j < a.skel.joint_count; ++j)
        assert_string_equal(ossa_skeleton_joint_name(&b.skel, j), ossa_skeleton_joint_name(&a.skel, j));
    assert_true(measure(&b, &native_raw) <= TOLERANCE * 1.0001f);
    size_t bvh_size = 0;
    void *bvh_bytes = ossa_test_read_file(bvh, &bvh_size);
    const ossa_assimp_desc bvh_hint = {.format_hint = "bvh"};
    assert_int_equal(ossa_import_assimp(bvh_bytes, bvh_size, &bvh_hint, &source, &diag), OSSA_OK);
    ossa_raw_animation source_raw = in_skeleton_order(&source, &a.skel);
    /* The source in centimetres, the archives in metres: scale the source's translations. */
    for (size_t j = 0; j < a.skel.joint_count; ++j)
        for (size_t k = 0; k < source_raw.tracks[j].translation_count; ++k) {
            ossa_float3 *v = &source_raw.tracks[j].translations[k].value;
            v->x *= .01f, v->y *= .01f, v->z *= .01f;
        }
    const float first = measure(&a, &source_raw), second = measure(&b, &source_raw);
    print_message("from the BVH: the archive %.4g mm, the GLB baked again %.4g mm\n", (double)first * 1e3,
                  (double)second * 1e3);
    assert_true(first <= TOLERANCE * 1.0001f);
    assert_true(second <= 2.f * TOLERANCE + quantisation);
    ossa_raw_animation_destroy(&native_raw), ossa_raw_animation_destroy(&assimp_raw);
    ossa_raw_animation_destroy(&source_raw);
    ossa_import_output_destroy(&native), ossa_import_output_destroy(&other), ossa_import_output_destroy(&source);
    free(bytes), free(float_bytes), free(bvh_bytes), free(a.bytes), free(b.bytes);
}

/* The character's GLB: its animations (their accessors' bytes and their JSON) within 4x of
 * the archive's animation chunk; every animated rotation a normalised SHORT output, and
 * --float-rotations writes them as FLOAT, exactly 8 bytes a key more in the binary chunk. */
static void export_bytes_within_4x_of_the_archive(void **state)
{
    (void)state;
    need_assimp();
    const char *bvh = character_bvh();
    char archive[512], out[512], floats[512];
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("bytes.ossa"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("bytes.glb"));
    snprintf(floats, sizeof floats, "%s", ossa_test_scratch_path("floats.glb"));
    const char *bake[] = {bvh, "-o", archive, "-q", "--unit-scale", "0.01", "--tolerance", "0.0001"};
    assert_int_equal(run_bake(8, bake), 0);
    const char *exp[] = {archive, "-o", out}, *exp_float[] = {archive, "-o", floats, "--float-rotations"};
    assert_int_equal(tool_export(3, (char **)(uintptr_t)exp), 0);
    assert_int_equal(tool_export(4, (char **)(uintptr_t)exp_float), 0);
    baked a = open_baked(archive);
    glb g = read_glb(out), f = read_glb(floats);
    size_t keys = 0, float_keys = 0;
    int shorts = 0, float_shorts = 0;
    const size_t bytes = animation_bytes(&g, &keys, &shorts);
    const size_t float_bytes = animation_bytes(&f, &float_keys, &float_shorts);
    const double ratio = (double)bytes / (double)a.anim_chunk;
    print_message("animation: %zu bytes in the GLB (of %zu), %zu in the archive: %.2fx (%.2fx with float rotations)\n",
                  bytes, g.size, a.anim_chunk, ratio, (double)float_bytes / (double)a.anim_chunk);
    assert_true(keys > 10 * FRAMES);
    assert_int_equal(keys, float_keys);
    assert_true(shorts > 10);
    assert_int_equal(float_shorts, 0);
    assert_int_equal(f.bin_size - g.bin_size, 8 * keys);
    assert_true(ratio <= 4.0);
    /* The fingers held alike in both hands share their samplers. */
    const cJSON *anim = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "animations"), 0);
    const int channels = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(anim, "channels"));
    const int samplers = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(anim, "samplers"));
    print_message("%d channels, %d samplers\n", channels, samplers);
    assert_true(channels >= samplers + 6);
    /* The skin lists exactly the leaf joints (the end sites), each with its matrix. */
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(g.json, "nodes"), *node, *leaf;
    const cJSON *skin = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "skins"), 0);
    int leaves = 0;
    cJSON_ArrayForEach(node, nodes) leaves += !cJSON_GetObjectItemCaseSensitive(node, "children");
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints");
    assert_int_equal(cJSON_GetArraySize(joints), leaves);
    cJSON_ArrayForEach(leaf, joints)
        assert_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(nodes, leaf->valueint), "children"));
    const cJSON *matrices =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "accessors"), number(skin, "inverseBindMatrices"));
    assert_int_equal(number(matrices, "count"), leaves);
    free_glb(&g), free_glb(&f), free(a.bytes);
}

/* ---- --mesh: a source's meshes and skins in the export ---- */

/* A glTF document (GLB or .gltf) and the bytes of its one buffer (the GLB's binary chunk, a
 * base64 data URI, or a file next to it). */
typedef struct doc {
    cJSON *json;
    uint8_t *buffer;
    size_t buffer_size;
    void *file, *owned;
} doc;

static int base64_digit(char c)
{
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

static doc read_doc(const char *path)
{
    doc d = {0};
    size_t size = 0;
    d.file = ossa_test_read_file(path, &size);
    assert_non_null(d.file);
    if (size >= 4 && !memcmp(d.file, "glTF", 4)) {
        glb g = read_glb(path);
        d.json = g.json;
        d.buffer = (uint8_t *)g.bin, d.buffer_size = g.bin_size;
        free(d.file);
        d.file = g.bytes;
        return d;
    }
    d.json = cJSON_ParseWithLength(d.file, size);
    assert_non_null(d.json);
    const cJSON *buffers = cJSON_GetObjectItemCaseSensitive(d.json, "buffers");
    assert_int_equal(cJSON_GetArraySize(buffers), 1);
    const char *uri = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(buffers, 0), "uri")->valuestring;
    if (!strncmp(uri, "data:", 5)) {
        const char *payload = strchr(uri, ',') + 1;
        d.owned = d.buffer = malloc(strlen(payload));
        assert_non_null(d.buffer);
        unsigned bits = 0, count = 0;
        for (; *payload && *payload != '='; ++payload) {
            const int v = base64_digit(*payload);
            assert_true(v >= 0);
            bits = (bits << 6) | (unsigned)v, count += 6;
            if (count >= 8) count -= 8, d.buffer[d.buffer_size++] = (uint8_t)(bits >> count);
        }
    } else {
        char file[1024];
        const char *slash = strrchr(path, '/');
        snprintf(file, sizeof file, "%.*s/%s", slash ? (int)(slash - path) : 1, slash ? path : ".", uri);
        d.owned = d.buffer = ossa_test_read_file(file, &d.buffer_size);
        assert_non_null(d.buffer);
    }
    return d;
}

static void free_doc(doc *d) { cJSON_Delete(d->json), free(d->file), free(d->owned); }

static const cJSON *item(const doc *d, const char *array, int index)
{
    const cJSON *e = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(d->json, array), index);
    assert_non_null(e);
    return e;
}

/* Accessor `index` as doubles ([count x width], malloc): normalised integers mapped to [0,1]
 * (unsigned) as glTF 3.11 says, other integers as they are. */
static double *accessor_values(const doc *d, int index, size_t *count, size_t *width)
{
    const cJSON *a = item(d, "accessors", index), *v = item(d, "bufferViews", number(a, "bufferView"));
    const char *type = cJSON_GetObjectItemCaseSensitive(a, "type")->valuestring;
    *width = !strcmp(type, "SCALAR") ? 1
             : !strcmp(type, "VEC2") ? 2
             : !strcmp(type, "VEC3") ? 3
             : !strcmp(type, "VEC4") ? 4
                                     : 16;
    *count = (size_t)number(a, "count");
    const int component = number(a, "componentType");
    const size_t size = component == 5121 ? 1 : component == 5123 ? 2 : 4;
    const size_t stride = number(v, "byteStride") ? (size_t)number(v, "byteStride") : size * *width;
    const size_t start = (size_t)number(v, "byteOffset") + (size_t)number(a, "byteOffset");
    assert_true(start + (*count - 1) * stride + size * *width <= d->buffer_size);
    assert_true((size_t)number(a, "byteOffset") + (*count - 1) * stride + size * *width <=
                (size_t)number(v, "byteLength"));
    const bool normalized = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "normalized"));
    double *out = malloc(*count * *width * sizeof *out);
    assert_non_null(out);
    for (size_t i = 0; i < *count; ++i)
        for (size_t c = 0; c < *width; ++c) {
            const uint8_t *p = d->buffer + start + i * stride + c * size;
            double x;
            if (component == 5126) {
                float f;
                memcpy(&f, p, 4);
                x = (double)f;
            } else {
                const uint32_t u =
                    size == 1   ? p[0]
                    : size == 2 ? (uint32_t)(p[0] | p[1] << 8)
                                : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
                x = normalized ? (double)u / (size == 1 ? 255. : 65535.) : (double)u;
            }
            out[i * *width + c] = x;
        }
    return out;
}

/* out = a x b, column-major 4x4. */
static void mat_mul(const double *a, const double *b, double *out)
{
    double r[16];
    for (int c = 0; c < 4; ++c)
        for (int k = 0; k < 4; ++k) {
            r[c * 4 + k] = 0.;
            for (int m = 0; m < 4; ++m) r[c * 4 + k] += a[m * 4 + k] * b[c * 4 + m];
        }
    memcpy(out, r, sizeof r);
}

/* A node's local matrix: its matrix, or T x R x S. */
static void node_local(const cJSON *node, double *m)
{
    const cJSON *matrix = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    for (int i = 0; i < 16; ++i) m[i] = matrix ? cJSON_GetArrayItem(matrix, i)->valuedouble : (double)(i % 5 == 0);
    if (matrix) return;
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(node, "translation"),
                *ro = cJSON_GetObjectItemCaseSensitive(node, "rotation"),
                *sa = cJSON_GetObjectItemCaseSensitive(node, "scale");
    for (int i = 0; i < 4; ++i) {
        if (tr && i < 3) t[i] = cJSON_GetArrayItem(tr, i)->valuedouble;
        if (ro) q[i] = cJSON_GetArrayItem(ro, i)->valuedouble;
        if (sa && i < 3) sc[i] = cJSON_GetArrayItem(sa, i)->valuedouble;
    }
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) m[c * 4 + k] = r[c * 3 + k] * sc[c];
    for (int k = 0; k < 3; ++k) m[12 + k] = t[k];
}

/* Node `index`'s world matrix in `d` (its parents found through the children lists). */
static void node_world(const doc *d, int index, double *m)
{
    const cJSON *nodes = cJSON_GetObjectItemCaseSensitive(d->json, "nodes");
    node_local(cJSON_GetArrayItem(nodes, index), m);
    for (int child = index, found = 1; found;) {
        found = 0;
        int p = 0;
        for (const cJSON *n = nodes->child; n && !found; n = n->next, ++p) {
            const cJSON *c;
            cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children")) found |= c->valueint == child;
            if (found) {
                double parent[16];
                node_local(n, parent);
                mat_mul(parent, m, m);
                child = p;
            }
        }
    }
}

/* The positions of the mesh of node `node` skinned at the rest pose ([count x 3], malloc): each
 * vertex through sum_k weight_k x world(joint_k) x inverseBind_k (glTF 3.7.3). */
static double *skinned_positions(const doc *d, int node, size_t *count)
{
    const cJSON *n = item(d, "nodes", node), *skin = item(d, "skins", number(n, "skin"));
    const cJSON *p =
        cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(d, "meshes", number(n, "mesh")), "primitives"), 0);
    const cJSON *attributes = cJSON_GetObjectItemCaseSensitive(p, "attributes");
    size_t w, jc, jw, wc, ww, mc, mw;
    double *pos = accessor_values(d, number(attributes, "POSITION"), count, &w);
    double *joints = accessor_values(d, number(attributes, "JOINTS_0"), &jc, &jw);
    double *weights = accessor_values(d, number(attributes, "WEIGHTS_0"), &wc, &ww);
    double *ibm = accessor_values(d, number(skin, "inverseBindMatrices"), &mc, &mw);
    assert_true(w == 3 && jc == *count && wc == *count && jw == 4 && ww == 4 && mw == 16);
    const cJSON *list = cJSON_GetObjectItemCaseSensitive(skin, "joints");
    double *out = calloc(*count * 3, sizeof *out);
    assert_non_null(out);
    for (size_t v = 0; v < *count; ++v)
        for (int k = 0; k < 4; ++k) {
            const double weight = weights[v * 4 + (size_t)k];
            if (weight == 0.) continue;
            const int j = (int)joints[v * 4 + (size_t)k];
            assert_true(j < cJSON_GetArraySize(list) && (size_t)j < mc);
            double m[16];
            node_world(d, cJSON_GetArrayItem(list, j)->valueint, m);
            mat_mul(m, &ibm[16 * (size_t)j], m);
            for (int r = 0; r < 3; ++r)
                out[v * 3 + (size_t)r] +=
                    weight * (m[r] * pos[v * 3] + m[4 + r] * pos[v * 3 + 1] + m[8 + r] * pos[v * 3 + 2] + m[12 + r]);
        }
    free(pos), free(joints), free(weights), free(ibm);
    return out;
}

/* The first node of `d` with a mesh. */
static int mesh_node(const doc *d)
{
    int i = 0;
    const cJSON *n;
    cJSON_ArrayForEach(n, cJSON_GetObjectItemCaseSensitive(d->json, "nodes"))
    {
        if (cJSON_GetObjectItemCaseSensitive(n, "mesh")) return i;
        ++i;
    }
    fail_msg("no node with a mesh");
    return -1;
}

/* The name of a node as ossa's importer gives it to a joint. */
static const char *joint_name(const doc *d, int node, char *fallback)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(item(d, "nodes", node), "name");
    if (cJSON_IsString(name)) return name->valuestring;
    sprintf(fallback, "nodes[%d]", node);
    return fallback;
}

/* The export of `archive` with the meshes of `source` against `source`: the same vertex count,
 * indices and texture coordinates, the skin's joints the same names in the same order, and the
 * vertices skinned at the rest pose where the source's are (within `tolerance` metres). */
static void check_mesh_copy(const char *source, const char *archive, const char *out, double tolerance)
{
    const char *exp[] = {archive, "-o", out, "--mesh", source};
    assert_int_equal(tool_export(5, (char **)(uintptr_t)exp), 0);
    doc src = read_doc(source), dst = read_doc(out);
    const int sn = mesh_node(&src), dn = mesh_node(&dst);
    /* A skinned mesh node's transform is ignored (3.7.3): none is written. */
    assert_null(cJSON_GetObjectItemCaseSensitive(item(&dst, "nodes", dn), "matrix"));
    const cJSON *sp = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(item(&src, "meshes", number(item(&src, "nodes", sn), "mesh")), "primitives"),
        0);
    const cJSON *dp = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(item(&dst, "meshes", number(item(&dst, "nodes", dn), "mesh")), "primitives"),
        0);
    static const char *const same[] = {"indices", "TEXCOORD_0", "NORMAL"};
    for (int k = 0; k < 3; ++k) {
        const cJSON *sa =
            cJSON_GetObjectItemCaseSensitive(k ? cJSON_GetObjectItemCaseSensitive(sp, "attributes") : sp, same[k]);
        const cJSON *da =
            cJSON_GetObjectItemCaseSensitive(k ? cJSON_GetObjectItemCaseSensitive(dp, "attributes") : dp, same[k]);
        if (!sa) continue;
        assert_non_null(da);
        size_t sc, sw, dc, dw;
        double *a = accessor_values(&src, sa->valueint, &sc, &sw), *b = accessor_values(&dst, da->valueint, &dc, &dw);
        assert_true(sc == dc && sw == dw);
        for (size_t i = 0; i < sc * sw; ++i) assert_true(a[i] == b[i]);
        free(a), free(b);
    }
    const cJSON *ss = item(&src, "skins", number(item(&src, "nodes", sn), "skin"));
    const cJSON *ds = item(&dst, "skins", number(item(&dst, "nodes", dn), "skin"));
    const cJSON *sj = cJSON_GetObjectItemCaseSensitive(ss, "joints"),
                *dj = cJSON_GetObjectItemCaseSensitive(ds, "joints");
    assert_int_equal(cJSON_GetArraySize(sj), cJSON_GetArraySize(dj));
    for (int k = 0; k < cJSON_GetArraySize(sj); ++k) {
        char a[32], b[32];
        assert_string_equal(joint_name(&src, cJSON_GetArrayItem(sj, k)->valueint, a),
                            joint_name(&dst, cJSON_GetArrayItem(dj, k)->valueint, b));
    }
    size_t sc, dc;
    double *a = skinned_positions(&src, sn, &sc), *b = skinned_positions(&dst, dn, &dc);
    assert_int_equal(sc, dc);
    double worst = 0.;
    for (size_t i = 0; i < 3 * sc; ++i) worst = fmax(worst, fabs(a[i] - b[i]));
    print_message("%zu vertices skinned at the rest pose: at most %.3g mm from the source's\n", sc, worst * 1e3);
    assert_true(worst <= tolerance);
    free(a), free(b);
    free_doc(&src), free_doc(&dst);
}

/* assimp (when this build has it) reads the export of `archive` with the mesh of `source`, and
 * finds every joint of `names` (NULL-terminated): the --float-rotations export, as assimp 5.2
 * misreads SHORT rotations. */
static void assimp_reads_mesh_export(const char *archive, const char *source, const char *out, const char *const *names)
{
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        if (f->format != OSSA_FORMAT_ASSIMP || !f->available) continue;
        const char *floats[] = {archive, "-o", out, "--mesh", source, "--float-rotations"};
        assert_int_equal(tool_export(6, (char **)(uintptr_t)floats), 0);
        size_t size = 0;
        void *bytes = ossa_test_read_file(out, &size);
        ossa_import_output back = {0};
        ossa_diag diag = {0};
        const ossa_assimp_desc hint = {.format_hint = "glb"};
        const ossa_result r = ossa_import_assimp(bytes, size, &hint, &back, &diag);
        if (r != OSSA_OK) fail_msg("assimp: %s: %s", ossa_result_name(r), diag.message);
        for (; *names; ++names) {
            bool found = false;
            for (size_t j = 0; j < back.skeleton.joint_count; ++j)
                found |= !strcmp(back.skeleton.joints[j].name, *names);
            if (!found) fail_msg("assimp lost joint %s", *names);
        }
        ossa_import_output_destroy(&back);
        free(bytes);
    }
}

/* A character the test writes as glTF (a .gltf and its .bin): joints Hips, Spine (turned 30
 * degrees), Head and HeadEnd, which no skin lists (a joint because the clip turns it, as it
 * turns the spine); a skinned mesh of 12 vertices on a node
 * with a transform of its own (ignored, 3.7.3), the skin listing Head, Hips and Spine in that
 * order with their inverse bind matrices, 2-byte texture coordinates (padded to 4 in the export,
 * 3.6.2.4), a sparse morph target, a material with a PNG texture. `tail`: the skin's
 * first joint is named "Tail" instead. Returns the path of the .gltf. */
static const char *skinned_gltf(const char *name, bool tail)
{
    enum { V = 12, I = 18 };
    uint8_t bin[1024] = {0};
    float pos[V][3], weights[V][4] = {{0}}, ibm[3][16], times[2] = {0, 1},
                     rot[2][4] = {{0, 0, 0, 1}, {0, 0, 0.2588190f, 0.9659258f}};
    uint8_t joints[V][4] = {{0}}, uv[V][2];
    uint16_t indices[I];
    for (int v = 0; v < V; ++v) {
        const int r = v / 3, k = v % 3;
        pos[v][0] = 0.1f * cosf(2.0943951f * (float)k), pos[v][1] = 1.f + 0.2f * (float)r,
        pos[v][2] = 0.1f * sinf(2.0943951f * (float)k);
        /* skin joints: 0 Head, 1 Hips, 2 Spine */
        static const uint8_t j0[4] = {1, 1, 2, 2}, j1[4] = {0, 2, 0, 0};
        static const float w0[4] = {1.f, 0.5f, 1.f, 0.3f};
        joints[v][0] = j0[r], joints[v][1] = j1[r];
        weights[v][0] = w0[r], weights[v][1] = 1.f - w0[r];
        uv[v][0] = (uint8_t)(80 * k), uv[v][1] = (uint8_t)(60 * r);
    }
    for (int t = 0; t < 3; ++t) {
        const uint16_t a = (uint16_t)(3 * t);
        const uint16_t tri[6] = {
            a, (uint16_t)(a + 1), (uint16_t)(a + 3), (uint16_t)(a + 1), (uint16_t)(a + 4), (uint16_t)(a + 3)};
        memcpy(&indices[6 * t], tri, sizeof tri);
    }
    /* World rest matrices: Hips T(0,1,0); Spine Hips x T(0,0.3,0) x Rz(30); Head Spine x T(0,0.3,0). */
    const double c = cos(PI / 6), s = sin(PI / 6);
    double hips[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1}, spine[16], head[16];
    const double spine_local[16] = {c, s, 0, 0, -s, c, 0, 0, 0, 0, 1, 0, 0, 0.3, 0, 1};
    const double head_local[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0.3, 0, 1};
    mat_mul(hips, spine_local, spine);
    mat_mul(spine, head_local, head);
    const double *world[3] = {head, hips, spine};
    for (int j = 0; j < 3; ++j) {
        /* Rigid: the inverse is R^T and -R^T t. */
        const double *m = world[j];
        for (int col = 0; col < 3; ++col)
            for (int row = 0; row < 3; ++row) ibm[j][col * 4 + row] = (float)m[row * 4 + col];
        for (int row = 0; row < 3; ++row)
            ibm[j][12 + row] = (float)-(m[row * 4] * m[12] + m[row * 4 + 1] * m[13] + m[row * 4 + 2] * m[14]);
        ibm[j][3] = ibm[j][7] = ibm[j][11] = 0.f, ibm[j][15] = 1.f;
    }
    static const uint8_t png[16] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n', 0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    size_t at = 0;
    /* A morph target of two moved vertices, as a sparse accessor without a view. */
    static const uint16_t moved[2] = {3, 7};
    static const float deltas[2][3] = {{0.01f, 0, 0}, {0, 0.02f, 0}};
    size_t offsets[11];
    const void *parts[11] = {pos, joints, weights, uv, indices, ibm, times, rot, png, moved, deltas};
    const size_t sizes[11] = {sizeof pos,   sizeof joints, sizeof weights, sizeof uv,    sizeof indices, sizeof ibm,
                              sizeof times, sizeof rot,    sizeof png,     sizeof moved, sizeof deltas};
    for (int k = 0; k < 11; ++k) {
        offsets[k] = at;
        memcpy(bin + at, parts[k], sizes[k]);
        at = (at + sizes[k] + 3) & ~(size_t)3;
    }
    char bin_name[64];
    snprintf(bin_name, sizeof bin_name, "%s.bin", name);
    ossa_test_write_file(ossa_test_scratch_path(bin_name), bin, at);
    text t = {0};
    add(&t, "{\"asset\":{\"version\":\"2.0\"},\"scene\":0,\"scenes\":[{\"nodes\":[0,4]}],");
    add(&t,
        "\"nodes\":[{\"name\":\"Hips\",\"translation\":[0,1,0],\"children\":[1]},"
        "{\"name\":\"Spine\",\"translation\":[0,0.3,0],\"rotation\":[0,0,%.9g,%.9g],\"children\":[2]},"
        "{\"name\":\"%s\",\"translation\":[0,0.3,0],\"children\":[3]},"
        "{\"name\":\"HeadEnd\",\"translation\":[0,0.1,0]},"
        "{\"name\":\"Body\",\"translation\":[5,0,0],\"mesh\":0,\"skin\":0}],",
        sin(PI / 12), cos(PI / 12), tail ? "Tail" : "Head");
    add(&t, "\"skins\":[{\"joints\":[2,0,1],\"inverseBindMatrices\":5}],");
    add(&t, "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0,\"JOINTS_0\":1,\"WEIGHTS_0\":2,"
            "\"TEXCOORD_0\":3},\"indices\":4,\"material\":0,\"targets\":[{\"POSITION\":8}]}],\"weights\":[0]}],");
    add(&t, "\"materials\":[{\"name\":\"skin\",\"pbrMetallicRoughness\":{\"baseColorFactor\":[1,0.5,0.25,1],"
            "\"baseColorTexture\":{\"index\":0}},\"extensions\":{\"KHR_materials_emissive_strength\":{}}}],");
    add(&t, "\"textures\":[{\"source\":0,\"sampler\":0}],\"samplers\":[{\"magFilter\":9728}],"
            "\"images\":[{\"bufferView\":8,\"mimeType\":\"image/png\"}],");
    add(&t, "\"animations\":[{\"channels\":[{\"sampler\":0,\"target\":{\"node\":1,\"path\":\"rotation\"}},"
            "{\"sampler\":0,\"target\":{\"node\":3,\"path\":\"rotation\"}}],"
            "\"samplers\":[{\"input\":6,\"output\":7}]}],");
    add(&t,
        "\"accessors\":[{\"bufferView\":0,\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\","
        "\"min\":[-0.05,1,-0.0866],\"max\":[0.1,1.6,0.0866]},",
        V);
    add(&t, "{\"bufferView\":1,\"componentType\":5121,\"count\":%d,\"type\":\"VEC4\"},", V);
    add(&t, "{\"bufferView\":2,\"componentType\":5126,\"count\":%d,\"type\":\"VEC4\"},", V);
    add(&t, "{\"bufferView\":3,\"componentType\":5121,\"normalized\":true,\"count\":%d,\"type\":\"VEC2\"},", V);
    add(&t, "{\"bufferView\":4,\"componentType\":5123,\"count\":%d,\"type\":\"SCALAR\"},", I);
    add(&t, "{\"bufferView\":5,\"componentType\":5126,\"count\":3,\"type\":\"MAT4\"},");
    add(&t, "{\"bufferView\":6,\"componentType\":5126,\"count\":2,\"type\":\"SCALAR\",\"min\":[0],\"max\":[1]},");
    add(&t, "{\"bufferView\":7,\"componentType\":5126,\"count\":2,\"type\":\"VEC4\"},");
    add(&t,
        "{\"componentType\":5126,\"count\":%d,\"type\":\"VEC3\",\"min\":[0,0,0],\"max\":[0.01,0.02,0],"
        "\"sparse\":{\"count\":2,\"indices\":{\"bufferView\":9,\"componentType\":5123},\"values\":{\"bufferView\":10}}}"
        "],",
        V);
    add(&t, "\"bufferViews\":[");
    for (int k = 0; k < 11; ++k)
        add(&t, "%s{\"buffer\":0,\"byteOffset\":%zu,\"byteLength\":%zu%s}", k ? "," : "", offsets[k], sizes[k],
            k == 3 ? ",\"byteStride\":2" : "");
    add(&t, "],\"buffers\":[{\"uri\":\"%s\",\"byteLength\":%zu}]}", bin_name, at);
    char gltf_name[64];
    snprintf(gltf_name, sizeof gltf_name, "%s.gltf", name);
    const char *path = ossa_test_scratch_path(gltf_name);
    ossa_test_write_file(path, t.s, t.n);
    free(t.s);
    return path;
}

/* The character's mesh through ossa export --mesh: vertices, indices, texture coordinates and
 * the skin's joints as in the source, the vertices skinned at the rest pose where they were
 * modelled; the material and its PNG copied; HeadEnd, which no copied skin lists, kept as a
 * joint by a skin of its own, so ossa's importer reads all four joints back. */
static void export_keeps_a_generated_skinned_mesh(void **state)
{
    (void)state;
    char source[512], archive[512], out[512];
    snprintf(source, sizeof source, "%s", skinned_gltf("skinned", false));
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("skinned.ossa"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("skinned_out.glb"));
    const char *bake[] = {source, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    check_mesh_copy(source, archive, out, 1e-6);
    doc d = read_doc(out);
    /* Skinned back to the positions the source modelled (weights sum to 1, bind = rest). */
    size_t count, width;
    double *skinned = skinned_positions(&d, mesh_node(&d), &count);
    doc src = read_doc(source);
    double *modelled = accessor_values(&src, 0, &count, &width);
    for (size_t i = 0; i < 3 * count; ++i) assert_true(fabs(skinned[i] - modelled[i]) <= 1e-6);
    free(skinned), free(modelled), free_doc(&src);
    /* The texture coordinates: 2-byte elements in a view of their own, strided to 4. */
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(&d, "meshes", 0), "primitives"), 0);
    const cJSON *uv = item(&d, "accessors", number(cJSON_GetObjectItemCaseSensitive(p, "attributes"), "TEXCOORD_0"));
    assert_int_equal(number(item(&d, "bufferViews", number(uv, "bufferView")), "byteStride"), 4);
    /* The sparse morph target made dense: zeros but for vertices 3 and 7. */
    const cJSON *target = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "targets"), 0);
    assert_null(cJSON_GetObjectItemCaseSensitive(item(&d, "accessors", number(target, "POSITION")), "sparse"));
    double *delta = accessor_values(&d, number(target, "POSITION"), &count, &width);
    assert_true(count == 12 && width == 3);
    for (size_t i = 0; i < 36; ++i) assert_true(delta[i] == (i == 9 ? (double)0.01f : i == 22 ? (double)0.02f : 0.));
    free(delta);
    /* The material without its extension, its texture, sampler and the PNG's bytes. */
    const cJSON *m = item(&d, "materials", number(p, "material"));
    assert_null(cJSON_GetObjectItemCaseSensitive(m, "extensions"));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(m, "name")->valuestring, "skin");
    const cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
    const cJSON *tex = item(&d, "textures", number(cJSON_GetObjectItemCaseSensitive(pbr, "baseColorTexture"), "index"));
    assert_int_equal(number(item(&d, "samplers", number(tex, "sampler")), "magFilter"), 9728);
    const cJSON *image = item(&d, "images", number(tex, "source"));
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(image, "mimeType")->valuestring, "image/png");
    const cJSON *view = item(&d, "bufferViews", number(image, "bufferView"));
    assert_int_equal(number(view, "byteLength"), 16);
    assert_memory_equal(d.buffer + number(view, "byteOffset"), "\x89PNG\r\n\x1a\n", 8);
    /* Two skins: the source's, and one of HeadEnd, the joint it leaves out. */
    assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(d.json, "skins")), 2);
    const cJSON *extra = cJSON_GetObjectItemCaseSensitive(item(&d, "skins", 1), "joints");
    assert_int_equal(cJSON_GetArraySize(extra), 1);
    assert_string_equal(
        cJSON_GetObjectItemCaseSensitive(item(&d, "nodes", cJSON_GetArrayItem(extra, 0)->valueint), "name")
            ->valuestring,
        "HeadEnd");
    free_doc(&d);
    size_t size = 0;
    void *bytes = ossa_test_read_file(out, &size);
    ossa_import_output back = {0};
    ossa_diag diag = {0};
    assert_int_equal(ossa_import_gltf(bytes, size, NULL, &back, &diag), OSSA_OK);
    baked a = open_baked(archive);
    assert_int_equal(back.skeleton.joint_count, a.skel.joint_count);
    assert_int_equal(a.skel.joint_count, 4);
    for (size_t j = 0; j < a.skel.joint_count; ++j)
        assert_string_equal(back.skeleton.joints[j].name, ossa_skeleton_joint_name(&a.skel, j));
    ossa_import_output_destroy(&back);
    free(bytes), free(a.bytes);
    /* The export, a GLB with the PNG in a view, as the source of another export: the same. */
    char again[512];
    snprintf(again, sizeof again, "%s", ossa_test_scratch_path("skinned_again.glb"));
    check_mesh_copy(out, archive, again, 1e-6);
    const char *const names[] = {"Hips", "Spine", "Head", "HeadEnd", NULL};
    assimp_reads_mesh_export(archive, source, out, names);
}

/* Cesium Man (Khronos sample model, 19 joints, a textured skinned mesh in base64 data URIs)
 * baked and exported with its mesh: the same mesh and skin, skinned at the rest pose within
 * 0.01 mm of the source's. */
static void export_keeps_cesium_man_mesh(void **state)
{
    (void)state;
    const char *source = ossa_test_shared_path("gltf/cesium_man.gltf");
    size_t size;
    free(ossa_test_read_or_skip(source, "DATA/gltf/cesium_man.gltf", &size));
    char archive[512], out[512];
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("cesium_man.ossa"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("cesium_man.glb"));
    const char *bake[] = {source, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    check_mesh_copy(source, archive, out, 1e-5);
    doc d = read_doc(out);
    const cJSON *p = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(item(&d, "meshes", 0), "primitives"), 0);
    assert_int_equal(
        number(item(&d, "accessors", number(cJSON_GetObjectItemCaseSensitive(p, "attributes"), "POSITION")), "count"),
        3273);
    assert_int_equal(number(item(&d, "accessors", number(p, "indices")), "count"), 14016);
    const cJSON *image = item(&d, "images", 0);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(image, "mimeType")->valuestring, "image/jpeg");
    free_doc(&d);
    const char *const names[] = {"nodes[2]", "nodes[10]", "nodes[20]", NULL};
    assimp_reads_mesh_export(archive, source, out, names);
}

/* Export --mesh refuses, with one line naming the source and what is wrong and no output file:
 * a skin joint the archive's skeleton lacks (named), a file that is not glTF, an accessor that
 * runs past its view, a GLB header shorter than itself. */
static void export_mesh_errors_write_nothing(void **state)
{
    (void)state;
    char source[512], archive[512], out[512], tail[512], other[512], broken[512];
    snprintf(source, sizeof source, "%s", skinned_gltf("plain", false));
    snprintf(tail, sizeof tail, "%s", skinned_gltf("tail", true));
    snprintf(archive, sizeof archive, "%s", ossa_test_scratch_path("plain.ossa"));
    snprintf(out, sizeof out, "%s", ossa_test_scratch_path("refused.glb"));
    snprintf(other, sizeof other, "%s", ossa_test_scratch_path("mesh.obj"));
    snprintf(broken, sizeof broken, "%s", ossa_test_scratch_path("broken.gltf"));
    const char *bake[] = {source, "-o", archive, "-q"};
    assert_int_equal(run_bake(4, bake), 0);
    ossa_test_write_file(other, "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", 32);
    size_t size;
    char *json = ossa_test_read_file(source, &size);
    char *count = strstr(json, "\"count\":12,\"type\":\"VEC3\"");
    assert_non_null(count);
    memcpy(count, "\"count\":99", 10);
    ossa_test_write_file(broken, json, size);
    free(json);
    static const struct {
        const char *source, *expected;
    } cases[] = {
        {"tail", "skins[0].joints[0]: joint \"Tail\" is not in the archive's skeleton"},
        {"other", "not glTF 2.0"},
        {"broken", "accessors[0]: 99 elements from byte 0 run past bufferViews[0]"},
        {"short", "the GLB declares 12 bytes, the file has 24"},
    };
    /* A GLB header that declares fewer bytes than its own header (once read as a JSON chunk of
     * 4 GiB). */
    char short_glb[512];
    snprintf(short_glb, sizeof short_glb, "%s", ossa_test_scratch_path("short.glb"));
    const uint32_t words[6] = {0x46546C67u, 2, 12, 0xFFFFFFF0u, 0x4E4F534Au, 0};
    ossa_test_write_file(short_glb, words, sizeof words);
    for (size_t i = 0; i < 4; ++i) {
        const char *path = i == 0 ? tail : i == 1 ? other : i == 2 ? broken : short_glb;
        const char *exp[] = {archive, "-o", out, "--mesh", path};
        int status;
        char *err = ossa_test_run_captured_fd(STDERR_FILENO, tool_export, 5, exp, &status);
        print_message("%s", err);
        assert_int_equal(status, 1);
        assert_non_null(strstr(err, path));
        assert_non_null(strstr(err, cases[i].expected));
        assert_true(strchr(err, '\n') == err + strlen(err) - 1); /* one line */
        free(err);
        FILE *f = fopen(out, "rb");
        assert_null(f);
    }
}

/* The META line `tolerance=` of the archive at `path` (metres), or "" when it has none. */
static void meta_tolerance(const char *path, char *value, size_t size)
{
    ossa_archive ar;
    void *bytes = ossa_test_open_archive(path, &ar);
    if (!ossa_archive_meta(&ar, "tolerance", value, size)) value[0] = '\0';
    free(bytes);
}

/* ossa bake records the tolerance it held the clips to in META, in metres whatever unit the
 * archive stores (the viewer colours red there), and none for a lossless bake. */
static void bake_records_its_tolerance(void **state)
{
    (void)state;
    need_assimp();
    const char *bvh = character_bvh(), *out = ossa_test_scratch_path("tolerance.ossa");
    static const struct {
        const char *args[4];
        int count;
        const char *tolerance;
    } cases[] = {
        {{"--unit-scale", "0.01"}, 2, "0.0001"},
        {{"--unit-scale", "0.01", "--tolerance", "0.002"}, 4, "0.002"},
        {{"--keep-source-units", "--tolerance", "0.0005"}, 3, "0.0005"},
        {{"--unit-scale", "0.01", "--no-optimize"}, 3, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        const char *argv[8] = {bvh, "-o", out, "-q"};
        for (int k = 0; k < cases[i].count; ++k) argv[4 + k] = cases[i].args[k];
        assert_int_equal(run_bake(4 + cases[i].count, argv), 0);
        char value[64];
        meta_tolerance(out, value, sizeof value);
        assert_string_equal(value, cases[i].tolerance);
    }
}

static int setup(void **state)
{
    (void)state;
    return ossa_test_scratch_create("ossa-export");
}

static int teardown(void **state)
{
    (void)state;
    return ossa_test_scratch_remove();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(export_round_trip_within_tolerance), cmocka_unit_test(export_bytes_within_4x_of_the_archive),
        cmocka_unit_test(bake_records_its_tolerance),         cmocka_unit_test(export_keeps_a_generated_skinned_mesh),
        cmocka_unit_test(export_keeps_cesium_man_mesh),       cmocka_unit_test(export_mesh_errors_write_nothing),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
