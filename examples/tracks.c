/* tracks.c: user-channel tracks (values keyed along a clip: a hand target, a foot contact, a
 * camera zoom) sampled at a ratio, and a float track's crossings of a threshold turned into
 * events (footsteps), the same however the frames cut the time.
 *
 * Two tracks are baked into an archive beside the example arm (common.h):
 *   "target", float3, linear from (0, 0, 0) at ratio 0 to (1, 2, 3) at ratio 1: at ratio r
 *   it is (r, 2 r, 3 r);
 *   "contact", float, step keys 0 at ratio 0, 1 at 0.25, 0 at 0.5, 1 at 0.75: above the
 *   threshold 0.5 it rises at 0.25 and 0.75 and falls at 0.5 and, as the clip loops from its
 *   last value (1) to its first (0), at every whole loop, 0 included.
 * Played for 1.6 loops in steps of 0.1 loop, the triggering job reports each edge once, in
 * loops: falls at 0, 0.5, 1, 1.5, rises at 0.25, 0.75, 1.25.
 */
#include <stdio.h>
#include <stdlib.h>

#include <ossa/track_jobs.h>

#include "common.h"

static bool bake(ossa_blob *file)
{
    ossa_raw_skeleton skel = {0};
    ossa_raw_animation idle = {0};
    ossa_raw_track tracks[2] = {{0}};
    bool ok = example_arm(&skel) && example_arm_clip(&idle, "idle", 1.f) &&
              ossa_raw_track_create(&tracks[0], OSSA_TRACK_FLOAT3, 2, NULL) == OSSA_OK &&
              ossa_raw_track_set_name(&tracks[0], "target") == OSSA_OK &&
              ossa_raw_track_create(&tracks[1], OSSA_TRACK_FLOAT, 4, NULL) == OSSA_OK &&
              ossa_raw_track_set_name(&tracks[1], "contact") == OSSA_OK;
    if (ok) {
        tracks[0].keys[0] = (ossa_raw_track_key){0.f, OSSA_INTERP_LINEAR, {0.f, 0.f, 0.f}};
        tracks[0].keys[1] = (ossa_raw_track_key){1.f, OSSA_INTERP_LINEAR, {1.f, 2.f, 3.f}};
        for (int k = 0; k < 4; k++) /* step: each value holds until the next key */
            tracks[1].keys[k] = (ossa_raw_track_key){.25f * (float)k, OSSA_INTERP_STEP, {(float)(k % 2)}};
        ok = example_archive(&skel, &idle, 1, tracks, 2, file);
    }
    ossa_raw_track_destroy(&tracks[1]);
    ossa_raw_track_destroy(&tracks[0]);
    ossa_raw_animation_destroy(&idle);
    ossa_raw_skeleton_destroy(&skel);
    return ok;
}

int main(void)
{
    ossa_blob file = {0};
    ossa_archive ar;
    ossa_track target, contact;
    bool ok = bake(&file) && example_check(ossa_archive_init(&ar, file.data, file.size), NULL, "archive") &&
              example_check(ossa_archive_track(&ar, 0, &target), NULL, "target") &&
              example_check(ossa_archive_track(&ar, 1, &contact), NULL, "contact");

    /* Sampling: one value of the track's width (3 floats here) at a ratio. */
    const float ratios[] = {0.f, .25f, .5f, 1.f};
    for (size_t i = 0; ok && i < sizeof ratios / sizeof *ratios; i++) {
        float v[3];
        const ossa_track_sampling_job job = {.track = &target, .ratio = ratios[i], .output = v, .output_count = 3};
        ok = example_check(ossa_track_sampling_job_run(&job), NULL, "track sampling");
        if (ok)
            printf("target ratio %.2f %.4f %.4f %.4f\n", (double)ratios[i], (double)v[0], (double)v[1], (double)v[2]);
    }

    /* Triggering: each frame asks for the edges in [last time, this time), times in loops. */
    for (int frame = 1; ok && frame <= 16; frame++) {
        ossa_track_edge_iterator it;
        const ossa_track_triggering_job job = {.track = &contact,
                                               .from = (float)(frame - 1) / 10.f,
                                               .to = (float)frame / 10.f,
                                               .threshold = .5f,
                                               .iterator = &it};
        ok = example_check(ossa_track_triggering_job_run(&job), NULL, "triggering");
        ossa_track_edge edge;
        while (ok && ossa_track_edge_next(&it, &edge))
            printf("frame %d contact %s at %.2f\n", frame, edge.rising ? "rises" : "falls", (double)edge.ratio);
    }

    ossa_blob_destroy(&file);
    return ok ? 0 : 1;
}
