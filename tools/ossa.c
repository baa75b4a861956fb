/* ossa: the command line over the offline pipeline and the runtime jobs. */
#include <string.h>

#include "tools.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ossa [COMMAND] [ARGS]\n"
            "  ossa bake [INPUT] [-o OUT.ossa] [--drop-end-sites]\n"
            "        import INPUT (glTF 2.0 natively; BVH, FBX, Collada, ... through assimp; other formats\n"
            "        by content),\n"
            "        build the skeleton and animations, save OUT.ossa and print its report\n"
            "  ossa info FILE.ossa [--against INPUT]\n"
            "        print joints, duration, key counts, sizes, error against INPUT and sampling time\n"
            "  ossa            same as `ossa bake` on %s\n",
            OSSA_DEFAULT_INPUT);
}

int main(int argc, char **argv)
{
    if (argc < 2) return tool_bake(0, NULL);
    if (!strcmp(argv[1], "bake")) return tool_bake(argc - 2, argv + 2);
    if (!strcmp(argv[1], "info")) return tool_info(argc - 2, argv + 2);
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "ossa: unknown command \"%s\" (try ossa --help)\n", argv[1]);
    return 2;
}
