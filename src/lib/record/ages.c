/*
 * ages.c -- the start of the clock that dates sampled blocks (see ages.h).
 *
 * Owns the start tick.  Written at start-up and attach, read by dumps.
 */
#include "record/ages.h"
#include "base/banned.h"

static uint32_t start_tick;

void hp_ages_begin(void)
{
	HP_STORE(&start_tick, hp_ages_now());
}

uint32_t hp_ages_start(void)
{
	return HP_LOAD(&start_tick);
}
