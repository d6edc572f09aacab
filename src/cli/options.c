/*
 * options.c -- the library's option table as the command sees it (made
 * from src/lib/conf/options.def into build/gen/optlist.h: the command
 * shares no name with the library), for heapprof help options and for
 * checking heapprof run -c before the library sees it.
 *
 * The checks follow conf/conf.c's parsers (true/yes/on/1, integers in
 * base 10, 16 or 8, sizes with k/M/G/T, an enum's choices, a signal's
 * name); a value the command lets through that the library still refuses
 * gets the library's warning.  An ordinary program's code (stdio is fine
 * here).  Calls only usage.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "options.h"
#include "usage.h"

const struct hp_option_row hp_option_rows[] = {
#include "optlist.h"
};
const size_t hp_option_count = sizeof(hp_option_rows) / sizeof(hp_option_rows[0]);

static const struct hp_option_row *find(const char *key, size_t len)
{
	for (size_t i = 0; i < hp_option_count; i++)
		if (strlen(hp_option_rows[i].name) == len && !memcmp(hp_option_rows[i].name, key, len))
			return &hp_option_rows[i];
	return NULL;
}

/* Optimal string alignment distance, as the library's hint (conf.c). */
static unsigned distance(const char *a, size_t la, const char *b, size_t lb)
{
	unsigned d[65][65];

	if (la > 64 || lb > 64)
		return 99;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (unsigned)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			unsigned best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The closest key within two edits, or NULL. */
static const char *suggest(const char *key, size_t len)
{
	const char *best = NULL;
	unsigned best_d = 3;

	for (size_t i = 0; i < hp_option_count; i++) {
		unsigned d = distance(key, len, hp_option_rows[i].name, strlen(hp_option_rows[i].name));
		if (d < best_d) {
			best_d = d;
			best = hp_option_rows[i].name;
		}
	}
	return best;
}

/* A bound of the table, or def when it is not a number. */
static long long bound(const char *s, long long def)
{
	char *end;

	errno = 0;
	long long x = strtoll(s, &end, 0);
	return *s && !*end && !errno ? x : def;
}

static int is_bool(const char *v)
{
	static const char *const words[] = { "true", "yes", "on", "1", "false", "no", "off", "0" };

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcasecmp(v, words[i]))
			return 1;
	return 0;
}

static int is_choice(const char *choices, const char *v)
{
	size_t n = strlen(v);

	for (const char *c = choices; *c;) {
		const char *bar = strchrnul(c, '|');
		if ((size_t)(bar - c) == n && !strncasecmp(c, v, n))
			return 1;
		c = *bar ? bar + 1 : bar;
	}
	return 0;
}

/* 0 when v is a size the library takes, with its value in *out. */
int hp_options_parse_size(const char *v, long long *out)
{
	char *end;
	unsigned shift = 0;

	if (!*v || *v == '-')
		return -1;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (end == v || errno)
		return -1;
	switch (*end) {
	case 'k': case 'K': shift = 10; end++; break;
	case 'm': case 'M': shift = 20; end++; break;
	case 'g': case 'G': shift = 30; end++; break;
	case 't': case 'T': shift = 40; end++; break;
	}
	if (shift && (!strcasecmp(end, "b") || !strcasecmp(end, "ib")))
		end += strlen(end);
	else if (!shift && !strcasecmp(end, "b"))
		end++;
	if (*end || x > (0x7fffffffffffffffULL >> shift))
		return -1;
	*out = (long long)(x << shift);
	return 0;
}

/* The signals signal_dump and signal_toggle take (conf.c's
 * signal_usable): none, USR1, USR2, RTMIN+n, RTMAX-n; numbers are left to
 * the library, which knows SIGRTMIN. */
static int is_signal(const char *v)
{
	char *end;

	if (!strcasecmp(v, "none") || !strcmp(v, "0"))
		return 1;
	if (!strncasecmp(v, "SIG", 3))
		v += 3;
	if (!strcasecmp(v, "USR1") || !strcasecmp(v, "USR2"))
		return 1;
	if (*v >= '0' && *v <= '9')
		return strtol(v, &end, 10), !*end;
	if (strncasecmp(v, "RTMIN", 5) && strncasecmp(v, "RTMAX", 5))
		return 0;
	if (!v[5])
		return 1;
	return (v[5] == '+' || v[5] == '-') && v[6] >= '0' && v[6] <= '9' &&
	       (strtol(v + 6, &end, 10), !*end);
}

/* NULL when value suits row o, else what it takes. */
static const char *wrong(const struct hp_option_row *o, const char *v, char *buf, size_t cap)
{
	const char *t = o->type;
	long long x;
	char *end;

	if (!strcmp(t, "BOOL"))
		return is_bool(v) ? NULL : "true or false";
	if (!strcmp(t, "ENUM")) {
		if (is_choice(o->choices, v))
			return NULL;
		snprintf(buf, cap, "one of %s", o->choices);
		for (char *p = buf; *p; p++)
			if (*p == '|')
				*p = ',';
		return buf;
	}
	if (!strcmp(t, "INT")) {
		long long lo = bound(o->min, -0x7fffffffffffffffLL), hi = bound(o->max, 0x7fffffffffffffffLL);
		snprintf(buf, cap, "a number from %lld to %lld", lo, hi);
		errno = 0;
		x = strtoll(v, &end, 0);
		return *v && !*end && !errno && x >= lo && x <= hi ? NULL : buf;
	}
	if (!strcmp(t, "SIZE")) {
		long long hi = bound(o->max, 0x7fffffffffffffffLL);
		return !hp_options_parse_size(v, &x) && x <= hi ? NULL : "a size such as 512, 64k, 10M or 2G";
	}
	if (!strcmp(t, "SIGNAL"))
		return is_signal(v) ? NULL : "USR1, USR2, RTMIN+n, or none";
	if (!strcmp(t, "STR")) {
		long long hi = bound(o->max, 4095);
		snprintf(buf, cap, "at most %lld characters", hi);
		return (long long)strlen(v) <= hi ? NULL : buf;
	}
	return NULL;
}

int hp_options_check(const char *cmd, const char *list)
{
	char *copy = strdup(list), expect[256];
	int st = 0;

	if (!copy)
		return hp_usage_error(cmd, "out of memory");
	/* The library's grammar: no trimming, a value runs to the comma. */
	for (char *save = NULL, *pair = strtok_r(copy, ",", &save); pair && !st;
	     pair = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(pair, ':');
		size_t kl = colon ? (size_t)(colon - pair) : strlen(pair);
		const struct hp_option_row *o = find(pair, kl);
		if (!o) {
			const char *hint = suggest(pair, kl);
			if (hint)
				st = hp_usage_error(cmd, "-c: unknown key '%.*s' (did you mean '%s'?)",
						    (int)kl, pair, hint);
			else
				st = hp_usage_error(cmd, "-c: unknown key '%.*s' (heapprof help options "
						    "lists them)", (int)kl, pair);
		} else if (!colon) {
			st = hp_usage_error(cmd, "-c: '%s' has no value (expected %s:VALUE)", pair, pair);
		} else {
			const char *w = wrong(o, colon + 1, expect, sizeof(expect));
			if (w)
				st = hp_usage_error(cmd, "-c: invalid value '%s' for %s (expected %s)",
						    colon + 1, o->name, w);
		}
	}
	free(copy);
	return st;
}
