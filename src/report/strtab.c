/*
 * strtab.c -- interned strings, and the sanitizing of untrusted ones
 * before they are interned (see strtab.h).
 *
 * Owns each table's slots and the strings in them, which live until the
 * table is released.  Open addressing with linear probing, at most half full.
 */
#include <stdlib.h>
#include <string.h>

#include "index.h"
#include "strtab.h"
#include "util.h"

/* ---- interning ------------------------------------------------------- */

static void strtab_rehash(struct hp_strtab *t)
{
	size_t cap = t->cap ? t->cap * 2 : 1024;
	const char **slot = hp_util_xcalloc(cap, sizeof(*slot));

	for (size_t i = 0; i < t->cap; i++) {
		const char *s = t->slot[i];
		if (!s)
			continue;
		size_t j = hp_index_hash_bytes(s, strlen(s), 0) & (cap - 1);
		while (slot[j])
			j = (j + 1) & (cap - 1);
		slot[j] = s;
	}
	free(t->slot);
	t->slot = slot;
	t->cap = cap;
}

const char *hp_strtab_intern(struct hp_strtab *t, const char *s, size_t n)
{
	if ((t->n + 1) * 2 > t->cap)
		strtab_rehash(t);
	size_t j = hp_index_hash_bytes(s, n, 0) & (t->cap - 1);
	for (; t->slot[j]; j = (j + 1) & (t->cap - 1)) {
		const char *c = t->slot[j];
		if (!strncmp(c, s, n) && c[n] == '\0')
			return c;
	}
	t->slot[j] = hp_util_xstrndup(s, n);
	t->n++;
	return t->slot[j];
}

const char *hp_strtab_intern_str(struct hp_strtab *t, const char *s)
{
	return hp_strtab_intern(t, s, strlen(s));
}

void hp_strtab_release(struct hp_strtab *t)
{
	for (size_t i = 0; i < t->cap; i++)
		free((char *)t->slot[i]);
	free(t->slot);
	memset(t, 0, sizeof(*t));
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

char *hp_strtab_sanitize(const char *s, size_t n)
{
	char *out = hp_util_xmalloc(n + 1);
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

const char *hp_strtab_intern_clean(struct hp_strtab *t, const char *s)
{
	size_t n = 0;

	/* Nearly always printable ASCII: no copy then. */
	for (; s[n]; n++)
		if ((unsigned char)s[n] < 0x20 || (unsigned char)s[n] >= 0x7f)
			break;
	if (!s[n])
		return hp_strtab_intern(t, s, n);
	n += strlen(s + n);
	char *clean = hp_strtab_sanitize(s, n);
	const char *out = hp_strtab_intern(t, clean, n);
	free(clean);
	return out;
}
