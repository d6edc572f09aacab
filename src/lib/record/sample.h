/*
 * sample.h -- when to sample and what a sample is worth.
 *
 * An allocation of n bytes takes Z = n + 1 bytes of the sampling stream
 * (the one byte more gives malloc(0) the chance of a 1-byte block instead
 * of none).  Each thread counts the stream down from a random wait drawn
 * as floor(X), X exponential with mean R = 2^lg_prof_sample; the
 * allocation holding the sample point, the one that finds the wait below
 * Z, is sampled.  floor(X) is geometric, hence memoryless over whole bytes,
 * so an allocation is sampled with probability exactly 1 - exp(-Z/R)
 * whatever happened before, and 1 / (1 - exp(-Z/R)) objects and n times
 * that many bytes are an unbiased weight for it.  lg 0 is exact mode:
 * every allocation is sampled with weight 1.
 *
 * Counts are kept in fixed point (HP_CNT_ONE per object) so that exact mode
 * is exact and sampled weights keep 10 fractional bits.  Pure functions;
 * safe anywhere.
 */
#ifndef HP_SAMPLE_H
#define HP_SAMPLE_H

#include <stdint.h>

#include "base/compiler.h"
#include "base/maths.h"

#define HP_CNT_SHIFT 10
#define HP_CNT_ONE   ((uint64_t)1 << HP_CNT_SHIFT)
#define HP_LG_SAMPLE_MAX 40

/* Next wait in stream bytes, >= 0, for lg >= 1 (exact mode never draws). */
uint64_t hp_sample_draw(uint64_t *rng, int lg);

/* 1 / (1 - exp(-x)), the inverse of the probability that a block x mean
 * intervals long holds a sample point.  Most sampled blocks are far
 * smaller than the interval (x < 1/64): there the series
 * 1/x + 1/2 + x/12 leaves out x^3/720, under 1e-10 of the sum (2^-24 /
 * 720), without expm1's cost.  (The x^3 term cost five instructions at
 * every sampled allocation and free, for a weight exact to 1e-16 instead
 * of 1e-10, which the 10 fractional bits of the counts round away.) */
HP_INLINE double hp_sample_inverse_probability(double z, double r, double inv_r)
{
	double x = z * inv_r;

	if (x < 0x1.0p-6)
		return r / z + 0.5 + x * (1.0 / 12.0);
	return 1.0 / -hp_maths_expm1(-x);
}

/* The estimate one sampled allocation of size bytes (size + 1 in the
 * stream) stands for, in
 * fixed-point objects and in bytes.  Deterministic: a free recomputes what
 * the allocation added and subtracts exactly that.  Inline: every
 * sampled allocation and every sampled free asks. */
HP_INLINE void hp_sample_weight(uint64_t size, int lg, uint64_t *cnt_fp, uint64_t *bytes)
{
	if (lg == 0) {
		*cnt_fp = HP_CNT_ONE;
		*bytes = size;
		return;
	}
	/* Recorded sizes are at most 2^40 (record/live.h) and weights at
	 * most 2^HP_LG_SAMPLE_MAX: the conversions below stay inside int64,
	 * where each is one instruction (the unsigned ones branch). */
	double z = size < ((uint64_t)1 << 62) ? (double)(int64_t)size : 0x1.0p62;
	double w = hp_sample_inverse_probability(z + 1.0, hp_maths_pow2(lg), hp_maths_pow2(-lg));
	/* Non-negative and far below 2^63: adding a half and truncating
	 * rounds to nearest. */
	*cnt_fp = (uint64_t)(int64_t)(w * (double)HP_CNT_ONE + 0.5);
	*bytes = (uint64_t)(int64_t)(z * w + 0.5);
}

/* A non-zero seed for a thread's generator. */
uint64_t hp_sample_seed(const void *salt);

#endif
