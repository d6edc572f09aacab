/*
 * fmt.c -- allocation-free formatting into a caller's buffer (see fmt.h):
 * the library's printf subset (hp_fmt), decimal and hex numbers, UTC
 * times both ways, and byte counts for people.  Writing the text out is
 * base/out.c's.
 *
 * Owns no state.  Must not call stdio, the host allocator or anything that
 * consults locale data: it runs inside malloc, at exit and after fork.
 */
#include <string.h>

#include "base/fmt.h"
#include "base/banned.h"

size_t hp_fmt_u64_dec(char *buf, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

static size_t u64_to_base16(char *buf, uint64_t v, int upper)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = digits[v & 15];
		v >>= 4;
	} while (v);
	for (size_t i = 0; i < n; i++)
		buf[i] = tmp[n - 1 - i];
	return n;
}

size_t hp_fmt_u64_hex(char *buf, uint64_t v)
{
	buf[0] = '0';
	buf[1] = 'x';
	return 2 + u64_to_base16(buf + 2, v, 0);
}

/* A bounded sink: appends while there is room, counts what it dropped. */
struct sink {
	char *buf;
	size_t cap;   /* room for characters, excluding the NUL */
	size_t len;
};

static void sink_put(struct sink *s, const char *p, size_t n)
{
	size_t room = s->cap - s->len;

	if (n > room)
		n = room;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

static void sink_pad(struct sink *s, char c, size_t n)
{
	while (n-- && s->len < s->cap)
		s->buf[s->len++] = c;
}

/* Emits a converted field honouring width, '-' and '0'. */
static void sink_field(struct sink *s, const char *p, size_t n, int width,
		       int left, int zero, int negative)
{
	size_t body = n + (negative ? 1 : 0);
	size_t pad = width > 0 && (size_t)width > body ? (size_t)width - body : 0;

	if (left) {
		if (negative)
			sink_put(s, "-", 1);
		sink_put(s, p, n);
		sink_pad(s, ' ', pad);
		return;
	}
	if (zero) {
		if (negative)
			sink_put(s, "-", 1);
		sink_pad(s, '0', pad);
	} else {
		sink_pad(s, ' ', pad);
		if (negative)
			sink_put(s, "-", 1);
	}
	sink_put(s, p, n);
}

size_t hp_fmt_va(char *buf, size_t cap, const char *fmt, va_list ap)
{
	struct sink s = { buf, cap ? cap - 1 : 0, 0 };

	if (!cap)
		return 0;
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			const char *e = strchrnul(f, '%');
			sink_put(&s, f, (size_t)(e - f));
			f = e - 1;
			continue;
		}
		f++;
		int left = 0, zero = 0, width = 0, prec = -1, lng = 0;
		for (;; f++) {
			if (*f == '-')
				left = 1;
			else if (*f == '0')
				zero = 1;
			else
				break;
		}
		while (*f >= '0' && *f <= '9')
			width = width * 10 + (*f++ - '0');
		if (*f == '.') {
			f++;
			if (*f == '*') {
				prec = va_arg(ap, int);
				f++;
			} else {
				prec = 0;
				while (*f >= '0' && *f <= '9')
					prec = prec * 10 + (*f++ - '0');
			}
		}
		while (*f == 'l' || *f == 'z' || *f == 'j') {
			lng++;
			f++;
		}

		char num[24];
		switch (*f) {
		case 'd':
		case 'i': {
			long long v = lng ? va_arg(ap, long long) : va_arg(ap, int);
			uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
			size_t n = hp_fmt_u64_dec(num, mag);
			sink_field(&s, num, n, width, left, zero, v < 0);
			break;
		}
		case 'u':
		case 'x':
		case 'X': {
			unsigned long long v = lng ? va_arg(ap, unsigned long long)
						   : va_arg(ap, unsigned int);
			size_t n = *f == 'u' ? hp_fmt_u64_dec(num, v)
					     : u64_to_base16(num, v, *f == 'X');
			sink_field(&s, num, n, width, left, zero, 0);
			break;
		}
		case 'p': {
			size_t n = hp_fmt_u64_hex(num, (uintptr_t)va_arg(ap, void *));
			sink_field(&s, num, n, width, left, 0, 0);
			break;
		}
		case 's': {
			const char *str = va_arg(ap, const char *);
			if (!str)
				str = "(null)";
			size_t n = prec >= 0 ? strnlen(str, (size_t)prec) : strlen(str);
			sink_field(&s, str, n, width, left, 0, 0);
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			sink_field(&s, &c, 1, width, left, 0, 0);
			break;
		}
		case '%':
			sink_put(&s, "%", 1);
			break;
		case '\0':
			f--;   /* a trailing '%': stop at the NUL */
			break;
		default:
			sink_put(&s, f - 1, 2);
			break;
		}
	}
	buf[s.len] = '\0';
	return s.len;
}

size_t hp_fmt(char *buf, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	size_t n = hp_fmt_va(buf, cap, fmt, ap);
	va_end(ap);
	return n;
}

/* ---- time ------------------------------------------------------------ */

/* Days since 1970-01-01 to a civil date (proleptic Gregorian). */
static void civil_from_days(int64_t z, int *y, unsigned *m, unsigned *d)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;

	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = (int)(yoe + era * 400) + (*m <= 2);
}

static int64_t days_from_civil(int y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + (int64_t)doe - 719468;
}

size_t hp_fmt_utc(char *buf, int64_t t, int ms, int compact)
{
	int64_t days = t >= 0 ? t / 86400 : (t - 86399) / 86400;
	int64_t secs = t - days * 86400;
	int y;
	unsigned m, d;

	civil_from_days(days, &y, &m, &d);
	if (compact)
		return hp_fmt(buf, 32, "%04d%02u%02uT%02u%02u%02uZ", y, m, d,
			      (unsigned)(secs / 3600), (unsigned)(secs / 60 % 60), (unsigned)(secs % 60));
	return hp_fmt(buf, 32, "%04d-%02u-%02uT%02u:%02u:%02u.%03dZ", y, m, d,
		      (unsigned)(secs / 3600), (unsigned)(secs / 60 % 60), (unsigned)(secs % 60), ms);
}

static int digits(const char *s, int n, unsigned *out)
{
	unsigned v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int64_t hp_fmt_parse_utc(const char *s)
{
	unsigned y, mo, d, h, mi, se;

	if (digits(s, 4, &y) || digits(s + 4, 2, &mo) || digits(s + 6, 2, &d) || s[8] != 'T' ||
	    digits(s + 9, 2, &h) || digits(s + 11, 2, &mi) || digits(s + 13, 2, &se) || s[15] != 'Z')
		return -1;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return -1;
	return days_from_civil((int)y, mo, d) * 86400 + h * 3600 + mi * 60 + se;
}

size_t hp_fmt_bytes(char *buf, size_t cap, int64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	const char *sign = bytes < 0 ? "-" : "";
	uint64_t b = bytes < 0 ? (uint64_t)0 - (uint64_t)bytes : (uint64_t)bytes;

	if (b < 1024)
		return hp_fmt(buf, cap, "%s%llu B", sign, (unsigned long long)b);
	int u = 0;
	uint64_t scale = 1024;
	/* The next unit once one decimal, rounded, would read 1024.0 (as the
	 * heapprof command writes sizes). */
	while (u < 4 && b >= scale * 1024 - scale / 20) {
		scale *= 1024;
		u++;
	}
	/* One decimal, rounded. */
	uint64_t tenths = (b * 10 + scale / 2) / scale;
	return hp_fmt(buf, cap, "%s%llu.%llu %s", sign, (unsigned long long)(tenths / 10),
		      (unsigned long long)(tenths % 10), units[u]);
}
