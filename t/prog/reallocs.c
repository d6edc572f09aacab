/*
 * reallocs.c -- realloc on every path, for the sampled estimates
 * (t/0085-realloc-unbiased.t).  Each site is a function of its own, so
 * that jeprof tells them apart; every block stays live to the end, where
 * the final dump is written.  The truth, per site:
 *
 *   re_same    N blocks of 48 B (malloc'd in mk_same) realloc'ed to 48 B
 *   re_half    N blocks of 96 B (mk_half) realloc'ed to 48 B
 *   re_double  N/64 arrays grown by realloc doubling, 16 B to 4096 B
 *   re_null    N realloc(NULL, 64)
 *   re_big     N/64 blocks of 4096 B (mk_big) realloc'ed to 8192 B
 *
 * usage: reallocs [N]   (default 200000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void **keep;
static size_t nkeep;

static void hold(void *p)
{
	if (!p)
		abort();
	keep[nkeep++] = p;
}

__attribute__((noinline)) static void *mk_same(void) { return malloc(48); }
__attribute__((noinline)) static void *re_same(void *p) { return realloc(p, 48); }
__attribute__((noinline)) static void *mk_half(void) { return malloc(96); }
__attribute__((noinline)) static void *re_half(void *p) { return realloc(p, 48); }
__attribute__((noinline)) static void *re_double(void *p, size_t n) { return realloc(p, n); }
__attribute__((noinline)) static void *re_null(void) { return realloc(NULL, 64); }
__attribute__((noinline)) static void *mk_big(void) { return malloc(4096); }
__attribute__((noinline)) static void *re_big(void *p) { return realloc(p, 8192); }

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;

	keep = calloc(5 * n, sizeof(*keep));
	if (!keep)
		return 1;
	for (size_t i = 0; i < n; i++)
		hold(re_same(mk_same()));
	for (size_t i = 0; i < n; i++)
		hold(re_half(mk_half()));
	for (size_t i = 0; i < n / 64; i++) {
		void *a = NULL;
		for (size_t sz = 16; sz <= 4096; sz *= 2)
			a = re_double(a, sz);
		hold(a);
	}
	for (size_t i = 0; i < n; i++)
		hold(re_null());
	for (size_t i = 0; i < n / 64; i++)
		hold(re_big(mk_big()));
	printf("held %zu\n", nkeep);
	return 0;
}
