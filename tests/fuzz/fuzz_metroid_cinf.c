/* libFuzzer target for the Metroid Prime CINF importer: each input is imported as a CINF
 * (detected, MP1 and MP2 layouts) and as the skeleton a fixed ANIM binds to; every run must
 * pass check() below; never a crash, a leak, a hang or unbounded memory.
 *   ./fuzz_metroid_cinf -max_total_time=600 tests/fuzz/corpus/metroid_cinf */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "fuzz_check.h"
#include "ossa/offline/import_metroid.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A compressed MP1 ANIM animating bones 3 (rotation, translation) and 7 (rotation). */
static const unsigned char anim_mp1[115] = {
    0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x3f,
    0x00, 0x00, 0x00, 0x3e, 0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    0x10, 0x00, 0x3c, 0x23, 0xd7, 0x0a, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00,
    0x03, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x03,
    0x00, 0x02, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00,
    0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x07, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07,
    0x00, 0x00, 0x00, 0x00, 0x00, 0x70, 0x28, 0x28, 0xc8, 0x00, 0x00, 0x14, 0x12,
};

/* The shared import checks, plus: an ANIM gives one animation, a CINF none, and both give
 * metadata. */
static void check(ossa_result r, const ossa_diag *diag, const ossa_import_output *out, size_t size, bool animation)
{
    ossa_fuzz_check_import(r, diag, out, size);
    if (r == OSSA_OK && (out->animation_count != (animation ? 1u : 0u) || !out->metadata)) abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (int game = 0; game <= 2; ++game) {
        ossa_import_output out = {0};
        ossa_diag diag = {0};
        const ossa_metroid_cinf_desc desc = {.game = (ossa_metroid_game)game};
        const ossa_result r = ossa_import_metroid_cinf(data, size, &desc, &out, &diag);
        check(r, &diag, &out, size, false);
        ossa_import_output_destroy(&out);
    }
    ossa_import_output out = {0};
    ossa_diag diag = {0};
    const ossa_metroid_anim_desc desc = {.cinf_data = data, .cinf_size = size};
    const ossa_result r = ossa_import_metroid_anim(anim_mp1, sizeof anim_mp1, &desc, &out, &diag);
    check(r, &diag, &out, size, true);
    ossa_import_output_destroy(&out);
    return 0;
}
