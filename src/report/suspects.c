/*
 * suspects.c -- the test behind `heapprof trend --suspects` (see
 * suspects.h): does a stack's live memory grow beyond the noise, and does
 * it still grow at the end of the series?
 *
 * Owns the statistics.  A stack's value moves between dumps by the blocks
 * allocated and freed in between.  The test works on those steps, d =
 * y[t] - y[t-1], not on the levels: a sampled block stays in every dump
 * until it is freed, so the levels' errors are correlated from dump to
 * dump (a regression on levels finds trends in a random walk).  The growth
 * rate over a run of steps is b = sum(d) / sum(dx), and its variance is
 * the larger of two: the steps' scatter about b dx (taken proportional to
 * dx; Student's t with steps - 1 degrees of freedom), which is all the
 * noise of an exact dump, and what sampling alone can do to sum(d)
 * (sampling_var; the normal distribution).  Without that bound three
 * single samples in three steps would look certain, and a cache's
 * sampled estimate, drifting up as its blocks turn over, would look like
 * a leak.
 *
 * A suspect must pass the test over the whole series and again over its
 * later half, so that a cache that filled and then levelled off is not
 * one.  The sampling bound is sharp when the dumps carry cumulative
 * counts (prof_accum:true), which show departures apart from arrivals: a
 * sampled leak is then a suspect after about ten new samples in the
 * later half.  Without them the bound must allow for unseen turnover and
 * a leak needs several times the evidence.
 */
#include <math.h>

#include "suspects.h"

/* ---- Student's t ----------------------------------------------------- */

/* The continued fraction of the regularised incomplete beta function
 * (modified Lentz), valid for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);

	if (fabs(d) < tiny)
		d = tiny;
	d = 1 / d;
	double h = d;
	for (int m = 1; m <= 300; m++) {
		double m2 = 2.0 * m;
		double num = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		h *= d * c;
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
		d = 1 + num * d;
		c = 1 + num / c;
		d = 1 / (fabs(d) < tiny ? tiny : d);
		c = fabs(c) < tiny ? tiny : c;
		double step = d * c;
		h *= step;
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b), the regularised incomplete beta function. */
static double inc_beta(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

double hp_suspects_student_cdf(double t, double dof)
{
	if (isinf(t))
		return t > 0 ? 1 : 0;
	if (dof >= 1e6)
		return 0.5 * erfc(-t / sqrt(2));
	double tail = 0.5 * inc_beta(dof / 2, 0.5, dof / (dof + t * t));
	return t > 0 ? 1 - tail : tail;
}

/* ---- the test ------------------------------------------------------ */

/* The value one sampled block stands for, on average, at the coarsest
 * rate of the series; 0 when every dump is exact. */
static double sample_weight(const struct hp_suspect_input *in)
{
	double bytes = 0, objects = 0, rate = 0;

	for (size_t i = 0; i < in->n; i++) {
		bytes += (double)in->bytes[i];
		objects += (double)in->objects[i];
		if (in->rate[i] > rate)
			rate = in->rate[i];
	}
	if (rate <= 1 || objects <= 0)
		return 0;
	double size = bytes / objects;
	double p = -expm1(-(size + 1) / rate);   /* a block's chance to be sampled */
	if (p <= 0)
		return 0;
	return in->v_is_bytes ? size / p : 1 / p;
}

/* The variance sampling alone gives the change of the value over steps
 * [from, to).  With cumulative counts (prof_accum) the change is arrivals
 * less departures, each a sum of sampled blocks of weight W: its variance
 * is at most W (arrivals + departures) whatever blocks the two ends share.
 * Without them departures are unseen, and the bound is the levels': the
 * estimates at both ends, each varying by value x W, taken at the larger
 * value (an estimate that came out low understates its own noise).  A
 * stack that turns its blocks over (a cache) has an estimate that drifts
 * for as long as its turnover takes; steps alone would read that as
 * growth. */
static double sampling_var(const struct hp_suspect_input *in, size_t from, size_t to,
			   double weight)
{
	double change = (double)(in->v[to - 1] - in->v[from - 1]);

	if (weight <= 0)
		return 0;
	if (in->alloc) {
		double arrivals = fmax((double)(in->alloc[to - 1] - in->alloc[from - 1]), 0);
		double departures = fmax(arrivals - change, 0);
		return weight * (arrivals + departures);
	}
	double top = fmax((double)in->v[to - 1], (double)in->v[from - 1]);
	return fmax(weight * change, 2 * weight * fmax(top, 0));
}

/* The confidence that the value grows over steps [from, to) (step i is
 * point i-1 to point i); sets *rate to the growth per unit of x. */
static double grows(const struct hp_suspect_input *in, size_t from, size_t to, double weight,
		    double *rate)
{
	double sum_d = 0, sum_dx = 0;
	size_t k = 0;

	for (size_t i = from; i < to; i++) {
		double dx = in->x[i] - in->x[i - 1];
		if (dx <= 0)
			dx = 1e-9;   /* two dumps in one second: one step of no length */
		sum_d += (double)(in->v[i] - in->v[i - 1]);
		sum_dx += dx;
		k++;
	}
	double b = sum_dx > 0 ? sum_d / sum_dx : 0;
	*rate = b;
	if (k == 0 || b <= 0)
		return 0;   /* no growth is no evidence of growth */
	/* The steps' own scatter about the line: all the noise there is in
	 * exact mode (a cache's entries differ in size), some in sampled. */
	double ss = 0;
	for (size_t i = from; i < to; i++) {
		double dx = in->x[i] - in->x[i - 1];
		if (dx <= 0)
			dx = 1e-9;
		double r = (double)(in->v[i] - in->v[i - 1]) - b * dx;
		ss += r * r / dx;
	}
	double var_b = k > 1 ? ss / (double)(k - 1) / sum_dx : 0, dof = k > 1 ? (double)(k - 1) : 1;
	double var_samp = sampling_var(in, from, to, weight) / (sum_dx * sum_dx);
	if (var_samp >= var_b) {
		var_b = var_samp;
		dof = 1e6;
	}
	if (var_b <= 0)
		return 1;   /* exact and perfectly steady */
	return hp_suspects_student_cdf(b / sqrt(var_b), dof);
}

void hp_suspects_judge(const struct hp_suspect_input *in, double level,
		       struct hp_suspect_result *out)
{
	double weight = sample_weight(in), all_rate;

	*out = (struct hp_suspect_result){ .verdict = HP_SUSPECT_NOT_GROWING };
	if (in->n < 2)
		return;
	out->conf_all = grows(in, 1, in->n, weight, &all_rate);
	/* The later half: the last floor((n - 1) / 2) steps. */
	size_t tail_from = in->n - (in->n - 1) / 2;
	out->conf_tail = grows(in, tail_from, in->n, weight, &out->slope_tail);
	out->confidence = fmin(out->conf_all, out->conf_tail);
	out->slope_all = all_rate;
	if (all_rate <= 0)
		out->verdict = HP_SUSPECT_NOT_GROWING;
	else if (out->conf_all >= level && out->conf_tail >= level)
		out->verdict = HP_SUSPECT;
	else if (out->slope_tail < all_rate / 2)
		/* The later half grows at under half the whole series' rate:
		 * levelled off, whatever the evidence says of the start. */
		out->verdict = HP_SUSPECT_LEVELLED;
	else
		out->verdict = HP_SUSPECT_WEAK;
}
