/* Metroid Prime / Echoes ANIM and CINF importers. Files are built by metroid_writer.c from
 * chosen integers and floats; expected values are computed here in double precision from the
 * format's formulas (rotation vector to quaternion, multipliers, the game's slerp). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metroid_writer.h"
#include "ossa/offline/builders.h"
#include "ossa/offline/error.h"
#include "ossa/offline/import_metroid.h"
#include "ossa/sampling_job.h"
#include "ossa/skeleton.h"
#include "test_util.h"

#define PI 3.14159265358979323846

static int joint_named(const ossa_import_output *out, const char *name)
{
    for (size_t j = 0; j < out->skeleton.joint_count; ++j)
        if (strcmp(out->skeleton.joints[j].name, name) == 0) return (int)j;
    fail_msg("no joint named %s", name);
    return -1;
}

static void assert_metadata(const ossa_import_output *out, const char *key, const char *expected)
{
    char value[512];
    assert_true(ossa_import_output_metadata(out, key, value, sizeof value));
    assert_string_equal(value, expected);
}

static void assert_vec_near(ossa_float3 v, double x, double y, double z, double tol)
{
    assert_true(fabs((double)v.x - x) <= tol && fabs((double)v.y - y) <= tol && fabs((double)v.z - z) <= tol);
}

static void assert_quat_near(ossa_quat q, const double e[4], double tol)
{
    if (!(fabs((double)q.x - e[0]) <= tol && fabs((double)q.y - e[1]) <= tol && fabs((double)q.z - e[2]) <= tol &&
          fabs((double)q.w - e[3]) <= tol))
        fail_msg("quat (%g %g %g %g) != (%g %g %g %g)", (double)q.x, (double)q.y, (double)q.z, (double)q.w, e[0], e[1],
                 e[2], e[3]);
}

static void expected_rot(int k, int c, double q[4])
{
    mw_ref_rotation(mw_fix_totals[k][c][0][0], mw_fix_totals[k][c][0][1], mw_fix_totals[k][c][0][2],
                    mw_fix_negative_w[k][c], 4096, q);
}

static ossa_result import_anim(const mw_buf *b, const ossa_metroid_anim_desc *desc, ossa_import_output *out,
                               ossa_diag *diag)
{
    ossa_diag_clear(diag);
    return ossa_import_metroid_anim(b->data, b->size, desc, out, diag);
}

/* ---- CINF ---------------------------------------------------------------------------- */

static void check_fixture_skeleton(const ossa_import_output *out)
{
    assert_int_equal(out->skeleton.joint_count, 5);
    assert_true(ossa_raw_skeleton_is_depth_first(&out->skeleton));
    const int root = joint_named(out, "root"), spine = joint_named(out, "spine"), arm = joint_named(out, "arm_l"),
              b6 = joint_named(out, "bone_6"), leg = joint_named(out, "leg");
    const ossa_raw_joint *j = out->skeleton.joints;
    assert_int_equal(j[root].parent, -1);
    assert_int_equal(j[spine].parent, root);
    assert_int_equal(j[arm].parent, spine);
    assert_int_equal(j[b6].parent, arm);
    assert_int_equal(j[leg].parent, root);
    /* Rest offsets are origin minus parent origin; the root keeps its model-space origin. */
    assert_vec_near(j[root].rest.translation, 0, 0, 1, 1e-6);
    assert_vec_near(j[spine].rest.translation, 0, 0, 1, 1e-6);
    assert_vec_near(j[arm].rest.translation, .5, 0, .5, 1e-6);
    assert_vec_near(j[b6].rest.translation, .5, 0, 0, 1e-6);
    assert_vec_near(j[leg].rest.translation, 0, .3, -.5, 1e-6);
    assert_true(j[leg].rest.rotation.w == 1.f && j[leg].rest.scale.y == 1.f);
    /* Build order 7,6,5,4,3 puts leg before spine among the root's children. */
    assert_metadata(out, "joint_bone_ids", "3,7,4,5,6");
}

static void cinf_mp1_and_mp2(void **state)
{
    (void)state;
    for (int game = 1; game <= 2; ++game) {
        mw_buf b = {0};
        mw_fixture_cinf(&b, game, NULL);
        ossa_import_output out = {0};
        ossa_diag diag;
        ossa_diag_clear(&diag);
        assert_int_equal(ossa_import_metroid_cinf(b.data, b.size, NULL, &out, &diag), OSSA_OK);
        check_fixture_skeleton(&out);
        assert_metadata(&out, "game", game == 1 ? "mp1" : "mp2");
        assert_metadata(&out, "format", game == 1 ? "metroid-cinf-mp1" : "metroid-cinf-mp2");
        assert_metadata(&out, "source_units", "metres");
        assert_metadata(&out, "unit_scale", "1");
        assert_int_equal(out.animation_count, 0);
        ossa_metroid_cinf_desc desc = {.game = game};
        assert_int_equal(ossa_import_metroid_cinf(b.data, b.size, &desc, &out, &diag), OSSA_OK);
        check_fixture_skeleton(&out);
        ossa_import_output_destroy(&out);
        mw_buf_free(&b);
    }
}

static void expect_cinf_error(const mw_buf *b, ossa_result code, size_t offset)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_metroid_cinf_desc desc = {.game = OSSA_METROID_GAME_MP1};
    assert_int_equal(ossa_import_metroid_cinf(b->data, b->size, &desc, &out, &diag), code);
    assert_int_equal(diag.code, code);
    if (diag.offset != offset) fail_msg("offset %zu, expected %zu (%s)", diag.offset, offset, diag.message);
    assert_true(diag.message[0] != '\0');
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_null(out.metadata);
    ossa_import_output_destroy(&out);
}

static void cinf_errors(void **state)
{
    (void)state;
    mw_buf good = {0};
    mw_cinf_layout lay;
    mw_fixture_cinf(&good, 1, &lay);
    mw_buf b = {0};
#define RESET() (b.size = 0, mw_bytes(&b, good.data, good.size))
    RESET(), mw_put_u32(&b, lay.bone_offset[2], 100);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.bone_offset[2]);
    RESET(), mw_put_u32(&b, lay.bone_offset[2], 4);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.bone_offset[2]);
    RESET(), mw_put_u32(&b, lay.bone_offset[0] + 4, 6); /* root's parent 6 closes 3 > 4 > 5 > 6 > 3 */
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.bone_offset[0]);
    RESET(), mw_put_f32(&b, lay.bone_offset[1] + 12, NAN);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.bone_offset[1] + 8);
    RESET(), mw_put_f32(&b, lay.bone_offset[0] + 8, -3e38f), mw_put_f32(&b, lay.bone_offset[4] + 8, 3e38f);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.bone_offset[4] + 8); /* leg - root overflows */
    RESET(), mw_put_u32(&b, lay.order_offset + 8, 50);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, lay.order_offset + 8);
    RESET(), mw_put_u32(&b, 0, 101);
    expect_cinf_error(&b, OSSA_ERROR_CORRUPT, 0);
    RESET(), mw_put_u32(&b, 0, 0x9E220006u);
    expect_cinf_error(&b, OSSA_ERROR_UNSUPPORTED_FORMAT, 0);
    RESET(), mw_put_u32(&b, lay.bone_offset[1] + 20, 0x40000000u); /* linked count */
    expect_cinf_error(&b, OSSA_ERROR_TRUNCATED, lay.bone_offset[1] + 24);
    RESET(), mw_put_u32(&b, lay.names_offset, 0x7FFFFFFFu);
    expect_cinf_error(&b, OSSA_ERROR_TRUNCATED, lay.names_offset + 4);
    /* Every truncation is reported as such, never past the cut. */
    for (size_t cut = 0; cut < good.size; ++cut) {
        ossa_import_output out = {0};
        ossa_diag diag;
        ossa_diag_clear(&diag);
        assert_int_equal(ossa_import_metroid_cinf(good.data, cut, NULL, &out, &diag), OSSA_ERROR_TRUNCATED);
        assert_true(diag.offset <= cut);
        ossa_import_output_destroy(&out);
    }
#undef RESET
    mw_buf_free(&b);
    mw_buf_free(&good);
}

/* ---- uncompressed ---------------------------------------------------------------------- */

static float urot[2][3][4], utrans[2][3][3], uscale[2][3][3];

static void init_uncompressed(void)
{
    for (int c = 0; c < 2; ++c)
        for (int f = 0; f < 3; ++f) {
            const double a = .3 * (f + 1) + c, s = sin(a / 2);
            const float q[4] = {(float)(s * .6), (float)(s * .8), 0.f, (float)cos(a / 2)};
            memcpy(urot[c][f], q, sizeof q);
            for (int i = 0; i < 3; ++i) utrans[c][f][i] = (float)(c * 10 + f) + .25f * (float)i;
            for (int i = 0; i < 3; ++i) uscale[c][f][i] = 1.f + .5f * (float)f + (float)(c + i);
        }
}

static void uncompressed_mp1(void **state)
{
    (void)state;
    init_uncompressed();
    mw_uchannel ch[2] = {{3, {true, true, false}, urot[0][0], utrans[0][0], NULL},
                         {5, {true, false, false}, urot[1][0], NULL, NULL}};
    mw_uanim a = {1, .75f, .25f, 3, 3, 0xCAFEF00Du, 2, ch, false};
    mw_buf anim = {0}, cinf = {0};
    mw_write_uncompressed(&anim, &a, NULL);
    mw_fixture_cinf(&cinf, 1, NULL);
    ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size, .name = "intro"};
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, &desc, &out, &diag), OSSA_OK);
    check_fixture_skeleton(&out);
    assert_metadata(&out, "format", "metroid-anim-mp1-uncompressed");
    assert_metadata(&out, "evnt_asset_id", "0xCAFEF00D");
    assert_metadata(&out, "bound", "cinf");
    assert_int_equal(out.animation_count, 1);
    const ossa_raw_animation *an = &out.animations[0];
    assert_string_equal(an->name, "intro");
    assert_true(an->duration == .75f);
    const ossa_raw_joint_track *root = &an->tracks[joint_named(&out, "root")];
    assert_int_equal(root->rotation_count, 3);
    assert_int_equal(root->translation_count, 3);
    for (int f = 0; f < 3; ++f) {
        const double e[4] = {urot[0][f][0], urot[0][f][1], urot[0][f][2], urot[0][f][3]};
        assert_true(root->rotations[f].time == .25f * (float)f);
        assert_quat_near(root->rotations[f].value, e, 0);
        /* The animation's translation replaces the rest offset. */
        assert_vec_near(root->translations[f].value, utrans[0][f][0], utrans[0][f][1], utrans[0][f][2], 0);
    }
    const ossa_raw_joint_track *arm = &an->tracks[joint_named(&out, "arm_l")];
    assert_int_equal(arm->rotation_count, 3);
    assert_int_equal(arm->translation_count, 1);
    assert_vec_near(arm->translations[0].value, .5, 0, .5, 1e-6); /* rest offset kept */
    const ossa_raw_joint_track *spine = &an->tracks[joint_named(&out, "spine")];
    assert_int_equal(spine->rotation_count, 1);
    assert_true(spine->rotations[0].value.w == 1.f);
    assert_vec_near(spine->translations[0].value, 0, 0, 1, 1e-6);
    assert_int_equal(ossa_raw_animation_validate(an, &diag), OSSA_OK);
    ossa_import_output_destroy(&out);

    /* Frame-major storage reads back only with the switch. */
    mw_buf fm = {0};
    a.frame_major = true;
    mw_write_uncompressed(&fm, &a, NULL);
    desc.frame_major = true;
    assert_int_equal(import_anim(&fm, &desc, &out, &diag), OSSA_OK);
    const ossa_raw_joint_track *r2 = &out.animations[0].tracks[joint_named(&out, "root")];
    for (int f = 0; f < 3; ++f) assert_true(r2->rotations[f].value.x == urot[0][f][0]);
    desc.frame_major = false;
    assert_int_equal(import_anim(&fm, &desc, &out, &diag), OSSA_OK);
    r2 = &out.animations[0].tracks[joint_named(&out, "root")];
    assert_true(r2->rotations[1].value.x != urot[0][1][0]);
    ossa_import_output_destroy(&out);
    mw_buf_free(&fm);
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

static void uncompressed_mp2(void **state)
{
    (void)state;
    init_uncompressed();
    /* Bone 3 rotates, moves and scales; bone 4 only moves; bone 6 only scales. */
    mw_uchannel ch[3] = {{3, {true, true, true}, urot[0][0], utrans[0][0], uscale[0][0]},
                         {4, {false, true, false}, NULL, utrans[1][0], NULL},
                         {6, {false, false, true}, NULL, NULL, uscale[1][0]}};
    mw_uanim a = {2, .5f, .25f, 3, 3, 0, 3, ch, false};
    mw_buf anim = {0};
    mw_write_uncompressed(&anim, &a, NULL);
    mw_put_u8(&anim, anim.size - 1, anim.data[anim.size - 1]); /* no padding */
    mw_u8(&anim, 0xFF);                                        /* with 0xFF padding */
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "format", "metroid-anim-mp2-uncompressed");
    assert_metadata(&out, "game", "mp2");
    assert_metadata(&out, "bound", "flat");
    assert_metadata(&out, "joint_bone_ids", "3,4,6");
    assert_false(ossa_import_output_metadata(&out, "evnt_asset_id", NULL, 0));
    const ossa_raw_animation *an = &out.animations[0];
    assert_string_equal(out.skeleton.joints[1].name, "bone_4");
    assert_int_equal(an->tracks[0].scale_count, 3);
    assert_int_equal(an->tracks[1].rotation_count, 1);
    assert_true(an->tracks[1].rotations[0].value.w == 1.f);
    assert_int_equal(an->tracks[1].translation_count, 3);
    assert_int_equal(an->tracks[2].translation_count, 1);
    for (int f = 0; f < 3; ++f) {
        assert_vec_near(an->tracks[0].scales[f].value, uscale[0][f][0], uscale[0][f][1], uscale[0][f][2], 0);
        assert_vec_near(an->tracks[1].translations[f].value, utrans[1][f][0], utrans[1][f][1], utrans[1][f][2], 0);
        assert_vec_near(an->tracks[2].scales[f].value, uscale[1][f][0], uscale[1][f][1], uscale[1][f][2], 0);
    }
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
}

static void expect_anim_error(const mw_buf *b, ossa_metroid_game game, ossa_result code, size_t offset)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    const ossa_metroid_anim_desc desc = {.game = game};
    assert_int_equal(import_anim(b, &desc, &out, &diag), code);
    if (diag.offset != offset) fail_msg("offset %zu, expected %zu (%s)", diag.offset, offset, diag.message);
    assert_int_equal(out.skeleton.joint_count, 0);
    assert_int_equal(out.animation_count, 0);
    assert_null(out.metadata);
    ossa_import_output_destroy(&out);
}

static void uncompressed_errors(void **state)
{
    (void)state;
    init_uncompressed();
    mw_uchannel ch[2] = {{3, {true, true, false}, urot[0][0], utrans[0][0], NULL},
                         {5, {true, false, false}, urot[1][0], NULL, NULL}};
    mw_uanim a = {1, .75f, .25f, 3, 3, 0, 2, ch, false};
    mw_buf good = {0}, b = {0};
    mw_ulayout lay;
    mw_write_uncompressed(&good, &a, &lay);
#define RESET() (b.size = 0, mw_bytes(&b, good.data, good.size))
    RESET(), mw_put_u32(&b, 0x14, 0);
    expect_anim_error(&b, OSSA_METROID_GAME_AUTO, OSSA_ERROR_CORRUPT, 0x14);
    RESET(), mw_put_f32(&b, 4, .3f); /* 3 frames of 0.25 s end at 0.5 s */
    expect_anim_error(&b, OSSA_METROID_GAME_AUTO, OSSA_ERROR_CORRUPT, 0x14);
    RESET(), mw_put_f32(&b, 0xC, 0.f);
    expect_anim_error(&b, OSSA_METROID_GAME_AUTO, OSSA_ERROR_CORRUPT, 0xC);
    RESET(), mw_put_u8(&b, lay.bone_table + 4 + 5, 2); /* channel 2 does not exist */
    expect_anim_error(&b, OSSA_METROID_GAME_MP1, OSSA_ERROR_CORRUPT, lay.bone_table + 4 + 5);
    RESET(), mw_put_f32(&b, lay.rot_keys + 4 + 16 * 4 + 8, INFINITY); /* channel 1, frame 1, x */
    expect_anim_error(&b, OSSA_METROID_GAME_MP1, OSSA_ERROR_CORRUPT, lay.rot_keys + 4 + 16 * 4);
    RESET(), mw_put_u32(&b, 0, 1);
    expect_anim_error(&b, OSSA_METROID_GAME_AUTO, OSSA_ERROR_UNSUPPORTED_FORMAT, 0);
    for (size_t cut = 0; cut < good.size; ++cut) {
        RESET(), b.size = cut;
        ossa_import_output out = {0};
        ossa_diag diag;
        assert_int_equal(import_anim(&b, NULL, &out, &diag), OSSA_ERROR_TRUNCATED);
        assert_true(diag.offset <= cut);
    }
#undef RESET
    mw_buf_free(&good);
    mw_buf_free(&b);
}

/* ---- compressed ------------------------------------------------------------------------ */

static void check_compressed_fixture(const ossa_import_output *out, bool with_cinf)
{
    const ossa_raw_animation *an = &out->animations[0];
    const int joints[MW_FIX_CHANNELS] = {with_cinf ? joint_named(out, "root") : 0,
                                         with_cinf ? joint_named(out, "spine") : 1,
                                         with_cinf ? joint_named(out, "arm_l") : 2};
    /* Frames 0..8 at 0.25 s; the last frame lands on the 2 s duration. */
    const int prior[9] = {0, 0, 0, 1, 2, 2, 2, 2, 3};
    const int stored_frame[MW_FIX_KEYS + 1] = {0, 3, 4, 8};
    for (int c = 0; c < MW_FIX_CHANNELS; ++c) {
        const ossa_raw_joint_track *t = &an->tracks[joints[c]];
        assert_int_equal(t->rotation_count, 9);
        for (int f = 0; f < 9; ++f) {
            assert_true(t->rotations[f].time == .25f * (float)f);
            double a[4], e[4];
            const int k = prior[f];
            expected_rot(k, c, a);
            if (stored_frame[k] == f) {
                memcpy(e, a, sizeof e);
            } else {
                double nb[4];
                expected_rot(k + 1, c, nb);
                mw_ref_game_slerp(a, nb, (double)(f - stored_frame[k]) / (stored_frame[k + 1] - stored_frame[k]), e);
            }
            assert_quat_near(t->rotations[f].value, e, 2e-6);
            if (c == 0) {
                const double u = stored_frame[k] == f
                                     ? 0.0
                                     : (double)(f - stored_frame[k]) / (stored_frame[k + 1] - stored_frame[k]);
                const int k1 = stored_frame[k] == f ? k : k + 1;
                double v[3];
                for (int i = 0; i < 3; ++i)
                    v[i] = .01 *
                           (mw_fix_totals[k][0][1][i] + u * (mw_fix_totals[k1][0][1][i] - mw_fix_totals[k][0][1][i]));
                assert_vec_near(t->translations[f].value, v[0], v[1], v[2], 1e-5);
            }
        }
    }
}

/* The compressed MP1 fixture and its CINF, written into anim and cinf and imported into out
 * (which the caller destroys, with both buffers). */
static void import_mp1_fixture(mw_buf *anim, mw_buf *cinf, ossa_import_output *out, ossa_diag *diag)
{
    mw_canim a = mw_fixture_compressed(1);
    assert_true(mw_write_compressed(anim, &a, NULL));
    mw_fixture_cinf(cinf, 1, NULL);
    ossa_metroid_anim_desc desc = {.cinf_data = cinf->data, .cinf_size = cinf->size};
    assert_int_equal(import_anim(anim, &desc, out, diag), OSSA_OK);
}

static void compressed_mp1(void **state)
{
    (void)state;
    mw_buf anim = {0}, cinf = {0};
    ossa_import_output out = {0};
    ossa_diag diag;
    import_mp1_fixture(&anim, &cinf, &out, &diag);
    assert_metadata(&out, "format", "metroid-anim-mp1-compressed");
    assert_metadata(&out, "evnt_asset_id", "0x12345678");
    assert_metadata(&out, "looping", "1");
    assert_metadata(&out, "rotation_divisor", "4096");
    assert_metadata(&out, "frame_count", "9");
    check_fixture_skeleton(&out);
    check_compressed_fixture(&out, true);
    const ossa_raw_animation *an = &out.animations[0];
    assert_true(an->duration == 2.f);
    assert_int_equal(ossa_raw_animation_validate(an, &diag), OSSA_OK);
    /* Bones without a channel keep the rest pose; bone 5's translation keeps its offset. */
    const ossa_raw_joint_track *leg = &an->tracks[joint_named(&out, "leg")];
    assert_int_equal(leg->rotation_count, 1);
    assert_vec_near(leg->translations[0].value, 0, .3, -.5, 1e-6);
    assert_vec_near(an->tracks[joint_named(&out, "arm_l")].translations[0].value, .5, 0, .5, 1e-6);
    /* The long way round between frames 0 and 3 is what the game does: a shortest-arc slerp
     * would land elsewhere, so the comparison above can tell them apart. */
    double q0[4], q1[4], mid[4], flip[4], nq1[4];
    expected_rot(0, 0, q0), expected_rot(1, 0, q1);
    assert_true(q0[0] * q1[0] + q0[1] * q1[1] + q0[2] * q1[2] + q0[3] * q1[3] < 0);
    for (int i = 0; i < 4; ++i) nq1[i] = -q1[i];
    mw_ref_game_slerp(q0, q1, 1.0 / 3, mid), mw_ref_game_slerp(q0, nq1, 1.0 / 3, flip);
    assert_true(fabs(fabs(mid[0] * flip[0] + mid[1] * flip[1] + mid[2] * flip[2] + mid[3] * flip[3]) - 1) > .01);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

static void compressed_mp2_scale(void **state)
{
    (void)state;
    /* MP2: bone 3 rotation + translation + scale, bone 4 translation only (no W sign bit),
     * bone 6 scale only; widths up to 32 bits so fields straddle words. */
    enum { K = 2, C = 3 };
    static const bool bitmap[5] = {1, 0, 1, 0, 1};
    int32_t tot[K + 1][C][3][3] = {{{{0}}}};
    const int32_t seq[K + 1] = {0, -3000, 1234};
    for (int k = 0; k <= K; ++k)
        for (int c = 0; c < C; ++c)
            for (int g = 0; g < 3; ++g)
                for (int i = 0; i < 3; ++i) tot[k][c][g][i] = seq[k] / (i + 1) + 10 * g + c;
    tot[K][0][1][0] = 40000; /* 16-bit totals wrap: the game reads -25536 */
    mw_cchannel ch[C] = {
        {3, {true, true, true}, {{0}}}, {4, {false, true, false}, {{0}}}, {6, {false, false, true}, {{0}}}};
    mw_canim a = {.game = 2,
                  .duration = 1.f,
                  .interval = .25f,
                  .root_bone_id = 3,
                  .rotation_divisor = 8192,
                  .translation_mult = .125f,
                  .scale_mult = 1.f / 1024.f,
                  .bitmap_bits = 5,
                  .bitmap = bitmap,
                  .channel_count = C,
                  .channels = ch,
                  .key_count = K,
                  .totals = &tot[0][0][0][0]};
    mw_fit_widths(&a, ch);
    ch[0].bits[1][1] = 32;
    ch[1].bits[1][2] = 31;
    ch[2].bits[2][0] = 17;
    mw_buf anim = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "format", "metroid-anim-mp2-compressed");
    assert_metadata(&out, "joint_bone_ids", "3,4,6");
    const ossa_raw_animation *an = &out.animations[0];
    assert_int_equal(an->tracks[0].scale_count, 5);
    assert_int_equal(an->tracks[1].rotation_count, 1);
    assert_int_equal(an->tracks[1].translation_count, 5);
    assert_int_equal(an->tracks[2].scale_count, 5);
    assert_int_equal(an->tracks[2].translation_count, 1);
    for (int f = 0; f <= 4; f += 2) {
        const int k = f / 2;
        const double wrapped = tot[k][0][1][0] > 32767 ? tot[k][0][1][0] - 65536.0 : tot[k][0][1][0];
        assert_vec_near(an->tracks[0].translations[f].value, wrapped * .125, tot[k][0][1][1] * .125,
                        tot[k][0][1][2] * .125, 1e-4);
        assert_vec_near(an->tracks[0].scales[f].value, tot[k][0][2][0] / 1024.0, tot[k][0][2][1] / 1024.0,
                        tot[k][0][2][2] / 1024.0, 1e-6);
        assert_vec_near(an->tracks[1].translations[f].value, tot[k][1][1][0] * .125, tot[k][1][1][1] * .125,
                        tot[k][1][1][2] * .125, 1e-4);
        assert_vec_near(an->tracks[2].scales[f].value, tot[k][2][2][0] / 1024.0, tot[k][2][2][1] / 1024.0,
                        tot[k][2][2][2] / 1024.0, 1e-6);
        double q[4];
        mw_ref_rotation(tot[k][0][0][0], tot[k][0][0][1], tot[k][0][0][2], false, 8192, q);
        assert_quat_near(an->tracks[0].rotations[f].value, q, 2e-6);
    }
    /* Frame 1 is half way between stored frames 0 and 2. */
    const ossa_float3 m = an->tracks[2].scales[1].value;
    assert_vec_near(m, (tot[0][2][2][0] + tot[1][2][2][0]) / 2048.0, (tot[0][2][2][1] + tot[1][2][2][1]) / 2048.0,
                    (tot[0][2][2][2] + tot[1][2][2][2]) / 2048.0, 1e-6);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
}

static void compressed_timing(void **state)
{
    (void)state;
    /* One channel (bone 3), rotation about z from total 0 to 1000 to 2000, stored at frames 4
     * and 10; the duration is 8 frames: frames 5..8 interpolate towards frame 10 (the game
     * does not stop at the duration), and the bitmap of 5 bits makes the value hold after 4. */
    enum { K = 2 };
    int32_t tot[K + 1][1][3][3] = {{{{0}}}};
    tot[1][0][0][2] = 1000, tot[2][0][0][2] = 2000;
    mw_cchannel ch[1] = {{3, {true, false, false}, {{0}}}};
    bool bitmap[11] = {0};
    bitmap[4] = bitmap[10] = true;
    mw_canim a = {.game = 1,
                  .duration = 2.f,
                  .interval = .25f,
                  .rotation_divisor = 4096,
                  .translation_mult = 1.f,
                  .bitmap_bits = 11,
                  .bitmap = bitmap,
                  .channel_count = 1,
                  .channels = ch,
                  .key_count = K,
                  .totals = &tot[0][0][0][0]};
    mw_fit_widths(&a, ch);
    mw_buf anim = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    double q[3][4];
    for (int k = 0; k <= K; ++k) mw_ref_rotation(0, 0, tot[k][0][0][2], false, 4096, q[k]);
    const ossa_raw_joint_track *t = &out.animations[0].tracks[0];
    assert_int_equal(t->rotation_count, 9);
    for (int f = 0; f <= 8; ++f) {
        double e[4];
        if (f <= 4)
            mw_ref_game_slerp(q[0], q[1], f / 4.0, e);
        else
            mw_ref_game_slerp(q[1], q[2], (f - 4) / 6.0, e);
        assert_quat_near(t->rotations[f].value, e, 2e-6);
    }
    ossa_import_output_destroy(&out);

    /* A 5-bit bitmap ends at frame 4 (K = 1): frames 0..4, then one key at the duration holding frame 4. */
    mw_buf_free(&anim);
    a.bitmap_bits = 5, a.key_count = 1;
    assert_true(mw_write_compressed(&anim, &a, NULL));
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    t = &out.animations[0].tracks[0];
    assert_int_equal(t->rotation_count, 6);
    assert_true(t->rotations[5].time == 2.f);
    assert_quat_near(t->rotations[5].value, q[1], 2e-6);
    assert_quat_near(t->rotations[4].value, q[1], 2e-6);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
}

/* A frame on a stored key holds that key's value exactly, even next to a much larger value:
 * frames 1 and 2 are stored (t = 1 from the key before), frame 3 is half way. */
static void compressed_stored_frames_exact(void **state)
{
    (void)state;
    enum { K = 3 };
    const float mult = .02f;
    int32_t tot[K + 1][1][3][3] = {{{{0}}}};
    const int32_t x[K + 1] = {32060, 29, 32060, 32060}, y[K + 1] = {29, 32060, -32000, 29};
    for (int k = 0; k <= K; ++k) tot[k][0][1][0] = x[k], tot[k][0][1][1] = y[k], tot[k][0][1][2] = -x[k];
    mw_cchannel ch[1] = {{3, {false, true, false}, {{0}}}};
    static const bool bitmap[5] = {1, 1, 1, 0, 1};
    mw_canim a = {.game = 2,
                  .duration = 1.f,
                  .interval = .25f,
                  .root_bone_id = 3,
                  .rotation_divisor = 4096,
                  .translation_mult = mult,
                  .scale_mult = 1.f,
                  .bitmap_bits = 5,
                  .bitmap = bitmap,
                  .channel_count = 1,
                  .channels = ch,
                  .key_count = K,
                  .totals = &tot[0][0][0][0]};
    mw_fit_widths(&a, ch);
    mw_buf anim = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    const ossa_raw_joint_track *t = &out.animations[0].tracks[0];
    assert_int_equal(t->translation_count, 5);
    const int frame_of_key[K + 1] = {0, 1, 2, 4};
    for (int k = 0; k <= K; ++k) {
        /* The stored value is total * multiplier in float (the format's formula). */
        const ossa_float3 v = t->translations[frame_of_key[k]].value;
        assert_true(v.x == (float)x[k] * mult);
        assert_true(v.y == (float)y[k] * mult);
        assert_true(v.z == (float)-x[k] * mult);
    }
    /* 0.58 (29 * 0.02) exactly, where 641.2 + (0.58 - 641.2) gives 0.580017. */
    assert_true(t->translations[1].value.x == 29.f * mult);
    assert_true(641.2f + (29.f * mult - 641.2f) != 29.f * mult);
    /* Frame 3 lies half way between stored frames 2 and 4. */
    assert_vec_near(t->translations[3].value, 641.2, (-32000 + 29) * .01, -641.2, 1e-3);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
}

static void compressed_quantisation(void **state)
{
    (void)state;
    /* Float targets quantised as an encoder would; decoded values must be within half a step. */
    enum { K = 12, C = 4 };
    const uint32_t div = 16384;
    const float mult = .002f;
    const double q = (PI / 2.0) / div;
    static int32_t tot[K + 1][C][3][3];
    static bool neg[K + 1][C];
    static double target_q[K + 1][C][4], target_t[K + 1][C][3];
    uint32_t seed = 7;
    for (int k = 0; k <= K; ++k)
        for (int c = 0; c < C; ++c) {
            /* Random unit quaternion with |w| >= 0.3 so the derived W is well conditioned. */
            double v[4], n;
            do {
                n = 0;
                for (int i = 0; i < 4; ++i) v[i] = ossa_test_randf(&seed, -1.f, 1.f), n += v[i] * v[i];
            } while (n < .1 || fabs(v[3]) / sqrt(n) < .3);
            for (int i = 0; i < 4; ++i) target_q[k][c][i] = v[i] / sqrt(n);
            for (int i = 0; i < 3; ++i) {
                tot[k][c][0][i] = (int32_t)lround(asin(target_q[k][c][i]) / q);
                target_t[k][c][i] = ossa_test_randf(&seed, -30.f, 30.f);
                tot[k][c][1][i] = (int32_t)lround(target_t[k][c][i] / (double)mult);
            }
            neg[k][c] = target_q[k][c][3] < 0;
        }
    bool bitmap[K + 1];
    for (int i = 0; i <= K; ++i) bitmap[i] = true;
    mw_cchannel ch[C];
    for (int c = 0; c < C; ++c) ch[c] = (mw_cchannel){(uint32_t)(10 + c), {true, true, false}, {{0}}};
    mw_canim a = {.game = 1,
                  .duration = K * .5f,
                  .interval = .5f,
                  .rotation_divisor = div,
                  .translation_mult = mult,
                  .bitmap_bits = K + 1,
                  .bitmap = bitmap,
                  .channel_count = C,
                  .channels = ch,
                  .key_count = K,
                  .totals = &tot[0][0][0][0],
                  .negative_w = &neg[0][0]};
    mw_fit_widths(&a, ch);
    mw_buf anim = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, NULL, &out, &diag), OSSA_OK);
    const double half = q / 2 + 1e-6;
    for (int c = 0; c < C; ++c) {
        const ossa_raw_joint_track *t = &out.animations[0].tracks[c];
        for (int k = 1; k <= K; ++k) { /* key 0's W sign is always positive */
            const ossa_quat d = t->rotations[k].value;
            const double *e = target_q[k][c];
            assert_true(fabs((double)d.x - e[0]) <= half && fabs((double)d.y - e[1]) <= half &&
                        fabs((double)d.z - e[2]) <= half);
            /* |dw| <= |d(x^2+y^2+z^2)| / (|w| + |w'|) with |w| >= 0.3. */
            assert_true(fabs((double)d.w - e[3]) <= (2 * 3 * half + 3 * half * half) / .3);
            const double *tt = target_t[k][c];
            assert_vec_near(t->translations[k].value, tt[0], tt[1], tt[2], (double)mult / 2 + 1e-5);
        }
    }
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
}

static void bind_raw_skeleton(void **state)
{
    (void)state;
    mw_canim a = mw_fixture_compressed(1);
    mw_buf anim = {0};
    assert_true(mw_write_compressed(&anim, &a, NULL));
    /* Joints in non-depth-first order: child "b" (bone 5) listed before its parent "a" (bone 3). */
    ossa_raw_skeleton skel = {0};
    assert_int_equal(ossa_raw_skeleton_create(&skel, 3, NULL), OSSA_OK);
    ossa_raw_skeleton_set_name(&skel, 0, "b");
    ossa_raw_skeleton_set_name(&skel, 1, "a");
    ossa_raw_skeleton_set_name(&skel, 2, "extra");
    skel.joints[0].parent = 1;
    skel.joints[0].rest.translation = (ossa_float3){1.f, 2.f, 3.f};
    const uint32_t ids[3] = {5, 3, 200};
    ossa_metroid_anim_desc desc = {.skeleton = &skel, .joint_bone_ids = ids};
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&anim, &desc, &out, &diag), OSSA_OK);
    assert_true(ossa_raw_skeleton_is_depth_first(&out.skeleton));
    assert_metadata(&out, "bound", "skeleton");
    assert_metadata(&out, "unbound_bone_ids", "4");
    const int ja = joint_named(&out, "a"), jb = joint_named(&out, "b"), je = joint_named(&out, "extra");
    assert_int_equal(out.skeleton.joints[jb].parent, ja);
    char expected[32];
    const char *order[3];
    order[ja] = "3", order[jb] = "5", order[je] = "-";
    snprintf(expected, sizeof expected, "%s,%s,%s", order[0], order[1], order[2]);
    assert_metadata(&out, "joint_bone_ids", expected);
    const ossa_raw_joint_track *tb = &out.animations[0].tracks[jb];
    assert_int_equal(tb->rotation_count, 9);
    assert_vec_near(tb->translations[0].value, 1, 2, 3, 0);
    assert_int_equal(out.animations[0].tracks[ja].translation_count, 9);
    assert_int_equal(out.animations[0].tracks[je].rotation_count, 1);
    desc.joint_bone_ids = NULL;
    assert_int_equal(import_anim(&anim, &desc, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_import_metroid_anim(NULL, 4, NULL, &out, &diag), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_import_metroid_anim(anim.data, anim.size, NULL, NULL, &diag), OSSA_ERROR_NULL_ARGUMENT);
    ossa_import_output_destroy(&out);
    ossa_raw_skeleton_destroy(&skel);
    mw_buf_free(&anim);
}

static void compressed_errors(void **state)
{
    (void)state;
    mw_canim a = mw_fixture_compressed(1);
    mw_buf good = {0}, b = {0};
    mw_clayout lay;
    assert_true(mw_write_compressed(&good, &a, &lay));
    const ossa_metroid_game AUTO = OSSA_METROID_GAME_AUTO;
    const size_t d1 = lay.descriptor[1];
#define RESET() (b.size = 0, mw_bytes(&b, good.data, good.size))
    RESET(), mw_put_u8(&b, d1 + 8, 33); /* rotation x width */
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, d1 + 8);
    RESET(), mw_put_u32(&b, d1, 100);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, d1);
    RESET(), mw_put_u32(&b, d1, 3);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, d1);
    RESET(), mw_put_u32(&b, lay.descriptor_count, 2);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.descriptor_count);
    RESET(), mw_put_u32(&b, lay.channel_repeat, 4);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.channel_repeat);
    RESET(), mw_put_u32(&b, lay.channel_count, 101);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.channel_count);
    RESET(), mw_put_u32(&b, lay.bitmap + 4, 0x1FFu & ~0x2u); /* frames 0, 2..8 stored: 7 keys, not 3 */
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.bitmap);
    RESET(), mw_put_u16(&b, d1 + 4, MW_FIX_KEYS + 1);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, d1 + 4);
    RESET(), mw_put_u16(&b, d1 + 4, 0);
    expect_anim_error(&b, OSSA_METROID_GAME_MP1, OSSA_ERROR_UNSUPPORTED_FORMAT, d1 + 4);
    RESET(), mw_put_u32(&b, lay.rotation_divisor, 0);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.rotation_divisor);
    RESET(), mw_put_f32(&b, lay.duration, 0.f);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.duration);
    RESET(), mw_put_f32(&b, lay.duration + 4, NAN);
    expect_anim_error(&b, AUTO, OSSA_ERROR_CORRUPT, lay.duration + 4);
    RESET(), mw_put_u32(&b, lay.bitmap, 0xFFFFFFFFu);
    expect_anim_error(&b, AUTO, OSSA_ERROR_TRUNCATED, lay.bitmap + 4);
    RESET(), b.size -= 4; /* last bitstream word */
    expect_anim_error(&b, AUTO, OSSA_ERROR_TRUNCATED, lay.bitstream);
    RESET(), mw_put_u32(&b, 0, 3);
    expect_anim_error(&b, AUTO, OSSA_ERROR_UNSUPPORTED_FORMAT, 0);
    b.size = 3;
    expect_anim_error(&b, AUTO, OSSA_ERROR_TRUNCATED, 0);
    for (size_t cut = 4; cut < good.size; ++cut) {
        RESET(), b.size = cut;
        ossa_import_output out = {0};
        ossa_diag diag;
        assert_int_equal(import_anim(&b, NULL, &out, &diag), OSSA_ERROR_TRUNCATED);
        assert_true(diag.offset <= cut);
    }
    /* 100 translation channels of 25000 zero-width keys: 2.5 million keys from 4 KB, refused
     * before anything that size is allocated. */
    mw_buf big = {0};
    mw_u32(&big, 2), mw_u32(&big, 0), mw_u16(&big, 0x0101), mw_f32(&big, 5000.f), mw_f32(&big, .25f);
    mw_u32(&big, 3), mw_u32(&big, 0), mw_u32(&big, 4096), mw_f32(&big, 1.f), mw_f32(&big, 1.f);
    mw_u32(&big, 100), mw_u32(&big, 1);
    const size_t bitmap_at = big.size;
    mw_u32(&big, 25001);
    for (int w = 0; w < (25001 + 31) / 32; ++w) mw_u32(&big, 0xFFFFFFFFu);
    mw_u32(&big, 100);
    for (uint8_t c = 0; c < 100; ++c) {
        mw_u8(&big, c), mw_u16(&big, 0), mw_u16(&big, 25000);
        for (int i = 0; i < 3; ++i) mw_u16(&big, 0), mw_u8(&big, 0);
        mw_u16(&big, 0);
    }
    expect_anim_error(&big, OSSA_METROID_GAME_MP2, OSSA_ERROR_UNSUPPORTED_FORMAT, bitmap_at);
    mw_buf_free(&big);
    /* A bad CINF is reported as such. */
    mw_buf cinf = {0};
    mw_cinf_layout cl;
    mw_fixture_cinf(&cinf, 1, &cl);
    mw_put_u32(&cinf, cl.bone_offset[3], 150);
    ossa_metroid_anim_desc desc = {.cinf_data = cinf.data, .cinf_size = cinf.size};
    ossa_import_output out = {0};
    ossa_diag diag;
    assert_int_equal(import_anim(&good, &desc, &out, &diag), OSSA_ERROR_CORRUPT);
    assert_int_equal(diag.offset, cl.bone_offset[3]);
    assert_memory_equal(diag.message, "CINF: ", 6);
#undef RESET
    mw_buf_free(&cinf);
    mw_buf_free(&good);
    mw_buf_free(&b);
}

/* The fixture's arm rotates along an arc whose keys lie on the chord of their neighbours at
 * the time points: dropping one costs nothing there yet bends the curve between them (about
 * 2 mm at the hand). An error-bounded bake must keep the bound everywhere it is measured. */
static void bounded_bake_holds_between_keys(void **state)
{
    (void)state;
    mw_buf anim = {0}, cinf = {0};
    ossa_import_output out = {0};
    ossa_diag diag;
    import_mp1_fixture(&anim, &cinf, &out, &diag);
    assert_int_equal(ossa_import_output_sort_depth_first(&out, &diag), OSSA_OK);
    ossa_animation_build_stats stats = {0};
    const ossa_animation_build_desc build = {.skeleton = &out.skeleton, .tolerance = 1e-4f, .stats = &stats};
    ossa_blob sblob = {0}, ablob = {0};
    assert_int_equal(ossa_skeleton_build(&out.skeleton, NULL, &sblob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(&out.animations[0], &build, &ablob, &diag), OSSA_OK);
    ossa_skeleton skel;
    ossa_animation rt;
    assert_int_equal(ossa_skeleton_init(&skel, sblob.data, sblob.size), OSSA_OK);
    assert_int_equal(ossa_animation_init(&rt, ablob.data, ablob.size), OSSA_OK);
    const ossa_error_desc measure = {.sample_rate = 240.f, .shell_distance = .03f, .source_times = 1};
    ossa_error_report rep;
    assert_int_equal(ossa_measure_error(&skel, &out.animations[0], &rt, &measure, &rep, &diag), OSSA_OK);
    if (rep.max > 1e-4f || stats.error_ratio > 1.f)
        fail_msg("measured %g m at 240 Hz (joint %zu at %g s), builder ratio %g", (double)rep.max, rep.worst_joint,
                 (double)rep.worst_time, (double)stats.error_ratio);
    ossa_blob_destroy(&sblob);
    ossa_blob_destroy(&ablob);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

/* Runtime blobs built from the import must sample like the raw animation, within the
 * builder's documented quantisation (half floats, 15-bit quaternion components). */
static void bake_matches_raw(void **state)
{
    (void)state;
    mw_buf anim = {0}, cinf = {0};
    ossa_import_output out = {0};
    ossa_diag diag;
    import_mp1_fixture(&anim, &cinf, &out, &diag);
    ossa_blob sblob = {0}, ablob = {0};
    assert_int_equal(ossa_skeleton_build(&out.skeleton, NULL, &sblob, &diag), OSSA_OK);
    assert_int_equal(ossa_animation_build(&out.animations[0], NULL, &ablob, &diag), OSSA_OK);
    ossa_skeleton skel;
    ossa_animation rt;
    assert_int_equal(ossa_skeleton_init(&skel, sblob.data, sblob.size), OSSA_OK);
    assert_int_equal(ossa_animation_init(&rt, ablob.data, ablob.size), OSSA_OK);
    const size_t joints = out.skeleton.joint_count;
    assert_int_equal(rt.track_count, joints);
    const size_t ctx_size = (ossa_sampling_context_size(joints) + 15) & ~(size_t)15;
    void *mem = aligned_alloc(16, ctx_size);
    ossa_soa_transform *pose = aligned_alloc(16, rt.soa_count * sizeof *pose);
    ossa_sampling_context *ctx = ossa_sampling_context_init(mem, ctx_size, joints);
    assert_non_null(ctx);
    ossa_transform ref[16];
    const float duration = out.animations[0].duration;
    for (int s = 0; s <= 64; ++s) {
        const float t = duration * (float)s / 64.f;
        ossa_sampling_job job = {&rt, ctx, t / duration, pose, rt.soa_count, NULL, 0};
        assert_int_equal(ossa_sampling_job_run(&job), OSSA_OK);
        assert_int_equal(ossa_raw_animation_sample(&out.animations[0], t, ref, 16), OSSA_OK);
        for (size_t j = 0; j < joints; ++j) {
            const ossa_transform got = ossa_soa_transform_get(&pose[j / 4], (int)(j % 4));
            const ossa_float3 e = ref[j].translation;
            const double tol = 1e-3 * fmax(1.0, fabs((double)e.x) + fabs((double)e.y) + fabs((double)e.z));
            assert_vec_near(got.translation, (double)e.x, (double)e.y, (double)e.z, tol);
            const ossa_quat q = ref[j].rotation, g = got.rotation;
            const double dot = (double)(q.x * g.x + q.y * g.y + q.z * g.z + q.w * g.w);
            if (fabs(dot) < 1 - 1e-6) fail_msg("joint %zu at %g s: rotation dot %.9f", j, (double)t, dot);
        }
    }
    free(mem);
    free(pose);
    ossa_blob_destroy(&sblob);
    ossa_blob_destroy(&ablob);
    ossa_import_output_destroy(&out);
    mw_buf_free(&anim);
    mw_buf_free(&cinf);
}

/* With OSSA_METROID_CORPUS=<dir> the seed files of the fuzz targets are written to
 * <dir>/metroid_anim and <dir>/metroid_cinf (directories must exist). */
static void write_seed(const char *dir, const char *name, const mw_buf *b)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b->data, 1, b->size, f) != b->size) fprintf(stderr, "could not write %s\n", path);
    if (f) fclose(f);
}

static void write_corpus(const char *dir)
{
    init_uncompressed();
    for (int game = 1; game <= 2; ++game) {
        mw_buf b = {0};
        char name[64];
        mw_fixture_cinf(&b, game, NULL);
        snprintf(name, sizeof name, "metroid_cinf/mp%d.cinf", game);
        write_seed(dir, name, &b);
        b.size = 0;
        mw_canim a = mw_fixture_compressed(game);
        mw_write_compressed(&b, &a, NULL);
        snprintf(name, sizeof name, "metroid_anim/mp%d_compressed.anim", game);
        write_seed(dir, name, &b);
        b.size = 0;
        mw_uchannel ch[2] = {{3, {true, true, game == 2}, urot[0][0], utrans[0][0], uscale[0][0]},
                             {5, {game == 1, game == 2, false}, urot[1][0], utrans[1][0], NULL}};
        mw_uanim u = {game, .75f, .25f, 3, 3, 0xCAFEF00Du, 2, ch, false};
        mw_write_uncompressed(&b, &u, NULL);
        snprintf(name, sizeof name, "metroid_anim/mp%d_uncompressed.anim", game);
        write_seed(dir, name, &b);
        mw_buf_free(&b);
    }
}

int main(void)
{
    const char *corpus = getenv("OSSA_METROID_CORPUS");
    if (corpus) write_corpus(corpus);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cinf_mp1_and_mp2),
        cmocka_unit_test(cinf_errors),
        cmocka_unit_test(uncompressed_mp1),
        cmocka_unit_test(uncompressed_mp2),
        cmocka_unit_test(uncompressed_errors),
        cmocka_unit_test(compressed_mp1),
        cmocka_unit_test(compressed_mp2_scale),
        cmocka_unit_test(compressed_timing),
        cmocka_unit_test(compressed_stored_frames_exact),
        cmocka_unit_test(compressed_quantisation),
        cmocka_unit_test(bind_raw_skeleton),
        cmocka_unit_test(compressed_errors),
        cmocka_unit_test(bake_matches_raw),
        cmocka_unit_test(bounded_bake_holds_between_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
