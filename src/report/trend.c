/*
 * trend.c -- `heapprof trend`: a series of dumps of one program, ordered
 * by the time in their names, and its stacks (or functions) ranked by how
 * steadily their live bytes grow (see trend.h).
 *
 * Owns the series: its order (the name's UTC time; failing that the
 * sequence number; failing that the command line), its x axis (seconds,
 * or dump numbers) and the ranking.  A leak grows steadily: the ranking is
 * the least-squares slope of each stack's value over time, shown with its
 * first and last values and a monotonicity measure, (rises - falls) /
 * steps, which is 1.00 for a stack that grew at every dump.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "input.h"
#include "profile.h"
#include "render.h"
#include "report.h"
#include "ropts.h"
#include "trend.h"
#include "util.h"

/* Frames shown in a stack's label, leaf first. */
#define LABEL_FRAMES 6

struct point {
	const char *path;
	size_t argi;		/* command-line position */
	struct hp_input_name name;
};

static int by_time(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->name.time != y->name.time)
		return x->name.time < y->name.time ? -1 : 1;
	if (x->name.seq != y->name.seq)
		return x->name.seq < y->name.seq ? -1 : 1;
	return x->argi < y->argi ? -1 : 1;
}

static int by_seq(const void *a, const void *b)
{
	const struct point *x = a, *y = b;

	if (x->name.seq != y->name.seq)
		return x->name.seq < y->name.seq ? -1 : 1;
	return x->argi < y->argi ? -1 : 1;
}

/* Orders the dumps; sets s->paths, s->x, s->timed, s->t0. */
static void order(struct hp_series *s, char *const *dumps, size_t n)
{
	struct point *pt = hp_util_xcalloc(n, sizeof(*pt));
	int all_time = 1, all_seq = 1;

	for (size_t i = 0; i < n; i++) {
		pt[i].path = dumps[i];
		pt[i].argi = i;
		hp_input_name_parse(dumps[i], &pt[i].name);
		all_time &= pt[i].name.has_time;
		all_seq &= pt[i].name.has_seq;
	}
	if (all_time)
		hp_util_sort(pt, n, sizeof(*pt), by_time);
	else if (all_seq)
		hp_util_sort(pt, n, sizeof(*pt), by_seq);
	s->n = n;
	s->paths = hp_util_xcalloc(n, sizeof(*s->paths));
	s->x = hp_util_xcalloc(n, sizeof(*s->x));
	/* Times are the x axis unless they are all the same. */
	s->timed = all_time && pt[n - 1].name.time > pt[0].name.time;
	s->t0 = pt[0].name.time;
	for (size_t i = 0; i < n; i++) {
		s->paths[i] = pt[i].path;
		s->x[i] = s->timed ? difftime(pt[i].name.time, s->t0) : (double)i;
	}
	free(pt);
}

/* Least-squares slope of y over x (n points); 0 when x does not vary. */
static double least_squares_slope(const double *x, const int64_t *y, size_t n)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0;

	for (size_t i = 0; i < n; i++) {
		mx += x[i];
		my += (double)y[i];
	}
	mx /= (double)n;
	my /= (double)n;
	for (size_t i = 0; i < n; i++) {
		sxx += (x[i] - mx) * (x[i] - mx);
		sxy += (x[i] - mx) * ((double)y[i] - my);
	}
	return sxx > 0 ? sxy / sxx : 0;
}

void hp_trend_fmt_slope(const struct hp_series *s, double slope, char *buf, size_t n)
{
	double span = s->n ? s->x[s->n - 1] - s->x[0] : 0;
	double per = 1;
	const char *unit = "dump";
	char v[32];

	if (s->timed) {
		if (span >= 2 * 3600)
			per = 3600, unit = "h";
		else if (span >= 120)
			per = 60, unit = "min";
		else
			unit = "s";
	}
	double x = slope * per;
	int64_t iv = fabs(x) >= (double)INT64_MAX ? (x < 0 ? -INT64_MAX : INT64_MAX) : llround(x);
	hp_render_value(v, sizeof(v), iv, s->vi, s->show_bytes);
	snprintf(buf, n, "%s%s/%s", iv > 0 ? "+" : "", v, unit);
}

/* ---- keys ------------------------------------------------------------ */

struct keys {
	struct hp_series *s;
	const struct hp_profile *p;
	uint32_t **paths;	/* node ids, leaf first, per key (stack mode) */
	uint32_t *npath;
	size_t cap;
	struct hp_index ix;
};

struct pathkey {
	const uint32_t *nodes;
	uint32_t n;
};

static int key_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct keys *k = ctx;
	const struct pathkey *pk = key;

	return k->npath[item] == pk->n && !memcmp(k->paths[item], pk->nodes, pk->n * 4);
}

static char *stack_label(const struct hp_profile *p, const uint32_t *nodes, uint32_t n)
{
	struct hp_buf b = { 0 };

	for (uint32_t i = 0; i < n && i < LABEL_FRAMES; i++) {
		if (i)
			hp_buf_str(&b, " <- ");
		hp_buf_str(&b, p->nodes[nodes[i]]);
	}
	if (n > LABEL_FRAMES)
		hp_buf_str(&b, " <- ...");
	return b.p;
}

static size_t key_add(struct keys *k, const struct pathkey *pk, uint64_t h, char *label)
{
	struct hp_series *s = k->s;

	hp_util_grow(&s->keys, &k->cap, s->nkeys + 1, sizeof(*s->keys));
	size_t cap = k->cap;
	k->paths = hp_util_xrealloc(k->paths, cap * sizeof(*k->paths));
	k->npath = hp_util_xrealloc(k->npath, cap * sizeof(*k->npath));
	size_t id = s->nkeys++;
	memset(&s->keys[id], 0, sizeof(s->keys[id]));
	s->keys[id].label = label;
	s->keys[id].v = hp_util_xcalloc(s->n, sizeof(int64_t));
	k->paths[id] = pk ? hp_util_xcalloc(pk->n + 1, 4) : NULL;
	k->npath[id] = pk ? pk->n : 0;
	if (pk) {
		memcpy(k->paths[id], pk->nodes, pk->n * 4);
		hp_index_add(&k->ix, h, (uint32_t)id);
	}
	return id;
}

/* One key per distinct call path (by names), values per dump. */
static void stack_keys(struct keys *k)
{
	const struct hp_profile *p = k->p;
	uint32_t nodes[HP_INPUT_FRAMES_MAX * 2];

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct hp_profile_stack *st = &p->stacks[i];
		if (st->dropped || !st->v[k->s->vi])
			continue;
		uint32_t n = st->nf < HP_UTIL_ARRAY_LEN(nodes) ? st->nf :
			     (uint32_t)HP_UTIL_ARRAY_LEN(nodes);
		for (uint32_t f = 0; f < n; f++)
			nodes[f] = p->frames[p->sframes[st->f0 + f]].node;
		struct pathkey pk = { nodes, n };
		uint64_t h = hp_index_hash_bytes(nodes, n * 4, 0);
		int64_t id = hp_index_find(&k->ix, h, key_eq, k, &pk);
		if (id < 0)
			id = (int64_t)key_add(k, &pk, h, stack_label(p, nodes, n));
		int64_t *v = &k->s->keys[id].v[st->slot];
		*v = hp_util_sat_add(*v, st->v[k->s->vi]);
	}
}

/* One key per function with a flat value somewhere: one pass over the
 * stacks of every dump, each adding to its leaf function at its dump. */
static void function_keys(struct keys *k)
{
	const struct hp_profile *p = k->p;
	struct hp_series *s = k->s;
	int64_t *key_of = hp_util_xcalloc(p->nnodes + 1, sizeof(*key_of));

	for (size_t i = 0; i < p->nstacks; i++) {
		const struct hp_profile_stack *st = &p->stacks[i];
		if (st->dropped || !st->v[s->vi])
			continue;
		uint32_t leaf = p->frames[p->sframes[st->f0]].node;
		/* key_of holds key + 1; 0 means none yet. */
		if (!key_of[leaf])
			key_of[leaf] = (int64_t)key_add(k, NULL, 0,
							hp_util_xstrdup(p->nodes[leaf])) + 1;
		int64_t *v = &s->keys[key_of[leaf] - 1].v[st->slot];
		*v = hp_util_sat_add(*v, st->v[s->vi]);
	}
	free(key_of);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct hp_trend_key *x = a, *y = b;

	if (x->slope != y->slope)
		return x->slope > y->slope ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void rank(struct hp_series *s)
{
	for (size_t i = 0; i < s->nkeys; i++) {
		struct hp_trend_key *key = &s->keys[i];
		int rises = 0, falls = 0;
		for (size_t t = 1; t < s->n; t++) {
			rises += key->v[t] > key->v[t - 1];
			falls += key->v[t] < key->v[t - 1];
		}
		key->slope = least_squares_slope(s->x, key->v, s->n);
		key->mono = (double)(rises - falls) / (double)(s->n - 1);
	}
	hp_util_sort(s->keys, s->nkeys, sizeof(*s->keys), rank_cmp);
	s->total = hp_util_xcalloc(s->n, sizeof(*s->total));
	for (size_t i = 0; i < s->nkeys; i++)
		for (size_t t = 0; t < s->n; t++)
			s->total[t] = hp_util_sat_add(s->total[t], s->keys[i].v[t]);
	s->total_slope = least_squares_slope(s->x, s->total, s->n);
}

/* ---- text ------------------------------------------------------------ */

static void fmt_time(time_t t, char *buf, size_t n)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%SZ", &tm);
}

static void text(const struct hp_series *s, size_t top, struct hp_buf *b)
{
	char first[32], last[32], delta[32], sdelta[40], slope[48];
	int64_t d = s->total[s->n - 1] - s->total[0];

	hp_buf_printf(b, "Trend of %s over %zu dumps", hp_render_value_name(s->vi), s->n);
	if (s->timed) {
		char t0[32], t1[32];
		fmt_time(s->t0, t0, sizeof(t0));
		fmt_time(s->t0 + (time_t)s->x[s->n - 1], t1, sizeof(t1));
		hp_buf_printf(b, " from %s to %s", t0, t1);
	}
	hp_render_value(first, sizeof(first), s->total[0], s->vi, s->show_bytes);
	hp_render_value(last, sizeof(last), s->total[s->n - 1], s->vi, s->show_bytes);
	hp_render_value(delta, sizeof(delta), d, s->vi, s->show_bytes);
	hp_trend_fmt_slope(s, s->total_slope, slope, sizeof(slope));
	hp_buf_printf(b, "\nTotal: %s -> %s (%s%s, %s)\n", first, last, d > 0 ? "+" : "", delta,
		      slope);
	hp_buf_printf(b, "%s ranked by growth (least-squares slope); mono is (rises - falls) / "
			 "steps:\n", s->functions ? "Functions" : "Stacks");
	hp_buf_printf(b, "%14s %9s %9s %10s %5s  %s\n", "slope", "first", "last", "delta", "mono",
		      s->functions ? "function" : "stack (leaf <- callers)");
	for (size_t i = 0; i < s->nkeys && i < top; i++) {
		const struct hp_trend_key *k = &s->keys[i];
		int64_t kd = k->v[s->n - 1] - k->v[0];
		hp_render_value(first, sizeof(first), k->v[0], s->vi, s->show_bytes);
		hp_render_value(last, sizeof(last), k->v[s->n - 1], s->vi, s->show_bytes);
		hp_render_value(delta, sizeof(delta), kd, s->vi, s->show_bytes);
		snprintf(sdelta, sizeof(sdelta), "%s%s", kd > 0 ? "+" : "", delta);
		hp_trend_fmt_slope(s, k->slope, slope, sizeof(slope));
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
	hp_buf_str(b, "  \"ranked\": [");
	size_t k;
	for (k = 0; k < s->nkeys && k < top; k++) {
		const struct hp_trend_key *key = &s->keys[k];
		hp_buf_str(b, k ? ",\n    {\"label\": " : "\n    {\"label\": ");
		hp_buf_json_str(b, key->label);
		hp_buf_printf(b, ", \"slope\": %.15g, \"mono\": %.15g, \"first\": %" PRId64
				 ", \"last\": %" PRId64 ", \"delta\": %" PRId64 ", \"values\": ",
			      key->slope, key->mono, key->v[0], key->v[last], key->v[last] - key->v[0]);
		json_values(key->v, s->n, b);
		hp_buf_char(b, '}');
	}
	hp_buf_str(b, k ? "\n  ]\n}\n" : "]\n}\n");
}

int hp_trend_run(const struct hp_ropts *o, char *const *dumps, size_t n)
{
	struct hp_series s = { .vi = o->value, .show_bytes = o->show_bytes,
			       .functions = o->functions };
	struct hp_shape shape;
	struct hp_profile p;
	struct hp_buf out = { 0 };
	struct keys k = { .s = &s, .p = &p };

	order(&s, dumps, n);
	hp_report_shape(o, &shape);
	shape.series = 1;
	hp_profile_init(&p, &shape);
	for (size_t t = 0; t < n; t++) {
		struct hp_input in = { 0 };
		hp_input_read(&in, s.paths[t], &p.strs);
		hp_report_need_accum(o, &in);
		hp_profile_add(&p, &in, 1, (uint32_t)t);
		hp_input_release(&in);
	}
	hp_profile_finish(&p);
	if (o->functions)
		function_keys(&k);
	else
		stack_keys(&k);
	rank(&s);
	size_t top = o->top > 0 ? (size_t)o->top : 10;
	if (o->format == HP_ROPTS_FMT_SVG)
		hp_trendsvg_render(&s, top, &out);
	else if (o->format == HP_ROPTS_FMT_JSON)
		json(&s, top, &out);
	else
		text(&s, top, &out);
	hp_util_write_output(o->output, out.p, out.len);
	hp_buf_release(&out);
	for (size_t i = 0; i < s.nkeys; i++) {
		free(s.keys[i].label);
		free(s.keys[i].v);
		if (k.paths)
			free(k.paths[i]);
	}
	free(s.keys);
	free(k.paths);
	free(k.npath);
	hp_index_release(&k.ix);
	free(s.total);
	free(s.paths);
	free(s.x);
	hp_profile_release(&p);
	return 0;
}
