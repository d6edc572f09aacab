/*
 * record-live-ages.c -- unit tests of record/live with ages (prof_age):
 * every block keeps its allocation tick through the table's growth and
 * its removals' backward shifts.  A process of its own, since ages are
 * chosen before the first insert.
 */
#include <time.h>

#include "record/ages.h"
#include "record/live.h"

#include "tap.h"

enum { N = 40000, BATCHES = 3 };

struct tally {
	uint32_t lo[BATCHES], hi[BATCHES];   /* each batch's ticks, read around it */
	int seen[BATCHES], wrong;
};

static void check_block(uint64_t size, uint32_t tctx, uint32_t tick, void *arg)
{
	struct tally *t = arg;
	unsigned b = (unsigned)size % BATCHES;

	t->seen[b]++;
	if (tctx != (uint32_t)size % 1000 || tick - t->lo[b] > t->hi[b] - t->lo[b])
		t->wrong++;
}

static void sleep_tick(void)
{
	struct timespec ts = { 0, 1000000000 / HP_AGES_TICKS_PER_S + 20000000 };

	nanosleep(&ts, NULL);
}

int main(void)
{
	static int present[N];
	struct tally t = { 0 };
	uint64_t rng = 777, size;
	uint32_t ctx;
	int bad = 0, live[BATCHES] = { 0 };

	ok(hp_live_keep_ages() && hp_live_ages(), "ages chosen before the first insert");
	/* Batch b holds keys i with i % BATCHES == b, inserted one tick
	 * apart, packed in few pages: long clusters, tables past a page. */
	for (int b = 0; b < BATCHES; b++) {
		if (b)
			sleep_tick();
		t.lo[b] = hp_ages_now();
		for (int i = b; i < N; i += BATCHES) {
			uintptr_t k = 0x7f0000000000ULL + (uintptr_t)i * 64;
			bad += !hp_live_insert((void *)k, (uint64_t)i, (uint32_t)(i % 1000));
			present[i] = 1;
			live[b]++;
		}
		t.hi[b] = hp_ages_now();
	}
	ok(t.hi[BATCHES - 1] != t.lo[0], "the batches are dated apart");
	/* Random removals: their backward shifts move entries of every
	 * batch. */
	for (int r = 0; r < N; r++) {
		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		int i = (int)(rng % N);
		if (!present[i])
			continue;
		uintptr_t k = 0x7f0000000000ULL + (uintptr_t)i * 64;
		if (hp_live_remove((void *)k, &size, &ctx) != HP_LIVE_REMOVED || size != (uint64_t)i)
			bad++;
		present[i] = 0;
		live[i % BATCHES]--;
	}
	ok(!bad, "inserts and removes agree with the model");
	hp_live_each_aged(check_block, &t);
	int counts_ok = 1;
	for (int b = 0; b < BATCHES; b++)
		counts_ok &= t.seen[b] == live[b];
	ok(counts_ok && !t.wrong, "every live block keeps its batch's tick (%d wrong; %d, %d, %d live)",
	   t.wrong, live[0], live[1], live[2]);
	return done_testing();
}
