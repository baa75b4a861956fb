/* libFuzzer target: AnimX import, then the invariants a successful import promises (valid
 * tracks, skeleton and animations; the writer accepts them) or an empty output and a diag.
 * Also re-encodes the payload, which runs both decompressors and compressors. */
#include <stdlib.h>
#include <string.h>

#include "fuzz_check.h"
#include "ossa/offline/import_resonite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The shared import checks, plus: whatever imports can be written back to AnimX. Offsets
 * inside LZ4/LZMA payloads count in the decompressed bytes, so they may pass the file size. */
static void check(const ossa_import_output *out, ossa_result r, const ossa_diag *diag)
{
    ossa_fuzz_check_import(r, diag, out, SIZE_MAX);
    if (r != OSSA_OK) return;
    if (out->animation_count && out->animations[0].track_count != out->skeleton.joint_count) abort();
    ossa_blob blob = {0};
    ossa_animx_write_desc w = {.tracks = out->tracks,
                               .track_count = out->track_count,
                               .skeleton = &out->skeleton,
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
