/* glTF 2.0 importer: the node graph becomes the raw skeleton, each animation a raw animation
 * with one track per joint, each morph-target weights channel float raw tracks. What is kept
 * and how each interpolation mode maps onto ossa's keys is documented in import_gltf.h.
 * Source: glTF 2.0 specification, sections 3.5 (nodes), 3.7.2.2 (morph targets), 3.7.3
 * (skins), 3.11 (animations) and Appendix C (interpolation). */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../internal.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

#include "gltf_internal.h"

typedef ossa__gltf_scene scene;
typedef ossa__gltf_channel channel;

#define FAIL(s, code, ...) ossa__gltf_fail((s)->g, code, SIZE_MAX, __VA_ARGS__)

/* ---- nodes ---- */

static ossa_result load_nodes(scene *s)
{
    ossa__gltf *g = s->g;
    const ossa_allocator *a = g->a;
    if (!s->node_count) return OSSA_OK;
    s->node = ossa__calloc(a, s->node_count, sizeof *s->node);
    s->parent = ossa__calloc(a, s->node_count, sizeof *s->parent);
    s->flags = ossa__calloc(a, s->node_count, 1);
    s->joint = ossa__calloc(a, s->node_count, sizeof *s->joint);
    if (!s->node || !s->parent || !s->flags || !s->joint)
        return FAIL(s, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu nodes", s->node_count);
    size_t i = 0;
    for (const cJSON *n = s->nodes->child; n; n = n->next, ++i) {
        if (!cJSON_IsObject(n)) return FAIL(s, OSSA_ERROR_PARSE, "nodes[%zu]: expected an object", i);
        s->node[i] = n;
        s->parent[i] = SIZE_MAX;
        s->joint[i] = -1;
    }
    for (i = 0; i < s->node_count; ++i) {
        char path[48];
        snprintf(path, sizeof path, "nodes[%zu]", i);
        const cJSON *children;
        size_t count, value;
        ossa_result r = ossa__gltf_array(g, s->node[i], "children", path, &children, &count);
        if (!r) r = ossa__gltf_index(g, s->node[i], "mesh", path, s->mesh_count, "mesh", false, &value);
        if (!r) r = ossa__gltf_index(g, s->node[i], "skin", path, s->skin_count, "skin", false, &value);
        if (r) return r;
        size_t c = 0;
        for (const cJSON *e = children ? children->child : NULL; e; e = e->next, ++c) {
            char where[80];
            snprintf(where, sizeof where, "%s.children[%zu]", path, c);
            size_t child;
            if ((r = ossa__gltf_index_value(g, e, where, s->node_count, "node", &child))) return r;
            if (child == i)
                return FAIL(s, OSSA_ERROR_CORRUPT, "%s: node %zu lists itself as a child (spec 3.5.2: no cycles)",
                            where, i);
            if (s->parent[child] != SIZE_MAX)
                return FAIL(s, OSSA_ERROR_CORRUPT,
                            "%s: node %zu already has parent node %zu; a node has at most one parent (spec 3.5.2)",
                            where, child, s->parent[child]);
            s->parent[child] = i;
        }
    }
    /* Cycles: walk up from each node; OSSA__GLTF_NODE_USED marks "on the current walk", OSSA__GLTF_NODE_JOINT
     * "known to reach a root" (both cleared afterwards). */
    for (i = 0; i < s->node_count; ++i) {
        size_t n = i;
        while (n != SIZE_MAX && !(s->flags[n] & OSSA__GLTF_NODE_JOINT)) {
            if (s->flags[n] & OSSA__GLTF_NODE_USED)
                return FAIL(s, OSSA_ERROR_CORRUPT,
                            "nodes[%zu].children: the node graph has a cycle through node %zu (spec 3.5.2: the "
                            "hierarchy is a set of disjoint trees)",
                            s->parent[n], n);
            s->flags[n] |= OSSA__GLTF_NODE_USED;
            n = s->parent[n];
        }
        for (n = i; n != SIZE_MAX && !(s->flags[n] & OSSA__GLTF_NODE_JOINT); n = s->parent[n])
            s->flags[n] = OSSA__GLTF_NODE_JOINT;
    }
    memset(s->flags, 0, s->node_count);
    return OSSA_OK;
}

static ossa_result read_floats(scene *s, const cJSON *object, const char *key, const char *path, size_t n, float *out,
                               bool *present)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(object, key);
    *present = v != NULL;
    if (!v) return OSSA_OK;
    size_t count = 0;
    for (const cJSON *e = cJSON_IsArray(v) ? v->child : NULL; e && count <= n; e = e->next) {
        if (!cJSON_IsNumber(e)) return FAIL(s, OSSA_ERROR_PARSE, "%s.%s[%zu]: expected a number", path, key, count);
        /* Checked in double first: converting a double beyond the float range is undefined. */
        if (count < n && !(fabs(e->valuedouble) <= (double)FLT_MAX))
            return FAIL(s, OSSA_ERROR_INVALID_SKELETON, "%s.%s[%zu]: %g is not a finite float", path, key, count,
                        e->valuedouble);
        if (count < n) out[count] = (float)e->valuedouble;
        ++count;
    }
    if (!cJSON_IsArray(v) || count != n)
        return FAIL(s, OSSA_ERROR_PARSE, "%s.%s: expected an array of %zu numbers", path, key, n);
    return OSSA_OK;
}

/* Translation, rotation and scale of a column-major affine matrix (spec 3.5.3); shear is
 * dropped, a negative determinant negates the three scales. */
static ossa_transform decompose(const float m[16])
{
    double c[3][3], len[3];
    for (int i = 0; i < 3; ++i) {
        for (int k = 0; k < 3; ++k) c[i][k] = (double)m[4 * i + k];
        len[i] = sqrt(c[i][0] * c[i][0] + c[i][1] * c[i][1] + c[i][2] * c[i][2]);
    }
    const double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) -
                       c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                       c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    const double sign = det < 0 ? -1.0 : 1.0;
    ossa_transform t = {.translation = {m[12], m[13], m[14]}, .rotation = {0.f, 0.f, 0.f, 1.f}};
    float scale[3]; /* beyond the float range: infinite, which build_skeleton refuses */
    for (int i = 0; i < 3; ++i) scale[i] = len[i] <= (double)FLT_MAX ? (float)(sign * len[i]) : (float)sign * INFINITY;
    t.scale = (ossa_float3){scale[0], scale[1], scale[2]};
    if (!(len[0] > 1e-30 && len[1] > 1e-30 && len[2] > 1e-30)) return t; /* degenerate: no rotation */
    double r[3][3];                                                      /* r[row][column], columns normalised */
    for (int i = 0; i < 3; ++i)
        for (int k = 0; k < 3; ++k) r[k][i] = c[i][k] / (sign * len[i]);
    double q[4]; /* x y z w, the largest component first to keep precision */
    const double trace = r[0][0] + r[1][1] + r[2][2];
    if (trace > 0) {
        const double f = 2.0 * sqrt(1.0 + trace);
        q[3] = f / 4, q[0] = (r[2][1] - r[1][2]) / f, q[1] = (r[0][2] - r[2][0]) / f, q[2] = (r[1][0] - r[0][1]) / f;
    } else if (r[0][0] >= r[1][1] && r[0][0] >= r[2][2]) {
        const double f = 2.0 * sqrt(1.0 + r[0][0] - r[1][1] - r[2][2]);
        q[0] = f / 4, q[3] = (r[2][1] - r[1][2]) / f, q[1] = (r[0][1] + r[1][0]) / f, q[2] = (r[0][2] + r[2][0]) / f;
    } else if (r[1][1] >= r[2][2]) {
        const double f = 2.0 * sqrt(1.0 + r[1][1] - r[0][0] - r[2][2]);
        q[1] = f / 4, q[3] = (r[0][2] - r[2][0]) / f, q[0] = (r[0][1] + r[1][0]) / f, q[2] = (r[1][2] + r[2][1]) / f;
    } else {
        const double f = 2.0 * sqrt(1.0 + r[2][2] - r[0][0] - r[1][1]);
        q[2] = f / 4, q[3] = (r[1][0] - r[0][1]) / f, q[0] = (r[0][2] + r[2][0]) / f, q[1] = (r[1][2] + r[2][1]) / f;
    }
    const double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (n > 0 && isfinite(n))
        t.rotation = (ossa_quat){(float)((double)q[0] / n), (float)((double)q[1] / n), (float)((double)q[2] / n),
                                 (float)((double)q[3] / n)};
    return t;
}

static ossa_result rest_pose(scene *s, size_t node, ossa_transform *rest)
{
    char path[48];
    snprintf(path, sizeof path, "nodes[%zu]", node);
    float m[16], t[3] = {0.f, 0.f, 0.f}, q[4] = {0.f, 0.f, 0.f, 1.f}, sc[3] = {1.f, 1.f, 1.f};
    bool has_m, has_t, has_r, has_s;
    ossa_result r = read_floats(s, s->node[node], "matrix", path, 16, m, &has_m);
    if (!r) r = read_floats(s, s->node[node], "translation", path, 3, t, &has_t);
    if (!r) r = read_floats(s, s->node[node], "rotation", path, 4, q, &has_r);
    if (!r) r = read_floats(s, s->node[node], "scale", path, 3, sc, &has_s);
    if (r) return r;
    if (has_m && (has_t || has_r || has_s))
        return FAIL(s, OSSA_ERROR_CORRUPT,
                    "%s: has both a matrix and translation/rotation/scale (spec 3.5.3: one or "
                    "the other)",
                    path);
    if (has_m && (s->flags[node] & OSSA__GLTF_NODE_ANIMATED))
        return FAIL(s, OSSA_ERROR_CORRUPT,
                    "%s.matrix: an animated node must use translation/rotation/scale, not a "
                    "matrix (spec 3.5.3)",
                    path);
    if (has_m) {
        if (m[3] != 0.f || m[7] != 0.f || m[11] != 0.f || m[15] != 1.f)
            return FAIL(s, OSSA_ERROR_CORRUPT,
                        "%s.matrix: expected an affine matrix (last row 0 0 0 1), found %g %g %g %g", path,
                        (double)m[3], (double)m[7], (double)m[11], (double)m[15]);
        *rest = decompose(m);
        return OSSA_OK;
    }
    const double n = sqrt((double)q[0] * (double)q[0] + (double)q[1] * (double)q[1] + (double)q[2] * (double)q[2] +
                          (double)q[3] * (double)q[3]);
    if (!(n > 0) || !isfinite(n))
        return FAIL(s, OSSA_ERROR_INVALID_SKELETON, "%s.rotation: expected a unit quaternion, found a zero one", path);
    *rest = (ossa_transform){
        {t[0], t[1], t[2]},
        {(float)((double)q[0] / n), (float)((double)q[1] / n), (float)((double)q[2] / n), (float)((double)q[3] / n)},
        {sc[0], sc[1], sc[2]}};
    return OSSA_OK;
}

/* ---- channels ---- */

ossa_result ossa__gltf_parse_channel(scene *s, size_t a, size_t c, const cJSON *ch, size_t sampler_count, channel *out)
{
    char path[64];
    snprintf(path, sizeof path, "animations[%zu].channels[%zu]", a, c);
    out->node = SIZE_MAX;
    if (!cJSON_IsObject(ch)) return FAIL(s, OSSA_ERROR_PARSE, "%s: expected an object", path);
    ossa_result r = ossa__gltf_index(s->g, ch, "sampler", path, sampler_count, "sampler", true, &out->sampler);
    if (r) return r;
    const cJSON *target = cJSON_GetObjectItemCaseSensitive(ch, "target");
    if (!cJSON_IsObject(target)) return FAIL(s, OSSA_ERROR_PARSE, "%s.target: expected an object", path);
    char tpath[80];
    snprintf(tpath, sizeof tpath, "%s.target", path);
    const char *p;
    size_t node;
    if ((r = ossa__gltf_string(s->g, target, "path", tpath, &p))) return r;
    static const char *const names[] = {"translation", "rotation", "scale", "weights"};
    out->path = -1;
    for (int i = 0; p && i < 4; ++i)
        if (!strcmp(p, names[i])) out->path = i;
    if (p && !strcmp(p, "pointer")) out->path = OSSA__GLTF_IGNORED; /* KHR_animation_pointer */
    if (out->path < 0)
        return FAIL(s, OSSA_ERROR_PARSE, "%s.path: expected translation, rotation, scale or weights, found \"%.20s\"",
                    tpath, p ? p : "nothing");
    if ((r = ossa__gltf_index(s->g, target, "node", tpath, s->node_count, "node", false, &node))) return r;
    if (out->path != OSSA__GLTF_IGNORED) out->node = node; /* no node: the channel is ignored (spec 3.11) */
    return OSSA_OK;
}

static ossa_result mark_joints(scene *s)
{
    ossa__gltf *g = s->g;
    size_t i = 0;
    for (const cJSON *skin = s->skins ? s->skins->child : NULL; skin; skin = skin->next, ++i) {
        char path[48];
        snprintf(path, sizeof path, "skins[%zu]", i);
        const cJSON *joints;
        size_t count, value;
        ossa_result r = ossa__gltf_array(g, skin, "joints", path, &joints, &count);
        if (!r) r = ossa__gltf_index(g, skin, "skeleton", path, s->node_count, "node", false, &value);
        if (!r)
            r = ossa__gltf_index(g, skin, "inverseBindMatrices", path, s->accessor_count, "accessor", false, &value);
        if (r) return r;
        if (!count) return FAIL(s, OSSA_ERROR_PARSE, "%s.joints: expected a non-empty array of node indices", path);
        if (value != SIZE_MAX) {
            float *m;
            size_t n;
            char use[80];
            snprintf(use, sizeof use, "%s.inverseBindMatrices", path);
            if ((r = ossa__gltf_read_accessor(g, value, use, OSSA__GLTF_FLOAT, 16, &m, &n))) return r;
            ossa_free(g->a, m);
            if (n < count)
                return FAIL(s, OSSA_ERROR_CORRUPT, "%s: accessors[%zu] holds %zu matrices for %zu joints", use, value,
                            n, count);
        }
        size_t j = 0;
        for (const cJSON *e = joints->child; e; e = e->next, ++j) {
            char where[64];
            snprintf(where, sizeof where, "%s.joints[%zu]", path, j);
            size_t node;
            if ((r = ossa__gltf_index_value(g, e, where, s->node_count, "node", &node))) return r;
            s->flags[node] |= OSSA__GLTF_NODE_USED;
        }
    }
    i = 0;
    for (const cJSON *anim = s->animations ? s->animations->child : NULL; anim; anim = anim->next, ++i) {
        char path[48];
        snprintf(path, sizeof path, "animations[%zu]", i);
        if (!cJSON_IsObject(anim)) return FAIL(s, OSSA_ERROR_PARSE, "%s: expected an object", path);
        const cJSON *channels, *samplers;
        size_t channel_count, sampler_count;
        ossa_result r = ossa__gltf_array(g, anim, "channels", path, &channels, &channel_count);
        if (!r) r = ossa__gltf_array(g, anim, "samplers", path, &samplers, &sampler_count);
        if (r) return r;
        size_t c = 0;
        for (const cJSON *ch = channels ? channels->child : NULL; ch; ch = ch->next, ++c) {
            channel parsed;
            if ((r = ossa__gltf_parse_channel(s, i, c, ch, sampler_count, &parsed))) return r;
            if (parsed.node != SIZE_MAX && parsed.path <= OSSA__GLTF_SCALE)
                s->flags[parsed.node] |= OSSA__GLTF_NODE_USED | OSSA__GLTF_NODE_ANIMATED;
        }
    }
    return OSSA_OK;
}

/* Joints: used nodes and their ancestors, depth-first from the roots in index order. */
static ossa_result order_joints(scene *s)
{
    for (size_t i = 0; i < s->node_count; ++i)
        if (s->flags[i] & (OSSA__GLTF_NODE_USED | OSSA__GLTF_NODE_JOINT))
            for (size_t n = i; n != SIZE_MAX && !(s->flags[n] & OSSA__GLTF_NODE_JOINT); n = s->parent[n])
                s->flags[n] |= OSSA__GLTF_NODE_JOINT;
    size_t count = 0;
    for (size_t i = 0; i < s->node_count; ++i) count += (s->flags[i] & OSSA__GLTF_NODE_JOINT) != 0;
    if (count > OSSA_MAX_JOINTS)
        return FAIL(s, OSSA_ERROR_TOO_MANY_JOINTS, "the file has %zu joints, more than OSSA_MAX_JOINTS (%d)", count,
                    OSSA_MAX_JOINTS);
    if (!count) return OSSA_OK;
    s->joint_node = ossa__calloc(s->g->a, count, sizeof *s->joint_node);
    const cJSON **stack = ossa__calloc(s->g->a, count + 1, sizeof *stack); /* next child to visit per level */
    if (!s->joint_node || !stack) {
        ossa_free(s->g->a, (void *)stack);
        return FAIL(s, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    }
    for (size_t root = 0; root < s->node_count; ++root) {
        if (s->parent[root] != SIZE_MAX || !(s->flags[root] & OSSA__GLTF_NODE_JOINT)) continue;
        size_t depth = 0;
        s->joint[root] = (int32_t)s->joint_count;
        s->joint_node[s->joint_count++] = root;
        const cJSON *children = cJSON_GetObjectItemCaseSensitive(s->node[root], "children");
        stack[depth++] = children ? children->child : NULL;
        while (depth) {
            const cJSON *e = stack[depth - 1];
            if (!e) {
                --depth;
                continue;
            }
            stack[depth - 1] = e->next;
            const size_t child = (size_t)e->valuedouble; /* validated in load_nodes */
            if (!(s->flags[child] & OSSA__GLTF_NODE_JOINT)) continue;
            s->joint[child] = (int32_t)s->joint_count;
            s->joint_node[s->joint_count++] = child;
            children = cJSON_GetObjectItemCaseSensitive(s->node[child], "children");
            stack[depth++] = children ? children->child : NULL; /* depth <= joints: parents are joints */
        }
    }
    ossa_free(s->g->a, (void *)stack);
    return OSSA_OK;
}

static ossa_result build_skeleton(scene *s, ossa_import_output *out)
{
    ossa_result r = ossa_raw_skeleton_create(&out->skeleton, s->joint_count, &out->allocator);
    if (r) return FAIL(s, r, "cannot create a skeleton of %zu joints", s->joint_count);
    for (size_t j = 0; j < s->joint_count; ++j) {
        const size_t node = s->joint_node[j];
        ossa_raw_joint *joint = &out->skeleton.joints[j];
        joint->parent = s->parent[node] == SIZE_MAX ? -1 : s->joint[s->parent[node]];
        if ((r = rest_pose(s, node, &joint->rest))) return r;
        const float *f = &joint->rest.translation.x, *q = &joint->rest.rotation.x, *sc = &joint->rest.scale.x;
        for (int c = 0; c < 4; ++c)
            if ((c < 3 && (!isfinite(f[c]) || !isfinite(sc[c]))) || !isfinite(q[c]))
                return FAIL(s, OSSA_ERROR_INVALID_SKELETON,
                            "nodes[%zu]: the rest pose is not finite in float (a matrix scale beyond the float range)",
                            node);
        const char *name;
        char fallback[32];
        if ((r = ossa__gltf_string(s->g, s->node[node], "name", "nodes", &name))) return r;
        snprintf(fallback, sizeof fallback, "nodes[%zu]", node);
        if ((r = ossa_raw_skeleton_set_name(&out->skeleton, j, name ? name : fallback)))
            return FAIL(s, r, "cannot name joint %zu", j);
    }
    return OSSA_OK;
}

/* ---- metadata and entry ---- */

static ossa_result write_metadata(scene *s, ossa_import_output *out)
{
    const cJSON *asset = cJSON_GetObjectItemCaseSensitive(s->g->root, "asset");
    const char *generator;
    ossa_result r = ossa__gltf_string(s->g, asset, "generator", "asset", &generator);
    if (!r) r = ossa_import_output_add_metadata(out, "format", "gltf");
    if (!r && generator) r = ossa_import_output_add_metadata(out, "generator", generator);
    /* Spec 3.4: linear distances in metres, +Y up. */
    if (!r) r = ossa_import_output_add_metadata(out, "source_units", "m");
    if (!r) r = ossa_import_output_add_metadata(out, "unit_scale", "1");
    if (!r) r = ossa_import_output_add_metadata(out, "up_axis", "+y");
    return r ? FAIL(s, r, "cannot add metadata") : OSSA_OK;
}

ossa_result ossa__gltf_convert(ossa__gltf *g, ossa_import_output *out)
{
    scene s = {.g = g};
    const cJSON *accessors;
    ossa_result r = ossa__gltf_array(g, g->root, "nodes", "", &s.nodes, &s.node_count);
    if (!r) r = ossa__gltf_array(g, g->root, "meshes", "", &s.meshes, &s.mesh_count);
    if (!r) r = ossa__gltf_array(g, g->root, "skins", "", &s.skins, &s.skin_count);
    if (!r) r = ossa__gltf_array(g, g->root, "animations", "", &s.animations, &s.animation_count);
    if (!r) r = ossa__gltf_array(g, g->root, "accessors", "", &accessors, &s.accessor_count);
    if (!r) r = load_nodes(&s);
    if (!r) r = mark_joints(&s);
    if (!r) r = order_joints(&s);
    if (!r && s.joint_count) r = build_skeleton(&s, out);
    for (size_t a = 0; !r && a < s.animation_count; ++a) r = ossa__gltf_animation(&s, a, out);
    if (!r && !s.joint_count && !out->track_count)
        r = FAIL(&s, OSSA_ERROR_UNSUPPORTED_FORMAT,
                 "no skeleton or animation found: none of the %zu nodes is a skin joint or animated, and no morph "
                 "weights are animated",
                 s.node_count);
    if (!r) r = write_metadata(&s, out);
    ossa_free(g->a, (void *)s.node);
    ossa_free(g->a, s.parent);
    ossa_free(g->a, s.flags);
    ossa_free(g->a, s.joint);
    ossa_free(g->a, s.joint_node);
    return r;
}

#endif
