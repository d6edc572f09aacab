/*
 * livecheck.h -- a leak check of the running process: heapprof leaks PID
 * (the bell's HP_BELL_LEAKS), the API's heapprof_leak_check() and the
 * leak_check_interval trigger.
 *
 * The same scan as the exit's (scan/reach.h): the other threads are
 * stopped, the roots scanned and the threads resumed; the verdict (exact
 * in exact mode, an estimate at a sampled rate, since the attach for an
 * attached process) goes to <runtime dir>/leaks.<pid> (leak/verdictfile.h,
 * with the leaked blocks' addresses) and nothing is printed: the program's
 * output stays its own.  One check at a time: a second caller waits for
 * the first to end, then runs its own.
 */
#ifndef HP_LIVECHECK_H
#define HP_LIVECHECK_H

#pragma GCC visibility push(hidden)

#include <limits.h>
#include <stdint.h>

#include "leak/verdict.h"
#include "stack/entry.h"

/* How long a check waits for the other threads to stop, per round of
 * signals (scan/world.h: three rounds at most); a thread that does not
 * stop by then is scanned whole, and named in the verdict. */
#define HP_LIVECHECK_WAIT_MS 100

enum hp_livecheck_origin {
	HP_LIVECHECK_COMMAND,    /* heapprof leaks, heapprof serve */
	HP_LIVECHECK_API,        /* heapprof_leak_check() */
	HP_LIVECHECK_INTERVAL,   /* leak_check_interval: logs its verdict */
};

struct hp_livecheck {
	struct hp_verdict v;
	uint32_t seq;            /* this check's number in the process, from 1 */
	char path[PATH_MAX];     /* the verdict file written, "" for none */
};

/* Runs a check (entry: where the program's call entered heapprof, for an
 * API caller; NULL on heapprof's helper thread); with_blocks: the verdict
 * file lists each leak's blocks (heapprof leaks --confirm follows them).  Returns 0 or an errno
 * value (ENOENT: leak_check is not reachable, or no scan is possible
 * under a seccomp filter; else the scan's failure); *why then says why.
 * Any thread but from a signal handler; enters the guard itself. */
int hp_livecheck_run(struct hp_livecheck *out, enum hp_livecheck_origin origin,
		     const struct hp_stack_entry *entry, int with_blocks, const char **why);

/* In a fork child: a check the parent ran holds no lock here, and the
 * child's checks count from 1. */
/* Around fork: a check under way ends first (its scan holds the loader's
 * lock while it stops the threads; a fork child would inherit it held),
 * and none starts until the fork is done. */
void hp_livecheck_prefork(void);
void hp_livecheck_postfork_parent(void);
void hp_livecheck_postfork_child(void);

#pragma GCC visibility pop

#endif
