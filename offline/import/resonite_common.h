/* Private to the Resonite importers and writer: the value-type table, the decoded form both
 * readers produce, and the conversion of that form into an ossa_import_output. */
#ifndef OSSA_OFFLINE_IMPORT_RESONITE_COMMON_H
#define OSSA_OFFLINE_IMPORT_RESONITE_COMMON_H

#include "ossa/offline/import_resonite.h"

/* The points where public AnimX implementations disagree, one switch each (FORMATS
 * section 2.3). No Resonite-produced AnimX file was available to settle them.
 *
 * Keyframe field order in Discrete and Curve bodies. 1: float32 time, then the value, as
 * vlams1/resonite-core writes (src/animation/mod.rs, DiscreteKeyframe::write) and as the
 * animx.js writer does; 0: value, then time, as teamneoneko/Avatar-Toolkit's
 * core/resonite_loader/resonite_animx.py does. */
#define OSSA_ANIMX_TIME_FIRST 1

/* Byte of the Hold interpolation; Linear, Tangent and CubicBezier follow it. 0: resonite-core
 * `enum Interpolation {Hold = 0, Linear, Tangent, CubicBezier}` (its writer tests
 * `interp & 2` for tangents, which only works 0-based); 1: Avatar-Toolkit's dict
 * {Hold: 1, Linear: 2, Tangent: 3, CubicBezier: 4}. */
#define OSSA_ANIMX_INTERP_BASE 0

/* Tangent pair order in Curve bodies. 1: left then right (resonite-core, Avatar-Toolkit);
 * 0: right then left (the wiki AnimX page's text). */
#define OSSA_ANIMX_LEFT_TANGENT_FIRST 1

/* LZMA header after the 5 property bytes: two little-endian 8-byte lengths [unverified: the
 * sources only say "two 8-byte integers"]. 1: unpacked size first, then packed size (the
 * .lzma "alone" convention the 7-Zip SDK C# samples follow); 0: the other way. The reader also
 * swaps them when only the first matches the packed bytes present, and reads a packed size of
 * 0 or all ones as "the rest of the file". */
#define OSSA_ANIMX_LZMA_UNPACKED_SIZE_FIRST 1

/* Tangent interpolation semantics [unverified, no public evaluator]: 1 reads leftTangent and
 * rightTangent as slopes (value per second) of a cubic Hermite segment, which equals the
 * Bezier with controls v_i + right_i * dt / 3 and v_i+1 - left_i+1 * dt / 3 (the mapping
 * orange3134/VRMtoResonitePackage uses from Unity slopes to CubicBezier). */
#define OSSA_RESONITE_TANGENT_IS_SLOPE 1

enum {
    OSSA__RES_RAW = 0,
    OSSA__RES_DISCRETE = 1,
    OSSA__RES_CURVE = 2,
    OSSA__RES_BEZIER = 3,
};

enum {
    OSSA__RES_HOLD = 0,
    OSSA__RES_LINEAR = 1,
    OSSA__RES_TANGENT = 2,
    OSSA__RES_CUBIC_BEZIER = 3,
};

typedef enum ossa__res_kind {
    OSSA__RES_KIND_BOOL,   /* bits of one byte */
    OSSA__RES_KIND_UINT,   /* little-endian unsigned, component_bytes each */
    OSSA__RES_KIND_INT,    /* little-endian two's complement */
    OSSA__RES_KIND_FLOAT,  /* IEEE binary32 */
    OSSA__RES_KIND_DOUBLE, /* IEEE binary64 */
    OSSA__RES_KIND_STRING  /* nullable 7-bit-length UTF-8 */
} ossa__res_kind;

enum {
    OSSA__RES_QUAT = 1,  /* x, y, z, w */
    OSSA__RES_COLOR = 2, /* r, g, b, a */
    OSSA__RES_MATRIX = 4 /* rows x rows, row-major; no AnimJ form */
};

#define OSSA__RES_TYPE_COUNT     40
#define OSSA__RES_STRING_TYPE    39
#define OSSA__RES_MAX_COMPONENTS 16

typedef struct ossa__res_type {
    const char *name;        /* AnimJ valueType */
    uint8_t kind;            /* ossa__res_kind */
    uint8_t components;      /* 1..16 (1 for string) */
    uint8_t component_bytes; /* AnimX bytes per component (bool: the whole value is 1 byte) */
    uint8_t flags;           /* OSSA__RES_QUAT | COLOR | MATRIX */
    uint8_t rows;            /* matrices: rows = columns; else 0 */
} ossa__res_type;

/* Table entry of AnimX value type `id`, or NULL when id >= 40. */
const ossa__res_type *ossa__res_type_get(unsigned id);

/* Id of the AnimJ value type named `name` (case-insensitive), or -1. */
int ossa__res_type_find(const char *name);

/* Bytes of one AnimX value (0 for string: variable). */
size_t ossa__res_type_size(const ossa__res_type *type);

/* True when values of this type never interpolate (bools, integers, color32, strings). */
bool ossa__res_type_is_stepped(const ossa__res_type *type);

/* Checks a component value: finite, within the float range, and for integers within the
 * type's range and integral. Returns NULL when fine, else what is wrong. Exact for every
 * double; integers near 2^63 and 2^64 that a double cannot hold go through
 * ossa__res_check_integer instead. */
const char *ossa__res_check_component(const ossa__res_type *type, double v);

/* Checks the integer -magnitude (negative) or +magnitude exactly against the range of an
 * integer or bool type (ulong up to 18446744073709551615, long from -9223372036854775808 to
 * 9223372036854775807, ...). NULL when it fits or the type is not an integer type. */
const char *ossa__res_check_integer(const ossa__res_type *type, bool negative, uint64_t magnitude);

/* Number of bytes of the first invalid UTF-8 sequence, or SIZE_MAX when `text` is valid
 * (NUL bytes count as invalid). */
size_t ossa__res_utf8_invalid(const uint8_t *text, size_t size);

/* Names of track types and interpolations for messages and AnimJ. */
const char *ossa__res_track_type_name(unsigned type);
const char *ossa__res_interp_name(unsigned interp);

/* A decoded track; times are seconds, values doubles, `components` per key. */
typedef struct ossa__res_track {
    uint8_t track_type; /* OSSA__RES_RAW .. CURVE */
    uint8_t value_type; /* table id */
    char *node;         /* owned, never NULL once decoded */
    char *property;
    size_t key_count;
    double interval;  /* Raw: seconds between samples; < 0 when absent */
    double *times;    /* [key_count], NULL for Raw */
    uint8_t *interps; /* [key_count], Curve only */
    double *values;   /* [key_count * components], NULL for strings */
    double *left;     /* [key_count * components] or NULL (zero tangents) */
    double *right;
    char **strings; /* [key_count] string tracks; NULL entries are null strings */
    size_t offset;  /* where the track starts, for messages (SIZE_MAX when unknown) */
    uint32_t line, column;
} ossa__res_track;

typedef struct ossa__res_anim {
    char *name;              /* owned, may be NULL */
    double duration;         /* globalDuration (0 when absent) */
    ossa__res_track *tracks; /* [track_count] */
    size_t track_count;
    const char *format; /* "animj" or "animx" */
    int version;        /* AnimX version, -1 for AnimJ */
    int encoding;       /* AnimX encoding, -1 for AnimJ */
    const ossa_allocator *allocator;
} ossa__res_anim;

/* Allocates the per-key arrays of `track` for its type and key_count (times unless Raw,
 * interps for Curve, values or strings; tangents when `tangents`). */
ossa_result ossa__res_track_alloc(ossa__res_track *track, const ossa_allocator *allocator, bool tangents);

void ossa__res_anim_free(ossa__res_anim *anim);

/* Effective defaults of a desc (NULL allowed); OSSA_ERROR_INVALID_ARGUMENT on bad values. */
typedef struct ossa__res_settings {
    double rate;
    size_t max_keys, max_decompressed;
    const ossa_raw_skeleton *bind;
    bool no_binding;
    const ossa_allocator *allocator;
} ossa__res_settings;
ossa_result ossa__res_settings_get(const ossa_resonite_desc *desc, ossa__res_settings *s, ossa_diag *diag);

/* Decoding keeps at most max_keys keyframes per track and 4 * max_keys in all, so a small
 * compressed or textual input cannot make the decoded form grow without limit. Adds
 * `count` to *total; returns NULL when within both limits, else what is exceeded. */
const char *ossa__res_key_budget(const ossa__res_settings *s, size_t count, size_t *total);

/* True when `data` looks like AnimJ: a JSON object with a "trackType" member in its first
 * 64 KiB (used by ossa_import_detect; works without cJSON). */
bool ossa__animj_sniff(const void *data, size_t size);

/* Fills `out` from the decoded animation (resonite_convert.c). `out` must be empty. */
ossa_result ossa__res_convert(const ossa__res_anim *anim, const ossa__res_settings *settings, ossa_import_output *out,
                              ossa_diag *diag);

/* AnimX payload codecs (animx.c decodes, animx_writer.c encodes). `*out` is allocated with
 * `allocator`; `offset` is where the payload starts in the file, for messages. */
ossa_result ossa__animx_decompress(int encoding, const uint8_t *data, size_t size, size_t offset, size_t cap,
                                   const ossa_allocator *allocator, uint8_t **out, size_t *out_size, ossa_diag *diag);
ossa_result ossa__animx_compress(int encoding, const uint8_t *data, size_t size, const ossa_allocator *allocator,
                                 uint8_t **out, size_t *out_size, ossa_diag *diag);

/* Parses the AnimX header (magic .. encoding byte). On success *header_size is the offset of
 * the payload. */
typedef struct ossa__animx_header {
    int32_t version;
    uint32_t track_count;
    float duration;
    size_t name_offset, name_size;
    int encoding;
    size_t header_size;
} ossa__animx_header;
ossa_result ossa__animx_read_header(const uint8_t *data, size_t size, ossa__animx_header *header, ossa_diag *diag);

#endif
