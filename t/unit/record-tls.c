/*
 * record-tls.c -- unit tests of record/tls: the fast path's countdown
 * test, hp_tls_fast, in its portable form (the one non-x86 targets
 * compile; x86_64's add-with-carry runs in every test of the library).
 *
 * An n-byte allocation takes n + 1 bytes of the stream: it stays on the
 * fast path while n is below the countdown, which then drops by n + 1;
 * otherwise the countdown is left as it was.
 */
#define HP_TLS_GENERIC 1
#include <stdint.h>

#include "record/tls.h"

#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint64_t next(void)
{
	rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
	return rng;
}

/* The model: sample.h's stream, in plain arithmetic. */
static int model(uint64_t *countdown, uint64_t n)
{
	if (n >= *countdown)
		return 0;
	*countdown -= n + 1;
	return 1;
}

int main(void)
{
	long bad = 0;

	hp_tls_set_countdown(&hp_tls, 10);
	ok(hp_tls_fast(9) && hp_tls_countdown(&hp_tls) == 0, "9 bytes under a countdown of 10: fast, 10 counted");
	ok(!hp_tls_fast(0) && hp_tls_countdown(&hp_tls) == 0, "malloc(0) at a countdown of 0: slow, nothing counted");
	hp_tls_set_countdown(&hp_tls, 10);
	ok(!hp_tls_fast(10) && hp_tls_countdown(&hp_tls) == 10, "10 bytes at a countdown of 10: slow, nothing counted");
	hp_tls_set_countdown(&hp_tls, UINT64_MAX);
	ok(hp_tls_fast(UINT64_MAX - 1) && hp_tls_countdown(&hp_tls) == 0,
	   "the guard's countdown (UINT64_MAX) takes any size but SIZE_MAX");
	ok(!hp_tls_fast(UINT64_MAX) && hp_tls_countdown(&hp_tls) == 0, "SIZE_MAX never passes");
	for (int i = 0; i < 1000000; i++) {
		uint64_t c = next(), n = next();
		switch (i & 3) {
		case 0: c &= 0xfffff, n &= 0xfffff; break;
		case 1: n = c - (i & 7); break;
		case 2: c = UINT64_MAX - (next() & 0xff); break;
		default: break;
		}
		uint64_t want = c;
		int fast_want = model(&want, n);
		hp_tls_set_countdown(&hp_tls, c);
		int fast = hp_tls_fast(n);
		bad += fast != fast_want || hp_tls_countdown(&hp_tls) != want;
	}
	ok(!bad, "a million countdowns and sizes agree with the stream's model (%ld differ)", bad);
	return done_testing();
}
