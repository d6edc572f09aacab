/*
 * report.h -- `heapprof report`, a report on dumps summed; and what trend
 * (trend.h) shares with it: the profile shape and the check for
 * cumulative counts.
 */
#ifndef HP_REPORT_REPORT_H
#define HP_REPORT_REPORT_H

#include <stddef.h>

#include "ropts.h"

/*
 * `heapprof report`: reads the dumps (and o->base), builds the profile and
 * writes the chosen output to o->output or stdout.  Returns 0; dies with
 * status 1 on unreadable input or output.
 */
int hp_report_run(const struct hp_ropts *o, char *const *dumps, size_t n);

/* The profile shape (names, filters, debug directories) the options ask
 * for. */
struct hp_shape;
void hp_report_shape(const struct hp_ropts *o, struct hp_shape *shape);

/* Dies unless in has cumulative counts when the options want them. */
struct hp_input;
void hp_report_need_accum(const struct hp_ropts *o, const struct hp_input *in);

#endif
