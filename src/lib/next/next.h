/*
 * next.h -- the next allocator in the chain: glibc, or jemalloc, tcmalloc,
 * mimalloc... named after heapprof in LD_PRELOAD.
 *
 * hp_next's function pointers are valid from the first instruction of the
 * process: before resolution they point at bootstrap functions that resolve
 * the chain with dlsym(RTLD_NEXT) and, while dlsym itself allocates on the
 * resolving thread, serve memory from a small static pool.  Pool blocks are
 * recognised by address (hp_next_pool_owns) and never reach the next
 * allocator.
 *
 * Functions that the next allocator does not export itself (jemalloc has no
 * pvalloc, for example) are emulated on top of its posix_memalign, so that
 * a block is always freed by the allocator that made it.
 */
#ifndef HP_NEXT_H
#define HP_NEXT_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

struct hp_next {
	void *(*malloc)(size_t);
	void (*free)(void *);
	void *(*calloc)(size_t, size_t);
	void *(*realloc)(void *, size_t);
	int (*posix_memalign)(void **, size_t, size_t);
	void *(*aligned_alloc)(size_t, size_t);
	void *(*memalign)(size_t, size_t);
	void *(*valloc)(size_t);
	void *(*pvalloc)(size_t);
	size_t (*malloc_usable_size)(void *);
};

extern struct hp_next hp_next;

/* Resolves the chain once.  Safe to call from any thread at any time; a
 * nested call from inside dlsym returns at once (the caller then uses the
 * pool). */
void hp_next_resolve(void);
bool hp_next_resolved(void);

/* The bootstrap pool. */
#define HP_NEXT_POOL_SIZE (64u << 10)
extern char hp_next_pool[HP_NEXT_POOL_SIZE];
/* Inline: every free that reaches the slow path asks. */
HP_INLINE bool hp_next_pool_owns(const void *p)
{
	return (const char *)p >= hp_next_pool && (const char *)p < hp_next_pool + HP_NEXT_POOL_SIZE;
}
void *hp_next_pool_alloc(size_t size, size_t align);
size_t hp_next_pool_size(const void *p);
/* The part of the pool handed out so far: memory of dlsym's, not ours,
 * which the leak scan takes as a root. */
void hp_next_pool_span(uintptr_t *lo, uintptr_t *hi);
/* Realloc out of the pool into the real allocator (or the pool again while
 * resolving). */
void *hp_next_pool_realloc(void *p, size_t size);

/* Whether fn lies in the object that provides the next malloc (an
 * allocator that implements its own C++ operators, next/nextcxx.c). */
bool hp_next_in_malloc_object(const void *fn);

/* Whether the next malloc is glibc's (its chunk layout is known). */
bool hp_next_is_glibc(void);

/* Whether the library was loaded by dlopen after start-up (heapprof
 * attach) rather than preloaded or linked: the program's own lookup of
 * malloc does not find ours.  Decided on the first call. */
bool hp_next_dlopened(void);
/* The dlsym handle the next definitions are looked up with: RTLD_NEXT,
 * or RTLD_DEFAULT when dlopened. */
void *hp_next_handle(void);

/* Path of the object that provides the next malloc, for the startup log. */
const char *hp_next_provider(void);

#pragma GCC visibility pop

#endif
