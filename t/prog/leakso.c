/*
 * leakso.c -- a leak in a shared library, for the reachability leak check
 * (t/0610-leak-corpus.t).  Linked against build/t/libleak.so (rpath
 * $ORIGIN): libleak_hold(512) keeps 512 bytes in the library's global,
 * libleak_make(3333) loses 3333 bytes.  Valgrind memcheck:
 *   definitely lost: 3333 bytes in 1 block (top frame libleak_make, libleak.so)
 *   indirectly lost:    0 bytes in 0 blocks
 *   possibly lost:      0 bytes in 0 blocks
 *   still reachable:  512 bytes in 1 block (libleak_held, a global of the library)
 * Prints "leakso: done" and exits 0.
 */
#include <stdio.h>
#include <stdlib.h>

void libleak_hold(size_t n);
void libleak_make(size_t n);

/* Overwrites 64 KiB of dead stack: nothing left there from libleak_make. */
__attribute__((noinline)) static void clobber(void)
{
	volatile char pad[64 * 1024];

	for (size_t i = 0; i < sizeof(pad); i++)
		pad[i] = 0;
}

int main(void)
{
	libleak_hold(512);
	libleak_make(3333);
	clobber();
	printf("leakso: done\n");
	return 0;
}
