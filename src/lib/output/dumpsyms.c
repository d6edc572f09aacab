/*
 * dumpsyms.c -- function names inside dumps (dump_symbols), so that
 * "jeprof --text DUMP" needs no binary: containers often have none on the
 * analysis host.
 *
 * Owns nothing between dumps.  Runs on the dumping thread, inside the
 * guard: it maps object files read-only, reads their ELF symbol tables
 * (.symtab, else .dynsym), and looks every frame up.  Keys follow jeprof's
 * rule: the first frame is looked up as written, every caller frame at
 * pc - 1.  C++ names are demangled with the process's own __cxa_demangle
 * when libstdc++ is loaded; its buffer comes from the real allocator.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fmt.h"
#include "base/out.h"
#include "base/pages.h"
#include "next/next.h"
#include "output/totals.h"
#include "record/stacktab.h"
#include "output/dumpsyms.h"
#include "base/banned.h"

#define MAX_OBJECTS 512
#if UINTPTR_MAX > 0xffffffffu
#define ELFCLASS_NATIVE ELFCLASS64
#else
#define ELFCLASS_NATIVE ELFCLASS32
#endif

struct sym {
	uintptr_t addr;
	uintptr_t size;
	const char *name;
};

struct object {
	uintptr_t base, lo, hi;
	char path[PATH_MAX];
	int loaded;
	void *map;
	size_t map_len;
	struct sym *syms;
	size_t nsyms;
	size_t syms_bytes;
};

struct symtab {
	struct object *obj;
	int nobj;
	size_t obj_bytes;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct symtab *t = arg;

	(void)size;
	if (t->nobj >= MAX_OBJECTS)
		return 1;
	struct object *o = &t->obj[t->nobj];
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
	}
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		if (t->nobj != 0)
			return 0;   /* only the first nameless object is the program */
		ssize_t n = readlink("/proc/self/exe", o->path, sizeof(o->path) - 1);
		o->path[n > 0 ? n : 0] = '\0';
	} else if (name[0] != '/') {
		return 0;       /* linux-vdso.so.1 and friends: not on disk */
	} else {
		hp_fmt(o->path, sizeof(o->path), "%s", name);
	}
	o->base = info->dlpi_addr;
	o->lo = lo;
	o->hi = hi;
	t->nobj++;
	return 0;
}

static void sort_syms(struct sym *s, size_t n)
{
	static const size_t gaps[] = { 88573, 29524, 9841, 3280, 1093, 364, 121, 40, 13, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			struct sym tmp = s[i];
			size_t j = i;
			for (; j >= gap && s[j - gap].addr > tmp.addr; j -= gap)
				s[j] = s[j - gap];
			s[j] = tmp;
		}
	}
}

/* Reads the object's function symbols: .symtab when the file has one
 * (not stripped), else .dynsym. */
static void load(struct object *o)
{
	struct stat st;

	o->loaded = 1;
	int fd = open(o->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(ElfW(Ehdr))) {
		close(fd);
		return;
	}
	o->map_len = (size_t)st.st_size;
	o->map = hp_pages_map_file(fd, o->map_len);
	close(fd);
	if (o->map == MAP_FAILED) {
		o->map = NULL;
		return;
	}
	const unsigned char *f = o->map;
	const ElfW(Ehdr) *eh = o->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS_NATIVE ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	    eh->e_shoff + (size_t)eh->e_shnum * sizeof(ElfW(Shdr)) > o->map_len)
		return;
	const ElfW(Shdr) *sh = (const void *)(f + eh->e_shoff);
	const ElfW(Shdr) *tab = NULL;
	for (int pass = 0; pass < 2 && !tab; pass++)
		for (unsigned i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == (pass ? SHT_DYNSYM : SHT_SYMTAB) && sh[i].sh_size)
				tab = &sh[i];
	if (!tab || tab->sh_link >= eh->e_shnum || tab->sh_offset + tab->sh_size > o->map_len)
		return;
	const ElfW(Shdr) *strs = &sh[tab->sh_link];
	if (strs->sh_offset + strs->sh_size > o->map_len)
		return;
	const ElfW(Sym) *sy = (const void *)(f + tab->sh_offset);
	size_t n = tab->sh_size / sizeof(ElfW(Sym));
	o->syms_bytes = n * sizeof(struct sym) + 1;
	o->syms = hp_pages_alloc(o->syms_bytes);
	if (!o->syms)
		return;
	/* A position-independent object's symbols are relative to its base;
	 * a fixed-address executable's are absolute. */
	uintptr_t bias = eh->e_type == ET_DYN ? o->base : 0;
	for (size_t i = 0; i < n; i++) {
		int type = ELF64_ST_TYPE(sy[i].st_info);
		/* An import's PLT stub (an undefined symbol with a value, in a
		 * fixed-address program) names no code of this object. */
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || !sy[i].st_value ||
		    sy[i].st_shndx == SHN_UNDEF || sy[i].st_name >= strs->sh_size)
			continue;
		o->syms[o->nsyms++] = (struct sym){ bias + sy[i].st_value, sy[i].st_size,
						    (const char *)f + strs->sh_offset + sy[i].st_name };
	}
	sort_syms(o->syms, o->nsyms);
}

static const char *lookup(struct symtab *t, uintptr_t pc)
{
	for (int k = 0; k < t->nobj; k++) {
		struct object *o = &t->obj[k];
		if (pc < o->lo || pc >= o->hi)
			continue;
		if (!o->loaded)
			load(o);
		size_t lo = 0, hi = o->nsyms;
		while (lo < hi) {   /* the last symbol at or below pc */
			size_t mid = (lo + hi) / 2;
			if (o->syms[mid].addr <= pc)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			return NULL;
		const struct sym *s = &o->syms[lo - 1];
		/* Only a symbol that holds pc (one without a size, only at its
		 * start): in a stripped program the nearest one below names
		 * nothing that is there. */
		if (s->size ? pc >= s->addr + s->size : pc != s->addr)
			return NULL;
		return s->name;
	}
	return NULL;
}

static void sort_keys(uintptr_t *k, size_t n)
{
	static const size_t gaps[] = { 88573, 29524, 9841, 3280, 1093, 364, 121, 40, 13, 4, 1 };

	for (size_t g = 0; g < sizeof(gaps) / sizeof(gaps[0]); g++) {
		size_t gap = gaps[g];
		for (size_t i = gap; i < n; i++) {
			uintptr_t tmp = k[i];
			size_t j = i;
			for (; j >= gap && k[j - gap] > tmp; j -= gap)
				k[j] = k[j - gap];
			k[j] = tmp;
		}
	}
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* ---- names for other writers (the leak report) ---------------------- */

struct hp_dumpsyms_names {
	struct symtab t;
	demangle_fn demangle;
	char *dbuf;
	size_t dlen;
};

struct hp_dumpsyms_names *hp_dumpsyms_names_open(void)
{
	struct hp_dumpsyms_names *n = hp_pages_alloc(sizeof(*n));

	if (!n)
		return NULL;
	n->t.obj_bytes = MAX_OBJECTS * sizeof(struct object);
	n->t.obj = hp_pages_alloc(n->t.obj_bytes);
	if (!n->t.obj) {
		hp_pages_free(n, sizeof(*n));
		return NULL;
	}
	dl_iterate_phdr(collect, &n->t);
	n->demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	n->dlen = 256;
	n->dbuf = n->demangle ? (hp_next.malloc)(n->dlen) : NULL;
	return n;
}

const char *hp_dumpsyms_names_lookup(struct hp_dumpsyms_names *n, uintptr_t pc)
{
	const char *name = lookup(&n->t, pc);

	if (name && n->dbuf && name[0] == '_' && name[1] == 'Z') {
		int status = -1;
		char *d = n->demangle(name, n->dbuf, &n->dlen, &status);
		if (d && !status) {
			n->dbuf = d;
			name = d;
		}
	}
	return name;
}

const char *hp_dumpsyms_names_object(struct hp_dumpsyms_names *n, uintptr_t pc, uintptr_t *bias)
{
	for (int k = 0; k < n->t.nobj; k++) {
		const struct object *o = &n->t.obj[k];
		if (pc >= o->lo && pc < o->hi && o->path[0]) {
			*bias = o->base;
			return o->path;
		}
	}
	return NULL;
}

void hp_dumpsyms_names_close(struct hp_dumpsyms_names *n)
{
	if (!n)
		return;
	for (int k = 0; k < n->t.nobj; k++) {
		if (n->t.obj[k].map)
			hp_pages_unmap_file(n->t.obj[k].map, n->t.obj[k].map_len);
		hp_pages_free(n->t.obj[k].syms, n->t.obj[k].syms_bytes);
	}
	hp_pages_free(n->t.obj, n->t.obj_bytes);
	if (n->dbuf)
		(hp_next.free)(n->dbuf);
	hp_pages_free(n, sizeof(*n));
}

/* Whether the dump writes the stack: a row, or a peak line (dump.c). */
static int written(const struct hp_counts *k, int accum)
{
	return k->live_cnt > 0 || (accum && k->accum_cnt > 0) || k->peak_cnt > 0 ||
	       k->tmp_cnt > 0;
}

int hp_dumpsyms_write(struct hp_out *out, const struct hp_totals *s, int accum)
{
	struct symtab t = { 0 };
	size_t nkeys = 0, cap = 0;

	/* Every key the written stacks need: rows and peak lines. */
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		if (written(&s->by_stack[st], accum))
			cap += hp_stacktab_get(st)->depth;
	}
	size_t keys_bytes = (cap + 1) * sizeof(uintptr_t);
	uintptr_t *keys = hp_pages_alloc(keys_bytes);
	t.obj_bytes = MAX_OBJECTS * sizeof(struct object);
	t.obj = hp_pages_alloc(t.obj_bytes);
	if (!keys || !t.obj)
		goto out;
	for (uint32_t st = 1; st <= s->nstacks; st++) {
		if (!written(&s->by_stack[st], accum))
			continue;
		const struct hp_stack *stk = hp_stacktab_get(st);
		for (uint32_t i = 0; i < stk->depth; i++)
			keys[nkeys++] = stk->frames[i] - (i ? 1 : 0);
	}
	sort_keys(keys, nkeys);
	dl_iterate_phdr(collect, &t);

	demangle_fn demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	size_t dlen = 256;
	char *dbuf = demangle ? (hp_next.malloc)(dlen) : NULL;

	hp_out_str(out, "--- symbol\nbinary=");
	hp_out_str(out, t.nobj ? t.obj[0].path : "");
	hp_out_char(out, '\n');
	for (size_t i = 0; i < nkeys; i++) {
		if (i && keys[i] == keys[i - 1])
			continue;
		const char *name = lookup(&t, keys[i]);
		if (!name)
			continue;
		if (dbuf && name[0] == '_' && name[1] == 'Z') {
			int status = -1;
			char *d = demangle(name, dbuf, &dlen, &status);
			if (d && !status) {
				dbuf = d;
				name = d;
			}
		}
		hp_out_hex(out, keys[i]);
		hp_out_char(out, ' ');
		hp_out_str(out, name);
		hp_out_char(out, '\n');
	}
	hp_out_str(out, "---\n--- heap\n");
	if (dbuf)
		(hp_next.free)(dbuf);
out:
	for (int k = 0; t.obj && k < t.nobj; k++) {
		if (t.obj[k].map)
			hp_pages_unmap_file(t.obj[k].map, t.obj[k].map_len);
		hp_pages_free(t.obj[k].syms, t.obj[k].syms_bytes);
	}
	hp_pages_free(t.obj, t.obj_bytes);
	hp_pages_free(keys, keys_bytes);
	return out->err;
}
