/*
 * nextmaps.h -- the address ranges that the next allocator mapped for
 * itself, when it is not glibc's (jemalloc, tcmalloc, mimalloc named after
 * heapprof in LD_PRELOAD).
 *
 * Such an allocator takes its heap and its metadata from mmap, through
 * the interposed mmap (intercept/mmap.c), which reports here every
 * mapping whose caller lies in the allocator's object.  The leak scan
 * (scan/reach.c) then knows which anonymous memory is the allocator's:
 * its free regions and its metadata hold stale and internal pointers to
 * blocks, and taken for roots they would hide leaks.  glibc's malloc maps
 * through its internal mmap, never through ours, and is found by its heap
 * structure instead: over glibc nothing is recorded here.
 *
 * A range is dropped, or cut, when anything unmaps, remaps or maps over
 * it.  When in doubt (the table is full, a call from a signal handler
 * that interrupted an update) a range is left out: memory that is not
 * known to be the allocator's is scanned as a root, which can hide a leak
 * but never invent one.
 */
#ifndef HP_NEXTMAPS_H
#define HP_NEXTMAPS_H

#pragma GCC visibility push(hidden)

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The next mmap, munmap, mremap and sbrk (the allocator's own, as tcmalloc's,
 * or the C library's); NULL members before the chain is resolved, when
 * the caller goes to the kernel directly. */
struct hp_nextmaps_fns {
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	int (*munmap)(void *, size_t);
	void *(*mremap)(void *, size_t, size_t, int, ...);
	void *(*sbrk)(intptr_t);
};
const struct hp_nextmaps_fns *hp_nextmaps_fns(void);

struct hp_nextmaps_range {
	uintptr_t lo, hi;
};

#define HP_NEXTMAPS_MAX 8192

/* Called after a successful mmap/mremap: [p, p + len) is the allocator's
 * when caller (the return address of the mmap call) lies in its object. */
void hp_nextmaps_mapped(void *p, size_t len, const void *caller);

/* Called after munmap, before a MAP_FIXED mapping and for mremap's old
 * range: no part of [p, p + len) is the allocator's any more. */
void hp_nextmaps_unmapped(void *p, size_t len);

/* Whether ranges are being recorded: the next allocator is not glibc's,
 * and the table never overflowed. */
int hp_nextmaps_complete(void);

/* The ranges, sorted and merged, into out (at most cap); returns how
 * many.  Call between hp_nextmaps_lock and hp_nextmaps_unlock. */
size_t hp_nextmaps_list(struct hp_nextmaps_range *out, size_t cap);

/* Held across the leak scan's stop of the world and across fork. */
void hp_nextmaps_lock(void);
void hp_nextmaps_unlock(void);
void hp_nextmaps_postfork_child(void);

#pragma GCC visibility pop

#endif
