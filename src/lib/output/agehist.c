/*
 * agehist.c -- each stack's live memory by age (see agehist.h).
 *
 * Owns nothing between calls.  Runs on the dumping thread inside the
 * guard; holds one shard lock at a time, and under it only adds into
 * memory mapped before the walk.
 */
#include <errno.h>
#include <string.h>

#include "output/agehist.h"
#include "base/pages.h"
#include "record/ages.h"
#include "record/counters.h"
#include "record/live.h"
#include "record/sample.h"
#include "record/switches.h"
#include "base/banned.h"

/* The bucket of an age of secs seconds. */
static unsigned bucket_of(uint64_t secs)
{
	return secs ? 64u - (unsigned)__builtin_clzll(secs) : 0;
}

struct age_walk {
	struct hp_agehist *a;
	uint32_t now;
	uint16_t gen;
};

static void add_block(uint64_t size, uint32_t tctx, uint32_t tick, void *arg)
{
	struct age_walk *w = arg;
	struct hp_agehist *a = w->a;
	const struct hp_counters *c = tctx ? hp_counters_at(tctx) : NULL;

	if (!c)
		return;
	uint32_t st = HP_LOAD_ACQ(&c->stack);
	if (!st || st > a->nstacks || c->gen != w->gen)
		return;   /* a context newer than the totals, or of a reset */
	/* A block dated after the walk began (the clock was read first) is
	 * of age 0. */
	int32_t age = (int32_t)(w->now - tick);
	unsigned b = bucket_of(age > 0 ? (uint64_t)age / HP_AGES_TICKS_PER_S : 0);
	if (b >= a->nb)
		b = a->nb - 1;
	uint64_t cnt, bytes;
	hp_sample_weight(size, c->lg, &cnt, &bytes);
	struct hp_agehist_bucket *k = &a->h[(size_t)st * a->nb + b];
	k->cnt_fp += cnt;
	k->bytes += bytes;
}

int hp_agehist_take(struct hp_agehist *a, const struct hp_totals *s)
{
	struct age_walk w = { a, hp_ages_now(), HP_LOAD(&hp_switches.gen) };

	memset(a, 0, sizeof(*a));
	if (!hp_live_ages())
		return ENODATA;
	a->uptime = w.now - hp_ages_start();
	/* Buckets up to the uptime's: no block is older than heapprof (a
	 * fork child's are its parent's, and so is its start). */
	a->nb = bucket_of(a->uptime / HP_AGES_TICKS_PER_S) + 1;
	a->nstacks = s->nstacks;
	a->bytes = ((size_t)s->nstacks + 1) * a->nb * sizeof(*a->h);
	a->h = hp_pages_alloc(a->bytes);
	if (!a->h)
		return ENOMEM;
	hp_live_each_aged(add_block, &w);
	return 0;
}

void hp_agehist_release(struct hp_agehist *a)
{
	if (a->h)
		hp_pages_free(a->h, a->bytes);
	a->h = NULL;
}

void hp_agehist_put_uptime(struct hp_out *o, const struct hp_agehist *a)
{
	uint32_t frac = (a->uptime % HP_AGES_TICKS_PER_S) * (10000 / HP_AGES_TICKS_PER_S);

	hp_out_str(o, "# heapprof uptime: ");
	hp_out_u64(o, a->uptime / HP_AGES_TICKS_PER_S);
	hp_out_char(o, '.');
	for (uint32_t d = 1000; d; d /= 10)
		hp_out_char(o, (char)('0' + frac / d % 10));
	hp_out_char(o, '\n');
}

void hp_agehist_put_stack(struct hp_out *o, const struct hp_agehist *a, uint32_t st)
{
	const char *sep = "# age: ";
	int any = 0;

	if (!a->h || st > a->nstacks)
		return;
	for (unsigned b = 0; b < a->nb; b++) {
		const struct hp_agehist_bucket *k = &a->h[(size_t)st * a->nb + b];
		if (!k->cnt_fp && !k->bytes)
			continue;
		hp_out_str(o, sep);
		hp_out_u64(o, b ? (uint64_t)1 << (b - 1) : 0);
		hp_out_char(o, ':');
		hp_out_u64(o, (k->cnt_fp + HP_CNT_ONE / 2) >> HP_CNT_SHIFT);
		hp_out_char(o, ':');
		hp_out_u64(o, k->bytes);
		sep = " ";
		any = 1;
	}
	if (any)
		hp_out_char(o, '\n');
}
