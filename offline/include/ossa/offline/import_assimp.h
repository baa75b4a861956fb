/* ossa/offline/import_assimp.h: skeletons and animations of every format assimp reads
 * (BVH, FBX, glTF, Collada, ...), through the assimp library.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_assimp_desc desc = {.format_hint = "bvh"};
 *   ossa_result r = ossa_import_assimp(bytes, size, &desc, &out, &diag);
 *
 * Available when ossa is built with the `assimp` feature; otherwise the function returns
 * OSSA_ERROR_UNSUPPORTED_FORMAT.
 */
#ifndef OSSA_OFFLINE_IMPORT_ASSIMP_H
#define OSSA_OFFLINE_IMPORT_ASSIMP_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ossa_read_file_fn (external references) is declared in ossa/offline/import.h. */

/* Zero-initialised means the defaults. */
typedef struct ossa_assimp_desc {
    const char *format_hint;     /* the file name's extensions, with or without the leading dot
                                    ("bvh", ".gltf", "mesh.xml"; 1 to 31 letters, digits and single
                                    inner dots); NULL lets assimp guess from the content */
    bool drop_end_sites;         /* BVH end sites: false keeps them as leaf joints */
    ossa_read_file_fn read_file; /* for external references; NULL -> none can be resolved */
    void *read_file_user;
    const ossa_allocator *allocator; /* NULL keeps out->allocator (zero: malloc/free) */
    size_t max_keys;                 /* keys over the whole import (each channel's keys counted);
                                        0 -> no limit. A BVH is checked before assimp reads it
                                        (declared Frames x 2 x joints with CHANNELS), other
                                        formats after assimp and before the conversion */
} ossa_assimp_desc;

/* Imports the joint hierarchy and every animation of the scene in `data` (`size` bytes).
 *
 * Joints: the nodes an animation channel targets or a mesh uses as a bone (found by name, the
 * first node in depth-first order when names repeat), the BVH end sites below them (leaf
 * nodes assimp names "EndSite_<joint>", unless desc->drop_end_sites), and every ancestor of
 * those, so model space is the scene's. The scene root is dropped when it is neither animated
 * nor a bone and its transform is the identity (assimp's container nodes "RootNode", "ROOT");
 * its children then become roots. It is kept when it carries a transform: Collada's root holds
 * <unit> and the Z-up to Y-up turn, a glTF scene's single root node is the file's own node.
 * Joints come out in depth-first pre-order (parents before children, scene order among
 * siblings). Rest pose: each node's local matrix as translation, rotation and scale (shear is
 * lost; a negative determinant gives three negative scales).
 *
 * Animations: one per aiAnimation, in scene order, named from the file or "animation<i>",
 * with one track per joint. Key time in seconds = ticks / mTicksPerSecond (25 when the file
 * leaves it 0, as assimp documents; metadata "ticks_per_second_assumed=25" then says so).
 * When keys start before 0 every key of that animation is shifted so the earliest is at 0.
 * Keys are sorted by time (stable) and keys at equal times merged, the last one kept. A joint
 * the animation does not drive, or a channel with no key, holds its rest pose as one key at 0.
 * Duration: the last key time, or mDuration when that is later by less than a day (assimp's
 * BVH loader declares 2^32-1 ticks for 0 frames); one tick for a single pose. assimp 5.2 keeps
 * no interpolation mode: glTF STEP keys arrive as linear keys and CUBICSPLINE keys as their
 * values without tangents. Morph-target (blend-shape) channels (FBX blend shape channels, glTF `weights`) become
 * OSSA_TRACK_FLOAT user tracks, one per target, named "MESH.TARGET" (the anim mesh's name, else
 * its index; "ANIMATION/" first when the scene has several animations), linear, over the joint
 * clip's time (or their own span in a file with no joints, which then imports as tracks
 * alone). Vertex (mesh) channels are ignored.
 *
 * Metadata ("key=value" lines of out->metadata):
 *   format=assimp:<ext>     the first extension of the loader that read the file ("bvh",
 *                           "fbx", "gltf", "dae"), else the hint, else "assimp"
 *   importer, generator     the loader's name and the authoring tool, when stated
 *   source_units, unit_scale
 *       BVH and formats stating nothing: "unknown", 1.
 *       FBX: GlobalSettings UnitScaleFactor (centimetres per unit): unit_scale = factor / 100
 *            metres per unit; source_units "cm" for 1, "m" for 100, ... ("custom" otherwise).
 *       glTF: "m", 1 (glTF 2.0 section 3.4).
 *       Collada: assimp multiplies the scene root by <unit meter>; that factor is unit_scale.
 *            When the root joint carries it, model space is already in metres: unit_scale
 *            is 1, "source_unit_scale" holds the factor and "unit_scale_in_root=true" says why.
 *   up_axis                 "+y" for glTF and Collada (assimp turns Z-up files), FBX's UpAxis
 *
 * Shapes: data [size] bytes, read only. Units: source units (see metadata), seconds.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (out, or data with size > 0); OSSA_ERROR_INVALID_ARGUMENT
 * (format_hint); OSSA_ERROR_PARSE (empty input or assimp failed: the message holds
 * aiGetErrorString(), diag.line the line assimp names, plus the external file that could not
 * be read); OSSA_ERROR_UNSUPPORTED_FORMAT ("no skeleton or animation found", or a build
 * without assimp); OSSA_ERROR_TOO_MANY_JOINTS; OSSA_ERROR_INVALID_SKELETON (a non-finite
 * node transform); OSSA_ERROR_INVALID_KEY (NaN or infinite key, zero quaternion);
 * OSSA_ERROR_INVALID_ANIMATION (ticks per second negative, NaN or infinite: a BVH Frame Time
 * of 0; more keys than max_keys); OSSA_ERROR_OUT_OF_MEMORY. On failure `out` is destroyed
 * (empty, safe to destroy again). A scene with joints but no animation succeeds with
 * animation_count 0. `out` must be empty (zero-initialised or destroyed) on entry.
 * Aliasing: none; read_file must not call ossa_import_assimp.
 * Threads: assimp keeps its last error string in a global, so concurrent imports may report
 * each other's messages; nothing else is shared. Nothing is printed (no assimp logger is
 * attached) and no file is opened by name.
 * Source: assimp 5.2 C API (cimport.h, scene.h, anim.h); BVH by Biovision; glTF 2.0 spec;
 * FBX GlobalSettings as read by assimp's FBX converter.
 */
OSSA_API ossa_result ossa_import_assimp(const void *data, size_t size, const ossa_assimp_desc *desc,
                                        ossa_import_output *out, ossa_diag *diag);

/* True when the linked assimp has a loader for files with this extension ("lws" or ".lws";
 * asks assimp, so it follows the installed version). False without assimp. */
OSSA_API bool ossa_assimp_reads_extension(const char *extension);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_ASSIMP_H */
