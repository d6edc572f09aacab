/*
 * maps.c -- parsing and searching MAPPED_LIBRARIES (see maps.h).
 *
 * Owns the strict reading of /proc/<pid>/maps lines.  A line that is not
 * in the kernel's format is an error, not something to guess about: a
 * wrong mapping would give wrong names.
 */
#include <stdlib.h>
#include <string.h>

#include "maps.h"
#include "strtab.h"
#include "util.h"

/* Parses up to 16 hex digits at *p; returns -1 if there are none or too
 * many. */
static int hex_field(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int digits = 0;

	for (; s < end; s++) {
		int d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (++digits > 16)
			return -1;
		v = v << 4 | (uint64_t)d;
	}
	if (!digits)
		return -1;
	*p = s;
	*out = v;
	return 0;
}

static int dec_field(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	for (; s < end && *s >= '0' && *s <= '9'; s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*p = s;
	*out = v;
	return 0;
}

static int expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return -1;
	(*p)++;
	return 0;
}

static void skip_spaces(const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
}

static const char *parse_path(const char *s, const char *end, struct hp_map *m,
			      struct hp_strtab *strs)
{
	static const char deleted[] = " (deleted)";
	size_t dl = sizeof(deleted) - 1;

	while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	m->deleted = 0;
	if ((size_t)(end - s) > dl && !memcmp(end - dl, deleted, dl)) {
		m->deleted = 1;
		end -= dl;
	}
	if (end == s)
		m->kind = HP_MAP_ANON;
	else if (*s == '[')
		m->kind = HP_MAP_SPECIAL;
	else if (*s == '/')
		m->kind = HP_MAP_FILE;
	else
		return "expected a path, '[name]' or nothing after the inode";
	if (memchr(s, '\0', (size_t)(end - s)))
		return "NUL byte in path";
	char *clean = hp_strtab_sanitize(s, (size_t)(end - s));
	m->path = hp_strtab_intern_str(strs, clean);
	free(clean);
	return NULL;
}

const char *hp_maps_parse_line(const char *line, size_t n, struct hp_map *m,
			       struct hp_strtab *strs)
{
	const char *p = line, *end = line + n;
	uint64_t major, minor;

	memset(m, 0, sizeof(*m));
	if (hex_field(&p, end, &m->start) || expect(&p, end, '-') ||
	    hex_field(&p, end, &m->end))
		return "expected 'start-end' addresses";
	if (m->end <= m->start)
		return "mapping ends before it starts";
	if (expect(&p, end, ' ') || end - p < 4)
		return "expected permissions";
	for (int i = 0; i < 4; i++) {
		static const char allowed[4][3] = { "r-", "w-", "x-", "ps" };
		if (!memchr(allowed[i], p[i], 2))
			return "expected permissions like 'r-xp'";
		m->perms[i] = p[i];
	}
	p += 4;
	if (expect(&p, end, ' ') || hex_field(&p, end, &m->offset))
		return "expected a file offset";
	if (expect(&p, end, ' ') || hex_field(&p, end, &major) || expect(&p, end, ':') ||
	    hex_field(&p, end, &minor) || major > 0xfffff || minor > 0xfffff)
		return "expected a device 'major:minor'";
	m->dev_major = (unsigned)major;
	m->dev_minor = (unsigned)minor;
	if (expect(&p, end, ' ') || dec_field(&p, end, &m->inode))
		return "expected an inode number";
	if (p < end && *p != ' ' && *p != '\t')
		return "expected a space after the inode";
	skip_spaces(&p, end);
	return parse_path(p, end, m, strs);
}

static int map_cmp(const void *a, const void *b)
{
	const struct hp_map *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

void hp_maps_sort(struct hp_map *maps, size_t n)
{
	hp_util_sort(maps, n, sizeof(*maps), map_cmp);
}

const struct hp_map *hp_maps_find(const struct hp_map *maps, size_t n, uint64_t addr)
{
	size_t lo = 0, hi = n;

	/* The last mapping that starts at or below addr. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (maps[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || addr >= maps[lo - 1].end)
		return NULL;
	return &maps[lo - 1];
}

const char *hp_maps_basename(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}
