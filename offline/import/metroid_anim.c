/* Metroid Prime / Echoes ANIM: version dispatch, uncompressed (version 0) decoding, binding to
 * a CINF or a given skeleton, and the import output.
 * Source: PrimeDecomp/prime CAnimSource.cpp (MP1 version 0 fields); PrimeWorldEditor
 * CAnimationLoader (MP2 tables, layout test); metaforce DNAMP1/DNAMP2 ANIM (channel-major keys). */
#include <math.h>
#include <stdio.h>

#include "import_internal.h"
#include "internal.h"
#include "metroid.h"

ossa_result ossa__metroid_clip_alloc(ossa__metroid_clip *clip, size_t frame_count, const ossa__byte_reader *r)
{
    const ossa_allocator *a = &clip->allocator;
    clip->frame_count = frame_count;
    clip->times = ossa__calloc(a, frame_count, sizeof *clip->times);
    bool ok = clip->times != NULL;
    for (size_t c = 0; ok && c < clip->channel_count; ++c) {
        ossa__metroid_channel *ch = &clip->channels[c];
        if (ch->has_rotation) ok = (ch->rotations = ossa__calloc(a, frame_count, sizeof *ch->rotations)) != NULL;
        if (ok && ch->has_translation)
            ok = (ch->translations = ossa__calloc(a, frame_count, sizeof *ch->translations)) != NULL;
        if (ok && ch->has_scale) ok = (ch->scales = ossa__calloc(a, frame_count, sizeof *ch->scales)) != NULL;
    }
    if (ok) return OSSA_OK;
    return ossa__fail(r->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu frames", frame_count);
}

void ossa__metroid_clip_destroy(ossa__metroid_clip *clip)
{
    const ossa_allocator a = clip->allocator;
    for (size_t c = 0; c < clip->channel_count; ++c) {
        ossa_free(&a, clip->channels[c].rotations);
        ossa_free(&a, clip->channels[c].translations);
        ossa_free(&a, clip->channels[c].scales);
    }
    ossa_free(&a, clip->times);
    memset(clip, 0, sizeof *clip);
    clip->allocator = a;
}

/* ---- version 0 ---------------------------------------------------------------------- */

typedef struct table {
    uint32_t count;
    size_t offset; /* of the first entry */
    const uint8_t *entries;
} table;

typedef struct key_array {
    uint32_t count;
    size_t offset; /* of the first key */
    uint32_t per_frame;
    const uint8_t *keys; /* [count * key size] */
} key_array;

static bool read_table(ossa__byte_reader *r, table *t, const char *what)
{
    if (ossa__br_u32(r, what, &t->count)) return false;
    t->offset = r->pos;
    return ossa__br_bytes(r, t->count, what, &t->entries) == OSSA_OK;
}

static bool read_keys(ossa__byte_reader *r, key_array *k, size_t item, const char *what)
{
    if (ossa__br_u32(r, what, &k->count) || ossa__br_need(r, k->count, item, what)) return false;
    k->offset = r->pos;
    return ossa__br_bytes(r, (size_t)k->count * item, what, &k->keys) == OSSA_OK; /* fits: checked above */
}

/* Structural walk of the version-0 layout of `game`: true when it ends at the end of the data,
 * or is followed only by 0xFF padding; `*exact` tells which. */
static bool layout_fits(const uint8_t *p, size_t size, ossa_metroid_game game, bool *exact)
{
    ossa__byte_reader r; /* no diag: a probe that fails is not an error */
    ossa__br_init(&r, p, size, OSSA__BR_BIG, NULL, NULL);
    const bool mp2 = game == OSSA_METROID_GAME_MP2;
    const unsigned items[2][3] = {{16, 12, 0}, {12, 16, 12}};
    uint32_t count;
    if (ossa__br_seek(&r, 0x1C, "header")) return false;
    for (int i = 0; i < (mp2 ? 4 : 2); ++i)
        if (ossa__br_u32(&r, "table", &count) || ossa__br_skip(&r, count, "table")) return false;
    for (int i = 0; i < (mp2 ? 3 : 2); ++i) {
        if (ossa__br_u32(&r, "keys", &count) || ossa__br_need(&r, count, items[mp2][i], "keys")) return false;
        (void)ossa__br_skip(&r, (size_t)count * items[mp2][i], "keys");
    }
    if (!mp2 && ossa__br_skip(&r, 4, "EVNT id")) return false;
    *exact = ossa__br_remaining(&r) == 0;
    for (size_t i = r.pos; i < size; ++i)
        if (p[i] != 0xFF) return false;
    return true;
}

static ossa_result check_index(ossa__byte_reader *r, size_t at, uint32_t index, uint32_t limit, const char *what,
                               uint32_t bone)
{
    if (index < limit) return OSSA_OK;
    return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "bone %u: %s index %u is beyond the %u available", bone, what,
                         index, limit);
}

static ossa_result decode_uncompressed(ossa__byte_reader *r, ossa_metroid_game game, bool frame_major,
                                       ossa__metroid_clip *clip)
{
    const bool mp2 = game == OSSA_METROID_GAME_MP2;
    float duration, interval;
    uint32_t state, frames, root;
    (void)ossa__br_seek(r, 4, "the version"); /* the caller checked the version */
    if (ossa__br_f32(r, "duration", &duration) || ossa__br_u32(r, "duration state", &state) ||
        ossa__br_f32(r, "frame interval", &interval) || ossa__br_u32(r, "interval state", &state) ||
        ossa__br_u32(r, "frame count", &frames) || ossa__br_u32(r, "root bone id", &root))
        return r->code;
    table bones = {0}, rot = {0}, trans = {0}, scale = {0};
    key_array rot_keys = {0}, trans_keys = {0}, scale_keys = {0};
    const size_t bones_at = r->pos;
    if (!read_table(r, &bones, "bone channel table")) return r->code;
    if (mp2 && !read_table(r, &rot, "rotation channel table")) return r->code;
    if (!read_table(r, &trans, "translation channel table")) return r->code;
    if (mp2 && !read_table(r, &scale, "scale channel table")) return r->code;
    if (mp2 && !read_keys(r, &scale_keys, 12, "scale keys")) return r->code;
    if (!read_keys(r, &rot_keys, 16, "rotation keys") || !read_keys(r, &trans_keys, 12, "translation keys"))
        return r->code;
    uint32_t evnt = 0;
    if (!mp2 && ossa__br_u32(r, "EVNT id", &evnt)) return r->code;

    if (!isfinite(duration) || !(duration > 0.f))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, 4, "duration %g s is not a positive finite number",
                             (double)duration);
    if (!isfinite(interval) || !(interval > 0.f))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, 0xC, "frame interval %g s is not a positive finite number",
                             (double)interval);
    if (frames == 0) return ossa__br_fail(r, OSSA_ERROR_CORRUPT, 0x14, "frame count is 0");
    if (frames > OSSA__METROID_MAX_KEYS)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, 0x14, "%u frames exceed the limit of %zu keys", frames,
                             OSSA__METROID_MAX_KEYS);
    if ((double)(frames - 1u) * (double)interval > (double)duration * (1.0 + 1e-6))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, 0x14, "%u frames of %g s end after the duration %g s", frames,
                             (double)interval, (double)duration);
    if (bones.count > OSSA__METROID_MAX_BONES)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, bones_at, "bone channel table has %u entries; at most 100",
                             bones.count);
    key_array *arrays[3] = {&rot_keys, &trans_keys, &scale_keys};
    static const char *const names[3] = {"rotation", "translation", "scale"};
    for (int g = 0; g < 3; ++g) {
        if (arrays[g]->count % frames)
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, arrays[g]->offset - 4,
                                 "%u %s keys are not a whole number of keys for %u frames", arrays[g]->count, names[g],
                                 frames);
        arrays[g]->per_frame = arrays[g]->count / frames;
    }

    /* Resolve every animated bone to its key array indices (0xFF: channel absent). */
    uint32_t index[OSSA__METROID_MAX_BONES][3];
    size_t components = 0;
    ossa_result res;
    for (uint32_t b = 0; b < bones.count; ++b) {
        const uint32_t c = bones.entries[b];
        if (c == 0xFF) continue;
        const size_t at = bones.offset + b;
        ossa__metroid_channel *ch = &clip->channels[clip->channel_count];
        uint32_t *idx = index[clip->channel_count++];
        ch->bone_id = b;
        ch->offset = at;
        if (mp2) {
            const table *tables[3] = {&rot, &trans, &scale};
            for (int g = 0; g < 3; ++g) {
                if ((res = check_index(r, at, c, tables[g]->count, names[g], b)) != OSSA_OK) return res;
                idx[g] = tables[g]->entries[c];
            }
        } else {
            /* MP1: the bone table value is the rotation index and indexes the translation table. */
            if ((res = check_index(r, at, c, trans.count, "translation table", b)) != OSSA_OK) return res;
            idx[0] = c;
            idx[1] = trans.entries[c];
            idx[2] = 0xFF;
        }
        bool *has[3] = {&ch->has_rotation, &ch->has_translation, &ch->has_scale};
        for (int g = 0; g < 3; ++g) {
            if (idx[g] == 0xFF) continue;
            if ((res = check_index(r, at, idx[g], arrays[g]->per_frame, names[g], b)) != OSSA_OK) return res;
            *has[g] = true;
            ++components;
        }
    }
    if (components && frames > OSSA__METROID_MAX_KEYS / components)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, 0x14,
                             "%u frames of %zu channels exceed the limit of %zu keys", frames, components,
                             OSSA__METROID_MAX_KEYS);
    clip->game = game;
    clip->duration = duration;
    clip->interval = interval;
    clip->root_bone_id = root;
    clip->evnt_id = evnt;
    if ((res = ossa__metroid_clip_alloc(clip, frames, r)) != OSSA_OK) return res;
    /* The last frame may sit a rounding error past the duration (checked above): clamp it. */
    for (uint32_t f = 0; f < frames; ++f) {
        const double t = (double)f * (double)interval;
        clip->times[f] = t > (double)duration ? duration : (float)t;
    }
    for (size_t c = 0; c < clip->channel_count; ++c) {
        ossa__metroid_channel *ch = &clip->channels[c];
        for (uint32_t f = 0; f < frames; ++f) {
            for (int g = 0; g < 3; ++g) {
                if (index[c][g] == 0xFF) continue;
                const uint32_t n = arrays[g]->per_frame;
                const size_t key = frame_major ? (size_t)f * n + index[c][g] : (size_t)index[c][g] * frames + f;
                const size_t at = arrays[g]->offset + key * (g == 0 ? 16u : 12u);
                const uint8_t *p = arrays[g]->keys + key * (g == 0 ? 16u : 12u);
                float v[4];
                for (int i = 0; i < (g == 0 ? 4 : 3); ++i)
                    v[i] = ossa__br_bits_to_f32(ossa__br_load_u32(p + 4 * i, OSSA__BR_BIG));
                bool finite = isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]) && (g != 0 || isfinite(v[3]));
                /* The raw animation needs |q|^2 > 1e-12 (ossa_raw_animation_validate). */
                if (g == 0 && finite && !(v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3] > 1e-12f))
                    finite = false;
                if (!finite)
                    return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "bone %u %s key %u is not a finite%s value",
                                         ch->bone_id, names[g], f, g == 0 ? " non-zero" : "");
                /* Quaternions are stored W, X, Y, Z. */
                if (g == 0)
                    ch->rotations[f] = (ossa_quat){v[1], v[2], v[3], v[0]};
                else if (g == 1)
                    ch->translations[f] = (ossa_float3){v[0], v[1], v[2]};
                else
                    ch->scales[f] = (ossa_float3){v[0], v[1], v[2]};
            }
        }
    }
    return OSSA_OK;
}

/* ---- layout selection ------------------------------------------------------------------ */

static ossa_result decode(const uint8_t *p, size_t size, ossa_metroid_game game, bool frame_major,
                          ossa__metroid_clip *clip, ossa_diag *diag)
{
    ossa__byte_reader r;
    ossa__br_init(&r, p, size, OSSA__BR_BIG, diag, NULL);
    const uint32_t version = ossa__br_load_u32(p, OSSA__BR_BIG);
    ossa_result res = version == 2 ? ossa__metroid_decode_compressed(&r, game, clip)
                                   : decode_uncompressed(&r, game, frame_major, clip);
    if (res != OSSA_OK) ossa__metroid_clip_destroy(clip);
    return res;
}

static ossa_metroid_game guess_game(const uint8_t *p, size_t size)
{
    if (ossa__br_load_u32(p, OSSA__BR_BIG) == 2) {
        /* MP2 replaces MP1's EVNT id and u32 1 by a u16 0x0101 (PrimeWorldEditor's test). */
        const bool mp2 = size >= 16 && ossa__br_load_u16(p + 8, OSSA__BR_BIG) == 0x0101 &&
                         ossa__br_load_u32(p + 12, OSSA__BR_BIG) != 1;
        return mp2 ? OSSA_METROID_GAME_MP2 : OSSA_METROID_GAME_MP1;
    }
    bool exact1 = false, exact2 = false;
    const bool mp1 = layout_fits(p, size, OSSA_METROID_GAME_MP1, &exact1);
    const bool mp2 = layout_fits(p, size, OSSA_METROID_GAME_MP2, &exact2);
    if (mp2 && (!mp1 || exact2 || !exact1)) return OSSA_METROID_GAME_MP2;
    return OSSA_METROID_GAME_MP1;
}

static ossa_result decode_any(const uint8_t *p, size_t size, const ossa_metroid_anim_desc *desc,
                              ossa__metroid_clip *clip, ossa_diag *diag)
{
    const ossa_metroid_game game = desc ? desc->game : OSSA_METROID_GAME_AUTO;
    const bool frame_major = desc && desc->frame_major;
    if (game == OSSA_METROID_GAME_MP1 || game == OSSA_METROID_GAME_MP2)
        return decode(p, size, game, frame_major, clip, diag);
    if (game != OSSA_METROID_GAME_AUTO)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT, "unknown game %d", (int)game);
    const ossa_metroid_game first = guess_game(p, size);
    ossa_diag first_diag = {.offset = SIZE_MAX}, other_diag = {.offset = SIZE_MAX};
    if (decode(p, size, first, frame_major, clip, &first_diag) == OSSA_OK) return OSSA_OK;
    const ossa_metroid_game second = first == OSSA_METROID_GAME_MP1 ? OSSA_METROID_GAME_MP2 : OSSA_METROID_GAME_MP1;
    if (decode(p, size, second, frame_major, clip, &other_diag) == OSSA_OK) return OSSA_OK;
    return ossa__fail_at(diag, first_diag.code, first_diag.offset, "%s", first_diag.message);
}

/* ---- binding and output ------------------------------------------------------------------ */

static ossa_result copy_skeleton(const ossa_raw_skeleton *src, const uint32_t *src_ids, const ossa_allocator *allocator,
                                 ossa_raw_skeleton *dst, uint32_t *ids, ossa_diag *diag)
{
    const size_t n = src->joint_count;
    ossa_result res = ossa_raw_skeleton_create(dst, n, allocator);
    for (size_t j = 0; res == OSSA_OK && j < n; ++j) {
        dst->joints[j].parent = src->joints[j].parent;
        dst->joints[j].rest = src->joints[j].rest;
        res = ossa_raw_skeleton_set_name(dst, j, src->joints[j].name ? src->joints[j].name : "");
    }
    if (res != OSSA_OK) return ossa__fail(diag, res, "could not copy the %zu-joint skeleton", n);
    size_t *new_index = n ? ossa__calloc(&dst->allocator, n, sizeof *new_index) : NULL;
    if (n && !new_index) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    res = ossa_raw_skeleton_sort_depth_first(dst, new_index, diag);
    for (size_t j = 0; res == OSSA_OK && j < n; ++j) ids[new_index[j]] = src_ids[j];
    ossa_free(&dst->allocator, new_index);
    return res;
}

static ossa_result bind_skeleton(const ossa_metroid_anim_desc *desc, const ossa__metroid_clip *clip,
                                 ossa_import_output *out, uint32_t **ids, const char **bound, ossa_diag *diag)
{
    if (desc && desc->cinf_data) {
        *bound = "cinf";
        ossa__metroid_cinf *cinf = ossa__calloc(&out->allocator, 1, sizeof *cinf);
        *ids = ossa__calloc(&out->allocator, OSSA__METROID_MAX_BONES, sizeof **ids);
        if (!cinf || !*ids) {
            ossa_free(&out->allocator, cinf);
            return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
        }
        ossa_result res =
            ossa__metroid_cinf_parse(desc->cinf_data, desc->cinf_size, desc->cinf_game, "CINF: ", cinf, diag);
        if (res == OSSA_OK) res = ossa__metroid_cinf_skeleton(cinf, &out->allocator, &out->skeleton, *ids, diag);
        ossa_free(&out->allocator, cinf);
        return res;
    }
    if (desc && desc->skeleton) {
        *bound = "skeleton";
        if (!desc->joint_bone_ids) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "a skeleton needs joint_bone_ids");
        if (desc->skeleton->joint_count > OSSA_MAX_JOINTS)
            return ossa__fail(diag, OSSA_ERROR_TOO_MANY_JOINTS, "skeleton has %zu joints", desc->skeleton->joint_count);
        const size_t n = desc->skeleton->joint_count;
        *ids = ossa__calloc(&out->allocator, n ? n : 1, sizeof **ids);
        if (!*ids) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
        return copy_skeleton(desc->skeleton, desc->joint_bone_ids, &out->allocator, &out->skeleton, *ids, diag);
    }
    *bound = "flat";
    bool animated[OSSA__METROID_MAX_BONES] = {false};
    size_t n = 0;
    for (size_t c = 0; c < clip->channel_count; ++c) animated[clip->channels[c].bone_id] = true;
    *ids = ossa__calloc(&out->allocator, OSSA__METROID_MAX_BONES, sizeof **ids);
    if (!*ids) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    for (uint32_t id = 0; id < OSSA__METROID_MAX_BONES; ++id)
        if (animated[id]) (*ids)[n++] = id;
    ossa_result res = ossa_raw_skeleton_create(&out->skeleton, n, &out->allocator);
    for (size_t j = 0; res == OSSA_OK && j < n; ++j) {
        char name[16];
        snprintf(name, sizeof name, "bone_%u", (*ids)[j]);
        res = ossa_raw_skeleton_set_name(&out->skeleton, j, name);
    }
    if (res != OSSA_OK) return ossa__fail(diag, res, "could not create %zu joints", n);
    return OSSA_OK;
}

static ossa_result fill_animation(const ossa__metroid_clip *clip, const uint32_t *ids, const char *name,
                                  ossa_import_output *out, ossa_diag *diag)
{
    int32_t channel_of_id[OSSA__METROID_MAX_BONES];
    for (size_t i = 0; i < OSSA__METROID_MAX_BONES; ++i) channel_of_id[i] = -1;
    for (size_t c = 0; c < clip->channel_count; ++c) channel_of_id[clip->channels[c].bone_id] = (int32_t)c;
    const size_t joints = out->skeleton.joint_count, frames = clip->frame_count;
    size_t bound = 0; /* animated channels over all joints (several joints may share a bone id) */
    for (size_t j = 0; j < joints; ++j) {
        if (ids[j] >= OSSA__METROID_MAX_BONES || channel_of_id[ids[j]] < 0) continue;
        const ossa__metroid_channel *ch = &clip->channels[channel_of_id[ids[j]]];
        bound += (size_t)ch->has_rotation + ch->has_translation + ch->has_scale;
    }
    if (bound && frames > OSSA__METROID_MAX_KEYS / bound)
        return ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                          "%zu frames of %zu bound channels exceed the limit of %zu keys", frames, bound,
                          OSSA__METROID_MAX_KEYS);
    ossa_raw_animation *anim = NULL;
    ossa_result res = ossa_import_output_add_animation(out, joints, &anim);
    if (res == OSSA_OK) res = ossa_raw_animation_set_name(anim, name ? name : "");
    if (res != OSSA_OK) return ossa__fail(diag, res, "could not create the animation");
    anim->duration = clip->duration;
    for (size_t j = 0; j < joints; ++j) {
        const ossa__metroid_channel *ch = ids[j] < OSSA__METROID_MAX_BONES && channel_of_id[ids[j]] >= 0
                                              ? &clip->channels[channel_of_id[ids[j]]]
                                              : NULL;
        const bool has_t = ch && ch->has_translation, has_r = ch && ch->has_rotation, has_s = ch && ch->has_scale;
        res = ossa_raw_joint_track_resize(anim, j, has_t ? frames : 1, has_r ? frames : 1, has_s ? frames : 1);
        if (res != OSSA_OK) return ossa__fail(diag, res, "out of memory for track %zu", j);
        ossa_raw_joint_track *track = &anim->tracks[j];
        const ossa_transform rest = out->skeleton.joints[j].rest;
        track->translations[0] = (ossa_raw_float3_key){0.f, rest.translation};
        track->rotations[0] = (ossa_raw_quat_key){0.f, rest.rotation};
        track->scales[0] = (ossa_raw_float3_key){0.f, rest.scale};
        for (size_t f = 0; f < frames; ++f) {
            const float t = clip->times[f];
            if (has_t) track->translations[f] = (ossa_raw_float3_key){t, ch->translations[f]};
            if (has_r) track->rotations[f] = (ossa_raw_quat_key){t, ch->rotations[f]};
            if (has_s) track->scales[f] = (ossa_raw_float3_key){t, ch->scales[f]};
        }
    }
    return OSSA_OK;
}

/* Integers print exactly with %.0f; floats with 9 significant digits round-trip. */
static ossa_result add_number(ossa_import_output *out, const char *key, bool integer, double value)
{
    char text[64];
    if (integer)
        snprintf(text, sizeof text, "%.0f", value);
    else
        snprintf(text, sizeof text, "%.9g", value);
    return ossa_import_output_add_metadata(out, key, text);
}

static ossa_result add_metadata(const ossa__metroid_clip *clip, const uint32_t *ids, const char *bound,
                                ossa_import_output *out)
{
    const bool mp2 = clip->game == OSSA_METROID_GAME_MP2;
    char format[48];
    snprintf(format, sizeof format, "metroid-anim-%s-%s", mp2 ? "mp2" : "mp1",
             clip->compressed ? "compressed" : "uncompressed");
    ossa_result res = ossa_import_output_add_metadata(out, "format", format);
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "game", mp2 ? "mp2" : "mp1");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "source_units", "metres");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "unit_scale", "1");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "bound", bound);
    if (res == OSSA_OK) res = ossa__metroid_add_bone_ids(out, "joint_bone_ids", ids, out->skeleton.joint_count);
    if (res == OSSA_OK) res = add_number(out, "duration", false, (double)clip->duration);
    if (res == OSSA_OK) res = add_number(out, "frame_interval", false, (double)clip->interval);
    if (res == OSSA_OK) res = add_number(out, "frame_count", true, (double)clip->frame_count);
    if (res == OSSA_OK) res = add_number(out, "root_bone_id", true, clip->root_bone_id);
    if (res == OSSA_OK && clip->compressed) res = add_number(out, "looping", true, clip->looping != 0);
    if (res == OSSA_OK && clip->compressed) res = add_number(out, "rotation_divisor", true, clip->rotation_divisor);
    if (res == OSSA_OK && !mp2) {
        char text[16];
        snprintf(text, sizeof text, "0x%08X", (unsigned)clip->evnt_id);
        res = ossa_import_output_add_metadata(out, "evnt_asset_id", text);
    }
    bool in_skeleton[OSSA__METROID_MAX_BONES] = {false};
    uint32_t unbound[OSSA__METROID_MAX_BONES];
    size_t unbound_count = 0;
    for (size_t j = 0; j < out->skeleton.joint_count; ++j)
        if (ids[j] < OSSA__METROID_MAX_BONES) in_skeleton[ids[j]] = true;
    for (size_t c = 0; c < clip->channel_count; ++c)
        if (!in_skeleton[clip->channels[c].bone_id]) unbound[unbound_count++] = clip->channels[c].bone_id;
    if (res == OSSA_OK && unbound_count)
        res = ossa__metroid_add_bone_ids(out, "unbound_bone_ids", unbound, unbound_count);
    return res;
}

ossa_result ossa_import_metroid_anim(const void *data, size_t size, const ossa_metroid_anim_desc *desc,
                                     ossa_import_output *out, ossa_diag *diag)
{
    ossa_result res = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "ANIM", diag);
    if (res != OSSA_OK) return res;
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_BIG, diag, NULL);
    uint32_t version;
    if (ossa__br_u32(&r, "the ANIM version", &version)) return r.code;
    const uint8_t *p = data;
    if (version != 0 && version != 2)
        return ossa__fail_at(diag, OSSA_ERROR_UNSUPPORTED_FORMAT, 0,
                             "ANIM version %u is not supported (0 uncompressed and 2 compressed are)", version);
    ossa__metroid_clip *clip = ossa__calloc(&out->allocator, 1, sizeof *clip);
    if (!clip) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    clip->allocator = out->allocator;
    uint32_t *ids = NULL;
    const char *bound = "flat";
    res = decode_any(p, size, desc, clip, diag);
    if (res == OSSA_OK) res = bind_skeleton(desc, clip, out, &ids, &bound, diag);
    if (res == OSSA_OK) res = fill_animation(clip, ids, desc ? desc->name : NULL, out, diag);
    if (res == OSSA_OK) {
        res = add_metadata(clip, ids, bound, out);
        if (res != OSSA_OK) ossa__fail(diag, res, "out of memory writing metadata");
    }
    ossa__metroid_clip_destroy(clip);
    ossa_free(&out->allocator, clip);
    ossa_free(&out->allocator, ids);
    return ossa__import_end(out, res, diag);
}
