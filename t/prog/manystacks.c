/*
 * manystacks.c -- small blocks from 4096 call stacks, a few samples each.
 *
 *   manystacks [PER_STACK]
 *
 * Twelve levels of calls, through left() or right() at each (distinct
 * return addresses), lead to 4096 leaves; leaf number L allocates
 * PER_STACK blocks (default 2000) of 8, 12, 16, 24 or 32 bytes (by L
 * mod 5), frees every other one; the rest stay live until exit.  At
 * lg_prof_sample:14 each stack holds one or two samples, as most stacks
 * of a real program do (gcc's cc1): the case where a dump's rows, which
 * are integers, cannot hold the estimate exactly.  Prints the truth:
 *
 *   manystacks: allocated OBJECTS BYTES live OBJECTS BYTES
 *
 * t/0089-rows-unbiased.t compares the dump's reading with it.
 */
#include <stdio.h>
#include <stdlib.h>

#define LEVELS 12

static void *volatile sink;
static unsigned long per_stack = 2000;
static unsigned long all_n, all_bytes, live_n, live_bytes;

static void walk(int level, unsigned path, unsigned leaf);

__attribute__((noinline)) static void allocate(unsigned leaf)
{
	static const size_t sizes[] = { 8, 12, 16, 24, 32 };
	size_t n = sizes[leaf % 5];

	for (unsigned long i = 0; i < per_stack; i++) {
		void *p = malloc(n);
		if (!p)
			exit(2);
		sink = p;
		all_n++;
		all_bytes += n;
		if (i % 2 == 0) {
			live_n++;
			live_bytes += n;
		} else {
			free(p);
		}
	}
}

__attribute__((noinline)) static void left(int level, unsigned path, unsigned leaf)
{
	walk(level + 1, path >> 1, leaf);
	sink = 0;
}

__attribute__((noinline)) static void right(int level, unsigned path, unsigned leaf)
{
	walk(level + 1, path >> 1, leaf);
	sink = 0;
}

__attribute__((noinline)) static void walk(int level, unsigned path, unsigned leaf)
{
	if (level == LEVELS)
		allocate(leaf);
	else if (path & 1)
		right(level, path, leaf);
	else
		left(level, path, leaf);
}

int main(int argc, char **argv)
{
	if (argc > 1)
		per_stack = strtoul(argv[1], NULL, 10);
	for (unsigned leaf = 0; leaf < 1u << LEVELS; leaf++)
		walk(0, leaf, leaf);
	printf("manystacks: allocated %lu %lu live %lu %lu\n", all_n, all_bytes, live_n, live_bytes);
	return 0;
}
