/*
 * aged.c -- blocks of known ages, for the ages in dumps (prof_age).
 *
 * At start, first_alloc() keeps N1 blocks of SIZE bytes; after SLEEP1 ms
 * second_alloc() keeps N2; after SLEEP2 ms more third_alloc() keeps N3,
 * and the program exits (a final dump, with prof_final, dates them).
 * Every block stays live.  Prints one line when done; exit status 0.
 *
 * usage: aged SIZE N1 SLEEP1 N2 SLEEP2 N3
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void *volatile sink;

/* A macro, not a function: the allocating function is each stack's
 * innermost frame, inlined frames included. */
#define keep(size) do { \
		char *p_ = malloc(size); \
		if (!p_) \
			exit(1); \
		memset(p_, 'a', size); \
		sink = p_; \
	} while (0)

__attribute__((noinline)) static void first_alloc(size_t size, long n)
{
	for (long i = 0; i < n; i++)
		keep(size);
}

__attribute__((noinline)) static void second_alloc(size_t size, long n)
{
	for (long i = 0; i < n; i++)
		keep(size);
}

__attribute__((noinline)) static void third_alloc(size_t size, long n)
{
	for (long i = 0; i < n; i++)
		keep(size);
}

static void pause_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts))
		;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: aged SIZE N1 SLEEP1 N2 SLEEP2 N3\n");
		return 2;
	}
	size_t size = strtoul(argv[1], NULL, 10);
	first_alloc(size, atol(argv[2]));
	pause_ms(atol(argv[3]));
	second_alloc(size, atol(argv[4]));
	pause_ms(atol(argv[5]));
	third_alloc(size, atol(argv[6]));
	printf("aged: done\n");
	return 0;
}
