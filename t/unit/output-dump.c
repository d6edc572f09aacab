/*
 * output-dump.c -- unit tests of output/dump: the pre-images, integer
 * (objs, bytes) that jeprof's and pprof's scaling maps back to the
 * estimates, unbiased on average over the dither.
 */
#include <math.h>
#include <stdint.h>

#include "output/dump.h"

#include "tap.h"

/* The reader's scaling of a row (jeprof's, unrounded). */
static void read_row(uint64_t ci, uint64_t bi, double R, double *objs, double *bytes)
{
	double scale = ci && bi ? 1 / (1 - exp(-((double)bi / (double)ci) / R)) : 0;

	*objs = (double)ci * scale;
	*bytes = (double)bi * scale;
}

/* What k samples of s bytes each stand for at rate R: each was sampled
 * with probability 1 - exp(-(s + 1)/R) (record/sample.h). */
static void estimate(double k, double s, double R, double *cnt, double *bytes)
{
	double w = 1 / -expm1(-(s + 1) / R);

	*cnt = k * w;
	*bytes = k * s * w;
}

#define DITHERS 4096

/* The row's reading averaged over evenly spaced dithers (the dither is
 * uniform in [0, 1): this is its expectation, to 1/DITHERS). */
static void mean_reading(double cnt, double bytes, double R, double *objs, double *rbytes)
{
	*objs = *rbytes = 0;
	for (int i = 0; i < DITHERS; i++) {
		uint64_t ci, bi;
		double o, b;
		hp_dump_preimage(cnt, bytes, R, (i + 0.5) / DITHERS, &ci, &bi);
		read_row(ci, bi, R, &o, &b);
		*objs += o / DITHERS;
		*rbytes += b / DITHERS;
	}
}

int main(void)
{
	int bad = 0, biased = 0;
	double worst = 0, worst_mean = 0;

	/* Sampled rates; exact mode (R = 1) is below. */
	for (int lg = 4; lg <= 24; lg += 4) {
		double R = ldexp(1, lg);
		for (double cnt = 1; cnt < 1e7; cnt *= 7.3) {
			for (double avg = 1; avg < 1e7; avg *= 5.1) {
				double bytes = cnt * avg;
				/* Estimates exist only in multiples of what one
				 * sample stands for: at least one sample's worth. */
				double samples = cnt * -expm1(-avg / R);
				if (samples < 1)
					continue;
				for (double u = 0; u < 1; u += 0.25) {
					uint64_t ci, bi;
					double o, rb;
					hp_dump_preimage(cnt, bytes, R, u, &ci, &bi);
					if (!ci || !bi) {
						bad++;
						continue;
					}
					read_row(ci, bi, R, &o, &rb);
					/* The count moves by less than one, the
					 * bytes by half a unit. */
					double rel = fabs(rb - bytes) / bytes;
					if (rel > 1 / samples + 0.5 / (double)bi + 1e-9)
						bad++;
					if (rel > worst && ci > 100)
						worst = rel;
				}
			}
		}
	}
	ok(bad == 0, "preimage: readers' scaling recovers the estimate within a count's rounding");
	ok(worst < 1e-2, "preimage: error below 1%% once 100 samples back a row (worst %.2g)", worst);

	/* The bias: rows of a few samples of small blocks, the most common
	 * rows of a real program's sampled dump (gcc's cc1 read 7% more
	 * objects when their counts were rounded to the nearest).  On
	 * average over the dither, objects and bytes read are the
	 * estimate's. */
	double near_one = 0;
	for (int lg = 10; lg <= 19; lg += 3) {
		double R = ldexp(1, lg);
		for (double k = 1; k <= 5; k++) {
			for (double s = 1; s < 4 * R; s = s < 64 ? s + 1 : floor(s * 1.7)) {
				double cnt, bytes, o, rb;
				estimate(k, s, R, &cnt, &bytes);
				mean_reading(cnt, bytes, R, &o, &rb);
				double e = fmax(fabs(o - cnt) / cnt, fabs(rb - bytes) / bytes);
				if (e > worst_mean)
					worst_mean = e;
				/* What remains is the dither grid's (a count
				 * of about one off by 1/(2 DITHERS)). */
				if (e > 2.0 / DITHERS)
					biased++;
				if (k == 1 && s == 24 && lg == 19) {
					uint64_t ci, bi;
					hp_dump_preimage(cnt, bytes, R, HP_DUMP_NEAREST, &ci, &bi);
					read_row(ci, bi, R, &o, &rb);
					near_one = o / cnt;
				}
			}
		}
	}
	ok(biased == 0, "preimage: unbiased on average over the dither, down to one sample of "
	   "one byte (worst %.2g)", worst_mean);
	ok(near_one > 1.03, "preimage: rounded to the nearest, one sample of 24 bytes reads %.3f "
	   "times its objects (the bias the dither removes)", near_one);

	uint64_t ci, bi, ro, rb;
	double cnt, bytes;
	estimate(1, 24, 524288, &cnt, &bytes);
	hp_dump_preimage(cnt, bytes, 524288, 0.0, &ci, &bi);
	ok(ci == 0 && bi == 0, "preimage: one sample of 24 bytes, dither 0: no row (%llu: %llu)",
	   (unsigned long long)ci, (unsigned long long)bi);
	hp_dump_preimage(cnt, bytes, 524288, 0.999, &ci, &bi);
	ok(ci == 1 && bi == 24, "preimage: dither 0.999: a row of one block of 24 bytes (%llu: %llu)",
	   (unsigned long long)ci, (unsigned long long)bi);
	hp_dump_preimage(cnt, bytes, 524288, HP_DUMP_NEAREST, &ci, &bi);
	ok(ci == 1 && bi == 24, "preimage: to the nearest, every sampled block keeps its row");

	hp_dump_preimage(80, 3235840, 1, 0.3, &ci, &bi);
	ok(ci == 80 && bi == 3235840, "preimage: identity in exact mode");
	hp_dump_preimage(20, 20, 1, 0.3, &ci, &bi);
	ok(ci == 20 && bi == 20, "preimage: 20 one-byte blocks stay 20: 20 in exact mode");
	hp_dump_preimage(7, 0, 1, 0.3, &ci, &bi);
	ok(ci == 0 && bi == 0, "preimage: blocks of zero bytes make no row (jeprof would divide by 0)");
	hp_dump_preimage(7, 0, 524288, 0.3, &ci, &bi);
	ok(ci == 0 && bi == 0, "preimage: nor at a sampled rate");
	hp_dump_row_read(20, 20, 1, &ro, &rb);
	ok(ro == 20 && rb == 20, "row_read: exact rows are read as they are");
	/* Sampled: what the reader makes of the row, which the log reports. */
	hp_dump_preimage(168.3, 6700000, 524288, 0.5, &ci, &bi);
	hp_dump_row_read(ci, bi, 524288, &ro, &rb);
	double want = (double)bi / -expm1(-((double)bi / ci) / 524288);
	ok(rb == (uint64_t)llround(want) && fabs((double)rb - 6700000) < 6700000 * 0.05,
	   "row_read: jeprof's scaling of the row, rounded (%llu bytes)", (unsigned long long)rb);
	return done_testing();
}
