/* ossa/offline/import_gltf.h: skeletons, joint animations and morph-target weights of glTF 2.0
 * files, .gltf (JSON) and .glb (binary), read natively (cJSON for the JSON).
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_gltf_desc desc = {.read_file = my_reader, .read_file_user = folder};
 *   if (ossa_import_gltf(bytes, size, &desc, &out, &diag) != OSSA_OK) puts(diag.message);
 *   ... out.skeleton, out.animations[i] (one track per joint), out.tracks[i] (weights) ...
 *   ossa_import_output_destroy(&out);
 *
 * The file is read from memory; a buffer whose uri names another file comes through
 * desc->read_file (never opened by name here); "data:" URIs (base64) are decoded in place.
 * Ownership: see ossa/offline/import.h. Available when ossa is built with cJSON; otherwise
 * the function returns OSSA_ERROR_UNSUPPORTED_FORMAT.
 */
#ifndef OSSA_OFFLINE_IMPORT_GLTF_H
#define OSSA_OFFLINE_IMPORT_GLTF_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialised means the defaults. */
typedef struct ossa_gltf_desc {
    ossa_read_file_fn read_file; /* external buffer URIs (percent-decoded, relative to the
                                    file); NULL -> a file with an external buffer fails */
    void *read_file_user;
    float sample_rate;               /* CUBICSPLINE resampling, the least samples per second
                                        (finer where the curve bends; segments longer than 64
                                        samples only as fine as their curve needs); 0 -> 60;
                                        in [1, 10000] */
    size_t max_keys;                 /* keys produced over the whole import; 0 -> 2^24 */
    const ossa_allocator *allocator; /* NULL keeps out->allocator (zero: malloc/free) */
} ossa_gltf_desc;

/* Imports the joint hierarchy, every animation and the morph-target weights of a glTF 2.0
 * file (`data`, `size` bytes: JSON text, or a GLB container: 12-byte header "glTF", version 2,
 * length; a JSON chunk; an optional BIN chunk; spec section 4).
 *
 * Joints: every node a skin lists in `joints`, every node an animation channel moves
 * (translation, rotation, scale), and all their ancestors. They come out depth-first (root
 * nodes in index order, children in `children` order), named from `name` or "nodes[<i>]"
 * (as assimp names them).
 * Rest pose: the node's translation, rotation (normalised) and scale, or its `matrix`
 * decomposed (shear is lost; a negative determinant gives three negative scales). A skin
 * without `inverseBindMatrices` is accepted (identity matrices, spec 3.7.3); when present the
 * accessor is checked (MAT4, FLOAT, at least one matrix per joint) and otherwise unused.
 *
 * Animations: one raw animation per `animations[i]`, named from its `name` (empty when it has
 * none: ossa bake names it after the file), one track per joint; a joint or channel the
 * animation does not drive holds its rest value as one key at 0. Key times are the sampler
 * inputs in seconds (from 0, the animation's start, spec 3.11); the duration is the last input
 * time of the animation's channels (1/60 s when every input ends at 0). Interpolation (spec
 * 3.11 and Appendix C):
 *   LINEAR       translations and scales kept exactly; rotations are spherical in glTF and
 *                normalised-linear in ossa, so each segment turning by more than 8 degrees
 *                is split with keys on the slerp arc (the remaining difference is below
 *                1.1e-5 radians).
 *   STEP         each value is held: a copy of the previous key is inserted 1e-6 x duration
 *                before every key (the builder merges time points closer than 1e-7 of the
 *                duration), so the value changes within that instant only.
 *   CUBICSPLINE  evaluated as the cubic Hermite spline with the in/out tangents scaled by the
 *                key interval, at the keys and in between: each segment is cut in
 *                min(ceil(interval x sample_rate), 64) equal parts, halved until the middle of
 *                every chord is within 1e-5 x max(1, |key values|) of the spline (at most 8
 *                times past ceil(interval x sample_rate) parts); rotations normalised. So a
 *                segment longer than 64 / sample_rate seconds gets the keys its curve needs,
 *                not one per 1 / sample_rate (two keys a day apart: a few hundred, not 5
 *                million).
 * Morph-target weights: each `weights` channel gives one float raw track per morph target,
 * named "<mesh name>.<target name>" (target names from the mesh's extras.targetNames, else
 * the target index; the node's name or "nodes[<i>]" when the mesh has none), prefixed by
 * "<animation name or index>/" when the file has several animations; ratio = time / duration;
 * LINEAR keys linear, STEP keys step, CUBICSPLINE resampled as above. A file without joints
 * gives no raw animation, only these tracks.
 * Accessors: FLOAT, or for rotations and weights the normalised integer types (BYTE, UBYTE,
 * SHORT, USHORT: max(c / (2^(b-1) - 1), -1) or c / (2^b - 1), spec 3.11); sparse accessors
 * (spec 3.6.2.3) are applied; with KHR_mesh_quantization in extensionsUsed, translations and
 * scales may be integers too. Dropped: meshes, materials, cameras, the inverse bind matrices'
 * values, extras other than targetNames, channels without a target node, KHR_animation_pointer
 * channels. A required extension outside those that only concern materials, textures, lights
 * or mesh compression is refused (spec 3.12).
 * Metadata: format=gltf, generator (asset.generator, when stated), source_units=m,
 * unit_scale=1, up_axis=+y (spec 3.4).
 *
 * Shapes: data [size] bytes, read only. Units: metres, seconds, quaternions x,y,z,w.
 * Errors (the first one; the message says what was expected, what was found and where, as a
 * JSON path "accessors[3].count"; `offset` is where that path's value (or the deepest part of
 * the path that is in the text) starts in the input, with `line` and `column` for .gltf text,
 * or the byte of the GLB container at fault; SIZE_MAX when the error has no place, as a
 * failed allocation): OSSA_ERROR_NULL_ARGUMENT (out, or data with size > 0);
 * OSSA_ERROR_INVALID_ARGUMENT (sample_rate); OSSA_ERROR_PARSE (not JSON, offset and line and
 * column of the error; a property missing or of the wrong JSON type or value, as an unknown
 * componentType or interpolation; input that is neither a GLB, which starts with "glTF", nor
 * JSON); OSSA_ERROR_BAD_MAGIC (a GLB whose first chunk is not JSON);
 * OSSA_ERROR_UNSUPPORTED_VERSION (GLB version or asset.version not 2.x, glTF 1.0);
 * OSSA_ERROR_TRUNCATED (the GLB, a chunk or a buffer shorter than it declares);
 * OSSA_ERROR_CORRUPT (bad base64, an index out of range, an accessor or view past its buffer, a
 * byteStride or offset the spec forbids, a component type or count that does not fit its use,
 * sparse indices not increasing, a node with two parents, a cycle in the node graph, two
 * channels on one target, a matrix on an animated node); OSSA_ERROR_INVALID_KEY (sampler
 * times negative, not increasing or not finite, values not finite, a zero quaternion, a
 * CUBICSPLINE curve leaving the float range);
 * OSSA_ERROR_INVALID_SKELETON (a rest pose not finite in float, a zero rest rotation);
 * OSSA_ERROR_INVALID_ANIMATION (a duration beyond a day, more than max_keys keys);
 * OSSA_ERROR_IO (an external buffer that read_file could not give, or no read_file);
 * OSSA_ERROR_UNSUPPORTED_FORMAT (a required extension, a data URI that is not base64, no
 * joint and no weights animation, a build without cJSON); OSSA_ERROR_TOO_MANY_JOINTS;
 * OSSA_ERROR_OUT_OF_MEMORY. On failure `out` is destroyed (empty, safe to destroy again).
 * `out` must be empty on entry.
 * Aliasing: none; read_file must not call ossa_import_gltf with the same output.
 * Source: glTF 2.0 specification (Khronos), sections 2.8 (URIs), 3.4 (units), 3.5 (nodes and
 * hierarchy), 3.6 (buffers, views, accessors, sparse, alignment), 3.7.2.2 (morph targets),
 * 3.7.3 (skins), 3.11 (animations), 3.12 (extensions), 4 (GLB), Appendix C (interpolation).
 */
OSSA_API ossa_result ossa_import_gltf(const void *data, size_t size, const ossa_gltf_desc *desc,
                                      ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_GLTF_H */
