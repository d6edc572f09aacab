/*
 * stale.h -- what glibc leaves in the program's memory, kept out of the
 * leak scan.
 *
 * glibc keeps its free lists inside free memory, and what it wrote there
 * stays when the memory is handed out again: a new block, or the part a
 * realloc adds, holds old links to chunk headers, which are inside other
 * blocks.  The leak scan would take them for the program's pointers, and
 * a leaked block that one of them lands in would count as reachable.  And
 * a freed small block in a thread cache (tcache) or a fastbin keeps the
 * next chunk's PREV_INUSE bit set: a heap walk cannot tell it from a chunk
 * in use, and its stale contents would be roots.  So, over glibc, when the
 * leak scan is configured (prof_leak with leak_check:reachable):
 *
 *  - each recorded block is scrubbed as glibc hands it out (memory the
 *    program has not written): zeroed whole up to a page, and above that
 *    only where it holds something, so that untouched pages stay
 *    untouched; a block glibc mapped for itself is fresh and left alone;
 *  - each recorded block that is freed gets a stamp in its third word
 *    (user + 16, which neither the tcache nor a fastbin writes, and which
 *    every glibc chunk has: its usable size is at least 24) just before it
 *    goes back to glibc: its address mixed with a per-process secret.  A
 *    chunk glibc hands out again is recorded (and scrubbed) again, so an
 *    unrecorded chunk with its stamp is free.  So is one that holds the
 *    key glibc (2.34 and later) writes into each block in a tcache: the
 *    blocks glibc frees itself (what a realloc or an aligned allocation
 *    splits off) have no stamp.
 *
 * The memory scrubbed is memory whose contents are indeterminate (C11
 * 7.22.3): no correct program can tell.  Nothing is done over other
 * allocators, which keep their lists out of the blocks.
 */
#ifndef HP_STALE_H
#define HP_STALE_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "conf/conf.h"

struct hp_stale {
	int glibc;          /* the next allocator is glibc's */
	uintptr_t secret;
	uintptr_t tcache_key;   /* what glibc writes at user + 8 of a block
				 * in a tcache; 0: not known */
};

extern struct hp_stale hp_stale;

/* Decides, once the next allocator is known, whether blocks are stamped
 * and scrubbed. */
void hp_stale_init(void);

/* Whether the leak scan is configured over glibc: stamp and scrub.
 * Inline: every recorded allocation and free asks. */
HP_INLINE bool hp_stale_on(void)
{
	return HP_LOAD(&hp_stale.glibc) && HP_LOAD(&hp_conf.prof_leak) &&
	       HP_LOAD(&hp_conf.leak_check) == HP_CONF_LEAK_REACHABLE;
}

HP_INLINE uintptr_t hp_stale_mark(uintptr_t user)
{
	return user ^ hp_stale.secret;
}

/* Stamps a recorded block about to be freed (never a pointer the program
 * may have freed already). */
HP_INLINE void hp_stale_stamp(void *p)
{
	if (hp_stale_on())
		((uintptr_t *)p)[2] = hp_stale_mark((uintptr_t)p);
}

/* Whether a chunk that looks in use is free: its words at user + 8 and
 * user + 16 are glibc's tcache key (a block glibc freed itself: what a
 * realloc or an aligned allocation split off) or our stamp. */
HP_INLINE bool hp_stale_free(uintptr_t user, uintptr_t word1, uintptr_t word2)
{
	return HP_LOAD(&hp_stale.glibc) &&
	       (word2 == hp_stale_mark(user) || (hp_stale.tcache_key && word1 == hp_stale.tcache_key));
}

/* Scrubs [p + from, p + to) of a block glibc just handed out (to: the
 * requested size; from: 0, or what a realloc kept). */
void hp_stale_scrub_on(void *p, size_t from, size_t to);

/* Zeroes the n <= HP_STALE_SMALL bytes at a with a few overlapping
 * stores of constant size: no call (an exact run makes one for every
 * allocation, most of them this small). */
#define HP_STALE_SMALL 64u
HP_INLINE void hp_stale_zero_small(char *a, size_t n)
{
	static const char zero[16];

	if (n > 32) {
		__builtin_memcpy(a, zero, 16);
		__builtin_memcpy(a + 16, zero, 16);
		__builtin_memcpy(a + n - 32, zero, 16);
		__builtin_memcpy(a + n - 16, zero, 16);
	} else if (n >= 16) {
		__builtin_memcpy(a, zero, 16);
		__builtin_memcpy(a + n - 16, zero, 16);
	} else if (n >= 8) {
		__builtin_memcpy(a, zero, 8);
		__builtin_memcpy(a + n - 8, zero, 8);
	} else if (n >= 4) {
		__builtin_memcpy(a, zero, 4);
		__builtin_memcpy(a + n - 4, zero, 4);
	} else if (n) {
		a[0] = 0;
		a[n / 2] = 0;
		a[n - 1] = 0;
	}
}

HP_INLINE void hp_stale_scrub(void *p, size_t from, size_t to)
{
	if (!hp_stale_on())
		return;
	/* A small block glibc did not map for itself (its header's bit 1),
	 * whole: as hp_stale_scrub_on does, inline. */
	if (!from && to <= HP_STALE_SMALL && p && !(((const uintptr_t *)p)[-1] & 2))
		hp_stale_zero_small(p, to);
	else
		hp_stale_scrub_on(p, from, to);
}

#pragma GCC visibility pop

#endif
