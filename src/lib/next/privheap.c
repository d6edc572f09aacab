/*
 * privheap.c -- the private heap (see privheap.h).
 *
 * Owns its mappings and free lists.  Blocks carry a 16-byte header (the
 * usable size, and the size class or LARGE).  Classes are powers of two
 * from 16 bytes to 64 KiB, carved from 1 MiB slabs and kept on a free
 * list per class when freed; larger blocks get a mapping each, unmapped
 * when freed.  Every mapping is entered in a small table (for
 * hp_privheap_owns) and its pages pinned in the page filter.  When the
 * table is full or mmap fails, allocations return NULL and the caller
 * falls back to the next allocator.
 */
#include <string.h>

#include "base/pages.h"
#include "base/spin.h"
#include "next/filter.h"
#include "next/next.h"
#include "next/privheap.h"
#include "base/banned.h"

#define HDR 16u
#define CLASS_MIN_SHIFT 4u                  /* 16 bytes */
#define CLASSES 13u                         /* up to 64 KiB */
#define SMALL_MAX ((size_t)1 << (CLASS_MIN_SHIFT + CLASSES - 1))
#define SLAB ((size_t)1 << 20)
#define LARGE ((size_t)-1)
#define MAPS_MAX 256u

struct hdr {
	size_t usable;
	size_t cls;      /* its class, or LARGE */
};

struct map {
	uintptr_t lo, hi;
};

uintptr_t hp_privheap_lo, hp_privheap_span;

static struct hp_spin lock = HP_SPIN_INIT;
static void *free_list[CLASSES];
static char *bump, *bump_end;
static struct map maps[MAPS_MAX];
static unsigned nmaps;
static __thread int mine __attribute__((tls_model("initial-exec")));

void hp_privheap_enter(void)
{
	mine = 1;
}

void hp_privheap_leave(void)
{
	mine = 0;
}

bool hp_privheap_mine(void)
{
	return mine;
}

/* Enters [lo, hi) (lock held): false when the table is full. */
static bool add_map(uintptr_t lo, uintptr_t hi)
{
	if (nmaps == MAPS_MAX)
		return false;
	maps[nmaps++] = (struct map){ lo, hi };
	uintptr_t a = HP_LOAD(&hp_privheap_lo), b = a + HP_LOAD(&hp_privheap_span);
	if (!HP_LOAD(&hp_privheap_span) || lo < a)
		a = lo;
	if (hi > b)
		b = hi;
	hp_filter_pin((const void *)lo, hi - lo);
	/* The span only widens: stored before lo, so that a reader that
	 * sees the new span with the old lo still covers every block handed
	 * out before (a block of the new mapping is handed out after both
	 * stores). */
	HP_STORE(&hp_privheap_span, b - a);
	HP_STORE_REL(&hp_privheap_lo, a);
	return true;
}

static void drop_map(uintptr_t lo)
{
	for (unsigned i = 0; i < nmaps; i++)
		if (maps[i].lo == lo) {
			maps[i] = maps[--nmaps];
			return;
		}
}

bool hp_privheap_owns_slow(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	bool found = false;

	hp_spin_lock(&lock);
	for (unsigned i = 0; i < nmaps && !found; i++)
		found = a >= maps[i].lo && a < maps[i].hi;
	hp_spin_unlock(&lock);
	return found;
}

static unsigned class_of(size_t n)
{
	unsigned c = 0;

	while (((size_t)1 << (CLASS_MIN_SHIFT + c)) < n)
		c++;
	return c;
}

static void *large(size_t n)
{
	size_t bytes = hp_pages_round(n + HDR);
	char *m;

	if (bytes < n)
		return NULL;
	m = hp_pages_alloc(bytes);
	if (!m)
		return NULL;
	hp_spin_lock(&lock);
	bool ok = add_map((uintptr_t)m, (uintptr_t)m + bytes);
	hp_spin_unlock(&lock);
	if (!ok) {
		hp_pages_free(m, bytes);
		return NULL;
	}
	*(struct hdr *)m = (struct hdr){ bytes - HDR, LARGE };
	return m + HDR;
}

/* A block of class c (lock held): from its free list, else the slab. */
static void *small(unsigned c)
{
	size_t sz = (size_t)1 << (CLASS_MIN_SHIFT + c);
	char *b = free_list[c];

	if (b) {
		free_list[c] = *(void **)b;
		return b;
	}
	if ((size_t)(bump_end - bump) < sz + HDR) {
		char *s = hp_pages_alloc(SLAB);
		if (!s)
			return NULL;
		if (!add_map((uintptr_t)s, (uintptr_t)s + SLAB)) {
			hp_pages_free(s, SLAB);
			return NULL;
		}
		bump = s;
		bump_end = s + SLAB;
	}
	*(struct hdr *)bump = (struct hdr){ sz, c };
	b = bump + HDR;
	bump += HDR + sz;
	return b;
}

void *hp_privheap_malloc(size_t n)
{
	if (n > SMALL_MAX)
		return large(n);
	hp_spin_lock(&lock);
	void *b = small(class_of(n ? n : 1));
	hp_spin_unlock(&lock);
	return b;
}

void *hp_privheap_calloc(size_t n)
{
	void *b = hp_privheap_malloc(n);

	if (b && n <= SMALL_MAX)
		memset(b, 0, n);   /* a large block is fresh pages: zero */
	return b;
}

static struct hdr *hdr_of(const void *p)
{
	return (struct hdr *)((char *)p - HDR);
}

size_t hp_privheap_usable(const void *p)
{
	return hdr_of(p)->usable;
}

void hp_privheap_free(void *p)
{
	struct hdr *h = hdr_of(p);

	if (h->cls == LARGE) {
		size_t bytes = h->usable + HDR;
		hp_spin_lock(&lock);
		drop_map((uintptr_t)h);
		hp_spin_unlock(&lock);
		hp_pages_free(h, bytes);
		return;
	}
	hp_spin_lock(&lock);
	*(void **)p = free_list[h->cls];
	free_list[h->cls] = p;
	hp_spin_unlock(&lock);
}

void *hp_privheap_realloc(void *p, size_t n)
{
	if (!p)
		return hp_privheap_malloc(n);
	if (n == 0) {   /* as glibc: freed, and NULL */
		hp_privheap_free(p);
		return NULL;
	}
	size_t old = hp_privheap_usable(p);
	if (n <= old && (hdr_of(p)->cls == LARGE || n > old / 2))
		return p;
	void *q = hp_privheap_malloc(n);
	if (!q)
		q = (hp_next.malloc)(n);   /* private no more: the next allocator's */
	if (q) {
		memcpy(q, p, old < n ? old : n);
		hp_privheap_free(p);
	}
	return q;
}
