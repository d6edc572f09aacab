/*
 * help.c -- what the command says of itself: the overview (heapprof,
 * heapprof --help, heapprof help) and the library's options from its table
 * (heapprof help options; options.c holds the table).  main.c decides
 * when; each subcommand's own --help is its own file's.
 *
 * An ordinary program's code (stdio is fine here).  Calls preload.c, for
 * the library's path in the overview's example, and options.c.
 */
#include <stdio.h>
#include <string.h>

#include "help.h"
#include "options.h"
#include "preload.h"

/* One option per line: name, the values it takes, its default, what it
 * does.  The bash completion reads the first two columns. */
int hp_help_options(void)
{
	printf("The library's options: MALLOC_CONF or HEAPPROF_CONF (key:value,...),\n"
	       "heapprof run -c, and profiler.ini (key = value).  See profiler.ini(5).\n\n");
	printf("%-26s %-22s %-10s %s\n", "KEY", "VALUES", "DEFAULT", "WHAT IT DOES");
	for (size_t i = 0; i < hp_option_count; i++) {
		const struct hp_option_row *o = &hp_option_rows[i];
		const char *values = o->type;
		if (!strcmp(o->type, "BOOL"))
			values = "true|false";
		else if (!strcmp(o->type, "ENUM"))
			values = o->choices;
		else if (!strcmp(o->type, "INT"))
			values = "number";
		else if (!strcmp(o->type, "SIZE"))
			values = "bytes";
		else if (!strcmp(o->type, "STR"))
			values = "text";
		else if (!strcmp(o->type, "SIGNAL"))
			values = "signal-or-none";
		printf("%-26s %-22s %-10s %s\n", o->name, values, o->def[0] ? o->def : "\"\"", o->help);
	}
	return 0;
}

void hp_help_overview(FILE *out)
{
	char lib[4096];

	if (hp_preload_find_library(lib, sizeof(lib)) != 0)
		snprintf(lib, sizeof(lib), "/path/to/libheapprof.so");
	fprintf(out, "usage: heapprof COMMAND [ARG]...\n"
	      "\n"
	      "  run      runs a program with heapprof loaded; its dumps go to one directory\n"
	      "  check    runs a command and the processes it starts under the leak\n"
	      "           check: one report and one exit status\n"
	      "  leaks    checks a running process for leaks now; it goes on running\n"
	      "  ps       lists the processes that have heapprof loaded\n"
	      "  dump     asks a running process for a dump and prints its path\n"
	      "  toggle   pauses or resumes a process's sampling (pause, resume: one way)\n"
	      "  report   where the memory in heap dumps is: text, tree, flame graph,\n"
	      "           call graph, source lines, collapsed stacks, pprof or JSON\n"
	      "  trend    which stacks grow over a series of dumps\n"
	      "  serve    each profiled process's heap over HTTP, for go tool pprof and Parca\n"
	      "  attach   loads heapprof into a running process started without it\n"
	      "  detach   routes an attached process's allocations back to its allocator\n"
	      "  help     the help of a command: 'heapprof help report' (or --help);\n"
	      "           'heapprof help options': the library's options\n"
	      "\n"
	      "  heapprof --version    the version\n"
	      "  heapprof --help       this help\n"
	      "\n"
	      "The profiler itself is the library; 'heapprof run' preloads it, or by hand:\n"
	      "  LD_PRELOAD=%s MALLOC_CONF=prof_leak:true program\n"
	      "Sizes are in bytes or binary multiples: KiB, MiB, GiB (1024, 1024^2, ...).\n"
	      "See heapprof(1), heapprof(7) and profiler.ini(5).\n", lib);
}
