/* ossa/offline/archive_writer.h: writing the .ossa container (layout in ossa/archive.h).
 *
 *   ossa_archive_entry entries[] = {
 *       {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, skel_blob.data, skel_blob.size},
 *       {OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, anim_blob.data, anim_blob.size}};
 *   ossa_blob file = {0};
 *   ossa_archive_write(entries, 2, NULL, &file, &diag);   // then write file.data to disk
 *
 * The writer emits little-endian fields on any host. Payloads are copied as given (skeleton
 * and animation blobs are already little-endian).
 */
#ifndef OSSA_OFFLINE_ARCHIVE_WRITER_H
#define OSSA_OFFLINE_ARCHIVE_WRITER_H

#include "ossa/archive.h"
#include "ossa/offline/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ossa_archive_entry {
    uint32_t tag;     /* OSSA_TAG_* */
    uint32_t version; /* the payload's own format version */
    const void *data; /* [size] bytes */
    size_t size;
} ossa_archive_entry;

/* Serialises `entries` into one archive blob.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (entries NULL with count > 0, or an entry's data NULL with
 * size > 0, or out NULL), OSSA_ERROR_OUT_OF_MEMORY. `out` stays empty on error. */
OSSA_API ossa_result ossa_archive_write(const ossa_archive_entry *entries, size_t entry_count,
                                        const ossa_allocator *allocator, ossa_blob *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_ARCHIVE_WRITER_H */
