/* Local-to-model job against a scalar reference built on the public scalar maths. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/local_to_model_job.h"
#include "ossa/offline/builders.h"
#include "test_util.h"

typedef struct fixture {
    ossa_blob blob;
    ossa_skeleton skel;
    ossa_soa_transform *pose;
    ossa_transform *local;
    ossa_float4x4 *out, *ref;
} fixture;

/* Hierarchies of the fixture: the job takes a parent from registers when it is the joint
 * just before (chains), multiplies joints without a parent by the root matrix, or under the
 * identity root writes their local matrices whole (groups of four such joints, or lane by
 * lane in a mixed group), so each shape takes other paths. */
typedef enum shape {
    SHAPE_TREE,  /* random parents, two roots */
    SHAPE_CHAIN, /* every joint the child of the one before */
    SHAPE_FLAT,  /* every joint a root (a physics bake) */
    SHAPE_MIXED, /* roots and chains alternating in runs of 1 to 6 joints */
} shape;

/* n joints of the given shape in depth-first order, random local transforms. */
static void setup_shape(fixture *f, size_t n, uint32_t seed, shape kind)
{
    memset(f, 0, sizeof *f);
    ossa_raw_skeleton raw;
    assert_int_equal(ossa_raw_skeleton_create(&raw, n, NULL), OSSA_OK);
    uint32_t s = seed;
    for (size_t i = 1; i < n; ++i) {
        switch (kind) {
        case SHAPE_TREE:
            raw.joints[i].parent = (int32_t)(ossa_test_rand(&s) % i);
            break;
        case SHAPE_CHAIN:
            raw.joints[i].parent = (int32_t)i - 1;
            break;
        case SHAPE_FLAT:
            raw.joints[i].parent = -1;
            break;
        case SHAPE_MIXED:
            raw.joints[i].parent = ossa_test_rand(&s) % 6 == 0 ? -1 : (int32_t)(ossa_test_rand(&s) % i);
            break;
        }
    }
    if (kind == SHAPE_TREE) raw.joints[n > 3 ? 3 : 0].parent = -1; /* a second root */
    assert_int_equal(ossa_raw_skeleton_sort_depth_first(&raw, NULL, NULL), OSSA_OK);
    assert_int_equal(ossa_skeleton_build(&raw, NULL, &f->blob, NULL), OSSA_OK);
    ossa_raw_skeleton_destroy(&raw);
    assert_int_equal(ossa_skeleton_init(&f->skel, f->blob.data, f->blob.size), OSSA_OK);
    f->pose = aligned_alloc(16, f->skel.soa_count * sizeof *f->pose);
    f->local = calloc(n, sizeof *f->local);
    f->out = aligned_alloc(16, n * sizeof *f->out);
    f->ref = aligned_alloc(16, n * sizeof *f->ref);
    for (size_t g = 0; g < f->skel.soa_count; ++g) ossa_soa_transform_set_identity(&f->pose[g]);
    for (size_t i = 0; i < n; ++i) {
        f->local[i].translation = (ossa_float3){ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f),
                                                ossa_test_randf(&s, -1.f, 1.f)};
        f->local[i].rotation =
            ossa_quat_normalize((ossa_quat){ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f),
                                            ossa_test_randf(&s, -1.f, 1.f), ossa_test_randf(&s, -1.f, 1.f)});
        f->local[i].scale = (ossa_float3){ossa_test_randf(&s, .5f, 1.5f), ossa_test_randf(&s, .5f, 1.5f),
                                          ossa_test_randf(&s, .5f, 1.5f)};
        ossa_soa_transform_set(&f->pose[i / 4], (int)(i % 4), &f->local[i]);
    }
}

/* A random tree of n joints in depth-first order, random local transforms. */
static void setup(fixture *f, size_t n, uint32_t seed) { setup_shape(f, n, seed, SHAPE_TREE); }

static void teardown(fixture *f)
{
    free(f->pose), free(f->local), free(f->out), free(f->ref);
    ossa_blob_destroy(&f->blob);
}

static void reference(const fixture *f, const ossa_float4x4 *root)
{
    for (size_t i = 0; i < f->skel.joint_count; ++i) {
        const ossa_float4x4 m = ossa_float4x4_from_transform(&f->local[i]);
        const int p = f->skel.parents[i];
        f->ref[i] = ossa_float4x4_mul(p < 0 ? root : &f->ref[p], &m);
    }
}

static void assert_matrices_near(const ossa_float4x4 *a, const ossa_float4x4 *b, size_t n, float tol)
{
    for (size_t i = 0; i < n; ++i)
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r)
                if (fabsf(a[i].cols[c][r] - b[i].cols[c][r]) > tol)
                    fail_msg("joint %zu [%d][%d]: %g vs %g", i, c, r, (double)a[i].cols[c][r], (double)b[i].cols[c][r]);
}

static void test_matches_reference(void **state)
{
    (void)state;
    const size_t sizes[] = {1, 4, 7, 67, 130};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        fixture f;
        setup(&f, sizes[k], (uint32_t)(k + 1));
        const ossa_float4x4 id = ossa_float4x4_identity();
        reference(&f, &id);
        ossa_local_to_model_job job = {&f.skel, NULL, 0, 0, f.pose, f.skel.soa_count, f.out, sizes[k]};
        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        assert_matrices_near(f.out, f.ref, sizes[k], 2e-4f);
        /* With a root matrix. */
        const ossa_transform rt = {
            {5.f, -2.f, 1.f}, ossa_quat_normalize((ossa_quat){.3f, .1f, -.2f, .9f}), {2.f, 2.f, 2.f}};
        const ossa_float4x4 root = ossa_float4x4_from_transform(&rt);
        reference(&f, &root);
        job.root = &root;
        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        assert_matrices_near(f.out, f.ref, sizes[k], 2e-3f);
        teardown(&f);
    }
}

static void test_partial_range(void **state)
{
    (void)state;
    fixture f;
    setup(&f, 30, 42);
    const ossa_float4x4 id = ossa_float4x4_identity();
    reference(&f, &id);
    ossa_local_to_model_job job = {&f.skel, NULL, 0, 0, f.pose, f.skel.soa_count, f.out, 30};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    /* Change joints 10..29 locally, update only [10, 30): parents below 10 come from output. */
    for (size_t i = 10; i < 30; ++i) {
        f.local[i].translation.x += 1.f;
        ossa_soa_transform_set(&f.pose[i / 4], (int)(i % 4), &f.local[i]);
    }
    ossa_float4x4 before[10];
    memcpy(before, f.out, sizeof before);
    reference(&f, &id);
    job.joint_begin = 10;
    job.joint_end = 30;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    assert_memory_equal(before, f.out, sizeof before); /* joints below the range untouched */
    assert_matrices_near(f.out, f.ref, 30, 2e-4f);
    teardown(&f);
}

static void test_errors_write_nothing(void **state)
{
    (void)state;
    fixture f;
    setup(&f, 9, 3);
    ossa_local_to_model_job job;
    memset(&job, 0, sizeof job);
    memset(f.out, 0x5a, 9 * sizeof *f.out);
    assert_int_equal(ossa_local_to_model_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_NO_SKELETON);
    job.skeleton = &f.skel;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_NO_INPUT);
    job.input = f.pose;
    job.input_count = 2;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INPUT_TOO_SMALL);
    job.input_count = 3;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_NO_OUTPUT);
    job.output = f.out;
    job.output_count = 8;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_OUTPUT_TOO_SMALL);
    job.output_count = 9;
    job.joint_begin = 5, job.joint_end = 5;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_RANGE);
    job.joint_begin = 0, job.joint_end = 10;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_INVALID_RANGE);
    job.joint_end = 0;
    job.output = (ossa_float4x4 *)(void *)((char *)f.out + 4); /* misaligned */
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_MISALIGNED);
    /* counts whose bytes wrap around the address space (the aliasing check used to wrap too) */
    job.output = f.out, job.input_count = SIZE_MAX / 64;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_SIZE_OVERFLOW);
    job.input_count = 3, job.output_count = SIZE_MAX / 32;
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_SIZE_OVERFLOW);
    job.output_count = 9;
    job.output = (ossa_float4x4 *)(void *)f.pose; /* overlaps the input */
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_ERROR_ALIASING);
    const unsigned char *bytes = (const unsigned char *)f.out;
    for (size_t i = 0; i < 9 * sizeof *f.out; ++i) assert_int_equal(bytes[i], 0x5a);
    teardown(&f);
}

/* Every joint range [begin, end) of a 30-joint tree (whole and partial SoA groups at either
 * end, both ends in one group): the range matches a full run and nothing outside it is
 * written. */
static void test_every_range(void **state)
{
    (void)state;
    enum { N = 30 };
    fixture f;
    setup(&f, N, 7);
    ossa_local_to_model_job job = {&f.skel, NULL, 0, 0, f.pose, f.skel.soa_count, f.out, N};
    assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
    ossa_float4x4 full[N];
    memcpy(full, f.out, sizeof full);
    for (size_t begin = 0; begin < N; ++begin)
        for (size_t end = begin + 1; end <= N; ++end) {
            memcpy(f.out, full, sizeof full);
            memset(&f.out[begin], 0x5a, (end - begin) * sizeof *f.out);
            job.joint_begin = begin, job.joint_end = end == N && begin % 2 ? 0 : end;
            assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
            assert_memory_equal(f.out, full, sizeof full);
        }
    teardown(&f);
}

/* Chains, flat and mixed hierarchies of 1 to 70 joints (whole and partial groups) against the
 * scalar reference, with the identity root and with a root matrix; and for each, every range
 * starting or ending in each group writes the bytes of a whole run and nothing outside it. */
static void test_hierarchy_shapes(void **state)
{
    (void)state;
    const shape shapes[] = {SHAPE_CHAIN, SHAPE_FLAT, SHAPE_MIXED};
    const size_t sizes[] = {1, 3, 4, 9, 70};
    const ossa_transform rt = {
        {-3.f, 2.f, 0.5f}, ossa_quat_normalize((ossa_quat){-.2f, .4f, .1f, .8f}), {.5f, .5f, .5f}};
    const ossa_float4x4 root = ossa_float4x4_from_transform(&rt), id = ossa_float4x4_identity();
    for (size_t k = 0; k < sizeof shapes / sizeof *shapes; ++k)
        for (size_t z = 0; z < sizeof sizes / sizeof *sizes; ++z) {
            const size_t n = sizes[z];
            fixture f;
            setup_shape(&f, n, (uint32_t)(31 * k + z + 5), shapes[k]);
            ossa_local_to_model_job job = {&f.skel, NULL, 0, 0, f.pose, f.skel.soa_count, f.out, n};
            for (int with_root = 0; with_root < 2; ++with_root) {
                job.root = with_root ? &root : NULL;
                reference(&f, with_root ? &root : &id);
                job.joint_begin = 0, job.joint_end = 0;
                assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
                /* A chain of 70 joints compounds rounding over 70 levels. */
                assert_matrices_near(f.out, f.ref, n, shapes[k] == SHAPE_CHAIN ? 2e-3f : 2e-4f);
                ossa_float4x4 *full = malloc(n * sizeof *full);
                memcpy(full, f.out, n * sizeof *full);
                for (size_t begin = 0; begin < n; begin += 3)
                    for (size_t end = begin + 1; end <= n; end += 2) {
                        memset(&f.out[begin], 0x5a, (end - begin) * sizeof *f.out);
                        job.joint_begin = begin, job.joint_end = end;
                        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
                        assert_memory_equal(f.out, full, n * sizeof *full);
                    }
                free(full);
            }
            teardown(&f);
        }
}

/* Double-precision model matrices of the same float local transforms. */
static void reference_double(const fixture *f, double (*ref)[4][4])
{
    for (size_t i = 0; i < f->skel.joint_count; ++i) {
        const ossa_transform *t = &f->local[i];
        const double x = (double)t->rotation.x, y = (double)t->rotation.y, z = (double)t->rotation.z,
                     w = (double)t->rotation.w;
        const double s[3] = {(double)t->scale.x, (double)t->scale.y, (double)t->scale.z};
        const double r[3][3] = {{1 - 2 * (y * y + z * z), 2 * (x * y + w * z), 2 * (x * z - w * y)},
                                {2 * (x * y - w * z), 1 - 2 * (x * x + z * z), 2 * (y * z + w * x)},
                                {2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)}};
        double m[4][4] = {{0}};
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row) m[c][row] = r[c][row] * s[c];
        m[3][0] = (double)t->translation.x, m[3][1] = (double)t->translation.y, m[3][2] = (double)t->translation.z;
        m[3][3] = 1.0;
        const int p = f->skel.parents[i];
        for (int c = 0; c < 4; ++c)
            for (int row = 0; row < 4; ++row) {
                double v = 0.0;
                for (int k = 0; k < 4; ++k) v += (p < 0 ? (k == row ? 1.0 : 0.0) : ref[p][k][row]) * m[c][k];
                ref[i][c][row] = v;
            }
    }
}

/* The bound stated in ossa/local_to_model_job.h: against double precision, every entry within
 * 1e-6 * (depth + 1) * the largest magnitude of its matrix (a column-scaled relative error). */
static void test_matches_double_precision(void **state)
{
    (void)state;
    const size_t sizes[] = {67, 130, 1024};
    double worst = 0.0;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; ++k) {
        fixture f;
        setup(&f, sizes[k], (uint32_t)(k + 11));
        double(*ref)[4][4] = malloc(sizes[k] * sizeof *ref);
        int *depth = calloc(sizes[k], sizeof *depth);
        reference_double(&f, ref);
        ossa_local_to_model_job job = {&f.skel, NULL, 0, 0, f.pose, f.skel.soa_count, f.out, sizes[k]};
        assert_int_equal(ossa_local_to_model_job_run(&job), OSSA_OK);
        for (size_t i = 0; i < sizes[k]; ++i) {
            const int p = f.skel.parents[i];
            depth[i] = p < 0 ? 0 : depth[p] + 1;
            double scale = 1.0;
            for (int c = 0; c < 4; ++c)
                for (int row = 0; row < 4; ++row) scale = fmax(scale, fabs(ref[i][c][row]));
            for (int c = 0; c < 4; ++c)
                for (int row = 0; row < 4; ++row) {
                    const double e = fabs((double)f.out[i].cols[c][row] - ref[i][c][row]) / scale / (depth[i] + 1);
                    worst = fmax(worst, e);
                }
        }
        free(ref), free(depth);
        teardown(&f);
    }
    print_message("largest error per level of depth, relative to the matrix's largest entry: %.3g\n", worst);
    assert_true(worst <= 1e-6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matches_reference),    cmocka_unit_test(test_partial_range),
        cmocka_unit_test(test_every_range),          cmocka_unit_test(test_matches_double_precision),
        cmocka_unit_test(test_errors_write_nothing), cmocka_unit_test(test_hierarchy_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
