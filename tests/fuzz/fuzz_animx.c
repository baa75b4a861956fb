/* libFuzzer target: AnimX import, then the invariants a successful import promises (valid
 * tracks, skeleton and animations; the writer accepts them) or an empty output and a diag.
 * Also re-encodes the payload, which runs both decompressors and compressors. */
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_resonite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const ossa_import_output *out, ossa_result r, const ossa_diag *diag)
{
    if (r != OSSA_OK) {
        if (diag->code != r || !diag->message[0] || out->track_count || out->metadata || out->skeleton.joint_count)
            abort();
        return;
    }
    for (size_t i = 0; i < out->track_count; ++i)
        if (ossa_raw_track_validate(&out->tracks[i], NULL) != OSSA_OK) abort();
    if (out->skeleton.joint_count && ossa_raw_skeleton_validate(&out->skeleton, NULL) != OSSA_OK) abort();
    for (size_t i = 0; i < out->animation_count; ++i) {
        if (out->animations[i].track_count != out->skeleton.joint_count) abort();
        if (ossa_raw_animation_validate(&out->animations[i], NULL) != OSSA_OK) abort();
    }
    ossa_blob blob = {0};
    ossa_animx_write_desc w = {.tracks = out->tracks, .track_count = out->track_count, .skeleton = &out->skeleton,
                               .animation = out->animation_count ? &out->animations[0] : NULL};
    if (ossa_animx_write(&w, &blob, NULL) != OSSA_OK) abort();
    ossa_blob_destroy(&blob);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_resonite_desc desc = {.max_keys = 1 << 14, .max_decompressed_size = 1 << 20};
    check(&out, ossa_import_animx(data, size, &desc, &out, &diag), &diag);
    ossa_import_output_destroy(&out);
    ossa_blob blob = {0};
    const ossa_animx_encoding enc = size ? (ossa_animx_encoding)(data[size - 1] % 3) : OSSA_ANIMX_RAW;
    if (ossa_animx_recode(data, size, enc, 1 << 20, NULL, &blob, NULL) == OSSA_OK) {
        ossa_diag_clear(&diag);
        check(&out, ossa_import_animx(blob.data, blob.size, &desc, &out, &diag), &diag);
        ossa_import_output_destroy(&out);
    }
    ossa_blob_destroy(&blob);
    return 0;
}
