/*
 * reach.h -- which recorded blocks the program can still reach: the leak
 * verdict by reachability, as LeakSanitizer and valgrind give it.
 *
 * Over the recorded blocks (every allocation in exact mode,
 * lg_prof_sample:0; the sampled ones otherwise), the other threads
 * are stopped (scan/world.h) and every word of the roots is taken for a
 * possible pointer.  A word that points into a recorded block, at its
 * start or anywhere inside it (interior pointers count, as in
 * LeakSanitizer; valgrind calls some of those "possibly lost"), makes the
 * block reachable, and its contents are scanned in turn.
 *
 * Roots:
 *  - the writable PT_LOAD segments of every loaded object but heapprof
 *    (data, bss, relro), and the bootstrap pool that serves dlsym;
 *  - each stopped thread's stack, from the stack pointer of its stop
 *    handler (so the registers the kernel saved in the signal frame,
 *    vector registers included, are scanned) to the end of its stack
 *    mapping, which holds its static TLS and thread control block on
 *    glibc; and its thread pointer's neighbourhood (static TLS and the
 *    TCB, whose DTV reaches dynamic TLS blocks), for the main thread whose
 *    TLS the dynamic loader placed elsewhere;
 *  - the calling thread's stack and spilled registers likewise;
 *  - the blocks the dynamic loader allocated itself (link maps, dlopen
 *    state, threads' TLS tables), as LeakSanitizer does: found through
 *    the loader's own structures, kept for the process's life;
 *  - the in-use chunks of glibc's main heap that heapprof did not record
 *    (allocated before it started, or by heapprof's own dependencies);
 *  - every other readable, writable mapping except the allocator's heap
 *    ([heap], glibc's thread arenas, the recorded blocks themselves),
 *    heapprof's own pages, and devices: memory that no allocator heapprof
 *    sees hands out, where programs keep pointers too (CPython's object
 *    arenas, memory pools, the stacks of threads that did not stop).
 *    This is wider than LeakSanitizer's roots and narrower than
 *    valgrind's, which skips only the heap; a wider root set can hide a
 *    leak, never invent one.
 *
 * Unreachable blocks are leaks.  Those that another leaked block points
 * to are indirect; the others direct.  As in valgrind, a cycle of leaked
 * blocks that nothing outside points to has one direct block, the first
 * in address order; the rest are indirect.
 */
#ifndef HP_REACH_H
#define HP_REACH_H

#pragma GCC visibility push(hidden)

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stack/entry.h"

enum hp_reach_kind {
	HP_REACH_REACHABLE = 1,
	HP_REACH_INDIRECT = 2,
	HP_REACH_DIRECT = 3,
	HP_REACH_SUPPRESSED = 4,   /* a leak a suppression covers (output/) */
};

struct hp_reach_block {
	uintptr_t start;
	uint64_t size;
	uint32_t counters;   /* the counter context: its stack and thread */
	uint32_t leader;     /* a leak's direct block: itself, or the direct
			      * leak it was found from (an index) */
	uint8_t kind;        /* enum hp_reach_kind; 0 while unreached */
};

struct hp_reach {
	struct hp_reach_block *blocks;   /* the blocks no root reaches, by start */
	uint64_t nblocks;
	uint64_t recorded;               /* every block the scan looked at */
	uint64_t direct_bytes, direct_objects;
	uint64_t indirect_bytes, indirect_objects;
	unsigned threads, threads_stopped;   /* other threads, and how many stopped */
#define HP_REACH_UNSTOPPED_MAX 16
	pid_t unstopped[HP_REACH_UNSTOPPED_MAX];   /* the first threads that did not
						    * stop (their stacks were
						    * scanned whole) */
	unsigned nunstopped;
	uint64_t us_paused;                  /* from the first stop signal to the
					      * threads' release */
	uint64_t root_bytes;                 /* bytes of roots scanned */
	unsigned index_threads;              /* threads that built the index */
	int heap_beside;                     /* glibc's main heap was walked on a
					      * second thread, beside the marking */
	uint32_t us_index, us_roots, us_other, us_lost;   /* the phases' times, for the
							    * debug log: the index built,
							    * stacks, TLS, data, the loader's
							    * and registered roots marked
							    * from, the other mappings and
							    * the main heap's chunks, the
							    * lost blocks' cliques */
	int exact;                           /* every allocation was recorded */
	int alloc_ranges;                    /* the next allocator's ranges left
					      * out of the roots; -1: not known */
	/* private: what was mapped for the scan */
	uint64_t cap;
};

/* Runs the scan: stops the other threads for at most wait_ms per round,
 * takes the calling thread's stack from entry->sp upward and the
 * registers in entry (where the program's call entered an exit path,
 * stack/entry.h: deeper, exit's frames, heapprof's and the dead slots of
 * the program's earlier callees hold stale copies of its pointers; NULL
 * or sp 0: from here), marks, classifies and resumes them.  Returns 0, or
 * an errno value and a
 * reason in *why (no /proc, no memory, too many blocks appeared during
 * the scan): then r holds nothing.  Must be called inside the guard;
 * never from a signal handler.  When some allocation went unrecorded (a
 * sampled rate, a pause: hp_switches.missed), glibc's thread arenas are
 * roots too, between the recorded blocks: what is unrecorded there may
 * hold the only pointer to a recorded block.  r->exact says which.
 * at_exit: the process is exiting; a large heap's index is then built on
 * two threads (scan/pair.h) even in a single-threaded program, which
 * otherwise stays single-threaded. */
int hp_reach_run(struct hp_reach *r, int wait_ms, const struct hp_stack_entry *entry, int at_exit,
		 const char **why);

/* Regions the program registered through the API (heapprof.h's
 * heapprof_register_root): roots too.  At most HP_REACH_ROOTS at a time.
 * Lock-free; any thread, not from a signal handler during a scan.
 * add returns 0, EINVAL (empty) or ENOSPC; remove 0 or ENOENT. */
#define HP_REACH_ROOTS 256
int hp_reach_add_root(const void *p, size_t n);
int hp_reach_remove_root(const void *p);

/* Unmaps what the scan mapped. */
void hp_reach_release(struct hp_reach *r);

#pragma GCC visibility pop

#endif
