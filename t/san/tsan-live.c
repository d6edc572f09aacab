/*
 * tsan-live.c -- the live table (record/live.c) and the page filter it
 * keeps (next/filter.h) under four writer threads and a lock-free reader.
 *
 * The writers insert, look up and remove blocks whose keys interleave in
 * the same pages (so the same shards and filter bytes), and blocks on
 * pages 4 GiB apart (aliased filter bytes); the reader does what free()
 * and the debug log do without a lock: hp_filter_maybe and the second
 * look on the same pages, hp_live_records, hp_live_table_bytes; each
 * writer asks both of its own live block, as free() would.  At the end the table and
 * the filter must be empty.
 */
#include <stdint.h>

#include "next/filter.h"
#include "record/live.h"

#include "tsan.h"

#define WRITERS 4
#define KEYS    2048
#define ROUNDS  200000
#define BASE    0x7e0000000000ULL

static int errors, stop;

static uintptr_t key(int thread, int i, int alias)
{
	/* Interleaved 16-byte blocks: neighbours belong to other threads. */
	return BASE + (alias ? ((uintptr_t)thread << 32) : 0) +
	       ((uintptr_t)i * WRITERS + (uintptr_t)thread) * 16;
}

static void *writer(void *arg)
{
	int me = (int)(long)arg;
	uint64_t rng = 0x9e3779b97f4a7c15ULL * (uint64_t)(me + 1), size;
	uint32_t ctx;

	for (int r = 0; r < ROUNDS; r++) {
		int i = (int)(xorshift(&rng) % KEYS), alias = r & 1;
		uintptr_t k = key(me, i, alias);
		if (!hp_live_insert((void *)k, (uint64_t)i, (uint32_t)me))
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		/* What free() asks of a live block, without a lock, while the
		 * other writers count their blocks in and out of its page. */
		if (!hp_filter_maybe((void *)k) || !hp_filter_second_look((void *)k))
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		if (!hp_live_find((void *)k, &size, &ctx) || size != (uint64_t)i || ctx != (uint32_t)me)
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
		if (hp_live_remove((void *)k, &size, &ctx) != HP_LIVE_REMOVED)
			__atomic_add_fetch(&errors, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *reader(void *arg)
{
	uint64_t maybe = 0, now, peak;

	(void)arg;
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
		for (int i = 0; i < KEYS * WRITERS; i += 64)
			maybe += hp_filter_maybe((void *)(BASE + (uintptr_t)i * 16)) +
				 hp_filter_second_look((void *)(BASE + (uintptr_t)i * 16));
		maybe += hp_live_records();
		hp_live_table_bytes(&now, &peak);
	}
	return (void *)(uintptr_t)maybe;
}

static void *writers(void *arg)
{
	(void)arg;
	run_threads(WRITERS, writer);
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	return NULL;
}

int main(void)
{
	pthread_t r, w;

	pthread_create(&r, NULL, reader, NULL);
	pthread_create(&w, NULL, writers, NULL);
	pthread_join(w, NULL);
	pthread_join(r, NULL);
	check(errors == 0, "live table: %d writers x %d insert/find/remove, %d errors", WRITERS, ROUNDS,
	      errors);
	int stale = 0;
	for (int t = 0; t < WRITERS; t++)
		for (int i = 0; i < KEYS; i += 16)
			stale += hp_filter_maybe((void *)key(t, i, 0)) + hp_filter_maybe((void *)key(t, i, 1));
	check(hp_live_records() == 0 && !stale, "live table empty, filter drained (%d stale bytes)", stale);
	return tsan_failed;
}
