/*
 * lifecycle.h -- start-up when heapprof attach loaded the library (the
 * constructor did only the allocator's resolution), and the stop at
 * heapprof detach.  The preloaded start-up, the fork handlers and the
 * exit handler are lifecycle.c's own.
 */
#ifndef HP_LIFECYCLE_H
#define HP_LIFECYCLE_H

#pragma GCC visibility push(hidden)

/* Starts heapprof in a running process, as the constructor does in a
 * preloaded one, with extra (-c options) over the environment's; again
 * after a detach, from an empty profile (a new generation).  Returns 0,
 * or -1 with *why saying why nothing started. */
int hp_lifecycle_attach(const char *extra, const char **why);

/* Sampling off, the helper thread ended, the state file and the bell's
 * file removed; the exit handler and the fork handlers do nothing more.
 * The caller has already put the GOT entries back. */
void hp_lifecycle_detach(void);

#pragma GCC visibility pop

#endif
