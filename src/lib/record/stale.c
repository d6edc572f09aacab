/*
 * stale.c -- what glibc leaves in the program's memory, kept out of the
 * leak scan (see stale.h).
 *
 * Owns hp_stale: whether the next allocator is glibc's, and the secret of
 * the stamp on freed blocks.
 */
#include <stdint.h>
#include <string.h>
#include <sys/auxv.h>

#include "conf/conf.h"
#include "next/next.h"
#include "record/stale.h"
#include "base/banned.h"

struct hp_stale hp_stale;

/* glibc's chunk header: the size word before the block, whose bit 1 says
 * glibc mapped the chunk for itself (fresh zero pages). */
#define CHUNK_MMAPPED 2u

/* glibc 2.34 and later write one random key into every block they put in
 * a tcache (earlier ones the thread's tcache address): read off two of
 * our own blocks, freed into this thread's tcache, where no other thread
 * can take them.  Nothing when the tcache is off (the words stay 0). */
static void learn_tcache_key(void)
{
	uintptr_t *a = (hp_next.malloc)(24), *b = (hp_next.malloc)(24);

	if (!a || !b) {
		(hp_next.free)(a);
		(hp_next.free)(b);
		return;
	}
	a[1] = b[1] = 0;
	(hp_next.free)(a);
	(hp_next.free)(b);
	uintptr_t ka = HP_LOAD(&a[1]), kb = HP_LOAD(&b[1]);
	if (ka && ka == kb)
		hp_stale.tcache_key = ka;
}

void hp_stale_init(void)
{
	const unsigned char *random = (const unsigned char *)getauxval(AT_RANDOM);
	uintptr_t secret = (uintptr_t)0x9e3779b97f4a7c15ull;

	/* The kernel's 16 random bytes (the stack protector takes the
	 * first 8): no system call. */
	if (random) {
		uintptr_t r;
		memcpy(&r, random + 16 - sizeof(r), sizeof(r));
		secret ^= r;
	}
	hp_stale.secret = secret | 1;   /* never an aligned pointer itself */
	if (hp_next_is_glibc())
		learn_tcache_key();
	HP_STORE(&hp_stale.glibc, hp_next_is_glibc());
}

bool hp_stale_on(void)
{
	return HP_LOAD(&hp_stale.glibc) && HP_LOAD(&hp_conf.prof_leak) &&
	       HP_LOAD(&hp_conf.leak_check) == HP_CONF_LEAK_REACHABLE;
}

void hp_stale_scrub(void *p, size_t from, size_t to)
{
	const size_t W = sizeof(uintptr_t);
	uintptr_t base = (uintptr_t)p;

	if (!p || from >= to || !hp_stale_on() || (((const uintptr_t *)p)[-1] & CHUNK_MMAPPED))
		return;
	/* The bytes up to the first whole word after from: a realloc kept
	 * the ones before. */
	size_t head = ((base + from + W - 1) & ~(W - 1)) - (base + from);
	if (head > to - from)
		head = to - from;
	memset((char *)p + from, 0, head);
	uintptr_t *w = (uintptr_t *)(base + from + head);
	uintptr_t *end = (uintptr_t *)((base + to) & ~(W - 1));
	for (; w < end; w++)
		if (*w)
			*w = 0;
}
