/*
 * util.h -- the report engine's plumbing: fatal errors, checked
 * allocation, sorting, saturating sums and writing the output.  Buffers
 * are buf.h's, hash indexes index.h's, interned strings strtab.h's.
 *
 * The report engine is an ordinary program: stdio and malloc are fine.
 * Everything that fails here is fatal: a one-line "heapprof: ..." message
 * on stderr and exit status 1, which is what the command promises.
 */
#ifndef HP_REPORT_UTIL_H
#define HP_REPORT_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define HP_UTIL_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Prints "heapprof: <message>" and exits with status 1. */
__attribute__((noreturn, format(printf, 1, 2))) void hp_util_die(const char *fmt, ...);
/* Prints "heapprof: <message>" and returns. */
__attribute__((format(printf, 1, 2))) void hp_util_warn(const char *fmt, ...);

/* Allocation that dies on failure ("out of memory"). */
void *hp_util_xmalloc(size_t n);
void *hp_util_xcalloc(size_t n, size_t size);
void *hp_util_xrealloc(void *p, size_t n);
char *hp_util_xstrdup(const char *s);
char *hp_util_xstrndup(const char *s, size_t n);
/* Grows *p (an array of elem-size items with capacity *cap) so that it can
 * hold need items: doubles, never shrinks. */
void hp_util_grow(void *pp, size_t *cap, size_t need, size_t elem);

/* qsort, except that fewer than two items (maybe at NULL) are left alone:
 * qsort(NULL, 0, ...) is undefined. */
void hp_util_sort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));

/* The value of hexadecimal digit c (either case), or -1. */
int hp_util_hex_digit(int c);

/* Saturating int64 addition: sums of hostile values stay finite. */
int64_t hp_util_sat_add(int64_t a, int64_t b);

/* Writes n bytes to the file path (created or truncated), or to standard
 * output when path is NULL; dies "cannot write 'PATH': ..." on failure. */
void hp_util_write_output(const char *path, const void *p, size_t n);

#endif
