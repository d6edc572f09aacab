/*
 * sigbusy.c -- a program whose only thread takes SIGALRM every 300
 * microseconds (a handler of its own, SA_RESTART) while it sleeps 200
 * microseconds at a time and allocates, for SECONDS; then it prints
 * "done signals" and exits 5.  For heapprof attach: the program's
 * signals arrive during the calls the attach makes on its thread, and its
 * handler returns through the same trampoline as those calls.
 *
 * usage: sigbusy SECONDS
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t hits;

static void on_alarm(int sig)
{
	(void)sig;
	hits++;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 3;
	struct sigaction sa;
	struct itimerval it = { { 0, 300 }, { 0, 300 } };
	struct timespec t0, t;
	long n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct timespec nap = { 0, 200000 };
		nanosleep(&nap, NULL);
		char *p = malloc(64 + n % 512);
		memset(p, 1, 64);
		free(p);
		n++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("done %s\n", hits > 0 ? "signals" : "no signals");
	return 5;
}
