/*
 * ropts.c -- the options report and trend share (see ropts.h).
 *
 * Owns their validation and messages; the subcommands own usage text and
 * the exit status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "input.h"
#include "ropts.h"
#include "util.h"

void hp_ropts_init(struct hp_ropts *o, const char *who)
{
	memset(o, 0, sizeof(*o));
	o->who = who;
	o->format = HP_ROPTS_FMT_TEXT;
	o->value = HP_V_INUSE_SPACE;
	o->top = -1;
	o->warmup = -1;
	/* jeprof's and pprof's defaults. */
	o->node_fraction = 0.005;
	o->edge_fraction = 0.001;
	o->node_count = 80;
	o->confidence = 0.99;
}

void hp_ropts_release(struct hp_ropts *o)
{
	if (o->has_focus)
		regfree(&o->focus);
	if (o->has_ignore)
		regfree(&o->ignore);
	if (o->list_text)
		regfree(&o->list);
	free(o->debug_dirs);
	free(o->binaries);
	free(o->base);
	hp_ropts_init(o, o->who);
}

int hp_ropts_format(struct hp_ropts *o, enum hp_ropts_format f)
{
	if (o->format_set && o->format != f) {
		fprintf(stderr, "heapprof %s: choose one output format\n", o->who);
		return -1;
	}
	o->format = f;
	o->format_set = 1;
	return 0;
}

static int set_value(struct hp_ropts *o, int v)
{
	if (o->value_set && o->value != v) {
		fprintf(stderr, "heapprof %s: choose one of --inuse-space, --inuse-objects, "
				"--alloc-space and --alloc-objects\n", o->who);
		return -1;
	}
	o->value = v;
	o->value_set = 1;
	return 0;
}

static int set_regex(const struct hp_ropts *o, regex_t *re, int *has, const char **text,
		     const char *opt, const char *arg)
{
	char msg[256];

	if (*has) {
		fprintf(stderr, "heapprof %s: %s given twice (use one regular expression with '|')\n", o->who,
			opt);
		return -1;
	}
	int err = regcomp(re, arg, REG_EXTENDED | REG_NOSUB);
	if (err) {
		regerror(err, re, msg, sizeof(msg));
		fprintf(stderr, "heapprof %s: %s '%s': %s\n", o->who, opt, arg, msg);
		return -1;
	}
	*has = 1;
	*text = arg;
	return 0;
}

static int set_top(struct hp_ropts *o, const char *arg)
{
	char *end;

	errno = 0;
	long n = strtol(arg, &end, 10);
	if (errno || end == arg || *end || n < 1) {
		fprintf(stderr, "heapprof %s: --top wants a positive number, not '%s'\n", o->who, arg);
		return -1;
	}
	o->top = n;
	return 0;
}

int hp_ropts_common(struct hp_ropts *o, int code, const char *arg)
{
	switch (code) {
	case HP_ROPTS_OPT_INUSE_SPACE:
		return set_value(o, HP_V_INUSE_SPACE) ? -1 : 1;
	case HP_ROPTS_OPT_INUSE_OBJECTS:
		return set_value(o, HP_V_INUSE_OBJECTS) ? -1 : 1;
	case HP_ROPTS_OPT_ALLOC_SPACE:
		return set_value(o, HP_V_ALLOC_SPACE) ? -1 : 1;
	case HP_ROPTS_OPT_ALLOC_OBJECTS:
		return set_value(o, HP_V_ALLOC_OBJECTS) ? -1 : 1;
	case HP_ROPTS_OPT_FOCUS:
		return set_regex(o, &o->focus, &o->has_focus, &o->focus_text, "--focus", arg) ? -1 : 1;
	case HP_ROPTS_OPT_IGNORE:
		return set_regex(o, &o->ignore, &o->has_ignore, &o->ignore_text, "--ignore", arg) ? -1 : 1;
	case HP_ROPTS_OPT_LINES:
		o->lines = 1;
		return 1;
	case HP_ROPTS_OPT_FULL_NAMES:
		o->full_names = 1;
		return 1;
	case HP_ROPTS_OPT_DEBUG_DIR:
		if (arg[0] != '/') {
			fprintf(stderr, "heapprof %s: --debug-dir wants an absolute path, not '%s'\n", o->who,
				arg);
			return -1;
		}
		o->debug_dirs = hp_util_xrealloc(o->debug_dirs,
						 (o->ndebug_dirs + 1) * sizeof(*o->debug_dirs));
		o->debug_dirs[o->ndebug_dirs++] = arg;
		return 1;
	case HP_ROPTS_OPT_BINARY:
		if (access(arg, R_OK)) {
			fprintf(stderr, "heapprof %s: --binary: cannot read '%s': %s\n", o->who, arg,
				strerror(errno));
			return -1;
		}
		o->binaries = hp_util_xrealloc(o->binaries, (o->nbinaries + 1) * sizeof(*o->binaries));
		o->binaries[o->nbinaries++] = arg;
		return 1;
	case HP_ROPTS_OPT_TOP:
		return set_top(o, arg) ? -1 : 1;
	case HP_ROPTS_OPT_SHOW_BYTES:
		o->show_bytes = 1;
		return 1;
	case HP_ROPTS_OPT_SVG:
		return hp_ropts_format(o, HP_ROPTS_FMT_SVG) ? -1 : 1;
	case 'o':
		o->output = arg;
		return 1;
	default:
		return 0;
	}
}
