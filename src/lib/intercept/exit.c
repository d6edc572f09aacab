/*
 * exit.c -- the interposed _exit() and _Exit().
 *
 * Owns nothing.  They skip exit handlers, so heapprof's exit handler
 * (control/lifecycle.c) never sees them: here the final dump, the leak
 * summary and the gate run first (leak/leak.c decides whether this
 * process's exit is to be checked at all: never in a vfork child), then
 * the process ends as _exit ends it, with exit_group.
 */
#include <sys/syscall.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/sys.h"
#include "leak/leak.h"
#include "stack/entry.h"

/* The leak scan takes this thread's stack from the frame of the program's
 * call and the registers it had there (stack/entry.h), found by walking
 * out to the interposed function fn; failing that, from this frame, with
 * room below for the registers the entry function spilled. */
static __attribute__((noreturn, noinline)) void end(int status, const void *fn)
{
	struct hp_stack_entry entry;

	__builtin_unwind_init();
	if (!hp_leak_scan_due() || !hp_stack_entry_of(fn, &entry)) {
		memset(&entry, 0, sizeof(entry));
		entry.sp = (uintptr_t)__builtin_frame_address(0) - 256;
	}
	status = hp_leak_before__exit(status, &entry);
	for (;;)
		hp_syscall(SYS_exit_group, status);
}

HP_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	end(status, (const void *)_exit);
}

HP_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	end(status, (const void *)_Exit);
}
