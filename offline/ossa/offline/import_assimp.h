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

/* Reads a file a scene refers to (a glTF .bin buffer, a texture); returns OSSA_OK and sets
 * *data / *size to bytes allocated with malloc (released by ossa with free), or an error. */
typedef ossa_result (*ossa_read_file_fn)(const char *path, void **data, size_t *size, void *user);

/* Zero-initialised means the defaults. */
typedef struct ossa_assimp_desc {
    const char *format_hint;     /* file extension without the dot ("bvh", "gltf"); NULL lets
                                    assimp guess from the content */
    bool drop_end_sites;         /* BVH end sites: false keeps them as leaf joints */
    ossa_read_file_fn read_file; /* for external references; NULL -> none can be resolved */
    void *read_file_user;
    const ossa_allocator *allocator;
} ossa_assimp_desc;

OSSA_API ossa_result ossa_import_assimp(const void *data, size_t size, const ossa_assimp_desc *desc,
                                        ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_ASSIMP_H */
