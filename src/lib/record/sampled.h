/*
 * sampled.h -- the allocation and free slow paths: what happens when an
 * allocation may be sampled or a freed pointer may be a sampled block.
 *
 * The interposer (intercept/malloc.c) inlines the fast tests and calls these
 * functions only when an allocation may be sampled (its size reaches the
 * thread's countdown) or a freed pointer may be a sampled block (the page
 * filter says "maybe").  Each has the exact semantics of the next
 * allocator's function of the same name, errno included.
 */
#ifndef HP_SAMPLED_H
#define HP_SAMPLED_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "next/nextcxx.h"
#include "record/tls.h"

/* Slow paths, one per interposed function. */
void *hp_sampled_malloc(size_t n);
void *hp_sampled_calloc(size_t n, size_t m);
void *hp_sampled_realloc(void *p, size_t n);
void hp_sampled_free(void *p);
int hp_sampled_posix_memalign(void **out, size_t align, size_t n);

enum hp_sampled_align { HP_SAMPLED_MEMALIGN, HP_SAMPLED_ALIGNED_ALLOC, HP_SAMPLED_VALLOC, HP_SAMPLED_PVALLOC };
void *hp_sampled_aligned(enum hp_sampled_align kind, size_t align, size_t n);

size_t hp_sampled_usable_size(void *p);

/* The C++ operators of an allocator that implements its own (direct
 * mode, next/nextcxx.h): n is the size, al the alignment (0 for none). */
void *hp_sampled_new(enum hp_nextcxx_kind kind, size_t n, size_t al);
void hp_sampled_delete(enum hp_nextcxx_kind kind, void *p, size_t n, size_t al);

/* Frees the blocks whose free a signal handler deferred while this thread
 * held their live-table shard (see hp_live_remove's HP_LIVE_BUSY).  Only
 * outside the guard. */
void hp_sampled_drain(struct hp_tls *t);

/* Readers of the figures or of the live table (dumps, the leak summary
 * and scan, the bell's statistics), on their own thread, before they
 * read: the removals and counts this thread's frees put off (sampled.c)
 * are done now; the blocks themselves go back to the allocator at the
 * thread's next allocation or free, since this may run in a signal
 * handler.  Inside or outside the guard; never with a live-table shard
 * held. */
void hp_sampled_settle(void);

/* Does everything this thread's frees put off, the allocator's frees
 * included: before the process gains a second thread (intercept's
 * pthread_create), whose readers could not settle this thread's.  Never
 * in a signal handler. */
void hp_sampled_drain_deferred(void);

/* Leaves the guard and frees what was deferred meanwhile: for code that
 * holds live-table shard locks inside the guard (this module, the leak
 * verdict's lookups, the fork handlers).  Elsewhere the deferred list
 * cannot grow, and hp_tls_guard_leave is enough. */
HP_INLINE void hp_sampled_leave(struct hp_tls *t)
{
	hp_tls_guard_leave(t);
	if (HP_UNLIKELY(t->npending) && !t->guard)
		hp_sampled_drain(t);
}

#pragma GCC visibility pop

#endif
