/*
 * verdict.h -- the leak verdict by reachability (leak_check:reachable):
 * what the program can no longer reach at exit, reported as LeakSanitizer
 * does:
 *
 *     <heapprof>: Direct leak of 5555 byte(s) in 1 object(s) allocated from:
 *     <heapprof>:     #0 0x55d0c0a01156 in make_node (/path/prog+0x1156)
 *     <heapprof>:
 *     <heapprof>: Indirect leak of 56 byte(s) in 50 object(s) allocated from:
 *     ...
 *     <heapprof>: SUMMARY: heapprof: 5611 byte(s) leaked in 51 allocation(s).
 *
 * scan/reach.h says what counts as reachable.
 */
#ifndef HP_VERDICT_H
#define HP_VERDICT_H

#pragma GCC visibility push(hidden)

#include <limits.h>
#include <stdint.h>

#include "stack/entry.h"

struct hp_verdict {
	uint64_t direct_bytes, direct_objects;
	uint64_t indirect_bytes, indirect_objects;
	uint64_t contexts;   /* leak reports: (stack, direct or indirect) pairs */
	uint64_t suppressed_bytes, suppressed_objects;   /* not in the above */
	unsigned threads, threads_stopped;   /* other threads, and how many stopped */
	uint64_t pause_us;   /* how long the other threads were stopped */
	const char *error;   /* no verdict: why (a static string) */
	int sampled_lg;      /* 0: exact; else the counts are estimates from
			      * blocks sampled at this rate */
	uint64_t sampled_blocks;   /* then: the leaked blocks they come from */
	/* The leak dump: a heap profile of exactly these leaks. */
	char dump[PATH_MAX];
	int dump_err;        /* 0, ENOENT (no prof_prefix) or why it failed */
};

/* Whether what leak checking finds at exit is printed: leak_report is
 * on, and someone can read it (base/log.h's hp_log_can_print: with
 * standard error closed and no log file, the verdict file is the only
 * record). */
int hp_verdict_printable(void);

/* Scans (stopping the other threads for at most wait_ms per round; this
 * thread's stack from entry->sp up, and its registers there, as scan/reach.h says), prints the
 * report when hp_verdict_printable(), writes the leak dump and the verdict
 * file (verdictfile.h) with the exit status the program asked for.
 * Returns 0, or an errno value after one line saying why there is no
 * verdict (the file says it too).  At exit, inside the guard, with every
 * allocation recorded. */
int hp_verdict_run(struct hp_verdict *v, int wait_ms, int status, const struct hp_stack_entry *entry);

/* A leak check of the running process (leak/livecheck.c): nothing is
 * printed, no leak dump is written, and the verdict goes to path
 * (verdictfile.h's hp_verdictfile_begin_live, with the leaked blocks'
 * addresses when live->blocks), or nowhere when path is NULL.  Otherwise as
 * hp_verdict_run; any thread inside the guard, heapprof's helper thread
 * included, never two at once. */
struct hp_verdict_live {
	const char *path;
	uint32_t seq;          /* the process's check number */
	int64_t attached_at;   /* heapprof attach's time (UTC seconds), 0 */
	int blocks;            /* list each leak's blocks */
};
int hp_verdict_live(struct hp_verdict *v, int wait_ms, const struct hp_stack_entry *entry,
		    const struct hp_verdict_live *live);

#pragma GCC visibility pop

#endif
