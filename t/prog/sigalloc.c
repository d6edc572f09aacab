/*
 * sigalloc.c -- a signal handler that allocates and frees while the main
 * thread is inside heapprof.
 *
 * A timer fires every 50 us; its handler does malloc(16) + free.  glibc
 * serves those from the 16-byte tcache bin, which the main thread never
 * uses, so glibc itself is safe here; what is under test is heapprof being
 * interrupted inside its own slow path (holding a live-table shard) and
 * re-entered.  The main thread churns 64 KiB blocks from main_alloc:
 * 200000 allocated (13,107,200,000 bytes cumulative), all freed.
 * Prints how many times the handler ran.
 *
 * With KEEP, the main thread first keeps KEEP blocks of 100 bytes from
 * keep_alloc() (a large live table: its frees then wait, record/sampled.c)
 * and frees them all after the loop, the timer still running.
 *
 * usage: sigalloc [KEEP]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile sig_atomic_t runs;
static void *volatile sink;

__attribute__((noinline)) static void *handler_alloc(void)
{
	return malloc(16);
}

static void handler(int sig)
{
	(void)sig;
	void *p = handler_alloc();
	sink = p;
	free(p);
	runs++;
}

__attribute__((noinline)) static void *keep_alloc(void)
{
	return malloc(100);
}

__attribute__((noinline)) static void *main_alloc(void)
{
	return malloc(65536);
}

int main(int argc, char **argv)
{
	long keep = argc > 1 ? atol(argv[1]) : 0;
	void **kept = keep > 0 ? calloc(keep, sizeof(*kept)) : NULL;
	struct sigaction sa;
	struct sigevent ev;
	struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };
	timer_t timer;
	void *ring[64] = { 0 };

	free(malloc(16));   /* fill the handler's tcache bin up front */
	for (long i = 0; i < keep; i++)
		kept[i] = keep_alloc();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGALRM;
	timer_create(CLOCK_MONOTONIC, &ev, &timer);
	timer_settime(timer, 0, &its, NULL);
	for (int i = 0; i < 200000; i++) {
		free(ring[i % 64]);
		ring[i % 64] = main_alloc();
	}
	for (long i = 0; i < keep; i++)
		free(kept[i]);
	free(kept);
	its.it_value.tv_nsec = 0;
	its.it_interval.tv_nsec = 0;
	timer_settime(timer, 0, &its, NULL);
	for (int i = 0; i < 64; i++)
		free(ring[i]);
	printf("handler ran %d times\n", (int)runs);
	return 0;
}
