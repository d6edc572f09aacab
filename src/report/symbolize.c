/*
 * symbolize.c -- addresses to functions, files and lines with elfutils
 * (see symbolize.h).
 *
 * Owns one Dwfl session per module, reported at load bias 0 so that
 * module addresses are the ELF's own virtual addresses and dumps from
 * different runs (different ASLR bases) share one session.
 *
 * Speed matters: a report on 10,000 stacks of depth 30 must finish in
 * well under a second.  dwarf_getscopes walks every top-level DIE of a CU
 * for each address, which is quadratic on big CUs, so we index instead:
 * the CUs' address ranges once per module, the subprograms' ranges once
 * per CU the first time an address lands in it; then each address costs
 * two binary searches and a walk down one function's inlined scopes.
 * And each address is looked up once per module: a leak report's stacks
 * share most of their frames (main, the allocation wrappers), and a
 * module without DWARF is searched through its symbol table, which
 * elfutils scans whole for every address (dwfl_module_addrinfo: 10,000
 * symbols for libc's), so the answers are kept by address.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "strtab.h"
#include "symbolize.h"
#include "symcache.h"
#include "util.h"
#include "version.h"

/* An address range [lo, hi) and the DIE (CU or subprogram) it belongs to. */
struct range {
	uint64_t lo, hi;
	Dwarf_Off die;
};

struct range_vec {
	struct range *r;
	size_t n, cap;
};

/* The subprogram index of one CU, built on first use. */
struct cu_index {
	int built;
	struct range_vec subs;
};

/* A public name found (public_name), by entry and the name it replaced. */
struct pub_name {
	uint64_t entry;
	const char *from, *to;
};

/* One address's answer (hp_symbolize_lookup's), kept. */
struct memo_slot {
	uint64_t vaddr;
	uint32_t used;		/* the slot holds an answer */
	uint32_t n;		/* its frames: 0 when there is none */
	struct hp_symres *res;
};

struct dwmod {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	int dwarf_tried;
	Dwarf *dw;		/* NULL when there is no debug information */
	Dwarf_Addr bias;	/* module address - DWARF address */
	struct range_vec cus;	/* CU ranges, sorted; die = CU DIE offset */
	struct cu_index *cu_idx; /* parallel to cu_offs */
	Dwarf_Off *cu_offs;	/* sorted distinct CU DIE offsets */
	size_t ncu;
	struct pub_name *pub;	/* public names found so far */
	size_t npub, cap_pub;
	struct memo_slot *memo;	/* the answers by address, open addressing */
	size_t nmemo, memo_cap;	/* (a power of two, at most half full) */
	char *cache;		/* the answers' file on disk (symcache.h), or NULL */
	int learnt;		/* answers not in it yet */
	size_t iter;		/* saving: the next slot */
};

struct hp_symbolizer {
	struct hp_strtab *strs;
	char *debuginfo_path;
	Dwfl_Callbacks cb;
};

/* ---- separate debug files ------------------------------------------ */

/* Whether the ELF file open on fd has the build ID bits[0..len). */
static int same_build_id(int fd, const unsigned char *bits, int len)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	int same = e && dwelf_elf_gnu_build_id(e, &id) == len && memcmp(id, bits, (size_t)len) == 0;

	if (e)
		elf_end(e);
	return same;
}

/* A candidate debug file at name: fd when it has the build ID bits, with
 * *debugfile; else -1, and name is freed. */
static int debug_candidate(char *name, const char *file, const unsigned char *bits, int len,
			   char **debugfile)
{
	int fd = strcmp(name, file) ? open(name, O_RDONLY | O_CLOEXEC) : -1;

	if (fd >= 0 && same_build_id(fd, bits, len)) {
		*debugfile = name;
		return fd;
	}
	if (fd >= 0)
		close(fd);
	free(name);
	return -1;
}

/* The file named by an object's .gnu_debuglink, looked for along path
 * (":.debug:DIRS:/usr/lib/debug"): an empty entry is the object's
 * directory, a relative one a subdirectory of it, an absolute one a
 * directory that holds the file or a tree that mirrors the object's
 * directory.  Taken only with the object's build ID: fd and *debugfile,
 * or -1. */
static int debuglink_debuginfo(const char *path, const char *file, const char *link,
			       const unsigned char *bits, int len, char **debugfile)
{
	const char *slash = file ? strrchr(file, '/') : NULL;

	if (!slash || !link || strchr(link, '/'))
		return -1;
	int dlen = (int)(slash - file), fd = -1;
	for (const char *p = path ? path : ""; fd < 0; p++) {
		const char *end = strchrnul(p, ':');
		int plen = (int)(end - p);
		char *name = NULL;
		if (p[0] == '/') {
			if (asprintf(&name, "%.*s/%s", plen, p, link) >= 0)
				fd = debug_candidate(name, file, bits, len, debugfile);
			if (fd < 0 && asprintf(&name, "%.*s%.*s/%s", plen, p, dlen, file, link) >= 0)
				fd = debug_candidate(name, file, bits, len, debugfile);
		} else if (asprintf(&name, "%.*s%s%.*s/%s", dlen, file, plen ? "/" : "", plen, p, link) >= 0) {
			fd = debug_candidate(name, file, bits, len, debugfile);
		}
		if (!*end)
			break;
		p = end;
	}
	return fd;
}

/* libdw's find_debuginfo callback: elfutils' standard one asks the
 * debuginfod servers of DEBUGINFOD_URLS when nothing local is found, and
 * waits up to minutes on one that does not answer; so only with
 * HEAPPROF_DEBUGINFOD=1.  Else an object with a build ID is looked for in
 * the build-ID directories, then by its debuglink; one without, by the
 * standard search, which never asks a server (it needs a build ID to). */
static int local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   const char *file, const char *link, GElf_Word crc, char **debugfile)
{
	const struct hp_symbolizer *s = *userdata;
	const char *remote = getenv("HEAPPROF_DEBUGINFOD");
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = dwfl_module_build_id(mod, &bits, &vaddr);

	if (len <= 0 || (remote && strcmp(remote, "1") == 0))
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file, link, crc, debugfile);
	int fd = dwfl_build_id_find_debuginfo(mod, NULL, NULL, 0, NULL, NULL, 0, debugfile);
	if (fd >= 0)
		return fd;
	return debuglink_debuginfo(s ? s->debuginfo_path : NULL, file, link, bits, len, debugfile);
}

struct hp_symbolizer *hp_symbolize_new(struct hp_strtab *strs,
				       const char *const *debug_dirs, size_t ndirs)
{
	struct hp_symbolizer *s = hp_util_xcalloc(1, sizeof(*s));
	struct hp_buf path = { 0 };

	s->strs = strs;
	/* elfutils' default is ":.debug:/usr/lib/debug"; the user's
	 * directories go before /usr/lib/debug. */
	hp_buf_str(&path, ":.debug");
	for (size_t i = 0; i < ndirs; i++) {
		hp_buf_char(&path, ':');
		hp_buf_str(&path, debug_dirs[i]);
	}
	hp_buf_str(&path, ":/usr/lib/debug");
	s->debuginfo_path = path.p;
	s->cb.find_elf = dwfl_build_id_find_elf;
	s->cb.find_debuginfo = local_debuginfo;
	s->cb.section_address = dwfl_offline_section_address;
	s->cb.debuginfo_path = &s->debuginfo_path;
	return s;
}

void hp_symbolize_free(struct hp_symbolizer *s)
{
	if (!s)
		return;
	free(s->debuginfo_path);
	free(s);
}

/* ---- sessions -------------------------------------------------------- */

static void memo_put(struct dwmod *d, uint64_t vaddr, const struct hp_symres *res, size_t n);

/* A line of identity(): a file by name, device, inode, size and time. */
static void identify(struct hp_buf *b, const char *name, const struct stat *st)
{
	hp_buf_printf(b, "%s %llu %llu %lld %lld.%09ld\n", name, (unsigned long long)st->st_dev,
		      (unsigned long long)st->st_ino, (long long)st->st_size, (long long)st->st_mtim.tv_sec,
		      st->st_mtim.tv_nsec);
}

/* What the module's answers come from, as text for the cache's key: its
 * file, and every debug file local_debuginfo could take for it (by
 * build ID in each absolute directory of the path, then the one its
 * .gnu_debuglink names), so that a debug file installed, removed or
 * replaced makes another key.  Looked for here, not through libdwfl,
 * whose search marks the module as searched.  NULL when the module cannot
 * be opened or has no build ID. */
static char *identity(struct hp_symbolizer *s, struct dwmod *d, const struct hp_module *mod, char **hex)
{
	GElf_Addr bias, at;
	Elf *elf = dwfl_module_getelf(d->mod, &bias);
	const unsigned char *bits = NULL;
	int len = dwfl_module_build_id(d->mod, &bits, &at);
	struct hp_buf b = { 0 }, name = { 0 };
	struct stat st;

	if (!elf || len <= 0 || stat(mod->file, &st) != 0)
		return NULL;
	for (int i = 0; i < len; i++)
		hp_buf_printf(&name, "%02x", bits[i]);
	*hex = name.p;
	name = (struct hp_buf){ 0 };
	identify(&b, mod->file, &st);
	/* And this very command: another build may symbolize otherwise. */
	if (stat("/proc/self/exe", &st) == 0)
		identify(&b, "heapprof " HEAPPROF_VERSION, &st);
	for (const char *p = s->debuginfo_path; *p; p++) {
		const char *end = strchrnul(p, ':');
		if (*p == '/') {
			hp_buf_reset(&name);
			hp_buf_printf(&name, "%.*s/.build-id/%02x/", (int)(end - p), p, bits[0]);
			for (int i = 1; i < len; i++)
				hp_buf_printf(&name, "%02x", bits[i]);
			hp_buf_str(&name, ".debug");
			if (stat(name.p, &st) == 0)
				identify(&b, name.p, &st);
		}
		if (!*end)
			break;
		p = end;
	}
	GElf_Word crc = 0;
	char *debugfile = NULL;
	int fd = debuglink_debuginfo(s->debuginfo_path, mod->file, dwelf_elf_gnu_debuglink(elf, &crc), bits,
				     len, &debugfile);
	if (fd >= 0 && fstat(fd, &st) == 0)
		identify(&b, debugfile, &st);
	if (fd >= 0)
		close(fd);
	free(debugfile);
	hp_buf_release(&name);
	return b.p;
}

static void cache_put(void *ctx, uint64_t vaddr, const struct hp_symres *res, size_t n)
{
	memo_put(ctx, vaddr, res, n);
}

/* The answers kept on disk for this module's file, by its own build ID
 * (whether it is the dump's object was checked before any lookup), when
 * no server may be asked for its debug file. */
static void cache_open(struct hp_symbolizer *s, struct dwmod *d, const struct hp_module *mod)
{
	const char *remote = getenv("HEAPPROF_DEBUGINFOD");
	char *hex = NULL;

	if (remote && strcmp(remote, "1") == 0)
		return;
	char *id = identity(s, d, mod, &hex);
	if (!id)
		return;
	d->cache = hp_symcache_path(hex, id);
	free(id);
	free(hex);
	hp_symcache_load(d->cache, s->strs, cache_put, d);
}

static int cache_next(void *ctx, uint64_t *vaddr, const struct hp_symres **res, size_t *n)
{
	struct dwmod *d = ctx;

	while (d->iter < d->memo_cap && !d->memo[d->iter].used)
		d->iter++;
	if (d->iter == d->memo_cap)
		return 0;
	const struct memo_slot *m = &d->memo[d->iter++];
	*vaddr = m->vaddr;
	*res = m->res;
	*n = m->n;
	return 1;
}

static struct dwmod *session(struct hp_symbolizer *s, struct hp_module *mod)
{
	if (mod->dw)
		return mod->dw;
	struct dwmod *d = hp_util_xcalloc(1, sizeof(*d));
	mod->dw = d;
	d->dwfl = dwfl_begin(&s->cb);
	if (!d->dwfl)
		return d;
	dwfl_report_begin(d->dwfl);
	/* Base 0 with add_p_vaddr: module addresses are ELF vaddrs. */
	d->mod = dwfl_report_elf(d->dwfl, mod->base, mod->file, -1, 0, true);
	dwfl_report_end(d->dwfl, NULL, NULL);
	void **ud;
	if (d->mod && dwfl_module_info(d->mod, &ud, NULL, NULL, NULL, NULL, NULL, NULL))
		*ud = s;   /* for local_debuginfo */
	if (d->mod)
		cache_open(s, d, mod);
	return d;
}

static void range_add(struct range_vec *v, uint64_t lo, uint64_t hi, Dwarf_Off die)
{
	if (hi <= lo)
		return;
	hp_util_grow(&v->r, &v->cap, v->n + 1, sizeof(*v->r));
	v->r[v->n++] = (struct range){ lo, hi, die };
}

static int range_cmp(const void *a, const void *b)
{
	const struct range *x = a, *y = b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Adds every range of die to v. */
static void die_ranges(Dwarf_Die *die, struct range_vec *v)
{
	Dwarf_Addr base, lo, hi;
	ptrdiff_t off = 0;
	int guard = 0;

	while ((off = dwarf_ranges(die, off, &base, &lo, &hi)) > 0 && guard++ < 100000)
		range_add(v, lo, hi, dwarf_dieoffset(die));
}

static const struct range *range_find(const struct range_vec *v, uint64_t pc)
{
	size_t lo = 0, hi = v->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v->r[mid].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Ranges rarely overlap; look back a little for one that holds pc. */
	for (size_t i = lo, k = 0; i-- > 0 && k < 8; k++)
		if (pc < v->r[i].hi)
			return &v->r[i];
	return NULL;
}

static int off_cmp(const void *a, const void *b)
{
	Dwarf_Off x = *(const Dwarf_Off *)a, y = *(const Dwarf_Off *)b;

	return x < y ? -1 : x > y;
}

/* Loads the DWARF and indexes the CUs' ranges, once. */
static Dwarf *module_dwarf(struct dwmod *d)
{
	if (d->dwarf_tried)
		return d->dw;
	d->dwarf_tried = 1;
	if (!d->mod)
		return NULL;
	d->dw = dwfl_module_getdwarf(d->mod, &d->bias);
	if (!d->dw)
		return NULL;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	while (dwarf_get_units(d->dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		die_ranges(&cudie, &d->cus);
	}
	hp_util_sort(d->cus.r, d->cus.n, sizeof(*d->cus.r), range_cmp);
	/* The distinct CU offsets, for the per-CU subprogram indexes. */
	d->cu_offs = hp_util_xcalloc(d->cus.n, sizeof(*d->cu_offs));
	size_t n = 0;
	for (size_t i = 0; i < d->cus.n; i++)
		d->cu_offs[n++] = d->cus.r[i].die;
	hp_util_sort(d->cu_offs, n, sizeof(*d->cu_offs), off_cmp);
	size_t u = 0;
	for (size_t i = 0; i < n; i++)
		if (!u || d->cu_offs[u - 1] != d->cu_offs[i])
			d->cu_offs[u++] = d->cu_offs[i];
	d->ncu = u;
	d->cu_idx = hp_util_xcalloc(u, sizeof(*d->cu_idx));
	return d->dw;
}

/* ---- subprograms ----------------------------------------------------- */

/* Collects the subprograms with code under die: namespaces, classes and
 * structures are searched too, for C++. */
static void collect_subprograms(Dwarf_Die *parent, struct range_vec *v, int depth)
{
	Dwarf_Die child;

	if (depth > 16 || dwarf_child(parent, &child) != 0)
		return;
	do {
		switch (dwarf_tag(&child)) {
		case DW_TAG_subprogram:
			die_ranges(&child, v);
			break;
		case DW_TAG_namespace:
		case DW_TAG_class_type:
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
			collect_subprograms(&child, v, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&child, &child) == 0);
}

static struct cu_index *cu_index(struct dwmod *d, Dwarf_Off cu)
{
	size_t lo = 0, hi = d->ncu;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->cu_offs[mid] < cu)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == d->ncu || d->cu_offs[lo] != cu)
		return NULL;
	struct cu_index *ci = &d->cu_idx[lo];
	if (!ci->built) {
		Dwarf_Die cudie;
		ci->built = 1;
		if (dwarf_offdie(d->dw, cu, &cudie))
			collect_subprograms(&cudie, &ci->subs, 0);
		hp_util_sort(ci->subs.r, ci->subs.n, sizeof(*ci->subs.r), range_cmp);
	}
	return ci;
}

/* ---- public names ---------------------------------------------------- */

static size_t underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* The best public alias at entry (a module address): among the global and
 * weak symbols there, not "__GI_", the one with the fewest leading
 * underscores, a global before a weak one; a versioned name
 * ("__libc_start_main@@GLIBC_2.34") is not one.  NULL when there is none. */
static const char *best_alias(struct dwmod *d, uint64_t entry)
{
	const char *best = NULL;
	int best_bind = 0;
	int nsyms = dwfl_module_getsymtab(d->mod);

	for (int i = 0; i < nsyms; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *n = dwfl_module_getsym_info(d->mod, i, &sym, &addr, NULL, NULL, NULL);
		int bind = GELF_ST_BIND(sym.st_info);
		if (!n || !*n || addr != entry || sym.st_shndx == SHN_UNDEF ||
		    (bind != STB_GLOBAL && bind != STB_WEAK) || !strncmp(n, "__GI_", 5) || strchr(n, '@'))
			continue;
		if (!best || underscores(n) < underscores(best) ||
		    (underscores(n) == underscores(best) && bind == STB_GLOBAL && best_bind != STB_GLOBAL)) {
			best = n;
			best_bind = bind;
		}
	}
	return best;
}

/*
 * glibc calls its own functions through hidden aliases (__GI___strdup for
 * strdup, __GI__IO_puts for puts), which its debug information and local
 * symbols carry, and exports some under two names (__strdup and strdup):
 * a reader looks for the public one.  A name starting "__" becomes the
 * alias at the function's entry (a module address, 0 when unknown) with
 * the fewest leading underscores (best_alias), when it has no more than
 * the name without its "__GI_"; else that name.  Other names are
 * returned as they are.
 */
static const char *public_name(struct dwmod *d, const char *name, uint64_t entry)
{
	if (!name || strncmp(name, "__", 2))
		return name;
	const char *base = strncmp(name, "__GI_", 5) ? name : name + 5;
	if (!entry)
		return base;
	for (size_t i = 0; i < d->npub; i++)
		if (d->pub[i].entry == entry && d->pub[i].from == name)
			return d->pub[i].to;
	const char *best = best_alias(d, entry);
	const char *to = best && underscores(best) <= underscores(base) ? best : base;
	hp_util_grow(&d->pub, &d->cap_pub, d->npub + 1, sizeof(*d->pub));
	d->pub[d->npub++] = (struct pub_name){ entry, name, to };
	return to;
}

/* ---- one address ----------------------------------------------------- */

static const char *die_name(Dwarf_Die *die)
{
	static const int attrs[] = { DW_AT_linkage_name, DW_AT_MIPS_linkage_name, DW_AT_name };
	Dwarf_Attribute mem;

	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(attrs); i++) {
		Dwarf_Attribute *a = dwarf_attr_integrate(die, attrs[i], &mem);
		const char *s = a ? dwarf_formstring(a) : NULL;
		if (s && *s)
			return s;
	}
	return NULL;
}

/* Appends to chain the inlined subroutines under scope that hold pc,
 * outermost first, through lexical blocks. */
static void inline_chain(Dwarf_Die *scope, uint64_t pc, Dwarf_Die *chain, size_t *n,
			 int depth)
{
	Dwarf_Die child;

	if (depth > 64 || *n >= HP_SYMBOLIZE_INLINE_MAX || dwarf_child(scope, &child) != 0)
		return;
	do {
		int tag = dwarf_tag(&child);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_lexical_block &&
		    tag != DW_TAG_try_block && tag != DW_TAG_catch_block)
			continue;
		if (dwarf_haspc(&child, pc) != 1)
			continue;
		if (tag == DW_TAG_inlined_subroutine)
			chain[(*n)++] = child;
		/* Only one child scope can hold pc: descend there and stop. */
		inline_chain(&child, pc, chain, n, depth + 1);
		return;
	} while (dwarf_siblingof(&child, &child) == 0);
}

/*
 * A source file name, made absolute with the CU's compilation directory
 * as addr2line does ("./libio/x.c" in "/build/glibc" -> "/build/glibc/
 * libio/x.c").  But elfutils has already put the directory in front of a
 * name from the line table's directory 0, which is the compilation
 * directory: when that is relative itself (built with
 * -fdebug-prefix-map=...=.), the name starts with it ("./libio" and
 * "./libio/filedoalloc.c") and must not get it twice, as addr2line gives
 * it ("./libio/libio/filedoalloc.c").
 */
static const char *source(struct hp_symbolizer *s, Dwarf_Die *cudie, const char *f)
{
	if (!f)
		return NULL;
	if (f[0] == '/')
		return hp_strtab_intern_clean(s->strs, f);
	Dwarf_Attribute mem;
	const char *dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &mem));
	if (!dir || !*dir)
		return hp_strtab_intern_clean(s->strs, f);
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (!strncmp(f, dir, dl) && f[dl] == '/')
		return hp_strtab_intern_clean(s->strs, f);
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	struct hp_buf b = { 0 };
	hp_buf_str(&b, dir);
	if (b.p[b.len - 1] != '/')
		hp_buf_char(&b, '/');
	hp_buf_str(&b, f);
	const char *out = hp_strtab_intern_clean(s->strs, b.p);
	hp_buf_release(&b);
	return out;
}

static const char *file_of(struct hp_symbolizer *s, Dwarf_Die *cudie, Dwarf_Files *files,
			   size_t nfiles, Dwarf_Word idx)
{
	if (!files || idx >= nfiles)
		return NULL;
	return source(s, cudie, dwarf_filesrc(files, idx, NULL, NULL));
}

static size_t lookup_dwarf(struct hp_symbolizer *s, struct dwmod *d, uint64_t vaddr,
			   struct hp_symres *out)
{
	Dwarf_Addr pc = vaddr - d->bias;
	const struct range *cr = range_find(&d->cus, pc);
	if (!cr)
		return 0;
	struct cu_index *ci = cu_index(d, cr->die);
	const struct range *sr = ci ? range_find(&ci->subs, pc) : NULL;
	Dwarf_Die cudie, sub;
	if (!sr || !dwarf_offdie(d->dw, cr->die, &cudie) || !dwarf_offdie(d->dw, sr->die, &sub))
		return 0;

	Dwarf_Die chain[HP_SYMBOLIZE_INLINE_MAX];
	size_t n = 1;
	chain[0] = sub;
	inline_chain(&sub, pc, chain, &n, 0);

	Dwarf_Files *files = NULL;
	size_t nfiles = 0;
	if (dwarf_getsrcfiles(&cudie, &files, &nfiles) != 0)
		files = NULL;
	Dwarf_Line *line = dwarf_getsrc_die(&cudie, pc);
	const char *file = NULL;
	int lineno = 0;
	if (line) {
		file = source(s, &cudie, dwarf_linesrc(line, NULL, NULL));
		dwarf_lineno(line, &lineno);
	}
	/* Innermost first: chain[n-1] is where pc is; each outer frame's
	 * line is where the next inner one was inlined (its call site). */
	for (size_t i = n; i-- > 0;) {
		const char *name = die_name(&chain[i]);
		/* Only the outermost has an entry of its own (the symbol's that
		 * holds the address: a function split hot and cold has no one
		 * entry in DWARF); an inlined one loses just its "__GI_". */
		uint64_t entry = 0;
		if (i == 0 && name && !strncmp(name, "__", 2)) {
			GElf_Off off;
			GElf_Sym sym;
			if (dwfl_module_addrinfo(d->mod, vaddr, &off, &sym, NULL, NULL, NULL))
				entry = vaddr - off;
		}
		name = public_name(d, name, entry);
		struct hp_symres *r = &out[n - 1 - i];
		r->name = name ? hp_strtab_intern_clean(s->strs, name) : NULL;
		r->file = file;
		r->line = lineno;
		/* Where the function starts, for report --list: the
		 * subprogram's or (for an inlined one) its origin's. */
		int dl = 0;
		r->decl_file = NULL;
		r->decl_line = 0;
		if (dwarf_decl_line(&chain[i], &dl) == 0 && dl > 0) {
			r->decl_line = dl;
			r->decl_file = source(s, &cudie, dwarf_decl_file(&chain[i]));
		}
		if (i > 0) {
			Dwarf_Attribute mem;
			Dwarf_Word cf = 0, cl = 0;
			Dwarf_Attribute *a = dwarf_attr(&chain[i], DW_AT_call_file, &mem);
			if (!a || dwarf_formudata(a, &cf) != 0)
				cf = (Dwarf_Word)-1;
			a = dwarf_attr(&chain[i], DW_AT_call_line, &mem);
			if (!a || dwarf_formudata(a, &cl) != 0)
				cl = 0;
			file = file_of(s, &cudie, files, nfiles, cf);
			lineno = cl > 0x7fffffff ? 0 : (int)cl;
		}
	}
	/* A frame without a name is useless; let the caller fall back. */
	for (size_t i = 0; i < n; i++)
		if (!out[i].name)
			return 0;
	return n;
}

/* ---- the answers by address ------------------------------------------ */

static size_t memo_home(uint64_t vaddr, size_t cap)
{
	return (size_t)((vaddr * 0x9e3779b97f4a7c15ULL) >> 32) & (cap - 1);
}

/* The slot of vaddr: the one that holds it, or the empty one where it
 * goes. */
static struct memo_slot *memo_slot(struct memo_slot *tab, size_t cap, uint64_t vaddr)
{
	size_t i = memo_home(vaddr, cap);

	while (tab[i].used && tab[i].vaddr != vaddr)
		i = (i + 1) & (cap - 1);
	return &tab[i];
}

static void memo_put(struct dwmod *d, uint64_t vaddr, const struct hp_symres *res, size_t n)
{
	if (2 * (d->nmemo + 1) > d->memo_cap) {
		size_t cap = d->memo_cap ? 2 * d->memo_cap : 64;
		struct memo_slot *tab = hp_util_xcalloc(cap, sizeof(*tab));
		for (size_t i = 0; i < d->memo_cap; i++)
			if (d->memo[i].used)
				*memo_slot(tab, cap, d->memo[i].vaddr) = d->memo[i];
		free(d->memo);
		d->memo = tab;
		d->memo_cap = cap;
	}
	struct memo_slot *m = memo_slot(d->memo, d->memo_cap, vaddr);
	m->vaddr = vaddr;
	m->used = 1;
	m->n = (uint32_t)n;
	m->res = n ? hp_util_xcalloc(n, sizeof(*res)) : NULL;
	if (n)
		memcpy(m->res, res, n * sizeof(*res));
	d->nmemo++;
}

/* hp_symbolize_lookup's answer, worked out: DWARF first, else the
 * symbol table. */
static size_t lookup(struct hp_symbolizer *s, struct dwmod *d, uint64_t vaddr, struct hp_symres *out)
{
	if (module_dwarf(d)) {
		size_t n = lookup_dwarf(s, d, vaddr, out);
		if (n)
			return n;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(d->mod, vaddr, &off, &sym, NULL, NULL, NULL);
	if (!name || !*name)
		return 0;
	/* Only a symbol that holds the address: in a stripped program the
	 * nearest one below may be an import's PLT stub (strcmp, size 0),
	 * nothing to do with the code there. */
	if (sym.st_shndx == SHN_UNDEF || (sym.st_size ? off >= sym.st_size : off != 0))
		return 0;
	out[0].name = hp_strtab_intern_clean(s->strs, public_name(d, name, vaddr - off));
	out[0].file = NULL;
	out[0].line = 0;
	out[0].decl_file = NULL;
	out[0].decl_line = 0;
	return 1;
}

size_t hp_symbolize_lookup(struct hp_symbolizer *s, struct hp_module *mod, uint64_t vaddr,
			   struct hp_symres *out)
{
	struct dwmod *d = session(s, mod);

	if (!d->mod)
		return 0;
	const struct memo_slot *m = d->memo ? memo_slot(d->memo, d->memo_cap, vaddr) : NULL;
	if (m && m->used) {
		if (m->n)
			memcpy(out, m->res, m->n * sizeof(*out));
		return m->n;
	}
	size_t n = lookup(s, d, vaddr, out);
	memo_put(d, vaddr, out, n);
	d->learnt = 1;
	return n;
}

void hp_symbolize_forget(struct hp_module *mod)
{
	struct dwmod *d = mod->dw;

	if (!d)
		return;
	if (d->learnt && d->cache) {
		d->iter = 0;
		hp_symcache_save(d->cache, cache_next, d);
	}
	free(d->cache);
	/* The Dwarf belongs to the session: dwfl_end closes it. */
	if (d->dwfl)
		dwfl_end(d->dwfl);
	free(d->cus.r);
	for (size_t i = 0; i < d->ncu; i++)
		free(d->cu_idx[i].subs.r);
	free(d->cu_idx);
	free(d->cu_offs);
	free(d->pub);
	for (size_t i = 0; i < d->memo_cap; i++)
		free(d->memo[i].res);
	free(d->memo);
	free(d);
	mod->dw = NULL;
}
