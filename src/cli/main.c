/*
 * main.c -- the heapprof command: dispatches to a subcommand, to `heapprof
 * help [CMD]` (CMD's own --help) and to the command's own options
 * (--version, --help).  What the overview and `heapprof help options` say
 * is help.c's; the one shape of every usage error is usage.c's.
 *
 * An ordinary program (stdio and malloc are fine here).  Exit status: 0 on
 * success, 1 on failure, 2 on a usage error.
 */
#include <stdio.h>
#include <string.h>

#include "version.h"
#include "cmds.h"
#include "help.h"
#include "usage.h"

struct subcommand {
	const char *name;
	int (*fn)(int argc, char **argv);
};

static int help(int argc, char **argv);

static const struct subcommand subcommands[] = {
	{ "run", hp_cmd_run },
	{ "check", hp_cmd_check },
	{ "leaks", hp_cmd_leaks },
	{ "ps", hp_cmd_ps },
	{ "dump", hp_cmd_dump },
	{ "toggle", hp_cmd_toggle },
	{ "pause", hp_cmd_toggle },
	{ "resume", hp_cmd_toggle },
	{ "report", hp_cmd_report },
	{ "trend", hp_cmd_trend },
	{ "serve", hp_cmd_serve },
	{ "attach", hp_cmd_attach },
	{ "detach", hp_cmd_detach },
	{ "help", help },
};

static const struct subcommand *find(const char *name)
{
	for (size_t i = 0; i < sizeof(subcommands) / sizeof(subcommands[0]); i++)
		if (!strcmp(subcommands[i].name, name))
			return &subcommands[i];
	return NULL;
}

/* `heapprof help [CMD]`: the overview, or CMD's --help. */
static int help(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		hp_help_overview(stdout);
		return 0;
	}
	if (argc > 2)
		return hp_usage_error("help", "one command at a time, not '%s'", argv[2]);
	if (!strcmp(argv[1], "options"))
		return hp_help_options();
	const struct subcommand *s = find(argv[1]);
	if (!s)
		return hp_usage_error(NULL, "unknown command '%s'", argv[1]);
	if (s->fn == help) {
		hp_help_overview(stdout);
		return 0;
	}
	char *args[] = { argv[1], "--help", NULL };
	return s->fn(2, args);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return hp_usage_error(NULL, "no command: run, check, leaks, ps, dump, toggle, pause, "
					  "resume, report, trend, serve, attach, detach or help");
	const struct subcommand *s = find(argv[1]);
	if (s)
		return s->fn(argc - 1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		if (argc > 2)
			return hp_usage_error(NULL, "--version takes no argument");
		printf("heapprof %s\n", HEAPPROF_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		hp_help_overview(stdout);
		return 0;
	}
	if (argv[1][0] == '-')
		return hp_usage_error(NULL, "unknown option '%s'", argv[1]);
	return hp_usage_error(NULL, "unknown command '%s'", argv[1]);
}
