/*
 * html.c -- the --html output: a flame graph to explore, in one
 * self-contained HTML page: the profile's flame tree as JSON, and
 * flame.css and flame.js inlined (they are built into the command with
 * .incbin: the GNUmakefile rebuilds this file when they change).  No
 * network, nothing outside the file.
 *
 * An HTML page rather than an SVG with a script: it has a real search
 * field, buttons and a toggle, a toolbar and a status line that stay in
 * view while a tall graph scrolls, and tooltips that are not clipped;
 * --svg stays a picture that shows the same wherever SVG images do.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "flame.h"
#include "render.h"
#include "util.h"

/* The assets, NUL-terminated, from the source tree (make runs from its
 * top). */
__asm__(".pushsection .rodata\n"
	".balign 16\n"
	".type hp_html_css, @object\n"
	"hp_html_css:\n"
	".incbin \"src/report/flame.css\"\n"
	".byte 0\n"
	".balign 16\n"
	".type hp_html_js, @object\n"
	"hp_html_js:\n"
	".incbin \"src/report/flame.js\"\n"
	".byte 0\n"
	".popsection\n");
extern const char hp_html_css[], hp_html_js[];

/* s as a JSON string that is safe inside <script>: '<', '>' and '&' as
 * \u escapes, so that no "</script>" can end the element early. */
static void json_str(struct hp_buf *b, const char *s)
{
	hp_buf_char(b, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			hp_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == '<' || c == '>' || c == '&')
			hp_buf_printf(b, "\\u%04x", c);
		else
			hp_buf_char(b, (char)c);
	}
	hp_buf_char(b, '"');
}

/* One array of the tree in preorder: "key":[...].  Fields are read
 * through a getter so that one walk serves them all. */
typedef int64_t field_fn(const struct hp_flame *f, uint32_t id);

static int64_t f_kids(const struct hp_flame *f, uint32_t id)
{
	int64_t n = 0;

	for (uint32_t c = f->n[id].child; c; c = f->n[c].next)
		n++;
	return n;
}
static int64_t f_v(const struct hp_flame *f, uint32_t id) { return f->n[id].v[0]; }
static int64_t f_o(const struct hp_flame *f, uint32_t id) { return f->n[id].o[0]; }
static int64_t f_bv(const struct hp_flame *f, uint32_t id) { return f->n[id].v[1]; }
static int64_t f_bo(const struct hp_flame *f, uint32_t id) { return f->n[id].o[1]; }
static int64_t f_grow(const struct hp_flame *f, uint32_t id) { return f->n[id].grow; }
static int64_t f_shrink(const struct hp_flame *f, uint32_t id) { return f->n[id].shrink; }

struct walk {
	const struct hp_flame *f;
	uint32_t *order;	/* node ids in preorder */
	size_t n;
	uint32_t *name;		/* per node: index into the names array */
};

/* Preorder without recursion: deep stacks are the case this page is for. */
static void preorder(struct walk *w)
{
	const struct hp_flame *f = w->f;
	uint32_t *stack = hp_util_xcalloc(f->nn + 1, sizeof(*stack));
	size_t sp = 0;

	w->order = hp_util_xcalloc(f->nn + 1, sizeof(*w->order));
	stack[sp++] = 0;
	while (sp) {
		uint32_t id = stack[--sp];
		w->order[w->n++] = id;
		/* Push the children last first, so the first comes out next. */
		size_t mark = sp;
		for (uint32_t c = f->n[id].child; c; c = f->n[c].next)
			stack[sp++] = c;
		for (size_t i = mark, j = sp; j > i + 1; i++, j--) {
			uint32_t t = stack[i];
			stack[i] = stack[j - 1];
			stack[j - 1] = t;
		}
	}
	free(stack);
}

static void array(struct hp_buf *b, const struct walk *w, const char *key, field_fn *get)
{
	hp_buf_printf(b, ",\n\"%s\":[", key);
	for (size_t i = 0; i < w->n; i++)
		hp_buf_printf(b, i ? ",%" PRId64 : "%" PRId64, get(w->f, w->order[i]));
	hp_buf_char(b, ']');
}

/* The names array: "all", then the profile's nodes that the tree uses,
 * each once. */
static void names(struct hp_buf *b, struct walk *w, const struct hp_profile *p)
{
	uint32_t *index = hp_util_xcalloc(p->nnodes + 1, sizeof(*index));
	uint32_t next = 1;

	w->name = hp_util_xcalloc(w->f->nn + 1, sizeof(*w->name));
	hp_buf_str(b, "\"names\":[\"all\"");
	for (size_t i = 0; i < w->n; i++) {
		uint32_t id = w->order[i], node = w->f->n[id].node;
		if (node == HP_FLAME_ROOT)
			continue;
		if (!index[node]) {
			index[node] = next++;
			hp_buf_char(b, ',');
			json_str(b, p->nodes[node]);
		}
		w->name[id] = index[node];
	}
	hp_buf_char(b, ']');
	free(index);
}

static int64_t f_name_of(const struct walk *w, uint32_t id) { return w->name[id]; }

static void data(struct hp_buf *b, const struct hp_profile *p, const struct hp_render *r,
		 const struct hp_flame *f)
{
	struct walk w = { .f = f };

	preorder(&w);
	hp_buf_str(b, "{\"format\":\"heapprof-flame\",\"value\":");
	json_str(b, hp_render_value_name(r->vi));
	hp_buf_printf(b, ",\"unit\":\"%s\",\"other\":\"%s\",\"showBytes\":%s,\"diff\":%s,"
			 "\"age\":%s,\"icicle\":%s,\n",
		      hp_render_value_is_bytes(r->vi) ? "bytes" : "objects",
		      r->age || hp_render_value_is_bytes(f->oi) ? "bytes" : "objects",
		      r->show_bytes ? "true" : "false", f->diff ? "true" : "false",
		      r->age ? "true" : "false", r->icicle ? "true" : "false");
	names(b, &w, p);
	hp_buf_str(b, ",\n\"nodes\":{\"name\":[");
	for (size_t i = 0; i < w.n; i++)
		hp_buf_printf(b, i ? ",%" PRId64 : "%" PRId64, f_name_of(&w, w.order[i]));
	hp_buf_char(b, ']');
	array(b, &w, "kids", f_kids);
	array(b, &w, "v", f_v);
	array(b, &w, "o", f_o);
	if (f->diff) {
		array(b, &w, "bv", f_bv);
		array(b, &w, "bo", f_bo);
		array(b, &w, "grow", f_grow);
		array(b, &w, "shrink", f_shrink);
	}
	hp_buf_str(b, "}}");
	free(w.order);
	free(w.name);
}

/* The headline beside the title: what the graph sums. */
static void subtitle(struct hp_buf *b, const struct hp_render *r, const struct hp_flame *f)
{
	const struct hp_flame_node *root = &f->n[0];
	char v[32];

	if (f->diff) {
		hp_render_value(v, sizeof(v), root->v[0] - root->v[1], r->vi, r->show_bytes);
		hp_buf_printf(b, "%s%s net in %zu dump%s minus %zu base dump%s",
			      root->v[0] > root->v[1] ? "+" : "", v, r->ndumps,
			      r->ndumps == 1 ? "" : "s", r->nbases, r->nbases == 1 ? "" : "s");
	} else {
		hp_render_value(v, sizeof(v), root->v[0], r->vi, r->show_bytes);
		hp_buf_printf(b, "total %s in %zu dump%s", v, r->ndumps, r->ndumps == 1 ? "" : "s");
	}
	if (r->focus) {
		hp_buf_str(b, "; focus ");
		hp_buf_xml_str(b, r->focus);
	}
	if (r->ignore) {
		hp_buf_str(b, "; ignore ");
		hp_buf_xml_str(b, r->ignore);
	}
}

void hp_html_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct hp_flame f;
	const char *what = r->diff ? "diff flame graph" : "flame graph";

	/* --age: live bytes wide, coloured by their long-lived share. */
	if (r->age)
		hp_flame_build_with(&f, p, HP_V_INUSE_SPACE, HP_V_AGE_LONG, 0);
	else
		hp_flame_build(&f, p, r->vi, r->diff);
	hp_buf_printf(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			 "<meta name=\"generator\" content=\"heapprof report --html\">\n"
			 "<title>heapprof %s: %s%s</title>\n<style>\n%s</style>\n</head>\n<body>\n",
		      what, hp_render_value_name(r->vi), r->peak ? " at the peak" : "", hp_html_css);
	hp_buf_printf(b, "<header>\n<h1>heapprof %s: %s%s<span class=\"sub\">", what,
		      hp_render_value_name(r->vi), r->peak ? " at the peak" : "");
	subtitle(b, r, &f);
	hp_buf_str(b, "</span></h1>\n<div class=\"tools\">\n"
		      "<button id=\"reset\" type=\"button\" title=\"Show everything (Esc)\">"
		      "Reset zoom</button>\n"
		      "<button id=\"orient\" type=\"button\">Icicle</button>\n"
		      "<input id=\"search\" type=\"search\" placeholder=\"search: regular expression\" "
		      "aria-label=\"search, a regular expression\" spellcheck=\"false\" "
		      "autocomplete=\"off\">\n"
		      "<span id=\"match\" role=\"status\"></span>\n");
	if (r->age)
		hp_buf_printf(b, "<span id=\"legend\" title=\"colour: the share of the frame's live "
				 "bytes allocated after the warm-up (%.1f s) and older than it\">"
				 "young <span class=\"scale\" style=\"background:linear-gradient(to right,"
				 "rgb(238,238,238),rgb(215,38,38))\"></span> long-lived</span>\n",
			      r->age_warmup);
	if (f.diff)
		hp_buf_str(b, "<select id=\"widths\" aria-label=\"frame widths\">"
			      "<option value=\"change\">widths: what changed</option>"
			      "<option value=\"now\">widths: now</option>"
			      "<option value=\"base\">widths: the base</option></select>\n"
			      "<span id=\"legend\" title=\"colour: the frame's net change\">"
			      "<span id=\"shrank\"></span><span id=\"scale\" class=\"scale\"></span>"
			      "<span id=\"grew\"></span></span>\n");
	hp_buf_str(b, "</div>\n</header>\n<main id=\"graph\">"
		      "<svg id=\"frames\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
		      "aria-label=\"flame graph\"></svg>"
		      "<div id=\"empty\" style=\"display:none\">nothing to draw</div></main>\n"
		      "<div id=\"tip\"></div>\n<footer id=\"details\"></footer>\n"
		      "<noscript><p>This flame graph is drawn by JavaScript; "
		      "<code>heapprof report --svg</code> draws one without.</p></noscript>\n"
		      "<script type=\"application/json\" id=\"hp-data\">");
	data(b, p, r, &f);
	hp_buf_printf(b, "</script>\n<script>\n%s</script>\n</body>\n</html>\n", hp_html_js);
	hp_flame_release(&f);
}
