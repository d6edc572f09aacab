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

/* Up to this size a block is zeroed whole: glibc's next chunk header,
 * right after it, has touched its last page already.  Above it, only the
 * 64-byte lines that hold something are written, so that the pages of a
 * large block the program never touches stay untouched. */
#define SCRUB_WHOLE 4096u
#define SCRUB_LINE  64u

void hp_stale_scrub_on(void *p, size_t from, size_t to)
{
	char *a = (char *)p + from, *end = (char *)p + to;

	if (!p || from >= to || (((const uintptr_t *)p)[-1] & CHUNK_MMAPPED))
		return;
	if (to - from <= SCRUB_WHOLE) {
		memset(a, 0, to - from);
		return;
	}
	char *line = (char *)(((uintptr_t)a + SCRUB_LINE - 1) & ~(uintptr_t)(SCRUB_LINE - 1));
	memset(a, 0, (size_t)(line - a));
	for (; line + SCRUB_LINE <= end; line += SCRUB_LINE) {
		const uintptr_t *w = (const uintptr_t *)line;
		uintptr_t any = 0;
		for (unsigned k = 0; k < SCRUB_LINE / sizeof(*w); k++)
			any |= w[k];
		if (any)
			memset(line, 0, SCRUB_LINE);
	}
	memset(line, 0, (size_t)(end - line));
}
