/* ossa/offline/import_resonite.h: Resonite animations, AnimJ (JSON) and AnimX (binary), in and out.
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_resonite_desc desc = {.sample_rate = 30.f};
 *   if (ossa_import_animx(bytes, size, &desc, &out, &diag) != OSSA_OK)
 *       fprintf(stderr, "%s\n", diag.message);
 *   ossa_blob blob = {0};
 *   ossa_animx_write(&(ossa_animx_write_desc){.tracks = out.tracks, .track_count = out.track_count,
 *                                             .encoding = OSSA_ANIMX_LZ4}, &blob, &diag);
 *   ossa_blob_destroy(&blob);
 *   ossa_import_output_destroy(&out);
 *
 * What an import produces (Units: seconds, Resonite's metres, unit quaternions x, y, z, w):
 * - Numeric tracks become user channels (`out.tracks`) named "node/property" ("node" when
 *   the property is empty). bool..bool4, integer types and color32 become step tracks of 1..4
 *   floats, even in Linear curves (integers beyond 2^24 lose precision; color32 stays 0..255);
 *   float, double and color tracks keep their interpolation; floatQ and doubleQ become
 *   quaternion tracks (zero or near-zero quaternions, |q|^2 <= 1e-12, become identity).
 *   Doubles are narrowed to float (relative error <= 2^-24; values beyond the float range are
 *   rejected); AnimJ times, intervals, durations and float-typed values are float, as in
 *   Resonite and AnimX, so AnimJ and AnimX of the same tracks import identically.
 *   float2x2 is one float4 track (row-major); float3x3 and float4x4 become one track per row
 *   ("node/property.row0", ...); AnimJ has no matrix form and rejects them.
 * - Key ratio = time / duration, duration = globalDuration when > 0, else the last key time
 *   of all tracks; keys outside [0, duration] are clipped (a key is added at the boundary).
 *   A Raw track without a positive interval spreads its samples over globalDuration, or uses
 *   1 / sample_rate, with a warning. Unsorted keys are sorted (stable).
 * - Interpolation (the key's mode governs the segment that starts at it): Raw tracks are
 *   linear between samples i * interval, Discrete tracks hold, Curve keys are Hold, Linear,
 *   Tangent (cubic Hermite, tangents are slopes in value per second) or CubicBezier (tangents
 *   are absolute control values: B(s; v_i, right_i, left_i+1, v_i+1), s = (t - t_i)/dt).
 *   Quaternion Linear is slerp along the shortest arc. Tangent, CubicBezier and slerp
 *   segments are evaluated exactly at `sample_rate` (ceil(dt * rate) slices per segment), each
 *   sample a linear key; the importer does not reduce (the builders do). The largest bound of
 *   the error between samples ((dt/n)^2 / 8 * max|y''| for cubics, the nlerp-to-slerp gap for
 *   rotations) is stored as metadata "resample_error": raise `sample_rate` to lower it.
 *   Missing tangents count as zero (the value a .NET deserialiser leaves).
 * - Tracks whose property is "position", "rotation" or "scale" (any case) with type
 *   float3/double3, floatQ/doubleQ, float3/double3 animate joints named by their node: the
 *   joints of `bind_skeleton` when given (the output skeleton is a copy of it; unmatched
 *   tracks stay user channels), otherwise a flat skeleton of those nodes in order of first
 *   appearance whose rest pose is each channel's first value. One raw animation holds them;
 *   unanimated channels get one rest-pose key; a Hold segment becomes a ramp over the last
 *   min(dt / 2, 1 / (8 * sample_rate)) seconds before the next key.
 * - String tracks become events named "<track name>/value" (null strings give an empty
 *   value) at the key times within [0, duration].
 * - Metadata: format (animj|animx), name, animx_version, animx_encoding (raw|lz4|lzma),
 *   source_units=metres, unit_scale=1, duration, resample_rate, resample_error, and
 *   "warning=..." lines for tolerated oddities.
 * Keys sharing a time keep the last one. Bezier track types are rejected (no public layout).
 *
 * AnimX choices where public implementations disagree are documented in the source
 * (offline/import/resonite_common.h): keyframe time before value, interpolation bytes
 * Hold=0..CubicBezier=3, left tangent before right, LZMA unpacked size before packed size.
 *
 * Errors carry a byte offset (AnimX; inside LZ4/LZMA payloads it is the offset in the
 * decompressed track data, as the message says) or a 1-based line and column in characters
 * (AnimJ). Ownership: as for every importer (ossa/offline/import.h); `out` is overwritten.
 * Source: Resonite wiki AnimJ/AnimX pages; vlams1/resonite-core src/animation; lz4net
 * LZ4Stream chunk format; FrooxEngine LZMA header (5 property bytes, two 8-byte lengths).
 */
#ifndef OSSA_OFFLINE_IMPORT_RESONITE_H
#define OSSA_OFFLINE_IMPORT_RESONITE_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Import options. Zero-initialised (or a NULL desc) means the defaults. */
typedef struct ossa_resonite_desc {
    float sample_rate;                      /* Hz for Tangent/CubicBezier/slerp segments; 0 -> 60 */
    const ossa_raw_skeleton *bind_skeleton; /* joints to bind transform tracks to; NULL -> flat */
    bool no_joint_binding;                  /* true keeps transform tracks as user channels */
    size_t max_keys;                        /* keyframes per input track and keys per output
                                               channel, 4x that in all tracks; 0 -> 1 << 22 */
    size_t max_decompressed_size;           /* AnimX LZ4/LZMA payload bytes; 0 -> 256 MiB */
    const ossa_allocator *allocator;        /* output and scratch; NULL -> malloc/free */
} ossa_resonite_desc;

/* Imports an AnimJ file (UTF-8 JSON; a leading BOM is skipped; bare True/False outside
 * strings are read as true/false; properties in any order, names case-insensitive).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT (desc); OSSA_ERROR_PARSE
 * (invalid UTF-8, malformed JSON, wrong member type, unknown interpolation);
 * OSSA_ERROR_UNSUPPORTED_FORMAT (unknown value or track type, Bezier tracks, matrix values,
 * or ossa built without cJSON); OSSA_ERROR_INVALID_KEY (non-finite or out-of-range values,
 * too many keys); OSSA_ERROR_TOO_MANY_JOINTS; OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_import_animj(const void *data, size_t size, const ossa_resonite_desc *desc,
                                       ossa_import_output *out, ossa_diag *diag);

/* Imports an AnimX file (version 0 or 1 track headers; raw, LZ4 or LZMA payload).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT (desc); OSSA_ERROR_BAD_MAGIC;
 * OSSA_ERROR_UNSUPPORTED_VERSION; OSSA_ERROR_TRUNCATED (data or a count runs past the end);
 * OSSA_ERROR_CORRUPT (bad 7-bit integer, encoding, interpolation, LZ4/LZMA stream, trailing
 * bytes, payload beyond max_decompressed_size); OSSA_ERROR_PARSE (invalid UTF-8);
 * OSSA_ERROR_UNSUPPORTED_FORMAT (unknown value or track type, Bezier tracks, LZ4 or LZMA
 * payload in a build without liblz4 or liblzma); OSSA_ERROR_INVALID_KEY;
 * OSSA_ERROR_TOO_MANY_JOINTS; OSSA_ERROR_OUT_OF_MEMORY. */
OSSA_API ossa_result ossa_import_animx(const void *data, size_t size, const ossa_resonite_desc *desc,
                                       ossa_import_output *out, ossa_diag *diag);

/* AnimX payload encodings (the byte after the name). */
typedef enum ossa_animx_encoding {
    OSSA_ANIMX_RAW = 0,
    OSSA_ANIMX_LZ4 = 1, /* lz4net LZ4Stream chunks of at most 1 MiB */
    OSSA_ANIMX_LZMA = 2 /* LZMA1, dictionary 2 MiB, lc 3, lp 0, pb 2, fb 32 (FrooxEngine's) */
} ossa_animx_encoding;

/* What to write. Zero-initialised is an empty animation in raw encoding. */
typedef struct ossa_animx_write_desc {
    const char *name;             /* animation name; NULL -> "" */
    float duration;               /* globalDuration, seconds; 0 -> largest of the tracks'
                                     and the animation's durations (1 if all are 0) */
    const ossa_raw_track *tracks; /* [track_count] user channels */
    size_t track_count;
    const ossa_raw_skeleton *skeleton;   /* with `animation`: joint names for joint tracks */
    const ossa_raw_animation *animation; /* optional; tracks match skeleton joints */
    ossa_animx_encoding encoding;
    const ossa_allocator *allocator; /* for the output blob; NULL -> malloc/free */
} ossa_animx_write_desc;

/* Writes AnimX version 1 bytes into `out`.
 * Each user channel becomes a Curve track (float, float2, float3, float4 or floatQ) with one
 * Hold or Linear interpolation per key and time = ratio * (track duration, or the global
 * duration when the track's is 0); its name is split at the last '/' into node and property
 * (no '/': the whole name is the node, property ""). Each animated channel of `animation`
 * becomes a Linear Curve track node = joint name, property "position" (float3), "rotation"
 * (floatQ) or "scale" (float3). Importing the result gives back the same keys, except that
 * quaternion Linear segments are re-read as slerp (split when nlerp differs by more than the
 * import tolerance).
 * Errors: OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT (encoding, duration, animation
 * without skeleton or with another track count); the tracks' own validate errors;
 * OSSA_ERROR_UNSUPPORTED_FORMAT (LZ4/LZMA without the library); OSSA_ERROR_OUT_OF_MEMORY.
 * `out` stays empty on error. */
OSSA_API ossa_result ossa_animx_write(const ossa_animx_write_desc *desc, ossa_blob *out, ossa_diag *diag);

/* Re-encodes an AnimX file's payload with `encoding` (the header is copied, the encoding byte
 * replaced; the tracks are not parsed). `max_decompressed_size` 0 -> 256 MiB. Errors: those of
 * ossa_import_animx for the header and the decompression, OSSA_ERROR_INVALID_ARGUMENT
 * (encoding), OSSA_ERROR_UNSUPPORTED_FORMAT (library missing). `out` stays empty on error. */
OSSA_API ossa_result ossa_animx_recode(const void *data, size_t size, ossa_animx_encoding encoding,
                                       size_t max_decompressed_size, const ossa_allocator *allocator, ossa_blob *out,
                                       ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_RESONITE_H */
