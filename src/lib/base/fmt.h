/*
 * fmt.h -- allocation-free text formatting (base/out.h writes it out).
 *
 * Owns nothing global.  Every function here is async-signal-safe in the
 * sense that it touches only its arguments; none allocates, none uses stdio or locale data.  The format language is the
 * printf subset the library needs: flags '-' and '0', a width, a precision
 * for strings ("%.*s"), length modifiers l, ll, z, j, and conversions
 * d i u x X s c p %.  Floating point is deliberately absent.
 */
#ifndef HP_FMT_H
#define HP_FMT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"

/* Formats into buf (capacity cap > 0), always NUL-terminated, truncating
 * silently.  Returns the length written, excluding the NUL. */
size_t hp_fmt_va(char *buf, size_t cap, const char *fmt, va_list ap);
size_t hp_fmt(char *buf, size_t cap, const char *fmt, ...) HP_PRINTF(3, 4);

/* UTC time t (seconds since the epoch) as "20261122T101530Z" (compact,
 * for file names) or "2026-11-22T10:15:30.123Z" (with ms, for logs).
 * Our own conversion: glibc's gmtime_r takes the time-zone lock.
 * Returns the length; buf needs 32 bytes. */
size_t hp_fmt_utc(char *buf, int64_t t, int ms, int compact);

/* Parses a compact UTC timestamp back to seconds; -1 if malformed. */
int64_t hp_fmt_parse_utc(const char *s);

/* A byte count for people: "512 B", "1.5 KiB", "123.4 MiB", "2.0 GiB".
 * Negative values get a sign.  Returns the length. */
size_t hp_fmt_bytes(char *buf, size_t cap, int64_t bytes);

/* Decimal and hex conversion into a buffer of at least 24 bytes; returns
 * the length.  Used by hot-ish writers that avoid the format parser. */
size_t hp_fmt_u64_dec(char *buf, uint64_t v);
size_t hp_fmt_u64_hex(char *buf, uint64_t v);

#endif
