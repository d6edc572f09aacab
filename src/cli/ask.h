/*
 * ask.h -- asking a running process for a dump or a change of sampling:
 * the checks before asking, the request itself (the process's bell, a
 * shared page its helper thread sleeps on, so that no signal reaches the
 * program; a control file woken by heapprof's real-time signal for an
 * older library; or an older library's signal) and the wait for the dump.  Shared by heapprof
 * dump, toggle, pause and resume (cmd_ctl.c) and heapprof serve
 * (cmd_serve.c).
 *
 * Nothing here prints: each step says why it failed in a->msg, one line
 * without the "heapprof: " prefix, and returns a status the caller turns
 * into its own (an exit status, an HTTP status).
 */
#ifndef HP_CLI_ASK_H
#define HP_CLI_ASK_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "proc.h"

enum hp_ask_status {
	HP_ASK_OK,
	HP_ASK_NO_PROCESS,	/* no such process, or a zombie */
	HP_ASK_DENIED,		/* another user's (or the request was refused) */
	HP_ASK_NOT_LOADED,	/* heapprof is not loaded into it */
	HP_ASK_CANNOT,		/* loaded, but cannot be asked: no state, no
				 * dump signal, an empty prof_prefix */
	HP_ASK_FAILED,		/* the control file or the signal failed */
	HP_ASK_EXITED,		/* it exited before answering */
	HP_ASK_TIMEOUT,		/* no answer in time */
	HP_ASK_STOPPED,		/* the caller's stop flag was raised */
};

/* One request to one process, from the checks to the answer. */
struct hp_ask {
	pid_t pid;
	struct hp_proc_state st;	/* the state read before asking */
	char prog[PATH_MAX];		/* its program, for messages */
	char ctl[PATH_MAX];		/* the control file made; "" for none */
	char msg[PATH_MAX + 256];	/* why, when a step did not return OK */
	/* The process's bell (src/bellpage.h), mapped; NULL for none (an
	 * older library, or no runtime directory): control files then. */
	struct hp_bell *bell;
	unsigned bit;			/* the request rung, 0: none */
	unsigned answered0, dumps0, failures0, leak_checks0, leak_failures0, stats_seq0;
	double rung_at;
	bool nudged;			/* the control signal was sent */
};

/*
 * The checks before asking pid: it exists and is no zombie, it is this
 * user's (any user's when any_user: root), heapprof is loaded and its
 * state file is readable.  Fills a->pid, a->prog and a->st.  Returns HP_ASK_OK,
 * HP_ASK_NO_PROCESS, HP_ASK_DENIED, HP_ASK_NOT_LOADED or HP_ASK_CANNOT.
 */
enum hp_ask_status hp_ask_check(struct hp_ask *a, pid_t pid, bool any_user);

/*
 * Asks the checked process for what ("dump", "pause", "resume"): through
 * its control file when it reads them, else with the older library's
 * signal which_sig (the state's signal_dump or signal_toggle, named opt
 * in messages) when heapprof's handler holds it.  Returns HP_ASK_OK (a->ctl
 * names the control file, or is empty after a signal), HP_ASK_CANNOT,
 * HP_ASK_DENIED or HP_ASK_FAILED.
 */
enum hp_ask_status hp_ask_send(struct hp_ask *a, const char *what, int which_sig, const char *opt);

/* Withdraws a request not taken (after a failure or a time-out): removes
 * the control file, if any.  The process would otherwise act on it
 * within a second. */
void hp_ask_withdraw(struct hp_ask *a);

/* While waiting for an answer: a process without a helper thread that has
 * not taken a rung request within HP_BELL_POLL_MS (no allocation reached
 * a sample point) gets the control signal, once. */
void hp_ask_nudge(struct hp_ask *a);

/*
 * A fresh dump of the checked process: asks for it and waits until the
 * state file counts a new dump, at most timeout seconds, or until *stop
 * (when stop is not NULL) becomes non-zero.  The dump's path, as the
 * process wrote it (relative to its working directory when prof_prefix
 * is relative), goes to path.  Returns HP_ASK_OK, HP_ASK_CANNOT (an empty
 * prof_prefix), what hp_ask_send returns, HP_ASK_EXITED, HP_ASK_TIMEOUT or
 * HP_ASK_STOPPED; the request is withdrawn unless it was answered.
 */
enum hp_ask_status hp_ask_dump(struct hp_ask *a, double timeout, volatile sig_atomic_t *stop,
			       char *path, size_t cap);

/*
 * A leak check of the checked process now (heapprof leaks): rings its
 * bell (a process without one cannot be asked: HP_ASK_CANNOT) and waits
 * until it says the verdict is written (blocks: asks that verdicts list
 * each leak's blocks from now on, for --confirm), at most timeout seconds, or until
 * *stop.  The verdict's path (<runtime dir>/leaks.<pid>) goes to path.
 * Returns HP_ASK_OK, HP_ASK_CANNOT, HP_ASK_FAILED (the library's reason in
 * a->msg), HP_ASK_EXITED, HP_ASK_TIMEOUT or HP_ASK_STOPPED.
 */
enum hp_ask_status hp_ask_leaks(struct hp_ask *a, double timeout, volatile sig_atomic_t *stop,
				bool blocks, char *path, size_t cap);

/* The process's totals (src/bellpage.h's stats fields). */
struct hp_ask_stats {
	long long live_objects, live_bytes, alloc_objects, alloc_bytes;
	long long peak_bytes;	/* -1: none (a sampled rate) */
};

/*
 * Rings the checked process's bell for its totals (no signal: a process
 * without a helper thread is not asked, HP_ASK_CANNOT).  hp_ask_stats_wait
 * then waits for the answer at most until deadline (hp_ask_now()'s
 * clock): HP_ASK_OK with *out filled, or HP_ASK_TIMEOUT.  Ringing every
 * process first and then waiting asks many at once.
 */
enum hp_ask_status hp_ask_stats_ring(struct hp_ask *a);
enum hp_ask_status hp_ask_stats_wait(struct hp_ask *a, double deadline, struct hp_ask_stats *out);

/* Seconds on the monotonic clock, and a pause of ms milliseconds. */
double hp_ask_now(void);
void hp_ask_pause_ms(int ms);

#endif
