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
 */
#ifndef HP_HELPERTHREAD_H
#define HP_HELPERTHREAD_H

#pragma GCC visibility push(hidden)

/* Starts the thread.  Returns 0 or an errno value. */
int hp_helperthread_start(void);
/* In a fork child: a new thread, the child's own. */
void hp_helperthread_postfork_child(void);

#pragma GCC visibility pop

#endif
