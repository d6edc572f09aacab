/* Minimal reproducer: a thread with a pending deferred cancel makes its
 * first allocation.  Bare: malloc has no cancellation point, the thread
 * reaches pthread_testcancel, and a second thread then allocates freely.
 * Under heapprof with libunwind walks (prof_unwinder:libunwind, or the fast
 * unwinder's fallback), libunwind's address check opens a pipe and
 * hp_unwpipe_leave() closes it with its spinlock held; close(2) is a
 * cancellation point, the thread is cancelled there, and the lock stays
 * held: the next walk on any thread spins forever. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static volatile int go;
static volatile int mallocs_done;

static void *victim(void *arg)
{
	while (!go)
		;                        /* no cancellation point */
	for (int i = 0; i < 100; i++) {
		free(malloc(100));
		mallocs_done++;
	}
	pthread_testcancel();
	return arg;
}

static void *other(void *arg)
{
	free(malloc(200));
	return arg;
}

int main(void)
{
	pthread_t t;
	void *r;
	pthread_create(&t, NULL, victim, NULL);
	pthread_cancel(t);
	go = 1;
	pthread_join(t, &r);
	printf("victim %s after %d of 100 mallocs\n",
	       r == PTHREAD_CANCELED ? "cancelled" : "returned", mallocs_done);
	fflush(stdout);
	pthread_create(&t, NULL, other, NULL);
	pthread_join(t, NULL);
	printf("second thread allocated\n");
	return 0;
}
