/*
 * switches.c -- the process-wide sampling switches (see switches.h).
 *
 * Owns hp_switches.  Calls nothing.
 */
#include "base/compiler.h"
#include "record/switches.h"
#include "base/banned.h"

struct hp_switches hp_switches = {
	.lg_sample = 19,
	.bt_max = 128,
	.thread_active_init = 1,
	.epoch = 1,
};

void hp_switches_new_epoch(void)
{
	/* Never 0, a thread's "no epoch" (a new thread's epoch and
	 * exact_epoch): past 2^32 changes it would pass for the current. */
	if (HP_ADD(&hp_switches.epoch, 1) + 1 == 0)
		HP_ADD(&hp_switches.epoch, 1);
}

void hp_switches_set(int active, int count_alloc)
{
	active = !!active;
	count_alloc = !!count_alloc;
	if (HP_LOAD(&hp_switches.active) == active && HP_LOAD(&hp_switches.count_alloc) == count_alloc)
		return;
	HP_STORE(&hp_switches.active, active);
	HP_STORE(&hp_switches.count_alloc, count_alloc);
	hp_switches_new_epoch();
}
