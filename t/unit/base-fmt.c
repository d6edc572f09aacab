/*
 * base-fmt.c -- unit tests of base/fmt: the allocation-free formatter's
 * printf subset, widths, flags, truncation.
 */
#include <stddef.h>
#include <string.h>

#include "base/fmt.h"

#include "tap.h"

int main(void)
{
	char b[64];

	hp_fmt(b, sizeof(b), "%d|%5d|%-5d|%05d|%u|%x|%lld", -42, 7, 7, -7, 42u, 255u, -9000000000LL);
	is_str(b, "-42|    7|7    |-0007|42|ff|-9000000000", "integers, widths, flags");
	const char *volatile null = NULL;   /* hp_fmt prints "(null)" */
	hp_fmt(b, sizeof(b), "%s|%.3s|%5s|%-4s|%c|%%|%s", "abc", "abcdef", "ab", "x", 'z', null);
	is_str(b, "abc|abc|   ab|x   |z|%|(null)", "strings and precision");
	hp_fmt(b, sizeof(b), "%p %zu %lu", (void *)0x1234, (size_t)18446744073709551615ULL, 0ul);
	is_str(b, "0x1234 18446744073709551615 0", "pointers and size_t");
	size_t n = hp_fmt(b, 8, "%s", "0123456789");
	ok(n == 7 && !strcmp(b, "0123456"), "truncates and terminates");
	return done_testing();
}
