/*
 * cmd_serve.c -- heapprof serve: a pull endpoint for fleet tools.  Each
 * profiled process of the user (those heapprof ps lists) is served as
 * /debug/pprof/heap?pid=N, a fresh dump converted to profile.proto, which
 * go tool pprof and Parca's pprof scraping read; / and /debug/pprof/ list
 * the processes (HTML, or JSON with ?format=json) and /targets lists them
 * for Prometheus-style HTTP service discovery (Parca's http_sd_configs);
 * /metrics gives their figures in Prometheus' text format; /ui?pid=N is
 * the explorer page (explore.html), which calls /api/....
 *
 * Owns the routes and the policy: the server's own user's processes only,
 * every user's when root asks with --all-users (each request then runs as
 * the process's user).  The HTTP server is httpd.c; asking for the dump,
 * ask.c; the conversion, the report engine's pprof writer (run in a
 * process of its own, as heapprof report --pprof would: it dies with one
 * line on bad input, which becomes the 500's text).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <regex.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/buf.h"
#include "report/report.h"
#include "report/ropts.h"
#include "report/input.h"
#include "ask.h"
#include "leakcheck.h"
#include "cmds.h"
#include "httpd.h"
#include "proc.h"
#include "push.h"

/* How long converting a dump may take (symbolizing large binaries). */
#define CONVERT_SECONDS 60
/* The longest delta profile (?seconds=N): it holds a connection and one
 * of the HP_HTTPD_MAX_WORKERS workers that long. */
#define DELTA_MAX_SECONDS 600

static const char usage_text[] =
	"usage: heapprof serve [--listen ADDRESS:PORT] [options] [PROGRAM...]\n"
	"Serves the heap profiles of this user's profiled processes over HTTP, for\n"
	"go tool pprof, Parca and other pprof scrapers; given PROGRAM names (a file\n"
	"name or a whole path, as heapprof ps takes them), only those programs':\n"
	"  /debug/pprof/heap?pid=N   a fresh dump of process N as profile.proto\n"
	"  /debug/pprof/heap?pid=N&seconds=S\n"
	"                            a delta profile: what changed over S seconds\n"
	"                            (at most 600; go tool pprof -seconds S)\n"
	"  /debug/leaks?pid=N        a leak check of process N now, as heapprof leaks\n"
	"                            prints it (&format=json, &confirm=N&interval=S)\n"
	"  /, /debug/pprof/          the processes (HTML; ?format=json for JSON)\n"
	"  /targets                  the processes for Prometheus HTTP service\n"
	"                            discovery (Parca's http_sd_configs)\n"
	"  /metrics                  the processes' live heap, RSS, dumps and\n"
	"                            sampling for Prometheus (its text format)\n"
	"  /ui?pid=N                 the explorer: process N's heap over time, its\n"
	"                            dumps as tables, flame graphs and source\n"
	"\n"
	"  --listen ADDR:PORT   where to listen (default 127.0.0.1:6060; port 0 picks\n"
	"                       a free one); an address that is not loopback is\n"
	"                       served with a warning: there is no authentication\n"
	"  --all-users          as root: every user's processes (default: root's)\n"
	"  --timeout SECONDS    how long to wait for a process's dump (default 10)\n"
	"  --client-timeout SECONDS\n"
	"                       how long a client may take to send its request or\n"
	"                       to take the answer (default 10)\n"
	"  --push URL           also send each profiled process's heap profile to\n"
	"                       Pyroscope at URL (http://HOST:PORT; POST URL/ingest)\n"
	"  --push-interval SECONDS  how often (default 15)\n"
	"  --push-app NAME      the application name (default: the program's name)\n"
	"  --push-label KEY=VALUE  a label of every profile pushed (repeatable)\n"
	"  -q, --quiet          no log line per request on standard error\n"
	"  -h, --help           show this help\n"
	"Stops on SIGINT or SIGTERM.  See heapprof(1).\n";

struct serve {
	bool all_users;
	char **programs;	/* the programs served; none: every one */
	size_t nprograms;
	double timeout;		/* for a dump */
	uid_t uid;		/* the server's effective user */
	pid_t self;		/* the server */
	const struct hp_httpd *h;
};

/* ---- processes --------------------------------------------------------- */

/* What /proc/pid/status says of pid's users and parent. */
struct serve_ids {
	unsigned uid[4], gid[4];	/* real, effective, saved, file system */
	pid_t ppid;
};

static bool read_ids(pid_t pid, struct serve_ids *ids)
{
	char path[64], line[512];
	int found = 0;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		unsigned *v = !strncmp(line, "Uid:", 4) ? ids->uid : !strncmp(line, "Gid:", 4) ? ids->gid : NULL;
		if (v && sscanf(line + 4, "%u %u %u %u", &v[0], &v[1], &v[2], &v[3]) == 4)
			found++;
		else if (!strncmp(line, "PPid:", 5) && sscanf(line + 5, "%d", &ids->ppid) == 1)
			found++;
	}
	fclose(f);
	return found == 3;
}

/* Whether the server may serve a process of these users: its own user's
 * (every one of the process's user IDs), or anyone's with --all-users. */
static bool allowed(const struct serve *s, const struct serve_ids *ids)
{
	if (s->all_users)
		return true;
	for (int i = 0; i < 4; i++)
		if (ids->uid[i] != s->uid)
			return false;
	return true;
}

struct serve_proc {
	pid_t pid;
	unsigned uid;
	bool has_state;
	struct hp_proc_state st;
	char prog[PATH_MAX];
	bool has_stats;			/* /metrics: its totals, asked of its helper thread */
	struct hp_ask_stats stats;
};

struct serve_list {
	struct serve_proc *e;
	size_t n, cap;
};

static int by_pid(const void *a, const void *b)
{
	const struct serve_proc *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Whether program (a path) is one of those served; any when none was
 * named. */
static bool program_served(const struct serve *s, const char *program)
{
	return hp_proc_program_named(s->programs, s->nprograms, program);
}

/* The processes served: the user's with heapprof loaded, as heapprof ps
 * finds them, but for the server and its workers, and only the programs
 * named. */
static void list_processes(const struct serve *s, struct serve_list *l)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	memset(l, 0, sizeof(*l));
	while (d && (de = readdir(d))) {
		struct serve_ids ids;
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		pid_t pid = (pid_t)atoi(de->d_name);
		if (pid == s->self || !read_ids(pid, &ids) || ids.ppid == s->self || !allowed(s, &ids) ||
		    !hp_proc_has_heapprof(pid))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? 2 * l->cap : 16;
			struct serve_proc *e = realloc(l->e, cap * sizeof(*e));
			if (!e)
				break;
			l->e = e;
			l->cap = cap;
		}
		struct serve_proc *e = &l->e[l->n++];
		e->pid = pid;
		e->uid = ids.uid[1];
		e->has_state = hp_proc_read_state(pid, &e->st);
		if (e->has_state && e->st.program[0])
			snprintf(e->prog, sizeof(e->prog), "%s", e->st.program);
		else
			hp_proc_program(pid, e->prog, sizeof(e->prog));
		if (!program_served(s, e->prog))
			l->n--;
	}
	if (d)
		closedir(d);
	if (l->n > 1)
		qsort(l->e, l->n, sizeof(*l->e), by_pid);
}

/* ---- text, HTML and JSON ----------------------------------------------- */

/* A growable string (malloc'd; a failed allocation leaves it short). */
struct serve_str {
	char *p;
	size_t len, cap;
	bool failed;
};

__attribute__((format(printf, 2, 3)))
static void add(struct serve_str *b, const char *fmt, ...)
{
	va_list ap;

	for (int round = 0; round < 2 && !b->failed; round++) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int k = vsnprintf(b->p ? b->p + b->len : NULL, b->p ? room : 0, fmt, ap);
		va_end(ap);
		if (k < 0)
			return;
		if ((size_t)k < room) {
			b->len += (size_t)k;
			return;
		}
		size_t cap = b->cap ? b->cap : 1024;
		while (cap <= b->len + (size_t)k)
			cap *= 2;
		char *p = realloc(b->p, cap);
		if (!p) {
			b->failed = true;
			return;
		}
		b->p = p;
		b->cap = cap;
	}
}

static void add_html(struct serve_str *b, const char *s)
{
	for (; *s; s++) {
		const char *e = hp_buf_xml_entity(*s, 1);
		if (e)
			add(b, "%s", e);
		else
			add(b, "%c", *s);
	}
}

/* The length of the valid UTF-8 sequence at s, or 0. */
static int utf8_len(const unsigned char *s)
{
	int n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 && s[0] < 0xe0 ? 2 : 0;

	if (s[0] > 0xf4)
		return 0;
	for (int i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* s as a JSON string: escapes, and U+FFFD for bytes that are not UTF-8
 * (a program's path may hold anything; JSON and label values may not). */
static void add_json(struct serve_str *b, const char *s)
{
	add(b, "\"");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			add(b, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			add(b, "\\u%04x", *p);
		else if (*p < 0x80)
			add(b, "%c", *p);
		else {
			int n = utf8_len(p);
			if (n) {
				add(b, "%.*s", n, (const char *)p);
				p += n - 1;
			} else {
				add(b, "\\ufffd");
			}
		}
	}
	add(b, "\"");
}

static void human(long long v, char *buf, size_t cap)
{
	const char *u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double x = (double)v;
	int i = 0;

	while (x >= 1024 && i < 4) {
		x /= 1024;
		i++;
	}
	if (i == 0)
		snprintf(buf, cap, "%lld B", v);
	else
		snprintf(buf, cap, "%.1f %s", x, u[i]);
}

/* The server as the client named it (the Host header, when it looks like
 * one), else the address it listens on. */
static const char *host_of(const struct serve *s, const struct hp_httpd_req *req)
{
	size_t n = strlen(req->host);

	if (n && n < 256 && strspn(req->host, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
				   "0123456789.-:[]") == n)
		return req->host;
	return s->h->addr;
}

static const char *sampling(const struct serve_proc *e)
{
	if (!e->has_state)
		return NULL;
	return e->st.active == 1 ? "active" : e->st.active == 0 ? "paused" : NULL;
}

static void give(struct hp_httpd_resp *resp, struct serve_str *b, const char *type)
{
	if (b->failed) {
		hp_httpd_text(resp, 500, "out of memory");
	} else {
		resp->status = 200;
		resp->type = type;
		resp->body = b->p;
		resp->len = b->len;
		b->p = NULL;
	}
	free(b->p);
}

static void whose(const struct serve *s, char *buf, size_t cap)
{
	if (s->all_users)
		snprintf(buf, cap, "every user");
	else
		snprintf(buf, cap, "user %u", (unsigned)s->uid);
}

static void index_html(const struct serve *s, const struct hp_httpd_req *req, const struct serve_list *l,
		       struct hp_httpd_resp *resp)
{
	struct serve_str b = { 0 };
	char host[256] = "", who[64], live[32];

	gethostname(host, sizeof(host) - 1);
	whose(s, who, sizeof(who));
	add(&b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	    "<title>heapprof serve: ");
	add_html(&b, host);
	add(&b, "</title>\n<style>\n"
	    "body { font-family: sans-serif; margin: 2em; }\n"
	    "table { border-collapse: collapse; }\n"
	    "th, td { padding: 0.25em 0.8em; text-align: left; border-bottom: 1px solid #ddd; }\n"
	    "td.n { text-align: right; font-variant-numeric: tabular-nums; }\n"
	    "code { background: #f4f4f4; padding: 0.1em 0.3em; }\n"
	    "</style>\n</head>\n<body>\n<h1>heapprof serve</h1>\n<p>");
	add(&b, "%zu profiled process%s of %s on ", l->n, l->n == 1 ? "" : "es", who);
	add_html(&b, host);
	add(&b, ".  Each profile link asks the process for a fresh dump and answers it as "
	    "profile.proto (gzip).</p>\n");
	if (l->n) {
		add(&b, "<table>\n<tr><th>PID</th><th>user</th><th>sampling</th><th>dumps</th>"
		    "<th>live</th><th>program</th><th>profile</th></tr>\n");
		for (size_t i = 0; i < l->n; i++) {
			const struct serve_proc *e = &l->e[i];
			const char *smp = sampling(e);
			if (e->has_state)
				human(e->st.live_bytes, live, sizeof(live));
			add(&b, "<tr><td class=\"n\">%d</td><td class=\"n\">%u</td><td>%s</td>",
			    (int)e->pid, e->uid, smp ? smp : "?");
			if (e->has_state)
				add(&b, "<td class=\"n\">%u</td><td class=\"n\">%s</td>", e->st.dumps, live);
			else
				add(&b, "<td class=\"n\">?</td><td class=\"n\">?</td>");
			add(&b, "<td>");
			add_html(&b, e->prog);
			add(&b, "</td><td><a href=\"/ui?pid=%d\">explore</a> "
			    "<a href=\"/debug/pprof/heap?pid=%d\">heap</a> "
			    "<a href=\"/debug/leaks?pid=%d\">leaks</a></td></tr>\n", (int)e->pid, (int)e->pid,
			    (int)e->pid);
		}
		add(&b, "</table>\n<p>From a shell: <code>go tool pprof http://");
		add_html(&b, host_of(s, req));
		add(&b, "/debug/pprof/heap?pid=%d</code></p>\n", (int)l->e[0].pid);
	}
	add(&b, "<p>For programs: <a href=\"/?format=json\">this list in JSON</a>; "
	    "<a href=\"/targets\">targets</a> for Prometheus HTTP service discovery "
	    "(Parca's <code>http_sd_configs</code>).</p>\n</body>\n</html>\n");
	give(resp, &b, "text/html; charset=utf-8");
}

static void index_json(const struct serve *s, const struct serve_list *l, struct hp_httpd_resp *resp)
{
	struct serve_str b = { 0 };

	add(&b, "{\"all_users\":%s,\"uid\":%u,\"processes\":[", s->all_users ? "true" : "false",
	    (unsigned)s->uid);
	for (size_t i = 0; i < l->n; i++) {
		const struct serve_proc *e = &l->e[i];
		const char *smp = sampling(e);
		add(&b, "%s\n{\"pid\":%d,\"uid\":%u,\"program\":", i ? "," : "", (int)e->pid, e->uid);
		add_json(&b, e->prog);
		add(&b, ",\"profile\":\"/debug/pprof/heap?pid=%d\",\"sampling\":", (int)e->pid);
		if (smp)
			add(&b, "\"%s\"", smp);
		else
			add(&b, "null");
		if (e->has_state) {
			add(&b, ",\"dumps\":%u,\"live_bytes\":%lld,\"prefix\":", e->st.dumps, e->st.live_bytes);
			add_json(&b, e->st.prefix);
		} else {
			add(&b, ",\"dumps\":null,\"live_bytes\":null,\"prefix\":null");
		}
		add(&b, "}");
	}
	add(&b, "]}\n");
	give(resp, &b, "application/json");
}

/* ---- Prometheus --------------------------------------------------------- */

/* Counts of the requests served, by route, for serve's own metrics. */
enum route { R_INDEX, R_TARGETS, R_HEAP, R_METRICS, R_OTHER, R_COUNT };
static const char *const route_names[R_COUNT] = { "index", "targets", "heap", "metrics", "other" };
static unsigned long long route_hits[R_COUNT];
static time_t serve_started;

/* A label value: backslash, double quote and newline escaped. */
static void add_label(struct serve_str *b, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			add(b, "\\%c", *s);
		else if (*s == '\n')
			add(b, "\\n");
		else
			add(b, "%c", *s);
	}
}

/* VmRSS of pid in bytes, -1 when it cannot be read. */
static long long rss_of(pid_t pid)
{
	char path[64], line[256];
	long long kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6) && sscanf(line + 6, "%lld", &kb) == 1)
			break;
	fclose(f);
	return kb >= 0 ? kb * 1024 : -1;
}

/* The started= of a state file (YYYYMMDDTHHMMSSZ) as Unix time; 0 if none. */
static time_t started_of(const char *s)
{
	struct tm tm = { 0 };

	if (strlen(s) != 16 || sscanf(s, "%4d%2d%2dT%2d%2d%2dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
				      &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		return 0;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return timegm(&tm);
}

/* The last leak check of a running process (heapprof leaks, the
 * explorer, leak_check_interval_s): its verdict file beside the state
 * file.  False when there is none. */
struct last_leaks {
	long long bytes, objects, pause_us;
};

static bool last_leaks_of(const struct serve_proc *e, struct last_leaks *l)
{
	char path[PATH_MAX + 32], line[256];
	const char *slash = strrchr(e->st.path, '/');
	long long db = 0, dob = 0, ib = 0, iob = 0;
	int got = 0;

	if (!e->has_state || !slash)
		return false;
	snprintf(path, sizeof(path), "%.*s/leaks.%d", (int)(slash - e->st.path), e->st.path, (int)e->pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	l->pause_us = -1;
	while (fgets(line, sizeof(line), f) && got < 2) {
		if (sscanf(line, "direct_bytes=%lld direct_objects=%lld indirect_bytes=%lld indirect_objects=%lld",
			   &db, &dob, &ib, &iob) == 4)
			got++;
		else if (!strncmp(line, "live=", 5) && strstr(line, "pause_us="))
			l->pause_us = atoll(strstr(line, "pause_us=") + 9);
		else if (!strncmp(line, "leak ", 5))
			break;
	}
	fclose(f);
	l->bytes = db + ib;
	l->objects = dob + iob;
	return got == 1;
}

static void metric_head(struct serve_str *b, const char *name, const char *type, const char *help)
{
	add(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* One sample of a per-process metric. */
static void metric_proc(struct serve_str *b, const char *name, const struct serve_proc *e,
			long long v)
{
	const char *slash = strrchr(e->prog, '/');

	add(b, "%s{pid=\"%d\",program=\"", name, (int)e->pid);
	add_label(b, slash ? slash + 1 : e->prog);
	add(b, "\"} %lld\n", v);
}

/* Each process's totals from its helper thread (live objects, bytes
 * allocated, the peak): every bell rung first, then the answers awaited
 * together, 0.5 s at most in all; a process without a helper thread, or
 * that did not answer in time, has none (no signal is sent for them). */
#define TOTALS_WAIT_S 0.5
static void ask_totals(const struct serve *s, struct serve_list *l)
{
	struct hp_ask *a = calloc(l->n ? l->n : 1, sizeof(*a));
	bool *rung = calloc(l->n ? l->n : 1, sizeof(*rung));

	for (size_t i = 0; a && rung && i < l->n; i++)
		rung[i] = l->e[i].has_state && hp_ask_check(&a[i], l->e[i].pid, s->all_users) == HP_ASK_OK &&
			  hp_ask_stats_ring(&a[i]) == HP_ASK_OK;
	double deadline = hp_ask_now() + TOTALS_WAIT_S;
	for (size_t i = 0; a && rung && i < l->n; i++)
		l->e[i].has_stats = rung[i] && hp_ask_stats_wait(&a[i], deadline, &l->e[i].stats) == HP_ASK_OK;
	free(a);
	free(rung);
}

/* Prometheus' text exposition format (0.0.4): each profiled process's
 * figures, labelled pid and program, then serve's own. */
static void metrics_text(const struct serve *s, struct serve_list *l, struct serve_str *b)
{
	static const struct {
		const char *name, *type, *help;
	} m[] = {
		{ "heapprof_live_bytes", "gauge", "Heap live in the process, estimated from heapprof's "
		  "samples (exact with lg_prof_sample:0); since its start, or its heapprof attach." },
		{ "heapprof_rss_bytes", "gauge", "The process's resident set (VmRSS), beside its heap." },
		{ "heapprof_dumps_total", "counter", "Heap profiles the process wrote." },
		{ "heapprof_sampling_active", "gauge", "1 while heapprof samples, 0 while paused "
		  "(heapprof pause, SIGUSR2)." },
		{ "heapprof_sample_period_bytes", "gauge", "Mean bytes between samples "
		  "(2^lg_prof_sample; 1: every allocation)." },
		{ "heapprof_attached", "gauge", "1 when heapprof was attached to the running process "
		  "(heapprof attach): its figures start then." },
		{ "heapprof_start_time_seconds", "gauge", "When heapprof started in the process, "
		  "Unix time." },
		{ "heapprof_leaked_bytes", "gauge", "What the last leak check of the running process "
		  "found lost, direct and indirect (heapprof leaks; estimated at a sampled rate)." },
		{ "heapprof_leaked_objects", "gauge", "The same in objects." },
		{ "heapprof_live_objects", "gauge", "Objects live in the process, estimated as "
		  "heapprof_live_bytes (asked of its helper thread)." },
		{ "heapprof_allocated_bytes_total", "counter", "Bytes allocated since heapprof started "
		  "in the process (or its attach), estimated at a sampled rate." },
		{ "heapprof_allocated_objects_total", "counter", "The same in allocations." },
		{ "heapprof_peak_bytes", "gauge", "The most heap the process held at once since heapprof "
		  "started (exact mode only: lg_prof_sample:0)." },
	};

	for (size_t i = 0; i < l->n; i++)
		if (l->e[i].has_state)
			hp_proc_fresh_live(&l->e[i].st);
	ask_totals(s, l);
	for (size_t k = 0; k < sizeof(m) / sizeof(m[0]); k++) {
		metric_head(b, m[k].name, m[k].type, m[k].help);
		for (size_t i = 0; i < l->n; i++) {
			const struct serve_proc *e = &l->e[i];
			const struct hp_proc_state *st = &e->st;
			long long v;
			switch (k) {
			case 0: if (!e->has_state) continue; v = st->live_bytes; break;
			case 1: if ((v = rss_of(e->pid)) < 0) continue; break;
			case 2: if (!e->has_state) continue; v = st->dumps; break;
			case 3: if (!e->has_state) continue; v = st->active ? 1 : 0; break;
			case 4: if (!e->has_state) continue; v = 1LL << (st->lg_prof_sample & 63); break;
			case 5: if (!e->has_state) continue; v = st->attached ? 1 : 0; break;
			case 6: if (!e->has_state || !(v = started_of(st->started))) continue; break;
			case 7: case 8: {
				struct last_leaks ll;
				if (!last_leaks_of(e, &ll))
					continue;
				v = k == 7 ? ll.bytes : ll.objects;
				break;
			}
			default:
				if (!e->has_stats)
					continue;
				v = k == 9 ? e->stats.live_objects : k == 10 ? e->stats.alloc_bytes :
				    k == 11 ? e->stats.alloc_objects : e->stats.peak_bytes;
				if (v < 0)
					continue;   /* no exact peak at a sampled rate */
				break;
			}
			metric_proc(b, m[k].name, e, v);
		}
	}
	metric_head(b, "heapprof_serve_processes", "gauge", "Profiled processes heapprof serve sees.");
	add(b, "heapprof_serve_processes %zu\n", l->n);
	metric_head(b, "heapprof_serve_requests_total", "counter", "Requests heapprof serve "
		    "answered, by route.");
	for (int r = 0; r < R_COUNT; r++)
		add(b, "heapprof_serve_requests_total{route=\"%s\"} %llu\n", route_names[r],
		    __atomic_load_n(&route_hits[r], __ATOMIC_RELAXED));
	metric_head(b, "heapprof_serve_start_time_seconds", "gauge", "When heapprof serve started, "
		    "Unix time.");
	add(b, "heapprof_serve_start_time_seconds %lld\n", (long long)serve_started);
	(void)s;
}

static void work_metrics(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			 volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	struct serve_list l;
	struct serve_str b = { 0 };

	(void)req;
	(void)stop;
	list_processes(s, &l);
	metrics_text(s, &l, &b);
	give(resp, &b, "text/plain; version=0.0.4; charset=utf-8");
	free(l.e);
}

/* ---- the routes -------------------------------------------------------- */

static void work_index(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
		       volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	struct serve_list l;
	char fmt[16] = "";

	(void)stop;
	hp_httpd_query(req->query, "format", fmt, sizeof(fmt));
	list_processes(s, &l);
	if (!strcmp(fmt, "json"))
		index_json(s, &l, resp);
	else
		index_html(s, req, &l, resp);
	free(l.e);
}

/* Prometheus HTTP service discovery: one target group per process, whose
 * __param_pid label becomes the scrape's ?pid=N. */
static void work_targets(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			 volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	struct serve_list l;
	struct serve_str b = { 0 };

	(void)stop;
	list_processes(s, &l);
	add(&b, "[");
	for (size_t i = 0; i < l.n; i++) {
		add(&b, "%s\n{\"targets\":[", i ? "," : "");
		add_json(&b, host_of(s, req));
		add(&b, "],\"labels\":{\"__param_pid\":\"%d\",\"pid\":\"%d\",\"program\":", (int)l.e[i].pid,
		    (int)l.e[i].pid);
		add_json(&b, l.e[i].prog);
		add(&b, "}}");
	}
	add(&b, "]\n");
	give(resp, &b, "application/json");
	free(l.e);
}

/* /debug/pprof/heap without a pid: the one process there is (a redirect,
 * which pprof clients follow), or the choice. */
static void heap_choose(const struct serve *s, const struct hp_httpd_req *req,
			struct hp_httpd_resp *resp)
{
	struct serve_list l;
	char who[64], loc[96], secv[32], sec[48] = "";

	/* A delta profile stays one (checked by the handler: digits). */
	if (hp_httpd_query(req->query, "seconds", secv, sizeof(secv)) == 1)
		snprintf(sec, sizeof(sec), "&seconds=%s", secv);
	list_processes(s, &l);
	whose(s, who, sizeof(who));
	if (l.n == 0) {
		hp_httpd_text(resp, 404, "no profiled process of %s", who);
	} else if (l.n == 1) {
		snprintf(loc, sizeof(loc), "/debug/pprof/heap?pid=%d%s", (int)l.e[0].pid, sec);
		hp_httpd_text(resp, 302, "the only profiled process of %s is %d", who, (int)l.e[0].pid);
		hp_httpd_header(resp, "Location", loc);
	} else {
		struct serve_str b = { 0 };
		add(&b, "%zu profiled processes of %s; choose one with ?pid=N:\n", l.n, who);
		for (size_t i = 0; i < l.n; i++)
			add(&b, "/debug/pprof/heap?pid=%d%s %s\n", (int)l.e[i].pid, sec, l.e[i].prog);
		snprintf(resp->note, sizeof(resp->note), "%zu processes to choose from", l.n);
		give(resp, &b, "text/plain; charset=utf-8");
		if (resp->status == 200)
			resp->status = 300;
		hp_httpd_header(resp, "X-Go-Pprof", "1");
	}
	free(l.e);
}

/* Becomes the process's user (root serving another user's process):
 * what follows (its runtime directory, its dump, the conversion) is
 * done with no more rights than it has. */
static int become(const struct serve_ids *ids)
{
	uid_t u = ids->uid[1];
	gid_t g = ids->gid[1];

	if (geteuid() != 0 || u == 0)
		return 0;
	if (setgroups(0, NULL) != 0 || setresgid(g, g, g) != 0 || setresuid(u, u, u) != 0)
		return -1;
	return 0;
}

/* What convert() makes of a dump: the difference from a base dump, and
 * the profile's time and duration (ns), for a delta profile; none of
 * them for a plain one.  The explorer's views choose the report's format
 * and value too (format 0: pprof). */
struct serve_delta {
	const char *base;
	long long time_ns, duration_ns;
	int format;		/* enum hp_ropts_format; 0 for pprof */
	int value_opt;		/* HP_ROPTS_OPT_INUSE_SPACE...; 0: the default */
	bool peak, temporary;
	const char *list;	/* with HP_ROPTS_FMT_LIST: the regular expression */
	bool age;		/* report --age (its --json or --html) */
	double warmup;		/* --warmup in seconds; < 0: the default */
};

/* In convert's child: the report's options for d (exits 1 with the
 * report's own line on a bad one). */
static void render_opts(struct hp_ropts *o, const struct serve_delta *d)
{
	hp_ropts_format(o, d && d->format ? d->format : HP_ROPTS_FMT_PPROF);
	if (!d)
		return;
	if (d->base) {
		static const char *base[1];
		base[0] = d->base;
		o->base = base;
		o->nbase = 1;
	}
	o->time_ns = d->time_ns;
	o->duration_ns = d->duration_ns;
	if (d->value_opt && hp_ropts_common(o, d->value_opt, NULL) < 0)
		exit(1);
	o->peak = d->peak;
	o->temporary = d->temporary;
	o->age = d->age;
	if (d->age)
		o->warmup = d->warmup;
	if (d->list) {
		char msg[256];
		int err = regcomp(&o->list, d->list, REG_EXTENDED | REG_NOSUB);
		if (err) {
			regerror(err, &o->list, msg, sizeof(msg));
			fprintf(stderr, "heapprof: the function '%s' is not a regular expression: %s\n",
				d->list, msg);
			exit(1);
		}
		o->list_text = d->list;
	}
}

/* Converts dump to gzipped profile.proto with the report engine, in a
 * process of its own (its errors are fatal there), minus d->base when d
 * is not NULL.  Returns 0 with the bytes in *out, or -1 with one line in
 * err. */
static int convert(const char *dump, const struct serve_delta *d, char **out, size_t *len,
		   char *err, size_t cap, volatile sig_atomic_t *stop)
{
	char msg[4096];
	size_t mlen = 0;
	int ep[2], st = 0;
	int mfd = memfd_create("heapprof-serve", MFD_CLOEXEC);

	if (mfd < 0 || pipe2(ep, O_CLOEXEC) != 0) {
		snprintf(err, cap, "cannot convert the dump: %s", strerror(errno));
		if (mfd >= 0)
			close(mfd);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		struct hp_ropts o;
		char *dumps[] = { (char *)dump };
		dup2(mfd, 1);
		dup2(ep[1], 2);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		hp_ropts_init(&o, "serve");
		render_opts(&o, d);
		exit(hp_report_run(&o, dumps, 1));
	}
	close(ep[1]);
	if (pid < 0) {
		snprintf(err, cap, "cannot convert the dump: %s", strerror(errno));
		close(ep[0]);
		close(mfd);
		return -1;
	}
	/* Its messages, until it closes its end: the last line is why. */
	double deadline = hp_ask_now() + CONVERT_SECONDS;
	bool late = false;
	for (;;) {
		struct pollfd p = { .fd = ep[0], .events = POLLIN };
		double left = deadline - hp_ask_now();
		if (left <= 0 || *stop) {
			late = true;
			kill(pid, SIGKILL);
			break;
		}
		int r = poll(&p, 1, left > 0.2 ? 200 : (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		if (mlen == sizeof(msg) - 1)
			mlen = 0;   /* keep the end */
		ssize_t k = read(ep[0], msg + mlen, sizeof(msg) - 1 - mlen);
		if (k <= 0 && !(k < 0 && errno == EINTR))
			break;
		if (k > 0)
			mlen += (size_t)k;
	}
	close(ep[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	msg[mlen] = '\0';
	if (!late && WIFEXITED(st) && WEXITSTATUS(st) == 0) {
		struct stat sb;
		if (fstat(mfd, &sb) == 0 && (*out = malloc(sb.st_size ? (size_t)sb.st_size : 1)) &&
		    pread(mfd, *out, (size_t)sb.st_size, 0) == sb.st_size) {
			*len = (size_t)sb.st_size;
			close(mfd);
			return 0;
		}
		snprintf(err, cap, "cannot read the converted dump: %s", strerror(errno));
		close(mfd);
		return -1;
	}
	close(mfd);
	/* The last non-empty line, without its "heapprof: ". */
	while (mlen && msg[mlen - 1] == '\n')
		msg[--mlen] = '\0';
	char *last = strrchr(msg, '\n');
	last = last ? last + 1 : msg;
	if (!strncmp(last, "heapprof: ", 10))
		last += 10;
	if (late && *stop)
		snprintf(err, cap, "heapprof serve is shutting down");
	else if (late)
		snprintf(err, cap, "converting the dump took longer than %d s", CONVERT_SECONDS);
	else if (*last)
		snprintf(err, cap, "%.*s", (int)cap - 1, last);
	else
		snprintf(err, cap, "converting the dump failed (status %d)", WIFEXITED(st) ?
			 WEXITSTATUS(st) : 128 + WTERMSIG(st));
	return -1;
}

/* hp_ask_check, its refusals answered.  True when pid may be asked. */
static bool checked(struct hp_ask *a, pid_t pid, struct hp_httpd_resp *resp)
{
	switch (hp_ask_check(a, pid, true)) {
	case HP_ASK_OK:
		return true;
	case HP_ASK_NO_PROCESS:
		hp_httpd_text(resp, 404, "%s", a->msg);
		return false;
	case HP_ASK_NOT_LOADED:
		hp_httpd_text(resp, 404, "process %d (%s) is not profiled: heapprof is not loaded into it",
			      (int)pid, a->prog);
		return false;
	case HP_ASK_DENIED:
		hp_httpd_text(resp, 403, "%s", a->msg);
		return false;
	default:
		hp_httpd_text(resp, 409, "%s", a->msg);
		return false;
	}
}

/* A fresh dump of the checked process, its path (as the process wrote
 * it) in dump, or the failure answered.  True when there is one. */
static bool fresh_dump(const struct serve *s, struct hp_ask *a, volatile sig_atomic_t *stop,
		       char *dump, size_t cap, struct hp_httpd_resp *resp)
{
	switch (hp_ask_dump(a, s->timeout, stop, dump, cap)) {
	case HP_ASK_OK:
		return true;
	case HP_ASK_EXITED:
	case HP_ASK_NO_PROCESS:
		hp_httpd_text(resp, 404, "%s", a->msg);
		return false;
	case HP_ASK_DENIED:
		hp_httpd_text(resp, 403, "%s", a->msg);
		return false;
	case HP_ASK_CANNOT:
		hp_httpd_text(resp, 409, "%s", a->msg);
		return false;
	case HP_ASK_TIMEOUT:
		hp_httpd_text(resp, 504, "%s", a->msg);
		return false;
	case HP_ASK_STOPPED:
		hp_httpd_text(resp, 503, "heapprof serve is shutting down");
		return false;
	default:
		hp_httpd_text(resp, 500, "%s", a->msg);
		return false;
	}
}

/* Where the server reads a dump of pid: a relative name is relative to
 * the process's working directory. */
static void dump_path(pid_t pid, const char *dump, char *path, size_t cap)
{
	if (dump[0] == '/')
		snprintf(path, cap, "%s", dump);
	else
		snprintf(path, cap, "/proc/%d/cwd/%s", (int)pid, dump);
}

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A delta profile's wait between its two dumps.  False, with the answer,
 * when the process ends meanwhile or the server stops. */
static bool delta_wait(pid_t pid, int seconds, volatile sig_atomic_t *stop, struct hp_httpd_resp *resp)
{
	double until = hp_ask_now() + seconds;

	for (;;) {
		if (*stop) {
			hp_httpd_text(resp, 503, "heapprof serve is shutting down");
			return false;
		}
		if ((kill(pid, 0) != 0 && errno == ESRCH) || hp_proc_is_zombie(pid, NULL)) {
			hp_httpd_text(resp, 404, "process %d exited during the %d s of the delta profile",
				      (int)pid, seconds);
			return false;
		}
		double left = until - hp_ask_now();
		if (left <= 0)
			return true;
		hp_ask_pause_ms(left > 0.1 ? 100 : (int)(left * 1000) + 1);
	}
}

/* Whether process pid (program prog) is of a program this server was
 * told to serve; the refusal answered when not.  Its state file's program
 * counts as list_processes counts it. */
static bool program_named(const struct serve *s, pid_t pid, const char *prog, struct hp_httpd_resp *resp)
{
	struct hp_proc_state st;

	if (program_served(s, prog) ||
	    (hp_proc_read_state(pid, &st) && st.program[0] && program_served(s, st.program)))
		return true;
	hp_httpd_text(resp, 403, "process %d (%s) is not one of the programs this server serves (%s%s)",
		      (int)pid, prog, s->programs[0], s->nprograms > 1 ? ", ..." : "");
	return false;
}

/* In a worker: process pid as this server may serve it, its user taken
 * (root serving another user's), checked for asking.  False when not,
 * with the refusal answered. */
static bool take_process(const struct serve *s, pid_t pid, struct hp_ask *a,
			 struct hp_httpd_resp *resp)
{
	struct serve_ids ids;
	char prog[PATH_MAX], who[64];

	if (!read_ids(pid, &ids)) {
		hp_httpd_text(resp, 404, "no process %d", (int)pid);
		return false;
	}
	hp_proc_program(pid, prog, sizeof(prog));
	if (!allowed(s, &ids)) {
		whose(s, who, sizeof(who));
		hp_httpd_text(resp, 403, "process %d (%s) belongs to user %u: this server serves the "
			      "processes of %s only%s", (int)pid, prog, ids.uid[1], who,
			      s->uid == 0 ? " (--all-users serves every user's)" : "");
		return false;
	}
	if (!program_named(s, pid, prog, resp))
		return false;
	if (become(&ids) != 0) {
		hp_httpd_text(resp, 500, "cannot take the user of process %d: %s", (int)pid,
			      strerror(errno));
		return false;
	}
	return checked(a, pid, resp);
}

static void work_heap(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
		      volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	static struct hp_ask a;
	char pidv[32], dump[PATH_MAX], path[PATH_MAX + 64], err[1024];
	char base[PATH_MAX], base_path[PATH_MAX + 64];

	if (hp_httpd_query(req->query, "pid", pidv, sizeof(pidv)) != 1) {
		heap_choose(s, req, resp);
		return;
	}
	pid_t pid = (pid_t)atoi(pidv);   /* checked by the handler */
	if (!take_process(s, pid, &a, resp))
		return;
	if (req->head) {
		/* Whether a GET would be answered, without asking for a dump. */
		resp->status = 200;
		resp->type = "application/octet-stream";
		resp->no_length = 1;
		return;
	}
	char secv[32];
	int seconds = hp_httpd_query(req->query, "seconds", secv, sizeof(secv)) == 1 ? atoi(secv) : 0;
	struct serve_delta delta = { 0 };
	if (seconds) {
		/* Go's net/http/pprof: a profile now and one seconds later,
		 * the first subtracted from the second. */
		if (!fresh_dump(s, &a, stop, base, sizeof(base), resp))
			return;
		long long t0 = realtime_ns();
		if (!delta_wait(pid, seconds, stop, resp) || !checked(&a, pid, resp))
			return;
		if (!fresh_dump(s, &a, stop, dump, sizeof(dump), resp))
			return;
		delta.time_ns = realtime_ns();
		delta.duration_ns = delta.time_ns - t0;
		dump_path(pid, base, base_path, sizeof(base_path));
		delta.base = base_path;
	} else if (!fresh_dump(s, &a, stop, dump, sizeof(dump), resp)) {
		return;
	}
	dump_path(pid, dump, path, sizeof(path));
	char *body = NULL;
	size_t len = 0;
	if (convert(path, seconds ? &delta : NULL, &body, &len, err, sizeof(err), stop) != 0) {
		hp_httpd_text(resp, *stop ? 503 : 500, "%s", err);
		return;
	}
	resp->status = 200;
	resp->type = "application/octet-stream";
	resp->body = body;
	resp->len = len;
	char disp[96];
	snprintf(disp, sizeof(disp), "attachment; filename=\"heap.%d%s.pb.gz\"", (int)pid,
		 seconds ? ".delta" : "");
	hp_httpd_header(resp, "Content-Disposition", disp);
	hp_httpd_header(resp, "X-Heapprof-Dump", dump);
	if (seconds) {
		hp_httpd_header(resp, "X-Heapprof-Base", base);
		snprintf(resp->note, sizeof(resp->note), "%.*s minus %.*s", (int)sizeof(resp->note) / 2 - 8,
			 dump, (int)sizeof(resp->note) / 2 - 8, base);
	} else {
		snprintf(resp->note, sizeof(resp->note), "%.*s", (int)sizeof(resp->note) - 1, dump);
	}
}

/* /debug/leaks?pid=N: a leak check of process N now (leakcheck.h), as
 * heapprof leaks prints it (format=json: its JSON); confirm=N and
 * interval=S as its --confirm and --interval.  200 whether or not
 * something leaked; the X-Heapprof-Leaked header says which. */
static void work_leaks(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
		       volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	struct serve_ids ids;
	struct hp_leakcheck_opts o = { 0 };
	struct hp_buf out = { 0 };
	enum hp_ask_status st;
	char v[64], prog[PATH_MAX], who[64], msg[PATH_MAX + 512];

	hp_httpd_query(req->query, "pid", v, sizeof(v));
	o.pid = (pid_t)atoi(v);   /* checked by the handler */
	o.json = hp_httpd_query(req->query, "format", v, sizeof(v)) == 1 && !strcmp(v, "json");
	o.confirm = hp_httpd_query(req->query, "confirm", v, sizeof(v)) == 1 ? (unsigned)atoi(v) : 1;
	o.interval = hp_httpd_query(req->query, "interval", v, sizeof(v)) == 1 ? atof(v) : HP_LEAKCHECK_INTERVAL;
	o.timeout = s->timeout;
	o.any_user = true;   /* the server took the process's user */
	o.stop = stop;
	if (!read_ids(o.pid, &ids)) {
		hp_httpd_text(resp, 404, "no process %d", (int)o.pid);
		return;
	}
	hp_proc_program(o.pid, prog, sizeof(prog));
	if (!allowed(s, &ids)) {
		whose(s, who, sizeof(who));
		hp_httpd_text(resp, 403, "process %d (%s) belongs to user %u: this server serves the "
			      "processes of %s only%s", (int)o.pid, prog, ids.uid[1], who,
			      s->uid == 0 ? " (--all-users serves every user's)" : "");
		return;
	}
	if (!program_named(s, o.pid, prog, resp))
		return;
	if (become(&ids) != 0) {
		hp_httpd_text(resp, 500, "cannot take the user of process %d: %s", (int)o.pid, strerror(errno));
		return;
	}
	int r = hp_leakcheck_run(&o, &out, msg, sizeof(msg), &st);
	if (r < 0) {
		int code = st == HP_ASK_NO_PROCESS || st == HP_ASK_EXITED || st == HP_ASK_NOT_LOADED ? 404 :
			   st == HP_ASK_DENIED ? 403 : st == HP_ASK_CANNOT ? 409 : st == HP_ASK_TIMEOUT ? 504 :
			   st == HP_ASK_STOPPED ? 503 : 500;
		hp_httpd_text(resp, code, "%s", st == HP_ASK_STOPPED ? "heapprof serve is shutting down" : msg);
		hp_buf_release(&out);
		return;
	}
	resp->status = 200;
	resp->type = o.json ? "application/json" : "text/plain; charset=utf-8";
	hp_httpd_header(resp, "X-Heapprof-Leaked", r ? "yes" : "no");
	resp->body = out.p;
	resp->len = out.len;
}

/* ---- the explorer ------------------------------------------------------ */

/* The page: HTML, style and script in one (explore.c builds it in). */
extern const char hp_explore_html[];

static void work_ui(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
		    volatile sig_atomic_t *stop)
{
	(void)req;
	(void)arg;
	(void)stop;
	resp->status = 200;
	resp->type = "text/html; charset=utf-8";
	resp->body = strdup(hp_explore_html);
	resp->len = resp->body ? strlen(resp->body) : 0;
	if (!resp->body)
		hp_httpd_text(resp, 500, "out of memory");
	hp_httpd_header(resp, "Content-Security-Policy",
			"default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
			"img-src 'self' data:; frame-ancestors 'self'");
}

/* ?pid=N, a process ID (checked by the handler). */
static pid_t query_pid(const struct hp_httpd_req *req)
{
	char v[32];

	return hp_httpd_query(req->query, "pid", v, sizeof(v)) == 1 ? (pid_t)atoi(v) : 0;
}

/* Where pid's dumps are: the directory of its prof_prefix (relative to
 * its working directory when the prefix is) and the names' start,
 * "<prefix's name>.<pid>.".  False when it writes no dumps. */
static bool dumps_dir(pid_t pid, const char *prefix, char *dir, size_t dcap, char *head, size_t hcap)
{
	const char *slash = strrchr(prefix, '/');

	if (!*prefix || (slash && !slash[1]))
		return false;
	if (prefix[0] == '/')
		snprintf(dir, dcap, "%.*s", (int)(slash - prefix) ? (int)(slash - prefix) : 1, prefix);
	else if (slash)
		snprintf(dir, dcap, "/proc/%d/cwd/%.*s", (int)pid, (int)(slash - prefix), prefix);
	else
		snprintf(dir, dcap, "/proc/%d/cwd", (int)pid);
	snprintf(head, hcap, "%s.%d.", slash ? slash + 1 : prefix, (int)pid);
	return true;
}

struct dump_entry {
	char name[NAME_MAX + 1];
	unsigned long long seq;
	long long size;
};

static int by_seq(const void *a, const void *b)
{
	const struct dump_entry *x = a, *y = b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The dumps of the process, in order, into *out (malloc'd); -1 when its
 * directory cannot be read. */
static long list_dumps(const char *dir, const char *head, struct dump_entry **out)
{
	DIR *d = opendir(dir);
	size_t n = 0, cap = 0, hl = strlen(head);
	struct dump_entry *e = NULL;

	*out = NULL;
	if (!d)
		return -1;
	for (struct dirent *de; (de = readdir(d));) {
		size_t len = strlen(de->d_name);
		if (strncmp(de->d_name, head, hl) || len < hl + 6 || strcmp(de->d_name + len - 5, ".heap"))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 32;
			struct dump_entry *m = realloc(e, cap * sizeof(*e));
			if (!m)
				break;
			e = m;
		}
		struct stat st;
		char path[PATH_MAX + NAME_MAX + 2];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		snprintf(e[n].name, sizeof(e[n].name), "%s", de->d_name);
		e[n].seq = strtoull(de->d_name + hl, NULL, 10);
		e[n].size = stat(path, &st) == 0 ? (long long)st.st_size : -1;
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(e, n, sizeof(*e), by_seq);
	*out = e;
	return (long)n;
}

/* GET /api/state?pid=N: the figures the timeline draws, now. */
static void work_api_state(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			   volatile sig_atomic_t *stop)
{
	static struct hp_ask a;
	struct serve_str b = { 0 };
	struct timespec now;
	pid_t pid = query_pid(req);

	(void)stop;
	if (!take_process(arg, pid, &a, resp))
		return;
	hp_proc_fresh_live(&a.st);
	clock_gettime(CLOCK_REALTIME, &now);
	add(&b, "{\"pid\":%d,\"program\":", (int)pid);
	add_json(&b, a.prog);
	add(&b, ",\"time_ms\":%lld,\"live_bytes\":%lld,\"rss_bytes\":%lld,\"dumps\":%u,\"active\":%s,"
	    "\"lg_prof_sample\":%d,\"attached\":%s,\"writes_dumps\":%s}\n",
	    (long long)now.tv_sec * 1000 + now.tv_nsec / 1000000, a.st.live_bytes, rss_of(pid),
	    a.st.dumps, a.st.active ? "true" : "false", a.st.lg_prof_sample,
	    a.st.attached ? "true" : "false", a.st.prefix[0] ? "true" : "false");
	give(resp, &b, "application/json");
}

/* GET /api/dumps?pid=N: the process's dumps, oldest first. */
static void work_api_dumps(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			   volatile sig_atomic_t *stop)
{
	static struct hp_ask a;
	struct serve_str b = { 0 };
	char dir[PATH_MAX], head[NAME_MAX + 1];
	struct dump_entry *e = NULL;
	pid_t pid = query_pid(req);

	(void)stop;
	if (!take_process(arg, pid, &a, resp))
		return;
	long n = dumps_dir(pid, a.st.prefix, dir, sizeof(dir), head, sizeof(head)) ?
		 list_dumps(dir, head, &e) : 0;
	add(&b, "{\"pid\":%d,\"dumps\":[", (int)pid);
	for (long i = 0; i < n; i++) {
		struct hp_input_name nm;
		hp_input_name_parse(e[i].name, &nm);
		add(&b, "%s\n{\"name\":", i ? "," : "");
		add_json(&b, e[i].name);
		add(&b, ",\"seq\":%llu,\"bytes\":%lld,\"time\":", e[i].seq, e[i].size);
		if (nm.has_time)
			add(&b, "%lld", (long long)nm.time);
		else
			add(&b, "null");
		add(&b, "}");
	}
	add(&b, "]}\n");
	free(e);
	give(resp, &b, "application/json");
}

/* POST /api/dump, /api/pause, /api/resume ?pid=N: the buttons. */
static void work_api_action(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			    volatile sig_atomic_t *stop)
{
	const struct serve *s = arg;
	static struct hp_ask a;
	struct serve_str b = { 0 };
	char dump[PATH_MAX];
	pid_t pid = query_pid(req);

	if (!take_process(s, pid, &a, resp))
		return;
	if (!strcmp(req->path, "/api/dump")) {
		if (!fresh_dump(s, &a, stop, dump, sizeof(dump), resp))
			return;
		const char *slash = strrchr(dump, '/');
		add(&b, "{\"dump\":");
		add_json(&b, slash ? slash + 1 : dump);
		add(&b, "}\n");
		give(resp, &b, "application/json");
		return;
	}
	int want = !strcmp(req->path, "/api/resume");
	if (a.st.active != want) {
		struct hp_proc_state now_st;
		enum hp_ask_status r = hp_ask_send(&a, want ? "resume" : "pause", a.st.signal_toggle,
						   "signal_toggle");
		if (r != HP_ASK_OK) {
			hp_httpd_text(resp, r == HP_ASK_DENIED ? 403 : 409, "%s", a.msg);
			return;
		}
		double deadline = hp_ask_now() + s->timeout;
		for (;;) {
			hp_ask_nudge(&a);
			if (hp_proc_read_state(pid, &now_st) && now_st.active == want)
				break;
			if (hp_ask_now() > deadline || *stop) {
				hp_ask_withdraw(&a);
				hp_httpd_text(resp, *stop ? 503 : 504, "process %d did not change its sampling "
					      "within %g s", (int)pid, s->timeout);
				return;
			}
			hp_ask_pause_ms(10);
		}
	}
	add(&b, "{\"active\":%s}\n", want ? "true" : "false");
	give(resp, &b, "application/json");
}

/* /api/view's age=1[&warmup=SECONDS]: report --age's JSON (view=top) or
 * its flame graph coloured by age (view=flame), of live bytes.  False
 * (answered 400) when the query is bad. */
static bool view_age(const struct hp_httpd_req *req, struct serve_delta *d,
		     struct hp_httpd_resp *resp)
{
	char v[32], *end;

	d->warmup = -1;
	int r = hp_httpd_query(req->query, "age", v, sizeof(v));
	if (r == 1 && strcmp(v, "0") && strcmp(v, "1")) {
		hp_httpd_text(resp, 400, "age: 0 or 1, not '%s'", v);
		return false;
	}
	d->age = r == 1 && !strcmp(v, "1");
	r = hp_httpd_query(req->query, "warmup", v, sizeof(v));
	if (r == 1 && *v) {
		if (!d->age) {
			hp_httpd_text(resp, 400, "warmup goes with age=1");
			return false;
		}
		errno = 0;
		double w = strtod(v, &end);
		if (!isdigit((unsigned char)v[0]) || strchr(v, 'x') || strchr(v, 'X') || *end || errno ||
		    !(w <= 1e9)) {
			hp_httpd_text(resp, 400, "warmup: want seconds, as 90 or 2.5, not '%s'", v);
			return false;
		}
		d->warmup = w;
	}
	if (d->age && (d->value_opt != HP_ROPTS_OPT_INUSE_SPACE || d->peak || d->temporary)) {
		hp_httpd_text(resp, 400, "age shows live bytes: value=inuse_space, or no value");
		return false;
	}
	return true;
}

/* GET /api/view?pid=N&dump=D[&base=B]&view=top|flame|list&value=V[&fn=RE]
 * [&age=1[&warmup=SECONDS]]:
 * one of the process's dumps (or its difference from an older one) as the
 * report engine renders it: JSON for the table and the callers and
 * callees, the flame graph's page, or the source lines of a function. */
static void work_api_view(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg,
			  volatile sig_atomic_t *stop)
{
	static const struct {
		const char *name;
		int opt;
		bool peak, temporary;
	} values[] = {
		{ "inuse_space", HP_ROPTS_OPT_INUSE_SPACE, false, false },
		{ "inuse_objects", HP_ROPTS_OPT_INUSE_OBJECTS, false, false },
		{ "alloc_space", HP_ROPTS_OPT_ALLOC_SPACE, false, false },
		{ "alloc_objects", HP_ROPTS_OPT_ALLOC_OBJECTS, false, false },
		{ "peak", 0, true, false },
		{ "temporary", 0, false, true },
	};
	static struct hp_ask a;
	char dumpv[NAME_MAX + 1], basev[NAME_MAX + 1], view[16], value[32], fn[512];
	char dir[PATH_MAX], head[NAME_MAX + 1], path[PATH_MAX + NAME_MAX + 2], bpath[sizeof(path)];
	char err[1024];
	struct serve_delta d = { 0 };
	pid_t pid = query_pid(req);

	if (hp_httpd_query(req->query, "dump", dumpv, sizeof(dumpv)) != 1 ||
	    hp_httpd_query(req->query, "view", view, sizeof(view)) != 1) {
		hp_httpd_text(resp, 400, "view: want ?pid=N&dump=NAME&view=top|flame|list");
		return;
	}
	if (hp_httpd_query(req->query, "value", value, sizeof(value)) != 1)
		snprintf(value, sizeof(value), "inuse_space");
	size_t vi = 0;
	while (vi < sizeof(values) / sizeof(values[0]) && strcmp(values[vi].name, value))
		vi++;
	if (vi == sizeof(values) / sizeof(values[0])) {
		hp_httpd_text(resp, 400, "value: inuse_space, inuse_objects, alloc_space, alloc_objects, "
			      "peak or temporary, not '%s'", value);
		return;
	}
	d.value_opt = values[vi].opt;
	d.peak = values[vi].peak;
	d.temporary = values[vi].temporary;
	if (!view_age(req, &d, resp))
		return;
	const char *type;
	if (!strcmp(view, "top")) {
		d.format = HP_ROPTS_FMT_JSON;
		type = "application/json";
	} else if (!strcmp(view, "flame")) {
		d.format = HP_ROPTS_FMT_HTML;
		type = "text/html; charset=utf-8";
	} else if (!strcmp(view, "list")) {
		if (d.age) {
			hp_httpd_text(resp, 400, "age: with view=top or flame, not list");
			return;
		}
		if (hp_httpd_query(req->query, "fn", fn, sizeof(fn)) != 1 || !*fn) {
			hp_httpd_text(resp, 400, "view=list needs fn, the function (a regular expression)");
			return;
		}
		d.format = HP_ROPTS_FMT_LIST;
		d.list = fn;
		type = "text/plain; charset=utf-8";
	} else {
		hp_httpd_text(resp, 400, "view: top, flame or list, not '%s'", view);
		return;
	}
	if (!take_process(arg, pid, &a, resp))
		return;
	if (!dumps_dir(pid, a.st.prefix, dir, sizeof(dir), head, sizeof(head))) {
		hp_httpd_text(resp, 409, "process %d writes no dumps (an empty prof_prefix)", (int)pid);
		return;
	}
	/* A name of the process's own dumps, no path: nothing else is read. */
	int hasbase = hp_httpd_query(req->query, "base", basev, sizeof(basev)) == 1 && *basev;
	for (int k = 0; k <= hasbase; k++) {
		const char *nm = k ? basev : dumpv;
		size_t len = strlen(nm);
		struct stat st;
		char *out = k ? bpath : path;
		snprintf(out, sizeof(path), "%s/%s", dir, nm);
		if (strchr(nm, '/') || strncmp(nm, head, strlen(head)) || len < 6 ||
		    strcmp(nm + len - 5, ".heap") || stat(out, &st) != 0) {
			hp_httpd_text(resp, 404, "%s: not a dump of process %d", nm, (int)pid);
			return;
		}
	}
	if (hasbase && d.age) {
		hp_httpd_text(resp, 400, "age: not with a base (ages are of one dump's moment: its "
			      "long-lived memory is what a diff shows growing and staying)");
		return;
	}
	if (hasbase)
		d.base = bpath;
	char *body = NULL;
	size_t len = 0;
	if (convert(path, &d, &body, &len, err, sizeof(err), stop) != 0) {
		hp_httpd_text(resp, *stop ? 503 : 422, "%s", err);
		return;
	}
	resp->status = 200;
	resp->type = type;
	resp->body = body;
	resp->len = len;
}

/* The explorer answers requests addressed to this server by its own
 * address only: a page elsewhere that had the browser resolve its own
 * name to 127.0.0.1 (DNS rebinding) is refused.  A server that listens
 * on a wildcard or public address cannot tell: it warned at start-up. */
static bool host_ok(const struct serve *s, const char *host)
{
	const char *port = strrchr(s->h->addr, ':');
	char alt[64];

	if (!s->h->loopback || !strcmp(host, s->h->addr))
		return true;
	for (int i = 0; port && i < 3; i++) {
		snprintf(alt, sizeof(alt), "%s%s", i == 0 ? "localhost" : i == 1 ? "127.0.0.1" : "[::1]",
			 port);
		if (!strcmp(host, alt))
			return true;
	}
	return false;
}

/* Routes /ui and /api/...: true when path was one (answered, or its work
 * set). */
static bool explorer_route(const struct serve *s, const struct hp_httpd_req *req,
			   struct hp_httpd_resp *resp)
{
	const char *p = req->path;
	bool action = !strcmp(p, "/api/dump") || !strcmp(p, "/api/pause") || !strcmp(p, "/api/resume");
	bool get = !strcmp(p, "/ui") || !strcmp(p, "/api/state") || !strcmp(p, "/api/dumps") ||
		   !strcmp(p, "/api/view");
	char v[32], *end;

	if (!action && !get)
		return false;
	if (!host_ok(s, req->host)) {
		hp_httpd_text(resp, 403, "Host '%s' is not this server's address (%s): the explorer "
			      "answers its own address only", req->host, s->h->addr);
		return true;
	}
	if (action && strcmp(req->method, "POST")) {
		hp_httpd_text(resp, 405, "%s: %s is an action: POST, with the header X-Heapprof: 1",
			      req->method, p);
		hp_httpd_header(resp, "Allow", "POST");
		return true;
	}
	if (action && (!req->x_heapprof || strcmp(req->x_heapprof, "1"))) {
		/* A page of another site cannot send it without asking first
		 * (CORS), and serve never says yes. */
		hp_httpd_text(resp, 403, "%s needs the header X-Heapprof: 1", p);
		return true;
	}
	if (strcmp(p, "/ui")) {
		int r = hp_httpd_query(req->query, "pid", v, sizeof(v));
		long pid = r == 1 ? strtol(v, &end, 10) : 0;
		if (r != 1 || !isdigit((unsigned char)v[0]) || *end || pid <= 0 || pid > INT_MAX) {
			hp_httpd_text(resp, 400, "pid: want a process ID, as in ?pid=4242");
			return true;
		}
	}
	resp->work = !strcmp(p, "/ui") ? work_ui : !strcmp(p, "/api/state") ? work_api_state :
		     !strcmp(p, "/api/dumps") ? work_api_dumps : !strcmp(p, "/api/view") ? work_api_view :
		     work_api_action;
	return true;
}

/* In the server: routes, and checks the query (a bad one is answered at
 * once); the answers that read /proc or ask a process run in a worker. */
static void handle(const struct hp_httpd_req *req, struct hp_httpd_resp *resp, void *arg)
{
	const struct serve *s = arg;
	const char *p = req->path;
	char v[64];

	enum route route = !strcmp(p, "/") || !strcmp(p, "/debug/pprof/") ||
			   !strcmp(p, "/debug/pprof") ? R_INDEX : !strcmp(p, "/targets") ? R_TARGETS :
			   !strcmp(p, "/debug/pprof/heap") ? R_HEAP : !strcmp(p, "/metrics") ? R_METRICS :
			   R_OTHER;
	__atomic_add_fetch(&route_hits[route], 1, __ATOMIC_RELAXED);
	if (explorer_route(s, req, resp))
		return;
	if (!strcmp(req->method, "POST")) {
		hp_httpd_text(resp, 405, "POST: heapprof serve answers GET and HEAD");
		hp_httpd_header(resp, "Allow", "GET, HEAD");
		return;
	}
	if (route == R_METRICS) {
		resp->work = work_metrics;
	} else if (!strcmp(p, "/") || !strcmp(p, "/debug/pprof/") || !strcmp(p, "/debug/pprof")) {
		int r = hp_httpd_query(req->query, "format", v, sizeof(v));
		if (r < 0 || (r == 1 && strcmp(v, "json") && strcmp(v, "html"))) {
			hp_httpd_text(resp, 400, "format: html (the default) or json");
			return;
		}
		resp->work = work_index;
	} else if (!strcmp(p, "/targets")) {
		resp->work = work_targets;
	} else if (!strcmp(p, "/debug/pprof/heap")) {
		if (hp_httpd_query(req->query, "format", v, sizeof(v))) {
			if (strcmp(v, "json")) {
				hp_httpd_text(resp, 400, "format: json, the processes to choose from");
				return;
			}
			resp->work = work_index;
			return;
		}
		int r = hp_httpd_query(req->query, "pid", v, sizeof(v));
		char *end = NULL;
		long pid = r == 1 ? strtol(v, &end, 10) : 0;
		if (r < 0 || (r == 1 && (!isdigit((unsigned char)v[0]) || *end || pid <= 0 ||
					 pid > INT_MAX))) {
			hp_httpd_text(resp, 400, "pid: want a process ID, as in ?pid=4242");
			return;
		}
		r = hp_httpd_query(req->query, "seconds", v, sizeof(v));
		if (r) {
			/* As Go's net/http/pprof: a whole number, more than 0. */
			errno = 0;
			long n = r == 1 && isdigit((unsigned char)v[0]) ? strtol(v, &end, 10) : 0;
			if (n <= 0 || *end) {
				hp_httpd_text(resp, 400, "seconds: want a whole number of seconds, more than 0, "
					      "as in ?seconds=30");
				return;
			}
			if (n > DELTA_MAX_SECONDS || errno == ERANGE) {
				hp_httpd_text(resp, 400, "seconds: at most %d for a delta profile; for longer, "
					      "take two profiles and compare them with go tool pprof -diff_base",
					      DELTA_MAX_SECONDS);
				return;
			}
			/* The wait, and the second dump's. */
			resp->work_seconds = (double)n + s->timeout;
		}
		if (hp_httpd_query(req->query, "debug", v, sizeof(v)) == 1 && strcmp(v, "0")) {
			hp_httpd_text(resp, 400, "debug: heapprof serve answers profile.proto only (debug=0)");
			return;
		}
		resp->work = work_heap;
	} else if (!strcmp(p, "/debug/leaks")) {
		int r = hp_httpd_query(req->query, "pid", v, sizeof(v));
		char *end = NULL;
		long pid = r == 1 ? strtol(v, &end, 10) : 0;
		if (r != 1 || !isdigit((unsigned char)v[0]) || *end || pid <= 0 || pid > INT_MAX) {
			hp_httpd_text(resp, 400, "pid: want a process ID, as in /debug/leaks?pid=4242");
			return;
		}
		r = hp_httpd_query(req->query, "format", v, sizeof(v));
		if (r < 0 || (r == 1 && strcmp(v, "json") && strcmp(v, "text"))) {
			hp_httpd_text(resp, 400, "format: text (the default) or json");
			return;
		}
		long confirm = 1;
		double interval = HP_LEAKCHECK_INTERVAL;
		r = hp_httpd_query(req->query, "confirm", v, sizeof(v));
		if (r) {
			confirm = r == 1 && isdigit((unsigned char)v[0]) ? strtol(v, &end, 10) : 0;
			if (confirm < 1 || confirm > 10 || *end) {
				hp_httpd_text(resp, 400, "confirm: want a number of checks from 1 to 10");
				return;
			}
		}
		r = hp_httpd_query(req->query, "interval", v, sizeof(v));
		if (r) {
			interval = r == 1 ? strtod(v, &end) : 0;
			if (!(interval > 0 && interval <= 60) || *end || confirm < 2) {
				hp_httpd_text(resp, 400, "interval: want seconds, more than 0 and at most 60, "
					      "between the checks of confirm=N (2 or more)");
				return;
			}
		}
		/* Each check's wait, and the intervals between them. */
		resp->work_seconds = (double)(confirm - 1) * interval + (double)(confirm - 1) * s->timeout;
		resp->work = work_leaks;
	} else if (!strncmp(p, "/debug/pprof/", 13)) {
		hp_httpd_text(resp, 404, "%s: heapprof serve has the heap profile only, "
			      "/debug/pprof/heap?pid=N", p);
	} else {
		hp_httpd_text(resp, 404, "%s: not found; the processes are listed at /", p);
	}
}

/* ---- the command ------------------------------------------------------- */

static int usage_error(const char *fmt, const char *arg)
{
	fputs("heapprof serve: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\ntry 'heapprof serve --help'\n", stderr);
	return 2;
}

static int seconds(double *out, const char *opt, const char *arg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !(v > 0 && v <= 86400)) {
		fprintf(stderr, "heapprof serve: %s wants seconds, more than 0, not '%s'\n"
			"try 'heapprof serve --help'\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

enum { SERVE_OPT_LISTEN = 256, SERVE_OPT_ALL_USERS, SERVE_OPT_TIMEOUT, SERVE_OPT_CLIENT_TIMEOUT,
       SERVE_OPT_PUSH, SERVE_OPT_PUSH_INTERVAL, SERVE_OPT_PUSH_APP, SERVE_OPT_PUSH_LABEL };

int hp_cmd_serve(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, SERVE_OPT_LISTEN },
		{ "all-users", no_argument, NULL, SERVE_OPT_ALL_USERS },
		{ "timeout", required_argument, NULL, SERVE_OPT_TIMEOUT },
		{ "client-timeout", required_argument, NULL, SERVE_OPT_CLIENT_TIMEOUT },
		{ "push", required_argument, NULL, SERVE_OPT_PUSH },
		{ "push-interval", required_argument, NULL, SERVE_OPT_PUSH_INTERVAL },
		{ "push-app", required_argument, NULL, SERVE_OPT_PUSH_APP },
		{ "push-label", required_argument, NULL, SERVE_OPT_PUSH_LABEL },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hp_httpd h = { .fd = -1, .client_timeout = 10 };
	struct serve s = { .timeout = 10, .uid = geteuid(), .self = getpid(), .h = &h };

	serve_started = time(NULL);
	struct hp_push push = { .interval = 15 };
	const char *listen = "127.0.0.1:6060";
	char err[512];
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage_text, stdout);
			return 0;
		case 'q':
			h.quiet = true;
			break;
		case SERVE_OPT_LISTEN:
			listen = optarg;
			break;
		case SERVE_OPT_ALL_USERS:
			s.all_users = true;
			break;
		case SERVE_OPT_TIMEOUT:
			if (seconds(&s.timeout, "--timeout", optarg))
				return 2;
			break;
		case SERVE_OPT_CLIENT_TIMEOUT:
			if (seconds(&h.client_timeout, "--client-timeout", optarg))
				return 2;
			break;
		case SERVE_OPT_PUSH:
			if (hp_push_url(&push, optarg, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		case SERVE_OPT_PUSH_INTERVAL:
			if (seconds(&push.interval, "--push-interval", optarg))
				return 2;
			break;
		case SERVE_OPT_PUSH_APP:
			push.app = optarg;
			if (!*optarg || strpbrk(optarg, "{},= \t\r\n\""))
				return usage_error("--push-app: '%s' is not an application name", optarg);
			break;
		case SERVE_OPT_PUSH_LABEL:
			if (hp_push_label(&push, optarg, err, sizeof(err)))
				return usage_error("%s", err);
			break;
		case ':':
			return usage_error("option '%s' needs a value", argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'", argv[optind - 1]);
		}
	}
	s.programs = argv + optind;
	s.nprograms = (size_t)(argc - optind);
	for (size_t i = 0; i < s.nprograms; i++)
		if (!s.programs[i][0])
			return usage_error("an empty program name%s", "");
	if (s.all_users && s.uid != 0)
		return usage_error("--all-users is for root%s (every user's processes)", "");
	if (!push.url && (push.app || push.nlabels || push.interval != 15))
		return usage_error("--push-interval, --push-app and --push-label go with --push URL%s", "");
	int r = hp_httpd_listen(&h, listen, err, sizeof(err));
	if (r == 2)
		return usage_error("%s", err);
	if (r) {
		fprintf(stderr, "heapprof serve: %s\n", err);
		return 1;
	}
	/* A worker asks (timeout), converts, and sends (client timeout);
	 * past all of that with a margin, the server kills it. */
	h.worker_limit = s.timeout + CONVERT_SECONDS + h.client_timeout + 2 + 10;
	h.handler = handle;
	h.arg = &s;
	if (!h.loopback)
		fprintf(stderr, "heapprof serve: warning: %s is not a loopback address and the endpoint "
			"has no authentication: whoever reaches it can read the heap profiles of %s\n",
			h.addr, s.all_users ? "every user's processes" : "your processes");
	printf("heapprof serve: listening on http://%s/\n", h.addr);
	if (push.url)
		printf("heapprof serve: pushing %s heap profile to %s every %g s\n",
		       s.nprograms ? "each served process's" : "every profiled process's", push.endpoint,
		       push.interval);
	fflush(stdout);
	push.quiet = h.quiet;
	pid_t pusher = push.url ? hp_push_start(&push, h.addr) : 0;
	if (pusher < 0) {
		fprintf(stderr, "heapprof serve: cannot start pushing: %s\n", strerror(errno));
		return 1;
	}
	int st = hp_httpd_run(&h);
	if (pusher > 0) {
		kill(pusher, SIGTERM);
		while (waitpid(pusher, NULL, 0) < 0 && errno == EINTR)
			;
	}
	return st;
}
