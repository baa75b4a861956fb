/* libFuzzer target: AnimJ import, then the invariants a successful import promises (valid
 * tracks, skeleton and animations; the AnimX writer accepts them and AnimX reads them back)
 * or an empty output and a diag with a line and column. */
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_resonite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_resonite_desc desc = {.max_keys = 1 << 14};
    ossa_result r = ossa_import_animj(data, size, &desc, &out, &diag);
    if (r != OSSA_OK) {
        if (diag.code != r || !diag.message[0] || out.track_count || out.metadata) abort();
        if (r == OSSA_ERROR_PARSE && (diag.line == 0 || diag.column == 0)) abort();
        return 0;
    }
    for (size_t i = 0; i < out.track_count; ++i)
        if (ossa_raw_track_validate(&out.tracks[i], NULL) != OSSA_OK) abort();
    if (out.skeleton.joint_count && ossa_raw_skeleton_validate(&out.skeleton, NULL) != OSSA_OK) abort();
    for (size_t i = 0; i < out.animation_count; ++i)
        if (ossa_raw_animation_validate(&out.animations[i], NULL) != OSSA_OK) abort();
    ossa_blob blob = {0};
    ossa_animx_write_desc w = {.tracks = out.tracks,
                               .track_count = out.track_count,
                               .skeleton = &out.skeleton,
                               .animation = out.animation_count ? &out.animations[0] : NULL};
    if (ossa_animx_write(&w, &blob, NULL) != OSSA_OK) abort();
    ossa_import_output back = {0};
    ossa_resonite_desc flat = {.max_keys = 1 << 16, .no_joint_binding = true};
    ossa_result rb = ossa_import_animx(blob.data, blob.size, &flat, &back, &diag);
    if (rb != OSSA_OK && rb != OSSA_ERROR_INVALID_KEY) abort();
    ossa_import_output_destroy(&back);
    ossa_blob_destroy(&blob);
    ossa_import_output_destroy(&out);
    return 0;
}
