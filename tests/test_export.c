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

#include <cjson/cJSON.h>

#include "ossa/archive.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_gltf.h"
#include "test_util.h"
#include "tools.h"

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
                /* Held the same in both hands: by the finger's place in its hand. */
                const char *name = character[j].name;
                const double finger = (double)(5 * (name[7] - '0') + 2 * (int)(strlen(name) - 8));
                if (character[j].motion == 'b') angle = c == 0 ? 20 + finger : 3 * c;
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
    const cJSON *matrices = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(g.json, "accessors"),
                                               number(skin, "inverseBindMatrices"));
    assert_int_equal(number(matrices, "count"), leaves);
    free_glb(&g), free_glb(&f), free(a.bytes);
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
        cmocka_unit_test(export_round_trip_within_tolerance),
        cmocka_unit_test(export_bytes_within_4x_of_the_archive),
        cmocka_unit_test(bake_records_its_tolerance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
