/*
 * flame.c -- the flame graph's tree (see flame.h): stacks merged by call
 * path, the values of both sides of a diff, and the diff colours.
 *
 * Owns nothing the outputs draw with: positions, sizes and palettes but
 * the diff's are svg.c's and flame.js's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "flame.h"
#include "util.h"

/* The companion of value vi: objects for bytes and bytes for objects. */
static int companion(int vi)
{
	switch (vi) {
	case HP_V_INUSE_SPACE:
		return HP_V_INUSE_OBJECTS;
	case HP_V_INUSE_OBJECTS:
		return HP_V_INUSE_SPACE;
	case HP_V_ALLOC_SPACE:
		return HP_V_ALLOC_OBJECTS;
	default:
		return HP_V_ALLOC_SPACE;
	}
}

const char *hp_flame_name(const struct hp_flame *f, const struct hp_profile *p, uint32_t id)
{
	uint32_t node = f->n[id].node;

	return node == HP_FLAME_ROOT ? "all" : p->nodes[node];
}

static uint32_t child_of(struct hp_flame *f, uint32_t parent, uint32_t node)
{
	/* Paths arrive sorted, so a matching child is the last one made. */
	uint32_t c = f->n[parent].last_child;

	if (c && f->n[c].node == node)
		return c;
	hp_util_grow(&f->n, &f->cap, f->nn + 1, sizeof(*f->n));
	uint32_t id = (uint32_t)f->nn++;
	f->n[id] = (struct hp_flame_node){ .node = node, .parent = parent,
					   .depth = f->n[parent].depth + 1 };
	if (f->n[parent].last_child)
		f->n[f->n[parent].last_child].next = id;
	else
		f->n[parent].child = id;
	f->n[parent].last_child = id;
	if (f->n[id].depth > f->maxdepth)
		f->maxdepth = f->n[id].depth;
	return id;
}

/* qsort has no context argument; one sort runs at a time. */
static const struct hp_profile *sort_p;

/* Root-first name order of two stacks, for building the tree. */
static int path_cmp(const void *a, const void *b)
{
	const struct hp_profile_stack *x = &sort_p->stacks[*(const uint32_t *)a];
	const struct hp_profile_stack *y = &sort_p->stacks[*(const uint32_t *)b];
	uint32_t i = x->nf, j = y->nf;

	while (i && j) {
		int c = strcmp(hp_profile_frame_node(sort_p, x, --i),
			       hp_profile_frame_node(sort_p, y, --j));
		if (c)
			return c;
	}
	return (i > 0) - (j > 0);
}

void hp_flame_build(struct hp_flame *f, const struct hp_profile *p, int vi, int diff)
{
	hp_flame_build_with(f, p, vi, companion(vi), diff);
}

void hp_flame_build_with(struct hp_flame *f, const struct hp_profile *p, int vi, int oi,
			 int diff)
{
	uint32_t *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	size_t m = 0;

	memset(f, 0, sizeof(*f));
	f->vi = vi;
	f->oi = oi;
	f->diff = diff;
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		if (!st->dropped && (diff ? st->v[vi] != 0 : st->v[vi] > 0))
			ids[m++] = (uint32_t)s;
	}
	sort_p = p;
	hp_util_sort(ids, m, sizeof(*ids), path_cmp);
	hp_util_grow(&f->n, &f->cap, 1, sizeof(*f->n));
	f->n[0] = (struct hp_flame_node){ .node = HP_FLAME_ROOT };
	f->nn = 1;
	for (size_t k = 0; k < m; k++) {
		const struct hp_profile_stack *st = &p->stacks[ids[k]];
		int side = diff && st->slot ? 1 : 0;
		int64_t v = st->v[vi], o = st->v[f->oi];
		uint32_t at = 0;
		f->n[0].v[side] = hp_util_sat_add(f->n[0].v[side], v);
		f->n[0].o[side] = hp_util_sat_add(f->n[0].o[side], o);
		for (uint32_t i = st->nf; i-- > 0;) {
			at = child_of(f, at, p->frames[p->sframes[st->f0 + i]].node);
			f->n[at].v[side] = hp_util_sat_add(f->n[at].v[side], v);
			f->n[at].o[side] = hp_util_sat_add(f->n[at].o[side], o);
		}
		f->n[at].self[side] = hp_util_sat_add(f->n[at].self[side], v);
	}
	/* Children come after their parents: one backward pass sums each
	 * path's change into every node above it. */
	for (size_t i = f->nn; diff && i-- > 0;) {
		struct hp_flame_node *n = &f->n[i];
		int64_t d = n->self[0] - n->self[1];
		if (d > 0)
			n->grow = hp_util_sat_add(n->grow, d);
		else
			n->shrink = hp_util_sat_add(n->shrink, d);
		if (i) {
			struct hp_flame_node *up = &f->n[n->parent];
			up->grow = hp_util_sat_add(up->grow, n->grow);
			up->shrink = hp_util_sat_add(up->shrink, n->shrink);
		}
	}
	free(ids);
}

void hp_flame_release(struct hp_flame *f)
{
	free(f->n);
	memset(f, 0, sizeof(*f));
}

int64_t hp_flame_max_change(const struct hp_flame *f)
{
	int64_t max = 0;

	for (size_t i = 1; i < f->nn; i++) {
		int64_t d = f->n[i].v[0] - f->n[i].v[1];
		if (d < 0)
			d = d == INT64_MIN ? INT64_MAX : -d;
		if (d > max)
			max = d;
	}
	return max;
}

void hp_flame_diff_color(int64_t delta, int64_t max, int rgb[3])
{
	/* flame.js's diffColor() is the same function: keep them alike. */
	static const int neutral[3] = { 238, 238, 238 };
	static const int red[3] = { 215, 38, 38 };
	static const int blue[3] = { 38, 88, 215 };
	double t = max > 0 ? fabs((double)delta) / (double)max : 0;
	const int *to = delta < 0 ? blue : red;

	if (t > 1)
		t = 1;
	/* Math.round is floor(x + 0.5): the same integers in both. */
	for (int i = 0; i < 3; i++)
		rgb[i] = (int)floor(neutral[i] + (to[i] - neutral[i]) * t + 0.5);
}
