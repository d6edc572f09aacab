/*
 * stack.h -- capturing the allocating call stack.
 *
 * Frames are innermost first.  Our own frames (the interposed function and
 * everything below it in libheapprof) are removed, and the first remaining
 * frame, a return address into the code that called malloc, is moved back
 * by one byte so that it points into the call instruction: both jeprof
 * (which adjusts every frame but the first) and pprof (which adjusts every
 * frame) then symbolize it to the calling line.  A stack is never empty:
 * when unwinding yields nothing, the single frame is the address inside
 * heapprof_unwind_failed that symbolizes to that name.
 */
#ifndef HP_STACK_H
#define HP_STACK_H

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <stdint.h>
#include <string.h>

#include "compiler.h"
#include "thread.h"

/* Sets up libunwind (per-thread caches) and unwinds once so that its
 * lazy initialisation happens now, not inside the first sampled malloc.
 * Must be called inside the guard. */
void hp_stack_init(void);


/* The placeholder frame's function (exported so that it keeps its name in
 * a stripped library).  Never called. */
void heapprof_unwind_failed(void) __attribute__((visibility("default")));

/* Registers [lo, hi) as allocator code (libstdc++'s operator new) whose
 * frames are stripped from the top of stacks like our own.  Thread-safe. */
void hp_stack_add_alloc_frames(uintptr_t lo, uintptr_t hi);

/* True if pc lies in heapprof's own code or in registered allocator
 * frames. */
int hp_stack_is_alloc_frame(uintptr_t pc);

extern uintptr_t hp_stack_self_lo, hp_stack_self_hi;

HP_INLINE int hp_stack_is_self(uintptr_t pc)
{
	return pc >= hp_stack_self_lo && pc < hp_stack_self_hi;
}

/* Captures at most max frames into buf, which must have room for
 * max + HP_BT_SLACK entries.  Returns the depth, >= 1.  Inside the guard.
 * Inlined into the slow paths: every frame of ours costs an unwind step. */
HP_INLINE int hp_stack_capture(uintptr_t *buf, int max)
{
	int n = unw_backtrace((void **)buf, max + HP_BT_SLACK);
	int skip = 0;

	while (skip < n && (hp_stack_is_self(buf[skip]) || hp_stack_is_alloc_frame(buf[skip])))
		skip++;
	n -= skip;
	if (HP_UNLIKELY(n <= 0 || buf[skip] == 0)) {
		buf[0] = (uintptr_t)heapprof_unwind_failed + 1;
		return 1;
	}
	if (n > max)
		n = max;
	if (skip)
		memmove(buf, buf + skip, (size_t)n * sizeof(*buf));
	buf[0] -= 1;
	return n;
}

#endif
