/*
 * peaktmp.c -- a program whose peak and temporary allocations are known
 * exactly, for the peak and temporary tests.  No stdio before the end, so
 * that nothing else is live but what the C runtime keeps.
 *
 * usage: peaktmp basic N KB
 *   f() allocates 3 blocks of KB KiB and frees them in order: the peak is
 *   f's 3 x KB KiB, and none of them is temporary (the last one's free
 *   comes after the others' frees);
 *   g() allocates one block of KB KiB, live until the end;
 *   h() allocates and frees 100 bytes N times: N temporary allocations;
 *   k() allocates two blocks of 64 bytes and frees the first, then the
 *   second, N times: 2N allocations, none temporary;
 *   r() grows a block by realloc 10 times, then frees it: 11 allocations,
 *   all temporary (each realloc frees the block just allocated).
 *
 * usage: peaktmp water KB
 *   for the high-water dumps: up() keeps 3 blocks of KB KiB; 200 ms later
 *   up2() keeps 3 more and frees 4 of the 6 at once; sleeps 1.5 s (so
 *   that a rate-limited high-water dump is written after the fall), frees
 *   the rest.  The peak is 6 x KB KiB: 3 in up(), 3 in up2().
 *
 * usage: peaktmp handoff KB
 *   a thread's f() allocates 3 blocks of KB KiB and frees them, then the
 *   thread waits, allocating nothing more, while the main thread's
 *   up4() allocates 4 blocks of KB KiB and frees them; then the thread
 *   ends.  The peak is up4()'s 4 x KB KiB, f()'s frees made before it
 *   (the library keeps a thread's frees in its allowance, which the
 *   shared counter still counts: the peak must not count f()'s blocks
 *   as still live).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <time.h>

static void *volatile sink;

static void *touch(size_t n)
{
	char *p = malloc(n);

	if (!p)
		abort();
	memset(p, 1, n);
	return p;
}

__attribute__((noinline)) static void f(size_t bytes)
{
	void *a[3];

	for (int i = 0; i < 3; i++)
		a[i] = touch(bytes);
	for (int i = 0; i < 3; i++)
		free(a[i]);
}

__attribute__((noinline)) static void *g(size_t bytes)
{
	return touch(bytes);
}

__attribute__((noinline)) static void h(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = malloc(100);
		sink = p;
		free(p);
	}
}

__attribute__((noinline)) static void k(long n)
{
	for (long i = 0; i < n; i++) {
		char *p = malloc(64);
		sink = p;
		char *q = malloc(64);
		sink = q;
		free(p);
		free(q);
	}
}

__attribute__((noinline)) static void r(void)
{
	char *p = malloc(16);

	for (int i = 0; i < 10; i++)
		p = realloc(p, 32u << i);
	sink = p;
	free(p);
}

static void nap(long ms)
{
	struct timespec ts = { ms / 1000, ms % 1000 * 1000000 };

	nanosleep(&ts, NULL);
}

__attribute__((noinline)) static void up(void **a, size_t bytes)
{
	for (int i = 0; i < 3; i++)
		a[i] = touch(bytes);
}

__attribute__((noinline)) static void up2(void **a, size_t bytes)
{
	for (int i = 3; i < 6; i++)
		a[i] = touch(bytes);
}

__attribute__((noinline)) static void up4(size_t bytes)
{
	void *a[4];

	for (int i = 0; i < 4; i++)
		a[i] = touch(bytes);
	for (int i = 0; i < 4; i++)
		free(a[i]);
}

static int to_main[2], to_thread[2];
static size_t handoff_bytes;

static void *handoff_thread(void *arg)
{
	char c = 0;

	f(handoff_bytes);
	if (write(to_main[1], &c, 1) != 1 || read(to_thread[0], &c, 1) != 1)
		abort();
	return arg;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "handoff")) {
		pthread_t th;
		char c = 0;
		handoff_bytes = (size_t)atol(argv[2]) << 10;
		if (pipe(to_main) || pipe(to_thread) ||
		    pthread_create(&th, NULL, handoff_thread, NULL))
			abort();
		if (read(to_main[0], &c, 1) != 1)
			abort();
		up4(handoff_bytes);
		if (write(to_thread[1], &c, 1) != 1 || pthread_join(th, NULL))
			abort();
		puts("done");
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "basic")) {
		long n = atol(argv[2]);
		size_t bytes = (size_t)atol(argv[3]) << 10;
		f(bytes);
		void *keep = g(bytes);
		h(n);
		k(n);
		r();
		free(keep);
		puts("done");
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "water")) {
		size_t bytes = (size_t)atol(argv[2]) << 10;
		void *a[6];
		up(a, bytes);
		nap(200);
		up2(a, bytes);
		for (int i = 2; i < 6; i++)
			free(a[i]);
		nap(1500);
		free(a[0]);
		free(a[1]);
		puts("done");
		return 0;
	}
	fputs("usage: peaktmp basic N KB | peaktmp water KB | peaktmp handoff KB\n", stderr);
	return 2;
}
