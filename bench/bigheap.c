/*
 * bigheap.c -- a heap of argv[1] MiB in blocks of argv[2] bytes for the
 * leak scan's benchmarks (bench/leakscan.sh, bench/gate.sh): every block
 * points to the next, the first is held by a global, and argv[3] blocks
 * (by default one in a hundred), spread evenly, are left out of the
 * chain: lost, direct leaks.  With "shuffle" as argv[4], the chain runs
 * through the blocks in a random order, not the order of their addresses,
 * as a heap's pointers do: whoever follows it misses the cache at every
 * block.  With BIGHEAP_WAIT=FILE in the environment it then waits (polling
 * every 10 ms) until FILE exists, for a leak check of the running process
 * (bench/leakslive.sh).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct node {
	struct node *next;
};

static struct node *volatile head;

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
	size_t size = argc > 2 ? strtoul(argv[2], NULL, 10) : 4096;
	size_t n = (mib << 20) / size, lost = 0;
	size_t want = argc > 3 ? strtoul(argv[3], NULL, 10) : n / 100;
	size_t every = want ? n / want : 0;
	struct node *prev = NULL, **all = NULL;

	if (size < sizeof(struct node))
		size = sizeof(struct node);
	if (argc > 4 && !strcmp(argv[4], "shuffle")) {
		uint64_t r = 88172645463325252ULL;
		if (!(all = malloc(n * sizeof(*all))))
			return 1;
		for (size_t i = 0; i < n; i++)
			if (!(all[i] = malloc(size)))
				return 1;
		for (size_t i = n - 1; i > 0; i--) {   /* Fisher-Yates, xorshift */
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			size_t j = r % (i + 1);
			struct node *t = all[i];
			all[i] = all[j];
			all[j] = t;
		}
	}
	for (size_t i = 0; i < n; i++) {
		struct node *b = all ? all[i] : malloc(size);
		if (!b)
			return 1;
		memset(b, 0, size);
		if (every && i % every == every - 1 && lost < want) {   /* lost: not linked */
			lost++;
			continue;
		}
		if (prev)
			prev->next = b;
		else
			head = b;
		prev = b;
	}
	free(all);
	printf("bigheap: %zu blocks of %zu bytes, %zu lost\n", n, size, lost);
	fflush(stdout);
	const char *wait = getenv("BIGHEAP_WAIT");
	while (wait && access(wait, F_OK) != 0) {
		struct timespec ts = { 0, 10000000 };
		nanosleep(&ts, NULL);
	}
	return 0;
}
