/*
 * malloc.c -- the interposed C allocation functions.
 *
 * Owns nothing.  Each function is the fast path and only the fast path:
 * one thread-local countdown test for allocations, one page-filter test for
 * frees (and, when the page holds a sampled block, the filter's second
 * look, out of line), then a tail call to the next allocator (hp_next).  Everything
 * else is in record/sampled.c, reached only when an allocation may be
 * sampled or a freed pointer may be a sampled block.  No locks, no system calls, no
 * allocation here.
 */
#include <errno.h>
#include <malloc.h>
#include <stdlib.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "next/filter.h"
#include "record/sampled.h"
#include "next/next.h"
#include "record/tls.h"

HP_EXPORT void *malloc(size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.malloc(n);
	return hp_sampled_malloc(n);
}

HP_EXPORT void free(void *p)
{
	if (HP_LIKELY(!hp_filter_maybe(p))) {
		hp_next.free(p);
		return;
	}
	if (!hp_filter_second_look(p)) {
		hp_next.free(p);
		return;
	}
	hp_sampled_free(p);
}

HP_EXPORT void *calloc(size_t n, size_t m)
{
	size_t total;

	if (HP_UNLIKELY(__builtin_mul_overflow(n, m, &total)))
		return hp_next.calloc(n, m);   /* fails as the allocator fails */
	if (HP_LIKELY(hp_tls_fast(total)))
		return hp_next.calloc(n, m);
	return hp_sampled_calloc(n, m);
}

/* The filter said maybe, or the countdown ran out.  An old block the
 * second look clears leaves a plain allocation, which the countdown
 * decides (a failed hp_tls_fast takes its count back: asking again is
 * harmless). */
static HP_NOINLINE HP_COLD void *realloc_maybe_sampled(void *p, size_t n)
{
	if (!hp_filter_second_look(p) && hp_tls_fast(n))
		return hp_next.realloc(p, n);
	return hp_sampled_realloc(p, n);
}

HP_EXPORT void *realloc(void *p, size_t n)
{
	if (HP_LIKELY(!hp_filter_maybe(p) && hp_tls_fast(n)))
		return hp_next.realloc(p, n);
	return realloc_maybe_sampled(p, n);
}

HP_EXPORT void *reallocarray(void *p, size_t n, size_t m)
{
	size_t total;

	if (__builtin_mul_overflow(n, m, &total)) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(p, total);
}

HP_EXPORT int posix_memalign(void **out, size_t align, size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.posix_memalign(out, align, n);
	return hp_sampled_posix_memalign(out, align, n);
}

HP_EXPORT void *aligned_alloc(size_t align, size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.aligned_alloc(align, n);
	return hp_sampled_aligned(HP_SAMPLED_ALIGNED_ALLOC, align, n);
}

HP_EXPORT void *memalign(size_t align, size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.memalign(align, n);
	return hp_sampled_aligned(HP_SAMPLED_MEMALIGN, align, n);
}

HP_EXPORT void *valloc(size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.valloc(n);
	return hp_sampled_aligned(HP_SAMPLED_VALLOC, 0, n);
}

HP_EXPORT void *pvalloc(size_t n)
{
	if (HP_LIKELY(hp_tls_fast(n)))
		return hp_next.pvalloc(n);
	return hp_sampled_aligned(HP_SAMPLED_PVALLOC, 0, n);
}

HP_EXPORT size_t malloc_usable_size(void *p)
{
	if (HP_UNLIKELY(hp_filter_maybe(p)))
		return hp_sampled_usable_size(p);
	return hp_next.malloc_usable_size ? hp_next.malloc_usable_size(p) : 0;
}
