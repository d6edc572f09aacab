/*
 * push.h -- heapprof serve --push URL: each profiled process's heap
 * profile sent to Pyroscope's ingestion endpoint (POST URL/ingest) every
 * interval, as its Go and Python clients send theirs: the profile as
 * gzipped profile.proto in a multipart form ("profile", with
 * "sample_type_config" telling Pyroscope the heap's sample types), the
 * application name with its labels, and the time range in the query.
 *
 * The pusher is a process of its own, forked by serve, that gets each
 * profile from serve itself (GET /debug/pprof/heap?pid=N on serve's own
 * address): the same dump, permissions and conversion as any client.  The
 * library never opens a network connection; serve does, to URL only.
 */
#ifndef HP_CLI_PUSH_H
#define HP_CLI_PUSH_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define HP_PUSH_LABELS_MAX 16

struct hp_push {
	const char *url;	/* as given */
	char host[256], port[16];
	char base[512];		/* the URL's path, without a trailing slash */
	char endpoint[1024];	/* http://HOST:PORT/PATH/ingest, for messages */
	double interval;	/* seconds between pushes */
	const char *app;	/* the application name; NULL: the program's name */
	const char *labels[HP_PUSH_LABELS_MAX];	/* "key=value" */
	size_t nlabels;
	bool quiet;		/* no line per push */
};

/* Parses http://HOST[:PORT][/PATH] into p; -1 with one line in err. */
int hp_push_url(struct hp_push *p, const char *url, char *err, size_t cap);

/* Adds a KEY=VALUE label; -1 with one line in err. */
int hp_push_label(struct hp_push *p, const char *kv, char *err, size_t cap);

/* Forks the pusher, which asks serve at self ("ADDR:PORT") for the
 * profiles; returns its pid, or -1 (errno). */
pid_t hp_push_start(const struct hp_push *p, const char *self);

#endif
