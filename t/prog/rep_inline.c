/*
 * rep_inline.c -- inlined frames for the symbolizer: leaf_alloc() is
 * inlined into middle(), itself inlined into outer(), which alone is a
 * real function.  outer() leaks 20 blocks of 1000 bytes through that
 * chain; plain() leaks 5 blocks of 3000 bytes without inlining.
 * always_inline works at every -O level, so the -O1 of t/prog is enough.
 */
#include <stdlib.h>

static void *volatile sink;

static inline __attribute__((always_inline)) void *leaf_alloc(size_t n)
{
	return malloc(n);
}

static inline __attribute__((always_inline)) void *middle(size_t n)
{
	void *p = leaf_alloc(n);
	sink = p;
	return p;
}

__attribute__((noinline)) static void outer(void)
{
	for (int i = 0; i < 20; i++)
		sink = middle(1000);
}

__attribute__((noinline)) static void plain(void)
{
	for (int i = 0; i < 5; i++)
		sink = malloc(3000);
}

int main(void)
{
	outer();
	plain();
	return 0;
}
