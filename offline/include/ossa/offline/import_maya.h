/* ossa/offline/import_maya.h: Maya ASCII .anim files (animVersion 1.0 and 1.1): parser, a curve
 * evaluator that follows Maya's tangent, span and infinity rules, and an importer that resamples
 * the curves into an ossa raw animation (transform channels) and raw tracks (other attributes).
 *
 *   ossa_import_output out = {0};
 *   ossa_diag diag = {0};
 *   ossa_maya_desc desc = {.bind_skeleton = &skeleton, .rotate_order = "xyz"};
 *   if (ossa_import_maya_anim(bytes, size, &desc, &out, &diag) != OSSA_OK)
 *       fprintf(stderr, "line %u:%u: %s\n", diag.line, diag.column, diag.message);
 *   ossa_import_output_destroy(&out);
 *
 * Curves alone (no resampling):
 *
 *   ossa_maya_anim anim = {0};
 *   ossa_maya_anim_parse(bytes, size, NULL, &anim, &diag);
 *   double v = ossa_maya_curve_evaluate(&anim.curves[0], 12.5);   // frame 12.5, file units
 *   ossa_maya_anim_destroy(&anim);
 *
 * Ownership: ossa_maya_anim owns its curves, keys and names (released by ossa_maya_anim_destroy
 * with the allocator given to parse). A hand-built ossa_maya_curve belongs to the caller.
 * Source: the .anim specification ("Anim File Format", Maya documentation, 1998/1999), tangent
 * construction of the Maya devkit animEngine, span and infinity evaluation of Autodesk/animx
 * (src/animx.cpp, src/internal/interpolators.h, src/internal/Tbezier.h).
 */
#ifndef OSSA_OFFLINE_IMPORT_MAYA_H
#define OSSA_OFFLINE_IMPORT_MAYA_H

#include "ossa/offline/import.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tangent type of one side of a key, as written in the file ("global" reads as SPLINE). */
typedef enum ossa_maya_tangent_type {
    OSSA_MAYA_TANGENT_SPLINE = 0, /* "spline": Catmull-Rom-like slope through the neighbours */
    OSSA_MAYA_TANGENT_LINEAR,     /* "linear": towards the neighbouring key */
    OSSA_MAYA_TANGENT_FLAT,       /* "flat": slope 0 */
    OSSA_MAYA_TANGENT_STEP,       /* "step": the span holds the left key's value */
    OSSA_MAYA_TANGENT_STEPNEXT,   /* "stepnext": the span takes the right key's value */
    OSSA_MAYA_TANGENT_FIXED,      /* "fixed": angle and weight given in the file */
    OSSA_MAYA_TANGENT_CLAMPED,    /* "clamped": spline, flat next to a key within 0.05 */
    OSSA_MAYA_TANGENT_PLATEAU,    /* "plateau": spline without overshoot, flat at extrema */
    OSSA_MAYA_TANGENT_AUTO,       /* "auto": clamped central slope, flat at extrema and ends */
    OSSA_MAYA_TANGENT_AUTOEASE,   /* "autoease" */
    OSSA_MAYA_TANGENT_AUTOMIX,    /* "automix" */
    OSSA_MAYA_TANGENT_SLOW,       /* "slow": evaluated as spline (as the devkit does) */
    OSSA_MAYA_TANGENT_FAST        /* "fast": evaluated as spline (as the devkit does) */
} ossa_maya_tangent_type;

/* What a curve does before its first key (pre) or after its last (post). */
typedef enum ossa_maya_infinity {
    OSSA_MAYA_INFINITY_CONSTANT = 0,   /* hold the end key's value */
    OSSA_MAYA_INFINITY_LINEAR,         /* extend along the end key's outer tangent */
    OSSA_MAYA_INFINITY_CYCLE,          /* repeat the curve */
    OSSA_MAYA_INFINITY_CYCLE_RELATIVE, /* repeat, offset by (last - first value) per cycle */
    OSSA_MAYA_INFINITY_OSCILLATE       /* repeat, mirrored every other cycle */
} ossa_maya_infinity;

/* Kind of value a curve produces ("output" in animData). */
typedef enum ossa_maya_output {
    OSSA_MAYA_OUTPUT_LINEAR = 0, /* distance in a linear unit (default) */
    OSSA_MAYA_OUTPUT_ANGULAR,    /* angle in an angular unit */
    OSSA_MAYA_OUTPUT_UNITLESS,   /* plain number (scale, visibility, weights) */
    OSSA_MAYA_OUTPUT_TIME        /* time in a time unit */
} ossa_maya_output;

/* One key. `time` and `value` are in the curve's file units (frames of its input unit, value in
 * its output unit). Angles are radians (converted from tangentAngleUnit); angle and weight are
 * meaningful only for FIXED sides. The last four fields are filled by ossa_maya_curve_prepare:
 * the tangent vectors (x in input units, y in output units) of Maya's internal representation,
 * so that the span from key k to key k+1 has Bezier control points (t_k, v_k),
 * (t_k + out_x/3, v_k + out_y/3), (t_k+1 - in_x/3, v_k+1 - in_y/3), (t_k+1, v_k+1). */
typedef struct ossa_maya_key {
    double time;
    double value;
    ossa_maya_tangent_type in_type;
    ossa_maya_tangent_type out_type;
    double in_angle, in_weight; /* radians; weight as in the file */
    double out_angle, out_weight;
    bool tangent_locked, weight_locked, breakdown; /* stored; no effect on evaluation */
    double in_x, in_y, out_x, out_y;               /* computed tangent vectors */
} ossa_maya_key;

/* One animation curve. Fields other than `keys` may be left zero for a hand-built curve
 * (constant infinities, non-weighted, no tick quantisation). */
typedef struct ossa_maya_curve {
    ossa_maya_key *keys; /* [key_count], strictly increasing times */
    size_t key_count;
    bool weighted; /* weighted tangents: spans are 2-D Bezier curves */
    ossa_maya_infinity pre_infinity;
    ossa_maya_infinity post_infinity;
    double frame_rate; /* input units per second for time input (24 for film);
                          > 0 re-quantises cycled times to Maya's ticks; 0: none */
    /* Filled by the parser (informative for hand-built curves): */
    ossa_maya_output output;
    bool unitless_input;   /* "input unitless": a driven key, not a time curve */
    double value_scale;    /* SI units (m, rad, s, 1) per output unit */
    double linear_scale;   /* metres per unit of the curve's linear unit */
    double angular_scale;  /* radians per unit of the curve's angular unit */
    const char *node;      /* "" when the anim line names no node */
    size_t node_index;     /* index into ossa_maya_anim.nodes, SIZE_MAX when no node */
    const char *attribute; /* full attribute name ("translate.translateX"), may be "" */
    const char *leaf;      /* leaf attribute name ("translateX"), may be "" */
    uint32_t line;         /* line of the `anim` statement, 0 if hand-built */
} ossa_maya_curve;

/* Computes every key's tangent vectors (in_x, in_y, out_x, out_y) from the tangent types, the
 * neighbouring keys, angles and weights, then Maya's post-processing (non-weighted vectors are
 * normalised with x >= 0 and a vertical vector becomes slope 5729577.95; weighted vectors only
 * get x >= 0). Must be called before ossa_maya_curve_evaluate and after any key change; the
 * parser calls it for every curve it returns.
 * Shapes: keys [key_count]; O(key_count).
 * Units: as the keys (frames, file value units).
 * Errors: OSSA_ERROR_NULL_ARGUMENT (curve, or keys with key_count > 0);
 * OSSA_ERROR_INVALID_KEY when a time, value, angle or weight is not finite or times do not
 * strictly increase (keys untouched then); OSSA_ERROR_INVALID_ARGUMENT for an out-of-range enum.
 * Source: Maya devkit animEngine assembleAnimCurve (fixed, linear, flat, step, spline, clamped,
 * slow/fast); Autodesk/animx _autoTangent (auto family); the plateau rule is unverified and
 * follows the auto clamp. */
OSSA_API ossa_result ossa_maya_curve_prepare(ossa_maya_curve *curve);

/* The curve's value at `time` (input units, e.g. frames), in the curve's file output units.
 * At a key time it returns that key's value. Inside, the span from key k to k+1 is: a step if
 * key k's out type is STEP (value k) or STEPNEXT (value k+1); a straight line if key k's out
 * and key k+1's in types are both LINEAR; otherwise, for non-weighted curves, the cubic Hermite
 * with slopes out_y/out_x and in_y/in_x, and for weighted curves the Bezier of the control
 * points above with x kept monotonic. Outside, the pre/post infinity modes apply (cycled times
 * are re-quantised to 141,120,000 ticks per second when frame_rate > 0). A curve with no key
 * gives 0. NaN time gives NaN. Assumes ossa_maya_curve_prepare succeeded.
 * Source: Autodesk/animx evaluateCurve, evaluateInfinity, hermite, Tbezier. */
OSSA_API double ossa_maya_curve_evaluate(const ossa_maya_curve *curve, double time);

/* A parsed file. Header times are in the header's time unit (frames). */
typedef struct ossa_maya_anim {
    ossa_maya_curve *curves; /* [curve_count], in file order */
    size_t curve_count;
    char **nodes; /* [node_count] nodes of all anim lines, placeholders included,
                     in file order (depth-first, as Maya lists its clipboard) */
    size_t node_count;
    int32_t *parents;      /* [node_count] parent node index, -1 for a root: the tree that the
                              anim lines' child counts describe, depth-first */
    int version;           /* 10 for animVersion 1.0, 11 for 1.1 */
    char maya_version[64]; /* "" when absent */
    double frame_rate;     /* header timeUnit in frames per second (default film, 24) */
    char time_unit[24];    /* header unit names as written (defaults "film", "cm", "deg") */
    char linear_unit[8];
    char angular_unit[8];
    double linear_scale;  /* metres per header linear unit */
    double angular_scale; /* radians per header angular unit */
    bool has_start_time, has_end_time;
    double start_time, end_time; /* header startTime / endTime (frames) when present */
    ossa_allocator allocator;
} ossa_maya_anim;

/* Parses a whole .anim file from memory. Every curve is prepared (ossa_maya_curve_prepare).
 * Shapes: `data` [size] bytes (need not be NUL-terminated).
 * Units: none converted (see value_scale, linear_scale, angular_scale, frame_rate), except that
 * tangent angles become radians.
 * Errors: OSSA_ERROR_NULL_ARGUMENT (out, or data with size > 0); OSSA_ERROR_PARSE with the
 * line:column and offset of the offending token and a message saying what was expected and what
 * was found (unknown keyword, tangent or unit, missing ';', a number that is not finite, a fixed
 * side without angle and weight, a curve statement (one naming an attribute, or none) without
 * its animData block, a node whose statements give different child counts or that is listed
 * again after other nodes, a negative child count, a node whose children do not all follow it
 * (at the deepest such node's count: "file cut short?"), ...); OSSA_ERROR_TRUNCATED when the
 * input ends inside a statement or block, or right after a curve statement;
 * OSSA_ERROR_INVALID_KEY (with the key's line) when key times do not strictly increase;
 * OSSA_ERROR_UNSUPPORTED_VERSION for an animVersion other than 1.0 or 1.1;
 * OSSA_ERROR_OUT_OF_MEMORY. On error `out` is empty and safe to destroy.
 * Tree: the anim statements list the clipboard's nodes depth-first, a node's statements
 * together, each giving the node's child count; in that order the counts are the tree (the
 * specification's 4-joint chain has 1, 1, 1, 0). Roots may follow one another; rows are not
 * read (Maya 2026 writes 0 on every line).
 * Source: the .anim specification (1.0, 1.1 breakdown and weighted additions, the clipboard
 * example), Maya 2026 exports for placeholder lines, "<n>fps" units and angle/weight pairs. */
OSSA_API ossa_result ossa_maya_anim_parse(const void *data, size_t size, const ossa_allocator *allocator,
                                          ossa_maya_anim *out, ossa_diag *diag);

/* Releases everything and zeroes `anim`. NULL is ignored. */
OSSA_API void ossa_maya_anim_destroy(ossa_maya_anim *anim);

/* True when the first statement of `data` (after whitespace and "//" or '#' comment lines) is
 * the animVersion keyword every .anim file starts with. Reads at most `size` bytes. */
OSSA_API bool ossa_maya_anim_detect(const void *data, size_t size);

/* Options of ossa_import_maya_anim. Zero-initialised means the defaults. */
typedef struct ossa_maya_desc {
    /* Skeleton the curves animate (joints matched by name: exact, else the names without DAG
     * path and namespaces, "|rig|ns:hips" = "hips"); its hierarchy is used, and a "warning="
     * line counts the bound nodes the file places under another bound parent. NULL: one joint
     * per node of the file (in file order, placeholders included) with the parents the anim
     * lines' child counts give (ossa_maya_anim.parents), identity rest pose: the file stores
     * no static value, so a channel without a curve and a placeholder stay at identity. The
     * bound skeleton is copied to the output; rest translations are in metres. */
    const ossa_raw_skeleton *bind_skeleton;
    /* Euler rotate order for every joint, a permutation of "xyz" (x applied first for "xyz",
     * Maya's default). NULL -> "xyz". */
    const char *rotate_order;
    /* Resampling rate in Hz. 0 -> the header timeUnit's rate when it is from 15 to 240 frames
     * per second (game, film, pal, ntsc, show, palf, ntscf, most <n>fps), else 30 (hour, min,
     * sec, millisec, 2fps, 48000fps). Range (0.001, 100000]. */
    float sample_rate;
    const ossa_allocator *allocator; /* NULL -> malloc/free */
} ossa_maya_desc;

/* Largest number of resample times of one clip ((duration * rate) + 2). */
#define OSSA_MAYA_MAX_SAMPLES 65536

/* Imports a .anim file: one raw animation (track i = joint i of out->skeleton) and one float
 * raw track per non-transform curve.
 * Mapping: curves are grouped by node; translate{X,Y,Z}, rotate{X,Y,Z}, scale{X,Y,Z} (also tx ..
 * sz) of a node matched to a joint become its translation, rotation (Euler in `rotate_order`
 * to quaternion) and scale keys; components without a curve keep the rest pose (the rest
 * rotation decomposed into Euler angles in `rotate_order`). Joints without curves get one key
 * with their rest pose. Other time curves become OSSA_TRACK_FLOAT tracks named "node.attribute"
 * (ratio = time / duration, a key's interpolation is STEP where its span is a step span).
 * Driven-key curves (input unitless) are skipped and counted in metadata. Transform curves of
 * nodes absent from the bind skeleton are dropped and listed in "unmatched_nodes=a,b".
 * Clip: from the header's startTime to endTime when both are given, else over all keys; a clip
 * of zero length lasts one sample interval. Times are shifted so the clip starts at 0. When
 * every time curve's keys end more than half a frame before endTime (a file cut short, or a
 * clip holding its last pose), metadata gets a "warning=" line saying so.
 * Resampling: at t = k / rate for k = 0.. plus the clip end, every sample kept as a key: the
 * importer does not reduce; the animation builder and the track optimiser do, against one
 * tolerance. Between resample times the error is that of linear interpolation at the sample
 * rate.
 * Units: seconds, metres, radians, scale factors; metadata records format=maya-anim,
 * anim_version, maya_version, source_units, unit_scale (1: values are converted to metres),
 * source_unit_scale (metres per file unit), time_unit, frame_rate, angular_unit, sample_rate,
 * start_time (s), curves, hierarchy=skeleton (bound) | file (parents from the child counts) |
 * flat (every count 0: each joint a root, so errors are measured per joint), hierarchy_roots,
 * and unmatched_nodes / unitless_input_curves when any.
 * Errors: those of ossa_maya_anim_parse; OSSA_ERROR_NULL_ARGUMENT; OSSA_ERROR_INVALID_ARGUMENT
 * (desc values); OSSA_ERROR_ALIASING (bind_skeleton is &out->skeleton); those of
 * ossa_raw_skeleton_validate for the bind skeleton; OSSA_ERROR_TOO_MANY_JOINTS (flat skeleton
 * of more than OSSA_MAX_JOINTS nodes); OSSA_ERROR_INVALID_ANIMATION when endTime is before
 * startTime or the clip needs more than OSSA_MAYA_MAX_SAMPLES samples;
 * OSSA_ERROR_INVALID_KEY (line of the curve) when a curve evaluates to a value that is not a
 * finite float; OSSA_ERROR_OUT_OF_MEMORY. On error `out` is empty and safe to destroy.
 * Aliasing: `out` must not own the bind skeleton.
 * Source: Maya's channel names and rotate orders (x applied first for "xyz"); the resampler
 * and reducer are ossa's own. */
OSSA_API ossa_result ossa_import_maya_anim(const void *data, size_t size, const ossa_maya_desc *desc,
                                           ossa_import_output *out, ossa_diag *diag);

#ifdef __cplusplus
}
#endif

#endif /* OSSA_OFFLINE_IMPORT_MAYA_H */
