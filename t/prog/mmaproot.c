/*
 * mmaproot.c -- the only pointer to a block kept in memory the program
 * mapped itself: a root, over any allocator.  A 1111-byte block is held
 * from a private anonymous mapping (partly unmapped, then grown with
 * mremap), a 3333-byte block from a second mapping made with mmap64; a
 * 2222-byte block is leaked.  valgrind: 2222 bytes in 1 block definitely
 * lost, nothing else.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

static void *volatile sink;

__attribute__((noinline)) static void leak_one(void)
{
	sink = malloc(2222);
	sink = NULL;
}

int main(void)
{
	size_t pg = 4096;
	char *a = mmap(NULL, 4 * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	char *b = mmap64(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (a == MAP_FAILED || b == MAP_FAILED)
		return 2;
	munmap(a + 2 * pg, 2 * pg);
	a = mremap(a, 2 * pg, 8 * pg, MREMAP_MAYMOVE);
	if (a == MAP_FAILED)
		return 3;
	((void **)(a + 5 * pg))[0] = malloc(1111);
	((void **)b)[7] = malloc(3333);
	leak_one();
	printf("mmaproot: done\n");
	return 0;
}
