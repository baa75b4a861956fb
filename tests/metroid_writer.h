/* Test-side encoder of Metroid Prime / Echoes ANIM and CINF files (big-endian), written from
 * the layouts in ossa/offline/import_metroid.h so tests can build inputs with known values.
 * Not part of any library. All functions abort the test program on allocation failure. */
#ifndef OSSA_TESTS_METROID_WRITER_H
#define OSSA_TESTS_METROID_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Growable byte buffer. */
typedef struct mw_buf {
    uint8_t *data;
    size_t size;
    size_t capacity;
} mw_buf;

void mw_buf_free(mw_buf *b);
void mw_u8(mw_buf *b, uint8_t v);
void mw_u16(mw_buf *b, uint16_t v);
void mw_u32(mw_buf *b, uint32_t v);
void mw_f32(mw_buf *b, float v);
void mw_bytes(mw_buf *b, const void *data, size_t size);
/* Overwrite already written bytes (tests corrupt files with these). */
void mw_put_u8(mw_buf *b, size_t at, uint8_t v);
void mw_put_u16(mw_buf *b, size_t at, uint16_t v);
void mw_put_u32(mw_buf *b, size_t at, uint32_t v);
void mw_put_f32(mw_buf *b, size_t at, float v);

/* ---- CINF ---- */
typedef struct mw_bone {
    uint32_t id;
    uint32_t parent_id; /* 2 for the root, as the game's files do */
    float origin[3];    /* model space */
    float rotation[4];  /* MP2 only, written as given */
    float local_rotation[4];
    const char *name; /* NULL: no name-table entry */
} mw_bone;

typedef struct mw_cinf {
    int game; /* 1 or 2 */
    size_t bone_count;
    const mw_bone *bones;
    size_t order_count; /* build-order list; order == NULL: ids in reverse bone order */
    const uint32_t *order;
} mw_cinf;

typedef struct mw_cinf_layout {
    size_t bone_offset[128]; /* byte of each bone record */
    size_t order_offset;     /* byte of the build-order count */
    size_t names_offset;     /* byte of the name count */
} mw_cinf_layout;

/* Linked ids are the parent followed by the children, as the game's files store them. */
void mw_write_cinf(mw_buf *out, const mw_cinf *cinf, mw_cinf_layout *layout);

/* ---- uncompressed ANIM (version 0) ---- */
typedef struct mw_uchannel {
    uint32_t bone_id;
    bool has[3];               /* rotation (always for MP1), translation, scale (MP2) */
    const float *rotations;    /* [frames][4] x, y, z, w (written w, x, y, z) */
    const float *translations; /* [frames][3] */
    const float *scales;       /* [frames][3] */
} mw_uchannel;

typedef struct mw_uanim {
    int game;
    float duration, interval;
    uint32_t frames, root_bone_id, evnt_id;
    size_t channel_count;
    const mw_uchannel *channels;
    bool frame_major; /* key arrays frame by frame instead of channel by channel */
} mw_uanim;

typedef struct mw_ulayout {
    size_t bone_table; /* byte of the bone table count */
    size_t rot_table, trans_table, scale_table;
    size_t rot_keys, trans_keys, scale_keys; /* byte of each key array's count */
    size_t end;
} mw_ulayout;

void mw_write_uncompressed(mw_buf *out, const mw_uanim *anim, mw_ulayout *layout);

/* ---- compressed ANIM (version 2) ---- */
typedef struct mw_cchannel {
    uint32_t bone_id;
    bool has[3];        /* rotation, translation, scale (MP2) */
    uint8_t bits[3][3]; /* field widths per group and component */
} mw_cchannel;

typedef struct mw_canim {
    int game;
    uint32_t scratch_size, evnt_id;
    float duration, interval;
    uint32_t root_bone_id, looping, rotation_divisor;
    float translation_mult, scale_mult;
    uint32_t bitmap_bits;
    const bool *bitmap; /* [bitmap_bits] */
    size_t channel_count;
    const mw_cchannel *channels;
    size_t key_count;       /* stored keys after the initial one */
    const int32_t *totals;  /* [key_count + 1][channel_count][3][3] running totals (key 0 =
                               descriptors' initial values) */
    const bool *negative_w; /* [key_count + 1][channel_count]; entry 0 unused; NULL: all false */
} mw_canim;

typedef struct mw_clayout {
    size_t duration; /* byte of the duration */
    size_t rotation_divisor;
    size_t channel_count;  /* byte of the header's channel count */
    size_t bitmap;         /* byte of the bitmap length */
    size_t channel_repeat; /* MP1 only */
    size_t descriptor_count;
    size_t descriptor[128]; /* byte of each descriptor */
    size_t bitstream;
    size_t end;
} mw_clayout;

/* Smallest two's-complement width holding `v` (0 for 0). */
unsigned mw_bits_for(int64_t v);

/* Sets every channel's widths to the smallest holding its deltas. */
void mw_fit_widths(const mw_canim *anim, mw_cchannel *channels);

/* Writes the file; false (nothing written) when a delta does not fit its width. */
bool mw_write_compressed(mw_buf *out, const mw_canim *anim, mw_clayout *layout);

/* ---- fixtures and reference formulas shared by the Metroid tests and corpus ---- */

/* CINF bones: root 3 (parent 2, the game's "character" segment) > 4 > 5 > 6, and 3 > 7;
 * named root, spine, arm_l, (none), leg. */
extern const mw_bone mw_fixture_bones[5];
void mw_fixture_cinf(mw_buf *out, int game, mw_cinf_layout *layout);

/* Compressed fixture: 3 channels (bones 3: rotation + translation, 4 and 5: rotation),
 * stored frames 0, 3, 4, 8 of 9 at 0.25 s, rotation divisor 4096, translation step 0.01,
 * EVNT 0x12345678, looping. Bone 3 flips its W sign at key 1 (dot < 0, the long way), bone 4
 * ends with a step of dot 0.96 (the game's normalised-lerp branch), bone 5 with one of dot
 * 0.54 (true slerp). */
enum { MW_FIX_KEYS = 3, MW_FIX_CHANNELS = 3 };
extern int32_t mw_fix_totals[MW_FIX_KEYS + 1][MW_FIX_CHANNELS][3][3];
extern bool mw_fix_negative_w[MW_FIX_KEYS + 1][MW_FIX_CHANNELS];
mw_canim mw_fixture_compressed(int game);

/* Rotation-vector totals to the quaternion (x, y, z, w) in double: sin(a * (pi/2) / divisor),
 * W from the unit norm with the sign bit. */
void mw_ref_rotation(int32_t ax, int32_t ay, int32_t az, bool negative_w, uint32_t divisor, double q[4]);

/* The game's interpolation (CAnimMathUtils::Slerp) as the textbook formula: no hemisphere
 * flip; above a 0.95 dot product a normalised lerp. */
void mw_ref_game_slerp(const double a[4], const double b[4], double t, double out[4]);

#endif
