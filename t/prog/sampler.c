/*
 * sampler.c -- allocations for the USDT probe test: prints "ready <pid>",
 * waits for a line on standard input (a tracer attaches meanwhile), then
 * allocates N blocks of 16..8191 bytes from keep() and frees every third
 * one, so that sampled blocks are allocated and freed, and exits 0 with
 * the others still held.  Nothing else is allocated (no stdio): what
 * the tracer sees is the whole heap of the final dump.
 *
 * usage: sampler N
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

__attribute__((noinline)) static void *keep(size_t n)
{
	return malloc(n);
}

#define N_MAX 1000000
static void *p[N_MAX];   /* not the heap: nothing sampled before the tracer */

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	uint64_t seed = 88172645463325252ULL;
	char line[32];

	if (n < 1 || n > N_MAX)
		return 1;
	/* write and read, not stdio: its buffers would be heap blocks. */
	int len = snprintf(line, sizeof(line), "ready %d\n", (int)getpid());
	if (write(1, line, (size_t)len) != len || read(0, line, sizeof(line)) <= 0)
		return 2;
	for (long i = 0; i < n; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = keep(16 + seed % 8176);
		if (i % 3 == 2)
			free(p[i - 1]);
	}
	return 0;
}
