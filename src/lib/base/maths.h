/*
 * maths.h -- the few elementary functions the library needs (the
 * exponential draw's log, the weights' expm1), so that it does not load
 * libm into programs that do not use it (about 450 KiB of resident pages).
 *
 * Accurate to a few units in the last place over the ranges used: log on
 * (0, 1], expm1 on the whole line.  Pure functions: safe anywhere,
 * including signal handlers.
 */
#ifndef HP_MATHS_H
#define HP_MATHS_H

#include <stdint.h>

#include "base/compiler.h"

#pragma GCC visibility push(hidden)

/* Natural logarithm of x > 0 (finite, normal). */
double hp_maths_ln(double x);

/* exp(x) - 1, without cancellation for small x. */
double hp_maths_expm1(double x);

/* 1/c for c the centre of each of 2^HP_MATHS_VARIATE_BITS intervals of
 * [1, 2), and ln(1/c) (maths.c). */
#define HP_MATHS_VARIATE_BITS 7
extern const struct hp_maths_variate_row {
	double inv_c, ln_inv_c;
} hp_maths_variate_table[1 << HP_MATHS_VARIATE_BITS];

/* -ln u for u = ((bits >> 11) + 1) / 2^53, uniform in (0, 1] when bits
 * is uniform: a standard exponential variate, at most 53 ln 2 (about
 * 36.7).  Error below 1e-15, relative above 1.  Inline: the sample draw
 * (record/sample.c) is a leaf function then, with no frame of its own. */
HP_INLINE double hp_maths_exp_variate(uint64_t bits)
{
	/* k + 1 in [1, 2^53]: exact as a double.  Its exponent e and its
	 * mantissa m in [1, 2): u = m 2^(e - 53), so
	 * -ln u = (53 - e) ln2 - ln m, and ln m = ln(m/c) - ln(1/c). */
	double k = (double)(int64_t)((bits >> 11) + 1), m;
	uint64_t kb, mb;

	__builtin_memcpy(&kb, &k, sizeof(kb));
	int e = (int)(kb >> 52) - 1023;
	unsigned i = (unsigned)(kb >> (52 - HP_MATHS_VARIATE_BITS)) & ((1u << HP_MATHS_VARIATE_BITS) - 1);
	mb = (kb & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL;
	__builtin_memcpy(&m, &mb, sizeof(m));
	/* |r| <= 1/256: the series' first omitted term, r^7/7, is below
	 * 3e-18; m * inv_c rounds once, 1e-16 at most. */
	double r = m * hp_maths_variate_table[i].inv_c - 1.0;
	double ln_m_over_c = r * (1.0 + r * (-1.0 / 2 + r * (1.0 / 3 + r * (-1.0 / 4 + r * (1.0 / 5 + r * (-1.0 / 6))))));
	double ln_m = ln_m_over_c - hp_maths_variate_table[i].ln_inv_c;
	return (double)(53 - e) * 6.93147180559945309417e-01 - ln_m;
}

/* 2^k for k in -1022..1023, exactly: its bits, no conversion (inline:
 * the weights ask for it at every sampled allocation and free). */
HP_INLINE double hp_maths_pow2(int k)
{
	uint64_t u = (uint64_t)(k + 1023) << 52;
	double x;

	__builtin_memcpy(&x, &u, sizeof(x));
	return x;
}


#pragma GCC visibility pop

#endif
