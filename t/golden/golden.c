/*
 * golden.c -- the program behind the report golden tests (t/0460): a few
 * call paths, each leaving a known number of blocks live at exit, so that
 * every part of a report has something to show.  It writes nothing.
 *
 *   grow(n)        n x 64 KiB, the stack that grows with the argument
 *   steady()       10 x 4096 bytes whatever the argument
 *   churn()        100 x 1000 bytes, all freed: only with prof_accum
 *   build_list()   20 x 48 bytes through new_node(), inlined
 *   nest(3)        a recursion: nest -> nest -> nest -> nest, 5 x 512
 *   resize()       one block realloc'ed from 100 up to 16000 bytes
 *   two threads    "golden-a" and "golden-b": 50 x 200 and 50 x 300 bytes
 *                  from worker_alloc() (called from worker())
 *
 * usage: golden N  (N >= 0; 1 if absent)
 *
 * Built and run by t/golden/make-fixtures.sh; the binary is committed.
 */
#include <pthread.h>
#include <stdlib.h>

/* Written through a volatile sink so that the compiler keeps the calls. */
static void *volatile sink;

__attribute__((noinline)) static void grow(int n)
{
	for (int i = 0; i < n; i++)
		sink = malloc(65536);
}

__attribute__((noinline)) static void steady(void)
{
	for (int i = 0; i < 10; i++)
		sink = malloc(4096);
}

__attribute__((noinline)) static void churn(void)
{
	for (int i = 0; i < 100; i++) {
		void *p = malloc(1000);
		sink = p;
		free(p);
	}
}

struct node {
	struct node *next;
	char payload[40];
};

static inline __attribute__((always_inline)) struct node *new_node(struct node *next)
{
	struct node *n = calloc(1, sizeof(*n));
	n->next = next;
	return n;
}

__attribute__((noinline)) static void build_list(void)
{
	struct node *head = NULL;

	for (int i = 0; i < 20; i++)
		head = new_node(head);
	sink = head;
}

__attribute__((noinline)) static void nest(int depth)
{
	if (depth > 0) {
		nest(depth - 1);
		return;
	}
	for (int i = 0; i < 5; i++)
		sink = malloc(512);
}

__attribute__((noinline)) static void resize(void)
{
	char *p = NULL;

	for (size_t n = 100; n <= 16000; n *= 2)
		p = realloc(p, n < 16000 ? n : 16000);
	p = realloc(p, 16000);
	sink = p;
}

__attribute__((noinline)) static void *worker_alloc(size_t n)
{
	return malloc(n);
}

static void *worker(void *arg)
{
	static const char *const names[] = { "golden-a", "golden-b" };
	int k = (int)(long)arg;

	pthread_setname_np(pthread_self(), names[k]);
	for (int i = 0; i < 50; i++)
		sink = worker_alloc((size_t)(k + 2) * 100);
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	pthread_t th;

	grow(n);
	steady();
	churn();
	build_list();
	nest(3);
	resize();
	/* One thread at a time: the dump's thread rows come in a fixed order. */
	for (long k = 0; k < 2; k++) {
		pthread_create(&th, NULL, worker, (void *)k);
		pthread_join(th, NULL);
	}
	sink = NULL;
	return 0;
}
