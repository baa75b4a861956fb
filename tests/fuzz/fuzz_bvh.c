/* libFuzzer target for the BVH stream reader, from memory and in small reads. Besides crashes
 * it treats as a bug any success whose output fails validation, any failure without a diag or
 * with output left, and the two ways of reading giving different results. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_bvh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct chunks {
    const uint8_t *data;
    size_t size, pos;
} chunks;

static size_t read_chunks(void *buffer, size_t size, void *user)
{
    chunks *c = user;
    size_t n = c->size - c->pos;
    if (n > 5) n = 5;
    if (n > size) n = size;
    memcpy(buffer, c->data + c->pos, n);
    c->pos += n;
    return n;
}

static void check(ossa_result r, const ossa_diag *diag, ossa_import_output *out)
{
    ossa_diag d = {0};
    if ((r == OSSA_OK) != (diag->code == OSSA_OK)) abort();
    if (r == OSSA_OK) {
        if (ossa_raw_skeleton_validate(&out->skeleton, &d) != OSSA_OK) abort();
        for (size_t i = 0; i < out->animation_count; ++i)
            if (ossa_raw_animation_validate(&out->animations[i], &d) != OSSA_OK) abort();
    } else if (out->skeleton.joint_count || out->animation_count || out->metadata) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    ossa_diag diag = {0}, diag2 = {0};
    ossa_import_output out = {0}, streamed = {0};
    const ossa_result r = ossa_import_bvh(data, size, NULL, &out, &diag);
    check(r, &diag, &out);
    chunks c = {data, size, 0};
    const ossa_result r2 = ossa_import_bvh_read(read_chunks, &c, size, NULL, &streamed, &diag2);
    check(r2, &diag2, &streamed);
    if (r != r2 || diag.line != diag2.line || diag.column != diag2.column) abort();
    if (r == OSSA_OK && (out.skeleton.joint_count != streamed.skeleton.joint_count ||
                         out.animations[0].tracks[0].rotation_count != streamed.animations[0].tracks[0].rotation_count))
        abort();
    ossa_import_output_destroy(&out);
    ossa_import_output_destroy(&streamed);
    return 0;
}
