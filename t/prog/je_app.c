/*
 * je_app.c -- a program written for jemalloc (linked with -ljemalloc)
 * that asks jemalloc's mallctl for a profile dump and for a statistic.
 * Under heapprof the dump is heapprof's and the statistic still comes
 * from jemalloc.
 */
#include <jemalloc/jemalloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static void *volatile sink;

__attribute__((noinline)) static void leak(size_t n)
{
	sink = malloc(n);
}

int main(void)
{
	leak(123456);
	int r = mallctl("prof.dump", NULL, NULL, NULL, 0);
	printf("prof.dump %d\n", r);
	uint64_t epoch = 1;
	size_t len = sizeof(epoch);
	mallctl("epoch", &epoch, &len, &epoch, len);
	size_t allocated = 0;
	len = sizeof(allocated);
	r = mallctl("stats.allocated", &allocated, &len, NULL, 0);
	printf("stats.allocated %d %s\n", r, allocated >= 123456 ? "plausible" : "implausible");
	return 0;
}
