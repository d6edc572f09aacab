/*
 * httpd.c -- a small HTTP/1.1 server for heapprof serve (see httpd.h).
 *
 * Owns the listening socket, the connections (a fixed table), the
 * workers it forks, and the signals SIGINT, SIGTERM and SIGCHLD, which
 * the loop reads from a signalfd.  Nothing in the loop blocks: sockets
 * are non-blocking, and anything that may take time runs in a worker.
 * It never reads a request body (GET and HEAD have none; one announced is
 * refused) and answers each connection once, then closes it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report/util.h"
#include "version.h"
#include "httpd.h"

enum httpd_state { HTTPD_FREE, HTTPD_READ, HTTPD_WRITE, HTTPD_DRAIN };

/* One connection, from accept to close. */
struct httpd_conn {
	enum httpd_state state;
	int fd;
	double start;		/* accepted */
	double deadline;	/* of the current state */
	char peer[64];
	char in[HP_HTTPD_MAX_REQUEST + 1];
	size_t inlen;
	char *out;		/* the answer, headers and body */
	size_t outlen, outoff;
};

struct httpd_worker {
	pid_t pid;		/* 0: a free slot */
	double deadline;	/* killed after it */
	int killed;
};

static struct httpd_conn conns[HP_HTTPD_MAX_CONNS];
static struct httpd_worker workers[HP_HTTPD_MAX_WORKERS];
static volatile sig_atomic_t worker_stop;

/* How long a connection may linger after its answer, for the client to
 * read it and close first (closing with unread input would reset the
 * connection, and the answer could be lost). */
#define DRAIN_SECONDS 2.0

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The reason phrase of an HTTP status. */
static const char *reason_phrase(int status)
{
	switch (status) {
	case 200: return "OK";
	case 300: return "Multiple Choices";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default: return "Unknown";
	}
}

/* ---- answers ----------------------------------------------------------- */

/* Sets resp's body to the n bytes at p (copied), of type type. */
static void set_body(struct hp_httpd_resp *resp, int status, const char *type, const void *p,
		     size_t n)
{
	free(resp->body);
	resp->status = status;
	resp->type = type;
	resp->body = malloc(n ? n : 1);
	resp->len = resp->body ? n : 0;
	if (resp->body && n)
		memcpy(resp->body, p, n);
}

void hp_httpd_text(struct hp_httpd_resp *resp, int status, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	line[strcspn(line, "\r\n")] = '\0';
	snprintf(resp->note, sizeof(resp->note), "%.*s", (int)sizeof(resp->note) - 1, line);
	strcat(line, "\n");
	set_body(resp, status, "text/plain; charset=utf-8", line, strlen(line));
	/* go tool pprof prints the body of a text/plain error so marked. */
	hp_httpd_header(resp, "X-Go-Pprof", "1");
}

void hp_httpd_header(struct hp_httpd_resp *resp, const char *name, const char *value)
{
	size_t have = strlen(resp->headers);
	size_t need = strlen(name) + strlen(value) + 4;

	if (have + need >= sizeof(resp->headers))
		return;
	char *p = resp->headers + have;
	p += sprintf(p, "%s: ", name);
	for (const char *v = value; *v; v++)
		*p++ = (unsigned char)*v < 0x20 || *v == 0x7f ? '?' : *v;
	strcpy(p, "\r\n");
}

int hp_httpd_query(const char *query, const char *key, char *buf, size_t cap)
{
	size_t klen = strlen(key);

	for (const char *p = query; p && *p; p = strchr(p, '&') ? strchr(p, '&') + 1 : NULL) {
		if (strncmp(p, key, klen) || (p[klen] && p[klen] != '=' && p[klen] != '&'))
			continue;
		const char *v = p + klen + (p[klen] == '=');
		size_t n = 0;
		for (; *v && *v != '&'; v++) {
			int c = (unsigned char)*v;
			if (c == '+') {
				c = ' ';
			} else if (c == '%') {
				int hi = hp_util_hex_digit((unsigned char)v[1]);
				int lo = hi < 0 ? -1 : hp_util_hex_digit((unsigned char)v[2]);
				if (lo < 0)
					return -1;
				c = hi * 16 + lo;
				v += 2;
			}
			if (n + 1 >= cap || c == 0)
				return -1;
			buf[n++] = (char)c;
		}
		buf[n] = '\0';
		return 1;
	}
	return 0;
}

/* The whole answer, headers and body (none for HEAD), into a malloc'd
 * buffer. */
static char *render(const struct hp_httpd_resp *r, int head, size_t *n)
{
	char date[64], len[48] = "", type[300] = "";
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	if (r->type)
		snprintf(type, sizeof(type), "Content-Type: %s\r\n", r->type);
	if (!r->no_length)
		snprintf(len, sizeof(len), "Content-Length: %zu\r\n", r->len);
	size_t body = head ? 0 : r->len;
	size_t cap = 1024 + strlen(type) + strlen(r->headers) + body;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	int k = snprintf(out, cap,
			 "HTTP/1.1 %d %s\r\n"
			 "Date: %s\r\n"
			 "Server: heapprof/%s\r\n"
			 "%s%s"
			 "Cache-Control: no-store\r\n"
			 "X-Content-Type-Options: nosniff\r\n"
			 "Connection: close\r\n"
			 "%s"
			 "\r\n",
			 r->status, reason_phrase(r->status), date, HEAPPROF_VERSION, type, len,
			 r->headers);
	if (body)
		memcpy(out + k, r->body, body);
	*n = (size_t)k + body;
	return out;
}

/* ---- the log ----------------------------------------------------------- */

/* The request's first line as a client sent it, for the log: at most 200
 * characters, anything unprintable as \xNN, '"' as \". */
static void request_line(const char *in, size_t n, char *buf, size_t cap)
{
	size_t k = 0;

	for (size_t i = 0; i < n && in[i] != '\r' && in[i] != '\n' && k + 5 < cap && i < 200; i++) {
		unsigned char c = (unsigned char)in[i];
		if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\')
			k += (size_t)snprintf(buf + k, cap - k, c == '"' ? "\\\"" : "\\x%02x", c);
		else
			buf[k++] = (char)c;
	}
	if (!k && cap > 1)
		buf[k++] = '-';
	buf[k] = '\0';
}

static void log_request(const struct hp_httpd *h, const char *peer, const char *line,
			const struct hp_httpd_resp *r, size_t bytes, double since)
{
	char t[32];
	time_t w = time(NULL);
	struct tm tm;

	if (h->quiet)
		return;
	gmtime_r(&w, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%SZ", &tm);
	fprintf(stderr, "heapprof serve: %s %s \"%s\" %d %zu %.3fs%s%s\n", t, peer, line, r->status,
		bytes, now() - since, r->note[0] ? ": " : "", r->note);
}

/* ---- parsing a request ------------------------------------------------- */

static int tchar(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       (c && strchr("!#$%&'*+-.^_`|~", c));
}

static bool is_token(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!tchar((unsigned char)*s))
			return false;
	return true;
}

/* Where the request's headers end (after the empty line), or 0. */
static size_t request_end(const char *in, size_t n)
{
	/* Empty lines before the request line are skipped (RFC 9112 2.2):
	 * they are not the end. */
	size_t j = 0;

	while (j < n && (in[j] == '\r' || in[j] == '\n'))
		j++;
	for (size_t i = j + 1; i < n; i++) {
		if (in[i] != '\n')
			continue;
		if (in[i - 1] == '\n')
			return i + 1;
		if (in[i - 1] == '\r' && i >= 2 && in[i - 2] == '\n')
			return i + 1;
	}
	return 0;
}

/* What the header lines said that the checks after them need. */
struct headers_seen {
	int hosts;	/* Host lines */
	bool body;	/* a body announced: refused with 405 or 413 */
};

/* The line at *p, ended in place at its LF (stop when there is none) with
 * a CR before it cut off; *p moves past it.  NULL when a bare carriage
 * return is left in it. */
static char *next_line(char **p, char *stop)
{
	char *line = *p, *eol = strchr(line, '\n');

	if (!eol)
		eol = stop;
	*eol = '\0';
	if (eol > line && eol[-1] == '\r')
		eol[-1] = '\0';
	*p = eol + 1;
	return strchr(line, '\r') ? NULL : line;
}

/* "METHOD TARGET VERSION", split in place into req.  Returns false unless
 * there are exactly two spaces. */
static bool split_request_line(char *line, struct hp_httpd_req *req)
{
	char *sp1 = strchr(line, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;

	if (!sp1 || !sp2 || strchr(sp2 + 1, ' '))
		return false;
	*sp1 = *sp2 = '\0';
	req->method = line;
	req->target = sp1 + 1;
	req->version = sp2 + 1;
	return true;
}

/* One "Name: value" line, split in place; Host and a body's headers noted.
 * Returns NULL, or why the line is refused. */
static const char *header_line(char *line, struct hp_httpd_req *req, struct headers_seen *seen)
{
	if (*line == ' ' || *line == '\t')
		return "a folded header line";
	char *colon = strchr(line, ':');
	if (!colon)
		return "a header line without a colon";
	*colon = '\0';
	char *v = colon + 1;
	v += strspn(v, " \t");
	for (char *e = v + strlen(v); e > v && (e[-1] == ' ' || e[-1] == '\t');)
		*--e = '\0';
	if (!is_token(line))
		return "a malformed header name";
	if (!strcasecmp(line, "Host")) {
		seen->hosts++;
		req->host = v;
	} else if (!strcasecmp(line, "X-Heapprof")) {
		req->x_heapprof = v;
	} else if ((!strcasecmp(line, "Content-Length") && strspn(v, "0") != strlen(v)) ||
		   !strcasecmp(line, "Transfer-Encoding")) {
		seen->body = true;
	}
	return NULL;
}

/* The request line and the header lines in [p, stop), up to the empty
 * line, split in place.  Returns NULL, or why the request is refused
 * (a 400). */
static const char *read_lines(char *p, char *stop, struct hp_httpd_req *req, struct headers_seen *seen)
{
	while (p < stop && (*p == '\r' || *p == '\n'))
		p++;
	*--stop = '\0';
	for (int lineno = 0; p < stop; lineno++) {
		char *line = next_line(&p, stop);
		if (!line)
			return "a bare carriage return in the request";
		if (!*line)
			break;
		if (lineno == 0) {
			if (!split_request_line(line, req))
				return "a malformed request line";
			continue;
		}
		const char *why = header_line(line, req, seen);
		if (why)
			return why;
	}
	return NULL;
}

/* "HTTP/d.d" */
static bool is_http_version(const char *v)
{
	return !strncmp(v, "HTTP/", 5) && strlen(v) == 8 && v[6] == '.' && v[5] >= '0' &&
	       v[5] <= '9' && v[7] >= '0' && v[7] <= '9';
}

/* The request line's method and version, and a body: returns 0, or fills
 * resp with the refusal.  The method first: a POST is refused as a POST,
 * body or not. */
static int check_method(const struct hp_httpd_req *req, const struct headers_seen *seen,
			struct hp_httpd_resp *resp)
{
	if (!req->method) {
		hp_httpd_text(resp, 400, "an empty request");
		return -1;
	}
	if (!is_token(req->method)) {
		hp_httpd_text(resp, 400, "a malformed method");
		return -1;
	}
	if (!is_http_version(req->version)) {
		hp_httpd_text(resp, 400, "a malformed HTTP version");
		return -1;
	}
	if (strcmp(req->version, "HTTP/1.1") && strcmp(req->version, "HTTP/1.0")) {
		hp_httpd_text(resp, 505, "heapprof serve speaks HTTP/1.0 and HTTP/1.1");
		return -1;
	}
	/* A POST without a body goes on to the handler, which takes it for
	 * its actions only (the explorer's buttons) and refuses it elsewhere. */
	if (strcmp(req->method, "GET") && strcmp(req->method, "HEAD") &&
	    (strcmp(req->method, "POST") || seen->body)) {
		hp_httpd_text(resp, 405, "%s: heapprof serve answers GET and HEAD", req->method);
		hp_httpd_header(resp, "Allow", "GET, HEAD");
		return -1;
	}
	if (seen->body) {
		hp_httpd_text(resp, 413, "heapprof serve takes no request body");
		return -1;
	}
	return 0;
}

/* req->path and req->query from req->target.  Returns false when the
 * target is malformed. */
static bool split_target(struct hp_httpd_req *req)
{
	/* The absolute form (a proxy's) names the server too: keep the path. */
	const char *t = req->target;
	if (!strncasecmp(t, "http://", 7) || !strncasecmp(t, "https://", 8)) {
		t = strchr(strstr(t, "//") + 2, '/');
		if (!t)
			t = "/";
	}
	for (const char *s = t; *s; s++)
		if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f || *s == '#')
			return false;
	if (*t != '/')
		return false;
	/* The path, in a copy (one request is parsed at a time), so that the
	 * target stays whole; the query, in the target. */
	static char path[HP_HTTPD_MAX_REQUEST + 1];
	snprintf(path, sizeof(path), "%s", t);
	char *q = strchr(path, '?');
	if (q) {
		*q = '\0';
		req->query = t + (q - path) + 1;
	}
	req->path = path;
	return true;
}

/* Parses the request in c->in (end bytes long) in place.  Returns 0, or
 * fills resp with the error. */
static int parse(struct httpd_conn *c, size_t end, struct hp_httpd_req *req, struct hp_httpd_resp *resp)
{
	struct headers_seen seen = { 0, false };
	const char *why;

	memset(req, 0, sizeof(*req));
	req->peer = c->peer;
	req->host = "";
	req->query = "";
	if (memchr(c->in, '\0', end)) {
		hp_httpd_text(resp, 400, "a NUL byte in the request");
		return -1;
	}
	why = read_lines(c->in, c->in + end, req, &seen);
	if (why) {
		hp_httpd_text(resp, 400, "%s", why);
		return -1;
	}
	if (check_method(req, &seen, resp))
		return -1;
	req->head = !strcmp(req->method, "HEAD");
	if (!strcmp(req->version, "HTTP/1.1") && seen.hosts != 1) {
		hp_httpd_text(resp, 400, seen.hosts ? "more than one Host header" : "no Host header");
		return -1;
	}
	if (!split_target(req)) {
		hp_httpd_text(resp, 400, "a malformed request target");
		return -1;
	}
	return 0;
}

/* ---- connections and workers ------------------------------------------- */

static void conn_close(struct httpd_conn *c)
{
	if (c->state == HTTPD_FREE)
		return;
	close(c->fd);
	free(c->out);
	c->out = NULL;
	c->state = HTTPD_FREE;
}

/* Writes what the socket takes of c's answer; when all is written, the
 * connection lingers for the client to close first. */
static void conn_write(const struct hp_httpd *h, struct httpd_conn *c)
{
	while (c->outoff < c->outlen) {
		ssize_t k = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (k <= 0) {
			conn_close(c);
			return;
		}
		c->outoff += (size_t)k;
	}
	shutdown(c->fd, SHUT_WR);
	free(c->out);
	c->out = NULL;
	c->state = HTTPD_DRAIN;
	c->deadline = now() + (h->client_timeout < DRAIN_SECONDS ? h->client_timeout : DRAIN_SECONDS);
}

/* Queues resp on c, logs it, and starts writing. */
static void conn_answer(const struct hp_httpd *h, struct httpd_conn *c, const char *line, int head,
			struct hp_httpd_resp *resp)
{
	size_t n = 0;

	free(c->out);
	c->out = render(resp, head, &n);
	log_request(h, c->peer, line, resp, head ? 0 : resp->len, c->start);
	free(resp->body);
	resp->body = NULL;
	if (!c->out) {
		conn_close(c);
		return;
	}
	c->outlen = n;
	c->outoff = 0;
	c->state = HTTPD_WRITE;
	c->deadline = now() + h->client_timeout;
	conn_write(h, c);
}

static void on_stop(int sig)
{
	(void)sig;
	worker_stop = 1;
}

static int nworkers(void)
{
	int n = 0;

	for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
		n += workers[i].pid > 0;
	return n;
}

/* In the worker: sends all of buf (blocking, each send bounded by the
 * socket's timeout).  Returns 0 when all was sent. */
static int worker_send(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = send(fd, buf, n, MSG_NOSIGNAL);
		if (k < 0 && errno == EINTR && !worker_stop)
			continue;
		if (k <= 0)
			return -1;
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* In the worker: lingers for the client to close first. */
static void worker_linger(int fd)
{
	char scratch[4096];
	double until = now() + DRAIN_SECONDS;

	shutdown(fd, SHUT_WR);
	while (now() < until && recv(fd, scratch, sizeof(scratch), 0) > 0)
		;
}

/* Forks a worker for resp->work on c.  Returns 0 when it runs (c is the
 * worker's now), -1 when it cannot (resp then holds a 503). */
static int spawn(const struct hp_httpd *h, struct httpd_conn *c, const char *line,
		 const struct hp_httpd_req *req, struct hp_httpd_resp *resp,
		 const sigset_t *mask, int sfd)
{
	int slot = -1;

	for (int i = 0; i < HP_HTTPD_MAX_WORKERS && slot < 0; i++)
		if (!workers[i].pid)
			slot = i;
	if (slot < 0) {
		hp_httpd_text(resp, 503, "busy answering %d requests; try again", HP_HTTPD_MAX_WORKERS);
		hp_httpd_header(resp, "Retry-After", "1");
		return -1;
	}
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0) {
		hp_httpd_text(resp, 503, "cannot start a worker: %s", strerror(errno));
		hp_httpd_header(resp, "Retry-After", "1");
		return -1;
	}
	if (pid == 0) {
		struct sigaction sa = { .sa_handler = on_stop };
		struct timeval tv = { (time_t)h->client_timeout,
				      (suseconds_t)((h->client_timeout - (time_t)h->client_timeout) * 1e6) };
		close(h->fd);
		close(sfd);
		for (int i = 0; i < HP_HTTPD_MAX_CONNS; i++)
			if (&conns[i] != c && conns[i].state != HTTPD_FREE)
				close(conns[i].fd);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigprocmask(SIG_SETMASK, mask, NULL);
		fcntl(c->fd, F_SETFL, fcntl(c->fd, F_GETFL) & ~O_NONBLOCK);
		setsockopt(c->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		tv = (struct timeval){ (time_t)DRAIN_SECONDS, 0 };
		setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		resp->work(req, resp, h->arg, &worker_stop);
		if (worker_stop && resp->status != 503)
			hp_httpd_text(resp, 503, "heapprof serve is shutting down");
		size_t n = 0;
		char *out = render(resp, req->head, &n);
		int sent = out ? worker_send(c->fd, out, n) : -1;
		log_request(h, c->peer, line, resp, req->head ? 0 : resp->len, c->start);
		if (sent == 0)
			worker_linger(c->fd);
		close(c->fd);
		free(out);
		free(resp->body);
		exit(0);
	}
	workers[slot].pid = pid;
	workers[slot].deadline = now() + h->worker_limit + resp->work_seconds;
	workers[slot].killed = 0;
	close(c->fd);
	c->state = HTTPD_FREE;
	return 0;
}

/* A complete request on c: parse, route, answer or hand to a worker. */
static void dispatch(const struct hp_httpd *h, struct httpd_conn *c, size_t end, const sigset_t *mask,
		     int sfd)
{
	struct hp_httpd_req req;
	struct hp_httpd_resp resp;
	char line[1024];

	memset(&resp, 0, sizeof(resp));
	request_line(c->in, c->inlen, line, sizeof(line));
	if (parse(c, end, &req, &resp) == 0) {
		h->handler(&req, &resp, h->arg);
		if (resp.work && spawn(h, c, line, &req, &resp, mask, sfd) == 0) {
			free(resp.body);
			return;
		}
	}
	conn_answer(h, c, line, req.head, &resp);
}

/* A connection slot for a new client: a free one, else the oldest still
 * sending its request (a slow client gives way), else none. */
static struct httpd_conn *conn_slot(void)
{
	struct httpd_conn *oldest = NULL;

	for (int i = 0; i < HP_HTTPD_MAX_CONNS; i++) {
		if (conns[i].state == HTTPD_FREE)
			return &conns[i];
		if (conns[i].state == HTTPD_READ && (!oldest || conns[i].start < oldest->start))
			oldest = &conns[i];
	}
	if (oldest)
		conn_close(oldest);
	return oldest;
}

static void peer_name(const struct sockaddr *sa, socklen_t len, char *buf, size_t cap)
{
	char host[INET6_ADDRSTRLEN + 8], port[16];

	if (getnameinfo(sa, len, host, sizeof(host), port, sizeof(port),
			NI_NUMERICHOST | NI_NUMERICSERV) != 0)
		snprintf(buf, cap, "?");
	else if (sa->sa_family == AF_INET6)
		snprintf(buf, cap, "[%s]:%s", host, port);
	else
		snprintf(buf, cap, "%s:%s", host, port);
}

static void accept_all(const struct hp_httpd *h)
{
	for (int k = 0; k < HP_HTTPD_MAX_CONNS; k++) {
		struct sockaddr_storage ss;
		socklen_t len = sizeof(ss);
		int fd = accept4(h->fd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		struct httpd_conn *c = conn_slot();
		if (!c) {
			/* Every slot is answering: say so if the socket takes
			 * it at once, and close. */
			struct hp_httpd_resp resp;
			size_t n;
			char peer[64];
			memset(&resp, 0, sizeof(resp));
			hp_httpd_text(&resp, 503, "busy with %d connections; try again", HP_HTTPD_MAX_CONNS);
			hp_httpd_header(&resp, "Retry-After", "1");
			char *out = render(&resp, 0, &n);
			if (out && send(fd, out, n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				n = 0;
			peer_name((struct sockaddr *)&ss, len, peer, sizeof(peer));
			log_request(h, peer, "-", &resp, resp.len, now());
			free(out);
			free(resp.body);
			close(fd);
			continue;
		}
		memset(c, 0, offsetof(struct httpd_conn, in));
		c->state = HTTPD_READ;
		c->fd = fd;
		c->start = now();
		c->deadline = c->start + h->client_timeout;
		c->inlen = 0;
		peer_name((struct sockaddr *)&ss, len, c->peer, sizeof(c->peer));
	}
}

/* Reads what c sent; a complete request is dispatched, one too long is
 * answered 414 (its request line) or 431 (its headers). */
static void conn_read(const struct hp_httpd *h, struct httpd_conn *c, const sigset_t *mask, int sfd)
{
	if (c->state == HTTPD_DRAIN) {
		char scratch[4096];
		ssize_t k = recv(c->fd, scratch, sizeof(scratch), 0);
		if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
			conn_close(c);
		return;
	}
	ssize_t k = recv(c->fd, c->in + c->inlen, HP_HTTPD_MAX_REQUEST - c->inlen, 0);
	if (k < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (k <= 0) {
		conn_close(c);   /* gone before its request was whole */
		return;
	}
	c->inlen += (size_t)k;
	c->in[c->inlen] = '\0';
	if (c->in[0] == 0x16) {
		/* A TLS handshake record: it would wait for an answer in
		 * TLS, and never send a whole HTTP request. */
		struct hp_httpd_resp resp;
		memset(&resp, 0, sizeof(resp));
		hp_httpd_text(&resp, 400, "heapprof serve speaks HTTP, not HTTPS");
		conn_answer(h, c, "(TLS handshake)", 0, &resp);
		return;
	}
	size_t end = request_end(c->in, c->inlen);
	if (end) {
		dispatch(h, c, end, mask, sfd);
		return;
	}
	if (c->inlen >= HP_HTTPD_MAX_REQUEST) {
		struct hp_httpd_resp resp;
		char line[1024];
		memset(&resp, 0, sizeof(resp));
		request_line(c->in, c->inlen, line, sizeof(line));
		if (memchr(c->in, '\n', c->inlen))
			hp_httpd_text(&resp, 431, "the request's headers are longer than %d bytes",
				      HP_HTTPD_MAX_REQUEST);
		else
			hp_httpd_text(&resp, 414, "the request line is longer than %d bytes",
				      HP_HTTPD_MAX_REQUEST);
		conn_answer(h, c, line, 0, &resp);
	}
}

/* Connections past their deadline: a request not sent in time is
 * answered 408 (a connection that sent nothing, a port probe, is closed
 * without a word); an answer not taken, or a linger, ends. */
static void expire(const struct hp_httpd *h, double t)
{
	for (int i = 0; i < HP_HTTPD_MAX_CONNS; i++) {
		struct httpd_conn *c = &conns[i];
		if (c->state == HTTPD_FREE || t < c->deadline)
			continue;
		if (c->state == HTTPD_READ && c->inlen) {
			struct hp_httpd_resp resp;
			char line[1024];
			memset(&resp, 0, sizeof(resp));
			request_line(c->in, c->inlen, line, sizeof(line));
			hp_httpd_text(&resp, 408, "the request was not complete within %g s",
				      h->client_timeout);
			conn_answer(h, c, line, 0, &resp);
			/* Whatever the socket did not take at once is dropped
			 * with the client. */
			if (c->state == HTTPD_WRITE)
				conn_close(c);
		} else {
			conn_close(c);
		}
	}
	for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
		if (workers[i].pid > 0 && !workers[i].killed && t >= workers[i].deadline) {
			kill(workers[i].pid, SIGKILL);
			workers[i].killed = 1;
			fprintf(stderr, "heapprof serve: worker %d killed after %g s\n", (int)workers[i].pid,
				h->worker_limit);
		}
}

static void reap(void)
{
	pid_t pid;

	while ((pid = waitpid(-1, NULL, WNOHANG)) > 0)
		for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
			if (workers[i].pid == pid)
				workers[i].pid = 0;
}

/* The signals read from sfd: returns the last of SIGINT or SIGTERM, or 0,
 * reaping workers on SIGCHLD. */
static int read_signals(int sfd)
{
	struct signalfd_siginfo si;
	int stop = 0;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo == SIGCHLD)
			reap();
		else
			stop = (int)si.ssi_signo;
	}
	return stop;
}

/* Stops the workers: SIGTERM, which they answer by withdrawing what they
 * asked and answering 503, then SIGKILL after 5 s or a second signal. */
static void stop_workers(int sfd)
{
	struct pollfd p = { .fd = sfd, .events = POLLIN };
	double until = now() + 5;

	for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
		if (workers[i].pid > 0)
			kill(workers[i].pid, SIGTERM);
	reap();
	while (nworkers() && now() < until) {
		poll(&p, 1, 100);
		if (read_signals(sfd))
			break;
		reap();
	}
	for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
		if (workers[i].pid > 0) {
			kill(workers[i].pid, SIGKILL);
			waitpid(workers[i].pid, NULL, 0);
			workers[i].pid = 0;
		}
}

int hp_httpd_run(struct hp_httpd *h)
{
	sigset_t set, old;
	struct pollfd p[2 + HP_HTTPD_MAX_CONNS];
	struct httpd_conn *pc[2 + HP_HTTPD_MAX_CONNS];
	int stop = 0;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, &old);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		fprintf(stderr, "heapprof serve: signalfd: %s\n", strerror(errno));
		return 1;
	}
	while (!stop) {
		double t = now(), next = t + 1;
		int n = 0;
		p[n++] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		p[n++] = (struct pollfd){ .fd = h->fd, .events = POLLIN };
		for (int i = 0; i < HP_HTTPD_MAX_CONNS; i++) {
			struct httpd_conn *c = &conns[i];
			if (c->state == HTTPD_FREE)
				continue;
			pc[n] = c;
			p[n++] = (struct pollfd){ .fd = c->fd,
						  .events = c->state == HTTPD_WRITE ? POLLOUT : POLLIN };
			if (c->deadline < next)
				next = c->deadline;
		}
		for (int i = 0; i < HP_HTTPD_MAX_WORKERS; i++)
			if (workers[i].pid > 0 && !workers[i].killed && workers[i].deadline < next)
				next = workers[i].deadline;
		int ms = next <= t ? 0 : (int)((next - t) * 1000) + 1;
		if (poll(p, (nfds_t)n, ms) < 0 && errno != EINTR)
			break;
		if (p[0].revents)
			stop = read_signals(sfd);
		if (stop)
			break;
		for (int i = 2; i < n; i++) {
			struct httpd_conn *c = pc[i];
			if (!p[i].revents || c->state == HTTPD_FREE || c->fd != p[i].fd)
				continue;
			if (c->state == HTTPD_WRITE)
				conn_write(h, c);
			else
				conn_read(h, c, &old, sfd);
		}
		if (p[1].revents)
			accept_all(h);
		expire(h, now());
	}
	/* Shutting down: no new connections, none kept, workers stopped. */
	if (!h->quiet)
		fprintf(stderr, "heapprof serve: %s: shutting down\n", stop == SIGINT ? "SIGINT" : "SIGTERM");
	close(h->fd);
	for (int i = 0; i < HP_HTTPD_MAX_CONNS; i++)
		conn_close(&conns[i]);
	stop_workers(sfd);
	/* SIGINT and SIGTERM stay blocked: another may be on its way (timeout(1)
	 * signals its whole process group too), and the caller exits. */
	close(sfd);
	return 0;
}

/* ---- listening --------------------------------------------------------- */

static bool is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr) >> 24) == 127;
	if (sa->sa_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
		return IN6_IS_ADDR_LOOPBACK(a) || (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127);
	}
	return false;
}

int hp_httpd_listen(struct hp_httpd *h, const char *spec, char *err, size_t cap)
{
	char host[256], port[16];
	const char *colon;

	if (spec[0] == '[') {
		const char *close_br = strchr(spec, ']');
		if (!close_br || close_br[1] != ':' || (size_t)(close_br - spec - 1) >= sizeof(host))
			goto malformed;
		snprintf(host, sizeof(host), "%.*s", (int)(close_br - spec - 1), spec + 1);
		colon = close_br + 1;
	} else if ((colon = strrchr(spec, ':'))) {
		if ((size_t)(colon - spec) >= sizeof(host) || strchr(spec, ':') != colon)
			goto malformed;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	} else {
		snprintf(host, sizeof(host), "127.0.0.1");
		colon = spec - 1;
	}
	const char *ps = colon + 1;
	if (!host[0] || !*ps || strspn(ps, "0123456789") != strlen(ps) || strlen(ps) > 5 ||
	    atoi(ps) > 65535)
		goto malformed;
	snprintf(port, sizeof(port), "%s", ps);

	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL;
	int gai = getaddrinfo(host, port, &hints, &res);
	if (gai) {
		snprintf(err, cap, "--listen '%s': %s", spec, gai_strerror(gai));
		return 1;
	}
	int fd = -1, saved = 0;
	for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
		int one = 1;
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (ai->ai_family == AF_INET6)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, 128) != 0) {
			saved = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0) {
		snprintf(err, cap, "cannot listen on %s: %s", spec, strerror(saved));
		return 1;
	}
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &len);
	peer_name((struct sockaddr *)&ss, len, h->addr, sizeof(h->addr));
	h->loopback = is_loopback((struct sockaddr *)&ss);
	h->fd = fd;
	return 0;
malformed:
	snprintf(err, cap, "--listen '%s': want ADDRESS:PORT (127.0.0.1:6060, [::1]:6060) or PORT",
		 spec);
	return 2;
}
