/*
 * profile.c -- building the profile from dumps: locations, functions,
 * nodes and stacks; allocator trimming and --focus/--ignore (see
 * profile.h).
 *
 * Owns the symbolization order: every distinct location is symbolized
 * once, in the order first seen, whatever the number of dumps and stacks
 * that share it.  Addresses are made canonical per module (file offset),
 * so that dumps of one binary from different runs (ASLR) and a --base
 * from another run add and cancel stack by stack.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "index.h"
#include "names.h"
#include "profile.h"
#include "strtab.h"
#include "util.h"

enum loc_kind {
	LK_MODULE = 1,	/* id = module id, addr = file offset */
	LK_STALE,	/* same, but the file is not the one mapped */
	LK_SYMBOL,	/* id = input number, addr = the looked-up address */
	LK_REGION,	/* id = region name pointer, addr = offset in it */
	LK_RAW,		/* addr = the address */
};

struct hp_lockey {
	int kind;
	uintptr_t id;
	uint64_t addr;
};

/* Module mappings already turned into pprof mappings: canonical bases. */
struct hp_canon {
	const struct hp_module *mod;
	uint64_t map_offset;	/* which of its mappings */
	uint64_t base;		/* first dump's start - offset */
	uint32_t mapping;
};

/* Per-input state while adding one dump. */
struct adding {
	struct hp_profile *p;
	const struct hp_input *in;
	uint32_t input_no;
	struct hp_module **mapmod;	/* per map index, lazily */
	const char **maperr;
	unsigned char *mapdone;
};

/* ---- nodes and functions --------------------------------------------- */

static int node_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct hp_profile *p = ctx;

	return p->nodes[item] == key;
}

static uint32_t node_get(struct hp_profile *p, const char *name)
{
	uint64_t h = hp_index_hash_u64((uintptr_t)name);
	int64_t i = hp_index_find(&p->node_ix, h, node_eq, p, name);

	if (i >= 0)
		return (uint32_t)i;
	hp_util_grow(&p->nodes, &p->cap_nodes, p->nnodes + 1, sizeof(*p->nodes));
	p->nodes[p->nnodes] = name;
	hp_index_add(&p->node_ix, h, (uint32_t)p->nnodes);
	return (uint32_t)p->nnodes++;
}

static int func_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct hp_profile *p = ctx;

	return p->funcs[item].sys == key;
}

/* The function named sys (interned) as the binary spells it. */
static uint32_t func_get(struct hp_profile *p, const char *sys, int symbolized,
			 const char *file)
{
	uint64_t h = hp_index_hash_u64((uintptr_t)sys);
	int64_t i = hp_index_find(&p->func_ix, h, func_eq, p, sys);

	if (i >= 0)
		return (uint32_t)i;
	struct hp_func f = { .sys = sys, .full = sys, .name = sys, .file = file,
			     .symbolized = symbolized ? 1 : 0 };
	if (symbolized) {
		char *dm = hp_names_demangle(sys);
		if (dm) {
			char *clean = hp_strtab_sanitize(dm, strlen(dm));
			f.full = hp_strtab_intern_str(&p->strs, clean);
			free(clean);
			free(dm);
		}
		if (!p->shape.full_names) {
			char *s = hp_names_short(f.full);
			f.name = hp_strtab_intern_str(&p->strs, s);
			free(s);
		} else {
			f.name = f.full;
		}
		f.alloc = hp_names_is_alloc(sys) || hp_names_is_alloc(f.full);
	}
	f.node = node_get(p, f.name);
	hp_util_grow(&p->funcs, &p->cap_funcs, p->nfuncs + 1, sizeof(*p->funcs));
	p->funcs[p->nfuncs] = f;
	hp_index_add(&p->func_ix, h, (uint32_t)p->nfuncs);
	return (uint32_t)p->nfuncs++;
}

static void add_frame(struct hp_profile *p, uint32_t func, const char *file, int line)
{
	struct hp_frame fr = { .func = func, .file = file, .line = line };

	fr.node = p->funcs[func].node;
	if (p->shape.lines && file) {
		struct hp_buf b = { 0 };
		hp_buf_printf(&b, "%s %s:%d", p->funcs[func].name, file, line);
		fr.node = node_get(p, hp_strtab_intern_str(&p->strs, b.p));
		hp_buf_release(&b);
	}
	hp_util_grow(&p->frames, &p->cap_frames, p->nframes + 1, sizeof(*p->frames));
	p->frames[p->nframes++] = fr;
}

/* A frame with a made-up name: "prog+0x1234", "[vdso]+0x10", "0x7f..". */
static void add_named_frame(struct hp_profile *p, const char *where, uint64_t off)
{
	struct hp_buf name = { 0 };

	if (where)
		hp_buf_printf(&name, "%s+0x%llx", where, (unsigned long long)off);
	else
		hp_buf_printf(&name, "0x%llx", (unsigned long long)off);
	add_frame(p, func_get(p, hp_strtab_intern_str(&p->strs, name.p), 0, NULL), NULL, 0);
	hp_buf_release(&name);
}

void hp_profile_init(struct hp_profile *p, const struct hp_shape *shape)
{
	memset(p, 0, sizeof(*p));
	p->shape = *shape;
	p->mods.strs = &p->strs;
	p->mods.binaries = shape->binaries;
	p->mods.nbinaries = shape->nbinaries;
	p->mods.debug_dirs = shape->debug_dirs;
	p->mods.ndebug_dirs = shape->ndebug_dirs;
	p->sym = hp_symbolize_new(&p->strs, shape->debug_dirs, shape->ndebug_dirs);
	p->no_frames_func = func_get(p, hp_strtab_intern_str(&p->strs, "[no frames]"), 0, NULL);
}

/* ---- locations ------------------------------------------------------- */

static int loc_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct hp_profile *p = ctx;
	const struct hp_lockey *a = &p->loc_keys[item], *b = key;

	return a->kind == b->kind && a->id == b->id && a->addr == b->addr;
}

static uint32_t new_loc(struct hp_profile *p, const struct hp_lockey *k, uint64_t h)
{
	uint32_t id = (uint32_t)p->nlocs;

	hp_util_grow(&p->locs, &p->cap_locs, p->nlocs + 1, sizeof(*p->locs));
	hp_util_grow(&p->loc_keys, &p->cap_loc_keys, p->nlocs + 1, sizeof(*p->loc_keys));
	memset(&p->locs[id], 0, sizeof(p->locs[id]));
	p->loc_keys[id] = *k;
	p->locs[id].frame0 = (uint32_t)p->nframes;
	p->nlocs++;
	hp_index_add(&p->loc_ix, h, id);
	return id;
}

/* The pprof mapping and canonical base for a module's mapping m. */
static const struct hp_canon *canon_for(struct hp_profile *p, const struct hp_module *mod,
					const struct hp_map *m)
{
	for (size_t i = 0; i < p->ncanons; i++) {
		struct hp_canon *c = &p->canons[i];
		if (c->mod != mod || c->map_offset != m->offset)
			continue;
		/* A whole segment (hp_module_text) after the piece of it that
		 * starts it: the pprof mapping covers both. */
		struct hp_mapping *mp = &p->mappings[c->mapping - 1];
		if (c->base == m->start - m->offset && m->end > mp->limit)
			mp->limit = m->end;
		return c;
	}
	hp_util_grow(&p->mappings, &p->cap_mappings, p->nmappings + 1, sizeof(*p->mappings));
	p->mappings[p->nmappings] = (struct hp_mapping){
		.start = m->start, .limit = m->end, .offset = m->offset, .file = mod->path,
		.build_id = mod->build_id,
	};
	hp_util_grow(&p->canons, &p->cap_canons, p->ncanons + 1, sizeof(*p->canons));
	p->canons[p->ncanons] = (struct hp_canon){ mod, m->offset, m->start - m->offset,
						   (uint32_t)++p->nmappings };
	return &p->canons[p->ncanons++];
}

/* Frames from a symbol section entry: "outer--inner", outermost first. */
static void symbol_frames(struct hp_profile *p, const char *names)
{
	const char *parts[HP_SYMBOLIZE_INLINE_MAX];
	size_t lens[HP_SYMBOLIZE_INLINE_MAX], n = 0;

	for (const char *s = names; n < HP_SYMBOLIZE_INLINE_MAX;) {
		const char *sep = strstr(s, "--");
		parts[n] = s;
		lens[n++] = sep ? (size_t)(sep - s) : strlen(s);
		if (!sep)
			break;
		s = sep + 2;
	}
	for (size_t i = n; i-- > 0;) {
		size_t len = lens[i];
		while (len && parts[i][len - 1] == ' ')
			len--;
		if (!len)
			continue;
		const char *name = hp_strtab_intern(&p->strs, parts[i], len);
		add_frame(p, func_get(p, name, 1, NULL), NULL, 0);
	}
}

static void module_frames(struct hp_profile *p, struct hp_module *mod, uint64_t off,
			  const char *err, struct hp_loc *loc)
{
	struct hp_symres r[HP_SYMBOLIZE_INLINE_MAX];
	uint64_t vaddr;
	size_t n = 0;

	if (!err && hp_module_vaddr(mod, off, &vaddr) == 0)
		n = hp_symbolize_lookup(p->sym, mod, vaddr, r);
	for (size_t i = 0; i < n; i++) {
		uint32_t func = func_get(p, r[i].name, 1, r[i].file);
		struct hp_func *f = &p->funcs[func];
		if (!f->decl_line && r[i].decl_line) {
			f->decl_file = r[i].decl_file;
			f->decl_line = r[i].decl_line;
		}
		add_frame(p, func, r[i].file, r[i].line);
	}
	if (!n)
		add_named_frame(p, mod->base, off);
	if (loc->mapping) {
		struct hp_mapping *mp = &p->mappings[loc->mapping - 1];
		mp->symbolized |= n > 0;
		mp->lines |= n > 0 && r[0].line > 0;
		mp->inlines |= n > 1;
	}
}

static struct hp_module *map_module(struct adding *a, const struct hp_map *m, const char **err)
{
	size_t i = (size_t)(m - a->in->maps);

	if (!a->mapdone[i]) {
		a->mapdone[i] = 1;
		a->mapmod[i] = hp_module_get(&a->p->mods, m);
		a->maperr[i] = hp_module_check(&a->p->mods, a->mapmod[i], a->in);
	}
	*err = a->maperr[i];
	return a->mapmod[i];
}

/*
 * The module whose code addr is, in the anonymous executable mapping m:
 * the object whose file mappings come nearest below or above m, when addr
 * lies in one of its executable segments (hp_module_text).  *seg becomes
 * that segment's mapping.  NULL for anything else: a JIT's code.
 */
static struct hp_module *text_owner(struct adding *a, const struct hp_map *m, uint64_t addr,
				    struct hp_map *seg)
{
	const struct hp_map *maps = a->in->maps, *end = maps + a->in->nmaps;
	const struct hp_map *near[2] = { NULL, NULL };

	for (const struct hp_map *q = m; q-- > maps;)
		if (q->kind == HP_MAP_FILE) {
			near[0] = q;
			break;
		}
	for (const struct hp_map *q = m + 1; q < end; q++)
		if (q->kind == HP_MAP_FILE) {
			near[1] = q;
			break;
		}
	for (int i = 0; i < 2; i++) {
		const char *err;
		struct hp_module *mod = near[i] ? map_module(a, near[i], &err) : NULL;
		if (mod && !err && hp_module_text(mod, addr, seg))
			return mod;
	}
	return NULL;
}

/* The location of frame i (program counter pc) of a stack of a->in. */
static uint32_t location(struct adding *a, uint32_t i, uint64_t pc)
{
	struct hp_profile *p = a->p;
	/* Frame 0 is a call site already; callers are return addresses. */
	uint64_t addr = i && pc ? pc - 1 : pc;
	const char *names = a->in->nsyms ? hp_input_symbol(a->in, addr) : NULL;
	const struct hp_map *m = hp_maps_find(a->in->maps, a->in->nmaps, addr);
	struct hp_module *mod = NULL;
	const char *err = NULL;
	struct hp_lockey k = { LK_RAW, 0, addr };
	struct hp_map seg;

	/* Text the program moved to anonymous memory is its binary's. */
	if (!names && m && m->kind == HP_MAP_ANON && m->perms[2] == 'x' &&
	    (mod = text_owner(a, m, addr, &seg)))
		m = &seg;
	if (names)
		k = (struct hp_lockey){ LK_SYMBOL, a->input_no, addr };
	else if (m && m->kind == HP_MAP_FILE) {
		if (!mod)
			mod = map_module(a, m, &err);
		k = (struct hp_lockey){ err ? LK_STALE : LK_MODULE, mod->id,
				     addr - m->start + m->offset };
	} else if (m && m->kind == HP_MAP_SPECIAL)
		k = (struct hp_lockey){ LK_REGION, (uintptr_t)m->path, addr - m->start };

	uint64_t h = hp_index_hash_u64(hp_index_hash_u64((uint64_t)k.kind << 56 ^ k.id) ^ k.addr);
	int64_t found = hp_index_find(&p->loc_ix, h, loc_eq, p, &k);
	if (found >= 0)
		return (uint32_t)found;

	uint32_t id = new_loc(p, &k, h);
	struct hp_loc *loc = &p->locs[id];
	loc->addr = addr;
	loc->off = k.addr;
	switch (k.kind) {
	case LK_SYMBOL:
		symbol_frames(p, names);
		break;
	case LK_MODULE:
	case LK_STALE: {
		const struct hp_canon *c = canon_for(p, mod, m);
		loc->addr = c->base + k.addr;
		loc->mapping = c->mapping;
		loc->where = mod->path;
		loc->allocator = mod->allocator;
		module_frames(p, mod, k.addr, err, loc);
		break;
	}
	case LK_REGION:
		loc->where = m->path;
		add_named_frame(p, m->path, k.addr);
		break;
	default:
		add_named_frame(p, NULL, addr);
		break;
	}
	/* A symbol section entry with only blanks still needs a frame. */
	if (p->nframes == loc->frame0)
		add_named_frame(p, NULL, addr);
	loc->nframes = (uint32_t)(p->nframes - loc->frame0);
	return id;
}

/* ---- stacks ---------------------------------------------------------- */

struct stackkey {
	uint32_t slot;
	const uint32_t *locs;
	uint32_t n;
};

static int stack_eq(const void *ctx, uint32_t item, const void *key)
{
	const struct hp_profile *p = ctx;
	const struct hp_profile_stack *st = &p->stacks[item];
	const struct stackkey *k = key;

	/* An empty stack (a bare '@') may have no storage at all. */
	return st->slot == k->slot && st->nlocs == k->n &&
	       (!k->n || !memcmp(p->stack_locs + st->loc0, k->locs, k->n * sizeof(*k->locs)));
}

static void add_stack(struct hp_profile *p, uint32_t slot, const uint32_t *locs, uint32_t n,
		      const int64_t *v, int sign)
{
	struct stackkey k = { p->shape.series ? slot : 0, locs, n };
	uint64_t h = hp_index_hash_bytes(locs, n * sizeof(*locs), k.slot);
	int64_t i = hp_index_find(&p->stack_ix, h, stack_eq, p, &k);

	if (i < 0) {
		hp_util_grow(&p->stack_locs, &p->cap_stack_locs, p->nstack_locs + n + 1,
			     sizeof(*locs));
		if (n)
			memcpy(p->stack_locs + p->nstack_locs, locs, n * sizeof(*locs));
		hp_util_grow(&p->stacks, &p->cap_stacks, p->nstacks + 1, sizeof(*p->stacks));
		struct hp_profile_stack *st = &p->stacks[p->nstacks];
		memset(st, 0, sizeof(*st));
		st->loc0 = (uint32_t)p->nstack_locs;
		st->nlocs = n;
		st->slot = k.slot;
		p->nstack_locs += n;
		hp_index_add(&p->stack_ix, h, (uint32_t)p->nstacks);
		i = (int64_t)p->nstacks++;
	}
	struct hp_profile_stack *st = &p->stacks[i];
	for (int j = 0; j < HP_NVALUES; j++)
		st->v[j] = hp_util_sat_add(st->v[j], sign * v[j]);
}

void hp_profile_add(struct hp_profile *p, const struct hp_input *in, int sign, uint32_t slot)
{
	struct adding a = { .p = p, .in = in, .input_no = (uint32_t)p->ninputs++ };

	if (in->rate > p->period)
		p->period = in->rate;
	uint32_t locs[HP_INPUT_FRAMES_MAX];

	a.mapmod = hp_util_xcalloc(in->nmaps, sizeof(*a.mapmod));
	a.maperr = hp_util_xcalloc(in->nmaps, sizeof(*a.maperr));
	a.mapdone = hp_util_xcalloc(in->nmaps, 1);
	p->has_accum |= in->has_accum;
	for (size_t s = 0; s < in->nstacks; s++) {
		const struct hp_in_stack *is = &in->stacks[s];
		for (uint32_t i = 0; i < is->depth; i++)
			locs[i] = location(&a, i, in->frames[is->first + i]);
		add_stack(p, slot, locs, is->depth, is->v, sign);
	}
	free(a.mapmod);
	free(a.maperr);
	free(a.mapdone);
}

/* ---- finishing ------------------------------------------------------- */

static int matches(const regex_t *re, const char *s)
{
	return re && regexec(re, s, 0, NULL, 0) == 0;
}

/* heapprof's "unwinding failed" placeholder is a marker, not the
 * allocator: keep it so that the user sees what happened. */
static int trimmed(const struct hp_profile *p, const struct hp_loc *loc, uint32_t frame)
{
	const struct hp_func *f = &p->funcs[p->frames[frame].func];

	if (!strcmp(f->sys, "heapprof_unwind_failed"))
		return 0;
	return f->alloc || loc->allocator;
}

static void lay_out(struct hp_profile *p, struct hp_profile_stack *st)
{
	uint32_t total = 0, last = 0;

	/* Frames up to and including the outermost allocator frame go. */
	for (uint32_t i = 0; i < st->nlocs; i++) {
		const struct hp_loc *loc = &p->locs[p->stack_locs[st->loc0 + i]];
		for (uint32_t f = 0; f < loc->nframes; f++) {
			total++;
			if (trimmed(p, loc, loc->frame0 + f))
				last = total;
		}
	}
	st->trim = last;
	st->f0 = (uint32_t)p->nsframes;
	hp_util_grow(&p->sframes, &p->cap_sframes, p->nsframes + total + 1, sizeof(*p->sframes));
	/* Inlined frames multiply a stack's depth; the outputs recurse on
	 * it, so keep at most HP_INPUT_FRAMES_MAX, the innermost. */
	uint32_t k = 0, kept = 0;
	for (uint32_t i = 0; i < st->nlocs; i++) {
		const struct hp_loc *loc = &p->locs[p->stack_locs[st->loc0 + i]];
		for (uint32_t f = 0; f < loc->nframes; f++)
			if (k++ >= last && kept++ < HP_INPUT_FRAMES_MAX)
				p->sframes[p->nsframes++] = loc->frame0 + f;
	}
	if (p->nsframes == st->f0) {
		/* A bare '@', or nothing but allocator frames. */
		add_frame(p, p->no_frames_func, NULL, 0);
		p->sframes[p->nsframes++] = (uint32_t)p->nframes - 1;
	}
	st->nf = (uint32_t)(p->nsframes - st->f0);
}

/*
 * pprof takes the first mapping for the main executable (its "File:").
 * The executable's text lies below every shared object's, PIE or not,
 * so the lowest mapping goes first; the ids of the two swapped follow.
 */
static void main_mapping_first(struct hp_profile *p)
{
	size_t k = 0;
	for (size_t i = 1; i < p->nmappings; i++)
		if (p->mappings[i].start < p->mappings[k].start)
			k = i;
	if (k == 0)
		return;
	struct hp_mapping t = p->mappings[0];
	p->mappings[0] = p->mappings[k];
	p->mappings[k] = t;
	uint32_t a = 1, b = (uint32_t)k + 1;
	for (size_t i = 0; i < p->nlocs; i++) {
		uint32_t *id = &p->locs[i].mapping;
		*id = *id == a ? b : *id == b ? a : *id;
	}
	for (size_t i = 0; i < p->ncanons; i++) {
		uint32_t *id = &p->canons[i].mapping;
		*id = *id == a ? b : *id == b ? a : *id;
	}
}

void hp_profile_finish(struct hp_profile *p)
{
	main_mapping_first(p);
	for (size_t i = 0; i < p->nfuncs; i++) {
		struct hp_func *f = &p->funcs[i];
		f->focus = matches(p->shape.focus, f->name);
		f->ignore = matches(p->shape.ignore, f->name);
	}
	for (size_t s = 0; s < p->nstacks; s++) {
		struct hp_profile_stack *st = &p->stacks[s];
		lay_out(p, st);
		int focus = !p->shape.focus, ignore = 0;
		for (uint32_t i = 0; i < st->nf; i++) {
			const struct hp_func *f = &p->funcs[p->frames[p->sframes[st->f0 + i]].func];
			focus |= f->focus;
			ignore |= f->ignore;
		}
		st->dropped = !focus || ignore;
	}
}

void hp_profile_release(struct hp_profile *p)
{
	for (size_t i = 0; i < p->mods.n; i++)
		hp_symbolize_forget(p->mods.mods[i]);
	hp_modtab_release(&p->mods);
	hp_symbolize_free(p->sym);
	free(p->funcs);
	free(p->nodes);
	free(p->frames);
	free(p->locs);
	free(p->loc_keys);
	free(p->canons);
	free(p->mappings);
	free(p->stacks);
	free(p->stack_locs);
	free(p->sframes);
	hp_index_release(&p->func_ix);
	hp_index_release(&p->node_ix);
	hp_index_release(&p->loc_ix);
	hp_index_release(&p->stack_ix);
	hp_strtab_release(&p->strs);
	memset(p, 0, sizeof(*p));
}

/* ---- aggregation ----------------------------------------------------- */

void hp_profile_flat(const struct hp_profile *p, int vi, int64_t *flat, int64_t *cum)
{
	uint32_t *seen = hp_util_xcalloc(p->nnodes, sizeof(*seen));

	memset(flat, 0, p->nnodes * sizeof(*flat));
	memset(cum, 0, p->nnodes * sizeof(*cum));
	for (size_t s = 0; s < p->nstacks; s++) {
		const struct hp_profile_stack *st = &p->stacks[s];
		if (st->dropped || !st->v[vi])
			continue;
		uint32_t leaf = p->frames[p->sframes[st->f0]].node;
		flat[leaf] = hp_util_sat_add(flat[leaf], st->v[vi]);
		/* Recursion: a node counts once per stack in cum. */
		for (uint32_t i = 0; i < st->nf; i++) {
			uint32_t n = p->frames[p->sframes[st->f0 + i]].node;
			if (seen[n] == s + 1)
				continue;
			seen[n] = (uint32_t)s + 1;
			cum[n] = hp_util_sat_add(cum[n], st->v[vi]);
		}
	}
	free(seen);
}

static const struct hp_profile *sort_p;
static const int64_t *sort_flat, *sort_cum;

static int64_t magnitude(int64_t v)
{
	return v >= 0 ? v : v == INT64_MIN ? INT64_MAX : -v;
}

/* Largest first by size, whatever the sign: in a --base report a function
 * that shrank by 10 MB ranks with one that grew by as much (pprof's
 * order), not after every one that grew. */
static int node_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int64_t fx = magnitude(sort_flat[x]), fy = magnitude(sort_flat[y]);
	int64_t cx = magnitude(sort_cum[x]), cy = magnitude(sort_cum[y]);

	if (fx != fy)
		return fx > fy ? -1 : 1;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(sort_p->nodes[x], sort_p->nodes[y]);
}

size_t hp_profile_sorted_nodes(const struct hp_profile *p, const int64_t *flat,
			       const int64_t *cum, uint32_t **out)
{
	uint32_t *ids = hp_util_xcalloc(p->nnodes, sizeof(*ids));
	size_t n = 0;

	for (size_t i = 0; i < p->nnodes; i++)
		if (flat[i] || cum[i])
			ids[n++] = (uint32_t)i;
	sort_p = p;
	sort_flat = flat;
	sort_cum = cum;
	hp_util_sort(ids, n, sizeof(*ids), node_cmp);
	*out = ids;
	return n;
}
