/*
 * buf.h -- growable byte strings: every output of the report engine is
 * built in one before it is written in one go; and the escapes of
 * JSON and XML strings.
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

/* The entity that stands for c in XML or HTML text and attribute values:
 * "&amp;", "&lt;", "&gt;", "&quot;", and for '\'' "&apos;", or with html
 * "&#39;" (HTML 4 has no &apos;); NULL when c stands for itself.  The one
 * table of XML escapes: hp_buf_xml_str's, and that of writers with buffers
 * of their own (heapprof serve's pages). */
const char *hp_buf_xml_entity(char c, int html);
/* s with hp_buf_xml_entity's XML escapes (nothing for NULL): SVG,
 * JUnit. */
void hp_buf_xml_str(struct hp_buf *b, const char *s);

#endif
