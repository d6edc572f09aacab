/*
 * hostsafe.c -- what programs beyond the mainstream do that a preloaded
 * profiler must not change, one case per argv[1] (t/0705-host-safe.t).
 * Prints only what does not change from run to run.
 *
 *   getattr N        starts N threads, one after another; each asks for its
 *                    own stack with pthread_getattr_np before it allocates
 *                    (as every HotSpot thread and Rust std::thread does:
 *                    glibc allocates inside, holding the thread's lock),
 *                    then allocates; prints "threads N"
 *   getattr_main     the main thread's first call is pthread_getattr_np
 *                    (glibc reads /proc/self/maps through stdio inside it)
 *   tasks            prints the kernel's count of this process's threads
 *                    and glibc's view (__libc_single_threaded)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/single_threaded.h>
#include <unistd.h>
#include <dirent.h>

static void *asks_its_stack(void *arg)
{
	pthread_attr_t attr;
	void *addr;
	size_t size;

	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return (void *)1;
	if (pthread_attr_getstack(&attr, &addr, &size) != 0 || !size)
		return (void *)1;
	pthread_attr_destroy(&attr);
	void *p = malloc(64 + (size_t)(uintptr_t)arg % 512);
	memset(p, 1, 64);
	free(p);
	return NULL;
}

static int getattr(int n)
{
	int ok = 0;

	for (int i = 0; i < n; i++) {
		pthread_t t;
		void *r = (void *)1;
		if (pthread_create(&t, NULL, asks_its_stack, (void *)(uintptr_t)i) != 0)
			break;
		pthread_join(t, &r);
		ok += r == NULL;
	}
	printf("threads %d\n", ok);
	return ok == n ? 0 : 1;
}

static int count_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;

	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";

	if (!strcmp(how, "getattr"))
		return getattr(argc > 2 ? atoi(argv[2]) : 100);
	if (!strcmp(how, "getattr_main")) {
		int r = asks_its_stack(NULL) != NULL;
		printf("main %s\n", r ? "failed" : "ok");
		return r;
	}
	if (!strcmp(how, "tasks")) {
		void *p = malloc(1000);
		printf("tasks %d single %d\n", count_tasks(), (int)__libc_single_threaded);
		free(p);
		return 0;
	}
	fprintf(stderr, "usage: hostsafe CASE [ARG] (see the source)\n");
	return 2;
}
