/*
 * trendsvg.c -- `heapprof trend --svg`: the series as a line chart in one
 * self-contained SVG file (see trendsvg.h).
 *
 * The total and the steepest-growing stacks over time (times from the
 * dump names, or dump numbers), a legend with each line's slope, and a
 * <title> tooltip on every point.  No scripts, no external resources.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "render.h"
#include "series.h"
#include "trendsvg.h"
#include "util.h"

#define W 1000.0
#define LEFT 80.0
#define RIGHT 30.0
#define TOP 64.0
#define PLOT_H 320.0
#define AXIS_H 44.0
#define LEGEND_H 18.0
#define X_LABEL_GAP 40.0	/* at least this between two time labels, and room */

/* Tableau's ten colors: distinct on screen and in print. */
static const char *const palette[] = {
	"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f",
	"#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac",
};

struct chart {
	const struct hp_series *s;
	struct hp_buf *b;
	size_t lines;		/* stacks drawn */
	double ymax, step, height;	/* ymax: a whole number of steps */
};

static double px(const struct chart *c, size_t t)
{
	const struct hp_series *s = c->s;
	double span = s->x[s->n - 1] - s->x[0];

	return LEFT + (span > 0 ? (s->x[t] - s->x[0]) / span : 0) * (W - LEFT - RIGHT);
}

static double py(const struct chart *c, int64_t v)
{
	double y = c->ymax > 0 ? (double)v / c->ymax : 0;

	if (y < 0)
		y = 0;
	return TOP + PLOT_H - y * PLOT_H;
}

/* A round step for about five gridlines: 1, 2 or 5 times a power of 10,
 * in the unit the labels use (KiB, MiB, ... for sizes). */
static double nice_step(double max, int sizes)
{
	double unit = 1;

	while (sizes && max / unit >= 1024)
		unit *= 1024;
	double raw = max / unit / 5, p = pow(10, floor(log10(raw)));
	double m = raw / p <= 1 ? 1 : raw / p <= 2 ? 2 : raw / p <= 5 ? 5 : 10;
	return m * p * unit;
}

static void when(const struct hp_series *s, size_t t, char *buf, size_t n)
{
	if (!s->timed) {
		snprintf(buf, n, "#%zu", t + 1);
		return;
	}
	time_t at = s->t0 + (time_t)s->x[t];
	struct tm tm;
	gmtime_r(&at, &tm);
	strftime(buf, n, s->x[s->n - 1] >= 86400 ? "%m-%d %H:%M" : "%H:%M:%S", &tm);
}

/* A label's width in the chart's 12px font, generously: Verdana's
 * digits are 0.64 em, and no glyph of a time or "#n" is wider. */
static double label_width(const char *label)
{
	return (double)strlen(label) * 12 * 0.66;
}

static void axes(struct chart *c)
{
	const struct hp_series *s = c->s;
	double step = c->step;
	char label[32];

	for (double y = 0; y <= c->ymax + step / 2; y += step) {
		double at = py(c, (int64_t)y);
		hp_render_value(label, sizeof(label), (int64_t)y, s->vi, s->show_bytes);
		hp_buf_printf(c->b, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
				    "class=\"grid\"/><text x=\"%.1f\" y=\"%.1f\" class=\"yl\">%s"
				    "</text>\n", LEFT, at, W - RIGHT, at, LEFT - 6, at + 4, label);
	}
	/* Labels along x on dumps, the first and then each one that keeps
	 * clear of the last: dumps bunched in time (high-water dumps, or a
	 * second's several) would write their labels over each other. */
	double last_x = 0, last_half = 0;
	for (size_t t = 0; t < s->n; t++) {
		when(s, t, label, sizeof(label));
		double x = px(c, t), half = label_width(label) / 2;
		if (t && x - last_x < last_half + half + X_LABEL_GAP)
			continue;
		if (x + half > W - 2)   /* the last, moved in to be read whole */
			x = W - 2 - half;
		hp_buf_printf(c->b, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n", x,
			      TOP + PLOT_H + 18, label);
		last_x = x;
		last_half = half;
	}
	hp_buf_printf(c->b, "<text x=\"%.1f\" y=\"%.1f\" class=\"xl\">%s</text>\n",
		      LEFT + (W - LEFT - RIGHT) / 2, TOP + PLOT_H + 36,
		      s->timed ? "time (UTC, from the dump names)" : "dump");
}

static void series(struct chart *c, const int64_t *v, const char *label, const char *color,
		   double width)
{
	const struct hp_series *s = c->s;
	char val[32], at[32];

	hp_buf_printf(c->b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"%.1f\" "
			    "points=\"", color, width);
	for (size_t t = 0; t < s->n; t++)
		hp_buf_printf(c->b, "%s%.1f,%.1f", t ? " " : "", px(c, t), py(c, v[t]));
	hp_buf_str(c->b, "\"/>\n");
	for (size_t t = 0; t < s->n; t++) {
		hp_render_value(val, sizeof(val), v[t], s->vi, s->show_bytes);
		when(s, t, at, sizeof(at));
		hp_buf_printf(c->b, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
			      px(c, t), py(c, v[t]), color);
		hp_buf_xml_str(c->b, label);
		hp_buf_printf(c->b, ": %s at %s (", val, at);
		hp_buf_xml_str(c->b, s->paths[t]);
		hp_buf_str(c->b, ")</title></circle>\n");
	}
}

static void legend_row(struct chart *c, size_t row, const char *color, const char *label,
		       double slope)
{
	double y = TOP + PLOT_H + AXIS_H + LEGEND_H * (double)row + 12;
	char sl[48];

	hp_series_fmt_slope(c->s, slope, sl, sizeof(sl));
	hp_buf_printf(c->b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>"
			    "<text x=\"%.1f\" y=\"%.1f\">%s  ", LEFT, y - 10, color, LEFT + 18, y,
		      sl);
	hp_buf_xml_str(c->b, label);
	hp_buf_str(c->b, "</text>\n");
}

void hp_trendsvg_render(const struct hp_series *s, size_t top, struct hp_buf *b)
{
	struct chart c = { .s = s, .b = b };

	c.lines = s->nkeys < top ? s->nkeys : top;
	if (c.lines > HP_UTIL_ARRAY_LEN(palette))
		c.lines = HP_UTIL_ARRAY_LEN(palette);
	for (size_t t = 0; t < s->n; t++)
		if ((double)s->total[t] > c.ymax)
			c.ymax = (double)s->total[t];
	if (c.ymax <= 0)
		c.ymax = 1;
	c.step = nice_step(c.ymax, hp_render_value_is_bytes(s->vi) && !s->show_bytes);
	if (c.step < 1)
		c.step = 1;
	c.ymax = ceil(c.ymax / c.step) * c.step;
	c.height = TOP + PLOT_H + AXIS_H + LEGEND_H * (double)(c.lines + 1) + 16;
	hp_buf_printf(b,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		      "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		      "xmlns=\"http://www.w3.org/2000/svg\">\n"
		      "<style>text{font-family:Verdana,Helvetica,sans-serif;font-size:12px;"
		      "fill:#000}.title{font-size:17px;text-anchor:middle}"
		      ".yl{text-anchor:end;fill:#555}.xl{text-anchor:middle;fill:#555}"
		      ".grid{stroke:#ddd;stroke-width:1}circle:hover{stroke:#000}</style>\n"
		      "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#fff\"/>\n"
		      "<text class=\"title\" x=\"%.0f\" y=\"28\">heapprof trend: %s over %zu dumps"
		      "</text>\n"
		      "<text class=\"xl\" x=\"%.0f\" y=\"48\">",
		      W, c.height, W, c.height, W / 2, hp_render_value_name(s->vi), s->n, W / 2);
	/* Only stacks whose slope is positive are "growing". */
	size_t growing = 0;
	for (size_t i = 0; i < c.lines; i++)
		growing += s->keys[i].slope > 0;
	const char *what = s->functions ? "functions" : "stacks";
	if (growing == c.lines)
		hp_buf_printf(b, "the total and the %zu %s growing fastest", c.lines, what);
	else
		hp_buf_printf(b, "the total and the %zu %s with the steepest slopes (%zu growing)", c.lines,
			      what, growing);
	hp_buf_printf(b, "; hover a point for its value</text>\n");
	axes(&c);
	/* Steepest last, so that it is drawn on top. */
	for (size_t i = c.lines; i-- > 0;)
		series(&c, s->keys[i].v, s->keys[i].label, palette[i], 2);
	series(&c, s->total, "total", "#000", 3);
	legend_row(&c, 0, "#000", "total", s->total_slope);
	for (size_t i = 0; i < c.lines; i++)
		legend_row(&c, i + 1, palette[i], s->keys[i].label, s->keys[i].slope);
	hp_buf_str(b, "</svg>\n");
}
