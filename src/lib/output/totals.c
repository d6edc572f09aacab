/*
 * totals.c -- per-stack and per-thread sums for dumps (see totals.h).
 *
 * Owns nothing between calls.  Runs on whichever thread dumps, inside the
 * guard; reads counter contexts without locks and never stops the host.
 */
#include <errno.h>
#include <string.h>

#include "base/pages.h"
#include "record/peak.h"
#include "record/sample.h"
#include "record/sampled.h"
#include "output/totals.h"
#include "record/stacktab.h"
#include "record/threads.h"
#include "record/switches.h"
#include "base/banned.h"

double hp_totals_objects(int64_t cnt_fp)
{
	return (double)cnt_fp / (double)HP_CNT_ONE;
}

static void counts_add(struct hp_counts *a, const struct hp_counts *b)
{
	a->live_cnt += b->live_cnt;
	a->live_bytes += b->live_bytes;
	a->accum_cnt += b->accum_cnt;
	a->accum_bytes += b->accum_bytes;
	a->tmp_cnt += b->tmp_cnt;
	a->peak_cnt += b->peak_cnt;
	a->peak_bytes += b->peak_bytes;
}

static void peak_add(struct hp_counts *a, const struct hp_counts *b)
{
	a->peak_cnt += b->peak_cnt;
	a->peak_bytes += b->peak_bytes;
}

static void peak_clear(struct hp_counts *a)
{
	a->peak_cnt = a->peak_bytes = 0;
}

#define PEAK_READS 4

/* The peak figures again, for the peak now: after a read during which
 * the heap reached a new one.  Returns whether the peak held still. */
static int reread_peak(struct hp_totals *s, const uint32_t *stack_of, uint32_t end)
{
	int64_t key = hp_peak_key();

	for (uint32_t st = 0; st <= s->nstacks; st++)
		peak_clear(&s->by_stack[st]);
	for (uint32_t th = 0; th < s->nthreads; th++)
		peak_clear(&s->by_thread[th]);
	peak_clear(&s->total);
	for (uint32_t id = 1; id < end; id++) {
		if (!stack_of[id])
			continue;
		const struct hp_counters *c = hp_counters_at(id);
		struct hp_counts k;
		hp_counters_read(c, &k);
		hp_peak_read(c, key, &k);
		peak_add(&s->by_stack[stack_of[id]], &k);
		if (c->thread < s->nthreads)
			peak_add(&s->by_thread[c->thread], &k);
		peak_add(&s->total, &k);
	}
	s->peak = key;
	return hp_peak_key() == key;
}

/* The process's salt for the rows' rounding: random, drawn once (the
 * first snapshot's), so that every dump rounds a row alike. */
static uint64_t dither_salt(void)
{
	static uint64_t salt;
	uint64_t v = HP_LOAD(&salt);

	if (!v) {
		uint64_t want = hp_sample_seed(&salt), none = 0;
		v = __atomic_compare_exchange_n(&salt, &none, want, false, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED) ? want : none;
	}
	return v;
}

int hp_totals_take(struct hp_totals *s)
{
	uint16_t gen = HP_LOAD(&hp_switches.gen);

	hp_sampled_settle();   /* what this thread's frees put off counts first */
	memset(s, 0, sizeof(*s));
	s->lg = HP_LOAD(&hp_switches.lg_sample);
	s->dither_salt = dither_salt();
	/* Contexts first: every context read refers to a stack that was
	 * interned before it, so nstacks read afterwards covers them all. */
	uint32_t end = hp_counters_end();
	s->nthreads = hp_threads_count();
	s->nstacks = hp_stacktab_count();

	size_t n_st = (size_t)s->nstacks + 2;
	s->bytes = n_st * sizeof(struct hp_counts) +
		   (size_t)(s->nthreads + 1) * sizeof(struct hp_counts) +
		   (size_t)end * 2 * sizeof(uint32_t) + n_st * sizeof(uint32_t);
	s->mem = hp_pages_alloc(s->bytes);
	if (!s->mem)
		return ENOMEM;
	char *m = s->mem;
	s->by_stack = (struct hp_counts *)m;
	m += n_st * sizeof(struct hp_counts);
	s->by_thread = (struct hp_counts *)m;
	m += (size_t)(s->nthreads + 1) * sizeof(struct hp_counts);
	s->ctx_sorted = (uint32_t *)m;
	m += (size_t)end * sizeof(uint32_t);
	uint32_t *stack_of = (uint32_t *)m;   /* pass 1's verdict per context */
	m += (size_t)end * sizeof(uint32_t);
	s->first = (uint32_t *)m;

	/* Pass 1: sums, and how many contexts each stack has. */
	int64_t key = hp_peak_key();
	for (uint32_t id = 1; id < end; id++) {
		const struct hp_counters *c = hp_counters_at(id);
		uint32_t st = c ? HP_LOAD_ACQ(&c->stack) : 0;
		if (!st || st > s->nstacks || c->gen != gen)
			continue;
		struct hp_counts k;
		hp_counters_read(c, &k);
		hp_peak_read(c, key, &k);
		counts_add(&s->by_stack[st], &k);
		if (c->thread < s->nthreads)
			counts_add(&s->by_thread[c->thread], &k);
		counts_add(&s->total, &k);
		s->first[st + 1]++;
		stack_of[id] = st;
	}
	s->peak = key;
	s->peak_moving = hp_peak_key() != key;
	for (int i = 1; i < PEAK_READS && s->peak_moving; i++)
		s->peak_moving = !reread_peak(s, stack_of, end);
	/* Pass 2: counting sort of context ids by stack. */
	for (uint32_t st = 1; st <= s->nstacks; st++)
		s->first[st + 1] += s->first[st];
	uint32_t *fill = s->first;   /* reuse: advance, then restore */
	for (uint32_t id = 1; id < end; id++)
		if (stack_of[id])
			s->ctx_sorted[fill[stack_of[id]]++] = id;
	for (uint32_t st = s->nstacks; st >= 1; st--)
		s->first[st] = s->first[st - 1];
	s->first[0] = 0;
	s->first[1] = 0;
	s->nctx = s->first[s->nstacks + 1];
	return 0;
}

static void swap_peak(struct hp_counts *k)
{
	k->live_cnt = k->peak_cnt;
	k->live_bytes = k->peak_bytes;
}

void hp_totals_at_peak(struct hp_totals *s)
{
	for (uint32_t st = 0; st <= s->nstacks; st++)
		swap_peak(&s->by_stack[st]);
	for (uint32_t th = 0; th < s->nthreads; th++)
		swap_peak(&s->by_thread[th]);
	swap_peak(&s->total);
	s->at_peak = 1;
}

void hp_totals_read(const struct hp_totals *s, const struct hp_counters *c,
		    struct hp_counts *out)
{
	hp_counters_read(c, out);
	hp_peak_read(c, s->peak, out);
	if (s->at_peak)
		swap_peak(out);
}

void hp_totals_release(struct hp_totals *s)
{
	hp_pages_free(s->mem, s->bytes);
	s->mem = NULL;
}
