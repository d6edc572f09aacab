/*
 * spin.h -- the one lock type the library uses.
 *
 * A test-and-test-and-set spinlock that yields the CPU after a short spin.
 * Critical sections guarded by it are a few dozen instructions (a table
 * probe, a bump allocation), never a system call or an unwind, so spinning
 * is cheaper than a futex and, unlike pthread mutexes, needs no
 * initialisation and is trivially reset in a fork child.  Never held on
 * the unsampled malloc/free path.
 */
#ifndef HP_SPIN_H
#define HP_SPIN_H

#include <sched.h>

#include "base/compiler.h"
#include "base/sandbox.h"

struct hp_spin {
	int locked;
};

#define HP_SPIN_INIT { 0 }

HP_INLINE void hp_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield" ::: "memory");
#endif
}

/* Gives the CPU up after a long spin: sched_yield(2), which a seccomp
 * filter may refuse (base/sandbox.h); sandboxed, one more pause instead. */
HP_INLINE void hp_spin_yield(void)
{
	if (HP_LIKELY(!hp_sandbox_on()))
		sched_yield();
	else
		hp_cpu_relax();
}

HP_INLINE int hp_spin_trylock(struct hp_spin *l)
{
	return !HP_LOAD(&l->locked) &&
	       !__atomic_exchange_n(&l->locked, 1, __ATOMIC_ACQUIRE);
}

HP_INLINE void hp_spin_lock(struct hp_spin *l)
{
	unsigned spins = 0;

	while (!hp_spin_trylock(l)) {
		if (++spins < 128)
			hp_cpu_relax();
		else
			hp_spin_yield();
	}
}

HP_INLINE void hp_spin_unlock(struct hp_spin *l)
{
	__atomic_store_n(&l->locked, 0, __ATOMIC_RELEASE);
}

/* Whether the process has one thread: glibc's __libc_single_threaded
 * (2.32 on; the library needs 2.35), which its own malloc trusts to skip
 * its arena locks.  It turns false in pthread_create before the new
 * thread exists (and true again only in a fork child), so a thread that
 * reads it true stays alone until it creates a thread itself: a section
 * that creates none needs no lock against other threads, only care of
 * the thread's own signal handlers. */
extern char __libc_single_threaded;

HP_INLINE int hp_single_threaded(void)
{
	return HP_LOAD(&__libc_single_threaded);
}

/* In a fork child only the forking thread exists: any lock is free. */
HP_INLINE void hp_spin_reset(struct hp_spin *l)
{
	HP_STORE(&l->locked, 0);
}

#endif
