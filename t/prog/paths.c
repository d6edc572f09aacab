/*
 * paths.c -- every C allocation path but realloc's, for the sampled
 * estimates (t/0086-paths-unbiased.t; realloc is t/prog/reallocs.c's).
 * Each site is a function of its own, so that jeprof tells them apart;
 * each makes N blocks of one size and frees every other one (with free)
 * once all are made, so that allocated and live figures differ.  The
 * truth, per site: N blocks allocated, N/2 live, of
 *
 *   p_malloc          malloc(48)
 *   p_calloc          calloc(3, 16)
 *   p_reallocarray    reallocarray(NULL, 6, 8)
 *   p_memalign        memalign(64, 64)
 *   p_posix_memalign  posix_memalign(64, 64)
 *   p_aligned_alloc   aligned_alloc(64, 64)
 *   p_strdup          strdup of 47 characters (48 bytes, through malloc)
 *   p_strndup         strndup of 47 of 60 characters (48 bytes)
 *   p_malloc0         malloc(0), 8N of them (sampled as one byte, 1 in 16384 at
 *   p_calloc0         calloc(0, 16), 8N     lg_prof_sample:14: N would give ~6 live samples)
 *   p_valloc          valloc(4096), N/64 of them
 *   p_pvalloc         pvalloc(4096), N/64 of them
 *
 * usage: paths [N]   (default 200000, even)
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char text[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ01234567";
static char s47[48];

__attribute__((noinline)) static void *p_malloc(void) { return malloc(48); }
__attribute__((noinline)) static void *p_calloc(void) { return calloc(3, 16); }
__attribute__((noinline)) static void *p_reallocarray(void) { return reallocarray(NULL, 6, 8); }
__attribute__((noinline)) static void *p_memalign(void) { return memalign(64, 64); }
__attribute__((noinline)) static void *p_posix_memalign(void)
{
	void *p;

	return posix_memalign(&p, 64, 64) ? NULL : p;
}
__attribute__((noinline)) static void *p_aligned_alloc(void) { return aligned_alloc(64, 64); }
__attribute__((noinline)) static void *p_strdup(void) { return strdup(s47); }
__attribute__((noinline)) static void *p_strndup(void) { return strndup(text, 47); }
__attribute__((noinline)) static void *p_malloc0(void) { return malloc(0); }
__attribute__((noinline)) static void *p_calloc0(void) { return calloc(0, 16); }
__attribute__((noinline)) static void *p_valloc(void) { return valloc(4096); }
__attribute__((noinline)) static void *p_pvalloc(void) { return pvalloc(4096); }

/* n blocks from site, every other one freed after all are made (malloc(0)
 * may return NULL: glibc, jemalloc, tcmalloc and mimalloc do not). */
static void run(void *(*site)(void), size_t n, void **keep)
{
	for (size_t i = 0; i < n; i++)
		if (!(keep[i] = site()))
			abort();
	for (size_t i = 1; i < n; i += 2)
		free(keep[i]);
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 200000;
	void *(*const sites[])(void) = {
		p_malloc, p_calloc, p_reallocarray, p_memalign, p_posix_memalign,
		p_aligned_alloc, p_strdup, p_strndup,
	};
	size_t nsites = sizeof(sites) / sizeof(sites[0]);
	void **keep = calloc((nsites + 2 + 16) * n, sizeof(*keep));

	if (!keep)
		return 1;
	memcpy(s47, text, 47);
	for (size_t s = 0; s < nsites; s++)
		run(sites[s], n, keep + s * n);
	run(p_valloc, n / 64, keep + nsites * n);
	run(p_pvalloc, n / 64, keep + (nsites + 1) * n);
	run(p_malloc0, 8 * n, keep + (nsites + 2) * n);
	run(p_calloc0, 8 * n, keep + (nsites + 10) * n);
	printf("done %zu\n", n);
	return 0;
}
