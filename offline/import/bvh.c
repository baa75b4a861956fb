/* BVH import as a stream (see ossa/offline/import_bvh.h).
 *
 * The text is read through a small buffer, token by token as assimp's BVHLoader splits it
 * (whitespace-separated, a '{' or '}' that starts a token is one), and each frame's values go
 * straight into the keys of the joint their node drives. The conversion repeats assimp 5.2.5's
 * arithmetic step by step in float (fast_atoreal_move, aiMatrix4x4::RotationX/Y/Z,
 * aiMatrix3x3::operator*=, aiQuaternion from a 3x3 matrix), so the keys equal those of the
 * assimp path bit for bit; test_import_bvh compares both on real files.
 */
#include "ossa/offline/import_bvh.h"

#include "import_internal.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__clang__)
/* Every product and sum rounds on its own, as in the library whose keys are matched. */
#pragma STDC FP_CONTRACT OFF
#endif

enum { BUFFER_SIZE = 1 << 16, TOKEN_MAX = 1024, MAX_NODES = 4 * OSSA_MAX_JOINTS, MAX_CHANNELS = 64 };

/* assimp's aiString holds at most 1023 bytes; a longer name is not one this import can match. */
#define NAME_MAX_BYTES 1023

typedef enum channel { POS_X, POS_Y, POS_Z, ROT_X, ROT_Y, ROT_Z } channel;

typedef struct node {
    char *name;
    size_t parent; /* SIZE_MAX for the root */
    float offset[3];
    bool end_site; /* an End Site block (no channels) */
    bool children; /* has a child node */
    uint8_t channel_count;
    uint8_t channels[MAX_CHANNELS];
    size_t first;   /* the first node (pre-order) of the same name */
    int32_t joint;  /* joint index or -1 */
    int32_t drives; /* channel nodes: the joint whose keys its values become, or -1 */
} node;

typedef struct reader {
    ossa_read_fn read;
    void *user;
    const char *data; /* the bytes at hand: the caller's (memory) or `buffer` */
    size_t size, pos;
    size_t base; /* stream offset of data[0] */
    bool memory, end;
    char *buffer;
    uint32_t line, column; /* of data[pos] */
    /* The last token and where it started. */
    char token[TOKEN_MAX + 1];
    size_t token_len, token_offset;
    uint32_t token_line, token_column;
    bool token_too_long;
    ossa_diag *diag;
} reader;

static bool refill(reader *r)
{
    if (r->memory || r->end) return false;
    r->base += r->size;
    r->size = r->read(r->buffer, BUFFER_SIZE, r->user);
    r->pos = 0;
    r->data = r->buffer;
    if (r->size > BUFFER_SIZE) r->size = 0; /* a reader that claims more than it was given */
    if (r->size == 0) r->end = true;
    return r->size != 0;
}

/* The next byte, or -1 at the end; not consumed. */
static inline int peek(reader *r)
{
    if (r->pos == r->size && !refill(r)) return -1;
    return (unsigned char)r->data[r->pos];
}

static inline void advance(reader *r, int c)
{
    ++r->pos;
    if (c == '\n')
        ++r->line, r->column = 1;
    else
        ++r->column;
}

/* isspace() of the C locale, which assimp's tokenizer calls. */
static inline bool space(int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

/* The next token into r->token (empty at the end of the input). With `line_only`, stops at a
 * newline instead of skipping it (the token is then empty and the newline not consumed). */
static void next_token(reader *r, bool line_only)
{
    int c;
    while ((c = peek(r)) >= 0 && space(c)) {
        if (line_only && c == '\n') break;
        advance(r, c);
    }
    r->token_len = 0, r->token_too_long = false;
    r->token_offset = r->base + r->pos, r->token_line = r->line, r->token_column = r->column;
    while ((c = peek(r)) >= 0 && !space(c)) {
        advance(r, c);
        if (r->token_len < TOKEN_MAX)
            r->token[r->token_len++] = (char)c;
        else
            r->token_too_long = true;
        if (r->token_len == 1 && (c == '{' || c == '}')) break;
    }
    r->token[r->token_len] = '\0';
}

static bool token_is(const reader *r, const char *word) { return !r->token_too_long && !strcmp(r->token, word); }

/* An error at the last token, quoting it. */
static ossa_result fail_token(reader *r, ossa_result code, const char *expected)
{
    if (!r->token_len)
        return ossa_diag_set(r->diag, code, r->token_offset, r->token_line, r->token_column,
                             "expected %s, found the end of the file", expected);
    return ossa_diag_set(r->diag, code, r->token_offset, r->token_line, r->token_column,
                         "expected %s, found \"%.40s%s\"", expected, r->token,
                         r->token_len > 40 || r->token_too_long ? "..." : "");
}

/* assimp's strtoul10_64 with an optional digit limit: false on an overflow (which leaves the
 * token unconsumed there, so the number is refused). */
static bool digits_u64(const char **c, uint64_t *value, unsigned *limit)
{
    unsigned count = 0;
    uint64_t v = 0;
    const char *p = *c;
    while (*p >= '0' && *p <= '9') {
        const uint64_t next = v * 10u + (uint64_t)(*p - '0');
        if (next < v) return false;
        v = next, ++p, ++count;
        if (limit && *limit == count) {
            while (*p >= '0' && *p <= '9') ++p;
            break;
        }
    }
    if (limit && count < *limit) *limit = count;
    *c = p, *value = v;
    return true;
}

static bool prefix_nocase(const char *s, const char *word)
{
    for (; *word; ++s, ++word)
        if ((*s | 0x20) != *word) return false;
    return true;
}

/* The token as assimp's fast_atoreal_move<float> reads it (a ',' counts as the decimal point;
 * at most 15 decimals are read, the rest skipped; "nan", "inf", "infinity"). False when the
 * token is not a number in whole. */
static bool parse_float(const char *c, size_t len, float *out)
{
    static const double decimals[16] = {0.0,
                                        0.1,
                                        0.01,
                                        0.001,
                                        0.0001,
                                        0.00001,
                                        0.000001,
                                        0.0000001,
                                        0.00000001,
                                        0.000000001,
                                        0.0000000001,
                                        0.00000000001,
                                        0.000000000001,
                                        0.0000000000001,
                                        0.00000000000001,
                                        0.000000000000001};
    const char *end = c + len;
    float f = 0.f;
    const bool negative = *c == '-';
    if (negative || *c == '+') ++c;
    if (prefix_nocase(c, "nan")) {
        *out = NAN;
        return c + 3 == end;
    }
    if (prefix_nocase(c, "inf")) {
        *out = negative ? -INFINITY : INFINITY;
        c += 3;
        if (prefix_nocase(c, "inity")) c += 5;
        return c == end;
    }
    const bool point = *c == '.' || *c == ',';
    if (!(*c >= '0' && *c <= '9') && !(point && c[1] >= '0' && c[1] <= '9')) return false;
    uint64_t v;
    if (!point) {
        if (!digits_u64(&c, &v, NULL)) return false;
        f = (float)v;
    }
    if ((*c == '.' || *c == ',') && c[1] >= '0' && c[1] <= '9') {
        ++c;
        unsigned limit = 15;
        if (!digits_u64(&c, &v, &limit)) return false;
        f += (float)((double)v * decimals[limit]);
    } else if (*c == '.') {
        ++c;
    }
    if (*c == 'e' || *c == 'E') {
        ++c;
        const bool negative_exp = *c == '-';
        if (negative_exp || *c == '+') ++c;
        if (!(*c >= '0' && *c <= '9') || !digits_u64(&c, &v, NULL)) return false;
        float e = (float)v;
        if (negative_exp) e = -e;
        f *= powf(10.f, e);
    }
    if (negative) f = -f;
    *out = f;
    return c == end;
}

static ossa_result read_float(reader *r, float *value, const char *what)
{
    next_token(r, false);
    if (!r->token_len || r->token_too_long || !parse_float(r->token, r->token_len, value))
        return fail_token(r, OSSA_ERROR_PARSE, what);
    return OSSA_OK;
}

/* ---- HIERARCHY ---- */

typedef struct parser {
    reader r;
    const ossa_allocator *allocator;
    node *nodes;
    size_t node_count, node_capacity;
    size_t channel_nodes, values; /* nodes with channels (including 0 channels), values a frame */
} parser;

static ossa_result add_node(parser *p, const char *name, size_t parent, bool end_site, size_t *index)
{
    if (p->node_count == MAX_NODES)
        return ossa_diag_set(p->r.diag, OSSA_ERROR_TOO_MANY_JOINTS, p->r.token_offset, p->r.token_line,
                             p->r.token_column, "more than %d nodes in the HIERARCHY", MAX_NODES);
    if (!ossa__grow(p->allocator, (void **)&p->nodes, &p->node_capacity, p->node_count + 1, sizeof *p->nodes))
        return ossa__fail(p->r.diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory reading the HIERARCHY");
    node *n = &p->nodes[p->node_count];
    memset(n, 0, sizeof *n);
    n->parent = parent, n->end_site = end_site, n->joint = -1, n->drives = -1;
    const size_t len = strlen(name);
    n->name = ossa_alloc(p->allocator, len + 1);
    if (!n->name) return ossa__fail(p->r.diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory reading the HIERARCHY");
    memcpy(n->name, name, len + 1);
    if (parent != SIZE_MAX) p->nodes[parent].children = true;
    *index = p->node_count++;
    return OSSA_OK;
}

static ossa_result read_offset(parser *p, size_t index)
{
    ossa_result r = OSSA_OK;
    for (int k = 0; k < 3 && !r; ++k) r = read_float(&p->r, &p->nodes[index].offset[k], "an OFFSET number");
    return r;
}

static ossa_result read_channels(parser *p, size_t index)
{
    reader *r = &p->r;
    float count;
    ossa_result e = read_float(r, &count, "a channel count after CHANNELS");
    if (e) return e;
    if (!(count >= 0.f) || count >= (float)MAX_CHANNELS + 1.f)
        return ossa_diag_set(r->diag, OSSA_ERROR_PARSE, r->token_offset, r->token_line, r->token_column,
                             "CHANNELS %.40s; expected a count from 0 to %d", r->token, MAX_CHANNELS);
    node *n = &p->nodes[index];
    static const char *const names[6] = {"Xposition", "Yposition", "Zposition", "Xrotation", "Yrotation", "Zrotation"};
    const unsigned want = (unsigned)count;
    for (unsigned a = 0; a < want; ++a) {
        next_token(r, false);
        int found = -1;
        for (int k = 0; k < 6 && found < 0; ++k)
            if (token_is(r, names[k])) found = k;
        if (found < 0) return fail_token(r, OSSA_ERROR_PARSE, "a channel (Xposition ... Zrotation)");
        if (n->channel_count == MAX_CHANNELS) break;
        n->channels[n->channel_count++] = (uint8_t)found;
        ++p->values;
    }
    return OSSA_OK;
}

/* ROOT's or a JOINT's block after its keyword: name, '{', contents, '}' (an explicit stack
 * rather than recursion, so a deep file cannot exhaust the C stack). */
static ossa_result read_hierarchy(parser *p)
{
    reader *r = &p->r;
    ossa_result e = OSSA_OK;
    size_t current = SIZE_MAX;
    bool open_node = true; /* a node name and '{' are expected next */
    bool end_site = false;
    while (!e) {
        if (open_node) {
            size_t index;
            if (end_site) {
                char name[TOKEN_MAX + 16];
                snprintf(name, sizeof name, "EndSite_%s", p->nodes[current].name);
                next_token(r, false);
                if (!token_is(r, "{")) return fail_token(r, OSSA_ERROR_PARSE, "\"{\" after End Site");
                if ((e = add_node(p, strlen(name) > NAME_MAX_BYTES ? "" : name, current, true, &index))) return e;
            } else {
                next_token(r, false);
                if (!r->token_len || token_is(r, "{")) return fail_token(r, OSSA_ERROR_PARSE, "a node name");
                if (r->token_too_long || r->token_len > NAME_MAX_BYTES)
                    return fail_token(r, OSSA_ERROR_PARSE, "a node name of at most 1023 bytes");
                char name[TOKEN_MAX + 1];
                memcpy(name, r->token, r->token_len + 1);
                next_token(r, false);
                if (!token_is(r, "{")) return fail_token(r, OSSA_ERROR_PARSE, "\"{\" after the node name");
                if ((e = add_node(p, name, current, false, &index))) return e;
                ++p->channel_nodes;
            }
            current = index;
            open_node = false;
            continue;
        }
        next_token(r, false);
        node *n = &p->nodes[current];
        if (token_is(r, "OFFSET")) {
            e = read_offset(p, current);
        } else if (!n->end_site && token_is(r, "CHANNELS")) {
            e = read_channels(p, current);
        } else if (!n->end_site && token_is(r, "JOINT")) {
            open_node = true, end_site = false;
        } else if (!n->end_site && token_is(r, "End")) {
            next_token(r, false);
            if (!token_is(r, "Site")) return fail_token(r, OSSA_ERROR_PARSE, "\"Site\" after \"End\"");
            open_node = true, end_site = true;
        } else if (token_is(r, "}")) {
            if (n->parent == SIZE_MAX) return OSSA_OK;
            current = n->parent;
        } else {
            return fail_token(r, OSSA_ERROR_PARSE,
                              n->end_site ? "OFFSET or \"}\" in an End Site"
                                          : "OFFSET, CHANNELS, JOINT, End Site or \"}\" in a node");
        }
    }
    return e;
}

/* ---- joints: as ossa_import_assimp selects them from assimp's scene ---- */

static bool is_end_site_name(const node *n)
{
    return !n->children && strlen(n->name) > 8 && !memcmp(n->name, "EndSite_", 8);
}

static ossa_result select_joints(parser *p, bool drop_end_sites, size_t *joint_count)
{
    enum { USED = 1, JOINT = 2 };
    const size_t n = p->node_count;
    uint8_t *flags = ossa__calloc(p->allocator, n, 1);
    if (!flags) return ossa__fail(p->r.diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    /* Names are looked up as assimp's FindNode does: the first node in pre-order. */
    for (size_t i = 0; i < n; ++i) {
        p->nodes[i].first = i;
        for (size_t k = 0; k < i; ++k)
            if (!strcmp(p->nodes[k].name, p->nodes[i].name)) {
                p->nodes[i].first = k;
                break;
            }
    }
    for (size_t i = 0; i < n; ++i)
        if (!p->nodes[i].end_site) flags[p->nodes[i].first] |= USED;
    for (size_t i = 1; i < n && !drop_end_sites; ++i)
        if (is_end_site_name(&p->nodes[i]) && (flags[p->nodes[i].parent] & USED)) flags[i] |= USED;
    for (size_t i = n; i-- > 0;)
        if (flags[i]) {
            flags[i] |= JOINT;
            if (p->nodes[i].parent != SIZE_MAX) flags[p->nodes[i].parent] |= JOINT;
        }
    const float *o = p->nodes[0].offset;
    if (!(flags[0] & USED) && o[0] == 0.f && o[1] == 0.f && o[2] == 0.f) flags[0] &= (uint8_t)~JOINT;
    size_t count = 0;
    for (size_t i = 0; i < n; ++i)
        if (flags[i] & JOINT) p->nodes[i].joint = (int32_t)count++;
    ossa_free(p->allocator, flags);
    if (count > OSSA_MAX_JOINTS)
        return ossa__fail(p->r.diag, OSSA_ERROR_TOO_MANY_JOINTS,
                          "the scene has %zu joints, more than OSSA_MAX_JOINTS (%d)", count, OSSA_MAX_JOINTS);
    /* The first channel node whose name finds a joint drives it. */
    bool *driven = ossa__calloc(p->allocator, count + 1, sizeof *driven);
    if (!driven) return ossa__fail(p->r.diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    for (size_t i = 0; i < n; ++i) {
        node *c = &p->nodes[i];
        if (c->end_site) continue;
        const int32_t j = p->nodes[c->first].joint;
        if (j >= 0 && !driven[j]) driven[j] = true, c->drives = j;
    }
    ossa_free(p->allocator, driven);
    *joint_count = count;
    return OSSA_OK;
}

static ossa_result build_skeleton(parser *p, size_t joint_count, ossa_import_output *out)
{
    ossa_result r = ossa_raw_skeleton_create(&out->skeleton, joint_count, &out->allocator);
    if (r != OSSA_OK) return ossa__fail(p->r.diag, r, "cannot create a skeleton of %zu joints", joint_count);
    for (size_t i = 0; i < p->node_count; ++i) {
        const node *n = &p->nodes[i];
        if (n->joint < 0) continue;
        ossa_raw_joint *joint = &out->skeleton.joints[n->joint];
        joint->parent = n->parent == SIZE_MAX ? -1 : p->nodes[n->parent].joint;
        joint->rest =
            (ossa_transform){{n->offset[0], n->offset[1], n->offset[2]}, {0.f, 0.f, 0.f, 1.f}, {1.f, 1.f, 1.f}};
        if (!isfinite(n->offset[0]) || !isfinite(n->offset[1]) || !isfinite(n->offset[2]))
            return ossa__fail(p->r.diag, OSSA_ERROR_INVALID_SKELETON, "node '%.100s' has a non-finite transform",
                              n->name);
        if ((r = ossa_raw_skeleton_set_name(&out->skeleton, (size_t)n->joint, n->name)) != OSSA_OK)
            return ossa__fail(p->r.diag, r, "cannot name joint %d", n->joint);
    }
    return OSSA_OK;
}

/* ---- MOTION ---- */

/* The rotation of one frame's channels: assimp's BVHLoader multiplies aiMatrix3x3 by each
 * rotation channel's matrix in the order listed, then converts with aiQuaternion(aiMatrix3x3). */
static ossa_quat frame_rotation(const node *n, const float *values)
{
    /* m[row][col]: a1 a2 a3 / b1 b2 b3 / c1 c2 c3. */
    float m[3][3] = {{1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}};
    for (unsigned k = 0; k < n->channel_count; ++k) {
        const int ch = n->channels[k];
        if (ch < ROT_X) continue;
        const float angle = values[k] * (float)3.141592653589793238462643383279 / 180.f;
        float t[3][3] = {{1.f, 0.f, 0.f}, {0.f, 1.f, 0.f}, {0.f, 0.f, 1.f}};
        const float c = cosf(angle), s = sinf(angle);
        if (ch == ROT_X)
            t[1][1] = t[2][2] = c, t[2][1] = s, t[1][2] = -s;
        else if (ch == ROT_Y)
            t[0][0] = t[2][2] = c, t[0][2] = s, t[2][0] = -s;
        else
            t[0][0] = t[1][1] = c, t[1][0] = s, t[0][1] = -s;
        float r[3][3];
        for (int row = 0; row < 3; ++row)
            for (int col = 0; col < 3; ++col) {
                float sum = t[0][col] * m[row][0];
                sum = sum + t[1][col] * m[row][1];
                sum = sum + t[2][col] * m[row][2];
                r[row][col] = sum;
            }
        memcpy(m, r, sizeof m);
    }
    ossa_quat q;
    const float trace = m[0][0] + m[1][1] + m[2][2];
    if (trace > 0.f) {
        const float s = sqrtf(1.f + trace) * 2.f;
        q.x = (m[2][1] - m[1][2]) / s, q.y = (m[0][2] - m[2][0]) / s, q.z = (m[1][0] - m[0][1]) / s, q.w = .25f * s;
    } else if (m[0][0] > m[1][1] && m[0][0] > m[2][2]) {
        const float s = sqrtf(1.f + m[0][0] - m[1][1] - m[2][2]) * 2.f;
        q.x = .25f * s, q.y = (m[1][0] + m[0][1]) / s, q.z = (m[0][2] + m[2][0]) / s, q.w = (m[2][1] - m[1][2]) / s;
    } else if (m[1][1] > m[2][2]) {
        const float s = sqrtf(1.f + m[1][1] - m[0][0] - m[2][2]) * 2.f;
        q.x = (m[1][0] + m[0][1]) / s, q.y = .25f * s, q.z = (m[2][1] + m[1][2]) / s, q.w = (m[0][2] - m[2][0]) / s;
    } else {
        const float s = sqrtf(1.f + m[2][2] - m[0][0] - m[1][1]) * 2.f;
        q.x = (m[0][2] + m[2][0]) / s, q.y = (m[2][1] + m[1][2]) / s, q.z = .25f * s, q.w = (m[1][0] - m[0][1]) / s;
    }
    return q;
}

/* Where the 3 position channels of a node with exactly 6 are (the last of each kind, as
 * assimp's channel map keeps); false when one is missing. */
static bool position_slots(const node *n, int slot[3])
{
    slot[0] = slot[1] = slot[2] = -1;
    for (unsigned k = 0; k < n->channel_count; ++k)
        if (n->channels[k] <= POS_Z) slot[n->channels[k]] = (int)k;
    return slot[0] >= 0 && slot[1] >= 0 && slot[2] >= 0;
}

/* The MOTION header's checks, as ossa_import_assimp made them before assimp read a frame. */
static ossa_result check_motion(parser *p, float frames, uint32_t frames_line, float frame_time, uint32_t time_line,
                                size_t max_keys)
{
    const double f = (double)frames, t = (double)frame_time;
    ossa_diag *diag = p->r.diag;
    if (!(t >= 0.0) || !isfinite(t))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, time_line, 0,
                             "BVH Frame Time %g; expected a finite number of seconds >= 0", t);
    if (f * t > (double)OSSA_RAW_ANIMATION_MAX_DURATION)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, frames_line, 0,
                             "BVH declares %.0f frames of %g s, a clip of %g s; expected at most %g s (a day)", f, t,
                             f * t, (double)OSSA_RAW_ANIMATION_MAX_DURATION);
    if (max_keys && f * 2.0 * (double)p->channel_nodes > (double)max_keys)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, frames_line, 0,
                             "BVH declares %.0f frames of %zu moving joints, %.0f keys; more than the import's "
                             "budget of %zu keys (max_keys)",
                             f, p->channel_nodes, f * 2.0 * (double)p->channel_nodes, max_keys);
    if (!(f >= 0.0) || f >= 4294967296.0)
        return ossa_diag_set(diag, OSSA_ERROR_PARSE, SIZE_MAX, frames_line, 0,
                             "BVH Frames %g; expected a count from 0 to 4294967295", f);
    return OSSA_OK;
}

/* Where each value of the current node's frame was (for the key errors). */
typedef struct place {
    size_t offset;
    uint32_t line, column;
} place;

/* A key that is not finite: at the first value of `kind` (0 positions, 1 rotations) of the
 * node that is not finite. */
static ossa_result key_error(parser *p, const node *n, const float *values, const place *at, int kind, size_t key)
{
    reader *r = &p->r;
    const char *what = kind ? "rotation" : "translation";
    size_t k = 0;
    while (k + 1 < n->channel_count && !((n->channels[k] >= ROT_X) == (kind == 1) && !isfinite(values[k]))) ++k;
    return ossa_diag_set(r->diag, OSSA_ERROR_INVALID_KEY, at[k].offset, at[k].line, at[k].column,
                         "animation 'Motion', node '%.60s': %s key %zu at tick %g has a time or value that is not a "
                         "finite float%s",
                         n->name, what, key, (double)key, strcmp(what, "rotation") ? "" : ", or is zero");
}

static ossa_result read_motion(parser *p, const ossa_bvh_desc *desc, size_t stream_size, ossa_import_output *out)
{
    reader *r = &p->r;
    ossa_diag *diag = r->diag;
    next_token(r, false);
    if (!token_is(r, "MOTION")) return fail_token(r, OSSA_ERROR_PARSE, "MOTION after the HIERARCHY");
    next_token(r, false);
    if (!token_is(r, "Frames:")) return fail_token(r, OSSA_ERROR_PARSE, "\"Frames:\"");
    float frames_f, frame_time;
    ossa_result e = read_float(r, &frames_f, "the frame count after \"Frames:\"");
    if (e) return e;
    const uint32_t frames_line = r->token_line;
    next_token(r, false);
    if (!token_is(r, "Frame")) return fail_token(r, OSSA_ERROR_PARSE, "\"Frame Time:\"");
    next_token(r, false);
    if (!token_is(r, "Time:")) return fail_token(r, OSSA_ERROR_PARSE, "\"Frame Time:\"");
    if ((e = read_float(r, &frame_time, "the frame duration after \"Frame Time:\""))) return e;
    if ((e = check_motion(p, frames_f, frames_line, frame_time, r->token_line, desc->max_keys))) return e;
    const size_t frames = (size_t)(uint32_t)frames_f;
    /* What assimp's scene would hold, against the same budget (ossa_import_assimp counted it). */
    double scene_keys = 0.0;
    for (size_t i = 0; i < p->node_count; ++i) {
        const node *n = &p->nodes[i];
        if (n->end_site) continue;
        scene_keys += (double)(n->channel_count == 6 ? frames : 1) + (double)frames + 1.0;
        int slot[3];
        if (n->channel_count == 6 && !position_slots(n, slot))
            return ossa__fail(diag, OSSA_ERROR_PARSE,
                              "node '%.60s' has 6 channels but not Xposition, Yposition and Zposition", n->name);
    }
    if (desc->max_keys && scene_keys > (double)desc->max_keys)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "the scene's animations hold %.0f keys; more than the import's budget of %zu keys "
                          "(max_keys)",
                          scene_keys, desc->max_keys);
    const double tps = 1.0 / (double)frame_time;
    if (!(tps > 0) || !isfinite(tps))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "animation 'Motion': %g ticks per second is not a positive finite rate (a BVH Frame Time "
                          "of 0 gives an infinite one)",
                          tps);
    /* Every value takes a digit and a separator, and a frame without channels its line break:
     * a stream of known size cannot hold more frames than that, whatever the header says, so
     * no more keys are allocated (a file cut short then fails where it ends, with that line
     * and column). */
    size_t room = frames;
    if (stream_size) {
        const size_t remaining = stream_size > r->token_offset ? stream_size - r->token_offset : 0;
        const size_t frame_bytes = p->values ? 2 * p->values : 1;
        if (room > remaining / frame_bytes + 1) room = remaining / frame_bytes + 1;
    }
    ossa_raw_animation *raw = NULL;
    size_t joint_count = out->skeleton.joint_count;
    if ((e = ossa_import_output_add_animation(out, joint_count, &raw)) != OSSA_OK)
        return ossa__fail(diag, e, "cannot add animation 'Motion'");
    if ((e = ossa_raw_animation_set_name(raw, "Motion"))) return ossa__fail(diag, e, "cannot name animation 'Motion'");
    for (size_t i = 0; i < p->node_count; ++i) {
        const node *n = &p->nodes[i];
        if (n->joint < 0) continue;
        const node *driver = NULL;
        for (size_t k = 0; k < p->node_count && !driver; ++k)
            if (p->nodes[k].drives == n->joint) driver = &p->nodes[k];
        const size_t nt = driver && driver->channel_count == 6 && room ? room : 1, nr = driver && room ? room : 1;
        if ((e = ossa_raw_joint_track_resize(raw, (size_t)n->joint, nt, nr, 1)))
            return ossa__fail(diag, e, "cannot allocate the keys of track %d", n->joint);
        ossa_raw_joint_track *t = &raw->tracks[n->joint];
        const ossa_transform *rest = &out->skeleton.joints[n->joint].rest;
        /* A node without translation channels holds its OFFSET, one without keys its rest pose. */
        t->translations[0] = (ossa_raw_float3_key){0.f, rest->translation};
        t->rotations[0] = (ossa_raw_quat_key){0.f, rest->rotation};
        t->scales[0] = (ossa_raw_float3_key){0.f, {1.f, 1.f, 1.f}};
    }
    float values[MAX_CHANNELS];
    place at[MAX_CHANNELS];
    for (size_t f = 0; f < frames; ++f) {
        if (f == room) /* only when the stream holds more bytes than its stated size */
            return ossa_diag_set(diag, OSSA_ERROR_PARSE, r->base + r->pos, r->line, r->column,
                                 "frame %zu of %zu lies beyond the %zu bytes the stream was said to hold", f + 1,
                                 frames, stream_size);
        const float time = (float)((double)f / tps + -0.0);
        size_t count = 0;
        for (size_t i = 0; i < p->node_count; ++i) {
            const node *n = &p->nodes[i];
            if (n->end_site) continue;
            for (unsigned k = 0; k < n->channel_count; ++k, ++count) {
                /* A frame starts on a new line; its values stay on that line. */
                next_token(r, count > 0);
                if (!r->token_len) {
                    if (peek(r) < 0)
                        return ossa_diag_set(diag, OSSA_ERROR_PARSE, r->token_offset, r->token_line, r->token_column,
                                             "end of file in frame %zu of the %zu declared (MOTION is truncated): "
                                             "expected %zu more values",
                                             f + 1, frames, p->values - count + (frames - f - 1) * p->values);
                    return ossa_diag_set(diag, OSSA_ERROR_PARSE, r->token_offset, r->token_line, r->token_column,
                                         "frame %zu has %zu values on its line, expected %zu (one per channel of "
                                         "the HIERARCHY)",
                                         f + 1, count, p->values);
                }
                if (r->token_too_long || !parse_float(r->token, r->token_len, &values[k]))
                    return fail_token(r, OSSA_ERROR_PARSE, "a number");
                at[k] = (place){r->token_offset, r->token_line, r->token_column};
            }
            if (n->drives < 0) continue;
            ossa_raw_joint_track *t = &raw->tracks[n->drives];
            if (n->channel_count == 6) {
                int slot[3];
                position_slots(n, slot);
                t->translations[f] = (ossa_raw_float3_key){time, {values[slot[0]], values[slot[1]], values[slot[2]]}};
                if (!isfinite(values[slot[0]]) || !isfinite(values[slot[1]]) || !isfinite(values[slot[2]]) ||
                    !isfinite(time))
                    return key_error(p, n, values, at, 0, f);
            }
            const ossa_quat q = frame_rotation(n, values);
            t->rotations[f] = (ossa_raw_quat_key){time, q};
            const float norm = fabsf(q.x) + fabsf(q.y) + fabsf(q.z) + fabsf(q.w);
            if (!isfinite(norm) || norm == 0.f || !isfinite(time)) return key_error(p, n, values, at, 1, f);
        }
        /* The frame's line ends here: more values mean the HIERARCHY declares fewer channels. */
        next_token(r, true);
        if (r->token_len)
            return ossa_diag_set(diag, OSSA_ERROR_PARSE, r->token_offset, r->token_line, r->token_column,
                                 "frame %zu has more values on its line than the %zu channels of the HIERARCHY", f + 1,
                                 p->values);
    }
    /* Keys whose float times are equal (a very long clip): the last one stays, as
     * ossa_import_assimp merges them. */
    float last = 0.f;
    for (size_t j = 0; j < raw->track_count; ++j) {
        ossa_raw_joint_track *t = &raw->tracks[j];
        size_t w = 0;
        for (size_t k = 0; k < t->translation_count; ++k) {
            if (w && t->translations[w - 1].time == t->translations[k].time) --w;
            t->translations[w++] = t->translations[k];
        }
        t->translation_count = w, w = 0;
        for (size_t k = 0; k < t->rotation_count; ++k) {
            if (w && t->rotations[w - 1].time == t->rotations[k].time) --w;
            t->rotations[w++] = t->rotations[k];
        }
        t->rotation_count = w;
        if (t->translations[t->translation_count - 1].time > last)
            last = t->translations[t->translation_count - 1].time;
        if (t->rotations[t->rotation_count - 1].time > last) last = t->rotations[t->rotation_count - 1].time;
    }
    /* As ossa_import_assimp: assimp declares (Frames - 1) ticks (2^32 - 1 for none); the keys
     * decide unless that is later by less than a day; a single pose lasts one tick. */
    const double declared = (double)(uint32_t)(frames - 1) / tps;
    float duration = last;
    if (isfinite(declared) && declared > (double)last && declared <= (double)last + 86400.0) duration = (float)declared;
    const double tick = 1.0 / tps;
    if (!(duration > 0.f) && tick <= (double)FLT_MAX) duration = (float)tick;
    if (!(duration > 0.f) || !isfinite(duration))
        return ossa__fail(
            diag, OSSA_ERROR_INVALID_ANIMATION,
            "animation 'Motion': its keys end at %g s and one tick (1/%g s) is not a positive finite time",
            (double)last, tps);
    raw->duration = duration;
    return OSSA_OK;
}

static ossa_result add_meta(ossa_import_output *out, const char *key, const char *value, ossa_diag *diag)
{
    const ossa_result r = ossa_import_output_add_metadata(out, key, value);
    return r ? ossa__fail(diag, r, "cannot add metadata '%s'", key) : OSSA_OK;
}

static ossa_result parse(parser *p, const ossa_bvh_desc *desc, size_t stream_size, ossa_import_output *out)
{
    reader *r = &p->r;
    next_token(r, false);
    if (!token_is(r, "HIERARCHY")) return fail_token(r, OSSA_ERROR_PARSE, "HIERARCHY at the start of a BVH");
    next_token(r, false);
    if (!token_is(r, "ROOT")) return fail_token(r, OSSA_ERROR_PARSE, "ROOT after HIERARCHY");
    ossa_result e = read_hierarchy(p);
    size_t joints = 0;
    if (!e) e = select_joints(p, desc->drop_end_sites, &joints);
    if (!e) e = build_skeleton(p, joints, out);
    if (!e) e = read_motion(p, desc, stream_size, out);
    if (!e) e = add_meta(out, "format", "assimp:bvh", r->diag);
    if (!e) e = add_meta(out, "importer", "BVH Importer (MoCap)", r->diag);
    if (!e) e = add_meta(out, "source_units", "unknown", r->diag);
    if (!e) e = add_meta(out, "unit_scale", "1", r->diag);
    return e;
}

static ossa_result import(reader *rd, size_t stream_size, const ossa_bvh_desc *desc, ossa_import_output *out)
{
    static const ossa_bvh_desc defaults = {0};
    if (!desc) desc = &defaults;
    parser p;
    memset(&p, 0, sizeof p);
    p.r = *rd;
    p.r.line = p.r.column = 1;
    p.allocator = &out->allocator;
    ossa_result r = OSSA_OK;
    if (!p.r.memory && !(p.r.buffer = ossa_alloc(p.allocator, BUFFER_SIZE)))
        r = ossa__fail(p.r.diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    if (!r) r = parse(&p, desc, stream_size, out);
    for (size_t i = 0; i < p.node_count; ++i) ossa_free(p.allocator, p.nodes[i].name);
    ossa_free(p.allocator, p.nodes);
    ossa_free(p.allocator, p.r.buffer);
    return r;
}

ossa_result ossa__import_bvh_body(const void *data, size_t size, const ossa_bvh_desc *desc, ossa_import_output *out,
                                  ossa_diag *diag)
{
    reader rd = {.data = data, .size = size, .memory = true, .diag = diag};
    return import(&rd, size, desc, out);
}

ossa_result ossa_import_bvh(const void *data, size_t size, const ossa_bvh_desc *desc, ossa_import_output *out,
                            ossa_diag *diag)
{
    ossa_result r = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "BVH", diag);
    if (r != OSSA_OK) return r;
    return ossa__import_end(out, ossa__import_bvh_body(data, size, desc, out, diag), diag);
}

ossa_result ossa_import_bvh_read(ossa_read_fn read, void *user, size_t size, const ossa_bvh_desc *desc,
                                 ossa_import_output *out, ossa_diag *diag)
{
    ossa_result r = ossa__import_begin(out, NULL, 0, desc ? desc->allocator : NULL, "BVH", diag);
    if (r != OSSA_OK) return r;
    if (!read) return ossa__import_end(out, ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "no read function"), diag);
    reader rd = {.read = read, .user = user, .diag = diag};
    return ossa__import_end(out, import(&rd, size, desc, out), diag);
}
