/*
 * peak.h -- the peak snapshot: the process's highest total of live
 * recorded bytes, and which contexts held it.
 *
 * The total is one shared counter that every recorded allocation moves
 * (the sampled path only: the fast path never sees it), and the peak is
 * its highest value so far.  A free does not touch it: it adds its bytes
 * to a count of its own thread's (a slot, below), which the thread's next
 * recorded allocation takes out of the shared counter in the same locked
 * add as its own bytes (one locked add a malloc/free pair on a line that
 * every core writes, not two: 60% of the recorded free's time in a
 * two-thread churn was that add).  The shared counter is therefore the
 * live total plus every thread's pending frees, never below the truth,
 * and only an allocation can raise the truth, so no peak goes unnoticed;
 * a candidate peak (the counter above the peak) subtracts the pending
 * frees of every thread before it is believed (hp_peak_candidate).  A
 * thread whose pending frees pass HP_PEAK_OWED_MAX, or that has no slot,
 * takes them out at once; a thread's slot is emptied when it exits.
 *
 * The peak's value is also the snapshot's key.  A context keeps its live
 * figures at the peak lazily: before its first change after a new peak,
 * the slow path copies its live figures into peak_cnt/peak_bytes and
 * stamps them with the key (hp_peak_keep).  A context not stamped with
 * the current key has not changed since the peak, so its live figures
 * are its peak figures.  No copy of the whole table is ever made, and
 * each allocation costs one atomic add, a compare with the peak, and at
 * most one copy of its own context's figures; each free, one add to its
 * thread's slot and at most one such copy.
 *
 * Exactness, by construction: in exact mode, with one thread allocating
 * at a time, the snapshot is the live heap at the very allocation that
 * set the peak, and the peak is exact.  With several threads allocating
 * at once, the peak is still the exact maximum of the live total at the
 * allocations that raised it, but each other thread's one allocation or
 * free in flight at that moment may fall on either side of the snapshot
 * (an allocation in flight includes the thread's pending frees it takes
 * out of the counter).  At a sampled rate the total, its peak and the
 * snapshot are estimates, as every other figure is.
 *
 * Only contexts of the current reset generation count: prof.reset starts
 * a new peak from zero (hp_peak_reset).
 */
#ifndef HP_PEAK_H
#define HP_PEAK_H

#include <stdint.h>

#include "base/compiler.h"
#include "record/counters.h"
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

/* A thread's pending frees: bytes freed since its last recorded
 * allocation, of contexts of generation gen (a reset drops the older
 * ones).  Written only by its thread (and that thread's signal handlers),
 * read by any thread's candidate peak; a cache line each. */
struct hp_peak_slot {
	int64_t owed;
	uint32_t gen;
	uint32_t taken;
} __attribute__((aligned(HP_CACHELINE)));

#define HP_PEAK_SLOTS 64
/* Pending frees past this are taken out of the counter at once, so that
 * a thread that frees much and then sleeps does not keep the counter far
 * above the truth (every allocation near the peak a candidate). */
#define HP_PEAK_OWED_MAX (256 << 10)

/* The calling thread's slot, NULL before its first recorded free (or
 * when every slot is taken: then frees go to the counter at once). */
extern __thread struct hp_peak_slot *hp_peak_mine;

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

/* After an allocation of bytes (of generation gen) was counted in its
 * context: the total grows, less the thread's pending frees, and a new
 * peak (above key) becomes the snapshot's key.  The pending frees leave
 * the slot before the locked add (which makes that store visible first):
 * a candidate that reads the slot in between counts them once too
 * many, never once too few. */
HP_INLINE void hp_peak_grow(int64_t bytes, int64_t key, uint32_t gen)
{
	struct hp_peak_slot *s = hp_peak_mine;
	int64_t owed = 0;

	if (!s && hp_single_threaded()) {
		/* Alone, with nothing pending (base/spin.h): no locked
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
	if (s && (owed = HP_LOAD(&s->owed)) != 0) {
		if (HP_LIKELY(HP_LOAD(&s->gen) == gen))
			hp_peak_add_own(&s->owed, -owed);
		else
			owed = 0;   /* an older generation's: hp_peak_shrink drops them */
	}
	int64_t d = bytes - owed;
	int64_t live = HP_ADD(&hp_peak_state.live, d) + d;

	if (HP_UNLIKELY(live > key))
		hp_peak_candidate(live, key, gen);
}

void hp_peak_shrink_slow(int64_t bytes, uint32_t gen);

/* After a free of bytes (of generation gen) was counted in its context:
 * owed until the thread's next recorded allocation. */
HP_INLINE void hp_peak_shrink(int64_t bytes, uint32_t gen)
{
	struct hp_peak_slot *s = hp_peak_mine;

	if (HP_LIKELY(s && HP_LOAD(&s->gen) == gen && HP_LOAD(&s->owed) < HP_PEAK_OWED_MAX)) {
		hp_peak_add_own(&s->owed, bytes);
		return;
	}
	if (!s && hp_single_threaded()) {
		hp_peak_add_own(&hp_peak_state.live, -bytes);   /* alone: see hp_peak_grow */
		return;
	}
	hp_peak_shrink_slow(bytes, gen);
}

/* The calling thread exits: its pending frees go to the counter and its
 * slot to the next thread (record/threads.c's exit hook). */
void hp_peak_thread_exit(void);

/* c's live figures at the peak key into out->peak_cnt and
 * out->peak_bytes.  Any thread; lock-free.  Call hp_counters_read(c, out)
 * first: the live figures are read before the stamp, so that a change
 * made after the read was stamped before it. */
void hp_peak_read(const struct hp_counters *c, int64_t key, struct hp_counts *out);

/* prof.reset: a new generation starts with nothing live and no peak
 * (the older generation's pending frees are dropped as their threads
 * meet them). */
void hp_peak_reset(void);

/* fork(): in the child, the other threads' pending frees go to the
 * counter and their slots are free. */
void hp_peak_postfork_child(void);

#pragma GCC visibility pop

#endif
