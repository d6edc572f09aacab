/*
 * threadattr.c -- the interposed pthread_getattr_np() and pthread_create().
 *
 * pthread_create: forwarded with its exact result; once the program has a
 * thread of its own, heapprof's helper thread may start (it never does in
 * a single-threaded program unless the configuration asks: see
 * control/helperthread.h).
 *
 * Owns nothing.  glibc's pthread_getattr_np holds the thread's descriptor
 * lock while it allocates (the affinity mask, and for the main thread
 * stdio's buffers for /proc/self/maps).  When one of those allocations is
 * the thread's first sampled one, heapprof registers the thread and would
 * ask for its stack the same way: the thread would wait for ever on the
 * lock it holds.  Every HotSpot thread and every Rust std::thread asks for
 * its own stack before it allocates.  So the program's calls go through
 * record/threads.c, which marks the thread as inside the call and forwards
 * to the C library's definition with its exact result.
 */
#include <pthread.h>

#include "base/compiler.h"
#include "record/sampled.h"
#include "record/threads.h"

HP_EXPORT int pthread_getattr_np(pthread_t thread, pthread_attr_t *attr)
{
	return hp_threads_getattr_np(thread, attr);
}

HP_EXPORT int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
			     void *arg)
{
	/* A second thread could read the figures while this one's frees
	 * wait (record/sampled.h): done now, while it is alone. */
	hp_sampled_drain_deferred();
	return hp_threads_create(thread, attr, start, arg);
}
