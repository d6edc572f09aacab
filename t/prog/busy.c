/*
 * busy.c -- THREADS threads allocating and freeing without pause for
 * SECONDS, keeping a ring of 256 blocks each from churn(); prints "ready
 * <pid>" first and "done" at the end.  With "fork" as a third argument
 * the main thread also forks a child every 20 ms, which allocates a
 * little, exits, and is reaped: fork under load and under signals.
 *
 * usage: busy SECONDS THREADS [fork]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churnring.h"

static volatile int stop;
static void *volatile sink;

static void *worker(void *arg)
{
	churn_ring(&stop, (uintptr_t)arg);
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 2;
	int n = argc > 2 ? atoi(argv[2]) : 2;
	int forking = argc > 3 && !strcmp(argv[3], "fork");
	pthread_t th[64];

	if (n > 64)
		n = 64;
	for (int i = 0; i < n; i++)
		pthread_create(&th[i], NULL, worker, (void *)(uintptr_t)i);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int children = 0, bad = 0;
	do {
		struct timespec ts = { 0, 20000000 };
		if (forking) {
			pid_t pid = fork();
			if (pid == 0) {
				for (int i = 0; i < 100; i++)
					sink = churn(100);
				_exit(0);
			}
			int st;
			if (pid > 0 && waitpid(pid, &st, 0) == pid) {
				children++;
				bad += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
			}
		}
		nanosleep(&ts, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	stop = 1;
	for (int i = 0; i < n; i++)
		pthread_join(th[i], NULL);
	printf("done: %d children, %d failed\n", children, bad);
	return 0;
}
