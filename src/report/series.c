/*
 * series.c -- the series `heapprof trend` draws (see series.h): a series
 * of dumps of one program, ordered by the time in their names, and its
 * stacks (or functions) ranked by how steadily their values grow.
 *
 * Owns the series: its order (the name's UTC time; failing that the
 * sequence number; failing that the command line), its x axis (seconds,
 * or dump numbers), the ranking and the slopes' units.  A leak grows
 * steadily: the ranking is the least-squares slope of each stack's value
 * over time, shown with its first and last values and a monotonicity
 * measure, (rises - falls) / steps, which is 1.00 for a stack that grew at
 * every dump.  Draws nothing: trend.c and trendsvg.c do.
 */
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
#include "series.h"
#include "suspects.h"
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

double hp_series_slope(const double *x, const int64_t *y, size_t n)
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

void hp_series_fmt_slope(const struct hp_series *s, double slope, char *buf, size_t n)
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
	s->keys[id].bytes = hp_util_xcalloc(s->n, sizeof(int64_t));
	s->keys[id].objects = hp_util_xcalloc(s->n, sizeof(int64_t));
	s->keys[id].alloc = hp_util_xcalloc(s->n, sizeof(int64_t));
	k->paths[id] = pk ? hp_util_xcalloc(pk->n + 1, 4) : NULL;
	k->npath[id] = pk ? pk->n : 0;
	if (pk) {
		memcpy(k->paths[id], pk->nodes, pk->n * 4);
		hp_index_add(&k->ix, h, (uint32_t)id);
	}
	return id;
}

/* Adds one stack of one dump to a key's point at that dump. */
static void add_point(struct hp_series_key *key, const struct hp_profile_stack *st, int vi)
{
	uint32_t t = st->slot;

	key->v[t] = hp_util_sat_add(key->v[t], st->v[vi]);
	key->bytes[t] = hp_util_sat_add(key->bytes[t], st->v[HP_V_INUSE_SPACE]);
	key->objects[t] = hp_util_sat_add(key->objects[t], st->v[HP_V_INUSE_OBJECTS]);
	int ai = vi == HP_V_INUSE_OBJECTS ? HP_V_ALLOC_OBJECTS : HP_V_ALLOC_SPACE;
	key->alloc[t] = hp_util_sat_add(key->alloc[t], st->v[ai]);
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
		add_point(&k->s->keys[id], st, k->s->vi);
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
		add_point(&s->keys[key_of[leaf] - 1], st, s->vi);
	}
	free(key_of);
}

static int rank_cmp(const void *a, const void *b)
{
	const struct hp_series_key *x = a, *y = b;

	/* With --suspects, the suspects come first (verdicts are 0 without). */
	if ((x->verdict == HP_SUSPECT) != (y->verdict == HP_SUSPECT))
		return x->verdict == HP_SUSPECT ? -1 : 1;
	if (x->slope != y->slope)
		return x->slope > y->slope ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* --suspects: the key's verdict at the series' level. */
static void judge(struct hp_series *s, struct hp_series_key *key)
{
	struct hp_suspect_input in = {
		.n = s->n, .x = s->x, .v = key->v, .bytes = key->bytes, .objects = key->objects,
		.rate = s->rate, .v_is_bytes = s->vi == HP_V_INUSE_SPACE,
		.alloc = s->accum ? key->alloc : NULL,
	};
	struct hp_suspect_result r;

	hp_suspects_judge(&in, s->level, &r);
	key->verdict = r.verdict;
	key->confidence = r.confidence;
	key->slope_tail = r.slope_tail;
	key->slope = r.slope_all;   /* the test's: first to last, as the steps sum */
	s->nsuspects += r.verdict == HP_SUSPECT;
	s->ngrowing += r.verdict != HP_SUSPECT_NOT_GROWING;
}

static void rank(struct hp_series *s)
{
	for (size_t i = 0; i < s->nkeys; i++) {
		struct hp_series_key *key = &s->keys[i];
		int rises = 0, falls = 0;
		for (size_t t = 1; t < s->n; t++) {
			rises += key->v[t] > key->v[t - 1];
			falls += key->v[t] < key->v[t - 1];
		}
		key->slope = hp_series_slope(s->x, key->v, s->n);
		key->mono = (double)(rises - falls) / (double)(s->n - 1);
		if (s->suspects)
			judge(s, key);
	}
	hp_util_sort(s->keys, s->nkeys, sizeof(*s->keys), rank_cmp);
	s->total = hp_util_xcalloc(s->n, sizeof(*s->total));
	for (size_t i = 0; i < s->nkeys; i++)
		for (size_t t = 0; t < s->n; t++)
			s->total[t] = hp_util_sat_add(s->total[t], s->keys[i].v[t]);
	s->total_slope = hp_series_slope(s->x, s->total, s->n);
}

/* ---- the series ------------------------------------------------------ */

void hp_series_build(struct hp_series *s, const struct hp_ropts *o, char *const *dumps,
		     size_t n)
{
	struct hp_shape shape;
	struct hp_profile p;
	struct keys k = { .s = s, .p = &p };

	*s = (struct hp_series){ .vi = o->value, .show_bytes = o->show_bytes,
				 .functions = o->functions, .suspects = o->suspects,
				 .level = o->confidence };
	order(s, dumps, n);
	s->rate = hp_util_xcalloc(n, sizeof(*s->rate));
	s->accum = 1;
	int all_taken = 1;
	struct timespec *taken = hp_util_xcalloc(n, sizeof(*taken));
	hp_report_shape(o, &shape);
	shape.series = 1;
	hp_profile_init(&p, &shape);
	for (size_t t = 0; t < n; t++) {
		struct hp_input in = { 0 };
		hp_input_read(&in, s->paths[t], &p.strs);
		hp_report_need_accum(o, &in);
		s->rate[t] = in.scaling == HP_SCALE_NONE ? 1 : in.rate;
		s->accum &= in.has_accum;
		/* The line must agree with the name (a renamed dump keeps its
		 * line but its name is what the user gave). */
		all_taken &= in.has_taken && in.name.has_time &&
			     llabs((long long)(in.taken.tv_sec - in.name.time)) <= 2;
		taken[t] = in.taken;
		hp_profile_add(&p, &in, 1, (uint32_t)t);
		hp_input_release(&in);
	}
	hp_profile_finish(&p);
	/* Dumps that say when they were taken, to the nanosecond, have x to
	 * the nanosecond: names have the second, and dumps a second apart
	 * would be steps of 0 or 2 seconds. */
	if (s->timed && all_taken)
		for (size_t t = 0; t < n; t++)
			s->x[t] = (double)(taken[t].tv_sec - taken[0].tv_sec) +
				  (double)(taken[t].tv_nsec - taken[0].tv_nsec) / 1e9;
	free(taken);
	if (o->functions)
		function_keys(&k);
	else
		stack_keys(&k);
	rank(s);
	/* The labels are copies: the profile and the keys' paths can go. */
	for (size_t i = 0; k.paths && i < s->nkeys; i++)
		free(k.paths[i]);
	free(k.paths);
	free(k.npath);
	hp_index_release(&k.ix);
	hp_profile_release(&p);
}

void hp_series_release(struct hp_series *s)
{
	for (size_t i = 0; i < s->nkeys; i++) {
		free(s->keys[i].label);
		free(s->keys[i].v);
		free(s->keys[i].bytes);
		free(s->keys[i].objects);
		free(s->keys[i].alloc);
	}
	free(s->rate);
	free(s->keys);
	free(s->total);
	free(s->paths);
	free(s->x);
	memset(s, 0, sizeof(*s));
}
