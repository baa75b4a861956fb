/* ossa export --mesh: the glTF 2.0 source being copied (export_source.c reads it,
 * export_mesh.c copies its meshes). Every reader checks what it reads against what it points
 * into and prints one line "ossa: SOURCE: <what is wrong>" when it fails. */
#ifndef OSSA_TOOLS_EXPORT_SOURCE_H
#define OSSA_TOOLS_EXPORT_SOURCE_H

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#include "export.h"

/* A buffer's bytes: `size` is its declared byteLength (the bytes behind `data` are at least as
 * many); `owned` what was decoded or read for it (free()). */
typedef struct tool_source_buffer {
    const uint8_t *data;
    size_t size;
    void *owned;
} tool_source_buffer;

/* The source: its document and buffers (tool_source_open), and the state of the copy
 * (export_mesh.c): the output index of each copied accessor, material, texture, sampler and
 * image (-1: not copied yet), the views made for vertex attributes and indices (-1: none yet). */
typedef struct tool_source {
    const char *path;
    char dir[4096]; /* the folder that URIs of other files resolve in */
    void *file;
    cJSON *root;
    const uint8_t *bin; /* the GLB's binary chunk, or NULL */
    size_t bin_size;
    tool_source_buffer *buffers;
    const cJSON *nodes, *meshes, *skins, *accessors, *views, *materials, *textures, *samplers, *images;
    size_t node_count, mesh_count, skin_count, accessor_count, view_count, material_count, texture_count, sampler_count,
        image_count, buffer_count;
    int *accessor_map, *material_map, *texture_map, *sampler_map, *image_map;
    int attribute_view, index_view;
    tool_glb *g;
    cJSON *out_root;
} tool_source;

/* Reads `path` (a GLB, or glTF JSON text; anything else is refused with a message that says
 * only glTF is read), parses its JSON, checks asset.version 2.x and the required extensions,
 * and loads every buffer (the GLB's binary chunk, a base64 data URI, or a file beside it, never
 * outside its folder), each at least its byteLength. `s` must be zeroed but for the copy state.
 * False with the error printed; tool_source_close releases `s` either way. */
bool tool_source_open(tool_source *s, const char *path);
void tool_source_close(tool_source *s);

/* Prints "ossa: SOURCE: <message>" (printf's format) and returns false. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
bool tool_source_fail(const tool_source *s, const char *format, ...);

/* An integer JSON number in [0, limit) into *value; false otherwise (nothing printed). */
bool tool_source_index_value(const cJSON *v, size_t limit, size_t *value);

/* Property `key` of `object` as an index below `limit`: SIZE_MAX when absent; false (printed,
 * `what` naming the object) when present and not such an index. */
bool tool_source_index(const tool_source *s, const cJSON *object, const char *key, size_t limit, const char *what,
                       size_t *value);

/* The bytes of bufferView `index` (inside its buffer) and its byteStride (0 when absent). */
bool tool_source_view(tool_source *s, size_t index, const char *what, const uint8_t **data, size_t *size,
                      size_t *stride);

/* The bytes `uri` names (malloc): a base64 data URI, or a file beside the source. */
uint8_t *tool_source_uri(tool_source *s, const char *uri, const char *what, size_t *size);

/* Accessor `index` as tightly packed elements (malloc; zeros without a bufferView, at most
 * 256 MiB then; sparse values put in place), its component type, width (components an
 * element), count and element size in bytes. */
uint8_t *tool_source_accessor(tool_source *s, size_t index, int *component, size_t *width, size_t *count,
                              size_t *element);
#endif

#endif
