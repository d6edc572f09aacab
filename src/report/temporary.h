/*
 * temporary.h -- `heapprof report --temporary`: the stacks that made
 * temporary allocations (freed by the allocating thread before its next
 * allocation or free, as heaptrack counts them), most first, with their
 * allocations and the temporary share.  The text view; the other
 * outputs but --pprof render the same profile with the value
 * "temporary" (render.h).
 */
#ifndef HP_REPORT_TEMPORARY_H
#define HP_REPORT_TEMPORARY_H

#include "buf.h"
#include "profile.h"
#include "render.h"

/* The profile's stacks hold HP_V_TEMPORARY and HP_V_ALLOCATIONS; r gives
 * the dumps' own totals (r->temporary, r->allocations) and --top. */
void hp_temporary_render(const struct hp_profile *p, const struct hp_render *r,
			 struct hp_buf *b);

#endif
