/*
 * pages.c -- mmap-backed memory for the profiler's own data (see pages.h).
 *
 * Owns the count of mapped bytes and the registry of the mappings it
 * made.  Must never call the host allocator.
 *
 * The registry is a sorted array of [lo, hi) ranges, itself mapped
 * straight from mmap and entered in itself: what it holds are heapprof's
 * addresses, but the end of one of its ranges is where the next mapping
 * begins, and that can be a block of the program's (jemalloc hands out
 * the first bytes of a fresh mapping); taken for a root it would keep
 * that block reachable.  Updated under a spinlock on the slow paths that
 * map and unmap: a few hundred entries in a long exact-mode run.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/pages.h"
#include "base/sys.h"
#include "base/banned.h"

#define HP_ARENA_CHUNK_DEFAULT (1u << 20)

static size_t mapped_bytes;

/* ---- the registry ---------------------------------------------------- */

static struct hp_spin reg_lock;
static struct hp_pages_range *reg;
static size_t reg_n, reg_cap;
static int reg_full;   /* an entry could not be recorded */

/* Straight to the kernel: heapprof's own memory never passes through the
 * interposed mmap (intercept/mmap.c), nor a next allocator's hooks. */
static void *raw_map(size_t n)
{
	long r = hp_syscall(SYS_mmap, NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return r == -1 ? MAP_FAILED : (void *)r;
}

static void raw_unmap(void *p, size_t n)
{
	hp_syscall(SYS_munmap, p, n);
}

/* The first entry whose lo is >= lo. */
static size_t reg_find(uintptr_t lo)
{
	size_t a = 0, b = reg_n;

	while (a < b) {
		size_t m = a + (b - a) / 2;
		if (reg[m].lo < lo)
			a = m + 1;
		else
			b = m;
	}
	return a;
}

/* Inserts [lo, hi); the caller holds the lock and made room. */
static void reg_insert(uintptr_t lo, uintptr_t hi)
{
	size_t i = reg_find(lo);

	memmove(&reg[i + 1], &reg[i], (reg_n - i) * sizeof(*reg));
	reg[i].lo = lo;
	reg[i].hi = hi;
	reg_n++;
}

/* Deletes the range that starts at lo, if any; the caller holds the lock. */
static void reg_delete(uintptr_t lo)
{
	size_t i = reg_find(lo);

	if (i < reg_n && reg[i].lo == lo) {
		memmove(&reg[i], &reg[i + 1], (reg_n - i - 1) * sizeof(*reg));
		reg_n--;
	}
}

/* Doubles the registry, which moves and enters its new mapping in itself
 * (room for it and one more: the capacity doubles, from 512). */
static int reg_grow(void)
{
	size_t cap = reg_cap ? reg_cap * 2 : 512;
	void *p = raw_map(cap * sizeof(*reg));
	struct hp_pages_range *old = reg;
	size_t old_cap = reg_cap;

	if (p == MAP_FAILED)
		return -1;
	if (old)
		memcpy(p, old, reg_n * sizeof(*reg));
	reg = p;
	reg_cap = cap;
	if (old) {
		reg_delete((uintptr_t)old);
		raw_unmap(old, old_cap * sizeof(*reg));
	}
	reg_insert((uintptr_t)p, (uintptr_t)p + cap * sizeof(*reg));
	return 0;
}

/* The caller holds the lock. */
static void reg_add_held(void *p, size_t n)
{
	if (reg_n == reg_cap && reg_grow() != 0)
		reg_full = 1;
	else
		reg_insert((uintptr_t)p, (uintptr_t)p + n);
}

static void reg_add(void *p, size_t n)
{
	hp_spin_lock(&reg_lock);
	reg_add_held(p, n);
	hp_spin_unlock(&reg_lock);
}

static void reg_remove(void *p)
{
	hp_spin_lock(&reg_lock);
	reg_delete((uintptr_t)p);
	hp_spin_unlock(&reg_lock);
}

void hp_pages_registry_lock(void)
{
	hp_spin_lock(&reg_lock);
}

void hp_pages_registry_unlock(void)
{
	hp_spin_unlock(&reg_lock);
}

size_t hp_pages_registry(const struct hp_pages_range **ranges, int *complete)
{
	*ranges = reg;
	*complete = !reg_full;
	return reg_n;
}

void hp_pages_postfork_child(void)
{
	hp_spin_reset(&reg_lock);
}

size_t hp_pages_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) & ~(pg - 1);
}

void *hp_pages_alloc(size_t n)
{
	n = hp_pages_round(n);
	void *p = raw_map(n);
	if (p == MAP_FAILED)
		return NULL;
	HP_ADD(&mapped_bytes, n);
	reg_add(p, n);
	return p;
}

void *hp_pages_alloc_held(size_t n)
{
	n = hp_pages_round(n);
	void *p = raw_map(n);
	if (p == MAP_FAILED)
		return NULL;
	HP_ADD(&mapped_bytes, n);
	reg_add_held(p, n);
	return p;
}

void *hp_pages_map_file(int fd, size_t n)
{
	long r = hp_syscall(SYS_mmap, NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);

	return r == -1 ? MAP_FAILED : (void *)r;
}

void hp_pages_unmap_file(void *p, size_t n)
{
	raw_unmap(p, n);
}

void hp_pages_free(void *p, size_t n)
{
	if (!p)
		return;
	n = hp_pages_round(n);
	reg_remove(p);
	raw_unmap(p, n);
	HP_SUB(&mapped_bytes, n);
}

void *hp_pages_resize(void *p, size_t n, size_t m)
{
	n = hp_pages_round(n);
	m = hp_pages_round(m);
	long r = hp_syscall(SYS_mremap, p, n, m, MREMAP_MAYMOVE);
	if (r == -1)
		return NULL;
	/* Its entry out, the new one in: the registry does not grow. */
	hp_spin_lock(&reg_lock);
	reg_delete((uintptr_t)p);
	reg_add_held((void *)r, m);
	hp_spin_unlock(&reg_lock);
	HP_ADD(&mapped_bytes, m - n);
	return (void *)r;
}

void hp_pages_retire(void *p, size_t n)
{
	if (!p)
		return;
	n = hp_pages_round(n);
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
