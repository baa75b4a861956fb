/* Private: what a cJSON value is, in words for error messages, shared by the JSON importers
 * (glTF, AnimJ). */
#ifndef OSSA_OFFLINE_IMPORT_JSON_KIND_H
#define OSSA_OFFLINE_IMPORT_JSON_KIND_H

#include <cjson/cJSON.h>

/* "an object", "an array", "a string", "a number", "a boolean", "null", or "nothing" for NULL
 * (a missing member). */
static inline const char *ossa__json_kind(const cJSON *v)
{
    if (!v) return "nothing";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsBool(v)) return "a boolean";
    return "null";
}

#endif /* OSSA_OFFLINE_IMPORT_JSON_KIND_H */
