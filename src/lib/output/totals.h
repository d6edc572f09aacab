/*
 * totals.h -- a consistent-enough picture of the profile for a dump or
 * a leak summary: per-stack and per-thread sums of the counter contexts of
 * the current reset generation.
 *
 * Taking a snapshot reads counters lock-free while the program runs;
 * allocating threads are never stopped.  Memory comes from hp_pages.
 *
 * It reads the peak snapshot too (record/peak.h): the peak figures of
 * every context for one peak.  When the heap reaches new peaks while the
 * contexts are read, the read is repeated (a few times at most); a read
 * that never caught a still peak is marked peak_moving, and then holds
 * each context's figures at the peak or, for a context changed after the
 * peak moved on, as read.
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
	int64_t peak;                /* the peak's live bytes (record/peak.h) */
	int peak_moving;             /* new peaks came during every read */
	int at_peak;                 /* live figures replaced by the peak's */
	/* The salt of the rows' rounding at a sampled rate (output/dump.h):
	 * the process's, drawn at its first snapshot; 0 (a snapshot not
	 * taken here: the leak dump's) rounds to the nearest. */
	uint64_t dither_salt;
	/* Context ids grouped by stack: ctx_of_stack[first[s] .. first[s+1]). */
	uint32_t nctx;
	uint32_t *ctx_sorted;
	uint32_t *first;             /* [nstacks + 2] */
	size_t bytes;                /* mapped for all of the above */
	void *mem;
};

/* Returns 0, or ENOMEM. */
int hp_totals_take(struct hp_totals *s);
/* Replaces the live figures by the peak's (for a high-water dump). */
void hp_totals_at_peak(struct hp_totals *s);
/* One context's counts as s shows them: its live figures are the peak's
 * after hp_totals_at_peak. */
void hp_totals_read(const struct hp_totals *s, const struct hp_counters *c,
		    struct hp_counts *out);
void hp_totals_release(struct hp_totals *s);

/* Converts fixed-point counts to objects. */
double hp_totals_objects(int64_t cnt_fp);

#endif
