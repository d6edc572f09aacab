/*
 * base-maths.c -- unit tests of base/maths: log and expm1 against libm,
 * in relative error and in units in the last place; pow2.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "base/maths.h"

#include "tap.h"

/* Distance in units in the last place between two finite doubles: their
 * bit patterns mapped onto one ordered integer line. */
static uint64_t ulps(double a, double b)
{
	int64_t ia, ib;

	memcpy(&ia, &a, sizeof(ia));
	memcpy(&ib, &b, sizeof(ib));
	if (ia < 0)
		ia = INT64_MIN - ia;
	if (ib < 0)
		ib = INT64_MIN - ib;
	return ia > ib ? (uint64_t)ia - (uint64_t)ib : (uint64_t)ib - (uint64_t)ia;
}

/* "A few units in the last place" (maths.h): libm is itself within one,
 * and these measure at most 2 on x86-64. */
#define ULPS_MAX 4

static void test_ulps(void)
{
	uint64_t w = 0;
	double wx = 0;

	for (double x = 0x1.0p-1022; x <= 1; x *= 1.0013) {
		uint64_t u = ulps(hp_maths_ln(x), log(x));
		if (u > w)
			w = u, wx = x;
	}
	for (int k = 1; k <= 100000; k++) {   /* next to 1, where log is small */
		double x = 1 - k * 0x1.0p-53, y = 1 + k * 0x1.0p-52;
		uint64_t u = ulps(hp_maths_ln(x), log(x)), v = ulps(hp_maths_ln(y), log(y));
		if (u > w)
			w = u, wx = x;
		if (v > w)
			w = v, wx = y;
	}
	ok(w <= ULPS_MAX, "ln on (0, 1] and next to 1: within %d ulps of libm (worst %llu at %.17g)",
	   ULPS_MAX, (unsigned long long)w, wx);
	w = 0;
	for (double x = 1; x < 1e300; x *= 1.0137) {
		uint64_t u = ulps(hp_maths_ln(x), log(x));
		if (u > w)
			w = u, wx = x;
	}
	ok(w <= ULPS_MAX, "ln above 1: within %d ulps (worst %llu at %.17g)", ULPS_MAX, (unsigned long long)w, wx);
	w = 0;
	for (double x = -745; x < 709; x += 0.000731) {
		uint64_t u = ulps(hp_maths_expm1(x), expm1(x));
		if (u > w)
			w = u, wx = x;
	}
	for (double x = 1e-300; x < 1; x *= 1.01) {
		uint64_t u = ulps(hp_maths_expm1(x), expm1(x)), v = ulps(hp_maths_expm1(-x), expm1(-x));
		if (u > w)
			w = u, wx = x;
		if (v > w)
			w = v, wx = -x;
	}
	ok(w <= ULPS_MAX, "expm1 on [-745, 709] and near 0: within %d ulps (worst %llu at %.17g)",
	   ULPS_MAX, (unsigned long long)w, wx);
	ok(hp_maths_expm1(-1000) == -1 && isinf(hp_maths_expm1(710)) && hp_maths_expm1(710) > 0,
	   "expm1 saturates at -1 and overflows to +inf");
}

static void test_pow2(void)
{
	int bad = 0;

	for (int k = -1022; k <= 1023; k++)
		bad += hp_maths_pow2(k) != ldexp(1, k);
	ok(!bad, "pow2: exact for every k in -1022..1023 (%d wrong)", bad);
}

/* The draw's variate against libm's -log u, u = ((bits >> 11) + 1) / 2^53:
 * every mantissa interval of the table, both ends of (0, 1], and a
 * million random bit patterns. */
static double variate_error(uint64_t bits)
{
	double u = (double)((bits >> 11) + 1) * 0x1.0p-53, want = -log(u);

	return fabs(hp_maths_exp_variate(bits) - want) / (want > 1 ? want : 1);
}

static void test_variate(void)
{
	double worst = 0;
	uint64_t wb = 0, x = 0x9e3779b97f4a7c15ULL;

	for (int i = 0; i < 1000000; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		uint64_t b[] = { x, x >> (i % 64), ((uint64_t)(i % 4096) << 52) | (x >> 12), (uint64_t)i << 11,
				 ~((uint64_t)i << 11) };
		for (size_t k = 0; k < sizeof(b) / sizeof(b[0]); k++) {
			double e = variate_error(b[k]);
			if (e > worst)
				worst = e, wb = b[k];
		}
	}
	ok(worst < 1e-15, "exp_variate: -ln u within 1e-15 of libm, relative above 1 (worst %.2g at bits %#llx)", worst,
	   (unsigned long long)wb);
	ok(hp_maths_exp_variate(0) > 36.7 && hp_maths_exp_variate(0) < 36.75 &&
	   fabs(hp_maths_exp_variate(~(uint64_t)0)) < 1e-15,
	   "exp_variate: 53 ln 2 at the smallest u, 0 at u = 1");
}

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
	ok(hp_maths_pow2(0) == 1 && hp_maths_pow2(19) == 524288 && hp_maths_pow2(-3) == 0.125, "pow2");
	test_ulps();
	test_pow2();
	test_variate();
	return done_testing();
}
