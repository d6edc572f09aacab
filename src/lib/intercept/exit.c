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
#include <unistd.h>

#include "base/compiler.h"
#include "base/sys.h"
#include "leak/leak.h"

static __attribute__((noreturn, noinline)) void end(int status, uintptr_t entry)
{
	status = hp_leak_before__exit(status, entry);
	for (;;)
		hp_syscall(SYS_exit_group, status);
}

/* The leak scan takes this thread's stack from the frame where the
 * program's call entered heapprof, with room for the registers spilled
 * there (scan/reach.h). */
HP_EXPORT __attribute__((noreturn)) void _exit(int status)
{
	__builtin_unwind_init();
	end(status, (uintptr_t)__builtin_frame_address(0) - 256);
}

HP_EXPORT __attribute__((noreturn)) void _Exit(int status)
{
	__builtin_unwind_init();
	end(status, (uintptr_t)__builtin_frame_address(0) - 256);
}
