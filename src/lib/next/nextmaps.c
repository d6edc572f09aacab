/*
 * nextmaps.c -- the ranges the next allocator mapped for itself (see
 * nextmaps.h).
 *
 * Owns an unsorted table of ranges in static storage and its spinlock.
 * Runs inside the interposed mmap, munmap and mremap, on any thread and
 * possibly in a signal handler that interrupted one of them: the lock is
 * only tried for a bounded time, and a call that cannot take it leaves a
 * new range out, or (for an unmapping) gives the table up for good, so
 * that a stale range can never make the scan skip the program's memory.
 */
#include <dlfcn.h>
#include <sched.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/spin.h"
#include "next/next.h"
#include "next/nextmaps.h"
#include "base/banned.h"


/* caller 0: the allocator's, known; else a mapping made before the chain
 * was resolved (an allocator's constructor reserves its arena that
 * early), by the code at caller: the allocator's if caller lies in it. */
static struct entry {
	uintptr_t lo, hi;
	const void *caller;
} table[HP_NEXTMAPS_MAX];
static size_t used;
static struct hp_spin lock = HP_SPIN_INIT;
static int given_up;   /* full, or an unmapping could not be applied */

static struct hp_nextmaps_fns fns;
static int fns_state;   /* 0 unresolved, 1 resolving, 2 resolved */

const struct hp_nextmaps_fns *hp_nextmaps_fns(void)
{
	int zero = 0;

	if (HP_LOAD_ACQ(&fns_state) == 2)
		return &fns;
	if (!hp_next_resolved() || !HP_CAS(&fns_state, &zero, 1))
		return NULL;   /* too early, or another call is resolving */
	struct hp_nextmaps_fns f;
	f.mmap = dlsym(RTLD_NEXT, "mmap");
	f.munmap = dlsym(RTLD_NEXT, "munmap");
	f.mremap = dlsym(RTLD_NEXT, "mremap");
	f.sbrk = dlsym(RTLD_NEXT, "sbrk");
	if (!f.mmap || !f.munmap || !f.mremap || !f.sbrk) {
		HP_STORE(&fns_state, 0);
		return NULL;
	}
	fns = f;
	HP_STORE_REL(&fns_state, 2);
	return &fns;
}

/* Whether the allocator whose ranges we record is not glibc's (its object
 * is not the C library's, which getpid is in: an allocator may define
 * glibc's __libc_malloc too, as mimalloc does). */
static int other_allocator(void)
{
	return hp_next_resolved() && !hp_next_in_malloc_object((const void *)getpid);
}

static int try_lock(void)
{
	for (int i = 0; i < 256; i++) {
		if (hp_spin_trylock(&lock))
			return 1;
		if (i < 64)
			hp_cpu_relax();
		else
			hp_spin_yield();
	}
	return 0;
}

static void cut(uintptr_t a, uintptr_t b)
{
	for (size_t i = 0; i < used;) {
		struct entry *r = &table[i];
		if (r->hi <= a || r->lo >= b) {
			i++;
			continue;
		}
		if (a <= r->lo && b >= r->hi) {
			*r = table[--used];   /* gone: look at the moved one */
			continue;
		}
		if (a <= r->lo) {
			r->lo = b;
		} else if (b >= r->hi) {
			r->hi = a;
		} else if (used < HP_NEXTMAPS_MAX) {
			table[used].lo = b;
			table[used].hi = r->hi;
			table[used].caller = r->caller;
			used++;
			r->hi = a;
		} else {
			HP_STORE(&given_up, 1);
		}
		i++;
	}
}

void hp_nextmaps_mapped(void *p, size_t len, const void *caller)
{
	uintptr_t a = (uintptr_t)p, b = a + len;

	int early = !hp_next_resolved();

	if (!len || HP_LOAD(&given_up))
		return;
	if (!early && (!hp_next_in_malloc_object(caller) || !other_allocator()))
		return;
	if (!try_lock())
		return;   /* left out: a root */
	cut(a, b);
	for (size_t i = 0; i < used && !early; i++) {
		if (table[i].caller)
			continue;
		if (table[i].hi == a) {   /* grows upward, as allocators do */
			table[i].hi = b;
			goto out;
		}
		if (table[i].lo == b) {
			table[i].lo = a;
			goto out;
		}
	}
	if (used < HP_NEXTMAPS_MAX) {
		table[used].lo = a;
		table[used].hi = b;
		table[used].caller = early ? caller : NULL;
		used++;
	} else {
		HP_STORE(&given_up, 1);
	}
out:
	hp_spin_unlock(&lock);
}

void hp_nextmaps_unmapped(void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p, b = a + len;

	if (!len || !HP_LOAD(&used) || HP_LOAD(&given_up))
		return;
	if (!try_lock()) {
		HP_STORE(&given_up, 1);
		return;
	}
	cut(a, b);
	hp_spin_unlock(&lock);
}

int hp_nextmaps_complete(void)
{
	return other_allocator() && !HP_LOAD(&given_up);
}

size_t hp_nextmaps_list(struct hp_nextmaps_range *out, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < used && n < cap; i++) {
		if (table[i].caller && !hp_next_in_malloc_object(table[i].caller))
			continue;   /* made early, by someone else */
		out[n].lo = table[i].lo;
		out[n].hi = table[i].hi;
		n++;
	}
	/* Shell sort by lo: no allocation, no recursion, n is small. */
	for (size_t gap = n / 2; gap > 0; gap /= 2) {
		for (size_t i = gap; i < n; i++) {
			struct hp_nextmaps_range t = out[i];
			size_t j = i;
			for (; j >= gap && out[j - gap].lo > t.lo; j -= gap)
				out[j] = out[j - gap];
			out[j] = t;
		}
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && out[i].lo <= out[m - 1].hi) {
			if (out[i].hi > out[m - 1].hi)
				out[m - 1].hi = out[i].hi;
		} else {
			out[m++] = out[i];
		}
	}
	return m;
}

void hp_nextmaps_lock(void)
{
	hp_spin_lock(&lock);
}

void hp_nextmaps_unlock(void)
{
	hp_spin_unlock(&lock);
}

void hp_nextmaps_postfork_child(void)
{
	hp_spin_reset(&lock);
}
