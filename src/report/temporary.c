/*
 * temporary.c -- the text view of `heapprof report --temporary` (see
 * temporary.h): heaptrack's "most temporary allocations", per stack.
 *
 *   Total: 1011 of 3016 allocations were temporary (33.5%, 1 dump)
 *   temporary   allocs  share  stack, innermost first
 *        1000     1000 100.0%  h
 *                              main
 *
 * The headline's figures are the processes' own (the dumps' "# heapprof
 * temporary:" lines), whatever --focus and --ignore keep; the rows are
 * the kept stacks with at least one temporary allocation, by temporary
 * allocations, then allocations.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "temporary.h"
#include "util.h"

static const struct hp_profile *sort_p;

static int by_temporary(const void *a, const void *b)
{
	const struct hp_profile_stack *x = &sort_p->stacks[*(const uint32_t *)a];
	const struct hp_profile_stack *y = &sort_p->stacks[*(const uint32_t *)b];

	if (x->v[HP_V_TEMPORARY] != y->v[HP_V_TEMPORARY])
		return x->v[HP_V_TEMPORARY] > y->v[HP_V_TEMPORARY] ? -1 : 1;
	if (x->v[HP_V_ALLOCATIONS] != y->v[HP_V_ALLOCATIONS])
		return x->v[HP_V_ALLOCATIONS] > y->v[HP_V_ALLOCATIONS] ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

void hp_temporary_render(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b)
{
	uint32_t *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	size_t n = 0;
	char pct[16];

	for (size_t s = 0; s < p->nstacks; s++)
		if (!p->stacks[s].dropped && p->stacks[s].v[HP_V_TEMPORARY] > 0)
			ids[n++] = (uint32_t)s;
	sort_p = p;
	hp_util_sort(ids, n, sizeof(*ids), by_temporary);
	if (r->top > 0 && (size_t)r->top < n)
		n = (size_t)r->top;

	hp_render_pct(pct, sizeof(pct), r->temporary, r->allocations);
	hp_buf_printf(b, "Total: %" PRId64 " of %" PRId64 " allocations were temporary (%s, %zu dump%s",
		      r->temporary, r->allocations, pct, r->ndumps, r->ndumps == 1 ? "" : "s");
	if (r->focus)
		hp_buf_printf(b, "; stacks with '%s'", r->focus);
	if (r->ignore)
		hp_buf_printf(b, "; stacks without '%s'", r->ignore);
	hp_buf_str(b, ")\n");
	hp_buf_printf(b, "%9s %8s %6s  %s\n", "temporary", "allocs", "share", "stack, innermost first");
	for (size_t i = 0; i < n; i++) {
		const struct hp_profile_stack *st = &p->stacks[ids[i]];
		hp_render_pct(pct, sizeof(pct), st->v[HP_V_TEMPORARY], st->v[HP_V_ALLOCATIONS]);
		hp_buf_printf(b, "%9" PRId64 " %8" PRId64 " %6s  %s\n", st->v[HP_V_TEMPORARY],
			      st->v[HP_V_ALLOCATIONS], pct, hp_profile_frame_node(p, st, 0));
		for (uint32_t f = 1; f < st->nf; f++)
			hp_buf_printf(b, "%*s%s\n", 27, "", hp_profile_frame_node(p, st, f));
	}
	free(ids);
}
