/* Private to the Maya .anim parser: tokens, parser state, numbers, units and names shared by
 * the tokenizer (maya_lex.c) and the grammar (maya_anim.c). */
#ifndef OSSA_OFFLINE_IMPORT_MAYA_PARSE_H
#define OSSA_OFFLINE_IMPORT_MAYA_PARSE_H

#include "import/maya_curve.h"

#define OSSA__MAYA_MAX_NAME 4096 /* longest node or attribute name accepted */
#define OSSA__MAYA_TANGENT_LIST                                                                                        \
    "spline, linear, flat, step, stepnext, fixed, clamped, plateau, auto, autoease, automix, slow or fast"

enum { OSSA__MAYA_EOF, OSSA__MAYA_WORD, OSSA__MAYA_SEMI, OSSA__MAYA_OPEN, OSSA__MAYA_CLOSE };

typedef struct ossa__maya_token {
    int kind;         /* OSSA__MAYA_EOF .. OSSA__MAYA_CLOSE */
    const char *text; /* into the input, `len` bytes */
    size_t len, offset;
    uint32_t line, column;
} ossa__maya_token;

/* What the parser keeps of a node until the end of the file. */
typedef struct ossa__maya_node_info {
    uint32_t children;      /* child count of its anim statements (UINT32_MAX for larger) */
    ossa__maya_token count; /* that count in its first statement, for messages */
} ossa__maya_node_info;

typedef struct ossa__maya_parser {
    const char *data;
    size_t size, pos, line_start;
    uint32_t line;
    ossa__maya_token peeked;
    bool has_peeked;
    char decimal_point; /* of LC_NUMERIC, for strtod */
    char shown[48];
    ossa_maya_anim *out;
    ossa_diag *diag;
    size_t curve_capacity, node_capacity;
    size_t *slots; /* open-addressing node index + 1 by name hash */
    size_t slot_count;
    ossa__maya_node_info *node_info; /* [node_count] */
    size_t info_capacity;
    size_t last_node;      /* node of the last anim statement that named one, SIZE_MAX none */
    bool last_placeholder; /* that statement was a placeholder */
} ossa__maya_parser;

/* The next token (after a peeked one, if any). */
void ossa__maya_next(ossa__maya_parser *p, ossa__maya_token *t);
/* The next token without consuming it. */
const ossa__maya_token *ossa__maya_peek(ossa__maya_parser *p);
/* True when `t` is the word `word` (ASCII case-insensitive). */
bool ossa__maya_is(const ossa__maya_token *t, const char *word);
/* The token quoted for a message ("end of file" at the end); valid until the next call. */
const char *ossa__maya_show(ossa__maya_parser *p, const ossa__maya_token *t);
/* Records an error at `t` (PARSE becomes TRUNCATED at the end of the input); returns the code. */
ossa_result ossa__maya_fail(ossa__maya_parser *p, ossa_result code, const ossa__maya_token *t, const char *fmt, ...)
    OSSA_PRINTF_FORMAT(4, 5);
/* A finite decimal number (no hex, inf or nan). */
bool ossa__maya_to_number(ossa__maya_parser *p, const ossa__maya_token *t, double *out);
/* Reads a number token; the error names `what`. */
ossa_result ossa__maya_number(ossa__maya_parser *p, double *out, const char *what);
/* Reads ';'; the error says it was expected after `after`. */
ossa_result ossa__maya_semicolon(ossa__maya_parser *p, const char *after);
/* Unit names: frames per second (also "<n>fps"), metres or radians per unit. */
bool ossa__maya_time_unit(ossa__maya_parser *p, const ossa__maya_token *t, double *fps);
bool ossa__maya_linear_unit(const ossa__maya_token *t, double *metres);
bool ossa__maya_angular_unit(const ossa__maya_token *t, double *radians);
/* Tangent type ("global" reads as spline) and infinity names. */
bool ossa__maya_tangent_type(const ossa__maya_token *t, ossa_maya_tangent_type *type);
bool ossa__maya_infinity_type(const ossa__maya_token *t, ossa_maya_infinity *type);
/* The anim statement of node `name` (a placeholder, or a curve statement naming a node) with
 * child count token `count` (an integer): the node's index in out->nodes through *index,
 * added when the statement starts a node. Errors: a negative count, a count that differs
 * from the node's earlier statements, a node named again after other nodes (maya_nodes.c). */
ossa_result ossa__maya_node_statement(ossa__maya_parser *p, const ossa__maya_token *name, bool placeholder,
                                      const ossa__maya_token *count, size_t *index);
/* Sets out->parents from the nodes' child counts (depth-first); an error names the node
 * whose children do not all follow it. */
ossa_result ossa__maya_build_tree(ossa__maya_parser *p);
/* Copies the token into dst (`size` bytes, cut and NUL-terminated). */
void ossa__maya_copy_word(char *dst, size_t size, const ossa__maya_token *t);

#endif
