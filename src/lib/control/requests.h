/*
 * requests.h -- answering the requests of the signals and of the heapprof
 * command (signal_dump, signal_toggle, the bell, the control files).
 */
#ifndef HP_CONTROL_REQUESTS_H
#define HP_CONTROL_REQUESTS_H

#pragma GCC visibility push(hidden)

/* Does what req asks of these (the triggers' bits are left to the
 * helper thread); returns req with HP_REQ_STATE added when the state
 * file should be published again (the caller does it). */
unsigned hp_requests_do(unsigned req);

struct hp_livecheck;
struct hp_stack_entry;
/* heapprof_leak_check() on a process with a helper thread: the helper
 * checks (a scan from a program's thread would leave the verdict's
 * pointers to the leaks on that thread's stack, where a later scan finds
 * them once the thread has ended) and this caller waits, its stack
 * scanned from entry (where the program called; NULL: from where it
 * waits).  Returns what
 * hp_livecheck_run returned, or -1 when no helper thread took it (it
 * ended meanwhile): then the caller checks itself.  Any thread but the
 * helper, not from a signal handler. */
int hp_requests_leak_check(struct hp_livecheck *out, const char **why, const struct hp_stack_entry *entry);

/* In a fork child: no caller waits here. */
void hp_requests_postfork_child(void);

/* Who answers: the program's threads (no helper thread), or the helper. */
void hp_requests_answer_here(void);
void hp_requests_answer_in_helper(void);

#pragma GCC visibility pop

#endif
