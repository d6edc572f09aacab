/*
 * suppress.c -- fuzz target: leak suppressions (hp_suppress_parse and
 * hp_suppress_read_file, the matcher, the "Suppressions used:" report).
 *
 * The input is a suppression file; its lines are also the subjects
 * matched (as module, function and file).  Checked on top of the
 * sanitizers: the file read from disk gives the rules parsed from memory;
 * every rule matches exactly what a matcher of the documented rules
 * (suppress.h), written another way, says; the report's length is the same
 * whatever the buffer.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "leak/suppress.h"
#include "fuzz.h"

/* '*' any run, the rest literal; the whole subject must match.  Dynamic
 * programming over (template prefix, subject prefix). */
static bool ref_glob(const char *t, size_t tn, const char *s, size_t sn)
{
	bool *row = calloc(sn + 1, sizeof(*row)), *next = calloc(sn + 1, sizeof(*next));

	row[0] = true;   /* row[j]: t[0..i) matches s[0..j) */
	for (size_t i = 0; i < tn; i++) {
		for (size_t j = 0; j <= sn; j++) {
			if (t[i] == '*')
				next[j] = row[j] || (j && next[j - 1]);
			else
				next[j] = j && row[j - 1] && t[i] == s[j - 1];
		}
		bool *x = row;
		row = next;
		next = x;
	}
	bool m = row[sn];
	free(row);
	free(next);
	return m;
}

/* suppress.h's rules (LeakSanitizer's TemplateMatch), said another way.
 * A leading '^' anchors the start; the template ends at its first '$'.
 * Without a '$' it matches when some substring (a prefix when anchored)
 * matches it as a glob.  With one, and a '*' right before it, the same;
 * with a piece right before it, when the shortest prefix of the subject
 * that a match can end at is the whole subject (LeakSanitizer takes each
 * piece at its first occurrence, which ends as early as any match can). */
static bool ref_match(const char *templ, const char *subject)
{
	size_t tn = strlen(templ), sn = subject ? strlen(subject) : 0;
	bool start = tn && templ[0] == '^';
	const char *dollar = memchr(templ + start, '$', tn - start);
	size_t body = dollar ? (size_t)(dollar - templ) - start : tn - start;
	bool star_end = dollar && body && templ[start + body - 1] == '*';
	char *pat = malloc(tn + 3);
	size_t n = 0;
	bool m = false;

	if (!sn) {
		free(pat);
		return false;
	}
	if (!start)
		pat[n++] = '*';
	memcpy(pat + n, templ + start, body);
	n += body;
	if (!dollar || star_end) {
		pat[n++] = '*';
		m = ref_glob(pat, n, subject, sn);
	} else {
		size_t j = 0;
		while (j <= sn && !ref_glob(pat, n, subject, j))
			j++;
		m = j == sn;
	}
	free(pat);
	return m;
}

/* Subjects: the input's first lines, cut at 64 bytes. */
#define NSUBJ 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hp_suppress set, disk;
	char *subj[NSUBJ + 2];
	size_t nsubj = 0;
	const char *p = (const char *)data, *end = p + size;

	hp_suppress_init(&set);
	hp_suppress_init(&disk);
	if (hp_suppress_parse(&set, "fuzz.supp", (const char *)data, size))
		fuzz_fail("hp_suppress_parse failed");
	char *path = fuzz_file("fuzz.supp", data, size);
	hp_suppress_read_file(&disk, path);
	if (disk.nrules != set.nrules || disk.nbad != set.nbad)
		fuzz_fail("from disk %zu rules and %zu bad lines, from memory %zu and %zu",
			  disk.nrules, disk.nbad, set.nrules, set.nbad);
	for (size_t i = 0; i < set.nrules; i++)
		if (strcmp(set.rules[i].templ, disk.rules[i].templ) || set.rules[i].line != disk.rules[i].line)
			fuzz_fail("rule %zu differs from disk", i);

	while (p < end && nsubj < NSUBJ) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = (size_t)((nl ? nl : end) - p);
		if (n > 64)
			n = 64;
		subj[nsubj] = strndup(p, n);   /* stops at a NUL, like a C name */
		nsubj++;
		p = nl ? nl + 1 : end;
	}
	subj[nsubj++] = strdup("/usr/lib/x86_64-linux-gnu/libfoo.so.1");
	subj[nsubj++] = strdup("Foo::make(int)");

	for (size_t i = 0; i < set.nrules; i++) {
		const struct hp_suppress_rule *r = &set.rules[i];
		if (r->len != strlen(r->templ))
			fuzz_fail("rule %zu: len %u, strlen %zu", i, r->len, strlen(r->templ));
		for (size_t k = 0; k < nsubj; k++) {
			bool got = hp_suppress_template_match(r->templ, subj[k]);
			if (got != ref_match(r->templ, subj[k]))
				fuzz_fail("'%s' against '%s': %d, expected %d", r->templ, subj[k], got, !got);
		}
	}
	for (size_t k = 0; k < nsubj; k++) {
		struct hp_suppress_frame fr[2] = {
			{ subj[k], subj[(k + 1) % nsubj], subj[(k + 2) % nsubj] },
			{ NULL, subj[k], NULL },
		};
		int i = hp_suppress_match_stack(&set, fr, 2);
		if (i >= (int)set.nrules)
			fuzz_fail("rule %d of %zu", i, set.nrules);
		hp_suppress_hit(&set, i, 1, k + 1);
	}
	char small[40], big[1 << 16];
	size_t a = hp_suppress_format_report(&set, small, sizeof(small));
	size_t b = hp_suppress_format_report(&set, big, sizeof(big));
	size_t c = hp_suppress_format_report(&set, NULL, 0);
	if (a != b || b != c || (b < sizeof(big) && strlen(big) != b) || strlen(small) >= sizeof(small))
		fuzz_fail("report lengths %zu, %zu, %zu", a, b, c);
	hp_suppress_log_report(&set, HP_LOG_INFO);

	for (size_t k = 0; k < nsubj; k++)
		free(subj[k]);
	free(path);
	hp_suppress_release(&set);
	hp_suppress_release(&disk);
	return 0;
}
