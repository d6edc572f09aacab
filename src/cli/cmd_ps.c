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

#include "report/buf.h"
#include "report/strtab.h"
#include "cmds.h"
#include "proc.h"
#include "usage.h"

#define MAX_PIDS 65536

/* One process found; printed once all are, so that columns align. */
struct ps_row {
	pid_t pid;
	int has_state;
	struct hp_proc_state st;   /* when has_state */
	char *program;             /* st.program, or /proc's */
};

struct listing {
	struct ps_row *rows;
	size_t n, cap;
	int quiet, json;
	char **names;              /* the programs asked for; none: all */
	size_t nnames;
};

static const char help_text[] =
	"usage: heapprof ps [-q | --json] [PROGRAM...]\n"
	"Lists the processes that have heapprof loaded and that this user may see\n"
	"(every user's, as root), one per line; with PROGRAMs, only those whose\n"
	"executable is named so (its file name, or its whole path), and exits 1\n"
	"when none is:\n"
	"\n"
	"  PID       the process ID\n"
	"  SAMPLING  active or paused ('heapprof toggle')\n"
	"  DUMPS     how many dumps it has written\n"
	"  LIVE      its estimated live heap, refreshed every second (KiB, MiB, GiB:\n"
	"            powers of 1024)\n"
	"  PROGRAM   its executable\n"
	"  PREFIX    where its dumps go (prof_prefix)\n"
	"A process heapprof attach loaded heapprof into shows 'attached <UTC>' after\n"
	"its prefix: its figures cover the allocations since.\n"
	"\n"
	"A process with the library mapped but no state published (its runtime\n"
	"directory was refused, or it does not profile: prof:false, prof_programs,\n"
	"run_only_top) shows '?'.  State files of processes that are gone are removed.\n"
	"\n"
	"  -q, --quiet   process IDs only, one per line\n"
	"  --json        a JSON array with one object per process, for scripts\n"
	"  -h, --help    show this help\n"
	"See heapprof(1).\n";

/* A byte count for people: "512 B", "1.5 KiB", "123.4 MiB", as the
 * library's log writes them. */
static void human(long long b, char *buf, size_t cap)
{
	const char *u[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	unsigned long long v = b < 0 ? 0 : (unsigned long long)b, scale = 1024;
	int i = 0;

	if (v < 1024) {
		snprintf(buf, cap, "%llu B", v);
		return;
	}
	/* One decimal, rounded; the next unit once that would read 1024.0. */
	while (i < 4 && (v * 10 + scale / 2) / scale >= 10240) {
		scale *= 1024;
		i++;
	}
	unsigned long long tenths = (v * 10 + scale / 2) / scale;
	snprintf(buf, cap, "%llu.%llu %s", tenths / 10, tenths % 10, u[i]);
}

static const char *sampling(const struct ps_row *r)
{
	if (!r->has_state)
		return "?";
	return r->st.active == 1 ? "active" : r->st.active == 0 ? "paused" : "?";
}

static const char *prefix(const struct ps_row *r)
{
	if (!r->has_state)
		return "(no state published)";
	return r->st.prefix[0] ? r->st.prefix : "(no automatic dumps)";
}

/* Whether program (a path) is one of those asked for: by its file name
 * or its whole path; any when none was. */
static int wanted(const struct listing *l, const char *program)
{
	return hp_proc_program_named(l->names, l->nnames, program);
}

static void add_row(struct listing *l, pid_t pid, const struct hp_proc_state *st)
{
	char prog[4096];

	if (l->n == l->cap) {
		l->cap = l->cap ? 2 * l->cap : 16;
		l->rows = realloc(l->rows, l->cap * sizeof(*l->rows));
		if (!l->rows) {
			fprintf(stderr, "heapprof ps: out of memory\n");
			exit(1);
		}
	}
	struct ps_row *r = &l->rows[l->n++];
	memset(r, 0, sizeof(*r));
	r->pid = pid;
	r->has_state = st && st->found;
	if (r->has_state) {
		r->st = *st;
	} else {
		hp_proc_program(pid, prog, sizeof(prog));
	}
	const char *p = r->has_state ? r->st.program : prog;
	if (!wanted(l, p)) {
		l->n--;
		return;
	}
	r->program = hp_strtab_sanitize(p, strlen(p));
}

static void print_table(const struct listing *l)
{
	int wpid = 3, wprog = 7, wlive = 4, wdumps = 5;
	char live[32], num[32];

	for (size_t i = 0; i < l->n; i++) {
		const struct ps_row *r = &l->rows[i];
		int n = snprintf(num, sizeof(num), "%d", (int)r->pid);
		wpid = n > wpid ? n : wpid;
		n = (int)strlen(r->program);
		wprog = n > wprog ? n : wprog;
		if (r->has_state) {
			human(r->st.live_bytes, live, sizeof(live));
			n = (int)strlen(live);
			wlive = n > wlive ? n : wlive;
			n = snprintf(num, sizeof(num), "%u", r->st.dumps);
			wdumps = n > wdumps ? n : wdumps;
		}
	}
	printf("%-*s  %-8s  %*s  %*s  %-*s  %s\n", wpid, "PID", "SAMPLING", wdumps, "DUMPS", wlive,
	       "LIVE", wprog, "PROGRAM", "PREFIX");
	for (size_t i = 0; i < l->n; i++) {
		const struct ps_row *r = &l->rows[i];
		if (r->has_state) {
			human(r->st.live_bytes, live, sizeof(live));
			snprintf(num, sizeof(num), "%u", r->st.dumps);
		} else {
			snprintf(live, sizeof(live), "?");
			snprintf(num, sizeof(num), "?");
		}
		printf("%-*d  %-8s  %*s  %*s  %-*s  %s", wpid, (int)r->pid, sampling(r), wdumps, num,
		       wlive, live, wprog, r->program, prefix(r));
		if (r->has_state && r->st.attached)
			printf("  attached %s", r->st.started);
		putchar('\n');
	}
}

static void json_str(struct hp_buf *b, const char *s)
{
	char *clean = hp_strtab_sanitize(s, strlen(s));

	hp_buf_json_str(b, clean);
	free(clean);
}

static void print_json(const struct listing *l)
{
	struct hp_buf b = { 0 };

	hp_buf_char(&b, '[');
	for (size_t i = 0; i < l->n; i++) {
		const struct ps_row *r = &l->rows[i];
		hp_buf_printf(&b, "%s\n  {\"pid\": %d, \"program\": ", i ? "," : "", (int)r->pid);
		json_str(&b, r->program);
		hp_buf_printf(&b, ", \"state\": %s", r->has_state ? "true" : "false");
		if (r->has_state) {
			const struct hp_proc_state *st = &r->st;
			hp_buf_str(&b, ", \"sampling\": ");
			hp_buf_str(&b, st->active == 1 ? "\"active\"" : st->active == 0 ? "\"paused\"" : "null");
			hp_buf_printf(&b, ", \"dumps\": %u, \"live_bytes\": %lld, \"prefix\": ", st->dumps,
				      st->live_bytes);
			json_str(&b, st->prefix);
			hp_buf_str(&b, ", \"last_dump\": ");
			if (st->last_dump[0])
				json_str(&b, st->last_dump);
			else
				hp_buf_str(&b, "null");
			hp_buf_str(&b, ", \"started\": ");
			if (st->started[0])
				json_str(&b, st->started);
			else
				hp_buf_str(&b, "null");
			hp_buf_printf(&b, ", \"lg_prof_sample\": %d", st->lg_prof_sample);
			hp_buf_printf(&b, ", \"attached\": %s", st->attached ? "true" : "false");
		}
		hp_buf_char(&b, '}');
	}
	hp_buf_str(&b, l->n ? "\n]\n" : "]\n");
	fwrite(b.p, 1, b.len, stdout);
	hp_buf_release(&b);
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
	hp_proc_fresh_live(&st);
	if (l->n < MAX_PIDS)
		add_row(l, st.pid, &st);
}

/* A temporary ".<pid>.<pid>.<n>.tmp" (".bell.<pid>...", a bell's) whose
 * writer is gone. */
static void one_temp(const char *path, void *arg)
{
	const char *base = strrchr(path, '/');
	const char *name = base ? base + 1 : path;
	int pid = atoi(name + (strncmp(name, ".bell.", 6) ? 1 : 6));

	(void)arg;
	if (pid > 0 && kill(pid, 0) != 0 && errno == ESRCH)
		unlink(path);
}

/* A bell ("bell.<pid>") no live process maps: its process is gone, or
 * the pid now belongs to a process that maps another (or none). */
static void one_bell(const char *path, void *arg)
{
	const char *base = strrchr(path, '/');
	int pid = atoi(base ? base + 6 : path + 5);
	char mapped[PATH_MAX];

	(void)arg;
	if (pid <= 0)
		return;
	if (kill(pid, 0) != 0 && errno == ESRCH) {
		unlink(path);
		return;
	}
	if (access("/proc/self", R_OK) == 0 && access(path, W_OK) == 0 &&
	    (!hp_proc_bell_path(pid, mapped, sizeof(mapped), NULL) || strcmp(mapped, path)) &&
	    hp_proc_has_heapprof(pid) == false && errno == 0)
		unlink(path);
}

static int listed(const struct listing *l, pid_t pid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->rows[i].pid == pid)
			return 1;
	return 0;
}

static int by_pid(const void *a, const void *b)
{
	const struct ps_row *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Reads the options and program names into l; -1 when the command is
 * done (help, or a usage error in *status). */
static int parse_ps(int argc, char **argv, struct listing *l, int *status)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-q") || !strcmp(argv[i], "--quiet")) {
			l->quiet = 1;
		} else if (!strcmp(argv[i], "--json")) {
			l->json = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(help_text, stdout);
			*status = 0;
			return -1;
		} else if (argv[i][0] == '-') {
			*status = hp_usage_error("ps", "unknown option '%s'", argv[i]);
			return -1;
		} else if (!argv[i][0]) {
			*status = hp_usage_error("ps", "an empty program name%s", "");
			return -1;
		} else {
			l->names[l->nnames++] = argv[i];
		}
	}
	if (l->quiet && l->json) {
		*status = hp_usage_error("ps", "choose one of -q and --json");
		return -1;
	}
	return 0;
}

int hp_cmd_ps(int argc, char **argv)
{
	struct listing l = { 0 };
	int status;

	l.names = calloc((size_t)argc, sizeof(*l.names));
	if (parse_ps(argc, argv, &l, &status)) {
		free(l.names);
		return status;
	}
	hp_proc_each_state(one_state, &l);
	hp_proc_each_temp(one_temp, NULL);
	hp_proc_each_bell(one_bell, NULL);
	/* Processes with the library mapped but no state file. */
	DIR *d = opendir("/proc");
	struct dirent *e;
	while (d && (e = readdir(d)) && l.n < MAX_PIDS) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(e->d_name);
		if (pid == getpid() || listed(&l, pid) || !hp_proc_has_heapprof(pid))
			continue;
		struct hp_proc_state st;
		add_row(&l, pid, hp_proc_read_state(pid, &st) ? &st : NULL);
	}
	if (d)
		closedir(d);
	if (l.n)
		qsort(l.rows, l.n, sizeof(*l.rows), by_pid);
	if (l.json)
		print_json(&l);
	else if (l.quiet)
		for (size_t i = 0; i < l.n; i++)
			printf("%d\n", (int)l.rows[i].pid);
	else
		print_table(&l);
	for (size_t i = 0; i < l.n; i++)
		free(l.rows[i].program);
	free(l.rows);
	free(l.names);
	/* As pgrep: a script asking for a program learns whether it runs. */
	return l.nnames && !l.n;
}
