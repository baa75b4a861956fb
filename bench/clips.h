/* Bench-local helpers shared by ossa-bench and ossa-crowd: clips imported and baked as
 * `ossa bake` does, and a synthetic skeleton and clip of any joint count built through the
 * offline builder API. Not installed; benchmarks only. */
#ifndef OSSA_BENCH_CLIPS_H
#define OSSA_BENCH_CLIPS_H

#include "ossa/animation.h"
#include "ossa/offline/builders.h"
#include "ossa/skeleton.h"
#include "tools.h"

/* One baked clip: its import, its skeleton and animation blobs and their runtime views. */
typedef struct bench_clip {
    const char *name;
    ossa_import_output imp;
    ossa_blob skel_blob, anim_blob;
    ossa_skeleton skel;
    ossa_animation anim;
    float unit; /* metres per unit */
} bench_clip;

/* CMU motion capture's unit, 1/0.45 inch, in metres. */
#define BENCH_CMU_UNIT 0.05644f

/* Bake tolerance in metres (default OSSA_BUILD_DEFAULT_TOLERANCE); the --tolerance options
 * set it before loading. */
extern float bench_tolerance;
/* Key layout of the bakes (ossa_animation_build_desc.layout; default packed); ossa-bench's
 * --layout sets it. */
extern int bench_layout;

/* The build every benchmark uses: the bench tolerance in the clip's unit. */
ossa_animation_build_desc bench_build_desc(const bench_clip *c);

/* Imports `path` (with `skeleton_path` when the file has no skeleton) and bakes it; prints the
 * diagnostic and returns false on failure (then bench_unload is still safe). */
bool bench_load(bench_clip *c, const char *path, const char *skeleton_path);

/* A deterministic synthetic character of `joints` joints (1 to OSSA_MAX_JOINTS): a branch
 * joint every 8 joints, the branches in a binary tree, each followed by a chain of 7 (about
 * 14 levels at 1,024 joints); 2 s at 30 keys per second; every joint rotates (a sine of its
 * own phase and axis), every fourth also translates, scales stay 1. Baked like the clips, in
 * metres. */
bool bench_synthetic(bench_clip *c, size_t joints);

/* `copies` copies of the clip at `path` side by side: a skeleton of copies x its joints
 * (each copy a root of its own, in the source's order, joints named "K/name") playing the
 * same keys, baked like bench_load. It has the source's animated content per joint, so its
 * cost per joint against the source's shows how cost grows with skeleton size alone.
 * Returns false when loading fails or the copies exceed OSSA_MAX_JOINTS. */
bool bench_tiled(bench_clip *c, const char *path, const char *skeleton_path, size_t copies);

void bench_unload(bench_clip *c);

/* The file name of a path. */
const char *bench_short_name(const char *path);

#endif /* OSSA_BENCH_CLIPS_H */
