/*
 * budget.c -- heapprof check's heap budgets (see budget.h).
 *
 * Owns the rules and the judging.  With a budget, every process of the
 * tree writes a final dump at exit (prof_final, dump_peak): its header
 * has the process's exact peak ("# heapprof peak:") and allocation count
 * ("# heapprof temporary: <temporary>: <allocations>"), its rows what was
 * live at exit, and each stack's "# peak:" line its share of the peak and
 * its allocations.  A process is judged by the first GLOB= rule of each
 * kind whose glob matches its program's name (or path), else by the
 * kind's rule without a glob if it counts.  A process a budget applies
 * to that left no final dump (a signal killed it) has no figures and
 * fails the run, as a missing verdict does, unless --allow-missing.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/input.h"
#include "report/topstacks.h"
#include "report/util.h"
#include "budget.h"
#include "options.h"
#include "usage.h"

enum kind { PEAK, ALLOCS, LIVE, KINDS };

static const struct {
	const char *option;
	const char *what;	/* "peaked at", ... */
	int vi;			/* the stacks' value (enum hp_value) */
	int bytes;
	const char *stacks;	/* "its stacks at the peak" */
} kinds[KINDS] = {
	[PEAK] = { "--max-peak", "peak", HP_V_PEAK_SPACE, 1, "at the peak" },
	[ALLOCS] = { "--max-allocs", "allocations", HP_V_ALLOCATIONS, 0, "that allocated most" },
	[LIVE] = { "--max-live-at-exit", "live at exit", HP_V_INUSE_SPACE, 1, "live at exit" },
};

#define TOP_STACKS 3

/* ---- options ---------------------------------------------------------- */

static int parse_limit(enum kind k, const char *s, uint64_t *out)
{
	long long v;

	if (kinds[k].bytes) {
		if (hp_options_parse_size(s, &v))
			return -1;
	} else {
		char *end;
		if (!*s || *s == '-')
			return -1;
		v = strtoll(s, &end, 10);
		if (*end || end == s || v < 0)
			return -1;
	}
	*out = (uint64_t)v;
	return 0;
}

int hp_budget_option(struct hp_budgets *b, const char *opt, const char *val)
{
	int k;

	for (k = 0; k < KINDS && strcmp(opt, kinds[k].option); k++)
		;
	if (k == KINDS)
		return 0;
	const char *eq = strrchr(val, '=');
	const char *limit = eq ? eq + 1 : val;
	struct hp_budget_rule r = { .kind = k };
	if (eq == val || parse_limit(k, limit, &r.limit)) {
		hp_usage_error("check", "%s: '%s' is not %s", opt, val,
			       kinds[k].bytes ? "[GLOB=]SIZE (bytes, or with K, M, G: 512K, 10M)" :
						"[GLOB=]N (a number of allocations)");
		return -1;
	}
	r.glob = eq ? hp_util_xstrndup(val, (size_t)(eq - val)) : NULL;
	r.typed = hp_util_xstrdup(val);
	b->r = hp_util_xrealloc(b->r, (b->n + 1) * sizeof(*b->r));
	b->r[b->n++] = r;
	return 1;
}

const char *hp_budget_conf(const struct hp_budgets *b)
{
	return b->n ? ",prof_final:true,dump_peak:true,dump_keep:0" : "";
}

void hp_budget_release(struct hp_budgets *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->r[i].glob);
		free(b->r[i].typed);
	}
	free(b->r);
	memset(b, 0, sizeof(*b));
}

/* ---- judging ------------------------------------------------------------ */

/* The rule of kind k for p: the first matching glob, else the last one
 * without a glob when p counts; NULL when none applies. */
static const struct hp_budget_rule *rule_for(const struct hp_budgets *b, enum kind k,
					     const struct hp_check_proc *p)
{
	const struct hp_budget_rule *plain = NULL;

	for (size_t i = 0; i < b->n; i++) {
		const struct hp_budget_rule *r = &b->r[i];
		if (r->kind != (int)k)
			continue;
		if (!r->glob)
			plain = r;
		else if ((p->name && !fnmatch(r->glob, p->name, 0)) ||
			 (p->program && !fnmatch(r->glob, p->program, 0)))
			return r;
	}
	return p->counted ? plain : NULL;
}

/* <dir>/check.<pid>.<seq>.f[.<UTC>].heap with the highest seq: the
 * process's final dump (a malloc'd path), or NULL. */
static char *final_dump(const char *dir, long pid)
{
	char head[48];
	unsigned long best = 0;
	char *path = NULL;
	DIR *d = opendir(dir);

	if (!d)
		return NULL;
	int hn = snprintf(head, sizeof(head), "check.%ld.", pid);
	for (struct dirent *e; (e = readdir(d));) {
		const char *s = e->d_name;
		size_t len = strlen(s);
		if (strncmp(s, head, (size_t)hn) || len < 5 || strcmp(s + len - 5, ".heap"))
			continue;
		char *end;
		unsigned long seq = strtoul(s + hn, &end, 10);
		if (end == s + hn || (strncmp(end, ".f.", 3) && strcmp(end, ".f.heap")))
			continue;
		if (!path || seq >= best) {
			free(path);
			path = hp_util_xmalloc(strlen(dir) + len + 2);
			sprintf(path, "%s/%s", dir, s);
			best = seq;
		}
	}
	closedir(d);
	return path;
}

static void add_over(struct hp_check_proc *p, enum kind k, const struct hp_budget_rule *r,
		     uint64_t value, const char *dump)
{
	struct hp_check_over o = { kinds[k].option, r->typed, r->limit, value, kinds[k].bytes, NULL };
	int64_t total;

	hp_topstacks(dump, kinds[k].vi, TOP_STACKS, "        ", &o.stacks, &total);
	p->over = hp_util_xrealloc(p->over, (p->nover + 1) * sizeof(*p->over));
	p->over[p->nover++] = o;
}

/* Judges one process; returns 1 when it fails the run. */
static int judge(const struct hp_budgets *b, const char *dir, struct hp_check_proc *p,
		 struct hp_strtab *strs)
{
	const struct hp_budget_rule *rule[KINDS];
	int any = 0;

	for (int k = 0; k < KINDS; k++)
		any |= (rule[k] = rule_for(b, (enum kind)k, p)) != NULL;
	if (!any)
		return 0;
	char *dump = p->missing ? NULL : final_dump(dir, p->pid);
	if (!dump) {
		p->unmeasured = p->missing ? "it left no verdict" :
				"it left no final dump (killed by a signal, or it ended by exec "
				"into a program heapprof cannot enter)";
		return 1;
	}
	struct hp_input in = { 0 };
	hp_input_read(&in, dump, strs);
	int64_t live = 0;
	for (size_t i = 0; i < in.nstacks; i++)
		live = hp_util_sat_add(live, in.stacks[i].v[HP_V_INUSE_SPACE]);
	p->measured = 1;
	p->peak_bytes = in.peak_bytes > 0 ? (uint64_t)in.peak_bytes : 0;
	p->allocations = in.allocations > 0 ? (uint64_t)in.allocations : 0;
	p->live_bytes = live > 0 ? (uint64_t)live : 0;
	hp_input_release(&in);
	uint64_t value[KINDS] = { [PEAK] = p->peak_bytes, [ALLOCS] = p->allocations,
				  [LIVE] = p->live_bytes };
	for (int k = 0; k < KINDS; k++)
		if (rule[k] && value[k] > rule[k]->limit)
			add_over(p, (enum kind)k, rule[k], value[k], dump);
	free(dump);
	return p->nover > 0;
}

size_t hp_budget_judge(const struct hp_budgets *b, const char *dir, struct hp_check_proc *procs,
		       size_t n, struct hp_strtab *strs)
{
	size_t fails = 0;

	for (size_t i = 0; b->n && i < n; i++)
		fails += (size_t)judge(b, dir, &procs[i], strs);
	return fails;
}

/* ---- text -------------------------------------------------------------- */

static void amount(char *buf, size_t n, uint64_t v, int bytes)
{
	static const char *const u[] = { "KiB", "MiB", "GiB", "TiB" };

	if (!bytes || v < 1024) {
		snprintf(buf, n, bytes ? "%llu bytes" : "%llu", (unsigned long long)v);
		return;
	}
	double x = (double)v / 1024;
	int i = 0;
	for (; x >= 1024 && i < 3; i++)
		x /= 1024;
	snprintf(buf, n, "%.1f %s (%llu bytes)", x, u[i], (unsigned long long)v);
}

void hp_budget_text(struct hp_buf *out, const struct hp_check_proc *procs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct hp_check_proc *p = &procs[i];
		if (p->unmeasured)
			hp_buf_printf(out, "heapprof check: budget: %s (pid %ld): no figures: %s\n", p->name,
				      p->pid, p->unmeasured);
		for (size_t j = 0; j < p->nover; j++) {
			const struct hp_check_over *o = &p->over[j];
			char v[64], l[64];
			int k = 0;
			while (k < KINDS && strcmp(kinds[k].option, o->option))
				k++;
			amount(v, sizeof(v), o->value, o->bytes);
			amount(l, sizeof(l), o->limit, o->bytes);
			hp_buf_printf(out, "heapprof check: over budget: %s (pid %ld): %s %s, over %s %s; "
				      "its stacks %s:\n%s", p->name, p->pid, kinds[k].what, v, o->option, o->rule,
				      kinds[k].stacks, o->stacks);
		}
	}
}
