/* libFuzzer target for the glTF 2.0 importer (JSON text and GLB): any input must give OSSA_OK
 * with output that passes the validators, or an error with a message and an empty output,
 * without crashes, leaks or unbounded memory. External buffer URIs resolve to nothing here.
 *   ./fuzz_gltf -max_total_time=600 tests/fuzz/corpus/gltf */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "ossa/offline/import_gltf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    /* A small key budget keeps resampling of long CUBICSPLINE clips within the fuzzer's memory. */
    const ossa_gltf_desc desc = {.max_keys = 1 << 16};
    const ossa_result r = ossa_import_gltf(data, size, &desc, &out, &diag);
    ossa_fuzz_check_import(r, &diag, &out, size);
    ossa_import_output_destroy(&out);
    return 0;
}
