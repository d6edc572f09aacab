/*
 * peak.h -- the peak snapshot: the process's highest total of live
 * recorded bytes, and which contexts held it.
 *
 * The total is kept as one shared counter less what the threads' slots
 * hold (below).  A thread's slot holds its allowance: bytes the counter
 * already counts that the thread has not allocated.  A recorded free
 * adds its bytes to its thread's allowance, and a recorded allocation
 * spends from it, neither with a shared write, as long as the counter is
 * at most the peak: every allowance is at least 0, so the live total is
 * then at most the peak too, and no allocation spent from an allowance
 * can make a new one.  An allocation whose allowance runs short takes
 * HP_PEAK_ROOM more at once, one compare-exchange on the counter, if
 * that keeps the counter at most the peak; near the peak it adds its
 * bytes (less what is left of its allowance) to the counter, and a
 * counter above the peak is a candidate, believed after every thread's
 * allowance is taken out (hp_peak_candidate).  An allowance past
 * HP_PEAK_AVAIL_MAX is given back down to HP_PEAK_ROOM; a thread with no
 * slot counts in the counter at once; an exiting thread gives its
 * allowance back.  (A locked add on a line every core writes, on each
 * recorded allocation and free, was a third of a two-thread churn's
 * time when its threads ran at once.)
 *
 * The peak's value is also the snapshot's key.  A context keeps its live
 * figures at the peak lazily: before its first change after a new peak,
 * the slow path copies its live figures into peak_cnt/peak_bytes and
 * stamps them with the key (hp_peak_keep; an allocation copies them
 * just after its change, less itself, and not at all when the peak moved
 * meanwhile: hp_peak_keep_alloc).  A context not stamped with
 * the current key has not changed since the peak, so its live figures
 * are its peak figures.  No copy of the whole table is ever made, and
 * each allocation and free costs an add to its thread's slot (or, near
 * the peak, one atomic add and a compare with the peak), and at most one
 * copy of its own context's figures.
 *
 * Exactness, by construction: in exact mode, with one thread allocating
 * at a time, the snapshot is the live heap at the very allocation that
 * set the peak, and the peak is exact.  With several threads allocating
 * at once, the peak is the maximum of the live total at the allocations
 * that raised it, but each other thread's one allocation or free in
 * flight at that moment may fall on either side of it and of the
 * snapshot (an allocation in flight includes the allowance it moves
 * between its slot and the counter).  At a sampled rate the total, its
 * peak and the snapshot are estimates, as every other figure is.
 *
 * Only contexts of the current reset generation count: prof.reset starts
 * a new peak from zero (hp_peak_reset).
 */
#ifndef HP_PEAK_H
#define HP_PEAK_H

#include <stdint.h>

#include "base/compiler.h"
#include "record/counters.h"
#include "record/tls.h"
#include "base/spin.h"

#pragma GCC visibility push(hidden)

/* Live bytes and their peak, each in a cache line of its own: every
 * recorded allocation and free reads the peak (its key) and writes the
 * live total, and only a new peak writes the peak, so that the key is
 * read from a line no core is writing; in one line, the key's read
 * missed on every call once two threads allocated (an eighth of a
 * two-thread churn's time in exact mode). */
struct hp_peak {
	int64_t live __attribute__((aligned(HP_CACHELINE)));
	int64_t peak __attribute__((aligned(HP_CACHELINE)));
};

extern struct hp_peak hp_peak_state;

/* The current peak, which is the key of the current snapshot.  Read
 * before changing a context (hp_peak_keep) and passed on to
 * hp_peak_grow. */
HP_INLINE int64_t hp_peak_key(void)
{
	return HP_LOAD(&hp_peak_state.peak);
}

void hp_peak_save(struct hp_counters *c, int64_t key);

/* Before changing c: makes sure c's figures at the peak key are kept. */
HP_INLINE void hp_peak_keep(struct hp_counters *c, int64_t key)
{
	if (HP_UNLIKELY(HP_LOAD(&c->peak_at) != key))
		hp_peak_save(c, key);
}

void hp_peak_save_before(struct hp_counters *c, int64_t key, uint64_t cnt, uint64_t bytes);

/* After an allocation of (cnt, bytes) was counted in c and in the live
 * total (hp_peak_grow), key the peak read before both: keeps c's figures
 * from before the allocation at key, unless the peak has moved past key
 * since.  Then c's live figures, the allocation in, are its figures at
 * the new peak, and no copy is made: a growing heap, where each
 * allocation raises the peak, copied its context's figures at each one.
 * A reader in between takes c's live figures at key: the allocation
 * was in flight, on either side of the snapshot (see above). */
HP_INLINE void hp_peak_keep_alloc(struct hp_counters *c, int64_t key, uint64_t cnt, uint64_t bytes)
{
	if (HP_UNLIKELY(HP_LOAD(&c->peak_at) != key) && hp_peak_key() == key)
		hp_peak_save_before(c, key, cnt, bytes);
}

/* A thread's allowance: bytes the shared counter already counts that
 * the thread has not allocated (its recorded frees, and room it took
 * below the peak), of contexts of generation gen (a reset drops the older
 * ones).  The live total is the counter less every thread's allowance.
 * Written only by its thread (and that thread's signal handlers), read
 * by any thread's candidate peak; a cache line each. */
struct hp_peak_slot {
	int64_t avail;
	uint32_t gen;
	uint32_t taken;
} __attribute__((aligned(HP_CACHELINE)));

#define HP_PEAK_SLOTS 64
/* The room a thread takes below the peak when its allowance runs out,
 * and the allowance past which it gives the excess back (so that a
 * thread that frees much and then sleeps does not hold the counter far
 * above the truth: every allocation near the peak then a candidate). */
#define HP_PEAK_ROOM (16 << 10)
#define HP_PEAK_AVAIL_MAX (4 * HP_PEAK_ROOM)

/* The calling thread's slot is hp_tls.peak_slot: NULL before its first
 * recorded free (or when every slot is taken: then it counts in the
 * shared counter at once). */

/* v += d on the calling thread's own slot in one instruction, so that a
 * signal handler's nested change, made between a load and a store, is
 * not lost. */
HP_INLINE void hp_peak_add_own(int64_t *v, int64_t d)
{
#if defined(__x86_64__)
	__asm__ __volatile__("addq %1, %0" : "+m"(*v) : "er"(d) : "memory");
#else
	__atomic_fetch_add(v, d, __ATOMIC_RELAXED);
#endif
}

void hp_peak_candidate(int64_t live, int64_t key, uint32_t gen);
void hp_peak_grow_slow(int64_t bytes, int64_t key, uint32_t gen);

/* After an allocation of bytes (of generation gen) was counted in its
 * context: the live total grows, and a new peak (above key) becomes the
 * snapshot's key.  Spent from the thread's allowance, with no shared
 * write, while the counter is at most the peak: every allowance is then
 * at least 0, so the live total, the counter less the allowances, stays
 * at most the peak after this allocation as before it (an allocation of
 * another thread in flight when the counter passes the peak may be
 * missed by that candidate).  Otherwise hp_peak_grow_slow. */
HP_INLINE void hp_peak_grow(int64_t bytes, int64_t key, uint32_t gen)
{
	struct hp_peak_slot *s = hp_tls.peak_slot;

	if (HP_LIKELY(s)) {
		if (HP_LIKELY(HP_LOAD(&s->avail) >= bytes && HP_LOAD(&s->gen) == gen &&
			      HP_LOAD(&hp_peak_state.live) <= HP_LOAD(&hp_peak_state.peak))) {
			hp_peak_add_own(&s->avail, -bytes);
			return;
		}
	} else if (hp_single_threaded()) {
		/* Alone, with no allowance (base/spin.h): no locked
		 * instruction, only one a signal handler cannot split (the
		 * handler that interrupts us here only frees, and never
		 * writes the peak).  Recording a 1 GiB heap made every
		 * allocation a new peak: two locked instructions each. */
		hp_peak_add_own(&hp_peak_state.live, bytes);
		int64_t live = HP_LOAD(&hp_peak_state.live);
		if (live > key)
			HP_STORE(&hp_peak_state.peak, live);
		return;
	}
	hp_peak_grow_slow(bytes, key, gen);
}

void hp_peak_shrink_slow(int64_t bytes, uint32_t gen);

/* After a free of bytes (of generation gen) was counted in its context:
 * the thread's allowance grows, with no shared write. */
HP_INLINE void hp_peak_shrink(int64_t bytes, uint32_t gen)
{
	struct hp_peak_slot *s = hp_tls.peak_slot;

	if (HP_LIKELY(s && HP_LOAD(&s->gen) == gen && HP_LOAD(&s->avail) < HP_PEAK_AVAIL_MAX)) {
		hp_peak_add_own(&s->avail, bytes);
		return;
	}
	if (!s && hp_single_threaded()) {
		hp_peak_add_own(&hp_peak_state.live, -bytes);   /* alone: see hp_peak_grow */
		return;
	}
	hp_peak_shrink_slow(bytes, gen);
}

/* The calling thread exits: its allowance leaves the counter and its
 * slot goes to the next thread (record/threads.c's exit hook). */
void hp_peak_thread_exit(void);

/* c's live figures at the peak key into out->peak_cnt and
 * out->peak_bytes.  Any thread; lock-free.  Call hp_counters_read(c, out)
 * first: the live figures are read before the stamp, so that a change
 * made after the read was stamped before it. */
void hp_peak_read(const struct hp_counters *c, int64_t key, struct hp_counts *out);

/* prof.reset: a new generation starts with nothing live and no peak
 * (the older generation's allowances are dropped as their threads
 * meet them). */
void hp_peak_reset(void);

/* fork(): in the child, the other threads' allowances leave the counter
 * and their slots are free. */
void hp_peak_postfork_child(void);

#pragma GCC visibility pop

#endif
