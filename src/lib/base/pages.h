/*
 * pages.h -- the profiler's own memory: page runs straight from mmap and a
 * bump arena on top of them.
 *
 * Everything the profiler keeps (stacks, counters, tables, dump buffers)
 * comes from here and never from the host allocator, so profiler memory is
 * never sampled and never recurses into malloc.  Page runs are zero-filled.
 * Thread-safe; not async-signal-safe (mmap is, but the arena takes a lock).
 */
#ifndef HP_PAGES_H
#define HP_PAGES_H

#include <stddef.h>
#include <stdint.h>

#include "base/spin.h"

/* Maps n bytes (rounded up to pages), zero-filled.  NULL on failure. */
void *hp_pages_alloc(size_t n);
/* n rounded up to whole pages: what a run of n bytes maps. */
size_t hp_pages_round(size_t n);

/* Unmaps a run returned by hp_pages_alloc with the same n. */
void hp_pages_free(void *p, size_t n);

/* Resizes a run hp_pages_alloc returned (n bytes) to m bytes, moving it
 * if it must (mremap(2): its pages move, none is copied); the bytes past
 * n are zero.  NULL on failure: the run stays as it was. */
void *hp_pages_resize(void *p, size_t n, size_t m);

/* A read-only private mapping of a file, and its unmapping: straight to
 * the kernel, like every mapping of heapprof's (MAP_FAILED on failure). */
void *hp_pages_map_file(int fd, size_t n);
void hp_pages_unmap_file(void *p, size_t n);
/* Gives the pages back to the kernel but keeps the mapping readable (as
 * zeros): for tables that lock-free readers may still be scanning. */
void hp_pages_retire(void *p, size_t n);

/* Bytes currently mapped through this module (for the profiler's own
 * overhead figure in logs and benchmarks). */
size_t hp_pages_mapped(void);

/* The mappings this module made, sorted by address: what a leak scan
 * must never take for the program's memory.  Take the lock (before
 * stopping other threads: one of them may hold it), read, release; while
 * it is held, the caller must not map or unmap through this module.
 * complete is 0 when an entry could not be recorded (no memory for the
 * registry): then the registry misses some of heapprof's memory. */
struct hp_pages_range {
	uintptr_t lo, hi;
};
void hp_pages_registry_lock(void);
void hp_pages_registry_unlock(void);
size_t hp_pages_registry(const struct hp_pages_range **ranges, int *complete);
/* hp_pages_alloc for the holder of the registry's lock (the leak scan,
 * which sizes some of its arrays only once the other threads are
 * stopped): the mapping is entered in the registry all the same, so that
 * a scan that reads it after never takes it for the program's.  Freed
 * with hp_pages_free once the lock is released. */
void *hp_pages_alloc_held(size_t n);
/* fork(): the child resets the registry's lock (fork handlers take it
 * before fork with hp_pages_registry_lock and release it after). */
void hp_pages_postfork_child(void);

/* A bump allocator for small records that live until exit. */
struct hp_pages_arena {
	struct hp_spin lock;
	char *cur;
	char *end;
	size_t chunk;   /* size of each mapping; 0 means 1 MiB */
};

/* Returns size bytes aligned to align (a power of two, at most 4096),
 * zero-filled, or NULL when mmap fails. */
void *hp_pages_arena_alloc(struct hp_pages_arena *a, size_t size, size_t align);

#endif
