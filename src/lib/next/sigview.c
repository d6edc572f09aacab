/*
 * sigview.c -- the program's view of the signals heapprof handles, and
 * the interposed sigaction family that keeps it (see sigview.h).
 *
 * Owns the claimed signals, the view of each and the next sigaction.
 * The emulations of signal(), sysv_signal(), sigset(), sigignore() and
 * siginterrupt() follow glibc 2.36's, built on the interposed sigaction,
 * because glibc's call its internal __sigaction and would not see the
 * view.  Must not allocate, log or take any lock but its own.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "base/spin.h"
#include "next/sigview.h"
#include "base/banned.h"

#define NSIGS 65   /* 1..64 */

typedef int sigaction_fn(int, const struct sigaction *, struct sigaction *);

/* glibc exports it: the fallback when dlsym(RTLD_NEXT) finds nothing. */
extern int __sigaction(int, const struct sigaction *, struct sigaction *);

static sigaction_fn *next_sigaction;

struct slot {
	int claimed;
	int ours;                  /* the kernel holds heapprof's handler */
	struct sigaction view;     /* while ours: what the program would see */
	struct sigaction mine;     /* heapprof's action */
};

static struct slot slots[NSIGS];
static uint64_t claimed_mask;    /* bit sig-1: claimed (read without the lock) */
static uint64_t sandbox_mask;    /* bit sig-1: released before a seccomp filter */
static struct hp_spin lock;
static sigset_t fork_mask;       /* the forking thread's mask, while locked */
static sigset_t intr;            /* siginterrupt(sig, 1) was asked */
static void (*notify)(int sig);

int sigaction(int sig, const struct sigaction *act, struct sigaction *old);
__sighandler_t bsd_signal(int sig, __sighandler_t handler);   /* X/Open only */

static sigaction_fn *real(void)
{
	sigaction_fn *fn = HP_LOAD_ACQ(&next_sigaction);

	if (HP_UNLIKELY(!fn)) {
		fn = (sigaction_fn *)dlsym(RTLD_NEXT, "sigaction");
		if (!fn || fn == sigaction)
			fn = __sigaction;
		HP_STORE_REL(&next_sigaction, fn);
	}
	return fn;
}

static int is_claimed(int sig)
{
	return sig > 0 && sig < NSIGS && (HP_LOAD_ACQ(&claimed_mask) >> (sig - 1) & 1);
}

/* The lock, with every signal blocked: a handler on this thread that calls
 * sigaction would otherwise spin on a lock its own thread holds. */
static void enter(sigset_t *saved)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, saved);
	hp_spin_lock(&lock);
}

static void leave(const sigset_t *saved)
{
	hp_spin_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static int is_mine(const struct slot *s, const struct sigaction *k)
{
	return (k->sa_flags & SA_SIGINFO) && k->sa_sigaction == s->mine.sa_sigaction;
}

static int state_of(const struct slot *s, const struct sigaction *k)
{
	if (!s->claimed)
		return HP_SIGVIEW_NONE;
	if (s->ours)
		return HP_SIGVIEW_OURS;
	return k->sa_handler == SIG_IGN ? HP_SIGVIEW_IGNORED : HP_SIGVIEW_PROGRAMS;
}

int hp_sigview_claim(int sig, hp_sigview_handler *handler)
{
	struct sigaction cur;
	sigset_t saved;
	int st = HP_SIGVIEW_NONE;

	if (sig <= 0 || sig >= NSIGS || !handler)
		return HP_SIGVIEW_NONE;
	enter(&saved);
	struct slot *s = &slots[sig];
	if (real()(sig, NULL, &cur) != 0)
		goto out;
	if (!s->claimed) {
		memset(&s->mine, 0, sizeof(s->mine));
		s->mine.sa_sigaction = handler;
		s->mine.sa_flags = SA_SIGINFO | SA_RESTART;
		sigemptyset(&s->mine.sa_mask);
		s->ours = 0;
		/* SIG_DFL only: SIG_IGN and the program's handler stay. */
		if (cur.sa_handler == SIG_DFL) {
			s->view = cur;
			if (real()(sig, &s->mine, NULL) == 0)
				s->ours = 1;
		}
		s->claimed = 1;
		__atomic_fetch_or(&claimed_mask, (uint64_t)1 << (sig - 1), __ATOMIC_RELEASE);
	}
	st = state_of(s, &cur);
out:
	leave(&saved);
	return st;
}

void hp_sigview_set_notify(void (*fn)(int sig))
{
	HP_STORE_REL(&notify, fn);
}

void hp_sigview_release(int sig)
{
	sigset_t saved;

	if (sig <= 0 || sig >= NSIGS)
		return;
	enter(&saved);
	struct slot *s = &slots[sig];
	if (s->claimed) {
		if (s->ours)
			real()(sig, &s->view, NULL);
		s->ours = 0;
		s->claimed = 0;
		__atomic_fetch_and(&claimed_mask, ~((uint64_t)1 << (sig - 1)), __ATOMIC_RELEASE);
	}
	leave(&saved);
}

void hp_sigview_release_before_sandbox(int sig, int on)
{
	if (sig <= 0 || sig >= NSIGS)
		return;
	if (on)
		__atomic_fetch_or(&sandbox_mask, (uint64_t)1 << (sig - 1), __ATOMIC_RELEASE);
	else
		__atomic_fetch_and(&sandbox_mask, ~((uint64_t)1 << (sig - 1)), __ATOMIC_RELEASE);
}

void hp_sigview_before_sandbox(void)
{
	uint64_t m = HP_LOAD_ACQ(&sandbox_mask);

	for (int sig = 1; sig < NSIGS; sig++)
		if (m >> (sig - 1) & 1)
			hp_sigview_release(sig);
}

int hp_sigview_state(int sig)
{
	struct sigaction cur;
	sigset_t saved;
	int st = HP_SIGVIEW_NONE;

	if (!is_claimed(sig))
		return HP_SIGVIEW_NONE;
	enter(&saved);
	struct slot *s = &slots[sig];
	if (real()(sig, NULL, &cur) == 0) {
		/* Changed with a raw system call: the kernel's action is the
		 * program's now. */
		if (s->ours && !is_mine(s, &cur))
			s->ours = 0;
		/* Back to SIG_DFL without a call we saw (SA_RESETHAND, or a
		 * raw system call): heapprof's handler goes back, as when the
		 * program sets SIG_DFL through sigaction. */
		if (!s->ours && cur.sa_handler == SIG_DFL && real()(sig, &s->mine, NULL) == 0) {
			s->view = cur;
			s->ours = 1;
		}
		st = state_of(s, &cur);
	}
	leave(&saved);
	return st;
}

void hp_sigview_prefork(void)
{
	sigset_t all, saved;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &saved);
	hp_spin_lock(&lock);
	fork_mask = saved;
}

void hp_sigview_postfork_parent(void)
{
	sigset_t saved = fork_mask;

	hp_spin_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

void hp_sigview_postfork_child(int locked)
{
	sigset_t saved = fork_mask;

	hp_spin_reset(&lock);
	if (locked)
		pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* ---- the interposed entry points ----------------------------------- */

/* sigaction on a claimed signal, under the lock.  The old action is the
 * view; a new action other than SIG_DFL goes to the kernel and the program
 * owns the signal; SIG_DFL goes to the kernel too, so that the view holds
 * exactly what the kernel would, and then heapprof's handler goes back. */
static int view_sigaction(struct slot *s, int sig, const struct sigaction *act,
			  struct sigaction *old)
{
	struct sigaction prev;

	if (s->ours)
		prev = s->view;
	else if (real()(sig, NULL, &prev) != 0)
		return -1;
	if (act) {
		if (real()(sig, act, NULL) != 0)
			return -1;
		s->ours = 0;
		if (act->sa_handler == SIG_DFL && real()(sig, NULL, &s->view) == 0 &&
		    real()(sig, &s->mine, NULL) == 0)
			s->ours = 1;
	}
	if (old)
		*old = prev;
	return 0;
}

HP_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	sigset_t saved;
	int r, err, was = 0, is = 0;

	if (!is_claimed(sig))
		return real()(sig, act, old);
	enter(&saved);
	struct slot *s = &slots[sig];
	if (s->claimed) {
		was = s->ours;
		r = view_sigaction(s, sig, act, old);
		is = s->ours;
	} else {
		r = real()(sig, act, old);
	}
	err = errno;
	leave(&saved);
	void (*fn)(int) = HP_LOAD_ACQ(&notify);
	if (was != is && fn)
		fn(sig);
	errno = err;
	return r;
}

/* The signal(3) family, through sigaction (so through the view above):
 * handler with flags; block_self adds sig to the handler's mask. */
static __sighandler_t set_handler(int sig, __sighandler_t handler, int flags, int block_self)
{
	struct sigaction act, oact;

	if (handler == SIG_ERR || sig < 1 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	sigemptyset(&act.sa_mask);
	if (block_self)
		sigaddset(&act.sa_mask, sig);
	act.sa_flags = flags;
	if (sigaction(sig, &act, &oact) < 0)
		return SIG_ERR;
	return oact.sa_handler;
}

/* BSD semantics: the signal blocked in its handler, calls restarted unless
 * siginterrupt said otherwise. */
static __sighandler_t bsd_signal_impl(int sig, __sighandler_t handler)
{
	int restart = !(sig >= 1 && sig < NSIG && sigismember(&intr, sig) == 1);

	return set_handler(sig, handler, restart ? SA_RESTART : 0, 1);
}

HP_EXPORT __sighandler_t signal(int sig, __sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

HP_EXPORT __sighandler_t bsd_signal(int sig, __sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

HP_EXPORT __sighandler_t ssignal(int sig, __sighandler_t handler)
{
	return bsd_signal_impl(sig, handler);
}

/* System V semantics: one shot, not blocked in its handler, interrupting. */
static __sighandler_t sysv_signal_impl(int sig, __sighandler_t handler)
{
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

HP_EXPORT __sighandler_t sysv_signal(int sig, __sighandler_t handler)
{
	return sysv_signal_impl(sig, handler);
}

HP_EXPORT __sighandler_t __sysv_signal(int sig, __sighandler_t handler)
{
	return sysv_signal_impl(sig, handler);
}

HP_EXPORT __sighandler_t sigset(int sig, __sighandler_t disp)
{
	struct sigaction act, oact;
	sigset_t set, oset;

	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return SIG_ERR;
	if (disp == SIG_HOLD) {
		if (sigprocmask(SIG_BLOCK, &set, &oset) < 0)
			return SIG_ERR;
		if (sigismember(&oset, sig))
			return SIG_HOLD;
		if (sigaction(sig, NULL, &oact) < 0)
			return SIG_ERR;
		return oact.sa_handler;
	}
	memset(&act, 0, sizeof(act));
	act.sa_handler = disp;
	sigemptyset(&act.sa_mask);
	act.sa_flags = 0;
	if (sigaction(sig, &act, &oact) < 0)
		return SIG_ERR;
	if (sigprocmask(SIG_UNBLOCK, &set, &oset) < 0)
		return SIG_ERR;
	return sigismember(&oset, sig) ? SIG_HOLD : oact.sa_handler;
}

HP_EXPORT int sigignore(int sig)
{
	struct sigaction act;

	memset(&act, 0, sizeof(act));
	act.sa_handler = SIG_IGN;
	sigemptyset(&act.sa_mask);
	return sigaction(sig, &act, NULL);
}

HP_EXPORT int siginterrupt(int sig, int interrupt)
{
	struct sigaction act;
	sigset_t saved;

	if (sigaction(sig, NULL, &act) < 0)
		return -1;
	/* The set signal() reads: under the lock, as two threads may ask. */
	enter(&saved);
	if (interrupt)
		sigaddset(&intr, sig);
	else
		sigdelset(&intr, sig);
	leave(&saved);
	if (interrupt)
		act.sa_flags &= ~SA_RESTART;
	else
		act.sa_flags |= SA_RESTART;
	return sigaction(sig, &act, NULL) < 0 ? -1 : 0;
}
