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
	HP_ADD(&hp_switches.epoch, 1);
}
