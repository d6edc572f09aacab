/*
 * httpd.h -- a small HTTP/1.1 server for heapprof serve (cmd_serve.c):
 * GET and HEAD only, one request per connection (Connection: close),
 * bounded in every direction.
 *
 * One process, single-threaded, polls the listening socket and the
 * connections while they send their request and take a short answer.  A
 * request whose answer takes time (asking a process for a dump,
 * converting it, reading /proc) is handed to a worker process forked for
 * it, which answers on the connection and exits: a slow or stuck answer
 * never holds up the loop, and the report engine may die in a worker
 * without taking the server with it.
 *
 * Limits: a request (its line and headers) of at most HP_HTTPD_MAX_REQUEST
 * bytes (414 or 431 beyond), with no body (405 for a method other than
 * GET and HEAD, 413 for a GET or HEAD that has one), sent within client_timeout seconds of the
 * connection (408 after that: a slowloris client is dropped and costs one
 * slot meanwhile); at most HP_HTTPD_MAX_CONNS connections (a new one
 * evicts the oldest still sending its request, or is answered 503) and
 * HP_HTTPD_MAX_WORKERS workers (503 with Retry-After beyond); an answer
 * the client does not take within client_timeout is dropped; a worker
 * still running worker_limit seconds after it started is killed.
 */
#ifndef HP_CLI_HTTPD_H
#define HP_CLI_HTTPD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define HP_HTTPD_MAX_REQUEST 8192
#define HP_HTTPD_MAX_CONNS 64
#define HP_HTTPD_MAX_WORKERS 16

/* A request, parsed in place; every string is NUL-terminated. */
struct hp_httpd_req {
	int head;		/* HEAD: the answer goes without its body */
	const char *method;	/* "GET", "HEAD", or "POST" without a body */
	const char *target;	/* as sent: path and query */
	const char *path;	/* without the query */
	const char *query;	/* after '?'; "" when none */
	const char *version;	/* "HTTP/1.0" or "HTTP/1.1" */
	const char *host;	/* the Host header; "" when none */
	const char *x_heapprof;	/* the X-Heapprof header (actions); NULL when none */
	const char *peer;	/* the client's address and port */
};

struct hp_httpd_resp;
/* Work done in a worker process: fills resp.  *stop becomes non-zero when
 * the server shuts down; the work should then end soon (undoing what it
 * started) and answer 503. */
typedef void hp_httpd_work_fn(const struct hp_httpd_req *req, struct hp_httpd_resp *resp,
			      void *arg, volatile sig_atomic_t *stop);

/* An answer.  The server adds Date, Server, Content-Length (unless
 * no_length), Connection: close and Cache-Control: no-store. */
struct hp_httpd_resp {
	int status;
	const char *type;	/* Content-Type; NULL when there is no body */
	char headers[1024];	/* more header lines, each ending in "\r\n" */
	char *body;		/* malloc'd; the server frees it */
	size_t len;
	int no_length;		/* HEAD of an answer whose length is unknown */
	char note[512];		/* for the log line: why, after an error */
	hp_httpd_work_fn *work;	/* set by the handler: answer in a worker */
	double work_seconds;	/* and how much longer than worker_limit it
				 * may run (a wait the request asked for) */
};

/* The handler, called in the server process for each well-formed GET or
 * HEAD: answers at once, or sets resp->work.  It must not block. */
typedef void hp_httpd_handler_fn(const struct hp_httpd_req *req, struct hp_httpd_resp *resp,
				 void *arg);

struct hp_httpd {
	int fd;				/* the listening socket */
	char addr[128];			/* "127.0.0.1:6060", "[::1]:6060" */
	bool loopback;			/* it listens on a loopback address */
	double client_timeout;		/* seconds */
	double worker_limit;		/* seconds */
	bool quiet;			/* no line per request */
	hp_httpd_handler_fn *handler;
	void *arg;
};

/*
 * Listens on spec: "ADDR:PORT", "[IPV6]:PORT", or "PORT" alone for
 * 127.0.0.1 (port 0 picks a free one); ADDR may be a name.  Fills
 * h->fd, h->addr (with the port bound) and h->loopback.  Returns 0; 2
 * when spec is malformed (a usage error) and 1 when the address cannot be
 * bound, each with one line in err.
 */
int hp_httpd_listen(struct hp_httpd *h, const char *spec, char *err, size_t cap);

/* Serves until SIGINT or SIGTERM, then stops accepting, stops the
 * workers (SIGTERM, SIGKILL after 5 s) and returns 0, with SIGINT,
 * SIGTERM and SIGCHLD still blocked: the caller is to exit.  Logs one line
 * per answered request on stderr unless h->quiet. */
int hp_httpd_run(struct hp_httpd *h);

/* A one-line text/plain answer, the line in the log too.  Marked for go
 * tool pprof (X-Go-Pprof), which then shows it to its user. */
__attribute__((format(printf, 3, 4)))
void hp_httpd_text(struct hp_httpd_resp *resp, int status, const char *fmt, ...);

/* Appends a header line "Name: value\r\n"; value's control characters
 * are replaced.  Silently drops what does not fit. */
void hp_httpd_header(struct hp_httpd_resp *resp, const char *name, const char *value);

/* The value of key in a query string, %-decoded (and '+' as a space),
 * into buf: 1 when found, 0 when absent, -1 when malformed or longer
 * than cap - 1. */
int hp_httpd_query(const char *query, const char *key, char *buf, size_t cap);

#endif
