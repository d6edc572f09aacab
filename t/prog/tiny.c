/*
 * tiny.c -- small and empty blocks, kept: 20 x malloc(1) from one_byte,
 * 7 x malloc(0) from zero_bytes, 3 x malloc(24) from small, never freed
 * (held in a global array, so reachable).  Exact mode must count 30
 * objects, 92 bytes, 3 stacks, in the log and the report alike.
 * With an argument N, does it N times (N x 20 + ...), for sampled runs;
 * with a second, BYTES, also keeps one block of BYTES from sized().
 *
 * usage: tiny [N [BYTES]]
 */
#include <stdio.h>
#include <stdlib.h>

static void *volatile keep[1 << 20];
static size_t nkeep;

__attribute__((noinline)) static void one_byte(void)
{
	keep[nkeep++] = malloc(1);
}

__attribute__((noinline)) static void zero_bytes(void)
{
	keep[nkeep++] = malloc(0);
}

__attribute__((noinline)) static void small(void)
{
	keep[nkeep++] = malloc(24);
}

__attribute__((noinline)) static void sized(size_t n)
{
	keep[nkeep++] = malloc(n);
}

int main(int argc, char **argv)
{
	int times = argc > 1 ? atoi(argv[1]) : 1;

	if (argc > 2)
		sized(strtoull(argv[2], NULL, 10));

	for (int t = 0; t < times && nkeep + 30 <= sizeof(keep) / sizeof(keep[0]); t++) {
		for (int i = 0; i < 20; i++)
			one_byte();
		for (int i = 0; i < 7; i++)
			zero_bytes();
		for (int i = 0; i < 3; i++)
			small();
	}
	printf("tiny: %zu blocks\n", nkeep);
	return 0;
}
