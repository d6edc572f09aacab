/*
 * series.h -- the model `heapprof trend` draws: a series of dumps of one
 * program, in order, as time series, the total and one series per stack
 * (or function), ranked by growth.  Built by series.c; drawn as text and
 * JSON by trend.c and as a chart by trendsvg.c, which share nothing else.
 */
#ifndef HP_REPORT_SERIES_H
#define HP_REPORT_SERIES_H

#include <stdint.h>
#include <time.h>

struct hp_series_key {
	char *label;		/* "leaf <- caller <- ..." or the function */
	int64_t *v;		/* one value per point */
	double slope;		/* least squares, per unit of x */
	double mono;		/* (rises - falls) / steps, in [-1, 1] */
	int64_t *bytes;		/* live bytes and objects per point (--suspects) */
	int64_t *objects;
	int64_t *alloc;		/* allocated since start, as v (--suspects) */
	int verdict;		/* enum hp_suspect_verdict (--suspects) */
	double confidence;	/* that it grows to the end (--suspects) */
	double slope_tail;	/* over the later half (--suspects) */
};

struct hp_series {
	size_t n;		/* points (dumps), in order */
	const char **paths;
	double *x;		/* seconds since the first dump, or 0, 1, 2.. */
	int timed;		/* x are seconds (every name had a time) */
	time_t t0;		/* the first dump's time when timed */
	int64_t *total;		/* per point */
	double total_slope;
	struct hp_series_key *keys;	/* ranked: steepest growth first */
	size_t nkeys;
	int vi;			/* enum hp_value */
	int show_bytes;
	int functions;		/* keys are functions, not stacks */
	double *rate;		/* each dump's sampling period, bytes (<= 1: exact) */
	int suspects;		/* judged (trend --suspects) */
	int accum;		/* every dump had cumulative counts (prof_accum) */
	double level;		/* the confidence a suspect needs */
	size_t nsuspects;	/* keys[0 .. nsuspects) are the suspects */
	size_t ngrowing;	/* keys that grew over the series, suspects included */
};

/*
 * Reads the dumps (n >= 2), orders them by the time (or sequence number)
 * in their names, and ranks stacks, or functions with o->functions, by
 * the growth of value o->value.  Dies with status 1 on unreadable input.
 * hp_series_release frees what s holds.
 */
struct hp_ropts;
void hp_series_build(struct hp_series *s, const struct hp_ropts *o, char *const *dumps,
		     size_t n);
void hp_series_release(struct hp_series *s);

/* Least-squares slope of y over x (n points); 0 when x does not vary. */
double hp_series_slope(const double *x, const int64_t *y, size_t n);

/* A slope for people: "+1.0MiB/min", per second, minute or hour as the
 * series' span suits, or "/dump" when untimed. */
void hp_series_fmt_slope(const struct hp_series *s, double slope, char *buf, size_t n);

#endif
