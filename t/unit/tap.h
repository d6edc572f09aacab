/*
 * tap.h -- TAP output for the unit tests: each t/unit/NAME.c is a program
 * that includes this once, asserts with ok()/is_str()/is_int(), and ends
 * main with `return done_testing();`, which prints the trailing plan and
 * exits non-zero if anything failed.  t/0100-unit.t runs every program and
 * merges their streams into one.
 *
 * Test programs, not library code: stdio is fine here.  Everything is
 * static, so each program has its own counters and nothing is linked.
 */
#ifndef HP_TAP_H
#define HP_TAP_H

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_tests, tap_failed;

/* Line-buffered even into a pipe: what was printed before a crash is seen. */
__attribute__((constructor)) static void tap_init(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
}

__attribute__((format(printf, 2, 3), unused))
static int ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_tests++;
	printf("%sok %d - ", cond ? "" : "not ", tap_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond)
		tap_failed++;
	return cond;
}

__attribute__((format(printf, 1, 2), unused))
static void diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

__attribute__((unused))
static int is_str(const char *got, const char *want, const char *name)
{
	if (ok(!strcmp(got, want), "%s", name))
		return 1;
	diag("got '%s'", got);
	diag("want '%s'", want);
	return 0;
}

__attribute__((unused))
static int is_int(long long got, long long want, const char *name)
{
	if (ok(got == want, "%s", name))
		return 1;
	diag("got %lld", got);
	diag("want %lld", want);
	return 0;
}

__attribute__((unused))
static int done_testing(void)
{
	printf("1..%d\n", tap_tests);
	return tap_failed != 0;
}

#endif
