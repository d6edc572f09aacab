/*
 * frames.c -- call stacks that are hard to walk without frame pointers.
 *
 * Built with -O2 -fomit-frame-pointer (see GNUmakefile), so every frame
 * must be unwound from DWARF call frame information: deep non-tail
 * recursion, frames sized at run time (alloca: the CFA is kept in a
 * register, not at a fixed offset from the stack pointer), allocation from
 * a comparator called back by libc's qsort (frames of code we did not
 * build), functions whose prologue is shrink-wrapped into one branch, and
 * the same from a second thread.  Every block is freed; prints the sum of
 * what it computed so the work is not optimised away.
 */
#include <alloca.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void *volatile sink;

__attribute__((noinline)) static long recurse(int depth, size_t size)
{
	if (depth == 0) {
		char *p = malloc(size);
		memset(p, depth, size);
		sink = p;   /* or GCC drops the malloc/free pair */
		long r = p[0] + (long)size;
		free(p);
		return r;
	}
	long r = recurse(depth - 1, size + 1);
	__asm__ volatile("" : "+r"(r));   /* work after the call: no loop */
	return r + depth;
}

__attribute__((noinline)) static long dynamic_frame(size_t n)
{
	char *scratch = alloca(n);
	memset(scratch, 1, n);
	void *p = malloc(n * 3);
	sink = p;
	long r = scratch[n - 1] + (long)n;
	free(p);
	return r;
}

static long compared;

static int compare(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	if ((x & 255) == 0) {
		void *p = malloc(96);
		sink = p;
		free(p);
		compared++;
	}
	return (x > y) - (x < y);
}

__attribute__((noinline)) static long sort_with_callbacks(int n)
{
	int *v = malloc(sizeof(*v) * (size_t)n);
	for (int i = 0; i < n; i++)
		v[i] = (i * 7919) % n;
	qsort(v, (size_t)n, sizeof(*v), compare);
	long r = v[n / 2];
	free(v);
	return r;
}

/* The allocation sits on one path only: GCC wraps the prologue around it. */
__attribute__((noinline)) static long shrink_wrapped(int i, long acc)
{
	if (__builtin_expect(i % 16 != 0, 1))
		return acc + i;
	char *p = malloc((size_t)i + 24);
	sink = p;
	p[0] = (char)i;
	acc += p[0];
	free(p);
	return acc;
}

static long work(int rounds)
{
	long sum = 0;
	for (int i = 0; i < rounds; i++) {
		sum += recurse(10 + i % 40, 64);
		sum += dynamic_frame(32 + (size_t)(i % 200) * 8);
		sum = shrink_wrapped(i, sum);
	}
	sum += sort_with_callbacks(20000);
	return sum;
}

static void *thread_main(void *arg)
{
	*(long *)arg = work(2000);
	return NULL;
}

int main(void)
{
	pthread_t t;
	long theirs = 0;

	pthread_create(&t, NULL, thread_main, &theirs);
	long ours = work(2000);
	pthread_join(t, NULL);
	printf("%ld %ld\n", ours + theirs, compared);
	return 0;
}
