/*
 * leakcheck.h -- a leak check of a running process, asked and read: what
 * heapprof leaks (cmd_leaks.c) and heapprof serve's /debug/leaks
 * (cmd_serve.c) share.
 *
 * The process's helper thread scans (ask.h's hp_ask_leaks); its verdict
 * file (<runtime dir>/leaks.<pid>, src/lib/leak/verdictfile.h) is read and
 * symbolized as heapprof check's (src/report/check.h).  With confirm N > 1
 * the check runs N times, interval seconds apart, and only the blocks
 * unreachable in every one are reported (kmemleak's rule against a pointer
 * in flight: one that lives only in a register or a kernel buffer at the
 * moment of a scan); a block freed between checks, or reached in any, is
 * left out.  An ordinary program: stdio and malloc.
 */
#ifndef HP_CLI_LEAKCHECK_H
#define HP_CLI_LEAKCHECK_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

#include "ask.h"
#include "report/buf.h"

struct hp_leakcheck_opts {
	pid_t pid;
	bool json;
	bool any_user;            /* root: any user's process */
	unsigned confirm;         /* checks in a row; 0 or 1: one */
	double interval;          /* seconds between them */
	double timeout;           /* for each check */
	volatile sig_atomic_t *stop;   /* NULL, or raised to give up */
};

/* heapprof leaks' defaults. */
#define HP_LEAKCHECK_INTERVAL 5.0
#define HP_LEAKCHECK_TIMEOUT 60.0
#define HP_LEAKCHECK_CONFIRM_MAX 100

/* Runs the check(s) and appends the report (text, or JSON) to out.
 * Returns 1 when something leaked, 0 when not, or -1 with one line in
 * msg (no "heapprof: " prefix) and, when asking failed, what ask.h said
 * in *st (HP_ASK_OK otherwise: the verdict could not be read or gave no
 * verdict). */
int hp_leakcheck_run(const struct hp_leakcheck_opts *o, struct hp_buf *out, char *msg, size_t cap,
		     enum hp_ask_status *st);

#endif
