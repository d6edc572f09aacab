/*
 * next-next.c -- unit tests of next/next: the bootstrap pool that serves
 * dlsym's allocations while the chain is resolved.
 */
#include <stdint.h>
#include <string.h>

#include "next/filter.h"
#include "next/next.h"

#include "tap.h"

int main(void)
{
	char *a = hp_next_pool_alloc(100, 16);
	char *b = hp_next_pool_alloc(10, 4096);

	ok(a && b && hp_next_pool_owns(a) && hp_next_pool_owns(b) && !hp_next_pool_owns(&a),
	   "pool: blocks are recognised by address");
	ok(((uintptr_t)a % 16) == 0 && ((uintptr_t)b % 4096) == 0, "pool: alignment honoured");
	ok(hp_next_pool_size(a) == 100 && hp_next_pool_size(b) == 10, "pool: sizes remembered");
	ok(hp_filter_maybe(a) && hp_filter_maybe(b), "pool: its pages send free() to the slow path");
	memset(a, 7, 100);
	char *c = hp_next_pool_realloc(a, 200);
	ok(c && !hp_next_pool_owns(c) && c[99] == 7, "pool: realloc moves the block out, with its data");
	hp_next.free(c);   /* the next allocator's block */
	ok(hp_next_pool_alloc((size_t)1 << 30, 16) == NULL, "pool: an oversized request fails cleanly");
	return done_testing();
}
