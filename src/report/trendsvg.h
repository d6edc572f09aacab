/*
 * trendsvg.h -- `heapprof trend --svg`: the series (series.h) as a line
 * chart.  Drawn by trendsvg.c, which trend.c calls.
 */
#ifndef HP_REPORT_TRENDSVG_H
#define HP_REPORT_TRENDSVG_H

#include <stddef.h>

#include "buf.h"
#include "series.h"

/* The chart: total and the first top keys over time, one SVG file,
 * appended to b. */
void hp_trendsvg_render(const struct hp_series *s, size_t top, struct hp_buf *b);

#endif
