/*
 * leakysvc.c -- a service with a leak on one request path and a bounded
 * cache on another, for `heapprof trend --suspects` and `heapprof leaks`.
 *
 * It serves requests for SECONDS seconds of "minutes" of MINUTE_MS
 * milliseconds each.  Every minute:
 *   - lose_request() loses LEAK_KB KiB in records of 1..3 KiB (the leak);
 *   - cache_request() puts entries of 2..6 KiB into an LRU cache of at most
 *     CACHE_KB KiB, evicting the oldest: it fills over the first minutes,
 *     then holds steady while its entries turn over (not a leak);
 *   - scratch_request() allocates and frees temporaries.
 * Requests are spread evenly over the minute.  At the end it frees the
 * cache and prints one line counting what it did; exit status 0.
 *
 * usage: leakysvc MINUTES MINUTE_MS LEAK_KB CACHE_KB [SEED]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CACHE_MAX 65536
#define TICKS 50   /* requests of each kind per minute */

static uint64_t seed = 88172645463325252ULL;

static uint64_t next_rand(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

static void *volatile sink;
static char *cache[CACHE_MAX];
static size_t cache_size[CACHE_MAX];
static size_t cache_head, cache_len, cache_bytes;
static unsigned long lost, served;

/* Loses about kb KiB in records it forgets. */
__attribute__((noinline)) static void lose_request(size_t bytes)
{
	while (bytes > 0) {
		size_t n = 1024 + next_rand() % 2048;
		char *rec = malloc(n);
		if (!rec)
			return;
		memset(rec, 'r', n);
		sink = rec;   /* and forgets it */
		lost += n;
		bytes = bytes > n ? bytes - n : 0;
	}
}

static void cache_evict(void)
{
	size_t i = cache_head;

	cache_bytes -= cache_size[i];
	free(cache[i]);
	cache[i] = NULL;
	cache_head = (cache_head + 1) % CACHE_MAX;
	cache_len--;
}

/* Puts about bytes of entries into the LRU cache, evicting the oldest
 * beyond its capacity. */
__attribute__((noinline)) static void cache_request(size_t bytes, size_t capacity)
{
	while (bytes > 0) {
		size_t n = 2048 + next_rand() % 4096;
		char *e = malloc(n);
		if (!e)
			return;
		memset(e, 'c', n);
		while (cache_len && (cache_bytes + n > capacity || cache_len == CACHE_MAX))
			cache_evict();
		size_t slot = (cache_head + cache_len) % CACHE_MAX;
		cache[slot] = e;
		cache_size[slot] = n;
		cache_len++;
		cache_bytes += n;
		bytes = bytes > n ? bytes - n : 0;
	}
}

__attribute__((noinline)) static void scratch_request(void)
{
	for (int i = 0; i < 8; i++) {
		char *p = malloc(64 + next_rand() % 8192);
		if (p)
			p[0] = 1;
		sink = p;
		free(p);
	}
	served++;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) != 0)
		;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: leakysvc MINUTES MINUTE_MS LEAK_KB CACHE_KB [SEED]\n");
		return 2;
	}
	long minutes = atol(argv[1]), minute_ms = atol(argv[2]);
	size_t leak = strtoul(argv[3], NULL, 10) << 10, capacity = strtoul(argv[4], NULL, 10) << 10;
	if (argc > 5)
		seed ^= strtoull(argv[5], NULL, 10) * 0x9e3779b97f4a7c15ULL;
	/* The cache takes a quarter of its capacity a minute: full in four. */
	size_t cache_per_tick = capacity / 4 / TICKS;

	for (long m = 0; m < minutes; m++) {
		for (int t = 0; t < TICKS; t++) {
			lose_request(leak / TICKS);
			cache_request(cache_per_tick, capacity);
			scratch_request();
			sleep_ms(minute_ms / TICKS);
		}
	}
	while (cache_len)
		cache_evict();
	printf("served %lu requests, lost %lu bytes\n", served, lost);
	return 0;
}
