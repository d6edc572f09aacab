/*
 * verdict.c -- the leak verdict by reachability and its report (see
 * verdict.h).
 *
 * Owns nothing between calls.  Runs once, in the exit handler, inside the
 * guard: the scan (scan/reach.c) stops the other threads; the report is
 * written after they go on, with the names in the objects' ELF symbol
 * tables (output/dumpsyms.h) and, where the objects have DWARF line
 * information, file:line and inlined functions (output/srcline.h), as
 * heapprof report and heapprof check give them.  Groups leaks by
 * allocation stack and kind, direct before indirect, largest first, as
 * LeakSanitizer does.  The same leaks,
 * frame by frame, go to the verdict file (leak/verdictfile.h).
 *
 * In leak/: called by leak.c; calls suppress.c and verdictfile.c, scan/
 * for the verdict and output/ for the leak dump and the symbol names.
 */
#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <string.h>
#include <time.h>

#include "base/file.h"
#include "base/fmt.h"
#include "base/log.h"
#include "base/maths.h"
#include "base/pages.h"
#include "conf/conf.h"
#include "leak/suppress.h"
#include "leak/verdict.h"
#include "leak/verdictfile.h"
#include "output/dump.h"
#include "output/dumpname.h"
#include "output/dumpsyms.h"
#include "output/srcline.h"
#include "next/privheap.h"
#include "record/tls.h"
#include "output/totals.h"
#include "record/counters.h"
#include "record/sample.h"
#include "record/stacktab.h"
#include "record/switches.h"
#include "scan/reach.h"
#include "base/banned.h"

#define FRAMES_SHOWN 64   /* per leak; deeper frames are elided */

struct leak_group {
	uint8_t kind;
	uint32_t stack;
	uint32_t key;        /* its place in key order (its blocks, live) */
	uint64_t bytes;
	uint64_t cnt_fp;     /* objects, fixed point (record/sample.h) */
};

/* A live check's blocks by group: block_of[first[k]..first[k + 1]) are
 * the indexes in r->blocks of group key k's blocks. */
struct group_blocks {
	uint64_t *first;
	uint64_t *block_of;
	size_t first_mem, block_mem;
};

/* What a recorded block stands for: itself in exact mode; at a sampled
 * rate, the unbiased estimate its sample weight gives (record/sample.h),
 * as in the dumps. */
static void block_weight(const struct hp_reach_block *b, uint64_t *cnt_fp, uint64_t *bytes)
{
	const struct hp_counters *c = hp_counters_at(b->counters);

	if (!c || !c->lg) {
		*cnt_fp = HP_CNT_ONE;
		*bytes = b->size;
		return;
	}
	hp_sample_weight(b->size, c->lg, cnt_fp, bytes);
}

static uint64_t objects_of(uint64_t cnt_fp)
{
	return (cnt_fp + HP_CNT_ONE / 2) >> HP_CNT_SHIFT;
}

/* At a sampled rate, what the leak dump's row for g will read as in
 * heapprof report (dump.h): the figures the report then gives, so that
 * the leak report and the report of the leak dump agree.  A block of
 * zero bytes makes no row: its figures stay. */
static void as_read(struct leak_group *g, int lg)
{
	double rate = hp_maths_pow2(lg);
	uint64_t c, b, objs, bytes;

	hp_dump_preimage((double)g->cnt_fp / (double)HP_CNT_ONE, (double)g->bytes, rate,
			 HP_DUMP_NEAREST, &c, &b);
	if (!c)
		return;
	hp_dump_row_read(c, b, rate, &objs, &bytes);
	g->cnt_fp = objs << HP_CNT_SHIFT;
	g->bytes = bytes;
}

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

/* dladdr's symbol name for addr, only when that symbol holds it (dladdr
 * gives the nearest below, which in a stripped program is anything). */
static const char *symbol_holding(uintptr_t addr)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1((void *)addr, &info, (void **)&sym, RTLD_DL_SYMENT) || !info.dli_sname || !sym)
		return NULL;
	uintptr_t at = (uintptr_t)info.dli_saddr;
	if (sym->st_shndx == SHN_UNDEF || addr < at || (sym->st_size ? addr - at >= sym->st_size : addr != at))
		return NULL;
	return info.dli_sname;
}

static size_t underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* The report's lines for frame i at pc, from *k on: with DWARF line
 * information, a line per function inlined there (innermost first) and
 * the function that holds them, each with its file:line; true if so.
 * symtab is the symbol tables' name for the holder (or NULL): its public
 * one (strdup), which it is shown by when DWARF's has more leading
 * underscores (glibc's __strdup, as heapprof report shows it). */
static int print_srclines(struct hp_srcline *src, unsigned *k, uintptr_t pc, const char *obj,
			  uintptr_t addr, const char *symtab)
{
	struct hp_srcline_frame f[HP_SRCLINE_INLINE_MAX];
	size_t n = hp_srcline_lookup(src, obj, addr, f, HP_SRCLINE_INLINE_MAX);

	for (size_t j = 0; j < n; j++) {
		const char *fn = f[j].function;
		if (j + 1 == n && fn && symtab && !strncmp(fn, "__", 2) &&
		    underscores(symtab) < underscores(fn))
			fn = symtab;
		if (fn && f[j].file && f[j].line > 0)
			hp_log_report("    #%u 0x%lx in %s %s:%d", (*k)++, (unsigned long)pc, fn,
				      f[j].file, f[j].line);
		else if (f[j].file && f[j].line > 0)
			hp_log_report("    #%u 0x%lx %s:%d", (*k)++, (unsigned long)pc, f[j].file, f[j].line);
	}
	return n > 0;
}

/* Frame i of a leak's stack: a line of the report when print (numbered
 * from *k, which counts inlined frames too), a line of the verdict file
 * when vf. */
static void emit_frame(struct hp_dumpsyms_names *names, struct hp_srcline *src, unsigned i, unsigned *k,
		       uintptr_t pc, int print, struct hp_verdictfile *vf)
{
	Dl_info info;
	struct link_map *lm = NULL;
	/* Caller frames are return addresses: look up the call. */
	uintptr_t look = i ? pc - 1 : pc;
	/* A second mapping of an object's code is that object's. */
	uintptr_t at = hp_dumpsyms_names_home(names, look);
	const char *name = names ? hp_dumpsyms_names_lookup(names, look) : NULL;
	/* The object by its absolute path (the program's too: dladdr gives
	 * its argv[0] as typed), and the address as its ELF file numbers it. */
	uintptr_t bias = 0;
	const char *obj = names ? hp_dumpsyms_names_object(names, look, &bias) : NULL;
	/* dladdr reads an object's dynamic symbols one by one (a few
	 * thousand in perl's, for each frame): asked only for what the
	 * symbol tables did not say. */
	int have = (!name || !obj) && dladdr1((void *)at, &info, (void **)&lm, RTLD_DL_LINKMAP) && info.dli_fname;

	if (!name && have)
		name = symbol_holding(at);
	if (!obj && have && lm && info.dli_fname[0] == '/') {
		obj = info.dli_fname;
		bias = lm->l_addr + (look - at);
	}
	if (vf)
		hp_verdictfile_frame(vf, pc, obj, pc - bias, name);
	if (!print || (src && obj && print_srclines(src, k, pc, obj, look - bias, name)))
		return;
	if (!obj && !have) {
		hp_log_report("    #%u 0x%lx", (*k)++, (unsigned long)pc);
		return;
	}
	const char *module = obj ? obj : info.dli_fname;
	unsigned long off = obj ? (unsigned long)(pc - bias) :
			    (unsigned long)(at + (pc - look) - (uintptr_t)info.dli_fbase);
	if (name)
		hp_log_report("    #%u 0x%lx in %s (%s+0x%lx)", (*k)++, (unsigned long)pc, name, module, off);
	else
		hp_log_report("    #%u 0x%lx (%s+0x%lx)", (*k)++, (unsigned long)pc, module, off);
}

static void emit_group(struct hp_dumpsyms_names *names, struct hp_srcline *src, const struct leak_group *g,
		       int print, struct hp_verdictfile *vf, int estimated, const struct hp_reach *r,
		       const struct group_blocks *gb)
{
	const struct hp_stack *st = hp_stacktab_get(g->stack);
	int direct = g->kind == HP_REACH_DIRECT;
	uint64_t objects = objects_of(g->cnt_fp);

	if (print)
		hp_log_report("%s leak of %s%llu byte(s) in %s%llu object(s) allocated from:",
			      direct ? "Direct" : "Indirect", estimated ? "~" : "",
			      (unsigned long long)g->bytes, estimated ? "~" : "", (unsigned long long)objects);
	if (vf)
		hp_verdictfile_leak(vf, direct, g->bytes, objects);
	unsigned depth = st ? st->depth : 0, k = 0;
	struct hp_stack_frames it = st ? hp_stacktab_frames_of(st) : (struct hp_stack_frames){ 0 };
	for (unsigned i = 0; i < depth && i < FRAMES_SHOWN; i++)
		emit_frame(names, src, i, &k, hp_stacktab_next(&it), print, vf);
	if (vf && gb && gb->first)
		for (uint64_t i = gb->first[g->key]; i < gb->first[g->key + 1]; i++) {
			const struct hp_reach_block *b = &r->blocks[gb->block_of[i]];
			hp_verdictfile_block(vf, b->start, b->size);
		}
	if (vf)
		hp_verdictfile_leak_end(vf);
	if (!print)
		return;
	if (depth > FRAMES_SHOWN)
		hp_log_report("    ... %u more frame%s", depth - FRAMES_SHOWN, plural_s(depth - FRAMES_SHOWN));
	hp_log_report("%s", "");
}

/* ---- suppressions ---------------------------------------------------- */

/* Matches one frame's functions and source files from DWARF, in
 * LeakSanitizer's order (the functions inlined there first, then the one
 * that holds them, each with its file).  Returns the rule, -1 if none
 * matched, -2 without line information. */
static int frame_rule_dwarf(struct hp_suppress *set, struct hp_srcline *src, struct hp_suppress_frame *f,
			    uintptr_t addr)
{
	struct hp_srcline_frame sf[HP_SRCLINE_INLINE_MAX];
	size_t k = hp_srcline_lookup(src, f->module, addr, sf, HP_SRCLINE_INLINE_MAX);
	const char *symtab = f->function;

	if (!k)
		return -2;
	for (size_t j = 0; j < k; j++) {
		f->function = sf[j].function ? sf[j].function : symtab;
		f->file = sf[j].file;
		int rule = hp_suppress_match_stack(set, f, 1);
		if (rule >= 0)
			return rule;
	}
	return -1;
}

/* The rule that suppresses stack id st, or -1: every frame's module (by
 * its absolute path, the program's from /proc/self/exe, as LeakSanitizer
 * names modules; dladdr would give the program's argv[0] as typed), its
 * functions and source files matched as LeakSanitizer does: from DWARF
 * when src is open and the object has line information (the functions
 * inlined at the address too), else the symbol tables' function. */
static int stack_rule(struct hp_suppress *set, struct hp_dumpsyms_names *names, struct hp_srcline *src,
		      uint32_t st)
{
	const struct hp_stack *stk = hp_stacktab_get(st);
	struct hp_suppress_frame f[FRAMES_SHOWN];
	unsigned n = 0;

	if (!stk)
		return -1;
	struct hp_stack_frames it = hp_stacktab_frames_of(stk);
	for (unsigned i = 0; i < stk->depth && n < FRAMES_SHOWN; i++) {
		uintptr_t look = hp_stacktab_next(&it) - (i ? 1 : 0);
		uintptr_t at = hp_dumpsyms_names_home(names, look);
		uintptr_t bias;
		const char *obj = names ? hp_dumpsyms_names_object(names, look, &bias) : NULL;
		f[n].function = names ? hp_dumpsyms_names_lookup(names, look) : NULL;
		/* dladdr only for what the symbol tables did not say (as in
		 * emit_frame). */
		Dl_info info;
		int have = (!obj || !f[n].function) && dladdr((void *)at, &info);
		f[n].module = obj ? obj : have ? info.dli_fname : NULL;
		if (!f[n].function && have)
			f[n].function = symbol_holding(at);
		f[n].file = NULL;
		/* A frame's name lives until the next lookup: match as we go. */
		int rule = src && obj ? frame_rule_dwarf(set, src, &f[n], look - bias) : -2;
		if (rule == -2)
			rule = hp_suppress_match_stack(set, &f[n], 1);
		if (rule >= 0)
			return rule;
		n++;
	}
	return -1;
}

/* Marks the blocks the suppressions cover (their own stack matches, or
 * that of the direct leak they were found from, as LeakSanitizer ignores
 * what a suppressed block reaches). */
static void apply_suppressions(struct hp_reach *r, struct hp_suppress *set,
			       struct hp_dumpsyms_names *names, struct hp_srcline *src)
{
	uint32_t nst = hp_stacktab_count();
	size_t mem = ((size_t)nst + 1) * sizeof(int32_t);
	int32_t *rule_of = hp_pages_alloc(mem);   /* rule + 2; 0: not yet known */

	if (!rule_of || !set->nrules)
		goto out;
	for (uint64_t i = 0; i < r->nblocks; i++) {
		struct hp_reach_block *b = &r->blocks[i];
		if (b->kind != HP_REACH_DIRECT && b->kind != HP_REACH_INDIRECT)
			continue;
		int rule = -1, own = 0;
		for (int pass = 0; pass < 2 && rule < 0; pass++) {
			const struct hp_reach_block *k = pass ? &r->blocks[b->leader] : b;
			const struct hp_counters *c = hp_counters_at(k->counters);
			uint32_t st = c ? c->stack : 0;
			if (!st || st > nst)
				continue;
			if (!rule_of[st])
				rule_of[st] = stack_rule(set, names, src, st) + 2;
			rule = rule_of[st] - 2;
			own = rule >= 0 && !pass;
		}
		if (rule < 0)
			continue;
		uint64_t cnt, bytes;
		block_weight(b, &cnt, &bytes);
		if (own)
			hp_suppress_hit(set, rule, 1, bytes);
		b->kind = HP_REACH_SUPPRESSED;
	}
out:
	hp_pages_free(rule_of, mem);
}

/* leak_suppressions, and the built-in ones.  A file that cannot be read
 * (it said why) leaves the gate unconfigured: what it would have hidden
 * is unknown, so prof_leak_error fails closed (leak.c). */
static void load_suppressions(struct hp_suppress *set, int live)
{
	char what[HP_CONF_FAULT_MAX];

	hp_suppress_init(set);
	/* heapprof check said what is wrong with the file, once; a check of
	 * the running process prints nothing, and leaves the exit's gate to
	 * the exit (the file may be readable again by then). */
	set->quiet = !hp_conf.leak_suppressions_warn || live;
	if (hp_conf.leak_suppressions[0] && hp_suppress_read_file(set, hp_conf.leak_suppressions) && !live) {
		hp_fmt(what, sizeof(what), "leak_suppressions:%s (the file cannot be read)",
		       hp_conf.leak_suppressions);
		hp_conf_gate_mark(&hp_conf_table[HP_CONF_O_leak_suppressions], what);
	}
	hp_suppress_add_builtin(set);
}

static void print_suppressions(const struct hp_suppress *set)
{
	char buf[8192];
	size_t n = hp_suppress_format_report(set, buf, sizeof(buf));

	if (n >= sizeof(buf))
		n = sizeof(buf) - 1;
	for (char *line = buf, *end = buf + n; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		if (!nl)
			nl = end;
		hp_log_report("%.*s", (int)(nl - line), line);
		line = nl + 1;
	}
}

/* ---- the leak dump ------------------------------------------------------ */

/* A heap profile of exactly the verdict's leaks (direct and indirect, not
 * the suppressed), named <prefix>.<pid>.<seq>.l<n>.<time>.heap: what
 * "heapprof report" (and jeprof, pprof) then show is what the summary
 * counted, to the byte.  Always the gperftools layout, which both read. */
static int write_leak_dump(const struct hp_reach *r, char *path, size_t cap)
{
	struct hp_totals t;
	int err;

	path[0] = '\0';
	if (!hp_conf.prof_prefix[0])
		return ENOENT;
	memset(&t, 0, sizeof(t));
	t.lg = r->exact ? 0 : HP_LOAD(&hp_switches.lg_sample);
	t.nstacks = hp_stacktab_count();
	size_t mem = ((size_t)t.nstacks + 1) * sizeof(*t.by_stack);
	t.by_stack = hp_pages_alloc(mem);
	if (!t.by_stack)
		return ENOMEM;
	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		if (b->kind != HP_REACH_DIRECT && b->kind != HP_REACH_INDIRECT)
			continue;
		const struct hp_counters *c = hp_counters_at(b->counters);
		if (!c || !c->stack || c->stack > t.nstacks)
			continue;
		uint64_t cnt, bytes;
		block_weight(b, &cnt, &bytes);
		t.by_stack[c->stack].live_cnt += (int64_t)cnt;
		t.by_stack[c->stack].live_bytes += (int64_t)bytes;
	}
	err = hp_dumpname_next(hp_conf.prof_prefix, 'l', path, cap);
	if (!err)
		err = hp_dumpname_mkdirs(path);
	if (!err)
		err = hp_dump_write(path, &t, HP_CONF_DUMP_GPERFTOOLS, 0);
	if (err)
		hp_log(HP_LOG_ERROR, "no leak dump: %s: %s", path[0] ? path : hp_conf.prof_prefix,
		       strerrordesc_np(err));
	hp_pages_free(t.by_stack, mem);
	return err;
}

/* The verdict's totals: the leaked and the suppressed blocks, weighed. */
static void sum_blocks(struct hp_verdict *v, const struct hp_reach *r)
{
	uint64_t dcnt = 0, icnt = 0, scnt = 0;

	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		uint64_t cnt, bytes;
		if (b->kind != HP_REACH_DIRECT && b->kind != HP_REACH_INDIRECT && b->kind != HP_REACH_SUPPRESSED)
			continue;
		block_weight(b, &cnt, &bytes);
		if (b->kind == HP_REACH_DIRECT) {
			v->direct_bytes += bytes;
			dcnt += cnt;
		} else if (b->kind == HP_REACH_INDIRECT) {
			v->indirect_bytes += bytes;
			icnt += cnt;
		} else {
			v->suppressed_bytes += bytes;
			scnt += cnt;
		}
		if (b->kind != HP_REACH_SUPPRESSED)
			v->sampled_blocks++;
	}
	v->direct_objects = objects_of(dcnt);
	v->indirect_objects = objects_of(icnt);
	v->suppressed_objects = objects_of(scnt);
}

/* Sums the leaked blocks of r by (kind, stack) into groups; returns how
 * many, or -1 without memory. */
/* The group (in g, m groups in key order) of leaked block b. */
static uint64_t group_of(const struct hp_reach_block *b, const struct leak_group *g, uint64_t m)
{
	const struct hp_counters *c = hp_counters_at(b->counters);
	struct leak_group key = { .kind = b->kind, .stack = c ? c->stack : 0 };
	uint64_t lo = 0, hi = m;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (by_key(&g[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Fills gb (a counting sort of the leaked blocks by group); without
 * memory, leaves gb->first NULL: the file then lists no blocks. */
static void blocks_by_group(const struct hp_reach *r, const struct leak_group *g, uint64_t m,
			    struct group_blocks *gb)
{
	gb->first_mem = (m + 2) * sizeof(*gb->first);
	gb->block_mem = (r->nblocks ? r->nblocks : 1) * sizeof(*gb->block_of);
	gb->first = hp_pages_alloc(gb->first_mem);
	gb->block_of = hp_pages_alloc(gb->block_mem);
	if (!gb->first || !gb->block_of) {
		hp_pages_free(gb->first, gb->first_mem);
		hp_pages_free(gb->block_of, gb->block_mem);
		gb->first = gb->block_of = NULL;
		return;
	}
	memset(gb->first, 0, gb->first_mem);
	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		if (b->kind == HP_REACH_DIRECT || b->kind == HP_REACH_INDIRECT)
			gb->first[group_of(b, g, m) + 2]++;
	}
	/* first[k + 1]: where group k's blocks start, then (as they are
	 * placed) end. */
	for (uint64_t k = 2; k < m + 2; k++)
		gb->first[k] += gb->first[k - 1];
	for (uint64_t i = 0; i < r->nblocks; i++) {
		const struct hp_reach_block *b = &r->blocks[i];
		if (b->kind == HP_REACH_DIRECT || b->kind == HP_REACH_INDIRECT)
			gb->block_of[gb->first[group_of(b, g, m) + 1]++] = i;
	}
}

static void release_blocks_by_group(struct group_blocks *gb)
{
	hp_pages_free(gb->first, gb->first_mem);
	hp_pages_free(gb->block_of, gb->block_mem);
}

static int64_t group_leaks(const struct hp_reach *r, struct leak_group **out, size_t *mem,
			   struct group_blocks *gb)
{
	uint64_t leaked = r->nblocks, n = 0;
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
		block_weight(b, &g[n].cnt_fp, &g[n].bytes);
		n++;
	}
	sort_groups(g, n, by_key);
	uint64_t m = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (m && !by_key(&g[m - 1], &g[i])) {
			g[m - 1].bytes += g[i].bytes;
			g[m - 1].cnt_fp += g[i].cnt_fp;
		} else {
			g[m++] = g[i];
		}
	}
	for (uint64_t i = 0; i < m; i++)
		g[i].key = (uint32_t)i;
	if (gb)
		blocks_by_group(r, g, m, gb);
	sort_groups(g, m, by_size);
	*out = g;
	return (int64_t)m;
}

int hp_verdict_printable(void)
{
	return hp_conf.leak_report && hp_log_can_print();
}

/* The names of the threads that did not stop, from /proc. */
static void note_unstopped(struct hp_verdictfile *vf, const struct hp_reach *r)
{
	for (unsigned i = 0; i < r->nunstopped; i++) {
		char path[64], name[64];
		size_t n = 0;
		hp_fmt(path, sizeof(path), "/proc/self/task/%d/comm", (int)r->unstopped[i]);
		if (hp_file_read_all(path, name, sizeof(name) - 1, &n) && !n)
			n = 0;
		while (n && name[n - 1] == '\n')
			n--;
		name[n] = '\0';
		hp_verdictfile_unstopped(vf, (int)r->unstopped[i], n ? name : "?");
	}
}

/* This thread's allocations from the private heap (next/privheap.h), or
 * no more: inside the guard, whose countdown is "never", a countdown of
 * 0 sends each of them to the slow path, which makes it there.  Only when
 * the library was preloaded: attached (heapprof attach), it takes the
 * calls of the objects loaded before it only, and libdw, loaded now,
 * would hand a private block to the C library's free. */
static void private_heap(bool on)
{
	/* Signals wait meanwhile: a handler that allocated while the
	 * private heap's lock is held would wait on it for ever. */
	static sigset_t before;
	sigset_t all;

	if (HP_LOAD(&hp_switches.attached) != HP_ATTACH_NONE)
		return;
	if (on) {
		sigfillset(&all);
		pthread_sigmask(SIG_BLOCK, &all, &before);
		hp_privheap_enter();
		hp_tls_set_countdown(&hp_tls, 0);
	} else {
		hp_tls_set_countdown(&hp_tls, UINT64_MAX);
		hp_privheap_leave();
		pthread_sigmask(SIG_SETMASK, &before, NULL);
	}
}

/* The verdict at exit (live NULL) or of the running process. */
static int verdict(struct hp_verdict *v, int wait_ms, int status, const struct hp_stack_entry *entry,
		   const struct hp_verdict_live *live)
{
	struct hp_reach r;
	const char *why;
	struct group_blocks gb = { 0 };

	struct timespec t0, t1;

	memset(v, 0, sizeof(*v));
	/* Checked before the scan: the scan must not be what changes it.
	 * A check of the running process prints nothing: the program's
	 * output stays its own. */
	int print = !live && hp_verdict_printable();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int err = hp_reach_run(&r, wait_ms, entry, !live, &why);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (err) {
		v->error = why;
		if (print)
			hp_log(HP_LOG_ERROR, "no reachability verdict: %s; the summary counts every block live at exit",
			       why);
		if (!live) {
			hp_verdictfile_error(status, why);
		} else if (live->path) {
			struct hp_verdictfile *vf = hp_verdictfile_begin_live(live->path, live->seq, 0,
									      live->attached_at, live->blocks);
			if (vf) {
				hp_verdictfile_error_line(vf, why);
				hp_verdictfile_commit(vf);
			}
		}
		return err;
	}
	hp_log(HP_LOG_DEBUG, "leak scan: %llu blocks, %llu bytes of roots (%s, %d ranges of the next allocator's), "
	       "%u of %u other threads stopped, %u lost; index %u ms (%u thread%s), roots %u ms, other mappings %u ms%s, "
	       "cliques %u ms; "
	       "paused %llu us; %lld ms",
	       (unsigned long long)r.recorded, (unsigned long long)r.root_bytes, r.exact ? "exact" : "sampled",
	       r.alloc_ranges, r.threads_stopped, r.threads, (unsigned)r.nblocks, r.us_index / 1000,
	       r.index_threads, r.index_threads == 1 ? "" : "s", r.us_roots / 1000, r.us_other / 1000,
	       r.heap_beside ? " (the main heap walked beside the marking)" : "", r.us_lost / 1000, (unsigned long long)r.us_paused,
	       (long long)((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000));
	v->threads = r.threads;
	v->threads_stopped = r.threads_stopped;
	v->pause_us = r.us_paused;
	if (print && r.threads_stopped < r.threads)
		hp_log(HP_LOG_WARN, "%u of %u other threads did not stop for the leak scan: "
		       "their stacks were scanned whole, so a leak may be missed",
		       r.threads - r.threads_stopped, r.threads);
	v->sampled_lg = r.exact ? 0 : HP_LOAD(&hp_switches.lg_sample);
	struct hp_dumpsyms_names *names = r.direct_objects ? hp_dumpsyms_names_open() : NULL;
	struct hp_suppress set;
	load_suppressions(&set, live != NULL);
	/* Source files and inlined functions, for the suppressions and for
	 * the printed report (heapprof check symbolizes the verdict file
	 * itself). */
	/* At exit, what libdw and the dynamic loader allocate for it comes
	 * from the private heap (next/privheap.h): the host's heap stays as
	 * the program left it, and glibc does not consolidate it first. */
	if (!live)
		private_heap(true);
	struct hp_srcline *src = set.nrules && r.direct_objects ? hp_srcline_open() : NULL;
	apply_suppressions(&r, &set, names, src);
	sum_blocks(v, &r);
	if (r.exact)
		v->sampled_blocks = 0;
	struct leak_group *g = NULL;
	size_t mem = 0;
	int64_t n = group_leaks(&r, &g, &mem, live && live->path && live->blocks ? &gb : NULL);
	if (!r.exact && n > 0) {
		/* The totals too: the leak dump's rows as read (one per stack,
		 * direct and indirect together when a stack has both). */
		uint64_t dcnt = 0, icnt = 0;
		v->direct_bytes = v->indirect_bytes = 0;
		for (int64_t i = 0; i < n; i++) {
			as_read(&g[i], v->sampled_lg);
			if (g[i].kind == HP_REACH_DIRECT) {
				v->direct_bytes += g[i].bytes;
				dcnt += g[i].cnt_fp;
			} else {
				v->indirect_bytes += g[i].bytes;
				icnt += g[i].cnt_fp;
			}
		}
		v->direct_objects = objects_of(dcnt);
		v->indirect_objects = objects_of(icnt);
		sort_groups(g, (uint64_t)n, by_size);
	}
	struct hp_verdictfile *vf = NULL;
	if (!live)
		vf = hp_verdictfile_begin(status);
	else if (live->path)
		vf = hp_verdictfile_begin_live(live->path, live->seq, r.us_paused, live->attached_at, live->blocks);
	if (vf) {
		hp_verdictfile_counts(vf, v);
		for (int i = -1; (i = hp_suppress_next_used(&set, i)) >= 0;)
			hp_verdictfile_suppression(vf, HP_LOAD(&set.rules[i].hits),
						   HP_LOAD(&set.rules[i].bytes), set.rules[i].templ);
		if (live)
			note_unstopped(vf, &r);
	}
	if (!src && print && n > 0)
		src = hp_srcline_open();
	for (int64_t i = 0; i < n; i++)
		emit_group(names, src, &g[i], print, vf, !r.exact, &r, &gb);
	hp_srcline_close(src);
	if (!live)
		private_heap(false);
	if (vf)
		hp_verdictfile_commit(vf);
	hp_dumpsyms_names_close(names);
	release_blocks_by_group(&gb);
	v->contexts = n > 0 ? (uint64_t)n : 0;
	if (print && n > 0 && r.exact)
		hp_log_report("SUMMARY: heapprof: %llu byte(s) leaked in %llu allocation(s).",
			      (unsigned long long)(v->direct_bytes + v->indirect_bytes),
			      (unsigned long long)(v->direct_objects + v->indirect_objects));
	else if (print && n > 0)
		hp_log_report("SUMMARY: heapprof: ~%llu byte(s) leaked in ~%llu allocation(s), estimated from "
			      "%llu sampled block%s (lg_prof_sample:%d).",
			      (unsigned long long)(v->direct_bytes + v->indirect_bytes),
			      (unsigned long long)(v->direct_objects + v->indirect_objects),
			      (unsigned long long)v->sampled_blocks, plural_s(v->sampled_blocks), v->sampled_lg);
	if (print && hp_conf.print_suppressions)
		print_suppressions(&set);
	/* prof_final:false asks for no dump at exit: none of the leaks either;
	 * a check of the running process writes none. */
	v->dump_err = ENOENT;
	if (!live && hp_conf.prof_final && n > 0)
		v->dump_err = write_leak_dump(&r, v->dump, sizeof(v->dump));
	hp_suppress_release(&set);
	hp_pages_free(g, mem);
	hp_reach_release(&r);
	return 0;
}

int hp_verdict_run(struct hp_verdict *v, int wait_ms, int status, const struct hp_stack_entry *entry)
{
	return verdict(v, wait_ms, status, entry, NULL);
}

int hp_verdict_live(struct hp_verdict *v, int wait_ms, const struct hp_stack_entry *entry,
		    const struct hp_verdict_live *live)
{
	return verdict(v, wait_ms, 0, entry, live);
}
