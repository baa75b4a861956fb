/* libFuzzer target for the Maya .anim parser, curve evaluator and importer. Besides crashes it
 * treats as a bug any success whose output fails validation, and any failure without a diag. */
#include <stdint.h>
#include <stdlib.h>

#include "ossa/offline/import_maya.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    (void)ossa_maya_anim_detect(data, size);
    ossa_diag diag = {0};
    ossa_maya_anim anim;
    ossa_result r = ossa_maya_anim_parse(data, size, NULL, &anim, &diag);
    if ((r == OSSA_OK) != (diag.code == OSSA_OK)) abort();
    if (r == OSSA_OK) {
        /* Inside the keys, near them and far outside (every infinity path). */
        for (size_t i = 0; i < anim.curve_count && i < 64; ++i) {
            const ossa_maya_curve *c = &anim.curves[i];
            if (!c->key_count) continue;
            const double first = c->keys[0].time, last = c->keys[c->key_count - 1].time;
            const double times[] = {first - 1e9, first - 2.5, first,       0.5 * (first + last),
                                    last - 1e-3, last,        last + 0.37, last + 1e7,
                                    1e300,       -1e300};
            for (size_t t = 0; t < sizeof times / sizeof *times; ++t) (void)ossa_maya_curve_evaluate(c, times[t]);
        }
        ossa_maya_anim_destroy(&anim);
    }
    ossa_import_output out = {0};
    ossa_diag_clear(&diag);
    r = ossa_import_maya_anim(data, size, NULL, &out, &diag);
    if ((r == OSSA_OK) != (diag.code == OSSA_OK)) abort();
    if (r == OSSA_OK) {
        if (ossa_raw_skeleton_validate(&out.skeleton, &diag) != OSSA_OK) abort();
        for (size_t i = 0; i < out.animation_count; ++i)
            if (ossa_raw_animation_validate(&out.animations[i], &diag) != OSSA_OK) abort();
        for (size_t i = 0; i < out.track_count; ++i)
            if (ossa_raw_track_validate(&out.tracks[i], &diag) != OSSA_OK) abort();
    } else if (out.skeleton.joint_count || out.animation_count || out.track_count || out.metadata) {
        abort();
    }
    ossa_import_output_destroy(&out);
    return 0;
}
