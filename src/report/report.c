/*
 * report.c -- `heapprof report` from options to output (see report.h):
 * read every dump, sum them, subtract the base, shape, render, write.
 *
 * Owns the order of the work, so that nothing is written until every
 * input has been read: a bad dump never leaves a half-written output.
 */
#include <string.h>

#include "buf.h"
#include "input.h"
#include "profile.h"
#include "render.h"
#include "report.h"
#include "temporary.h"
#include "age.h"
#include "util.h"

void hp_report_shape(const struct hp_ropts *o, struct hp_shape *shape)
{
	memset(shape, 0, sizeof(*shape));
	shape->lines = o->lines;
	shape->full_names = o->full_names;
	shape->focus = o->has_focus ? (regex_t *)&o->focus : NULL;
	shape->ignore = o->has_ignore ? (regex_t *)&o->ignore : NULL;
	shape->debug_dirs = o->debug_dirs;
	shape->ndebug_dirs = o->ndebug_dirs;
	shape->binaries = o->binaries;
	shape->nbinaries = o->nbinaries;
}

void hp_report_need_accum(const struct hp_ropts *o, const struct hp_input *in)
{
	if ((o->value == HP_V_ALLOC_SPACE || o->value == HP_V_ALLOC_OBJECTS) && !in->has_accum)
		hp_util_die("'%s' has no cumulative counts for --%s (profile with "
			    "prof_accum:true)", in->path,
			    o->value == HP_V_ALLOC_SPACE ? "alloc-space" : "alloc-objects");
}

/* --peak and --temporary are exact-mode figures.  At a sampled rate the
 * peak is the largest value an estimate took, which overshoots the true
 * peak by the estimate's upward swings (with churn at the peak, by
 * several standard deviations), and a sampled block's temporary test sees
 * the thread's allocations but not its frees, so it counts what exact
 * mode does not: neither is an unbiased estimate. */
static void need_exact(const struct hp_input *in, const char *opt)
{
	int lg = 0;

	if (in->scaling == HP_SCALE_NONE)
		return;
	while (lg < 62 && (double)((uint64_t)1 << lg) < in->rate)
		lg++;
	if ((double)((uint64_t)1 << lg) == in->rate)
		hp_util_die("%s is exact-mode only: '%s' was sampled at lg_prof_sample:%d "
			    "(profile with lg_prof_sample:0)", opt, in->path, lg);
	hp_util_die("%s is exact-mode only: '%s' was sampled at one sample per %.0f bytes "
		    "(profile with lg_prof_sample:0)", opt, in->path, in->rate);
}

/* --peak: the stacks' in-use values become their values at the peak. */
static void at_peak(struct hp_input *in)
{
	if (!in->has_peak)
		hp_util_die("'%s' has no peak figures (a dump of jemalloc, gperftools or an "
			    "older heapprof)", in->path);
	need_exact(in, "--peak");
	if (!in->has_stack_extra && in->peak_bytes > 0)
		hp_util_die("'%s' has the process's peak but not its stacks' (written with "
			    "dump_peak:false)", in->path);
	if (in->peak_moving)
		hp_util_warn("note: '%s' was written while the heap reached new peaks: stacks that "
			     "changed meanwhile show their values as read, not at the peak", in->path);
	for (size_t s = 0; s < in->nstacks; s++) {
		int64_t *v = in->stacks[s].v;
		v[HP_V_INUSE_OBJECTS] = v[HP_V_PEAK_OBJECTS];
		v[HP_V_INUSE_SPACE] = v[HP_V_PEAK_SPACE];
	}
}

static void add_file(struct hp_profile *p, const struct hp_ropts *o, struct hp_render *r,
		     const char *path, int sign, uint32_t slot)
{
	struct hp_input in = { 0 };

	hp_input_read(&in, path, &p->strs);
	hp_report_need_accum(o, &in);
	if (o->peak)
		at_peak(&in);
	if (o->temporary) {
		if (!in.has_temporary)
			hp_util_die("'%s' has no counts of temporary allocations (a dump of "
				    "jemalloc, gperftools or an older heapprof)", path);
		need_exact(&in, "--temporary");
		if (!in.has_stack_extra && in.temporary > 0)
			hp_util_die("'%s' has the process's temporary allocations but not its "
				    "stacks' (written with dump_peak:false)", path);
		r->temporary = hp_util_sat_add(r->temporary, in.temporary);
		r->allocations = hp_util_sat_add(r->allocations, in.allocations);
	}
	if (slot == 0 && in.has_ages) {
		if (!r->aged_dumps++)
			r->aged_warmup = hp_age_default_warmup(in.uptime);
		if (in.uptime > r->aged_uptime)
			r->aged_uptime = in.uptime;
	}
	if (o->age) {
		if (!in.has_ages)
			hp_util_die("'%s' has no ages (dumps date blocks at a sampled rate, or with "
				    "prof_age:true in exact mode; not a dump of jemalloc, gperftools or an "
				    "older heapprof)", path);
		hp_age_split(&in, o->warmup);
		if (!r->age++)
			r->age_warmup = o->warmup < 0 ? hp_age_default_warmup(in.uptime) : o->warmup;
		if (in.uptime > r->age_uptime)
			r->age_uptime = in.uptime;
	}
	if (in.attached[0] && !r->attached[0])
		memcpy(r->attached, in.attached, sizeof(r->attached));
	hp_profile_add(p, &in, sign, slot);
	hp_input_release(&in);
}

int hp_report_run(const struct hp_ropts *o, char *const *dumps, size_t n)
{
	struct hp_shape shape;
	struct hp_profile p;
	struct hp_buf out = { 0 };
	struct hp_render r = {
		.vi = o->value,
		.show_bytes = o->show_bytes,
		.top = o->top,
		.dumps = (const char *const *)dumps,
		.ndumps = n,
		.bases = o->base,
		.nbases = o->nbase,
		.icicle = o->icicle,
		.node_fraction = o->node_fraction,
		.edge_fraction = o->edge_fraction,
		.node_count = o->node_count,
		.list = o->list_text ? &o->list : NULL,
		.list_text = o->list_text,
		.peak = o->peak,
		.time_ns = o->time_ns,
		.duration_ns = o->duration_ns,
	};

	hp_report_shape(o, &shape);
	/* A flame graph diff keeps both sides apart (flame.h): the dumps in
	 * slot 0, the bases in slot 1, each added as they are. */
	r.diff = o->nbase && (o->format == HP_ROPTS_FMT_SVG || o->format == HP_ROPTS_FMT_HTML);
	shape.series = r.diff;
	hp_profile_init(&p, &shape);
	if (o->temporary)
		r.vi = HP_V_TEMPORARY;
	for (size_t i = 0; i < n; i++)
		add_file(&p, o, &r, dumps[i], 1, 0);
	for (size_t i = 0; i < o->nbase; i++)
		add_file(&p, o, &r, o->base[i], r.diff ? 1 : -1, 1);
	hp_profile_finish(&p);

	r.focus = o->focus_text;
	r.ignore = o->ignore_text;
	switch (o->format) {
	case HP_ROPTS_FMT_TEXT:
		if (o->age)
			hp_age_render(&p, &r, &out, 0);
		else if (o->temporary)
			hp_temporary_render(&p, &r, &out);
		else
			hp_text_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_TREE:
		hp_text_render_tree(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_COLLAPSED:
		hp_collapsed_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_SVG:
		hp_svg_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_PPROF:
		hp_pprof_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_JSON:
		if (o->age)
			hp_age_render(&p, &r, &out, 1);
		else
			hp_json_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_HTML:
		hp_html_render(&p, &r, &out);
		break;
	case HP_ROPTS_FMT_GRAPH:
		hp_graph_render(&p, &r, &out);
		if (o->graph_svg)
			hp_graph_to_svg(&out);
		break;
	case HP_ROPTS_FMT_LIST:
		hp_list_render(&p, &r, &out);
		break;
	}
	hp_util_write_output(o->output, out.p, out.len);
	hp_buf_release(&out);
	hp_profile_release(&p);
	return 0;
}
