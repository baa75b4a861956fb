/* The file system assimp reads through during ossa_import_assimp (private).
 *
 * The main name serves the caller's bytes; any other path goes to desc->read_file, once per
 * distinct path (assimp probes a file before opening it and retries a missing one under other
 * spellings), and the answer is kept until release. Nothing is opened by name.
 */
#ifndef OSSA_OFFLINE_IMPORT_ASSIMP_IO_H
#define OSSA_OFFLINE_IMPORT_ASSIMP_IO_H

#include <assimp/cfileio.h>

#include "ossa/offline/import_assimp.h"

typedef struct ossa__assimp_file {
    char *path;
    void *data; /* from read_file (malloc), NULL when it failed */
    size_t size;
    ossa_result result;
} ossa__assimp_file;

typedef struct ossa__assimp_io {
    struct aiFileIO fs; /* what aiImportFileExWithProperties takes */
    const unsigned char *data;
    size_t size;
    const char *main_name;
    const ossa_assimp_desc *desc;
    const ossa_allocator *allocator;
    ossa__assimp_file *files; /* [file_count] every other path asked for, read or not */
    size_t file_count;
    size_t file_capacity;
    bool out_of_memory;
} ossa__assimp_io;

/* Serves `data` ([size] bytes, kept by the caller) as `main_name` and the rest through
 * desc->read_file; `io` must stay where it is until ossa__assimp_io_release. */
void ossa__assimp_io_init(ossa__assimp_io *io, const void *data, size_t size, const char *main_name,
                          const ossa_assimp_desc *desc, const ossa_allocator *allocator);

/* The first path asked for that could not be read and why (OSSA_ERROR_NOT_FOUND without
 * read_file), or NULL. */
const char *ossa__assimp_io_unresolved(const ossa__assimp_io *io, ossa_result *result);

/* Frees every file read_file returned and the list. */
void ossa__assimp_io_release(ossa__assimp_io *io);

#endif /* OSSA_OFFLINE_IMPORT_ASSIMP_IO_H */
