/*
 * peak.c -- the peak snapshot (see peak.h).
 *
 * Owns the shared live total, its peak and the threads' slots of
 * pending frees.  hp_peak_save, hp_peak_candidate and hp_peak_shrink_slow
 * run on the allocation and free slow paths, inside the guard, on any
 * thread: no lock, no call out; hp_peak_read runs on dump writers.
 */
#include <stdbool.h>

#include "record/peak.h"
#include "record/switches.h"
#include "record/tls.h"
#include "base/banned.h"

struct hp_peak hp_peak_state;

static struct hp_peak_slot slots[HP_PEAK_SLOTS];
static uint32_t slots_used;   /* a high-water mark: candidates read slots[0, used) */
/* Whether the thread looked for a slot and found none. */
static __thread bool no_slot;

void hp_peak_candidate(int64_t live, int64_t key, uint32_t gen)
{
	unsigned n = HP_LOAD(&slots_used);

	/* The counter is the truth plus every allowance: take them out.  A
	 * slot read while its thread moves allowance between it and the
	 * counter is that thread's allocation or free in flight. */
	for (unsigned i = 0; i < n; i++)
		if (HP_LOAD(&slots[i].gen) == gen)
			live -= HP_LOAD(&slots[i].avail);
	while (live > key && !HP_CAS(&hp_peak_state.peak, &key, live))
		;
}

/* A free slot for the calling thread, or NULL. */
static struct hp_peak_slot *claim(void)
{
	for (unsigned i = 0; i < HP_PEAK_SLOTS; i++) {
		uint32_t free_ = 0;
		if (HP_LOAD(&slots[i].taken) ||
		    !__atomic_compare_exchange_n(&slots[i].taken, &free_, 1, false,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		unsigned used = HP_LOAD(&slots_used);
		while (used < i + 1 && !HP_CAS(&slots_used, &used, i + 1))
			;
		return &slots[i];
	}
	return NULL;
}

/* The calling thread's slot, taken now if it has none and can have one,
 * with an allowance of generation gen (an older one dropped: a reset
 * took it out of the counter); NULL if none. */
static struct hp_peak_slot *mine(uint32_t gen)
{
	struct hp_peak_slot *s = hp_tls.peak_slot;

	/* Only a thread with a record has the exit hook that gives the
	 * slot back (record/threads.c); the others count at once. */
	if (!s && !no_slot && hp_tls.thread) {
		struct hp_peak_slot *c = claim(), *none = NULL;
		if (c) {
			HP_STORE(&c->avail, 0);
			HP_STORE(&c->gen, gen);
		}
		/* A signal handler's call may have claimed one meanwhile:
		 * then ours goes back. */
		if (__atomic_compare_exchange_n(&hp_tls.peak_slot, &none, c, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
			s = c;
			no_slot = !c;
		} else {
			s = none;
			if (c)
				HP_STORE_REL(&c->taken, 0);
		}
	}
	if (s && HP_LOAD(&s->gen) != gen) {
		hp_peak_add_own(&s->avail, -HP_LOAD(&s->avail));
		HP_STORE(&s->gen, gen);
	}
	return s;
}

/* A block of more than HP_PEAK_BIG bytes moves the counter at once,
 * without an allowance: a sampled block's weight (about 512 KiB at the
 * default rate) is past any allowance, which would only make it take
 * room (and then give it back) each time; at one sample in 2^lg bytes,
 * or for a block that large, a locked add on the counter costs nothing
 * that matters.  The counter less every allowance stays the live total. */
#define HP_PEAK_BIG HP_PEAK_AVAIL_MAX

void hp_peak_grow_slow(int64_t bytes, int64_t key, uint32_t gen)
{
	if (bytes > HP_PEAK_BIG) {
		int64_t live = HP_ADD(&hp_peak_state.live, bytes) + bytes;
		if (live > key)
			hp_peak_candidate(live, key, gen);
		return;
	}
	struct hp_peak_slot *s = mine(gen);
	int64_t avail = s ? HP_LOAD(&s->avail) : 0;

	if (s) {
		/* Room below the peak for this allocation and HP_PEAK_ROOM
		 * more: no candidate, since the counter stays at most the
		 * peak.  The allowance is raised after the counter: a
		 * candidate that reads it in between counts this thread's
		 * room as allocated, never the other way. */
		int64_t d = bytes + HP_PEAK_ROOM - avail;
		int64_t cur = HP_LOAD(&hp_peak_state.live);
		while (cur + d <= HP_LOAD(&hp_peak_state.peak))
			if (HP_CAS(&hp_peak_state.live, &cur, cur + d)) {
				hp_peak_add_own(&s->avail, HP_PEAK_ROOM - avail);
				return;
			}
		/* Near the peak: the allocation counts in the counter, less
		 * what is left of the allowance (taken out first: a candidate
		 * that reads the slot in between counts it twice, never
		 * not at all). */
		hp_peak_add_own(&s->avail, -avail);
	}
	int64_t d = bytes - avail;
	int64_t live = HP_ADD(&hp_peak_state.live, d) + d;

	if (live > key)
		hp_peak_candidate(live, key, gen);
}

/* Gives the slot's allowance back to the counter (an older generation's
 * is only dropped). */
static void settle(struct hp_peak_slot *s)
{
	int64_t avail = HP_LOAD(&s->avail);

	hp_peak_add_own(&s->avail, -avail);
	if (HP_LOAD(&s->gen) == HP_LOAD(&hp_switches.gen))
		HP_SUB(&hp_peak_state.live, avail);
}

void hp_peak_shrink_slow(int64_t bytes, uint32_t gen)
{
	struct hp_peak_slot *s = bytes > HP_PEAK_BIG ? NULL : mine(gen);

	if (!s) {
		HP_SUB(&hp_peak_state.live, bytes);
		return;
	}
	int64_t avail = HP_LOAD(&s->avail) + bytes;
	if (avail <= HP_PEAK_AVAIL_MAX) {
		hp_peak_add_own(&s->avail, bytes);
		return;
	}
	/* Keeps HP_PEAK_ROOM, gives the rest back: the allowance first, so
	 * that a candidate in between counts it as allocated. */
	int64_t back = avail - HP_PEAK_ROOM;
	hp_peak_add_own(&s->avail, bytes - back);
	HP_SUB(&hp_peak_state.live, back);
}

void hp_peak_thread_exit(void)
{
	struct hp_peak_slot *s = hp_tls.peak_slot;

	if (!s)
		return;
	hp_tls.peak_slot = NULL;
	no_slot = true;   /* a destructor that allocates or frees after this one: at once */
	settle(s);
	HP_STORE_REL(&s->taken, 0);
}

void hp_peak_postfork_child(void)
{
	unsigned n = HP_LOAD(&slots_used);

	for (unsigned i = 0; i < n; i++) {
		struct hp_peak_slot *s = &slots[i];
		if (s == hp_tls.peak_slot || !HP_LOAD(&s->taken))
			continue;
		settle(s);
		HP_STORE(&s->taken, 0);
	}
}

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

void hp_peak_save_before(struct hp_counters *c, int64_t key, uint64_t cnt, uint64_t bytes)
{
	struct hp_counts k;

	hp_counters_read(c, &k);
	HP_STORE(&c->peak_cnt, k.live_cnt - (int64_t)cnt);
	HP_STORE(&c->peak_bytes, k.live_bytes - (int64_t)bytes);
	HP_STORE_REL(&c->peak_at, key);
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
