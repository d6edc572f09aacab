/*
 * unwind.h -- heapprof's own fast unwinder (x86_64).
 *
 * libunwind's backtrace costs about 25 ns plus 7 ns per frame and most of
 * an exact-mode allocation; this unwinder walks the same DWARF call-frame
 * information (.eh_frame, found with glibc's lock-free _dl_find_object)
 * but interprets each frame's CFA program once and caches the resulting
 * rule by return address, so that a frame then costs a hash lookup and
 * two reads of the stack.  Every read is checked against the thread's
 * stack bounds.  Whatever it does not handle -- no FDE, DWARF expressions,
 * signal frames, a CFA in another register, a stack outside the thread's
 * own (sigaltstack, fibers) -- makes it give up, and the caller unwinds
 * the whole stack with libunwind instead.  On other architectures it
 * always gives up.
 */
#ifndef HP_UNWIND_H
#define HP_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Fills buf with return addresses, innermost first, starting at a frame
 * whose return address is ip, whose caller's stack pointer (after the
 * return) is sp and whose caller's RBP is bp -- what a function compiled
 * with frame pointers finds at its frame pointer.  lo and hi bound the
 * current thread's stack.  Returns the number of frames, or -1 to ask for
 * libunwind. */
int hp_unwind_fast(uintptr_t *buf, int max, uintptr_t lo, uintptr_t hi, uintptr_t ip,
		   uintptr_t sp, uintptr_t bp);

/* Statistics, for the debug log and prof_unwinder:check.  Counted only
 * while hp_unwind_counting is set (log_level:debug or prof_unwinder:check):
 * a shared counter on every sample would be a cache line that all
 * threads fight over. */
extern bool hp_unwind_counting;
struct hp_unwind_stats {
	uint64_t fast;       /* stacks unwound here */
	uint64_t fallback;   /* stacks handed to libunwind */
	uint64_t libunwind;  /* stacks walked by libunwind, fallbacks included */
	uint64_t rules;      /* distinct return addresses cached */
};
void hp_unwind_stats(struct hp_unwind_stats *out);
void hp_unwind_count_libunwind(void);

/* fork(): the rule cache's lock is taken before (first: its holder takes
 * no other lock of ours but the pages'), released after; the child resets
 * it, since a thread that held it does not exist there. */
void hp_unwind_prefork(void);
void hp_unwind_postfork_parent(void);
void hp_unwind_postfork_child(void);

#pragma GCC visibility pop

#endif
