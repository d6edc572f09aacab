/*
 * cmd_ps.c -- heapprof ps: the processes on this host that have heapprof
 * loaded.
 *
 * Owns nothing.  Reads the state files the library publishes, checks each
 * against /proc (a state file whose process is gone, or whose pid now
 * belongs to a process without heapprof or one that started later, is
 * stale: removed when it is ours, with the temporaries of dead writers),
 * and adds processes that have the library mapped but publish no
 * state (their runtime directory was refused).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"
#include "proc.h"

#define MAX_PIDS 65536

struct listing {
	pid_t pids[MAX_PIDS];
	int n;
	int quiet;
};

static void human(long long b, char *buf, size_t cap)
{
	const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int i = 0;

	while (v >= 1024 && i < 4) {
		v /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%lld B", b);
	else
		snprintf(buf, cap, "%.1f %s", v, u[i]);
}

static void print_row(struct listing *l, pid_t pid, const struct hp_proc_state *st)
{
	char prog[4096], live[32];

	if (l->quiet) {
		printf("%d\n", (int)pid);
		return;
	}
	if (st && st->found) {
		human(st->live_bytes, live, sizeof(live));
		printf("%-8d %-8s %6u  %10s  %-30s %s\n", (int)pid,
		       st->active == 1 ? "active" : st->active == 0 ? "paused" : "?", st->dumps, live,
		       st->program, st->prefix[0] ? st->prefix : "(no automatic dumps)");
	} else {
		hp_proc_program(pid, prog, sizeof(prog));
		printf("%-8d %-8s %6s  %10s  %-30s %s\n", (int)pid, "?", "?", "?", prog,
		       "(no state published)");
	}
}

static void one_state(const char *path, void *arg)
{
	struct listing *l = arg;
	struct hp_proc_state st;

	if (!hp_proc_parse_state(path, &st))
		return;
	if (kill(st.pid, 0) != 0 && errno == ESRCH) {
		unlink(path);   /* the process is gone */
		return;
	}
	if (!hp_proc_has_heapprof(st.pid) ||
	    (st.starttime && hp_proc_starttime(st.pid) && hp_proc_starttime(st.pid) != st.starttime)) {
		if (access(path, W_OK) == 0 && access("/proc/self", R_OK) == 0)
			unlink(path);   /* the pid was reused */
		return;
	}
	if (l->n < MAX_PIDS)
		l->pids[l->n++] = st.pid;
	print_row(l, st.pid, &st);
}

/* A temporary ".<pid>.<pid>.<n>.tmp" whose writer is gone. */
static void one_temp(const char *path, void *arg)
{
	const char *base = strrchr(path, '/');
	int pid = atoi(base ? base + 2 : path + 1);

	(void)arg;
	if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
		unlink(path);
}

static int listed(const struct listing *l, pid_t pid)
{
	for (int i = 0; i < l->n; i++)
		if (l->pids[i] == pid)
			return 1;
	return 0;
}

int hp_cmd_ps(int argc, char **argv)
{
	struct listing *l = calloc(1, sizeof(*l));

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			l->quiet = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts("usage: heapprof ps [-q]");
			return 0;
		} else {
			fprintf(stderr, "heapprof ps: unknown option '%s'\nusage: heapprof ps [-q]\n", argv[i]);
			return 2;
		}
	}
	if (!l->quiet)
		printf("%-8s %-8s %6s  %10s  %-30s %s\n", "PID", "SAMPLING", "DUMPS", "LIVE", "PROGRAM",
		       "PREFIX");
	hp_proc_each_state(one_state, l);
	hp_proc_each_temp(one_temp, NULL);
	/* Processes with the library mapped but no state file. */
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid == getpid() || listed(l, pid) || !hp_proc_has_heapprof(pid))
			continue;
		struct hp_proc_state st;
		print_row(l, pid, hp_proc_read_state(pid, &st) ? &st : NULL);
	}
	if (d)
		closedir(d);
	free(l);
	return 0;
}
