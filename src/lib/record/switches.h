/*
 * switches.h -- the process-wide sampling switches.
 *
 * Written by the control side (start-up, settings applied from
 * profiler.ini or the API, the toggle signal) and by prof.reset; read by
 * the sampled slow path at each sample point and by the output side.  A
 * change of rate or of the active switch bumps the epoch, which makes
 * every thread redraw its countdown at its next sample point.  All
 * accesses go through HP_LOAD/HP_STORE: relaxed, except ready, which is
 * published with release once start-up is complete.
 */
#ifndef HP_SWITCHES_H
#define HP_SWITCHES_H

#pragma GCC visibility push(hidden)

#include <stdint.h>

struct hp_switches {
	int ready;                /* init finished; sampling may start */
	int enabled;              /* opt prof: sampling possible at all */
	int active;               /* prof.active */
	int count_alloc;          /* bytes allocated are counted (the
				   * lg_prof_interval trigger is on) */
	int lg_sample;            /* current lg_prof_sample */
	int bt_max;               /* current prof_bt_max */
	int thread_active_init;
	uint32_t epoch;           /* bumped when rate or switches change */
	uint16_t gen;             /* reset generation (prof.reset) */
	uint64_t dropped;         /* samples lost to exhausted memory */
	int attached;             /* HP_ATTACH_*: how the library came in */
	int64_t attached_at;      /* UTC seconds of the last heapprof attach */
	int missed;               /* since start-up, some allocation may have
				   * gone unrecorded (a sampled rate, a pause,
				   * an inactive thread, a dropped sample): the
				   * leak scan then takes what it cannot see
				   * for roots.  Never cleared. */
};

/* hp_switches.attached: preloaded (or linked), or loaded by heapprof
 * attach and routed now, or detached since (inert: nothing sampled, no
 * helper thread, no state file; the exit handler does nothing). */
enum {
	HP_ATTACH_NONE = 0,
	HP_ATTACH_ON = 1,
	HP_ATTACH_OFF = 2,
};

extern struct hp_switches hp_switches;

/* Makes every thread redraw its countdown at its next sample point (after
 * a change of rate or of the active switch). */
void hp_switches_new_epoch(void);

/* Sets prof.active and count_alloc, with a new epoch when either changes:
 * a thread in exact mode skips both tests while its epoch holds
 * (record/sampled.c's exact lane). */
void hp_switches_set(int active, int count_alloc);

#pragma GCC visibility pop

#endif
