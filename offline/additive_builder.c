#include "ossa/offline/additive_builder.h"

#include <math.h>
#include <string.h>

#include "internal.h"

static bool finite3(ossa_float3 v) { return isfinite(v.x) && isfinite(v.y) && isfinite(v.z); }
static bool finite4(ossa_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

static ossa_quat conjugate(ossa_quat q) { return (ossa_quat){-q.x, -q.y, -q.z, q.w}; }

/* Checks a reference before any delta is made from it, so the error names its cause rather
 * than a non-finite delta. */
static ossa_result check_reference(const ossa_transform *ref, size_t track, ossa_diag *diag)
{
    if (!finite3(ref->translation) || !finite4(ref->rotation) || !finite3(ref->scale))
        return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, track, "reference of track %zu: values must be finite",
                             track);
    const ossa_quat q = ref->rotation;
    if (!(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w > 1e-12f))
        return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, track,
                             "reference of track %zu: rotation has zero length", track);
    if (ref->scale.x == 0.f || ref->scale.y == 0.f || ref->scale.z == 0.f)
        return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, track,
                             "reference of track %zu: scale (%g, %g, %g) has a zero component", track,
                             (double)ref->scale.x, (double)ref->scale.y, (double)ref->scale.z);
    return OSSA_OK;
}

/* The reference of `track`: the given pose, or each channel's first key (identity for a
 * channel without keys, whose delta is never made). */
static ossa_transform reference_of(const ossa_raw_joint_track *t, const ossa_additive_build_desc *desc, size_t track)
{
    if (desc && desc->reference) return desc->reference[track];
    ossa_transform ref = ossa_transform_identity();
    if (t->translation_count) ref.translation = t->translations[0].value;
    if (t->rotation_count) ref.rotation = t->rotations[0].value;
    if (t->scale_count) ref.scale = t->scales[0].value;
    return ref;
}

/* Fills out's track `track` with the deltas of raw's. */
static ossa_result make_deltas(const ossa_raw_joint_track *src, const ossa_transform *ref, ossa_raw_joint_track *dst,
                               size_t track, ossa_diag *diag)
{
    for (size_t k = 0; k < src->translation_count; ++k) {
        const ossa_float3 v = src->translations[k].value;
        const ossa_float3 d = {v.x - ref->translation.x, v.y - ref->translation.y, v.z - ref->translation.z};
        if (!finite3(d))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, track,
                                 "translation key %zu of track %zu: delta overflows", k, track);
        dst->translations[k] = (ossa_raw_float3_key){src->translations[k].time, d};
    }
    const ossa_quat inv_ref = conjugate(ossa_quat_normalize(ref->rotation));
    for (size_t k = 0; k < src->rotation_count; ++k) {
        const ossa_quat q = ossa_quat_normalize(src->rotations[k].value);
        dst->rotations[k] = (ossa_raw_quat_key){src->rotations[k].time, ossa_quat_normalize(ossa_quat_mul(inv_ref, q))};
    }
    for (size_t k = 0; k < src->scale_count; ++k) {
        const ossa_float3 v = src->scales[k].value;
        const ossa_float3 d = {v.x / ref->scale.x, v.y / ref->scale.y, v.z / ref->scale.z};
        if (!finite3(d))
            return ossa__fail_at(diag, OSSA_ERROR_INVALID_ARGUMENT, track,
                                 "scale key %zu of track %zu: delta overflows", k, track);
        dst->scales[k] = (ossa_raw_float3_key){src->scales[k].time, d};
    }
    return OSSA_OK;
}

ossa_result ossa_additive_animation_build(const ossa_raw_animation *raw, const ossa_additive_build_desc *desc,
                                          ossa_raw_animation *out, ossa_diag *diag)
{
    const ossa_allocator *allocator = desc ? desc->allocator : NULL;
    if (out) {
        memset(out, 0, sizeof *out);
        if (allocator) out->allocator = *allocator;
    }
    if (!raw || !out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no raw animation or output");
    ossa_result r = ossa_raw_animation_validate(raw, diag);
    if (r != OSSA_OK) return r;
    const size_t n = raw->track_count;
    if (desc && desc->reference && desc->reference_count < n)
        return ossa__fail(diag, OSSA_ERROR_INPUT_TOO_SMALL,
                          "reference pose has %zu transforms, the animation %zu tracks", desc->reference_count, n);
    for (size_t i = 0; i < n; ++i) {
        const ossa_transform ref = reference_of(&raw->tracks[i], desc, i);
        r = check_reference(&ref, i, diag);
        if (r != OSSA_OK) return r;
    }
    r = ossa_raw_animation_create(out, n, allocator);
    if (r == OSSA_OK) r = ossa_raw_animation_set_name(out, raw->name ? raw->name : "");
    if (r != OSSA_OK) {
        ossa_raw_animation_destroy(out);
        return ossa__fail(diag, r, "out of memory for %zu tracks", n);
    }
    out->duration = raw->duration;
    for (size_t i = 0; i < n && r == OSSA_OK; ++i) {
        const ossa_raw_joint_track *src = &raw->tracks[i];
        r = ossa_raw_joint_track_resize(out, i, src->translation_count, src->rotation_count, src->scale_count);
        if (r != OSSA_OK) {
            ossa__fail_at(diag, r, i, "out of memory for the keys of track %zu", i);
            break;
        }
        const ossa_transform ref = reference_of(src, desc, i);
        r = make_deltas(src, &ref, &out->tracks[i], i, diag);
    }
    if (r != OSSA_OK) ossa_raw_animation_destroy(out);
    return r;
}
