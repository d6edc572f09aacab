/*
 * privheap.h -- the private heap: where the thread that symbolizes the
 * leak report at exit allocates, instead of the host's heap.
 *
 * At exit the leak gate symbolizes in the process (suppressions match
 * function and file names; leak_report prints them): libdw is dlopened and
 * decompresses whole debug sections, megabytes of malloc calls that
 * glibc's heap would take.  There the first request of 1 KiB or more
 * consolidates every fast-bin chunk of the host's arena first: perl,
 * after a hash of 300,000 entries, spent some 60 ms in that, a tenth of
 * its whole run, and the host's heap was no longer as the program left
 * it.  Between hp_privheap_enter and hp_privheap_leave the thread's
 * allocations (malloc, calloc, realloc of NULL or of a private block)
 * come from pages of base/pages.c instead; their frees come back here
 * wherever and whenever they happen (the page filter is pinned over
 * every private page, so free() always asks record/sampled.c, which asks
 * hp_privheap_owns).
 *
 * Only for the exit's verdict: private memory is heapprof's, which a
 * leak scan never takes for a root, so a later scan (a live check) would
 * miss what the dynamic loader links through it.  Thread-safe (a spin
 * lock; the slow paths only).
 */
#ifndef HP_PRIVHEAP_H
#define HP_PRIVHEAP_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "next/next.h"

/* The calling thread allocates here until it leaves, once its
 * allocations take the slow path (record/sampled.c asks
 * hp_privheap_mine there): the caller, inside the guard, sets the
 * thread's countdown to 0 (record/tls.h), and back after. */
void hp_privheap_enter(void);
void hp_privheap_leave(void);
bool hp_privheap_mine(void);

/* The span of every private mapping: an address outside it is not ours
 * (one compare); inside it, hp_privheap_owns looks exactly. */
extern uintptr_t hp_privheap_lo, hp_privheap_span;

bool hp_privheap_owns_slow(const void *p);
HP_INLINE bool hp_privheap_owns(const void *p)
{
	return HP_UNLIKELY((uintptr_t)p - HP_LOAD(&hp_privheap_lo) < HP_LOAD(&hp_privheap_span)) &&
	       hp_privheap_owns_slow(p);
}

/* NULL when the private heap cannot map more: the caller then uses the
 * next allocator, as before. */
void *hp_privheap_malloc(size_t n);
void *hp_privheap_calloc(size_t n);
/* p is NULL or private. */
void *hp_privheap_realloc(void *p, size_t n);
void hp_privheap_free(void *p);
size_t hp_privheap_usable(const void *p);

/* Frees what a library called for heapprof (libdw's arrays, the
 * demangler's buffer) handed back: private, or the next allocator's. */
HP_INLINE void hp_privheap_free_any(void *p)
{
	if (hp_privheap_owns(p))
		hp_privheap_free(p);
	else
		(hp_next.free)(p);
}

#pragma GCC visibility pop

#endif
