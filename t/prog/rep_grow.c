/*
 * rep_grow.c -- a program whose leak grows with its argument, for
 * `heapprof report --base` and `heapprof trend`: grow() leaks N MiB in
 * 64 KiB blocks, steady() always leaks 10 blocks of 4096 bytes, churn()
 * allocates 100 blocks of 1000 bytes and frees them all.
 *
 * usage: rep_grow N
 */
#include <stdlib.h>

static void *volatile sink;

__attribute__((noinline)) static void grow(int n)
{
	for (int i = 0; i < n * 16; i++)
		sink = malloc(65536);
}

__attribute__((noinline)) static void steady(void)
{
	for (int i = 0; i < 10; i++)
		sink = malloc(4096);
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 100; i++) {
		void *p = malloc(1000);
		sink = p;
		free(p);
	}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;

	grow(n);
	steady();
	churn();
	sink = NULL;
	return 0;
}
