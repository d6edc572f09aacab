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
 *
 * An object is the address range the loader gave its segments, whatever
 * is mapped there now: a program that copied its text into anonymous
 * memory at the same addresses (node --use-largepages, libhugetlbfs) is
 * named.  Code an object's file supplies a second time, elsewhere (V8 maps
 * node's embedded builtins again from the binary), is found in
 * /proc/self/maps and looked up where the object's own mapping has it.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/file.h"
#include "base/fmt.h"
#include "base/out.h"
#include "base/pages.h"
#include "next/next.h"
#include "next/privheap.h"
#include "output/totals.h"
#include "record/stacktab.h"
#include "output/dumpsyms.h"
#include "base/banned.h"

#define MAX_OBJECTS 512
#define MAX_TEXT 4	/* executable segments kept per object */
#define MAX_COPIES 64	/* second mappings of objects' code */
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

/* An executable segment: its file offset, address and file size. */
struct text {
	uintptr_t off, vaddr, filesz;
};

struct object {
	uintptr_t base, lo, hi;
	char path[PATH_MAX];
	struct text text[MAX_TEXT];
	int ntext;
	int statted;		/* dev and ino: 1 known, -1 unknown */
	dev_t dev;
	ino_t ino;
	int loaded;
	void *map;
	size_t map_len;
	struct sym *syms;
	size_t nsyms;
	size_t syms_bytes;
};

/* A second mapping of an object's code: [lo, hi) holds what the object's
 * own mapping holds from home on. */
struct copy {
	uintptr_t lo, hi, home;
};

struct symtab {
	struct object *obj;
	int nobj;
	size_t obj_bytes;
	struct copy copies[MAX_COPIES];
	int ncopies;
};

static int collect(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct symtab *t = arg;

	(void)size;
	if (t->nobj >= MAX_OBJECTS)
		return 1;
	struct object *o = &t->obj[t->nobj];
	uintptr_t lo = UINTPTR_MAX, hi = 0;

	o->ntext = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < lo)
			lo = a;
		if (a + ph->p_memsz > hi)
			hi = a + ph->p_memsz;
		if ((ph->p_flags & PF_X) && o->ntext < MAX_TEXT)
			o->text[o->ntext++] = (struct text){ ph->p_offset, ph->p_vaddr,
							     ph->p_filesz };
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

/* ---- second mappings of objects' code --------------------------------- */

/* The object whose file is path (len bytes) or, as stat tells, (dev, ino);
 * or NULL.  The path alone where overlayfs shows maps the lower file's
 * numbers. */
static struct object *object_of_file(struct symtab *t, const char *path, size_t len, dev_t dev,
				     ino_t ino)
{
	for (int k = 0; k < t->nobj; k++) {
		struct object *o = &t->obj[k];
		if (!strncmp(o->path, path, len) && !o->path[len])
			return o;
		if (!o->statted) {
			struct stat st;
			o->statted = o->path[0] && !stat(o->path, &st) ? 1 : -1;
			if (o->statted > 0) {
				o->dev = st.st_dev;
				o->ino = st.st_ino;
			}
		}
		if (o->statted > 0 && o->dev == dev && o->ino == ino)
			return o;
	}
	return NULL;
}

static uintptr_t hex(const char **p, const char *end)
{
	uintptr_t v = 0;

	for (; *p < end; (*p)++) {
		char c = **p;
		if (c >= '0' && c <= '9')
			v = v * 16 + (uintptr_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v = v * 16 + (uintptr_t)(c - 'a' + 10);
		else
			break;
	}
	return v;
}

/* One line of /proc/self/maps, "lo-hi perms offset major:minor inode
 * path": an executable mapping of a file outside every object's range,
 * whose pages lie in an executable segment of an object's file, is a
 * copy of that object's code. */
static void copy_line(struct symtab *t, const char *p, const char *end)
{
	uintptr_t lo = hex(&p, end), hi, off, major, minor, ino = 0;

	if (p >= end || *p++ != '-')
		return;
	hi = hex(&p, end);
	if (end - p < 6 || p[3] != 'x')
		return;
	p += 6;
	off = hex(&p, end);
	if (p >= end || *p++ != ' ')
		return;
	major = hex(&p, end);
	if (p >= end || *p++ != ':')
		return;
	minor = hex(&p, end);
	if (p >= end || *p++ != ' ')
		return;
	for (; p < end && *p >= '0' && *p <= '9'; p++)
		ino = ino * 10 + (uintptr_t)(*p - '0');
	while (p < end && *p == ' ')
		p++;
	/* Files only, and none the loader mapped: those are the objects. */
	static const char deleted[] = " (deleted)";
	size_t len = (size_t)(end - p), dl = sizeof(deleted) - 1;
	if (!len || *p != '/' || hi <= lo || t->ncopies >= MAX_COPIES ||
	    (len > dl && !memcmp(end - dl, deleted, dl)))
		return;
	for (int k = 0; k < t->nobj; k++)
		if (lo < t->obj[k].hi && hi > t->obj[k].lo)
			return;
	struct object *o = object_of_file(t, p, len, makedev(major, minor), (ino_t)ino);
	if (!o)
		return;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < o->ntext; i++) {
		const struct text *x = &o->text[i];
		uintptr_t first = x->off & ~(page - 1);
		uintptr_t last = (x->off + x->filesz + page - 1) & ~(page - 1);
		if (off < first || off > last || hi - lo > last - off)
			continue;
		t->copies[t->ncopies++] = (struct copy){ lo, hi, o->base + x->vaddr + (off - x->off) };
		return;
	}
}

struct maps_lines {
	struct symtab *t;
	size_t len;
	int skip;		/* the line is too long: none of ours */
	char line[PATH_MAX + 128];
};

static void maps_chunk(const char *buf, size_t n, void *arg)
{
	struct maps_lines *m = arg;

	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (!m->skip)
				copy_line(m->t, m->line, m->line + m->len);
			m->len = 0;
			m->skip = 0;
		} else if (m->len < sizeof(m->line)) {
			m->line[m->len++] = buf[i];
		} else {
			m->skip = 1;
		}
	}
}

/* Finds the copies of the objects' code (after collect).  The calling
 * thread's view first, as the dump reads it. */
static void find_copies(struct symtab *t)
{
	struct maps_lines *m = hp_pages_alloc(sizeof(*m));

	if (!m)
		return;
	m->t = t;
	if (hp_file_each_chunk("/proc/thread-self/maps", maps_chunk, m))
		hp_file_each_chunk("/proc/self/maps", maps_chunk, m);
	hp_pages_free(m, sizeof(*m));
}

/* Where the object's own mapping holds the code at pc: pc itself, unless
 * pc is in a copy. */
static uintptr_t home(const struct symtab *t, uintptr_t pc)
{
	for (int k = 0; k < t->nobj; k++)
		if (pc >= t->obj[k].lo && pc < t->obj[k].hi)
			return pc;
	for (int i = 0; i < t->ncopies; i++)
		if (pc >= t->copies[i].lo && pc < t->copies[i].hi)
			return t->copies[i].home + (pc - t->copies[i].lo);
	return pc;
}

/* ---- symbol tables --------------------------------------------------- */

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

static size_t underscores(const char *name)
{
	size_t n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* Of the symbols at s's address (s is the last of them in the sorted
 * table, first the table's start), the public name: glibc exports some
 * functions twice (__strdup and strdup) and its full symbol table has
 * hidden aliases (__GI___strdup); the one with the fewest leading
 * underscores, not "__GI_", is the one a reader knows. */
static const struct sym *public_sym(const struct sym *first, const struct sym *s)
{
	const struct sym *best = s;

	for (const struct sym *o = s; o >= first && o->addr == s->addr; o--) {
		int gi = !strncmp(o->name, "__GI_", 5), best_gi = !strncmp(best->name, "__GI_", 5);
		if ((best_gi && !gi) || (gi == best_gi && underscores(o->name) < underscores(best->name)))
			best = o;
	}
	return best;
}

static const char *lookup(struct symtab *t, uintptr_t pc)
{
	pc = home(t, pc);
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
		return public_sym(o->syms, s)->name;
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
	find_copies(&n->t);
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
	uintptr_t at = home(&n->t, pc);

	for (int k = 0; k < n->t.nobj; k++) {
		const struct object *o = &n->t.obj[k];
		if (at >= o->lo && at < o->hi && o->path[0]) {
			*bias = o->base + (pc - at);
			return o->path;
		}
	}
	return NULL;
}

uintptr_t hp_dumpsyms_names_home(struct hp_dumpsyms_names *n, uintptr_t pc)
{
	return n ? home(&n->t, pc) : pc;
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
		hp_privheap_free_any(n->dbuf);
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
		struct hp_stack_frames it = hp_stacktab_frames_of(stk);
		for (uint32_t i = 0; i < stk->depth; i++)
			keys[nkeys++] = hp_stacktab_next(&it) - (i ? 1 : 0);
	}
	sort_keys(keys, nkeys);
	dl_iterate_phdr(collect, &t);
	find_copies(&t);

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
		hp_privheap_free_any(dbuf);
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
