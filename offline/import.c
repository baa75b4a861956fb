/* The format registry: one row per import format drives detection, dispatch, names and the
 * `ossa formats` listing (see ossa/offline/import.h). Adding a format is its importer, one
 * row below and its tests. */
#include "ossa/offline/import.h"

#include <string.h>
#include <strings.h>

#include "import/resonite_common.h" /* ossa__animj_sniff */
#include "internal.h"
#include "ossa/offline/import_assimp.h"
#include "ossa/offline/import_gltf.h"
#include "ossa/offline/import_maya.h"
#include "ossa/offline/import_metroid.h"
#include "ossa/offline/import_mrtk.h"
#include "ossa/offline/import_ozz.h"
#include "ossa/offline/import_resonite.h"

#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP
#define HAVE_ASSIMP true
#else
#define HAVE_ASSIMP false
#endif
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#define HAVE_CJSON true
#else
#define HAVE_CJSON false
#endif

typedef ossa_result (*import_fn)(const void *data, size_t size, const char *ext, ossa_import_output *out,
                                 ossa_diag *diag);

typedef struct format_row {
    ossa_import_format_info info;
    /* Content that cannot be mistaken (magic numbers, a keyword); NULL: none. */
    bool (*sniff)(const uint8_t *data, size_t size);
    /* Whether the file extension `ext` (no dot) claims the file; NULL: `info.extensions`. */
    bool (*by_extension)(const char *ext, const uint8_t *data, size_t size);
    import_fn import; /* NULL: not an import format */
} format_row;

static bool starts_with(const uint8_t *data, size_t size, const char *magic)
{
    const size_t n = strlen(magic);
    return size >= n && memcmp(data, magic, n) == 0;
}

static bool sniff_ossa(const uint8_t *d, size_t n) { return starts_with(d, n, "OSSA"); }
static bool sniff_maya(const uint8_t *d, size_t n) { return ossa_maya_anim_detect(d, n); }
static bool sniff_animx(const uint8_t *d, size_t n)
{
    return n >= 6 && !memcmp(d,
                             "\x05"
                             "AnimX",
                             6);
}
static bool sniff_animj(const uint8_t *d, size_t n) { return ossa__animj_sniff(d, n); }
static bool sniff_mrtk(const uint8_t *d, size_t n) { return starts_with(d, n, "\xc6\x42\x9e\x0f\x6e\xaf\x8f\x6a"); }
/* ozz-animation: an endianness byte 0 or 1, then the first object's tag "ozz-...". */
static bool sniff_ozz(const uint8_t *d, size_t n) { return n >= 5 && d[0] <= 1 && !memcmp(d + 1, "ozz-", 4); }
static bool sniff_bvh(const uint8_t *d, size_t n) { return starts_with(d, n, "HIERARCHY"); }
/* Binary glTF: the GLB header's magic (glTF 2.0 specification, 4.4). */
static bool sniff_glb(const uint8_t *d, size_t n) { return starts_with(d, n, "glTF"); }

static bool content_only(const char *ext, const uint8_t *d, size_t n)
{
    (void)ext, (void)d, (void)n;
    return false;
}

/* Metroid Prime ANIM has no magic: a big-endian version word 0 or 2 (Maya's .anim is text). */
static bool metroid_anim_extension(const char *ext, const uint8_t *d, size_t n)
{
    return !strcasecmp(ext, "anim") && n >= 4 && !memcmp(d, "\0\0\0", 3) && (d[3] == 0 || d[3] == 2);
}

/* assimp: its usual scene extensions, and every other one the linked library reads. */
static bool assimp_extension(const char *ext, const uint8_t *d, size_t n)
{
    (void)d, (void)n;
    static const char *const common[] = {"bvh",   "fbx",  "dae", "zae", "x",    "md5anim", "md5mesh",
                                         "smd",   "ms3d", "b3d", "3ds", "ogex", "irr",     "xml",
                                         "blend", "iqm",  "m3d", "obj", "ply",  "stl"};
    for (size_t i = 0; i < sizeof common / sizeof *common; ++i)
        if (!strcasecmp(ext, common[i])) return true;
    return *ext && ossa_assimp_reads_extension(ext);
}

static ossa_result import_assimp(const void *d, size_t n, const char *ext, ossa_import_output *out, ossa_diag *diag)
{
    const ossa_assimp_desc desc = {.format_hint = *ext ? ext : NULL};
    return ossa_import_assimp(d, n, &desc, out, diag);
}

#define DEFAULT_IMPORT(fn, importer)                                                                                   \
    static ossa_result fn(const void *d, size_t n, const char *ext, ossa_import_output *out, ossa_diag *diag)          \
    {                                                                                                                  \
        (void)ext;                                                                                                     \
        return importer(d, n, NULL, out, diag);                                                                        \
    }
DEFAULT_IMPORT(import_maya, ossa_import_maya_anim)
DEFAULT_IMPORT(import_animx, ossa_import_animx)
DEFAULT_IMPORT(import_animj, ossa_import_animj)
DEFAULT_IMPORT(import_mrtk, ossa_import_mrtk)
DEFAULT_IMPORT(import_ozz, ossa_import_ozz)
DEFAULT_IMPORT(import_metroid_anim, ossa_import_metroid_anim)
DEFAULT_IMPORT(import_metroid_cinf, ossa_import_metroid_cinf)
DEFAULT_IMPORT(import_gltf, ossa_import_gltf)
#undef DEFAULT_IMPORT

/* In detection order: content first (rows with a sniff, top to bottom), then extensions. */
static const format_row formats[] = {
    {{OSSA_FORMAT_OSSA, "ossa", ".ossa archive (ossa info reads it; it is not imported)", "ossa", "stored in META",
      NULL, false, true},
     sniff_ossa,
     NULL,
     NULL},
    {{OSSA_FORMAT_MAYA_ANIM, "maya-anim", "Maya ASCII .anim 1.0 / 1.1", "anim",
      "the file's linearUnit, converted to metres", "ossa_import_maya_anim", false, true},
     sniff_maya,
     content_only,
     import_maya},
    {{OSSA_FORMAT_ANIMX, "animx", "Resonite AnimX (raw, LZ4, LZMA)", "animx", "metres (Resonite's)",
      "ossa_import_animx", false, true},
     sniff_animx,
     NULL,
     import_animx},
    {{OSSA_FORMAT_ANIMJ, "animj", "Resonite AnimJ", "animj", "metres (Resonite's)", "ossa_import_animj", false,
      HAVE_CJSON},
     sniff_animj,
     NULL,
     import_animj},
    {{OSSA_FORMAT_MRTK, "mrtk", "MRTK input animation 1.0 / 1.1", "", "metres (Unity's)", "ossa_import_mrtk", false,
      true},
     sniff_mrtk,
     NULL,
     import_mrtk},
    {{OSSA_FORMAT_OZZ, "ozz", "ozz-animation archive (RawSkeleton, Skeleton, RawAnimation)", "ozz",
      "metres (ozz's convention); --unit-scale otherwise", "ossa_import_ozz", false, true},
     sniff_ozz,
     NULL,
     import_ozz},
    {{OSSA_FORMAT_METROID_ANIM, "metroid-anim", "Metroid Prime 1/2 ANIM", "anim", "metres (the games' world unit)",
      "ossa_import_metroid_anim", true, true},
     NULL,
     metroid_anim_extension,
     import_metroid_anim},
    {{OSSA_FORMAT_METROID_CINF, "metroid-cinf", "Metroid Prime 1/2 CINF skeleton", "cinf",
      "metres (the games' world unit)", "ossa_import_metroid_cinf", false, true},
     NULL,
     NULL,
     import_metroid_cinf},
    {{OSSA_FORMAT_GLTF, "gltf", "glTF 2.0 (.gltf with external or data-URI buffers, .glb)", "gltf glb",
      "metres (glTF 2.0, 3.4)", "ossa_import_gltf", false, HAVE_CJSON},
     sniff_glb,
     NULL,
     import_gltf},
    /* -- rows of new formats go above this line: assimp takes every extension it reads -- */
    {{OSSA_FORMAT_ASSIMP, "assimp", "BVH, FBX, Collada, LightWave and the rest of assimp's formats", "*",
      "the file's (FBX, Collada), else inferred from the rest pose", "ossa_import_assimp", false, HAVE_ASSIMP},
     sniff_bvh,
     assimp_extension,
     import_assimp},
};

#define FORMAT_COUNT (sizeof formats / sizeof *formats)

size_t ossa_import_format_count(void) { return FORMAT_COUNT; }

const ossa_import_format_info *ossa_import_format_at(size_t index)
{
    return index < FORMAT_COUNT ? &formats[index].info : NULL;
}

static const format_row *row_of(ossa_import_format format)
{
    for (size_t i = 0; i < FORMAT_COUNT; ++i)
        if (formats[i].info.format == format) return &formats[i];
    return NULL;
}

const char *ossa_import_format_name(ossa_import_format format)
{
    const format_row *row = row_of(format);
    return row ? row->info.name : "unknown";
}

static const char *extension_of(const char *name)
{
    if (!name) return "";
    const char *slash = strrchr(name, '/');
    const char *dot = strrchr(slash ? slash : name, '.');
    return dot ? dot + 1 : "";
}

/* `ext` in a space-separated list. */
static bool listed(const char *list, const char *ext)
{
    const size_t n = strlen(ext);
    for (const char *p = list; n && *p;) {
        const char *end = strchr(p, ' ');
        const size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncasecmp(p, ext, n)) return true;
        p += len + (end != NULL);
    }
    return false;
}

ossa_import_format ossa_import_detect(const void *data, size_t size, const char *name)
{
    static const uint8_t none[1] = {0};
    const uint8_t *d = data ? data : none;
    if (!data) size = 0;
    for (size_t i = 0; i < FORMAT_COUNT; ++i)
        if (formats[i].sniff && formats[i].sniff(d, size)) return formats[i].info.format;
    const char *ext = extension_of(name);
    for (size_t i = 0; *ext && i < FORMAT_COUNT; ++i) {
        const format_row *row = &formats[i];
        if (row->by_extension ? row->by_extension(ext, d, size) : listed(row->info.extensions, ext))
            return row->info.format;
    }
    return OSSA_FORMAT_UNKNOWN;
}

ossa_result ossa_import_any(const void *data, size_t size, const char *name, ossa_import_output *out, ossa_diag *diag)
{
    if (!out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no output");
    const ossa_import_format format = ossa_import_detect(data, size, name);
    const format_row *row = row_of(format);
    if (row && row->import) return row->import(data, size, extension_of(name), out, diag);
    return ossa__fail_at(diag, OSSA_ERROR_UNSUPPORTED_FORMAT, 0, "not a format ossa can import (%s)",
                         format == OSSA_FORMAT_UNKNOWN ? "unrecognised content and extension"
                                                       : ossa_import_format_name(format));
}
