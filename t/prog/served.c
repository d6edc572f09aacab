/*
 * served.c -- a long-running process for heapprof serve's tests: keeps
 * known amounts live from three functions, prints "ready <pid>", then
 * sleeps until SIGTERM (or SECONDS) and exits 0.
 *
 *   hold_big     4 blocks of 1 MiB    4194304 bytes
 *   hold_mid     3 blocks of 256 KiB   786432 bytes
 *   hold_small   100 blocks of 1000     100000 bytes
 *
 * usage: served [SECONDS]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static void *volatile sink[128];
static volatile sig_atomic_t done;

__attribute__((noinline)) static void hold_big(void)
{
	for (int i = 0; i < 4; i++)
		sink[i] = malloc(1 << 20);
}

__attribute__((noinline)) static void hold_mid(void)
{
	for (int i = 0; i < 3; i++)
		sink[4 + i] = malloc(256 << 10);
}

__attribute__((noinline)) static void hold_small(void)
{
	for (int i = 0; i < 100; i++)
		sink[7 + i % 100] = malloc(1000);
}

static void on_term(int sig)
{
	(void)sig;
	done = 1;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 60;

	signal(SIGTERM, on_term);
	hold_big();
	hold_mid();
	hold_small();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	struct timespec t = { 0, 50 * 1000000L };
	for (double left = secs; left > 0 && !done; left -= 0.05)
		nanosleep(&t, NULL);
	return 0;
}
