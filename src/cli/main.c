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
	char lib[4096];

	if (hp_cmd_run_find_library(lib, sizeof(lib)) != 0)
		snprintf(lib, sizeof(lib), "/path/to/libheapprof.so");
	fprintf(out, "usage: heapprof run [-c key:value,...]... [--config FILE] [--] COMMAND [ARG]...\n"
	      "       heapprof check [options] [--] COMMAND [ARG]...\n"
	      "       heapprof ps [-q]\n"
	      "       heapprof dump PID [--timeout SECONDS]\n"
	      "       heapprof toggle|pause|resume PID [--timeout SECONDS]\n"
	      "       heapprof report [options] DUMP...\n"
	      "       heapprof trend [options] DUMP...\n"
	      "       heapprof --version\n"
	      "       heapprof --help\n"
	      "\n"
	      "  run      runs a program with heapprof loaded ('heapprof run --help')\n"
	      "  check    runs a command and the processes it starts under the leak\n"
	      "           check, one report and exit status ('heapprof check --help')\n"
	      "  ps       lists the processes that have heapprof loaded\n"
	      "  dump     asks a running process for a dump and prints its path\n"
	      "  toggle   pauses or resumes a process's sampling (pause, resume: one way)\n"
	      "  report   where the memory in heap dumps is: text, tree, flame graph,\n"
	      "           collapsed stacks, pprof or JSON ('heapprof report --help')\n"
	      "  trend    which stacks grow over a series of dumps ('heapprof trend --help')\n"
	      "\n"
	      "The profiler itself is the library; 'heapprof run' preloads it, or by hand:\n"
	      "  LD_PRELOAD=%s MALLOC_CONF=prof_leak:true program\n"
	      "See heapprof(1), heapprof(7) and profiler.ini(5).\n", lib);
}

int main(int argc, char **argv)
{
	if (argc >= 2) {
		const char *c = argv[1];
		if (!strcmp(c, "run"))
			return hp_cmd_run(argc - 1, argv + 1);
		if (!strcmp(c, "check"))
			return hp_cmd_check(argc - 1, argv + 1);
		if (!strcmp(c, "ps"))
			return hp_cmd_ps(argc - 1, argv + 1);
		if (!strcmp(c, "dump"))
			return hp_cmd_dump(argc - 1, argv + 1);
		if (!strcmp(c, "toggle") || !strcmp(c, "pause") || !strcmp(c, "resume"))
			return hp_cmd_toggle(argc - 1, argv + 1);
		if (!strcmp(c, "report"))
			return hp_cmd_report(argc - 1, argv + 1);
		if (!strcmp(c, "trend"))
			return hp_cmd_trend(argc - 1, argv + 1);
		if (!strcmp(c, "serve")) return hp_cmd_serve(argc - 1, argv + 1);
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
