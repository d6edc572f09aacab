/*
 * main.c -- the heapprof command: dispatches to a subcommand.
 *
 * An ordinary program (stdio and malloc are fine here).  Exit status: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "../version.h"
#include "cmds.h"

static void usage(FILE *out)
{
	fputs("usage: heapprof --version\n"
	      "       heapprof --help\n"
	      "\n"
	      "The profiler itself is the library: run a program with\n"
	      "  LD_PRELOAD=/path/to/libheapprof.so MALLOC_CONF=prof_leak:true program\n"
	      "See heapprof(7) and profiler.ini(5).\n", out);
}

int main(int argc, char **argv)
{
	if (argc >= 2) {
		const char *c = argv[1];
		if (!strcmp(c, "run"))
			return cmd_run(argc - 1, argv + 1);
		if (!strcmp(c, "ps"))
			return cmd_ps(argc - 1, argv + 1);
		if (!strcmp(c, "dump"))
			return cmd_dump(argc - 1, argv + 1);
		if (!strcmp(c, "toggle") || !strcmp(c, "pause") || !strcmp(c, "resume"))
			return cmd_toggle(argc - 1, argv + 1);
	}
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
