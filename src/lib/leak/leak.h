/*
 * leak.h -- the leak approximation summary at exit.
 *
 * What is still live at exit is a leak, except memory that the C and C++
 * runtimes allocate once and keep for the life of the process:
 *   - blocks allocated directly by the dynamic loader (the innermost frame
 *     is in ld.so: link maps, dlopen state, thread DTVs);
 *   - blocks whose whole stack lies in the runtime itself (ld.so, libc,
 *     libstdc++, libgcc_s, libm): libstdc++'s emergency exception pool,
 *     the runtime's own initialisation;
 *   - the buffers of stdin, stdout and stderr, found by address.
 * These stay in the dumps; they only leave the summary and the gate.
 */
#ifndef HP_LEAK_H
#define HP_LEAK_H

#include <limits.h>
#include <stdint.h>

#include "stack/entry.h"

struct hp_totals;

struct hp_leak_summary {
	uint64_t bytes;
	uint64_t objects;
	uint64_t contexts;
	uint64_t runtime_bytes;     /* excluded as runtime memory */
	uint64_t runtime_objects;
	/* leak_check:reachable: the verdict's split (indirect is the rest) */
	int reachability;
	uint64_t direct_bytes;
	uint64_t direct_objects;
	char leak_dump[PATH_MAX];   /* a profile of exactly the leaks */
	int leak_dump_err;
};

/* The at-exit sequence: final dump, summary, gate.  status is the exit
 * status the program asked for.  May call exit() (nested, so the remaining
 * exit handlers and stdio flushing still run) to change it. */
void hp_leak_at_exit(int status, const struct hp_stack_entry *entry);

/* Whether the exit will run the reachability scan (prof_leak with
 * leak_check:reachable, not under a seccomp filter): the exit paths then
 * find where the program entered them (stack/entry.h). */
int hp_leak_scan_due(void);

/* The same before _exit() or _Exit(), which skip exit handlers: returns
 * the status to exit with.  Does nothing in a process that is not the
 * owner (a vfork child shares our memory), before start-up finished, or
 * when the check already ran. */
int hp_leak_before__exit(int status, const struct hp_stack_entry *entry);

/* Makes the calling process the one whose exit is checked: at start-up,
 * and in a fork child; where the exit writes a verdict file, registers
 * the process beside it (leak/verdictfile.h, hp_verdictfile_register).
 * Inside the guard. */
void hp_leak_set_owner(void);

/* Just before the program installs a seccomp filter (intercept/seccomp.c),
 * while the file system is still heapprof's: one line that says what
 * changes (not with leak_report:false, heapprof check's: the verdict says
 * it), and where the exit would write a verdict file, one that says there
 * will be no verdict, and why.  The exit, sandboxed (base/sandbox.h),
 * writes no file: no final dump, no verdict, and the summary counts what
 * is live (leak_check:reachable's scan needs /proc and signals).  If the
 * filter is refused after all, the exit's verdict replaces this one.  On
 * the thread installing the filter, not from a signal handler. */
void hp_leak_before_sandbox(void);

#endif
