/*
 * pages.c -- mmap-backed memory for the profiler's own data (see pages.h).
 *
 * Owns the count of mapped bytes.  Must never call the host allocator.
 */
#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/pages.h"
#include "base/banned.h"

#define HP_ARENA_CHUNK_DEFAULT (1u << 20)

static size_t mapped_bytes;

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) & ~(pg - 1);
}

void *hp_pages_alloc(size_t n)
{
	n = page_round(n);
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	HP_ADD(&mapped_bytes, n);
	return p;
}

void hp_pages_free(void *p, size_t n)
{
	if (!p)
		return;
	n = page_round(n);
	munmap(p, n);
	HP_SUB(&mapped_bytes, n);
}

void hp_pages_retire(void *p, size_t n)
{
	if (!p)
		return;
	n = page_round(n);
	madvise(p, n, MADV_DONTNEED);
	HP_SUB(&mapped_bytes, n);
}

size_t hp_pages_mapped(void)
{
	return HP_LOAD(&mapped_bytes);
}

void *hp_pages_arena_alloc(struct hp_pages_arena *a, size_t size, size_t align)
{
	size_t chunk = a->chunk ? a->chunk : HP_ARENA_CHUNK_DEFAULT;
	void *ret = NULL;

	if (size > chunk / 2)
		return hp_pages_alloc(size);   /* oversized: its own mapping */
	hp_spin_lock(&a->lock);
	uintptr_t cur = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
	if (!a->cur || cur + size > (uintptr_t)a->end) {
		char *fresh = hp_pages_alloc(chunk);
		if (!fresh)
			goto out;
		a->cur = fresh;
		a->end = fresh + chunk;
		cur = (uintptr_t)fresh;
	}
	a->cur = (char *)(cur + size);
	ret = (void *)cur;
out:
	hp_spin_unlock(&a->lock);
	return ret;
}
