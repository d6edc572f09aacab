/*
 * render.c -- what the outputs share: value names, units, percentages,
 * totals and the headline (see render.h; XML escaping is buf.h's).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "render.h"
#include "util.h"

const char *hp_render_value_name(int vi)
{
	static const char *const names[HP_NVALUES] = {
		[HP_V_INUSE_OBJECTS] = "inuse_objects",
		[HP_V_INUSE_SPACE] = "inuse_space",
		[HP_V_ALLOC_OBJECTS] = "alloc_objects",
		[HP_V_ALLOC_SPACE] = "alloc_space",
		[HP_V_PEAK_OBJECTS] = "peak_objects",
		[HP_V_PEAK_SPACE] = "peak_space",
		[HP_V_TEMPORARY] = "temporary",
		[HP_V_ALLOCATIONS] = "allocations",
	};
	return names[vi];
}

int hp_render_value_is_bytes(int vi)
{
	return vi == HP_V_INUSE_SPACE || vi == HP_V_ALLOC_SPACE || vi == HP_V_PEAK_SPACE;
}

/* A size for people: "100B", "512.0KiB", "3.1MiB" (powers of 1024: IEC units),
 * negative with a leading '-'. */
static void human_size(char *buf, size_t n, int64_t v)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	/* |INT64_MIN| does not fit: work on the magnitude as a double. */
	double x = v < 0 ? -(double)v : (double)v;
	const char *sign = v < 0 ? "-" : "";

	if (x < 1024) {
		snprintf(buf, n, "%s%.0fB", sign, x);
		return;
	}
	size_t u = 0;
	x /= 1024;
	while (x >= 1023.95 && u + 1 < HP_UTIL_ARRAY_LEN(units)) {
		x /= 1024;
		u++;
	}
	snprintf(buf, n, "%s%.1f%s", sign, x, units[u]);
}

void hp_render_value(char *buf, size_t n, int64_t v, int vi, int show_bytes)
{
	if (hp_render_value_is_bytes(vi) && !show_bytes)
		human_size(buf, n, v);
	else
		snprintf(buf, n, "%" PRId64, v);
}

void hp_render_pct(char *buf, size_t n, int64_t part, int64_t whole)
{
	if (whole == 0)
		snprintf(buf, n, "-");
	else
		snprintf(buf, n, "%.1f%%", 100.0 * (double)part / (double)whole);
}

int64_t hp_render_total(const struct hp_profile *p, int vi, int64_t *abs_total,
			size_t *negative)
{
	int64_t total = 0, abs = 0;
	size_t neg = 0;

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		if (st->dropped)
			continue;
		int64_t v = st->v[vi];
		total = hp_util_sat_add(total, v);
		abs = hp_util_sat_add(abs, v < 0 ? (v == INT64_MIN ? INT64_MAX : -v) : v);
		neg += v < 0;
	}
	if (abs_total)
		*abs_total = abs;
	if (negative)
		*negative = neg;
	return total;
}

void hp_render_headline(const struct hp_profile *p, const struct hp_render *r,
			struct hp_buf *b)
{
	char v[32];
	size_t neg;
	int64_t total = hp_render_total(p, r->vi, NULL, &neg);

	hp_render_value(v, sizeof(v), total, r->vi, r->show_bytes);
	hp_buf_printf(b, "Total: %s%s%s (%s%s, %zu dump%s", r->nbases && total > 0 ? "+" : "", v,
		      hp_render_value_is_bytes(r->vi) && r->show_bytes ? " B" : "",
		      hp_render_value_name(r->vi), r->peak ? " at the peak" : "", r->ndumps,
		      r->ndumps == 1 ? "" : "s");
	if (r->nbases)
		hp_buf_printf(b, " minus %zu base dump%s", r->nbases, r->nbases == 1 ? "" : "s");
	if (r->focus)
		hp_buf_printf(b, ", focus '%s'", r->focus);
	if (r->ignore)
		hp_buf_printf(b, ", ignore '%s'", r->ignore);
	hp_buf_str(b, ")\n");
	if (r->attached[0])
		hp_buf_printf(b, "Since heapprof attach at %s: blocks allocated before it are not counted\n",
			      r->attached);
	if (neg)
		hp_buf_printf(b, "Note: %zu stack%s shrank since the base: values with '-' are "
				 "decreases; percentages are of the sum of absolute values\n",
			      neg, neg == 1 ? "" : "s");
}
