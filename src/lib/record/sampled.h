/*
 * prof.h -- the profiler's runtime state and its slow paths.
 *
 * The interposer (preload.c) inlines the fast tests and calls these
 * functions only when an allocation may be sampled (its size reaches the
 * thread's countdown) or a freed pointer may be a sampled block (the page
 * filter says "maybe").  Each has the exact semantics of the next
 * allocator's function of the same name, errno included.
 */
#ifndef HP_PROF_H
#define HP_PROF_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hp_prof_state {
	int ready;                /* init finished; sampling may start */
	int enabled;              /* opt prof: sampling possible at all */
	int active;               /* prof.active */
	int lg_sample;            /* current lg_prof_sample */
	int bt_max;               /* current prof_bt_max */
	int thread_active_init;
	uint32_t epoch;           /* bumped when rate or switches change */
	uint16_t gen;             /* reset generation (prof.reset) */
	uint64_t dropped;         /* samples lost to exhausted memory */
};

extern struct hp_prof_state hp_prof;

/* Slow paths, one per interposed function. */
void *hp_prof_malloc(size_t n);
void *hp_prof_calloc(size_t n, size_t m);
void *hp_prof_realloc(void *p, size_t n);
void hp_prof_free(void *p);
int hp_prof_posix_memalign(void **out, size_t align, size_t n);

enum hp_align_kind { HP_MEMALIGN, HP_ALIGNED_ALLOC, HP_VALLOC, HP_PVALLOC };
void *hp_prof_aligned(enum hp_align_kind kind, size_t align, size_t n);

size_t hp_prof_usable_size(void *p);

/* Makes every thread redraw its countdown at its next sample point (after
 * a change of rate or of the active switch). */
void hp_prof_new_epoch(void);

#pragma GCC visibility pop

#endif
