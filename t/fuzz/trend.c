/*
 * trend.c -- fuzz target: `heapprof trend` on a series of dumps, and
 * `heapprof report --base`.
 *
 * The input is a series: a line "=== NAME" starts the dump named NAME
 * (characters other than [A-Za-z0-9._-] become '_'), so that the names'
 * times and sequence numbers, which order the series, are fuzzed as well
 * as the dumps; text before the first such line is a dump named
 * "first.heap".  At most 8 dumps.  Every dump is read first; when the
 * reader takes them all, hp_trend_run runs on them (text, --svg or
 * --json, the options the input's hash picks), then hp_report_run on the
 * first with the others as its --base.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "report.h"
#include "ropts.h"
#include "strtab.h"
#include "trend.h"
#include "fuzz.h"
#include "options.h"

#define MAX_DUMPS 8

struct running {
	struct hp_ropts *o;
	char **dumps;
	size_t n;
	int trend;
};

static void run(void *arg)
{
	struct running *r = arg;

	if (r->trend)
		hp_trend_run(r->o, r->dumps, r->n);
	else
		hp_report_run(r->o, r->dumps, 1);
}

/* The dump's name from the "=== " line s (n bytes), cleaned. */
static char *dump_name(size_t k, const char *s, size_t n)
{
	char *name = malloc(n + 32);
	size_t len = (size_t)sprintf(name, "d%zu/", k);

	for (size_t i = 0; i < n && i < 100; i++) {
		char c = s[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '-' || c == '_';
		name[len++] = ok ? c : '_';
	}
	if (len == 3 || !strcmp(name + 3, ".") || !strcmp(name + 3, ".."))
		len += (size_t)sprintf(name + len, "dump");
	name[len] = '\0';
	return name;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t tn;
	char *text = fuzz_golden(data, size, &tn);
	char *paths[MAX_DUMPS];
	size_t n = 0;
	const char *p = text, *end = text + tn;
	uint64_t h = fuzz_hash(data, size);
	unsigned facts = FUZZ_ACCUM | FUZZ_PEAK | FUZZ_TEMPORARY;
	int refused = 0;

	/* Cut the series into dumps. */
	while (p < end && n < MAX_DUMPS) {
		const char *body = p, *name = "first.heap";
		size_t nlen = strlen(name);
		if (end - p >= 4 && !memcmp(p, "=== ", 4)) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			name = p + 4;
			nlen = (size_t)((nl ? nl : end) - name);
			body = nl ? nl + 1 : end;
		} else if (n) {
			break;
		}
		const char *next = body;
		for (;;) {
			const char *nl = memchr(next, '\n', (size_t)(end - next));
			if (!nl) {
				next = end;
				break;
			}
			next = nl + 1;
			if (end - next >= 4 && !memcmp(next, "=== ", 4))
				break;
		}
		char *fname = dump_name(n, name, nlen);
		paths[n++] = fuzz_file(fname, body, (size_t)(next - body));
		free(fname);
		p = next;
	}
	for (size_t i = 0; i < n && !refused; i++) {
		struct reading rd = { .path = paths[i] };
		refused = fuzz_try(read_dump, &rd);
		facts &= fuzz_facts(&rd.in);
		hp_input_release(&rd.in);
		hp_strtab_release(&rd.strs);
	}
	if (!refused && n >= 2) {
		struct hp_ropts o;
		struct running r = { &o, paths, n, 1 };
		static const enum hp_ropts_format formats[] = {   /* trend's */
			HP_ROPTS_FMT_TEXT, HP_ROPTS_FMT_SVG, HP_ROPTS_FMT_JSON,
		};
		fuzz_ropts(&o, h, facts, 1);
		o.who = "trend";
		o.format = formats[(h >> 48) % 3];
		if (fuzz_try(run, &r))
			fuzz_fail("hp_trend_run died on dumps the reader took");
		fuzz_ropts_release(&o);

		fuzz_ropts(&o, h >> 7, facts, FUZZ_REPORT_FORMATS);
		o.temporary = 0;   /* the command takes no --base with it */
		o.base = (const char **)paths + 1;
		o.nbase = n - 1;
		r.trend = 0;
		if (o.format == HP_ROPTS_FMT_LIST)
			fuzz_try_may_die(run, &r);
		else if (fuzz_try(run, &r))
			fuzz_fail("hp_report_run --base died on dumps the reader took");
		fuzz_ropts_release(&o);
	}
	for (size_t i = 0; i < n; i++)
		free(paths[i]);
	free(text);
	return 0;
}
