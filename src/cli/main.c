/*
 * main.c -- the heapprof command: dispatches to a subcommand; `heapprof
 * help [CMD]` and `heapprof help options` (the library's options); the one
 * shape of every usage error.
 *
 * An ordinary program (stdio and malloc are fine here).  Exit status: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../version.h"
#include "cmds.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

/* `heapprof help [CMD]`: the overview, or CMD's --help. */
static int cmd_help(int argc, char **argv);

static const struct subcommand subcommands[] = {
	{ "run", hp_cmd_run },
	{ "check", hp_cmd_check },
	{ "ps", hp_cmd_ps },
	{ "dump", hp_cmd_dump },
	{ "toggle", hp_cmd_toggle },
	{ "pause", hp_cmd_toggle },
	{ "resume", hp_cmd_toggle },
	{ "report", hp_cmd_report },
	{ "trend", hp_cmd_trend },
	{ "serve", hp_cmd_serve },
	{ "help", cmd_help },
};

/* The library's options, from its table (build/gen/optlist.h, made from
 * src/lib/conf/options.def). */
struct option_row {
	const char *name, *type, *def, *choices, *help;
};

static const struct option_row option_rows[] = {
#include "optlist.h"
};

/* One option per line: name, the values it takes, its default, what it
 * does.  The bash completion reads the first two columns. */
static int help_options(void)
{
	printf("The library's options: MALLOC_CONF or HEAPPROF_CONF (key:value,...),\n"
	       "heapprof run -c, and profiler.ini (key = value).  See profiler.ini(5).\n\n");
	printf("%-26s %-22s %-10s %s\n", "KEY", "VALUES", "DEFAULT", "WHAT IT DOES");
	for (size_t i = 0; i < sizeof(option_rows) / sizeof(option_rows[0]); i++) {
		const struct option_row *o = &option_rows[i];
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

static void usage(FILE *out)
{
	char lib[4096];

	if (hp_cmd_run_find_library(lib, sizeof(lib)) != 0)
		snprintf(lib, sizeof(lib), "/path/to/libheapprof.so");
	fprintf(out, "usage: heapprof COMMAND [ARG]...\n"
	      "\n"
	      "  run      runs a program with heapprof loaded; its dumps go to one directory\n"
	      "  check    runs a command and the processes it starts under the leak\n"
	      "           check: one report and one exit status\n"
	      "  ps       lists the processes that have heapprof loaded\n"
	      "  dump     asks a running process for a dump and prints its path\n"
	      "  toggle   pauses or resumes a process's sampling (pause, resume: one way)\n"
	      "  report   where the memory in heap dumps is: text, tree, flame graph,\n"
	      "           call graph, source lines, collapsed stacks, pprof or JSON\n"
	      "  trend    which stacks grow over a series of dumps\n"
	      "  serve    each profiled process's heap over HTTP, for go tool pprof and Parca\n"
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

int hp_cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "heapprof%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'heapprof%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(subcommands[i].name, name))
			return &subcommands[i];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (argc > 2)
		return hp_cmd_usage_error("help", "one command at a time, not '%s'", argv[2]);
	if (!strcmp(argv[1], "options"))
		return help_options();
	const struct subcommand *s = find(argv[1]);
	if (!s)
		return hp_cmd_usage_error(NULL, "unknown command '%s'", argv[1]);
	if (s->fn == cmd_help) {
		usage(stdout);
		return 0;
	}
	char *args[] = { argv[1], "--help", NULL };
	return s->fn(2, args);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return hp_cmd_usage_error(NULL, "no command: run, check, ps, dump, toggle, pause, resume, "
					  "report, trend, serve or help");
	const struct subcommand *s = find(argv[1]);
	if (s)
		return s->fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			return hp_cmd_usage_error(NULL, "--version takes no argument");
		printf("heapprof %s\n", HEAPPROF_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (argv[1][0] == '-')
		return hp_cmd_usage_error(NULL, "unknown option '%s'", argv[1]);
	return hp_cmd_usage_error(NULL, "unknown command '%s'", argv[1]);
}
