/*
 * bellpage.h -- the bell: one shared page through which the heapprof command
 * asks a running process for a dump, a pause, a resume or a leak check,
 * and reads the answer.  Shared by the library (src/lib/output/bell.c, which creates it)
 * and the command (src/cli/ask.c, which rings it); nothing else.
 *
 * The library creates <runtime dir>/bell.<pid> (mode 0600, never through a
 * symlink) at start-up and in each fork child, maps it MAP_SHARED and keeps
 * no descriptor.  The mapping names the file in /proc/PID/maps, so the
 * command finds the process's runtime directory there, whatever the
 * program did to its environment (nginx and redis-server rewrite it with
 * their process title).
 *
 * `requests` is also the futex word heapprof's helper thread sleeps on,
 * when the process has one: the command ORs its bit in and wakes it with
 * FUTEX_WAKE (not private: the page is shared), so no signal reaches any
 * of the program's threads.  A process without a helper thread takes the
 * bits at its next sampled allocation; the command waits HP_BELL_POLL_MS
 * for that, and only then sends the control signal, which heapprof's
 * handler serves.  The library's own request bits share the word, below
 * bit 16.
 *
 * Every field is read and written with atomic operations; the strings are
 * written before the counter that announces them.
 */
#ifndef HEAPPROF_BELLPAGE_H
#define HEAPPROF_BELLPAGE_H

#include <stdint.h>

#define HP_BELL_MAGIC    0x6c6c6562u   /* "bell" */
#define HP_BELL_VERSION  1u
#define HP_BELL_SIZE     4096
#define HP_BELL_POLL_MS  200

/* The command's bits in `requests`. */
#define HP_BELL_DUMP     (1u << 16)    /* write a dump */
#define HP_BELL_ACTIVE   (1u << 17)    /* set sampling to `want_active` */
#define HP_BELL_LEAKS    (1u << 18)    /* a leak check now (heapprof leaks): the
					* verdict goes to leaks.<pid> beside
					* the bell, then leak_checks counts it
					* (or leak_failures, last_error why) */
#define HP_BELL_STATS    (1u << 19)    /* the figures below `stats`, now (heapprof
					* serve's /metrics): then stats_seq counts it */
#define HP_BELL_ALL      (HP_BELL_DUMP | HP_BELL_ACTIVE | HP_BELL_LEAKS | HP_BELL_STATS)

struct hp_bell {
	uint32_t magic;
	uint32_t version;
	uint32_t pid;           /* the process the page belongs to */
	uint32_t requests;      /* the futex word */
	uint32_t helper_tid;    /* heapprof's helper thread, 0: none */
	uint32_t want_active;   /* with HP_BELL_ACTIVE: 1 resume, 0 pause */
	uint32_t dumps;         /* dumps written: last_dump names the last */
	uint32_t failures;      /* requested dumps that failed: last_error */
	uint32_t answered;      /* requests served, whatever their outcome */
	uint32_t reserved0;
	int64_t live_bytes;     /* estimated live heap, as the triggers see it
				 * (fresh to within 1 MiB a thread) */
	uint32_t leak_checks;   /* leak checks whose verdict file is written */
	uint32_t leak_failures; /* requested leak checks that failed: last_error */
	uint32_t leak_blocks;   /* set by heapprof leaks --confirm, never cleared:
				 * the verdicts list each leak's blocks */
	uint32_t reserved[1];
	char last_dump[2048];
	char last_error[1024];
	/* With HP_BELL_STATS, by the helper thread, then stats_seq is
	 * incremented (release): estimates at a sampled rate, exact in exact
	 * mode; peak_bytes is the exact peak in exact mode, -1 at a sampled
	 * rate (an estimate's largest value overshoots). */
	uint32_t stats_seq;
	uint32_t stats_reserved;
	int64_t stats_live_objects;
	int64_t stats_live_bytes;
	int64_t stats_alloc_objects;    /* allocated since start (or the attach) */
	int64_t stats_alloc_bytes;
	int64_t stats_peak_bytes;
};

#endif
