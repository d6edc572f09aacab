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

#include <stdint.h>

/* Sets up libunwind (per-thread caches) and unwinds once so that its
 * lazy initialisation happens now, not inside the first sampled malloc.
 * Must be called inside the guard. */
void hp_stack_init(void);

/* Captures at most max frames into buf, which must have room for
 * max + HP_BT_SLACK entries.  Returns the depth, >= 1.  Inside the guard. */
int hp_stack_capture(uintptr_t *buf, int max);

/* The placeholder frame's function (exported so that it keeps its name in
 * a stripped library).  Never called. */
void heapprof_unwind_failed(void);

/* Registers [lo, hi) as allocator code (libstdc++'s operator new) whose
 * frames are stripped from the top of stacks like our own.  Thread-safe. */
void hp_stack_add_alloc_frames(uintptr_t lo, uintptr_t hi);

/* True if pc lies in heapprof's own code. */
int hp_stack_is_self(uintptr_t pc);

#endif
