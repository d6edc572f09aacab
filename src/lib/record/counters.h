/*
 * counters.h -- counter contexts: the estimates for one (thread, stack,
 * sampling rate, reset generation).
 *
 * Splitting counters by allocating thread keeps exact mode free of
 * cache-line ping-pong and gives the jemalloc format its per-thread rows.
 * The allocating thread is the only writer of alloc_* and own_free_*, so
 * it updates them without atomic read-modify-writes; frees on other threads
 * go to remote_free_* atomically.  live = alloc - own_free - remote_free.
 *
 * Contexts live in one global chunked array, indexed by a 24-bit id that
 * the live table stores with each block, and are never freed.  Dump
 * writers read them lock-free and may see a momentarily negative live
 * count, which they clamp.
 *
 * Each context also carries its part of the peak snapshot (record/peak.h:
 * its live figures at the process's highest live total, saved before its
 * first change after that peak) and its temporary allocations: blocks the
 * allocating thread freed before it allocated anything else, which only
 * the owner counts.  Two cache lines per context: the counts above in the
 * first, the peak and temporary figures in the second.
 */
#ifndef HP_COUNTERS_H
#define HP_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct hp_thread;

struct hp_counters {
	uint32_t stack;        /* stack id; 0 until the context is published */
	uint32_t thread;       /* allocating thread's uid */
	uint8_t lg;            /* lg_prof_sample its samples were drawn with */
	uint8_t pad;
	uint16_t gen;          /* reset generation */
	uint64_t alloc_cnt;    /* fixed point, see sample.h */
	uint64_t alloc_bytes;
	uint64_t own_free_cnt;
	uint64_t own_free_bytes;
	uint64_t remote_free_cnt;
	uint64_t remote_free_bytes;
	/* The peak snapshot (record/peak.h): live figures at the peak
	 * peak_at, valid while peak_at is the current peak. */
	int64_t peak_at __attribute__((aligned(HP_CACHELINE)));
	int64_t peak_cnt;
	int64_t peak_bytes;
	uint64_t tmp_cnt;      /* temporary allocations, fixed point (owner only) */
} __attribute__((aligned(HP_CACHELINE)));

/* The calling thread's context for (stack, lg, gen), created on first use.
 * Returns the id, or 0 when ids or memory ran out.  Inside the guard. */
uint32_t hp_counters_get(struct hp_thread *t, uint32_t stack, int lg, uint16_t gen);

#define HP_COUNTERS_CHUNK_SHIFT 14
#define HP_COUNTERS_NCHUNKS (1u << (24 - HP_COUNTERS_CHUNK_SHIFT))
extern struct hp_counters *hp_counters_chunks[HP_COUNTERS_NCHUNKS];

/* The context with this id (1 <= id < hp_counters_end()), NULL if none. */
HP_INLINE struct hp_counters *hp_counters_at(uint32_t id)
{
	struct hp_counters *c = HP_LOAD_ACQ(&hp_counters_chunks[id >> HP_COUNTERS_CHUNK_SHIFT]);

	return c ? &c[id & ((1u << HP_COUNTERS_CHUNK_SHIFT) - 1)] : NULL;
}
/* The context of an id that a live record holds: its chunk was mapped
 * before the record was made (hp_counters_get), so no test. */
HP_INLINE struct hp_counters *hp_counters_of(uint32_t id)
{
	struct hp_counters *c = HP_LOAD_ACQ(&hp_counters_chunks[id >> HP_COUNTERS_CHUNK_SHIFT]);

	return &c[id & ((1u << HP_COUNTERS_CHUNK_SHIFT) - 1)];
}
/* One past the highest id handed out. */
uint32_t hp_counters_end(void);

/* Counting.  add is called by the owning thread; sub by any thread, with
 * own = 1 when the caller is the owning thread; temporary by the owning
 * thread, after sub, for a block it freed before allocating again. */
HP_INLINE void hp_counters_own_add(uint64_t *field, uint64_t v)
{
	/* The owner's plain read-modify-write: only it writes these fields,
	 * and relaxed atomic loads and stores keep dump readers tear-free. */
	HP_STORE(field, HP_LOAD(field) + v);
}

/* Inline: every recorded allocation and free counts. */
HP_INLINE void hp_counters_add(struct hp_counters *c, uint64_t cnt, uint64_t bytes)
{
	hp_counters_own_add(&c->alloc_cnt, cnt);
	hp_counters_own_add(&c->alloc_bytes, bytes);
}

HP_INLINE void hp_counters_sub(struct hp_counters *c, uint64_t cnt, uint64_t bytes, int own)
{
	if (own) {
		hp_counters_own_add(&c->own_free_cnt, cnt);
		hp_counters_own_add(&c->own_free_bytes, bytes);
	} else {
		HP_ADD(&c->remote_free_cnt, cnt);
		HP_ADD(&c->remote_free_bytes, bytes);
	}
}
void hp_counters_temporary(struct hp_counters *c, uint64_t cnt);

/* Snapshot of one context: live and cumulative, fixed-point counts; the
 * peak figures are filled in by record/peak.h's hp_peak_read. */
struct hp_counts {
	int64_t live_cnt;
	int64_t live_bytes;
	uint64_t accum_cnt;
	uint64_t accum_bytes;
	uint64_t tmp_cnt;
	int64_t peak_cnt;
	int64_t peak_bytes;
};
/* Fills in everything but the peak figures (0). */
void hp_counters_read(const struct hp_counters *c, struct hp_counts *out);

void hp_counters_prefork(void);
void hp_counters_postfork_parent(void);
void hp_counters_postfork_child(void);

#endif
