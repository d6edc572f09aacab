/*
 * totals.h -- a consistent-enough picture of the profile for a dump or
 * a leak summary: per-stack and per-thread sums of the counter contexts of
 * the current reset generation.
 *
 * Taking a snapshot reads counters lock-free while the program runs;
 * allocating threads are never stopped.  Memory comes from hp_pages.
 */
#ifndef HP_TOTALS_H
#define HP_TOTALS_H

#include <stdbool.h>
#include <stdint.h>

#include "record/counters.h"

struct hp_totals {
	int lg;                      /* current lg_prof_sample, for headers */
	uint32_t nstacks;            /* stack ids 1..nstacks */
	struct hp_counts *by_stack;  /* [nstacks + 1] */
	uint32_t nthreads;           /* thread uids 0..nthreads-1 */
	struct hp_counts *by_thread; /* [nthreads] */
	struct hp_counts total;
	/* Context ids grouped by stack: ctx_of_stack[first[s] .. first[s+1]). */
	uint32_t nctx;
	uint32_t *ctx_sorted;
	uint32_t *first;             /* [nstacks + 2] */
	size_t bytes;                /* mapped for all of the above */
	void *mem;
};

/* Returns 0, or ENOMEM. */
int hp_totals_take(struct hp_totals *s);
void hp_totals_release(struct hp_totals *s);

/* Converts fixed-point counts to objects. */
double hp_totals_objects(int64_t cnt_fp);

#endif
