/*
 * sigview.h -- the program's view of the signals heapprof handles.
 *
 * heapprof puts its own handler on signal_dump, signal_toggle and its
 * control signal (control/signals.c) only where the program would have
 * SIG_DFL, and then keeps, for each such "claimed" signal, the action the
 * program would see without heapprof.  The sigaction family is
 * interposed here (sigaction, signal, bsd_signal, ssignal, sysv_signal,
 * __sysv_signal, sigset, sigignore, siginterrupt) so that:
 *
 *   - asking for the current or old action of a claimed signal returns
 *     that view (SIG_DFL, as the kernel would have it), never heapprof's
 *     handler: a program that saves and restores a handler restores
 *     SIG_DFL, and Python's signal module sees a default it knows;
 *   - a program that installs a handler or SIG_IGN gets it, in the
 *     kernel, at once: it wins, and heapprof's handler is gone;
 *   - a program that sets SIG_DFL again gets heapprof's handler back (a
 *     signal arriving in between does what SIG_DFL does, as it would
 *     without heapprof);
 *   - a signal the process inherited as ignored stays ignored (exec keeps
 *     SIG_IGN but not a handler, so a handler would change what the
 *     program's own children do too).
 *
 * Signals not claimed pass straight to the next sigaction.  The
 * interposers live in this low layer, not in intercept/, because the
 * library's own lower layers (scan/world.c) call sigaction too and must
 * reach the same view.  A disposition changed with a raw system call
 * (rt_sigaction, as Go's runtime does) is not seen until hp_sigview_state
 * looks at the kernel.
 *
 * All functions are async-signal-safe (a program may call sigaction in a
 * handler): the state is under a spinlock taken with every signal
 * blocked on the calling thread.
 */
#ifndef HP_SIGVIEW_H
#define HP_SIGVIEW_H

#include <signal.h>

#pragma GCC visibility push(hidden)

enum hp_sigview_state {
	HP_SIGVIEW_NONE = 0,      /* not claimed */
	HP_SIGVIEW_OURS,          /* heapprof's handler; the program sees SIG_DFL */
	HP_SIGVIEW_IGNORED,       /* the program's SIG_IGN (inherited or set) */
	HP_SIGVIEW_PROGRAMS,      /* the program's own handler */
};

typedef void hp_sigview_handler(int sig, siginfo_t *info, void *ctx);

/* Claims sig for handler: installs it when the program's action is
 * SIG_DFL, else leaves the program's.  Claiming a claimed signal changes
 * nothing.  Returns the resulting state (HP_SIGVIEW_NONE: sig is not a
 * signal that can be claimed). */
int hp_sigview_claim(int sig, hp_sigview_handler *handler);
/* Called, outside the lock, after the program changed whether a claimed
 * signal carries heapprof's handler (in any thread, maybe in a signal
 * handler: it must be async-signal-safe). */
void hp_sigview_set_notify(void (*fn)(int sig));
/* Gives sig back: the program's view becomes the kernel's action. */
void hp_sigview_release(int sig);
/* The state of a claimed signal, checked against the kernel: a handler
 * of ours replaced behind the interposer counts as the program's from
 * now on, and a signal found back at SIG_DFL (a handler installed with
 * SA_RESETHAND, once it ran) gets heapprof's handler again. */
int hp_sigview_state(int sig);
/* Marks (on) or unmarks sig as one to give back before a seccomp filter
 * goes in (control/signals.c's final signals: under a filter the calls
 * their handler makes to let the signal kill may be refused).
 * hp_sigview_before_sandbox, from intercept/seccomp.c while heapprof's
 * system calls are still free, releases the marked signals. */
void hp_sigview_release_before_sandbox(int sig, int on);
void hp_sigview_before_sandbox(void);
/* Fork: the lock is held across fork() and free in both processes.  In a
 * child whose parent did not call hp_sigview_prefork (a fork from a signal
 * handler that interrupted heapprof), locked is 0: the lock is only
 * reset. */
void hp_sigview_prefork(void);
void hp_sigview_postfork_parent(void);
void hp_sigview_postfork_child(int locked);

#pragma GCC visibility pop

#endif
