/*
 * age.c -- `heapprof report --age` (see age.h).
 *
 *   Ages: 1.1MiB live in 3 stacks; uptime 40.0 s, warm-up 4.0 s (1 dump)
 *     startup       100.0KiB   8.9%  allocated during the warm-up
 *     long-lived    1.0MiB    89.3%  allocated after it, older than it
 *     young         20.0KiB    1.8%  younger than the warm-up
 *        live    startup long-lived      young  stack, innermost first
 *      1.0MiB          0     1.0MiB     20.0KiB  lose_request
 *                                                main
 *                  ages: <1s 10.0KiB, 1-2s 10.0KiB, 2-4s 20.0KiB, ...
 *
 * Rows are the kept stacks with live aged bytes, by long-lived bytes,
 * then live bytes.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "util.h"

double hp_age_default_warmup(double uptime)
{
	double w = uptime / 10;

	return w > 60 ? 60 : w;
}

/* The share of bucket b's bytes younger than x seconds, the bucket's
 * range bounded by the uptime u. */
static double below(int b, double x, double u)
{
	double lo = HP_AGE_LO(b), hi = b == HP_AGE_BUCKETS - 1 ? INFINITY : HP_AGE_HI(b);

	if (u > lo && u < hi)
		hi = u;
	if (x <= lo)
		return 0;
	if (x >= hi)
		return 1;
	return (x - lo) / (hi - lo);
}

static int64_t part(int64_t v, double f)
{
	return (int64_t)llround((double)v * f);
}

void hp_age_split(struct hp_input *in, double warmup)
{
	double u = in->uptime, w = warmup < 0 ? hp_age_default_warmup(u) : warmup;
	double s = u - w > 0 ? u - w : 0;   /* ages from s on were allocated in the warm-up */
	double y = w < s ? w : s;           /* younger than y: young */

	for (size_t i = 0; i < in->nstacks; i++) {
		int64_t *v = in->stacks[i].v;
		for (int b = 0; b < HP_AGE_BUCKETS; b++) {
			int64_t bytes = v[HP_V_AGE_B0 + b];
			if (!bytes)
				continue;
			int64_t startup = part(bytes, 1 - below(b, s, u));
			int64_t young = part(bytes, below(b, y, u));
			if (young > bytes - startup)
				young = bytes - startup;
			v[HP_V_AGE_STARTUP] += startup;
			v[HP_V_AGE_YOUNG] += young;
			v[HP_V_AGE_LONG] += bytes - startup - young;
		}
	}
}

static int64_t live_of(const struct hp_profile_stack *st)
{
	return st->v[HP_V_AGE_STARTUP] + st->v[HP_V_AGE_LONG] + st->v[HP_V_AGE_YOUNG];
}

static const struct hp_profile *sort_p;

static int by_long_lived(const void *a, const void *b)
{
	const struct hp_profile_stack *x = &sort_p->stacks[*(const uint32_t *)a];
	const struct hp_profile_stack *y = &sort_p->stacks[*(const uint32_t *)b];

	if (x->v[HP_V_AGE_LONG] != y->v[HP_V_AGE_LONG])
		return x->v[HP_V_AGE_LONG] > y->v[HP_V_AGE_LONG] ? -1 : 1;
	if (live_of(x) != live_of(y))
		return live_of(x) > live_of(y) ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* A bucket's name: "<1s", "1-2s", ..., and the last "4194304s+". */
static void bucket_name(char *buf, size_t n, int b)
{
	if (b == 0)
		snprintf(buf, n, "<1s");
	else if (b == HP_AGE_BUCKETS - 1)
		snprintf(buf, n, "%.0fs+", HP_AGE_LO(b));
	else
		snprintf(buf, n, "%.0f-%.0fs", HP_AGE_LO(b), HP_AGE_HI(b));
}

static void size_of(char *buf, size_t n, int64_t v, const struct hp_render *r)
{
	hp_render_value(buf, n, v, HP_V_INUSE_SPACE, r->show_bytes);
}

static void text_total(struct hp_buf *b, const char *what, int64_t v, int64_t all,
		       const char *meaning, const struct hp_render *r)
{
	char val[32], pct[16];

	size_of(val, sizeof(val), v, r);
	hp_render_pct(pct, sizeof(pct), v, all);
	hp_buf_printf(b, "  %-11s %10s %6s  %s\n", what, val, pct, meaning);
}

static void text_stack(struct hp_buf *b, const struct hp_profile *p,
		       const struct hp_profile_stack *st, const struct hp_render *r)
{
	char v[4][32], name[32];
	const int64_t live = live_of(st);

	size_of(v[0], sizeof(v[0]), live, r);
	size_of(v[1], sizeof(v[1]), st->v[HP_V_AGE_STARTUP], r);
	size_of(v[2], sizeof(v[2]), st->v[HP_V_AGE_LONG], r);
	size_of(v[3], sizeof(v[3]), st->v[HP_V_AGE_YOUNG], r);
	hp_buf_printf(b, "%10s %10s %10s %10s  %s\n", v[0], v[1], v[2], v[3],
		      hp_profile_frame_node(p, st, 0));
	for (uint32_t f = 1; f < st->nf; f++)
		hp_buf_printf(b, "%*s%s\n", 45, "", hp_profile_frame_node(p, st, f));
	hp_buf_printf(b, "%*sages:", 12, "");
	const char *sep = " ";
	for (int k = 0; k < HP_AGE_BUCKETS; k++) {
		if (!st->v[HP_V_AGE_B0 + k])
			continue;
		bucket_name(name, sizeof(name), k);
		size_of(v[0], sizeof(v[0]), st->v[HP_V_AGE_B0 + k], r);
		hp_buf_printf(b, "%s%s %s", sep, name, v[0]);
		sep = ", ";
	}
	hp_buf_char(b, '\n');
}

static void json_stack(struct hp_buf *b, const struct hp_profile *p,
		       const struct hp_profile_stack *st, int first)
{
	hp_buf_str(b, first ? "\n    {\"frames\": [" : ",\n    {\"frames\": [");
	for (uint32_t f = 0; f < st->nf; f++) {
		if (f)
			hp_buf_str(b, ", ");
		hp_buf_json_str(b, hp_profile_frame_node(p, st, f));
	}
	hp_buf_printf(b, "], \"live\": %" PRId64 ", \"startup\": %" PRId64 ", \"long_lived\": %"
		      PRId64 ", \"young\": %" PRId64 ", \"ages\": [", live_of(st),
		      st->v[HP_V_AGE_STARTUP], st->v[HP_V_AGE_LONG], st->v[HP_V_AGE_YOUNG]);
	int any = 0;
	for (int k = 0; k < HP_AGE_BUCKETS; k++) {
		if (!st->v[HP_V_AGE_B0 + k])
			continue;
		hp_buf_printf(b, "%s{\"from\": %.0f, ", any ? ", " : "", HP_AGE_LO(k));
		if (k == HP_AGE_BUCKETS - 1)
			hp_buf_str(b, "\"to\": null, ");
		else
			hp_buf_printf(b, "\"to\": %.0f, ", HP_AGE_HI(k));
		hp_buf_printf(b, "\"bytes\": %" PRId64 "}", st->v[HP_V_AGE_B0 + k]);
		any = 1;
	}
	hp_buf_str(b, "]}");
}

void hp_age_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b,
		   int json)
{
	uint32_t *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	int64_t t[3] = { 0, 0, 0 };
	size_t n = 0, all;

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		if (st->dropped || live_of(st) <= 0)
			continue;
		ids[n++] = (uint32_t)s;
		t[0] += st->v[HP_V_AGE_STARTUP];
		t[1] += st->v[HP_V_AGE_LONG];
		t[2] += st->v[HP_V_AGE_YOUNG];
	}
	sort_p = p;
	hp_util_sort(ids, n, sizeof(*ids), by_long_lived);
	all = n;
	if (r->top > 0 && (size_t)r->top < n)
		n = (size_t)r->top;
	int64_t live = t[0] + t[1] + t[2];
	if (json) {
		hp_buf_printf(b, "{\n  \"uptime\": %.3f,\n  \"warmup\": %.3f,\n  \"dumps\": %zu,\n"
			      "  \"live\": %" PRId64 ",\n  \"startup\": %" PRId64 ",\n  \"long_lived\": %"
			      PRId64 ",\n  \"young\": %" PRId64 ",\n  \"stacks\": [",
			      r->age_uptime, r->age_warmup, r->ndumps, live, t[0], t[1], t[2]);
		for (size_t i = 0; i < n; i++)
			json_stack(b, p, &p->stacks[ids[i]], i == 0);
		hp_buf_str(b, n ? "\n  ]\n}\n" : "]\n}\n");
		free(ids);
		return;
	}
	char val[32];
	size_of(val, sizeof(val), live, r);
	hp_buf_printf(b, "Ages: %s live in %zu stack%s; uptime %.1f s, warm-up %.1f s (%zu dump%s",
		      val, all, all == 1 ? "" : "s", r->age_uptime, r->age_warmup, r->ndumps,
		      r->ndumps == 1 ? "" : "s");
	if (r->focus)
		hp_buf_printf(b, "; stacks with '%s'", r->focus);
	if (r->ignore)
		hp_buf_printf(b, "; stacks without '%s'", r->ignore);
	hp_buf_str(b, ")\n");
	text_total(b, "startup", t[0], live, "allocated during the warm-up", r);
	text_total(b, "long-lived", t[1], live, "allocated after it, older than it", r);
	text_total(b, "young", t[2], live, "younger than the warm-up", r);
	hp_buf_printf(b, "%10s %10s %10s %10s  %s\n", "live", "startup", "long-lived", "young",
		      "stack, innermost first");
	for (size_t i = 0; i < n; i++)
		text_stack(b, p, &p->stacks[ids[i]], r);
	free(ids);
}
