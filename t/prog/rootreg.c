/*
 * rootreg.c -- a pool that the program keeps only as a disguised pointer:
 * a 4096-byte block holding the only pointer to a 100-byte block.  With
 * argv[1] "register" the pool is registered as a root region
 * (heapprof_register_root): the 100-byte block is then reachable and only
 * the pool leaks (4096 bytes); without, the pool leaks directly and the
 * 100-byte block indirectly (valgrind: 4,096 definitely, 100 indirectly).
 */
#include <heapprof.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile uintptr_t disguised;

__attribute__((noinline)) static void make_pool(int reg)
{
	void **pool = malloc(4096);
	memset(pool, 0, 4096);
	pool[7] = malloc(100);
	if (reg && heapprof_register_root(pool, 4096) != 0)
		puts("rootreg: register failed");
	disguised = (uintptr_t)pool ^ 0x5a5a5a5a5a5aULL;
}

int main(int argc, char **argv)
{
	make_pool(argc > 1 && !strcmp(argv[1], "register"));
	puts("rootreg: done");
	return 0;
}
