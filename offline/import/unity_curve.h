/* Unity AnimationCurve evaluation (private to the offline importers).
 *
 *   ossa__unity_key keys[2] = {{0.f, 0.f, 0.f, 0.f, 0.f, 0.f, 0}, {1.f, 2.f, 0.f, 0.f, 0.f, 0.f, 0}};
 *   ossa__unity_curve curve = {OSSA__UNITY_WRAP_CLAMP_FOREVER, OSSA__UNITY_WRAP_LOOP, keys, 2};
 *   float y = ossa__unity_curve_evaluate(&curve, 0.25f);   // Hermite with zero tangents
 *
 * Semantics (Source: Unity's DOTS package com.unity.animation, Unity.Animation.Curves
 * AnimationCurveEvaluator.cs; Unity Scripting API WrapMode; both summarised in the import
 * formats notes, section 1.4 and 1.5):
 * - no key: 0; one key: its value at every time.
 * - a segment k0 -> k1 holds k0's value when k0.out_tangent or k1.in_tangent is infinite;
 *   it is a weighted cubic Bezier when k0 has the Out weight flag or k1 the In flag (a side
 *   without its flag uses the weight 1/3); otherwise a cubic Hermite segment.
 * - before the first key the pre-wrap mode applies, after the last key the post-wrap mode:
 *   Loop (2) and PingPong (4) fold the time into the key range, every other value (Default 0,
 *   Once 1, ClampForever 8, unknown) holds the first or last key's value.
 * Keys must be sorted by time (equal times allowed) with finite times and values.
 */
#ifndef OSSA_OFFLINE_IMPORT_UNITY_CURVE_H
#define OSSA_OFFLINE_IMPORT_UNITY_CURVE_H

#include <stddef.h>
#include <stdint.h>

/* UnityEngine.WrapMode values. */
#define OSSA__UNITY_WRAP_DEFAULT       0
#define OSSA__UNITY_WRAP_ONCE          1
#define OSSA__UNITY_WRAP_LOOP          2
#define OSSA__UNITY_WRAP_PING_PONG     4
#define OSSA__UNITY_WRAP_CLAMP_FOREVER 8

/* UnityEngine.WeightedMode flags. */
#define OSSA__UNITY_WEIGHTED_IN   1
#define OSSA__UNITY_WEIGHTED_OUT  2
#define OSSA__UNITY_WEIGHTED_BOTH 3

/* One UnityEngine.Keyframe. Tangents are slopes (value units per second), weights are
 * fractions of the segment's duration. */
typedef struct ossa__unity_key {
    float time;
    float value;
    float in_tangent;
    float out_tangent;
    float in_weight;
    float out_weight;
    int32_t weighted_mode;
} ossa__unity_key;

typedef struct ossa__unity_curve {
    int32_t pre_wrap;
    int32_t post_wrap;
    const ossa__unity_key *keys; /* [key_count], sorted by time */
    size_t key_count;
} ossa__unity_curve;

/* Maps `time` into [first key time, last key time] by the curve's wrap modes (Loop: positive
 * modulo of the key range; PingPong: modulo of twice the range, mirrored; else unchanged).
 * Returns `time` unchanged inside the range or when the range is empty. */
float ossa__unity_curve_wrap_time(const ossa__unity_curve *curve, float time);

/* The value of `curve` at `time` seconds (AnimationCurve.Evaluate). */
float ossa__unity_curve_evaluate(const ossa__unity_curve *curve, float time);

/* The value of a boolean-style curve at `time`: after wrapping, the value of the last key
 * whose time is <= time, or the first key's value before the first key; 0 with no key. */
float ossa__unity_curve_evaluate_step(const ossa__unity_curve *curve, float time);

/* The value of segment k0 -> k1 at `time` (expected in [k0.time, k1.time]). */
float ossa__unity_segment_evaluate(const ossa__unity_key *k0, const ossa__unity_key *k1, float time);

/* The first u in [0, 1] with x(u) = s for the cubic Bezier x with control points
 * (0, p1, p2, 1); when there is none, 0 for s < 0.5 and 1 otherwise. */
float ossa__unity_bezier_solve(float s, float p1, float p2);

#endif
