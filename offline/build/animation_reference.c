/* The search's reference points, made a row at a time (see animation_reference.h). */
#include <string.h>

#include "animation_codec.h"
#include "animation_format.h"
#include "animation_reference.h"
#include "internal.h"
#include "matrix.h"

bool ossa__reference_init(ossa__reference *ref, const ossa_raw_animation *raw, const int16_t *parents,
                          const float *times, size_t M, const float *shell, const ossa_allocator *allocator)
{
    memset(ref, 0, sizeof *ref);
    atomic_init(&ref->failed, false);
    ref->raw = raw, ref->parents = parents, ref->times = times, ref->shell = shell, ref->allocator = allocator;
    ref->J = raw->track_count, ref->M = M;
    const size_t J = ref->J;
    ref->slot = ossa__calloc(allocator, J + 1, sizeof *ref->slot);
    ref->chained = ossa__calloc(allocator, J + 1, 1);
    ref->made = ossa__calloc(allocator, M + 1, 1);
    ref->blocks = ossa__calloc(allocator, M / OSSA__REFERENCE_BLOCK + 1, sizeof *ref->blocks);
    if (!ref->slot || !ref->chained || !ref->made || !ref->blocks) return false;
    for (size_t b = 0; b <= M / OSSA__REFERENCE_BLOCK; ++b) atomic_init(&ref->blocks[b], NULL);
    for (size_t j = 0; j < J; ++j) {
        ref->slot[j] = parents[j] < 0 ? ref->roots++ : ref->others++;
        /* A joint's matrix is read for its own points (not a root's: rebuilt from the rotation)
         * or as a parent's. */
        if (parents[j] >= 0) ref->chained[j] = ref->chained[parents[j]] = 1;
    }
    ref->held = ossa__calloc(allocator, 2 * ref->roots + 1, sizeof *ref->held);
    ref->is_held = ossa__calloc(allocator, 2 * ref->roots + 1, 1);
    ref->root = ossa__calloc(allocator, ref->roots + 1, sizeof *ref->root);
    if (!ref->held || !ref->is_held || !ref->root) return false;
    for (size_t j = 0; j < J; ++j) {
        if (parents[j] >= 0) continue;
        const ossa_raw_joint_track *t = &raw->tracks[j];
        const size_t r = ref->slot[j];
        ref->root[r] = j;
        ref->is_held[2 * r] = ossa__raw_channel_held(t, OSSA__CH_TRANSLATION);
        ref->is_held[2 * r + 1] = ossa__raw_channel_held(t, OSSA__CH_SCALE);
        ref->held[2 * r] = ossa__raw_sample_float3(raw, t->translations, t->translation_count, 0.f,
                                                   (ossa_float3){0.f, 0.f, 0.f}, NULL);
        ref->held[2 * r + 1] =
            ossa__raw_sample_float3(raw, t->scales, t->scale_count, 0.f, (ossa_float3){1.f, 1.f, 1.f}, NULL);
    }
    ref->row_floats = 4 * ref->roots + 12 * ref->others;
    return true;
}

void ossa__reference_destroy(ossa__reference *ref)
{
    const ossa_allocator *a = ref->allocator;
    for (size_t b = 0; ref->blocks && b <= ref->M / OSSA__REFERENCE_BLOCK; ++b)
        ossa_free(a, atomic_load_explicit(&ref->blocks[b], memory_order_relaxed));
    ossa_free(a, (void *)ref->blocks);
    ossa_free(a, ref->slot), ossa_free(a, ref->chained), ossa_free(a, ref->made);
    ossa_free(a, ref->held), ossa_free(a, ref->is_held), ossa_free(a, ref->root);
    memset(ref, 0, sizeof *ref);
}

bool ossa__reference_pass_init(const ossa__reference *ref, ossa__reference_pass *pass)
{
    const ossa_allocator *a = ref->allocator;
    pass->local = ossa__calloc(a, ref->J + 1, sizeof *pass->local);
    pass->model = ossa_alloc(a, (ref->J + 1) * sizeof *pass->model);
    pass->cursors = ossa__calloc(a, 3 * ref->J + 1, sizeof *pass->cursors);
    pass->root_cursors = ossa__calloc(a, 2 * ref->roots + 1, sizeof *pass->root_cursors);
    pass->roots = ossa__calloc(a, 12 * ref->roots + 1, sizeof *pass->roots);
    return pass->local && pass->model && pass->cursors && pass->root_cursors && pass->roots;
}

void ossa__reference_pass_free(const ossa__reference *ref, ossa__reference_pass *pass)
{
    const ossa_allocator *a = ref->allocator;
    ossa_free(a, pass->local), ossa_free(a, pass->model), ossa_free(a, pass->cursors), ossa_free(a, pass->root_cursors);
    ossa_free(a, pass->roots);
    memset(pass, 0, sizeof *pass);
}

/* Block b, allocated by whichever thread needs it first (two threads may share a block, never
 * a row); NULL when out of memory. */
static float *block(ossa__reference *ref, size_t b)
{
    float *p = atomic_load_explicit(&ref->blocks[b], memory_order_acquire);
    if (p) return p;
    size_t floats;
    if (!ossa__mul_size(ref->row_floats ? ref->row_floats : 1, OSSA__REFERENCE_BLOCK, &floats)) return NULL;
    float *fresh = ossa_alloc(ref->allocator, floats * sizeof *fresh);
    if (!fresh) return NULL;
    if (atomic_compare_exchange_strong_explicit(&ref->blocks[b], &p, fresh, memory_order_acq_rel, memory_order_acquire))
        return fresh;
    ossa_free(ref->allocator, fresh);
    return p;
}

bool ossa__reference_make_row(ossa__reference *ref, ossa__reference_pass *pass, size_t m)
{
    if (ref->made[m]) return true;
    float *row = block(ref, m / OSSA__REFERENCE_BLOCK);
    if (!row) {
        atomic_store_explicit(&ref->failed, true, memory_order_relaxed);
        return false;
    }
    row += (m % OSSA__REFERENCE_BLOCK) * ref->row_floats;
    ossa__raw_animation_sample_pass(ref->raw, ref->times[m], pass->local, pass->cursors);
    /* ossa__raw_to_model for the joints whose matrix is read: the same products in the same
     * order, without those of the roots that have no children. */
    for (size_t j = 0; j < ref->J; ++j) {
        const size_t slot = ref->slot[j];
        const int p = ref->parents[j];
        if (p < 0) {
            const ossa_quat q = pass->local[j].rotation;
            float *out = row + 4 * slot;
            out[0] = q.x, out[1] = q.y, out[2] = q.z, out[3] = q.w;
        }
        if (!ref->chained[j]) continue;
        const ossa_float4x4 local = ossa__float4x4_from_transform(&pass->local[j]);
        pass->model[j] = p < 0 ? local : ossa__float4x4_mul_affine(&pass->model[p], &local);
        if (p >= 0) ossa__reference_joint_points(&pass->model[j], ref->shell[j], row + 4 * ref->roots + 12 * slot);
    }
    ref->made[m] = 1;
    return true;
}

void ossa__reference_roots(const ossa__reference *ref, ossa__reference_pass *pass, size_t m)
{
    /* ossa__reference_root_points for every root, the row and the clamped time found once. */
    const float *q = ossa__reference_row(ref, m);
    const float time = ref->times[m], duration = ref->raw->duration;
    const float t = time < 0.f ? 0.f : (time > duration ? duration : time);
    const ossa_raw_joint_track *tracks = ref->raw->tracks;
    for (size_t r = 0; r < ref->roots; ++r, q += 4) {
        const ossa_raw_joint_track *track = &tracks[ref->root[r]];
        ossa_transform local;
        local.rotation = (ossa_quat){q[0], q[1], q[2], q[3]};
        local.translation = ref->is_held[2 * r]
                                ? ref->held[2 * r]
                                : ossa__sample_float3(track->translations, track->translation_count, t,
                                                      (ossa_float3){0.f, 0.f, 0.f}, &pass->root_cursors[2 * r]);
        local.scale = ref->is_held[2 * r + 1]
                          ? ref->held[2 * r + 1]
                          : ossa__sample_float3(track->scales, track->scale_count, t, (ossa_float3){1.f, 1.f, 1.f},
                                                &pass->root_cursors[2 * r + 1]);
        const ossa_float4x4 model = ossa__float4x4_from_transform(&local);
        ossa__reference_joint_points(&model, ref->shell[ref->root[r]], pass->roots + 12 * r);
    }
}
