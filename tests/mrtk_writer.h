/* Test-side writer of MRTK input animation files (versions 1.0 and 1.1), following MRTK's
 * InputAnimation.ToStream and InputAnimationSerializationUtils (.NET BinaryWriter: little
 * endian Int64/Int32/Float32, bool as one byte, strings as a 7-bit encoded byte length then
 * UTF-8). Not part of any library. */
#ifndef OSSA_TESTS_MRTK_WRITER_H
#define OSSA_TESTS_MRTK_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MRTK_WRITER_HAND_JOINTS 27

/* One keyframe. Version 1.1 writes only time and value (and bool curves always only time and
 * value); version 1.0 writes every field. */
typedef struct mrtk_writer_key {
    float time, value, in_tangent, out_tangent, in_weight, out_weight;
    int32_t weighted_mode;
} mrtk_writer_key;

typedef struct mrtk_writer_curve {
    int32_t pre_wrap, post_wrap;
    const mrtk_writer_key *keys;
    size_t key_count;
} mrtk_writer_curve;

typedef struct mrtk_writer_marker {
    float time;
    const char *name; /* UTF-8 */
} mrtk_writer_marker;

typedef struct mrtk_writer_recording {
    int32_t major, minor;                 /* 1.0 -> full float curves; >= 1.1 -> simple */
    bool has_camera, has_hands, has_gaze; /* written as flags from 1.1 on */
    mrtk_writer_curve camera[7];          /* px, py, pz, rx, ry, rz, rw */
    mrtk_writer_curve states[4];          /* tracked L, tracked R, pinching L, pinching R */
    mrtk_writer_curve joints[2][MRTK_WRITER_HAND_JOINTS][7];
    mrtk_writer_curve gaze[6]; /* origin xyz, direction xyz */
    const mrtk_writer_marker *markers;
    size_t marker_count;
    bool omit_marker_list; /* the published document's layout */
} mrtk_writer_recording;

/* Writes `rec`; returns malloc'ed bytes (free()) and their count in *size, NULL on failure. */
uint8_t *mrtk_writer_write(const mrtk_writer_recording *rec, size_t *size);

/* A key as MRTK's recorder makes it: zero tangents and weights, WeightedMode.Both. */
mrtk_writer_key mrtk_writer_linear_key(float time, float value);

#endif
