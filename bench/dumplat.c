/*
 * dumplat.c -- how long a dump takes with N live stacks, and how long an
 * allocating thread stalls while dumps run.  Asks for dumps through
 * mallctl("prof.dump"), which heapprof and jemalloc both export, so the
 * same binary measures both.
 *
 * usage: dumplat latency N DUMPS DIR
 *            Leaves N blocks live, each from its own call stack about 35
 *            frames deep, then times DUMPS dumps into DIR (each file is
 *            removed).  Prints: N <median ms> <max ms> <bytes per dump>
 *        dumplat stall N SECONDS signal|idle
 *            The same N stacks; then one thread mallocs and frees in a
 *            loop, timing each pair, while the main thread sends itself
 *            SIGUSR1 every 20 ms (signal: heapprof's helper thread writes
 *            a dump each time, as for an operator's kill -USR1; give it a
 *            prof_prefix and dump_keep) or only sleeps (idle: the
 *            machine's own stalls, to compare).  A dump reads counters
 *            without taking any lock that malloc takes.
 *            Prints: <pairs> <max us> <pairs over 1 ms> <99.99th percentile us>
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

typedef int (*mallctl_fn)(const char *, void *, size_t *, void *, size_t);
static mallctl_fn mallctl_p;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- N distinct stacks ---------------------------------------------- */

#define LEVELS_MIN 16

static void descend(unsigned long id, int level, int levels, void **slot);

/* Two paths per level: the bits of id choose, so each id has its own
 * stack.  The asm after each call keeps it from being a tail call. */
__attribute__((noinline)) static void left(unsigned long id, int level, int levels, void **slot)
{
	descend(id, level + 1, levels, slot);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) static void right(unsigned long id, int level, int levels, void **slot)
{
	descend(id, level + 1, levels, slot);
	__asm__ volatile("nop" ::: "memory");
}

__attribute__((noinline)) static void descend(unsigned long id, int level, int levels, void **slot)
{
	if (level == levels) {
		*slot = malloc(64 + id % 64);
		return;
	}
	if ((id >> level) & 1)
		left(id, level, levels, slot);
	else
		right(id, level, levels, slot);
	__asm__ volatile("" ::: "memory");
}

static void **make_stacks(unsigned long n)
{
	int levels = LEVELS_MIN;
	while ((1UL << levels) < n)
		levels++;
	void **blocks = calloc(n, sizeof(*blocks));
	for (unsigned long i = 0; i < n; i++)
		descend(i, 0, levels, &blocks[i]);
	return blocks;
}

static int dump_to(const char *path)
{
	return mallctl_p("prof.dump", NULL, NULL, (void *)&path, sizeof(path));
}

/* ---- latency ---------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int latency(unsigned long n, int dumps, const char *dir)
{
	make_stacks(n);
	double *ms = calloc((size_t)dumps, sizeof(*ms));
	long long bytes = 0;
	char path[4096];
	for (int i = 0; i < dumps; i++) {
		snprintf(path, sizeof(path), "%s/dumplat.%d.%d.heap", dir, (int)getpid(), i);
		double t0 = now();
		if (dump_to(path) != 0) {
			fprintf(stderr, "dumplat: prof.dump failed\n");
			return 1;
		}
		ms[i] = (now() - t0) * 1e3;
		struct stat st;
		if (stat(path, &st) == 0)
			bytes = st.st_size;
		unlink(path);
	}
	qsort(ms, (size_t)dumps, sizeof(*ms), cmp_double);
	printf("%lu %.3f %.3f %lld\n", n, ms[dumps / 2], ms[dumps - 1], bytes);
	return 0;
}

/* ---- stall ------------------------------------------------------------ */

#define BUCKETS 100001   /* microseconds; the last is 100 ms or more */
static volatile int stop;
static unsigned long long hist[BUCKETS], pairs;
static double worst;

static void *allocator(void *arg)
{
	(void)arg;
	uint64_t x = 88172645463325252ULL;
	void *ring[256] = { 0 };
	while (!stop) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		unsigned slot = (unsigned)(x % 256);
		double t0 = now();
		free(ring[slot]);
		ring[slot] = malloc(8 + x % 4096);
		double d = now() - t0;
		unsigned long long us = (unsigned long long)(d * 1e6);
		hist[us < BUCKETS ? us : BUCKETS - 1]++;
		pairs++;
		if (d > worst)
			worst = d;
	}
	for (int i = 0; i < 256; i++)
		free(ring[i]);
	return NULL;
}

static int stall(unsigned long n, double seconds, int signalling)
{
	make_stacks(n);
	pthread_t t;
	pthread_create(&t, NULL, allocator, NULL);
	double end = now() + seconds;
	while (now() < end) {
		if (signalling)
			kill(getpid(), SIGUSR1);
		usleep(20000);
	}
	stop = 1;
	pthread_join(t, NULL);
	unsigned long long over = 0, seen = 0, p9999 = 0;
	for (int b = 1000; b < BUCKETS; b++)
		over += hist[b];
	for (int b = 0; b < BUCKETS; b++) {
		seen += hist[b];
		if (seen >= pairs - pairs / 10000) {
			p9999 = (unsigned long long)b + 1;   /* upper edge */
			break;
		}
	}
	printf("%llu %.1f %llu %llu\n", pairs, worst * 1e6, over, p9999);
	return 0;
}

int main(int argc, char **argv)
{
	mallctl_p = (mallctl_fn)dlsym(RTLD_DEFAULT, "mallctl");
	if (!mallctl_p) {
		fprintf(stderr, "dumplat: no mallctl: run under heapprof or jemalloc's profiler\n");
		return 2;
	}
	if (argc == 5 && !strcmp(argv[1], "latency"))
		return latency(strtoul(argv[2], NULL, 10), atoi(argv[3]), argv[4]);
	if (argc == 5 && !strcmp(argv[1], "stall"))
		return stall(strtoul(argv[2], NULL, 10), atof(argv[3]), !strcmp(argv[4], "signal"));
	fprintf(stderr, "usage: dumplat latency N DUMPS DIR | dumplat stall N SECONDS signal|idle\n");
	return 2;
}
