/*
 * util.c -- fatal errors, checked allocation and interning for the report
 * engine (see util.h).
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

#include "index.h"
#include "util.h"

void hp_die(const char *fmt, ...)
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

void hp_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("heapprof: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *hp_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		hp_die("out of memory");
	return p;
}

void *hp_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		hp_die("out of memory");
	return p;
}

void *hp_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		hp_die("out of memory");
	return p;
}

char *hp_xstrdup(const char *s)
{
	return hp_xstrndup(s, strlen(s));
}

char *hp_xstrndup(const char *s, size_t n)
{
	char *p = hp_xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void hp_grow(void *pp, size_t *cap, size_t need, size_t elem)
{
	void **p = pp;
	size_t c = *cap ? *cap : 16;

	if (need <= *cap)
		return;
	while (c < need) {
		if (c > SIZE_MAX / 2 / elem)
			hp_die("out of memory");
		c *= 2;
	}
	*p = hp_xrealloc(*p, c * elem);
	*cap = c;
}

void hp_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

int64_t hp_sat_add(int64_t a, int64_t b)
{
	int64_t r;

	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

/* ---- interning ------------------------------------------------------- */

static void strtab_rehash(struct hp_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	const char **slot = hp_xcalloc(cap, sizeof(*slot));

	for (size_t i = 0; i < t->cap; i++) {
		const char *s = t->slot[i];
		if (!s)
			continue;
		size_t j = hp_hash_bytes(s, strlen(s), 0) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = s;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
}

const char *hp_intern(struct hp_strtab *t, const char *s, size_t n)
{
	if ((t->n + 1) * 2 > t->cap)
		strtab_rehash(t);
	size_t j = hp_hash_bytes(s, n, 0) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1)) {
		const char *c = t->slot[j];
		if (!strncmp(c, s, n) && c[n] == '\0')
			return c;
	}
	t->slot[j] = hp_xstrndup(s, n);
	t->n++;
	return t->slot[j];
}

const char *hp_intern_str(struct hp_strtab *t, const char *s)
{
	return hp_intern(t, s, strlen(s));
}

/* ---- sanitizing ------------------------------------------------------ */

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	unsigned min;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0)
		len = 2, min = 0x80;
	else if ((s[0] & 0xf0) == 0xe0)
		len = 3, min = 0x800;
	else if ((s[0] & 0xf8) == 0xf0)
		len = 4, min = 0x10000;
	else
		return 0;
	if (len > n)
		return 0;
	unsigned cp = s[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are invalid. */
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

char *hp_sanitize(const char *s, size_t n)
{
	char *out = hp_xmalloc(n + 1);
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < n) {
		size_t k = utf8_len(u + i, n - i);
		if (k == 0 || (k == 1 && (u[i] < 0x20 || u[i] == 0x7f))) {
			out[i++] = '?';
			continue;
		}
		memcpy(out + i, u + i, k);
		i += k;
	}
	out[n] = '\0';
	return out;
}

const char *hp_intern_clean(struct hp_strtab *t, const char *s)
{
	size_t n = 0;

	/* Nearly always printable ASCII: no copy then. */
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			break;
	if (!s[n])
		return hp_intern(t, s, n);
	n += strlen(s + n);
	char *clean = hp_sanitize(s, n);
	const char *out = hp_intern(t, clean, n);
	free(clean);
	return out;
}

void hp_write_output(const char *path, const void *p, size_t n)
{
	const char *name = path ? path : "<stdout>";
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666) : 1;
	const char *s = p;

	if (fd < 0)
		hp_die("cannot write '%s': %m", name);
	while (n) {
		ssize_t k = write(fd, s, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			hp_die("cannot write '%s': %m", name);
		s += k;
		n -= (size_t)k;
	}
	if (path && close(fd) < 0)
		hp_die("cannot write '%s': %m", name);
}
