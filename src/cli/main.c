/*
 * main.c -- the heapprof command: dispatches to a subcommand.
 *
 * An ordinary program (stdio and malloc are fine here).  Exit status: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "../report/report.h"
#include "../version.h"

static void usage(FILE *out)
{
	fputs("usage: heapprof report [options] DUMP...\n"
	      "       heapprof trend [options] DUMP...\n"
	      "       heapprof --version\n"
	      "       heapprof --help\n"
	      "\n"
	      "  report   where the memory in heap dumps is: text, tree, flame graph,\n"
	      "           collapsed stacks, pprof or JSON ('heapprof report --help')\n"
	      "  trend    which stacks grow over a series of dumps ('heapprof trend --help')\n"
	      "\n"
	      "The profiler itself is the library: run a program with\n"
	      "  LD_PRELOAD=/path/to/libheapprof.so MALLOC_CONF=prof_leak:true program\n"
	      "See heapprof(1), heapprof(7) and profiler.ini(5).\n", out);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return hp_cli_report(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "trend"))
		return hp_cli_trend(argc - 1, argv + 1);
	if (argc == 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		printf("heapprof %s\n", HEAPPROF_VERSION);
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2)
		fprintf(stderr, "heapprof: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
