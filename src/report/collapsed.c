/*
 * collapsed.c -- the --collapsed output: one "root;caller;...;leaf value"
 * line per distinct call path, the input of flamegraph.pl, speedscope and
 * inferno (see render.h).
 *
 * Paths are merged by name (stacks that differ only in addresses become
 * one line), sorted for stable output, and zero lines are left out.
 * Names cannot hold ';' (it separates frames): it becomes ':'.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "render.h"
#include "util.h"

struct line {
	size_t off, len;	/* the path in the text buffer */
	int64_t v;
};

struct lines {
	struct hp_buf text;
	struct line *l;
	size_t n, cap;
	struct hp_index ix;
};

static int line_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct lines *ls = ctx;
	const struct hp_buf *k = key;

	return ls->l[item].len == k->len && !memcmp(ls->text.p + ls->l[item].off, k->p, k->len);
}

static void path_of(const struct hp_profile *p, const struct hp_profile_stack *st,
		    struct hp_buf *b)
{
	hp_buf_reset(b);
	for (uint32_t i = st->nf; i-- > 0;) {
		const char *name = hp_profile_frame_node(p, st, i);
		for (const char *c = name; *c; c++)
			hp_buf_char(b, *c == ';' ? ':' : *c);
		if (i)
			hp_buf_char(b, ';');
	}
}

static const char *sort_text;

static int line_cmp(const void *a, const void *b)
{
	const struct line *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(sort_text + x->off, sort_text + y->off, n);

	return c ? c : (x->len > y->len) - (x->len < y->len);
}

void hp_collapsed_render(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b)
{
	struct lines ls = { 0 };
	struct hp_buf path = { 0 };

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		if (st->dropped || !st->v[r->vi])
			continue;
		path_of(p, st, &path);
		uint64_t h = hp_index_hash_bytes(path.p, path.len, 0);
		int64_t i = hp_index_find(&ls.ix, h, line_eq, &ls, &path);
		if (i < 0) {
			hp_util_grow(&ls.l, &ls.cap, ls.n + 1, sizeof(*ls.l));
			ls.l[ls.n] = (struct line){ ls.text.len, path.len, 0 };
			hp_buf_add(&ls.text, path.p, path.len);
			hp_index_add(&ls.ix, h, (uint32_t)ls.n);
			i = (int64_t)ls.n++;
		}
		ls.l[i].v = hp_util_sat_add(ls.l[i].v, st->v[r->vi]);
	}
	sort_text = ls.text.p;
	hp_util_sort(ls.l, ls.n, sizeof(*ls.l), line_cmp);
	for (size_t i = 0; i < ls.n; i++) {
		if (!ls.l[i].v)
			continue;
		hp_buf_add(b, ls.text.p + ls.l[i].off, ls.l[i].len);
		hp_buf_printf(b, " %" PRId64 "\n", ls.l[i].v);
	}
	free(ls.l);
	hp_buf_release(&ls.text);
	hp_buf_release(&path);
	hp_index_release(&ls.ix);
}
