/*
 * json.c -- the --json output for scripts (see render.h; the schema is
 * documented in heapprof(1)).
 *
 * One object: what was read, the totals, the functions as --text ranks
 * them, and every kept stack with all its values and frames (leaf first,
 * each with function, file, line, module and address).  Strings are
 * already valid UTF-8 (names are sanitized when read); they are escaped
 * here for JSON.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "render.h"
#include "util.h"

static void jstr(struct hp_buf *b, const char *s)
{
	hp_buf_json_str(b, s);
}

static void jstr_list(struct hp_buf *b, const char *const *v, size_t n)
{
	hp_buf_char(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			hp_buf_str(b, ", ");
		jstr(b, v[i]);
	}
	hp_buf_char(b, ']');
}

static void functions(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	int64_t *flat = hp_util_xcalloc(p->nnodes, sizeof(*flat));
	int64_t *cum = hp_util_xcalloc(p->nnodes, sizeof(*cum));
	uint32_t *order;

	hp_profile_flat(p, r->vi, flat, cum);
	size_t n = hp_profile_sorted_nodes(p, flat, cum, &order);
	if (r->top > 0 && (size_t)r->top < n)
		n = (size_t)r->top;
	hp_buf_str(b, "  \"functions\": [");
	for (size_t i = 0; i < n; i++) {
		uint32_t k = order[i];
		hp_buf_str(b, i ? ",\n    {\"name\": " : "\n    {\"name\": ");
		jstr(b, p->nodes[k]);
		hp_buf_printf(b, ", \"flat\": %" PRId64 ", \"cum\": %" PRId64 "}", flat[k], cum[k]);
	}
	hp_buf_str(b, n ? "\n  ],\n" : "],\n");
	free(order);
	free(flat);
	free(cum);
}

static void frame(const struct hp_profile *p, uint32_t fi, const struct hp_loc *loc,
		  int inlined, struct hp_buf *b)
{
	const struct hp_frame *fr = &p->frames[fi];
	const struct hp_func *fn = &p->funcs[fr->func];

	hp_buf_str(b, "{\"function\": ");
	jstr(b, fn->name);
	if (fn->full != fn->name) {
		hp_buf_str(b, ", \"full_name\": ");
		jstr(b, fn->full);
	}
	if (fr->file) {
		hp_buf_str(b, ", \"file\": ");
		jstr(b, fr->file);
		hp_buf_printf(b, ", \"line\": %d", fr->line);
	}
	if (loc && loc->where) {
		hp_buf_str(b, ", \"module\": ");
		jstr(b, loc->where);
		hp_buf_printf(b, ", \"offset\": \"0x%" PRIx64 "\"", loc->off);
	}
	if (loc)
		hp_buf_printf(b, ", \"address\": \"0x%" PRIx64 "\"", loc->addr);
	hp_buf_printf(b, ", \"inlined\": %s}", inlined ? "true" : "false");
}

/* The frames of st, leaf first, location by location after the trimmed
 * ones, each with what its location knows (module, offset, address). */
static void stack_frames(const struct hp_profile *p, const struct hp_profile_stack *st,
			 struct hp_buf *b)
{
	uint32_t skip = st->trim, out = 0;

	hp_buf_str(b, "\"frames\": [");
	for (uint32_t i = 0; i < st->nlocs; i++) {
		const struct hp_loc *loc = &p->locs[p->stack_locs[st->loc0 + i]];
		for (uint32_t f = 0; f < loc->nframes; f++) {
			if (skip) {
				skip--;
				continue;
			}
			hp_buf_str(b, out++ ? ",\n      " : "\n      ");
			frame(p, loc->frame0 + f, loc, f + 1 < loc->nframes, b);
		}
	}
	if (!out) {
		/* Only the "[no frames]" placeholder. */
		hp_buf_str(b, "\n      ");
		frame(p, p->sframes[st->f0], NULL, 0, b);
	}
	hp_buf_str(b, "]");
}

static const struct hp_profile *sort_p;
static int sort_vi;

static int stack_cmp(const void *a, const void *b)
{
	int64_t x = sort_p->stacks[*(const uint32_t *)a].v[sort_vi];
	int64_t y = sort_p->stacks[*(const uint32_t *)b].v[sort_vi];

	if (x != y)
		return x > y ? -1 : 1;
	return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

static void stacks(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	uint32_t *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	size_t n = 0;

	for (size_t s = 0; s < p->nstacks; s++)
		if (!p->stacks[s].dropped && p->stacks[s].v[r->vi])
			ids[n++] = (uint32_t)s;
	sort_p = p;
	sort_vi = r->vi;
	hp_util_sort(ids, n, sizeof(*ids), stack_cmp);
	hp_buf_str(b, "  \"stacks\": [");
	for (size_t i = 0; i < n; i++) {
		const struct hp_profile_stack *st = &p->stacks[ids[i]];
		hp_buf_printf(b, "%s\n    {\"value\": %" PRId64 ", ", i ? "," : "", st->v[r->vi]);
		hp_buf_printf(b, "\"inuse_objects\": %" PRId64 ", \"inuse_space\": %" PRId64 ", ",
			      st->v[HP_V_INUSE_OBJECTS], st->v[HP_V_INUSE_SPACE]);
		if (p->has_accum)
			hp_buf_printf(b, "\"alloc_objects\": %" PRId64 ", \"alloc_space\": %" PRId64
					 ", ", st->v[HP_V_ALLOC_OBJECTS], st->v[HP_V_ALLOC_SPACE]);
		if (r->vi == HP_V_TEMPORARY)
			hp_buf_printf(b, "\"allocations\": %" PRId64 ", ", st->v[HP_V_ALLOCATIONS]);
		stack_frames(p, st, b);
		hp_buf_char(b, '}');
	}
	hp_buf_str(b, n ? "\n  ]\n" : "]\n");
	free(ids);
}

/* Whether report --age can read the dumps: their uptime and default
 * warm-up when each has ages, else null (the explorer's age switch asks
 * this of the view it shows, instead of a report of its own). */
static void ages(const struct hp_render *r, struct hp_buf *b)
{
	if (r->ndumps && r->aged_dumps == r->ndumps)
		hp_buf_printf(b, "  \"ages\": {\"uptime\": %.3f, \"warmup\": %.3f},\n",
			      r->aged_uptime, r->aged_warmup);
	else
		hp_buf_str(b, "  \"ages\": null,\n");
}

void hp_json_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	int64_t abs;
	size_t neg;
	int64_t total = hp_render_total(p, r->vi, &abs, &neg);

	hp_buf_str(b, "{\n  \"format\": \"heapprof-report\",\n  \"version\": 1,\n");
	hp_buf_str(b, "  \"sample_type\": ");
	jstr(b, hp_render_value_name(r->vi));
	hp_buf_printf(b, ",\n  \"unit\": \"%s\",\n",
		      hp_render_value_is_bytes(r->vi) ? "bytes" : "objects");
	hp_buf_str(b, "  \"dumps\": ");
	jstr_list(b, r->dumps, r->ndumps);
	hp_buf_str(b, ",\n  \"base\": ");
	jstr_list(b, r->bases, r->nbases);
	hp_buf_str(b, ",\n  \"focus\": ");
	if (r->focus)
		jstr(b, r->focus);
	else
		hp_buf_str(b, "null");
	hp_buf_str(b, ",\n  \"ignore\": ");
	if (r->ignore)
		jstr(b, r->ignore);
	else
		hp_buf_str(b, "null");
	hp_buf_printf(b, ",\n  \"has_alloc\": %s,\n", p->has_accum ? "true" : "false");
	hp_buf_printf(b, "  \"total\": %" PRId64 ",\n  \"negative_stacks\": %zu,\n", total, neg);
	ages(r, b);
	if (r->peak)
		hp_buf_str(b, "  \"at_peak\": true,\n");
	if (r->vi == HP_V_TEMPORARY)
		hp_buf_printf(b, "  \"process_temporary\": %" PRId64 ",\n  \"process_allocations\": %"
				 PRId64 ",\n", r->temporary, r->allocations);
	functions(p, r, b);
	stacks(p, r, b);
	hp_buf_str(b, "}\n");
}
