/*
 * helperthread.h -- the helper thread: where dumps requested by signals and
 * triggers are written, profiler.ini is watched, and state is published.
 *
 * It is created with every signal blocked, so the host's signal delivery
 * never changes, and it runs inside the guard, so whatever it allocates
 * passes through unsampled.  It sleeps in poll(2) on a pipe that signal
 * handlers and triggers write one byte to, on an inotify descriptor for
 * profiler.ini, and on timeouts for timed work.
 */
#ifndef HP_HELPERTHREAD_H
#define HP_HELPERTHREAD_H

#pragma GCC visibility push(hidden)

/* Starts the thread.  Returns 0 or an errno value. */
int hp_helperthread_start(void);
/* In a fork child: a new pipe and a new thread. */
void hp_helperthread_postfork_child(void);

#pragma GCC visibility pop

#endif
