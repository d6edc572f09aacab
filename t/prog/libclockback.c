/*
 * libclockback.c -- a clock that steps back, for t/0746: preloaded before
 * the library, its clock_gettime answers CLOCK_REALTIME one hour behind
 * while the file named by $CLOCKBACK_FILE exists, so a test can step the
 * wall clock back under a running process without touching the host's.
 * Other clocks, and the real time without the file, pass through.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int clock_gettime(clockid_t id, struct timespec *ts)
{
	long r = syscall(SYS_clock_gettime, id, ts);
	const char *f = getenv("CLOCKBACK_FILE");

	if (r == 0 && id == CLOCK_REALTIME && f && access(f, F_OK) == 0)
		ts->tv_sec -= 3600;
	return (int)r;
}
