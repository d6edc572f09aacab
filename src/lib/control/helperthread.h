/*
 * helperthread.h -- the helper thread: where dumps requested by signals and
 * triggers are written, profiler.ini is watched, and state is published.
 *
 * It is created with every signal blocked, so the host's signal delivery
 * never changes; it takes itself out of glibc's count of threads, so the
 * process ends when the program's last thread does; and it runs inside
 * the guard, so whatever it allocates passes through unsampled.  It
 * sleeps on the request word's futex (record/trigger.h), which signal
 * handlers and triggers wake, with a timeout for timed work; it looks at
 * profiler.ini with stat(2).  It holds no file descriptor between tasks.
 *
 * It runs only when something needs it (helper_thread, heapprof(7)): a
 * single-threaded program stays single-threaded (unshare(CLONE_NEWUSER),
 * a zygote's fork, glibc's single-threaded malloc) unless a timed or
 * trigger dump is configured; the thread starts when the program starts a
 * thread of its own.  Until then the program's threads answer requests
 * (control/requests.c).
 */
#ifndef HP_HELPERTHREAD_H
#define HP_HELPERTHREAD_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>

/* At init: starts the thread when the configuration wants it at once;
 * otherwise the program's threads answer requests.  Returns 0. */
int hp_helperthread_start(void);
/* heapprof attach: starts the thread now (unless helper_thread:never). */
void hp_helperthread_start_attached(void);
/* heapprof detach: asks the thread to end and waits for it (5 s at most:
 * it may be writing a dump).  False when it has not ended. */
bool hp_helperthread_stop(void);
/* In a fork child: the child's own thread, when its configuration wants
 * one at once. */
void hp_helperthread_postfork_child(void);

#pragma GCC visibility pop

#endif
