/*
 * svg.c -- the --svg output: a flame graph in one self-contained SVG file
 * (no scripts, no external fonts or styles), as flamegraph.pl draws them:
 * the root at the bottom, callees stacked on callers, widths proportional
 * to the value, children in name order, a <title> tooltip on every frame.
 *
 * Only positive values can have a width: after --base, the stacks that
 * shrank are left out and the subtitle says how much they add up to.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "render.h"
#include "util.h"

#define WIDTH 1200.0
#define PAD 10.0
#define FRAME_H 16.0
#define TOP 56.0		/* title and subtitle */
/* Narrower frames are not drawn: flamegraph.pl uses 0.1, but a 10,000
 * stack profile then makes an 18 MB file of invisible slivers. */
#define MIN_WIDTH 0.5
#define CHAR_W 7.0		/* average glyph width at 12px */

struct fnode {
	uint32_t node;		/* profile node; UINT32_MAX for the root */
	int64_t v;
	uint32_t child, next;	/* first child, next sibling (0 = none) */
	uint32_t last_child;
};

struct flame {
	const struct hp_profile *p;
	const struct hp_render *r;
	struct hp_buf *b;
	struct fnode *n;
	size_t nn, cap;
	int64_t total;
	uint32_t maxdepth;
	double height;
};

static uint32_t child_of(struct flame *f, uint32_t parent, uint32_t node)
{
	/* Paths arrive sorted, so a matching child is the last one made. */
	uint32_t c = f->n[parent].last_child;

	if (c && f->n[c].node == node)
		return c;
	hp_util_grow(&f->n, &f->cap, f->nn + 1, sizeof(*f->n));
	uint32_t id = (uint32_t)f->nn++;
	f->n[id] = (struct fnode){ .node = node };
	if (f->n[parent].last_child)
		f->n[f->n[parent].last_child].next = id;
	else
		f->n[parent].child = id;
	f->n[parent].last_child = id;
	return id;
}

static const struct hp_profile *sort_p;

/* Root-first name order of two stacks, for building the tree. */
static int path_cmp(const void *a, const void *b)
{
	const struct hp_profile_stack *x = &sort_p->stacks[*(const uint32_t *)a];
	const struct hp_profile_stack *y = &sort_p->stacks[*(const uint32_t *)b];
	uint32_t i = x->nf, j = y->nf;

	while (i && j) {
		int c = strcmp(hp_profile_frame_node(sort_p, x, --i),
			       hp_profile_frame_node(sort_p, y, --j));
		if (c)
			return c;
	}
	return (i > 0) - (j > 0);
}

static void build(struct flame *f)
{
	const struct hp_profile *p = f->p;
	uint32_t *ids = hp_util_xcalloc(p->nstacks + 1, sizeof(*ids));
	size_t m = 0;

	for (size_t s = 0; s < p->nstacks; s++)
		if (!p->stacks[s].dropped && p->stacks[s].v[f->r->vi] > 0)
			ids[m++] = (uint32_t)s;
	sort_p = p;
	hp_util_sort(ids, m, sizeof(*ids), path_cmp);
	hp_util_grow(&f->n, &f->cap, 1, sizeof(*f->n));
	f->n[0] = (struct fnode){ .node = UINT32_MAX };
	f->nn = 1;
	for (size_t k = 0; k < m; k++) {
		const struct hp_profile_stack *st = &p->stacks[ids[k]];
		int64_t v = st->v[f->r->vi];
		uint32_t at = 0;
		f->n[0].v = hp_util_sat_add(f->n[0].v, v);
		for (uint32_t i = st->nf, d = 1; i-- > 0; d++) {
			at = child_of(f, at, p->frames[p->sframes[st->f0 + i]].node);
			f->n[at].v = hp_util_sat_add(f->n[at].v, v);
			if (d > f->maxdepth)
				f->maxdepth = d;
		}
	}
	f->total = f->n[0].v;
	free(ids);
}

/* flamegraph.pl's "hot" palette, from a hash of the name: stable colors. */
static void color(const char *name, int *r, int *g, int *b)
{
	uint64_t h = hp_index_hash_bytes(name, strlen(name), 7);

	*r = 205 + (int)(h % 51);
	*g = (int)((h >> 8) % 231);
	*b = (int)((h >> 16) % 56);
}

static void frame(struct flame *f, uint32_t id, double x, double w, uint32_t depth)
{
	const struct fnode *fn = &f->n[id];
	const char *name = fn->node == UINT32_MAX ? "all" : f->p->nodes[fn->node];
	double y = f->height - PAD - FRAME_H * (depth + 1);
	char val[32], pct[16];
	int r, g, b;

	hp_render_value(val, sizeof(val), fn->v, f->r->vi, f->r->show_bytes);
	hp_render_pct(pct, sizeof(pct), fn->v, f->total);
	color(name, &r, &g, &b);
	hp_buf_str(f->b, "<g><title>");
	hp_render_xml_escape(f->b, name);
	hp_buf_printf(f->b, " (%s, %s)</title><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
		      val, pct, x, y, w, FRAME_H - 1, r, g, b);
	size_t fit = w > 3 * CHAR_W ? (size_t)((w - 6) / CHAR_W) : 0;
	if (fit) {
		size_t len = strlen(name);
		hp_buf_printf(f->b, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + FRAME_H - 4.5);
		if (len <= fit) {
			hp_render_xml_escape(f->b, name);
		} else {
			/* Cut on a UTF-8 boundary, then mark the cut. */
			size_t cut = fit > 2 ? fit - 2 : 0;
			while (cut && ((unsigned char)name[cut] & 0xc0) == 0x80)
				cut--;
			char *s = hp_util_xstrndup(name, cut);
			hp_render_xml_escape(f->b, s);
			hp_buf_str(f->b, "..");
			free(s);
		}
		hp_buf_str(f->b, "</text>");
	}
	hp_buf_str(f->b, "</g>\n");
}

static void draw(struct flame *f, uint32_t id, double x, uint32_t depth)
{
	double scale = (WIDTH - 2 * PAD) / (double)f->total;
	double w = (double)f->n[id].v * scale;

	if (w < MIN_WIDTH)
		return;
	frame(f, id, x, w, depth);
	for (uint32_t c = f->n[id].child; c; c = f->n[c].next) {
		draw(f, c, x, depth + 1);
		x += (double)f->n[c].v * scale;
	}
}

/* The depth of the deepest frame wide enough to draw. */
static uint32_t drawn_depth(const struct flame *f, uint32_t id, uint32_t depth)
{
	double scale = (WIDTH - 2 * PAD) / (double)f->total;
	uint32_t max = depth;

	if ((double)f->n[id].v * scale < MIN_WIDTH)
		return depth ? depth - 1 : 0;
	for (uint32_t c = f->n[id].child; c; c = f->n[c].next) {
		uint32_t d = drawn_depth(f, c, depth + 1);
		if (d > max)
			max = d;
	}
	return max;
}

static void header(struct flame *f)
{
	const struct hp_render *r = f->r;
	char total[32];
	int64_t all_neg = 0;

	for (size_t s = 0; s < f->p->nstacks; s++) {
		const struct hp_profile_stack *st = &f->p->stacks[s];
		if (!st->dropped && st->v[r->vi] < 0)
			all_neg = hp_util_sat_add(all_neg, st->v[r->vi]);
	}
	hp_render_value(total, sizeof(total), f->total, r->vi, r->show_bytes);
	hp_buf_printf(f->b,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
		      "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
		      "xmlns=\"http://www.w3.org/2000/svg\">\n"
		      "<style>text{font-family:Verdana,Helvetica,sans-serif;font-size:12px;"
		      "fill:#000}.title{font-size:17px;text-anchor:middle}"
		      ".sub{font-size:12px;fill:#555;text-anchor:middle}"
		      "rect{stroke:#fff;stroke-width:0.5}g:hover rect{stroke:#000}</style>\n"
		      "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f4ec\"/>\n"
		      "<text class=\"title\" x=\"%.0f\" y=\"24\">heapprof flame graph: %s</text>\n",
		      WIDTH, f->height, WIDTH, f->height, WIDTH / 2, hp_render_value_name(r->vi));
	hp_buf_printf(f->b, "<text class=\"sub\" x=\"%.0f\" y=\"44\">total %s in %zu dump%s",
		      WIDTH / 2, total, r->ndumps, r->ndumps == 1 ? "" : "s");
	if (r->nbases)
		hp_buf_printf(f->b, " minus %zu base dump%s", r->nbases, r->nbases == 1 ? "" : "s");
	if (all_neg) {
		char neg[32];
		hp_render_value(neg, sizeof(neg), all_neg, r->vi, r->show_bytes);
		hp_buf_printf(f->b, "; stacks that shrank (%s) are not drawn", neg);
	}
	if (r->focus) {
		hp_buf_str(f->b, "; focus ");
		hp_render_xml_escape(f->b, r->focus);
	}
	if (r->ignore) {
		hp_buf_str(f->b, "; ignore ");
		hp_render_xml_escape(f->b, r->ignore);
	}
	hp_buf_str(f->b, "; hover a frame for its value</text>\n");
}

void hp_svg_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct flame f = { .p = p, .r = r, .b = b };

	build(&f);
	if (f.total > 0)
		f.maxdepth = drawn_depth(&f, 0, 0);
	f.height = TOP + FRAME_H * (f.maxdepth + 1) + 2 * PAD;
	header(&f);
	if (f.total > 0)
		draw(&f, 0, PAD, 0);
	else
		hp_buf_printf(b, "<text class=\"sub\" x=\"%.0f\" y=\"%.0f\">nothing to draw"
				 "</text>\n", WIDTH / 2, f.height - PAD - 4);
	hp_buf_str(b, "</svg>\n");
	free(f.n);
}
