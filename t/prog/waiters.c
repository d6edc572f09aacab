/*
 * waiters.c -- every thread waits in futex(2): THREADS workers on a
 * condition variable, main in pthread_join.  For heapprof attach, whose
 * safe point is then a futex wait on a word that is no lock of glibc's.
 * It prints "ready PID" and waits until killed.
 *
 * usage: waiters THREADS
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int go;

static void *worker(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!go)
		pthread_cond_wait(&cond, &lock);
	pthread_mutex_unlock(&lock);
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 4;
	pthread_t t[64];

	if (n < 1 || n > 64)
		return 2;
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
