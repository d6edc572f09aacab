/*
 * topstacks.c -- the stacks of one dump that hold the most of a value (see
 * topstacks.h), for heapprof check's budgets.
 *
 * Owns nothing between calls: the dump goes through the report's profile
 * (input.c, profile.c: symbolized as report symbolizes it) and the rows
 * are rendered as the trend command labels its stacks.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "input.h"
#include "profile.h"
#include "render.h"
#include "report.h"
#include "ropts.h"
#include "topstacks.h"
#include "util.h"

#define LABEL_FRAMES 8

static const struct hp_profile_stack *by_value_stacks;
static int by_value_vi;

static int by_value(const void *a, const void *b)
{
	int64_t x = by_value_stacks[*(const size_t *)a].v[by_value_vi];
	int64_t y = by_value_stacks[*(const size_t *)b].v[by_value_vi];

	return x != y ? (x > y ? -1 : 1) : 0;
}

void hp_topstacks(const char *path, int vi, size_t top, const char *indent, char **out,
		  int64_t *total)
{
	struct hp_ropts o;
	struct hp_shape shape;
	struct hp_profile p;
	struct hp_input in = { 0 };
	struct hp_buf b = { 0 };

	hp_ropts_init(&o, "check");
	o.value = vi;
	hp_report_shape(&o, &shape);
	hp_profile_init(&p, &shape);
	hp_input_read(&in, path, &p.strs);
	hp_profile_add(&p, &in, 1, 0);
	hp_input_release(&in);
	hp_profile_finish(&p);

	size_t *order = hp_util_xcalloc(p.nstacks + 1, sizeof(*order)), n = 0;
	*total = 0;
	for (size_t i = 0; i < p.nstacks; i++) {
		if (p.stacks[i].v[vi] <= 0)
			continue;
		*total = hp_util_sat_add(*total, p.stacks[i].v[vi]);
		order[n++] = i;
	}
	by_value_stacks = p.stacks;
	by_value_vi = vi;
	qsort(order, n, sizeof(*order), by_value);
	if (*out)
		hp_buf_str(&b, *out);
	for (size_t k = 0; k < n && k < top; k++) {
		const struct hp_profile_stack *st = &p.stacks[order[k]];
		char v[32];
		hp_render_value(v, sizeof(v), st->v[vi], vi, 0);
		hp_buf_printf(&b, "%s%9s  ", indent, v);
		for (uint32_t f = 0; f < st->nf && f < LABEL_FRAMES; f++)
			hp_buf_printf(&b, "%s%s", f ? " <- " : "", hp_profile_frame_node(&p, st, f));
		hp_buf_str(&b, st->nf > LABEL_FRAMES ? " <- ...\n" : "\n");
	}
	free(order);
	free(*out);
	*out = b.p ? b.p : hp_util_xstrdup("");
	hp_profile_release(&p);
	hp_ropts_release(&o);
}
