/* ossa/result.h: the one result code shared by every ossa function.
 *
 *   ossa_result r = ossa_sampling_job_run(&job);
 *   if (r != OSSA_OK) fprintf(stderr, "%s\n", ossa_result_string(r));
 *
 * Each distinct caller mistake has its own code, so tests and callers can tell them apart.
 * The list is an X-macro: OSSA_RESULT_LIST(X) expands X(NAME, "message") per code. New codes
 * are appended, so a code's value never changes between versions.
 */
#ifndef OSSA_RESULT_H
#define OSSA_RESULT_H

#include "ossa/config.h"

#ifdef __cplusplus
extern "C" {
#endif

#define OSSA_RESULT_LIST(X)                                                                                            \
    X(OK, "success")                                                                                                   \
    /* generic argument errors */                                                                                      \
    X(ERROR_NULL_ARGUMENT, "a required pointer argument is NULL")                                                      \
    X(ERROR_INVALID_ARGUMENT, "an argument is out of its documented range")                                            \
    X(ERROR_OUT_OF_MEMORY, "memory allocation failed")                                                                 \
    X(ERROR_BUFFER_TOO_SMALL, "an output buffer is smaller than required")                                             \
    X(ERROR_MISALIGNED, "a buffer is not aligned as documented")                                                       \
    X(ERROR_ALIASING, "an output buffer overlaps an input buffer")                                                     \
    /* job-specific errors */                                                                                          \
    X(ERROR_NO_ANIMATION, "the job has no animation")                                                                  \
    X(ERROR_NO_CONTEXT, "the sampling job has no context")                                                             \
    X(ERROR_CONTEXT_TOO_SMALL, "the sampling context holds fewer joints or animated sub-tracks than the animation")    \
    X(ERROR_NO_OUTPUT, "the job has no output buffer")                                                                 \
    X(ERROR_OUTPUT_TOO_SMALL, "the job's output holds fewer elements than required")                                   \
    X(ERROR_NO_SKELETON, "the job has no skeleton")                                                                    \
    X(ERROR_NO_INPUT, "the job has no input buffer")                                                                   \
    X(ERROR_INPUT_TOO_SMALL, "the job's input holds fewer elements than required")                                     \
    X(ERROR_INVALID_RATIO, "the ratio is not a finite number")                                                         \
    X(ERROR_INVALID_RANGE, "the joint range is empty or beyond the skeleton")                                          \
    X(ERROR_INVALID_WEIGHT, "a weight is not a finite number")                                                         \
    X(ERROR_INVALID_THRESHOLD, "the threshold is negative or not finite")                                              \
    X(ERROR_NO_LAYERS, "the blending job has neither layers nor additive layers")                                      \
    /* data validation errors */                                                                                       \
    X(ERROR_INVALID_SKELETON, "the skeleton data is inconsistent")                                                     \
    X(ERROR_INVALID_ANIMATION, "the animation data is inconsistent")                                                   \
    X(ERROR_INVALID_TRACK, "the track data is inconsistent")                                                           \
    X(ERROR_INVALID_KEY, "a keyframe is out of order or not finite")                                                   \
    X(ERROR_TOO_MANY_JOINTS, "more joints than OSSA_MAX_JOINTS")                                                       \
    X(ERROR_JOINT_MISMATCH, "the animation and the skeleton have different joint counts")                              \
    /* archive errors */                                                                                               \
    X(ERROR_BAD_MAGIC, "the data does not start with the expected magic bytes")                                        \
    X(ERROR_UNSUPPORTED_VERSION, "the data has a version this build cannot read")                                      \
    X(ERROR_TRUNCATED, "the data ends before a declared size")                                                         \
    X(ERROR_CORRUPT, "a size, index, tag or checksum in the data is inconsistent")                                     \
    X(ERROR_NOT_FOUND, "the requested chunk or item is not present")                                                   \
    X(ERROR_UNSUPPORTED_HOST, "this host is big-endian; in-place loading needs little-endian")                         \
    /* import errors */                                                                                                \
    X(ERROR_PARSE, "the input does not follow the format's grammar")                                                   \
    X(ERROR_UNSUPPORTED_FORMAT, "the input is not in a supported format or feature")                                   \
    X(ERROR_IO, "a file could not be read or written")                                                                 \
    /* blending and track job errors */                                                                                \
    X(ERROR_NO_REST_POSE, "the job has no rest pose, or one with fewer joints than it needs")                          \
    X(ERROR_JOINT_WEIGHTS_TOO_SMALL, "a layer's joint weights cover fewer joints than the rest pose")                  \
    X(ERROR_NO_TRACK, "the job has no track")                                                                          \
    X(ERROR_TRACK_TYPE_MISMATCH, "the track's value type is not the one the job needs")                                \
    /* skinning errors */                                                                                              \
    X(ERROR_NO_PALETTE, "the skinning job has no palette for its method")                                              \
    X(ERROR_NO_JOINT_DATA, "the skinning job has no joint indices, or no weights for several influences")              \
    X(ERROR_INVALID_INFLUENCES, "the influence count is 0 or so large that a vertex's bytes overflow")                 \
    X(ERROR_INVALID_JOINT_INDEX, "a joint index or remap entry is not below the palette or skeleton size")             \
    X(ERROR_INVALID_STRIDE, "a stride is smaller than its element or not a multiple of the element's alignment")     \
    X(ERROR_SIZE_OVERFLOW, "a count times its element size or stride does not fit in the address space")

/* Result code of every ossa function that can fail. OSSA_OK is 0. */
typedef enum ossa_result {
#define OSSA_RESULT_ENUM(name, msg) OSSA_##name,
    OSSA_RESULT_LIST(OSSA_RESULT_ENUM)
#undef OSSA_RESULT_ENUM
        OSSA_RESULT_COUNT
} ossa_result;

/* A static, human-readable message for `result`; "unknown result" when out of range.
 * Never returns NULL. */
OSSA_API const char *ossa_result_string(ossa_result result);

/* The enum's name without the OSSA_ prefix ("ERROR_TRUNCATED"), for logs and tests. */
OSSA_API const char *ossa_result_name(ossa_result result);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_RESULT_H */
