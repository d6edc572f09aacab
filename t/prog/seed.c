/*
 * seed.c -- the seed example: 80 x malloc(i*1024) from do_something and
 * 40 x malloc(i*4096) from do_something_else, never freed.  Exact mode
 * must report 6430720 bytes, 120 objects, 2 contexts.
 */
#include <stdio.h>
#include <stdlib.h>

/* Written through a volatile sink so the compiler keeps the calls; the
 * blocks are then unreachable: leaked. */
static void *volatile sink;

__attribute__((noinline)) static void do_something(int i)
{
	sink = malloc((size_t)i * 1024);
}

__attribute__((noinline)) static void do_something_else(int i)
{
	sink = malloc((size_t)i * 4096);
}

int main(void)
{
	for (int i = 0; i < 80; i++)
		do_something(i);
	for (int i = 0; i < 40; i++)
		do_something_else(i);
	printf("seed: allocated\n");
	return 0;
}
