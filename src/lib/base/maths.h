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

#pragma GCC visibility push(hidden)

/* Natural logarithm of x > 0 (finite, normal). */
double hp_maths_ln(double x);

/* exp(x) - 1, without cancellation for small x. */
double hp_maths_expm1(double x);

/* 2^k for k in -1022..1023, exactly. */
double hp_maths_pow2(int k);


#pragma GCC visibility pop

#endif
