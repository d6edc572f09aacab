/*
 * stat.c -- known allocation volumes for the default-rate estimates.
 *
 *   site_small   16,777,216 x 64 B, each freed at once      (1 GiB)
 *   site_big         16,384 x 64 KiB, each freed at once    (1 GiB)
 *   site_mixed    8,388,608 x 32 B and 768 x 1 MiB, freed,
 *                 all through one call site (one stack)     (1 GiB)
 *   site_live         4,096 x 64 KiB, kept until exit       (256 MiB)
 *
 * t/0080-statistics.t compares heapprof's estimates with these truths.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

__attribute__((noinline)) static void *site_small(void) { return malloc(64); }
__attribute__((noinline)) static void *site_big(void) { return malloc(65536); }
__attribute__((noinline)) static void *site_mixed(size_t n) { return malloc(n); }
__attribute__((noinline)) static void *site_live(void) { return malloc(65536); }

int main(void)
{
	for (long i = 0; i < 16777216; i++)
		free(site_small());
	for (long i = 0; i < 16384; i++)
		free(site_big());
	for (long i = 0; i < 8388608; i++) {
		free(site_mixed(32));
		if (i % 10923 == 0)
			free(site_mixed(1 << 20));
	}
	for (long i = 0; i < 4096; i++) {
		void *p = site_live();
		memset(p, 0, 64);
		sink = p;
	}
	printf("stat: done\n");
	return 0;
}
