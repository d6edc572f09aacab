/*
 * cmd_leaks.c -- heapprof leaks: a leak check of a running process that
 * has heapprof loaded, now (leakcheck.h does the work).
 *
 * Owns its options.  Exit status: 23 when something leaked, 0 when not
 * (as heapprof check), 1 when no verdict could be had, 2 on a usage
 * error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "leakcheck.h"
#include "usage.h"

#define LEAKS_EXIT 23   /* heapprof check's, LeakSanitizer's */

static const char help[] =
	"usage: heapprof leaks PID [--json] [--confirm N [--interval SECONDS]] [--timeout SECONDS]\n"
	"Asks process PID, which has heapprof loaded, for a leak check now: its\n"
	"helper thread stops the program's other threads, marks what the program\n"
	"can still reach from its roots (as the leak check at exit does), lets them\n"
	"go on and writes the verdict beside the process's bell; the process keeps\n"
	"running.  Prints the leaks in LeakSanitizer's shape, with file:line, and\n"
	"how long the threads were stopped.  Exact with lg_prof_sample:0; at a\n"
	"sampled rate the figures are estimates (marked ~); for an attached process\n"
	"only blocks allocated since the attach are checked.  A thread that did not\n"
	"stop is named; its stack was scanned whole (a leak may be missed, never\n"
	"invented).\n"
	"\n"
	"  --json              the verdict as JSON (schema in heapprof(1))\n"
	"  --confirm N         check N times in a row and report only the blocks\n"
	"                      unreachable in every check (kmemleak's rule: a\n"
	"                      pointer in flight is reachable again next time)\n"
	"  --interval SECONDS  between those checks (default 5)\n"
	"  --timeout SECONDS   how long to wait for each check (default 60)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 23 when something leaked, 0 when not, 1 without a verdict.\n"
	"See heapprof(1).\n";

/* A positive number of seconds, or -1. */
static double seconds(const char *v)
{
	char *end;
	double d = strtod(v, &end);

	return *end || end == v || !(d > 0) || d > 86400 ? -1 : d;
}

static int parse(int argc, char **argv, struct hp_leakcheck_opts *o)
{
	const char *cmd = argv[0];
	int interval_given = 0;

	memset(o, 0, sizeof(*o));
	o->interval = HP_LEAKCHECK_INTERVAL;
	o->timeout = HP_LEAKCHECK_TIMEOUT;
	o->confirm = 1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		const char *opts[] = { "--confirm", "--interval", "--timeout" };
		int which = -1;
		for (int k = 0; k < 3; k++) {
			size_t n = strlen(opts[k]);
			if (!strncmp(a, opts[k], n) && (a[n] == '\0' || a[n] == '=')) {
				which = k;
				v = a[n] == '=' ? a + n + 1 : i + 1 < argc ? argv[++i] : NULL;
				if (!v)
					return hp_usage_error(cmd, "option '%s' needs a value", opts[k]);
			}
		}
		if (which == 0) {
			char *end;
			long n = strtol(v, &end, 10);
			if (*end || end == v || n < 1 || n > HP_LEAKCHECK_CONFIRM_MAX)
				return hp_usage_error(cmd, "--confirm wants a number of checks from 1 to %d, not '%s'",
						      HP_LEAKCHECK_CONFIRM_MAX, v);
			o->confirm = (unsigned)n;
		} else if (which == 1 || which == 2) {
			double d = seconds(v);
			if (d < 0)
				return hp_usage_error(cmd, "%s wants a number of seconds (up to 86400), not '%s'",
						      opts[which], v);
			if (which == 1) {
				o->interval = d;
				interval_given = 1;
			} else {
				o->timeout = d;
			}
		} else if (!strcmp(a, "--json")) {
			o->json = true;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help, stdout);
			return -1;
		} else if (a[0] == '-') {
			return hp_usage_error(cmd, "unknown option '%s'", a);
		} else if (o->pid) {
			return hp_usage_error(cmd, "one process at a time, not '%s' too", a);
		} else {
			char *end;
			long p = strtol(a, &end, 10);
			if (*end || end == a || p <= 0 || p > 0x7fffffff)
				return hp_usage_error(cmd, "'%s' is not a process ID", a);
			o->pid = (pid_t)p;
		}
	}
	if (!o->pid)
		return hp_usage_error(cmd, "no process ID given ('heapprof ps' lists them)");
	if (interval_given && o->confirm < 2)
		return hp_usage_error(cmd, "--interval spaces the checks of --confirm N (N of 2 or more)");
	return 0;
}

int hp_cmd_leaks(int argc, char **argv)
{
	struct hp_leakcheck_opts o;
	struct hp_buf out = { 0 };
	enum hp_ask_status st;
	char msg[PATH_MAX + 512];
	int r = parse(argc, argv, &o);

	if (r)
		return r < 0 ? 0 : r;
	o.any_user = geteuid() == 0;
	r = hp_leakcheck_run(&o, &out, msg, sizeof(msg), &st);
	if (r < 0) {
		fprintf(stderr, "heapprof: %s\n", msg);
		hp_buf_release(&out);
		return 1;
	}
	fwrite(out.p, 1, out.len, stdout);
	hp_buf_release(&out);
	if (fflush(stdout) != 0) {
		perror("heapprof: standard output");
		return 1;
	}
	return r ? LEAKS_EXIT : 0;
}
