/*
 * maths.c -- log, expm1 and friends without libm (see maths.h).
 *
 * Owns nothing.  Classic range reductions: log via the exponent and an
 * atanh series on a mantissa in [sqrt(1/2), sqrt(2)); exp via k*ln2 + r
 * with |r| <= ln2/2 and a Taylor polynomial; ln2 split in two (Cody and
 * Waite) so that the reduction adds no rounding error of note.
 */
#include <string.h>

#include "base/compiler.h"
#include "base/maths.h"
#include "base/banned.h"

static const double LN2_HI = 6.93147180369123816490e-01;   /* upper bits of ln 2 */
static const double LN2_LO = 1.90821492927058770002e-10;   /* ln 2 - LN2_HI */

static uint64_t bits_of(double x)
{
	uint64_t u;

	memcpy(&u, &x, sizeof(u));
	return u;
}

static double double_of(uint64_t u)
{
	double x;

	memcpy(&x, &u, sizeof(x));
	return x;
}

/* c[0] x^(n-1) + ... + c[n-1], highest coefficient first. */
static double horner(const double *c, size_t n, double x)
{
	double p = c[0];

	for (size_t i = 1; i < n; i++)
		p = p * x + c[i];
	return p;
}

double hp_maths_pow2(int k)
{
	return double_of((uint64_t)(k + 1023) << 52);
}

double hp_maths_ln(double x)
{
	uint64_t u = bits_of(x);
	int e = (int)((u >> 52) & 0x7ff) - 1023;
	double m = double_of((u & 0x000fffffffffffffULL) | 0x3ff0000000000000ULL);   /* [1, 2) */

	if (m > 1.41421356237309504880) {
		m *= 0.5;
		e++;
	}
	/* log m = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.1716: nine
	 * terms leave an error below 1e-16. */
	double s = (m - 1.0) / (m + 1.0), z = s * s;
	static const double odd[] = {
		1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13, 1.0 / 11, 1.0 / 9, 1.0 / 7, 1.0 / 5, 1.0 / 3,
	};
	double p = horner(odd, HP_ARRAY_LEN(odd), z);
	double logm = 2.0 * s + 2.0 * s * z * p;
	return ((double)e * LN2_LO + logm) + (double)e * LN2_HI;
}

/* exp(r) - 1 for |r| <= ln2/2 + a little: Taylor to r^14 / 14!. */
static double expm1_reduced(double r)
{
	static const double inv_fact[] = {   /* 1/14! down to 1/2! */
		1.0 / 87178291200.0, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
		1.0 / 3628800.0, 1.0 / 362880.0, 1.0 / 40320.0, 1.0 / 5040.0, 1.0 / 720.0,
		1.0 / 120.0, 1.0 / 24.0, 1.0 / 6.0, 0.5,
	};
	double p = horner(inv_fact, HP_ARRAY_LEN(inv_fact), r);
	return r + r * r * p;
}

double hp_maths_expm1(double x)
{
	if (x < -40.0)
		return -1.0;              /* exp(x) < 1e-17: below half an ulp of 1 */
	if (x > 709.0)
		return 1e308 * 10.0;      /* overflow: +inf */
	if (x > -0.34657359027997264 && x < 0.34657359027997264)
		return expm1_reduced(x);
	/* x = k ln2 + r: exp(x) - 1 = 2^k (expm1(r) + 1) - 1. */
	double kf = x * 1.44269504088896340736 + (x < 0 ? -0.5 : 0.5);
	int k = (int)kf;
	double r = (x - (double)k * LN2_HI) - (double)k * LN2_LO;
	double t = hp_maths_pow2(k);
	return t * expm1_reduced(r) + (t - 1.0);
}
