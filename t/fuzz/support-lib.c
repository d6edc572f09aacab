/*
 * support-lib.c -- for the targets linked with the library's objects
 * (see fuzz.h): every hp_log line is formatted, whatever the library's
 * cap on warnings, then dropped.
 */
#include <stdarg.h>
#include <string.h>

#include "base/fmt.h"
#include "base/log.h"
#include "fuzz.h"

void __wrap_hp_log(enum hp_log_level level, const char *fmt, ...);

void __wrap_hp_log(enum hp_log_level level, const char *fmt, ...)
{
	char line[1200];
	va_list ap;

	(void)level;
	va_start(ap, fmt);
	size_t n = hp_fmt_va(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n >= sizeof(line) || strlen(line) != n)
		fuzz_fail("hp_fmt_va returned %zu for a line of %zu bytes", n, strlen(line));
}
