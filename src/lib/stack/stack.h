/*
 * stack.h -- capturing the allocating call stack.
 *
 * Frames are innermost first.  Our own frames (the interposed function and
 * everything below it in libheapprof) are removed, and the first remaining
 * frame, a return address into the code that called malloc, is moved back
 * by one byte so that it points into the call instruction (by the
 * interned stack's readers, record/stacktab.h): both jeprof (which adjusts
 * every frame but the first) and pprof (which adjusts every frame) then
 * symbolize it to the calling line.  A stack is never empty: when
 * unwinding yields nothing, the single frame is the address inside
 * heapprof_unwind_failed that symbolizes to that name.
 */
#ifndef HP_STACK_H
#define HP_STACK_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "base/compiler.h"
#include "base/sandbox.h"
#include "stack/unwind.h"

#define HP_BT_LIMIT 1024     /* hard cap on prof_bt_max */
#define HP_BT_SLACK 32       /* room for our own frames above the caller */

/* Finds heapprof's own code, then sets up libunwind (hp_stack_warm)
 * unless that was deferred.  Must be called inside the guard. */
void hp_stack_init(void);
/* Sets up libunwind (per-thread caches) and unwinds once so that its
 * lazy initialisation happens now, not inside the first sampled malloc.
 * Inside the guard. */
void hp_stack_warm(void);
/* heapprof attach, the first time: hp_stack_init and the caching policy
 * leave libunwind alone until hp_stack_warm (the helper thread's first
 * task); meanwhile libunwind is never called. */
void hp_stack_defer_libunwind(void);
bool hp_stack_deferred(void);


/* The placeholder frame's function (exported so that it keeps its name in
 * a stripped library).  Never called. */
void heapprof_unwind_failed(void) __attribute__((visibility("default")));

/* Registers [lo, hi) as allocator code (libstdc++'s operator new) whose
 * frames are stripped from the top of stacks like our own.  Thread-safe. */
void hp_stack_add_alloc_frames(uintptr_t lo, uintptr_t hi);

/* True if pc lies in registered allocator frames. */
int hp_stack_in_alloc_ranges(uintptr_t pc);
/* The span of every registered range (lo > hi: none), widened before a
 * range is published: a frame outside it, the program's own, is told
 * apart without a call. */
extern uintptr_t hp_stack_alloc_lo, hp_stack_alloc_hi;

HP_INLINE int hp_stack_is_alloc_frame(uintptr_t pc)
{
	if (HP_LIKELY(pc < HP_LOAD(&hp_stack_alloc_lo) || pc >= HP_LOAD(&hp_stack_alloc_hi)))
		return 0;
	return hp_stack_in_alloc_ranges(pc);
}
/* How many ranges were registered: a capture kept for reuse is stale
 * once it changes. */
extern unsigned hp_stack_n_alloc_ranges;

extern uintptr_t hp_stack_self_lo, hp_stack_self_hi;

HP_INLINE int hp_stack_is_self(uintptr_t pc)
{
	return pc >= hp_stack_self_lo && pc < hp_stack_self_hi;
}

/* prof_unwinder: 0 fast (falling back to libunwind), 1 libunwind, 2
 * check (both, compared; libunwind's result is kept). */
extern int hp_stack_fast;
enum { HP_UNWIND_FAST = 0, HP_UNWIND_LIBUNWIND = 1, HP_UNWIND_CHECK = 2 };
extern int hp_stack_unwinder;

/* Logs the unwinders' statistics (debug level; the check's result at
 * info level).  At exit. */
void hp_stack_log_stats(void);

/* Sets prof_unwinder and libunwind's caching policy to go with it.  Not
 * from a signal handler. */
void hp_stack_set_unwinder(int how);

/* prof_unwinder:check: compares the fast unwinder's stack with
 * libunwind's in buf (n frames, own frames included), logging the first
 * mismatches; the fast walk goes through the capture's memo (joining
 * from's frames, as hp_unwind_walk), which it leaves not last_ok (the
 * stack kept is libunwind's).  Cold. */
void hp_stack_check(uintptr_t stack_lo, uintptr_t stack_hi, const uintptr_t *buf, int n, int max,
		    struct hp_unwind_memo *memo, const struct hp_unwind_memo *from);

/* libunwind's walk of the calling thread's stack into buf (at most max
 * frames, ours included), its validation pipe open meanwhile
 * (stack/unwpipe.h).  -1 when libunwind must not run. */
int hp_stack_libunwind(uintptr_t *buf, int max);

/* The frame written when a stack cannot be had, as its raw return
 * address: a reader that moves the innermost frame back one byte into the
 * call (record/stacktab.h) lands one byte into heapprof_unwind_failed. */
#define HP_STACK_FAILED_FRAME ((uintptr_t)heapprof_unwind_failed + 2)

/* Captures at most max frames of the calling thread, whose stack is
 * [stack_lo, stack_hi) (0, 0 when unknown: libunwind then walks it).
 * Returns the depth, >= 1, and where the frames are, innermost first,
 * as return addresses (none moved back into its call):
 *   *top >= 0: in the memo, memo->f[*top] (the innermost) down to f[0]'s
 *     (f[0] itself unless it is a sentinel of return address 0);
 *   *top == -1: in buf, which must have room for max + HP_BT_SLACK
 *     entries.
 * Inside the guard.  Inlined into the slow paths: every frame of ours
 * costs an unwind step.  Under a seccomp filter (base/sandbox.h) libunwind
 * never runs (its validation pipe and signal masks are system calls): the
 * fast unwinder, whatever prof_unwinder says, and where it cannot walk,
 * the program's frame that called the allocator, alone.  memos: the
 * thread's walk memos (stack/unwind.h), of which *used is set to the one
 * this capture used; *same is set when the stack is exactly the one
 * that memo's last walk gave (m->last_ok: the memo holds this capture's
 * walk), and then the depth and *top are its last capture's, and buf is
 * left as that capture left it. */
HP_INLINE int hp_stack_capture(uintptr_t stack_lo, uintptr_t stack_hi, uintptr_t *buf, int max,
			       struct hp_unwind_memos *memos, struct hp_unwind_memo **used, bool *same, int *top)
{
	int n = -1;

	*same = false;
	*top = -1;

	int how = HP_LOAD(&hp_stack_unwinder);

	/* Start at our caller: the slow paths are entered by a tail jump from
	 * the interposed function and keep a frame pointer, so their frame
	 * holds the return address into the program and the program's RBP,
	 * and the program's stack pointer is just above them.  Our own
	 * frames are then never walked. */
	const uintptr_t *fp = __builtin_frame_address(0);
	uintptr_t ip = fp[1], sp = (uintptr_t)fp + 16;
	struct hp_unwind_memo *memo = hp_unwind_memo_pick(memos, sp);
	const struct hp_unwind_memo *from = NULL;
	*used = memo;
	if (HP_LIKELY((how == HP_UNWIND_FAST || hp_sandbox_on()) && stack_hi)) {
		n = hp_unwind_again(memo, max + HP_BT_SLACK, stack_lo, stack_hi, ip, sp, fp[0]);
		if (HP_LIKELY(n >= 0)) {
			*same = true;
			memos->hits++;
			if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
				hp_unwind_count_memo();
		} else {
			from = hp_unwind_memo_from(memos, memo, ip, sp);
			n = hp_unwind_walk(buf, max + HP_BT_SLACK, stack_lo, stack_hi, ip, sp, fp[0], memo, from,
					   same);
			memos->last = memo;
			if (HP_UNLIKELY(++memos->walks == memos->review))
				hp_unwind_memos_review(memos);
		}
	} else {
		memo->last_ok = false;   /* this stack is not the memo's */
		from = hp_unwind_memo_from(memos, memo, ip, sp);
		memos->last = memo;
		/* prof_unwinder:check's walks (hp_stack_check) go through the
		 * memos as the fast unwinder's do. */
		if (how == HP_UNWIND_CHECK && HP_UNLIKELY(++memos->walks == memos->review))
			hp_unwind_memos_review(memos);
	}
	unsigned ranges = HP_LOAD(&hp_stack_n_alloc_ranges);
	if (*same && memo->ranges == ranges && (memo->top >= 0 || memos->in_buf == memo)) {
		*top = memo->top;
		return (int)memo->depth;   /* as the last capture, the very same stack */
	}
	if (*same && (int)memo->n - (memo->f[0].ip ? 0 : 1) != n) {
		/* The last walk's frames, cut at max, and what is stripped
		 * from them changed (or another memo's capture since used
		 * buf): buf no longer holds them all. */
		memo->last_ok = false;
		n = hp_unwind_fast(buf, max + HP_BT_SLACK, stack_lo, stack_hi, ip, sp, fp[0], memo, NULL, NULL);
	}
	*same = false;
	memo->ranges = ranges;
	if (n < 0 && HP_UNLIKELY(hp_sandbox_on())) {
		buf[0] = fp[1];
		n = 1;
		how = HP_UNWIND_FAST;   /* nothing to compare */
	}
	if (n < 0) {
		n = hp_stack_libunwind(buf, max + HP_BT_SLACK);
		if (HP_UNLIKELY(HP_LOAD(&hp_unwind_counting)))
			hp_unwind_count_libunwind();
	}
	if (HP_UNLIKELY(how == HP_UNWIND_CHECK))
		hp_stack_check(stack_lo, stack_hi, buf, n, max + HP_BT_SLACK, memo, from);
	/* The memo holds the whole walk (unwind.h): its frames from
	 * f[inner] down. */
	const struct hp_unwind_frame *f = memo->f;
	int inner = (int)memo->n - 1;
	bool in_memo = memo->last_ok && n == (int)memo->n - (f[0].ip ? 0 : 1);
	int skip = 0;

	if (in_memo)
		while (skip < n && (hp_stack_is_self(f[inner - skip].ip) || hp_stack_is_alloc_frame(f[inner - skip].ip)))
			skip++;
	else
		while (skip < n && (hp_stack_is_self(buf[skip]) || hp_stack_is_alloc_frame(buf[skip])))
			skip++;
	n -= skip;
	if (HP_UNLIKELY(n <= 0 || (!in_memo && buf[skip] == 0))) {
		buf[0] = HP_STACK_FAILED_FRAME;
		memo->depth = 1;
		memo->top = -1;
		memos->in_buf = memo;
		return 1;
	}
	if (in_memo && n <= max) {
		*top = inner - skip;
	} else if (in_memo) {
		/* Cut at max: the innermost max frames, in buf. */
		n = max;
		for (int i = 0; i < n; i++)
			buf[i] = f[inner - skip - i].ip;
	} else {
		if (n > max)
			n = max;
		if (skip)
			memmove(buf, buf + skip, (size_t)n * sizeof(*buf));
	}
	memo->top = *top;
	memo->depth = (uint32_t)n;
	memos->in_buf = *top < 0 ? memo : NULL;
	return n;
}

#endif
