/*
 * storm.c -- a process under every kind of load at once, for the storm
 * test: 8 threads allocating and freeing without pause, a thread that
 * keeps starting short-lived threads (each allocates, frees and ends),
 * and the main thread forking a child every 10 ms (the child allocates a
 * little and ends with exit() or _exit(), in turn), reaping each.
 *
 * Prints "ready <pid>", then runs until SIGTERM (its own handler) or
 * SECONDS, and prints "done: forks=N failed=F threads=T": failed counts
 * children that did not exit 0.
 *
 * usage: storm SECONDS
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "churnring.h"

#define CHURNERS 8

static volatile int stop;
static volatile sig_atomic_t term;
static void *volatile sink;
static unsigned long started_threads;

static void on_term(int sig)
{
	(void)sig;
	term = 1;
}

static void *churner(void *arg)
{
	churn_ring(&stop, (uintptr_t)arg);
	return NULL;
}

__attribute__((noinline)) static void *brief_alloc(size_t n)
{
	return malloc(n);
}

static void *brief(void *arg)
{
	void *p[16];

	for (int i = 0; i < 16; i++)
		p[i] = brief_alloc(64 + 64 * i);
	for (int i = 0; i < 16; i++)
		free(p[i]);
	return arg;
}

/* Threads starting and ending, two at a time. */
static void *spawner(void *arg)
{
	while (!stop) {
		pthread_t a, b;
		int ra = pthread_create(&a, NULL, brief, NULL);
		int rb = pthread_create(&b, NULL, brief, NULL);
		if (!ra)
			pthread_join(a, NULL);
		if (!rb)
			pthread_join(b, NULL);
		started_threads += !ra + !rb;
	}
	return arg;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 30;
	pthread_t th[CHURNERS], sp;
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_term;
	sigaction(SIGTERM, &sa, NULL);
	for (int i = 0; i < CHURNERS; i++)
		pthread_create(&th[i], NULL, churner, (void *)(uintptr_t)i);
	pthread_create(&sp, NULL, spawner, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec start, now, tick = { 0, 10000000 };
	unsigned long forks = 0, failed = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		pid_t pid = fork();
		if (pid == 0) {
			for (int i = 0; i < 100; i++)
				sink = churn(100);
			if (forks & 1)
				_exit(0);
			exit(0);
		}
		if (pid > 0) {
			int st;
			forks++;
			while (waitpid(pid, &st, 0) < 0)
				;
			failed += !WIFEXITED(st) || WEXITSTATUS(st) != 0;
		}
		nanosleep(&tick, NULL);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!term && (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	stop = 1;
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(th[i], NULL);
	pthread_join(sp, NULL);
	printf("done: forks=%lu failed=%lu threads=%lu\n", forks, failed, started_threads);
	return 0;
}
