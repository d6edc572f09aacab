/*
 * entry.h -- where the program's call entered an exit path: the caller's
 * stack pointer and callee-saved registers, for the leak scan.
 *
 * The leak scan takes the exiting thread's stack from here up: the frames
 * below (exit's, the exit handlers', heapprof's) and the dead slots of the
 * program's earlier callees hold stale pointers that would keep leaked
 * blocks reachable, differently from run to run.  The registers the
 * program had at the call are scanned too (exit's frames saved them
 * below the caller's stack pointer).
 */
#ifndef HP_ENTRY_H
#define HP_ENTRY_H

#pragma GCC visibility push(hidden)

#include <stdint.h>
#include <sys/types.h>

#define HP_ENTRY_REGS 12
/* How far above where a waiting thread stopped its entry may be. */
#define HP_ENTRY_DEPTH_MAX (1u << 20)

struct hp_stack_entry {
	uintptr_t sp;                    /* 0: not known */
	pid_t tid;                       /* the thread whose entry it is */
	uintptr_t regs[HP_ENTRY_REGS];
	unsigned nregs;
};

/* Fills e from the caller of the innermost frame of the function at fn
 * (an exported function: its extent comes from the dynamic symbol
 * table) on this thread's stack.  Returns 1, or 0 (e cleared) when fn is
 * not on the stack or libunwind may not run (under a seccomp filter).
 * Inside the guard; never from a signal handler. */
int hp_stack_entry_of(const void *fn, struct hp_stack_entry *e);

#pragma GCC visibility pop

#endif
