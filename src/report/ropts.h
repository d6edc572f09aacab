/*
 * ropts.h -- the report options, which `heapprof report` and `heapprof
 * trend` share: which value to show, how to name and filter frames, where
 * to look for debug information, where to write.
 *
 * Each subcommand's getopt_long table is its own options followed by
 * HP_ROPTS_LONGOPTS; codes it does not know go to hp_ropts_common().
 */
#ifndef HP_REPORT_ROPTS_H
#define HP_REPORT_ROPTS_H

#include <getopt.h>
#include <regex.h>
#include <stddef.h>

/* The output formats: report's nine; trend has text and --svg. */
enum hp_ropts_format {
	HP_ROPTS_FMT_TEXT,
	HP_ROPTS_FMT_TREE,
	HP_ROPTS_FMT_COLLAPSED,
	HP_ROPTS_FMT_SVG,
	HP_ROPTS_FMT_PPROF,
	HP_ROPTS_FMT_JSON,
	HP_ROPTS_FMT_HTML,	/* the flame graph explorer */
	HP_ROPTS_FMT_GRAPH,	/* the call graph: dot, or SVG through dot */
	HP_ROPTS_FMT_LIST,	/* source lines of functions */
};

/* getopt_long codes of the long-only options (both subcommands). */
enum hp_ropts_code {
	HP_ROPTS_OPT_INUSE_SPACE = 256,
	HP_ROPTS_OPT_INUSE_OBJECTS,
	HP_ROPTS_OPT_ALLOC_SPACE,
	HP_ROPTS_OPT_ALLOC_OBJECTS,
	HP_ROPTS_OPT_FOCUS,
	HP_ROPTS_OPT_IGNORE,
	HP_ROPTS_OPT_LINES,
	HP_ROPTS_OPT_FULL_NAMES,
	HP_ROPTS_OPT_DEBUG_DIR,
	HP_ROPTS_OPT_BINARY,
	HP_ROPTS_OPT_TOP,
	HP_ROPTS_OPT_SHOW_BYTES,
	HP_ROPTS_OPT_SVG,
	/* report only */
	HP_ROPTS_OPT_TEXT,
	HP_ROPTS_OPT_TREE,
	HP_ROPTS_OPT_COLLAPSED,
	HP_ROPTS_OPT_PPROF,
	HP_ROPTS_OPT_JSON,
	HP_ROPTS_OPT_BASE,
	HP_ROPTS_OPT_HTML,
	HP_ROPTS_OPT_GRAPH,
	HP_ROPTS_OPT_LIST,
	HP_ROPTS_OPT_ICICLE,
	HP_ROPTS_OPT_NODE_FRACTION,
	HP_ROPTS_OPT_EDGE_FRACTION,
	HP_ROPTS_OPT_NODE_COUNT,
	HP_ROPTS_OPT_PEAK,
	HP_ROPTS_OPT_TEMPORARY,
	HP_ROPTS_OPT_AGE,
	HP_ROPTS_OPT_WARMUP,
	/* trend only */
	HP_ROPTS_OPT_FUNCTIONS,
};

/* jeprof's underscore spellings are accepted as well. */
#define HP_ROPTS_LONGOPTS                                                   \
	{ "inuse-space", no_argument, NULL, HP_ROPTS_OPT_INUSE_SPACE },     \
	{ "inuse_space", no_argument, NULL, HP_ROPTS_OPT_INUSE_SPACE },     \
	{ "inuse-objects", no_argument, NULL, HP_ROPTS_OPT_INUSE_OBJECTS }, \
	{ "inuse_objects", no_argument, NULL, HP_ROPTS_OPT_INUSE_OBJECTS }, \
	{ "alloc-space", no_argument, NULL, HP_ROPTS_OPT_ALLOC_SPACE },     \
	{ "alloc_space", no_argument, NULL, HP_ROPTS_OPT_ALLOC_SPACE },     \
	{ "alloc-objects", no_argument, NULL, HP_ROPTS_OPT_ALLOC_OBJECTS }, \
	{ "alloc_objects", no_argument, NULL, HP_ROPTS_OPT_ALLOC_OBJECTS }, \
	{ "focus", required_argument, NULL, HP_ROPTS_OPT_FOCUS },           \
	{ "ignore", required_argument, NULL, HP_ROPTS_OPT_IGNORE },         \
	{ "lines", no_argument, NULL, HP_ROPTS_OPT_LINES },                 \
	{ "full-names", no_argument, NULL, HP_ROPTS_OPT_FULL_NAMES },       \
	{ "debug-dir", required_argument, NULL, HP_ROPTS_OPT_DEBUG_DIR },   \
	{ "binary", required_argument, NULL, HP_ROPTS_OPT_BINARY },         \
	{ "top", required_argument, NULL, HP_ROPTS_OPT_TOP },               \
	{ "show-bytes", no_argument, NULL, HP_ROPTS_OPT_SHOW_BYTES },       \
	{ "show_bytes", no_argument, NULL, HP_ROPTS_OPT_SHOW_BYTES },       \
	{ "svg", no_argument, NULL, HP_ROPTS_OPT_SVG },                     \
	{ "output", required_argument, NULL, 'o' },                         \
	{ "help", no_argument, NULL, 'h' }

struct hp_ropts {
	const char *who;	/* "report" or "trend", for messages */
	enum hp_ropts_format format;
	int format_set;
	int value;		/* enum hp_value */
	int value_set;
	int show_bytes;
	long top;		/* -1: the output's default */
	const char *output;	/* NULL: stdout */
	int lines, full_names;
	regex_t focus, ignore;
	int has_focus, has_ignore;
	const char *focus_text, *ignore_text;	/* as typed, for titles */
	const char **debug_dirs;
	size_t ndebug_dirs;
	const char **binaries;	/* --binary: files that stand for mappings */
	size_t nbinaries;
	const char **base;	/* report --base */
	size_t nbase;
	int icicle;		/* report --icicle: flame graphs top-down */
	int graph_svg;		/* report --graph --svg */
	regex_t list;		/* report --list */
	const char *list_text;
	double node_fraction;	/* report --graph's cut-offs */
	double edge_fraction;
	long node_count;
	int peak;		/* report --peak */
	int temporary;		/* report --temporary */
	int age;		/* report --age */
	double warmup;		/* report --warmup, seconds; < 0: the default */
	int functions;		/* trend --functions */
	int merge;		/* --merge: dumps of several processes (report, trend) */
	int suspects;		/* trend --suspects */
	double confidence;	/* trend --confidence, as a fraction */
	/* The pprof profile's time and duration (ns; 0: none written): set
	 * by heapprof serve for a delta profile, from when it took the dumps. */
	long long time_ns, duration_ns;
};

/* Defaults; who is the subcommand, which messages name. */
void hp_ropts_init(struct hp_ropts *o, const char *who);

/* Frees what the options hold (compiled expressions, lists). */
void hp_ropts_release(struct hp_ropts *o);

/*
 * Applies a shared option.  Returns 1 when code was one, 0 when it is not
 * (the subcommand handles it), -1 after printing "heapprof WHO: ..." for a bad
 * value or a second output format or value type (a usage error, status 2).
 */
int hp_ropts_common(struct hp_ropts *o, int code, const char *arg);

/* Sets the output format; -1 (with a message) if one was already set. */
int hp_ropts_format(struct hp_ropts *o, enum hp_ropts_format f);

#endif
