/*
 * util.c -- fatal errors, checked allocation, sorting, saturating sums
 * and writing the output, for the report engine (see util.h).
 *
 * Owns nothing but memory handed out to callers.  Not for the library:
 * this file uses stdio and malloc freely.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

void hp_util_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("heapprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void hp_util_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("heapprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *hp_util_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		hp_util_die("out of memory");
	return p;
}

void *hp_util_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		hp_util_die("out of memory");
	return p;
}

void *hp_util_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		hp_util_die("out of memory");
	return p;
}

char *hp_util_xstrdup(const char *s)
{
	return hp_util_xstrndup(s, strlen(s));
}

char *hp_util_xstrndup(const char *s, size_t n)
{
	char *p = hp_util_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void hp_util_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			hp_util_die("out of memory");
		c *= 2;
	}
	*p = hp_util_xrealloc(*p, c * elem);
	*cap = c;
}

void hp_util_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

int hp_util_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int64_t hp_util_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

void hp_util_write_output(const char *path, const void *p, size_t n)
{
	const char *name = path ? path : "<stdout>";
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : 1;
	const char *s = p;

	if (fd < 0)
		hp_util_die("cannot write '%s': %m", name);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			hp_util_die("cannot write '%s': %m", name);
		s += k;
		n -= (size_t)k;
	}
	if (path && close(fd) < 0)
		hp_util_die("cannot write '%s': %m", name);
}
