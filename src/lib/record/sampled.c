/*
 * sampled.c -- sampled allocations and frees (see sampled.h).
 *
 * Owns the deferred frees (a signal handler's, and the removals a free
 * puts off: below), and the test for temporary allocations: a
 * recorded block whose free is the allocating thread's next allocation or
 * free (heaptrack's "temporary", per thread).  Every allocation that
 * reaches the slow path forgets the thread's last block; one that stays
 * on the fast path moves the countdown, which the free compares with its
 * value just after the block was recorded.  In exact mode every free
 * reaches the slow path and forgets the last block too.  At a sampled
 * rate most frees stay on the fast path, unseen, and the few that do not
 * are those of blocks that happen to share a page with a sampled one:
 * there only allocations count, so that the figure does not depend on
 * where the allocator put things.  Every function here runs
 * on the host's threads inside malloc or free: it saves and restores
 * errno, does its bookkeeping inside the guard (so nothing it calls is
 * sampled or re-enters a lock it holds), takes at most one shard lock at a
 * time and never calls the host allocator for itself.
 *
 * Calls to the next allocator are written (hp_next.malloc)(n): the
 * parentheses keep banned.h's guard against plain malloc() calls intact.
 */
#include <errno.h>
#include <string.h>

#include "next/nextcxx.h"
#include "record/live.h"
#include "record/peak.h"
#include "record/stale.h"
#include "record/sampled.h"
#include "record/probes.h"
#include "record/switches.h"
#include "next/next.h"
#include "next/privheap.h"
#include "record/sample.h"
#include "stack/stack.h"
#include "record/stacktab.h"
#include "record/counters.h"
#include "record/threads.h"
#include "record/tls.h"
#include "record/trigger.h"
#include "base/banned.h"

/* The removals frees put off (see "deferred removals" below), oldest
 * first. */
#ifndef HP_DEFER_SLOTS
#define HP_DEFER_SLOTS 32
#endif
#define DEFER_SLOTS HP_DEFER_SLOTS
static __thread struct {
	/* Each entry ~(p | DEFER_TAKEN), inverted as every address heapprof
	 * keeps where the leak scan reads (thread-local memory); 0: done. */
	uintptr_t w[DEFER_SLOTS];
	uint32_t n;      /* entries: w[0] to w[n - 1] */
	/* Depth inside an operation on them (which calls the next
	 * allocator's free): a signal handler that interrupts it frees its
	 * block the whole way at once, and a reader or an allocation leaves
	 * the entries alone, so that a handler never hands the allocator a
	 * block the program freed outside it while the allocator is busy.
	 * The program's other calls into the allocator need no such care:
	 * every slow path did what waited before it (decide(), free_big). */
	uint32_t busy;
} deferred;

/* Whether removals wait: only ever once the tables are large, which the
 * paths test first (one load of a shared byte, not the thread's own
 * block's address from the GOT: on exact churn, whose tables stay small,
 * that was 7 instructions a malloc and 12 a free). */
HP_INLINE bool waiting(void)
{
	return HP_LOAD(&hp_live_tables_big) && deferred.n;
}

HP_INLINE void busy_enter(void)
{
	deferred.busy++;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

HP_INLINE void busy_leave(void)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	deferred.busy--;
}
static HP_NOINLINE HP_COLD void drain_deferred(struct hp_tls *t);
static HP_NOINLINE void finish_batch(struct hp_tls *t);

/* ---- the sampling decision ------------------------------------------ */

HP_INLINE uint64_t draw(struct hp_tls *t, int lg)
{
	if (!HP_LOAD(&hp_switches.enabled))
		return UINT64_MAX;
	if (lg == 0)
		return 0;
	return hp_sample_draw(&t->rng, lg);
}

/* decide()'s rate for an allocation of the thread that works in the
 * private heap (next/privheap.h): not sampled, and made there. */
#define LG_PRIVATE (-1)

/* Whether the thread is in the exact lane, outside the guard: in exact
 * mode, active and counting no bytes allocated (lg_prof_interval off),
 * as at its last allocation, so that every allocation is sampled, at
 * rate 0.  Any change of these bumps the epoch (record/switches.h). */
HP_INLINE bool exact_lane(const struct hp_tls *t)
{
	return !t->guard && t->lane_epoch == HP_LOAD(&hp_switches.epoch);
}

/* A thread in exact mode at epoch enters the lane when nothing else
 * needs a test per allocation: prof.active on, no bytes allocated
 * counted, and its record ready to sample (record_alloc's checks). */
HP_INLINE void enter_lane(struct hp_tls *t, uint32_t epoch)
{
	const struct hp_thread *th = t->thread;

	hp_tls_errno(t);   /* the lane takes it as kept */
	if (HP_LOAD(&hp_switches.active) && !HP_LOAD(&hp_switches.count_alloc) && th && th->frames &&
	    HP_LOAD(&th->active))
		t->lane_epoch = epoch;
}

/* decide() for a thread in the exact lane: the countdown stays 0 (a
 * signal handler's allocation in between took its count back).  What
 * the general case would do, with nothing to draw or test, and no bytes
 * to count; and start-up was complete (the thread set its lane_epoch
 * after it saw ready, which stays set). */
HP_INLINE void decide_exact(struct hp_tls *t)
{
	hp_trigger_poll();   /* no helper thread: answer a request here */
	t->last_inv = 0;   /* an allocation: the last block is not temporary */
	hp_tls_set_countdown(t, 0);
}

/* Called when n reached the countdown (or the thread has none yet).
 * Returns whether this allocation is sampled, and the rate it was drawn
 * at, and arms the next countdown. */
HP_INLINE bool decide(struct hp_tls *t, size_t n, int *lg)
{
	*lg = 0;
	if (t->guard) {
		if (HP_UNLIKELY(hp_privheap_mine()))
			*lg = LG_PRIVATE;
		return false;
	}
	/* The frees put off come first: the peak, the triggers and the
	 * allocator see them before this allocation, as they happened. */
	if (HP_UNLIKELY(waiting()) && !deferred.busy)
		drain_deferred(t);
	uint32_t epoch = HP_LOAD(&hp_switches.epoch);
	if (HP_LIKELY(t->lane_epoch == epoch)) {
		decide_exact(t);
		return true;
	}
	if (!HP_LOAD_ACQ(&hp_switches.ready))
		return false;
	if (t->exact_epoch == epoch)
		enter_lane(t, epoch);   /* from the next allocation on */
	hp_trigger_poll();
	t->last_inv = 0;
	/* A signal handler that allocated more than the countdown between
	 * hp_tls_fast's failed count and its taking back leaves it wrapped
	 * round: the sample point has passed. */
	if (hp_tls_countdown(t) > t->last_draw)
		hp_tls_set_countdown(t, 0);
	*lg = HP_LOAD(&hp_switches.lg_sample);
	if (t->epoch != epoch) {
		/* First allocation of this thread, or the rate changed: draw a
		 * fresh wait and test this allocation against it, so that no
		 * allocation is sampled merely for coming first. */
		t->epoch = epoch;
		if (!t->rng)
			t->rng = hp_sample_seed(t);
		t->last_draw = draw(t, *lg);
		/* Exact mode (draw's 0 with nothing off) until the epoch's
		 * next change: the shortcut above. */
		t->exact_epoch = *lg == 0 && HP_LOAD(&hp_switches.enabled) ? epoch : 0;
		t->lane_epoch = 0;
		if (t->exact_epoch)
			enter_lane(t, epoch);
		hp_tls_set_countdown(t, t->last_draw);
		if (n < t->last_draw) {
			hp_tls_set_countdown(t, t->last_draw - n - 1);
			return false;
		}
	}
	/* Bytes allocated since the last sample point, this block included
	 * (n + 1 for each allocation the fast path counted): what
	 * lg_prof_interval counts. */
	hp_trigger_note_alloc(t, t->last_draw - hp_tls_countdown(t) + n);
	t->last_draw = draw(t, *lg);
	hp_tls_set_countdown(t, t->last_draw);
	return HP_LOAD(&hp_switches.active);
}

/* ---- recording ------------------------------------------------------- */

static uint64_t record_size(size_t n)
{
	return n > HP_LIVE_SIZE_MAX ? HP_LIVE_SIZE_MAX : n;
}

/* Exact mode's weight is 1 and needs no arithmetic. */
HP_INLINE void weight(uint64_t size, int lg, uint64_t *cnt, uint64_t *bytes)
{
	if (HP_LIKELY(lg == 0)) {
		*cnt = HP_CNT_ONE;
		*bytes = size;
	} else {
		hp_sample_weight(size, lg, cnt, bytes);
	}
}

/* The context id the stack's hint names, when it is this thread's for
 * (sid, lg, gen); else 0.  s: the stack's record, or NULL. */
HP_INLINE uint32_t hinted(const struct hp_thread *th, const struct hp_stack *s, uint32_t sid, int lg,
			  uint16_t gen)
{
	uint32_t id = s ? HP_LOAD(&s->ctx_hint) : 0;
	if (!id)
		return 0;
	const struct hp_counters *c = hp_counters_of(id);
	return HP_LOAD_ACQ(&c->stack) == sid && c->thread == th->uid && c->lg == (uint8_t)lg && c->gen == gen
		? id : 0;
}

/* The thread's context for (sid, lg, the current generation), and its
 * id in *cid; NULL when ids or memory ran out.  Consecutive samples from
 * one place hit the one-entry cache, which keeps the context itself, so
 * that a hit looks nothing up; then the stack's hint (s: its record, or
 * NULL), then the thread's map. */
HP_INLINE struct hp_counters *context(struct hp_thread *th, uint32_t sid, const struct hp_stack *s, int lg,
				      uint32_t *cid)
{
	uint16_t gen = HP_LOAD(&hp_switches.gen);
	uint64_t key = (uint64_t)sid | ((uint64_t)lg << 32) | ((uint64_t)gen << 40);

	if (HP_LIKELY(key == th->last_ctx_key && th->last_ctx_rec)) {
		*cid = th->last_ctx;
		return th->last_ctx_rec;
	}
	/* A stack the unwinder vouched for was not looked up: its record
	 * is had by id. */
	uint32_t id = hinted(th, s ? s : hp_stacktab_get(sid), sid, lg, gen);
	if (!id) {
		id = hp_counters_get(th, sid, lg, gen);
		if (id && s && !HP_LOAD(&s->ctx_hint))
			HP_STORE(&((struct hp_stack *)s)->ctx_hint, id);   /* the one field written after interning */
	}
	struct hp_counters *c = id ? hp_counters_at(id) : NULL;
	th->last_ctx_key = key;
	th->last_ctx = id;
	th->last_ctx_rec = c;
	*cid = id;
	return c;
}

/* Records p (n bytes, sampled at rate lg) with the current call stack;
 * lane: from the exact lane (lg 0, errnop kept).  Inlined into each slow
 * path so that the unwinder walks one frame of ours, not three. */
HP_INLINE void record_alloc(struct hp_tls *t, void *p, size_t n, int lg, bool lane)
{
	int *errp = lane ? t->errnop : hp_tls_errno(t);
	int saved_errno = *errp;
	uint64_t size = record_size(n);

	hp_tls_guard_enter_outer(t);   /* decide() said sample: outside it */
	hp_live_prefetch(p);
	struct hp_thread *th = t->thread;
	if (lane)
		goto ready;   /* enter_lane checked, hp_tls_leave_lane keeps it true */
	if (HP_UNLIKELY(!th || !th->frames))
		th = hp_threads_self();
	if (!th || !HP_LOAD(&th->active)) {
		HP_STORE(&hp_switches.missed, 1);
		goto out;
	}
ready:;
	bool same;
	int top;
	struct hp_unwind_memo *memo;
	int depth = hp_stack_capture(th->stack_lo, th->stack_hi, th->frames, HP_LOAD(&hp_switches.bt_max),
				     th->memos, &memo, &same, &top);
	/* The unwinder vouches for a stack identical to its memo's last
	 * walk's: no lookup.  Else the stack's frames are in that memo,
	 * whose frames name their nodes in the stack table (only the new
	 * ones are looked up), or in th->frames. */
	const struct hp_stack *s = NULL;
	uint32_t sid = memo->sid;
	if (!same || !sid) {
		s = top >= 0 ? hp_stacktab_memo(memo, top, (uint32_t)depth)
			     : hp_stacktab_intern(th->frames, (uint32_t)depth);
		sid = s ? s->id : 0;
	}
	memo->sid = memo->last_ok ? sid : 0;
	uint32_t cid = 0;
	struct hp_counters *c = sid ? context(th, sid, s, lg, &cid) : NULL;
	if (HP_UNLIKELY(!c)) {
		HP_ADD(&hp_switches.dropped, 1);
		HP_STORE(&hp_switches.missed, 1);
		goto out;
	}
	uint64_t cnt, bytes;
	weight(size, lg, &cnt, &bytes);
	int64_t key = hp_peak_key();
	hp_counters_add(c, cnt, bytes);
	if (HP_UNLIKELY(!hp_live_insert(p, size, cid))) {
		hp_counters_sub(c, cnt, bytes, 1);
		HP_ADD(&hp_switches.dropped, 1);
		HP_STORE(&hp_switches.missed, 1);
		goto out;
	}
	hp_peak_grow((int64_t)bytes, key, c->gen);
	hp_peak_keep_alloc(c, key, cnt, bytes);   /* after: a new peak needs no copy */
	hp_trigger_note_live(t, (int64_t)bytes);
	HP_PROBE_ALLOC(p, size, bytes);
	/* The countdown as the next free will find it if this thread
	 * allocates nothing before: the one the guard gives back.  Set
	 * inside the guard, so that what a signal handler allocates after
	 * it is left counts as in between. */
	t->last_inv = ~(uintptr_t)p;
	t->last_mark = t->saved_ahead;
out:
	hp_tls_guard_leave_outer(t);
	if (HP_UNLIKELY(t->npending))
		hp_sampled_drain(t);
	*errp = saved_errno;
}

/* Whether p, about to be freed, is this thread's last recorded block with
 * no allocation (in exact mode: no allocation or free) of the thread
 * since.  Outside the guard, which parks the countdown; the owner check
 * is account_free's. */
HP_INLINE bool temporary(struct hp_tls *t, const void *p)
{
	return ~(uintptr_t)p == t->last_inv && t->ahead == t->last_mark;
}

/* A free: in exact mode, the thread's last block is no longer temporary.
 * (A countdown of 0 is not enough to tell: a sampled wait may be 0.  The
 * thread is in exact mode while its exact_epoch is the current one.) */
HP_INLINE void forget_on_free(struct hp_tls *t)
{
	if (t->exact_epoch == HP_LOAD(&hp_switches.epoch))
		t->last_inv = 0;
}

/* Subtracts a removed record's weight from its context; tmp: it was the
 * thread's last block (temporary(), taken before the guard). */
HP_INLINE void account_free(struct hp_tls *t, const void *p, uint64_t size, uint32_t cid, bool tmp)
{
	struct hp_counters *c = hp_counters_of(cid);
	uint64_t cnt, bytes;

	weight(size, c->lg, &cnt, &bytes);
	HP_PROBE_FREE(p, size, bytes);
	int own = t->thread && t->thread->uid == c->thread;
	/* Contexts of an older reset generation are out of the peak. */
	bool current = c->gen == HP_LOAD(&hp_switches.gen);
	if (current)
		hp_peak_keep(c, hp_peak_key());
	hp_counters_sub(c, cnt, bytes, own);
	if (tmp && own)
		hp_counters_temporary(c, cnt);
	if (current)
		hp_peak_shrink((int64_t)bytes, c->gen);
	hp_trigger_note_live(t, -(int64_t)bytes);
}

/* ---- deferred removals ---------------------------------------------- */

/* A free's removal from a large live table starts with a cache miss on
 * the block's slot (its address is random to the table: perl's hash
 * freed at exit, 600 k blocks, spent 14-16% of its run on that load), and
 * glibc's free with another on the chunk's header.  So, where nothing can
 * read the figures meanwhile but the thread itself, a free only takes a
 * place in the thread's batch of DEFER_SLOTS frees (and prefetches the
 * chunk's header); when the batch is full, its removals, their counts
 * and the allocator's frees are done together, after a pass that
 * prefetches every slot, so that their misses overlap.  The block stays
 * allocated until then: its address cannot come back from malloc while
 * its record is in the table.
 *
 * Batches, not a ring that did one old entry a free: what a free does
 * between two of the program's frees matters, not only its misses.  A
 * long free keeps the program's next loads out of the processor's
 * window: perl's hash freed at exit ran perl's own code twice as slow
 * under a ring of 8 (a free of ~300 instructions of ours), with the
 * table's misses all hidden, and as slow with a free that only spun
 * for 300 instructions and touched nothing; a free of ~20 instructions
 * left it as fast as bare.  Batches of 32 took perl's run (exact, CPU)
 * from 1.84x to 1.53x bare (16: 1.58x, 64: 1.61x; medians of 11,
 * alternated).
 *
 * Where: exact mode (every allocation reaches decide(), which first does
 * what was put off, so the peak, the triggers and the allocator see the
 * frees before the next allocation, as they happened), tables past the
 * caches (hp_live_tables_big: below that the slot is in cache, and the
 * ring only costs), a process of one thread (then every reader of the
 * figures runs on this thread: a dump, the leak summary and scan, the
 * bell's statistics, all of which settle first with hp_sampled_settle;
 * intercept's pthread_create does the rest before a second thread
 * exists), and not a temporary block (its slot is in cache: the
 * allocation wrote it).  A fork child inherits the entries with the
 * blocks, as allocated, and does them itself. */
#define DEFER_TAKEN ((uintptr_t)1)   /* out of the table already: only the free is left */

/* Takes p's record out of the live table and its weight out of its
 * counters, as hp_sampled_free does; stamps it freed. */
HP_INLINE enum hp_live_result take_out(struct hp_tls *t, void *p)
{
	uint64_t size;
	uint32_t cid;

	hp_tls_guard_enter(t);
	enum hp_live_result r = hp_live_remove(p, &size, &cid);
	if (r == HP_LIVE_REMOVED)
		account_free(t, p, size, cid, false);
	hp_sampled_leave(t);
	if (r == HP_LIVE_REMOVED)
		hp_stale_stamp(p);
	return r;
}

static void defer_free(struct hp_tls *t, void *p);

/* What an entry put off: the removal unless a reader took it out, then
 * the allocator's free. */
HP_INLINE void finish(struct hp_tls *t, uintptr_t w)
{
	uintptr_t v = ~w;
	void *p = (void *)(v & ~DEFER_TAKEN);

	if (!(v & DEFER_TAKEN) && take_out(t, p) == HP_LIVE_BUSY) {
		defer_free(t, p);
		return;
	}
	(hp_next.free)(p);
}


/* Puts p's removal off: its chunk header is fetched now (that line is
 * the program's: glibc's free missed on it when it came 32 frees
 * later), and when the batch is full, every entry is done at once. */
static void defer_removal(struct hp_tls *t, void *p)
{
	busy_enter();
	__builtin_prefetch((const char *)p - 2 * sizeof(size_t), 1);   /* glibc's chunk header */
	uint32_t n = deferred.n;
	deferred.w[n] = ~(uintptr_t)p;
	deferred.n = n + 1;
	if (n + 1 == DEFER_SLOTS)
		finish_batch(t);
	busy_leave();
}

/* Everything put off, oldest first.  Busy. */
static HP_NOINLINE void finish_batch(struct hp_tls *t)
{
	uint32_t n = deferred.n;

	/* The shards' lines, then the slots, whose addresses they hold:
	 * each pass's misses overlap one another. */
	for (uint32_t i = 0; i < n; i++)
		hp_live_prefetch_shard((const void *)~deferred.w[i]);
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t v = ~deferred.w[i];
		if (deferred.w[i] && !(v & DEFER_TAKEN))
			hp_live_prefetch_remove((const void *)v);
	}
	for (uint32_t i = 0; i < n; i++) {
		uintptr_t w = deferred.w[i];
		if (!w)
			continue;
		deferred.w[i] = 0;
		finish(t, w);
	}
	deferred.n = 0;
}

static HP_NOINLINE HP_COLD void drain_deferred(struct hp_tls *t)
{
	int *errp = hp_tls_errno(t), saved_errno = *errp;

	busy_enter();
	finish_batch(t);
	busy_leave();
	*errp = saved_errno;
}

/* A free while the tables are large: put off (true: done with), or
 * else first what waits (a second thread, a sampled rate, a temporary
 * block: which comes right after an allocation, which did it anyway), so
 * that nothing of the program's waits while this free is inside the
 * allocator, where a signal handler's free must not hand it more. */
static HP_NOINLINE bool free_big(struct hp_tls *t, void *p, bool tmp)
{
	if (t->exact_epoch == HP_LOAD(&hp_switches.epoch) && !tmp && hp_single_threaded() && !t->guard &&
	    !deferred.busy && !hp_privheap_owns(p)) {
		defer_removal(t, p);
		return true;
	}
	if (deferred.n && !deferred.busy && !t->guard)
		drain_deferred(t);
	return false;
}

/* Safe at any point of this thread's own operations, which a signal
 * handler's dump may interrupt: an entry one of them already holds in a
 * local is taken out here, and there finds no record (HP_LIVE_ABSENT) and
 * is only freed; a mark here that it overwrites is of such an entry.
 * Busy meanwhile, so that no handler's free edits the entries under it. */
void hp_sampled_settle(void)
{
	struct hp_tls *t = &hp_tls;

	if (HP_LIKELY(!waiting()))
		return;
	busy_enter();
	for (uint32_t i = 0; i < deferred.n; i++) {
		uintptr_t v = ~deferred.w[i];
		if (deferred.w[i] && !(v & DEFER_TAKEN) && take_out(t, (void *)v) != HP_LIVE_BUSY)
			deferred.w[i] = ~(v | DEFER_TAKEN);
	}
	busy_leave();
}

void hp_sampled_drain_deferred(void)
{
	struct hp_tls *t = &hp_tls;

	if (HP_UNLIKELY(waiting()) && !deferred.busy && !t->guard)
		drain_deferred(t);
}

/* ---- slow paths ------------------------------------------------------ */

/* The exact lane has its own copy of record_alloc, with the rate a
 * constant 0: its weight, context key and peak need no test of it. */
void *hp_sampled_malloc(size_t n)
{
	struct hp_tls *t = &hp_tls;
	if (HP_LIKELY(exact_lane(t))) {
		if (HP_UNLIKELY(waiting()) && !deferred.busy)
			drain_deferred(t);   /* as decide() does first */
		decide_exact(t);
		void *p = (hp_next.malloc)(n);

		if (HP_LIKELY(p)) {
			hp_stale_scrub(p, 0, n);
			record_alloc(t, p, n, 0, true);
		}
		return p;
	}
	int lg;
	bool sample = decide(t, n, &lg);
	void *p;

	if (HP_UNLIKELY(!sample && lg == LG_PRIVATE) && (p = hp_privheap_malloc(n)))
		return p;
	p = (hp_next.malloc)(n);
	if (sample && p) {
		hp_stale_scrub(p, 0, n);
		record_alloc(t, p, n, lg, false);
	}
	return p;
}

void *hp_sampled_calloc(size_t n, size_t m)
{
	struct hp_tls *t = &hp_tls;
	size_t total = n * m;   /* the caller checked for overflow */
	int lg;
	bool sample = decide(t, total, &lg);
	void *p;

	if (HP_UNLIKELY(!sample && lg == LG_PRIVATE) && (p = hp_privheap_calloc(total)))
		return p;
	p = (hp_next.calloc)(n, m);

	if (sample && p)
		record_alloc(t, p, total, lg, false);
	return p;
}

void *hp_sampled_aligned(enum hp_sampled_align kind, size_t align, size_t n)
{
	struct hp_tls *t = &hp_tls;
	int lg;
	bool sample = decide(t, n, &lg);
	void *p = NULL;

	switch (kind) {
	case HP_SAMPLED_MEMALIGN:
		p = (hp_next.memalign)(align, n);
		break;
	case HP_SAMPLED_ALIGNED_ALLOC:
		p = (hp_next.aligned_alloc)(align, n);
		break;
	case HP_SAMPLED_VALLOC:
		p = (hp_next.valloc)(n);
		break;
	case HP_SAMPLED_PVALLOC:
		p = (hp_next.pvalloc)(n);
		break;
	}
	if (sample && p) {
		hp_stale_scrub(p, 0, n);
		record_alloc(t, p, n, lg, false);
	}
	return p;
}

int hp_sampled_posix_memalign(void **out, size_t align, size_t n)
{
	struct hp_tls *t = &hp_tls;
	int lg;
	bool sample = decide(t, n, &lg);
	int err = (hp_next.posix_memalign)(out, align, n);

	if (sample && !err) {
		hp_stale_scrub(*out, 0, n);
		record_alloc(t, *out, n, lg, false);
	}
	return err;
}

/* Queues p for freeing when the guard is left; leaks it if the queue is
 * full (a signal handler freeing many sampled blocks while interrupting
 * the profiler: leaking beats corrupting). */
static void defer_free(struct hp_tls *t, void *p)
{
	if (t->npending < HP_PENDING_MAX)
		t->pending[t->npending++] = p;
}

void hp_sampled_drain(struct hp_tls *t)
{
	while (t->npending && !t->guard) {
		void *p = t->pending[--t->npending];
		hp_sampled_free(p);
	}
}

void hp_sampled_free(void *p)
{
	struct hp_tls *t = &hp_tls;
	int *errp = hp_tls_errno(t);
	int saved_errno = *errp;
	uint64_t size;
	uint32_t cid;

	if (hp_next_pool_owns(p))
		return;   /* bootstrap memory is never reused */
	bool tmp = temporary(t, p);
	forget_on_free(t);
	/* One load of a shared byte: small tables (exact churn) pay nothing
	 * more for what follows. */
	if (HP_UNLIKELY(HP_LOAD(&hp_live_tables_big)) && free_big(t, p, tmp)) {
		*errp = saved_errno;
		return;
	}
	hp_tls_guard_enter(t);
	enum hp_live_result r = hp_live_remove(p, &size, &cid);
	if (r == HP_LIVE_REMOVED)
		account_free(t, p, size, cid, tmp);
	hp_sampled_leave(t);
	*errp = saved_errno;
	if (r == HP_LIVE_BUSY) {
		defer_free(t, p);
		return;
	}
	if (r == HP_LIVE_REMOVED)
		hp_stale_stamp(p);
	else if (hp_privheap_owns(p)) {
		hp_privheap_free(p);
		return;
	}
	(hp_next.free)(p);
}

/* realloc from a signal handler that interrupted the profiler while it
 * held p's shard: move the block by hand and free the old one later. */
static void *realloc_deferred(struct hp_tls *t, void *p, size_t n)
{
	if (n == 0) {
		defer_free(t, p);
		return NULL;
	}
	void *q = (hp_next.malloc)(n);
	if (q) {
		size_t old = hp_next.malloc_usable_size ? hp_next.malloc_usable_size(p) : n;
		memcpy(q, p, old < n ? old : n);
		defer_free(t, p);
	}
	return q;
}

void *hp_sampled_realloc(void *p, size_t n)
{
	struct hp_tls *t = &hp_tls;
	uint64_t old_size = 0;
	uint32_t old_cid = 0;
	int lg = 0;

	if (p && hp_next_pool_owns(p))
		return hp_next_pool_realloc(p, n);
	if (p && hp_privheap_owns(p))
		return hp_privheap_realloc(p, n);
	bool tmp = p && temporary(t, p);   /* before decide() forgets it */
	/* The new block is an allocation of n bytes, sampled as any other:
	 * here also when only the old block brought us (it may be a sampled
	 * one), so the countdown decides, not the way in. */
	bool sample = !hp_tls_fast(n) && decide(t, n, &lg);
	void *own;
	if (HP_UNLIKELY(!p && !sample && lg == LG_PRIVATE) && (own = hp_privheap_malloc(n)))
		return own;

	/* Take the old record out before the block can be freed and its
	 * address handed to another thread. */
	enum hp_live_result r = HP_LIVE_ABSENT;
	if (p && hp_filter_maybe(p)) {
		int *errp = hp_tls_errno(t), saved_errno = *errp;
		hp_tls_guard_enter(t);
		r = hp_live_remove(p, &old_size, &old_cid);
		hp_sampled_leave(t);
		*errp = saved_errno;
		if (r == HP_LIVE_BUSY)
			return realloc_deferred(t, p, n);
	}

	/* Stamped as freed (record/stale.h) in case it moves: the stamp is
	 * then copied, and the moved block gets its word back; in place, or
	 * on failure, the block gets it back. */
	uintptr_t word = 0;
	bool stamped = r == HP_LIVE_REMOVED && hp_stale_on();
	if (stamped) {
		word = ((uintptr_t *)p)[2];
		hp_stale_stamp(p);
	}
	void *q = (hp_next.realloc)(p, n);
	int saved_errno = errno;
	if (stamped && (q || n != 0))
		((uintptr_t *)(q ? q : p))[2] = word;

	if (r == HP_LIVE_REMOVED) {
		hp_tls_guard_enter(t);
		if (q || n == 0)
			account_free(t, p, old_size, old_cid, tmp);   /* moved, or freed */
		else if (!hp_live_insert(p, old_size, old_cid))
			account_free(t, p, old_size, old_cid, false);   /* failed: p stays */
		hp_sampled_leave(t);
	}
	if (sample && q) {
		/* What the old block held is the program's; the rest is
		 * glibc's leftovers (when the old size is not known, all of
		 * it may be the program's). */
		if (!p)
			hp_stale_scrub(q, 0, n);
		else if (r == HP_LIVE_REMOVED)
			hp_stale_scrub(q, old_size, n);
		record_alloc(t, q, n, lg, false);
	}
	errno = saved_errno;
	return q;
}

size_t hp_sampled_usable_size(void *p)
{
	if (hp_next_pool_owns(p))
		return hp_next_pool_size(p);
	if (hp_privheap_owns(p))
		return hp_privheap_usable(p);
	return hp_next.malloc_usable_size ? hp_next.malloc_usable_size(p) : 0;
}

/* ---- C++ operators of a direct allocator ---------------------------- */

/* std::nothrow: an empty object passed by reference; never read. */
static const char nothrow_tag;

void *hp_sampled_new(enum hp_nextcxx_kind kind, size_t n, size_t al)
{
	struct hp_tls *t = &hp_tls;
	void *f = hp_nextcxx_fn(kind);
	int lg;
	bool sample = decide(t, n, &lg);
	void *p = NULL;
	HP_TLS_GUARD_SCOPE(g, t);   /* left by a cleanup if operator new throws */

	switch (kind) {
	case HP_CXX_NEW:
	case HP_CXX_NEW_ARR:
		p = ((void *(*)(size_t))f)(n);
		break;
	case HP_CXX_NEW_NT:
	case HP_CXX_NEW_ARR_NT:
		p = ((void *(*)(size_t, const void *))f)(n, &nothrow_tag);
		break;
	case HP_CXX_NEW_AL:
	case HP_CXX_NEW_ARR_AL:
		p = ((void *(*)(size_t, size_t))f)(n, al);
		break;
	default:
		p = ((void *(*)(size_t, size_t, const void *))f)(n, al, &nothrow_tag);
		break;
	}
	hp_sampled_leave(t);
	g.t = NULL;
	if (sample && p)
		record_alloc(t, p, n, lg, false);
	return p;
}

void hp_sampled_delete(enum hp_nextcxx_kind kind, void *p, size_t n, size_t al)
{
	struct hp_tls *t = &hp_tls;
	void *f = hp_nextcxx_fn(kind);
	int *errp = hp_tls_errno(t), saved_errno = *errp;
	uint64_t size;
	uint32_t cid;
	bool tmp = temporary(t, p);

	forget_on_free(t);
	hp_tls_guard_enter(t);
	enum hp_live_result r = hp_live_remove(p, &size, &cid);
	if (r == HP_LIVE_REMOVED)
		account_free(t, p, size, cid, tmp);
	hp_sampled_leave(t);
	*errp = saved_errno;
	if (r == HP_LIVE_BUSY) {
		defer_free(t, p);   /* the allocator's free takes its new'd blocks */
		return;
	}
	if (HP_UNLIKELY(waiting()) && !deferred.busy && !t->guard)
		drain_deferred(t);   /* see free_big */
	switch (kind) {
	case HP_CXX_DL:
	case HP_CXX_DL_ARR:
		((void (*)(void *))f)(p);
		break;
	case HP_CXX_DL_NT:
	case HP_CXX_DL_ARR_NT:
		((void (*)(void *, const void *))f)(p, &nothrow_tag);
		break;
	case HP_CXX_DL_SZ:
	case HP_CXX_DL_ARR_SZ:
		((void (*)(void *, size_t))f)(p, n);
		break;
	case HP_CXX_DL_AL:
	case HP_CXX_DL_ARR_AL:
		((void (*)(void *, size_t))f)(p, al);
		break;
	case HP_CXX_DL_AL_NT:
	case HP_CXX_DL_ARR_AL_NT:
		((void (*)(void *, size_t, const void *))f)(p, al, &nothrow_tag);
		break;
	default:
		((void (*)(void *, size_t, size_t))f)(p, n, al);
		break;
	}
}
