/*
 * strtab.h -- the report engine's string table: equal strings get the
 * same pointer, so the engine compares names by pointer; and the
 * sanitizing of untrusted strings before they are interned.
 */
#ifndef HP_REPORT_STRTAB_H
#define HP_REPORT_STRTAB_H

#include <stddef.h>

/* Strings live until the table is released (never one by one). */
struct hp_strtab {
	const char **slot;
	size_t n, cap;
};

/* The one copy in t of the n bytes at s (or of the string s), added when
 * new. */
const char *hp_strtab_intern(struct hp_strtab *t, const char *s, size_t n);
const char *hp_strtab_intern_str(struct hp_strtab *t, const char *s);

/* hp_strtab_intern_str of hp_strtab_sanitize(s): for strings from binaries. */
const char *hp_strtab_intern_clean(struct hp_strtab *t, const char *s);

/* Frees every string of t (pointers it handed out die with them) and
 * leaves it empty. */
void hp_strtab_release(struct hp_strtab *t);

/*
 * Copies s into a fresh string that is safe in every output: control
 * characters and bytes that are not valid UTF-8 become '?'.  Names come
 * from binaries and dumps we do not trust.
 */
char *hp_strtab_sanitize(const char *s, size_t n);

#endif
