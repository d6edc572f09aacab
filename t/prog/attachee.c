/*
 * attachee.c -- a multi-threaded program that churns the heap and keeps
 * some of it, started without heapprof, for heapprof attach's tests
 * (t/08*-attach*.t).
 *
 * THREADS workers run for SECONDS: each allocates and frees blocks of
 * many sizes through malloc, calloc, realloc, posix_memalign, strdup and
 * free, checking each block's bytes before freeing it, keeps one 1 KiB
 * block per round from keep_growing() (the growing stack the report must
 * name), and sleeps a millisecond per round (a safe point for ptrace).
 * At the end every kept block is checked and freed, and it prints one
 * line and exits 7: a block corrupted by an allocator mix-up exits 1.
 *
 * With STOP, the workers also end as soon as that file exists.
 *
 * usage: attachee THREADS SECONDS [STOP]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds;
static const char *stop_file;
static int bad;

struct kept {
	struct kept *next;
	unsigned char fill;
	unsigned char bytes[1008];
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void check(const unsigned char *p, size_t n, unsigned char v)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != v) {
			__atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
			return;
		}
}

__attribute__((noinline)) static struct kept *keep_growing(struct kept *list, unsigned char v)
{
	struct kept *k = malloc(sizeof(*k));

	k->next = list;
	k->fill = v;
	memset(k->bytes, v, sizeof(k->bytes));
	return k;
}

__attribute__((noinline)) static void churn(unsigned *seed)
{
	void *p[16];
	size_t n[16];

	for (int i = 0; i < 16; i++) {
		n[i] = 1 + rand_r(seed) % 4096;
		switch (i % 5) {
		case 0: p[i] = malloc(n[i]); break;
		case 1: p[i] = calloc(1, n[i]); break;
		case 2: p[i] = realloc(malloc(8), n[i]); break;
		case 3: if (posix_memalign(&p[i], 64, n[i])) p[i] = NULL; break;
		default: {
			char s[64];
			memset(s, 'x', sizeof(s) - 1);
			s[sizeof(s) - 1] = '\0';
			p[i] = strdup(s);
			n[i] = sizeof(s) - 1;
		}
		}
		if (!p[i])
			abort();
		if (i % 5 != 4)
			memset(p[i], i, n[i]);
	}
	for (int i = 0; i < 16; i++) {
		check(p[i], n[i], i % 5 == 4 ? 'x' : (unsigned char)i);
		if (i % 3 == 0)
			p[i] = realloc(p[i], n[i] * 2);
		free(p[i]);
	}
}

static void *worker(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	struct kept *list = NULL;
	double end = now() + seconds;
	struct timespec ms = { 0, 1000000 };

	for (unsigned round = 0; now() < end && !(stop_file && round % 64 == 0 && access(stop_file, F_OK) == 0);
	     round++) {
		churn(&seed);
		list = keep_growing(list, (unsigned char)round);
		nanosleep(&ms, NULL);
	}
	while (list) {
		struct kept *next = list->next;
		check(list->bytes, sizeof(list->bytes), list->fill);
		free(list);
		list = next;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[256];

	seconds = argc > 2 ? atof(argv[2]) : 5;
	stop_file = argc > 3 ? argv[3] : NULL;
	if (threads < 1 || threads > 256)
		return 2;
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(i + 1));
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("attachee: %d threads, %s\n", threads, bad ? "CORRUPTED" : "ok");
	return bad ? 1 : 7;
}
