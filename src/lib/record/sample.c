/*
 * sample.c -- sample intervals (see sample.h; the weights are inline
 * there).
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

uint64_t hp_sample_draw(uint64_t *rng, int lg)
{
	/* -ln u, u uniform in (0, 1]: finite, at most 53 ln 2. */
	double x = hp_maths_exp_variate(next_u64(rng)) * hp_maths_pow2(lg);

	if (!(x < 0x1.0p62))
		return (uint64_t)1 << 62;
	return (uint64_t)(int64_t)x;   /* 0 <= x < 2^62: truncation is floor */
}
