/* Writes small valid files of the formats that have no public sample on a Debian machine, for
 * the bad-input sweep (tests/sweep.sh) to mutate:
 *   sample_inputs DIR
 * creates DIR/input_v11.mrtk (0.25 s of camera, two hands with states, eye gaze, two markers),
 * DIR/clip_raw.animx and DIR/clip_lz4.animx (a two-joint clip and a user track; the LZ4 one
 * only with liblz4), DIR/fixture.cinf and DIR/fixture_mp1.anim, DIR/fixture_mp2.anim (Metroid
 * Prime skeleton and compressed animations). Prints one path per line. Exit 1 on failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metroid_writer.h"
#include "mrtk_writer.h"
#include "ossa/offline/import_resonite.h"

static int save(const char *dir, const char *name, const void *data, size_t size)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    const int ok = f && fwrite(data, 1, size, f) == size;
    if (f && fclose(f) != 0) return 0;
    if (ok) printf("%s\n", path);
    return ok;
}

static int write_mrtk(const char *dir)
{
    static mrtk_writer_key camera[7][3], states[4][2], hand[2][MRTK_WRITER_HAND_JOINTS][7][2], gaze[6][2];
    static const mrtk_writer_marker markers[2] = {{0.05f, "start"}, {0.2f, "grab"}};
    mrtk_writer_recording rec = {.major = 1,
                                 .minor = 1,
                                 .has_camera = true,
                                 .has_hands = true,
                                 .has_gaze = true,
                                 .markers = markers,
                                 .marker_count = 2};
    for (int c = 0; c < 7; ++c) {
        for (int k = 0; k < 3; ++k)
            camera[c][k] = mrtk_writer_linear_key(0.125f * (float)k, c == 6 ? 1.f : 0.1f * (float)(c + k));
        rec.camera[c] = (mrtk_writer_curve){8, 8, camera[c], 3};
    }
    for (int c = 0; c < 4; ++c) {
        states[c][0] = mrtk_writer_linear_key(0.f, 0.f);
        states[c][1] = mrtk_writer_linear_key(0.125f, 1.f);
        rec.states[c] = (mrtk_writer_curve){8, 8, states[c], 2};
    }
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < MRTK_WRITER_HAND_JOINTS; ++j)
            for (int c = 0; c < 7; ++c) {
                hand[h][j][c][0] = mrtk_writer_linear_key(0.f, c == 6 ? 1.f : 0.01f * (float)j);
                hand[h][j][c][1] = mrtk_writer_linear_key(0.25f, c == 6 ? 1.f : 0.02f * (float)(j + c));
                rec.joints[h][j][c] = (mrtk_writer_curve){8, 8, hand[h][j][c], 2};
            }
    for (int c = 0; c < 6; ++c) {
        gaze[c][0] = mrtk_writer_linear_key(0.f, c == 5 ? 1.f : 0.f);
        gaze[c][1] = mrtk_writer_linear_key(0.25f, c == 3 ? 1.f : 0.f);
        rec.gaze[c] = (mrtk_writer_curve){8, 8, gaze[c], 2};
    }
    size_t size = 0;
    uint8_t *bytes = mrtk_writer_write(&rec, &size);
    const int ok = bytes && save(dir, "input_v11.mrtk", bytes, size);
    free(bytes);
    return ok;
}

static int write_animx(const char *dir)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation anim = {0};
    ossa_raw_track track = {0};
    int ok = ossa_raw_skeleton_create(&skel, 2, NULL) == OSSA_OK &&
             ossa_raw_animation_create(&anim, 2, NULL) == OSSA_OK &&
             ossa_raw_track_create(&track, OSSA_TRACK_FLOAT, 3, NULL) == OSSA_OK;
    if (ok) {
        ossa_raw_skeleton_set_name(&skel, 0, "hips");
        ossa_raw_skeleton_set_name(&skel, 1, "spine");
        skel.joints[1].parent = 0;
        skel.joints[1].rest.translation = (ossa_float3){0.f, 0.5f, 0.f};
        anim.duration = 1.f;
        ok = ossa_raw_joint_track_resize(&anim, 0, 3, 2, 0) == OSSA_OK &&
             ossa_raw_joint_track_resize(&anim, 1, 0, 3, 0) == OSSA_OK &&
             ossa_raw_track_set_name(&track, "face/smile") == OSSA_OK;
    }
    if (ok) {
        for (int k = 0; k < 3; ++k) {
            const float t = 0.5f * (float)k;
            anim.tracks[0].translations[k] = (ossa_raw_float3_key){t, {t, 1.f, 0.f}};
            anim.tracks[1].rotations[k] = (ossa_raw_quat_key){t, {0.f, 0.2f * t, 0.f, 1.f - 0.02f * t}};
            track.keys[k] = (ossa_raw_track_key){t, OSSA_INTERP_LINEAR, {t * t, 0.f, 0.f, 0.f}};
        }
        anim.tracks[0].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        anim.tracks[0].rotations[1] = (ossa_raw_quat_key){1.f, {0.f, 0.f, 0.3826834f, 0.9238795f}};
        track.duration = 1.f;
    }
    static const struct {
        ossa_animx_encoding encoding;
        const char *name;
    } files[] = {{OSSA_ANIMX_RAW, "clip_raw.animx"}, {OSSA_ANIMX_LZ4, "clip_lz4.animx"}};
    for (size_t i = 0; ok && i < 2; ++i) {
        ossa_blob blob = {0};
        const ossa_animx_write_desc desc = {.name = "sample",
                                            .skeleton = &skel,
                                            .animation = &anim,
                                            .tracks = &track,
                                            .track_count = 1,
                                            .encoding = files[i].encoding};
        const ossa_result r = ossa_animx_write(&desc, &blob, NULL);
        if (r == OSSA_ERROR_UNSUPPORTED_FORMAT && files[i].encoding != OSSA_ANIMX_RAW) continue; /* no liblz4 */
        ok = r == OSSA_OK && save(dir, files[i].name, blob.data, blob.size);
        ossa_blob_destroy(&blob);
    }
    ossa_raw_track_destroy(&track);
    ossa_raw_animation_destroy(&anim);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

static int write_metroid(const char *dir)
{
    int ok = 1;
    mw_buf cinf = {0};
    mw_fixture_cinf(&cinf, 1, NULL);
    ok = ok && save(dir, "fixture.cinf", cinf.data, cinf.size);
    mw_buf_free(&cinf);
    for (int game = 1; ok && game <= 2; ++game) {
        mw_canim a = mw_fixture_compressed(game);
        mw_buf anim = {0};
        ok = mw_write_compressed(&anim, &a, NULL) &&
             save(dir, game == 1 ? "fixture_mp1.anim" : "fixture_mp2.anim", anim.data, anim.size);
        mw_buf_free(&anim);
    }
    return ok;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: sample_inputs DIR\n");
        return 2;
    }
    if (!write_mrtk(argv[1]) || !write_animx(argv[1]) || !write_metroid(argv[1])) {
        fprintf(stderr, "sample_inputs: could not write the samples into %s\n", argv[1]);
        return 1;
    }
    return 0;
}
