/* glTF 2.0 importer, private: the parsed document (gltf.c: container, JSON, buffers and
 * accessors) shared with the scene conversion (gltf_scene.c: skeleton, animations, weights). */
#ifndef OSSA_OFFLINE_IMPORT_GLTF_INTERNAL_H
#define OSSA_OFFLINE_IMPORT_GLTF_INTERNAL_H

#include <cjson/cJSON.h>

#include "json_kind.h"

#include "ossa/offline/import_gltf.h"

typedef struct ossa__gltf_buffer {
    const uint8_t *data; /* NULL until loaded */
    size_t size;         /* the declared byteLength (what accessors may use) */
    size_t available;    /* bytes behind data (a file two buffers name is read once) */
    void *owned;         /* decoded data: URI or read_file bytes (malloc) */
    bool from_callback;  /* owned came from read_file: released with free() */
} ossa__gltf_buffer;

typedef struct ossa__gltf {
    const ossa_gltf_desc *desc;
    const ossa_allocator *a;
    ossa_diag *diag;
    cJSON *root;
    const char *json; /* the JSON text, to locate errors by their JSON path (NULL before parsing) */
    size_t json_size, json_offset;
    bool json_is_file;  /* a .gltf: errors get line and column; in a GLB only the byte offset */
    const uint8_t *bin; /* GLB BIN chunk, or NULL */
    size_t bin_size, bin_offset;
    ossa__gltf_buffer *buffers; /* [buffer_count] */
    size_t buffer_count;
    const cJSON **views, **accessors; /* [view_count], [accessor_count]: O(1) lookups */
    size_t view_count, accessor_count;
    bool quantization; /* KHR_mesh_quantization is used: integer translations and scales */
    size_t keys_left;  /* budget of keys (desc->max_keys) */
    float rate;        /* CUBICSPLINE sample rate */
} ossa__gltf;

/* Component types a use accepts (bit masks). */
enum {
    OSSA__GLTF_FLOAT = 1,      /* FLOAT */
    OSSA__GLTF_NORMALIZED = 2, /* normalised BYTE, UBYTE, SHORT, USHORT */
    OSSA__GLTF_INTEGER = 4     /* BYTE, UBYTE, SHORT, USHORT, not normalised */
};

/* Records an error (the first one wins) and returns `code`. */
ossa_result ossa__gltf_fail(ossa__gltf *g, ossa_result code, size_t offset, const char *fmt, ...)
    OSSA_PRINTF_FORMAT(4, 5);

/* The array `key` of `root` (NULL when absent) and its size; an error when not an array. */
ossa_result ossa__gltf_array(ossa__gltf *g, const cJSON *object, const char *key, const char *path, const cJSON **array,
                             size_t *count);

/* An index property `key` of `object` below `limit` (what it indexes named by `target`);
 * *value = SIZE_MAX when absent and not `required`. `path` names the object. */
ossa_result ossa__gltf_index(ossa__gltf *g, const cJSON *object, const char *key, const char *path, size_t limit,
                             const char *target, bool required, size_t *value);

/* A JSON value as an index below `limit`; `path` names it. */
ossa_result ossa__gltf_index_value(ossa__gltf *g, const cJSON *v, const char *path, size_t limit, const char *target,
                                   size_t *value);

/* A string property (NULL when absent); an error when present and not a string. */
ossa_result ossa__gltf_string(ossa__gltf *g, const cJSON *object, const char *key, const char *path,
                              const char **value);

/* A non-negative integer property (below 2^53), `fallback` when absent. */
ossa_result ossa__gltf_size(ossa__gltf *g, const cJSON *object, const char *key, const char *path, size_t fallback,
                            size_t *value);

/* Element `index` of a JSON array, or NULL. */
const cJSON *ossa__gltf_element(const cJSON *array, size_t index);

/* Reads accessor `index` as floats ([*count x components], allocated with g->a): `use` names
 * who refers to it (a JSON path), `types` the accepted component types, `components` the
 * element width required (1 SCALAR, 3 VEC3, 4 VEC4, 16 MAT4). Normalised integers become
 * floats by spec 3.11; sparse substitution applied. */
ossa_result ossa__gltf_read_accessor(ossa__gltf *g, size_t index, const char *use, unsigned types, size_t components,
                                     float **values, size_t *count);

/* The node graph and the joints chosen from it (gltf_scene.c), read by gltf_anim.c. */
enum { OSSA__GLTF_NODE_USED = 1, OSSA__GLTF_NODE_JOINT = 2, OSSA__GLTF_NODE_ANIMATED = 4 };
enum { OSSA__GLTF_TRANSLATION, OSSA__GLTF_ROTATION, OSSA__GLTF_SCALE, OSSA__GLTF_WEIGHTS, OSSA__GLTF_IGNORED };

typedef struct ossa__gltf_scene {
    ossa__gltf *g;
    const cJSON *nodes, *meshes, *skins, *animations;
    size_t node_count, mesh_count, skin_count, animation_count, accessor_count;
    const cJSON **node; /* [node_count] */
    size_t *parent;     /* [node_count] SIZE_MAX for a root */
    uint8_t *flags;     /* [node_count] OSSA__GLTF_NODE_* */
    int32_t *joint;     /* [node_count] joint index or -1 */
    size_t *joint_node; /* [joint_count] */
    size_t joint_count;
} ossa__gltf_scene;

typedef struct ossa__gltf_channel {
    size_t node, sampler; /* node SIZE_MAX: a channel to ignore */
    int path;             /* OSSA__GLTF_TRANSLATION ... OSSA__GLTF_IGNORED */
} ossa__gltf_channel;

/* Channel `c` of animation `a` (`ch`), checked against the scene. */
ossa_result ossa__gltf_parse_channel(ossa__gltf_scene *s, size_t a, size_t c, const cJSON *ch, size_t sampler_count,
                                     ossa__gltf_channel *out);

/* Animation `index`: a raw animation when the scene has joints, and its weights tracks. */
ossa_result ossa__gltf_animation(ossa__gltf_scene *s, size_t index, ossa_import_output *out);

/* Skeleton, animations, weights tracks and metadata of the parsed document into `out`. */
ossa_result ossa__gltf_convert(ossa__gltf *g, ossa_import_output *out);

#endif
