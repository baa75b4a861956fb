/* ossa/offline/import_metroid.h: Metroid Prime (MP1) and Metroid Prime 2: Echoes (MP2) ANIM
 * animations and CINF skeletons (GameCube, big-endian).
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_metroid_anim_desc desc = {.cinf_data = cinf_bytes, .cinf_size = cinf_size};
 *   if (ossa_import_metroid_anim(anim_bytes, anim_size, &desc, &out, &diag) != OSSA_OK)
 *       fprintf(stderr, "%s\n", diag.message);
 *   ... out.skeleton (CINF joints, depth-first), out.animations[0], out.metadata ...
 *   ossa_import_output_destroy(&out);
 *
 * Ownership: the importers copy what they keep; `data`, the CINF bytes and a bound skeleton
 * may be released after the call. `out` is overwritten (anything it held is released with
 * its allocator first); on failure it is left empty and safe to destroy.
 *
 * What is produced:
 * - skeleton: one joint per CINF bone, named from the CINF name table ("bone_<id>" for a
 *   bone without a name), parent = the bone whose id is the parent id (a parent id naming
 *   no bone of the file, normally 2, the game's "character" segment, makes a root), rest
 *   translation = bone origin minus parent origin (the CINF stores model-space origins), rest
 *   rotation identity, rest scale 1. Joints are ordered by the CINF build-order list, then
 *   sorted depth-first. Without a CINF (and without a bound skeleton) the skeleton is flat:
 *   one root joint per animated bone id in increasing id order, named "bone_<id>", identity
 *   rest pose.
 * - one raw animation, track i for joint i: rotation keys are the bone's local rotation,
 *   translation keys replace the parent-relative rest offset, scale keys (MP2) are absolute
 *   factors; a channel the file does not animate holds the joint's rest value in one key.
 *   Key times are frame * interval seconds. Compressed files are evaluated at every frame as
 *   the game does: frames missing from the key bitmap are slerped (rotation) and lerped
 *   (translation, scale) between the stored keys around them, a final key is added at the
 *   duration, and values hold after the last stored key.
 * - metadata: format=metroid-anim-mp1-compressed (or -mp1-uncompressed, -mp2-...,
 *   metroid-cinf-mp1, metroid-cinf-mp2), game=mp1|mp2, source_units=metres, unit_scale=1,
 *   joint_bone_ids=<bone id of each joint, comma separated, "-" for none>; for ANIM also
 *   duration, frame_interval, frame_count, root_bone_id, bound=cinf|skeleton|flat, and
 *   unbound_bone_ids when channels name bones the skeleton lacks (they are ignored, as the
 *   game ignores them); compressed: looping, rotation_divisor; MP1: evnt_asset_id=0x%08X
 *   (0xFFFFFFFF or 0 mean no event file).
 *
 * Limits: bone ids are below 100 (the game's segment table size); at most 2097152 keys are
 * produced (frames times animated channels), beyond that OSSA_ERROR_UNSUPPORTED_FORMAT.
 *
 * Source: formats as read by the game's matching decompilation (PrimeDecomp/prime
 * CFBStreamedCompression, CFBStreamedAnimReader, CAnimMathUtils, CAnimSource,
 * CCharLayoutInfo, CHierarchyPoseBuilder), AxioDL PrimeWorldEditor CAnimationLoader and
 * CSkeletonLoader, AxioDL metaforce DataSpec DNAMP1/DNAMP2 ANIM and CINF.
 */
#ifndef OSSA_OFFLINE_IMPORT_METROID_H
#define OSSA_OFFLINE_IMPORT_METROID_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Which game's layout a file uses. Neither format stores it. */
typedef enum ossa_metroid_game {
    OSSA_METROID_GAME_AUTO = 0, /* detect, and try the other layout when the guess fails */
    OSSA_METROID_GAME_MP1 = 1,  /* Metroid Prime */
    OSSA_METROID_GAME_MP2 = 2   /* Metroid Prime 2: Echoes */
} ossa_metroid_game;

/* Options of ossa_import_metroid_cinf. Zero-initialised means the defaults. */
typedef struct ossa_metroid_cinf_desc {
    ossa_metroid_game game;          /* AUTO: MP2 when the word after the first bone's
                                        origin is 0 or above 100 (PrimeWorldEditor's test) */
    const ossa_allocator *allocator; /* NULL -> out->allocator (malloc/free when zero) */
} ossa_metroid_cinf_desc;

/* Imports a CINF skeleton: `out` receives the skeleton and metadata, no animation.
 * Layout (big-endian): u32 bone count; per bone u32 id, u32 parent id, f32[3] model-space
 * origin, MP2 only 2 x f32[4] (rotation, local rotation; read and ignored, see the report
 * on rest rotations), u32 linked count + u32 linked ids; u32 build-order count + u32 ids;
 * u32 name count + {NUL-terminated string, u32 bone id}.
 * Shapes: `data` is `size` bytes; at most 100 joints come out.
 * Units: metres; the rest pose is parent-relative.
 * Errors (diag offset = byte of the bad field): OSSA_ERROR_NULL_ARGUMENT;
 * OSSA_ERROR_INVALID_ARGUMENT (desc->game out of the enum);
 * OSSA_ERROR_TRUNCATED (a field or an array runs past the end, counts are checked against
 * the remaining bytes before anything is allocated); OSSA_ERROR_CORRUPT (bone id >= 100,
 * duplicate bone id, more than 100 bones, a parent cycle, a build-order id naming no bone,
 * a non-finite origin or an origin difference that overflows); OSSA_ERROR_UNSUPPORTED_FORMAT (the Donkey Kong Country
 * Returns CINF variant); OSSA_ERROR_OUT_OF_MEMORY. Names of ids the file has no bone for are ignored and the first name
 * of a bone wins, as in the game's name map; bytes after the name table (padding) are ignored. Aliasing: none; `data`
 * is only read. Source: PrimeWorldEditor CSkeletonLoader; metaforce CCharLayoutInfo; PrimeDecomp CHierarchyPoseBuilder
 * (offsets from the parent's origin, unrotated). */
OSSA_API ossa_result ossa_import_metroid_cinf(const void *data, size_t size, const ossa_metroid_cinf_desc *desc,
                                              ossa_import_output *out, ossa_diag *diag);

/* Options of ossa_import_metroid_anim. Zero-initialised means: detect the game, no CINF,
 * flat skeleton. */
typedef struct ossa_metroid_anim_desc {
    ossa_metroid_game game; /* layout of the ANIM; AUTO: compressed files are MP2
                               when the u16 at byte 8 is 0x0101 and the u32 at
                               byte 12 is not 1; uncompressed files are MP2 when
                               the MP2 layout ends exactly at the end of the file
                               (0xFF padding allowed) */
    const void *cinf_data;  /* optional CINF to bind to (copied skeleton) */
    size_t cinf_size;
    ossa_metroid_game cinf_game;       /* layout of the CINF (see ossa_metroid_cinf_desc) */
    const ossa_raw_skeleton *skeleton; /* alternatively an imported skeleton, used when
                                          cinf_data is NULL; copied and sorted depth-first */
    const uint32_t *joint_bone_ids;    /* [skeleton->joint_count] bone id of each joint of
                                          `skeleton` (>= 100: no bone); required with it */
    bool frame_major;                  /* uncompressed files: key arrays stored frame by
                                          frame instead of channel by channel (the readers
                                          agree on channel-major; kept switchable until
                                          checked against a real file) */
    const char *name;                  /* animation name; NULL -> "" */
    const ossa_allocator *allocator;   /* NULL -> out->allocator (malloc/free when zero) */
} ossa_metroid_anim_desc;

/* Imports an ANIM (version 0 uncompressed or version 2 compressed, MP1 or MP2) into a
 * skeleton and one raw animation, bound as `desc` says (see the top of this header).
 * Compressed decoding: a key bitmap (bit i set: frame i has a stored key, LSB-first in
 * big-endian u32 words; frame 0 holds the descriptors' initial values), then per stored key
 * and per channel in descriptor order a W sign bit and three rotation deltas, three
 * translation deltas and (MP2) three scale deltas, each a two's-complement field of the
 * descriptor's width read LSB-first from big-endian u32 words and sign-extended, added to
 * 16-bit accumulators (wrapping, as the game's totals are shorts). Rotation =
 * (sin(a.x q), sin(a.y q), sin(a.z q), +-sqrt(max(0, 1 - x^2 - y^2 - z^2))) with
 * q = (pi / 2) / rotation divisor; translation = a * translation multiplier; scale =
 * a * scale multiplier. Missing frames use the game's CAnimMathUtils::Slerp (no hemisphere
 * flip, normalised lerp when the dot product exceeds 0.95) with exact sinf/acosf where the
 * game uses table approximations.
 * Shapes: `data` is `size` bytes; one track per output joint; every animated channel has
 * one key per emitted frame.
 * Units: seconds, metres, unit quaternions (uncompressed keys are kept as stored).
 * Errors (diag offset = byte of the bad field in the ANIM, or in the CINF with a "CINF:"
 * message; SIZE_MAX when no byte is to blame): OSSA_ERROR_NULL_ARGUMENT (data, out, or a
 * skeleton without joint_bone_ids); OSSA_ERROR_INVALID_ARGUMENT (a game value out of the
 * enum); OSSA_ERROR_TRUNCATED (header, tables, key arrays, bitmap, descriptors or bitstream
 * past the end; in AUTO mode the error of the detected layout is reported);
 * OSSA_ERROR_UNSUPPORTED_FORMAT (a version other than 0 and 2, an MP1 channel without
 * rotation keys, too many keys); OSSA_ERROR_CORRUPT (bit width above 32, bone id >= 100,
 * duplicate bone ids, descriptor or table counts that disagree, key bitmap popcount not
 * equal to the key count, a channel index beyond the key arrays, non-finite or
 * non-positive duration or interval, rotation divisor 0, out-of-range multipliers, frames
 * after the duration, non-finite or zero-length uncompressed keys); the CINF errors; the
 * errors of ossa_raw_skeleton_sort_depth_first for a bound skeleton
 * (OSSA_ERROR_INVALID_SKELETON, OSSA_ERROR_TOO_MANY_JOINTS); OSSA_ERROR_OUT_OF_MEMORY.
 * Bytes after the bitstream or the key arrays (0xFF padding) are ignored.
 * Aliasing: none; `data`, the CINF and the bound skeleton are only read.
 * Source: as at the top of this header. */
OSSA_API ossa_result ossa_import_metroid_anim(const void *data, size_t size, const ossa_metroid_anim_desc *desc,
                                              ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_METROID_H */
