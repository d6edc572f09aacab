/*
 * record-live.c -- unit tests of record/live: the live-block table against
 * a reference model, the page filter counts it keeps, and two threads
 * whose pages share filter bytes.
 */
#include <pthread.h>
#include <stdint.h>

#include "next/filter.h"
#include "record/live.h"

#include "tap.h"

/* ---- the live table against a reference model ---- */

static void test_live(void)
{
	enum { N = 60000 };
	static uintptr_t keys[N];
	static int present[N];
	uint64_t rng = 12345, size;
	uint32_t ctx;
	int bad = 0;

	/* Addresses packed into few pages: long clusters in few shards
	 * (204 to a 16 KiB filter page: below the filter's count of 255,
	 * which sticks). */
	for (int i = 0; i < N; i++)
		keys[i] = 0x7f0000000000ULL + (uintptr_t)i * 80;
	for (int round = 0; round < 600000; round++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int i = (int)(rng % N);
		if (present[i]) {
			if (hp_live_remove((void *)keys[i], &size, &ctx) != HP_LIVE_REMOVED ||
			    size != (uint64_t)i || ctx != (uint32_t)(i % 1000))
				bad++;
			present[i] = 0;
		} else {
			if (!hp_live_insert((void *)keys[i], (uint64_t)i, (uint32_t)(i % 1000)))
				bad++;
			present[i] = 1;
		}
	}
	ok(bad == 0, "600000 random inserts and removes agree with the model");
	int live = 0, found = 0, wrong = 0;
	for (int i = 0; i < N; i++) {
		int f = hp_live_find((void *)keys[i], &size, &ctx);
		live += present[i];
		found += f;
		wrong += f != present[i] || (f && size != (uint64_t)i);
	}
	ok(!wrong && (uint64_t)live == hp_live_records(), "every key found iff present (%d live)", live);
	int maybe_missing = 0;
	for (int i = 0; i < N; i++)
		if (present[i] && !hp_filter_maybe((void *)keys[i]))
			maybe_missing++;
	ok(!maybe_missing, "the page filter never says no for a live block");
	for (int i = 0; i < N; i++)
		if (present[i])
			hp_live_remove((void *)keys[i], &size, &ctx);
	ok(hp_live_records() == 0, "empty after removing everything");
	int stale = 0;
	for (int i = 0; i < N; i += 256)
		stale += hp_filter_maybe((void *)keys[i]);
	ok(!stale, "the filter drains to zero");
	ok(hp_live_remove((void *)keys[0], &size, &ctx) == HP_LIVE_ABSENT, "removing an absent key");
}

/* Two threads insert and remove blocks whose pages alias modulo 4 GiB,
 * so that they share filter bytes: those bytes are written with plain
 * stores under the shard lock, which is only safe if aliased pages share
 * a shard.  A lost update leaves a byte non-zero (or zero under a live
 * block). */
enum { ALIAS_KEYS = 4096, ALIAS_ROUNDS = 400000 };
static int alias_bad;

static void *alias_worker(void *arg)
{
	uintptr_t base = (uintptr_t)arg;
	uint64_t size;
	uint32_t ctx;

	for (int r = 0; r < ALIAS_ROUNDS; r++) {
		uintptr_t k = base + (uintptr_t)(r % ALIAS_KEYS) * 48;
		if (!hp_live_insert((void *)k, 1, 1) || !hp_filter_maybe((void *)k))
			__atomic_add_fetch(&alias_bad, 1, __ATOMIC_RELAXED);
		if (hp_live_remove((void *)k, &size, &ctx) != HP_LIVE_REMOVED)
			__atomic_add_fetch(&alias_bad, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void test_live_aliases(void)
{
	uintptr_t a = 0x7e0000000000ULL, b = a + (1ULL << 32);
	pthread_t t1, t2;

	pthread_create(&t1, NULL, alias_worker, (void *)a);
	pthread_create(&t2, NULL, alias_worker, (void *)b);
	pthread_join(t1, NULL);
	pthread_join(t2, NULL);
	int stale = 0;
	for (uintptr_t k = a; k < a + ALIAS_KEYS * 48; k += 4096)
		stale += hp_filter_maybe((void *)k);
	ok(!alias_bad && !stale && hp_live_records() == 0,
	   "two threads on pages 4 GiB apart (shared filter bytes): %d errors, %d stale bytes",
	   alias_bad, stale);
}

/* Large tables: 2 M blocks 80 bytes apart (below the filter's sticky 255
 * a page) over every shard, so that each table grows past a page many
 * times (in place: record/live.c's grow_in_place), with removals between
 * the growths, against a model. */
static void test_live_large(void)
{
	enum { N = 2000000 };
	static unsigned char present[N];
	const uintptr_t base = 0x7d0040000000ULL;   /* no filter byte of the other tests */
	uint64_t rng = 99, size;
	uint32_t ctx;
	int bad = 0, live = 0;

	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < N; i++) {
			if (present[i] || (round == 0 && i % 3 == 0))
				continue;
			bad += !hp_live_insert((void *)(base + (uintptr_t)i * 80), (uint64_t)i,
					       (uint32_t)(i % 4096));
			present[i] = 1;
			live++;
		}
		for (int r = 0; r < N / 2; r++) {
			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			int i = (int)(rng % N);
			if (!present[i])
				continue;
			if (hp_live_remove((void *)(base + (uintptr_t)i * 80), &size, &ctx) != HP_LIVE_REMOVED ||
			    size != (uint64_t)i || ctx != (uint32_t)(i % 4096))
				bad++;
			present[i] = 0;
			live--;
		}
	}
	int wrong = 0;
	for (int i = 0; i < N; i++) {
		bool f = hp_live_find((void *)(base + (uintptr_t)i * 80), &size, &ctx);
		wrong += f != present[i] || (f && size != (uint64_t)i);
	}
	ok(!bad && !wrong && (uint64_t)live == hp_live_records(),
	   "2 M blocks over every shard, tables grown past a page: %d errors, %d wrong, %d live",
	   bad, wrong, live);
	for (int i = 0; i < N; i++)
		if (present[i])
			bad += hp_live_remove((void *)(base + (uintptr_t)i * 80), &size, &ctx) != HP_LIVE_REMOVED;
	ok(!bad && hp_live_records() == 0, "and all removed");
}

int main(void)
{
	test_live();
	test_live_large();
	test_live_aliases();
	return done_testing();
}
