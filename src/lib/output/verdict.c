/*
 * verdict.c -- the leak verdict by reachability and its report (see
 * verdict.h).
 *
 * Owns nothing between calls.  Runs once, in the exit handler, inside the
 * guard: the scan (scan/reach.c) stops the other threads; the report is
 * written after they go on, with the names in the objects' ELF symbol
 * tables (output/dumpsyms.h: no file:line, which heapprof report gives).  Groups leaks by allocation stack and kind, direct before
 * indirect, largest first, as LeakSanitizer does.
 */
#include <dlfcn.h>
#include <string.h>

#include "base/log.h"
#include "base/pages.h"
#include "output/dumpsyms.h"
#include "output/verdict.h"
#include "record/counters.h"
#include "record/stacktab.h"
#include "scan/reach.h"
#include "base/banned.h"

#define FRAMES_SHOWN 64   /* per leak; deeper frames are elided */

struct leak_group {
	uint8_t kind;
	uint32_t stack;
	uint64_t bytes;
	uint64_t objects;
};

typedef int (*group_cmp)(const struct leak_group *, const struct leak_group *);

/* By kind (direct first), then stack: groups the blocks. */
static int by_key(const struct leak_group *a, const struct leak_group *b)
{
	if (a->kind != b->kind)
		return a->kind > b->kind ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

/* By kind (direct first), then bytes, largest first: the report's order. */
static int by_size(const struct leak_group *a, const struct leak_group *b)
{
	if (a->kind != b->kind)
		return a->kind > b->kind ? -1 : 1;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1;
	return a->stack < b->stack ? -1 : a->stack > b->stack;
}

static void sift(struct leak_group *a, uint64_t root, uint64_t n, group_cmp cmp)
{
	for (;;) {
		uint64_t c = 2 * root + 1;
		if (c >= n)
			return;
		if (c + 1 < n && cmp(&a[c + 1], &a[c]) > 0)
			c++;
		if (cmp(&a[root], &a[c]) >= 0)
			return;
		struct leak_group t = a[root];
		a[root] = a[c];
		a[c] = t;
		root = c;
	}
}

static void sort_groups(struct leak_group *a, uint64_t n, group_cmp cmp)
{
	for (uint64_t i = n / 2; i-- > 0;)
		sift(a, i, n, cmp);
	for (uint64_t end = n; end-- > 1;) {
		struct leak_group t = a[0];
		a[0] = a[end];
		a[end] = t;
		sift(a, 0, end, cmp);
	}
}

static const char *plural_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void print_frame(struct hp_dumpsyms_names *names, unsigned i, uintptr_t pc)
{
	Dl_info info;
	/* Caller frames are return addresses: look up the call. */
	uintptr_t look = i ? pc - 1 : pc;

	if (!dladdr((void *)look, &info) || !info.dli_fname) {
		hp_log_report("    #%u 0x%lx", i, (unsigned long)pc);
		return;
	}
	unsigned long off = (unsigned long)(pc - (uintptr_t)info.dli_fbase);
	const char *name = names ? hp_dumpsyms_names_lookup(names, look) : NULL;
	if (!name)
		name = info.dli_sname;
	if (name)
		hp_log_report("    #%u 0x%lx in %s (%s+0x%lx)", i, (unsigned long)pc, name,
			      info.dli_fname, off);
	else
		hp_log_report("    #%u 0x%lx (%s+0x%lx)", i, (unsigned long)pc, info.dli_fname, off);
}

static void print_group(struct hp_dumpsyms_names *names, const struct leak_group *g)
{
	const struct hp_stack *st = hp_stacktab_get(g->stack);

	hp_log_report("%s leak of %llu byte(s) in %llu object(s) allocated from:",
		      g->kind == HP_REACH_DIRECT ? "Direct" : "Indirect",
		      (unsigned long long)g->bytes, (unsigned long long)g->objects);
	unsigned depth = st ? st->depth : 0;
	for (unsigned i = 0; i < depth && i < FRAMES_SHOWN; i++)
		print_frame(names, i, st->frames[i]);
	if (depth > FRAMES_SHOWN)
		hp_log_report("    ... %u more frame%s", depth - FRAMES_SHOWN, plural_s(depth - FRAMES_SHOWN));
	hp_log_report("%s", "");
}

/* Sums the leaked blocks of r by (kind, stack) into groups; returns how
 * many, or -1 without memory. */
static int64_t group_leaks(const struct hp_reach *r, struct leak_group **out, size_t *mem)
{
	uint64_t leaked = r->direct_objects + r->indirect_objects, n = 0;
	struct leak_group *g;

	*mem = (leaked ? leaked : 1) * sizeof(*g);
	g = hp_pages_alloc(*mem);
	if (!g)
		return -1;
	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		if (b->kind != HP_REACH_DIRECT && b->kind != HP_REACH_INDIRECT)
			continue;
		const struct hp_counters *c = hp_counters_at(b->counters);
		g[n].kind = b->kind;
		g[n].stack = c ? c->stack : 0;
		g[n].bytes = b->size;
		g[n].objects = 1;
		n++;
	}
	sort_groups(g, n, by_key);
	uint64_t m = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (m && !by_key(&g[m - 1], &g[i])) {
			g[m - 1].bytes += g[i].bytes;
			g[m - 1].objects += g[i].objects;
		} else {
			g[m++] = g[i];
		}
	}
	sort_groups(g, m, by_size);
	*out = g;
	return (int64_t)m;
}

int hp_verdict_run(struct hp_verdict *v, int wait_ms)
{
	struct hp_reach r;
	const char *why;

	memset(v, 0, sizeof(*v));
	int err = hp_reach_run(&r, wait_ms, &why);
	if (err) {
		hp_log(HP_LOG_ERROR, "no reachability verdict: %s; the summary counts every block live at exit",
		       why);
		return err;
	}
	v->direct_bytes = r.direct_bytes;
	v->direct_objects = r.direct_objects;
	v->indirect_bytes = r.indirect_bytes;
	v->indirect_objects = r.indirect_objects;
	if (r.threads_stopped < r.threads)
		hp_log(HP_LOG_WARN, "%u of %u other threads did not stop for the leak scan: "
		       "their stacks were scanned whole, so a leak may be missed",
		       r.threads - r.threads_stopped, r.threads);
	struct leak_group *g = NULL;
	size_t mem = 0;
	int64_t n = group_leaks(&r, &g, &mem);
	struct hp_dumpsyms_names *names = n > 0 ? hp_dumpsyms_names_open() : NULL;
	for (int64_t i = 0; i < n; i++)
		print_group(names, &g[i]);
	hp_dumpsyms_names_close(names);
	v->contexts = n > 0 ? (uint64_t)n : 0;
	if (v->direct_objects + v->indirect_objects)
		hp_log_report("SUMMARY: heapprof: %llu byte(s) leaked in %llu allocation(s).",
			      (unsigned long long)(v->direct_bytes + v->indirect_bytes),
			      (unsigned long long)(v->direct_objects + v->indirect_objects));
	hp_pages_free(g, mem);
	hp_reach_release(&r);
	return 0;
}
