/* Animation builder: raw keys to the segmented, quantised keyframe blob (ossa/animation.h),
 * lossless or error-bounded (see ossa/offline/builders.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "animation_codec.h"
#include "animation_format.h"
#include "internal.h"

static ossa_result check_desc(const ossa_raw_animation *raw, const ossa_animation_build_desc *d, ossa_diag *diag)
{
    const float values[3] = {d->tolerance, d->shell_distance, d->unit_scale};
    static const char *const names[3] = {"tolerance", "shell_distance", "unit_scale"};
    for (int i = 0; i < 3; ++i)
        if (!isfinite(values[i]) || values[i] < 0.f)
            return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "%s must be finite and >= 0, not %g", names[i],
                              (double)values[i]);
    if (d->layout != OSSA_ANIMATION_LAYOUT_PACKED && d->layout != OSSA_ANIMATION_LAYOUT_SORTED)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "layout %d is neither packed (0) nor sorted (1)",
                          d->layout);
    if (d->layout == OSSA_ANIMATION_LAYOUT_SORTED && d->tolerance == 0.f)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "the sorted layout stores 16-bit values: it needs a tolerance (no lossless build)");
    if (d->override_count && !d->overrides)
        return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "%zu overrides but no array", d->override_count);
    if (d->tolerance == 0.f) return OSSA_OK;
    /* The default shell, 3 cm in source units, must be a number: unit_scale 1e-41 would make
     * every distance infinite and every error NaN, which no comparison would catch. */
    if (d->shell_distance == 0.f && d->unit_scale > 0.f && !isfinite(OSSA_BUILD_DEFAULT_SHELL_DISTANCE / d->unit_scale))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "unit_scale %g m per unit is too small: the 3 cm shell would be infinite in source units",
                          (double)d->unit_scale);
    if (!d->skeleton)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "a tolerance needs the skeleton its error is measured on");
    ossa_result r = ossa_raw_skeleton_validate(d->skeleton, diag);
    if (r != OSSA_OK) return r;
    if (!ossa_raw_skeleton_is_depth_first(d->skeleton))
        return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON, "skeleton is not depth-first");
    if (d->skeleton->joint_count != raw->track_count)
        return ossa__fail(diag, OSSA_ERROR_JOINT_MISMATCH, "skeleton has %zu joints, animation %zu tracks",
                          d->skeleton->joint_count, raw->track_count);
    for (size_t i = 0; i < d->override_count; ++i) {
        const ossa_joint_tolerance *o = &d->overrides[i];
        if (o->joint >= raw->track_count || !isfinite(o->tolerance) || o->tolerance < 0.f ||
            !isfinite(o->shell_distance) || o->shell_distance < 0.f)
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, i,
                                 "override %zu: joint %zu of %zu, tolerance %g, shell distance %g", i, o->joint,
                                 raw->track_count, (double)o->tolerance, (double)o->shell_distance);
    }
    return OSSA_OK;
}

/* Progress of a lossless build (ossa_animation_build_desc.progress) when every sub-track is
 * encoded; writing the blob is the rest. */
#define PROGRESS_ENCODED .9f

static ossa_result build_lossless(const ossa__clip *clip, const char *name, const ossa_animation_build_desc *desc,
                                  ossa__clock *clock, ossa_blob *out, ossa_diag *diag)
{
    const size_t count = 3 * clip->joints;
    ossa__subtrack *st = ossa__calloc(desc->allocator, count ? count : 1, sizeof *st);
    ossa__encode_scratch scratch;
    const bool have_scratch = ossa__encode_scratch_alloc(clip, &scratch, 1);
    ossa_result r = OSSA_OK;
    if (!st || !have_scratch || !ossa__clip_subtracks_alloc(clip, st)) {
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory encoding keys");
        goto done;
    }
    ossa__progress progress = {.fn = desc->progress, .user = desc->progress_user};
    ossa__progress_report(&progress, 0.f, "encode");
    ossa__clock_switch(clock, OSSA__STAGE_SEARCH);
    size_t keys = 0;
    for (size_t s = 0; s < count; ++s) {
        ossa__subtrack_encode(clip, s, 0.f, 1.f, &st[s], &scratch);
        keys += st[s].key_count;
        ossa__progress_report(&progress, PROGRESS_ENCODED * (float)(s + 1) / (float)count, "encode");
    }
    ossa__clock_switch(clock, OSSA__STAGE_WRITE);
    r = ossa__animation_write(clip, st, name, desc->allocator, out, diag);
    if (r == OSSA_OK) ossa__progress_report(&progress, 1.f, "write");
    if (r == OSSA_OK && desc->stats) *desc->stats = (ossa_animation_build_stats){.key_count = keys};
done:
    if (st) ossa__subtracks_free(clip, st, count);
    ossa__encode_scratch_free(clip, &scratch, 1);
    ossa_free(desc->allocator, st);
    return r;
}

ossa_result ossa_animation_build(const ossa_raw_animation *raw, const ossa_animation_build_desc *desc, ossa_blob *out,
                                 ossa_diag *diag)
{
    if (out) memset(out, 0, sizeof *out);
    if (!raw || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no animation or output");
    const ossa_animation_build_desc defaults = {0};
    if (!desc) desc = &defaults;
    ossa_result r = ossa_raw_animation_validate(raw, diag);
    if (r != OSSA_OK) return r;
    if ((r = check_desc(raw, desc, diag)) != OSSA_OK) return r;
    ossa__clock clock = ossa__clock_start();
    ossa__clip clip;
    if ((r = ossa__clip_init(&clip, raw, desc->allocator, diag)) != OSSA_OK) return r;
    if (desc->tolerance > 0.f && (r = ossa__clip_set_rest(&clip, desc->skeleton, diag)) != OSSA_OK) {
        ossa__clip_destroy(&clip);
        return r;
    }
    if (desc->tolerance > 0.f && desc->layout == OSSA_ANIMATION_LAYOUT_SORTED) {
        /* The sorted layout never returns a blob above its tolerance. */
        ossa_animation_build_stats local = {0};
        ossa_animation_build_desc sorted = *desc;
        if (!sorted.stats) sorted.stats = &local;
        r = ossa__animation_search(&clip, raw, desc->skeleton, &sorted, raw->name, &clock, out, diag);
        if (r == OSSA_OK && !(sorted.stats->error_ratio <= 1.f)) {
            const size_t j = sorted.stats->worst_joint;
            r = ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                           "sorted layout: joint %zu (%s) measures %g at %.3f s, above its tolerance (%.0f %%): 16-bit "
                           "values over its range cannot hold it; use the packed layout",
                           j, desc->skeleton->joints[j].name ? desc->skeleton->joints[j].name : "?",
                           (double)sorted.stats->max_error, (double)sorted.stats->worst_time,
                           (double)sorted.stats->error_ratio * 100.0);
        }
    } else if (desc->tolerance > 0.f)
        r = ossa__animation_search(&clip, raw, desc->skeleton, desc, raw->name, &clock, out, diag);
    else
        r = build_lossless(&clip, raw->name, desc, &clock, out, diag);
    ossa__clip_destroy(&clip);
    ossa__clock_switch(&clock, clock.stage);
    if (r == OSSA_OK && desc->stats) {
        desc->stats->prepare_seconds = clock.seconds[OSSA__STAGE_PREPARE];
        desc->stats->search_seconds = clock.seconds[OSSA__STAGE_SEARCH];
        desc->stats->verify_seconds = clock.seconds[OSSA__STAGE_VERIFY];
        desc->stats->write_seconds = clock.seconds[OSSA__STAGE_WRITE];
        desc->stats->prepare_cpu_seconds = clock.cpu_seconds[OSSA__STAGE_PREPARE];
        desc->stats->search_cpu_seconds = clock.cpu_seconds[OSSA__STAGE_SEARCH];
        desc->stats->verify_cpu_seconds = clock.cpu_seconds[OSSA__STAGE_VERIFY];
        desc->stats->write_cpu_seconds = clock.cpu_seconds[OSSA__STAGE_WRITE];
    }
    if (r != OSSA_OK) ossa_blob_destroy(out);
    return r;
}
