/*
 * bigheap.c -- a heap of argv[1] MiB in blocks of argv[2] bytes for the
 * leak scan's benchmark (bench/leakscan.sh): every block points to the
 * next, the first is held by a global, and one block in a hundred is left
 * out of the chain: lost, a direct leak.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
	struct node *next;
};

static struct node *volatile head;

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	size_t n = (mib << 20) / size, lost = 0;
	struct node *prev = NULL;

	for (size_t i = 0; i < n; i++) {
		struct node *b = malloc(size);
		if (!b)
			return 1;
		memset(b, 0, size);
		if (i % 100 == 99) {   /* lost: not linked */
			lost++;
			continue;
		}
		if (prev)
			prev->next = b;
		else
			head = b;
		prev = b;
	}
	printf("bigheap: %zu blocks of %zu bytes, %zu lost\n", n, size, lost);
	return 0;
}
