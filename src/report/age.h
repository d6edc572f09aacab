/*
 * age.h -- `heapprof report --age`: each stack's live memory by age,
 * from the dumps' "# age" lines (prof_age; input.h).
 *
 * The warm-up W splits a stack's live bytes three ways, by the dump's
 * uptime U (seconds since heapprof started in the process):
 *   startup     allocated during the warm-up: older than U - W
 *   long-lived  allocated after it, and older than W: still live after
 *               as long as the warm-up took (a request path's memory
 *               that is never freed: the classic leak)
 *   young       younger than W (a cache's turnover, requests in flight)
 * Ages are known by log2-second buckets; a bucket that straddles a
 * boundary is split in proportion to the part of its range on each side
 * (bounded by the uptime).  The split is made per dump (hp_age_split),
 * so that dumps of several processes (--merge) each use their own
 * uptime.
 */
#ifndef HP_REPORT_AGE_H
#define HP_REPORT_AGE_H

#include "buf.h"
#include "input.h"
#include "profile.h"
#include "render.h"

/* The warm-up when none is given: a tenth of the uptime, at most 60 s. */
double hp_age_default_warmup(double uptime);

/* Fills each stack's HP_V_AGE_STARTUP, _LONG and _YOUNG from its age
 * buckets, for a warm-up of warmup seconds (< 0: the default). */
void hp_age_split(struct hp_input *in, double warmup);

/* The text (json 0) or JSON (json 1) view.  r gives the uptime and
 * warm-up (r->age_uptime, r->age_warmup) and --top. */
void hp_age_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b,
		   int json);

#endif
