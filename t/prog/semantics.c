/*
 * semantics.c -- exercises every interposed function and prints what a
 * caller can observe: results, errno, alignment, usable sizes, contents.
 * t/0020-semantics.t runs it with and without heapprof (and over jemalloc)
 * and requires identical output.  No pointer values are printed.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#pragma GCC diagnostic ignored "-Walloc-size-larger-than="
#pragma GCC diagnostic ignored "-Wuse-after-free"

static int skip_pvalloc;

static int aligned(void *p, size_t a)
{
	return ((uintptr_t)p % a) == 0;
}

/* Plain blocks: the exact usable size is the allocator's and does not
 * depend on heap layout. */
static void check(const char *what, void *p, size_t align)
{
	printf("%-34s %s errno=%d aligned=%d usable=%zu\n", what, p ? "ptr" : "NULL",
	       p ? 0 : errno, p ? aligned(p, align) : -1, p ? malloc_usable_size(p) : 0);
}

/* Aligned blocks: glibc's usable size depends on where the block landed,
 * so only its lower bound is a property of the call. */
static void check_aligned(const char *what, void *p, size_t align, size_t n)
{
	printf("%-34s %s errno=%d aligned=%d usable>=n=%d\n", what, p ? "ptr" : "NULL",
	       p ? 0 : errno, p ? aligned(p, align) : -1, p ? malloc_usable_size(p) >= n : -1);
}

static int filled(const unsigned char *p, size_t n, int c)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != c)
			return 0;
	return 1;
}

/* One round of every call; run several times so that exact mode and the
 * default rate both see sampled and unsampled blocks. */
static void round_of_calls(void)
{
	void *p, *q;
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	p = malloc(0);
	check("malloc(0)", p, 16);
	free(p);
	errno = 0;
	check("malloc(SIZE_MAX)", malloc(SIZE_MAX), 1);
	errno = 0;
	check("malloc(PTRDIFF_MAX+1)", malloc((size_t)PTRDIFF_MAX + 1), 1);
	p = malloc(100);
	check("malloc(100)", p, 16);
	free(p);
	p = malloc(10 << 20);
	check("malloc(10M)", p, 16);
	free(p);

	/* errno survives successful calls and free */
	errno = 4321;
	p = malloc(24);
	free(p);
	printf("errno kept across malloc+free: %d\n", errno == 4321);

	/* calloc: zeroed memory, overflow */
	p = malloc(4000);
	memset(p, 0xab, 4000);
	free(p);
	p = calloc(1000, 4);
	printf("calloc zeroed: %d\n", p && filled(p, 4000, 0));
	check("calloc(1000,4)", p, 16);
	free(p);
	errno = 0;
	check("calloc overflow", calloc(SIZE_MAX / 2 + 1, 4), 1);
	check("calloc(0,0)", (q = calloc(0, 0)), 16);
	free(q);

	/* realloc edges */
	p = realloc(NULL, 100);
	check("realloc(NULL,100)", p, 16);
	memset(p, 7, 100);
	p = realloc(p, 10000);
	printf("realloc grow keeps data: %d\n", p && filled(p, 100, 7));
	p = realloc(p, 50);
	printf("realloc shrink keeps data: %d\n", p && filled(p, 50, 7));
	errno = 0;
	q = realloc(p, SIZE_MAX);
	printf("realloc(p,SIZE_MAX): %s errno=%d old intact=%d\n", q ? "ptr" : "NULL",
	       errno, filled(p, 50, 7));
	q = realloc(p, 0);
	printf("realloc(p,0): %s\n", q ? "ptr" : "NULL");
	free(q);

	/* reallocarray */
	errno = 0;
	check("reallocarray overflow", reallocarray(NULL, SIZE_MAX / 2, 3), 1);
	p = reallocarray(NULL, 10, 10);
	check("reallocarray(NULL,10,10)", p, 16);
	p = reallocarray(p, 100, 10);
	check("reallocarray(p,100,10)", p, 16);
	free(p);

	/* posix_memalign */
	struct { size_t align, n; } pm[] = {
		{ 3, 16 }, { 0, 16 }, { 4, 16 }, { 8, 16 }, { 64, 100 }, { 4096, 100 },
		{ 1 << 20, 100 }, { 64, SIZE_MAX }, { 64, 0 },
	};
	for (size_t i = 0; i < sizeof(pm) / sizeof(pm[0]); i++) {
		p = (void *)0x1;
		errno = 1234;
		int r = posix_memalign(&p, pm[i].align, pm[i].n);
		printf("posix_memalign(%zu,%zu) = %d untouched=%d errno=%d", pm[i].align,
		       pm[i].n, r, p == (void *)0x1, errno);
		if (r == 0) {
			printf(" aligned=%d usable>=n=%d", aligned(p, pm[i].align),
			       malloc_usable_size(p) >= pm[i].n);
			free(p);
		}
		printf("\n");
	}

	/* aligned_alloc, memalign, valloc, pvalloc */
	size_t aligns[] = { 1, 3, 8, 16, 48, 64, 4096, 1 << 16 };
	for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
		char what[64];
		/* glibc rounds an alignment that is not a power of two up to
		 * the next one (3 -> 4, 48 -> 64). */
		size_t a = aligns[i], eff = 1;
		while (eff < a)
			eff <<= 1;
		errno = 0;
		snprintf(what, sizeof(what), "aligned_alloc(%zu,256)", a);
		p = aligned_alloc(a, 256);
		check_aligned(what, p, eff ? eff : 1, 256);
		free(p);
		errno = 0;
		snprintf(what, sizeof(what), "memalign(%zu,256)", a);
		p = memalign(a, 256);
		check_aligned(what, p, eff ? eff : 1, 256);
		free(p);
	}
	errno = 0;
	check_aligned("memalign(64,SIZE_MAX)", memalign(64, SIZE_MAX), 1, 0);
	p = valloc(100);
	check_aligned("valloc(100)", p, pg, 100);
	free(p);
	if (!skip_pvalloc) {
		p = pvalloc(100);
		check_aligned("pvalloc(100)", p, pg, pg);
		free(p);
		p = pvalloc(0);
		check_aligned("pvalloc(0)", p, pg, 0);
		free(p);
		errno = 0;
		check_aligned("pvalloc(SIZE_MAX)", pvalloc(SIZE_MAX), 1, 0);
	}

	printf("malloc_usable_size(NULL) = %zu\n", malloc_usable_size(NULL));
	free(NULL);
	printf("free(NULL) returned\n");
}

int main(int argc, char **argv)
{
	/* jemalloc exports no pvalloc: alone, glibc's pvalloc would hand it a
	 * block it cannot free.  Its baseline run skips pvalloc. */
	skip_pvalloc = argc > 1 && !strcmp(argv[1], "--no-pvalloc");
	for (int i = 0; i < 3; i++) {
		printf("--- round %d\n", i);
		round_of_calls();
	}
	return 0;
}
