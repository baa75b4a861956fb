/* ozz-animation archives: RawSkeleton v1, runtime Skeleton v2 and RawAnimation v3, either
 * endianness. The layout is summarised in ossa/offline/import_ozz.h. */
#include "ossa/offline/import_ozz.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The longest tag accepted; ozz's own tags are below 24 characters. */
#define MAX_TAG 63
/* Fewest bytes one element of each array can take, to reject counts beyond the data before
 * allocating: a raw joint is a name length, a 10-float transform and a children count; a
 * track three key counts; keys a time and 3 or 4 floats. */
#define RAW_JOINT_MIN_BYTES 48u
#define TRACK_MIN_BYTES     12u
#define SOA_TRANSFORM_BYTES 160u

typedef struct reader {
    const uint8_t *data;
    size_t size;
    size_t pos;
    bool big;            /* archive written on a big-endian machine */
    const char *tag;     /* object being read, prefixes messages */
    size_t object_start; /* byte offset of the object's tag */
    ossa_diag *diag;
} reader;

static ossa_result fail(const reader *r, ossa_result code, size_t offset, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static ossa_result fail(const reader *r, ossa_result code, size_t offset, const char *fmt, ...)
{
    char text[sizeof(((ossa_diag *)0)->message)];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (r->tag) return ossa_diag_set(r->diag, code, offset, 0, 0, "%s: %s", r->tag, text);
    return ossa_diag_set(r->diag, code, offset, 0, 0, "%s", text);
}

static size_t remaining(const reader *r) { return r->size - r->pos; }

/* Checks that `count` elements of at least `item` bytes can follow; `at` is the offset of the
 * field that declared the count. */
static ossa_result need(const reader *r, uint64_t count, size_t item, size_t at, const char *what)
{
    const size_t left = remaining(r);
    if (item == 0 || count <= left / item) return OSSA_OK;
    return fail(r, OSSA_ERROR_TRUNCATED, at, "%llu %s declared at byte %zu need at least %llu bytes, only %zu remain",
                (unsigned long long)count, what, at, (unsigned long long)count * item, left);
}

static ossa_result read_bytes(reader *r, size_t n, const char *what, const uint8_t **out)
{
    if (remaining(r) < n)
        return fail(r, OSSA_ERROR_TRUNCATED, r->pos, "expected %zu bytes (%s) at byte %zu, found %zu", n, what, r->pos,
                    remaining(r));
    *out = r->data + r->pos;
    r->pos += n;
    return OSSA_OK;
}

static uint32_t load_u32(const reader *r, const uint8_t *p)
{
    if (r->big) return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

static int16_t load_i16(const reader *r, const uint8_t *p)
{
    const uint16_t u = r->big ? (uint16_t)(p[0] << 8 | p[1]) : (uint16_t)(p[1] << 8 | p[0]);
    return (int16_t)(u > 0x7fffu ? (int32_t)u - 0x10000 : (int32_t)u);
}

static float load_f32(const reader *r, const uint8_t *p)
{
    const uint32_t u = load_u32(r, p);
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

static ossa_result read_u32(reader *r, const char *what, uint32_t *v)
{
    const uint8_t *p = NULL;
    ossa_result res = read_bytes(r, 4, what, &p);
    if (res == OSSA_OK) *v = load_u32(r, p);
    return res;
}

static ossa_result read_floats(reader *r, size_t n, const char *what, float *out)
{
    const uint8_t *p = NULL;
    ossa_result res = read_bytes(r, n * 4, what, &p);
    for (size_t i = 0; res == OSSA_OK && i < n; ++i) out[i] = load_f32(r, p + 4 * i);
    return res;
}

/* A std::vector of a versioned type: a count and, when not 0, the element version (1 for
 * every element type read here). Also checks that `count` elements of `min_bytes` fit. */
static ossa_result read_array(reader *r, const char *what, size_t min_bytes, uint32_t *count)
{
    const size_t at = r->pos;
    ossa_result res = read_u32(r, what, count);
    if (res != OSSA_OK || *count == 0) return res;
    const size_t version_at = r->pos;
    uint32_t version;
    res = read_u32(r, "element version", &version);
    if (res != OSSA_OK) return res;
    if (version != 1)
        return fail(r, OSSA_ERROR_UNSUPPORTED_VERSION, version_at,
                    "%s array element version %u at byte %zu is not supported (expected 1)", what, (unsigned)version,
                    version_at);
    return need(r, *count, min_bytes, at, what);
}

/* A std::string (byte length, bytes) copied NUL-terminated with `allocator` into *out. */
static ossa_result read_string(reader *r, const char *what, const ossa_allocator *allocator, char **out)
{
    const size_t at = r->pos;
    uint32_t length;
    const uint8_t *bytes = NULL;
    ossa_result res = read_u32(r, what, &length);
    if (res == OSSA_OK) res = need(r, length, 1, at, what);
    if (res == OSSA_OK) res = read_bytes(r, length, what, &bytes);
    if (res != OSSA_OK) return res;
    if (memchr(bytes, 0, length))
        return fail(r, OSSA_ERROR_CORRUPT, at + 4, "%s at byte %zu contains a NUL byte", what, at + 4);
    if (!allocator) return OSSA_OK; /* counting pass */
    char *copy = ossa_alloc(allocator, (size_t)length + 1);
    if (!copy)
        return fail(r, OSSA_ERROR_OUT_OF_MEMORY, at, "out of memory copying a %u-byte %s", (unsigned)length, what);
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
static ossa_result walk_raw_skeleton(reader *r, ossa_raw_skeleton *fill, size_t *joint_count)
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
            return fail(r, OSSA_ERROR_TOO_MANY_JOINTS, r->pos, "joint at byte %zu is beyond the %d joints supported",
                        r->pos, OSSA_MAX_JOINTS);
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

static ossa_result read_raw_skeleton(reader *r, ossa_raw_skeleton *skeleton, const ossa_allocator *allocator)
{
    const size_t start = r->pos;
    size_t n = 0;
    ossa_result res = walk_raw_skeleton(r, NULL, &n);
    if (res != OSSA_OK) return res;
    const size_t end = r->pos;
    res = ossa_raw_skeleton_create(skeleton, n, allocator);
    if (res != OSSA_OK) return fail(r, res, start, "could not allocate %zu joints", n);
    r->pos = start;
    res = walk_raw_skeleton(r, skeleton, &n);
    if (res == OSSA_OK && r->pos != end) /* cannot happen: both passes read the same bytes */
        res = fail(r, OSSA_ERROR_CORRUPT, start, "joint tree read twice gave different sizes");
    return res;
}

/* ---------------------------------------------------------------- Skeleton v2 */

static ossa_result read_skeleton(reader *r, ossa_raw_skeleton *skeleton, const ossa_allocator *allocator)
{
    const size_t count_at = r->pos;
    uint32_t raw_count, chars;
    ossa_result res = read_u32(r, "joint count", &raw_count);
    if (res != OSSA_OK) return res;
    if (raw_count > INT32_MAX)
        return fail(r, OSSA_ERROR_CORRUPT, count_at, "joint count at byte %zu is negative (%d)", count_at,
                    (int)(int32_t)raw_count);
    if (raw_count == 0) return ossa_raw_skeleton_create(skeleton, 0, allocator);
    const size_t n = raw_count;
    const size_t soa = (n + 3) / 4;
    res = read_u32(r, "joint name byte count", &chars);
    if (res != OSSA_OK) return res;
    /* names, int16 parents and SoA rest poses must all fit before anything is allocated */
    const uint64_t total = (uint64_t)chars + 2u * (uint64_t)n + (uint64_t)SOA_TRANSFORM_BYTES * soa;
    res = need(r, total, 1, count_at, "bytes of names, parents and rest poses");
    if (res != OSSA_OK) return res;
    if (n > OSSA_MAX_JOINTS)
        return fail(r, OSSA_ERROR_TOO_MANY_JOINTS, count_at, "%zu joints, at most %d are supported", n,
                    OSSA_MAX_JOINTS);
    const size_t names_at = r->pos;
    const uint8_t *names = NULL, *parents = NULL, *poses = NULL;
    (void)read_bytes(r, chars, "joint names", &names);
    (void)read_bytes(r, 2 * n, "joint parents", &parents);
    (void)read_bytes(r, SOA_TRANSFORM_BYTES * soa, "rest poses", &poses);
    size_t terminators = 0;
    for (size_t i = 0; i < chars; ++i) terminators += names[i] == 0;
    if (terminators != n || names[chars - 1] != 0)
        return fail(r, OSSA_ERROR_CORRUPT, names_at,
                    "the %u name bytes at byte %zu hold %zu NUL-terminated names, expected one per joint (%zu)",
                    (unsigned)chars, names_at, terminators, n);
    const size_t parents_at = names_at + chars;
    for (size_t i = 0; i < n; ++i) {
        const int parent = load_i16(r, parents + 2 * i);
        if (parent < -1 || parent >= (int)i)
            return fail(r, OSSA_ERROR_CORRUPT, parents_at + 2 * i,
                        "joint %zu's parent %d at byte %zu is not -1 or a joint index below %zu", i, parent,
                        parents_at + 2 * i, i);
    }
    res = ossa_raw_skeleton_create(skeleton, n, allocator);
    if (res != OSSA_OK) return fail(r, res, count_at, "could not allocate %zu joints", n);
    const char *name = (const char *)names;
    for (size_t i = 0; i < n; ++i) {
        ossa_raw_joint *j = &skeleton->joints[i];
        res = ossa_raw_skeleton_set_name(skeleton, i, name);
        if (res != OSSA_OK) return fail(r, res, names_at, "out of memory copying joint names");
        name += strlen(name) + 1;
        j->parent = load_i16(r, parents + 2 * i);
        /* group i / 4 holds 10 components, each as 4 lanes */
        const uint8_t *group = poses + SOA_TRANSFORM_BYTES * (i / 4) + 4 * (i % 4);
        float v[10];
        for (size_t c = 0; c < 10; ++c) v[c] = load_f32(r, group + 16 * c);
        j->rest.translation = (ossa_float3){v[0], v[1], v[2]};
        j->rest.rotation = (ossa_quat){v[3], v[4], v[5], v[6]};
        j->rest.scale = (ossa_float3){v[7], v[8], v[9]};
    }
    return OSSA_OK;
}

/* ---------------------------------------------------------------- RawAnimation v3 */

static ossa_result read_keys(reader *r, const ossa_allocator *allocator, size_t track, int channel,
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
        return fail(r, OSSA_ERROR_OUT_OF_MEMORY, r->pos, "out of memory for %u %s of track %zu", (unsigned)count,
                    names[channel], track);
    const uint8_t *p = NULL;
    (void)read_bytes(r, (size_t)count * 4 * (1 + width), names[channel], &p); /* size checked by read_array */
    for (size_t k = 0; k < count; ++k, p += 4 * (1 + width)) {
        float v[5];
        for (size_t c = 0; c <= width; ++c) v[c] = load_f32(r, p + 4 * c);
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

static ossa_result read_raw_animation(reader *r, ossa_import_output *out)
{
    float duration;
    uint32_t track_count;
    ossa_result res = read_floats(r, 1, "duration", &duration);
    const size_t tracks_at = r->pos;
    if (res == OSSA_OK) res = read_array(r, "tracks", TRACK_MIN_BYTES, &track_count);
    if (res != OSSA_OK) return res;
    if (track_count > OSSA_MAX_JOINTS)
        return fail(r, OSSA_ERROR_TOO_MANY_JOINTS, tracks_at, "%u tracks at byte %zu, at most %d are supported",
                    (unsigned)track_count, tracks_at, OSSA_MAX_JOINTS);
    ossa_raw_animation *animation;
    res = ossa_import_output_add_animation(out, track_count, &animation);
    if (res != OSSA_OK) return fail(r, res, tracks_at, "could not allocate %u tracks", (unsigned)track_count);
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
static ossa_result read_tag(reader *r, bool first, char *tag)
{
    const size_t at = r->pos;
    const size_t window = remaining(r) < MAX_TAG + 1 ? remaining(r) : MAX_TAG + 1;
    const uint8_t *nul = memchr(r->data + at, 0, window);
    const bool ozz = remaining(r) >= 4 && memcmp(r->data + at, "ozz-", 4) == 0;
    if (!ozz && (remaining(r) >= 4 || memcmp(r->data + at, "ozz-", remaining(r)) != 0)) {
        if (first) return fail(r, OSSA_ERROR_BAD_MAGIC, at, "expected an ozz object tag (\"ozz-...\") at byte %zu", at);
        return fail(r, OSSA_ERROR_CORRUPT, at,
                    "expected another ozz object tag (\"ozz-...\") or the end of the data at byte %zu", at);
    }
    if (!nul && window <= MAX_TAG)
        return fail(r, OSSA_ERROR_TRUNCATED, at, "the object tag at byte %zu is not NUL-terminated before the end", at);
    if (!nul) return fail(r, OSSA_ERROR_CORRUPT, at, "the object tag at byte %zu is longer than %d bytes", at, MAX_TAG);
    const size_t length = (size_t)(nul - (r->data + at));
    for (size_t i = 0; i < length; ++i) {
        const uint8_t c = r->data[at + i];
        tag[i] = (c >= 0x20 && c < 0x7f && c != '"') ? (char)c : '?';
    }
    tag[length] = '\0';
    r->pos = at + length + 1;
    return OSSA_OK;
}

static ossa_result read_object(reader *r, bool first, bool *has_skeleton, kind *found, ossa_import_output *out)
{
    char tag[MAX_TAG + 1];
    r->object_start = r->pos;
    r->tag = NULL;
    ossa_result res = read_tag(r, first, tag);
    if (res != OSSA_OK) return res;
    r->tag = tag;
    int k = -1;
    for (int i = 0; i < 3; ++i)
        if (strcmp(tag, kinds[i].tag) == 0) k = i;
    const size_t version_at = r->pos;
    uint32_t version = 0;
    if (k < 0) {
        const bool known = remaining(r) >= 4;
        if (known) version = load_u32(r, r->data + r->pos);
        char seen[32] = " (no version)";
        if (known) snprintf(seen, sizeof seen, " version %u", (unsigned)version);
        r->tag = NULL;
        if (strcmp(tag, OSSA_OZZ_TAG_ANIMATION) == 0)
            return fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, r->object_start,
                        "\"%s\"%s at byte %zu: runtime animations are not supported, import the raw animation "
                        "(\"%s\") it was built from",
                        tag, seen, r->object_start, OSSA_OZZ_TAG_RAW_ANIMATION);
        return fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, r->object_start,
                    "ozz object \"%s\"%s at byte %zu is not supported (ossa reads \"%s\", \"%s\" and \"%s\")", tag,
                    seen, r->object_start, OSSA_OZZ_TAG_RAW_SKELETON, OSSA_OZZ_TAG_SKELETON,
                    OSSA_OZZ_TAG_RAW_ANIMATION);
    }
    res = read_u32(r, "object version", &version);
    if (res != OSSA_OK) return res;
    if (version != kinds[k].version)
        return fail(r, OSSA_ERROR_UNSUPPORTED_VERSION, version_at,
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
            return fail(r, OSSA_ERROR_UNSUPPORTED_FORMAT, r->object_start,
                        "a second skeleton at byte %zu: an archive may hold one skeleton", r->object_start);
        *has_skeleton = true;
        res = k == KIND_SKELETON ? read_skeleton(r, &out->skeleton, &out->allocator)
                                 : read_raw_skeleton(r, &out->skeleton, &out->allocator);
        if (res == OSSA_OK) res = ossa_raw_skeleton_validate(&out->skeleton, &local);
    }
    if (res != OSSA_OK && local.code != OSSA_OK)
        return fail(r, res, r->object_start, "the object at byte %zu is not valid: %s", r->object_start, local.message);
    return res;
}

static ossa_result read_archive(reader *r, ossa_import_output *out)
{
    if (r->size == 0) return fail(r, OSSA_ERROR_TRUNCATED, 0, "expected the endianness byte at byte 0, found no data");
    if (r->data[0] > 1)
        return fail(r, OSSA_ERROR_BAD_MAGIC, 0, "expected the endianness byte (0 big, 1 little) at byte 0, found %u",
                    (unsigned)r->data[0]);
    r->big = r->data[0] == 0;
    r->pos = 1;
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
    r->tag = NULL;
    if (res != OSSA_OK) return res;
    for (size_t a = 0; has_skeleton && a < out->animation_count; ++a)
        if (out->animations[a].track_count != out->skeleton.joint_count)
            return fail(r, OSSA_ERROR_JOINT_MISMATCH, SIZE_MAX,
                        "raw animation %zu has %zu tracks but the archive's skeleton has %zu joints", a,
                        out->animations[a].track_count, out->skeleton.joint_count);
    res = ossa_import_output_add_metadata(out, "format", kinds[format].format);
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "objects", objects);
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "endianness", r->big ? "big" : "little");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "source_units", "metres");
    if (res == OSSA_OK) res = ossa_import_output_add_metadata(out, "unit_scale", "1");
    if (res != OSSA_OK) return fail(r, res, SIZE_MAX, "out of memory writing the metadata");
    return OSSA_OK;
}

ossa_result ossa_import_ozz(const void *data, size_t size, const ossa_ozz_desc *desc, ossa_import_output *out,
                            ossa_diag *diag)
{
    if (!out) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no import output");
    ossa_import_output_destroy(out);
    if (desc && desc->allocator) out->allocator = *desc->allocator;
    if (!data && size) return ossa_diag_set(diag, OSSA_ERROR_NULL_ARGUMENT, SIZE_MAX, 0, 0, "no ozz data");
    static const uint8_t empty[1] = {0};
    reader r = {data ? (const uint8_t *)data : empty, data ? size : 0, 0, false, NULL, 0, diag};
    const ossa_result res = read_archive(&r, out);
    if (res != OSSA_OK) ossa_import_output_destroy(out);
    return res;
}
