/* ozz-animation archives: RawSkeleton v1, runtime Skeleton v2 and RawAnimation v3, either
 * endianness. The layout is summarised in ossa/offline/import_ozz.h. */
#include "import_internal.h"
#include "ossa/offline/import_ozz.h"

#include <stdio.h>
#include <string.h>

#include "import/byte_reader.h"
#include "internal.h"

/* The longest tag accepted; ozz's own tags are below 24 characters. */
#define MAX_TAG 63
/* Fewest bytes one element of each array can take, to reject counts beyond the data before
 * allocating: a raw joint is a name length, a 10-float transform and a children count; a
 * track three key counts; keys a time and 3 or 4 floats. */
#define RAW_JOINT_MIN_BYTES 48u
#define TRACK_MIN_BYTES     12u
#define SOA_TRANSFORM_BYTES 160u

/* Checks that `count` elements of at least `item` bytes can follow; `at` is the offset of the
 * field that declared the count, where the error is reported. */
static ossa_result need(ossa__byte_reader *r, uint64_t count, size_t item, size_t at, const char *what)
{
    char counted[96];
    snprintf(counted, sizeof counted, "%llu %s", (unsigned long long)count, what);
    return ossa__br_need_at(r, count, item, at, counted);
}

/* `n` floats as one block: a cut block is reported at its first byte. */
static ossa_result read_floats(ossa__byte_reader *r, size_t n, const char *what, float *out)
{
    const uint8_t *p = NULL;
    ossa_result res = ossa__br_bytes(r, n * 4, what, &p);
    for (size_t i = 0; res == OSSA_OK && i < n; ++i) out[i] = ossa__br_load_f32(p + 4 * i, r->big_endian);
    return res;
}

/* A std::vector of a versioned type: a count and, when not 0, the element version (1 for
 * every element type read here). Also checks that `count` elements of `min_bytes` fit. */
static ossa_result read_array(ossa__byte_reader *r, const char *what, size_t min_bytes, uint32_t *count)
{
    const size_t at = r->pos;
    ossa_result res = ossa__br_u32(r, what, count);
    if (res != OSSA_OK || *count == 0) return res;
    const size_t version_at = r->pos;
    uint32_t version;
    res = ossa__br_u32(r, "element version", &version);
    if (res != OSSA_OK) return res;
    if (version != 1)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_VERSION, version_at,
                             "%s array element version %u at byte %zu is not supported (expected 1)", what,
                             (unsigned)version, version_at);
    return need(r, *count, min_bytes, at, what);
}

/* A std::string (byte length, bytes) copied NUL-terminated with `allocator` into *out. */
static ossa_result read_string(ossa__byte_reader *r, const char *what, const ossa_allocator *allocator, char **out)
{
    const size_t at = r->pos;
    uint32_t length;
    const uint8_t *bytes = NULL;
    ossa_result res = ossa__br_u32(r, what, &length);
    if (res == OSSA_OK) res = ossa__br_need_at(r, length, 1, at, what);
    if (res == OSSA_OK) res = ossa__br_bytes(r, length, what, &bytes);
    if (res != OSSA_OK) return res;
    if (memchr(bytes, 0, length))
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at + 4, "%s at byte %zu contains a NUL byte", what, at + 4);
    if (!allocator) return OSSA_OK; /* counting pass */
    char *copy = ossa_alloc(allocator, (size_t)length + 1);
    if (!copy)
        return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, at, "out of memory copying a %u-byte %s", (unsigned)length,
                             what);
    if (length) memcpy(copy, bytes, length);
    copy[length] = '\0';
    *out = copy;
    return OSSA_OK;
}

/* ---------------------------------------------------------------- RawSkeleton v1 */

typedef struct frame {
    uint32_t left; /* children of `parent` still to read */
    int32_t parent;
} frame;

/* Walks the joint tree without recursion (the depth comes from the data). With `fill` NULL
 * it only checks the layout and counts joints; with `fill` sized by that count it stores
 * them in the file's depth-first pre-order. */
static ossa_result walk_raw_skeleton(ossa__byte_reader *r, ossa_raw_skeleton *fill, size_t *joint_count)
{
    frame stack[OSSA_MAX_JOINTS + 1]; /* one frame per joint with children, plus the roots */
    size_t depth = 0, n = 0;
    uint32_t count;
    ossa_result res = read_array(r, "root joints", RAW_JOINT_MIN_BYTES, &count);
    if (res != OSSA_OK) return res;
    if (count) stack[depth++] = (frame){count, -1};
    while (depth) {
        frame *top = &stack[depth - 1];
        if (top->left == 0) {
            --depth;
            continue;
        }
        --top->left;
        const int32_t parent = top->parent;
        if (n == OSSA_MAX_JOINTS)
            return ossa__br_fail(r, OSSA_ERROR_TOO_MANY_JOINTS, r->pos,
                                 "joint at byte %zu is beyond the %d joints supported", r->pos, OSSA_MAX_JOINTS);
        char *name = NULL;
        float v[10];
        res = read_string(r, "joint name", fill ? &fill->allocator : NULL, &name);
        if (res == OSSA_OK) res = read_floats(r, 10, "joint transform", v);
        if (res != OSSA_OK) {
            if (fill) ossa_free(&fill->allocator, name);
            return res;
        }
        if (fill) {
            ossa_raw_joint *j = &fill->joints[n];
            ossa_free(&fill->allocator, j->name);
            j->name = name;
            j->parent = parent;
            j->rest.translation = (ossa_float3){v[0], v[1], v[2]};
            j->rest.rotation = (ossa_quat){v[3], v[4], v[5], v[6]};
            j->rest.scale = (ossa_float3){v[7], v[8], v[9]};
        }
        const int32_t self = (int32_t)n++;
        res = read_array(r, "child joints", RAW_JOINT_MIN_BYTES, &count);
        if (res != OSSA_OK) return res;
        if (count) stack[depth++] = (frame){count, self};
    }
    *joint_count = n;
    return OSSA_OK;
}

static ossa_result read_raw_skeleton(ossa__byte_reader *r, ossa_raw_skeleton *skeleton, const ossa_allocator *allocator)
{
    const size_t start = r->pos;
    size_t n = 0;
    ossa_result res = walk_raw_skeleton(r, NULL, &n);
    if (res != OSSA_OK) return res;
    const size_t end = r->pos;
    res = ossa_raw_skeleton_create(skeleton, n, allocator);
    if (res != OSSA_OK) return ossa__br_fail(r, res, start, "could not allocate %zu joints", n);
    r->pos = start;
    res = walk_raw_skeleton(r, skeleton, &n);
    if (res == OSSA_OK && r->pos != end) /* cannot happen: both passes read the same bytes */
        res = ossa__br_fail(r, OSSA_ERROR_CORRUPT, start, "joint tree read twice gave different sizes");
    return res;
}

/* ---------------------------------------------------------------- Skeleton v2 */

static ossa_result read_skeleton(ossa__byte_reader *r, ossa_raw_skeleton *skeleton, const ossa_allocator *allocator)
{
    const size_t count_at = r->pos;
    uint32_t raw_count, chars;
    ossa_result res = ossa__br_u32(r, "joint count", &raw_count);
    if (res != OSSA_OK) return res;
    if (raw_count > INT32_MAX)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, count_at, "joint count at byte %zu is negative (%d)", count_at,
                             (int)(int32_t)raw_count);
    if (raw_count == 0) return ossa_raw_skeleton_create(skeleton, 0, allocator);
    const size_t n = raw_count;
    const size_t soa = (n + 3) / 4;
    res = ossa__br_u32(r, "joint name byte count", &chars);
    if (res != OSSA_OK) return res;
    /* names, int16 parents and SoA rest poses must all fit before anything is allocated */
    const uint64_t total = (uint64_t)chars + 2u * (uint64_t)n + (uint64_t)SOA_TRANSFORM_BYTES * soa;
    res = ossa__br_need_at(r, total, 1, count_at, "joint names, parents and rest poses");
    if (res != OSSA_OK) return res;
    if (n > OSSA_MAX_JOINTS)
        return ossa__br_fail(r, OSSA_ERROR_TOO_MANY_JOINTS, count_at, "%zu joints, at most %d are supported", n,
                             OSSA_MAX_JOINTS);
    const size_t names_at = r->pos;
    const uint8_t *names = NULL, *parents = NULL, *poses = NULL;
    (void)ossa__br_bytes(r, chars, "joint names", &names);
    (void)ossa__br_bytes(r, 2 * n, "joint parents", &parents);
    (void)ossa__br_bytes(r, SOA_TRANSFORM_BYTES * soa, "rest poses", &poses);
    size_t terminators = 0;
    for (size_t i = 0; i < chars; ++i) terminators += names[i] == 0;
    if (terminators != n || names[chars - 1] != 0)
        return ossa__br_fail(
            r, OSSA_ERROR_CORRUPT, names_at,
            "the %u name bytes at byte %zu hold %zu NUL-terminated names, expected one per joint (%zu)",
            (unsigned)chars, names_at, terminators, n);
    const size_t parents_at = names_at + chars;
    for (size_t i = 0; i < n; ++i) {
        const int parent = ossa__br_load_i16(parents + 2 * i, r->big_endian);
        if (parent < -1 || parent >= (int)i)
            return ossa__br_fail(r, OSSA_ERROR_CORRUPT, parents_at + 2 * i,
                                 "joint %zu's parent %d at byte %zu is not -1 or a joint index below %zu", i, parent,
                                 parents_at + 2 * i, i);
    }
    res = ossa_raw_skeleton_create(skeleton, n, allocator);
    if (res != OSSA_OK) return ossa__br_fail(r, res, count_at, "could not allocate %zu joints", n);
    const char *name = (const char *)names;
    for (size_t i = 0; i < n; ++i) {
        ossa_raw_joint *j = &skeleton->joints[i];
        res = ossa_raw_skeleton_set_name(skeleton, i, name);
        if (res != OSSA_OK) return ossa__br_fail(r, res, names_at, "out of memory copying joint names");
        name += strlen(name) + 1;
        j->parent = ossa__br_load_i16(parents + 2 * i, r->big_endian);
        /* group i / 4 holds 10 components, each as 4 lanes */
        const uint8_t *group = poses + SOA_TRANSFORM_BYTES * (i / 4) + 4 * (i % 4);
        float v[10];
        for (size_t c = 0; c < 10; ++c) v[c] = ossa__br_load_f32(group + 16 * c, r->big_endian);
        j->rest.translation = (ossa_float3){v[0], v[1], v[2]};
        j->rest.rotation = (ossa_quat){v[3], v[4], v[5], v[6]};
        j->rest.scale = (ossa_float3){v[7], v[8], v[9]};
    }
    return OSSA_OK;
}

/* ---------------------------------------------------------------- RawAnimation v3 */

static ossa_result read_keys(ossa__byte_reader *r, const ossa_allocator *allocator, size_t track, int channel,
                             ossa_raw_joint_track *out)
{
    static const char *const names[3] = {"translation keys", "rotation keys", "scale keys"};
    const size_t width = channel == 1 ? 4 : 3; /* value floats after the time */
    uint32_t count;
    ossa_result res = read_array(r, names[channel], 4 * (1 + width), &count);
    if (res != OSSA_OK || count == 0) return res;
    const size_t elem = channel == 1 ? sizeof(ossa_raw_quat_key) : sizeof(ossa_raw_float3_key);
    void *keys = ossa__calloc(allocator, count, elem);
    if (!keys)
        return ossa__br_fail(r, OSSA_ERROR_OUT_OF_MEMORY, r->pos, "out of memory for %u %s of track %zu",
                             (unsigned)count, names[channel], track);
    const uint8_t *p = NULL;
    (void)ossa__br_bytes(r, (size_t)count * 4 * (1 + width), names[channel], &p); /* size checked by read_array */
    for (size_t k = 0; k < count; ++k, p += 4 * (1 + width)) {
        float v[5];
        for (size_t c = 0; c <= width; ++c) v[c] = ossa__br_load_f32(p + 4 * c, r->big_endian);
        if (channel == 1) {
            ((ossa_raw_quat_key *)keys)[k] = (ossa_raw_quat_key){v[0], {v[1], v[2], v[3], v[4]}};
        } else {
            ((ossa_raw_float3_key *)keys)[k] = (ossa_raw_float3_key){v[0], {v[1], v[2], v[3]}};
        }
    }
    if (channel == 0) out->translations = keys, out->translation_count = count;
    if (channel == 1) out->rotations = keys, out->rotation_count = count;
    if (channel == 2) out->scales = keys, out->scale_count = count;
    return OSSA_OK;
}

static ossa_result read_raw_animation(ossa__byte_reader *r, ossa_import_output *out)
{
    float duration;
    uint32_t track_count;
    ossa_result res = read_floats(r, 1, "duration", &duration);
    const size_t tracks_at = r->pos;
    if (res == OSSA_OK) res = read_array(r, "tracks", TRACK_MIN_BYTES, &track_count);
    if (res != OSSA_OK) return res;
    if (track_count > OSSA_MAX_JOINTS)
        return ossa__br_fail(r, OSSA_ERROR_TOO_MANY_JOINTS, tracks_at,
                             "%u tracks at byte %zu, at most %d are supported", (unsigned)track_count, tracks_at,
                             OSSA_MAX_JOINTS);
    ossa_raw_animation *animation;
    res = ossa_import_output_add_animation(out, track_count, &animation);
    if (res != OSSA_OK) return ossa__br_fail(r, res, tracks_at, "could not allocate %u tracks", (unsigned)track_count);
    animation->duration = duration;
    for (size_t t = 0; t < track_count; ++t)
        for (int c = 0; c < 3; ++c) {
            res = read_keys(r, &animation->allocator, t, c, &animation->tracks[t]);
            if (res != OSSA_OK) return res;
        }
    char *name = NULL;
    res = read_string(r, "animation name", &animation->allocator, &name);
    if (res != OSSA_OK) return res;
    ossa_free(&animation->allocator, animation->name);
    animation->name = name;
    return OSSA_OK;
}

/* ---------------------------------------------------------------- archive */

typedef enum kind { KIND_RAW_SKELETON, KIND_SKELETON, KIND_RAW_ANIMATION } kind;

static const struct {
    const char *tag;
    uint32_t version;
    const char *format;
} kinds[3] = {
    {OSSA_OZZ_TAG_RAW_SKELETON, OSSA_OZZ_VERSION_RAW_SKELETON, "ozz-raw-skeleton"},
    {OSSA_OZZ_TAG_SKELETON, OSSA_OZZ_VERSION_SKELETON, "ozz-skeleton"},
    {OSSA_OZZ_TAG_RAW_ANIMATION, OSSA_OZZ_VERSION_RAW_ANIMATION, "ozz-raw-animation"},
};

/* Reads a tag at r->pos into `tag` (printable, MAX_TAG + 1 bytes). */
static ossa_result read_tag(ossa__byte_reader *r, bool first, char *tag)
{
    const size_t at = r->pos;
    const size_t window = ossa__br_remaining(r) < MAX_TAG + 1 ? ossa__br_remaining(r) : MAX_TAG + 1;
    const uint8_t *nul = memchr(r->data + at, 0, window);
    const bool ozz = ossa__br_remaining(r) >= 4 && memcmp(r->data + at, "ozz-", 4) == 0;
    if (!ozz && (ossa__br_remaining(r) >= 4 || memcmp(r->data + at, "ozz-", ossa__br_remaining(r)) != 0)) {
        if (first)
            return ossa__br_fail(r, OSSA_ERROR_BAD_MAGIC, at, "expected an ozz object tag (\"ozz-...\") at byte %zu",
                                 at);
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at,
                             "expected another ozz object tag (\"ozz-...\") or the end of the data at byte %zu", at);
    }
    if (!nul && window <= MAX_TAG)
        return ossa__br_fail(r, OSSA_ERROR_TRUNCATED, at,
                             "the object tag at byte %zu is not NUL-terminated before the end", at);
    if (!nul)
        return ossa__br_fail(r, OSSA_ERROR_CORRUPT, at, "the object tag at byte %zu is longer than %d bytes", at,
                             MAX_TAG);
    const size_t length = (size_t)(nul - (r->data + at));
    for (size_t i = 0; i < length; ++i) {
        const uint8_t c = r->data[at + i];
        tag[i] = (c >= 0x20 && c < 0x7f && c != '"') ? (char)c : '?';
    }
    tag[length] = '\0';
    r->pos = at + length + 1;
    return OSSA_OK;
}

/* Messages about the object's content start with its tag, kept in `prefix`. */
static ossa_result read_object_in(ossa__byte_reader *r, bool first, bool *has_skeleton, kind *found,
                                  ossa_import_output *out, char prefix[MAX_TAG + 3])
{
    char tag[MAX_TAG + 1];
    const size_t object_start = r->pos;
    ossa_result res = read_tag(r, first, tag);
    if (res != OSSA_OK) return res;
    snprintf(prefix, MAX_TAG + 3, "%s: ", tag);
    r->prefix = prefix;
    int k = -1;
    for (int i = 0; i < 3; ++i)
        if (strcmp(tag, kinds[i].tag) == 0) k = i;
    const size_t version_at = r->pos;
    uint32_t version = 0;
    if (k < 0) {
        const bool known = ossa__br_remaining(r) >= 4;
        if (known) version = ossa__br_load_u32(r->data + r->pos, r->big_endian);
        char seen[32] = " (no version)";
        if (known) snprintf(seen, sizeof seen, " version %u", (unsigned)version);
        r->prefix = NULL;
        if (strcmp(tag, OSSA_OZZ_TAG_ANIMATION) == 0)
            return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, object_start,
                                 "\"%s\"%s at byte %zu: runtime animations are not supported, import the raw animation "
                                 "(\"%s\") it was built from",
                                 tag, seen, object_start, OSSA_OZZ_TAG_RAW_ANIMATION);
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, object_start,
                             "ozz object \"%s\"%s at byte %zu is not supported (ossa reads \"%s\", \"%s\" and \"%s\")",
                             tag, seen, object_start, OSSA_OZZ_TAG_RAW_SKELETON, OSSA_OZZ_TAG_SKELETON,
                             OSSA_OZZ_TAG_RAW_ANIMATION);
    }
    res = ossa__br_u32(r, "object version", &version);
    if (res != OSSA_OK) return res;
    if (version != kinds[k].version)
        return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_VERSION, version_at,
                             "version %u at byte %zu is not supported (expected %u)", (unsigned)version, version_at,
                             (unsigned)kinds[k].version);
    ossa_diag local;
    ossa_diag_clear(&local);
    *found = (kind)k;
    if (k == KIND_RAW_ANIMATION) {
        res = read_raw_animation(r, out);
        if (res == OSSA_OK) res = ossa_raw_animation_validate(&out->animations[out->animation_count - 1], &local);
    } else {
        if (*has_skeleton)
            return ossa__br_fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, object_start,
                                 "a second skeleton at byte %zu: an archive may hold one skeleton", object_start);
        *has_skeleton = true;
        res = k == KIND_SKELETON ? read_skeleton(r, &out->skeleton, &out->allocator)
                                 : read_raw_skeleton(r, &out->skeleton, &out->allocator);
        if (res == OSSA_OK) res = ossa_raw_skeleton_validate(&out->skeleton, &local);
    }
    if (res != OSSA_OK && local.code != OSSA_OK)
        return ossa__br_fail(r, res, object_start, "the object at byte %zu is not valid: %s", object_start,
                             local.message);
    return res;
}

static ossa_result read_object(ossa__byte_reader *r, bool first, bool *has_skeleton, kind *found,
                               ossa_import_output *out)
{
    char prefix[MAX_TAG + 3];
    const ossa_result res = read_object_in(r, first, has_skeleton, found, out, prefix);
    r->prefix = NULL; /* the buffer ends here */
    return res;
}

static ossa_result read_archive(ossa__byte_reader *r, ossa_import_output *out)
{
    uint8_t endianness;
    if (ossa__br_u8(r, "the endianness byte", &endianness) != OSSA_OK) return r->code;
    if (endianness > 1)
        return ossa__br_fail(r, OSSA_ERROR_BAD_MAGIC, 0,
                             "expected the endianness byte (0 big, 1 little) at byte 0, found %u",
                             (unsigned)endianness);
    r->big_endian = endianness == 0;
    char objects[160] = "";
    bool has_skeleton = false, elided = false;
    int format = -1;
    ossa_result res = OSSA_OK;
    for (bool first = true; res == OSSA_OK && (first || r->pos < r->size); first = false) {
        kind k = KIND_RAW_ANIMATION;
        res = read_object(r, first, &has_skeleton, &k, out);
        if (res != OSSA_OK) break;
        if (format < 0 || k != KIND_RAW_ANIMATION) format = (int)k;
        /* the list stops with ",..." when a long archive would not fit */
        const size_t used = strlen(objects);
        if (!elided && used + strlen(kinds[k].tag) + 6 < sizeof objects) {
            snprintf(objects + used, sizeof objects - used, "%s%s", used ? "," : "", kinds[k].tag);
        } else if (!elided) {
            snprintf(objects + used, sizeof objects - used, ",...");
            elided = true;
        }
    }
    if (res != OSSA_OK) return res;
    for (size_t a = 0; has_skeleton && a < out->animation_count; ++a)
        if (out->animations[a].track_count != out->skeleton.joint_count)
            return ossa__br_fail(r, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX,
                                 "raw animation %zu has %zu tracks but the archive's skeleton has %zu joints", a,
                                 out->animations[a].track_count, out->skeleton.joint_count);
    res = ossa_import_output_add_metadata(out, "format", kinds[format].format);
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "objects", objects);
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "endianness", r->big_endian ? "big" : "little");
    /* An archive stores no unit. ozz's converters write metres, but a pipeline that skips
     * their conversion keeps its tool's centimetres or millimetres: the unit is left to the
     * rest pose, rounded to the nearest of those three. */
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "source_units", "unknown");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "unit_scale", "1");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "unit_candidates", "1 0.01 0.001");
    if (res != OSSA_OK) return ossa__br_fail(r, res, SIZE_MAX, "out of memory writing the metadata");
    return OSSA_OK;
}

ossa_result ossa_import_ozz(const void *data, size_t size, const ossa_ozz_desc *desc, ossa_import_output *out,
                            ossa_diag *diag)
{
    ossa_result res = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "ozz", diag);
    if (res != OSSA_OK) return res;
    ossa__byte_reader r;
    ossa__br_init(&r, data, size, OSSA__BR_LITTLE, diag, NULL);
    res = read_archive(&r, out);
    return ossa__import_end(out, res, diag);
}
