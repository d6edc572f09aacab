/*
 * heapprof.h -- control heapprof from the program it profiles.
 *
 * Header only: include it and call the functions below; do not link
 * anything.  The calls reach libheapprof.so when it is preloaded
 * (LD_PRELOAD); without it they do nothing and return ENOSYS (or -1 for
 * heapprof_active), so a program can keep them in every build.  All are
 * thread-safe; repeated calls are fine (activating an active profiler,
 * pausing a paused one, several threads dumping at once).  See
 * heapprof(3).
 */
#ifndef HEAPPROF_H
#define HEAPPROF_H

#include <errno.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The library's entry point, referenced weakly: 0 when not preloaded.
 * The asm label keeps the name heapprof_mallctl free for the checked
 * wrapper below. */
extern int heapprof__entry(const char *name, void *oldp, size_t *oldlenp, void *newp,
			   size_t newlen) __asm__("heapprof_mallctl") __attribute__((weak));

/* Non-zero when heapprof is loaded into this process. */
static inline int heapprof_loaded(void)
{
	return heapprof__entry != 0;
}

/* jemalloc's mallctl(), for heapprof's names: prof.dump, prof.active,
 * prof.prefix, prof.gdump, prof.reset, prof.lg_sample, prof.interval,
 * thread.prof.name, thread.prof.active, opt.<option>, config.prof,
 * heapprof.version.  Returns 0 or an errno value; ENOSYS without the
 * library, ENOENT for an unknown name. */
static inline int heapprof__mallctl_checked(const char *name, void *oldp, size_t *oldlenp,
					    void *newp, size_t newlen)
{
	return heapprof__entry ? heapprof__entry(name, oldp, oldlenp, newp, newlen) : ENOSYS;
}
#define heapprof_mallctl(name, oldp, oldlenp, newp, newlen) \
	heapprof__mallctl_checked((name), (oldp), (oldlenp), (newp), (newlen))

/* Writes a dump to path, or under an automatic name (trigger 'm') when
 * path is NULL.  Returns 0 once the dump is complete on disk, or an errno
 * value. */
static inline int heapprof_dump(const char *path)
{
	return path ? heapprof_mallctl("prof.dump", NULL, NULL, (void *)&path, sizeof(path))
		    : heapprof_mallctl("prof.dump", NULL, NULL, NULL, 0);
}

/* Turns sampling of new allocations on (non-zero) or off.  Frees of
 * sampled blocks are always counted.  Returns 0 or an errno value. */
static inline int heapprof_set_active(int active)
{
	_Bool on = active != 0;

	return heapprof_mallctl("prof.active", NULL, NULL, &on, sizeof(on));
}

/* 1 if sampling is on, 0 if paused, -1 without heapprof. */
static inline int heapprof_active(void)
{
	_Bool on = 0;
	size_t len = sizeof(on);

	return heapprof_mallctl("prof.active", &on, &len, NULL, 0) ? -1 : on;
}

/* Names the calling thread in dumps (jemalloc layout).  At most 15
 * characters are kept.  Returns 0 or an errno value. */
static inline int heapprof_set_thread_name(const char *name)
{
	return heapprof_mallctl("thread.prof.name", NULL, NULL, (void *)&name, sizeof(name));
}

/* Discards the profile gathered so far; with lg_sample >= 0 also sets a
 * new sampling rate (mean 2^lg_sample bytes between samples, 0: every
 * allocation).  Returns 0 or an errno value. */
static inline int heapprof_reset(int lg_sample)
{
	size_t lg = (size_t)lg_sample;

	return lg_sample >= 0 ? heapprof_mallctl("prof.reset", NULL, NULL, &lg, sizeof(lg))
			      : heapprof_mallctl("prof.reset", NULL, NULL, NULL, 0);
}

/* Tells the leak check (leak_check:reachable) that [p, p + n) may hold
 * the only pointers to heap blocks: memory the program mapped itself, a
 * pool heapprof does not see.  It is scanned as a root at exit.  At most
 * 256 regions at a time.  Returns 0 or an errno value (ENOSPC when full). */
static inline int heapprof_register_root(const void *p, size_t n)
{
	const void *r[2] = { p, (const void *)n };
	return heapprof_mallctl("heapprof.register_root", NULL, NULL, r, sizeof(r));
}

/* Forgets a region registered at p.  Returns 0, or ENOENT. */
static inline int heapprof_unregister_root(const void *p)
{
	const void *r[2] = { p, 0 };
	return heapprof_mallctl("heapprof.unregister_root", NULL, NULL, r, sizeof(r));
}

/* What heapprof_leak_check() found. */
struct heapprof_leaks {
	unsigned long long direct_bytes, direct_objects;     /* reached by nothing */
	unsigned long long indirect_bytes, indirect_objects; /* reached only from leaks */
	unsigned long long pause_us;   /* how long the other threads were stopped */
	unsigned check;                /* this check's number in the process, from 1 */
	unsigned threads_not_stopped;  /* scanned whole: a leak may have been missed */
	int estimated;                 /* 1: estimates from the blocks sampled at
					* lg_prof_sample (0 records every block:
					* exact); or the library was attached and
					* counts only blocks since */
	int reserved[5];
};

/* A leak check now (leak_check:reachable): the other threads are stopped,
 * what the program can still reach is marked, and they go on; the
 * verdict, with the leaks' stacks, is also written to the runtime
 * directory's leaks.<pid> (heapprof(1): leaks).  The calling thread's
 * stack counts from this call up.  Thread-safe: checks run one at a time
 * (a second caller waits for the first, then checks again); not from a
 * signal handler.  Returns 0 with *out filled in (leaks when its bytes
 * are not 0), or an errno value: ENOSYS without heapprof, ENOTSUP with
 * leak_check:live or under a seccomp filter, EAGAIN or ENOMEM when the
 * scan could not run. */
static inline int heapprof_leak_check(struct heapprof_leaks *out)
{
	size_t len = sizeof(*out);

	return heapprof_mallctl("heapprof.leak_check", out, &len, NULL, 0);
}

#ifdef __cplusplus
}
#endif

#endif
