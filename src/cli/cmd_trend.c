/*
 * cmd_trend.c -- `heapprof trend [options] DUMP...`: option parsing and
 * usage; the work is src/report's (trend.h).
 *
 * Exit status: 0 ok, 1 unreadable input or output, 2 usage errors.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/ropts.h"
#include "report/trend.h"
#include "report/suspects.h"
#include "report/input.h"
#include "cmds.h"
#include "procdumps.h"
#include "usage.h"

static const char usage_text[] =
	"usage: heapprof trend [options] DUMP...\n"
	"Ranks the stacks of a series of dumps of one program (at least two, e.g.\n"
	"interval dumps) by how steadily their value grows: the leak signature.\n"
	"Dumps are ordered by the UTC time in their names, else by sequence number,\n"
	"else as given.  Dumps of different processes are refused unless --merge.\n"
	"\n"
	"  --svg              a line chart of the total and the top stacks over time\n"
	"  --json             the ranking and every value, as JSON, for scripts\n"
	"  --suspects         only the leak suspects: stacks that grow beyond the\n"
	"                     noise of sampling to the end of the series (a cache\n"
	"                     that filled and levelled off is not one), each with\n"
	"                     its confidence; needs at least 6 dumps\n"
	"  --confidence PCT   the confidence a suspect needs (default 99)\n"
	"  --functions        rank functions (flat values) instead of stacks\n"
	"  --merge            one series of dumps of different processes (e.g. the\n"
	"                     final dumps of successive runs), ordered as above\n"
	"  --top N            N stacks or functions (default 10)\n"
	"  --inuse-space      live bytes (default)\n"
	"  --inuse-objects    live objects\n"
	"  --alloc-space      bytes allocated since start (dumps with prof_accum:true)\n"
	"  --alloc-objects    objects allocated since start (same)\n"
	"  --focus RE         keep stacks with a function matching RE (extended regex)\n"
	"  --ignore RE        drop stacks with a function matching RE\n"
	"  --lines            function and file:line instead of functions\n"
	"  --full-names       C++ names with arguments and template arguments\n"
	"  --show-bytes       exact byte counts instead of sizes like 3.1MiB (sizes\n"
	"                     are in B, KiB, MiB, GiB: powers of 1024)\n"
	"  --debug-dir DIR    look for binaries and separate debug files by build-id\n"
	"                     in DIR too (DIR/.build-id/, a debuginfod cache; repeatable)\n"
	"  --binary FILE      FILE stands for the mappings with its build-id, or with\n"
	"                     its file name in dumps without build-ids (repeatable)\n"
	"  -o, --output FILE  write to FILE instead of standard output\n"
	"  -h, --help         show this help\n"
	"See heapprof(1).\n";

static const struct option longopts[] = {
	{ "functions", no_argument, NULL, HP_ROPTS_OPT_FUNCTIONS },
	{ "json", no_argument, NULL, HP_ROPTS_OPT_JSON },
	{ "merge", no_argument, NULL, 'M' },
	{ "suspects", no_argument, NULL, 'S' },
	{ "confidence", required_argument, NULL, 'C' },
	HP_ROPTS_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* fmt NULL: the message is out already (ropts.c's); the hint follows. */
static int usage_error(const char *fmt, const char *arg)
{
	if (fmt)
		return hp_usage_error("trend", fmt, arg);
	fputs("try 'heapprof trend --help'\n", stderr);
	return 2;
}

static int trend(struct hp_ropts *o, int argc, char **argv);

_Static_assert(HP_SUSPECTS_MIN_DUMPS == 6, "the message below says 6");

/* "99", "99.9" or "95%": a fraction in (0.5, 1). */
static int parse_confidence(struct hp_ropts *o, const char *arg)
{
	char *end;
	double pct = strtod(arg, &end);

	if (end == arg || (*end && strcmp(end, "%")) || !(pct > 50 && pct < 100))
		return -1;
	o->confidence = pct / 100;
	return 0;
}

int hp_cmd_trend(int argc, char **argv)
{
	struct hp_ropts o;

	hp_ropts_init(&o, "trend");
	int st = trend(&o, argc, argv);
	hp_ropts_release(&o);
	return st;
}

static int trend(struct hp_ropts *o, int argc, char **argv)
{
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":ho:", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(usage_text, stdout);
			return 0;
		}
		if (c == '?')
			return usage_error("unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		if (c == 'M') {
			o->merge = 1;
			continue;
		}
		if (c == 'S') {
			o->suspects = 1;
			continue;
		}
		if (c == 'C') {
			if (parse_confidence(o, optarg))
				return usage_error("--confidence takes a percentage above 50 and below "
						   "100, not '%s'", optarg);
			continue;
		}
		if (c == HP_ROPTS_OPT_FUNCTIONS) {
			o->functions = 1;
			continue;
		}
		if (c == HP_ROPTS_OPT_JSON) {
			if (hp_ropts_format(o, HP_ROPTS_FMT_JSON))
				return usage_error(NULL, NULL);
			continue;
		}
		if (hp_ropts_common(o, c, optarg) <= 0)
			return usage_error(NULL, NULL);
	}
	if (argc - optind < 2)
		return usage_error("needs at least two dumps%s", "");
	if (o->suspects && argc - optind < HP_SUSPECTS_MIN_DUMPS)
		return usage_error("--suspects needs at least 6 dumps (three in each half of the "
				   "series)%s", "");
	if (o->suspects && o->value != HP_V_INUSE_SPACE && o->value != HP_V_INUSE_OBJECTS)
		return usage_error("--suspects judges live memory (--inuse-space or --inuse-objects): "
				   "allocated totals only ever grow%s", "");
	if (o->suspects && o->format == HP_ROPTS_FMT_SVG)
		return usage_error("--suspects is text or --json, not --svg%s", "");
	/* A series interleaving two processes' dumps reads as a heap that
	 * jumps up and down: refused, as report refuses to sum them. */
	if (!o->merge && hp_procdumps_one_process("trend", argv + optind, (size_t)(argc - optind), "dumps",
						   "give one process's dumps, or follow them as one "
						   "series with --merge"))
		return 2;
	return hp_trend_run(o, argv + optind, (size_t)(argc - optind));
}
