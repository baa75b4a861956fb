/* Skeletons and animations of every format assimp reads (BVH, FBX, glTF, Collada, ...).
 *
 * assimp parses the bytes through the file system of assimp_io.c: the main name serves the
 * caller's buffer and any other name goes to desc->read_file, so nothing is read by name.
 * The scene's node tree then becomes the raw skeleton (see import_assimp.h for which nodes are
 * joints) and every aiAnimation one raw animation with a track per joint.
 * Source: assimp 5.2.5 C API (cimport.h, scene.h, anim.h, cfileio.h) and its loaders' behaviour
 * (BVHLoader names end sites "EndSite_<joint>"; ColladaLoader folds <unit> and <up_axis> into
 * the root node; the FBX converter stores GlobalSettings in scene metadata).
 */
#include "ossa/offline/import_assimp.h"

#include "import_internal.h"
#include "internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#if defined(OSSA_HAVE_ASSIMP) && OSSA_HAVE_ASSIMP

#include <assimp/cimport.h>
#include <assimp/config.h>
#include <assimp/scene.h>

#include "assimp_io.h"
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#include <cjson/cJSON.h>
#endif

/* ---- scene nodes, flattened in depth-first pre-order ---- */

enum { NODE_USED = 1, NODE_JOINT = 2 };

typedef struct name_entry {
    const struct aiString *name;
    size_t node;
} name_entry;

typedef struct scene_map {
    const struct aiScene *scene;
    const ossa_allocator *allocator;
    size_t node_count;
    const struct aiNode **nodes; /* [node_count] pre-order */
    size_t *parent;              /* [node_count] SIZE_MAX for the root */
    uint8_t *flags;              /* [node_count] NODE_* */
    int32_t *joint;              /* [node_count] joint index or -1 */
    name_entry *names;           /* [node_count] sorted by name, then pre-order */
    size_t joint_count;
    size_t *joint_node; /* [joint_count] node of each joint */
    int32_t *channel;   /* [joint_count] scratch: channel of each joint or -1 */
    double offset;      /* seconds the last built animation's keys were shifted by */
} scene_map;

static int compare_names(const struct aiString *a, const struct aiString *b)
{
    size_t la = a->length < MAXLEN ? a->length : MAXLEN, lb = b->length < MAXLEN ? b->length : MAXLEN;
    int c = memcmp(a->data, b->data, la < lb ? la : lb);
    if (c) return c;
    return la < lb ? -1 : la > lb;
}

static int compare_entries(const void *a, const void *b)
{
    const name_entry *x = a, *y = b;
    int c = compare_names(x->name, y->name);
    if (c) return c;
    return x->node < y->node ? -1 : x->node > y->node;
}

/* The first node in pre-order with `name` (as assimp's own FindNode), or SIZE_MAX. */
static size_t find_node(const scene_map *map, const struct aiString *name)
{
    size_t lo = 0, hi = map->node_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (compare_names(map->names[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < map->node_count && compare_names(map->names[lo].name, name) == 0) return map->names[lo].node;
    return SIZE_MAX;
}

static void scene_map_free(scene_map *map)
{
    const ossa_allocator *a = map->allocator;
    ossa_free(a, (void *)map->nodes);
    ossa_free(a, map->parent);
    ossa_free(a, map->flags);
    ossa_free(a, map->joint);
    ossa_free(a, map->names);
    ossa_free(a, map->joint_node);
    ossa_free(a, map->channel);
}

/* Recursion is as deep as the node tree, which assimp itself built and frees recursively. */
static size_t count_nodes(const struct aiNode *n)
{
    size_t count = 1;
    for (unsigned i = 0; n->mChildren && i < n->mNumChildren; ++i)
        if (n->mChildren[i]) count += count_nodes(n->mChildren[i]);
    return count;
}

static void add_nodes(scene_map *map, const struct aiNode *n, size_t parent, size_t *index)
{
    size_t self = (*index)++;
    map->nodes[self] = n;
    map->parent[self] = parent;
    map->flags[self] = 0;
    map->joint[self] = -1;
    map->names[self] = (name_entry){&n->mName, self};
    for (unsigned i = 0; n->mChildren && i < n->mNumChildren; ++i)
        if (n->mChildren[i]) add_nodes(map, n->mChildren[i], self, index);
}

static ossa_result flatten_nodes(scene_map *map, ossa_diag *diag)
{
    size_t count = count_nodes(map->scene->mRootNode);
    map->node_count = count;
    map->nodes = ossa_alloc(map->allocator, count * sizeof *map->nodes);
    map->parent = ossa_alloc(map->allocator, count * sizeof *map->parent);
    map->flags = ossa_alloc(map->allocator, count);
    map->joint = ossa_alloc(map->allocator, count * sizeof *map->joint);
    map->names = ossa_alloc(map->allocator, count * sizeof *map->names);
    if (!map->nodes || !map->parent || !map->flags || !map->joint || !map->names)
        return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory for %zu nodes", count);
    size_t index = 0;
    add_nodes(map, map->scene->mRootNode, SIZE_MAX, &index);
    qsort(map->names, count, sizeof *map->names, compare_entries);
    return OSSA_OK;
}

static bool is_identity(const struct aiMatrix4x4 *m)
{
    ai_real e[16];
    memcpy(e, m, sizeof e);
    for (int i = 0; i < 16; ++i)
        if (e[i] != ((i % 5) == 0 ? (ai_real)1 : (ai_real)0)) return false;
    return true;
}

static bool is_end_site(const struct aiNode *n)
{
    return n->mNumChildren == 0 && n->mName.length > 8 && memcmp(n->mName.data, "EndSite_", 8) == 0;
}

/* Joints: animated or bone nodes (and BVH end sites unless dropped), then their ancestors;
 * the scene root goes unless it is used itself or carries a transform. */
static ossa_result select_joints(scene_map *map, const ossa_assimp_desc *desc, ossa_diag *diag)
{
    const struct aiScene *s = map->scene;
    for (unsigned a = 0; s->mAnimations && a < s->mNumAnimations; ++a) {
        const struct aiAnimation *anim = s->mAnimations[a];
        for (unsigned c = 0; anim && anim->mChannels && c < anim->mNumChannels; ++c) {
            if (!anim->mChannels[c]) continue;
            size_t node = find_node(map, &anim->mChannels[c]->mNodeName);
            if (node != SIZE_MAX) map->flags[node] |= NODE_USED;
        }
    }
    for (unsigned m = 0; s->mMeshes && m < s->mNumMeshes; ++m) {
        const struct aiMesh *mesh = s->mMeshes[m];
        for (unsigned b = 0; mesh && mesh->mBones && b < mesh->mNumBones; ++b) {
            if (!mesh->mBones[b]) continue;
            size_t node = find_node(map, &mesh->mBones[b]->mName);
            if (node != SIZE_MAX) map->flags[node] |= NODE_USED;
        }
    }
    for (size_t i = 1; i < map->node_count && !desc->drop_end_sites; ++i)
        if (is_end_site(map->nodes[i]) && (map->flags[map->parent[i]] & NODE_USED)) map->flags[i] |= NODE_USED;
    /* Pre-order visits children after parents, so walking backwards reaches every ancestor. */
    for (size_t i = map->node_count; i-- > 0;) {
        if (map->flags[i] & (NODE_USED | NODE_JOINT)) {
            map->flags[i] |= NODE_JOINT;
            if (map->parent[i] != SIZE_MAX) map->flags[map->parent[i]] |= NODE_JOINT;
        }
    }
    if (!(map->flags[0] & NODE_USED) && is_identity(&map->nodes[0]->mTransformation))
        map->flags[0] &= (uint8_t)~NODE_JOINT;
    size_t count = 0;
    for (size_t i = 0; i < map->node_count; ++i)
        if (map->flags[i] & NODE_JOINT) ++count;
    if (count > OSSA_MAX_JOINTS)
        return ossa__fail(diag, OSSA_ERROR_TOO_MANY_JOINTS, "the scene has %zu joints, more than OSSA_MAX_JOINTS (%d)",
                          count, OSSA_MAX_JOINTS);
    map->joint_count = count;
    if (!count) return OSSA_OK;
    map->joint_node = ossa_alloc(map->allocator, count * sizeof *map->joint_node);
    map->channel = ossa_alloc(map->allocator, count * sizeof *map->channel);
    if (!map->joint_node || !map->channel) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    count = 0;
    for (size_t i = 0; i < map->node_count; ++i) {
        if (!(map->flags[i] & NODE_JOINT)) continue;
        map->joint[i] = (int32_t)count;
        map->joint_node[count++] = i;
    }
    return OSSA_OK;
}

/* Translation, rotation and scale of an affine matrix (shear is dropped). A negative
 * determinant negates all three scales so the rest is a proper rotation; a zero axis is
 * rebuilt from the other two. Source: Shepperd's quaternion from a rotation matrix. */
static ossa_transform decompose(const struct aiMatrix4x4 *m)
{
    double c[3][3] = {{(double)m->a1, (double)m->b1, (double)m->c1},
                      {(double)m->a2, (double)m->b2, (double)m->c2},
                      {(double)m->a3, (double)m->b3, (double)m->c3}};
    double s[3];
    for (int i = 0; i < 3; ++i) s[i] = sqrt(c[i][0] * c[i][0] + c[i][1] * c[i][1] + c[i][2] * c[i][2]);
    double det = c[0][0] * (c[1][1] * c[2][2] - c[1][2] * c[2][1]) - c[1][0] * (c[0][1] * c[2][2] - c[0][2] * c[2][1]) +
                 c[2][0] * (c[0][1] * c[1][2] - c[0][2] * c[1][1]);
    double sign = det < 0 ? -1 : 1;
    int zero = 0;
    for (int i = 0; i < 3; ++i) {
        if (s[i] > 1e-30) {
            for (int k = 0; k < 3; ++k) c[i][k] /= sign * s[i];
        } else {
            ++zero;
        }
    }
    double r[3][3]; /* r[row][col] */
    if (zero >= 2) {
        memset(r, 0, sizeof r);
        r[0][0] = r[1][1] = r[2][2] = 1;
    } else {
        for (int i = 0; i < 3 && zero; ++i) {
            if (s[i] > 1e-30) continue;
            const double *u = c[(i + 1) % 3], *v = c[(i + 2) % 3];
            c[i][0] = u[1] * v[2] - u[2] * v[1];
            c[i][1] = u[2] * v[0] - u[0] * v[2];
            c[i][2] = u[0] * v[1] - u[1] * v[0];
        }
        for (int i = 0; i < 3; ++i)
            for (int k = 0; k < 3; ++k) r[k][i] = c[i][k];
    }
    double q[4]; /* x y z w */
    double trace = r[0][0] + r[1][1] + r[2][2];
    if (trace > 0) {
        double t = sqrt(trace + 1) * 2;
        q[3] = t / 4, q[0] = (r[2][1] - r[1][2]) / t, q[1] = (r[0][2] - r[2][0]) / t, q[2] = (r[1][0] - r[0][1]) / t;
    } else if (r[0][0] > r[1][1] && r[0][0] > r[2][2]) {
        double t = sqrt(1 + r[0][0] - r[1][1] - r[2][2]) * 2;
        q[3] = (r[2][1] - r[1][2]) / t, q[0] = t / 4, q[1] = (r[0][1] + r[1][0]) / t, q[2] = (r[0][2] + r[2][0]) / t;
    } else if (r[1][1] > r[2][2]) {
        double t = sqrt(1 + r[1][1] - r[0][0] - r[2][2]) * 2;
        q[3] = (r[0][2] - r[2][0]) / t, q[0] = (r[0][1] + r[1][0]) / t, q[1] = t / 4, q[2] = (r[1][2] + r[2][1]) / t;
    } else {
        double t = sqrt(1 + r[2][2] - r[0][0] - r[1][1]) * 2;
        q[3] = (r[1][0] - r[0][1]) / t, q[0] = (r[0][2] + r[2][0]) / t, q[1] = (r[1][2] + r[2][1]) / t, q[2] = t / 4;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(n > 0) || !isfinite(n)) q[0] = q[1] = q[2] = 0, q[3] = n = 1;
    ossa_transform t;
    t.translation = (ossa_float3){(float)m->a4, (float)m->b4, (float)m->c4};
    t.rotation = (ossa_quat){(float)(q[0] / n), (float)(q[1] / n), (float)(q[2] / n), (float)(q[3] / n)};
    t.scale = (ossa_float3){(float)(sign * s[0]), (float)(sign * s[1]), (float)(sign * s[2])};
    return t;
}

static bool transform_finite(const ossa_transform *t)
{
    const float v[10] = {t->translation.x, t->translation.y, t->translation.z, t->rotation.x, t->rotation.y,
                         t->rotation.z,    t->rotation.w,    t->scale.x,       t->scale.y,    t->scale.z};
    for (int i = 0; i < 10; ++i)
        if (!isfinite(v[i])) return false;
    return true;
}

static ossa_result build_skeleton(const scene_map *map, ossa_import_output *out, ossa_diag *diag)
{
    ossa_result r = ossa_raw_skeleton_create(&out->skeleton, map->joint_count, &out->allocator);
    if (r != OSSA_OK) return ossa__fail(diag, r, "cannot create a skeleton of %zu joints", map->joint_count);
    for (size_t j = 0; j < map->joint_count; ++j) {
        size_t node = map->joint_node[j];
        const struct aiNode *n = map->nodes[node];
        ossa_raw_joint *joint = &out->skeleton.joints[j];
        size_t parent = map->parent[node];
        joint->parent = parent == SIZE_MAX ? -1 : map->joint[parent];
        joint->rest = decompose(&n->mTransformation);
        if (!transform_finite(&joint->rest))
            return ossa__fail(diag, OSSA_ERROR_INVALID_SKELETON, "node '%.100s' has a non-finite transform",
                              n->mName.data);
        r = ossa_raw_skeleton_set_name(&out->skeleton, j, n->mName.data);
        if (r != OSSA_OK) return ossa__fail(diag, r, "cannot name joint %zu", j);
    }
    return OSSA_OK;
}

/* ---- animations ---- */

typedef struct anim_info {
    const struct aiAnimation *anim;
    char name[48]; /* for messages */
    double tps;    /* ticks per second, 25 when assimp left it 0 (aiAnimation docs) */
    double offset; /* seconds added to every key so none is negative */
} anim_info;

static float time_at(const unsigned char *keys, size_t elem, size_t i)
{
    float t;
    memcpy(&t, keys + i * elem, sizeof t);
    return t;
}

/* Stable merge sort on the time each key starts with (both key types do), then one key per
 * time: the last one given wins, as a later key overrides an earlier one in assimp's lists. */
static ossa_result sort_and_dedupe(void *keys, size_t *count, size_t elem, const ossa_allocator *allocator)
{
    unsigned char *k = keys;
    size_t n = *count;
    bool sorted = true;
    for (size_t i = 1; i < n && sorted; ++i) sorted = time_at(k, elem, i - 1) <= time_at(k, elem, i);
    if (!sorted) {
        unsigned char *tmp = ossa_alloc(allocator, n * elem);
        if (!tmp) return OSSA_ERROR_OUT_OF_MEMORY;
        for (size_t width = 1; width < n; width *= 2) {
            for (size_t lo = 0; lo < n; lo += 2 * width) {
                size_t mid = lo + width < n ? lo + width : n, hi = mid + width < n ? mid + width : n;
                size_t a = lo, b = mid, o = lo;
                while (a < mid && b < hi) {
                    size_t from = time_at(k, elem, b) < time_at(k, elem, a) ? b++ : a++;
                    memcpy(tmp + o++ * elem, k + from * elem, elem);
                }
                memcpy(tmp + o * elem, k + a * elem, (mid - a) * elem);
                o += mid - a;
                memcpy(tmp + o * elem, k + b * elem, (hi - b) * elem);
            }
            memcpy(k, tmp, n * elem);
        }
        ossa_free(allocator, tmp);
    }
    size_t w = 0;
    for (size_t i = 0; i < n; ++i) {
        if (w && time_at(k, elem, w - 1) == time_at(k, elem, i)) --w;
        if (w != i) memcpy(k + w * elem, k + i * elem, elem);
        ++w;
    }
    *count = w;
    return OSSA_OK;
}

static ossa_result key_error(ossa_diag *diag, const anim_info *info, const struct aiNodeAnim *ch, const char *what,
                             size_t key, double ticks)
{
    return ossa__fail(diag, OSSA_ERROR_INVALID_KEY,
                      "animation '%s', node '%.60s': %s key %zu at tick %g has a time or value that is not a "
                      "finite float%s",
                      info->name, ch->mNodeName.data, what, key, ticks, strcmp(what, "rotation") ? "" : ", or is zero");
}

/* Seconds as a float; false when that is not finite (a double beyond FLT_MAX included). */
static bool key_time(const anim_info *info, double ticks, float *time)
{
    double t = ticks / info->tps + info->offset;
    *time = 0.f;
    if (!isfinite(t) || fabs(t) > (double)FLT_MAX) return false;
    *time = (float)t;
    return true;
}

static ossa_result convert_vectors(const struct aiVectorKey *src, size_t count, ossa_raw_float3_key *dst,
                                   const anim_info *info, const struct aiNodeAnim *ch, const char *what,
                                   ossa_diag *diag)
{
    for (size_t k = 0; k < count; ++k) {
        ossa_raw_float3_key *d = &dst[k];
        d->value = (ossa_float3){(float)src[k].mValue.x, (float)src[k].mValue.y, (float)src[k].mValue.z};
        if (!key_time(info, src[k].mTime, &d->time) || !isfinite(d->value.x) || !isfinite(d->value.y) ||
            !isfinite(d->value.z))
            return key_error(diag, info, ch, what, k, src[k].mTime);
    }
    return OSSA_OK;
}

static ossa_result fill_track(ossa_raw_animation *raw, size_t j, const ossa_transform *rest,
                              const struct aiNodeAnim *ch, const anim_info *info, const ossa_allocator *allocator,
                              ossa_diag *diag)
{
    size_t nt = ch && ch->mPositionKeys ? ch->mNumPositionKeys : 0;
    size_t nr = ch && ch->mRotationKeys ? ch->mNumRotationKeys : 0;
    size_t ns = ch && ch->mScalingKeys ? ch->mNumScalingKeys : 0;
    ossa_result r = ossa_raw_joint_track_resize(raw, j, nt ? nt : 1, nr ? nr : 1, ns ? ns : 1);
    if (r != OSSA_OK) return ossa__fail(diag, r, "cannot allocate the keys of track %zu", j);
    ossa_raw_joint_track *t = &raw->tracks[j];
    /* A channel assimp left empty holds the rest pose, not the identity. */
    if (!nt) t->translations[0] = (ossa_raw_float3_key){0.f, rest->translation};
    if (!nr) t->rotations[0] = (ossa_raw_quat_key){0.f, rest->rotation};
    if (!ns) t->scales[0] = (ossa_raw_float3_key){0.f, rest->scale};
    if (nt && (r = convert_vectors(ch->mPositionKeys, nt, t->translations, info, ch, "translation", diag))) return r;
    if (ns && (r = convert_vectors(ch->mScalingKeys, ns, t->scales, info, ch, "scale", diag))) return r;
    for (size_t k = 0; k < nr; ++k) {
        const struct aiQuatKey *src = &ch->mRotationKeys[k];
        ossa_raw_quat_key *d = &t->rotations[k];
        d->value = (ossa_quat){(float)src->mValue.x, (float)src->mValue.y, (float)src->mValue.z, (float)src->mValue.w};
        float norm = fabsf(d->value.x) + fabsf(d->value.y) + fabsf(d->value.z) + fabsf(d->value.w);
        if (!key_time(info, src->mTime, &d->time) || !isfinite(norm) || norm == 0.f)
            return key_error(diag, info, ch, "rotation", k, src->mTime);
    }
    if ((r = sort_and_dedupe(t->translations, &t->translation_count, sizeof *t->translations, allocator)) ||
        (r = sort_and_dedupe(t->rotations, &t->rotation_count, sizeof *t->rotations, allocator)) ||
        (r = sort_and_dedupe(t->scales, &t->scale_count, sizeof *t->scales, allocator)))
        return ossa__fail(diag, r, "out of memory sorting the keys of track %zu", j);
    return OSSA_OK;
}

/* The earliest key time in seconds over the channels that drive joints; false if any is NaN. */
static bool earliest_key(const scene_map *map, const anim_info *info, double *earliest)
{
    *earliest = 0;
    for (size_t j = 0; j < map->joint_count; ++j) {
        if (map->channel[j] < 0) continue;
        const struct aiNodeAnim *ch = info->anim->mChannels[map->channel[j]];
        const struct aiVectorKey *lists[2] = {ch->mPositionKeys, ch->mScalingKeys};
        const unsigned counts[2] = {ch->mPositionKeys ? ch->mNumPositionKeys : 0,
                                    ch->mScalingKeys ? ch->mNumScalingKeys : 0};
        for (int l = 0; l < 2; ++l)
            for (unsigned k = 0; k < counts[l]; ++k) {
                if (isnan(lists[l][k].mTime)) return false;
                if (lists[l][k].mTime / info->tps < *earliest) *earliest = lists[l][k].mTime / info->tps;
            }
        for (unsigned k = 0; ch->mRotationKeys && k < ch->mNumRotationKeys; ++k) {
            if (isnan(ch->mRotationKeys[k].mTime)) return false;
            if (ch->mRotationKeys[k].mTime / info->tps < *earliest) *earliest = ch->mRotationKeys[k].mTime / info->tps;
        }
    }
    return true;
}

static ossa_result build_animation(scene_map *map, unsigned index, ossa_import_output *out, ossa_diag *diag)
{
    anim_info info = {.anim = map->scene->mAnimations[index]};
    const struct aiAnimation *anim = info.anim;
    if (anim->mName.length)
        snprintf(info.name, sizeof info.name, "%.47s", anim->mName.data);
    else
        snprintf(info.name, sizeof info.name, "animation%u", index);
    info.tps = anim->mTicksPerSecond == 0 ? 25.0 : anim->mTicksPerSecond;
    if (!(info.tps > 0) || !isfinite(info.tps))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "animation '%s': %g ticks per second is not a positive finite rate (a BVH Frame Time "
                          "of 0 gives an infinite one)",
                          info.name, anim->mTicksPerSecond);
    /* The first channel for a node drives it, as assimp's own evaluator finds it first. */
    for (size_t j = 0; j < map->joint_count; ++j) map->channel[j] = -1;
    for (unsigned c = 0; anim->mChannels && c < anim->mNumChannels && c <= INT32_MAX; ++c) {
        if (!anim->mChannels[c]) continue;
        size_t node = find_node(map, &anim->mChannels[c]->mNodeName);
        if (node != SIZE_MAX && map->joint[node] >= 0 && map->channel[map->joint[node]] < 0)
            map->channel[map->joint[node]] = (int32_t)c;
    }
    double earliest;
    if (!earliest_key(map, &info, &earliest))
        return ossa__fail(diag, OSSA_ERROR_INVALID_KEY, "animation '%s' has a key at a NaN time", info.name);
    info.offset = -earliest;
    map->offset = info.offset;
    ossa_raw_animation *raw = NULL;
    ossa_result r = ossa_import_output_add_animation(out, map->joint_count, &raw);
    if (r != OSSA_OK) return ossa__fail(diag, r, "cannot add animation '%s'", info.name);
    if ((r = ossa_raw_animation_set_name(raw, anim->mName.length ? anim->mName.data : info.name)))
        return ossa__fail(diag, r, "cannot name animation '%s'", info.name);
    float last = 0.f;
    for (size_t j = 0; j < map->joint_count; ++j) {
        const struct aiNodeAnim *ch = map->channel[j] >= 0 ? anim->mChannels[map->channel[j]] : NULL;
        if ((r = fill_track(raw, j, &out->skeleton.joints[j].rest, ch, &info, &out->allocator, diag))) return r;
        const ossa_raw_joint_track *t = &raw->tracks[j];
        if (t->translations[t->translation_count - 1].time > last)
            last = t->translations[t->translation_count - 1].time;
        if (t->rotations[t->rotation_count - 1].time > last) last = t->rotations[t->rotation_count - 1].time;
        if (t->scales[t->scale_count - 1].time > last) last = t->scales[t->scale_count - 1].time;
    }
    /* The keys decide; mDuration only extends past the last key, by up to a day (assimp's BVH
     * loader declares 2^32-1 ticks for 0 frames). A single pose lasts one tick. */
    double declared = anim->mDuration / info.tps;
    float duration = last;
    if (isfinite(declared) && declared > (double)last && declared <= (double)last + 86400.0) duration = (float)declared;
    double tick = 1.0 / info.tps;
    if (!(duration > 0.f) && tick <= (double)FLT_MAX) duration = (float)tick;
    if (!(duration > 0.f) || !isfinite(duration))
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "animation '%s': its keys end at %g s and one tick (1/%g s) is not a positive finite time",
                          info.name, (double)last, info.tps);
    raw->duration = duration;
    return OSSA_OK;
}

/* ---- morph-target weights ---- */

static bool same_name(const struct aiString *a, const struct aiString *b)
{
    return a->length == b->length && !memcmp(a->data, b->data, a->length);
}

/* The node named `name` under `node` (depth first), or NULL. */
static const struct aiNode *node_named(const struct aiNode *node, const struct aiString *name, int depth)
{
    if (!node || depth > 1024) return NULL;
    if (same_name(&node->mName, name)) return node;
    for (unsigned c = 0; node->mChildren && c < node->mNumChildren; ++c) {
        const struct aiNode *found = node_named(node->mChildren[c], name, depth + 1);
        if (found) return found;
    }
    return NULL;
}

/* The mesh a morph channel animates: the mesh of that name, else the first mesh of the node of
 * that name (assimp's glTF loader names the node); NULL when neither exists. */
static const struct aiMesh *morph_mesh(const struct aiScene *scene, const struct aiString *name)
{
    for (unsigned m = 0; m < scene->mNumMeshes; ++m)
        if (scene->mMeshes[m] && same_name(&scene->mMeshes[m]->mName, name)) return scene->mMeshes[m];
    const struct aiNode *node = node_named(scene->mRootNode, name, 0);
    if (node && node->mMeshes && node->mNumMeshes && node->mMeshes[0] < scene->mNumMeshes)
        return scene->mMeshes[node->mMeshes[0]];
    return NULL;
}

/* Morph channels of animation `index` as float tracks, one per morph target: the weight of
 * target k at each key (0 where the key does not list k), named "MESH.TARGET" (the target's
 * anim-mesh name, else its index), prefixed "ANIMATION/" when the scene has several
 * animations. Times are shifted as the joint clip's (`offset`) and over `duration` seconds
 * (the joint clip's; or, with no joints, the channel's own span). */
static ossa_result build_morph_tracks(const struct aiScene *scene, unsigned index, double offset, double duration,
                                      bool own_timing, ossa_import_output *out, ossa_diag *diag)
{
    const struct aiAnimation *anim = scene->mAnimations[index];
    const double tps = anim->mTicksPerSecond == 0 ? 25.0 : anim->mTicksPerSecond;
    for (unsigned c = 0; anim->mMorphMeshChannels && c < anim->mNumMorphMeshChannels; ++c) {
        const struct aiMeshMorphAnim *ch = anim->mMorphMeshChannels[c];
        if (!ch || !ch->mKeys || !ch->mNumKeys) continue;
        unsigned targets = 0;
        double first = HUGE_VAL, last = -HUGE_VAL;
        for (unsigned k = 0; k < ch->mNumKeys; ++k) {
            const struct aiMeshMorphKey *key = &ch->mKeys[k];
            if (!isfinite(key->mTime))
                return ossa__fail(diag, OSSA_ERROR_INVALID_KEY, "morph channel %u: key %u at a time that is not finite",
                                  c, k);
            first = fmin(first, key->mTime / tps), last = fmax(last, key->mTime / tps);
            for (unsigned v = 0; key->mValues && key->mWeights && v < key->mNumValuesAndWeights; ++v) {
                if (!isfinite(key->mWeights[v]))
                    return ossa__fail(diag, OSSA_ERROR_INVALID_KEY,
                                      "morph channel %u: key %u has a weight that is not finite", c, k);
                if (key->mValues[v] < 65536 && key->mValues[v] + 1 > targets) targets = key->mValues[v] + 1;
            }
        }
        const double shift = own_timing ? -first : offset;
        const double span = own_timing ? last - first : duration;
        const struct aiMesh *mesh = morph_mesh(scene, &ch->mName);
        for (unsigned t = 0; t < targets; ++t) {
            char name[300], target[96];
            const struct aiAnimMesh *am =
                mesh && mesh->mAnimMeshes && t < mesh->mNumAnimMeshes ? mesh->mAnimMeshes[t] : NULL;
            if (am && am->mName.length)
                snprintf(target, sizeof target, "%.90s", am->mName.data);
            else
                snprintf(target, sizeof target, "%u", t);
            const char *base = mesh && mesh->mName.length ? mesh->mName.data : ch->mName.data;
            if (scene->mNumAnimations > 1)
                snprintf(name, sizeof name, "%.90s/%.90s.%s", anim->mName.length ? anim->mName.data : "animation", base,
                         target);
            else
                snprintf(name, sizeof name, "%.90s.%s", base, target);
            ossa_raw_track *track = NULL;
            ossa_result r = ossa_import_output_add_track(out, OSSA_TRACK_FLOAT, ch->mNumKeys, &track);
            if (!r) r = ossa_raw_track_set_name(track, name);
            if (r) return ossa__fail(diag, r, "out of memory for morph track '%s'", name);
            size_t n = 0;
            for (unsigned k = 0; k < ch->mNumKeys; ++k) {
                const struct aiMeshMorphKey *key = &ch->mKeys[k];
                double ratio = span > 0 ? (key->mTime / tps + shift) / span : 0.0;
                ratio = ratio < 0 ? 0 : (ratio > 1 ? 1 : ratio);
                float weight = 0.f;
                for (unsigned v = 0; key->mValues && key->mWeights && v < key->mNumValuesAndWeights; ++v)
                    if (key->mValues[v] == t) weight = (float)key->mWeights[v];
                if (n && (float)ratio <= track->keys[n - 1].ratio) { /* same time: the later key wins */
                    track->keys[n - 1].value[0] = weight;
                    continue;
                }
                track->keys[n++] = (ossa_raw_track_key){(float)ratio, OSSA_INTERP_LINEAR, {weight, 0.f, 0.f, 0.f}};
            }
            track->key_count = n;
            track->duration = (float)span;
        }
    }
    return OSSA_OK;
}

/* ---- metadata ---- */

static const struct aiMetadataEntry *meta_find(const struct aiScene *s, const char *key)
{
    const struct aiMetadata *m = s->mMetaData;
    if (!m || !m->mKeys || !m->mValues) return NULL;
    for (unsigned i = 0; i < m->mNumProperties; ++i)
        if (m->mValues[i].mData && strcmp(m->mKeys[i].data, key) == 0) return &m->mValues[i];
    return NULL;
}

static bool meta_number(const struct aiScene *s, const char *key, double *value)
{
    const struct aiMetadataEntry *e = meta_find(s, key);
    if (!e) return false;
    switch (e->mType) {
    case AI_INT32:
        *value = *(const int32_t *)e->mData;
        return true;
    case AI_UINT64:
        *value = (double)*(const uint64_t *)e->mData;
        return true;
    case AI_FLOAT:
        *value = (double)*(const float *)e->mData;
        return true;
    case AI_DOUBLE:
        *value = *(const double *)e->mData;
        return true;
    default:
        return false;
    }
}

static const char *meta_string(const struct aiScene *s, const char *key)
{
    const struct aiMetadataEntry *e = meta_find(s, key);
    return e && e->mType == AI_AISTRING ? ((const struct aiString *)e->mData)->data : NULL;
}

/* The first file extension of the importer assimp names in SourceAsset_Format. */
static void importer_extension(const char *importer, char *ext, size_t size)
{
    ext[0] = '\0';
    for (size_t i = 0, n = importer ? aiGetImportFormatCount() : 0; i < n; ++i) {
        const struct aiImporterDesc *d = aiGetImportFormatDescription(i);
        if (!d || !d->mName || !d->mFileExtensions || strcmp(d->mName, importer) != 0) continue;
        size_t len = strcspn(d->mFileExtensions, " ");
        if (len >= size) len = size - 1;
        memcpy(ext, d->mFileExtensions, len);
        ext[len] = '\0';
        return;
    }
}

static const char *unit_name(double metres)
{
    static const struct {
        double metres;
        const char *name;
    } units[] = {{0.001, "mm"},  {0.01, "cm"},   {0.1, "dm"},    {1.0, "m"},
                 {1000.0, "km"}, {0.0254, "in"}, {0.3048, "ft"}, {0.9144, "yd"}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; ++i)
        if (fabs(metres - units[i].metres) <= 1e-6 * units[i].metres) return units[i].name;
    return "custom";
}

static ossa_result add_meta(ossa_import_output *out, const char *key, const char *value, ossa_diag *diag)
{
    ossa_result r = ossa_import_output_add_metadata(out, key, value);
    if (r != OSSA_OK) return ossa__fail(diag, r, "cannot add metadata '%s'", key);
    return OSSA_OK;
}

static ossa_result write_metadata(const scene_map *map, const ossa_assimp_desc *desc, ossa_import_output *out,
                                  ossa_diag *diag)
{
    const struct aiScene *s = map->scene;
    const char *importer = meta_string(s, "SourceAsset_Format");
    char ext[16], text[64];
    importer_extension(importer, ext, sizeof ext);
    if (!ext[0] && desc->format_hint)
        snprintf(ext, sizeof ext, "%s", desc->format_hint + (desc->format_hint[0] == '.'));
    snprintf(text, sizeof text, ext[0] ? "assimp:%s" : "assimp", ext);
    ossa_result r = add_meta(out, "format", text, diag);
    if (!r && importer) r = add_meta(out, "importer", importer, diag);
    const char *generator = meta_string(s, "SourceAsset_Generator");
    if (!r && generator) r = add_meta(out, "generator", generator, diag);
    static const char *const axes[2][3] = {{"-x", "-y", "-z"}, {"+x", "+y", "+z"}};
    double metres = 0, value = 0;
    const char *up = NULL;
    bool in_root = false;
    if (!strcmp(ext, "fbx") && meta_number(s, "UnitScaleFactor", &value) && value > 0 && isfinite(value)) {
        metres = value * 0.01; /* FBX GlobalSettings: centimetres per unit */
        double axis = 0, sign = 1;
        if (meta_number(s, "UpAxis", &axis) && meta_number(s, "UpAxisSign", &sign) && axis >= 0 && axis <= 2)
            up = axes[sign >= 0][(int)axis];
    } else if (!strcmp(ext, "gltf") || !strcmp(ext, "glb")) {
        metres = 1.0, up = "+y"; /* glTF 2.0 spec 3.4: metres, +Y up */
    } else if (!strcmp(ext, "dae")) {
        /* ColladaLoader multiplies the root node by <unit meter> and turns <up_axis> into +Y. */
        ossa_transform root = decompose(&s->mRootNode->mTransformation);
        double sx = (double)root.scale.x, sy = (double)root.scale.y, sz = (double)root.scale.z;
        if (sx > 0 && fabs(sx - sy) <= 1e-6 * sx && fabs(sx - sz) <= 1e-6 * sx) metres = sx;
        in_root = metres > 0 && fabs(metres - 1.0) > 1e-6 && (map->flags[0] & NODE_JOINT);
        up = "+y";
    }
    if (!r) r = add_meta(out, "source_units", metres > 0 ? unit_name(metres) : "unknown", diag);
    /* unit_scale is what model space needs: 1 when the root joint already scales to metres. */
    snprintf(text, sizeof text, "%.9g", metres > 0 && !in_root ? metres : 1.0);
    if (!r) r = add_meta(out, "unit_scale", text, diag);
    snprintf(text, sizeof text, "%.9g", metres);
    if (!r && in_root) r = add_meta(out, "source_unit_scale", text, diag);
    if (!r && in_root) r = add_meta(out, "unit_scale_in_root", "true", diag);
    if (!r && up) r = add_meta(out, "up_axis", up, diag);
    bool assumed = false;
    for (unsigned a = 0; a < s->mNumAnimations; ++a) assumed |= s->mAnimations[a]->mTicksPerSecond == 0;
    if (!r && assumed) r = add_meta(out, "ticks_per_second_assumed", "25", diag);
    return r;
}

/* ---- entry point ---- */

static ossa_result convert(const struct aiScene *scene, const ossa_assimp_desc *desc, ossa_import_output *out,
                           ossa_diag *diag)
{
    if (!scene->mRootNode) return ossa__fail(diag, OSSA_ERROR_PARSE, "assimp returned a scene without a root node");
    if (scene->mNumAnimations && !scene->mAnimations)
        return ossa__fail(diag, OSSA_ERROR_PARSE, "assimp returned animations without data");
    for (unsigned a = 0; a < scene->mNumAnimations; ++a)
        if (!scene->mAnimations[a])
            return ossa__fail(diag, OSSA_ERROR_PARSE, "assimp returned animation %u as NULL", a);
    scene_map map = {.scene = scene, .allocator = &out->allocator};
    ossa_result r = flatten_nodes(&map, diag);
    if (!r) r = select_joints(&map, desc, diag);
    unsigned morph_channels = 0;
    for (unsigned a = 0; a < scene->mNumAnimations; ++a)
        morph_channels += scene->mAnimations[a]->mMorphMeshChannels ? scene->mAnimations[a]->mNumMorphMeshChannels : 0;
    if (!r && !map.joint_count && morph_channels) {
        /* Morph-target weights only (a blend-shape clip): user tracks, no skeleton. */
        for (unsigned a = 0; !r && a < scene->mNumAnimations; ++a)
            r = build_morph_tracks(scene, a, 0, 0, true, out, diag);
        if (!r) r = write_metadata(&map, desc, out, diag);
        scene_map_free(&map);
        return r;
    }
    if (!r && !map.joint_count) {
        /* Vertex (morph) animation formats load as a static mesh: say so rather than "empty". */
        unsigned morphs = 0;
        for (unsigned m = 0; m < scene->mNumMeshes; ++m)
            morphs += scene->mMeshes[m] ? scene->mMeshes[m]->mNumAnimMeshes : 0;
        const char *hint = desc->format_hint ? strrchr(desc->format_hint, '.') : NULL;
        hint = hint ? hint + 1 : desc->format_hint ? desc->format_hint : "";
        const bool vertex_format = !strcasecmp(hint, "md2") || !strcasecmp(hint, "md3") || !strcasecmp(hint, "mdc") ||
                                   !strcasecmp(hint, "mdl") || !strcasecmp(hint, "hmp");
        r = ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                       "no skeleton or animation found: no node of the %zu in the scene is animated or a mesh "
                       "bone%s",
                       map.node_count,
                       vertex_format || morphs ? " (this file animates vertices, not joints: assimp gives the mesh "
                                                 "frames or morph targets, which are not joint tracks)"
                                               : "");
    }
    if (!r) r = build_skeleton(&map, out, diag);
    for (unsigned a = 0; !r && a < scene->mNumAnimations; ++a) {
        r = build_animation(&map, a, out, diag);
        const ossa_raw_animation *clip = r ? NULL : &out->animations[out->animation_count - 1];
        if (!r) r = build_morph_tracks(scene, a, map.offset, (double)clip->duration, false, out, diag);
    }
    if (!r) r = write_metadata(&map, desc, out, diag);
    scene_map_free(&map);
    return r;
}

/* "ossa-input" plus the hint as extension: assimp picks its loader by extension first (some
 * by a double one, as Ogre's ".mesh.xml") and by content when none matches. */
static ossa_result main_name(const char *hint, char *name, size_t size, ossa_diag *diag)
{
    snprintf(name, size, "ossa-input");
    if (!hint) return OSSA_OK;
    if (hint[0] == '.') ++hint;
    size_t len = strlen(hint);
    bool ok = len > 0 && len <= 31 && hint[len - 1] != '.';
    for (size_t i = 0; ok && i < len; ++i)
        ok = (hint[i] >= 'a' && hint[i] <= 'z') || (hint[i] >= 'A' && hint[i] <= 'Z') ||
             (hint[i] >= '0' && hint[i] <= '9') || (hint[i] == '.' && hint[i + 1] != '.');
    if (!ok)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ARGUMENT,
                          "format_hint '%.40s' is not a file extension (1 to 31 letters, digits and single "
                          "inner dots, as \"mesh.xml\")",
                          hint);
    snprintf(name, size, "ossa-input.%s", hint);
    return OSSA_OK;
}

/* assimp's text loaders prefix errors with "<file>:<line> - "; the line goes to the diag. */
static ossa_result import_error(const ossa__assimp_io *io, ossa_diag *diag)
{
    const char *error = aiGetErrorString();
    if (!error || !error[0]) error = "unknown error";
    uint32_t line = 0;
    size_t len = strlen(io->main_name);
    if (strncmp(error, io->main_name, len) == 0 && error[len] == ':' && error[len + 1] >= '0' &&
        error[len + 1] <= '9') {
        char *end = NULL;
        unsigned long value = strtoul(error + len + 1, &end, 10);
        if (strncmp(end, " - ", 3) == 0 && value <= UINT32_MAX) line = (uint32_t)value, error = end + 3;
    }
    ossa_result why = OSSA_OK;
    const char *path = ossa__assimp_io_unresolved(io, &why);
    if (path && !io->desc->read_file)
        return ossa_diag_set(diag, OSSA_ERROR_PARSE, SIZE_MAX, line, 0,
                             "assimp: %.120s (the scene refers to '%.60s' and no read_file callback was given)", error,
                             path);
    if (path)
        return ossa_diag_set(diag, OSSA_ERROR_PARSE, SIZE_MAX, line, 0, "assimp: %.120s (read_file('%.60s') gave %s)",
                             error, path, ossa_result_name(why));
    return ossa_diag_set(diag, OSSA_ERROR_PARSE, SIZE_MAX, line, 0, "assimp: %.200s", error);
}

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
/* assimp 5.2 dereferences a glTF 2.0 skin's inverseBindMatrices accessor without checking that
 * the skin has one (the key is optional: identity matrices are meant), and crashes. A skin
 * without it is refused here, before assimp sees the file. The JSON is the whole input (.gltf)
 * or the first chunk of a binary glTF (12-byte header "glTF", version, length; then chunk
 * length, "JSON"). Source: glTF 2.0 specification, 3.7.3 (skins) and 4.4 (GLB). */
static ossa_result check_gltf_skins(const uint8_t *data, size_t size, ossa_diag *diag)
{
    const char *json = (const char *)data;
    size_t json_size = size;
    if (size >= 20 && !memcmp(data, "glTF", 4)) {
        const size_t chunk = (size_t)data[12] | (size_t)data[13] << 8 | (size_t)data[14] << 16 | (size_t)data[15] << 24;
        if (memcmp(data + 16, "JSON", 4) || chunk > size - 20) return OSSA_OK; /* assimp reports it */
        json = (const char *)data + 20;
        json_size = chunk;
    } else {
        size_t i = 0;
        while (i < size && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n')) ++i;
        if (i == size || data[i] != '{') return OSSA_OK;
    }
    cJSON *root = cJSON_ParseWithLength(json, json_size);
    if (!root) return OSSA_OK; /* not JSON after all: assimp's reader decides */
    ossa_result r = OSSA_OK;
    const cJSON *skins = cJSON_GetObjectItemCaseSensitive(root, "skins");
    int index = 0;
    for (const cJSON *skin = cJSON_IsArray(skins) ? skins->child : NULL; skin && r == OSSA_OK;
         skin = skin->next, ++index)
        if (!cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(skin, "inverseBindMatrices")))
            r = ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                           "glTF skin %d has no inverseBindMatrices accessor (valid glTF, meaning identity "
                           "matrices, but assimp 5.2 crashes on it): give the skin its matrices",
                           index);
    cJSON_Delete(root);
    return r;
}
#endif

/* The number after `label` on a BVH header line starting at `at`, read from a bounded copy
 * (the input need not be NUL-terminated); NAN when absent. */
static double bvh_number(const char *data, size_t size, size_t at, const char *label)
{
    const size_t n = strlen(label);
    if (size - at < n || memcmp(data + at, label, n)) return (double)NAN;
    char copy[64];
    size_t k = 0;
    for (at += n; at < size && k + 1 < sizeof copy && data[at] != '\n' && data[at] != '\r'; ++at) copy[k++] = data[at];
    copy[k] = 0;
    char *end;
    const double v = strtod(copy, &end);
    return end == copy ? (double)NAN : v;
}

/* A BVH declares its clip in two header lines after MOTION ("Frames: N", "Frame Time: T").
 * A clip longer than a day is refused here, before assimp reads millions of lines. Source:
 * the Biovision BVH layout as CMU's motion-capture files use it. */
static bool is_bvh(const char *data, size_t size, const char *name)
{
    const char *last = strrchr(name, '.');
    return (last && !strcasecmp(last + 1, "bvh")) || (size >= 9 && !memcmp(data, "HIERARCHY", 9));
}

static ossa_result check_bvh_motion(const char *data, size_t size, const char *name, size_t max_keys, ossa_diag *diag)
{
    if (!is_bvh(data, size, name)) return OSSA_OK;
    double frames = (double)NAN, frame_time = (double)NAN;
    size_t line = 1, frames_line = 0, time_line = 0;
    bool motion = false;
    size_t moving = 0; /* joints with CHANNELS: assimp gives each a position and a rotation key a frame */
    for (size_t at = 0; at < size; ++line) {
        while (at < size && (data[at] == ' ' || data[at] == '\t')) ++at;
        if (!motion && size - at >= 8 && !memcmp(data + at, "CHANNELS", 8)) ++moving;
        if (!motion && size - at >= 6 && !memcmp(data + at, "MOTION", 6))
            motion = true;
        else if (motion && isnan(frames) && !isnan(frames = bvh_number(data, size, at, "Frames:")))
            frames_line = line;
        else if (motion && isnan(frame_time) && !isnan(frame_time = bvh_number(data, size, at, "Frame Time:")))
            time_line = line;
        if (motion && !isnan(frames) && !isnan(frame_time)) break;
        const char *nl = memchr(data + at, '\n', size - at);
        if (!nl) break;
        at = (size_t)(nl - data) + 1;
    }
    if (isnan(frames) || isnan(frame_time)) return OSSA_OK; /* assimp will say what is missing */
    if (!(frame_time >= 0.0) || !isfinite(frame_time))
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, time_line, 0,
                             "BVH Frame Time %g; expected a finite number of seconds >= 0", frame_time);
    if (frames * frame_time > (double)OSSA_RAW_ANIMATION_MAX_DURATION)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, frames_line, 0,
                             "BVH declares %.0f frames of %g s, a clip of %g s; expected at most %g s (a day)", frames,
                             frame_time, frames * frame_time, (double)OSSA_RAW_ANIMATION_MAX_DURATION);
    /* Before assimp holds every frame: the budget is checked on what the header declares. */
    if (max_keys && frames * 2.0 * (double)moving > (double)max_keys)
        return ossa_diag_set(diag, OSSA_ERROR_INVALID_ANIMATION, SIZE_MAX, frames_line, 0,
                             "BVH declares %.0f frames of %zu moving joints, %.0f keys; more than the import's "
                             "budget of %zu keys (max_keys)",
                             frames, moving, frames * 2.0 * (double)moving, max_keys);
    return OSSA_OK;
}

/* Every channel's keys in the scene, against the import's budget (desc->max_keys). */
static ossa_result check_scene_keys(const struct aiScene *scene, size_t max_keys, ossa_diag *diag)
{
    double keys = 0.0;
    for (unsigned a = 0; max_keys && a < scene->mNumAnimations; ++a) {
        const struct aiAnimation *anim = scene->mAnimations ? scene->mAnimations[a] : NULL;
        for (unsigned c = 0; anim && anim->mChannels && c < anim->mNumChannels; ++c) {
            const struct aiNodeAnim *ch = anim->mChannels[c];
            if (ch) keys += (double)ch->mNumPositionKeys + (double)ch->mNumRotationKeys + (double)ch->mNumScalingKeys;
        }
    }
    if (max_keys && keys > (double)max_keys)
        return ossa__fail(diag, OSSA_ERROR_INVALID_ANIMATION,
                          "the scene's animations hold %.0f keys; more than the import's budget of %zu keys "
                          "(max_keys)",
                          keys, max_keys);
    return OSSA_OK;
}

static ossa_result import_scene(const void *data, size_t size, const ossa_assimp_desc *desc, ossa_import_output *out,
                                bool bvh_by_library, ossa_diag *diag)
{
    if (!data && size) return ossa__fail(diag, OSSA_ERROR_NULL_ARGUMENT, "data is NULL");
    if (!size) return ossa__fail_at(diag, OSSA_ERROR_PARSE, 0, "the input is empty: expected a scene file");
#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
    ossa_result checked = check_gltf_skins(data, size, diag);
    if (checked != OSSA_OK) return checked;
#endif
    char name[48]; /* "ossa-input." and a hint of up to 31 characters */
    ossa_result r = main_name(desc->format_hint, name, sizeof name, diag);
    if (r != OSSA_OK) return r;
    if (!bvh_by_library && is_bvh(data, size, name)) {
        /* The stream reader gives assimp's keys without the text and frame arrays assimp holds. */
        const ossa_bvh_desc bvh = {.drop_end_sites = desc->drop_end_sites, .max_keys = desc->max_keys};
        return ossa__import_bvh_body(data, size, &bvh, out, diag);
    }
    if ((r = check_bvh_motion(data, size, name, desc->max_keys, diag)) != OSSA_OK) return r;
    /* Formats that hold static geometry only are refused before assimp reads them: there is
     * nothing to import, and some of assimp's readers trust declared counts (an OFF header
     * declaring 35 billion vertices runs for minutes). */
    static const char *const static_formats[] = {"obj", "stl", "ply", "off",    "raw", "nff", "enff", "3mf",
                                                 "amf", "dxf", "ifc", "ifczip", "xgl", "zgl", "ter"};
    const char *last = strrchr(name, '.');
    for (size_t i = 0; last && i < sizeof static_formats / sizeof *static_formats; ++i)
        if (!strcasecmp(last + 1, static_formats[i]))
            return ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                              "a .%s file holds static geometry only (no joints, no animation): nothing to "
                              "import",
                              last + 1);
    struct aiPropertyStore *props = aiCreatePropertyStore();
    if (!props) return ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory");
    ossa__assimp_io io;
    ossa__assimp_io_init(&io, data, size, name, desc, &out->allocator);
    /* No generated skeleton meshes (BVH, Collada): their bones would make every node a joint.
     * One node per FBX model, pivots folded into it, and every declared bone kept. */
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_NO_SKELETON_MESHES, 1);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS, 0);
    aiSetImportPropertyInteger(props, AI_CONFIG_IMPORT_REMOVE_EMPTY_BONES, 0);
    const struct aiScene *scene = aiImportFileExWithProperties(name, 0, &io.fs, props);
    aiReleasePropertyStore(props);
    if (io.out_of_memory)
        r = ossa__fail(diag, OSSA_ERROR_OUT_OF_MEMORY, "out of memory reading files");
    else if (!scene)
        r = import_error(&io, diag);
    else if ((r = check_scene_keys(scene, desc->max_keys, diag)) == OSSA_OK)
        r = convert(scene, desc, out, diag);
    if (scene) aiReleaseImport(scene);
    ossa__assimp_io_release(&io);
    return r;
}

ossa_result ossa_import_assimp(const void *data, size_t size, const ossa_assimp_desc *desc, ossa_import_output *out,
                               ossa_diag *diag)
{
    static const ossa_assimp_desc defaults = {0};
    if (!desc) desc = &defaults;
    ossa_result r = ossa__import_begin(out, data, size, desc->allocator, "scene", diag);
    if (r != OSSA_OK) return r;
    r = import_scene(data, size, desc, out, false, diag);
    return ossa__import_end(out, r, diag);
}

ossa_result ossa__import_assimp_library(const void *data, size_t size, const ossa_assimp_desc *desc,
                                        ossa_import_output *out, ossa_diag *diag)
{
    static const ossa_assimp_desc defaults = {0};
    if (!desc) desc = &defaults;
    ossa_result r = ossa__import_begin(out, data, size, desc->allocator, "scene", diag);
    if (r != OSSA_OK) return r;
    r = import_scene(data, size, desc, out, true, diag);
    return ossa__import_end(out, r, diag);
}

bool ossa_assimp_reads_extension(const char *extension)
{
    if (!extension || !*extension) return false;
    char dotted[40];
    if (snprintf(dotted, sizeof dotted, ".%s", extension + (extension[0] == '.')) >= (int)sizeof dotted) return false;
    return aiIsExtensionSupported(dotted) == AI_TRUE;
}

#else /* no assimp */

ossa_result ossa__import_assimp_library(const void *data, size_t size, const ossa_assimp_desc *desc,
                                        ossa_import_output *out, ossa_diag *diag)
{
    return ossa_import_assimp(data, size, desc, out, diag);
}

bool ossa_assimp_reads_extension(const char *extension)
{
    (void)extension;
    return false;
}

ossa_result ossa_import_assimp(const void *data, size_t size, const ossa_assimp_desc *desc, ossa_import_output *out,
                               ossa_diag *diag)
{
    const ossa_result r = ossa__import_begin(out, data, size, desc ? desc->allocator : NULL, "scene", diag);
    if (r != OSSA_OK) return r;
    return ossa__fail(diag, OSSA_ERROR_UNSUPPORTED_FORMAT,
                      "this build of ossa has no assimp support (built without libassimp)");
}

#endif
