/*
 * api.c -- the public API (include/heapprof.h), with or without the
 * library preloaded.  Prints one line per check.  argv[1] is a directory
 * for the dumps it asks for by path.
 */
#include <heapprof.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

static void *volatile sink;
static const char *dir;

__attribute__((noinline)) static void leak(size_t n)
{
	sink = malloc(n);
}

static void *dumper(void *arg)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/thread-%d.heap", dir, (int)(long)arg);
	return (void *)(long)heapprof_dump(path);
}

int main(int argc, char **argv)
{
	char path[4096];
	dir = argc > 1 ? argv[1] : ".";

	printf("loaded %d\n", heapprof_loaded() ? 1 : 0);
	leak(100000);
	snprintf(path, sizeof(path), "%s/explicit.heap", dir);
	printf("dump path %d\n", heapprof_dump(path));
	printf("dump auto %d\n", heapprof_dump(NULL));
	printf("active %d\n", heapprof_active());
	printf("pause %d\n", heapprof_set_active(0));
	printf("pause again %d\n", heapprof_set_active(0));
	printf("active %d\n", heapprof_active());
	leak(200000);   /* not sampled while paused */
	printf("resume %d\n", heapprof_set_active(1));
	printf("resume again %d\n", heapprof_set_active(1));
	printf("name %d\n", heapprof_set_thread_name("api-main"));
	const char *name = NULL;
	size_t len = sizeof(name);
	int r = heapprof_mallctl("thread.prof.name", &name, &len, NULL, 0);
	printf("name read %d %s\n", r, r ? "-" : name);
	size_t lg = 0;
	len = sizeof(lg);
	r = heapprof_mallctl("opt.lg_prof_sample", &lg, &len, NULL, 0);
	printf("opt.lg_prof_sample %d %zu\n", r, r ? 0 : lg);
	const char *prefix = NULL;
	len = sizeof(prefix);
	r = heapprof_mallctl("opt.prof_prefix", &prefix, &len, NULL, 0);
	printf("opt.prof_prefix %d %s\n", r, r ? "-" : prefix);
	printf("unknown %d\n", heapprof_mallctl("no.such.name", NULL, NULL, NULL, 0));
	len = 1;
	printf("bad size %d\n", heapprof_mallctl("prof.lg_sample", &lg, &len, NULL, 0));

	/* Four threads dumping at once. */
	pthread_t th[4];
	for (long i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, dumper, (void *)i);
	int failed = 0;
	for (int i = 0; i < 4; i++) {
		void *ret;
		pthread_join(th[i], &ret);
		failed += ret != NULL;
	}
	printf("concurrent dumps failed %d\n", failed);
	leak(300000);
	printf("reset %d\n", heapprof_reset(-1));
	leak(400000);
	snprintf(path, sizeof(path), "%s/after-reset.heap", dir);
	printf("dump after reset %d\n", heapprof_dump(path));
	return 0;
}
