/*
 * support-report.c -- for the targets linked with the report engine (see
 * fuzz.h): hp_util_die returns to fuzz_try instead of exiting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>

#include "fuzz.h"

void __wrap_hp_util_die(const char *fmt, ...);

/* LeakSanitizer's interface, when it is linked in. */
void __lsan_disable(void) __attribute__((weak));
void __lsan_enable(void) __attribute__((weak));

static jmp_buf *landing;

void __wrap_hp_util_die(const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!landing)
		fuzz_fail("hp_util_die outside fuzz_try: %s", msg);
	longjmp(*landing, 1);
}

int fuzz_try(void (*fn)(void *), void *arg)
{
	jmp_buf here;
	jmp_buf *volatile outer = landing;

	if (setjmp(here)) {
		landing = outer;
		return 1;
	}
	landing = &here;
	fn(arg);
	landing = outer;
	return 0;
}

int fuzz_try_may_die(void (*fn)(void *), void *arg)
{
	if (__lsan_disable)
		__lsan_disable();
	int died = fuzz_try(fn, arg);
	if (__lsan_enable)
		__lsan_enable();
	return died;
}
