/*
 * cmd_ctl.c -- heapprof dump, toggle, pause and resume: asking a running
 * process for a dump or a change of sampling.
 *
 * Owns nothing.  Before sending a signal it checks that the process has
 * heapprof loaded and that heapprof's handler for the signal is in place:
 * SIGUSR1 and SIGUSR2 terminate a process that does not handle them.  It
 * then waits for the process's state file to show the result.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmds.h"
#include "proc.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void pause_ms(int ms)
{
	struct timespec ts = { 0, ms * 1000000L };

	nanosleep(&ts, NULL);
}

/* Parses "PID [--timeout S]".  Returns 0, or 2 on a usage error. */
static int parse(int argc, char **argv, pid_t *pid, double *timeout, const char *usage)
{
	*pid = 0;
	*timeout = 10;
	for (int i = 1; i < argc; i++) {
		char *end;
		if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			*timeout = strtod(argv[++i], &end);
			if (*end || *timeout <= 0)
				goto bad;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("usage: %s\n", usage);
			exit(0);
		} else if (!*pid && argv[i][0] != '-') {
			long v = strtol(argv[i], &end, 10);
			if (*end || v <= 0)
				goto bad;
			*pid = (pid_t)v;
		} else {
			goto bad;
		}
	}
	if (*pid)
		return 0;
bad:
	fprintf(stderr, "usage: %s\n", usage);
	return 2;
}

/* The checks before signalling: loaded, state published, signal ours. */
static int check(pid_t pid, int which_dump, struct hp_proc_state *st, int *sig)
{
	char prog[4096];

	if (kill(pid, 0) != 0 && errno == ESRCH) {
		fprintf(stderr, "heapprof: no process %d\n", (int)pid);
		return 1;
	}
	hp_proc_program(pid, prog, sizeof(prog));
	if (!hp_proc_has_heapprof(pid)) {
		fprintf(stderr, "heapprof: process %d (%s) does not have heapprof loaded; not signalling it "
			"(the signal would terminate it)\n", (int)pid, prog);
		return 1;
	}
	if (!hp_proc_read_state(pid, st)) {
		fprintf(stderr, "heapprof: process %d (%s) publishes no state (see HEAPPROF_RUNTIME_DIR in "
			"heapprof(7)); not signalling it\n", (int)pid, prog);
		return 1;
	}
	*sig = which_dump ? st->signal_dump : st->signal_toggle;
	if (!*sig || !hp_proc_catches(pid, *sig)) {
		fprintf(stderr, "heapprof: process %d (%s) has no %s signal (%s is none, or the program "
			"handles that signal itself); not signalling it\n", (int)pid, prog,
			which_dump ? "dump" : "toggle", which_dump ? "signal_dump" : "signal_toggle");
		return 1;
	}
	return 0;
}

int hp_cmd_dump(int argc, char **argv)
{
	const char *usage = "heapprof dump PID [--timeout SECONDS]";
	struct hp_proc_state st, now_st;
	pid_t pid;
	double timeout;
	int sig, r = parse(argc, argv, &pid, &timeout, usage);

	if (r)
		return r;
	if ((r = check(pid, 1, &st, &sig)))
		return r;
	if (!st.prefix[0]) {
		fprintf(stderr, "heapprof: process %d has an empty prof_prefix: it writes no dumps\n", (int)pid);
		return 1;
	}
	kill(pid, sig);
	double deadline = now() + timeout;
	while (now() < deadline) {
		if (hp_proc_read_state(pid, &now_st) && now_st.dumps > st.dumps &&
		    now_st.last_dump[0]) {
			/* The library renames the dump into place before it
			 * counts it: the file is complete.  A relative name is
			 * relative to the process's working directory. */
			printf("%s\n", now_st.last_dump);
			return 0;
		}
		if (kill(pid, 0) != 0 && errno == ESRCH) {
			fprintf(stderr, "heapprof: process %d exited before dumping\n", (int)pid);
			return 1;
		}
		pause_ms(10);
	}
	fprintf(stderr, "heapprof: no dump from process %d within %g s\n", (int)pid, timeout);
	return 1;
}

int hp_cmd_toggle(int argc, char **argv)
{
	const char *what = argv[0];
	char usage[64];
	struct hp_proc_state st, now_st;
	pid_t pid;
	double timeout;
	int sig;

	snprintf(usage, sizeof(usage), "heapprof %s PID [--timeout SECONDS]", what);
	int r = parse(argc, argv, &pid, &timeout, usage);
	if (r)
		return r;
	if ((r = check(pid, 0, &st, &sig)))
		return r;
	int want = !strcmp(what, "pause") ? 0 : !strcmp(what, "resume") ? 1 : !st.active;
	if (st.active == want) {
		printf("%d: sampling already %s\n", (int)pid, want ? "active" : "paused");
		return 0;
	}
	kill(pid, sig);
	double deadline = now() + timeout;
	while (now() < deadline) {
		if (hp_proc_read_state(pid, &now_st) && now_st.active == want) {
			printf("%d: sampling %s\n", (int)pid, want ? "active" : "paused");
			return 0;
		}
		pause_ms(10);
	}
	fprintf(stderr, "heapprof: process %d did not change its sampling within %g s\n", (int)pid, timeout);
	return 1;
}
