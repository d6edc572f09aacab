/*
 * termed.c -- a service for the final-signal tests (t/0325): keeps 3 MiB
 * from keep_me(), prints "ready", then sleeps SECONDS (again when a signal
 * cuts the sleep short, printing "woke": bare, SIGTERM never lets it) and
 * exits 0.
 *
 * MODE plain: nothing else; thread: also a thread of its own that sleeps
 * (so heapprof's helper thread runs); own: its own SIGTERM and SIGINT
 * handler, which prints "handled SIG<n>" and exits 7.
 *
 * usage: termed SECONDS plain|thread|own
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink[3];

__attribute__((noinline)) static void keep_me(void)
{
	for (int i = 0; i < 3; i++)
		sink[i] = malloc(1 << 20);
}

static void handled(int sig)
{
	char msg[32];
	int n = snprintf(msg, sizeof(msg), "handled SIG%d\n", sig);

	(void)!write(1, msg, (size_t)n);
	_exit(7);
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 10;
	const char *mode = argc > 2 ? argv[2] : "plain";

	if (!strcmp(mode, "own")) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = handled;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	if (!strcmp(mode, "thread")) {
		pthread_t t;
		pthread_create(&t, NULL, sleeper, NULL);
	}
	keep_me();
	printf("ready\n");
	fflush(stdout);
	struct timespec left = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };
	while (nanosleep(&left, &left) != 0)
		(void)!write(1, "woke\n", 5);
	return 0;
}
