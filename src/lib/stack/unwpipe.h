/*
 * unwpipe.h -- libunwind's validation pipe, open only while libunwind
 * walks a stack for heapprof, and never on a number the program uses.
 *
 * libunwind (x86_64, built with conservative checks, as Debian's is)
 * tests every address it loads by writing a byte of it into a pipe of its
 * own, and keeps that pipe's two numbers for good.  Left to itself, the
 * pipe is two descriptors the program sees and counts against its limit;
 * and a program that closes its descriptors (close_range from 3, as
 * daemons do) and opens new ones on those numbers has libunwind read its
 * data, write bytes into its files, and on an error close them.
 *
 * So the walks are bracketed: hp_unwpipe_enter() before, hp_unwpipe_leave()
 * after; the last walker out closes the pipe.  The next walk's first test
 * finds the number closed and libunwind opens a new pipe; the interposed
 * pipe2 (intercept/pipe.c) hands it to hp_unwpipe_adopt(), which moves
 * both ends to the top of the descriptor range (just below the soft
 * limit, or below 1024), far from the numbers programs reuse.  Before a
 * walk, every number libunwind may still hold must be closed or one of
 * ours: when the program has taken one, libunwind is not called.
 */
#ifndef HP_UNWPIPE_H
#define HP_UNWPIPE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/compiler.h"

#pragma GCC visibility push(hidden)

/* Where libunwind's code is: a pipe2 called from there, during a walk, is
 * its validation pipe.  Set by hp_unwpipe_init. */
extern uintptr_t hp_unwpipe_lo, hp_unwpipe_hi;
/* Set on a thread while libunwind walks its stack for heapprof. */
extern __thread int hp_unwpipe_walking;

/* Finds libunwind's code.  At init, before libunwind first runs. */
void hp_unwpipe_init(void);

/* Before a libunwind walk on this thread: returns 1 when libunwind may
 * walk, 0 when a number it would read or close belongs to the program
 * now (the first time, one line says so).  Either way, hp_unwpipe_leave()
 * follows.  Inside the guard; takes this module's own lock for a few
 * system calls, never across the walk. */
int hp_unwpipe_enter(void);
/* After the walk: the last walker out closes libunwind's pipe. */
void hp_unwpipe_leave(void);

/* Detach: before the GOT entries are restored, no walk may start, and the
 * walks under way end (the last closes the pipe); a walk after the
 * restore would reach the program's pipe2, and libunwind's pipe would stay
 * open in the program on the lowest free numbers.  False if a walk did
 * not end within a second.  hp_unwpipe_open undoes it (attach, after the
 * GOT entries are routed). */
bool hp_unwpipe_shut(void);
void hp_unwpipe_open(void);

/* Whether a pipe2 that returns to ret is libunwind's, opened during one of
 * our walks. */
HP_INLINE int hp_unwpipe_wants(uintptr_t ret)
{
	return HP_UNLIKELY(hp_unwpipe_walking) && ret >= hp_unwpipe_lo && ret < hp_unwpipe_hi;
}

/* libunwind's new pipe (fds as pipe2 filled them in): both ends are moved
 * to the top of the range, fds updated, and the pipe is recorded for
 * closing.  Called by the interposed pipe2 on the walking thread. */
void hp_unwpipe_adopt(int fds[2]);

/* In a fork child: no walk goes on; the pipes copied from the parent are
 * closed. */
/* Around fork (before heapprof's other fork locks): no libunwind walk
 * runs while a thread forks, so that the child never inherits the loader's
 * lock held by one (its dl_iterate_phdr, a leak check's, would wait for
 * ever).  The walks under way end first, a second at most. */
void hp_unwpipe_prefork(void);
void hp_unwpipe_postfork_parent(void);
void hp_unwpipe_postfork_child(void);

/* Walks refused because the program held libunwind's numbers. */
uint64_t hp_unwpipe_refused(void);

#pragma GCC visibility pop

#endif
