/*
 * libleak.c -- build/t/libleak.so, the shared library of leakso.c (see
 * there for the expected numbers).  libleak_hold() keeps a block in the
 * library's own global (a root: still reachable, not a leak);
 * libleak_make() allocates a block and drops the only pointer to it (a
 * direct leak whose top frame is libleak_make, in libleak.so).
 */
#include <stdlib.h>
#include <string.h>

void libleak_hold(size_t n);
void libleak_make(size_t n);

void *volatile libleak_held;
static void *volatile sink;

__attribute__((noinline)) void libleak_hold(size_t n)
{
	char *p = malloc(n);

	memset(p, 1, n);
	libleak_held = p;
}

__attribute__((noinline)) void libleak_make(size_t n)
{
	char *p = malloc(n);

	memset(p, 2, n);
	sink = p;
	sink = NULL;
}
