/*
 * sample.c -- sample intervals and unbiasing weights (see sample.h).
 *
 * Owns the seed counter.  Called on the sampled slow path only.
 */
#include <time.h>

#include "base/compiler.h"
#include "base/maths.h"
#include "record/sample.h"
#include "base/banned.h"

static uint64_t seed_counter;

static uint64_t splitmix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

uint64_t hp_sample_seed(const void *salt)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t s = splitmix((uint64_t)(uintptr_t)salt ^
			      ((uint64_t)ts.tv_nsec << 20) ^ (uint64_t)ts.tv_sec ^
			      splitmix(HP_ADD(&seed_counter, 1)));
	return s ? s : 0x2545f4914f6cdd1dULL;
}

/* xorshift64*: fast, good enough for sample spacing. */
static uint64_t next_u64(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}

/* 2^lg as a double, lg in 0..62: its bits, no conversion. */
static double pow2(int lg)
{
	return hp_maths_pow2(lg);
}

uint64_t hp_sample_draw(uint64_t *rng, int lg)
{
	/* -ln u, u uniform in (0, 1]: finite, at most 53 ln 2. */
	double x = hp_maths_exp_variate(next_u64(rng)) * pow2(lg);

	if (!(x < 0x1.0p62))
		return (uint64_t)1 << 62;
	return (uint64_t)(int64_t)x;   /* 0 <= x < 2^62: truncation is floor */
}

/* 1 / (1 - exp(-x)), the inverse of the probability that a block x mean
 * intervals long holds a sample point.  Most sampled blocks are far
 * smaller than the interval (x < 1/64): there the series
 * 1/x + 1/2 + x/12 - x^3/720 is exact to a few parts in 10^16, without
 * expm1's cost. */
static double inverse_probability(double z, double r, double inv_r)
{
	double x = z * inv_r;

	if (x < 0x1.0p-6)
		return r / z + 0.5 + x * (1.0 / 12.0) - x * x * x * (1.0 / 720.0);
	return 1.0 / -hp_maths_expm1(-x);
}

void hp_sample_weight(uint64_t size, int lg, uint64_t *cnt_fp, uint64_t *bytes)
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
	double w = inverse_probability(z + 1.0, pow2(lg), pow2(-lg));
	/* Non-negative and far below 2^63: adding a half and truncating
	 * rounds to nearest. */
	*cnt_fp = (uint64_t)(int64_t)(w * (double)HP_CNT_ONE + 0.5);
	*bytes = (uint64_t)(int64_t)(z * w + 0.5);
}
