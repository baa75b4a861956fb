/* What every importer fuzz target asserts about a result (aborts on a violation). */
#ifndef OSSA_TESTS_FUZZ_CHECK_H
#define OSSA_TESTS_FUZZ_CHECK_H

#include <stdlib.h>

#include "ossa/offline/import.h"

/* An error carries its code, a message, an offset inside the input (or SIZE_MAX) and leaves
 * the output empty; a success gives a valid depth-first skeleton and valid animations and
 * tracks, each animation with one track per joint when there is a skeleton. */
static inline void ossa_fuzz_check_import(ossa_result r, const ossa_diag *diag, const ossa_import_output *out,
                                          size_t size)
{
    if (r != OSSA_OK) {
        if (diag->code != r || diag->message[0] == '\0' || (diag->offset != SIZE_MAX && diag->offset > size)) abort();
        if (out->skeleton.joint_count || out->animation_count || out->track_count || out->event_count || out->metadata)
            abort();
        return;
    }
    ossa_diag v = {0};
    if (ossa_raw_skeleton_validate(&out->skeleton, &v) != OSSA_OK) abort();
    if (!ossa_raw_skeleton_is_depth_first(&out->skeleton)) abort();
    for (size_t a = 0; a < out->animation_count; ++a) {
        if (ossa_raw_animation_validate(&out->animations[a], &v) != OSSA_OK) abort();
        if (out->skeleton.joint_count && out->animations[a].track_count != out->skeleton.joint_count) abort();
    }
    for (size_t t = 0; t < out->track_count; ++t)
        if (ossa_raw_track_validate(&out->tracks[t], &v) != OSSA_OK) abort();
}

#endif
