/*
 * trend.c -- `heapprof trend`: the series of dumps (series.c) as text or
 * JSON, or handed to trendsvg.c for the chart (see trend.h).
 *
 * Owns the text and JSON layouts.  The series, its order, ranking and
 * slopes are series.c's; this file only reads them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <time.h>

#include "buf.h"
#include "render.h"
#include "ropts.h"
#include "series.h"
#include "suspects.h"
#include "trend.h"
#include "trendsvg.h"
#include "util.h"

/* ---- text ------------------------------------------------------------ */

static void fmt_time(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%SZ", &tm);
}

/* "<what> inuse_space over N dumps[ from T0 to T1]", no newline. */
static void headline(const struct hp_series *s, const char *what, struct hp_buf *b)
{
	hp_buf_printf(b, "%s %s over %zu dumps", what, hp_render_value_name(s->vi), s->n);
	if (s->timed) {
		char t0[32], t1[32];
		fmt_time(s->t0, t0, sizeof(t0));
		fmt_time(s->t0 + (time_t)s->x[s->n - 1], t1, sizeof(t1));
		hp_buf_printf(b, " from %s to %s", t0, t1);
	}
}

static void text(const struct hp_series *s, size_t top, struct hp_buf *b)
{
	char first[32], last[32], delta[32], sdelta[40], slope[48];
	int64_t d = s->total[s->n - 1] - s->total[0];

	headline(s, "Trend of", b);
	hp_render_value(first, sizeof(first), s->total[0], s->vi, s->show_bytes);
	hp_render_value(last, sizeof(last), s->total[s->n - 1], s->vi, s->show_bytes);
	hp_render_value(delta, sizeof(delta), d, s->vi, s->show_bytes);
	hp_series_fmt_slope(s, s->total_slope, slope, sizeof(slope));
	hp_buf_printf(b, "\nTotal: %s -> %s (%s%s, %s)\n", first, last, d > 0 ? "+" : "", delta,
		      slope);
	hp_buf_printf(b, "%s ranked by growth (least-squares slope); mono is (rises - falls) / "
			 "steps:\n", s->functions ? "Functions" : "Stacks");
	hp_buf_printf(b, "%14s %9s %9s %10s %5s  %s\n", "slope", "first", "last", "delta", "mono",
		      s->functions ? "function" : "stack (leaf <- callers)");
	for (size_t i = 0; i < s->nkeys && i < top; i++) {
		const struct hp_series_key *k = &s->keys[i];
		int64_t kd = k->v[s->n - 1] - k->v[0];
		hp_render_value(first, sizeof(first), k->v[0], s->vi, s->show_bytes);
		hp_render_value(last, sizeof(last), k->v[s->n - 1], s->vi, s->show_bytes);
		hp_render_value(delta, sizeof(delta), kd, s->vi, s->show_bytes);
		snprintf(sdelta, sizeof(sdelta), "%s%s", kd > 0 ? "+" : "", delta);
		hp_series_fmt_slope(s, k->slope, slope, sizeof(slope));
		hp_buf_printf(b, "%14s %9s %9s %10s %5.2f  %s\n", slope, first, last, sdelta,
			      k->mono, k->label);
	}
	hp_buf_str(b, "Dumps, in order:\n");
	for (size_t t = 0; t < s->n; t++) {
		char when[32], tot[32];
		if (s->timed)
			fmt_time(s->t0 + (time_t)s->x[t], when, sizeof(when));
		else
			snprintf(when, sizeof(when), "#%zu", t + 1);
		hp_render_value(tot, sizeof(tot), s->total[t], s->vi, s->show_bytes);
		hp_buf_printf(b, "  %-21s %9s  %s\n", when, tot, s->paths[t]);
	}
}

/* ---- suspects -------------------------------------------------------- */

/* "99.2%", or ">99.99%" for what rounds to certainty. */
static void fmt_conf(double c, char *buf, size_t n)
{
	if (c >= 0.99995)
		snprintf(buf, n, ">99.99%%");
	else
		snprintf(buf, n, "%.2f%%", c * 100);
}

static const char *verdict_name(int v)
{
	switch (v) {
	case HP_SUSPECT: return "suspect";
	case HP_SUSPECT_WEAK: return "weak";
	case HP_SUSPECT_LEVELLED: return "levelled";
	default: return "not-growing";
	}
}

static void suspect_row(const struct hp_series *s, const struct hp_series_key *k, const char *lead,
			struct hp_buf *b)
{
	char conf[16], slope[48], tail[48], first[32], last[32];

	fmt_conf(k->confidence, conf, sizeof(conf));
	hp_series_fmt_slope(s, k->slope, slope, sizeof(slope));
	hp_series_fmt_slope(s, k->slope_tail, tail, sizeof(tail));
	hp_render_value(first, sizeof(first), k->v[0], s->vi, s->show_bytes);
	hp_render_value(last, sizeof(last), k->v[s->n - 1], s->vi, s->show_bytes);
	hp_buf_printf(b, "%-4s %8s %14s %14s %9s %9s  %s\n", lead, conf, slope, tail, first, last,
		      k->label);
}

static void suspect_head(struct hp_buf *b, const char *title)
{
	if (*title)
		hp_buf_printf(b, "%s\n", title);
	hp_buf_printf(b, "%-4s %8s %14s %14s %9s %9s  %s\n", "", "conf", "slope", "later half",
		      "first", "last", "stack (leaf <- callers)");
}

/* The rest of the growing keys, of one verdict. */
static void others(const struct hp_series *s, size_t top, int verdict, const char *title,
		   struct hp_buf *b)
{
	size_t shown = 0;

	for (size_t i = s->nsuspects; i < s->nkeys && shown < top; i++) {
		const struct hp_series_key *k = &s->keys[i];
		if (k->verdict != verdict)
			continue;
		if (!shown++)
			suspect_head(b, title);
		suspect_row(s, k, "", b);
	}
}

static void text_suspects(const struct hp_series *s, size_t top, struct hp_buf *b)
{
	char level[16];

	snprintf(level, sizeof(level), "%g%%", s->level * 100);
	headline(s, "Leak suspects in", b);
	hp_buf_printf(b, "\nA suspect grew beyond the noise of sampling over the whole series and "
			 "still grows over its later half, each at %s confidence.\n", level);
	if (!s->accum && s->rate[0] > 1)
		hp_buf_str(b, "These dumps have no cumulative counts, so frees are not told apart from "
			      "allocations and the test allows for unseen turnover: profile with "
			      "prof_accum:true for a test that needs several times less evidence.\n");
	if (!s->nsuspects)
		hp_buf_printf(b, "No suspects among %zu growing %s.\n", s->ngrowing,
			      s->functions ? "functions" : "stacks");
	else
		hp_buf_printf(b, "%zu suspect%s among %zu growing %s:\n", s->nsuspects,
			      s->nsuspects == 1 ? "" : "s", s->ngrowing,
			      s->functions ? "functions" : "stacks");
	for (size_t i = 0; i < s->nsuspects && i < top; i++) {
		char lead[24];
		snprintf(lead, sizeof(lead), "%zu", i + 1);
		if (!i)
			suspect_head(b, "");
		suspect_row(s, &s->keys[i], lead, b);
	}
	if (s->nsuspects > top)
		hp_buf_printf(b, "(%zu more suspects: --top)\n", s->nsuspects - top);
	others(s, top, HP_SUSPECT_LEVELLED,
	       "Grew, then levelled off (not suspects: a cache or pool that filled):", b);
	others(s, top, HP_SUSPECT_WEAK,
	       "Growing, not beyond the noise yet (not suspects: more dumps, a longer series or a "
	       "lower lg_prof_sample give the evidence):", b);
}

/* ---- JSON ------------------------------------------------------------ */

static void json_time(const struct hp_series *s, size_t t, struct hp_buf *b)
{
	char when[32];

	if (!s->timed) {
		hp_buf_str(b, "null");
		return;
	}
	fmt_time(s->t0 + (time_t)s->x[t], when, sizeof(when));
	hp_buf_printf(b, "\"%.10sT%s\"", when, when + 11);
}

static void json_values(const int64_t *v, size_t n, struct hp_buf *b)
{
	hp_buf_char(b, '[');
	for (size_t t = 0; t < n; t++)
		hp_buf_printf(b, "%s%" PRId64, t ? ", " : "", v[t]);
	hp_buf_char(b, ']');
}

/* The same figures as the text, every value exact, for scripts (the
 * schema is in heapprof(1)). */
static void json(const struct hp_series *s, size_t top, struct hp_buf *b)
{
	size_t last = s->n - 1;

	hp_buf_str(b, "{\n  \"format\": \"heapprof-trend\",\n  \"version\": 1,\n");
	hp_buf_printf(b, "  \"sample_type\": \"%s\",\n  \"unit\": \"%s\",\n",
		      hp_render_value_name(s->vi), hp_render_value_is_bytes(s->vi) ? "bytes" : "objects");
	hp_buf_printf(b, "  \"keys\": \"%s\",\n  \"timed\": %s,\n  \"slope_per\": \"%s\",\n",
		      s->functions ? "functions" : "stacks", s->timed ? "true" : "false",
		      s->timed ? "second" : "dump");
	hp_buf_str(b, "  \"dumps\": [");
	for (size_t t = 0; t < s->n; t++) {
		hp_buf_str(b, t ? ",\n    {\"path\": " : "\n    {\"path\": ");
		hp_buf_json_str(b, s->paths[t]);
		hp_buf_str(b, ", \"time\": ");
		json_time(s, t, b);
		hp_buf_printf(b, ", \"x\": %.15g, \"total\": %" PRId64 "}", s->x[t], s->total[t]);
	}
	hp_buf_printf(b, "\n  ],\n  \"total\": {\"first\": %" PRId64 ", \"last\": %" PRId64
			 ", \"delta\": %" PRId64 ", \"slope\": %.15g},\n", s->total[0], s->total[last],
		      s->total[last] - s->total[0], s->total_slope);
	if (s->suspects)
		hp_buf_printf(b, "  \"suspects\": {\"confidence_level\": %.6g, \"suspects\": %zu, "
				 "\"growing\": %zu, \"cumulative_counts\": %s},\n", s->level,
			      s->nsuspects, s->ngrowing, s->accum ? "true" : "false");
	hp_buf_str(b, "  \"ranked\": [");
	size_t k;
	for (k = 0; k < s->nkeys && k < top; k++) {
		const struct hp_series_key *key = &s->keys[k];
		hp_buf_str(b, k ? ",\n    {\"label\": " : "\n    {\"label\": ");
		hp_buf_json_str(b, key->label);
		hp_buf_printf(b, ", \"slope\": %.15g, \"mono\": %.15g, \"first\": %" PRId64
				 ", \"last\": %" PRId64 ", \"delta\": %" PRId64 ", \"values\": ",
			      key->slope, key->mono, key->v[0], key->v[last], key->v[last] - key->v[0]);
		json_values(key->v, s->n, b);
		if (s->suspects)
			hp_buf_printf(b, ", \"verdict\": \"%s\", \"confidence\": %.6g, "
					 "\"slope_later_half\": %.15g",
				      verdict_name(key->verdict), key->confidence, key->slope_tail);
		hp_buf_char(b, '}');
	}
	hp_buf_str(b, k ? "\n  ]\n}\n" : "]\n}\n");
}

int hp_trend_run(const struct hp_ropts *o, char *const *dumps, size_t n)
{
	struct hp_series s;
	struct hp_buf out = { 0 };

	hp_series_build(&s, o, dumps, n);
	size_t top = o->top > 0 ? (size_t)o->top : 10;
	if (o->format == HP_ROPTS_FMT_SVG)
		hp_trendsvg_render(&s, top, &out);
	else if (o->format == HP_ROPTS_FMT_JSON)
		json(&s, top, &out);
	else if (o->suspects)
		text_suspects(&s, top, &out);
	else
		text(&s, top, &out);
	hp_util_write_output(o->output, out.p, out.len);
	hp_buf_release(&out);
	hp_series_release(&s);
	return 0;
}
