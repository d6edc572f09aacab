/*
 * pipe.c -- the interposed pipe2().
 *
 * Owns nothing.  Forwards every call as the system call glibc's pipe2
 * is.  The one pipe2 it does more for is libunwind's, opened during a
 * stack walk heapprof asked for: that pipe is handed to
 * stack/unwpipe.c, which moves it out of the program's way and closes it
 * after the walk.  A thread-local test and a range test decide;
 * everything else, the program's own calls included, passes straight
 * through.  A raw system call rather than the next definition: pipe2 is
 * async-signal-safe, and resolving a symbol from a signal handler is not.
 */
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/sys.h"
#include "stack/unwpipe.h"

HP_EXPORT int pipe2(int fds[2], int flags)
{
	int r = (int)hp_syscall(SYS_pipe2, fds, flags);

	if (r == 0 && hp_unwpipe_wants((uintptr_t)__builtin_return_address(0)))
		hp_unwpipe_adopt(fds);
	return r;
}
