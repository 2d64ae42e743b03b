/*
 * msample: the command-line tool (issue 3). Public API only.
 *
 * Exit codes: 0 success, 1 internal/library failure while running, 2 bad usage or bad input
 * (one line on stderr naming the file and the problem).
 */
#include <stdio.h>
#include <string.h>

#include "msampler.h"
#ifdef MSAMPLE_HAVE_BENCH
#include "ms_bench.h"
#endif

static const char usage_text[] =
    "usage: msample [COMMAND] [OPTIONS]\n"
    "\n"
    "Commands:\n"
    "  demo                     simulated serving loop on the CPU backend (the default command)\n"
    "  explain SCENARIO.json    replay one step; print each row's final distribution (JSON lines)\n"
    "  draw SCENARIO.json       replay one step; print each row's drawn token (JSON lines)\n"
    "  derive-seed [--] SEED STREAM   print derive_seed(SEED, STREAM)\n"
    "  bench [OPTIONS]          benchmarks (see msample bench --help)\n"
    "  help, --help, -h         this text\n"
    "  --version                the library version\n"
    "\n"
    "Options of explain/draw: --backend cpu|cuda|cpu-ref (default cpu)\n"
    "See docs/msample.md.\n";

static int cmd_bench(int argc, char **argv)
{
#ifdef MSAMPLE_HAVE_BENCH
    return msample_bench_main(argc, argv);
#else
    (void)argc;
    (void)argv;
    fprintf(stderr, "msample bench: not built in this version (programs/ms_bench.c is missing)\n");
    return 2;
#endif
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "demo") == 0) {
        fprintf(stderr, "msample demo: not implemented yet\n");
        return 1;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage_text, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("msample %s\n", ms_version_string());
        return 0;
    }
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    fprintf(stderr, "msample: unknown command '%s' (try msample --help)\n", cmd);
    return 2;
}
