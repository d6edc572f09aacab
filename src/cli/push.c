/*
 * push.c -- heapprof serve --push (see push.h): the pusher process.
 *
 * Owns the push loop, a minimal HTTP/1.1 client (one request per
 * connection, Content-Length bodies, plain http: TLS is for a proxy or an
 * agent in front) and the Pyroscope request: query and multipart body.
 * Every interval it reads serve's list of processes (/?format=json), asks
 * serve for each one's profile (/debug/pprof/heap?pid=N) and posts it;
 * a failure is one line on standard error and the next interval tries
 * again.  It ends with serve (SIGTERM from serve, or serve's death).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "report/buf.h"
#include "push.h"

#define IO_SECONDS 30		/* for one request, connect to last byte */
#define RESPONSE_MAX (64u << 20)
#define PROCS_MAX 4096

/* ---- options ------------------------------------------------------------- */

int hp_push_url(struct hp_push *p, const char *url, char *err, size_t cap)
{
	const char *h = url;

	p->url = url;
	if (!strncmp(url, "https://", 8)) {
		snprintf(err, cap, "--push: '%s': serve speaks plain http only; push to an agent on "
			 "this host (Grafana Alloy's pyroscope.receive_http) or through a TLS proxy", url);
		return -1;
	}
	if (strncmp(url, "http://", 7)) {
		snprintf(err, cap, "--push: '%s' is not an http:// URL", url);
		return -1;
	}
	h += 7;
	const char *slash = strchr(h, '/');
	size_t hl = slash ? (size_t)(slash - h) : strlen(h);
	const char *colon = NULL;
	if (*h == '[') {
		const char *close = memchr(h, ']', hl);
		if (!close) {
			snprintf(err, cap, "--push: '%s': an IPv6 address needs its ']'", url);
			return -1;
		}
		colon = close + 1 < h + hl && close[1] == ':' ? close + 1 : NULL;
		snprintf(p->host, sizeof(p->host), "%.*s", (int)(close - h - 1), h + 1);
	} else {
		colon = memchr(h, ':', hl);
		snprintf(p->host, sizeof(p->host), "%.*s", (int)(colon ? colon - h : (long)hl), h);
	}
	if (colon)
		snprintf(p->port, sizeof(p->port), "%.*s", (int)(h + hl - colon - 1), colon + 1);
	else
		snprintf(p->port, sizeof(p->port), "80");
	char *end;
	long port = strtol(p->port, &end, 10);
	if (!p->host[0] || *end || port < 1 || port > 65535) {
		snprintf(err, cap, "--push: '%s' has no host, or a port that is not 1 to 65535", url);
		return -1;
	}
	snprintf(p->base, sizeof(p->base), "%s", slash ? slash : "");
	size_t bl = strlen(p->base);
	while (bl && p->base[bl - 1] == '/')
		p->base[--bl] = '\0';
	if (strpbrk(p->base, "?# \t\r\n")) {
		snprintf(err, cap, "--push: '%s': the URL takes a path, not a query or fragment", url);
		return -1;
	}
	bool v6 = strchr(p->host, ':') != NULL;
	snprintf(p->endpoint, sizeof(p->endpoint), "http://%s%s%s:%s%s/ingest", v6 ? "[" : "", p->host,
		 v6 ? "]" : "", p->port, p->base);
	return 0;
}

/* Pyroscope's label names: [a-zA-Z_][a-zA-Z0-9_.]*; values without the
 * characters that delimit them in the application name. */
int hp_push_label(struct hp_push *p, const char *kv, char *err, size_t cap)
{
	const char *eq = strchr(kv, '=');
	bool ok = eq && eq > kv && strcspn(eq + 1, "{},= \t\r\n\"") == strlen(eq + 1) && eq[1];

	for (const char *c = kv; ok && c < eq; c++)
		ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
		     (c > kv && ((*c >= '0' && *c <= '9') || *c == '.'));
	if (!ok) {
		snprintf(err, cap, "--push-label: '%s' is not KEY=VALUE (KEY of letters, digits, '_' "
			 "and '.', VALUE without spaces, quotes, '{', '}', ',' or '=')", kv);
		return -1;
	}
	if (p->nlabels == HP_PUSH_LABELS_MAX) {
		snprintf(err, cap, "--push-label: at most %d labels", HP_PUSH_LABELS_MAX);
		return -1;
	}
	p->labels[p->nlabels++] = kv;
	return 0;
}

/* ---- HTTP ------------------------------------------------------------ */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits for fd to be ready for events before deadline; 0 or -1. */
static int wait_fd(int fd, short events, double deadline)
{
	for (;;) {
		double left = deadline - now_s();
		if (left <= 0) {
			errno = ETIMEDOUT;
			return -1;
		}
		struct pollfd pf = { .fd = fd, .events = events };
		int r = poll(&pf, 1, (int)(left * 1000) + 1);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static int connect_to(const char *host, const char *port, double deadline)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res, *ai;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res) != 0) {
		errno = EHOSTUNREACH;
		return -1;
	}
	for (ai = res; ai && fd < 0; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
			break;
		int soerr = 0;
		socklen_t sl = sizeof(soerr);
		if (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline) ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) || soerr) {
			if (soerr)
				errno = soerr;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

static int send_all(int fd, const char *p, size_t n, double deadline)
{
	while (n) {
		ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
		if (k > 0) {
			p += k;
			n -= (size_t)k;
		} else if (k < 0 && errno != EAGAIN && errno != EINTR) {
			return -1;
		} else if (wait_fd(fd, POLLOUT, deadline)) {
			return -1;
		}
	}
	return 0;
}

/* One request; the whole response read (Connection: close) into *resp.
 * Returns the status code, or -1 with errno. */
static int http(const char *host, const char *port, const char *method, const char *target,
		const char *ctype, const char *body, size_t blen, struct hp_buf *resp, size_t *body_at)
{
	double deadline = now_s() + IO_SECONDS;
	int fd = connect_to(host, port, deadline);

	if (fd < 0)
		return -1;
	struct hp_buf req = { 0 };
	bool v6 = strchr(host, ':') != NULL;
	hp_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: %s%s%s:%s\r\nUser-Agent: heapprof-serve\r\n"
		      "Connection: close\r\n", method, target, v6 ? "[" : "", host, v6 ? "]" : "", port);
	if (ctype)
		hp_buf_printf(&req, "Content-Type: %s\r\nContent-Length: %zu\r\n", ctype, blen);
	hp_buf_str(&req, "\r\n");
	int r = send_all(fd, req.p, req.len, deadline);
	hp_buf_release(&req);
	if (!r && blen)
		r = send_all(fd, body, blen, deadline);
	hp_buf_reset(resp);
	char chunk[65536];
	while (!r) {
		ssize_t k = recv(fd, chunk, sizeof(chunk), 0);
		if (k > 0) {
			if (resp->len + (size_t)k > RESPONSE_MAX) {
				errno = EFBIG;
				r = -1;
				break;
			}
			hp_buf_add(resp, chunk, (size_t)k);
		} else if (k == 0) {
			break;
		} else if ((errno != EAGAIN && errno != EINTR) || wait_fd(fd, POLLIN, deadline)) {
			r = -1;
		}
	}
	close(fd);
	int status;
	if (r || !resp->p || sscanf(resp->p, "HTTP/1.%*d %d", &status) != 1) {
		if (!r)
			errno = EPROTO;
		return -1;
	}
	const char *sep = memmem(resp->p, resp->len, "\r\n\r\n", 4);
	*body_at = sep ? (size_t)(sep + 4 - resp->p) : resp->len;
	return status;
}

/* ---- the list of processes ------------------------------------------- */

struct proc {
	long pid;
	char name[256];		/* the program's last component */
};

/* A JSON string at p (after its opening quote) into out; the end. */
static const char *json_string(const char *p, char *out, size_t cap)
{
	size_t n = 0;

	for (; *p && *p != '"'; p++) {
		char c = *p;
		if (c == '\\' && p[1]) {
			c = *++p;
			if (c == 'u') {   /* not in program paths we care for */
				c = '?';
				for (int i = 0; i < 4 && p[1]; i++)
					p++;
			} else if (c == 'n' || c == 't' || c == 'r') {
				c = '?';
			}
		}
		if (n + 1 < cap)
			out[n++] = c;
	}
	out[n] = '\0';
	return p;
}

/* serve's /?format=json: {"pid":N,"uid":U,"program":"...",...} each. */
static size_t parse_list(const char *json, struct proc *out, size_t max)
{
	size_t n = 0;

	for (const char *p = json; n < max && (p = strstr(p, "{\"pid\":"));) {
		p += 7;
		out[n].pid = strtol(p, (char **)&p, 10);
		const char *prog = strstr(p, "\"program\":\"");
		if (!prog)
			break;
		char path[4096];
		p = json_string(prog + 11, path, sizeof(path));
		const char *slash = strrchr(path, '/');
		const char *base = slash ? slash + 1 : path;
		size_t bl = strnlen(base, sizeof(out[n].name) - 1);
		memcpy(out[n].name, base, bl);
		out[n].name[bl] = '\0';
		n++;
	}
	return n;
}

/* ---- the Pyroscope request ------------------------------------------- */

/* Pyroscope's application-name characters; others become '_'. */
static void name_part(struct hp_buf *b, const char *s)
{
	for (; *s; s++) {
		char c = *s;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '_' || c == '.' || c == '-';
		hp_buf_char(b, ok ? c : '_');
	}
}

static void url_encode(struct hp_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    c == '-' || c == '_' || c == '.' || c == '~')
			hp_buf_char(b, (char)c);
		else
			hp_buf_printf(b, "%%%02X", c);
	}
}

/* How Pyroscope is to read the profile's sample types: live values are
 * averaged over time, allocated totals are cumulative counters. */
static const char sample_types[] =
	"{\"inuse_objects\":{\"units\":\"objects\",\"aggregation\":\"average\"},"
	"\"inuse_space\":{\"units\":\"bytes\",\"aggregation\":\"average\"},"
	"\"alloc_objects\":{\"units\":\"objects\",\"cumulative\":true},"
	"\"alloc_space\":{\"units\":\"bytes\",\"cumulative\":true}}";

static void part(struct hp_buf *b, const char *boundary, const char *name, const char *file,
		 const char *type, const char *data, size_t n)
{
	hp_buf_printf(b, "--%s\r\nContent-Disposition: form-data; name=\"%s\"; filename=\"%s\"\r\n"
		      "Content-Type: %s\r\n\r\n", boundary, name, file, type);
	hp_buf_add(b, data, n);
	hp_buf_str(b, "\r\n");
}

static void push_one(const struct hp_push *p, const char *shost, const char *sport,
		     const struct proc *pr, long long from, long long until, const char *hostname)
{
	struct hp_buf resp = { 0 }, target = { 0 }, name = { 0 }, body = { 0 };
	size_t at = 0;
	char boundary[64];

	hp_buf_printf(&target, "/debug/pprof/heap?pid=%ld", pr->pid);
	int st = http(shost, sport, "GET", target.p, NULL, NULL, 0, &resp, &at);
	if (st != 200) {
		/* Gone meanwhile (404), or not ours to ask: serve said why. */
		if (st < 0)
			fprintf(stderr, "heapprof serve: push: no profile of pid %ld (%s): %s\n", pr->pid,
				pr->name, strerror(errno));
		else if (st != 404)
			fprintf(stderr, "heapprof serve: push: no profile of pid %ld (%s): serve answered "
				"%d: %.*s\n", pr->pid, pr->name, st, (int)strcspn(resp.p + at, "\r\n"),
				resp.p + at);
		goto out;
	}
	name_part(&name, p->app ? p->app : pr->name);
	hp_buf_printf(&name, "{pid=%ld,hostname=", pr->pid);
	name_part(&name, hostname);
	for (size_t i = 0; i < p->nlabels; i++)
		hp_buf_printf(&name, ",%s", p->labels[i]);
	hp_buf_char(&name, '}');
	snprintf(boundary, sizeof(boundary), "heapprof-%ld-%lld", pr->pid, until);
	part(&body, boundary, "profile", "profile.pprof", "application/octet-stream",
	     resp.p + at, resp.len - at);
	part(&body, boundary, "sample_type_config", "sample_type_config.json", "application/json",
	     sample_types, sizeof(sample_types) - 1);
	hp_buf_printf(&body, "--%s--\r\n", boundary);
	hp_buf_reset(&target);
	hp_buf_printf(&target, "%s/ingest?name=", p->base);
	url_encode(&target, name.p);
	hp_buf_printf(&target, "&from=%lld&until=%lld&format=pprof&spyName=heapprof&sampleRate=100",
		      from, until);
	char ctype[128];
	snprintf(ctype, sizeof(ctype), "multipart/form-data; boundary=%s", boundary);
	st = http(p->host, p->port, "POST", target.p, ctype, body.p, body.len, &resp, &at);
	if (st < 200 || st > 299) {
		char why[256];
		if (st < 0)
			snprintf(why, sizeof(why), "%s", strerror(errno));
		else
			snprintf(why, sizeof(why), "HTTP %d: %.*s", st,
				 (int)strcspn(resp.p + at, "\r\n") > 160 ? 160 : (int)strcspn(resp.p + at, "\r\n"),
				 resp.p + at);
		fprintf(stderr, "heapprof serve: push of pid %ld (%s) to %s failed: %s\n", pr->pid,
			pr->name, p->endpoint, why);
	} else if (!p->quiet) {
		fprintf(stderr, "heapprof serve: pushed pid %ld (%s) to %s: %zu bytes, HTTP %d\n",
			pr->pid, pr->name, p->endpoint, body.len, st);
	}
out:
	hp_buf_release(&resp);
	hp_buf_release(&target);
	hp_buf_release(&name);
	hp_buf_release(&body);
}

/* serve's address as a client reaches it: a wildcard address is the
 * loopback one. */
static void self_address(const char *self, char *host, size_t hcap, char *port, size_t pcap)
{
	const char *colon = strrchr(self, ':');

	snprintf(port, pcap, "%s", colon ? colon + 1 : "6060");
	size_t hl = colon ? (size_t)(colon - self) : strlen(self);
	if (hl >= 2 && self[0] == '[')
		snprintf(host, hcap, "%.*s", (int)(hl - 2), self + 1);
	else
		snprintf(host, hcap, "%.*s", (int)hl, self);
	if (!strcmp(host, "0.0.0.0") || !*host)
		snprintf(host, hcap, "127.0.0.1");
	else if (!strcmp(host, "::"))
		snprintf(host, hcap, "::1");
}

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
	(void)sig;
	stopping = 1;
}

static void push_loop(const struct hp_push *p, const char *self)
{
	char shost[256], sport[16], hostname[256] = "";
	struct proc *procs = calloc(PROCS_MAX, sizeof(*procs));
	long long last = (long long)time(NULL);

	gethostname(hostname, sizeof(hostname) - 1);
	self_address(self, shost, sizeof(shost), sport, sizeof(sport));
	while (!stopping && procs) {
		double until_at = now_s() + p->interval;
		while (!stopping && now_s() < until_at) {
			struct timespec ts = { 0, 100 * 1000000L };
			nanosleep(&ts, NULL);
		}
		if (stopping || getppid() == 1)
			break;
		long long now = (long long)time(NULL);
		struct hp_buf list = { 0 };
		size_t at = 0;
		int st = http(shost, sport, "GET", "/?format=json", NULL, NULL, 0, &list, &at);
		size_t n = st == 200 ? parse_list(list.p + at, procs, PROCS_MAX) : 0;
		if (st != 200)
			fprintf(stderr, "heapprof serve: push: cannot list the processes: %s\n",
				st < 0 ? strerror(errno) : "serve refused");
		hp_buf_release(&list);
		for (size_t i = 0; i < n && !stopping; i++)
			push_one(p, shost, sport, &procs[i], last, now, hostname);
		last = now;
	}
	free(procs);
}

pid_t hp_push_start(const struct hp_push *p, const char *self)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(0);
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	push_loop(p, self);
	_exit(0);
}
