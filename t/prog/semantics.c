/*
 * semantics.c -- exercises every interposed function and prints what a
 * caller can observe: results, errno, alignment, usable sizes (as the
 * allocator itself reports them), contents.
 * t/0020-semantics.t runs it with and without heapprof (and over jemalloc)
 * and requires identical output.  No pointer values are printed.
 */
#include <dlfcn.h>
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
/* The allocator's own malloc_usable_size, reached through its handle so
 * that no interposer is in the way. */
static size_t (*allocator_usable)(void *);

static size_t usable_ok(void *p)
{
	return malloc_usable_size(p) == allocator_usable(p);
}

static int aligned(void *p, size_t a)
{
	return ((uintptr_t)p % a) == 0;
}

/* The usable size of a block depends on heap layout (a reused chunk may
 * be larger), so what is printed is whether it is at least n and whether
 * it is exactly what the allocator itself says for the same block. */
static void check_aligned(const char *what, void *p, size_t align, size_t n)
{
	printf("%-34s %s errno=%d aligned=%d usable>=n=%d usable=allocator's:%d\n", what,
	       p ? "ptr" : "NULL", p ? 0 : errno, p ? aligned(p, align) : -1,
	       p ? malloc_usable_size(p) >= n : -1, p ? (int)usable_ok(p) : -1);
}

static void check_n(const char *what, void *p, size_t n)
{
	check_aligned(what, p, 16, n);
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
	check_n("malloc(0)", p, 0);
	free(p);
	errno = 0;
	check_n("malloc(SIZE_MAX)", malloc(SIZE_MAX), 0);
	errno = 0;
	check_n("malloc(PTRDIFF_MAX+1)", malloc((size_t)PTRDIFF_MAX + 1), 0);
	p = malloc(100);
	check_n("malloc(100)", p, 100);
	free(p);
	p = malloc(10 << 20);
	check_n("malloc(10M)", p, 10 << 20);
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
	check_n("calloc(1000,4)", p, 4000);
	free(p);
	errno = 0;
	check_n("calloc overflow", calloc(SIZE_MAX / 2 + 1, 4), 0);
	check_n("calloc(0,0)", (q = calloc(0, 0)), 0);
	free(q);

	/* realloc edges */
	p = realloc(NULL, 100);
	check_n("realloc(NULL,100)", p, 100);
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
	check_n("reallocarray overflow", reallocarray(NULL, SIZE_MAX / 2, 3), 0);
	p = reallocarray(NULL, 10, 10);
	check_n("reallocarray(NULL,10,10)", p, 100);
	p = reallocarray(p, 100, 10);
	check_n("reallocarray(p,100,10)", p, 1000);
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
			printf(" aligned=%d usable>=n=%d usable=allocator's:%d", aligned(p, pm[i].align),
			       malloc_usable_size(p) >= pm[i].n, (int)usable_ok(p));
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
	const char *lib = getenv("SEMANTICS_ALLOCATOR");
	void *h = dlopen(lib ? lib : "libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	allocator_usable = h ? (size_t (*)(void *))dlsym(h, "malloc_usable_size") : NULL;
	if (!allocator_usable) {
		fprintf(stderr, "semantics: no malloc_usable_size in %s\n", lib ? lib : "libc.so.6");
		return 1;
	}
	for (int i = 0; i < 3; i++) {
		printf("--- round %d\n", i);
		round_of_calls();
	}
	return 0;
}
