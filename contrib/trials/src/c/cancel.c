/* pthread_cancel with deferred cancellation: the thread allocates N times,
 * then reaches its first cancellation point (pthread_testcancel).  Bare
 * glibc's malloc has no cancellation point, so the thread always finishes
 * its N allocations after the request; a profiler whose slow path calls write, open, read
 * (libunwind's address checks, /proc reads) would be cancelled inside
 * malloc.  Also a cleanup handler that allocates. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long done;
static volatile int cancel_sent;
static int sleep_first;   /* argv[1] "sleep": usleep(1000) after the barrier */
static pthread_barrier_t bar;

static void cleanup(void *arg) { free(arg); free(malloc(123)); }

static void *body(void *arg)
{
	long n = (long)arg;
	char *c = malloc(10);
	pthread_cleanup_push(cleanup, c);
	pthread_barrier_wait(&bar);   /* not a cancellation point in glibc */
	if (sleep_first)
		usleep(1000);         /* a cancellation point: the cancel may act here
				       * (so "finished" varies, bare too); the thread's
				       * first walks then meet the cancel more often */
	while (!cancel_sent)          /* the cancel arrives while we allocate */
		free(malloc(100));
	for (long i = 0; i < n; i++) {
		char *p = malloc(16 + (i * 61) % 5000);
		free(p);
		done = i + 1;
	}
	pthread_testcancel();
	pthread_cleanup_pop(0);
	return (void *)1;
}

int main(int argc, char **argv)
{
	sleep_first = argc > 1 && argv[1][0] == 's';
	int finished = 0, cancelled = 0, rounds = 200;
	for (int r = 0; r < rounds; r++) {
		pthread_t t;
		void *res;
		pthread_barrier_init(&bar, NULL, 2);
		pthread_create(&t, NULL, body, (void *)20000L);
		pthread_barrier_wait(&bar);
		usleep(2000);          /* the thread is in its malloc loop */
		pthread_cancel(t);
		cancel_sent = 1;
		pthread_join(t, &res);
		finished += done == 20000;
		cancelled += res == PTHREAD_CANCELED;
		done = 0;
		cancel_sent = 0;
		pthread_barrier_destroy(&bar);
	}
	printf("%d rounds: %d threads finished their 20000 mallocs, %d cancelled\n", rounds, finished, cancelled);
	return 0;
}
