/*
 * graph.c -- the --graph output: the call graph in Graphviz's dot
 * language, drawn as jeprof --dot and pprof -dot draw it; and, with
 * --svg, the SVG that Graphviz's dot program makes of it.
 *
 * A node is a function (a function and line with --lines), labelled with
 * its flat and cumulative values and their shares of the total; its font
 * grows with its flat value and its colour deepens with its cumulative
 * value (red; blue for a decrease after --base).  An edge is a call, with
 * the value of the stacks that make it.  As in pprof: the functions whose
 * cumulative value is at most --node-fraction of the total are left out,
 * then all but the --node-count largest; a call through functions left
 * out becomes a dotted edge between the functions kept on either side;
 * calls worth at most --edge-fraction of the total are left out; calls
 * inlined by the compiler say "(inline)".  The legend says what was left
 * out.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "index.h"
#include "render.h"
#include "util.h"

extern char **environ;

struct graph_edge {
	uint32_t from, to;	/* kept node numbers, 1-based */
	int64_t w;
	size_t last;		/* the last stack counted, + 1 */
	unsigned direct : 1;	/* some stack calls it directly */
	unsigned called : 1;	/* some stack calls it other than inlined */
};

struct graph {
	const struct hp_profile *p;
	const struct hp_render *r;
	int64_t *flat, *cum;
	uint32_t *id;		/* per profile node: its number if kept, else 0 */
	uint32_t *kept;		/* kept profile nodes by number - 1 */
	size_t nkept;
	uint32_t *loc_of;	/* per frame: its location */
	struct graph_edge *e;
	size_t ne, cap;
	struct hp_index ix;
	int64_t total;		/* for shares: the sum, or after --base the sum
				 * of absolute values */
};

static int64_t mag(int64_t v)
{
	return v == INT64_MIN ? INT64_MAX : v < 0 ? -v : v;
}

/* ---- which nodes ----------------------------------------------------- */

static const struct graph *sort_g;

/* Largest |cum| first, then |flat|, then name: the order nodes are kept in. */
static int cum_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	const struct graph *g = sort_g;

	if (mag(g->cum[x]) != mag(g->cum[y]))
		return mag(g->cum[x]) > mag(g->cum[y]) ? -1 : 1;
	if (mag(g->flat[x]) != mag(g->flat[y]))
		return mag(g->flat[x]) > mag(g->flat[y]) ? -1 : 1;
	return strcmp(g->p->nodes[x], g->p->nodes[y]);
}

/* Chooses the nodes; returns how many had a value, *dropped how many of
 * those fell under --node-fraction. */
static size_t choose(struct graph *g, size_t *dropped)
{
	const struct hp_profile *p = g->p;
	uint32_t *all = hp_util_xcalloc(p->nnodes + 1, sizeof(*all));
	size_t n = 0;
	double limit = g->r->node_fraction * (double)g->total;

	for (size_t i = 0; i < p->nnodes; i++)
		if (g->cum[i] || g->flat[i])
			all[n++] = (uint32_t)i;
	sort_g = g;
	hp_util_sort(all, n, sizeof(*all), cum_cmp);
	*dropped = 0;
	g->kept = hp_util_xcalloc(n + 1, sizeof(*g->kept));
	for (size_t i = 0; i < n; i++) {
		if ((double)mag(g->cum[all[i]]) <= limit) {
			++*dropped;
			continue;
		}
		if (g->nkept < (size_t)g->r->node_count)
			g->kept[g->nkept++] = all[i];
	}
	free(all);
	/* Numbered in the text report's order: flat, then cum, then name. */
	uint32_t *order;
	size_t m = hp_profile_sorted_nodes(p, g->flat, g->cum, &order);
	g->id = hp_util_xcalloc(p->nnodes + 1, sizeof(*g->id));
	for (size_t i = 0; i < g->nkept; i++)
		g->id[g->kept[i]] = 1;
	size_t k = 0;
	for (size_t i = 0; i < m; i++)
		if (g->id[order[i]]) {
			g->kept[k++] = order[i];
			g->id[order[i]] = (uint32_t)k;
		}
	free(order);
	return n;
}

/* ---- which edges ----------------------------------------------------- */

static int edge_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct graph *g = ctx;
	const uint32_t *k = key;

	return g->e[item].from == k[0] && g->e[item].to == k[1];
}

static void add_edge(struct graph *g, uint32_t from, uint32_t to, int64_t w, size_t stack,
		     int direct, int inlined)
{
	uint32_t key[2] = { from, to };
	uint64_t h = hp_index_hash_u64((uint64_t)from << 32 | to);
	int64_t i = hp_index_find(&g->ix, h, edge_eq, g, key);

	if (i < 0) {
		hp_util_grow(&g->e, &g->cap, g->ne + 1, sizeof(*g->e));
		g->e[g->ne] = (struct graph_edge){ .from = from, .to = to };
		hp_index_add(&g->ix, h, (uint32_t)g->ne);
		i = (int64_t)g->ne++;
	}
	struct graph_edge *e = &g->e[i];
	e->direct |= direct;
	e->called |= !inlined;
	/* Recursion: a call counts once per stack, as a node does. */
	if (e->last == stack + 1)
		return;
	e->last = stack + 1;
	e->w = hp_util_sat_add(e->w, w);
}

/* The calls between kept nodes along every kept stack, root to leaf. */
static void edges(struct graph *g)
{
	const struct hp_profile *p = g->p;

	g->loc_of = hp_util_xcalloc(p->nframes + 1, sizeof(*g->loc_of));
	for (size_t l = 0; l < p->nlocs; l++)
		for (uint32_t f = 0; f < p->locs[l].nframes; f++)
			g->loc_of[p->locs[l].frame0 + f] = (uint32_t)l;
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		int64_t w = st->v[g->r->vi];
		if (st->dropped || !w)
			continue;
		uint32_t prev = 0, prev_frame = 0;
		int gap = 0;
		for (uint32_t i = st->nf; i-- > 0;) {
			uint32_t fr = p->sframes[st->f0 + i];
			uint32_t id = g->id[p->frames[fr].node];
			if (!id) {
				gap = 1;
				continue;
			}
			if (prev && prev != id)
				add_edge(g, prev, id, w, s, !gap,
					 !gap && g->loc_of[fr] == g->loc_of[prev_frame]);
			prev = id;
			prev_frame = fr;
			gap = 0;
		}
	}
}

static int edge_cmp(const void *a, const void *b)
{
	const struct graph_edge *x = a, *y = b;

	if (mag(x->w) != mag(y->w))
		return mag(x->w) > mag(y->w) ? -1 : 1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

/* ---- drawing --------------------------------------------------------- */

/* Appends s escaped for a quoted dot string; with lines, "::" breaks the
 * line (long C++ names make narrow boxes), as pprof does. */
static void dot_str(struct hp_buf *b, const char *s, int lines)
{
	for (; *s; s++) {
		if (lines && s[0] == ':' && s[1] == ':' && s[2]) {
			hp_buf_str(b, "::\\n");
			s++;
		} else if (*s == '"' || *s == '\\') {
			hp_buf_char(b, '\\');
			hp_buf_char(b, *s);
		} else {
			hp_buf_char(b, *s);
		}
	}
}

/*
 * A colour for a share of the total from -1 to 1: grey at 0, deepening
 * to red at 1 (to blue at -1); pale for a fill, dark for a line.  Shares
 * are lifted away from 0 (x^0.3) so that small ones still show, and faded
 * back to grey under 20%.
 */
static void color(char out[8], double score, int fill)
{
	double a = fabs(score) > 1 ? 1 : fabs(score);
	double sat = fill ? 0.1 : 1.0, val = fill ? 0.93 : 0.7;

	if (a < 0.2)
		sat *= a / 0.2;
	double t = pow(a, 0.3) * sat;
	double hi = val, lo = val * (1 - t), mid = val * (1 - sat);
	double r = score < 0 ? lo : hi, gr = lo, bl = score < 0 ? hi : mid;
	if (score < 0)
		gr = val * (1 - t * 0.6);
	snprintf(out, 8, "#%02x%02x%02x", (int)(r * 255), (int)(gr * 255), (int)(bl * 255));
}

static void legend(struct graph *g, struct hp_buf *b, size_t nvalued, size_t dropped_nodes,
		   size_t dropped_edges)
{
	const struct hp_render *r = g->r;
	char v[32], t[32];
	int64_t shown = 0;

	for (size_t i = 0; i < g->nkept; i++)
		shown = hp_util_sat_add(shown, mag(g->flat[g->kept[i]]));
	hp_buf_str(b, "subgraph cluster_L { \"heapprof\" [shape=box fontsize=16 label=\"");
	if (r->ndumps)
		hp_buf_printf(b, "Dump%s: ", r->ndumps == 1 ? "" : "s");
	for (size_t i = 0; i < r->ndumps && i < 3; i++) {
		const char *base = strrchr(r->dumps[i], '/');
		if (i)
			hp_buf_str(b, ", ");
		dot_str(b, base ? base + 1 : r->dumps[i], 0);
	}
	if (r->ndumps > 3)
		hp_buf_printf(b, " and %zu more", r->ndumps - 3);
	if (r->nbases)
		hp_buf_printf(b, "\\lminus %zu base dump%s", r->nbases, r->nbases == 1 ? "" : "s");
	hp_buf_printf(b, "\\lType: %s%s\\l", hp_render_value_name(r->vi), r->peak ? " at the peak" : "");
	if (r->focus) {
		hp_buf_str(b, "Focus: ");
		dot_str(b, r->focus, 0);
		hp_buf_str(b, "\\l");
	}
	if (r->ignore) {
		hp_buf_str(b, "Ignore: ");
		dot_str(b, r->ignore, 0);
		hp_buf_str(b, "\\l");
	}
	hp_render_value(v, sizeof(v), shown, r->vi, r->show_bytes);
	hp_render_value(t, sizeof(t), g->total, r->vi, r->show_bytes);
	char pct[16];
	hp_render_pct(pct, sizeof(pct), shown, g->total);
	hp_buf_printf(b, "Showing nodes accounting for %s, %s of %s total\\l", v, pct, t);
	if (dropped_nodes) {
		hp_render_value(v, sizeof(v), (int64_t)(r->node_fraction * (double)g->total),
				r->vi, r->show_bytes);
		hp_buf_printf(b, "Dropped %zu node%s (cum <= %s)\\l", dropped_nodes,
			      dropped_nodes == 1 ? "" : "s", v);
	}
	if (dropped_edges) {
		hp_render_value(v, sizeof(v), (int64_t)(r->edge_fraction * (double)g->total),
				r->vi, r->show_bytes);
		hp_buf_printf(b, "Dropped %zu edge%s (freq <= %s)\\l", dropped_edges,
			      dropped_edges == 1 ? "" : "s", v);
	}
	if (g->nkept < nvalued - dropped_nodes)
		hp_buf_printf(b, "Showing top %zu nodes out of %zu\\l", g->nkept, nvalued);
	hp_buf_str(b, "\" tooltip=\"heapprof\"] }\n");
}

static void node(struct graph *g, struct hp_buf *b, uint32_t k, int64_t maxflat)
{
	const struct hp_render *r = g->r;
	uint32_t n = g->kept[k];
	const char *name = g->p->nodes[n];
	char f[32], fp[16], c[32], cp[16], line[8], fillc[8];
	int64_t flat = g->flat[n], cum = g->cum[n];
	int size = 8;

	if (maxflat && flat)
		size += (int)ceil(16 * sqrt((double)mag(flat) / (double)maxflat));
	hp_render_value(f, sizeof(f), flat, r->vi, r->show_bytes);
	hp_render_pct(fp, sizeof(fp), flat, g->total);
	hp_render_value(c, sizeof(c), cum, r->vi, r->show_bytes);
	hp_render_pct(cp, sizeof(cp), cum, g->total);
	color(line, (double)cum / (double)g->total, 0);
	color(fillc, (double)cum / (double)g->total, 1);
	hp_buf_printf(b, "N%u [label=\"", k + 1);
	dot_str(b, name, 1);
	if (flat)
		hp_buf_printf(b, "\\n%s (%s)", f, fp);
	else
		hp_buf_str(b, "\\n0");
	if (cum != flat)
		hp_buf_printf(b, "%sof %s (%s)", flat ? "\\n" : " ", c, cp);
	hp_buf_printf(b, "\" id=\"node%u\" fontsize=%d shape=box tooltip=\"", k + 1, size);
	dot_str(b, name, 0);
	hp_buf_printf(b, " (%s)\" color=\"%s\" fillcolor=\"%s\"]\n", c, line, fillc);
}

static void edge(struct graph *g, struct hp_buf *b, const struct graph_edge *e)
{
	const struct hp_render *r = g->r;
	char w[32], line[8];
	int64_t a = mag(e->w);
	double share = (double)a / (double)g->total;

	hp_render_value(w, sizeof(w), e->w, r->vi, r->show_bytes);
	color(line, (double)e->w / (double)g->total, 0);
	hp_buf_printf(b, "N%u -> N%u [label=\" %s%s\"", e->from, e->to, w,
		      e->direct && !e->called ? "\\n (inline)" : "");
	int weight = 1 + (int)(share > 1 ? 100 : share * 100);
	int pen = 1 + (int)(share > 1 ? 5 : share * 5);
	if (weight > 1)
		hp_buf_printf(b, " weight=%d", weight);
	if (pen > 1)
		hp_buf_printf(b, " penwidth=%d", pen);
	hp_buf_printf(b, " color=\"%s\" tooltip=\"", line);
	for (int t = 0; t < 2; t++) {
		if (t)
			hp_buf_str(b, " labeltooltip=\"");
		dot_str(b, g->p->nodes[g->kept[e->from - 1]], 0);
		hp_buf_str(b, e->direct ? " -> " : " ... ");
		dot_str(b, g->p->nodes[g->kept[e->to - 1]], 0);
		hp_buf_printf(b, " (%s)\"", w);
	}
	if (!e->direct)
		hp_buf_str(b, " style=\"dotted\"");
	hp_buf_str(b, "]\n");
}

void hp_graph_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct graph g = { .p = p, .r = r };
	size_t dropped_nodes, dropped_edges = 0;
	int64_t abs;
	size_t neg;

	g.total = hp_render_total(p, r->vi, &abs, &neg);
	if (neg)
		g.total = abs;
	g.flat = hp_util_xcalloc(p->nnodes + 1, sizeof(*g.flat));
	g.cum = hp_util_xcalloc(p->nnodes + 1, sizeof(*g.cum));
	hp_profile_flat(p, r->vi, g.flat, g.cum);
	size_t nvalued = choose(&g, &dropped_nodes);
	edges(&g);
	hp_util_sort(g.e, g.ne, sizeof(*g.e), edge_cmp);

	double limit = r->edge_fraction * (double)g.total;
	for (size_t i = 0; i < g.ne; i++)
		dropped_edges += (double)mag(g.e[i].w) <= limit;

	hp_buf_str(b, "digraph \"heapprof\" {\nnode [style=filled fillcolor=\"#f8f8f8\"]\n");
	legend(&g, b, nvalued, dropped_nodes, dropped_edges);
	int64_t maxflat = 0;
	for (size_t i = 0; i < g.nkept; i++)
		if (mag(g.flat[g.kept[i]]) > maxflat)
			maxflat = mag(g.flat[g.kept[i]]);
	for (uint32_t k = 0; k < g.nkept; k++)
		node(&g, b, k, maxflat);
	for (size_t i = 0; i < g.ne; i++)
		if ((double)mag(g.e[i].w) > limit)
			edge(&g, b, &g.e[i]);
	hp_buf_str(b, "}\n");
	hp_index_release(&g.ix);
	free(g.e);
	free(g.loc_of);
	free(g.id);
	free(g.kept);
	free(g.flat);
	free(g.cum);
}

/* ---- SVG through Graphviz -------------------------------------------- */

void hp_graph_to_svg(struct hp_buf *b)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "dot", "-Tsvg", NULL };
	int out[2], status;
	pid_t pid;
	FILE *in = tmpfile();

	if (!in || fwrite(b->p, 1, b->len, in) != b->len || fflush(in) || fseek(in, 0, SEEK_SET))
		hp_util_die("--graph --svg: cannot write a temporary file: %s", strerror(errno));
	if (pipe2(out, O_CLOEXEC))
		hp_util_die("--graph --svg: pipe: %s", strerror(errno));
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fileno(in), 0);
	posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	int err = posix_spawnp(&pid, "dot", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (err == ENOENT)
		hp_util_die("--graph --svg needs Graphviz's dot program, which is not installed "
			    "(apt-get install graphviz); --graph alone writes the dot text");
	if (err)
		hp_util_die("--graph --svg: cannot run dot: %s", strerror(err));
	close(out[1]);
	fclose(in);
	hp_buf_reset(b);
	char chunk[65536];
	for (;;) {
		ssize_t n = read(out[0], chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		hp_buf_add(b, chunk, (size_t)n);
	}
	close(out[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			hp_util_die("--graph --svg: waitpid: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !b->len)
		hp_util_die("--graph --svg: dot failed (%s %d)",
			    WIFEXITED(status) ? "exit status" : "signal",
			    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
}
