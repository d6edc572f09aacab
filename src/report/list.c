/*
 * list.c -- the --list REGEX output: for each function whose name
 * matches, its source with the flat and cumulative value of every line,
 * as pprof -list prints it:
 *
 *   ROUTINE ======================== do_something in /src/seed.c
 *      3.1MiB     3.1MiB (flat, cum) 50.3% of Total
 *            .          .     12:static void do_something(int i)
 *            .          .     13:{
 *       3.1MiB     3.1MiB     14:  sink = malloc((size_t)i * 1024);
 *
 * Flat counts a stack at the line of its innermost frame, when that frame
 * is the function's; cum counts it once at each line of the function the
 * stack passes through (for a function inlined into another, the line
 * inside it; for the one it is inlined into, the line of the call).
 * Source files are read from the paths the debug information gives,
 * relative ones from the current directory; one that cannot be read gets
 * one line saying why, and then its lines with values, without their text.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "render.h"
#include "util.h"

/* Lines shown before the first and after the last line with a value, as
 * pprof shows them (before: unless the function's first line is known). */
#define MARGIN 5

struct list_entry {
	uint32_t node;		/* the function's node (its display name) */
	const char *file;	/* NULL: no line information */
	int line;
	int64_t flat, cum;
	size_t last;		/* the last stack counted in cum, + 1 */
};

struct listing {
	const struct hp_profile *p;
	const struct hp_render *r;
	struct list_entry *e;
	size_t ne, cap;
	struct hp_index ix;
	unsigned char *match;	/* per function */
	int64_t total;
};

struct list_key {
	uint32_t node;
	const char *file;
	int line;
};

static int entry_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct listing *l = ctx;
	const struct list_key *k = key;
	const struct list_entry *e = &l->e[item];

	return e->node == k->node && e->file == k->file && e->line == k->line;
}

static struct list_entry *entry(struct listing *l, const struct hp_frame *fr)
{
	struct list_key k = { l->p->funcs[fr->func].node, fr->file, fr->file ? fr->line : 0 };
	uint64_t h = hp_index_hash_u64(hp_index_hash_u64((uint64_t)k.node << 32 | (uint32_t)k.line) ^
				       (uintptr_t)k.file);
	int64_t i = hp_index_find(&l->ix, h, entry_eq, l, &k);

	if (i < 0) {
		hp_util_grow(&l->e, &l->cap, l->ne + 1, sizeof(*l->e));
		l->e[l->ne] = (struct list_entry){ .node = k.node, .file = k.file, .line = k.line };
		hp_index_add(&l->ix, h, (uint32_t)l->ne);
		i = (int64_t)l->ne++;
	}
	return &l->e[i];
}

static void collect(struct listing *l)
{
	const struct hp_profile *p = l->p;
	int vi = l->r->vi;

	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		int64_t v = st->v[vi];
		if (st->dropped || !v)
			continue;
		for (uint32_t i = 0; i < st->nf; i++) {
			const struct hp_frame *fr = &p->frames[p->sframes[st->f0 + i]];
			if (!l->match[fr->func])
				continue;
			struct list_entry *e = entry(l, fr);
			if (i == 0)
				e->flat = hp_util_sat_add(e->flat, v);
			/* Recursion: a line counts once per stack. */
			if (e->last != s + 1) {
				e->last = s + 1;
				e->cum = hp_util_sat_add(e->cum, v);
			}
		}
	}
}

static const struct hp_profile *sort_p;

/* By function name, then file (none last), then line. */
static int entry_cmp(const void *a, const void *b)
{
	const struct list_entry *x = a, *y = b;
	int c = x->node == y->node ? 0 : strcmp(sort_p->nodes[x->node], sort_p->nodes[y->node]);

	if (c)
		return c;
	if (x->file != y->file) {
		if (!x->file || !y->file)
			return x->file ? -1 : 1;
		return strcmp(x->file, y->file);
	}
	return x->line < y->line ? -1 : x->line > y->line;
}

/* ---- source files ---------------------------------------------------- */

struct list_source {
	char *text;		/* NULL when it could not be read */
	const char **line;	/* line[i] is line i + 1, not terminated */
	size_t *len;
	size_t nlines;
	int err;
};

static void source_read(struct list_source *src, const char *path)
{
	FILE *f = fopen(path, "r");
	struct hp_buf b = { 0 };
	char chunk[65536];
	size_t n, cap = 0, lcap = 0;

	memset(src, 0, sizeof(*src));
	if (!f) {
		src->err = errno;
		return;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		hp_buf_add(&b, chunk, n);
	if (ferror(f)) {
		src->err = errno ? errno : EIO;
		fclose(f);
		hp_buf_release(&b);
		return;
	}
	fclose(f);
	hp_buf_add(&b, "", 0);	/* an empty file still has text */
	src->text = b.p;
	for (size_t at = 0; at < b.len;) {
		const char *s = b.p + at, *nl = memchr(s, '\n', b.len - at);
		size_t len = nl ? (size_t)(nl - s) : b.len - at;
		at += len + 1;
		if (len && s[len - 1] == '\r')
			len--;
		hp_util_grow(&src->line, &cap, src->nlines + 1, sizeof(*src->line));
		hp_util_grow(&src->len, &lcap, src->nlines + 1, sizeof(*src->len));
		src->line[src->nlines] = s;
		src->len[src->nlines++] = len;
	}
}

static void source_release(struct list_source *src)
{
	free(src->text);
	free(src->line);
	free(src->len);
}

/* ---- printing -------------------------------------------------------- */

static void val(const struct listing *l, char *buf, size_t n, int64_t v)
{
	if (v)
		hp_render_value(buf, n, v, l->r->vi, l->r->show_bytes);
	else
		snprintf(buf, n, ".");
}

/* One function in one file: the entries e[0..n), sorted by line. */
static void routine(struct listing *l, struct hp_buf *b, const struct list_entry *e, size_t n)
{
	const struct hp_profile *p = l->p;
	const char *name = p->nodes[e[0].node], *file = e[0].file;
	int64_t flat = 0, cum = 0;
	char f[32], c[32], pct[16];

	for (size_t i = 0; i < n; i++) {
		flat = hp_util_sat_add(flat, e[i].flat);
		cum = hp_util_sat_add(cum, e[i].cum);
	}
	hp_render_value(f, sizeof(f), flat, l->r->vi, l->r->show_bytes);
	hp_render_value(c, sizeof(c), cum, l->r->vi, l->r->show_bytes);
	hp_render_pct(pct, sizeof(pct), cum, l->total);
	hp_buf_printf(b, "ROUTINE ======================== %s%s%s\n", name, file ? " in " : "",
		      file ? file : "");
	hp_buf_printf(b, "%10s %10s (flat, cum) %s of Total\n", f, c, pct);
	if (!file) {
		hp_buf_str(b, "    no source information: no line table for it "
			      "(see --debug-dir)\n");
		return;
	}
	/* From the function's first line when it is in this file, else a
	 * few lines before the first with a value; to a few after the last. */
	int start = e[0].line - MARGIN, end = e[n - 1].line + MARGIN, decl = 0;
	for (size_t i = 0; i < p->nfuncs; i++) {
		const struct hp_func *fn = &p->funcs[i];
		if (fn->node == e[0].node && fn->decl_file == file && fn->decl_line > decl &&
		    fn->decl_line <= e[0].line)
			decl = fn->decl_line;
	}
	if (decl)
		start = decl;
	if (start < 1)
		start = 1;
	struct list_source src;
	source_read(&src, file);
	if (!src.text) {
		hp_buf_printf(b, "    cannot read %s: %s; the lines with values:\n", file,
			      strerror(src.err));
		for (size_t i = 0; i < n; i++) {
			val(l, f, sizeof(f), e[i].flat);
			val(l, c, sizeof(c), e[i].cum);
			hp_buf_printf(b, "%10s %10s %6d\n", f, c, e[i].line);
		}
		return;
	}
	size_t k = 0;
	for (int line = start; line <= end && (size_t)line <= src.nlines; line++) {
		int64_t lf = 0, lc = 0;
		while (k < n && e[k].line < line)
			k++;
		for (; k < n && e[k].line == line; k++) {
			lf = hp_util_sat_add(lf, e[k].flat);
			lc = hp_util_sat_add(lc, e[k].cum);
		}
		val(l, f, sizeof(f), lf);
		val(l, c, sizeof(c), lc);
		hp_buf_printf(b, "%10s %10s %6d:%.*s\n", f, c, line, (int)src.len[line - 1],
			      src.line[line - 1]);
	}
	/* Lines with values past the end: the file is not the one built. */
	for (; k < n; k++)
		if (e[k].line > (int)src.nlines) {
			hp_buf_printf(b, "    line %d is past the end of %s (%zu lines): it is not "
					 "the source the binary was built from\n",
				      e[k].line, file, src.nlines);
			break;
		}
	source_release(&src);
}

void hp_list_render(const struct hp_profile *p, const struct hp_render *r, struct hp_buf *b)
{
	struct listing l = { .p = p, .r = r };
	int64_t abs;
	size_t neg, nmatch = 0;

	l.total = hp_render_total(p, r->vi, &abs, &neg);
	if (neg)
		l.total = abs;
	l.match = hp_util_xcalloc(p->nfuncs + 1, 1);
	for (size_t i = 0; i < p->nfuncs; i++)
		if (regexec(r->list, p->funcs[i].name, 0, NULL, 0) == 0) {
			l.match[i] = 1;
			nmatch++;
		}
	collect(&l);
	if (!l.ne)
		hp_util_die("--list '%s': no function %s", r->list_text,
			    nmatch ? "that matches has a value in the profile" : "matches");
	sort_p = p;
	hp_util_sort(l.e, l.ne, sizeof(*l.e), entry_cmp);
	hp_render_headline(p, r, b);
	for (size_t i = 0; i < l.ne;) {
		size_t j = i + 1;
		while (j < l.ne && l.e[j].node == l.e[i].node && l.e[j].file == l.e[i].file)
			j++;
		routine(&l, b, l.e + i, j - i);
		i = j;
	}
	hp_index_release(&l.ix);
	free(l.e);
	free(l.match);
}
