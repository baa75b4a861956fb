/* ossa: the command line over the offline pipeline and the runtime jobs. */
#include <string.h>

#include "tools.h"

static void usage(FILE *f)
{
    fprintf(f,
            "usage: ossa COMMAND [ARGS]\n"
            "  ossa bake [INPUT] [-o OUT.ossa] [--skeleton FILE] [--drop-end-sites]\n"
            "            [--tolerance METRES | --no-optimize] [--unit-scale METRES] [--threads N] [-q]\n"
            "        import INPUT (any format of `ossa formats`), build the skeleton and animations,\n"
            "        save OUT.ossa and print its report (ossa bake --help: every option)\n"
            "  ossa batch SRC_DIR -o OUT_DIR [--skeleton [PATTERN=]FILE]... [--exclude PATTERN]...\n"
            "             [bake options] [-j N] [--shard I/N] [--json FILE]\n"
            "        bake every importable file under SRC_DIR into OUT_DIR through ninja (incremental,\n"
            "        parallel; skeletons by rule or from the source's folder; archives of removed\n"
            "        sources removed) and print a summary (ossa batch --help: every option)\n"
            "  ossa info FILE.ossa [--against INPUT [--skeleton FILE]] [--unit-scale METRES] [--json]\n"
            "        print joints, duration, key counts, sizes, error against INPUT and sampling time\n"
            "        (--json: the same figures and each joint's error as one JSON document)\n"
            "  ossa plot FILE.ossa --against INPUT -o OUT.svg [--joint NAME] [--skeleton FILE]\n"
            "        draw a joint's source and baked curves, its keys and every joint's error (gnuplot)\n"
            "  ossa export FILE.ossa -o OUT.glb\n"
            "        write the skeleton and the baked clips as binary glTF 2.0 (metres)\n"
            "  ossa view FILE.ossa [MORE.ossa...] [--port N] [--against INPUT [--skeleton FILE]]\n"
            "        serve the browser viewer (WebGL: play, scrub, blend two clips, per-joint error\n"
            "        against INPUT) on 127.0.0.1 and print its URL; runs until Ctrl-C\n"
            "  ossa bench FILE.ossa [--clip N] [--threads N] [--simd sse2,avx2|all] [--json OUT.json]\n"
            "        sampling (forward, backward, random), local-to-model and blending throughput of\n"
            "        every clip: ns per call and per joint, joints per second, context bytes\n"
            "  ossa formats\n"
            "        list the import formats: detection, skeleton, whether built in, unit\n"
            "  ossa --version  print \"ossa X.Y.Z\" (-V too)\n"
            "  ossa COMMAND --help, ossa help COMMAND\n"
            "        the command's usage: every option, with its unit\n");
}

int main(int argc, char **argv)
{
    /* Without a command nothing is done (no file is written): the usage, as an error. */
    if (argc < 2) return usage(stderr), 2;
    /* `ossa help COMMAND` is `ossa COMMAND --help`. */
    char *help_argv[] = {argv[0], argc > 2 ? argv[2] : NULL, "--help", NULL};
    if (argc == 3 && !strcmp(argv[1], "help")) argv = help_argv;
    if (!strcmp(argv[1], "bake")) return tool_bake(argc - 2, argv + 2);
    if (!strcmp(argv[1], "batch")) return tool_batch(argc - 2, argv + 2);
    if (!strcmp(argv[1], "info")) return tool_info(argc - 2, argv + 2);
    if (!strcmp(argv[1], "formats")) return tool_formats(argc - 2, argv + 2);
    if (!strcmp(argv[1], "export")) return tool_export(argc - 2, argv + 2);
    if (!strcmp(argv[1], "plot")) return tool_plot(argc - 2, argv + 2);
    if (!strcmp(argv[1], "view")) return tool_view(argc - 2, argv + 2);
    if (!strcmp(argv[1], "bench")) return tool_bench(argc - 2, argv + 2);
    if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
        printf("ossa %s\n", ossa_version());
        return 0;
    }
    if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "ossa: unknown command \"%s\" (try ossa --help)\n", argv[1]);
    return 2;
}
