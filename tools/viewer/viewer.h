/* The browser viewer's binding (viewer.c): the runtime compiled to WebAssembly with it
 * (tools/viewer/meson.build), called from viewer.js through ossa_viewer.js. One scene per
 * page: the archives the user opened, the skeleton of the first one, the clips of all of them,
 * and the model-space joint positions of the last evaluated pose.
 *
 *   void *bytes = ossa_viewer_alloc(size);        // the page copies the file in
 *   if (ossa_viewer_add(bytes, size) < 0) puts(ossa_viewer_error());
 *   ossa_viewer_evaluate(0, 0.5f, -1, 0.f, 0.f);  // clip 0 at 0.5 s
 *   const float *xyz = ossa_viewer_positions();   // [3 * ossa_viewer_joint_count()]
 *
 *
 * A skinned mesh (a glTF's, parsed by the page) is skinned by the runtime's skinning jobs:
 *
 *   ossa_viewer_mesh_begin(vertices, mesh_joints, 1);         // then fill the buffers:
 *   float *xyz = ossa_viewer_mesh_buffer(VIEWER_MESH_POSITIONS); // ... joints, weights, remap
 *   ossa_viewer_mesh_commit();                                 // checks them once
 *   ossa_viewer_evaluate(0, 0.5f, -1, 0.f, 0.f);
 *   ossa_viewer_mesh_skin(OSSA_SKINNING_DUAL_QUAT);            // ossa_viewer_mesh_positions()
 *
 * Every function reports failure through its return value and ossa_viewer_error(); none
 * aborts on a bad file (the archive loader validates every byte a job will read). Single
 * threaded, like the page. The functions also build natively (no Emscripten), as plain C. */
#ifndef OSSA_VIEWER_H
#define OSSA_VIEWER_H

#include <stddef.h>

#if defined(__EMSCRIPTEN__)
#include <emscripten.h>
#define VIEWER_API EMSCRIPTEN_KEEPALIVE
#else
#define VIEWER_API
#endif

/* Archives a page may open at once (each holds any number of clips). */
#define VIEWER_MAX_ARCHIVES 16
/* Clips over all archives. */
#define VIEWER_MAX_CLIPS 256

/* Text of the last failure, NUL-terminated ("" when the last call that can fail succeeded). */
VIEWER_API const char *ossa_viewer_error(void);

/* `size` bytes, 16-byte aligned (what ossa_archive_init needs), or NULL (size 0, out of
 * memory). Free with ossa_viewer_free unless ossa_viewer_add took them. */
VIEWER_API void *ossa_viewer_alloc(size_t size);
VIEWER_API void ossa_viewer_free(void *p);

/* Forgets every archive and clip and frees their memory. */
VIEWER_API void ossa_viewer_reset(void);

/* Adds the archive in `bytes` (from ossa_viewer_alloc, `size` bytes). On success the scene
 * owns the bytes and the return value is the number of clips added (0 or more): the first
 * archive gives the skeleton, later ones must have a skeleton with the same joint count and
 * parents, or none. Errors (-1, the scene unchanged, the bytes freed, ossa_viewer_error says
 * which): not a valid archive (the loader's message: truncated, bad magic, checksum, ...),
 * no skeleton in the first archive, a skeleton without joints, another hierarchy, a clip whose track count is not the
 * skeleton's joint count, more than VIEWER_MAX_ARCHIVES archives or VIEWER_MAX_CLIPS clips,
 * out of memory. */
VIEWER_API int ossa_viewer_add(void *bytes, size_t size);

/* The tolerance archive `archive` (in the order added) was baked to: its META line
 * `tolerance=` (docs/archive-format.md), metres, when it is a finite number above 0; else 0
 * (an archive baked before ossa wrote the line, a lossless one, an index out of range). */
VIEWER_API float ossa_viewer_archive_tolerance(int archive);

/* Metres per stored unit of archive `archive` (ossa_archive_unit_scale: 1 for what ossa bake
 * writes, the source's unit for --keep-source-units); 0 for an index out of range. */
VIEWER_API float ossa_viewer_archive_unit_scale(int archive);

/* The scene's skeleton: joint count (0 before the first archive), a joint's name ("" out of
 * range) and parent index (-1 for a root or out of range). Joints are in depth-first order. */
VIEWER_API int ossa_viewer_joint_count(void);
VIEWER_API const char *ossa_viewer_joint_name(int joint);
VIEWER_API int ossa_viewer_joint_parent(int joint);

/* Clips over every archive, in the order they were added: count, name ("" out of range or
 * unnamed), duration in seconds (0 out of range), index of the archive holding it (-1 out of
 * range). */
VIEWER_API int ossa_viewer_clip_count(void);
VIEWER_API const char *ossa_viewer_clip_name(int clip);
VIEWER_API float ossa_viewer_clip_duration(int clip);
VIEWER_API int ossa_viewer_clip_archive(int clip);

/* Poses the skeleton: clip `clip_a` at `time_a` seconds, blended with clip `clip_b` at
 * `time_b` seconds with weight `weight_b` (clamped to 1; clip_a gets 1 - weight_b; clip_b < 0
 * or weight_b <= 0: clip_a alone, exactly as sampled), then local-to-model. Each time is
 * clamped to its clip's [0, duration]: ratio = time / duration, in float, as a native caller
 * computes it. Returns 0, or -1 (no archive, a clip index out of range, a time or weight not
 * finite, a job error) with ossa_viewer_error set; the positions then keep the last pose. */
VIEWER_API int ossa_viewer_evaluate(int clip_a, float time_a, int clip_b, float time_b, float weight_b);

/* Poses the skeleton in its rest pose (the archive's, from the source's bind or default
 * pose), local-to-model only. Returns 0, or -1 (no archive) with ossa_viewer_error set. */
VIEWER_API int ossa_viewer_evaluate_rest(void);

/* Model-space joint positions of the last successful ossa_viewer_evaluate(_rest): [3 * joint_count]
 * floats (x, y, z of joint 0, then joint 1, ...) in the skeleton's units (zeros before the
 * first); NULL before the first archive. Valid until ossa_viewer_reset. */
VIEWER_API const float *ossa_viewer_positions(void);

/* Model-space matrices of the last successful ossa_viewer_evaluate: [16 * joint_count] floats,
 * column-major ossa_float4x4 per joint (skeleton units); NULL before the first archive. */
VIEWER_API const float *ossa_viewer_models(void);

/* The buffers of a mesh, for ossa_viewer_mesh_buffer. */
enum {
    VIEWER_MESH_POSITIONS = 0,    /* float [3 * vertices] bind-pose positions, skeleton units */
    VIEWER_MESH_NORMALS = 1,      /* float [3 * vertices] bind-pose normals; NULL without normals */
    VIEWER_MESH_JOINTS = 2,       /* uint16 [4 * vertices] mesh joint of each influence */
    VIEWER_MESH_WEIGHTS = 3,      /* float [3 * vertices] weights of the first 3 influences; the
                                     4th is 1 minus their sum (ossa_skinning_job's layout) */
    VIEWER_MESH_REMAP = 4,        /* uint16 [mesh joints] skeleton joint of each mesh joint */
    VIEWER_MESH_INVERSE_BIND = 5, /* float [16 * mesh joints] column-major inverse bind matrices,
                                     16-byte aligned */
};

/* Replaces the mesh with an empty one of `vertex_count` vertices (4 influences each) and
 * `joint_count` mesh joints (1 to 65535), with normals when `has_normals` is not 0; the caller
 * fills ossa_viewer_mesh_buffer's buffers, then calls ossa_viewer_mesh_commit. Returns 0, or -1
 * (a count out of range, out of memory) with no mesh. */
VIEWER_API int ossa_viewer_mesh_begin(int vertex_count, int joint_count, int has_normals);
/* One of the buffers above (VIEWER_MESH_*) of the mesh begun, or NULL (none begun, no normals,
 * unknown `which`). */
VIEWER_API void *ossa_viewer_mesh_buffer(int which);
/* Checks the mesh once: an archive is open, each remap entry is a joint of its skeleton, every
 * position, normal and weight is finite, every influence's joint is a mesh joint (the skinning
 * job's own validation). Returns 0, or -1 with the mesh dropped and ossa_viewer_error saying
 * which check failed. */
VIEWER_API int ossa_viewer_mesh_commit(void);
/* Skins the mesh by the last evaluated pose: ossa_skinning_palette_job (model[remap[i]] *
 * inverse_bind[i]) then ossa_skinning_job with `method` (0: OSSA_SKINNING_LINEAR, 1:
 * OSSA_SKINNING_DUAL_QUAT). Returns 0, or -1 (no mesh committed, another method, a job error). */
VIEWER_API int ossa_viewer_mesh_skin(int method);
/* The committed mesh's vertex count (0 without one), and its skinned positions and normals
 * ([3 * vertices] floats; normals NULL without; not renormalised) of the last
 * ossa_viewer_mesh_skin. Valid until the mesh is replaced, cleared or the scene reset. */
VIEWER_API int ossa_viewer_mesh_vertex_count(void);
VIEWER_API const float *ossa_viewer_mesh_positions(void);
VIEWER_API const float *ossa_viewer_mesh_normals(void);
/* Drops the mesh (ossa_viewer_reset drops it too). */
VIEWER_API void ossa_viewer_mesh_clear(void);

#endif /* OSSA_VIEWER_H */
