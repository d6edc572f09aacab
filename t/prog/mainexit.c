/*
 * mainexit.c -- main calls pthread_exit while a worker runs; the worker
 * leaks 4321 bytes and leaves 1000 held by a global, then returns, which
 * ends the process.  valgrind: 4321 bytes in 1 block definitely lost.
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static void *volatile held, *volatile sink;

__attribute__((noinline)) static void worker_leak(void)
{
	sink = malloc(4321);
	sink = NULL;
}

static void *worker(void *arg)
{
	(void)arg;
	usleep(100000);
	held = malloc(1000);
	worker_leak();
	return NULL;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 2;
	pthread_exit(NULL);
}
