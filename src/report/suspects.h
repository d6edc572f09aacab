/*
 * suspects.h -- `heapprof trend --suspects`: which growing stacks of a
 * series are leak suspects, and with what confidence, allowing for the
 * noise of sampling.  The test is suspects.c's; series.c builds the
 * series it judges and trend.c prints the verdicts.
 */
#ifndef HP_REPORT_SUSPECTS_H
#define HP_REPORT_SUSPECTS_H

#include <stddef.h>
#include <stdint.h>

/* Why a growing stack is, or is not, a suspect. */
enum hp_suspect_verdict {
	HP_SUSPECT_NOT_GROWING,	/* no positive slope over the series */
	HP_SUSPECT,		/* grew over the series and still grows */
	HP_SUSPECT_WEAK,	/* grows, but not beyond the noise (too few samples) */
	HP_SUSPECT_LEVELLED,	/* grew, then stopped: a cache that filled */
};

/* The fewest dumps the test needs: three in each half. */
#define HP_SUSPECTS_MIN_DUMPS 6

/* One stack's series as the test reads it. */
struct hp_suspect_input {
	size_t n;		/* points */
	const double *x;	/* seconds (or dump numbers) */
	const int64_t *v;	/* the value judged: live bytes or live objects */
	const int64_t *bytes;	/* live bytes, estimated */
	const int64_t *objects;	/* live objects, estimated */
	const int64_t *alloc;	/* allocated since start, as v (prof_accum), or NULL */
	const double *rate;	/* each dump's mean sampling period in bytes; <= 1: exact */
	int v_is_bytes;
};

struct hp_suspect_result {
	enum hp_suspect_verdict verdict;
	double confidence;	/* that it grows to the end: min of the two halves' tests */
	double conf_all;	/* that it grew over the whole series */
	double conf_tail;	/* that it still grows over the later half */
	double slope_all;	/* growth per unit of x over the whole series */
	double slope_tail;	/* the same over the later half */
};

/*
 * Judges one stack at the given confidence level (e.g. 0.99).  The slope
 * of the whole series and of its later half are each tested against the
 * noise a dump's sampled estimate carries (and the scatter about the
 * line): a stack is a suspect when both are positive beyond the level.
 */
void hp_suspects_judge(const struct hp_suspect_input *in, double level,
		       struct hp_suspect_result *out);

/* P(T <= t) for Student's t with dof degrees of freedom (dof >= 1). */
double hp_suspects_student_cdf(double t, double dof);

#endif
