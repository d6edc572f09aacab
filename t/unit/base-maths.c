/*
 * base-maths.c -- unit tests of base/maths: log and expm1 against libm,
 * pow2 and round.
 */
#include <math.h>
#include <stdint.h>

#include "base/maths.h"

#include "tap.h"

int main(void)
{
	/* Against libm: log over (0, 1] and beyond, expm1 everywhere. */
	double worst_log = 0, worst_expm1 = 0;
	for (double x = 0x1.0p-60; x < 1e6; x *= 1.0137) {
		double e = fabs(hp_maths_ln(x) - log(x)) / (fabs(log(x)) + 1e-300);
		if (x != 1.0 && e > worst_log)
			worst_log = e;
	}
	for (double x = -50; x < 50; x += 0.00731) {
		double e = fabs(hp_maths_expm1(x) - expm1(x)) / fabs(expm1(x));
		if (e > worst_expm1)
			worst_expm1 = e;
	}
	for (double x = 1e-12; x < 1; x *= 1.21) {
		double e = fabs(hp_maths_expm1(-x) - expm1(-x)) / fabs(expm1(-x));
		if (e > worst_expm1)
			worst_expm1 = e;
	}
	ok(worst_log < 1e-14 && worst_expm1 < 1e-14 && hp_maths_ln(1.0) == 0 && hp_maths_expm1(0) == 0,
	   "log and expm1 within 1e-14 of libm (worst %.1g and %.1g)", worst_log, worst_expm1);
	ok(hp_maths_pow2(0) == 1 && hp_maths_pow2(19) == 524288 && hp_maths_pow2(-3) == 0.125 && hp_maths_round(2.5) == 3 &&
	   hp_maths_round(-2.5) == -3 && hp_maths_round(2.49) == 2, "pow2 and round");
	return done_testing();
}
