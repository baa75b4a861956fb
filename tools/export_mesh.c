/* ossa export --mesh SOURCE: the meshes of a glTF 2.0 source copied into the exported GLB.
 *
 * The archive holds no meshes; the file it was baked from often does. Each node of SOURCE
 * with a mesh becomes a node at the root of the exported scene: a skinned one without a
 * transform (glTF ignores a skinned mesh node's transform, 3.7.3), any other one at its world
 * transform in SOURCE. Its mesh is copied with the accessors its primitives use (attributes,
 * indices, morph targets; sparse accessors made dense; every accessor tightly packed in one
 * view for vertex attributes, one for indices, or a view of its own with a byteStride when
 * its elements are not a multiple of 4 bytes, as 3.6.2.4 asks of vertex attributes), its
 * materials without their extensions, and their textures, samplers and images (embedded in the
 * binary chunk, whether SOURCE embedded them, named a file or gave a data URI). Each skin is
 * copied with its joints mapped by name to the exported skeleton's nodes (nodes without a name
 * as ossa's glTF importer names them, "nodes[<i>]"), and its inverse bind matrices. Draco or
 * meshopt compressed meshes are refused (their views are not copied); other formats than glTF
 * are refused: convert them to glTF first.
 * The source is read, and every index, offset, length and count checked against what it points
 * into, by export_source.c.
 * Source: the glTF 2.0 specification (2.8 URIs, 3.5 nodes, 3.6 buffers and accessors, 3.7
 * meshes and skins, 3.8-3.9 materials and textures, 4 GLB). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tools.h"
#include "export_source.h"

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON

/* Copies source accessor `index` once (later uses get the same copy): `attribute` puts it in the
 * vertex attribute view (or a strided view of its own), else in the index view, or view 0 for
 * inverse bind matrices (`matrices`). */
static int copy_accessor(tool_source *s, size_t index, bool attribute, bool matrices)
{
    if (s->accessor_map[index] >= 0) return s->accessor_map[index];
    int component;
    size_t width, count, element;
    uint8_t *data = tool_source_accessor(s, index, &component, &width, &count, &element);
    if (!data) return -1;
    const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)index);
    size_t view = 0, bytes = count * element;
    if (!matrices && attribute && element % 4) {
        /* Vertex attribute elements start 4-byte aligned (3.6.2.4): a strided view of its own. */
        const size_t stride = (element + 3) & ~(size_t)3;
        uint8_t *padded = count <= SIZE_MAX / stride ? calloc(count, stride) : NULL;
        const int v = padded ? tool_glb_add_view(s->g, 34962, stride) : -1;
        if (v < 0) return free(data), free(padded), tool_source_fail(s, "out of memory"), -1;
        for (size_t i = 0; i < count; ++i) memcpy(padded + i * stride, data + i * element, element);
        free(data);
        /* The whole last stride too: assimp 5.2 refuses a view shorter than count x stride. */
        data = padded, view = (size_t)v, bytes = count * stride;
    } else if (!matrices) {
        int *shared = attribute ? &s->attribute_view : &s->index_view;
        if (*shared < 0) *shared = tool_glb_add_view(s->g, attribute ? 34962 : 34963, 0);
        if (*shared < 0) return free(data), tool_source_fail(s, "out of memory"), -1;
        view = (size_t)*shared;
    }
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type"), *min = cJSON_GetObjectItemCaseSensitive(a, "min"),
                *max = cJSON_GetObjectItemCaseSensitive(a, "max");
    const int out = tool_glb_add_accessor(s->g, view, data, bytes, component,
                                          cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "normalized")), count,
                                          type->valuestring, cJSON_IsArray(min) ? cJSON_Duplicate(min, true) : NULL,
                                          cJSON_IsArray(max) ? cJSON_Duplicate(max, true) : NULL);
    free(data);
    if (out < 0) return tool_source_fail(s, "out of memory"), -1;
    return s->accessor_map[index] = out;
}

/* Replaces every member of `map` (an object of accessor indices: attributes, a morph target)
 * with its copy. */
static bool remap_accessors(tool_source *s, cJSON *map, const char *what)
{
    cJSON *e;
    cJSON_ArrayForEach(e, map)
    {
        size_t index;
        if (!tool_source_index_value(e, s->accessor_count, &index))
            return tool_source_fail(s, "%s.%s: expected an accessor index below %zu", what, e->string ? e->string : "?",
                                    s->accessor_count);
        const int copy = copy_accessor(s, index, true, false);
        if (copy < 0) return false;
        cJSON_SetNumberValue(e, copy);
    }
    return true;
}

/* ---- materials, textures, samplers, images ---- */

/* The array `key` of the exported document, made when first needed. */
static cJSON *out_array(tool_source *s, const char *key)
{
    cJSON *a = cJSON_GetObjectItemCaseSensitive(s->out_root, key);
    if (!a) cJSON_AddItemToObject(s->out_root, key, a = cJSON_CreateArray());
    return a;
}

/* Appends `item` to the exported array `key`; its index. */
static int append(tool_source *s, const char *key, cJSON *item)
{
    cJSON *a = out_array(s, key);
    cJSON_AddItemToArray(a, item);
    return cJSON_GetArraySize(a) - 1;
}

/* The MIME type of image bytes from their signature (3.9.3 allows PNG and JPEG), or NULL. */
static const char *image_type(const uint8_t *data, size_t size)
{
    if (size >= 8 && !memcmp(data, "\x89PNG\r\n\x1a\n", 8)) return "image/png";
    if (size >= 3 && !memcmp(data, "\xFF\xD8\xFF", 3)) return "image/jpeg";
    return NULL;
}

static int copy_image(tool_source *s, size_t index)
{
    if (s->image_map[index] >= 0) return s->image_map[index];
    char what[48];
    snprintf(what, sizeof what, "images[%zu]", index);
    const cJSON *image = cJSON_GetArrayItem(s->images, (int)index);
    const cJSON *uri = cJSON_GetObjectItemCaseSensitive(image, "uri");
    size_t view, size = 0, stride;
    const uint8_t *data = NULL;
    uint8_t *owned = NULL;
    if (!tool_source_index(s, image, "bufferView", s->view_count, what, &view)) return -1;
    if (view != SIZE_MAX) {
        if (!tool_source_view(s, view, what, &data, &size, &stride)) return -1;
    } else if (cJSON_IsString(uri)) {
        if (!(data = owned = tool_source_uri(s, uri->valuestring, what, &size))) return -1;
    } else {
        return tool_source_fail(s, "%s: expected a uri or a bufferView", what), -1;
    }
    const char *type = image_type(data, size);
    const int v = type ? tool_glb_add_view(s->g, 0, 0) : -1;
    size_t offset;
    const bool ok = v >= 0 && tool_glb_append(s->g, (size_t)v, data, size, &offset);
    free(owned);
    if (!type) return tool_source_fail(s, "%s: neither PNG nor JPEG, the image types glTF 2.0 allows", what), -1;
    if (!ok) return tool_source_fail(s, "out of memory"), -1;
    cJSON *out = cJSON_CreateObject();
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(image, "name");
    if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
    cJSON_AddNumberToObject(out, "bufferView", v);
    cJSON_AddStringToObject(out, "mimeType", type);
    return s->image_map[index] = append(s, "images", out);
}

static int copy_texture(tool_source *s, size_t index)
{
    if (s->texture_map[index] >= 0) return s->texture_map[index];
    char what[48];
    snprintf(what, sizeof what, "textures[%zu]", index);
    const cJSON *texture = cJSON_GetArrayItem(s->textures, (int)index);
    size_t sampler, image;
    if (!cJSON_IsObject(texture)) return tool_source_fail(s, "%s: expected an object", what), -1;
    if (!tool_source_index(s, texture, "sampler", s->sampler_count, what, &sampler) ||
        !tool_source_index(s, texture, "source", s->image_count, what, &image))
        return -1;
    cJSON *out = cJSON_CreateObject();
    if (sampler != SIZE_MAX) {
        if (s->sampler_map[sampler] < 0) {
            cJSON *copy = cJSON_Duplicate(cJSON_GetArrayItem(s->samplers, (int)sampler), true);
            cJSON_DeleteItemFromObjectCaseSensitive(copy, "extensions");
            s->sampler_map[sampler] = append(s, "samplers", copy);
        }
        cJSON_AddNumberToObject(out, "sampler", s->sampler_map[sampler]);
    }
    const int copied = image != SIZE_MAX ? copy_image(s, image) : -2;
    if (copied == -1) return cJSON_Delete(out), -1;
    if (copied >= 0) cJSON_AddNumberToObject(out, "source", copied);
    return s->texture_map[index] = append(s, "textures", out);
}

/* Points the texture info `key` of `object` at the texture's copy (its extensions dropped). */
static bool remap_texture_info(tool_source *s, cJSON *object, const char *key, const char *what)
{
    cJSON *info = cJSON_GetObjectItemCaseSensitive(object, key);
    if (!info) return true;
    cJSON *index = cJSON_GetObjectItemCaseSensitive(info, "index");
    size_t texture;
    if (!tool_source_index_value(index, s->texture_count, &texture))
        return tool_source_fail(s, "%s.%s.index: expected a texture index below %zu", what, key, s->texture_count);
    const int copy = copy_texture(s, texture);
    if (copy < 0) return false;
    cJSON_SetNumberValue(index, copy);
    cJSON_DeleteItemFromObjectCaseSensitive(info, "extensions");
    return true;
}

static int copy_material(tool_source *s, size_t index)
{
    if (s->material_map[index] >= 0) return s->material_map[index];
    char what[48];
    snprintf(what, sizeof what, "materials[%zu]", index);
    cJSON *m = cJSON_Duplicate(cJSON_GetArrayItem(s->materials, (int)index), true);
    if (!cJSON_IsObject(m)) return cJSON_Delete(m), tool_source_fail(s, "%s: expected an object", what), -1;
    /* Material extensions (clearcoat, transmission, ...) are not copied: they name textures of
     * their own and need extensionsUsed. */
    cJSON_DeleteItemFromObjectCaseSensitive(m, "extensions");
    cJSON *pbr = cJSON_GetObjectItemCaseSensitive(m, "pbrMetallicRoughness");
    if (!remap_texture_info(s, pbr, "baseColorTexture", what) ||
        !remap_texture_info(s, pbr, "metallicRoughnessTexture", what) ||
        !remap_texture_info(s, m, "normalTexture", what) || !remap_texture_info(s, m, "occlusionTexture", what) ||
        !remap_texture_info(s, m, "emissiveTexture", what))
        return cJSON_Delete(m), -1;
    return s->material_map[index] = append(s, "materials", m);
}

/* ---- meshes, skins, nodes ---- */

static int copy_mesh(tool_source *s, size_t index)
{
    char what[64];
    snprintf(what, sizeof what, "meshes[%zu]", index);
    cJSON *mesh = cJSON_Duplicate(cJSON_GetArrayItem(s->meshes, (int)index), true);
    cJSON *primitives = cJSON_GetObjectItemCaseSensitive(mesh, "primitives"), *p;
    if (!cJSON_IsArray(primitives) || !cJSON_GetArraySize(primitives))
        return cJSON_Delete(mesh), tool_source_fail(s, "%s.primitives: expected a non-empty array", what), -1;
    cJSON_DeleteItemFromObjectCaseSensitive(mesh, "extensions");
    size_t k = 0;
    cJSON_ArrayForEach(p, primitives)
    {
        snprintf(what, sizeof what, "meshes[%zu].primitives[%zu]", index, k++);
        const cJSON *ext = cJSON_GetObjectItemCaseSensitive(p, "extensions");
        if (cJSON_GetObjectItemCaseSensitive(ext, "KHR_draco_mesh_compression"))
            return cJSON_Delete(mesh),
                   tool_source_fail(s, "%s: Draco compressed, which ossa export does not copy", what), -1;
        cJSON_DeleteItemFromObjectCaseSensitive(p, "extensions");
        cJSON *attributes = cJSON_GetObjectItemCaseSensitive(p, "attributes"), *target;
        if (!cJSON_IsObject(attributes) || !remap_accessors(s, attributes, what)) {
            if (!cJSON_IsObject(attributes)) tool_source_fail(s, "%s.attributes: expected an object", what);
            return cJSON_Delete(mesh), -1;
        }
        cJSON *indices = cJSON_GetObjectItemCaseSensitive(p, "indices");
        size_t i;
        if (indices) {
            const int copy =
                tool_source_index_value(indices, s->accessor_count, &i) ? copy_accessor(s, i, false, false) : -2;
            if (copy == -2)
                tool_source_fail(s, "%s.indices: expected an accessor index below %zu", what, s->accessor_count);
            if (copy < 0) return cJSON_Delete(mesh), -1;
            cJSON_SetNumberValue(indices, copy);
        }
        cJSON_ArrayForEach(target, cJSON_GetObjectItemCaseSensitive(p, "targets"))
        {
            if (!remap_accessors(s, target, what)) return cJSON_Delete(mesh), -1;
        }
        cJSON *material = cJSON_GetObjectItemCaseSensitive(p, "material");
        if (material) {
            const int copy = tool_source_index_value(material, s->material_count, &i) ? copy_material(s, i) : -2;
            if (copy == -2)
                tool_source_fail(s, "%s.material: expected a material index below %zu", what, s->material_count);
            if (copy < 0) return cJSON_Delete(mesh), -1;
            cJSON_SetNumberValue(material, copy);
        }
    }
    return append(s, "meshes", mesh);
}

/* Node `index`'s name as ossa's glTF importer gives it to a joint: its name, or "nodes[<i>]". */
static const char *node_name(const tool_source *s, size_t index, char *fallback, size_t size)
{
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(s->nodes, (int)index), "name");
    if (cJSON_IsString(name)) return name->valuestring;
    snprintf(fallback, size, "nodes[%zu]", index);
    return fallback;
}

/* Skin `index` with its joints bound by name to the skeleton's nodes; `covered` marks them. */
static int copy_skin(tool_source *s, size_t index, const ossa_skeleton *skel, bool *covered)
{
    char what[48], fallback[48];
    snprintf(what, sizeof what, "skins[%zu]", index);
    const cJSON *skin = cJSON_GetArrayItem(s->skins, (int)index);
    const cJSON *joints = cJSON_GetObjectItemCaseSensitive(skin, "joints"), *e;
    if (!cJSON_IsArray(joints) || !cJSON_GetArraySize(joints))
        return tool_source_fail(s, "%s.joints: expected a non-empty array of node indices", what), -1;
    cJSON *out = cJSON_CreateObject(), *mapped = cJSON_CreateArray();
    cJSON_AddItemToObject(out, "joints", mapped);
    size_t k = 0;
    cJSON_ArrayForEach(e, joints)
    {
        size_t node;
        if (!tool_source_index_value(e, s->node_count, &node))
            return cJSON_Delete(out),
                   tool_source_fail(s, "%s.joints[%zu]: expected a node index below %zu", what, k, s->node_count), -1;
        const char *name = node_name(s, node, fallback, sizeof fallback);
        const int j = ossa_skeleton_find_joint(skel, name);
        if (j < 0)
            return cJSON_Delete(out),
                   tool_source_fail(s,
                                    "%s.joints[%zu]: joint \"%s\" is not in the archive's skeleton (nothing written)",
                                    what, k, name),
                   -1;
        covered[j] = true;
        cJSON_AddItemToArray(mapped, cJSON_CreateNumber(j));
        ++k;
    }
    size_t matrices;
    if (!tool_source_index(s, skin, "inverseBindMatrices", s->accessor_count, what, &matrices))
        return cJSON_Delete(out), -1;
    if (matrices != SIZE_MAX) {
        const cJSON *a = cJSON_GetArrayItem(s->accessors, (int)matrices);
        const cJSON *type = cJSON_GetObjectItemCaseSensitive(a, "type"),
                    *count = cJSON_GetObjectItemCaseSensitive(a, "count");
        if (!cJSON_IsString(type) || strcmp(type->valuestring, "MAT4") ||
            !cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(a, "componentType")) ||
            cJSON_GetObjectItemCaseSensitive(a, "componentType")->valueint != 5126 || !cJSON_IsNumber(count) ||
            count->valuedouble < (double)k)
            return cJSON_Delete(out),
                   tool_source_fail(
                       s, "%s.inverseBindMatrices: expected a FLOAT MAT4 accessor of at least %zu matrices", what, k),
                   -1;
        const int copy = copy_accessor(s, matrices, false, true);
        if (copy < 0) return cJSON_Delete(out), -1;
        cJSON_AddNumberToObject(out, "inverseBindMatrices", copy);
    }
    size_t root;
    if (!tool_source_index(s, skin, "skeleton", s->node_count, what, &root)) return cJSON_Delete(out), -1;
    const int root_joint =
        root == SIZE_MAX ? -1 : ossa_skeleton_find_joint(skel, node_name(s, root, fallback, sizeof fallback));
    if (root_joint >= 0) cJSON_AddNumberToObject(out, "skeleton", root_joint);
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(skin, "name");
    if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
    return append(s, "skins", out);
}

/* Node `index`'s local transform, column-major (its matrix, or T x R x S). */
static void local_matrix(const cJSON *node, double m[16])
{
    const cJSON *matrix = cJSON_GetObjectItemCaseSensitive(node, "matrix");
    for (int i = 0; i < 16; ++i) m[i] = i % 5 == 0;
    if (cJSON_IsArray(matrix) && cJSON_GetArraySize(matrix) == 16) {
        for (int i = 0; i < 16; ++i) {
            const cJSON *v = cJSON_GetArrayItem(matrix, i);
            m[i] = cJSON_IsNumber(v) ? v->valuedouble : 0.;
        }
        return;
    }
    double t[3] = {0, 0, 0}, q[4] = {0, 0, 0, 1}, sc[3] = {1, 1, 1};
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(node, "translation"),
                *ro = cJSON_GetObjectItemCaseSensitive(node, "rotation"),
                *sa = cJSON_GetObjectItemCaseSensitive(node, "scale");
    for (int i = 0; i < 4; ++i) {
        const cJSON *a = cJSON_GetArrayItem(tr, i), *b = cJSON_GetArrayItem(ro, i), *c = cJSON_GetArrayItem(sa, i);
        if (i < 3 && cJSON_IsNumber(a)) t[i] = a->valuedouble;
        if (cJSON_IsNumber(b)) q[i] = b->valuedouble;
        if (i < 3 && cJSON_IsNumber(c)) sc[i] = c->valuedouble;
    }
    const double x = q[0], y = q[1], z = q[2], w = q[3];
    const double r[9] = {1 - 2 * (y * y + z * z), 2 * (x * y + z * w),     2 * (x * z - y * w),
                         2 * (x * y - z * w),     1 - 2 * (x * x + z * z), 2 * (y * z + x * w),
                         2 * (x * z + y * w),     2 * (y * z - x * w),     1 - 2 * (x * x + y * y)};
    for (int c = 0; c < 3; ++c)
        for (int k = 0; k < 3; ++k) m[c * 4 + k] = r[c * 3 + k] * sc[c];
    for (int k = 0; k < 3; ++k) m[12 + k] = t[k];
}

/* The world transform of source node `index` (parents[] from the children lists). */
static void world_matrix(const tool_source *s, const size_t *parents, size_t index, double m[16])
{
    local_matrix(cJSON_GetArrayItem(s->nodes, (int)index), m);
    for (size_t p = parents[index], depth = 0; p != SIZE_MAX && depth < s->node_count; p = parents[p], ++depth) {
        double parent[16], product[16];
        local_matrix(cJSON_GetArrayItem(s->nodes, (int)p), parent);
        for (int c = 0; c < 4; ++c)
            for (int r = 0; r < 4; ++r) {
                double sum = 0.;
                for (int k = 0; k < 4; ++k) sum += parent[k * 4 + r] * m[c * 4 + k];
                product[c * 4 + r] = sum;
            }
        memcpy(m, product, sizeof product);
    }
}

/* Every node with a mesh: a node at the scene's root with the mesh's copy and its skin's. */
static bool copy_nodes(tool_source *s, const ossa_skeleton *skel, cJSON *nodes, cJSON *scene_nodes, bool *covered)
{
    size_t *parents = malloc((s->node_count + 1) * sizeof *parents);
    int *mesh_map = malloc((s->mesh_count + 1) * sizeof *mesh_map),
        *skin_map = malloc((s->skin_count + 1) * sizeof *skin_map);
    bool ok = parents && mesh_map && skin_map;
    if (!ok) tool_source_fail(s, "out of memory");
    for (size_t i = 0; ok && i < s->node_count; ++i) parents[i] = SIZE_MAX;
    for (size_t i = 0; ok && i < s->mesh_count; ++i) mesh_map[i] = -1;
    for (size_t i = 0; ok && i < s->skin_count; ++i) skin_map[i] = -1;
    size_t i = 0, copied = 0;
    for (const cJSON *n = s->nodes ? s->nodes->child : NULL; ok && n; n = n->next, ++i) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(n, "children"))
        {
            size_t child;
            ok = ok && tool_source_index_value(c, s->node_count, &child) && child != i && parents[child] == SIZE_MAX;
            if (ok) parents[child] = i;
        }
        if (!ok) tool_source_fail(s, "nodes[%zu].children: expected indices of other nodes without a parent", i);
    }
    /* A cycle: some node is its own ancestor within node_count steps. */
    for (i = 0; ok && i < s->node_count; ++i) {
        size_t p = parents[i], depth = 0;
        while (p != SIZE_MAX && depth++ <= s->node_count) p = parents[p];
        if (p != SIZE_MAX) ok = tool_source_fail(s, "nodes[%zu]: its parents form a cycle", i);
    }
    i = 0;
    for (const cJSON *n = s->nodes ? s->nodes->child : NULL; ok && n; n = n->next, ++i) {
        char what[48];
        snprintf(what, sizeof what, "nodes[%zu]", i);
        size_t mesh, skin;
        ok = tool_source_index(s, n, "mesh", s->mesh_count, what, &mesh) &&
             tool_source_index(s, n, "skin", s->skin_count, what, &skin);
        if (!ok || mesh == SIZE_MAX) continue;
        if (mesh_map[mesh] < 0) mesh_map[mesh] = copy_mesh(s, mesh);
        ok = mesh_map[mesh] >= 0;
        if (ok && skin != SIZE_MAX && skin_map[skin] < 0) skin_map[skin] = copy_skin(s, skin, skel, covered);
        ok = ok && (skin == SIZE_MAX || skin_map[skin] >= 0);
        if (!ok) break;
        cJSON *out = cJSON_CreateObject();
        const cJSON *name = cJSON_GetObjectItemCaseSensitive(n, "name"),
                    *weights = cJSON_GetObjectItemCaseSensitive(n, "weights");
        if (cJSON_IsString(name)) cJSON_AddStringToObject(out, "name", name->valuestring);
        cJSON_AddNumberToObject(out, "mesh", mesh_map[mesh]);
        if (skin != SIZE_MAX) {
            cJSON_AddNumberToObject(out, "skin", skin_map[skin]);
        } else {
            double m[16];
            world_matrix(s, parents, i, m);
            bool identity = true;
            float f[16];
            for (int k = 0; k < 16; ++k) f[k] = (float)m[k], identity = identity && f[k] == (float)(k % 5 == 0);
            cJSON *matrix = cJSON_CreateArray();
            for (int k = 0; k < 16; ++k) {
                char text[32];
                tool_format_float(text, sizeof text, f[k]);
                cJSON_AddItemToArray(matrix, cJSON_CreateRaw(text));
            }
            if (identity)
                cJSON_Delete(matrix);
            else
                cJSON_AddItemToObject(out, "matrix", matrix);
        }
        if (cJSON_IsArray(weights)) cJSON_AddItemToObject(out, "weights", cJSON_Duplicate(weights, true));
        cJSON_AddItemToArray(scene_nodes, cJSON_CreateNumber((double)cJSON_GetArraySize(nodes)));
        cJSON_AddItemToArray(nodes, out);
        ++copied;
    }
    if (ok && !copied) ok = tool_source_fail(s, "no node with a mesh to copy");
    free(parents), free(mesh_map), free(skin_map);
    return ok;
}

bool tool_export_meshes(const char *path, const ossa_skeleton *skel, cJSON *root, cJSON *nodes, cJSON *scene_nodes,
                        tool_glb *g, bool *covered)
{
    tool_source s = {.g = g, .out_root = root, .attribute_view = -1, .index_view = -1};
    bool ok = tool_source_open(&s, path);
    const size_t counts[5] = {s.accessor_count, s.material_count, s.texture_count, s.sampler_count, s.image_count};
    int **maps[5] = {&s.accessor_map, &s.material_map, &s.texture_map, &s.sampler_map, &s.image_map};
    for (int m = 0; ok && m < 5; ++m) {
        *maps[m] = malloc((counts[m] + 1) * sizeof **maps[m]);
        if (!*maps[m]) ok = tool_source_fail(&s, "out of memory");
        for (size_t i = 0; ok && i < counts[m]; ++i) (*maps[m])[i] = -1;
    }
    ok = ok && copy_nodes(&s, skel, nodes, scene_nodes, covered);
    for (int m = 0; m < 5; ++m) free(*maps[m]);
    tool_source_close(&s);
    return ok;
}

#endif
