/*
 * usage.c -- the one shape of a usage error, for main.c and every
 * subcommand: below them all, so that they call down to it and nothing
 * here calls back up.
 *
 * An ordinary program's code (stdio is fine here).  Calls nothing of the
 * command's.
 */
#include <stdarg.h>
#include <stdio.h>

#include "usage.h"

int hp_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "heapprof%s%s: ", cmd ? " " : "", cmd ? cmd : "");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry 'heapprof%s%s --help'\n", cmd ? " " : "", cmd ? cmd : "");
	return 2;
}
