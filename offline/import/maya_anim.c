/* Maya ASCII .anim grammar: a header of keywords, then `anim` statements each optionally
 * followed by an animData block of settings and keys (tokens come from maya_lex.c).
 * Source: "Anim File Format" (Maya documentation, versions 1.0 and 1.1), checked against Maya
 * 2026 exports (placeholder anim lines, fixed keys with angle/weight pairs). */
#include "import/maya_parse.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define PI 3.14159265358979323846

typedef ossa__maya_token token;
typedef ossa__maya_parser parser;

static ossa_result unit_word(parser *p, token *t, const char *keyword)
{
    ossa__maya_next(p, t);
    if (t->kind == OSSA__MAYA_WORD) return OSSA_OK;
    return ossa__maya_fail(p, OSSA_ERROR_PARSE, t, "expected a unit name after %s, found %s", keyword,
                           ossa__maya_show(p, t));
}

/* ---- header ---- */

static ossa_result parse_header(parser *p, const token *kw)
{
    ossa_maya_anim *a = p->out;
    ossa_result r;
    token t;
    if (ossa__maya_is(kw, "animVersion")) {
        double v;
        ossa__maya_next(p, &t);
        if (!ossa__maya_to_number(p, &t, &v))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected a version number after animVersion, found %s",
                                   ossa__maya_show(p, &t));
        if (v == 1.0)
            a->version = 10;
        else if (v == 1.1)
            a->version = 11;
        else
            return ossa__maya_fail(p, OSSA_ERROR_UNSUPPORTED_VERSION, &t,
                                   "animVersion %s is not supported (expected 1.0 or 1.1)", ossa__maya_show(p, &t));
        return ossa__maya_semicolon(p, "the animVersion value");
    }
    if (ossa__maya_is(kw, "mayaVersion")) {
        /* Free text ("2016 Extension 2") on the keyword's line, up to ';'. */
        size_t used = 0;
        for (;;) {
            ossa__maya_next(p, &t);
            if (t.kind == OSSA__MAYA_SEMI) return OSSA_OK;
            if (t.kind != OSSA__MAYA_WORD || t.line != kw->line)
                return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                       "expected ';' at the end of the mayaVersion line, found %s",
                                       ossa__maya_show(p, &t));
            if (used && used + 1 < sizeof a->maya_version) a->maya_version[used++] = ' ';
            if (used < sizeof a->maya_version - 1) {
                ossa__maya_copy_word(a->maya_version + used, sizeof a->maya_version - used, &t);
                used += strlen(a->maya_version + used);
            }
        }
    }
    if (ossa__maya_is(kw, "timeUnit")) {
        if ((r = unit_word(p, &t, "timeUnit")) != OSSA_OK) return r;
        if (!ossa__maya_time_unit(p, &t, &a->frame_rate))
            return ossa__maya_fail(
                p, OSSA_ERROR_PARSE, &t,
                "unknown timeUnit %s (expected game, film, pal, ntsc, show, palf, ntscf, hour, min, sec, "
                "millisec or <n>fps)",
                ossa__maya_show(p, &t));
        ossa__maya_copy_word(a->time_unit, sizeof a->time_unit, &t);
        return ossa__maya_semicolon(p, "the timeUnit value");
    }
    if (ossa__maya_is(kw, "linearUnit")) {
        if ((r = unit_word(p, &t, "linearUnit")) != OSSA_OK) return r;
        if (!ossa__maya_linear_unit(&t, &a->linear_scale))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown linearUnit %s (expected mm, cm, m, km, in, ft, yd or mi)",
                                   ossa__maya_show(p, &t));
        ossa__maya_copy_word(a->linear_unit, sizeof a->linear_unit, &t);
        return ossa__maya_semicolon(p, "the linearUnit value");
    }
    if (ossa__maya_is(kw, "angularUnit")) {
        if ((r = unit_word(p, &t, "angularUnit")) != OSSA_OK) return r;
        if (!ossa__maya_angular_unit(&t, &a->angular_scale))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "unknown angularUnit %s (expected rad, deg, min or sec)",
                                   ossa__maya_show(p, &t));
        ossa__maya_copy_word(a->angular_unit, sizeof a->angular_unit, &t);
        return ossa__maya_semicolon(p, "the angularUnit value");
    }
    double v;
    const bool start = ossa__maya_is(kw, "startTime"), end = ossa__maya_is(kw, "endTime");
    if (start || end || ossa__maya_is(kw, "startUnitless") || ossa__maya_is(kw, "endUnitless")) {
        if ((r = ossa__maya_number(p, &v, start ? "startTime" : end ? "endTime" : "the unitless range")) != OSSA_OK)
            return r;
        if (start) {
            a->start_time = v;
            a->has_start_time = true;
        }
        if (end) {
            a->end_time = v;
            a->has_end_time = true;
        }
        return ossa__maya_semicolon(p, "the range value");
    }
    return ossa__maya_fail(p, OSSA_ERROR_PARSE, kw,
                           "unknown keyword %s (expected animVersion, mayaVersion, timeUnit, linearUnit, angularUnit, "
                           "startTime, endTime, startUnitless, endUnitless or anim)",
                           ossa__maya_show(p, kw));
}

/* ---- keys ---- */

typedef struct curve_builder {
    ossa_maya_curve curve;
    size_t key_capacity;
    token output_unit; /* resolved once the output type is known */
    double angle_scale;
} curve_builder;

static ossa_result parse_key(parser *p, curve_builder *b, const token *first)
{
    ossa_maya_key k = {0};
    ossa_result r;
    token t;
    if (!ossa__maya_to_number(p, first, &k.time))
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, first, "expected a key time (finite number) or '}', found %s",
                               ossa__maya_show(p, first));
    if ((r = ossa__maya_number(p, &k.value, "the key value")) != OSSA_OK) return r;
    for (int side = 0; side < 2; ++side) {
        ossa__maya_next(p, &t);
        if (t.kind != OSSA__MAYA_WORD)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected the %s-tangent type, found %s",
                                   side ? "out" : "in", ossa__maya_show(p, &t));
        if (!ossa__maya_tangent_type(&t, side ? &k.out_type : &k.in_type))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown %s-tangent type %s (expected " OSSA__MAYA_TANGENT_LIST ")",
                                   side ? "out" : "in", ossa__maya_show(p, &t));
    }
    double flags[2];
    if ((r = ossa__maya_number(p, &flags[0], "the tangent lock flag")) != OSSA_OK) return r;
    if ((r = ossa__maya_number(p, &flags[1], "the weight lock flag")) != OSSA_OK) return r;
    k.tangent_locked = flags[0] != 0.0;
    k.weight_locked = flags[1] != 0.0;
    /* Then the breakdown flag (1.1 only) and an angle/weight pair per fixed side, in-side first,
     * all on the key's line. */
    const size_t pairs = (size_t)(k.in_type == OSSA_MAYA_TANGENT_FIXED) + (k.out_type == OSSA_MAYA_TANGENT_FIXED);
    const size_t has_breakdown = p->out->version >= 11, need = has_breakdown + 2 * pairs;
    double extra[5];
    size_t count = 0;
    for (;;) {
        ossa__maya_next(p, &t);
        if (t.kind == OSSA__MAYA_SEMI) break;
        if (count == need || t.kind != OSSA__MAYA_WORD || t.line != first->line)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "expected ';' to end the key that starts at line %u, found %s",
                                   (unsigned)first->line, ossa__maya_show(p, &t));
        if (!ossa__maya_to_number(p, &t, &extra[count]))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected a finite number or ';' in the key, found %s",
                                   ossa__maya_show(p, &t));
        ++count;
    }
    if (count < need) {
        char what[96];
        snprintf(what, sizeof what, "%s%s%.0zu%s", has_breakdown ? "the breakdown flag" : "",
                 has_breakdown && pairs ? " and " : "", 2 * pairs,
                 pairs == 2 ? " angle/weight values (both tangents are fixed)"
                 : pairs    ? " angle/weight values (one tangent is fixed)"
                            : "");
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                               "key at time %g: expected %s after the lock flags, found %zu values", k.time, what,
                               count);
    }
    const double *aw = extra;
    if (has_breakdown) k.breakdown = *aw++ != 0.0;
    if (k.in_type == OSSA_MAYA_TANGENT_FIXED) {
        k.in_angle = aw[0];
        k.in_weight = aw[1];
        aw += 2;
    }
    if (k.out_type == OSSA_MAYA_TANGENT_FIXED) {
        k.out_angle = aw[0];
        k.out_weight = aw[1];
    }
    ossa_maya_curve *c = &b->curve;
    if (c->key_count && !(k.time > c->keys[c->key_count - 1].time))
        return ossa__maya_fail(p, OSSA_ERROR_INVALID_KEY, first,
                               "key time %g is not after the previous key time %g (key times "
                               "must strictly increase)",
                               k.time, c->keys[c->key_count - 1].time);
    if (!ossa__grow(&p->out->allocator, (void **)&c->keys, &b->key_capacity, c->key_count + 1, sizeof *c->keys))
        return ossa__maya_fail(p, OSSA_ERROR_OUT_OF_MEMORY, first, "out of memory for key %zu", c->key_count);
    c->keys[c->key_count++] = k;
    return OSSA_OK;
}

static ossa_result parse_keys(parser *p, curve_builder *b, const token *kw)
{
    token t;
    ossa__maya_next(p, &t);
    if (t.kind != OSSA__MAYA_OPEN)
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected '{' after keys, found %s", ossa__maya_show(p, &t));
    for (;;) {
        ossa__maya_next(p, &t);
        if (t.kind == OSSA__MAYA_CLOSE) return OSSA_OK;
        if (t.kind == OSSA__MAYA_EOF)
            return ossa__maya_fail(p, OSSA_ERROR_TRUNCATED, &t,
                                   "input ends inside the keys block of line %u: expected a key or '}'",
                                   (unsigned)kw->line);
        const ossa_result r = parse_key(p, b, &t);
        if (r != OSSA_OK) return r;
    }
}

/* ---- animData ---- */

static ossa_result value_word(parser *p, token *t, const char *keyword)
{
    ossa__maya_next(p, t);
    if (t->kind == OSSA__MAYA_WORD) return OSSA_OK;
    return ossa__maya_fail(p, OSSA_ERROR_PARSE, t, "expected a value after %s, found %s", keyword,
                           ossa__maya_show(p, t));
}

static ossa_result parse_setting(parser *p, curve_builder *b, const token *kw, bool *have_keys)
{
    ossa_maya_curve *c = &b->curve;
    ossa_result r;
    token t;
    if (ossa__maya_is(kw, "keys")) {
        if (*have_keys) return ossa__maya_fail(p, OSSA_ERROR_PARSE, kw, "second keys block in one animData block");
        *have_keys = true;
        return parse_keys(p, b, kw);
    }
    if (ossa__maya_is(kw, "weighted")) {
        double v;
        if ((r = ossa__maya_number(p, &v, "weighted")) != OSSA_OK) return r;
        c->weighted = v != 0.0;
        return ossa__maya_semicolon(p, "the weighted flag");
    }
    if ((r = value_word(p, &t, "the animData setting")) != OSSA_OK) return r;
    if (ossa__maya_is(kw, "input")) {
        if (!ossa__maya_is(&t, "time") && !ossa__maya_is(&t, "unitless"))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "unknown input %s (expected time or unitless)",
                                   ossa__maya_show(p, &t));
        c->unitless_input = ossa__maya_is(&t, "unitless");
    } else if (ossa__maya_is(kw, "output")) {
        static const char *const outputs[] = {"linear", "angular", "unitless", "time"};
        size_t i = 0;
        while (i < 4 && !ossa__maya_is(&t, outputs[i])) ++i;
        if (i == 4)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown output %s (expected time, linear, angular or unitless)",
                                   ossa__maya_show(p, &t));
        c->output = (ossa_maya_output)i;
    } else if (ossa__maya_is(kw, "inputUnit")) {
        if (!ossa__maya_time_unit(p, &t, &c->frame_rate))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown inputUnit %s (expected a time unit such as film, ntsc, "
                                   "ntscf or <n>fps)",
                                   ossa__maya_show(p, &t));
    } else if (ossa__maya_is(kw, "outputUnit")) {
        b->output_unit = t;
    } else if (ossa__maya_is(kw, "tangentAngleUnit")) {
        if (!ossa__maya_angular_unit(&t, &b->angle_scale))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown tangentAngleUnit %s (expected rad, deg, min or sec)",
                                   ossa__maya_show(p, &t));
    } else if (ossa__maya_is(kw, "preInfinity") || ossa__maya_is(kw, "postInfinity")) {
        ossa_maya_infinity mode;
        if (!ossa__maya_infinity_type(&t, &mode))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "unknown infinity %s (expected constant, linear, cycle, cycleRelative or oscillate)",
                                   ossa__maya_show(p, &t));
        if (ossa__maya_is(kw, "preInfinity"))
            c->pre_infinity = mode;
        else
            c->post_infinity = mode;
    } else {
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, kw,
                               "unknown animData setting %s (expected input, output, weighted, inputUnit, outputUnit, "
                               "tangentAngleUnit, preInfinity, postInfinity or keys)",
                               ossa__maya_show(p, kw));
    }
    return ossa__maya_semicolon(p, "the animData setting's value");
}

/* Units that depend on the output type, once the whole block is read. */
static ossa_result resolve_units(parser *p, curve_builder *b)
{
    ossa_maya_curve *c = &b->curve;
    const token *u = &b->output_unit;
    double out_fps = p->out->frame_rate;
    if (u->kind == OSSA__MAYA_WORD) {
        bool ok = false;
        switch (c->output) {
        case OSSA_MAYA_OUTPUT_LINEAR:
            ok = ossa__maya_linear_unit(u, &c->linear_scale);
            break;
        case OSSA_MAYA_OUTPUT_ANGULAR:
            ok = ossa__maya_angular_unit(u, &c->angular_scale);
            break;
        case OSSA_MAYA_OUTPUT_TIME:
            ok = ossa__maya_time_unit(p, u, &out_fps);
            break;
        case OSSA_MAYA_OUTPUT_UNITLESS:
            break;
        }
        if (!ok)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, u, "outputUnit %s does not name a %s unit",
                                   ossa__maya_show(p, u),
                                   c->output == OSSA_MAYA_OUTPUT_LINEAR    ? "linear (mm, cm, m, km, in, ft, yd, mi)"
                                   : c->output == OSSA_MAYA_OUTPUT_ANGULAR ? "angular (rad, deg, min, sec)"
                                   : c->output == OSSA_MAYA_OUTPUT_TIME    ? "time"
                                                                           : "unitless output's");
    }
    switch (c->output) {
    case OSSA_MAYA_OUTPUT_LINEAR:
        c->value_scale = c->linear_scale;
        break;
    case OSSA_MAYA_OUTPUT_ANGULAR:
        c->value_scale = c->angular_scale;
        break;
    case OSSA_MAYA_OUTPUT_TIME:
        c->value_scale = 1.0 / out_fps;
        break;
    case OSSA_MAYA_OUTPUT_UNITLESS:
        c->value_scale = 1.0;
        break;
    }
    if (c->unitless_input) c->frame_rate = 0.0;
    for (size_t i = 0; i < c->key_count; ++i) {
        c->keys[i].in_angle *= b->angle_scale;
        c->keys[i].out_angle *= b->angle_scale;
    }
    return OSSA_OK;
}

static char *join_names(const ossa_allocator *allocator, const token *full, const token *leaf)
{
    const size_t nf = full ? full->len : 0, nl = leaf ? leaf->len : 0;
    char *s = ossa_alloc(allocator, nf + nl + 2);
    if (!s) return NULL;
    if (nf) memcpy(s, full->text, nf);
    s[nf] = '\0';
    if (nl) memcpy(s + nf + 1, leaf->text, nl);
    s[nf + 1 + nl] = '\0';
    return s;
}

static ossa_result parse_anim_data(parser *p, const token *kw, const token *names, size_t name_count, size_t node,
                                   const token *anim)
{
    ossa_maya_anim *a = p->out;
    curve_builder b = {0};
    b.curve.frame_rate = a->frame_rate;
    b.curve.linear_scale = a->linear_scale;
    b.curve.angular_scale = a->angular_scale;
    b.curve.line = anim->line;
    b.angle_scale = a->angular_scale; /* tangentAngleUnit defaults to angularUnit */
    bool have_keys = false;
    ossa_result r = OSSA_OK;
    token t;
    ossa__maya_next(p, &t);
    if (t.kind != OSSA__MAYA_OPEN) {
        r = ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected '{' after animData, found %s", ossa__maya_show(p, &t));
        goto fail;
    }
    for (;;) {
        ossa__maya_next(p, &t);
        if (t.kind == OSSA__MAYA_CLOSE) break;
        if (t.kind != OSSA__MAYA_WORD) {
            r = ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                "expected an animData setting or '}' to close the animData block of "
                                "line %u, found %s",
                                (unsigned)kw->line, ossa__maya_show(p, &t));
            goto fail;
        }
        if ((r = parse_setting(p, &b, &t, &have_keys)) != OSSA_OK) goto fail;
    }
    if ((r = resolve_units(p, &b)) != OSSA_OK) goto fail;
    const token *full = name_count ? &names[0] : NULL, *leaf = name_count == 3 ? &names[1] : full;
    char *attribute = join_names(&a->allocator, full, leaf);
    if (!attribute ||
        !ossa__grow(&a->allocator, (void **)&a->curves, &p->curve_capacity, a->curve_count + 1, sizeof *a->curves)) {
        ossa_free(&a->allocator, attribute);
        r = ossa__maya_fail(p, OSSA_ERROR_OUT_OF_MEMORY, anim, "out of memory for curve %zu", a->curve_count);
        goto fail;
    }
    b.curve.attribute = attribute;
    b.curve.leaf = attribute + strlen(attribute) + 1;
    b.curve.node = node == SIZE_MAX ? "" : a->nodes[node];
    b.curve.node_index = node;
    if ((r = ossa_maya_curve_prepare(&b.curve)) != OSSA_OK) {
        ossa_free(&a->allocator, attribute);
        r = ossa__maya_fail(p, r, anim, "curve of the anim statement at line %u has invalid keys",
                            (unsigned)anim->line);
        goto fail;
    }
    a->curves[a->curve_count++] = b.curve;
    return OSSA_OK;
fail:
    ossa_free(&a->allocator, b.curve.keys);
    return r;
}

/* anim [fullAttribute leafAttribute node | attribute | node] row child attr ; [animData {...}] */
static ossa_result parse_anim(parser *p, const token *kw)
{
    token toks[6], t;
    size_t n = 0;
    for (;;) {
        ossa__maya_next(p, &t);
        if (t.kind == OSSA__MAYA_SEMI) break;
        if (t.kind != OSSA__MAYA_WORD || n == 6)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "expected ';' to end the anim statement of line %u (up to 3 names "
                                   "and 3 integers), found %s",
                                   (unsigned)kw->line, ossa__maya_show(p, &t));
        if (t.len > OSSA__MAYA_MAX_NAME)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "name longer than %d bytes", OSSA__MAYA_MAX_NAME);
        toks[n++] = t;
    }
    if (n < 3)
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                               "expected 3 integers (row, child, attribute index) before ';' in the "
                               "anim statement, found %zu values",
                               n);
    for (size_t i = n - 3; i < n; ++i) {
        double v;
        if (!ossa__maya_to_number(p, &toks[i], &v) || v != floor(v))
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &toks[i],
                                   "expected an integer (row, child or attribute index) in the "
                                   "anim statement, found %s",
                                   ossa__maya_show(p, &toks[i]));
    }
    const size_t names = n - 3;
    if (names == 2)
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, &toks[0],
                               "expected 0, 1 or 3 names before the integers of the anim "
                               "statement, found 2");
    /* Only the placeholder form (one name: the node) stands alone; a statement naming an
     * attribute, or none, announces its curve, and a file that ends before it is cut short. */
    const bool has_data = ossa__maya_is(ossa__maya_peek(p), "animData");
    if (!has_data && names != 1) {
        char node[80] = "a curve connected to no node";
        if (names)
            snprintf(node, sizeof node, "a curve of node '%.*s'", (int)(toks[2].len < 48 ? toks[2].len : 48),
                     toks[2].text);
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, ossa__maya_peek(p),
                               "expected the animData block of the anim statement at line %u (%s), found %s",
                               (unsigned)kw->line, node, ossa__maya_show(p, ossa__maya_peek(p)));
    }
    /* A curve statement with one name is connected to that attribute only: it has no node. */
    size_t node = SIZE_MAX;
    if (names == 3 || (names == 1 && !has_data)) {
        const ossa_result r = ossa__maya_node_statement(p, &toks[names == 3 ? 2 : 0], !has_data, &toks[n - 2], &node);
        if (r != OSSA_OK) return r;
        p->last_node = node;
        p->last_placeholder = !has_data;
    }
    if (!has_data) return OSSA_OK;
    token d;
    ossa__maya_next(p, &d);
    return parse_anim_data(p, &d, toks, names, node, kw);
}

static ossa_result parse_file(parser *p)
{
    bool body = false;
    token t;
    for (;;) {
        ossa__maya_next(p, &t);
        if (t.kind == OSSA__MAYA_EOF) break;
        if (t.kind != OSSA__MAYA_WORD)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t,
                                   "expected a keyword (animVersion, timeUnit, ..., anim), found %s",
                                   ossa__maya_show(p, &t));
        ossa_result r;
        if (ossa__maya_is(&t, "anim")) {
            if (!p->out->version)
                return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected animVersion before the first anim statement");
            body = true;
            r = parse_anim(p, &t);
        } else if (ossa__maya_is(&t, "animData")) {
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "animData block without an anim statement before it");
        } else {
            if (body)
                return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "header keyword %s after the first anim statement",
                                       ossa__maya_show(p, &t));
            r = parse_header(p, &t);
        }
        if (r != OSSA_OK) return r;
    }
    if (!p->out->version)
        return ossa__maya_fail(p, p->size ? OSSA_ERROR_PARSE : OSSA_ERROR_TRUNCATED, &t,
                               "expected an animVersion statement (required), found end of file");
    return ossa__maya_build_tree(p);
}

ossa_result ossa_maya_anim_parse(const void *data, size_t size, const ossa_allocator *allocator, ossa_maya_anim *out,
                                 ossa_diag *diag)
{
    if (!out) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no output");
    memset(out, 0, sizeof *out);
    if (allocator) out->allocator = *allocator;
    if (!data && size) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no input data");
    out->frame_rate = 24.0; /* Maya's default UI units when the header gives none */
    out->linear_scale = 0.01;
    out->angular_scale = PI / 180.0;
    strcpy(out->time_unit, "film");
    strcpy(out->linear_unit, "cm");
    strcpy(out->angular_unit, "deg");
    parser p = {.data = data, .size = data ? size : 0, .line = 1, .out = out, .diag = diag, .last_node = SIZE_MAX};
    const struct lconv *lc = localeconv();
    p.decimal_point = lc && lc->decimal_point && lc->decimal_point[0] ? lc->decimal_point[0] : '.';
    const ossa_result r = parse_file(&p);
    ossa_free(&out->allocator, p.slots);
    ossa_free(&out->allocator, p.node_info);
    if (r != OSSA_OK) ossa_maya_anim_destroy(out);
    return r;
}

void ossa_maya_anim_destroy(ossa_maya_anim *anim)
{
    if (!anim) return;
    const ossa_allocator allocator = anim->allocator;
    for (size_t i = 0; i < anim->curve_count; ++i) {
        ossa_free(&allocator, anim->curves[i].keys);
        ossa_free(&allocator, (void *)anim->curves[i].attribute);
    }
    for (size_t i = 0; i < anim->node_count; ++i) ossa_free(&allocator, anim->nodes[i]);
    ossa_free(&allocator, anim->curves);
    ossa_free(&allocator, anim->nodes);
    ossa_free(&allocator, anim->parents);
    memset(anim, 0, sizeof *anim);
    anim->allocator = allocator;
}

bool ossa_maya_anim_detect(const void *data, size_t size)
{
    const char *s = data;
    size_t i = 0;
    if (!s) return false;
    while (i < size) {
        const char c = s[i];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v') {
            ++i;
        } else if (c == '#' || (c == '/' && i + 1 < size && s[i + 1] == '/')) {
            while (i < size && s[i] != '\n' && s[i] != '\r') ++i;
        } else {
            break;
        }
    }
    static const char keyword[] = "animVersion";
    const size_t n = sizeof keyword - 1;
    return size - i > n && memcmp(s + i, keyword, n) == 0 && (s[i + n] == ' ' || s[i + n] == '\t' || s[i + n] == ';');
}
