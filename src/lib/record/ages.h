/*
 * ages.h -- the clock that dates sampled blocks (prof_age).
 *
 * A tick is 1/16 s of CLOCK_MONOTONIC_COARSE, read through the vDSO (no
 * system call; its resolution is the kernel's tick, 1 to 10 ms), kept in
 * 32 bits: ages are differences taken modulo 2^32, right up to 8.5
 * years.  The live table stores one per block (record/live.h); dumps
 * turn them into ages (output/ages.h).  The start is when heapprof
 * started in the process (its constructor, or heapprof attach); a fork
 * child keeps its parent's, as it keeps its parent's blocks.
 */
#ifndef HP_AGES_H
#define HP_AGES_H

#include <stdint.h>
#include <time.h>

#include "base/compiler.h"

#pragma GCC visibility push(hidden)

#define HP_AGES_TICKS_PER_S 16

/* Now, in ticks.  Any thread, inside malloc too: no lock, no allocation,
 * no system call where the vDSO has the coarse clock (x86-64, arm64). */
HP_INLINE uint32_t hp_ages_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint32_t)((uint64_t)ts.tv_sec * HP_AGES_TICKS_PER_S +
			  (uint64_t)ts.tv_nsec / (1000000000u / HP_AGES_TICKS_PER_S));
}

/* Marks heapprof's start in this process (start-up, attach). */
void hp_ages_begin(void);
/* The tick of that start. */
uint32_t hp_ages_start(void);

#pragma GCC visibility pop

#endif
