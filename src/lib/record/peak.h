/*
 * peak.h -- the peak snapshot: the process's highest total of live
 * recorded bytes, and which contexts held it.
 *
 * The total is one shared counter that every recorded allocation and
 * free moves (the sampled path only: the fast path never sees it), and
 * the peak is its highest value so far.  The peak's value is also the
 * snapshot's key.  A context keeps its live figures at the peak lazily:
 * before its first change after a new peak, the slow path copies its live
 * figures into peak_cnt/peak_bytes and stamps them with the key
 * (hp_peak_keep).  A context not stamped with the current key has not
 * changed since the peak, so its live figures are its peak figures.  No
 * copy of the whole table is ever made, and each allocation or free costs
 * one atomic add, a compare with the peak, and at most one copy of its
 * own context's figures.
 *
 * Exactness, by construction: in exact mode, with one thread allocating
 * at a time, the snapshot is the live heap at the very allocation that
 * set the peak, and the peak is exact.  With several threads allocating
 * at once, the peak is still the exact maximum of the shared counter (in
 * the order its atomic adds took), but each other thread's one
 * allocation or free in flight at that moment may fall on either side of
 * the snapshot.  At a sampled rate the total, its peak and the snapshot
 * are estimates, as every other figure is.
 *
 * Only contexts of the current reset generation count: prof.reset starts
 * a new peak from zero (hp_peak_reset).
 */
#ifndef HP_PEAK_H
#define HP_PEAK_H

#include <stdint.h>

#include "base/compiler.h"
#include "record/counters.h"

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

/* After an allocation of bytes was counted in its context: the total
 * grows, and a new peak (above key) becomes the snapshot's key. */
HP_INLINE void hp_peak_grow(int64_t bytes, int64_t key)
{
	int64_t live = HP_ADD(&hp_peak_state.live, bytes) + bytes;

	while (live > key && !HP_CAS(&hp_peak_state.peak, &key, live))
		;
}

/* After a free of bytes was counted in its context. */
HP_INLINE void hp_peak_shrink(int64_t bytes)
{
	HP_SUB(&hp_peak_state.live, bytes);
}

/* c's live figures at the peak key into out->peak_cnt and
 * out->peak_bytes.  Any thread; lock-free.  Call hp_counters_read(c, out)
 * first: the live figures are read before the stamp, so that a change
 * made after the read was stamped before it. */
void hp_peak_read(const struct hp_counters *c, int64_t key, struct hp_counts *out);

/* prof.reset: a new generation starts with nothing live and no peak. */
void hp_peak_reset(void);

#pragma GCC visibility pop

#endif
