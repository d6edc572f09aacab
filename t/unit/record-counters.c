/*
 * record-counters.c -- unit tests of record/counters: one context per
 * (thread, stack, rate, generation), ids stable through the owner's map as
 * it grows, and the arithmetic of live = alloc - own_free - remote_free.
 *
 * Thread records are built here by hand (zeroed, with a uid): the map
 * lives in them and hp_counters_get only reads their uid besides.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record/counters.h"
#include "record/sample.h"
#include "record/threads.h"

#include "tap.h"

static struct hp_thread t1 = { .uid = 1 }, t2 = { .uid = 2 };

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

static void test_contexts(void)
{
	uint32_t a = hp_counters_get(&t1, 5, 19, 0);
	struct hp_counters *c = a ? hp_counters_at(a) : NULL;

	ok(a >= 1 && c && c->stack == 5 && c->thread == 1 && c->lg == 19 && c->gen == 0,
	   "a new context carries its stack, thread, rate and generation");
	ok(hp_counters_get(&t1, 5, 19, 0) == a, "the same key gives the same id");
	uint32_t b = hp_counters_get(&t1, 5, 0, 0), g = hp_counters_get(&t1, 5, 19, 1);
	uint32_t s = hp_counters_get(&t1, 6, 19, 0), o = hp_counters_get(&t2, 5, 19, 0);
	ok(b && g && s && o && b != a && g != a && s != a && o != a && b != g && b != s && b != o &&
	   g != s && g != o && s != o, "rate, generation, stack and thread each make a new context");
	ok(hp_counters_at(o)->thread == 2 && hp_counters_end() > o && hp_counters_end() > s,
	   "each thread owns its own; ids are below hp_counters_end()");

	/* 5000 keys: the owner's map doubles from 64 slots many times. */
	enum { N = 5000 };
	static uint32_t ids[N], sorted[N];
	int bad = 0;
	for (int i = 0; i < N; i++) {
		ids[i] = hp_counters_get(&t1, 1000 + (uint32_t)i, 12, 3);
		bad += !ids[i] || ids[i] == a || ids[i] == o;
	}
	memcpy(sorted, ids, sizeof(ids));
	qsort(sorted, N, sizeof(*sorted), cmp_u32);
	for (int i = 1; i < N; i++)
		bad += sorted[i] == sorted[i - 1];
	for (int i = 0; i < N; i++)
		bad += hp_counters_get(&t1, 1000 + (uint32_t)i, 12, 3) != ids[i] ||
		       hp_counters_at(ids[i])->stack != 1000 + (uint32_t)i;
	ok(!bad && hp_counters_get(&t1, 5, 19, 0) == a, "%d keys: new ids, found again after the map grew", N);
}

static void test_counts(void)
{
	struct hp_counters *c = hp_counters_at(hp_counters_get(&t1, 77, 19, 0));
	struct hp_counts n;

	hp_counters_add(c, 3 * HP_CNT_ONE, 300);
	hp_counters_sub(c, HP_CNT_ONE, 100, 1);
	hp_counters_sub(c, HP_CNT_ONE, 50, 0);
	hp_counters_read(c, &n);
	ok(n.live_cnt == (int64_t)HP_CNT_ONE && n.live_bytes == 150 && n.accum_cnt == 3 * HP_CNT_ONE &&
	   n.accum_bytes == 300, "live = alloc - own frees - remote frees; accumulated = alloc");
	hp_counters_sub(c, 2 * HP_CNT_ONE, 200, 0);
	hp_counters_read(c, &n);
	ok(n.live_cnt == 0 && n.live_bytes == 0 && n.accum_cnt == 3 * HP_CNT_ONE,
	   "a live count below zero reads as zero");
}

/* Frees from other threads are atomic: none is lost. */
enum { REMOTE_THREADS = 4, REMOTE_FREES = 100000 };

static void *remote_freer(void *arg)
{
	for (int i = 0; i < REMOTE_FREES; i++)
		hp_counters_sub(arg, 1, 3, 0);
	return NULL;
}

static void test_remote(void)
{
	struct hp_counters *c = hp_counters_at(hp_counters_get(&t1, 78, 19, 0));
	pthread_t th[REMOTE_THREADS];
	struct hp_counts n;

	hp_counters_add(c, (uint64_t)REMOTE_THREADS * REMOTE_FREES + 7, (uint64_t)REMOTE_THREADS * REMOTE_FREES * 3 + 7);
	for (int i = 0; i < REMOTE_THREADS; i++)
		pthread_create(&th[i], NULL, remote_freer, c);
	for (int i = 0; i < REMOTE_THREADS; i++)
		pthread_join(th[i], NULL);
	hp_counters_read(c, &n);
	ok(n.live_cnt == 7 && n.live_bytes == 7, "%d threads freeing at once lose no update", REMOTE_THREADS);
}

int main(void)
{
	test_contexts();
	test_counts();
	test_remote();
	return done_testing();
}
