/*
 * sigowner.c -- a program that owns SIGUSR1 and SIGUSR2, as dd, nginx and
 * many daemons do, for the tests of heapprof dump and toggle.
 *
 *   own     handlers of its own for SIGUSR1 and SIGUSR2
 *   block   every thread blocks every signal; one thread takes SIGUSR1,
 *           SIGUSR2 and SIGTERM with sigwaitinfo (signalfd's pattern)
 *   rt      own handlers on SIGUSR1, SIGUSR2 and every real-time signal
 *   none    leaves SIGUSR1 and SIGUSR2 as they were
 *
 * Leaks 1 MiB from leak_some(), prints "ready <pid>", then "usr1 N",
 * "usr2 N" or "rt N" (the count so far) each time a signal it owns
 * arrives, and at the end "total usr1=N usr2=M rt=K stray=S": stray counts
 * signals it did not expect.  Ends after SECONDS or at SIGTERM, exit 0.
 *
 * In every mode but block, SIGTERM has a handler that ends the run.
 *
 * usage: sigowner SECONDS own|block|rt|none
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink;
static volatile sig_atomic_t usr1, usr2, rt, stray, term;

__attribute__((noinline)) static void leak_some(void)
{
	sink = malloc(1 << 20);
}

static void on_signal(int sig)
{
	if (sig == SIGUSR1)
		usr1++;
	else if (sig == SIGUSR2)
		usr2++;
	else if (sig == SIGTERM)
		term = 1;
	else if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		rt++;
	else
		stray++;
}

static void *waiter(void *arg)
{
	sigset_t set;
	siginfo_t info;

	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	sigaddset(&set, SIGTERM);
	for (;;) {
		/* Anything else pending for the process is somebody's mistake:
		 * counted, as a program with a catch-all sigwait would see it. */
		int sig = sigwaitinfo(&set, &info);
		if (sig > 0)
			on_signal(sig);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	const char *mode = argc > 2 ? argv[2] : "own";
	struct sigaction sa;
	pthread_t t;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (!strcmp(mode, "block")) {
		sigset_t all;
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, NULL);
		pthread_create(&t, NULL, waiter, NULL);
	} else {
		sigaction(SIGTERM, &sa, NULL);
		if (strcmp(mode, "none")) {
			sigaction(SIGUSR1, &sa, NULL);
			sigaction(SIGUSR2, &sa, NULL);
		}
		if (!strcmp(mode, "rt"))
			for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
				sigaction(sig, &sa, NULL);
	}
	leak_some();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec start, now, tick = { 0, 2000000 };
	int seen1 = 0, seen2 = 0, seenrt = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		nanosleep(&tick, NULL);
		if (usr1 != seen1)
			printf("usr1 %d\n", seen1 = usr1);
		if (usr2 != seen2)
			printf("usr2 %d\n", seen2 = usr2);
		if (rt != seenrt)
			printf("rt %d\n", seenrt = rt);
		fflush(stdout);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (!term && (now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < secs);
	printf("total usr1=%d usr2=%d rt=%d stray=%d\n", (int)usr1, (int)usr2, (int)rt, (int)stray);
	return 0;
}
