/* Maya .anim tokens: whitespace-separated words, ';' '{' '}' as separators, "//" and '#' comments
 * to the end of the line; strict decimal numbers; unit, tangent and infinity names.
 * Source: "Anim File Format" (Maya documentation); "<n>fps" time units as Maya 2026 writes them. */
#include "import/maya_parse.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PI         3.14159265358979323846
#define MAX_NUMBER 127 /* longest numeric token accepted */

typedef struct unit {
    const char *name;
    double value;
} unit;

/* Frames per second. */
static const unit time_units[] = {{"game", 15.0},  {"film", 24.0},         {"pal", 25.0},
                                  {"ntsc", 30.0},  {"show", 48.0},         {"palf", 50.0},
                                  {"ntscf", 60.0}, {"hour", 1.0 / 3600.0}, {"min", 1.0 / 60.0},
                                  {"sec", 1.0},    {"millisec", 1000.0},   {"29.97df", 30000.0 / 1001.0}};
/* NTSC-style "<n>fps" names Maya writes for rates of the form k * 1000/1001 (MTime units). */
static const unit ntsc_fps[] = {{"23.976", 24000.0 / 1001.0},
                                {"29.97", 30000.0 / 1001.0},
                                {"47.952", 48000.0 / 1001.0},
                                {"59.94", 60000.0 / 1001.0},
                                {"119.88", 120000.0 / 1001.0}};
/* Metres per unit. */
static const unit linear_units[] = {{"mm", 0.001},  {"cm", 0.01},   {"m", 1.0},     {"km", 1000.0},
                                    {"in", 0.0254}, {"ft", 0.3048}, {"yd", 0.9144}, {"mi", 1609.344}};
/* Radians per unit. */
static const unit angular_units[] = {{"rad", 1.0}, {"deg", PI / 180.0}, {"min", PI / 10800.0}, {"sec", PI / 648000.0}};

static const char *const tangent_names[] = {"spline",  "linear", "flat",     "step",    "stepnext", "fixed", "clamped",
                                            "plateau", "auto",   "autoease", "automix", "slow",     "fast"};
static const char *const infinity_names[] = {"constant", "linear", "cycle", "cycleRelative", "oscillate"};

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

static void lex(ossa__maya_parser *p, ossa__maya_token *t)
{
    for (;;) {
        while (p->pos < p->size && is_space(p->data[p->pos])) {
            const char c = p->data[p->pos++];
            if (c == '\n' || (c == '\r' && (p->pos >= p->size || p->data[p->pos] != '\n'))) {
                if (p->line < UINT32_MAX) ++p->line;
                p->line_start = p->pos;
            }
        }
        if (p->pos < p->size && (p->data[p->pos] == '#' ||
                                 (p->data[p->pos] == '/' && p->pos + 1 < p->size && p->data[p->pos + 1] == '/'))) {
            while (p->pos < p->size && p->data[p->pos] != '\n' && p->data[p->pos] != '\r') ++p->pos;
            continue;
        }
        break;
    }
    const size_t column = p->pos - p->line_start + 1;
    t->offset = p->pos;
    t->line = p->line;
    t->column = column > UINT32_MAX ? UINT32_MAX : (uint32_t)column;
    t->text = p->data + p->pos;
    t->len = 0;
    if (p->pos >= p->size) {
        t->kind = OSSA__MAYA_EOF;
        return;
    }
    const char c = p->data[p->pos];
    if (c == ';' || c == '{' || c == '}') {
        t->kind = c == ';' ? OSSA__MAYA_SEMI : c == '{' ? OSSA__MAYA_OPEN : OSSA__MAYA_CLOSE;
        t->len = 1;
        ++p->pos;
        return;
    }
    t->kind = OSSA__MAYA_WORD;
    while (p->pos < p->size && !is_space(p->data[p->pos]) && p->data[p->pos] != ';' && p->data[p->pos] != '{' &&
           p->data[p->pos] != '}')
        ++p->pos;
    t->len = p->pos - (size_t)(t->text - p->data);
}

void ossa__maya_next(ossa__maya_parser *p, ossa__maya_token *t)
{
    if (p->has_peeked) {
        *t = p->peeked;
        p->has_peeked = false;
    } else {
        lex(p, t);
    }
}

const ossa__maya_token *ossa__maya_peek(ossa__maya_parser *p)
{
    if (!p->has_peeked) {
        lex(p, &p->peeked);
        p->has_peeked = true;
    }
    return &p->peeked;
}

bool ossa__maya_is(const ossa__maya_token *t, const char *word)
{
    return t->kind == OSSA__MAYA_WORD && t->len == strlen(word) && strncasecmp(t->text, word, t->len) == 0;
}

/* The token quoted for a message (control bytes shown as '?', long words cut). */
const char *ossa__maya_show(ossa__maya_parser *p, const ossa__maya_token *t)
{
    if (t->kind == OSSA__MAYA_EOF) return "end of file";
    size_t n = t->len > 32 ? 32 : t->len, o = 0;
    p->shown[o++] = '\'';
    for (size_t i = 0; i < n; ++i) {
        const unsigned char c = (unsigned char)t->text[i];
        p->shown[o++] = (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
    }
    if (n < t->len) {
        memcpy(p->shown + o, "...", 3);
        o += 3;
    }
    p->shown[o++] = '\'';
    p->shown[o] = '\0';
    return p->shown;
}

/* Records an error at token `t`; a token at the end of the input makes it TRUNCATED. */
ossa_result ossa__maya_fail(ossa__maya_parser *p, ossa_result code, const ossa__maya_token *t, const char *fmt, ...)
{
    char message[sizeof p->diag->message];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    if (t->kind == OSSA__MAYA_EOF && code == OSSA_ERROR_PARSE) code = OSSA_ERROR_TRUNCATED;
    return ossa_diag_set(p->diag, code, t->offset, t->line, t->column, "%s", message);
}

/* A finite decimal number: digits, sign, '.', exponent only (no hex, inf or nan). */
bool ossa__maya_to_number(ossa__maya_parser *p, const ossa__maya_token *t, double *out)
{
    char buffer[MAX_NUMBER + 1];
    if (t->kind != OSSA__MAYA_WORD || t->len == 0 || t->len > MAX_NUMBER) return false;
    for (size_t i = 0; i < t->len; ++i) {
        const char c = t->text[i];
        if (!((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' || c == 'e' || c == 'E')) return false;
        buffer[i] = c == '.' ? p->decimal_point : c; /* strtod follows LC_NUMERIC */
    }
    buffer[t->len] = '\0';
    char *end;
    const double v = strtod(buffer, &end);
    if (end != buffer + t->len || !isfinite(v)) return false;
    *out = v;
    return true;
}

ossa_result ossa__maya_number(ossa__maya_parser *p, double *out, const char *what)
{
    ossa__maya_token t;
    ossa__maya_next(p, &t);
    if (ossa__maya_to_number(p, &t, out)) return OSSA_OK;
    return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected a finite number for %s, found %s", what,
                           ossa__maya_show(p, &t));
}

ossa_result ossa__maya_semicolon(ossa__maya_parser *p, const char *after)
{
    ossa__maya_token t;
    ossa__maya_next(p, &t);
    if (t.kind == OSSA__MAYA_SEMI) return OSSA_OK;
    return ossa__maya_fail(p, OSSA_ERROR_PARSE, &t, "expected ';' after %s, found %s", after, ossa__maya_show(p, &t));
}

static bool find_unit(const unit *units, size_t count, const ossa__maya_token *t, double *value)
{
    for (size_t i = 0; i < count; ++i)
        if (ossa__maya_is(t, units[i].name)) {
            *value = units[i].value;
            return true;
        }
    return false;
}

/* Time units, including Maya's "<n>fps" names (^[0-9.]+fps$). */
bool ossa__maya_time_unit(ossa__maya_parser *p, const ossa__maya_token *t, double *fps)
{
    if (find_unit(time_units, sizeof time_units / sizeof *time_units, t, fps)) return true;
    if (t->kind != OSSA__MAYA_WORD || t->len < 4 || strncasecmp(t->text + t->len - 3, "fps", 3) != 0) return false;
    ossa__maya_token rate = *t;
    rate.len -= 3;
    if (find_unit(ntsc_fps, sizeof ntsc_fps / sizeof *ntsc_fps, &rate, fps)) return true;
    for (size_t i = 0; i < rate.len; ++i)
        if (!((rate.text[i] >= '0' && rate.text[i] <= '9') || rate.text[i] == '.')) return false;
    return ossa__maya_to_number(p, &rate, fps) && *fps > 0.0 && *fps <= 1e6;
}

void ossa__maya_copy_word(char *dst, size_t size, const ossa__maya_token *t)
{
    const size_t n = t->len < size - 1 ? t->len : size - 1;
    memcpy(dst, t->text, n);
    dst[n] = '\0';
}

bool ossa__maya_linear_unit(const ossa__maya_token *t, double *metres)
{
    return find_unit(linear_units, sizeof linear_units / sizeof *linear_units, t, metres);
}

bool ossa__maya_angular_unit(const ossa__maya_token *t, double *radians)
{
    return find_unit(angular_units, sizeof angular_units / sizeof *angular_units, t, radians);
}

bool ossa__maya_tangent_type(const ossa__maya_token *t, ossa_maya_tangent_type *type)
{
    if (ossa__maya_is(t, "global")) { /* pre-2.0 files */
        *type = OSSA_MAYA_TANGENT_SPLINE;
        return true;
    }
    for (size_t i = 0; i < sizeof tangent_names / sizeof *tangent_names; ++i)
        if (ossa__maya_is(t, tangent_names[i])) {
            *type = (ossa_maya_tangent_type)i;
            return true;
        }
    return false;
}

bool ossa__maya_infinity_type(const ossa__maya_token *t, ossa_maya_infinity *type)
{
    for (size_t i = 0; i < sizeof infinity_names / sizeof *infinity_names; ++i)
        if (ossa__maya_is(t, infinity_names[i])) {
            *type = (ossa_maya_infinity)i;
            return true;
        }
    return false;
}
