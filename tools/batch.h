/* ossa batch's care of its output folder (batch_out.c): the lock that keeps two runs on one
 * OUT_DIR apart, the check that OUT_DIR does not lie in SRC_DIR, and the removal of archives no
 * longer produced, which never touches anything outside OUT_DIR. */
#ifndef OSSA_TOOLS_BATCH_H
#define OSSA_TOOLS_BATCH_H

#include <stdbool.h>
#include <stddef.h>

/* The lock file in OUT_DIR (hidden, so a walk of the sources passes it over). */
#define BATCH_LOCK_NAME ".ossa-batch.lock"

/* Takes the lock of out_dir (flock on OUT_DIR/.ossa-batch.lock, created if needed, without
 * waiting). Returns its descriptor, to close when the run ends (ninja and its bakes inherit it,
 * so OUT_DIR stays locked while they run); -1, with one line printed, when another run holds it
 * or it cannot be opened. */
int tool_batch_lock(const char *out_dir);

/* Resolves src and out (as given; out need not exist yet, its folder must) as realpath does,
 * into src_real and out_real ([PATH_MAX]). Returns 0 when out lies outside src, or inside it
 * and allow_inside; 2 (one line printed) when out is src, or lies inside it without
 * allow_inside; 1 (one line printed) when a path cannot be resolved. */
int tool_batch_check_out(const char *src, const char *out, bool allow_inside, char *src_real, char *out_real);

/* Removes out_dir/rel when rel is a plain relative path ending in ".ossa" (no "..", "." or
 * empty names) and names a regular file reached without following a symbolic link, then the
 * folders this leaves empty, up to out_dir. Prints what it removed, or why it left rel. True
 * when rel was removed or is already gone. */
bool tool_batch_remove_output(int out_fd, const char *rel);

/* As tool_batch_remove_output, for the error file of a failed bake (rel ends in ".ossa.err"),
 * printing nothing when it is removed. */
bool tool_batch_remove_error(int out_fd, const char *rel);

#endif
