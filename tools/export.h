/* ossa export's GLB while it is put together: export.c writes the skeleton and the clips,
 * export_mesh.c the meshes, skins and materials of a glTF source. */
#ifndef OSSA_TOOLS_EXPORT_H
#define OSSA_TOOLS_EXPORT_H

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#include <cjson/cJSON.h>

#include "ossa/skeleton.h"

/* One buffer view: its bytes (each accessor 4-byte aligned), `target` (0: none; 34962 vertex
 * attributes, 34963 indices) and `stride` (0: tightly packed) as glTF 2.0, 3.6.2, writes them. */
typedef struct tool_glb_view {
    uint8_t *data;
    size_t size, capacity, stride;
    int target;
} tool_glb_view;

/* The binary chunk as buffer views, laid one after the other when written, and the accessors'
 * JSON. The accessors' count is kept here: cJSON_GetArraySize walks the list, which made an
 * export quadratic in its accessors (10,000 clips took minutes). View 0 holds the clips. */
typedef struct tool_glb {
    tool_glb_view *views;
    size_t view_count, view_capacity;
    cJSON *accessors;
    size_t accessor_count;
} tool_glb;

/* A new buffer view; its index, or -1 when out of memory. */
int tool_glb_add_view(tool_glb *g, int target, size_t stride);

/* Appends `bytes` of `data` to view `view` from a 4-byte aligned offset (zeros between), and
 * gives that offset; false when out of memory. */
bool tool_glb_append(tool_glb *g, size_t view, const void *data, size_t bytes, size_t *offset);

/* Appends `bytes` of `data` to view `view` as an accessor of `count` elements (component the
 * glTF component type, type "SCALAR" ... "MAT4"); `min` and `max` (JSON arrays, or NULL) are
 * taken over. Its index, or -1 when out of memory. */
int tool_glb_add_accessor(tool_glb *g, size_t view, const void *data, size_t bytes, int component, bool normalized,
                          size_t count, const char *type, cJSON *min, cJSON *max);

/* Copies the meshes of the glTF 2.0 file `source` (.gltf or .glb) into the GLB: each node with
 * a mesh becomes a node at the scene's root, its mesh with the accessors, materials, textures,
 * samplers and images it uses, its skin with the joints mapped to `skel`'s nodes (node j is
 * joint j) by name and the source's inverse bind matrices. covered[j] is set for every joint
 * that a copied skin lists or that is an ancestor of one. Prints one error line naming
 * `source` and returns false when the source cannot be read or copied, as a skin joint the
 * skeleton lacks; `root` may then hold part of the copy (the caller writes nothing). */
bool tool_export_meshes(const char *source, const ossa_skeleton *skel, cJSON *root, cJSON *nodes, cJSON *scene_nodes,
                        tool_glb *g, bool *covered);
#endif

#endif
