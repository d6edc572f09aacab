/*
 * pair.h -- a second thread for the parts of the leak scan that split in
 * two (the block index's pass over the live table and its fill), so that
 * a large heap's scan uses both cores of a small machine.
 *
 * A bare thread of the kernel's (clone), not one of the C library's: the
 * scan runs with every live-table shard lock and the pages registry's
 * lock held and the program's other threads stopped, where
 * pthread_create would allocate (a stack, the new thread's TLS) through
 * the very malloc that is locked.  The thread shares the TLS of the one
 * that starts it, so what it runs must touch no thread-local state:
 * heapprof's own code on memory it is handed, no errno, no C library.
 * Every signal is blocked on it, and it exists only between
 * hp_pair_start and hp_pair_join, inside the scan.  None under
 * ThreadSanitizer, which must know every thread, where the process may
 * run on one CPU only, or with helper_thread:never (no thread of
 * heapprof's, ever); the caller decides the rest (reach.c: a
 * single-threaded program's scan before its exit runs alone).
 */
#ifndef HP_PAIR_H
#define HP_PAIR_H

#pragma GCC visibility push(hidden)

#include <stddef.h>
#include <stdint.h>

struct hp_pair {
	volatile int32_t tid;   /* the thread's while it runs: the kernel
				 * clears it, and wakes its futex, when the
				 * thread has ended */
	void (*fn)(void *);
	void *arg;
};

/* Whether a second thread can help: more than one CPU for this process,
 * a build and a configuration that allow one. */
int hp_pair_possible(void);

/* Runs fn(arg) on a second thread, on the stack [stack, stack + n) (16
 * bytes aligned; the caller keeps it mapped until hp_pair_join has
 * returned): 0, or an errno, when nothing runs (the caller runs fn
 * itself). */
int hp_pair_start(struct hp_pair *p, void *stack, size_t n, void (*fn)(void *), void *arg);

/* Waits until the thread started by hp_pair_start has ended; what it
 * wrote is then visible. */
void hp_pair_join(struct hp_pair *p);

#pragma GCC visibility pop

#endif
