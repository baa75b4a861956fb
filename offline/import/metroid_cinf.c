/* Metroid Prime / Echoes CINF skeletons. */
#include <math.h>
#include <stdio.h>

#include "import_internal.h"
#include "internal.h"
#include "metroid.h"

/* Donkey Kong Country Returns reuses the extension with another layout. */
#define DKCR_CINF_MAGIC 0x9E220006u

static ossa_result parse_layout(ossa__byte_reader *r, ossa_metroid_game game, ossa__metroid_cinf *cinf)
{
    memset(cinf, 0, sizeof *cinf);
    cinf->game = game;
    bool present[OSSA__METROID_MAX_BONES] = {false};
    const size_t bone_min = game == OSSA_METROID_GAME_MP2 ? 56u : 24u;
    uint32_t count;
    size_t at = r->pos;
    if (ossa__br_u32(r, "bone count", &count)) return r->code;
    if (count > OSSA__METROID_MAX_BONES)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "bone count %u exceeds the game's limit of 100", count);
    if (ossa__br_need(r, count, bone_min, "bone table")) return r->code;
    for (uint32_t b = 0; b < count; ++b) {
        ossa__metroid_bone *bone = &cinf->bones[b];
        bone->offset = r->pos;
        if (ossa__br_u32(r, "bone id", &bone->id)) return r->code;
        if (bone->id >= OSSA__METROID_MAX_BONES)
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, bone->offset, "bone %u has id %u; ids must be below 100", b,
                                 bone->id);
        if (present[bone->id])
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, bone->offset, "bone %u repeats bone id %u", b, bone->id);
        present[bone->id] = true;
        if (ossa__br_u32(r, "parent id", &bone->parent_id)) return r->code;
        at = r->pos;
        float *xyz[3] = {&bone->origin.x, &bone->origin.y, &bone->origin.z};
        for (int c = 0; c < 3; ++c)
            if (ossa__br_f32(r, "bone origin", xyz[c])) return r->code;
        if (!isfinite(bone->origin.x) || !isfinite(bone->origin.y) || !isfinite(bone->origin.z))
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "bone id %u has a non-finite origin", bone->id);
        /* MP2 adds two quaternions (skeleton-space and local rotation); nothing reads them back. */
        if (game == OSSA_METROID_GAME_MP2) {
            if (ossa__br_skip(r, 32, "bone rotations")) return r->code;
        }
        uint32_t linked;
        if (ossa__br_u32(r, "linked bone count", &linked)) return r->code;
        if (ossa__br_need(r, linked, 4, "linked bone ids")) return r->code;
        (void)ossa__br_skip(r, (size_t)linked * 4u, "linked bone ids"); /* fits: checked above */
    }
    cinf->bone_count = count;

    uint32_t order_count;
    if (ossa__br_u32(r, "build-order count", &order_count)) return r->code;
    if (ossa__br_need(r, order_count, 4, "build-order list")) return r->code;
    bool ordered[OSSA__METROID_MAX_BONES] = {false};
    for (uint32_t i = 0; i < order_count; ++i) {
        at = r->pos;
        uint32_t id = 0;
        (void)ossa__br_u32(r, "build-order id", &id); /* the whole list was checked above */
        if (id >= OSSA__METROID_MAX_BONES || !present[id])
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at,
                                 "build-order entry %u names bone id %u, which the file lacks", i, id);
        if (!ordered[id]) cinf->order[cinf->order_count++] = (uint8_t)id;
        ordered[id] = true;
    }

    uint32_t name_count;
    if (ossa__br_u32(r, "name count", &name_count)) return r->code;
    if (ossa__br_need(r, name_count, 5, "name table")) return r->code;
    for (uint32_t i = 0; i < name_count; ++i) {
        at = r->pos;
        const uint8_t *start = r->data + r->pos;
        const uint8_t *nul = memchr(start, 0, ossa__br_remaining(r));
        if (!nul) return ossa__br_fail(r, OSSA_ERROR_TRUNCATED, at, "name %u has no terminating NUL before the end", i);
        (void)ossa__br_skip(r, (size_t)(nul - start) + 1u, "bone name"); /* the NUL is inside the data */
        uint32_t id;
        if (ossa__br_u32(r, "name bone id", &id)) return r->code;
        if (id >= OSSA__METROID_MAX_BONES || !present[id]) continue;
        for (size_t b = 0; b < cinf->bone_count; ++b)
            if (cinf->bones[b].id == id && !cinf->bones[b].name) cinf->bones[b].name = (const char *)start;
    }
    return OSSA_OK;
}

static ossa_metroid_game guess_game(const uint8_t *p, size_t size)
{
    /* MP1's linked count (1..100) follows the first origin where MP2 has a float. */
    if (size < 28 || ossa__br_load_u32(p, OSSA__BR_BIG) == 0) return OSSA_METROID_GAME_MP1;
    const uint32_t check = ossa__br_load_u32(p + 24, OSSA__BR_BIG);
    return (check == 0 || check > 100) ? OSSA_METROID_GAME_MP2 : OSSA_METROID_GAME_MP1;
}

ossa_result ossa__metroid_cinf_parse(const void *data, size_t size, ossa_metroid_game game, const char *prefix,
                                     ossa__metroid_cinf *cinf, ossa_diag *diag)
{
    const uint8_t *p = data;
    ossa__byte_reader r;
    ossa__br_init(&r, p, size, OSSA__BR_BIG, diag, NULL);
    r.prefix = prefix;
    if (size >= 4 && ossa__br_load_u32(p, OSSA__BR_BIG) == DKCR_CINF_MAGIC)
        return ossa__br_fail(&r, OSSA_ERROR_UNSUPPORTED_FORMAT, 0,
                             "Donkey Kong Country Returns CINF (0x9E220006) is not supported");
    if (game == OSSA_METROID_GAME_MP1 || game == OSSA_METROID_GAME_MP2) return parse_layout(&r, game, cinf);
    if (game != OSSA_METROID_GAME_AUTO)
        return ossa__br_fail(&r, OSSA_ERROR_INVALID_ARGUMENT, SIZE_MAX, "unknown game %d", (int)game);
    const ossa_metroid_game first = guess_game(p, size);
    ossa_diag first_diag = {.offset = SIZE_MAX};
    r.diag = &first_diag;
    if (parse_layout(&r, first, cinf) == OSSA_OK) return OSSA_OK;
    ossa_diag other_diag = {.offset = SIZE_MAX};
    ossa__byte_reader r2;
    ossa__br_init(&r2, p, size, OSSA__BR_BIG, &other_diag, NULL);
    r2.prefix = prefix;
    const ossa_metroid_game second = first == OSSA_METROID_GAME_MP1 ? OSSA_METROID_GAME_MP2 : OSSA_METROID_GAME_MP1;
    if (parse_layout(&r2, second, cinf) == OSSA_OK) return OSSA_OK;
    return ossa__fail_at(diag, first_diag.code, first_diag.offset, "%s", first_diag.message);
}

ossa_result ossa__metroid_cinf_skeleton(const ossa__metroid_cinf *cinf, const ossa_allocator *allocator,
                                        ossa_raw_skeleton *skeleton, uint32_t *bone_ids, ossa_diag *diag)
{
    const size_t n = cinf->bone_count;
    size_t order[OSSA__METROID_MAX_BONES]; /* joint -> index in cinf->bones */
    int32_t joint_of_id[OSSA__METROID_MAX_BONES];
    int32_t bone_of_id[OSSA__METROID_MAX_BONES];
    bool placed[OSSA__METROID_MAX_BONES] = {false};
    for (size_t i = 0; i < OSSA__METROID_MAX_BONES; ++i) joint_of_id[i] = bone_of_id[i] = -1;
    for (size_t b = 0; b < n; ++b) bone_of_id[cinf->bones[b].id] = (int32_t)b;

    /* Parent cycles would make the game recurse forever; report the first bone on one. */
    for (size_t b = 0; b < n; ++b) {
        uint32_t id = cinf->bones[b].id;
        size_t steps = 0;
        while (id < OSSA__METROID_MAX_BONES && bone_of_id[id] >= 0 && steps <= n) {
            id = cinf->bones[bone_of_id[id]].parent_id;
            ++steps;
        }
        if (steps > n)
            return ossa__fail_at(diag, OSSA_ERROR_CORRUPT, cinf->bones[b].offset,
                                 "CINF bone id %u: its parent chain loops", cinf->bones[b].id);
    }

    size_t count = 0;
    for (size_t i = 0; i < cinf->order_count; ++i) {
        const size_t b = (size_t)bone_of_id[cinf->order[i]];
        order[count++] = b;
        placed[b] = true;
    }
    for (size_t b = 0; b < n; ++b)
        if (!placed[b]) order[count++] = b;
    for (size_t j = 0; j < n; ++j) joint_of_id[cinf->bones[order[j]].id] = (int32_t)j;

    ossa_result res = ossa_raw_skeleton_create(skeleton, n, allocator);
    if (res != OSSA_OK) return ossa__fail(diag, res, "could not allocate %zu joints", n);
    for (size_t j = 0; j < n; ++j) {
        const ossa__metroid_bone *bone = &cinf->bones[order[j]];
        ossa_raw_joint *joint = &skeleton->joints[j];
        const uint32_t pid = bone->parent_id;
        const bool has_parent = pid < OSSA__METROID_MAX_BONES && joint_of_id[pid] >= 0;
        joint->parent = has_parent ? joint_of_id[pid] : -1;
        ossa_float3 offset = bone->origin;
        if (has_parent) {
            const ossa_float3 p = cinf->bones[bone_of_id[pid]].origin;
            offset = (ossa_float3){offset.x - p.x, offset.y - p.y, offset.z - p.z};
            if (!isfinite(offset.x) || !isfinite(offset.y) || !isfinite(offset.z))
                return ossa__fail_at(diag, OSSA_ERROR_CORRUPT, bone->offset + 8,
                                     "CINF bone id %u: its offset from the parent's origin overflows", bone->id);
        }
        joint->rest.translation = offset;
        char fallback[16];
        snprintf(fallback, sizeof fallback, "bone_%u", bone->id);
        res = ossa_raw_skeleton_set_name(skeleton, j, bone->name ? bone->name : fallback);
        if (res != OSSA_OK) return ossa__fail(diag, res, "out of memory naming joints");
    }
    size_t new_index[OSSA__METROID_MAX_BONES];
    res = ossa_raw_skeleton_sort_depth_first(skeleton, new_index, diag);
    if (res != OSSA_OK) return res;
    for (size_t j = 0; j < n; ++j) bone_ids[new_index[j]] = cinf->bones[order[j]].id;
    return OSSA_OK;
}

ossa_result ossa__metroid_add_bone_ids(ossa_import_output *out, const char *key, const uint32_t *ids, size_t count)
{
    size_t bytes;
    if (!ossa__mul_size(count, 12, &bytes) || !ossa__add_size(bytes, 1, &bytes)) return OSSA_ERROR_OUT_OF_MEMORY;
    char *text = ossa_alloc(&out->allocator, bytes);
    if (!text) return OSSA_ERROR_OUT_OF_MEMORY;
    size_t len = 0;
    text[0] = '\0';
    for (size_t i = 0; i < count; ++i) {
        const char *sep = i ? "," : "";
        int w = ids[i] < OSSA__METROID_MAX_BONES ? snprintf(text + len, bytes - len, "%s%u", sep, ids[i])
                                                 : snprintf(text + len, bytes - len, "%s-", sep);
        if (w > 0) len += (size_t)w;
    }
    ossa_result res = ossa_import_output_add_metadata(out, key, text);
    ossa_free(&out->allocator, text);
    return res;
}

ossa_result ossa_import_metroid_cinf(const void *data, size_t size, const ossa_metroid_cinf_desc *desc,
                                     ossa_import_output *out, ossa_diag *diag)
{
    ossa_result res = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "CINF", diag);
    if (res != OSSA_OK) return res;
    ossa__metroid_cinf *cinf = ossa_alloc(&out->allocator, sizeof *cinf);
    if (!cinf) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    memset(cinf, 0, sizeof *cinf);
    res = ossa__metroid_cinf_parse(data, size, desc ? desc->game : OSSA_METROID_GAME_AUTO, "", cinf, diag);
    uint32_t ids[OSSA__METROID_MAX_BONES];
    if (res == OSSA_OK) res = ossa__metroid_cinf_skeleton(cinf, &out->allocator, &out->skeleton, ids, diag);
    const bool mp2 = cinf->game == OSSA_METROID_GAME_MP2;
    const size_t joints = cinf->bone_count;
    ossa_free(&out->allocator, cinf);
    if (res == OSSA_OK)
        res = ossa_import_output_add_metadata(out, "format", mp2 ? "metroid-cinf-mp2" : "metroid-cinf-mp1");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "game", mp2 ? "mp2" : "mp1");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "source_units", "metres");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "unit_scale", "1");
    if (res == OSSA_OK) res = ossa__metroid_add_bone_ids(out, "joint_bone_ids", ids, joints);
    if (res == OSSA_ERROR_OUT_OF_MEMORY) ossa__fail(diag, res, "out of memory writing the output");
    return ossa__import_end(out, res, diag);
}
