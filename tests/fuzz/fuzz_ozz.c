/* libFuzzer target for the ozz-animation archive importer: any input must give OSSA_OK or
 * an error with a message and an empty output, without crashes, leaks or unbounded memory.
 *   ./fuzz_ozz -max_total_time=600 tests/fuzz/corpus/ozz */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "ossa/offline/import_ozz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    const ossa_result r = ossa_import_ozz(data, size, NULL, &out, &diag);
    if (r != OSSA_OK && (diag.code != r || diag.message[0] == '\0' || out.skeleton.joint_count != 0 ||
                         out.animation_count != 0 || out.metadata != NULL))
        abort();
    if (r == OSSA_OK) {
        /* what the importer returns must pass the validators it promises */
        ossa_diag check = {0};
        if (ossa_raw_skeleton_validate(&out.skeleton, &check) != OSSA_OK) abort();
        for (size_t a = 0; a < out.animation_count; ++a)
            if (ossa_raw_animation_validate(&out.animations[a], &check) != OSSA_OK) abort();
    }
    ossa_import_output_destroy(&out);
    return 0;
}
