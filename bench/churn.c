/*
 * churn.c -- the allocation-churn workload: T threads, each N iterations
 * over a ring of 1000 live blocks, replacing one block per iteration with
 * a fresh one of a random size in 8..4096 bytes.
 *
 * usage: churn [threads] [iterations per thread]   (defaults 2 and 5000000)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define RING 1000

static long iterations = 5000000;

static uint64_t next_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void *worker(void *arg)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL * ((uintptr_t)arg + 1);
	char *ring[RING] = { 0 };
	uint64_t sum = 0;

	for (long i = 0; i < iterations; i++) {
		unsigned slot = (unsigned)(next_rand(&seed) % RING);
		size_t size = 8 + next_rand(&seed) % (4096 - 8 + 1);
		free(ring[slot]);
		ring[slot] = malloc(size);
		ring[slot][0] = (char)i;
		sum += (unsigned char)ring[slot][0];
	}
	for (int k = 0; k < RING; k++)
		free(ring[k]);
	return (void *)(uintptr_t)sum;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	pthread_t th[256];

	if (argc > 2)
		iterations = atol(argv[2]);
	if (threads < 1 || threads > 256)
		threads = 2;
	for (int i = 0; i < threads; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	for (int i = 0; i < threads; i++)
		pthread_join(th[i], NULL);
	return 0;
}
