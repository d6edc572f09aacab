/*
 * tls.h -- the per-thread state the fast path reads, and the re-entrancy
 * guard.
 *
 * The countdown is the fast path's only input: malloc(n) forwards at once
 * when n < countdown, and counts n + 1 down.  It is kept complemented
 * (ahead = ~countdown), so that on x86_64 one add-with-carry into the
 * thread's slot both counts and tests (hp_tls_fast).  The guard reuses it: while a thread is inside the
 * profiler (unwinding, interning a stack, writing a dump) its countdown is
 * parked at UINT64_MAX, so every allocation made by libunwind, by the
 * dynamic loader on our behalf, or by a signal handler that interrupts us
 * takes the unsampled fast path without a flag test.  The real countdown
 * waits in saved_countdown.
 *
 * A new thread's TLS starts as tls.c's image: countdown 0 (ahead all
 * ones), which sends its first allocation to the slow path, where its
 * sampling state is set up.
 *
 * The bottom of the recording layer: the fast path, every slow path and
 * every thread that works inside the profiler (the helper thread, dump
 * writers, the exit handler) read and write it; it calls nothing.  Blocks
 * whose free had to wait (pending[]) are freed by record/sampled.h's
 * hp_sampled_leave, not here.
 */
#ifndef HP_TLS_H
#define HP_TLS_H

#pragma GCC visibility push(hidden)

#include <errno.h>
#include <stdint.h>

#include "base/compiler.h"

#define HP_PENDING_MAX 16

struct hp_thread;
struct hp_peak_slot;

struct hp_tls {
	uint64_t ahead;             /* ~(stream bytes before the next sample point) */
	uint64_t saved_ahead;       /* ahead while guarded */
	uint32_t guard;             /* nesting depth inside the profiler */
	uint32_t epoch;             /* sampling epoch of countdown; 0 = none */
	uint32_t exact_epoch;       /* epoch, when it samples everything
				     * (lg_prof_sample 0, prof on); else 0 */
	uint32_t lane_epoch;        /* exact_epoch, when also active and not
				     * counting bytes allocated, with errnop
				     * set and the thread's record ready to
				     * sample: the exact lane (record/sampled.c) */
	uint64_t rng;
	uint64_t last_draw;         /* the countdown drawn at the last sample point */
	/* Trigger accounting, published to trigger.c past a threshold. */
	uint64_t alloc_acc;         /* bytes allocated, not yet published */
	uint64_t live_biased;       /* live_step - 1 + estimated live bytes not
				     * yet published (a change of either sign) */
	uint64_t alloc_step;        /* published past these (record/trigger.h); */
	int64_t live_step;          /* 0: at the thread's first note */
	uint64_t live_span;         /* 2 live_step - 1: live_biased stays below */
	struct hp_thread *thread;   /* created on the first sample */
	/* The thread's slot of the peak's allowances (record/peak.h), NULL
	 * before its first recorded free: here, beside the rest, so that
	 * each recorded allocation and free reaches it without a look-up
	 * of its own. */
	struct hp_peak_slot *peak_slot;
	int *errnop;                /* &errno, kept from the first slow path on */
	/* The thread's last recorded block and its countdown just after it:
	 * freed while both still hold, the block is temporary (no allocation
	 * of this thread came between).  Slow paths only.  The address is
	 * kept inverted: as a pointer, the leak scan would take it for a
	 * reference that keeps the block reachable. */
	uintptr_t last_inv;
	uint64_t last_mark;
	/* Sampled blocks freed by a signal handler while this thread held the
	 * live-table shard they live in: freed when the guard is left. */
	uint32_t npending;
	void *pending[HP_PENDING_MAX];
	/* Inside the C library's pthread_getattr_np (record/threads.c), which
	 * holds the thread's descriptor lock while it allocates: asking for
	 * the thread's stack now would wait on that lock for ever. */
	uint32_t in_getattr;
};

extern __thread struct hp_tls hp_tls __attribute__((tls_model("initial-exec")));

/* The countdown, in stream bytes (record/sample.h). */
HP_INLINE uint64_t hp_tls_countdown(const struct hp_tls *t)
{
	return ~t->ahead;
}

HP_INLINE void hp_tls_set_countdown(struct hp_tls *t, uint64_t c)
{
	t->ahead = ~c;
}

/* The fast path's whole test: the n + 1 stream bytes of an n-byte
 * allocation (record/sample.h) end before this thread's next sample point,
 * so count them and forward.  ahead + n + 1 is ~(countdown - n - 1), and
 * carries exactly when countdown <= n: on x86_64 one add-with-carry into
 * the thread's slot (a single instruction: a signal handler sees it done
 * or not) counts and tests.  False, the count is taken back, and the call
 * goes to the slow path (a sample, a thread's first allocation, or exact
 * mode). */
HP_INLINE int hp_tls_fast(uint64_t n)
{
	_Bool carry;

#if defined(__x86_64__) && defined(__GCC_ASM_FLAG_OUTPUTS__) && !defined(HP_TLS_GENERIC)
	__asm__("stc\n\tadcq %2, %0" : "+m"(hp_tls.ahead), "=@ccc"(carry) : "r"(n));
#else
	/* a + n + 1 carries exactly when n >= ~a (the countdown): one
	 * compare instead of two overflow tests (aarch64: mvn, add, add,
	 * cmp). */
	uint64_t a = hp_tls.ahead;
	hp_tls.ahead = a + n + 1;
	carry = n >= ~a;
#endif
	if (HP_LIKELY(!carry))
		return 1;
	hp_tls.ahead -= n + 1;
	return 0;
}

/* The thread's record can no longer vouch for the exact lane (its
 * buffers went at its exit, or thread.prof.active changed): the next
 * allocation takes the general path, which checks again. */
HP_INLINE void hp_tls_leave_lane(struct hp_tls *t)
{
	t->lane_epoch = 0;
}

/* The thread's errno, which every slow path keeps: &errno is a call
 * into the C library (through the PLT), its address fixed for the
 * thread's life, so the first slow path keeps it. */
HP_INLINE int *hp_tls_errno(struct hp_tls *t)
{
	int *e = t->errnop;

	if (HP_UNLIKELY(!e))
		t->errnop = e = &errno;
	return e;
}

/* The outermost guard's entry, once its depth is counted: the countdown
 * put aside, and none left (a signal handler's allocation sees no sample
 * due). */
HP_INLINE void hp_tls_put_countdown_aside(struct hp_tls *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->saved_ahead = t->ahead;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->ahead = 0;   /* countdown UINT64_MAX: never a sample */
}

HP_INLINE void hp_tls_guard_enter(struct hp_tls *t)
{
	if (t->guard++ == 0)
		hp_tls_put_countdown_aside(t);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* hp_tls_guard_enter for a caller that knows the thread is outside the
 * guard (the allocation slow path after decide() said sample, which it
 * says only there): the same stores in the same order, without testing
 * the depth.  Left with hp_tls_guard_leave_outer. */
HP_INLINE void hp_tls_guard_enter_outer(struct hp_tls *t)
{
	t->guard = 1;
	hp_tls_put_countdown_aside(t);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* Leaves what hp_tls_guard_enter_outer entered: the depth is 1 again (a
 * signal handler that entered meanwhile left before returning). */
HP_INLINE void hp_tls_guard_leave_outer(struct hp_tls *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->ahead = t->saved_ahead;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->guard = 0;
}

HP_INLINE void hp_tls_guard_leave(struct hp_tls *t);

/* For __attribute__((cleanup)): leaves the guard when the scope is left,
 * normally or by a C++ exception unwinding through (needs -fexceptions). */
struct hp_tls_guard_scope {
	struct hp_tls *t;
};

#define HP_TLS_GUARD_SCOPE(name, tls) \
	struct hp_tls_guard_scope name __attribute__((cleanup(hp_tls_guard_scope_leave))) = { (tls) }; \
	hp_tls_guard_enter(tls)

HP_INLINE void hp_tls_guard_leave(struct hp_tls *t)
{
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (t->guard == 1) {
		t->ahead = t->saved_ahead;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->guard = 0;
		return;
	}
	t->guard--;
}

HP_INLINE void hp_tls_guard_scope_leave(struct hp_tls_guard_scope *s)
{
	if (s->t)
		hp_tls_guard_leave(s->t);
}

#pragma GCC visibility pop

#endif
