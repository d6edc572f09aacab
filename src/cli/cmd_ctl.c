/*
 * cmd_ctl.c -- heapprof dump, toggle, pause and resume: asking a running
 * process for a dump or a change of sampling.
 *
 * Owns nothing.  It refuses another user's process (unless run as root)
 * and a process without heapprof, asks through ask.c (a control file and
 * heapprof's real-time signal; never SIGUSR1 or SIGUSR2, which the program
 * may own), then waits for the process's state file to show the result.
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ask.h"
#include "cmds.h"
#include "proc.h"

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

/* 0 when r is HP_ASK_OK, else 1 after a's message. */
static int said(const struct hp_ask *a, enum hp_ask_status r)
{
	if (r == HP_ASK_OK)
		return 0;
	fprintf(stderr, "heapprof: %s\n", a->msg);
	return 1;
}

int hp_cmd_dump(int argc, char **argv)
{
	const char *usage = "heapprof dump PID [--timeout SECONDS]";
	static struct hp_ask a;
	char path[PATH_MAX];
	pid_t pid;
	double timeout;
	int r = parse(argc, argv, &pid, &timeout, usage);

	if (r)
		return r;
	if ((r = said(&a, hp_ask_check(&a, pid, geteuid() == 0))))
		return r;
	if ((r = said(&a, hp_ask_dump(&a, timeout, NULL, path, sizeof(path)))))
		return r;
	/* A relative name is relative to the process's working directory. */
	printf("%s\n", path);
	return 0;
}

int hp_cmd_toggle(int argc, char **argv)
{
	const char *what = argv[0];
	char usage[64];
	static struct hp_ask a;
	struct hp_proc_state now_st;
	pid_t pid;
	double timeout;

	snprintf(usage, sizeof(usage), "heapprof %s PID [--timeout SECONDS]", what);
	int r = parse(argc, argv, &pid, &timeout, usage);
	if (r)
		return r;
	if ((r = said(&a, hp_ask_check(&a, pid, geteuid() == 0))))
		return r;
	int want = !strcmp(what, "pause") ? 0 : !strcmp(what, "resume") ? 1 : !a.st.active;
	if (a.st.active == want) {
		printf("%d: sampling already %s\n", (int)pid, want ? "active" : "paused");
		return 0;
	}
	if ((r = said(&a, hp_ask_send(&a, want ? "resume" : "pause", a.st.signal_toggle, "signal_toggle"))))
		return r;
	double deadline = hp_ask_now() + timeout;
	while (hp_ask_now() < deadline) {
		if (hp_proc_read_state(pid, &now_st) && now_st.active == want) {
			printf("%d: sampling %s\n", (int)pid, want ? "active" : "paused");
			return 0;
		}
		if (kill(pid, 0) != 0 && errno == ESRCH) {
			hp_ask_withdraw(&a);
			fprintf(stderr, "heapprof: process %d exited before changing its sampling\n", (int)pid);
			return 1;
		}
		hp_ask_pause_ms(10);
	}
	hp_ask_withdraw(&a);
	fprintf(stderr, "heapprof: process %d did not change its sampling within %g s\n", (int)pid, timeout);
	return 1;
}
