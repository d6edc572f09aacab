/*
 * threads.h -- the registry of threads that have sampled.
 *
 * A thread gets a record on its first sampled allocation: a uid (0, 1, 2...
 * in order of first sample, as jemalloc numbers its t<uid> rows), its kernel
 * tid, its name, its capture buffer and its private map from (stack, rate,
 * reset generation) to counter context.  Records are never freed: an exited
 * thread's live blocks and name stay in dumps.  Its capture buffer and map
 * go back to a free list at thread exit for the next thread to reuse.
 *
 * Records are created on the sampled slow path (inside the guard); the list
 * is read lock-free by dump writers.
 */
#ifndef HP_THREADS_H
#define HP_THREADS_H

#include <stdbool.h>
#include <stdint.h>
#include <pthread.h>
#include <sys/types.h>

#include "stack/stack.h"

#define HP_NAME_MAX 16       /* as pthread names: 15 characters + NUL */

struct hp_stack;

struct hp_thread {
	uint32_t uid;
	pid_t tid;
	int exited;                 /* set by the exit hook (relaxed) */
	int active;                 /* thread.prof.active */
	int name_set;               /* named through the API: keep it */
	char name[HP_NAME_MAX];
	uintptr_t *frames;          /* capture buffer: HP_BT_LIMIT + slack */
	struct hp_unwind_memos *memos; /* the unwinder's, after frames (same pages) */
	uintptr_t stack_lo;         /* the thread's stack, for the fast */
	uintptr_t stack_hi;         /* unwinder's checks; 0 if unknown */
	int bounds_later;           /* first sampled inside pthread_getattr_np */
	/* Owner-only open-addressing map: key -> tctx id. */
	uint64_t *map_keys;
	uint32_t *map_vals;
	uint32_t map_mask;
	uint32_t map_count;
	/* One-entry caches: consecutive samples usually come from the same
	 * place (owner-only). */
	uint32_t last_ctx;          /* context id for last_ctx_key */
	uint64_t last_ctx_key;
	struct hp_counters *last_ctx_rec;   /* that context, NULL if none */
	struct hp_thread *next;     /* registry list, newest first */
};

/* The calling thread's record, created on first use.  NULL when memory
 * ran out.  Must be called inside the guard. */
struct hp_thread *hp_threads_self(void);

/* Head of the registry (newest first) and the number of uids handed out. */
struct hp_thread *hp_threads_list(void);
uint32_t hp_threads_count(void);

/* Refreshes the names of threads that still run, from the kernel's comm
 * (pthread names).  Called by dump writers. */
void hp_threads_refresh_names(void);

/* Sets the calling thread's name in dumps (the API's set_thread_name). */
void hp_threads_set_name(struct hp_thread *t, const char *name);

/* heapprof's own threads (the helper thread): a leak scan neither stops
 * them nor takes their stacks for roots.  A thread registers itself;
 * hp_threads_own lists them (tid 0: not yet filled in). */
struct hp_threads_own {
	pid_t tid;
	uintptr_t stack_lo, stack_hi;
};
void hp_threads_own_add(void);
/* The calling thread, one of heapprof's, is about to end (heapprof
 * detach): its slot is free again. */
void hp_threads_own_remove(void);
unsigned hp_threads_own(const struct hp_threads_own **out);

/* The C library's pthread_getattr_np, called with the thread marked as
 * inside it (hp_tls.in_getattr): glibc holds the thread's descriptor lock
 * while it allocates there, so a first sampled allocation of the thread
 * inside it must not ask for the thread's stack, which takes that lock
 * again.  The interposed pthread_getattr_np (intercept/threadattr.c) and
 * the registry's own look at a thread's stack both come here. */
int hp_threads_getattr_np(pthread_t thread, pthread_attr_t *attr);

/* The C library's pthread_create, for the interposed one
 * (intercept/threadattr.c); on success, calls the hook control/ gave
 * (heapprof's helper thread starts once the program has a second thread
 * of its own). */
int hp_threads_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg);
void hp_threads_on_create(void (*hook)(void));

/* Installs the thread-exit hook.  Called once at init. */
void hp_threads_init(void);

/* fork(): locks taken before, released after; in the child only the
 * calling thread survives. */
void hp_threads_prefork(void);
void hp_threads_postfork_parent(void);
void hp_threads_postfork_child(void);

#endif
