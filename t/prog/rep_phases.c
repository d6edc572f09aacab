/*
 * rep_phases.c -- one process, several dumps: for the --base and trend
 * workflows on dumps of a single process.  Runs under jemalloc's profiler
 * (LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=prof:true,lg_prof_sample:0):
 * in each of N phases, grow() keeps 1 MiB more (16 x 64 KiB) and steady()
 * allocates 4096 bytes and frees the previous phase's block; after each
 * phase it asks jemalloc for a dump named PREFIX.<phase>.heap.
 *
 * usage: rep_phases PREFIX N    (exit 2 when mallctl is missing)
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

typedef int mallctl_fn(const char *, void *, size_t *, void *, size_t);

static void *volatile sink;
static void *steady_block;

__attribute__((noinline)) static void grow(void)
{
	for (int i = 0; i < 16; i++)
		sink = malloc(65536);
}

__attribute__((noinline)) static void steady(void)
{
	void *p = malloc(4096);
	free(steady_block);
	steady_block = p;
}

int main(int argc, char **argv)
{
	mallctl_fn *mallctl = (mallctl_fn *)dlsym(RTLD_DEFAULT, "mallctl");
	int n = argc > 2 ? atoi(argv[2]) : 3;
	char name[4096];

	if (!mallctl || argc < 2)
		return 2;
	for (int phase = 1; phase <= n; phase++) {
		grow();
		steady();
		snprintf(name, sizeof(name), "%s.%d.heap", argv[1], phase);
		const char *p = name;
		if (mallctl("prof.dump", NULL, NULL, (void *)&p, sizeof(p)))
			return 1;
	}
	return 0;
}
