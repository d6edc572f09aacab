/*
 * cmd_ctl.c -- heapprof dump, toggle, pause and resume: asking a running
 * process for a dump or a change of sampling.
 *
 * Owns nothing.  It refuses another user's process (unless run as root)
 * and a process without heapprof.  A process whose state file names
 * signal_control is asked through a control file in its runtime
 * directory, woken by that real-time signal when heapprof's handler holds
 * it (see the library's control/remote.h): SIGUSR1 and SIGUSR2, which the
 * program may own, are never used.  An older library's process is sent
 * signal_dump or signal_toggle, after checking that heapprof's handler is
 * in place: those signals terminate a process that does not handle them.
 * Then it waits for the process's state file to show the result.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

static int denied(pid_t pid, const char *prog)
{
	unsigned uid;
	char who[48] = "another user";

	if (hp_proc_owner(pid, &uid))
		snprintf(who, sizeof(who), "user %u", uid);
	fprintf(stderr, "heapprof: process %d (%s) belongs to %s: permission denied (only its owner "
		"or root may ask it)\n", (int)pid, prog, who);
	return 1;
}

/* The checks before asking: ours to ask, loaded, state published. */
static int check(pid_t pid, struct hp_proc_state *st, char *prog, size_t cap)
{
	unsigned uid;

	if (kill(pid, 0) != 0 && errno == ESRCH) {
		fprintf(stderr, "heapprof: no process %d\n", (int)pid);
		return 1;
	}
	hp_proc_program(pid, prog, cap);
	if (geteuid() != 0 && ((kill(pid, 0) != 0 && errno == EPERM) ||
			       (hp_proc_owner(pid, &uid) && uid != geteuid())))
		return denied(pid, prog);
	if (!hp_proc_has_heapprof(pid)) {
		if (errno == EACCES || errno == EPERM)
			return denied(pid, prog);
		fprintf(stderr, "heapprof: process %d (%s) does not have heapprof loaded; not signalling it "
			"(the signal would terminate it)\n", (int)pid, prog);
		return 1;
	}
	if (!hp_proc_read_state(pid, st)) {
		fprintf(stderr, "heapprof: process %d (%s) publishes no state (see HEAPPROF_RUNTIME_DIR in "
			"heapprof(7)); not signalling it\n", (int)pid, prog);
		return 1;
	}
	return 0;
}

/* A request on its way: the control file made, or the signal sent. */
struct ask {
	char path[PATH_MAX];   /* the control file; "" for a signal */
};

/* The control file's path for request what ("dump", "pause", "resume"). */
static void ctl_path(const struct hp_proc_state *st, const char *what, char *buf, size_t cap)
{
	const char *slash = strrchr(st->path, '/');
	int dlen = slash ? (int)(slash - st->path) : 1;

	snprintf(buf, cap, "%.*s/ctl.%d.%s", dlen, slash ? st->path : ".", (int)st->pid, what);
}

/* Asks pid for what: through its control file when it reads them, else
 * with the signal (which_sig: the state's signal_dump or signal_toggle,
 * named by opt).  Returns 0, or 1 after a message. */
static int ask(pid_t pid, const struct hp_proc_state *st, const char *prog, const char *what,
	       int which_sig, const char *opt, struct ask *a)
{
	a->path[0] = '\0';
	if (!st->has_control) {
		if (!which_sig || !hp_proc_catches(pid, which_sig)) {
			fprintf(stderr, "heapprof: process %d (%s) has no %s signal (%s is none, or the program "
				"handles that signal itself); not signalling it\n", (int)pid, prog,
				!strcmp(opt, "signal_dump") ? "dump" : "toggle", opt);
			return 1;
		}
		if (kill(pid, which_sig) != 0)
			goto fail;
		return 0;
	}
	if (!strcmp(what, "pause") || !strcmp(what, "resume")) {
		char other[PATH_MAX];
		ctl_path(st, !strcmp(what, "pause") ? "resume" : "pause", other, sizeof(other));
		unlink(other);   /* the newer request wins anyway; this one is stale */
	}
	ctl_path(st, what, a->path, sizeof(a->path));
	int fd = open(a->path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600);
	if (fd < 0) {
		if (errno == EACCES || errno == EPERM)
			return denied(pid, prog);
		fprintf(stderr, "heapprof: cannot ask process %d: %s: %s\n", (int)pid, a->path, strerror(errno));
		a->path[0] = '\0';
		return 1;
	}
	close(fd);
	/* Wake it now, when the signal cannot reach anything but heapprof's
	 * handler; otherwise its helper thread finds the file within a
	 * second. */
	int sig = st->signal_control;
	if (sig > 0 && hp_proc_catches(pid, sig) && !hp_proc_blocked_everywhere(pid, sig) &&
	    kill(pid, sig) != 0 && errno != ESRCH)
		goto fail;
	return 0;
fail:
	if (a->path[0]) {
		int err = errno;
		unlink(a->path);
		a->path[0] = '\0';
		errno = err;
	}
	if (errno == EPERM)
		return denied(pid, prog);
	fprintf(stderr, "heapprof: cannot signal process %d: %s\n", (int)pid, strerror(errno));
	return 1;
}

/* After a failure or a timeout: a request not taken is withdrawn. */
static void withdraw(struct ask *a)
{
	if (a->path[0])
		unlink(a->path);
}

int hp_cmd_dump(int argc, char **argv)
{
	const char *usage = "heapprof dump PID [--timeout SECONDS]";
	struct hp_proc_state st, now_st;
	struct ask a;
	char prog[4096];
	pid_t pid;
	double timeout;
	int r = parse(argc, argv, &pid, &timeout, usage);

	if (r)
		return r;
	if ((r = check(pid, &st, prog, sizeof(prog))))
		return r;
	if (!st.prefix[0]) {
		fprintf(stderr, "heapprof: process %d has an empty prof_prefix: it writes no dumps\n", (int)pid);
		return 1;
	}
	if ((r = ask(pid, &st, prog, "dump", st.signal_dump, "signal_dump", &a)))
		return r;
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
			withdraw(&a);
			fprintf(stderr, "heapprof: process %d exited before dumping\n", (int)pid);
			return 1;
		}
		pause_ms(10);
	}
	withdraw(&a);
	fprintf(stderr, "heapprof: no dump from process %d within %g s\n", (int)pid, timeout);
	return 1;
}

int hp_cmd_toggle(int argc, char **argv)
{
	const char *what = argv[0];
	char usage[64], prog[4096];
	struct hp_proc_state st, now_st;
	struct ask a;
	pid_t pid;
	double timeout;

	snprintf(usage, sizeof(usage), "heapprof %s PID [--timeout SECONDS]", what);
	int r = parse(argc, argv, &pid, &timeout, usage);
	if (r)
		return r;
	if ((r = check(pid, &st, prog, sizeof(prog))))
		return r;
	int want = !strcmp(what, "pause") ? 0 : !strcmp(what, "resume") ? 1 : !st.active;
	if (st.active == want) {
		printf("%d: sampling already %s\n", (int)pid, want ? "active" : "paused");
		return 0;
	}
	if ((r = ask(pid, &st, prog, want ? "resume" : "pause", st.signal_toggle, "signal_toggle", &a)))
		return r;
	double deadline = now() + timeout;
	while (now() < deadline) {
		if (hp_proc_read_state(pid, &now_st) && now_st.active == want) {
			printf("%d: sampling %s\n", (int)pid, want ? "active" : "paused");
			return 0;
		}
		if (kill(pid, 0) != 0 && errno == ESRCH) {
			withdraw(&a);
			fprintf(stderr, "heapprof: process %d exited before changing its sampling\n", (int)pid);
			return 1;
		}
		pause_ms(10);
	}
	withdraw(&a);
	fprintf(stderr, "heapprof: process %d did not change its sampling within %g s\n", (int)pid, timeout);
	return 1;
}
