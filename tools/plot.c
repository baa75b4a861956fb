/* ossa plot IN.ossa --against SOURCE -o OUT.svg [--joint NAME] [--skeleton FILE]: a picture of
 * a bake next to its source, drawn by gnuplot.
 *
 * Three panels over the clip's time, at 60 Hz and at every time point:
 *   1. the joint's local rotation as an angle (degrees), source and baked, with the baked
 *      rotation keys marked;
 *   2. its local translation per axis (metres), source and baked, with the translation keys;
 *   3. every joint's model-space position error (mm) as a heat strip, one row per joint.
 * The joint is --joint NAME, else the one with the largest error. Units come from the
 * archive (ossa_archive_unit_scale; the source is converted as the bake converted it). gnuplot (Debian's gnuplot-nox)
 * renders the SVG (a PNG when OUT ends in .png); without it the command says so and exits 1. */
#include <errno.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ossa/archive.h"
#include "ossa/local_to_model_job.h"
#include "ossa/sampling_job.h"
#include "info.h"
#include "tools.h"

extern char **environ;

static const char plot_usage[] =
    "usage: ossa plot IN.ossa --against SOURCE -o OUT.svg [--joint NAME] [--skeleton FILE]\n"
    "  draw, through gnuplot, a joint's source and baked curves over the clip: its local rotation\n"
    "  angle (degrees) and translation (metres) with the baked keys marked, and every joint's\n"
    "  model-space error (mm) as a heat strip\n"
    "  --against SOURCE    the file IN.ossa was baked from (its skeleton must be the archive's)\n"
    "  -o OUT.svg          the picture to write (PNG when the name ends in .png)\n"
    "  --joint NAME        the joint to draw (default: the one with the largest error)\n"
    "  --skeleton FILE     the skeleton SOURCE takes, as for ossa bake --skeleton\n";

static float angle_deg(ossa_quat q)
{
    const float w = fabsf(q.w) > 1.f ? 1.f : fabsf(q.w);
    return 2.f * acosf(w) * 57.2957795f;
}

/* Model-space positions of `local` (raw source) into out[j]. */
static void raw_positions(const ossa_skeleton *skel, const ossa_transform *local, ossa_float4x4 *m, ossa_float3 *out)
{
    for (size_t j = 0; j < skel->joint_count; ++j) {
        const ossa_float4x4 l = ossa_float4x4_from_transform(&local[j]);
        const int p = skel->parents[j];
        m[j] = p < 0 ? l : ossa_float4x4_mul(&m[p], &l);
        out[j] = (ossa_float3){m[j].cols[3][0], m[j].cols[3][1], m[j].cols[3][2]};
    }
}

/* Runs gnuplot on `script`; false (after saying why) when it is missing or fails. */
static bool run_gnuplot(const char *script)
{
    char *const args[] = {"gnuplot", (char *)script, NULL};
    pid_t pid;
    const int e = posix_spawnp(&pid, "gnuplot", NULL, NULL, args, environ);
    if (e) {
        fprintf(stderr, "ossa: plot needs gnuplot (Debian's gnuplot-nox): %s\n", strerror(e));
        return false;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "ossa: gnuplot failed (%s exit %d)\n", WIFEXITED(status) ? "" : "no",
                WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return false;
    }
    return true;
}

int tool_plot(int argc, char **argv)
{
    const char *in = NULL, *against = NULL, *out = NULL, *joint_name = NULL, *skeleton_path = NULL;
    for (int i = 0; i < argc; ++i) {
        if (!strcmp(argv[i], "-o") && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--against") && i + 1 < argc)
            against = argv[++i];
        else if (!strcmp(argv[i], "--joint") && i + 1 < argc)
            joint_name = argv[++i];
        else if (!strcmp(argv[i], "--skeleton") && i + 1 < argc)
            skeleton_path = argv[++i];
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return fputs(plot_usage, stdout), 0;
        else if (argv[i][0] == '-' || in)
            return tool_usage_error("plot", "unexpected argument \"%s\"", argv[i]);
        else
            in = argv[i];
    }
    if (!in || !against || !out)
        return tool_usage_error("plot", "%s",
                                !in        ? "no archive given"
                                : !against ? "no --against SOURCE"
                                           : "no -o OUT.svg");
    if (!tool_check_output(out, in)) return 1;
    size_t size = 0;
    void *data = tool_read_file(in, &size);
    if (!data) return 1;
    ossa_import_output src = {0};
    ossa_archive ar;
    ossa_skeleton skel;
    ossa_animation anim;
    int status = 1;
    char dir[] = "/tmp/ossa-plot-XXXXXX";
    bool have_dir = false;
    ossa_transform *raw = NULL;
    ossa_float4x4 *m = NULL, *built_m = NULL;
    ossa_float3 *pos = NULL;
    float *err = NULL;
    void *ctx_mem = NULL;
    ossa_soa_transform *pose = NULL;
    const char *step = "archive";
    ossa_result r = ossa_archive_init(&ar, data, size);
    if (r == OSSA_OK) step = "skeleton", r = ossa_archive_skeleton(&ar, &skel);
    if (r == OSSA_OK) step = "animation", r = ossa_archive_animation(&ar, 0, &anim);
    if (r != OSSA_OK) {
        if (r == OSSA_ERROR_NOT_FOUND)
            fprintf(stderr, "ossa: %s: no %s to plot (plot needs a skeleton and a clip)\n", in, step);
        else
            fprintf(stderr, "ossa: %s: %s: %s (%s)\n", in, step, ossa_result_string(r), ossa_result_name(r));
        goto done;
    }
    if (!tool_import_with_skeleton(against, skeleton_path, false, &src) ||
        info_check_against(in, data, size, &src, against) != 0)
        goto done;
    const size_t J = skel.joint_count;
    if (src.animation_count < 1 || src.animations[0].track_count != J) {
        fprintf(stderr, "ossa: %s does not match %s: expected a clip of %zu tracks\n", against, in, J);
        goto done;
    }
    /* The source is imported in its own unit: it is converted to the archive's as the bake
     * converted it, and both are drawn in metres. */
    const tool_unit units = info_unit(data, size, &src, 0.f);
    if (!info_against_in_stored_units(&src, against, units)) goto done;
    const float unit = units.stored;
    /* The times: 60 Hz and every time point, merged. */
    const size_t fixed = (size_t)ceilf(anim.duration * 60.f) + 1, T = fixed + anim.frame_count;
    float *times = malloc(T * sizeof *times);
    uint8_t *is_point = calloc(T, 1);
    raw = malloc(J * sizeof *raw), m = malloc(J * sizeof *m), built_m = malloc(J * sizeof *built_m);
    pos = malloc(J * sizeof *pos), err = malloc(T * J * sizeof *err);
    const size_t ctx_size = ossa_sampling_context_size(J);
    ctx_mem = aligned_alloc(16, (ctx_size + 15) & ~(size_t)15);
    pose = aligned_alloc(16, (skel.soa_count + 1) * sizeof *pose);
    uint8_t *keys[2] = {malloc(anim.frame_count), malloc(anim.frame_count)};
    if (!times || !is_point || !raw || !m || !built_m || !pos || !err || !ctx_mem || !pose || !keys[0] || !keys[1]) {
        fprintf(stderr, "ossa: out of memory\n");
        free(times), free(is_point), free(keys[0]), free(keys[1]);
        goto done;
    }
    for (size_t i = 0; i < fixed; ++i) times[i] = fminf((float)i / 60.f, anim.duration);
    for (size_t f = 0; f < anim.frame_count; ++f) {
        times[fixed + f] =
            (anim.timepoints ? anim.timepoints[f] : (float)f / (float)(anim.frame_count - 1)) * anim.duration;
        is_point[fixed + f] = 1;
    }
    /* Insertion by time keeps each time point's flag with it (T is small: a clip's samples). */
    for (size_t i = 1; i < T; ++i)
        for (size_t k = i; k > 0 && times[k - 1] > times[k]; --k) {
            const float t = times[k];
            const uint8_t p = is_point[k];
            times[k] = times[k - 1], is_point[k] = is_point[k - 1];
            times[k - 1] = t, is_point[k - 1] = p;
        }
    ossa_sampling_context *ctx = ossa_sampling_context_init(ctx_mem, ctx_size, J);
    /* Pass 1: errors of every joint at every time; pick the joint. */
    size_t worst_joint = 0;
    float worst = -1.f;
    for (size_t i = 0; i < T; ++i) {
        ossa_raw_animation_sample(&src.animations[0], times[i], raw, J);
        raw_positions(&skel, raw, m, pos);
        const ossa_sampling_job job = {&anim,          ctx,           times[i] / anim.duration, pose, skel.soa_count,
                                       skel.rest_pose, skel.soa_count};
        const ossa_local_to_model_job l2m = {&skel, NULL, 0, 0, pose, skel.soa_count, built_m, J};
        if (ossa_sampling_job_run(&job) != OSSA_OK || ossa_local_to_model_job_run(&l2m) != OSSA_OK) {
            fprintf(stderr, "ossa: %s: sampling failed\n", in);
            free(times), free(is_point), free(keys[0]), free(keys[1]);
            goto done;
        }
        for (size_t j = 0; j < J; ++j) {
            const float dx = built_m[j].cols[3][0] - pos[j].x, dy = built_m[j].cols[3][1] - pos[j].y,
                        dz = built_m[j].cols[3][2] - pos[j].z;
            err[i * J + j] = sqrtf(dx * dx + dy * dy + dz * dz) * unit * 1e3f;
            if (err[i * J + j] > worst) worst = err[i * J + j], worst_joint = j;
        }
    }
    size_t joint = worst_joint;
    if (joint_name) {
        const int found = ossa_skeleton_find_joint(&skel, joint_name);
        if (found < 0) {
            fprintf(stderr, "ossa: %s: no joint named \"%s\"\n", in, joint_name);
            free(times), free(is_point), free(keys[0]), free(keys[1]);
            status = 2;
            goto done;
        }
        joint = (size_t)found;
    }
    ossa_animation_keys(&anim, joint, 0, keys[0], anim.frame_count);
    ossa_animation_keys(&anim, joint, 1, keys[1], anim.frame_count);
    have_dir = mkdtemp(dir) != NULL;
    char path[3][sizeof dir + 16];
    snprintf(path[0], sizeof path[0], "%s/curves.dat", dir);
    snprintf(path[1], sizeof path[1], "%s/errors.dat", dir);
    snprintf(path[2], sizeof path[2], "%s/plot.gp", dir);
    FILE *curves = have_dir ? fopen(path[0], "w") : NULL, *errors = have_dir ? fopen(path[1], "w") : NULL;
    bool ok = curves && errors;
    /* Pass 2: the joint's curves; columns: time, source angle, baked angle, source x y z,
     * baked x y z, rotation key (baked angle or NaN), translation key (baked x or NaN). */
    size_t f = 0;
    for (size_t i = 0; ok && i < T; ++i) {
        ossa_raw_animation_sample(&src.animations[0], times[i], raw, J);
        const ossa_sampling_job job = {&anim,          ctx,           times[i] / anim.duration, pose, skel.soa_count,
                                       skel.rest_pose, skel.soa_count};
        ossa_sampling_job_run(&job);
        const ossa_transform b = ossa_soa_transform_get(&pose[joint / 4], (int)(joint % 4)), s = raw[joint];
        const bool point = is_point[i];
        const float ba = angle_deg(b.rotation);
        fprintf(curves, "%.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g %.6g ", (double)times[i],
                (double)angle_deg(s.rotation), (double)ba, (double)(s.translation.x * unit),
                (double)(s.translation.y * unit), (double)(s.translation.z * unit), (double)(b.translation.x * unit),
                (double)(b.translation.y * unit), (double)(b.translation.z * unit));
        fprintf(curves, "%s ", point && keys[1][f] ? "" : "NaN");
        if (point && keys[1][f]) fprintf(curves, "%.6g ", (double)ba);
        if (point && keys[0][f])
            fprintf(curves, "%.6g\n", (double)(b.translation.x * unit));
        else
            fprintf(curves, "NaN\n");
        f += point;
    }
    /* The heat strip on a regular grid (gnuplot draws it as one image): up to 240 columns of
     * equal time, no more than the 60 Hz samples so that none is empty, each the largest error
     * of the samples in it. */
    const size_t columns = fixed - 1 < 240 ? (fixed > 1 ? fixed - 1 : 1) : 240;
    size_t i0 = 0;
    for (size_t c = 0; ok && c < columns; ++c) {
        const float end = anim.duration * (float)(c + 1) / (float)columns;
        size_t i1 = i0;
        while (i1 < T && (times[i1] < end || c + 1 == columns)) ++i1;
        /* A column no sample falls in (float edges) shows the next sample. */
        const size_t stop = i1 > i0 ? i1 : (i0 < T ? i0 + 1 : i0);
        for (size_t j = 0; j < J; ++j) {
            float e = 0.f;
            for (size_t i = i0; i < stop; ++i) e = err[i * J + j] > e ? err[i * J + j] : e;
            fprintf(errors, "%.6g %zu %.6g\n", (double)(anim.duration * ((float)c + .5f) / (float)columns), j,
                    (double)e);
        }
        fprintf(errors, "\n");
        i0 = i1 > i0 ? i1 : i0;
    }
    ok = ok && fclose(curves) == 0;
    ok = fclose(errors) == 0 && ok;
    curves = errors = NULL;
    FILE *gp = ok ? fopen(path[2], "w") : NULL;
    ok = ok && gp;
    char tmp_out[4096];
    snprintf(tmp_out, sizeof tmp_out, "%s.part", out);
    if (ok) {
        const char *name = ossa_skeleton_joint_name(&skel, joint);
        /* SVG, or PNG when OUT ends in .png. */
        const size_t out_len = strlen(out);
        const bool png = out_len > 4 && !strcmp(out + out_len - 4, ".png");
        fprintf(gp, "%s",
                png ? "set terminal pngcairo size 1000,900 font 'sans,10'\n"
                    : "set terminal svg size 1000,900 dynamic font 'sans,11'\n");
        fprintf(gp,
                "set output '%s'\nset termoption noenhanced\n"
                "set multiplot layout 3,1 title 'ossa bake of %s vs %s (joint %zu \"%s\"; worst %.3g mm)'\n"
                "set key outside right\nset grid\nset xlabel 'time (s)'\n"
                "set ylabel 'rotation (degrees)'\n"
                "plot '%s' using 1:2 with lines lw 2 title 'source', '' using 1:3 with lines title 'baked', "
                "'' using 1:10 with points pt 7 ps 0.5 title 'rotation keys'\n"
                "set ylabel 'translation (m)'\n"
                "plot '%s' using 1:4 with lines lw 2 title 'source x', '' using 1:7 with lines title 'baked x', "
                "'' using 1:5 with lines lw 2 title 'source y', '' using 1:8 with lines title 'baked y', "
                "'' using 1:6 with lines lw 2 title 'source z', '' using 1:9 with lines title 'baked z', "
                "'' using 1:11 with points pt 7 ps 0.5 title 'translation keys'\n"
                "set ylabel 'joint'\nset cblabel 'error (mm)'\nunset key\nset palette rgb 33,13,10\n"
                "set xrange [0:%g]\nset yrange [-0.5:%g]\n"
                "plot '%s' using 1:2:3 with image notitle\nunset multiplot\n",
                tmp_out, strrchr(in, '/') ? strrchr(in, '/') + 1 : in,
                strrchr(against, '/') ? strrchr(against, '/') + 1 : against, joint, name, (double)worst, path[0],
                path[0], (double)anim.duration, (double)J - .5, path[1]);
        ok = fclose(gp) == 0;
    }
    if (ok && run_gnuplot(path[2])) {
        if (rename(tmp_out, out) == 0)
            status = 0;
        else
            fprintf(stderr, "ossa: cannot write %s: %s\n", out, strerror(errno));
    }
    remove(tmp_out);
    if (have_dir) remove(path[0]), remove(path[1]), remove(path[2]);
    free(times), free(is_point), free(keys[0]), free(keys[1]);
done:
    if (have_dir) rmdir(dir);
    free(raw), free(m), free(built_m), free(pos), free(err), free(ctx_mem), free(pose), free(data);
    ossa_import_output_destroy(&src);
    return status;
}
