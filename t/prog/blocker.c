/*
 * blocker.c -- a thread that blocks every signal holds the only pointer to
 * a 3000-byte block in a local variable and sleeps while main exits: not
 * a leak.  Main also loses 1000 bytes: a direct leak.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile int ready;
static void *volatile sink;

static void *hold(void *arg)
{
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	char *volatile mine = malloc(3000);
	memset(mine, 1, 3000);
	ready = 1;
	for (;;)
		pause();
	return arg;
}

__attribute__((noinline)) static void lose(void)
{
	sink = malloc(1000);
	sink = NULL;
}

int main(void)
{
	pthread_t t;

	pthread_create(&t, NULL, hold, NULL);
	while (!ready)
		usleep(1000);
	lose();
	printf("blocker: exiting\n");
	return 0;
}
