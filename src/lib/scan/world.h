/*
 * world.h -- stopping the other threads of the process for a leak scan,
 * without ptrace.
 *
 * As the Boehm collector does: every thread listed in /proc/self/task is
 * sent a signal with tgkill (heapprof has not seen every thread start);
 * its handler notes its stack pointer and thread pointer and waits on a
 * futex until released.  The kernel saved the thread's registers, vector
 * registers included, in the signal frame below the interrupted stack
 * pointer, so scanning the stack from the handler's own stack pointer
 * covers them.  The wait is bounded: a thread that blocks the signal, or
 * does not reach the handler in time, is reported as not stopped, and the
 * scan treats its stack conservatively.
 */
#ifndef HP_WORLD_H
#define HP_WORLD_H

#pragma GCC visibility push(hidden)

#include <stdint.h>
#include <sys/types.h>

#define HP_WORLD_MAX 4096   /* threads; more are reported as not stopped */

struct hp_world_thread {
	pid_t tid;
	int stopped;          /* reached the handler and waits there */
	uintptr_t sp;         /* the handler's stack pointer: the registers
			       * lie above it, in the signal frame */
	uintptr_t tp;         /* the thread pointer (TCB): static TLS is next
			       * to it */
};

struct hp_world {
	unsigned n;                        /* threads other than the caller */
	unsigned stopped;
	unsigned missed;                   /* threads past HP_WORLD_MAX */
	struct hp_world_thread *threads;   /* n of them, from hp_pages */
};

/* Maps the thread array (before the caller takes any lock a stopped
 * thread could hold); 0 or ENOMEM.  hp_world_release unmaps it. */
int hp_world_prepare(struct hp_world *w);
void hp_world_release(struct hp_world *w);

/* Stops every other thread, waiting at most wait_ms for each round of
 * signals.  Returns 0, or an errno value when nothing could be done
 * (/proc/self/task unreadable, no memory): then nothing is stopped.
 * The caller must hold no lock that a thread needs to reach a signal
 * handler, and must not allocate through malloc until hp_world_resume. */
int hp_world_stop(struct hp_world *w, int wait_ms);

/* Lets every stopped thread go on.  A thread that reaches the handler
 * later returns from it at once. */
void hp_world_resume(struct hp_world *w);

#pragma GCC visibility pop

#endif
