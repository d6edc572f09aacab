/*
 * threads.c -- exact counts under concurrency.
 *
 * NTHREADS named threads ("worker-<i>") each keep 1000 blocks of
 * (i+1)*100 bytes from worker_alloc() (live at exit: 1,000,000 bytes in
 * 4000 blocks for 4 threads) and churn through handoff_alloc(): 20000
 * blocks of 64 bytes each, half freed by the thread itself, half handed to
 * the main thread and freed there after join.  With prof_accum,
 * handoff_alloc has allocated 4 * 20000 * 64 = 5,120,000 bytes and holds
 * none.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 4
#define KEEP 1000
#define CHURN 20000

static void *kept[NTHREADS][KEEP];
static void *handed[NTHREADS][CHURN / 2];

__attribute__((noinline)) static void *worker_alloc(size_t n)
{
	return malloc(n);
}

__attribute__((noinline)) static void *handoff_alloc(void)
{
	return malloc(64);
}

static void *worker(void *arg)
{
	int i = (int)(long)arg;
	char name[16];

	snprintf(name, sizeof(name), "worker-%d", i);
	pthread_setname_np(pthread_self(), name);
	for (int k = 0; k < KEEP; k++)
		kept[i][k] = worker_alloc((size_t)(i + 1) * 100);
	for (int k = 0; k < CHURN; k++) {
		void *p = handoff_alloc();
		if (k % 2)
			handed[i][k / 2] = p;
		else
			free(p);
	}
	return NULL;
}

int main(void)
{
	pthread_t th[NTHREADS];

	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NTHREADS; i++)
		for (int k = 0; k < CHURN / 2; k++)
			free(handed[i][k]);
	printf("threads: done\n");
	return 0;
}
