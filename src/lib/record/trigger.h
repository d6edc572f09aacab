/*
 * trigger.h -- what asks for a dump, and the counters the triggers watch.
 *
 * Requests are bits ORed into one word, which is also a futex: the helper
 * thread sleeps on it (hp_trigger_wait) and a request wakes it with
 * FUTEX_WAKE, once a thread has waited (a process without a helper makes
 * no system call for a request).  Both are async-signal-safe and use no
 * file descriptor, so the signal handler and the allocation slow path use
 * hp_trigger_request(), and nothing the program does to its descriptors
 * (closing them all, dup2 over any number) can lose or misdirect a
 * wake-up.  The helper thread takes the requests with hp_trigger_take()
 * and does the work.
 *
 * Counters: bytes allocated (for lg_prof_interval) and estimated live
 * bytes (for prof_gdump, dump_at_bytes and the cgroup check) are kept per
 * thread and published to shared atomics only in steps of 256 KiB to
 * 1 MiB, so exact mode does not share a cache line per allocation; at a
 * sampled rate R, in steps of at least 8 R, because one sample alone
 * moves the estimate by about R (with steps below R every sampled
 * allocation and free published, a shared atomic add each, a third of
 * a sample's cost on an allocation loop).  The published values lag by
 * at most one step per thread, eight samples' worth: within the
 * estimate's own sampling error.
 */
#ifndef HP_TRIGGER_H
#define HP_TRIGGER_H

#include <stdint.h>

#include "record/switches.h"
#include "record/tls.h"

#pragma GCC visibility push(hidden)

enum hp_request {
	HP_REQ_SIGNAL_DUMP = 1u << 0,   /* signal_dump arrived */
	HP_REQ_TOGGLE      = 1u << 1,   /* signal_toggle arrived */
	HP_REQ_INTERVAL    = 1u << 2,   /* 2^lg_prof_interval bytes allocated */
	HP_REQ_GDUMP       = 1u << 3,   /* live bytes passed the high-water mark */
	HP_REQ_THRESHOLD   = 1u << 4,   /* live bytes reached dump_at_bytes */
	HP_REQ_CGROUP      = 1u << 5,   /* heap grew: look at the cgroup now */
	HP_REQ_STATE       = 1u << 6,   /* republish the state file */
	HP_REQ_CONTROL     = 1u << 7,   /* the control signal: read the control files */
	HP_REQ_FINAL       = 1u << 8,   /* SIGTERM or SIGINT: the final dump, then die by it */
	HP_REQ_LEAKCHECK   = 1u << 9,   /* heapprof_leak_check(): the helper checks */
	/* Bits 16 and up are the heapprof command's, rung through the bell
	 * (src/bellpage.h): HP_BELL_DUMP, HP_BELL_ACTIVE, HP_BELL_LEAKS. */
};

/* What a process without a helper thread answers on its own threads (the
 * rest, the triggers, are only armed when a helper thread runs). */
#define HP_REQ_ANSWERABLE (HP_REQ_SIGNAL_DUMP | HP_REQ_TOGGLE | HP_REQ_STATE | HP_REQ_CONTROL | HP_REQ_FINAL | \
			   (1u << 16) | (1u << 17) | (1u << 18))

/* The request word lives in the bell's shared page once there is one
 * (output/bell.c), so that the heapprof command can ring it; before, and
 * when the page cannot be made, in this module.  shared: the futex calls
 * must not be the private kind.  Pending requests move to the new word. */
void hp_trigger_use_word(unsigned *word, int shared);
/* Where the published live total is also stored (the bell's live_bytes,
 * for heapprof ps), or NULL. */
void hp_trigger_mirror_live(int64_t *where);

/* A process without a helper thread: server (control/) answers the
 * answerable requests on whichever thread of the program's meets them,
 * at its next sample point (hp_trigger_poll) or in heapprof's signal
 * handler.  NULL once a helper thread takes them. */
typedef void hp_trigger_server(void);
void hp_trigger_set_server(hp_trigger_server *server);
extern unsigned *hp_trigger_word;
extern unsigned hp_trigger_answer_mask;
void hp_trigger_answer(void);
/* From heapprof's signal handlers, after the request: answers at once
 * when no helper thread runs and this thread is outside heapprof (the
 * server checks); not with dump_symbols, whose walk of the loader's list
 * of objects the interrupted code may be changing: that dump waits for
 * the thread's next sample point. */
void hp_trigger_answer_from_handler(void);

/* At a sample point, outside the guard and holding no lock: one load
 * while a helper thread answers (the mask is then 0). */
HP_INLINE void hp_trigger_poll(void)
{
	unsigned mask = HP_LOAD(&hp_trigger_answer_mask);

	if (HP_UNLIKELY(mask) && (HP_LOAD(hp_trigger_word) & mask))
		hp_trigger_answer();
}

/* Asks the helper thread for work: ORs reqs into the request word and
 * wakes the thread sleeping on it.  Async-signal-safe; errno is kept. */
void hp_trigger_request(unsigned reqs);
/* The helper thread sleeps until a request is made or timeout_ms pass
 * (at once when a request is waiting or timeout_ms <= 0).  It may also
 * return early (a signal, a spurious wake-up): callers look again. */
void hp_trigger_wait(int timeout_ms);
/* In a fork child: what was asked of the parent (a signal, heapprof dump,
 * a crossing) is the parent's to do; the child starts with nothing asked. */
void hp_trigger_postfork_child(void);
/* The helper takes what was asked since it last looked. */
unsigned hp_trigger_take(void);
/* Takes only the requests in mask (a thread answering without a helper). */
unsigned hp_trigger_take_some(unsigned mask);
/* Toggle signals received (the helper flips prof_active once per odd). */
unsigned hp_trigger_take_toggles(void);
void hp_trigger_note_toggle(void);

/* The allocation slow path's bookkeeping (see above). */
#define HP_TRIGGER_ALLOC_STEP (1u << 20)
#define HP_TRIGGER_LIVE_STEP  (1u << 18)
void hp_trigger_publish(struct hp_tls *t);

/* A publishing step: base, or 8 sample intervals at the current rate
 * (lg_sample is at most HP_LG_SAMPLE_MAX, 40: no overflow).  Each publish
 * sets the thread's next steps, so that the notes below compare with a
 * field of the thread's (at a new rate, from the thread's next publish
 * on). */
HP_INLINE uint64_t hp_trigger_step(uint64_t base)
{
	uint64_t per_rate = (uint64_t)8 << HP_LOAD(&hp_switches.lg_sample);

	return per_rate > base ? per_rate : base;
}

HP_INLINE void hp_trigger_note_alloc(struct hp_tls *t, uint64_t bytes)
{
	t->alloc_acc += bytes;
	if (HP_UNLIKELY(t->alloc_acc >= t->alloc_step))
		hp_trigger_publish(t);
}

/* Published when the thread's change reaches a step either way: kept
 * as live_step - 1 + the change, so that one unsigned compare with
 * 2 live_step - 1 tests both bounds (at -live_step it wraps round). */
HP_INLINE void hp_trigger_note_live(struct hp_tls *t, int64_t bytes)
{
	t->live_biased += (uint64_t)bytes;
	if (HP_UNLIKELY(t->live_biased >= t->live_span))
		hp_trigger_publish(t);
}

/* Published totals. */
uint64_t hp_trigger_allocated(void);
int64_t hp_trigger_live(void);

/* Thresholds, set by the helper thread (0 or UINT64_MAX/INT64_MAX: off). */
void hp_trigger_arm_interval(uint64_t next_allocated);
void hp_trigger_arm_gdump(int64_t next_live);
void hp_trigger_arm_threshold(int64_t next_live);
void hp_trigger_arm_cgroup(int64_t next_live);

#pragma GCC visibility pop

#endif
