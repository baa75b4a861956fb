/* The browser viewer's binding (tools/viewer/viewer.c), compiled natively: the scene, poses
 * equal to the runtime jobs' own, and bad archives (every truncation, every byte's bit flips,
 * other skeletons) refused with a message and the scene kept, under the sanitizers in CI. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/archive.h"
#include "ossa/local_to_model_job.h"
#include "ossa/offline/archive_writer.h"
#include "ossa/offline/builders.h"
#include "ossa/sampling_job.h"
#include "test_util.h"
#include "viewer/viewer.h"

/* An archive of a chain of `joints` joints (the last named "tip") with a 2 s clip "wave";
 * without the skeleton chunk when `with_skeleton` is false; with a META chunk of `meta` when
 * not NULL. */
static ossa_blob make_archive_meta(size_t joints, bool with_skeleton, const char *meta)
{
    ossa_blob skel_blob = {0}, anim_blob = {0}, file = {0};
    ossa_raw_skeleton rs;
    assert_int_equal(ossa_raw_skeleton_create(&rs, joints, NULL), OSSA_OK);
    for (size_t i = 1; i < joints; ++i) rs.joints[i].parent = (int)i - 1;
    assert_int_equal(ossa_raw_skeleton_set_name(&rs, joints - 1, "tip"), OSSA_OK);
    assert_int_equal(ossa_skeleton_build(&rs, NULL, &skel_blob, NULL), OSSA_OK);
    ossa_raw_skeleton_destroy(&rs);
    ossa_raw_animation ra;
    assert_int_equal(ossa_raw_animation_create(&ra, joints, NULL), OSSA_OK);
    assert_int_equal(ossa_raw_animation_set_name(&ra, "wave"), OSSA_OK);
    ra.duration = 2.f;
    for (size_t t = 0; t < joints; ++t) {
        assert_int_equal(ossa_raw_joint_track_resize(&ra, t, 3, 2, 0), OSSA_OK);
        for (int k = 0; k < 3; ++k)
            ra.tracks[t].translations[k] = (ossa_raw_float3_key){(float)k, {(float)t, (float)k, .5f}};
        ra.tracks[t].rotations[0] = (ossa_raw_quat_key){0.f, {0.f, 0.f, 0.f, 1.f}};
        ra.tracks[t].rotations[1] = (ossa_raw_quat_key){1.5f, {0.f, .6f, 0.f, .8f}};
    }
    assert_int_equal(ossa_animation_build(&ra, NULL, &anim_blob, NULL), OSSA_OK);
    ossa_raw_animation_destroy(&ra);
    const ossa_archive_entry entries[] = {
        {OSSA_TAG_SKELETON, OSSA_SKELETON_BLOB_VERSION, skel_blob.data, skel_blob.size},
        {OSSA_TAG_ANIMATION, OSSA_ANIMATION_BLOB_VERSION, anim_blob.data, anim_blob.size},
        {OSSA_TAG_META, OSSA_META_CHUNK_VERSION, meta, meta ? strlen(meta) : 0},
    };
    const size_t count = (with_skeleton ? 2 : 1) + (meta != NULL);
    assert_int_equal(ossa_archive_write(with_skeleton ? entries : entries + 1, count, NULL, &file, NULL), OSSA_OK);
    ossa_blob_destroy(&skel_blob);
    ossa_blob_destroy(&anim_blob);
    return file;
}

static ossa_blob make_archive(size_t joints, bool with_skeleton)
{
    return make_archive_meta(joints, with_skeleton, NULL);
}

/* Copies `size` bytes of `data` into viewer memory and adds them. */
static int add(const void *data, size_t size)
{
    void *bytes = ossa_viewer_alloc(size ? size : 1);
    assert_non_null(bytes);
    memcpy(bytes, data, size);
    return ossa_viewer_add(bytes, size);
}

static int teardown(void **state)
{
    (void)state;
    ossa_viewer_reset();
    return 0;
}

static void test_scene(void **state)
{
    (void)state;
    assert_int_equal(ossa_viewer_joint_count(), 0);
    assert_int_equal(ossa_viewer_evaluate(0, 0.f, -1, 0.f, 0.f), -1);
    assert_string_equal(ossa_viewer_error(), "no archive is open");
    ossa_blob file = make_archive(5, true);
    assert_int_equal(add(file.data, file.size), 1);
    assert_string_equal(ossa_viewer_error(), "");
    assert_int_equal(ossa_viewer_joint_count(), 5);
    assert_string_equal(ossa_viewer_joint_name(4), "tip");
    assert_string_equal(ossa_viewer_joint_name(5), "");
    assert_int_equal(ossa_viewer_joint_parent(0), -1);
    assert_int_equal(ossa_viewer_joint_parent(3), 2);
    assert_int_equal(ossa_viewer_joint_parent(-1), -1);
    assert_int_equal(ossa_viewer_clip_count(), 1);
    assert_string_equal(ossa_viewer_clip_name(0), "wave");
    assert_true(ossa_viewer_clip_duration(0) == 2.f);
    assert_int_equal(ossa_viewer_clip_archive(0), 0);
    assert_int_equal(ossa_viewer_clip_archive(1), -1);
    /* A second archive of the same skeleton, and one with the clip alone, add their clips. */
    assert_int_equal(add(file.data, file.size), 1);
    ossa_blob clip_only = make_archive(5, false);
    assert_int_equal(add(clip_only.data, clip_only.size), 1);
    assert_int_equal(ossa_viewer_clip_count(), 3);
    assert_int_equal(ossa_viewer_clip_archive(2), 2);
    /* Another hierarchy is refused and changes nothing. */
    ossa_blob other = make_archive(6, true);
    assert_int_equal(add(other.data, other.size), -1);
    assert_non_null(strstr(ossa_viewer_error(), "skeleton is not the first archive's"));
    assert_int_equal(ossa_viewer_clip_count(), 3);
    ossa_viewer_reset();
    /* The first archive needs a skeleton. */
    assert_int_equal(add(clip_only.data, clip_only.size), -1);
    assert_non_null(strstr(ossa_viewer_error(), "no skeleton"));
    assert_int_equal(ossa_viewer_joint_count(), 0);
    ossa_blob_destroy(&file);
    ossa_blob_destroy(&clip_only);
    ossa_blob_destroy(&other);
}

/* The positions are those of the runtime's sampling and local-to-model jobs, bit for bit, and
 * a blend of a clip with itself stays on it. */
static void test_pose(void **state)
{
    (void)state;
    ossa_blob file = make_archive(5, true);
    assert_int_equal(add(file.data, file.size), 1);
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    assert_int_equal(ossa_archive_init(&ar, file.data, file.size), OSSA_OK);
    assert_int_equal(ossa_archive_skeleton(&ar, &skel), OSSA_OK);
    assert_int_equal(ossa_archive_animation(&ar, 0, &anim), OSSA_OK);
    const size_t ctx_size = ossa_sampling_context_size(skel.joint_count);
    void *ctx_mem = aligned_alloc(16, ctx_size);
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, skel.joint_count);
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, skel.joint_count * sizeof *models);
    const float times[] = {0.f, 0.7f, 1.5f, 2.f, 5.f, -1.f};
    for (size_t i = 0; i < sizeof times / sizeof *times; ++i) {
        const float ratio = fminf(fmaxf(times[i] / anim.duration, 0.f), 1.f);
        const ossa_sampling_job sampling = {&anim, ctx, ratio, pose, skel.soa_count, skel.rest_pose, skel.soa_count};
        const ossa_local_to_model_job l2m = {.skeleton = &skel,
                                             .input = pose,
                                             .input_count = skel.soa_count,
                                             .output = models,
                                             .output_count = skel.joint_count};
        assert_int_equal(ossa_sampling_job_run(&sampling), OSSA_OK);
        assert_int_equal(ossa_local_to_model_job_run(&l2m), OSSA_OK);
        assert_int_equal(ossa_viewer_evaluate(0, times[i], -1, 0.f, 0.f), 0);
        const float *p = ossa_viewer_positions();
        for (size_t j = 0; j < skel.joint_count; ++j)
            for (int c = 0; c < 3; ++c) assert_true(p[3 * j + (size_t)c] == models[j].cols[3][c]);
        assert_int_equal(ossa_viewer_evaluate(0, times[i], 0, times[i], 0.5f), 0);
        for (size_t j = 0; j < skel.joint_count; ++j)
            for (int c = 0; c < 3; ++c) assert_true(fabsf(p[3 * j + (size_t)c] - models[j].cols[3][c]) < 1e-5f);
    }
    /* Bad arguments keep the last pose. */
    assert_int_equal(ossa_viewer_evaluate(1, 0.f, -1, 0.f, 0.f), -1);
    assert_string_equal(ossa_viewer_error(), "no such clip");
    assert_int_equal(ossa_viewer_evaluate(0, NAN, -1, 0.f, 0.f), -1);
    assert_int_equal(ossa_viewer_evaluate(0, 0.f, 0, 0.f, INFINITY), -1);
    free(ctx_mem);
    free(pose);
    free(models);
    ossa_blob_destroy(&file);
}

/* Every truncation and every single-bit flip of an archive is refused with a message (a flip
 * in zero padding may still load) and never reads out of bounds; the scene keeps its clip. */
static void test_bad_archives(void **state)
{
    (void)state;
    ossa_blob file = make_archive(5, true);
    assert_int_equal(add(file.data, file.size), 1);
    for (size_t size = 0; size < file.size; ++size) {
        assert_int_equal(add(file.data, size), -1);
        assert_true(ossa_viewer_error()[0] != '\0');
    }
    uint8_t *copy = malloc(file.size);
    assert_non_null(copy);
    size_t refused = 0;
    for (size_t at = 0; at < file.size; ++at)
        for (int bit = 0; bit < 8; ++bit) {
            memcpy(copy, file.data, file.size);
            copy[at] ^= (uint8_t)(1u << bit);
            const int r = add(copy, file.size);
            if (r < 0) {
                assert_true(ossa_viewer_error()[0] != '\0');
                ++refused;
            }
        }
    assert_true(refused > 0);
    assert_int_equal(ossa_viewer_joint_count(), 5);
    assert_int_equal(ossa_viewer_evaluate(0, 1.f, -1, 0.f, 0.f), 0);
    free(copy);
    ossa_blob_destroy(&file);
}

/* The tolerance each archive was baked to, from its META `tolerance=` line (metres): the
 * value when it is a finite number above 0, else 0, as for an archive without the line. */
static void test_tolerance(void **state)
{
    (void)state;
    static const struct {
        const char *meta;
        float tolerance;
    } cases[] = {
        {"input=walk.bvh\nmax_error_mm=0.0987\ntolerance=0.0001\n", 1e-4f},
        {"tolerance=0.0025\n", 0.0025f},
        {NULL, 0.f},                             /* no META: an archive before the line */
        {"input=walk.bvh\nunit_scale=1\n", 0.f}, /* META without it: a lossless bake */
        {"tolerance=\n", 0.f},
        {"tolerance=-0.0001\n", 0.f},
        {"tolerance=0\n", 0.f},
        {"tolerance=nan\n", 0.f},
        {"tolerance=inf\n", 0.f},
        {"tolerance=0.0001 m\n", 0.f},
        {"max_tolerance=0.5\n", 0.f},
    };
    const size_t n = sizeof cases / sizeof *cases;
    for (size_t i = 0; i < n; ++i) {
        ossa_blob file = make_archive_meta(3, true, cases[i].meta);
        assert_int_equal(add(file.data, file.size), 1);
        ossa_blob_destroy(&file);
    }
    for (size_t i = 0; i < n; ++i)
        if (ossa_viewer_archive_tolerance((int)i) != cases[i].tolerance)
            fail_msg("META \"%s\": tolerance %g, expected %g", cases[i].meta ? cases[i].meta : "(none)",
                     (double)ossa_viewer_archive_tolerance((int)i), (double)cases[i].tolerance);
    assert_true(ossa_viewer_archive_tolerance(-1) == 0.f);
    assert_true(ossa_viewer_archive_tolerance((int)n) == 0.f);
    ossa_viewer_reset();
    assert_true(ossa_viewer_archive_tolerance(0) == 0.f);
}

/* Begins a mesh of `n` vertices and `joints` mesh joints with normals; the buffers. */
typedef struct mesh_buffers {
    float *positions, *normals, *weights, *inverse_bind;
    uint16_t *joints, *remap;
} mesh_buffers;

static mesh_buffers begin_mesh(int n, int joints)
{
    assert_int_equal(ossa_viewer_mesh_begin(n, joints, 1), 0);
    const mesh_buffers b = {
        ossa_viewer_mesh_buffer(VIEWER_MESH_POSITIONS), ossa_viewer_mesh_buffer(VIEWER_MESH_NORMALS),
        ossa_viewer_mesh_buffer(VIEWER_MESH_WEIGHTS),   ossa_viewer_mesh_buffer(VIEWER_MESH_INVERSE_BIND),
        ossa_viewer_mesh_buffer(VIEWER_MESH_JOINTS),    ossa_viewer_mesh_buffer(VIEWER_MESH_REMAP)};
    assert_non_null(b.positions);
    assert_non_null(b.normals);
    assert_non_null(b.weights);
    assert_non_null(b.inverse_bind);
    assert_non_null(b.joints);
    assert_non_null(b.remap);
    assert_int_equal((uintptr_t)b.inverse_bind % 16, 0);
    for (int j = 0; j < joints; ++j)
        for (int e = 0; e < 16; ++e) b.inverse_bind[16 * j + e] = e % 5 == 0 ? 1.f : 0.f;
    for (int v = 0; v < n; ++v) b.normals[3 * v + 1] = 1.f;
    return b;
}

/* Each mesh mistake is refused with its message and leaves no mesh. */
static void test_mesh_errors(void **state)
{
    (void)state;
    assert_int_equal(ossa_viewer_mesh_begin(0, 1, 0), -1);
    assert_string_equal(ossa_viewer_error(),
                        "a mesh needs vertices and from 1 to 65535 joints (found 0 vertices, 1 joints)");
    assert_int_equal(ossa_viewer_mesh_begin(1, 65536, 0), -1);
    assert_null(ossa_viewer_mesh_buffer(VIEWER_MESH_POSITIONS));
    assert_int_equal(ossa_viewer_mesh_commit(), -1);
    assert_string_equal(ossa_viewer_error(), "no mesh was begun");
    assert_int_equal(ossa_viewer_mesh_skin(0), -1);
    assert_string_equal(ossa_viewer_error(), "no mesh is set");
    /* Without an archive there is no skeleton to map to. */
    begin_mesh(2, 1);
    assert_int_equal(ossa_viewer_mesh_commit(), -1);
    assert_string_equal(ossa_viewer_error(), "no archive is open: the mesh needs its skeleton");
    assert_null(ossa_viewer_mesh_buffer(VIEWER_MESH_POSITIONS));

    ossa_blob file = make_archive(5, true);
    assert_int_equal(add(file.data, file.size), 1);
    assert_int_equal(ossa_viewer_evaluate(0, 0.5f, -1, 0.f, 0.f), 0);
    mesh_buffers b = begin_mesh(2, 2);
    b.remap[1] = 5; /* the skeleton has joints 0 to 4 */
    assert_int_equal(ossa_viewer_mesh_commit(), -1);
    assert_string_equal(ossa_viewer_error(), "mesh joint 1 maps to skeleton joint 5, the skeleton has 5");
    assert_int_equal(ossa_viewer_mesh_vertex_count(), 0);
    b = begin_mesh(2, 2);
    b.joints[4 + 3] = 2; /* vertex 1's last influence: mesh joints are 0 and 1 */
    assert_int_equal(ossa_viewer_mesh_commit(), -1);
    char expected[128];
    snprintf(expected, sizeof expected, "the mesh cannot be skinned: %s",
             ossa_result_string(OSSA_ERROR_INVALID_JOINT_INDEX));
    assert_string_equal(ossa_viewer_error(), expected);
    b = begin_mesh(2, 2);
    b.weights[4] = NAN;
    assert_int_equal(ossa_viewer_mesh_commit(), -1);
    assert_string_equal(ossa_viewer_error(), "vertex 1 has a position, normal or weight that is not a finite number");
    begin_mesh(2, 2);
    assert_int_equal(ossa_viewer_mesh_commit(), 0);
    assert_int_equal(ossa_viewer_mesh_skin(2), -1);
    assert_string_equal(ossa_viewer_error(), "unknown skinning method 2");
    assert_int_equal(ossa_viewer_mesh_vertex_count(), 2);
    ossa_viewer_mesh_clear();
    assert_int_equal(ossa_viewer_mesh_vertex_count(), 0);
    assert_null(ossa_viewer_mesh_positions());
    ossa_blob_destroy(&file);
}

/* Column-major product a * b in double. */
static void mul4(const float *a, const float *b, double *out)
{
    for (int c = 0; c < 4; ++c)
        for (int r = 0; r < 4; ++r) {
            double sum = 0;
            for (int k = 0; k < 4; ++k) sum += (double)a[4 * k + r] * (double)b[4 * c + k];
            out[4 * c + r] = sum;
        }
}

/* The skinned positions are model[remap] * inverse bind blended by the weights (linear blend,
 * computed here in double from the viewer's model matrices); a vertex of one joint is the same
 * with dual quaternions; at the rest pose both give the bind positions. */
static void test_mesh_skin(void **state)
{
    (void)state;
    ossa_blob file = make_archive(5, true);
    assert_int_equal(add(file.data, file.size), 1);
    enum { N = 3, J = 2 };
    const mesh_buffers b = begin_mesh(N, J);
    const float bind[N][3] = {{0.1f, 0.2f, 0.3f}, {-1.f, 0.5f, 2.f}, {0.f, -0.4f, 1.f}};
    const uint16_t joints[N][4] = {{0, 1, 0, 0}, {1, 0, 0, 0}, {0, 1, 1, 0}};
    const float weights[N][3] = {{0.25f, 0.75f, 0.f}, {1.f, 0.f, 0.f}, {0.5f, 0.2f, 0.1f}};
    for (int v = 0; v < N; ++v)
        for (int c = 0; c < 4; ++c) {
            if (c < 3) b.positions[3 * v + c] = bind[v][c], b.weights[3 * v + c] = weights[v][c];
            b.joints[4 * v + c] = joints[v][c];
        }
    b.remap[0] = 4;
    b.remap[1] = 1;
    b.inverse_bind[12] = -0.5f; /* mesh joint 0: a translation */
    b.inverse_bind[16 + 13] = 1.f;
    assert_int_equal(ossa_viewer_mesh_commit(), 0);
    assert_int_equal(ossa_viewer_mesh_vertex_count(), N);
    assert_int_equal(ossa_viewer_evaluate(0, 0.7f, -1, 0.f, 0.f), 0);
    assert_int_equal(ossa_viewer_mesh_skin(0), 0);
    const float *models = ossa_viewer_models(), *p = ossa_viewer_mesh_positions(), *joint_xyz = ossa_viewer_positions();
    assert_non_null(models);
    for (int j = 0; j < 5; ++j)
        for (int c = 0; c < 3; ++c) assert_true(models[16 * j + 12 + c] == joint_xyz[3 * j + c]);
    double palette[J][16];
    for (int i = 0; i < J; ++i) mul4(models + 16 * b.remap[i], b.inverse_bind + 16 * i, palette[i]);
    float linear[N][3];
    for (int v = 0; v < N; ++v) {
        const double w[4] = {weights[v][0], weights[v][1], weights[v][2],
                             1.0 - (double)weights[v][0] - (double)weights[v][1] - (double)weights[v][2]};
        for (int r = 0; r < 3; ++r) {
            double sum = 0;
            for (int c = 0; c < 4; ++c) {
                const double *m = palette[joints[v][c]];
                sum += w[c] * (m[r] * (double)bind[v][0] + m[4 + r] * (double)bind[v][1] +
                               m[8 + r] * (double)bind[v][2] + m[12 + r]);
            }
            linear[v][r] = p[3 * v + r];
            assert_true(fabs((double)p[3 * v + r] - sum) < 1e-5);
        }
    }
    assert_int_equal(ossa_viewer_mesh_skin(1), 0);
    for (int r = 0; r < 3; ++r) assert_true(fabsf(p[3 + r] - linear[1][r]) < 1e-5f); /* one joint */
    float moved = 0.f;
    for (int r = 0; r < 3; ++r) moved = fmaxf(moved, fabsf(p[r] - linear[0][r]));
    assert_true(moved > 1e-3f); /* two joints turned apart */
    /* The rest pose: every model matrix is the identity here, the palette the inverse binds. */
    for (int i = 0; i < J * 16; ++i) b.inverse_bind[i] = i % 16 % 5 == 0 ? 1.f : 0.f;
    assert_int_equal(ossa_viewer_evaluate_rest(), 0);
    for (int m = 0; m < 2; ++m) {
        assert_int_equal(ossa_viewer_mesh_skin(m), 0);
        for (int v = 0; v < N; ++v)
            for (int r = 0; r < 3; ++r) assert_true(fabsf(p[3 * v + r] - bind[v][r]) < 1e-6f);
    }
    ossa_blob_destroy(&file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_scene, teardown),        cmocka_unit_test_teardown(test_pose, teardown),
        cmocka_unit_test_teardown(test_bad_archives, teardown), cmocka_unit_test_teardown(test_tolerance, teardown),
        cmocka_unit_test_teardown(test_mesh_errors, teardown),  cmocka_unit_test_teardown(test_mesh_skin, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
