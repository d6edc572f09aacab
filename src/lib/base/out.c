/*
 * out.c -- buffered output to a file descriptor (see out.h).
 *
 * Owns no state: a writer lives in its caller's struct and buffer.  Calls
 * only write(2): no allocation, no stdio, no locks; used by dump writers,
 * the log and the state file, inside malloc, at exit and after fork.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "base/fmt.h"
#include "base/out.h"
#include "base/banned.h"

int hp_out_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (w == 0)
			return EIO;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

void hp_out_init(struct hp_out *o, int fd, char *buf, size_t cap)
{
	o->fd = fd;
	o->err = 0;
	o->buf = buf;
	o->len = 0;
	o->cap = cap;
	o->total = 0;
}

int hp_out_flush(struct hp_out *o)
{
	if (!o->err && o->len)
		o->err = hp_out_write_all(o->fd, o->buf, o->len);
	o->len = 0;
	return o->err;
}

void hp_out_write(struct hp_out *o, const void *p, size_t n)
{
	const char *c = p;

	if (o->err)
		return;
	o->total += n;
	while (n) {
		if (o->len == o->cap && hp_out_flush(o))
			return;
		size_t room = o->cap - o->len;
		size_t k = n < room ? n : room;
		memcpy(o->buf + o->len, c, k);
		o->len += k;
		c += k;
		n -= k;
	}
}

void hp_out_str(struct hp_out *o, const char *s)
{
	hp_out_write(o, s, strlen(s));
}

void hp_out_char(struct hp_out *o, char c)
{
	hp_out_write(o, &c, 1);
}

void hp_out_u64(struct hp_out *o, uint64_t v)
{
	char num[24];

	hp_out_write(o, num, hp_fmt_u64_dec(num, v));
}

void hp_out_hex(struct hp_out *o, uint64_t v)
{
	char num[24];

	hp_out_write(o, num, hp_fmt_u64_hex(num, v));
}

void hp_out_printf(struct hp_out *o, const char *fmt, ...)
{
	char line[1024];
	va_list ap;

	va_start(ap, fmt);
	size_t n = hp_fmt_va(line, sizeof(line), fmt, ap);
	va_end(ap);
	hp_out_write(o, line, n);
}
