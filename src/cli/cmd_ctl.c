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
#include "usage.h"

static const char dump_help[] =
	"usage: heapprof dump PID [--timeout SECONDS]\n"
	"Asks process PID, which has heapprof loaded, for a dump now, waits until\n"
	"the complete dump is in place and prints its path (relative to the\n"
	"process's working directory when its prof_prefix is relative; for a process\n"
	"in a container, as this host reaches it: /proc/PID/root/...).  It asks\n"
	"through the process's bell, a shared page in its runtime directory that\n"
	"heapprof's helper thread sleeps on: no thread of the program's sees a\n"
	"signal (a process without a helper thread takes it at its next sampled\n"
	"allocation, or after 0.2 s by heapprof's own real-time signal).  Another\n"
	"user's process is refused (unless run as root), as is a process without\n"
	"heapprof or with an empty prof_prefix.\n"
	"\n"
	"  --timeout SECONDS  how long to wait for the dump (default 10)\n"
	"  -h, --help         show this help\n"
	"\n"
	"Example: heapprof report \"$(heapprof dump 4242)\"\n"
	"See heapprof(1).\n";

/* After the usage lines, which name the command as it was called first. */
static const char toggle_help[] =
	"Pauses or resumes the sampling of process PID, which has heapprof loaded:\n"
	"toggle flips it, pause and resume set it one way (and say so when it\n"
	"already is).  Frees of blocks sampled before a pause are still counted.\n"
	"Waits until the process shows the new state and prints it, as\n"
	"'4242: sampling paused'.  Asked as 'heapprof dump' asks; the same checks.\n"
	"\n"
	"  --timeout SECONDS  how long to wait for the change (default 10)\n"
	"  -h, --help         show this help\n"
	"See heapprof(1).\n";

/* Parses "PID [--timeout S]".  Returns 0, 2 after a usage error, or -1
 * after --help. */
static int parse(int argc, char **argv, pid_t *pid, double *timeout, const char *help)
{
	const char *cmd = argv[0];

	*pid = 0;
	*timeout = 10;
	for (int i = 1; i < argc; i++) {
		char *end;
		const char *a = argv[i];
		if (!strcmp(a, "--timeout") || !strncmp(a, "--timeout=", 10)) {
			const char *v = a[9] == '=' ? a + 10 : i + 1 < argc ? argv[++i] : NULL;
			if (!v)
				return hp_usage_error(cmd, "option '--timeout' needs a value");
			*timeout = strtod(v, &end);
			if (*end || end == v || !(*timeout > 0))
				return hp_usage_error(cmd, "--timeout wants a number of seconds, not '%s'", v);
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			if (help == toggle_help) {
				const char *forms[] = { cmd, "toggle", "pause", "resume" };
				for (int k = 0, first = 1; k < 4; k++)
					if (k == 0 || strcmp(forms[k], cmd)) {
						printf("%s heapprof %s PID [--timeout SECONDS]\n",
						       first ? "usage:" : "      ", forms[k]);
						first = 0;
					}
			}
			fputs(help, stdout);
			return -1;
		} else if (a[0] == '-') {
			return hp_usage_error(cmd, "unknown option '%s'", a);
		} else if (*pid) {
			return hp_usage_error(cmd, "one process at a time, not '%s' too", a);
		} else {
			long v = strtol(a, &end, 10);
			if (*end || end == a || v <= 0 || v > 0x7fffffff)
				return hp_usage_error(cmd, "'%s' is not a process ID", a);
			*pid = (pid_t)v;
		}
	}
	if (!*pid)
		return hp_usage_error(cmd, "no process ID given ('heapprof ps' lists them)");
	return 0;
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
	static struct hp_ask a;
	char path[PATH_MAX];
	pid_t pid;
	double timeout;
	int r = parse(argc, argv, &pid, &timeout, dump_help);

	if (r)
		return r < 0 ? 0 : r;
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
	static struct hp_ask a;
	struct hp_proc_state now_st;
	pid_t pid;
	double timeout;

	int r = parse(argc, argv, &pid, &timeout, toggle_help);
	if (r)
		return r < 0 ? 0 : r;
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
		hp_ask_nudge(&a);
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
