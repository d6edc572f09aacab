/*
 * tsan.h -- what the TSan harness programs (t/san/tsan-*.c, make
 * check-tsan) share.  Each program links the library's objects built with
 * -fsanitize=thread (as the unit tests link them, minus the interposer and
 * start-up) and hammers one part of the library from several threads; a
 * data race is a ThreadSanitizer report, which fails make check-tsan.  A
 * program also checks that the part did its job (tables consistent,
 * dumps written) and exits non-zero if not.  Test code: stdio is fine.
 */
#ifndef HP_TSAN_H
#define HP_TSAN_H

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static int tsan_failed;

__attribute__((format(printf, 2, 3), unused))
static void check(int cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
	if (!cond)
		tsan_failed = 1;
}

/* Runs fn(i) on n threads at once and joins them. */
__attribute__((unused))
static void run_threads(int n, void *(*fn)(void *))
{
	pthread_t t[64];

	for (int i = 0; i < n && i < 64; i++)
		if (pthread_create(&t[i], NULL, fn, (void *)(long)i)) {
			perror("pthread_create");
			exit(2);
		}
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
}

__attribute__((unused))
static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
