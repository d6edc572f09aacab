/* The allocator's own knobs and queries, and its less common entry points:
 * mallopt, malloc_trim, mallinfo2, malloc_stats, malloc_info, valloc,
 * pvalloc, memalign, aligned_alloc, posix_memalign, reallocarray,
 * malloc_usable_size, realloc to 0, free(NULL); frees everything, so the
 * leak gate must find nothing. */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(void)
{
	int ok = 1;
	ok &= mallopt(M_ARENA_MAX, 1) == 1;
	ok &= mallopt(M_MMAP_THRESHOLD, 64 * 1024) == 1;
	ok &= mallopt(M_TRIM_THRESHOLD, 128 * 1024) == 1;
	ok &= mallopt(M_TOP_PAD, 0) == 1;
	void *p[12];
	p[0] = valloc(1000);
	p[1] = pvalloc(5000);
	p[2] = memalign(256, 3000);
	p[3] = aligned_alloc(64, 640);
	ok &= posix_memalign(&p[4], 4096, 10000) == 0;
	p[5] = reallocarray(NULL, 100, 8);
	p[5] = reallocarray(p[5], 1000, 8);
	p[6] = malloc(200 * 1024);                 /* mmapped (threshold 64 KiB) */
	p[7] = calloc(1000, 100);
	p[8] = realloc(NULL, 10);
	p[8] = realloc(p[8], 100000);
	p[9] = strdup("x");
	p[10] = malloc(0);
	p[11] = realloc(malloc(10), 0);            /* frees, returns NULL in glibc */
	ok &= ((unsigned long)p[0] & 4095) == 0 && ((unsigned long)p[1] & 4095) == 0;
	ok &= ((unsigned long)p[2] & 255) == 0 && ((unsigned long)p[3] & 63) == 0;
	ok &= malloc_usable_size(p[1]) >= 8192 && malloc_usable_size(p[6]) >= 200 * 1024;
	printf("p[11] %s\n", p[11] ? "non-NULL" : "NULL");
	struct mallinfo2 mi = mallinfo2();
	printf("mallinfo2: hblks %zu, hblkhd >= 200 KiB %d, uordblks > 0 %d\n",
	       mi.hblks, mi.hblkhd >= 200 * 1024, mi.uordblks > 0);
	for (int i = 0; i < 12; i++)
		free(p[i]);
	free(NULL);
	/* many small blocks, freed, then trimmed */
	void *q[20000];
	for (int i = 0; i < 20000; i++) q[i] = malloc(100);
	for (int i = 0; i < 20000; i++) free(q[i]);
	printf("malloc_trim: %d\n", malloc_trim(0));
	mi = mallinfo2();
	printf("after trim: hblks %zu, arena < 1 MiB %d\n", mi.hblks, mi.arena < 1024 * 1024);
	malloc_stats();                            /* to stderr */
	printf("malloc_info: %d\n", malloc_info(0, stderr));
	printf("all ok: %d\n", ok);
	return !ok;
}
