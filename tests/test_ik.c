/* IK jobs against independent double-precision geometry: chains are built and re-posed here
 * with their own quaternion and vector maths, the jobs only supply the corrections. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/ik_aim_job.h"
#include "ossa/ik_two_bone_job.h"
#include "ossa/local_to_model_job.h"
#include "ik_reference.h"
#include "ossa/offline/builders.h"
#include "test_util.h"

/* ---- two-bone ---- */

/* A root, start (shoulder), mid (elbow) and end (hand): bones along the parent's local x, the
 * elbow bent about its local z, the hinge. */
typedef struct arm {
    rigid root, start, mid, end; /* local transforms (root's is its model transform) */
    double a, b;
    ossa_float4x4 models[3]; /* start, mid, end */
} arm;

static void arm_models(const arm *c, rigid out[3])
{
    out[0] = rigid_mul(c->root, c->start);
    out[1] = rigid_mul(out[0], c->mid);
    out[2] = rigid_mul(out[1], c->end);
}

static void arm_refresh(arm *c)
{
    rigid m[3];
    arm_models(c, m);
    for (int i = 0; i < 3; ++i) c->models[i] = to_matrix(m[i]);
}

static void arm_make(arm *c, uint32_t *s)
{
    c->a = randd(s, .2, 1.), c->b = randd(s, .2, 1.);
    c->root = (rigid){rand_rot(s), {randd(s, -1, 1), randd(s, -1, 1), randd(s, -1, 1)}};
    c->start = (rigid){rand_rot(s), {randd(s, -.3, .3), randd(s, -.3, .3), randd(s, -.3, .3)}};
    c->mid = (rigid){dq_axis_angle((d3){0, 0, 1}, randd(s, .2, 2.8)), {c->a, 0, 0}};
    c->end = (rigid){rand_rot(s), {c->b, 0, 0}};
    arm_refresh(c);
}

/* Applies the corrections (local' = local * correction) and returns the new model poses. */
static void arm_apply(const arm *c, ossa_quat start_fix, ossa_quat mid_fix, rigid out[3])
{
    arm moved = *c;
    moved.start.r = dq_mul(c->start.r, dq_of(start_fix));
    moved.mid.r = dq_mul(c->mid.r, dq_of(mid_fix));
    arm_models(&moved, out);
}

static ossa_ik_two_bone_job arm_job(arm *c, d3 target, d3 pole, ossa_quat *fs, ossa_quat *fm, bool *reached)
{
    return (ossa_ik_two_bone_job){.start_joint = &c->models[0],
                                  .mid_joint = &c->models[1],
                                  .end_joint = &c->models[2],
                                  .target = f3_of(target),
                                  .pole_vector = f3_of(pole),
                                  .mid_axis = {0.f, 0.f, 1.f},
                                  .weight = 1.f,
                                  .start_correction = fs,
                                  .mid_correction = fm,
                                  .reached = reached};
}

static void two_bone_reaches(void **state)
{
    (void)state;
    uint32_t s = 7;
    for (int it = 0; it < 2000; ++it) {
        arm c;
        arm_make(&c, &s);
        if (it % 10 == 0) { /* a chain that starts straight: the hinge axis picks the bend */
            c.mid.r = (dq){0, 0, 0, 1};
            arm_refresh(&c);
        }
        rigid m[3];
        arm_models(&c, m);
        const double lo = fabs(c.a - c.b), hi = c.a + c.b;
        const double d = lo + (hi - lo) * randd(&s, .02, .98);
        const d3 target = d3_add(m[0].t, d3_mul(rand_dir(&s), d));
        ossa_quat fs, fm;
        bool reached = false;
        ossa_ik_two_bone_job job = arm_job(&c, target, rand_dir(&s), &fs, &fm, &reached);
        if (it % 3 == 1) job.twist_angle = (float)randd(&s, -3, 3);
        if (it % 3 == 2) job.soften = .999f; /* below the target's distance: no softening */
        if (job.soften > 0.f && d > (double)job.soften * hi) job.soften = 1.f;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        assert_true(reached);
        rigid out[3];
        arm_apply(&c, fs, fm, out);
        const double err = d3_len(d3_sub(out[2].t, target));
        if (err > 1e-4 * hi) fail_msg("iteration %d: end %.3g from the target (chain %.3g)", it, err, hi);
        /* the start joint does not move */
        assert_true(d3_len(d3_sub(out[0].t, m[0].t)) < 1e-6);
    }
}

static void two_bone_unreachable(void **state)
{
    (void)state;
    uint32_t s = 11;
    for (int it = 0; it < 500; ++it) {
        arm c;
        arm_make(&c, &s);
        rigid m[3];
        arm_models(&c, m);
        const double hi = c.a + c.b;
        const d3 dir = rand_dir(&s);
        const d3 target = d3_add(m[0].t, d3_mul(dir, hi * randd(&s, 1.01, 3.)));
        ossa_quat fs, fm;
        bool reached = true;
        ossa_ik_two_bone_job job = arm_job(&c, target, rand_dir(&s), &fs, &fm, &reached);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        assert_false(reached);
        rigid out[3];
        arm_apply(&c, fs, fm, out);
        /* straight towards the target: mid and end on the ray, at a and a + b */
        const d3 mid_expected = d3_add(m[0].t, d3_mul(dir, c.a));
        const d3 end_expected = d3_add(m[0].t, d3_mul(dir, hi));
        assert_true(d3_len(d3_sub(out[1].t, mid_expected)) < 1e-4 * hi);
        assert_true(d3_len(d3_sub(out[2].t, end_expected)) < 1e-4 * hi);
    }
}

static void two_bone_soften(void **state)
{
    (void)state;
    uint32_t s = 5;
    arm c;
    arm_make(&c, &s);
    rigid m[3];
    arm_models(&c, m);
    const double L = c.a + c.b, soften = .9, hard = soften * L, soft = L - hard;
    const d3 dir = rand_dir(&s);
    double previous = 0.;
    for (double d = .95 * L; d < 2. * L; d += .05 * L) {
        ossa_quat fs, fm;
        bool reached = true;
        ossa_ik_two_bone_job job = arm_job(&c, d3_add(m[0].t, d3_mul(dir, d)), (d3){0, 1, 0}, &fs, &fm, &reached);
        job.soften = (float)soften;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        assert_false(reached);
        rigid out[3];
        arm_apply(&c, fs, fm, out);
        const double x = (d - hard) / soft, k = 1. / (1. + x / 4.);
        const double expected = hard + soft * (1. - k * k * k * k);
        const d3 end = d3_sub(out[2].t, m[0].t);
        assert_true(fabs(d3_len(end) - expected) < 1e-4 * L);
        assert_true(d3_dot(d3_norm(end), dir) > 1. - 1e-6); /* still towards the target */
        assert_true(d3_len(end) > previous && d3_len(end) < L);
        previous = d3_len(end);
    }
}

static void two_bone_weight_zero(void **state)
{
    (void)state;
    uint32_t s = 3;
    for (int it = 0; it < 100; ++it) {
        arm c;
        arm_make(&c, &s);
        ossa_quat fs, fm;
        ossa_ik_two_bone_job job = arm_job(&c, rand_dir(&s), rand_dir(&s), &fs, &fm, NULL);
        job.weight = 0.f;
        job.twist_angle = 1.f;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        const ossa_quat id = {0.f, 0.f, 0.f, 1.f};
        assert_memory_equal(&fs, &id, sizeof id);
        assert_memory_equal(&fm, &id, sizeof id);
    }
}

/* A half weight turns each joint by half of the full correction's angle or less (nlerp). */
static void two_bone_weight_half(void **state)
{
    (void)state;
    uint32_t s = 13;
    arm c;
    arm_make(&c, &s);
    ossa_quat full[2], half[2];
    ossa_ik_two_bone_job job = arm_job(&c, (d3){.3, .2, .1}, (d3){0, 1, 0}, &full[0], &full[1], NULL);
    assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
    job.weight = .5f, job.start_correction = &half[0], job.mid_correction = &half[1];
    assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
    for (int i = 0; i < 2; ++i) {
        const double a_full = 2. * acos(fmin(1., fabs((double)full[i].w)));
        const double a_half = 2. * acos(fmin(1., fabs((double)half[i].w)));
        assert_true(fabs(a_half - a_full / 2.) < 1e-3 + .1 * a_full);
    }
}

static void two_bone_pole(void **state)
{
    (void)state;
    uint32_t s = 17;
    for (int it = 0; it < 1000; ++it) {
        arm c;
        arm_make(&c, &s);
        rigid m[3];
        arm_models(&c, m);
        const double lo = fabs(c.a - c.b), hi = c.a + c.b;
        const d3 dir = rand_dir(&s);
        const d3 target = d3_add(m[0].t, d3_mul(dir, lo + (hi - lo) * randd(&s, .05, .95)));
        d3 pole = rand_dir(&s);
        if (fabs(d3_dot(pole, dir)) > .95) continue; /* nearly along the line: no plane */
        ossa_quat fs, fm;
        ossa_ik_two_bone_job job = arm_job(&c, target, d3_mul(pole, randd(&s, .1, 10)), &fs, &fm, NULL);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        rigid out[3];
        arm_apply(&c, fs, fm, out);
        const d3 sm = d3_sub(out[1].t, m[0].t);
        const d3 normal = d3_norm(d3_cross(dir, pole));
        const d3 pole_side = d3_norm(d3_cross(normal, dir)); /* pole without its part along dir */
        assert_true(fabs(d3_dot(sm, normal)) < 1e-4 * hi);   /* in the pole plane */
        assert_true(d3_dot(sm, pole_side) > 0.);             /* on the pole's side */
        /* a twist of pi puts it on the other side */
        job.twist_angle = 3.14159265f;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        arm_apply(&c, fs, fm, out);
        assert_true(d3_dot(d3_sub(out[1].t, m[0].t), pole_side) < 0.);
    }
}

static void two_bone_errors(void **state)
{
    (void)state;
    uint32_t s = 1;
    arm c;
    arm_make(&c, &s);
    ossa_quat fs = {9, 9, 9, 9}, fm = {9, 9, 9, 9};
    const ossa_quat pattern = fs;
    bool reached = true;
    assert_int_equal(ossa_ik_two_bone_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    ossa_ik_two_bone_job zero = {0};
    assert_int_equal(ossa_ik_two_bone_job_run(&zero), OSSA_ERROR_NO_INPUT);
    const ossa_ik_two_bone_job good = arm_job(&c, (d3){.2, .3, .4}, (d3){0, 1, 0}, &fs, &fm, &reached);
    assert_int_equal(ossa_ik_two_bone_job_validate(&good), OSSA_OK);
    ossa_ik_two_bone_job j;
#define EXPECT(mutation, code)                                                                                         \
    do {                                                                                                               \
        j = good;                                                                                                      \
        mutation;                                                                                                      \
        assert_int_equal(ossa_ik_two_bone_job_run(&j), code);                                                          \
        assert_memory_equal(&fs, &pattern, sizeof fs);                                                                 \
        assert_memory_equal(&fm, &pattern, sizeof fm);                                                                 \
        assert_true(reached);                                                                                          \
    } while (0)
    EXPECT(j.mid_joint = NULL, OSSA_ERROR_NO_INPUT);
    EXPECT(j.end_joint = NULL, OSSA_ERROR_NO_INPUT);
    EXPECT(j.start_correction = NULL, OSSA_ERROR_NO_OUTPUT);
    EXPECT(j.mid_correction = NULL, OSSA_ERROR_NO_OUTPUT);
    EXPECT(j.weight = NAN, OSSA_ERROR_INVALID_WEIGHT);
    EXPECT(j.weight = INFINITY, OSSA_ERROR_INVALID_WEIGHT);
    EXPECT(j.target.y = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.pole_vector.z = INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.mid_axis.x = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.twist_angle = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.soften = -INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.pole_vector = (ossa_float3){0}, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.mid_axis = (ossa_float3){0}, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.mid_correction = j.start_correction, OSSA_ERROR_ALIASING);
    EXPECT(j.reached = (bool *)(void *)j.mid_correction, OSSA_ERROR_ALIASING);
    ossa_float4x4 bad[1];
    bad[0] = c.models[1];
    bad[0].cols[1][2] = NAN;
    EXPECT(j.mid_joint = &bad[0], OSSA_ERROR_INVALID_ARGUMENT);
    bad[0] = c.models[0];
    EXPECT(j.mid_joint = &bad[0], OSSA_ERROR_INVALID_ARGUMENT); /* mid on start */
    EXPECT(j.start_correction = (ossa_quat *)(void *)&c.models[2].cols[1], OSSA_ERROR_ALIASING);
    EXPECT(j.start_joint = (const ossa_float4x4 *)(const void *)((const char *)&bad[0] + 4), OSSA_ERROR_MISALIGNED);
#undef EXPECT
}

/* ---- aim ---- */

/* Finds a unit vector perpendicular to v. */
static d3 perpendicular(d3 v, uint32_t *s)
{
    for (;;) {
        const d3 c = d3_cross(v, rand_dir(s));
        if (d3_len(c) > .2) return d3_norm(c);
    }
}

static void aim_points(void **state)
{
    (void)state;
    uint32_t s = 19;
    for (int it = 0; it < 2000; ++it) {
        const rigid joint = {rand_rot(&s), {randd(&s, -1, 1), randd(&s, -1, 1), randd(&s, -1, 1)}};
        const ossa_float4x4 model = to_matrix(joint);
        const d3 forward = rand_dir(&s);
        const d3 up = it % 2 ? perpendicular(forward, &s) : rand_dir(&s);
        const d3 target = d3_add(joint.t, d3_mul(rand_dir(&s), randd(&s, .1, 5)));
        d3 pole = rand_dir(&s);
        const d3 aim_dir = d3_norm(d3_sub(target, joint.t));
        if (fabs(d3_dot(pole, aim_dir)) > .95 || fabs(d3_dot(up, forward)) > .95) continue;
        ossa_quat fix;
        bool reached = false;
        const ossa_ik_aim_job job = {.joint = &model,
                                     .target = f3_of(target),
                                     .forward = f3_of(d3_mul(forward, randd(&s, .5, 2))),
                                     .up = f3_of(up),
                                     .pole_vector = f3_of(pole),
                                     .weight = 1.f,
                                     .correction = &fix,
                                     .reached = &reached};
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        assert_true(reached);
        const dq r = dq_mul(joint.r, dq_of(fix));
        const d3 f_ms = dq_rotate(r, forward), u_ms = dq_rotate(r, up);
        const double angle = angle_between(f_ms, aim_dir);
        if (angle > 1e-5) fail_msg("iteration %d: forward %.3g rad from the target", it, angle);
        const d3 normal = d3_norm(d3_cross(aim_dir, pole));
        assert_true(fabs(d3_dot(u_ms, normal)) < 1e-5);
        const d3 pole_side = d3_cross(normal, aim_dir);
        assert_true(d3_dot(u_ms, pole_side) > 0.);
    }
}

/* With an offset the forward ray cast from the offset passes through the target. */
static void aim_offset(void **state)
{
    (void)state;
    uint32_t s = 23;
    for (int it = 0; it < 1000; ++it) {
        const rigid joint = {rand_rot(&s), {randd(&s, -1, 1), randd(&s, -1, 1), randd(&s, -1, 1)}};
        const ossa_float4x4 model = to_matrix(joint);
        const d3 forward = rand_dir(&s), up = perpendicular(forward, &s);
        const d3 offset = d3_mul(rand_dir(&s), randd(&s, 0, .2));
        const d3 target = d3_add(joint.t, d3_mul(rand_dir(&s), randd(&s, .5, 5)));
        ossa_quat fix;
        bool reached = false;
        const ossa_ik_aim_job job = {.joint = &model,
                                     .target = f3_of(target),
                                     .forward = f3_of(forward),
                                     .up = f3_of(up),
                                     .pole_vector = {0.f, 1.f, 0.f},
                                     .offset = f3_of(offset),
                                     .weight = 1.f,
                                     .correction = &fix,
                                     .reached = &reached};
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        assert_true(reached);
        const dq r = dq_mul(joint.r, dq_of(fix));
        const d3 from = d3_add(joint.t, dq_rotate(r, offset));
        const double angle = angle_between(dq_rotate(r, forward), d3_sub(target, from));
        if (angle > 1e-5) fail_msg("iteration %d: ray %.3g rad from the target", it, angle);
    }
    /* A target nearer than the ray ever comes is not reached. */
    const ossa_float4x4 id = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    ossa_quat fix;
    bool reached = true;
    const ossa_ik_aim_job near = {.joint = &id,
                                  .target = {.1f, 0.f, 0.f},
                                  .forward = {1.f, 0.f, 0.f},
                                  .up = {0.f, 1.f, 0.f},
                                  .pole_vector = {0.f, 1.f, 0.f},
                                  .offset = {0.f, 0.f, .5f},
                                  .weight = 1.f,
                                  .correction = &fix,
                                  .reached = &reached};
    assert_int_equal(ossa_ik_aim_job_run(&near), OSSA_OK);
    assert_false(reached);
}

/* A joint with its own non-uniform scale (model = T R S): forward, up and offset are scaled
 * with the joint, and the correction (local' = local * fix, under S) still aims the scaled
 * ray at the target with up in the pole's half-plane. */
static void aim_scaled_joint(void **state)
{
    (void)state;
    uint32_t s = 47;
    for (int it = 0; it < 1000; ++it) {
        const rigid joint = {rand_rot(&s), {randd(&s, -1, 1), randd(&s, -1, 1), randd(&s, -1, 1)}};
        const d3 scale = {randd(&s, .2, 5), randd(&s, .2, 5), randd(&s, .2, 5)};
        ossa_float4x4 model = to_matrix(joint);
        for (int c = 0; c < 3; ++c)
            for (int row = 0; row < 3; ++row)
                model.cols[c][row] *= (float)(c == 0 ? scale.x : c == 1 ? scale.y : scale.z);
        const d3 forward = rand_dir(&s), up = perpendicular(forward, &s), pole = rand_dir(&s);
        const d3 offset = d3_mul(rand_dir(&s), randd(&s, 0, .1));
        const d3 target = d3_add(joint.t, d3_mul(rand_dir(&s), randd(&s, 2, 6)));
        const d3 aim_dir = d3_norm(d3_sub(target, joint.t));
        if (fabs(d3_dot(pole, aim_dir)) > .95) continue;
        ossa_quat fix;
        bool reached = false;
        const ossa_ik_aim_job job = {.joint = &model,
                                     .target = f3_of(target),
                                     .forward = f3_of(forward),
                                     .up = f3_of(up),
                                     .pole_vector = f3_of(pole),
                                     .offset = f3_of(offset),
                                     .weight = 1.f,
                                     .correction = &fix,
                                     .reached = &reached};
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        assert_true(reached);
        const dq r = dq_mul(joint.r, dq_of(fix));
        const d3 sf = {forward.x * scale.x, forward.y * scale.y, forward.z * scale.z};
        const d3 so = {offset.x * scale.x, offset.y * scale.y, offset.z * scale.z};
        const d3 su = {up.x * scale.x, up.y * scale.y, up.z * scale.z};
        const d3 from = d3_add(joint.t, dq_rotate(r, so));
        const double angle = angle_between(dq_rotate(r, sf), d3_sub(target, from));
        if (angle > 1e-5) fail_msg("iteration %d: scaled ray %.3g rad from the target", it, angle);
        const d3 u_ms = d3_norm(dq_rotate(r, su)), normal = d3_norm(d3_cross(aim_dir, pole));
        /* up is in the pole plane when it is not along the aim */
        if (d3_len(d3_cross(u_ms, aim_dir)) > .3) {
            assert_true(fabs(d3_dot(u_ms, normal)) < 1e-5);
            assert_true(d3_dot(u_ms, d3_cross(normal, aim_dir)) > 0.);
        }
    }
}

/* twist_angle turns the aimed joint about the joint->target axis by that angle (right-handed)
 * from where the pole alone leaves it, and keeps the aim. */
static void aim_twist(void **state)
{
    (void)state;
    uint32_t s = 41;
    for (int it = 0; it < 200; ++it) {
        const rigid joint = {rand_rot(&s), {randd(&s, -1, 1), randd(&s, -1, 1), randd(&s, -1, 1)}};
        const ossa_float4x4 model = to_matrix(joint);
        const d3 forward = rand_dir(&s), up = perpendicular(forward, &s);
        const d3 target = d3_add(joint.t, d3_mul(rand_dir(&s), randd(&s, .5, 5)));
        const d3 aim_dir = d3_norm(d3_sub(target, joint.t));
        const double twist = randd(&s, -3, 3);
        ossa_quat fix[2];
        ossa_ik_aim_job job = {.joint = &model,
                               .target = f3_of(target),
                               .forward = f3_of(forward),
                               .up = f3_of(up),
                               .pole_vector = f3_of(rand_dir(&s)),
                               .weight = 1.f,
                               .correction = &fix[0]};
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        job.twist_angle = (float)twist, job.correction = &fix[1];
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        const d3 u0 = dq_rotate(dq_mul(joint.r, dq_of(fix[0])), up);
        const d3 u1 = dq_rotate(dq_mul(joint.r, dq_of(fix[1])), up);
        const d3 expected = dq_rotate(dq_axis_angle(aim_dir, twist), u0);
        assert_true(d3_len(d3_sub(u1, expected)) < 1e-5);
        assert_true(angle_between(dq_rotate(dq_mul(joint.r, dq_of(fix[1])), forward), aim_dir) < 1e-5);
    }
}

/* A uniform scale on the whole scene (matrices' 3x3 parts and all positions) leaves the
 * corrections unchanged: they are taken in the joints' normalised frames. */
static void scale_invariance(void **state)
{
    (void)state;
    uint32_t s = 43;
    for (int it = 0; it < 200; ++it) {
        arm c;
        arm_make(&c, &s);
        const float k = (float)randd(&s, .01, 100);
        arm scaled = c;
        for (int j = 0; j < 3; ++j)
            for (int col = 0; col < 4; ++col)
                for (int row = 0; row < 3; ++row) scaled.models[j].cols[col][row] *= k;
        const d3 target = {randd(&s, -1, 1), randd(&s, -1, 1), randd(&s, -1, 1)}, pole = rand_dir(&s);
        ossa_quat fs[2], fm[2], fa[2];
        ossa_ik_two_bone_job job = arm_job(&c, target, pole, &fs[0], &fm[0], NULL);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        job = arm_job(&scaled, d3_mul(target, k), pole, &fs[1], &fm[1], NULL);
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        ossa_ik_aim_job aim = {.joint = &c.models[1],
                               .target = f3_of(target),
                               .forward = {1.f, 0.f, 0.f},
                               .up = {0.f, 1.f, 0.f},
                               .pole_vector = f3_of(pole),
                               .offset = {0.f, .1f, 0.f},
                               .weight = 1.f,
                               .correction = &fa[0]};
        assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_OK);
        aim.joint = &scaled.models[1], aim.target = f3_of(d3_mul(target, k)), aim.correction = &fa[1];
        assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_OK);
        const ossa_quat *pairs[3] = {fs, fm, fa};
        for (int p = 0; p < 3; ++p) {
            const dq a = dq_of(pairs[p][0]), b = dq_of(pairs[p][1]);
            const double dot = fabs(a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w);
            if (dot < 1. - 1e-9) fail_msg("iteration %d, correction %d differs: |dot| %.12f", it, p, dot);
        }
    }
}

static void aim_weight_zero(void **state)
{
    (void)state;
    uint32_t s = 29;
    for (int it = 0; it < 100; ++it) {
        const ossa_float4x4 model = to_matrix((rigid){rand_rot(&s), {0, 0, 0}});
        ossa_quat fix;
        const ossa_ik_aim_job job = {.joint = &model,
                                     .target = f3_of(rand_dir(&s)),
                                     .forward = {0.f, 1.f, 0.f},
                                     .up = {1.f, 0.f, 0.f},
                                     .pole_vector = {0.f, 1.f, 0.f},
                                     .twist_angle = 1.f,
                                     .correction = &fix};
        assert_int_equal(ossa_ik_aim_job_run(&job), OSSA_OK);
        const ossa_quat id = {0.f, 0.f, 0.f, 1.f};
        assert_memory_equal(&fix, &id, sizeof id);
    }
}

static void aim_errors(void **state)
{
    (void)state;
    const ossa_float4x4 id = {{{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}};
    ossa_quat fix = {9, 9, 9, 9};
    const ossa_quat pattern = fix;
    assert_int_equal(ossa_ik_aim_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    ossa_ik_aim_job zero = {0};
    assert_int_equal(ossa_ik_aim_job_run(&zero), OSSA_ERROR_NO_INPUT);
    const ossa_ik_aim_job good = {.joint = &id,
                                  .target = {1.f, 2.f, 3.f},
                                  .forward = {0.f, 1.f, 0.f},
                                  .up = {1.f, 0.f, 0.f},
                                  .pole_vector = {0.f, 1.f, 0.f},
                                  .weight = 1.f,
                                  .correction = &fix};
    assert_int_equal(ossa_ik_aim_job_validate(&good), OSSA_OK);
    ossa_ik_aim_job j;
#define EXPECT(mutation, code)                                                                                         \
    do {                                                                                                               \
        j = good;                                                                                                      \
        mutation;                                                                                                      \
        assert_int_equal(ossa_ik_aim_job_run(&j), code);                                                               \
        assert_memory_equal(&fix, &pattern, sizeof fix);                                                               \
    } while (0)
    EXPECT(j.correction = NULL, OSSA_ERROR_NO_OUTPUT);
    EXPECT(j.weight = NAN, OSSA_ERROR_INVALID_WEIGHT);
    EXPECT(j.target.x = INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.forward = (ossa_float3){0}, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.up = (ossa_float3){0}, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.pole_vector = (ossa_float3){0}, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.offset.z = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.twist_angle = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.reached = (bool *)(void *)&fix, OSSA_ERROR_ALIASING);
    ossa_float4x4 bad = id;
    bad.cols[3][1] = NAN;
    EXPECT(j.joint = &bad, OSSA_ERROR_INVALID_ARGUMENT);
    ossa_float4x4 alias = id;
    EXPECT((j.joint = &alias, j.correction = (ossa_quat *)(void *)&alias.cols[2]), OSSA_ERROR_ALIASING);
    /* the weight's error first; values whose squares underflow make a zero length */
    EXPECT((j.weight = INFINITY, j.up.y = NAN), OSSA_ERROR_INVALID_WEIGHT);
    EXPECT(j.forward = ((ossa_float3){1e-30f, -1e-30f, 0.f}), OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.pole_vector.z = -INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.up.z = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.target.z = NAN, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.offset.x = -INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.twist_angle = INFINITY, OSSA_ERROR_INVALID_ARGUMENT);
    EXPECT(j.weight = -INFINITY, OSSA_ERROR_INVALID_WEIGHT);
    /* a matrix at buf + 8, the outputs around it */
    OSSA_ALIGNAS(16) float buf[32] = {0};
    memcpy(&buf[8], &id, sizeof id);
    EXPECT(j.joint = (const ossa_float4x4 *)(void *)&buf[1], OSSA_ERROR_MISALIGNED);
    EXPECT((j.joint = (const ossa_float4x4 *)(void *)&buf[8], j.correction = (ossa_quat *)(void *)&buf[5]),
           OSSA_ERROR_ALIASING);
    EXPECT((j.joint = (const ossa_float4x4 *)(void *)&buf[8], j.correction = (ossa_quat *)(void *)&buf[23]),
           OSSA_ERROR_ALIASING);
    EXPECT((j.joint = (const ossa_float4x4 *)(void *)&buf[8], j.reached = (bool *)(void *)&buf[23]),
           OSSA_ERROR_ALIASING);
    EXPECT(j.reached = (bool *)(void *)&fix.w, OSSA_ERROR_ALIASING);
    ossa_quat adjacent[2];
    bool flag = false;
    j = good, j.joint = (const ossa_float4x4 *)(void *)&buf[8], j.correction = &adjacent[0];
    j.reached = &flag;
    assert_int_equal(ossa_ik_aim_job_run(&j), OSSA_OK);
    ossa_ik_aim_job edge = good;
    edge.joint = (const ossa_float4x4 *)(void *)&buf[8];
    edge.correction = (ossa_quat *)(void *)&buf[4]; /* ends where the matrix begins */
    edge.reached = (bool *)(void *)&buf[24];        /* begins where it ends */
    assert_int_equal(ossa_ik_aim_job_validate(&edge), OSSA_OK);
#undef EXPECT
}

/* A spine-neck-head chain built as a skeleton: the chain job's corrections applied to the
 * local pose, the local-to-model job recomputed, the head's ray passes through the target. */
static void aim_chain(void **state)
{
    (void)state;
    enum { N = 5 };
    ossa_raw_skeleton raw;
    assert_int_equal(ossa_raw_skeleton_create(&raw, N, NULL), OSSA_OK);
    for (int i = 1; i < N; ++i) raw.joints[i].parent = i - 1;
    ossa_blob blob = {0};
    assert_int_equal(ossa_skeleton_build(&raw, NULL, &blob, NULL), OSSA_OK);
    ossa_raw_skeleton_destroy(&raw);
    ossa_skeleton skel;
    assert_int_equal(ossa_skeleton_init(&skel, blob.data, blob.size), OSSA_OK);
    ossa_soa_transform *pose = aligned_alloc(16, skel.soa_count * sizeof *pose);
    ossa_float4x4 *models = aligned_alloc(16, N * sizeof *models);
    uint32_t s = 31;
    for (int it = 0; it < 300; ++it) {
        rigid local[N];
        for (size_t g = 0; g < skel.soa_count; ++g) ossa_soa_transform_set_identity(&pose[g]);
        for (int i = 0; i < N; ++i) {
            local[i] = (rigid){dq_axis_angle(rand_dir(&s), randd(&s, -.5, .5)), {0, i ? .2 : 0., 0}};
            const ossa_transform t = {
                f3_of(local[i].t),
                {(float)local[i].r.x, (float)local[i].r.y, (float)local[i].r.z, (float)local[i].r.w},
                {1.f, 1.f, 1.f}};
            ossa_soa_transform_set(&pose[i / 4], i % 4, &t);
        }
        const ossa_local_to_model_job l2m = {
            .skeleton = &skel, .input = pose, .input_count = skel.soa_count, .output = models, .output_count = N};
        assert_int_equal(ossa_local_to_model_job_run(&l2m), OSSA_OK);
        const int chain[4] = {4, 3, 2, 1};
        const float weights[4] = {.3f, .5f, .5f, 1.f};
        const d3 target = {randd(&s, -2, 2), randd(&s, 1, 3), randd(&s, .5, 2)};
        const d3 forward = {0, 0, 1}, offset = {0, .1, .05};
        ossa_quat fixes[4];
        bool reached = false;
        const ossa_ik_aim_chain_job job = {.models = models,
                                           .model_count = N,
                                           .joints = chain,
                                           .joint_count = 4,
                                           .joint_weights = it % 2 ? weights : NULL,
                                           .target = f3_of(target),
                                           .forward = f3_of(forward),
                                           .up = {0.f, 1.f, 0.f},
                                           .pole_vector = {0.f, 1.f, 0.f},
                                           .offset = f3_of(offset),
                                           .weight = 1.f,
                                           .corrections = fixes,
                                           .correction_count = 4,
                                           .reached = &reached};
        assert_int_equal(ossa_ik_aim_chain_job_run(&job), OSSA_OK);
        assert_true(reached);
        /* every joint takes part when the weights are spread */
        for (int i = 0; i < 4; ++i) assert_true(fabs((double)fixes[i].w) < 1. - 1e-9 || it % 2);
        /* the independent re-pose: local' = local * fix, then the model chain in doubles */
        for (int i = 0; i < 4; ++i) local[chain[i]].r = dq_mul(local[chain[i]].r, dq_of(fixes[i]));
        rigid m = local[0];
        for (int i = 1; i < N; ++i) m = rigid_mul(m, local[i]);
        const d3 from = d3_add(m.t, dq_rotate(m.r, offset));
        const double angle = angle_between(dq_rotate(m.r, forward), d3_sub(target, from));
        if (angle > 1e-5) fail_msg("iteration %d: head ray %.3g rad from the target", it, angle);
        /* the same through the library: corrections applied to the SoA pose, models rerun */
        for (int i = 0; i < 4; ++i)
            assert_int_equal(ossa_ik_apply_correction(pose, skel.soa_count, chain[i], fixes[i]), OSSA_OK);
        const ossa_local_to_model_job partial = {.skeleton = &skel,
                                                 .joint_begin = 1,
                                                 .input = pose,
                                                 .input_count = skel.soa_count,
                                                 .output = models,
                                                 .output_count = N};
        assert_int_equal(ossa_local_to_model_job_run(&partial), OSSA_OK);
        const d3 head = {models[4].cols[3][0], models[4].cols[3][1], models[4].cols[3][2]};
        assert_true(d3_len(d3_sub(head, m.t)) < 1e-4);
    }
    ossa_quat fixes[2];
    const int bad_order[2] = {1, 2};
    ossa_ik_aim_chain_job bad = {.models = models,
                                 .model_count = N,
                                 .joints = bad_order,
                                 .joint_count = 2,
                                 .forward = {0.f, 0.f, 1.f},
                                 .up = {0.f, 1.f, 0.f},
                                 .pole_vector = {0.f, 1.f, 0.f},
                                 .corrections = fixes,
                                 .correction_count = 2};
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_INVALID_RANGE);
    const int good_order[2] = {2, 1};
    bad.joints = good_order;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_OK);
    bad.up = (ossa_float3){0.f, 0.f, 0.f};
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_INVALID_ARGUMENT);
    bad.up = (ossa_float3){0.f, 1.f, 0.f}, bad.offset.y = NAN;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_INVALID_ARGUMENT);
    bad.offset.y = 0.f, bad.twist_angle = -INFINITY;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_INVALID_ARGUMENT);
    bad.twist_angle = 0.f;
    bad.correction_count = 1;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_OUTPUT_TOO_SMALL);
    bad.correction_count = 2, bad.joint_count = 0;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_INVALID_RANGE);
    /* a model count whose bytes wrap around the address space (the aliasing span wrapped too) */
    ossa_quat before[2];
    memcpy(before, fixes, sizeof before);
    bad.joint_count = 2, bad.model_count = SIZE_MAX / 32;
    assert_int_equal(ossa_ik_aim_chain_job_run(&bad), OSSA_ERROR_SIZE_OVERFLOW);
    assert_memory_equal(fixes, before, sizeof before);
    ossa_ik_aim_chain_job zero = {0};
    assert_int_equal(ossa_ik_aim_chain_job_run(&zero), OSSA_ERROR_NO_INPUT);
    assert_int_equal(ossa_ik_aim_chain_job_run(NULL), OSSA_ERROR_NULL_ARGUMENT);
    free(pose), free(models);
    ossa_blob_destroy(&blob);
}

/* ---- extreme magnitudes ---- */

static bool quat_finite(ossa_quat q) { return isfinite(q.x) && isfinite(q.y) && isfinite(q.z) && isfinite(q.w); }

/* Chains and targets scaled by powers of two far from 1 give the same corrections bit for bit
 * (the solves scale their vectors by powers of two before any product of high degree); at
 * 2^50 these products used to overflow to NaN corrections with OSSA_OK. */
static void extreme_scales_exact(void **state)
{
    (void)state;
    uint32_t s = 47;
    const double ks[4] = {0x1p50, 0x1p-40, 0x1p30, 0x1p-20};
    for (int it = 0; it < 200; ++it) {
        arm c;
        arm_make(&c, &s);
        const d3 target = {randd(&s, -2, 2), randd(&s, -2, 2), randd(&s, -2, 2)}, pole = rand_dir(&s);
        const d3 forward = rand_dir(&s), up = rand_dir(&s), offset = {0, .1, .05};
        ossa_quat fs, fm, fa, fc[2];
        ossa_ik_two_bone_job job = arm_job(&c, target, pole, &fs, &fm, NULL);
        job.soften = it % 2 ? .9f : 0.f;
        assert_int_equal(ossa_ik_two_bone_job_run(&job), OSSA_OK);
        ossa_ik_aim_job aim = {.joint = &c.models[1],
                               .target = f3_of(target),
                               .forward = f3_of(forward),
                               .up = f3_of(up),
                               .pole_vector = f3_of(pole),
                               .offset = f3_of(offset),
                               .weight = 1.f,
                               .correction = &fa};
        assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_OK);
        const int joints[2] = {2, 0};
        ossa_ik_aim_chain_job chain = {.models = c.models,
                                       .model_count = 3,
                                       .joints = joints,
                                       .joint_count = 2,
                                       .target = aim.target,
                                       .forward = aim.forward,
                                       .up = aim.up,
                                       .pole_vector = aim.pole_vector,
                                       .offset = aim.offset,
                                       .weight = 1.f,
                                       .corrections = fc,
                                       .correction_count = 2};
        assert_int_equal(ossa_ik_aim_chain_job_run(&chain), OSSA_OK);
        for (int ki = 0; ki < 4; ++ki) {
            const double k = ks[ki];
            arm scaled = c;
            for (int j = 0; j < 3; ++j)
                for (int col = 0; col < 4; ++col)
                    for (int row = 0; row < 3; ++row) scaled.models[j].cols[col][row] *= (float)k;
            ossa_quat gs = {9, 9, 9, 9}, gm = gs, ga = gs, gc[2] = {gs, gs};
            ossa_ik_two_bone_job sj = arm_job(&scaled, d3_mul(target, k), d3_mul(pole, 1. / k), &gs, &gm, NULL);
            sj.soften = job.soften;
            assert_int_equal(ossa_ik_two_bone_job_run(&sj), OSSA_OK);
            assert_memory_equal(&gs, &fs, sizeof fs);
            assert_memory_equal(&gm, &fm, sizeof fm);
            /* joint-space directions scaled the other way, the pole by k */
            ossa_ik_aim_job sa = aim;
            sa.joint = &scaled.models[1], sa.target = f3_of(d3_mul(target, k)),
            sa.forward = f3_of(d3_mul(forward, 1. / k));
            sa.up = f3_of(d3_mul(up, k)), sa.pole_vector = f3_of(d3_mul(pole, k)), sa.correction = &ga;
            assert_int_equal(ossa_ik_aim_job_run(&sa), OSSA_OK);
            assert_memory_equal(&ga, &fa, sizeof fa);
            ossa_ik_aim_chain_job sc = chain;
            sc.models = scaled.models, sc.target = sa.target, sc.corrections = gc;
            assert_int_equal(ossa_ik_aim_chain_job_run(&sc), OSSA_OK);
            assert_memory_equal(gc, fc, sizeof fc);
        }
    }
}

/* A target or positions beyond 1e18 (the audit's 1e30) are refused, nothing written; up to
 * 1e18 the corrections are finite and correct. */
static void extreme_values_refused_or_finite(void **state)
{
    (void)state;
    uint32_t s = 53;
    arm c;
    arm_make(&c, &s);
    const ossa_quat pattern = {9, 9, 9, 9};
    ossa_quat fs = pattern, fm = pattern, fa = pattern, fc[2] = {pattern, pattern};
    bool reached = true;
    const d3 dir = rand_dir(&s), pole = perpendicular(dir, &s);
    const ossa_ik_two_bone_job good = arm_job(&c, dir, pole, &fs, &fm, &reached);
    ossa_ik_two_bone_job j = good;
    const float huge[3] = {1e30f, 2e18f, -1.1e18f};
    for (int h = 0; h < 3; ++h) {
        const float v = huge[h];
        arm far = c;
        far.models[1].cols[3][1] = v;
        ossa_ik_two_bone_job muts[5] = {good, good, good, good, good};
        muts[0].target = (ossa_float3){v, v, v}, muts[1].target.z = v, muts[2].pole_vector.x = v;
        muts[3].mid_axis.y = v, muts[4].mid_joint = &far.models[1];
        for (int m = 0; m < 5; ++m) {
            assert_int_equal(ossa_ik_two_bone_job_validate(&muts[m]), OSSA_ERROR_INVALID_ARGUMENT);
            assert_int_equal(ossa_ik_two_bone_job_run(&muts[m]), OSSA_ERROR_INVALID_ARGUMENT);
            assert_memory_equal(&fs, &pattern, sizeof fs), assert_memory_equal(&fm, &pattern, sizeof fm);
            assert_true(reached);
        }
        const ossa_ik_aim_job aim_good = {.joint = &c.models[1],
                                          .target = f3_of(dir),
                                          .forward = {1.f, 0.f, 0.f},
                                          .up = {0.f, 1.f, 0.f},
                                          .pole_vector = f3_of(pole),
                                          .weight = 1.f,
                                          .correction = &fa,
                                          .reached = &reached};
        ossa_ik_aim_job am[6] = {aim_good, aim_good, aim_good, aim_good, aim_good, aim_good};
        am[0].target.x = v, am[1].forward.y = v, am[2].up.z = v, am[3].pole_vector.x = v, am[4].offset.y = v;
        am[5].joint = &far.models[1];
        for (int m = 0; m < 6; ++m) {
            assert_int_equal(ossa_ik_aim_job_validate(&am[m]), OSSA_ERROR_INVALID_ARGUMENT);
            assert_int_equal(ossa_ik_aim_job_run(&am[m]), OSSA_ERROR_INVALID_ARGUMENT);
            assert_memory_equal(&fa, &pattern, sizeof fa);
            assert_true(reached);
        }
        const int joints[2] = {1, 0};
        ossa_ik_aim_chain_job chain = {.models = far.models,
                                       .model_count = 3,
                                       .joints = joints,
                                       .joint_count = 2,
                                       .target = f3_of(dir),
                                       .forward = {1.f, 0.f, 0.f},
                                       .up = {0.f, 1.f, 0.f},
                                       .pole_vector = f3_of(pole),
                                       .weight = 1.f,
                                       .corrections = fc,
                                       .correction_count = 2,
                                       .reached = &reached};
        assert_int_equal(ossa_ik_aim_chain_job_run(&chain), OSSA_ERROR_INVALID_ARGUMENT);
        chain.models = c.models, chain.target.y = v;
        assert_int_equal(ossa_ik_aim_chain_job_run(&chain), OSSA_ERROR_INVALID_ARGUMENT);
        assert_memory_equal(&fc[0], &pattern, sizeof pattern), assert_memory_equal(&fc[1], &pattern, sizeof pattern);
        assert_true(reached);
    }
    /* a target 1e18 away along dir: the chain straightens towards it, the aim points at it */
    rigid now[3], moved[3];
    arm_models(&c, now);
    const d3 far_target = d3_mul(dir, 1e18);
    j = good, j.target = f3_of(far_target), j.reached = NULL;
    assert_int_equal(ossa_ik_two_bone_job_run(&j), OSSA_OK);
    assert_true(quat_finite(fs) && quat_finite(fm));
    arm_apply(&c, fs, fm, moved);
    const double bend = angle_between(d3_sub(moved[2].t, now[0].t), d3_sub(far_target, now[0].t));
    if (bend > 1e-5) fail_msg("end %.3g rad off the line to a target 1e18 away", bend);
    const ossa_ik_aim_job aim = {.joint = &c.models[1],
                                 .target = f3_of(far_target),
                                 .forward = {1.f, 0.f, 0.f},
                                 .up = {0.f, 1.f, 0.f},
                                 .pole_vector = f3_of(pole),
                                 .weight = 1.f,
                                 .correction = &fa};
    assert_int_equal(ossa_ik_aim_job_run(&aim), OSSA_OK);
    assert_true(quat_finite(fa));
    const d3 aimed = dq_rotate(dq_mul(now[1].r, dq_of(fa)), (d3){1, 0, 0});
    const double off = angle_between(aimed, d3_sub(far_target, now[1].t));
    if (off > 1e-5) fail_msg("forward %.3g rad off a target 1e18 away", off);
}

static void apply_correction(void **state)
{
    (void)state;
    uint32_t s = 37;
    ossa_soa_transform pose[2];
    ossa_soa_transform_set_identity(&pose[0]), ossa_soa_transform_set_identity(&pose[1]);
    const dq local = rand_rot(&s), fix = rand_rot(&s);
    const ossa_transform t = {{0, 0, 0}, {(float)local.x, (float)local.y, (float)local.z, (float)local.w}, {1, 1, 1}};
    ossa_soa_transform_set(&pose[1], 2, &t);
    const ossa_quat f = {(float)fix.x, (float)fix.y, (float)fix.z, (float)fix.w};
    assert_int_equal(ossa_ik_apply_correction(pose, 2, 6, f), OSSA_OK);
    const dq want = dq_mul(local, fix);
    const ossa_quat got = ossa_soa_transform_get(&pose[1], 2).rotation;
    assert_true(fabs((double)got.x - want.x) + fabs((double)got.y - want.y) + fabs((double)got.z - want.z) +
                    fabs((double)got.w - want.w) <
                1e-6);
    assert_int_equal(ossa_ik_apply_correction(pose, 2, 8, f), OSSA_ERROR_INVALID_RANGE);
    assert_int_equal(ossa_ik_apply_correction(NULL, 2, 0, f), OSSA_ERROR_NULL_ARGUMENT);
    assert_int_equal(ossa_ik_apply_correction(pose, 2, 0, (ossa_quat){NAN, 0, 0, 1}), OSSA_ERROR_INVALID_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(two_bone_reaches),     cmocka_unit_test(two_bone_unreachable),
        cmocka_unit_test(two_bone_soften),      cmocka_unit_test(two_bone_weight_zero),
        cmocka_unit_test(two_bone_weight_half), cmocka_unit_test(two_bone_pole),
        cmocka_unit_test(two_bone_errors),      cmocka_unit_test(aim_points),
        cmocka_unit_test(extreme_scales_exact), cmocka_unit_test(extreme_values_refused_or_finite),
        cmocka_unit_test(aim_offset),           cmocka_unit_test(aim_weight_zero),
        cmocka_unit_test(aim_errors),           cmocka_unit_test(aim_chain),
        cmocka_unit_test(apply_correction),     cmocka_unit_test(aim_twist),
        cmocka_unit_test(scale_invariance),     cmocka_unit_test(aim_scaled_joint),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
