/* The browser viewer's binding: see viewer.h. */
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/blending_job.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "ossa/skinning_job.h"
#include "viewer.h"

typedef struct viewer_clip {
    ossa_animation anim;
    int archive;
} viewer_clip;

/* A skinned mesh (ossa_viewer_mesh_begin): bind-pose vertices, 4 influences each, and the
 * mesh's joints (inverse bind matrices, the skeleton joint of each). */
typedef struct viewer_mesh {
    size_t vertex_count, joint_count;
    bool has_normals, ready;            /* ready: ossa_viewer_mesh_commit accepted it */
    float *positions, *normals;         /* [3 * vertex_count] bind pose; normals NULL when none */
    uint16_t *joints;                   /* [4 * vertex_count] mesh joint indices */
    float *weights;                     /* [3 * vertex_count] the 4th is 1 minus their sum */
    uint16_t *remap;                    /* [joint_count] skeleton joint of each mesh joint */
    ossa_float4x4 *inverse_bind;        /* [joint_count] */
    ossa_float4x4 *palette;             /* [joint_count] */
    ossa_dual_quat *dual_quats;         /* [joint_count] */
    float *out_positions, *out_normals; /* [3 * vertex_count] skinned */
} viewer_mesh;

typedef struct viewer_scene {
    void *bytes[VIEWER_MAX_ARCHIVES];      /* owned, 16-byte aligned */
    float tolerance[VIEWER_MAX_ARCHIVES];  /* metres, from META; 0 when none */
    float unit_scale[VIEWER_MAX_ARCHIVES]; /* metres per stored unit (ossa_archive_unit_scale) */
    size_t archive_count;
    ossa_skeleton skeleton; /* the first archive's; joint_count 0 until one is added */
    viewer_clip clips[VIEWER_MAX_CLIPS];
    size_t clip_count;
    /* Buffers sized for the skeleton when the first archive is added. */
    ossa_sampling_context *context[2];
    ossa_soa_transform *pose[2];
    ossa_soa_transform *blended;
    ossa_float4x4 *models;
    float *positions; /* [3 * joint_count] */
    viewer_mesh mesh;
    char error[256];
} viewer_scene;

static viewer_scene scene;

/* Records the error text; returns -1. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 1, 2)))
#endif
static int
fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(scene.error, sizeof scene.error, format, args);
    va_end(args);
    return -1;
}

VIEWER_API const char *ossa_viewer_error(void) { return scene.error; }

VIEWER_API void *ossa_viewer_alloc(size_t size)
{
    const size_t rounded = (size + 15) & ~(size_t)15; /* aligned_alloc wants a multiple */
    return size && rounded ? aligned_alloc(16, rounded) : NULL;
}

VIEWER_API void ossa_viewer_free(void *p) { free(p); }

static void mesh_free(viewer_mesh *m)
{
    free(m->positions);
    free(m->normals);
    free(m->joints);
    free(m->weights);
    free(m->remap);
    free(m->inverse_bind);
    free(m->palette);
    free(m->dual_quats);
    free(m->out_positions);
    free(m->out_normals);
    memset(m, 0, sizeof *m);
}

VIEWER_API void ossa_viewer_reset(void)
{
    mesh_free(&scene.mesh);
    for (size_t i = 0; i < scene.archive_count; ++i) free(scene.bytes[i]);
    for (int i = 0; i < 2; ++i) {
        free(scene.context[i]);
        free(scene.pose[i]);
    }
    free(scene.blended);
    free(scene.models);
    free(scene.positions);
    memset(&scene, 0, sizeof scene);
}

static bool allocate_buffers(size_t joint_count, size_t soa_count)
{
    const size_t ctx_size = ossa_sampling_context_size(joint_count);
    const size_t pose_size = soa_count * sizeof(ossa_soa_transform);
    for (int i = 0; i < 2; ++i) {
        void *memory = aligned_alloc(16, ctx_size);
        scene.context[i] = memory ? ossa_sampling_context_init(memory, ctx_size, joint_count) : NULL;
        if (!scene.context[i]) free(memory);
        scene.pose[i] = aligned_alloc(16, pose_size);
    }
    scene.blended = aligned_alloc(16, pose_size);
    scene.models = aligned_alloc(16, joint_count * sizeof(ossa_float4x4));
    scene.positions = calloc(3 * joint_count, sizeof(float));
    return scene.context[0] && scene.context[1] && scene.pose[0] && scene.pose[1] && scene.blended && scene.models &&
           scene.positions;
}

/* True when `b` has the scene's joint count and parents. */
static bool same_hierarchy(const ossa_skeleton *a, const ossa_skeleton *b)
{
    return a->joint_count == b->joint_count && !memcmp(a->parents, b->parents, a->joint_count * sizeof(int16_t));
}

/* META's `tolerance=` as a finite number above 0 (the whole value), else 0. */
static float meta_tolerance(const ossa_archive *ar)
{
    char text[64], *end = NULL;
    if (!ossa_archive_meta(ar, "tolerance", text, sizeof text) || !text[0]) return 0.f;
    const float value = strtof(text, &end);
    return *end == '\0' && isfinite(value) && value > 0.f ? value : 0.f;
}

VIEWER_API int ossa_viewer_add(void *bytes, size_t size)
{
    scene.error[0] = '\0';
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_result r = ossa_archive_init(&ar, bytes, size);
    int status = -1;
    if (r != OSSA_OK) {
        fail("not a valid .ossa archive: %s", ossa_result_string(r));
        goto done;
    }
    if (scene.archive_count == VIEWER_MAX_ARCHIVES) {
        fail("too many archives open (at most %d)", VIEWER_MAX_ARCHIVES);
        goto done;
    }
    r = ossa_archive_skeleton(&ar, &skel);
    if (r == OSSA_OK) {
        if (!skel.joint_count) {
            fail("the archive's skeleton has no joints");
            goto done;
        }
        if (scene.skeleton.joint_count && !same_hierarchy(&scene.skeleton, &skel)) {
            fail("its skeleton is not the first archive's (%zu joints, or other parents; the first has %zu)",
                 skel.joint_count, scene.skeleton.joint_count);
            goto done;
        }
    } else if (r != OSSA_ERROR_NOT_FOUND || !scene.skeleton.joint_count) {
        if (r == OSSA_ERROR_NOT_FOUND)
            fail("the archive has no skeleton (the first archive opened must have one)");
        else
            fail("the archive's skeleton cannot be read: %s", ossa_result_string(r));
        goto done;
    } else {
        skel = scene.skeleton;
    }
    const size_t count = ossa_archive_count(&ar, OSSA_TAG_ANIMATION);
    if (scene.clip_count + count > VIEWER_MAX_CLIPS) {
        fail("too many clips open (at most %d)", VIEWER_MAX_CLIPS);
        goto done;
    }
    for (size_t i = 0; i < count; ++i) {
        ossa_animation *anim = &scene.clips[scene.clip_count + i].anim;
        r = ossa_archive_animation(&ar, i, anim);
        if (r != OSSA_OK) {
            fail("animation %zu of the archive cannot be read: %s", i, ossa_result_string(r));
            goto done;
        }
        if (anim->track_count != skel.joint_count) {
            fail("the clip \"%s\" animates %zu joints, the skeleton has %zu", anim->name, anim->track_count,
                 skel.joint_count);
            goto done;
        }
        scene.clips[scene.clip_count + i].archive = (int)scene.archive_count;
    }
    if (!scene.skeleton.joint_count) {
        if (!allocate_buffers(skel.joint_count, skel.soa_count)) {
            ossa_viewer_reset();
            fail("out of memory");
            goto done;
        }
        scene.skeleton = skel;
    }
    scene.tolerance[scene.archive_count] = meta_tolerance(&ar);
    scene.unit_scale[scene.archive_count] = ossa_archive_unit_scale(&ar);
    scene.bytes[scene.archive_count++] = bytes;
    scene.clip_count += count;
    return (int)count;
done:
    free(bytes);
    return status;
}

VIEWER_API float ossa_viewer_archive_tolerance(int archive)
{
    return archive < 0 || (size_t)archive >= scene.archive_count ? 0.f : scene.tolerance[archive];
}

VIEWER_API float ossa_viewer_archive_unit_scale(int archive)
{
    return archive < 0 || (size_t)archive >= scene.archive_count ? 0.f : scene.unit_scale[archive];
}

VIEWER_API int ossa_viewer_joint_count(void) { return (int)scene.skeleton.joint_count; }

VIEWER_API const char *ossa_viewer_joint_name(int joint)
{
    return joint < 0 ? "" : ossa_skeleton_joint_name(&scene.skeleton, (size_t)joint);
}

VIEWER_API int ossa_viewer_joint_parent(int joint)
{
    return joint < 0 || (size_t)joint >= scene.skeleton.joint_count ? -1 : scene.skeleton.parents[joint];
}

VIEWER_API int ossa_viewer_clip_count(void) { return (int)scene.clip_count; }

VIEWER_API const char *ossa_viewer_clip_name(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? "" : scene.clips[clip].anim.name;
}

VIEWER_API float ossa_viewer_clip_duration(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? 0.f : scene.clips[clip].anim.duration;
}

VIEWER_API int ossa_viewer_clip_archive(int clip)
{
    return clip < 0 || (size_t)clip >= scene.clip_count ? -1 : scene.clips[clip].archive;
}

static ossa_result sample(int slot, int clip, float time)
{
    const ossa_animation *anim = &scene.clips[clip].anim;
    const float ratio = fminf(fmaxf(time / anim->duration, 0.f), 1.f);
    const ossa_sampling_job job = {anim,
                                   scene.context[slot],
                                   ratio,
                                   scene.pose[slot],
                                   scene.skeleton.soa_count,
                                   scene.skeleton.rest_pose,
                                   scene.skeleton.soa_count};
    return ossa_sampling_job_run(&job);
}

static int model_space(const ossa_soa_transform *local);

VIEWER_API int ossa_viewer_evaluate(int clip_a, float time_a, int clip_b, float time_b, float weight_b)
{
    scene.error[0] = '\0';
    if (!scene.skeleton.joint_count) return fail("no archive is open");
    if (clip_a < 0 || (size_t)clip_a >= scene.clip_count || (clip_b >= 0 && (size_t)clip_b >= scene.clip_count))
        return fail("no such clip");
    if (!isfinite(time_a) || !isfinite(time_b) || !isfinite(weight_b))
        return fail("time or weight is not a finite number");
    const bool blend = clip_b >= 0 && weight_b > 0.f;
    ossa_result r = sample(0, clip_a, time_a);
    if (r == OSSA_OK && blend) r = sample(1, clip_b, time_b);
    const ossa_soa_transform *local = scene.pose[0];
    if (r == OSSA_OK && blend) {
        const float w = fminf(weight_b, 1.f);
        const size_t n = scene.skeleton.soa_count;
        const ossa_blend_layer layers[2] = {{.weight = 1.f - w, .transform = scene.pose[0], .transform_count = n},
                                            {.weight = w, .transform = scene.pose[1], .transform_count = n}};
        const ossa_blending_job job = {.layers = layers,
                                       .layer_count = 2,
                                       .rest_pose = scene.skeleton.rest_pose,
                                       .rest_pose_count = n,
                                       .output = scene.blended,
                                       .output_count = n};
        r = ossa_blending_job_run(&job);
        local = scene.blended;
    }
    return r == OSSA_OK ? model_space(local) : fail("%s", ossa_result_string(r));
}

/* Local-to-model of `local` into the scene's matrices and positions; 0 or -1. */
static int model_space(const ossa_soa_transform *local)
{
    const ossa_local_to_model_job job = {.skeleton = &scene.skeleton,
                                         .input = local,
                                         .input_count = scene.skeleton.soa_count,
                                         .output = scene.models,
                                         .output_count = scene.skeleton.joint_count};
    const ossa_result r = ossa_local_to_model_job_run(&job);
    if (r != OSSA_OK) return fail("%s", ossa_result_string(r));
    for (size_t j = 0; j < scene.skeleton.joint_count; ++j)
        for (int c = 0; c < 3; ++c) scene.positions[3 * j + (size_t)c] = scene.models[j].cols[3][c];
    return 0;
}

VIEWER_API int ossa_viewer_evaluate_rest(void)
{
    scene.error[0] = '\0';
    if (!scene.skeleton.joint_count) return fail("no archive is open");
    return model_space(scene.skeleton.rest_pose);
}

VIEWER_API const float *ossa_viewer_positions(void) { return scene.positions; }

/* ---- The skinned mesh ---------------------------------------------------------------------- */

VIEWER_API void ossa_viewer_mesh_clear(void) { mesh_free(&scene.mesh); }

VIEWER_API int ossa_viewer_mesh_begin(int vertex_count, int joint_count, int has_normals)
{
    scene.error[0] = '\0';
    mesh_free(&scene.mesh);
    if (vertex_count <= 0 || joint_count <= 0 || joint_count > UINT16_MAX)
        return fail("a mesh needs vertices and from 1 to %d joints (found %d vertices, %d joints)", UINT16_MAX,
                    vertex_count, joint_count);
    const size_t n = (size_t)vertex_count, j = (size_t)joint_count;
    /* 4 * n * sizeof(float) must not wrap: n is below INT_MAX, so 16 * n fits a 64-bit size_t
     * and, on WebAssembly's 32-bit one, the allocation fails before it would wrap. */
    if (n > SIZE_MAX / 16) return fail("the mesh has too many vertices (%d)", vertex_count);
    viewer_mesh *m = &scene.mesh;
    m->vertex_count = n;
    m->joint_count = j;
    m->has_normals = has_normals != 0;
    m->positions = calloc(3 * n, sizeof(float));
    m->out_positions = calloc(3 * n, sizeof(float));
    if (m->has_normals) {
        m->normals = calloc(3 * n, sizeof(float));
        m->out_normals = calloc(3 * n, sizeof(float));
    }
    m->joints = calloc(4 * n, sizeof(uint16_t));
    m->weights = calloc(3 * n, sizeof(float));
    m->remap = calloc(j, sizeof(uint16_t));
    m->inverse_bind = aligned_alloc(16, j * sizeof(ossa_float4x4));
    m->palette = aligned_alloc(16, j * sizeof(ossa_float4x4));
    m->dual_quats = aligned_alloc(16, j * sizeof(ossa_dual_quat));
    if (!m->positions || !m->out_positions || (m->has_normals && (!m->normals || !m->out_normals)) || !m->joints ||
        !m->weights || !m->remap || !m->inverse_bind || !m->palette || !m->dual_quats) {
        mesh_free(m);
        return fail("out of memory for a mesh of %d vertices", vertex_count);
    }
    return 0;
}

VIEWER_API void *ossa_viewer_mesh_buffer(int which)
{
    const viewer_mesh *m = &scene.mesh;
    switch (which) {
    case VIEWER_MESH_POSITIONS:
        return m->positions;
    case VIEWER_MESH_NORMALS:
        return m->normals;
    case VIEWER_MESH_JOINTS:
        return m->joints;
    case VIEWER_MESH_WEIGHTS:
        return m->weights;
    case VIEWER_MESH_REMAP:
        return m->remap;
    case VIEWER_MESH_INVERSE_BIND:
        return m->inverse_bind;
    default:
        return NULL;
    }
}

/* A skinning job over the mesh, into its skinned buffers. */
static ossa_skinning_job mesh_job(const viewer_mesh *m, ossa_skinning_method method)
{
    const size_t n = m->vertex_count;
    ossa_skinning_job job = {.method = method,
                             .vertex_count = n,
                             .influence_count = 4,
                             .palette = m->palette,
                             .palette_count = m->joint_count,
                             .dual_quats = m->dual_quats,
                             .dual_quat_count = m->joint_count,
                             .joint_indices = {m->joints, 0, n},
                             .joint_weights = {m->weights, 0, n},
                             .in_positions = {m->positions, 0, n},
                             .out_positions = {m->out_positions, 0, n}};
    if (m->has_normals) {
        job.in_normals = (ossa_vertex_input){m->normals, 0, n};
        job.out_normals = (ossa_vertex_output){m->out_normals, 0, n};
    }
    return job;
}

VIEWER_API int ossa_viewer_mesh_commit(void)
{
    scene.error[0] = '\0';
    viewer_mesh *m = &scene.mesh;
    if (!m->positions) return fail("no mesh was begun");
    if (!scene.skeleton.joint_count) {
        mesh_free(m);
        return fail("no archive is open: the mesh needs its skeleton");
    }
    for (size_t i = 0; i < m->joint_count; ++i)
        if (m->remap[i] >= scene.skeleton.joint_count) {
            const int joint = m->remap[i];
            mesh_free(m);
            return fail("mesh joint %zu maps to skeleton joint %d, the skeleton has %zu", i, joint,
                        scene.skeleton.joint_count);
        }
    for (size_t i = 0; i < 3 * m->vertex_count; ++i)
        if (!isfinite(m->positions[i]) || !isfinite(m->weights[i]) || (m->normals && !isfinite(m->normals[i]))) {
            mesh_free(m);
            return fail("vertex %zu has a position, normal or weight that is not a finite number", i / 3);
        }
    /* The joint indices against the palette size, once, with the job's own check. */
    const ossa_skinning_job job = mesh_job(m, OSSA_SKINNING_LINEAR);
    const ossa_result r = ossa_skinning_job_validate(&job);
    if (r != OSSA_OK) {
        mesh_free(m);
        return fail("the mesh cannot be skinned: %s", ossa_result_string(r));
    }
    m->ready = true;
    return 0;
}

VIEWER_API int ossa_viewer_mesh_skin(int method)
{
    scene.error[0] = '\0';
    const viewer_mesh *m = &scene.mesh;
    if (!m->ready) return fail("no mesh is set");
    if (method != OSSA_SKINNING_LINEAR && method != OSSA_SKINNING_DUAL_QUAT)
        return fail("unknown skinning method %d", method);
    const bool dq = method == OSSA_SKINNING_DUAL_QUAT;
    const ossa_skinning_palette_job pal = {.model = scene.models,
                                           .model_count = scene.skeleton.joint_count,
                                           .inverse_bind = m->inverse_bind,
                                           .inverse_bind_count = m->joint_count,
                                           .joint_remap = m->remap,
                                           .joint_remap_count = m->joint_count,
                                           .output = dq ? NULL : m->palette,
                                           .output_count = dq ? 0 : m->joint_count,
                                           .dual_quats = dq ? m->dual_quats : NULL,
                                           .dual_quat_count = dq ? m->joint_count : 0};
    ossa_result r = ossa_skinning_palette_job_run(&pal);
    if (r == OSSA_OK) {
        const ossa_skinning_job job = mesh_job(m, (ossa_skinning_method)method);
        r = ossa_skinning_job_run(&job);
    }
    return r == OSSA_OK ? 0 : fail("skinning: %s", ossa_result_string(r));
}

VIEWER_API int ossa_viewer_mesh_vertex_count(void) { return scene.mesh.ready ? (int)scene.mesh.vertex_count : 0; }

VIEWER_API const float *ossa_viewer_mesh_positions(void) { return scene.mesh.ready ? scene.mesh.out_positions : NULL; }

VIEWER_API const float *ossa_viewer_mesh_normals(void) { return scene.mesh.ready ? scene.mesh.out_normals : NULL; }

VIEWER_API const float *ossa_viewer_models(void)
{
    return scene.skeleton.joint_count ? &scene.models[0].cols[0][0] : NULL;
}
