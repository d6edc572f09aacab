/*
 * record-stale.c -- unit tests of record/stale: the inline scrub of a
 * small block (hp_stale_zero_small) zeroes exactly the bytes asked for,
 * whatever their number and alignment, and nothing around them.
 */
#include <stdint.h>
#include <string.h>

#include "record/stale.h"

#include "tap.h"

int main(void)
{
	unsigned char buf[HP_STALE_SMALL + 64];
	int bad = 0;

	for (size_t off = 0; off < 16; off++) {
		for (size_t n = 0; n <= HP_STALE_SMALL; n++) {
			memset(buf, 0xa5, sizeof(buf));
			hp_stale_zero_small((char *)buf + 16 + off, n);
			for (size_t i = 0; i < sizeof(buf); i++) {
				int inside = i >= 16 + off && i < 16 + off + n;
				if (buf[i] != (inside ? 0 : 0xa5))
					bad++;
			}
		}
	}
	ok(bad == 0, "0 to %u bytes at 16 alignments: zeroed, and nothing around them", HP_STALE_SMALL);
	return done_testing();
}
