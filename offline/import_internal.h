/* Private to the importers: the one way an import starts and ends (not installed).
 *
 *   ossa_result r = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "ANIM", diag);
 *   if (r == OSSA_OK) r = ...parse and fill out...;
 *   return ossa__import_end(out, r, diag);
 */
#ifndef OSSA_OFFLINE_IMPORT_INTERNAL_H
#define OSSA_OFFLINE_IMPORT_INTERNAL_H

#include "ossa/offline/import.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_bvh.h"

/* Checks the arguments and empties `out` (which must be zero-initialised or destroyed; its
 * allocator is kept, or replaced by `allocator` when not NULL). `what` names the input in
 * the message ("ozz", "MRTK"). Errors: OSSA_ERROR_NULL_ARGUMENT (no out, or NULL data with
 * size > 0). */
ossa_result ossa__import_begin(ossa_import_output *out, const void *data, size_t size, const ossa_allocator *allocator,
                               const char *what, ossa_diag *diag);

/* Ends an import that produced `result`: on success checks that every animation and track in
 * `out` validates (a clip over a day long, a key out of order: the importer's bug or a limit
 * it did not check, reported instead of handed on) and replaces each ill-formed UTF-8 sequence
 * in joint, clip, track and event names and in metadata by U+FFFD (ossa_utf8_sanitize), with a
 * "warning=" metadata line per kind of name repaired; on any failure empties `out` (allocator
 * kept). Returns the final result. */
ossa_result ossa__import_end(ossa_import_output *out, ossa_result result, ossa_diag *diag);

/* ossa_import_bvh without the begin and end of an import (ossa_import_assimp's BVH path). */
ossa_result ossa__import_bvh_body(const void *data, size_t size, const ossa_bvh_desc *desc, ossa_import_output *out,
                                  ossa_diag *diag);

/* ossa_import_assimp with every format, BVH included, read by the assimp library (the tests
 * compare the BVH reader against it); OSSA_ERROR_UNSUPPORTED_FORMAT without assimp. */
ossa_result ossa__import_assimp_library(const void *data, size_t size, const ossa_assimp_desc *desc,
                                        ossa_import_output *out, ossa_diag *diag);

#endif
