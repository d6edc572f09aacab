/*
 * live.h -- which blocks are sampled and still live.
 *
 * Two layers.  The page filter (next/filter.h) is a byte per 16 KiB page
 * (modulo 4 GiB of address space) counting live sampled blocks that start
 * in that page; it is what free() consults on every call, one load, no
 * lock, and this module keeps its counts.  When the filter says "maybe",
 * the live table answers exactly: 256 shards of
 * open-addressing hash tables keyed by block address, each guarded by its
 * own spinlock, holding the block's requested size and its counter context
 * (tctx).  In exact mode the table holds every live block the program made
 * after heapprof started.
 *
 * A block is inserted before malloc returns it and removed before the next
 * allocator frees it, so an address is never in the table twice.
 */
#ifndef HP_LIVE_H
#define HP_LIVE_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "next/filter.h"

#define HP_LIVE_SHARDS 256
/* Sizes are kept in 40 bits; a larger block is recorded as this size. */
#define HP_LIVE_SIZE_MAX ((((uint64_t)1) << 40) - 1)
#define HP_LIVE_COUNTERS_MAX ((((uint32_t)1) << 24) - 1)


/* Whether the tables together outgrew the caches (1 MiB), which makes
 * the prefetches worth their instructions.  Set once, never cleared: the
 * tables never shrink. */
extern bool hp_live_tables_big;
void hp_live_prefetch_slot(const void *p);

/* Starts loading the slot where p's record will go, without a lock, so
 * that the cache miss overlaps the work done before hp_live_insert (the
 * stack's capture): in exact mode with a large heap, that miss was half
 * of the insert's time.  Any thread, inside the guard.  One load while
 * the tables are small (churn exact: 22 instructions fewer a malloc). */
HP_INLINE void hp_live_prefetch(const void *p)
{
	if (HP_LOAD(&hp_live_tables_big))
		hp_live_prefetch_slot(p);
}

/* Starts loading the slot holding p's record and the two lines after
 * it, without a lock: a free whose removal waits in a batch
 * (record/sampled.c). */
void hp_live_prefetch_remove(const void *p);
/* The first step before it: the line of p's shard, which says where
 * the slot is (in a large table, under a program that misses the caches,
 * that load missed too, and the slot's prefetch waited on it). */
void hp_live_prefetch_shard(const void *p);

/* Records a live sampled block: size at most HP_LIVE_SIZE_MAX (the
 * caller clamps it), tctx at most HP_LIVE_COUNTERS_MAX.  False if the
 * table could not grow. */
bool hp_live_insert(const void *p, uint64_t size, uint32_t tctx);

enum hp_live_result {
	HP_LIVE_ABSENT = 0,   /* not a sampled block */
	HP_LIVE_REMOVED = 1,  /* removed; *size and *tctx filled in */
	HP_LIVE_BUSY = 2,     /* this thread already holds the shard's lock:
			       * we are inside the profiler, re-entered from a
			       * signal handler; the caller must defer */
};

/* Removes p's record if it has one. */
enum hp_live_result hp_live_remove(const void *p, uint64_t *size, uint32_t *tctx);
/* Looks p up without removing it. */
bool hp_live_find(const void *p, uint64_t *size, uint32_t *tctx);

/* A slot of the table as hp_live_each_shard_held hands it out: key 0 is
 * an empty slot; else val holds the size (HP_LIVE_SIZE_MAX's bits) and,
 * above HP_LIVE_TCTX_SHIFT, the counter context. */
struct hp_live_slot {
	uintptr_t key;
	uint64_t val;
};
#define HP_LIVE_TCTX_SHIFT 40

/* Calls fn with the slots of each shard in [from, to) (of
 * HP_LIVE_SHARDS), empty ones among them; the caller
 * holds every shard lock (hp_live_prefork): the leak scan, which reads
 * the table while the other threads are stopped, millions of records
 * with no call per record.  fn must not allocate through malloc or touch
 * the live table. */
void hp_live_each_shard_held(unsigned from, unsigned to,
			     void (*fn)(const struct hp_live_slot *slots, uint32_t n, void *arg), void *arg);

/* p's record, looked up without a lock: the caller holds every shard
 * lock (hp_live_prefork), as the leak scan does while it names the blocks
 * it found lost.  False if p has none. */
bool hp_live_find_held(uintptr_t p, uint64_t *size, uint32_t *tctx);

uint64_t hp_live_records(void);

/* Ages (prof_age): from now on every table keeps each block's allocation
 * tick (record/ages.h) beside its slot, 4 bytes more a slot.  Only
 * before the first insert: returns whether tables keep ticks.  Called
 * once, at start-up. */
bool hp_live_keep_ages(void);
bool hp_live_ages(void);

/* Calls fn for every live record with its allocation tick, taking each
 * shard's lock in turn (never two at once): a dump, on a thread inside
 * the guard, while the program runs.  fn runs under a shard lock: it
 * must be short, and must not allocate through malloc or touch the live
 * table.  Does nothing when tables keep no ticks. */
void hp_live_each_aged(void (*fn)(uint64_t size, uint32_t tctx, uint32_t tick, void *arg),
		       void *arg);

/* fork(): take every shard lock in the parent before fork, release them
 * after; the child resets them. */
/* Bytes of the live table, now and at the most, for the debug log. */
void hp_live_table_bytes(uint64_t *now, uint64_t *peak);

void hp_live_prefork(void);
void hp_live_postfork_parent(void);
void hp_live_postfork_child(void);

#pragma GCC visibility pop

#endif
