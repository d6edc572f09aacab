/*
 * agehist.h -- each stack's live memory by age, for a dump (prof_age).
 *
 * Taken after the totals (output/totals.h): one walk of the live table,
 * shard by shard (record/live.h), sorting each live sampled block of the
 * current reset generation by its stack and its age, and adding its
 * weight (record/sample.h: a sampled block stands for the objects and
 * bytes its rate gives it; in exact mode, one block and its size).
 * Ages go in log2-second buckets: bucket 0 holds [0, 1 s), bucket k
 * [2^(k-1), 2^k s).  Memory comes from hp_pages.
 *
 * In a dump (output/dump.c), after the header, "# heapprof uptime: S"
 * (seconds since heapprof started in the process, to 1/16 s) and after
 * each stack's row "# age: LO:OBJECTS:BYTES ..." for its non-empty
 * buckets, LO each bucket's lower bound in seconds (0, 1, 2, 4, ...).
 */
#ifndef HP_AGEHIST_H
#define HP_AGEHIST_H

#include <stdint.h>
#include <stddef.h>

#include "base/out.h"
#include "output/totals.h"

#pragma GCC visibility push(hidden)

struct hp_agehist_bucket {
	uint64_t cnt_fp;   /* fixed point, as the counters (record/sample.h) */
	uint64_t bytes;
};

struct hp_agehist {
	uint32_t uptime;   /* ticks since heapprof's start (record/ages.h) */
	unsigned nb;       /* buckets per stack */
	uint32_t nstacks;
	struct hp_agehist_bucket *h;   /* [(nstacks + 1) * nb], by stack */
	size_t bytes;
};

/* Takes the ages of s's stacks.  Returns 0, ENOMEM, or ENODATA when the
 * live table keeps no dates (prof_age).  On a thread that dumps, inside
 * the guard; takes each shard lock in turn. */
int hp_agehist_take(struct hp_agehist *a, const struct hp_totals *s);
void hp_agehist_release(struct hp_agehist *a);

/* The "# heapprof uptime" header line, and stack st's "# age" line
 * (nothing when it has no live sampled block). */
void hp_agehist_put_uptime(struct hp_out *o, const struct hp_agehist *a);
void hp_agehist_put_stack(struct hp_out *o, const struct hp_agehist *a, uint32_t st);

#pragma GCC visibility pop

#endif
