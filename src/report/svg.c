/*
 * svg.c -- the --svg output: a flame graph in one self-contained SVG file
 * with no scripts, links, external fonts or styles, so that it shows the
 * same wherever an SVG image is shown (an <img>, a wiki, a code review, an
 * image viewer); --html (html.c) is the one to explore.  Drawn as
 * flamegraph.pl draws them: the root at the bottom (at the top with
 * --icicle), callees stacked on callers, widths proportional to the
 * value, children in name order, a <title> tooltip on every frame.
 *
 * A diff (--base) is drawn as flame.h says: widths by what changed,
 * red for growth and blue for shrinkage, deeper for larger changes, with
 * the colour scale in a legend.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "index.h"
#include "render.h"
#include "util.h"

#define WIDTH 1200.0
#define PAD 10.0
#define FRAME_H 16.0
#define TOP 56.0		/* title and subtitle */
#define LEGEND_H 26.0		/* a diff's colour scale, under the subtitle */
/* Narrower frames are not drawn: flamegraph.pl uses 0.1, but a 10,000
 * stack profile then makes an 18 MiB file of invisible slivers. */
#define MIN_WIDTH 0.5
#define CHAR_W 7.0		/* average glyph width at 12px */

struct draw {
	const struct hp_profile *p;
	const struct hp_render *r;
	struct hp_buf *b;
	struct hp_flame f;
	int64_t total;		/* the root's width */
	int64_t max_change;	/* diff: the colour scale's end */
	uint32_t maxdepth;	/* deepest row drawn */
	double top;		/* y of the first row of the graph area */
	double height;
};

/* flamegraph.pl's "hot" palette, from a hash of the name: stable colors. */
static void hot_color(const char *name, int rgb[3])
{
	uint64_t h = hp_index_hash_bytes(name, strlen(name), 7);

	rgb[0] = 205 + (int)(h % 51);
	rgb[1] = (int)((h >> 8) % 231);
	rgb[2] = (int)((h >> 16) % 56);
}

/* "3.1MiB, 50.3%", or for a diff "+1.0MiB: 2.0MiB -> 3.0MiB". */
static void tooltip(struct draw *d, const struct hp_flame_node *n, struct hp_buf *b)
{
	const struct hp_render *r = d->r;
	char v[32], w[32], pct[16];

	if (!d->f.diff) {
		hp_render_value(v, sizeof(v), n->v[0], r->vi, r->show_bytes);
		hp_render_pct(pct, sizeof(pct), n->v[0], d->total);
		hp_buf_printf(b, "%s, %s", v, pct);
		return;
	}
	hp_render_value(v, sizeof(v), n->v[0] - n->v[1], r->vi, r->show_bytes);
	hp_buf_printf(b, "%s%s: ", n->v[0] > n->v[1] ? "+" : "", v);
	hp_render_value(v, sizeof(v), n->v[1], r->vi, r->show_bytes);
	hp_render_value(w, sizeof(w), n->v[0], r->vi, r->show_bytes);
	hp_buf_printf(b, "%s -&gt; %s", v, w);
}

static void frame(struct draw *d, uint32_t id, double x, double w)
{
	const struct hp_flame_node *fn = &d->f.n[id];
	const char *name = hp_flame_name(&d->f, d->p, id);
	double y = d->r->icicle ? d->top + FRAME_H * fn->depth
				: d->height - PAD - FRAME_H * (fn->depth + 1);
	int rgb[3];

	if (d->f.diff)
		hp_flame_diff_color(fn->v[0] - fn->v[1], d->max_change, rgb);
	else
		hot_color(name, rgb);
	hp_buf_str(d->b, "<g><title>");
	hp_buf_xml_str(d->b, name);
	hp_buf_str(d->b, " (");
	tooltip(d, fn, d->b);
	hp_buf_printf(d->b, ")</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		      x, y, w, FRAME_H - 1, rgb[0], rgb[1], rgb[2]);
	size_t fit = w > 3 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
	if (fit) {
		size_t len = strlen(name);
		hp_buf_printf(d->b, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		if (len <= fit) {
			hp_buf_xml_str(d->b, name);
		} else {
			/* Cut on a UTF-8 boundary, then mark the cut. */
			size_t cut = fit > 2 ? fit - 2 : 0;
			while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
				cut--;
			char *s = hp_util_xstrndup(name, cut);
			hp_buf_xml_str(d->b, s);
			hp_buf_str(d->b, "..");
			free(s);
		}
		hp_buf_str(d->b, "</text>");
	}
	hp_buf_str(d->b, "</g>\n");
}

static void draw(struct draw *d, uint32_t id, double x)
{
	double scale = (WIDTH - 2 * PAD) / (double)d->total;
	double w = (double)hp_flame_width(&d->f, &d->f.n[id]) * scale;

	if (w < MIN_WIDTH)
		return;
	frame(d, id, x, w);
	for (uint32_t c = d->f.n[id].child; c; c = d->f.n[c].next) {
		draw(d, c, x);
		x += (double)hp_flame_width(&d->f, &d->f.n[c]) * scale;
	}
}

/* The depth of the deepest frame wide enough to draw. */
static uint32_t drawn_depth(const struct draw *d, uint32_t id, uint32_t depth)
{
	double scale = (WIDTH - 2 * PAD) / (double)d->total;
	uint32_t max = depth;

	if ((double)hp_flame_width(&d->f, &d->f.n[id]) * scale < MIN_WIDTH)
		return depth ? depth - 1 : 0;
	for (uint32_t c = d->f.n[id].child; c; c = d->f.n[c].next) {
		uint32_t k = drawn_depth(d, c, depth + 1);
		if (k > max)
			max = k;
	}
	return max;
}

/* A diff's colour scale: blue (the largest shrinkage) through grey to red
 * (the largest growth), with its ends in the report's unit. */
static void legend(struct draw *d)
{
	const double lw = 300, x0 = WIDTH / 2 - lw / 2, y = TOP + 2;
	char v[32];
	int rgb[3];

	hp_buf_str(d->b, "<defs><linearGradient id=\"scale\">");
	for (int i = -4; i <= 4; i++) {
		hp_flame_diff_color(i, 4, rgb);
		hp_buf_printf(d->b, "<stop offset=\"%.3f\" stop-color=\"rgb(%d,%d,%d)\"/>",
			      (i + 4) / 8.0, rgb[0], rgb[1], rgb[2]);
	}
	hp_buf_printf(d->b, "</linearGradient></defs>\n<rect x=\"%.0f\" y=\"%.0f\" "
			    "width=\"%.0f\" height=\"10\" fill=\"url(#scale)\"/>\n",
		      x0, y, lw);
	hp_render_value(v, sizeof(v), -d->max_change, d->r->vi, d->r->show_bytes);
	hp_buf_printf(d->b, "<text class=\"sub\" x=\"%.0f\" y=\"%.0f\" style=\"text-anchor:end\">"
			    "shrank %s</text>\n", x0 - 6, y + 9, v);
	hp_render_value(v, sizeof(v), d->max_change, d->r->vi, d->r->show_bytes);
	hp_buf_printf(d->b, "<text class=\"sub\" x=\"%.0f\" y=\"%.0f\" style=\"text-anchor:start\">"
			    "grew +%s</text>\n", x0 + lw + 6, y + 9, v);
}

static void header(struct draw *d)
{
	const struct hp_render *r = d->r;
	char total[32];

	hp_render_value(total, sizeof(total), d->total, r->vi, r->show_bytes);
	hp_buf_printf(d->b,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		      "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		      "xmlns=\"http://www.w3.org/2000/svg\">\n"
		      "<style>text{font-family:Verdana,Helvetica,sans-serif;font-size:12px;"
		      "fill:#000}.title{font-size:17px;text-anchor:middle}"
		      ".sub{font-size:12px;fill:#555;text-anchor:middle}"
		      "rect{stroke:#fff;stroke-width:0.5}g:hover rect{stroke:#000}</style>\n"
		      "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f4ec\"/>\n"
		      "<text class=\"title\" x=\"%.0f\" y=\"24\">heapprof %sflame graph: %s%s</text>\n",
		      WIDTH, d->height, WIDTH, d->height, WIDTH / 2, d->f.diff ? "diff " : "",
		      hp_render_value_name(r->vi), r->peak ? " at the peak" : "");
	if (d->f.diff) {
		const struct hp_flame_node *root = &d->f.n[0];
		char grew[32], shrank[32];
		hp_render_value(total, sizeof(total), root->v[0] - root->v[1], r->vi, r->show_bytes);
		hp_render_value(grew, sizeof(grew), root->grow, r->vi, r->show_bytes);
		hp_render_value(shrank, sizeof(shrank), root->shrink, r->vi, r->show_bytes);
		hp_buf_printf(d->b, "<text class=\"sub\" x=\"%.0f\" y=\"44\">%s%s net in %zu dump%s "
				    "minus %zu base dump%s: widths are the changes (grew %s, "
				    "shrank %s)",
			      WIDTH / 2, root->v[0] > root->v[1] ? "+" : "", total, r->ndumps,
			      r->ndumps == 1 ? "" : "s", r->nbases, r->nbases == 1 ? "" : "s",
			      grew, shrank);
	} else {
		hp_buf_printf(d->b, "<text class=\"sub\" x=\"%.0f\" y=\"44\">total %s in %zu dump%s",
			      WIDTH / 2, total, r->ndumps, r->ndumps == 1 ? "" : "s");
	}
	if (r->focus) {
		hp_buf_str(d->b, "; focus ");
		hp_buf_xml_str(d->b, r->focus);
	}
	if (r->ignore) {
		hp_buf_str(d->b, "; ignore ");
		hp_buf_xml_str(d->b, r->ignore);
	}
	hp_buf_str(d->b, "; hover a frame for its value</text>\n");
	if (d->f.diff && d->total > 0)
		legend(d);
}

void hp_svg_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct draw d = { .p = p, .r = r, .b = b };

	hp_flame_build(&d.f, p, r->vi, r->diff);
	d.total = hp_flame_width(&d.f, &d.f.n[0]);
	d.max_change = hp_flame_max_change(&d.f);
	if (d.total > 0)
		d.maxdepth = drawn_depth(&d, 0, 0);
	d.top = TOP + (d.f.diff ? LEGEND_H : 0);
	d.height = d.top + FRAME_H * (d.maxdepth + 1) + 2 * PAD;
	/* Icicles hang from the top: their first row goes under the title. */
	if (r->icicle)
		d.top += PAD;
	header(&d);
	if (d.total > 0)
		draw(&d, 0, PAD);
	else
		hp_buf_printf(b, "<text class=\"sub\" x=\"%.0f\" y=\"%.0f\">nothing to draw"
				 "</text>\n", WIDTH / 2, d.height - PAD - 4);
	hp_buf_str(b, "</svg>\n");
	hp_flame_release(&d.f);
}
