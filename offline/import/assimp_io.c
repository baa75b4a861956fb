/* The file system assimp reads through during ossa_import_assimp; see assimp_io.h.
 * Source: assimp 5.2 cfileio.h and CInterfaceIOWrapper (Read has fread semantics, Exists
 * opens and closes a file, a failed Open is retried by loaders under other spellings). */
#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP

#include "assimp_io.h"

#include <stdlib.h>
#include <string.h>

typedef struct io_file {
    struct aiFile file;
    const unsigned char *data;
    size_t size;
    size_t pos;
    ossa__assimp_io *io;
} io_file;

static io_file *io_self(struct aiFile *file) { return (io_file *)(void *)file->UserData; }

/* fread semantics: whole elements only, returns the element count. */
static size_t io_read(struct aiFile *file, char *buffer, size_t size, size_t count)
{
    io_file *f = io_self(file);
    if (size == 0 || count == 0) return 0;
    size_t available = (f->size - f->pos) / size;
    if (count > available) count = available;
    memcpy(buffer, f->data + f->pos, count * size);
    f->pos += count * size;
    return count;
}

static size_t io_write(struct aiFile *file, const char *buffer, size_t size, size_t count) { return 0; }

static size_t io_tell(struct aiFile *file) { return io_self(file)->pos; }

static size_t io_size(struct aiFile *file) { return io_self(file)->size; }

static enum aiReturn io_seek(struct aiFile *file, size_t offset, enum aiOrigin origin)
{
    io_file *f = io_self(file);
    if (origin != aiOrigin_SET && origin != aiOrigin_CUR && origin != aiOrigin_END) return aiReturn_FAILURE;
    size_t base = origin == aiOrigin_SET ? 0 : origin == aiOrigin_CUR ? f->pos : f->size;
    if (offset > f->size - base) return aiReturn_FAILURE;
    f->pos = base + offset;
    return aiReturn_SUCCESS;
}

static void io_flush(struct aiFile *file) {}

static ossa__assimp_file *io_lookup(ossa__assimp_io *io, const char *path)
{
    for (size_t i = 0; i < io->file_count; ++i)
        if (strcmp(io->files[i].path, path) == 0) return &io->files[i];
    if (io->file_count == io->file_capacity) {
        size_t capacity = io->file_capacity ? io->file_capacity * 2 : 8;
        ossa__assimp_file *grown = ossa_alloc(io->allocator, capacity * sizeof *grown);
        if (!grown) return NULL;
        if (io->file_count) memcpy(grown, io->files, io->file_count * sizeof *grown);
        ossa_free(io->allocator, io->files);
        io->files = grown;
        io->file_capacity = capacity;
    }
    ossa__assimp_file *c = &io->files[io->file_count];
    *c = (ossa__assimp_file){.path = ossa_strdup(io->allocator, path), .result = OSSA_ERROR_NOT_FOUND};
    if (!c->path) return NULL;
    io->file_count++;
    if (io->desc->read_file) {
        void *data = NULL;
        size_t size = 0;
        c->result = io->desc->read_file(path, &data, &size, io->desc->read_file_user);
        if (c->result == OSSA_OK && !data && size) c->result = OSSA_ERROR_IO;
        if (c->result == OSSA_OK)
            c->data = data, c->size = size;
        else
            free(data);
    }
    return c;
}

static struct aiFile *io_open(struct aiFileIO *fs, const char *path, const char *mode)
{
    ossa__assimp_io *io = (ossa__assimp_io *)(void *)fs->UserData;
    if (!path || !mode || strpbrk(mode, "wa+")) return NULL;
    const unsigned char *data = io->data;
    size_t size = io->size;
    if (strcmp(path, io->main_name) != 0) {
        ossa__assimp_file *c = io_lookup(io, path);
        if (!c) {
            io->out_of_memory = true;
            return NULL;
        }
        if (c->result != OSSA_OK) return NULL;
        data = c->data, size = c->size;
    }
    io_file *f = ossa_alloc(io->allocator, sizeof *f);
    if (!f) {
        io->out_of_memory = true;
        return NULL;
    }
    *f = (io_file){.data = data, .size = size, .io = io};
    f->file = (struct aiFile){io_read, io_write, io_tell, io_size, io_seek, io_flush, (char *)(void *)f};
    return &f->file;
}

static void io_close(struct aiFileIO *fs, struct aiFile *file)
{
    if (!file) return;
    io_file *f = io_self(file);
    ossa_free(f->io->allocator, f);
}

void ossa__assimp_io_init(ossa__assimp_io *io, const void *data, size_t size, const char *main_name,
                          const ossa_assimp_desc *desc, const ossa_allocator *allocator)
{
    *io = (ossa__assimp_io){.data = data, .size = size, .main_name = main_name, .desc = desc, .allocator = allocator};
    io->fs = (struct aiFileIO){io_open, io_close, (char *)(void *)io};
}

const char *ossa__assimp_io_unresolved(const ossa__assimp_io *io, ossa_result *result)
{
    for (size_t i = 0; i < io->file_count; ++i) {
        if (io->files[i].result == OSSA_OK) continue;
        *result = io->files[i].result;
        return io->files[i].path;
    }
    return NULL;
}

void ossa__assimp_io_release(ossa__assimp_io *io)
{
    for (size_t i = 0; i < io->file_count; ++i) {
        ossa_free(io->allocator, io->files[i].path);
        free(io->files[i].data);
    }
    ossa_free(io->allocator, io->files);
    io->files = NULL;
    io->file_count = io->file_capacity = 0;
}

#else
typedef int ossa__assimp_io_unused; /* ISO C wants a translation unit to declare something */
#endif
