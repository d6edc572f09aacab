/*
 * buf.c -- growable byte strings, and JSON and XML strings in them (see
 * buf.h).
 *
 * Owns nothing but the memory of each buffer, which grows by doubling
 * and dies on exhaustion (util.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "util.h"

void hp_buf_add(struct hp_buf *b, const void *s, size_t n)
{
	hp_util_grow(&b->p, &b->cap, b->len + n + 1, 1);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void hp_buf_str(struct hp_buf *b, const char *s)
{
	hp_buf_add(b, s, strlen(s));
}

void hp_buf_char(struct hp_buf *b, char c)
{
	hp_buf_add(b, &c, 1);
}

void hp_buf_printf(struct hp_buf *b, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		hp_buf_add(b, small, (size_t)n);
		return;
	}
	hp_util_grow(&b->p, &b->cap, b->len + (size_t)n + 1, 1);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void hp_buf_reset(struct hp_buf *b)
{
	b->len = 0;
	if (b->p)
		b->p[0] = '\0';
}

void hp_buf_release(struct hp_buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

void hp_buf_json_str(struct hp_buf *b, const char *s)
{
	hp_buf_char(b, '"');
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			hp_buf_printf(b, "\\%c", c);
		else if (c < 0x20)
			hp_buf_printf(b, "\\u%04x", c);
		else
			hp_buf_char(b, (char)c);
	}
	hp_buf_char(b, '"');
}

const char *hp_buf_xml_entity(char c, int html)
{
	switch (c) {
	case '&':
		return "&amp;";
	case '<':
		return "&lt;";
	case '>':
		return "&gt;";
	case '"':
		return "&quot;";
	case '\'':
		return html ? "&#39;" : "&apos;";
	default:
		return NULL;
	}
}

void hp_buf_xml_str(struct hp_buf *b, const char *s)
{
	for (; s && *s; s++) {
		const char *e = hp_buf_xml_entity(*s, 0);
		if (e)
			hp_buf_str(b, e);
		else
			hp_buf_char(b, *s);
	}
}
