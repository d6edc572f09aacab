/*
 * trend.h -- `heapprof trend`: a series of dumps of one program as time
 * series, the total and one series per stack (or function), ranked by
 * growth.  Built by trend.c, drawn as a chart by trendsvg.c.
 */
#ifndef HP_REPORT_TREND_H
#define HP_REPORT_TREND_H

#include <stdint.h>
#include <time.h>

#include "buf.h"

struct hp_trend_key {
	char *label;		/* "leaf <- caller <- ..." or the function */
	int64_t *v;		/* one value per point */
	double slope;		/* least squares, per unit of x */
	double mono;		/* (rises - falls) / steps, in [-1, 1] */
};

struct hp_series {
	size_t n;		/* points (dumps), in order */
	const char **paths;
	double *x;		/* seconds since the first dump, or 0, 1, 2.. */
	int timed;		/* x are seconds (every name had a time) */
	time_t t0;		/* the first dump's time when timed */
	int64_t *total;		/* per point */
	double total_slope;
	struct hp_trend_key *keys;	/* ranked: steepest growth first */
	size_t nkeys;
	int vi;			/* enum hp_value */
	int show_bytes;
	int functions;		/* keys are functions, not stacks */
};

/*
 * `heapprof trend`: reads a series of dumps of one program (n >= 2),
 * orders them by the time (or sequence number) in their names, and ranks
 * stacks or functions by the growth of their value.  Returns 0; dies with
 * status 1 on unreadable input or output.
 */
struct hp_ropts;
int hp_trend_run(const struct hp_ropts *o, char *const *dumps, size_t n);

/* A slope for people: "+1.0MiB/min", per second, minute or hour as the
 * series' span suits, or "/dump" when untimed. */
void hp_trend_fmt_slope(const struct hp_series *s, double slope, char *buf, size_t n);

/* The chart: total and the first top keys over time, one SVG file. */
void hp_trendsvg_render(const struct hp_series *s, size_t top, struct hp_buf *b);

#endif
