/*
 * output-dump.c -- unit tests of output/dump: the pre-images, integer
 * (objs, bytes) that jeprof's and pprof's scaling maps back to the
 * estimates.
 */
#include <math.h>
#include <stdint.h>

#include "output/dump.h"

#include "tap.h"

int main(void)
{
	int bad = 0;
	double worst = 0;

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
				uint64_t ci, bi;
				hp_dump_preimage(cnt, bytes, R, &ci, &bi);
				if (!ci || !bi) {
					bad++;
					continue;
				}
				double scale = 1 / (1 - exp(-((double)bi / ci) / R));
				double rb = bi * scale, rel = fabs(rb - bytes) / bytes;
				/* Integer pre-images lose precision only when the
				 * sampled count is small: rounding each field by
				 * half a unit moves the result by at most about
				 * that fraction of it. */
				double bound = 0.5 / (double)ci + 0.5 / (double)bi + 1e-9;
				if (rel > bound)
					bad++;
				if (rel > worst && ci > 100)
					worst = rel;
			}
		}
	}
	ok(bad == 0, "preimage: readers' scaling recovers the estimate within rounding");
	ok(worst < 5e-3, "preimage: error below 0.5%% once 100 samples back a row (worst %.2g)", worst);
	uint64_t ci, bi, ro, rb;
	hp_dump_preimage(80, 3235840, 1, &ci, &bi);
	ok(ci == 80 && bi == 3235840, "preimage: identity in exact mode");
	hp_dump_preimage(20, 20, 1, &ci, &bi);
	ok(ci == 20 && bi == 20, "preimage: 20 one-byte blocks stay 20: 20 in exact mode");
	hp_dump_preimage(7, 0, 1, &ci, &bi);
	ok(ci == 0 && bi == 0, "preimage: blocks of zero bytes make no row (jeprof would divide by 0)");
	hp_dump_row_read(20, 20, 1, &ro, &rb);
	ok(ro == 20 && rb == 20, "row_read: exact rows are read as they are");
	/* Sampled: what the reader makes of the row, which the log reports. */
	hp_dump_preimage(168.3, 6700000, 524288, &ci, &bi);
	hp_dump_row_read(ci, bi, 524288, &ro, &rb);
	double want = (double)bi / -expm1(-((double)bi / ci) / 524288);
	ok(rb == (uint64_t)llround(want) && fabs((double)rb - 6700000) < 6700000 * 0.05,
	   "row_read: jeprof's scaling of the row, rounded (%llu bytes)", (unsigned long long)rb);
	return done_testing();
}
