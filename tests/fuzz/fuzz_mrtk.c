/* libFuzzer target for the MRTK input animation importer: any input must give OSSA_OK with an
 * output that passes the raw validators, or an error with a message, an offset inside the
 * input and an empty output; never a crash, a leak, a hang or unbounded memory. A short
 * max_duration keeps each run fast (longer recordings take the error path).
 *   ./fuzz_mrtk -max_total_time=600 tests/fuzz/corpus/mrtk */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ossa/offline/import_mrtk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    const ossa_mrtk_desc desc = {.sample_rate = 30.f, .max_duration = 4.f};
    const ossa_result r = ossa_import_mrtk(data, size, &desc, &out, &diag);
    if (r != OSSA_OK) {
        if (diag.code != r || diag.message[0] == '\0' || (diag.offset != SIZE_MAX && diag.offset > size)) abort();
        if (out.skeleton.joint_count || out.animation_count || out.track_count || out.event_count || out.metadata)
            abort();
    } else {
        ossa_diag check = {0};
        if (out.skeleton.joint_count != OSSA_MRTK_JOINT_COUNT || out.animation_count != 1) abort();
        if (ossa_raw_skeleton_validate(&out.skeleton, &check) != OSSA_OK) abort();
        if (ossa_raw_animation_validate(&out.animations[0], &check) != OSSA_OK) abort();
        for (size_t t = 0; t < out.track_count; ++t)
            if (ossa_raw_track_validate(&out.tracks[t], &check) != OSSA_OK) abort();
    }
    ossa_import_output_destroy(&out);
    return 0;
}
