/* The nodes of a Maya .anim file and the tree their anim statements describe.
 *
 * Maya writes the anim-curve clipboard: its nodes depth-first, each node's anim statements
 * together (one per curve, or one placeholder line for a node without curves), every statement
 * ending with the node's row, child count and attribute index. The child counts, in that
 * order, are the tree: a node's children are the nodes right after it (the specification's
 * example, "an animated joint chain consisting of 4 joints", gives the counts 1, 1, 1, 0).
 * Several roots may follow each other (Maya copies every selected object with its
 * hierarchy). Rows are not used: Maya 2026 writes 0 on every line.
 * Source: "Anim File Format" (Maya documentation), checked against Maya 2026 exports. */
#include "import/maya_parse.h"

#include <string.h>

#include "internal.h"

typedef ossa__maya_parser parser;
typedef ossa__maya_token token;

static size_t hash_name(const char *text, size_t len)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (size_t i = 0; i < len; ++i) h = (h ^ (unsigned char)text[i]) * 1099511628211u;
    return (size_t)h;
}

static bool rehash(parser *p, size_t count)
{
    size_t *slots = ossa__calloc(&p->out->allocator, count, sizeof *slots);
    if (!slots) return false;
    for (size_t i = 0; i < p->out->node_count; ++i) {
        const char *name = p->out->nodes[i];
        size_t s = hash_name(name, strlen(name)) & (count - 1);
        while (slots[s]) s = (s + 1) & (count - 1);
        slots[s] = i + 1;
    }
    ossa_free(&p->out->allocator, p->slots);
    p->slots = slots;
    p->slot_count = count;
    return true;
}

/* The index of the node named `t`, SIZE_MAX when there is none yet. */
static size_t find_node(const parser *p, const token *t)
{
    if (!p->slot_count) return SIZE_MAX;
    for (size_t s = hash_name(t->text, t->len) & (p->slot_count - 1); p->slots[s]; s = (s + 1) & (p->slot_count - 1)) {
        const char *name = p->out->nodes[p->slots[s] - 1];
        if (strlen(name) == t->len && memcmp(name, t->text, t->len) == 0) return p->slots[s] - 1;
    }
    return SIZE_MAX;
}

/* Appends the node named `t`; false when out of memory. */
static bool add_node(parser *p, const token *t, uint32_t children, const token *count)
{
    ossa_maya_anim *a = p->out;
    if ((a->node_count + 1) * 2 > p->slot_count &&
        (p->slot_count > SIZE_MAX / 4 || !rehash(p, p->slot_count ? p->slot_count * 2 : 64)))
        return false;
    if (!ossa__grow(&a->allocator, (void **)&a->nodes, &p->node_capacity, a->node_count + 1, sizeof *a->nodes) ||
        !ossa__grow(&a->allocator, (void **)&p->node_info, &p->info_capacity, a->node_count + 1, sizeof *p->node_info))
        return false;
    char *name = ossa_alloc(&a->allocator, t->len + 1);
    if (!name) return false;
    memcpy(name, t->text, t->len);
    name[t->len] = '\0';
    p->node_info[a->node_count] = (ossa__maya_node_info){children, *count};
    a->nodes[a->node_count++] = name;
    size_t s = hash_name(t->text, t->len) & (p->slot_count - 1);
    while (p->slots[s]) s = (s + 1) & (p->slot_count - 1);
    p->slots[s] = a->node_count;
    return true;
}

ossa_result ossa__maya_node_statement(parser *p, const token *name, bool placeholder, const token *count, size_t *index)
{
    double v = 0.0;
    (void)ossa__maya_to_number(p, count, &v); /* the caller checked it is an integer */
    if (v < 0.0)
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, count,
                               "expected the node's child count (an integer >= 0) in the anim statement, found %s",
                               ossa__maya_show(p, count));
    const uint32_t children = v >= 4294967295.0 ? UINT32_MAX : (uint32_t)v;
    const size_t found = find_node(p, name);
    /* Another curve of the node the previous statement named: the same clipboard entry. */
    if (found != SIZE_MAX && found == p->last_node && !placeholder && !p->last_placeholder) {
        const ossa__maya_node_info *info = &p->node_info[found];
        if (info->children != children)
            return ossa__maya_fail(p, OSSA_ERROR_PARSE, count,
                                   "node '%s' has %s children here but %u in its anim statement at line %u; expected "
                                   "one child count per node",
                                   p->out->nodes[found], ossa__maya_show(p, count), (unsigned)info->children,
                                   (unsigned)info->count.line);
        *index = found;
        return OSSA_OK;
    }
    if (found != SIZE_MAX)
        return ossa__maya_fail(p, OSSA_ERROR_PARSE, name,
                               "node %s appears again, apart from its anim statements at line %u; expected each "
                               "node's statements together (the file lists the nodes depth-first)",
                               ossa__maya_show(p, name), (unsigned)p->node_info[found].count.line);
    if (p->out->node_count >= INT32_MAX || !add_node(p, name, children, count))
        return ossa__maya_fail(p, OSSA_ERROR_OUT_OF_MEMORY, name, "out of memory for node names");
    *index = p->out->node_count - 1;
    return OSSA_OK;
}

ossa_result ossa__maya_build_tree(parser *p)
{
    ossa_maya_anim *a = p->out;
    const size_t n = a->node_count;
    if (n == 0) return OSSA_OK;
    a->parents = ossa__calloc(&a->allocator, n, sizeof *a->parents);
    size_t *open = ossa__calloc(&a->allocator, n, sizeof *open); /* nodes still owed children */
    uint32_t *owed = ossa__calloc(&a->allocator, n, sizeof *owed);
    ossa_result r = OSSA_OK;
    if (!a->parents || !open || !owed) {
        r = ossa__fail(p->diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for the node tree");
        goto done;
    }
    size_t depth = 0;
    for (size_t i = 0; i < n; ++i) {
        a->parents[i] = depth ? (int32_t)open[depth - 1] : -1;
        if (depth) --owed[depth - 1];
        if (p->node_info[i].children) open[depth] = i, owed[depth++] = p->node_info[i].children;
        while (depth && !owed[depth - 1]) --depth;
    }
    if (depth) {
        /* The deepest node whose children do not all follow. */
        const size_t i = open[depth - 1];
        const ossa__maya_node_info *info = &p->node_info[i];
        r = ossa__maya_fail(p, OSSA_ERROR_PARSE, &info->count,
                            "node '%s' declares %u children in its anim statement at line %u, but the file ends "
                            "after %u of them; expected every child (and its own children) after it, depth-first "
                            "(file cut short?)",
                            a->nodes[i], (unsigned)info->children, (unsigned)info->count.line,
                            (unsigned)(info->children - owed[depth - 1]));
    }
done:
    ossa_free(&a->allocator, open);
    ossa_free(&a->allocator, owed);
    return r;
}
