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

/* -ln u for u = ((bits >> 11) + 1) / 2^53, uniform in (0, 1] when bits
 * is uniform: a standard exponential variate, at most 53 ln 2 (about
 * 36.7).  Error below 1e-15, relative above 1. */
double hp_maths_exp_variate(uint64_t bits);

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
