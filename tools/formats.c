/* ossa formats: the import format registry as a table. */
#include <string.h>

#include "ossa/offline/import.h"
#include "tools.h"

int tool_formats(int argc, char **argv)
{
    if (argc > 0 && (!strcmp(argv[0], "-h") || !strcmp(argv[0], "--help"))) {
        fputs("usage: ossa formats\n"
              "  list the formats ossa imports: how a file is recognised (its content, else its\n"
              "  extension), where the skeleton comes from (the file, or --skeleton), whether this build\n"
              "  has the importer, and the unit the format's lengths are in\n",
              stdout);
        return 0;
    }
    if (argc > 0) return tool_usage_error("formats", "takes no arguments (found \"%s\")", argv[0]);
    printf("%-13s %-11s %-11s %-6s %s\n", "format", "extensions", "skeleton", "built", "what (and the unit)");
    for (size_t i = 0; i < ossa_import_format_count(); ++i) {
        const ossa_import_format_info *f = ossa_import_format_at(i);
        const char *ext = !*f->extensions ? "(content)" : !strcmp(f->extensions, "*") ? "(assimp's)" : f->extensions;
        printf("%-13s %-11s %-11s %-6s %s\n%-45s unit: %s\n", f->name, ext,
               !f->importer        ? "-"
               : f->needs_skeleton ? "--skeleton"
                                   : "in file",
               f->available ? "yes" : "no", f->title, "", f->unit);
    }
    return 0;
}
