/* Maya .anim: the node tree the anim lines' child counts describe (the format's own 4-joint
 * example, the real Maya 2026 exports, every misfit with its line:column), and truncated
 * files: a real export cut at every byte (the 5 KB one) or at every statement end and a sample
 * of offsets (the 373 KB one) either fails or, where the cut ends a statement and leaves a
 * complete tree, imports exactly what the whole file gives for the curves it keeps. Which cuts
 * are complete is worked out here from the text's lines, independently of the parser. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossa/offline/import_maya.h"
#include "test_util.h"

#define HEADER "animVersion 1.1;\nmayaVersion 2026;\ntimeUnit film;\nlinearUnit cm;\nangularUnit deg;\n"

static ossa_result import_text(const char *text, const ossa_maya_desc *desc, ossa_import_output *out, ossa_diag *diag)
{
    ossa_diag_clear(diag);
    return ossa_import_maya_anim(text, strlen(text), desc, out, diag);
}

static void assert_metadata(const ossa_import_output *out, const char *key, const char *value)
{
    char buffer[512];
    if (!ossa_import_output_metadata(out, key, buffer, sizeof buffer)) fail_msg("metadata %s missing", key);
    if (strcmp(buffer, value)) fail_msg("metadata %s is \"%s\", expected \"%s\"", key, buffer, value);
}

static void assert_empty(const ossa_import_output *out)
{
    assert_int_equal(out->skeleton.joint_count, 0);
    assert_int_equal(out->animation_count, 0);
    assert_int_equal(out->track_count, 0);
    assert_null(out->metadata);
}

/* The specification's example, "an animated joint chain consisting of 4 joints. The first
 * three joints are animated and the fourth joint is not animated", as it is printed there. */
static const char seed_example[] =
    "animVersion 1.1;\nmayaVersion 2.0;\ntimeUnit ntsc;\nlinearUnit cm;\nangularUnit deg;\nstartTime 1;\n"
    "endTime 30;\n"
    "anim rotate.rotateX rotateX joint1 0 1 0;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 linear linear 1 1 0;\n"
    "    30 0 linear linear 1 1 0;\n  }\n}\n"
    "anim rotate.rotateY rotateY joint1 0 1 1;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 linear linear 1 1 0;\n"
    "    30 0 linear linear 1 1 0;\n  }\n}\n"
    "anim rotate.rotateZ rotateZ joint1 0 1 2;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 spline spline 1 1 0;\n"
    "    10 -16.774359 spline spline 1 1 0;\n    15 -1.6493069 spline spline 1 1 0;\n"
    "    22 -3.064691 spline spline 1 1 0;\n    30 0 spline spline 1 1 0;\n  }\n}\n"
    "anim rotate.rotateX rotateX joint2 1 1 0;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 linear linear 1 1 0;\n"
    "    30 0 linear linear 1 1 0;\n  }\n}\n"
    "anim rotate.rotateZ rotateZ joint2 1 1 1;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 spline spline 1 1 0;\n"
    "    10 60.962438 spline spline 1 1 0;\n    15 106.06094 spline spline 1 1 0;\n"
    "    22 33.259896 spline spline 1 1 0;\n    30 0 spline spline 1 1 0;\n  }\n}\n"
    "anim rotate.rotateX rotateX joint3 2 1 0;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 spline spline 1 1 0;\n"
    "    10 0 spline spline 1 1 0;\n    15 0 spline spline 1 1 0;\n    22 0 spline spline 1 1 0;\n"
    "    30 0 spline spline 1 1 0;\n  }\n}\n"
    "anim rotate.rotateY rotateY joint3 2 1 1;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 spline spline 1 1 0;\n"
    "    10 0 spline spline 1 1 0;\n    15 0 spline spline 1 1 0;\n    22 0 spline spline 1 1 0;\n"
    "    30 0 spline spline 1 1 0;\n  }\n}\n"
    "anim rotate.rotateZ rotateZ joint3 2 1 2;\nanimData {\n  input time;\n  output angular;\n  weighted 0;\n"
    "  preInfinity constant;\n  postInfinity constant;\n  keys {\n    1 0 spline spline 1 1 0;\n"
    "    10 0 spline spline 1 1 0;\n    15 0 spline spline 1 1 0;\n    22 0 spline spline 1 1 0;\n"
    "    30 0 spline spline 1 1 0;\n  }\n}\n"
    "anim joint4 3 0 0;\n";

static void test_seed_example(void **state)
{
    (void)state;
    ossa_maya_anim anim;
    ossa_diag diag;
    assert_int_equal(ossa_maya_anim_parse(seed_example, sizeof seed_example - 1, NULL, &anim, &diag), OSSA_OK);
    /* Child counts 1, 1, 1, 0 in file order: joint1 > joint2 > joint3 > joint4. */
    assert_int_equal(anim.curve_count, 8);
    assert_int_equal(anim.node_count, 4);
    for (size_t i = 0; i < 4; ++i) {
        char name[8];
        snprintf(name, sizeof name, "joint%zu", i + 1);
        assert_string_equal(anim.nodes[i], name);
        assert_int_equal(anim.parents[i], (int)i - 1);
    }
    ossa_maya_anim_destroy(&anim);
    ossa_import_output out = {0};
    assert_int_equal(import_text(seed_example, NULL, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joint_count, 4);
    for (size_t j = 0; j < 4; ++j) assert_int_equal(out.skeleton.joints[j].parent, (int)j - 1);
    assert_metadata(&out, "hierarchy", "file");
    assert_metadata(&out, "hierarchy_roots", "1");
    /* joint4 is a placeholder: one key, its identity rest pose. */
    const ossa_raw_joint_track *j4 = &out.animations[0].tracks[3];
    assert_int_equal(j4->rotation_count, 1);
    assert_true(j4->rotations[0].value.w == 1.f && j4->translations[0].value.x == 0.f);
    /* joint2's rotateZ is 60.962438 degrees at frame 10 (ntsc: 9 frames after the start). */
    const ossa_raw_joint_track *j2 = &out.animations[0].tracks[1];
    assert_true(fabs(2.0 * asin((double)j2->rotations[9].value.z) - 60.962438 * 3.14159265358979 / 180) < 1e-5);
    ossa_import_output_destroy(&out);
}

/* Several roots follow each other; a node owed no child closes at once. */
static void test_forest(void **state)
{
    (void)state;
    const char *text = HEADER "anim a 0 2 0;\nanim b 0 0 0;\nanim c 0 1 0;\nanim d 0 0 0;\nanim e 0 0 0;\n"
                              "anim translate.translateX translateX f 0 0 0;\nanimData {\n  keys {\n"
                              "    0 1 linear linear 1 1 0;\n  }\n}\n";
    ossa_maya_anim anim;
    ossa_diag diag;
    assert_int_equal(ossa_maya_anim_parse(text, strlen(text), NULL, &anim, &diag), OSSA_OK);
    const int32_t want[6] = {-1, 0, 0, 2, -1, -1}; /* a { b, c { d } }, e, f */
    assert_int_equal(anim.node_count, 6);
    assert_memory_equal(anim.parents, want, sizeof want);
    ossa_maya_anim_destroy(&anim);
    ossa_import_output out = {0};
    assert_int_equal(import_text(text, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "hierarchy", "file");
    assert_metadata(&out, "hierarchy_roots", "3");
    ossa_import_output_destroy(&out);
    /* All counts 0: every node a root, said so. */
    const char *flat = HEADER "anim a 0 0 0;\nanim b 0 0 0;\n";
    assert_int_equal(import_text(flat, NULL, &out, &diag), OSSA_OK);
    assert_metadata(&out, "hierarchy", "flat");
    assert_int_equal(out.skeleton.joints[1].parent, -1);
    ossa_import_output_destroy(&out);
}

typedef struct bad_case {
    const char *text;
    ossa_result code;
    uint32_t line, column;
    const char *message;
} bad_case;

static void test_misfits(void **state)
{
    (void)state;
    const bad_case cases[] = {
        /* Two children declared, one node follows. */
        {HEADER "anim a 0 2 0;\nanim b 0 0 0;\n", OSSA_ERROR_PARSE, 6, 10,
         "node 'a' declares 2 children in its anim statement at line 6, but the file ends after 1"},
        /* The deepest node whose children are missing is named. */
        {HEADER "anim a 0 1 0;\nanim b 0 1 0;\n", OSSA_ERROR_PARSE, 7, 10, "node 'b' declares 1 children"},
        {HEADER "anim a 0 4294967296 0;\nanim b 0 0 0;\n", OSSA_ERROR_PARSE, 6, 10, "declares 4294967295 children"},
        {HEADER "anim a 0 -1 0;\n", OSSA_ERROR_PARSE, 6, 10, "child count (an integer >= 0)"},
        /* One node, two child counts. */
        {HEADER "anim tx tx a 0 1 0;\nanimData {\n}\nanim ty ty a 0 2 1;\nanimData {\n}\nanim b 0 0 0;\n",
         OSSA_ERROR_PARSE, 9, 16, "node 'a' has '2' children here but 1 in its anim statement at line 6"},
        /* A node listed again after another one, or after its placeholder. */
        {HEADER "anim a 0 0 0;\nanim b 0 0 0;\nanim a 0 0 0;\n", OSSA_ERROR_PARSE, 8, 6,
         "node 'a' appears again, apart from its anim statements at line 6"},
        {HEADER "anim a 0 0 0;\nanim tx tx a 0 0 0;\nanimData {\n}\n", OSSA_ERROR_PARSE, 7, 12, "appears again"},
        /* A statement naming an attribute announces a curve: its animData must follow. */
        {HEADER "anim translate.translateX translateX a 0 0 0;\n", OSSA_ERROR_TRUNCATED, 7, 1,
         "expected the animData block of the anim statement at line 6 (a curve of node 'a'), found end of file"},
        {HEADER "anim translate.translateX translateX a 0 0 0;\nanim b 0 0 0;\n", OSSA_ERROR_PARSE, 7, 1,
         "animData block of the anim statement at line 6 (a curve of node 'a'), found 'anim'"},
        {HEADER "anim 0 0 0;\n", OSSA_ERROR_TRUNCATED, 7, 1, "a curve connected to no node"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; ++i) {
        ossa_import_output out = {0};
        ossa_diag diag;
        const ossa_result r = import_text(cases[i].text, NULL, &out, &diag);
        if (r != cases[i].code || diag.line != cases[i].line || diag.column != cases[i].column ||
            !strstr(diag.message, cases[i].message))
            fail_msg("case %zu: got %s at %u:%u \"%s\"", i, ossa_result_name(r), (unsigned)diag.line,
                     (unsigned)diag.column, diag.message);
        assert_empty(&out);
        ossa_import_output_destroy(&out);
    }
}

/* With a bound skeleton its hierarchy is used; where the file's tree gives a bound node
 * another bound parent, a warning says so. */
static void test_bound_skeleton_wins(void **state)
{
    (void)state;
    ossa_raw_skeleton bind = {0};
    assert_int_equal(ossa_raw_skeleton_create(&bind, 3, NULL), OSSA_OK);
    ossa_raw_skeleton_set_name(&bind, 0, "hips");
    ossa_raw_skeleton_set_name(&bind, 1, "spine");
    ossa_raw_skeleton_set_name(&bind, 2, "head");
    bind.joints[1].parent = 0;
    bind.joints[2].parent = 1;
    const ossa_maya_desc desc = {.bind_skeleton = &bind};
    /* The file agrees (hips > spine > head; "extra" is not in the skeleton). */
    const char *same = HEADER "anim hips 0 1 0;\nanim spine 0 2 0;\nanim head 0 0 0;\nanim extra 0 0 0;\n";
    ossa_import_output out = {0};
    ossa_diag diag;
    char warning[512];
    assert_int_equal(import_text(same, &desc, &out, &diag), OSSA_OK);
    assert_metadata(&out, "hierarchy", "skeleton");
    assert_false(ossa_import_output_metadata(&out, "warning", warning, sizeof warning));
    ossa_import_output_destroy(&out);
    /* The file puts head directly under hips. */
    const char *other = HEADER "anim hips 0 2 0;\nanim head 0 0 0;\nanim spine 0 0 0;\n";
    assert_int_equal(import_text(other, &desc, &out, &diag), OSSA_OK);
    assert_int_equal(out.skeleton.joints[2].parent, 1);
    assert_true(ossa_import_output_metadata(&out, "warning", warning, sizeof warning));
    assert_non_null(strstr(warning, "1 node of the file sit under another parent"));
    assert_non_null(strstr(warning, "head under hips in the file, under spine in the skeleton"));
    ossa_import_output_destroy(&out);
    ossa_raw_skeleton_destroy(&bind);
}

/* ---- truncations ---------------------------------------------------------------------- */

/* What the text says about itself, from its lines (Maya writes one statement a line, and an
 * animData block ends with "}" alone on its line). */
typedef struct layout {
    size_t ends[4096];   /* byte after each statement: header line, anim placeholder, animData '}' */
    bool is_block[4096]; /* that statement ends an animData block (a curve) */
    bool starts_node[4096];
    uint32_t children[4096]; /* for statements that start a node */
    size_t count;
} layout;

static void read_layout(const char *text, size_t size, layout *l)
{
    l->count = 0;
    char previous[256] = "";
    bool previous_placeholder = false, body = false, pending_starts = false;
    uint32_t pending_children = 0;
    for (size_t at = 0; at < size;) {
        const char *line = text + at, *nl = memchr(line, '\n', size - at);
        const size_t len = nl ? (size_t)(nl - line) : size - at, next = at + len + (nl != NULL);
        assert_true(l->count < 4096);
        if (len >= 5 && !memcmp(line, "anim ", 5)) {
            /* anim [full leaf] node row child attr; -- a placeholder when no animData follows */
            char words[6][256];
            int n = 0;
            for (const char *p = line + 5; p < line + len && n < 6;) {
                const size_t w = strcspn(p, " ;\n");
                if (w) snprintf(words[n++], sizeof words[0], "%.*s", (int)w, p);
                p += w + 1;
            }
            assert_true(n == 4 || n == 6);
            const bool placeholder = next >= size || strncmp(text + next, "animData", 8) != 0;
            const char *node = words[n - 4];
            const bool starts = placeholder || previous_placeholder || strcmp(node, previous) != 0;
            snprintf(previous, sizeof previous, "%s", node);
            previous_placeholder = placeholder;
            body = true;
            if (placeholder) {
                l->ends[l->count] = at + len, l->is_block[l->count] = false;
                l->starts_node[l->count] = starts, l->children[l->count++] = (uint32_t)atoi(words[n - 2]);
            } else {
                pending_starts = starts, pending_children = (uint32_t)atoi(words[n - 2]);
            }
        } else if (len == 1 && line[0] == '}') {
            l->ends[l->count] = at + 1, l->is_block[l->count] = true;
            l->starts_node[l->count] = pending_starts, l->children[l->count++] = pending_children;
        } else if (!body && len && line[len - 1] == ';') {
            l->ends[l->count] = at + len, l->is_block[l->count] = false;
            l->starts_node[l->count] = false, l->children[l->count++] = 0;
        }
        at = next;
    }
}

/* True when the first `kept` statements, taken depth-first, give every node all its children. */
static bool tree_fits(const layout *l, size_t kept)
{
    uint32_t owed[4096];
    size_t depth = 0;
    for (size_t i = 0; i < kept; ++i) {
        if (!l->starts_node[i]) continue;
        if (depth) --owed[depth - 1];
        if (l->children[i]) owed[depth++] = l->children[i];
        while (depth && !owed[depth - 1]) --depth;
    }
    return depth == 0;
}

static bool blank(const char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i] != ' ' && p[i] != '\n' && p[i] != '\r' && p[i] != '\t') return false;
    return true;
}

static void assert_same_curve(const ossa_maya_curve *a, const ossa_maya_curve *b)
{
    assert_string_equal(a->node, b->node);
    assert_string_equal(a->attribute, b->attribute);
    assert_int_equal(a->key_count, b->key_count);
    assert_memory_equal(a->keys, b->keys, a->key_count * sizeof *a->keys);
    assert_true(a->weighted == b->weighted && a->pre_infinity == b->pre_infinity &&
                a->post_infinity == b->post_infinity && a->value_scale == b->value_scale);
}

/* Cuts `text` at `n` bytes and checks the outcome against what the layout says. Returns true
 * when the cut was complete and imported. */
static bool check_cut(const char *text, size_t n, const layout *l, const ossa_maya_anim *full,
                      const ossa_import_output *full_out, bool import_failures)
{
    size_t kept = 0, curves = 0;
    bool complete = false;
    for (size_t i = 0; i < l->count && l->ends[i] <= n; ++i) {
        kept = i + 1;
        curves += l->is_block[i];
        complete = blank(text + l->ends[i], n - l->ends[i]);
    }
    complete = complete && tree_fits(l, kept);
    ossa_maya_anim anim;
    ossa_diag diag;
    ossa_diag_clear(&diag);
    const ossa_result r = ossa_maya_anim_parse(text, n, NULL, &anim, &diag);
    ossa_import_output out = {0};
    ossa_diag import_diag;
    ossa_diag_clear(&import_diag);
    /* The importer parses first: on a cut the parser refuses it fails the same way. */
    const ossa_result ri = complete || import_failures ? ossa_import_maya_anim(text, n, NULL, &out, &import_diag) : r;
    if (!complete && !import_failures) import_diag = diag;
    if (!complete) {
        if (r == OSSA_OK || ri == OSSA_OK) fail_msg("cut at byte %zu: accepted, expected an error", n);
        assert_true(diag.line >= 1 && import_diag.line == diag.line);
        assert_empty(&out);
        ossa_import_output_destroy(&out);
        return false;
    }
    if (r != OSSA_OK || ri != OSSA_OK)
        fail_msg("cut at %zu (after a whole statement): %s at %u:%u %s", n, ossa_result_name(r), (unsigned)diag.line,
                 (unsigned)diag.column, diag.message);
    /* The curves kept are the whole file's first ones, key for key; nodes and parents too. */
    assert_int_equal(anim.curve_count, curves);
    for (size_t i = 0; i < curves; ++i) assert_same_curve(&anim.curves[i], &full->curves[i]);
    assert_true(anim.node_count <= full->node_count);
    for (size_t i = 0; i < anim.node_count; ++i) {
        assert_string_equal(anim.nodes[i], full->nodes[i]);
        assert_int_equal(anim.parents[i], full->parents[i]);
    }
    /* The import: the same joints, and every joint whose curves are all kept has the same keys. */
    assert_int_equal(out.skeleton.joint_count, anim.node_count);
    for (size_t j = 0; j < anim.node_count && anim.curve_count; ++j) {
        assert_int_equal(out.skeleton.joints[j].parent, full_out->skeleton.joints[j].parent);
        bool all = true;
        for (size_t i = curves; i < full->curve_count; ++i) all = all && full->curves[i].node_index != j;
        if (!all) continue;
        const ossa_raw_joint_track *a = &out.animations[0].tracks[j], *b = &full_out->animations[0].tracks[j];
        assert_int_equal(a->translation_count, b->translation_count);
        assert_int_equal(a->rotation_count, b->rotation_count);
        assert_int_equal(a->scale_count, b->scale_count);
        assert_memory_equal(a->translations, b->translations, a->translation_count * sizeof *a->translations);
        assert_memory_equal(a->rotations, b->rotations, a->rotation_count * sizeof *a->rotations);
        assert_memory_equal(a->scales, b->scales, a->scale_count * sizeof *a->scales);
    }
    ossa_maya_anim_destroy(&anim);
    ossa_import_output_destroy(&out);
    return true;
}

static char *read_shared(const char *name, size_t *size)
{
    char rel[128], shown[160];
    snprintf(rel, sizeof rel, "maya/%s", name);
    snprintf(shown, sizeof shown, "DATA/maya/%s", name);
    return ossa_test_read_or_skip(ossa_test_shared_path(rel), shown, size);
}

static layout the_layout;

/* example_maya2026.anim (5,084 bytes) cut at every byte. It is one chain, joint1 > joint2 >
 * joint3 > joint4 > joint5: the only complete cuts are after a header statement and after
 * each of joint5's 10 curves (and the white space that follows each). */
static void test_example_cut_everywhere(void **state)
{
    (void)state;
    size_t size;
    char *text = read_shared("example_maya2026.anim", &size);
    ossa_maya_anim full;
    ossa_import_output full_out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_maya_anim_parse(text, size, NULL, &full, &diag), OSSA_OK);
    assert_int_equal(ossa_import_maya_anim(text, size, NULL, &full_out, &diag), OSSA_OK);
    read_layout(text, size, &the_layout);
    size_t imported = 0;
    for (size_t n = 0; n <= size; ++n) imported += check_cut(text, n, &the_layout, &full, &full_out, true);
    /* After each of the 7 header statements and joint5's 10 curves, and after the newline
     * that follows each (the file ends with one). */
    assert_int_equal(imported, 2 * 7 + 2 * 10);
    /* Cut after "anim visibility visibility joint2 0 1 0;" (line 9): this baked as a static clip. */
    const char *line9 = strstr(text, "anim visibility visibility joint2");
    const size_t cut = (size_t)(strchr(line9, ';') - text) + 1;
    ossa_maya_anim anim;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_maya_anim_parse(text, cut, NULL, &anim, &diag), OSSA_ERROR_TRUNCATED);
    assert_non_null(strstr(diag.message, "anim statement at line 9"));
    /* And after the placeholder "anim joint4 0 1 0;" (line 130): joint4's child is missing. */
    const size_t cut4 = (size_t)(strstr(text, "anim joint4 0 1 0;") - text) + strlen("anim joint4 0 1 0;");
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_maya_anim_parse(text, cut4, NULL, &anim, &diag), OSSA_ERROR_PARSE);
    assert_int_equal(diag.line, 130);
    assert_non_null(strstr(diag.message, "node 'joint4' declares 1 children"));
    ossa_maya_anim_destroy(&full);
    ossa_import_output_destroy(&full_out);
    free(text);
}

/* front_maya2026.anim (373,325 bytes, 10,833 lines): cut at every statement end, one byte
 * before and after each, and at 200 offsets from a fixed seed. */
static void test_front_cuts(void **state)
{
    (void)state;
    size_t size;
    char *text = read_shared("front_maya2026.anim", &size);
    ossa_maya_anim full;
    ossa_import_output full_out = {0};
    ossa_diag diag;
    ossa_diag_clear(&diag);
    assert_int_equal(ossa_maya_anim_parse(text, size, NULL, &full, &diag), OSSA_OK);
    assert_int_equal(ossa_import_maya_anim(text, size, NULL, &full_out, &diag), OSSA_OK);
    read_layout(text, size, &the_layout);
    assert_int_equal(the_layout.count, 7 + 26 + 216);
    size_t imported = 0, cuts = 0;
    for (size_t i = 0; i < the_layout.count; ++i)
        for (size_t d = 0; d < 3; ++d) {
            const size_t n = the_layout.ends[i] + d - 1;
            if (n > size) continue;
            imported += check_cut(text, n, &the_layout, &full, &full_out, false);
            ++cuts;
        }
    uint32_t seed = 12345;
    for (int k = 0; k < 200; ++k, ++cuts)
        imported += check_cut(text, ossa_test_rand(&seed) % size, &the_layout, &full, &full_out, false);
    /* One tree that ends with placeholders: complete only after a header statement (and its
     * newline) and at the whole file (and before its last newline). */
    assert_int_equal(cuts, 3 * the_layout.count + 200);
    assert_int_equal(imported, 2 * 7 + 2);
    ossa_maya_anim_destroy(&full);
    ossa_import_output_destroy(&full_out);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seed_example),
        cmocka_unit_test(test_forest),
        cmocka_unit_test(test_misfits),
        cmocka_unit_test(test_bound_skeleton_wins),
        cmocka_unit_test(test_example_cut_everywhere),
        cmocka_unit_test(test_front_cuts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
