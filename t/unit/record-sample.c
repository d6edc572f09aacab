/*
 * record-sample.c -- unit tests of record/sample: the unbiasing weights
 * against the formula (an allocation of Z bytes takes Z + 1 bytes of the
 * sampling stream), and the exponential draw's distribution.
 *
 * The draw is random (seeded from the clock): its two assertions allow 5
 * standard errors, a false failure once in about 1.7 million runs.
 */
#include <math.h>
#include <stdint.h>

#include "record/sample.h"

#include "tap.h"

static void test_weight(void)
{
	uint64_t c, b;

	hp_sample_weight(100, 0, &c, &b);
	ok(c == HP_CNT_ONE && b == 100, "weight: exact mode counts 1 object, its size");
	hp_sample_weight(0, 0, &c, &b);
	ok(c == HP_CNT_ONE && b == 0, "weight: exact mode counts malloc(0) as an object");
	hp_sample_weight(64, 19, &c, &b);
	double p = -expm1(-65.0 / 524288.0);
	ok(fabs((double)c / HP_CNT_ONE - 1 / p) < 0.01 && fabs((double)b - 64 / p) < 1,
	   "weight: 1/(1-exp(-(Z+1)/R)) per allocation of Z bytes");
	hp_sample_weight(0, 19, &c, &b);
	p = -expm1(-1.0 / 524288.0);
	ok(fabs((double)c / HP_CNT_ONE - 1 / p) < 0.01 && b == 0,
	   "weight: a sampled malloc(0) counts 1/(1-exp(-1/R)) objects, no bytes");
	hp_sample_weight(1 << 30, 19, &c, &b);
	ok(c == HP_CNT_ONE && b == (1u << 30), "weight: huge blocks count once");
	/* The series used below x = 1/64 and expm1 above agree with the
	 * formula everywhere: each field is the exact value rounded to the
	 * nearest integer (off by more than a half by at most 1e-9 of it). */
	double worst = 0;
	for (int lg = 1; lg <= 30; lg++)
		for (uint64_t z = 1; z < ((uint64_t)1 << (lg + 6)); z = z * 5 / 4 + 1) {
			hp_sample_weight(z, lg, &c, &b);
			double w = 1 / -expm1(-(double)(z + 1) / ldexp(1, lg));
			double wc = w * HP_CNT_ONE, wb = w * (double)z;
			double e = (fabs((double)c - wc) - 0.5) / wc, eb = (fabs((double)b - wb) - 0.5) / wb;
			if (e > worst)
				worst = e;
			if (eb > worst)
				worst = eb;
		}
	ok(worst < 1e-9, "weight: 1/(1-exp(-(Z+1)/R)) rounded, for every size and rate (worst excess %.1g)", worst);
}

static void test_draw(void)
{
	uint64_t rng = hp_sample_seed(&rng), n = 400000;
	double sum = 0, below = 0, R = 4096;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t w = hp_sample_draw(&rng, 12);
		sum += (double)w;
		below += w <= 1000;
	}
	double mean = sum / n, se = R / sqrt((double)n);
	/* floor(X): mean R - 1/2, P(floor(X) <= 1000) = P(X < 1001). */
	ok(fabs(mean - (R - 0.5)) < 5 * se, "draw: mean wait %.1f ~ 2^12 (5 standard errors)", mean);
	double pb = 1 - exp(-1001 / R), sp = sqrt(pb * (1 - pb) / n);
	ok(fabs(below / n - pb) < 5 * sp, "draw: P(wait <= 1000) = %.4f ~ 1-exp(-1001/R) = %.4f", below / n, pb);
}

int main(void)
{
	test_weight();
	test_draw();
	return done_testing();
}
