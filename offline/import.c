#include "ossa/offline/import.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "ossa/offline/import_assimp.h"
/* -- importer headers added by later work go below this line -- */
#include "import/resonite_common.h" /* ossa_import_animj, ossa_import_animx, ossa__animj_sniff */
#include "ossa/offline/import_mrtk.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/offline/import_metroid.h"
#include "ossa/offline/import_maya.h"
#include "ossa/offline/import_gltf.h"

static bool grow_one(ossa_import_output *out, void **array, size_t count, size_t elem)
{
    /* Arrays grow geometrically; capacity is implied by count (powers of two from 4). */
    size_t capacity = 0;
    if (count) {
        capacity = 4;
        while (capacity < count) capacity *= 2;
    }
    return ossa__grow(&out->allocator, array, &capacity, count + 1, elem);
}

ossa_result ossa_import_output_add_animation(ossa_import_output *out, size_t track_count, ossa_raw_animation **added)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (track_count > OSSA_MAX_JOINTS) return OSSA_ERROR_TOO_MANY_JOINTS;
    if (!grow_one(out, (void **)&out->animations, out->animation_count, sizeof *out->animations))
        return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_raw_animation *a = &out->animations[out->animation_count];
    ossa_result r = ossa_raw_animation_create(a, track_count, &out->allocator);
    if (r != OSSA_OK) return r;
    ++out->animation_count;
    if (added) *added = a;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_track(ossa_import_output *out, ossa_track_type type, size_t key_count,
                                         ossa_raw_track **added)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (!grow_one(out, (void **)&out->tracks, out->track_count, sizeof *out->tracks)) return OSSA_ERROR_OUT_OF_MEMORY;
    ossa_raw_track *t = &out->tracks[out->track_count];
    ossa_result r = ossa_raw_track_create(t, type, key_count, &out->allocator);
    if (r != OSSA_OK) return r;
    ++out->track_count;
    if (added) *added = t;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_event(ossa_import_output *out, float time, const char *name)
{
    if (!out) return OSSA_ERROR_NULL_ARGUMENT;
    if (!grow_one(out, (void **)&out->events, out->event_count, sizeof *out->events)) return OSSA_ERROR_OUT_OF_MEMORY;
    char *copy = ossa_strdup(&out->allocator, name);
    if (!copy) return OSSA_ERROR_OUT_OF_MEMORY;
    out->events[out->event_count].time = time;
    out->events[out->event_count].name = copy;
    ++out->event_count;
    return OSSA_OK;
}

ossa_result ossa_import_output_add_metadata(ossa_import_output *out, const char *key, const char *value)
{
    if (!out || !key) return OSSA_ERROR_NULL_ARGUMENT;
    if (!value) value = "";
    size_t old = out->metadata ? strlen(out->metadata) : 0;
    size_t klen = strlen(key), vlen = strlen(value), total;
    if (!ossa__add_size(old, klen, &total) || !ossa__add_size(total, vlen, &total) || !ossa__add_size(total, 3, &total))
        return OSSA_ERROR_OUT_OF_MEMORY;
    char *text = ossa_alloc(&out->allocator, total);
    if (!text) return OSSA_ERROR_OUT_OF_MEMORY;
    if (old) memcpy(text, out->metadata, old);
    char *p = text + old;
    for (size_t i = 0; i < klen; ++i) *p++ = (key[i] == '=' || key[i] == '\n') ? '_' : key[i];
    *p++ = '=';
    for (size_t i = 0; i < vlen; ++i) *p++ = (value[i] == '\n' || value[i] == '\r') ? ' ' : value[i];
    *p++ = '\n';
    *p = '\0';
    ossa_free(&out->allocator, out->metadata);
    out->metadata = text;
    return OSSA_OK;
}

bool ossa_import_output_metadata(const ossa_import_output *out, const char *key, char *buffer, size_t size)
{
    if (!out || !key || !out->metadata) return false;
    size_t klen = strlen(key);
    for (const char *line = out->metadata; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        if ((size_t)(end - line) > klen && strncmp(line, key, klen) == 0 && line[klen] == '=') {
            if (buffer && size) {
                size_t n = (size_t)(end - line) - klen - 1;
                if (n >= size) n = size - 1;
                memcpy(buffer, line + klen + 1, n);
                buffer[n] = '\0';
            }
            return true;
        }
        line = *end ? end + 1 : end;
    }
    return false;
}

ossa_result ossa_import_output_sort_depth_first(ossa_import_output *out, ossa_diag *diag)
{
    if (!out) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no import output");
    size_t n = out->skeleton.joint_count;
    if (n == 0) return OSSA_OK; /* an animation without a skeleton: nothing to order */
    for (size_t a = 0; a < out->animation_count; ++a)
        if (out->animations[a].track_count != n)
            return ossa_diag_set(diag, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX, 0, 0,
                                 "animation %zu has %zu tracks but the skeleton has %zu joints", a,
                                 out->animations[a].track_count, n);
    if (n == 0 || ossa_raw_skeleton_is_depth_first(&out->skeleton)) return OSSA_OK;
    size_t *mapping = ossa__calloc(&out->allocator, n, sizeof *mapping);
    if (!mapping) return ossa_diag_set(diag, OSSA_ERROR_OUT_OF_MEMORY, SIZE_MAX, 0, 0, "out of memory");
    ossa_result r = ossa_raw_skeleton_sort_depth_first(&out->skeleton, mapping, diag);
    for (size_t a = 0; r == OSSA_OK && a < out->animation_count; ++a) {
        r = ossa_raw_animation_permute_tracks(&out->animations[a], mapping);
        if (r != OSSA_OK) ossa_diag_set(diag, r, SIZE_MAX, 0, 0, "could not reorder animation %zu", a);
    }
    ossa_free(&out->allocator, mapping);
    return r;
}

void ossa_import_output_destroy(ossa_import_output *out)
{
    if (!out) return;
    ossa_allocator a = out->allocator;
    ossa_raw_skeleton_destroy(&out->skeleton);
    for (size_t i = 0; i < out->animation_count; ++i) ossa_raw_animation_destroy(&out->animations[i]);
    for (size_t i = 0; i < out->track_count; ++i) ossa_raw_track_destroy(&out->tracks[i]);
    for (size_t i = 0; i < out->event_count; ++i) ossa_free(&a, out->events[i].name);
    ossa_free(&a, out->animations);
    ossa_free(&a, out->tracks);
    ossa_free(&a, out->events);
    ossa_free(&a, out->metadata);
    memset(out, 0, sizeof *out);
    out->allocator = a;
}

const char *ossa_import_format_name(ossa_import_format format)
{
    switch (format) {
    case OSSA_FORMAT_ASSIMP:
        return "assimp";
    case OSSA_FORMAT_OSSA:
        return "ossa";
    case OSSA_FORMAT_OZZ:
        return "ozz";
    case OSSA_FORMAT_MAYA_ANIM:
        return "maya-anim";
    case OSSA_FORMAT_MRTK:
        return "mrtk";
    case OSSA_FORMAT_ANIMJ:
        return "animj";
    case OSSA_FORMAT_ANIMX:
        return "animx";
    case OSSA_FORMAT_METROID_ANIM:
        return "metroid-anim";
    case OSSA_FORMAT_METROID_CINF:
        return "metroid-cinf";
    case OSSA_FORMAT_GLTF:
        return "gltf";
    case OSSA_FORMAT_UNKNOWN:
        break;
    }
    return "unknown";
}

static const char *extension_of(const char *name)
{
    if (!name) return "";
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash : name, '.');
    return dot ? dot + 1 : "";
}

static bool starts_with(const void *data, size_t size, const char *magic)
{
    size_t n = strlen(magic);
    return size >= n && memcmp(data, magic, n) == 0;
}

ossa_import_format ossa_import_detect(const void *data, size_t size, const char *name)
{
    const char *ext = extension_of(name);
    if (!data) size = 0;
    /* Content first: magic numbers that cannot be mistaken. */
    if (starts_with(data, size, "OSSA")) return OSSA_FORMAT_OSSA;
    /* -- content detection added by later work goes below this line -- */
    if (ossa_maya_anim_detect(data, size)) return OSSA_FORMAT_MAYA_ANIM;
    if (starts_with(data, size, "glTF")) return OSSA_FORMAT_GLTF; /* GLB header, glTF 2.0 spec section 4 */
    if (size >= 6 && !memcmp(data,
                             "\x05"
                             "AnimX",
                             6))
        return OSSA_FORMAT_ANIMX;
    if (ossa__animj_sniff(data, size)) return OSSA_FORMAT_ANIMJ;
    if (size >= 8 && !memcmp(data, "\xc6\x42\x9e\x0f\x6e\xaf\x8f\x6a", 8)) return OSSA_FORMAT_MRTK;
    /* ozz-animation: endianness byte 0 or 1, then the first object tag "ozz-..." */
    if (size >= 5 && ((const uint8_t *)data)[0] <= 1 && memcmp((const uint8_t *)data + 1, "ozz-", 4) == 0)
        return OSSA_FORMAT_OZZ;

    /* Then extensions. */
    if (!strcasecmp(ext, "ossa")) return OSSA_FORMAT_OSSA;
    /* -- extension detection added by later work goes below this line -- */
    /* Metroid ANIM has no magic: a big-endian version word 0 or 2 (Maya's .anim is text). */
    if (!strcasecmp(ext, "anim") && size >= 4 && !memcmp(data, "\0\0\0", 3) &&
        (((const uint8_t *)data)[3] == 0 || ((const uint8_t *)data)[3] == 2))
        return OSSA_FORMAT_METROID_ANIM;
    if (!strcasecmp(ext, "cinf")) return OSSA_FORMAT_METROID_CINF;
    if (!strcasecmp(ext, "animj")) return OSSA_FORMAT_ANIMJ;
    if (!strcasecmp(ext, "animx")) return OSSA_FORMAT_ANIMX;
    if (!strcasecmp(ext, "ozz")) return OSSA_FORMAT_OZZ;
    if (!strcasecmp(ext, "gltf") || !strcasecmp(ext, "glb")) return OSSA_FORMAT_GLTF;

    static const char *const assimp_extensions[] = {"bvh",   "fbx",  "dae", "zae", "x",    "md5anim", "md5mesh",
                                                    "smd",   "ms3d", "b3d", "3ds", "ogex", "irr",     "xml",
                                                    "blend", "iqm",  "m3d", "obj", "ply",  "stl"};
    for (size_t i = 0; i < sizeof assimp_extensions / sizeof *assimp_extensions; ++i)
        if (!strcasecmp(ext, assimp_extensions[i])) return OSSA_FORMAT_ASSIMP;
    /* Every other extension the linked assimp reads (LightWave scenes, MD2, ...). */
    if (ossa_assimp_reads_extension(ext)) return OSSA_FORMAT_ASSIMP;
    /* Text that looks like BVH without an extension. */
    if (starts_with(data, size, "HIERARCHY")) return OSSA_FORMAT_ASSIMP;
    return OSSA_FORMAT_UNKNOWN;
}

ossa_result ossa_import_any(const void *data, size_t size, const char *name, ossa_import_output *out, ossa_diag *diag)
{
    if (!out) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no output");
    const ossa_import_format format = ossa_import_detect(data, size, name);
    switch (format) {
    case OSSA_FORMAT_ASSIMP: {
        const char *ext = extension_of(name);
        ossa_assimp_desc desc = {.format_hint = *ext ? ext : NULL};
        return ossa_import_assimp(data, size, &desc, out, diag);
    }
    /* -- dispatch added by later work goes below this line -- */
    case OSSA_FORMAT_MAYA_ANIM:
        return ossa_import_maya_anim(data, size, NULL, out, diag);
    case OSSA_FORMAT_METROID_ANIM:
        return ossa_import_metroid_anim(data, size, NULL, out, diag);
    case OSSA_FORMAT_METROID_CINF:
        return ossa_import_metroid_cinf(data, size, NULL, out, diag);
    case OSSA_FORMAT_ANIMJ:
        return ossa_import_animj(data, size, NULL, out, diag);
    case OSSA_FORMAT_ANIMX:
        return ossa_import_animx(data, size, NULL, out, diag);
    case OSSA_FORMAT_MRTK:
        return ossa_import_mrtk(data, size, NULL, out, diag);
    case OSSA_FORMAT_OZZ:
        return ossa_import_ozz(data, size, NULL, out, diag);
    case OSSA_FORMAT_GLTF:
        return ossa_import_gltf(data, size, NULL, out, diag);
    default:
        break;
    }
    return ossa_diag_set(diag, OSSA_ERROR_UNSUPPORTED_FORMAT, 0, 0, 0, "not a format ossa can import (%s)",
                         format == OSSA_FORMAT_UNKNOWN ? "unrecognised content and extension"
                                                       : ossa_import_format_name(format));
}
