/* Text that goes into JSON (ossa info --json, ossa export, ossa batch --json, ossa view's
 * errors.json). Names come from archives, which may be hand-made with any bytes, and file
 * names from the file system: both are made valid UTF-8 here (U+FFFD for each ill-formed
 * sequence, ossa_utf8_sanitize) so that no writer prints a document a strict parser refuses. */
#include <stdlib.h>
#include <string.h>

#include "tools.h"

void tool_json_write_string(FILE *f, const char *text)
{
    char small[256];
    const size_t size = ossa_utf8_sanitize(text, NULL, 0) + 1;
    char *clean = size <= sizeof small ? small : malloc(size);
    if (clean) ossa_utf8_sanitize(text, clean, size);
    fputc('"', f);
    /* RFC 8259, 7: the quote, the backslash and U+0000..U+001F must be escaped. */
    for (const unsigned char *c = (const unsigned char *)(clean ? clean : ""); *c; ++c) {
        if (*c == '"' || *c == '\\')
            fprintf(f, "\\%c", *c);
        else if (*c < 0x20)
            fprintf(f, "\\u%04x", *c);
        else
            fputc(*c, f);
    }
    fputc('"', f);
    if (clean != small) free(clean);
}

#if defined(OSSA_HAVE_CJSON) && OSSA_HAVE_CJSON
#include <cjson/cJSON.h>

/* cJSON escapes the quote, the backslash and the control characters itself (print_string_ptr)
 * but copies other bytes as they are. */
cJSON *tool_json_string(const char *text)
{
    if (!text) text = "";
    if (ossa_utf8_valid(text)) return cJSON_CreateString(text);
    const size_t size = ossa_utf8_sanitize(text, NULL, 0) + 1;
    char *clean = cJSON_malloc(size); /* through the hooks, which count failures */
    if (!clean) return NULL;
    ossa_utf8_sanitize(text, clean, size);
    cJSON *item = cJSON_CreateString(clean);
    cJSON_free(clean);
    return item;
}

cJSON *tool_json_add_string(cJSON *object, const char *name, const char *text)
{
    cJSON *item = tool_json_string(text);
    if (item && !cJSON_AddItemToObject(object, name, item)) {
        cJSON_Delete(item);
        return NULL;
    }
    return item;
}
#endif
