/*
 * cmd_report.c -- `heapprof report [options] DUMP...`: option parsing
 * and usage; the work is src/report's (report.h).
 *
 * Exit status: 0 ok, 1 unreadable input or output (the engine dies with
 * one "heapprof: ..." line), 2 usage errors.
 */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report.h"
#include "report/ropts.h"
#include "report/util.h"
#include "cmds.h"
#include "procdumps.h"
#include "usage.h"

static const char usage_text[] =
	"usage: heapprof report [options] DUMP...\n"
	"Reads heap dumps of one process (several are summed) and reports where the\n"
	"memory is.  Dumps of different processes are refused unless --merge.\n"
	"\n"
	"Output, one of:\n"
	"  --text             functions by flat value, like jeprof --text (default)\n"
	"  --tree             call paths to the functions with the largest flat values\n"
	"  --collapsed        one 'root;...;leaf value' line per call path (flamegraph.pl)\n"
	"  --svg              a flame graph in one self-contained SVG image\n"
	"  --html             a flame graph to explore in a browser: zoom, search,\n"
	"                     flame or icicle; one self-contained HTML file\n"
	"  --graph            the call graph in Graphviz dot, like jeprof --dot;\n"
	"                     with --svg, drawn by Graphviz's dot as SVG\n"
	"  --list RE          source lines of the functions matching RE (extended\n"
	"                     regex) with flat and cumulative values per line\n"
	"  --pprof            gzipped profile.proto for go tool pprof\n"
	"  --json             everything as JSON, for scripts\n"
	"Value, one of:\n"
	"  --inuse-space      live bytes (default)\n"
	"  --inuse-objects    live objects\n"
	"  --alloc-space      bytes allocated since start (dumps with prof_accum:true)\n"
	"  --alloc-objects    objects allocated since start (same)\n"
	"  --peak             the in-use values at the process's peak of live bytes\n"
	"                     (dumps written with lg_prof_sample:0 only)\n"
	"  --temporary        temporary allocations (freed before the thread's next\n"
	"                     allocation or free) per stack, with their share\n"
	"                     (dumps written with lg_prof_sample:0 only)\n"
	"  --age              live bytes by age per stack: allocated during the warm-up,\n"
	"                     after it and older than it (a leak's shape), younger\n"
	"                     (--text or --json; dumps written with prof_age)\n"
	"  --warmup DURATION  --age's warm-up, as 90, 90s, 5m, 2h (default a tenth\n"
	"                     of the uptime, at most 60s)\n"
	"Flame and call graphs:\n"
	"  --icicle           flame graphs top-down, the root at the top\n"
	"  --node-fraction F  --graph: leave out functions under F of the total\n"
	"                     (default 0.005)\n"
	"  --edge-fraction F  --graph: leave out calls under F of the total\n"
	"                     (default 0.001)\n"
	"  --node-count N     --graph: at most N functions (default 80)\n"
	"Selection and names:\n"
	"  --leaks            the leak dump of each DUMP's process instead (written at\n"
	"                     exit with leak_check:reachable): exactly the leaks\n"
	"  --merge            sum dumps of different processes (process IDs are read\n"
	"                     from the names: <prefix>.<pid>.<seq>...heap)\n"
	"  --base OLD         subtract the dump OLD (repeatable): what grew since OLD;\n"
	"                     --svg and --html draw a diff: red grew, blue shrank\n"
	"  --focus RE         keep stacks with a function matching RE (extended regex)\n"
	"  --ignore RE        drop stacks with a function matching RE\n"
	"  --lines            function and file:line instead of functions\n"
	"  --full-names       C++ names with arguments and template arguments\n"
	"  --top N            N rows (--text, --json; default all) or N functions\n"
	"                     (--tree; default 10)\n"
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
	{ "text", no_argument, NULL, HP_ROPTS_OPT_TEXT },
	{ "tree", no_argument, NULL, HP_ROPTS_OPT_TREE },
	{ "collapsed", no_argument, NULL, HP_ROPTS_OPT_COLLAPSED },
	{ "pprof", no_argument, NULL, HP_ROPTS_OPT_PPROF },
	{ "json", no_argument, NULL, HP_ROPTS_OPT_JSON },
	{ "base", required_argument, NULL, HP_ROPTS_OPT_BASE },
	{ "html", no_argument, NULL, HP_ROPTS_OPT_HTML },
	{ "graph", no_argument, NULL, HP_ROPTS_OPT_GRAPH },
	{ "list", required_argument, NULL, HP_ROPTS_OPT_LIST },
	{ "icicle", no_argument, NULL, HP_ROPTS_OPT_ICICLE },
	/* jeprof's spellings too */
	{ "node-fraction", required_argument, NULL, HP_ROPTS_OPT_NODE_FRACTION },
	{ "nodefraction", required_argument, NULL, HP_ROPTS_OPT_NODE_FRACTION },
	{ "edge-fraction", required_argument, NULL, HP_ROPTS_OPT_EDGE_FRACTION },
	{ "edgefraction", required_argument, NULL, HP_ROPTS_OPT_EDGE_FRACTION },
	{ "node-count", required_argument, NULL, HP_ROPTS_OPT_NODE_COUNT },
	{ "nodecount", required_argument, NULL, HP_ROPTS_OPT_NODE_COUNT },
	{ "leaks", no_argument, NULL, 'L' },
	{ "peak", no_argument, NULL, HP_ROPTS_OPT_PEAK },
	{ "temporary", no_argument, NULL, HP_ROPTS_OPT_TEMPORARY },
	{ "age", no_argument, NULL, HP_ROPTS_OPT_AGE },
	{ "warmup", required_argument, NULL, HP_ROPTS_OPT_WARMUP },
	{ "merge", no_argument, NULL, 'M' },
	HP_ROPTS_LONGOPTS,
	{ NULL, 0, NULL, 0 },
};

/* fmt NULL: the message is out already (ropts.c's); the hint follows. */
static int usage_error(const char *fmt, const char *arg)
{
	if (fmt)
		return hp_usage_error("report", fmt, arg);
	fputs("try 'heapprof report --help'\n", stderr);
	return 2;
}

/* A fraction of the total, 0 to 1, for opt; -1 (with a message) if not. */
static int fraction(double *out, const char *opt, const char *arg)
{
	char *end;

	errno = 0;
	double f = strtod(arg, &end);
	if (errno || end == arg || *end || !(f >= 0 && f <= 1)) {
		fprintf(stderr, "heapprof report: %s wants a fraction from 0 to 1, not '%s'\n", opt, arg);
		return -1;
	}
	*out = f;
	return 0;
}

static int count(long *out, const char *opt, const char *arg)
{
	char *end;

	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1) {
		fprintf(stderr, "heapprof report: %s wants a positive number, not '%s'\n", opt, arg);
		return -1;
	}
	*out = n;
	return 0;
}

/* A duration: a number of seconds, or with a unit (ms, s, m, h, d);
 * -1 (with a message) if not. */
static int duration(double *out, const char *opt, const char *arg)
{
	static const struct { const char *unit; double s; } units[] = {
		{ "", 1 }, { "ms", 0.001 }, { "s", 1 }, { "m", 60 }, { "h", 3600 }, { "d", 86400 },
	};
	char *end;

	errno = 0;
	double d = strtod(arg, &end);
	if (!errno && end != arg && d >= 0 && d <= 1e9 && *arg >= '0' && *arg <= '9')
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].unit)) {
				*out = d * units[i].s;
				return 0;
			}
	fprintf(stderr, "heapprof report: %s wants a duration such as 90, 90s, 5m or 2h, not '%s'\n",
		opt, arg);
	return -1;
}

static int list_regex(struct hp_ropts *o, const char *arg)
{
	char msg[256];

	if (o->list_text) {
		fprintf(stderr, "heapprof report: --list given twice (use one regular expression "
				"with '|')\n");
		return -1;
	}
	int err = regcomp(&o->list, arg, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, &o->list, msg, sizeof(msg));
		fprintf(stderr, "heapprof report: --list '%s': %s\n", arg, msg);
		return -1;
	}
	o->list_text = arg;
	return hp_ropts_format(o, HP_ROPTS_FMT_LIST);
}

/* Report-only options; -1 on a usage error. */
static int report_option(struct hp_ropts *o, int c, const char *arg)
{
	switch (c) {
	case HP_ROPTS_OPT_HTML:
		return hp_ropts_format(o, HP_ROPTS_FMT_HTML);
	case HP_ROPTS_OPT_LIST:
		return list_regex(o, arg);
	case HP_ROPTS_OPT_ICICLE:
		o->icicle = 1;
		return 0;
	case HP_ROPTS_OPT_NODE_FRACTION:
		return fraction(&o->node_fraction, "--node-fraction", arg);
	case HP_ROPTS_OPT_EDGE_FRACTION:
		return fraction(&o->edge_fraction, "--edge-fraction", arg);
	case HP_ROPTS_OPT_NODE_COUNT:
		return count(&o->node_count, "--node-count", arg);
	case HP_ROPTS_OPT_TEXT:
		return hp_ropts_format(o, HP_ROPTS_FMT_TEXT);
	case HP_ROPTS_OPT_TREE:
		return hp_ropts_format(o, HP_ROPTS_FMT_TREE);
	case HP_ROPTS_OPT_COLLAPSED:
		return hp_ropts_format(o, HP_ROPTS_FMT_COLLAPSED);
	case HP_ROPTS_OPT_PPROF:
		return hp_ropts_format(o, HP_ROPTS_FMT_PPROF);
	case HP_ROPTS_OPT_JSON:
		return hp_ropts_format(o, HP_ROPTS_FMT_JSON);
	case HP_ROPTS_OPT_BASE:
		o->base = hp_util_xrealloc(o->base, (o->nbase + 1) * sizeof(*o->base));
		o->base[o->nbase++] = arg;
		return 0;
	case HP_ROPTS_OPT_PEAK:
		o->peak = 1;
		return 0;
	case HP_ROPTS_OPT_TEMPORARY:
		o->temporary = 1;
		return 0;
	case HP_ROPTS_OPT_AGE:
		o->age = 1;
		return 0;
	case HP_ROPTS_OPT_WARMUP:
		return duration(&o->warmup, "--warmup", arg);
	default:
		return -1;
	}
}

/* The leak dump (<prefix>.<pid>.<seq>.l<n>.<time>.heap) of the process
 * that wrote dump: dump itself if it is one.  Dies when there is none. */
static char *leak_dump_of(const char *dump)
{
	struct hp_procdumps_name d;
	char *pattern = NULL, *found = NULL;
	glob_t g;

	if (hp_procdumps_parse(dump, &d))
		hp_util_die("--leaks: '%s' is not named like a heapprof dump", dump);
	if (d.trigger == 'l')
		return hp_util_xstrdup(dump);
	if (asprintf(&pattern, "%.*s*.l*.heap", (int)d.upto, dump) < 0)
		hp_util_die("%s", "out of memory");
	if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc)
		found = hp_util_xstrdup(g.gl_pathv[g.gl_pathc - 1]);
	else
		hp_util_die("--leaks: no leak dump of process %.*s beside '%s' (leak_check:reachable "
			    "writes one at exit when something leaked)", (int)d.pid_len, d.pid, dump);
	globfree(&g);
	free(pattern);
	return found;
}

/* Dumps of one process are summed; of several, only with --merge.  The
 * process is the pid in the name; a dump named otherwise is nobody's.
 * Returns 0, or 2 after one line naming the processes. */
static int one_process(char *const *dumps, size_t n, const char *what)
{
	return hp_procdumps_one_process("report", dumps, n, what,
					"report one process's dumps, or sum them with --merge");
}

static int report(struct hp_ropts *o, int argc, char **argv);

int hp_cmd_report(int argc, char **argv)
{
	struct hp_ropts o;

	hp_ropts_init(&o, "report");
	int st = report(&o, argc, argv);
	hp_ropts_release(&o);
	return st;
}

static int report(struct hp_ropts *o, int argc, char **argv)
{
	int c, leaks = 0, graph = 0;

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
		if (c == 'L') {
			leaks = 1;
			continue;
		}
		if (c == 'M') {
			o->merge = 1;
			continue;
		}
		if (c == HP_ROPTS_OPT_GRAPH) {
			graph = 1;
			continue;
		}
		int r = hp_ropts_common(o, c, optarg);
		if (r == 0)
			r = report_option(o, c, optarg) ? -1 : 1;
		if (r < 0)
			return usage_error(NULL, NULL);
	}
	/* --graph is an output, which --svg turns from dot into SVG. */
	if (graph) {
		if (o->format_set && o->format != HP_ROPTS_FMT_SVG)
			return usage_error("--graph writes dot, or SVG with --svg: %s",
					   "choose one output format");
		o->graph_svg = o->format_set;
		o->format = HP_ROPTS_FMT_GRAPH;
	}
	if (optind >= argc)
		return usage_error("no dump given%s", "");
	if (o->peak && o->temporary)
		return usage_error("choose one of --peak and --temporary%s", "");
	if (o->temporary && o->value_set)
		return usage_error("--temporary counts allocations: it takes no %s",
				   "--inuse-* or --alloc-* value");
	if (o->temporary && (o->nbase || o->format == HP_ROPTS_FMT_PPROF))
		return usage_error("--temporary does not go with %s",
				   o->nbase ? "--base" : "--pprof");
	if (o->age + o->peak + o->temporary > 1)
		return usage_error("choose one of --age, --peak and --temporary%s", "");
	if (o->warmup >= 0 && !o->age)
		return usage_error("--warmup goes with --age%s", "");
	if (o->age && o->value_set)
		return usage_error("--age shows live bytes: it takes no %s",
				   "--inuse-* or --alloc-* value");
	/* Ages are of one moment: a base's ages, subtracted, would mix
	 * blocks of different lives.  What grew and stays is the newer
	 * dump's long-lived memory. */
	if (o->age && o->nbase)
		return usage_error("--age does not go with --base (ages are of one dump's moment: "
				   "its long-lived memory is what a diff shows growing and staying)%s", "");
	if (o->age && o->format != HP_ROPTS_FMT_TEXT && o->format != HP_ROPTS_FMT_JSON &&
	    o->format != HP_ROPTS_FMT_HTML)
		return usage_error("--age writes --text, --json or --html%s", "");
	if (leaks)
		for (int i = optind; i < argc; i++)
			argv[i] = leak_dump_of(argv[i]);
	if (!o->merge && (one_process(argv + optind, (size_t)(argc - optind), "dumps") ||
			 one_process((char *const *)o->base, o->nbase, "--base dumps")))
		return 2;
	return hp_report_run(o, argv + optind, (size_t)(argc - optind));
}
