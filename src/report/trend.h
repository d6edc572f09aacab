/*
 * trend.h -- `heapprof trend`: a series of dumps of one program as time
 * series, the total and one series per stack (or function), ranked by
 * growth.  The series is series.c's; trend.c writes it as text or JSON,
 * trendsvg.c as a chart.
 */
#ifndef HP_REPORT_TREND_H
#define HP_REPORT_TREND_H

#include <stddef.h>

/*
 * `heapprof trend`: reads a series of dumps of one program (n >= 2),
 * orders them by the time (or sequence number) in their names, and ranks
 * stacks or functions by the growth of their value.  Returns 0; dies with
 * status 1 on unreadable input or output.
 */
struct hp_ropts;
int hp_trend_run(const struct hp_ropts *o, char *const *dumps, size_t n);

#endif
