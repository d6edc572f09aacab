/*
 * peak.c -- the peak snapshot (see peak.h).
 *
 * Owns the shared live total and its peak.  hp_peak_save runs on the
 * allocation and free slow paths, inside the guard, on any thread: it
 * reads its context and writes three words, no lock, no call out;
 * hp_peak_read runs on dump writers.
 */
#include "record/peak.h"
#include "base/banned.h"

struct hp_peak hp_peak_state;

void hp_peak_save(struct hp_counters *c, int64_t key)
{
	struct hp_counts k;

	hp_counters_read(c, &k);
	HP_STORE(&c->peak_cnt, k.live_cnt);
	HP_STORE(&c->peak_bytes, k.live_bytes);
	HP_STORE_REL(&c->peak_at, key);
	/* The change that follows must not be seen before the stamp: a
	 * reader that sees it sees the stamp (hp_peak_read). */
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void hp_peak_read(const struct hp_counters *c, int64_t key, struct hp_counts *out)
{
	/* out already holds the live figures, read before this fence. */
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	if (HP_LOAD_ACQ(&c->peak_at) == key) {
		out->peak_cnt = HP_LOAD(&c->peak_cnt);
		out->peak_bytes = HP_LOAD(&c->peak_bytes);
	} else {
		out->peak_cnt = out->live_cnt;
		out->peak_bytes = out->live_bytes;
	}
	if (out->peak_cnt < 0 || out->peak_bytes < 0)
		out->peak_cnt = out->peak_bytes = 0;
}

void hp_peak_reset(void)
{
	HP_STORE(&hp_peak_state.live, 0);
	HP_STORE(&hp_peak_state.peak, 0);
}
