/*
 * buf.h -- growable byte strings: every output of the report engine is
 * built in one before it is written in one go.
 */
#ifndef HP_REPORT_BUF_H
#define HP_REPORT_BUF_H

#include <stddef.h>

/* A growable byte string, always NUL-terminated when p is set. */
struct hp_buf {
	char *p;
	size_t len, cap;
};

/* Append n bytes, a string, a character, printf-formatted text; reset
 * empties the buffer and keeps its memory, release frees it.  A buffer
 * that cannot grow is fatal ("out of memory"). */
void hp_buf_add(struct hp_buf *b, const void *s, size_t n);
void hp_buf_str(struct hp_buf *b, const char *s);
void hp_buf_char(struct hp_buf *b, char c);
__attribute__((format(printf, 2, 3))) void hp_buf_printf(struct hp_buf *b, const char *fmt, ...);
void hp_buf_reset(struct hp_buf *b);
void hp_buf_release(struct hp_buf *b);

/* s as a JSON string, quotes included ("" for NULL): '"' and '\\'
 * escaped, control characters as \\u00XX; other bytes as they are. */
void hp_buf_json_str(struct hp_buf *b, const char *s);

#endif
