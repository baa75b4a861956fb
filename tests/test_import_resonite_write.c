/* Writer round trips: ossa tracks and joint animations to AnimX in every encoding and back.
 * Part of test_import_resonite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_resonite.h"
#include "resonite_test_bytes.h"
#include "test_util.h"

static void assert_meta(const ossa_import_output *o, const char *key, const char *value)
{
    char text[128];
    assert_true(ossa_import_output_metadata(o, key, text, sizeof text));
    assert_string_equal(text, value);
}

/* Same tracks and keys, bit for bit. */
static void assert_same_tracks(const ossa_import_output *a, const ossa_import_output *b)
{
    assert_int_equal(a->track_count, b->track_count);
    for (size_t i = 0; i < a->track_count; ++i) {
        assert_string_equal(a->tracks[i].name, b->tracks[i].name);
        assert_int_equal(a->tracks[i].key_count, b->tracks[i].key_count);
        assert_memory_equal(a->tracks[i].keys, b->tracks[i].keys, a->tracks[i].key_count * sizeof *a->tracks[i].keys);
    }
}

static void random_tracks(ossa_raw_track *tracks, size_t count, size_t keys, uint32_t *seed)
{
    static const ossa_track_type types[] = {OSSA_TRACK_FLOAT, OSSA_TRACK_FLOAT2, OSSA_TRACK_FLOAT3, OSSA_TRACK_FLOAT4,
                                            OSSA_TRACK_QUAT};
    static const char *const names[] = {"hand/grip", "a/b/c", "solo", "x/y", "q/rot", "f4/v"};
    for (size_t i = 0; i < count; ++i) {
        ossa_raw_track *t = &tracks[i];
        assert_int_equal(ossa_raw_track_create(t, types[i % 5], keys, NULL), OSSA_OK);
        assert_int_equal(ossa_raw_track_set_name(t, names[i % 6]), OSSA_OK);
        t->duration = 2.5f;
        float q[4] = {0.1f, 0.2f, 0.3f, 0.9f};
        for (size_t k = 0; k < keys; ++k) {
            t->keys[k].ratio = (float)k / (float)(keys - 1);
            t->keys[k].interpolation = ossa_test_rand(seed) & 1 ? OSSA_INTERP_LINEAR : OSSA_INTERP_STEP;
            for (int c = 0; c < 4; ++c) {
                q[c] += ossa_test_randf(seed, -0.02f, 0.02f); /* small arcs: nlerp stays within 1e-4 */
                t->keys[k].value[c] = t->type == OSSA_TRACK_QUAT ? q[c] : ossa_test_randf(seed, -10.f, 10.f);
            }
        }
    }
}

void test_write_read(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    ossa_raw_track tracks[6];
    random_tracks(tracks, 6, 40, &seed);
    for (int enc = 0; enc <= 2; ++enc) {
        if ((enc == 1 && !TB_HAVE_LZ4) || (enc == 2 && !TB_HAVE_LZMA)) continue;
        ossa_blob blob = {0};
        ossa_import_output out = {0};
        ossa_diag diag;
        ossa_diag_clear(&diag);
        ossa_animx_write_desc desc = {
            .name = "rt", .tracks = tracks, .track_count = 6, .encoding = (ossa_animx_encoding)enc};
        assert_int_equal(ossa_animx_write(&desc, &blob, &diag), OSSA_OK);
        assert_int_equal(ossa_import_animx(blob.data, blob.size, NULL, &out, &diag), OSSA_OK);
        assert_int_equal(out.track_count, 6);
        assert_meta(&out, "name", "rt");
        assert_meta(&out, "duration", "2.5");
        for (size_t i = 0; i < 6; ++i) {
            const ossa_raw_track *a = &tracks[i], *b = &out.tracks[i];
            assert_string_equal(a->name, b->name);
            assert_int_equal(a->type, b->type);
            if (a->type == OSSA_TRACK_QUAT) {
                /* Linear quaternion segments read back as slerp, sampled at 60 Hz: more keys,
                 * and at every written key its (normalised) value. */
                assert_true(b->key_count >= a->key_count);
                size_t at = 0;
                for (size_t k = 0; k < a->key_count; ++k) {
                    while (at < b->key_count && b->keys[at].ratio < a->keys[k].ratio - 1e-6f) ++at;
                    assert_true(at < b->key_count && fabsf(b->keys[at].ratio - a->keys[k].ratio) <= 1e-6f);
                    const float *v = a->keys[k].value;
                    const float n = sqrtf(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3]);
                    /* Hold keys keep the written value, slerp ends are normalised. */
                    const float scale = a->keys[k].interpolation == OSSA_INTERP_STEP ? 1.f : 1.f / n;
                    for (int c = 0; c < 4; ++c)
                        assert_float_equal(fabsf(b->keys[at].value[c]), fabsf(v[c] * scale), 2e-6);
                }
                continue;
            }
            assert_int_equal(a->key_count, b->key_count);
            for (size_t k = 0; k < a->key_count; ++k) {
                assert_float_equal(a->keys[k].ratio, b->keys[k].ratio, 1e-6);
                assert_int_equal(a->keys[k].interpolation, b->keys[k].interpolation);
                assert_memory_equal(a->keys[k].value, b->keys[k].value, ossa_track_type_width(a->type) * sizeof(float));
            }
        }
        ossa_import_output_destroy(&out);
        ossa_blob_destroy(&blob);
    }
    for (size_t i = 0; i < 6; ++i) ossa_raw_track_destroy(&tracks[i]);
    /* A large track spans several 1 MiB LZ4 chunks; every encoding reads back the same. */
    ossa_raw_track big;
    random_tracks(&big, 1, 300000, &seed);
    ossa_import_output first = {0};
    for (int enc = 0; enc <= 2; ++enc) {
        if ((enc == 1 && !TB_HAVE_LZ4) || (enc == 2 && !TB_HAVE_LZMA)) continue;
        ossa_blob blob = {0};
        ossa_import_output out = {0};
        ossa_animx_write_desc desc = {.tracks = &big, .track_count = 1, .encoding = (ossa_animx_encoding)enc};
        assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_OK);
        assert_int_equal(ossa_import_animx(blob.data, blob.size, NULL, enc ? &out : &first, NULL), OSSA_OK);
        if (enc) assert_same_tracks(&first, &out);
        ossa_import_output_destroy(&out);
        ossa_blob_destroy(&blob);
    }
    assert_int_equal(first.tracks[0].key_count, 300000);
    ossa_import_output_destroy(&first);
    ossa_raw_track_destroy(&big);
}

void test_write_read_joints(void **state)
{
    (void)state;
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation anim = {0};
    assert_int_equal(ossa_raw_skeleton_create(&skel, 2, NULL), OSSA_OK);
    ossa_raw_skeleton_set_name(&skel, 0, "root");
    ossa_raw_skeleton_set_name(&skel, 1, "arm");
    skel.joints[1].parent = 0;
    skel.joints[1].rest.translation = (ossa_float3){0.f, 0.5f, 0.f};
    skel.joints[1].rest.scale = (ossa_float3){1.f, 2.f, 1.f};
    assert_int_equal(ossa_raw_animation_create(&anim, 2, NULL), OSSA_OK);
    anim.duration = 2.f;
    ossa_raw_joint_track_resize(&anim, 0, 3, 2, 0);
    ossa_raw_joint_track_resize(&anim, 1, 0, 0, 2);
    for (int k = 0; k < 3; ++k)
        anim.tracks[0].translations[k] = (ossa_raw_float3_key){(float)k, {(float)k, 1.f, -2.f * (float)k}};
    anim.tracks[0].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
    anim.tracks[0].rotations[1] = (ossa_raw_quat_key){2.f, {0.f, 0.0099998333f, 0.f, 0.99995f}};
    anim.tracks[1].scales[0] = (ossa_raw_float3_key){0.5f, {1.f, 1.f, 1.f}};
    anim.tracks[1].scales[1] = (ossa_raw_float3_key){1.5f, {3.f, 3.f, 3.f}};
    ossa_blob blob = {0};
    ossa_animx_write_desc desc = {.name = "walk", .skeleton = &skel, .animation = &anim, .encoding = OSSA_ANIMX_RAW};
    assert_int_equal(ossa_animx_write(&desc, &blob, NULL), OSSA_OK);
    ossa_import_output out = {0};
    ossa_resonite_desc rd = {.bind_skeleton = &skel};
    assert_int_equal(ossa_import_animx(blob.data, blob.size, &rd, &out, NULL), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 2);
    assert_int_equal(out.skeleton.joints[1].parent, 0);
    assert_int_equal(out.animation_count, 1);
    const ossa_raw_animation *a = &out.animations[0];
    assert_string_equal(a->name, "walk");
    assert_float_equal(a->duration, 2.f, 0.f);
    assert_int_equal(a->tracks[0].translation_count, 3);
    assert_memory_equal(a->tracks[0].translations, anim.tracks[0].translations, 3 * sizeof *a->tracks[0].translations);
    /* The linear rotation reads back as slerp sampled at 60 Hz: 121 keys from the first to the
     * last written one, a tenth of the way at 0.2 s. */
    assert_int_equal(a->tracks[0].rotation_count, 121);
    assert_memory_equal(&a->tracks[0].rotations[0], &anim.tracks[0].rotations[0], sizeof *a->tracks[0].rotations);
    assert_float_equal(a->tracks[0].rotations[120].value.y, anim.tracks[0].rotations[1].value.y, 1e-7);
    assert_float_equal(a->tracks[0].rotations[12].value.y, sinf(0.001f), 1e-6);
    assert_int_equal(a->tracks[0].scale_count, 1); /* unanimated: the rest scale */
    assert_float_equal(a->tracks[0].scales[0].value.x, 1.f, 0.f);
    assert_int_equal(a->tracks[1].translation_count, 1);
    assert_float_equal(a->tracks[1].translations[0].value.y, 0.5f, 0.f);
    assert_memory_equal(a->tracks[1].scales, anim.tracks[1].scales, 2 * sizeof *a->tracks[1].scales);
    assert_int_equal(ossa_raw_animation_validate(a, NULL), OSSA_OK);
    assert_int_equal(out.track_count, 0);
    ossa_import_output_destroy(&out);
    ossa_blob_destroy(&blob);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_skeleton_destroy(&skel);
}
