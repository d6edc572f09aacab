/*
 * text.c -- the --text and --tree outputs (see render.h).
 *
 * --text is jeprof's table (flat, flat%, sum%, cum, cum%, name, printed
 * with jeprof's "%8s %6s %6s %8s %6s %s") under a headline and a column
 * header, so scripts written for jeprof keep working.
 * --tree shows, for the functions with the largest flat values, every
 * call path that leads to them, callers indented under callees.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "render.h"
#include "util.h"

/* With negative entries (after --base), percentages are of the sum of
 * absolute values, so that they stay between -100% and 100%. */
static int64_t pct_base(const struct hp_profile *p, int vi)
{
	int64_t abs;
	size_t neg;
	int64_t total = hp_render_total(p, vi, &abs, &neg);

	return neg ? abs : total;
}

void hp_text_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	int64_t *flat = hp_util_xcalloc(p->nnodes, sizeof(*flat));
	int64_t *cum = hp_util_xcalloc(p->nnodes, sizeof(*cum));
	uint32_t *order;
	int64_t whole = pct_base(p, r->vi), sum = 0;

	hp_profile_flat(p, r->vi, flat, cum);
	size_t n = hp_profile_sorted_nodes(p, flat, cum, &order);
	if (r->top > 0 && (size_t)r->top < n)
		n = (size_t)r->top;
	hp_render_headline(p, r, b);
	hp_buf_printf(b, "%8s %6s %6s %8s %6s %s\n", "flat", "flat%", "sum%", "cum", "cum%",
		      "function");
	for (size_t i = 0; i < n; i++) {
		uint32_t k = order[i];
		char f[32], fp[16], sp[16], c[32], cp[16];
		sum = hp_util_sat_add(sum, flat[k]);
		hp_render_value(f, sizeof(f), flat[k], r->vi, r->show_bytes);
		hp_render_pct(fp, sizeof(fp), flat[k], whole);
		hp_render_pct(sp, sizeof(sp), sum, whole);
		hp_render_value(c, sizeof(c), cum[k], r->vi, r->show_bytes);
		hp_render_pct(cp, sizeof(cp), cum[k], whole);
		hp_buf_printf(b, "%8s %6s %6s %8s %6s %s\n", f, fp, sp, c, cp, p->nodes[k]);
	}
	free(order);
	free(flat);
	free(cum);
}

/* ---- tree ------------------------------------------------------------ */

/* Callers summing below this fraction of their function are summarized,
 * as jeprof's --nodefraction does for graphs. */
#define TREE_FRACTION 0.005

struct tree {
	const struct hp_profile *p;
	const struct hp_render *r;
	struct hp_buf *b;
	int64_t entry;		/* the function's flat value: 100% */
};

struct group {
	uint32_t node;
	int64_t v;
	size_t first, n;	/* its stacks in the partitioned range */
};

static uint32_t node_at(const struct hp_profile *p, uint32_t s, uint32_t depth)
{
	const struct hp_profile_stack *st = &p->stacks[s];

	return depth < st->nf ? p->frames[p->sframes[st->f0 + depth]].node : UINT32_MAX;
}

static int64_t magnitude(int64_t v)
{
	return v == INT64_MIN ? INT64_MAX : v < 0 ? -v : v;
}

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	if (magnitude(x->v) != magnitude(y->v))
		return magnitude(x->v) > magnitude(y->v) ? -1 : 1;
	return x->node < y->node ? -1 : x->node > y->node;
}

/* qsort has no context argument; each sort finishes before the next. */
static int stack_node_cmp_depth;
static const struct hp_profile *stack_node_cmp_p;

static int stack_node_cmp(const void *a, const void *b)
{
	uint32_t x = node_at(stack_node_cmp_p, *(const uint32_t *)a, (uint32_t)stack_node_cmp_depth);
	uint32_t y = node_at(stack_node_cmp_p, *(const uint32_t *)b, (uint32_t)stack_node_cmp_depth);

	return x < y ? -1 : x > y;
}

static void tree_line(struct tree *t, int64_t v, int depth, const char *name)
{
	char val[32], pct[16];

	hp_render_value(val, sizeof(val), v, t->r->vi, t->r->show_bytes);
	hp_render_pct(pct, sizeof(pct), v, t->entry);
	hp_buf_printf(t->b, "%8s %6s  %*s%s\n", val, pct, 2 * depth, "", name);
}

/* Prints the callers at frame depth of the stacks in ids[0..n). */
static void callers(struct tree *t, uint32_t *ids, size_t n, uint32_t depth)
{
	const struct hp_profile *p = t->p;
	int vi = t->r->vi;

	stack_node_cmp_p = p;
	stack_node_cmp_depth = (int)depth;
	hp_util_sort(ids, n, sizeof(*ids), stack_node_cmp);
	struct group *g = NULL;
	size_t ng = 0, cap = 0;
	for (size_t i = 0; i < n;) {
		uint32_t node = node_at(p, ids[i], depth);
		size_t j = i;
		int64_t v = 0;
		for (; j < n && node_at(p, ids[j], depth) == node; j++)
			v = hp_util_sat_add(v, p->stacks[ids[j]].v[vi]);
		if (node != UINT32_MAX) {
			hp_util_grow(&g, &cap, ng + 1, sizeof(*g));
			g[ng++] = (struct group){ node, v, i, j - i };
		}
		i = j;
	}
	hp_util_sort(g, ng, sizeof(*g), group_cmp);
	size_t hidden = 0;
	int64_t hidden_v = 0;
	for (size_t i = 0; i < ng; i++) {
		if ((double)magnitude(g[i].v) < TREE_FRACTION * (double)magnitude(t->entry)) {
			hidden++;
			hidden_v = hp_util_sat_add(hidden_v, g[i].v);
			continue;
		}
		tree_line(t, g[i].v, (int)depth, p->nodes[g[i].node]);
		/* The group's stacks stay contiguous: recurse on them. */
		callers(t, ids + g[i].first, g[i].n, depth + 1);
	}
	if (hidden) {
		char name[64];
		snprintf(name, sizeof(name), "(%zu more caller%s)", hidden, hidden == 1 ? "" : "s");
		tree_line(t, hidden_v, (int)depth, name);
	}
	free(g);
}

void hp_text_render_tree(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b)
{
	int64_t *flat = hp_util_xcalloc(p->nnodes, sizeof(*flat));
	int64_t *cum = hp_util_xcalloc(p->nnodes, sizeof(*cum));
	uint32_t *order, *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	int64_t whole = pct_base(p, r->vi);
	struct tree t = { .p = p, .r = r, .b = b };

	hp_profile_flat(p, r->vi, flat, cum);
	size_t n = hp_profile_sorted_nodes(p, flat, cum, &order);
	size_t top = r->top > 0 ? (size_t)r->top : 10, with_flat = 0;
	for (size_t i = 0; i < n; i++)
		with_flat += flat[order[i]] != 0;
	if (top > with_flat)
		top = with_flat;
	hp_render_headline(p, r, b);
	hp_buf_printf(b, "Call paths to the %zu function%s with the largest flat %s;\n"
			 "caller percentages are of the function's flat value.\n",
		      top, top == 1 ? "" : "s", hp_render_value_name(r->vi));
	for (size_t i = 0, shown = 0; i < n && shown < top; i++) {
		uint32_t k = order[i];
		if (!flat[k])
			continue;
		shown++;
		char val[32], pct[16];
		hp_render_value(val, sizeof(val), flat[k], r->vi, r->show_bytes);
		hp_render_pct(pct, sizeof(pct), flat[k], whole);
		hp_buf_printf(b, "\n%8s %6s  %s\n", val, pct, p->nodes[k]);
		/* The stacks whose leaf is this function. */
		size_t m = 0;
		for (size_t s = 0; s < p->nstacks; s++) {
			const struct hp_profile_stack *st = &p->stacks[s];
			if (!st->dropped && st->v[r->vi] && node_at(p, (uint32_t)s, 0) == k)
				ids[m++] = (uint32_t)s;
		}
		t.entry = flat[k];
		callers(&t, ids, m, 1);
	}
	free(ids);
	free(order);
	free(flat);
	free(cum);
}
