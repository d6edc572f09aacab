/*
 * srcline.c -- file:line and inlined frames for the leak report at exit
 * (see srcline.h).
 *
 * Owns one session: libdw's entry points, found with dlopen and dlsym,
 * and one Dwfl per object file asked about, reported at load bias 0 so
 * that addresses are the ELF file's own (as heapprof check's symbolizer
 * does, src/report/symbolize.c, which the library shares no code with).
 * An address costs libdw's CU lookup and dwarf_getscopes: a report has a
 * few dozen frames, not the command's tens of thousands, so no index.
 *
 * Local only: separate debug files are looked for on the machine, never
 * asked of debuginfod servers (local_debuginfo).
 *
 * Runs at exit only, inside the guard: libdw's allocations go through the
 * interposed malloc, which then forwards to the next allocator and
 * records nothing; the arrays libdw hands back are freed there too.
 * C++ names are demangled with the process's own __cxa_demangle, as
 * output/dumpsyms.c does.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "base/fmt.h"
#include "base/pages.h"
#include "next/next.h"
#include "next/privheap.h"
#include "output/srcline.h"
#include "base/banned.h"

#define MAX_OBJECTS 64

typedef char *(*srcline_demangle_fn)(const char *, char *, size_t *, int *);

/* libdw's entry points, by name. */
struct dw_api {
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	void (*end)(Dwfl *);
	void (*report_begin)(Dwfl *);
	Dwfl_Module *(*report_elf)(Dwfl *, const char *, const char *, int, GElf_Addr, bool);
	int (*report_end)(Dwfl *, int (*)(Dwfl_Module *, void *, const char *, Dwarf_Addr, void *), void *);
	Dwarf_Die *(*addrdie)(Dwfl_Module *, Dwarf_Addr, Dwarf_Addr *);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, Dwarf_Addr);
	const char *(*lineinfo)(Dwfl_Line *, Dwarf_Addr *, int *, int *, Dwarf_Word *, Dwarf_Word *);
	int (*getscopes)(Dwarf_Die *, Dwarf_Addr, Dwarf_Die **);
	int (*getscopes_die)(Dwarf_Die *, Dwarf_Die **);
	int (*tag)(Dwarf_Die *);
	Dwarf_Attribute *(*attr)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	Dwarf_Attribute *(*attr_integrate)(Dwarf_Die *, unsigned int, Dwarf_Attribute *);
	const char *(*formstring)(Dwarf_Attribute *);
	int (*formudata)(Dwarf_Attribute *, Dwarf_Word *);
	int (*getsrcfiles)(Dwarf_Die *, Dwarf_Files **, size_t *);
	const char *(*filesrc)(Dwarf_Files *, size_t, Dwarf_Word *, Dwarf_Word *);
	/* The local search for a separate debug file (local_debuginfo). */
	int (*module_build_id)(Dwfl_Module *, const unsigned char **, GElf_Addr *);
	int (*build_id_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *,
				  const char *, GElf_Word, char **);
	int (*standard_debuginfo)(Dwfl_Module *, void **, const char *, Dwarf_Addr, const char *,
				  const char *, GElf_Word, char **);
	Elf *(*elf_begin)(int, Elf_Cmd, Elf *);
	int (*elf_end)(Elf *);
	ssize_t (*elf_build_id)(Elf *, const void **);
};

struct srcline_object {
	char path[PATH_MAX];
	Dwfl *dwfl;
	Dwfl_Module *mod;
};

struct hp_srcline {
	void *lib;
	struct dw_api dw;
	Dwfl_Callbacks cb;
	char *debuginfo_path;		/* NULL: elfutils' default */
	srcline_demangle_fn demangle;
	char *dbuf[HP_SRCLINE_INLINE_MAX];	/* one demangled name per frame */
	size_t dlen[HP_SRCLINE_INLINE_MAX];
	char (*files)[PATH_MAX];		/* one made-absolute file per frame */
	struct srcline_object *obj;
	int nobj;
};

/* The session's libdw, for local_debuginfo, whose callback has no room
 * for it (one session at a time: the report at exit). */
static const struct dw_api *local_api;

/* Whether the ELF file open on fd has the build ID bits[0..len). */
static int same_build_id(int fd, const unsigned char *bits, int len)
{
	Elf *e = local_api->elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id = NULL;
	int same = 0;

	if (!e)
		return 0;
	if (local_api->elf_build_id(e, &id) == len && memcmp(id, bits, (size_t)len) == 0)
		same = 1;
	local_api->elf_end(e);
	return same;
}

/* A separate debug file named by the object's .gnu_debuglink, looked for
 * where elfutils looks (beside the object, in its .debug, in
 * /usr/lib/debug or its mirror of the object's directory) and taken
 * only with the object's build ID: fd, or -1. */
static int debuglink_debuginfo(const char *file, const char *link, const unsigned char *bits, int len)
{
	/* before, the object's directory (unless !dir), after. */
	static const struct { const char *before, *after; int dir; } where[] = {
		{ "", "", 1 }, { "", "/.debug", 1 }, { "/usr/lib/debug", "", 0 }, { "/usr/lib/debug", "", 1 },
	};
	const char *slash = file ? strrchr(file, '/') : NULL;
	char path[PATH_MAX];

	if (!slash || !link || strchr(link, '/'))
		return -1;
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		size_t n = hp_fmt(path, sizeof(path), "%s%.*s%s/%s", where[i].before,
				  where[i].dir ? (int)(slash - file) : 0, file, where[i].after, link);
		if (n >= sizeof(path) - 1 || strcmp(path, file) == 0)
			continue;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (same_build_id(fd, bits, len))
			return fd;
		close(fd);
	}
	return -1;
}

/* libdw's find_debuginfo callback, local only: elfutils' standard one asks
 * the debuginfod servers of DEBUGINFOD_URLS when nothing local is found,
 * which at a host's exit would open network connections (a sandbox may
 * kill it for that) and wait up to minutes on a server that does not
 * answer.  An object with a build ID: the build-ID directories, then its
 * debuglink; without one, the standard search, which then never asks a
 * server (it needs a build ID to). */
static int local_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname, Dwarf_Addr base,
			   const char *file, const char *link, GElf_Word crc, char **debugfile)
{
	const unsigned char *bits = NULL;
	GElf_Addr vaddr;
	int len = local_api->module_build_id(mod, &bits, &vaddr);

	if (len <= 0)
		return local_api->standard_debuginfo(mod, userdata, modname, base, file, link, crc, debugfile);
	int fd = local_api->build_id_debuginfo(mod, NULL, NULL, 0, NULL, NULL, 0, debugfile);
	if (fd >= 0)
		return fd;
	return debuglink_debuginfo(file, link, bits, len);
}

static int load(struct hp_srcline *s)
{
	s->lib = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!s->lib)
		return -1;
#define SYM(field, name) (*(void **)&s->dw.field = dlsym(s->lib, name)) != NULL
	int ok = SYM(begin, "dwfl_begin") && SYM(end, "dwfl_end") &&
		 SYM(report_begin, "dwfl_report_begin") && SYM(report_elf, "dwfl_report_elf") &&
		 SYM(report_end, "dwfl_report_end") && SYM(addrdie, "dwfl_module_addrdie") &&
		 SYM(getsrc, "dwfl_module_getsrc") && SYM(lineinfo, "dwfl_lineinfo") &&
		 SYM(getscopes, "dwarf_getscopes") && SYM(getscopes_die, "dwarf_getscopes_die") && SYM(tag, "dwarf_tag") && SYM(attr, "dwarf_attr") &&
		 SYM(attr_integrate, "dwarf_attr_integrate") && SYM(formstring, "dwarf_formstring") &&
		 SYM(formudata, "dwarf_formudata") && SYM(getsrcfiles, "dwarf_getsrcfiles") &&
		 SYM(filesrc, "dwarf_filesrc");
	ok = ok && SYM(module_build_id, "dwfl_module_build_id") &&
	     SYM(build_id_debuginfo, "dwfl_build_id_find_debuginfo") &&
	     SYM(standard_debuginfo, "dwfl_standard_find_debuginfo") &&
	     SYM(elf_begin, "elf_begin") && SYM(elf_end, "elf_end") &&
	     SYM(elf_build_id, "dwelf_elf_gnu_build_id");
	ok = ok && (*(void **)&s->cb.find_elf = dlsym(s->lib, "dwfl_build_id_find_elf")) &&
	     (*(void **)&s->cb.section_address = dlsym(s->lib, "dwfl_offline_section_address"));
#undef SYM
	s->cb.find_debuginfo = local_debuginfo;
	s->cb.debuginfo_path = &s->debuginfo_path;
	local_api = &s->dw;
	return ok ? 0 : -1;
}

struct hp_srcline *hp_srcline_open(void)
{
	struct hp_srcline *s = hp_pages_alloc(sizeof(*s));

	if (!s)
		return NULL;
	memset(s, 0, sizeof(*s));
	s->obj = hp_pages_alloc(MAX_OBJECTS * sizeof(*s->obj));
	s->files = hp_pages_alloc(HP_SRCLINE_INLINE_MAX * sizeof(*s->files));
	if (!s->obj || !s->files || load(s)) {
		hp_srcline_close(s);
		return NULL;
	}
	s->demangle = (srcline_demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
	return s;
}

void hp_srcline_close(struct hp_srcline *s)
{
	if (!s)
		return;
	for (int i = 0; i < s->nobj; i++)
		if (s->obj[i].dwfl)
			s->dw.end(s->obj[i].dwfl);
	for (int i = 0; i < HP_SRCLINE_INLINE_MAX; i++)
		if (s->dbuf[i])
			hp_privheap_free_any(s->dbuf[i]);
	if (s->obj)
		hp_pages_free(s->obj, MAX_OBJECTS * sizeof(*s->obj));
	if (s->files)
		hp_pages_free(s->files, HP_SRCLINE_INLINE_MAX * sizeof(*s->files));
	/* libdw stays loaded: the process is exiting, and its own exit
	 * handlers may still run code of a library it loaded itself. */
	hp_pages_free(s, sizeof(*s));
}

/* The module for the ELF file at path, reported once; NULL when it
 * cannot be read or the table is full. */
static Dwfl_Module *module(struct hp_srcline *s, const char *path)
{
	for (int i = 0; i < s->nobj; i++)
		if (!strcmp(s->obj[i].path, path))
			return s->obj[i].mod;
	if (s->nobj == MAX_OBJECTS || strlen(path) >= PATH_MAX)
		return NULL;
	struct srcline_object *o = &s->obj[s->nobj++];
	hp_fmt(o->path, sizeof(o->path), "%s", path);
	o->dwfl = s->dw.begin(&s->cb);
	if (!o->dwfl)
		return NULL;
	s->dw.report_begin(o->dwfl);
	o->mod = s->dw.report_elf(o->dwfl, o->path, o->path, -1, 0, true);
	s->dw.report_end(o->dwfl, NULL, NULL);
	return o->mod;
}

/* A DIE's name: its linkage name demangled (C++), else its name, through
 * an inlined instance's abstract origin; into slot k's buffer. */
static const char *die_name(struct hp_srcline *s, Dwarf_Die *die, int k)
{
	Dwarf_Attribute mem;
	const char *link = s->dw.formstring(s->dw.attr_integrate(die, DW_AT_linkage_name, &mem));

	if (!link)
		link = s->dw.formstring(s->dw.attr_integrate(die, DW_AT_MIPS_linkage_name, &mem));
	if (link && s->demangle && link[0] == '_' && link[1] == 'Z') {
		int status = -1;
		if (!s->dbuf[k]) {
			s->dlen[k] = 256;
			s->dbuf[k] = (hp_next.malloc)(s->dlen[k]);
		}
		char *d = s->dbuf[k] ? s->demangle(link, s->dbuf[k], &s->dlen[k], &status) : NULL;
		if (d && !status)
			return s->dbuf[k] = d;
	}
	const char *name = s->dw.formstring(s->dw.attr_integrate(die, DW_AT_name, &mem));
	return name ? name : link;
}

/* The file and line an inlined instance was inlined at. */
static void call_site(struct hp_srcline *s, Dwarf_Die *cudie, Dwarf_Die *inl, const char **file, int *line)
{
	Dwarf_Attribute mem;
	Dwarf_Word f = 0, l = 0;
	Dwarf_Files *files;
	size_t nfiles;

	*file = NULL;
	*line = 0;
	if (s->dw.formudata(s->dw.attr(inl, DW_AT_call_file, &mem), &f) == 0 &&
	    s->dw.getsrcfiles(cudie, &files, &nfiles) == 0 && f < nfiles)
		*file = s->dw.filesrc(files, f, NULL, NULL);
	if (s->dw.formudata(s->dw.attr(inl, DW_AT_call_line, &mem), &l) == 0 && l <= INT_MAX)
		*line = (int)l;
}

/* A relative file name made absolute with the CU's compilation
 * directory, as addr2line and heapprof check do ("x.c" built in /src:
 * /src/x.c), into slot k; unless elfutils has put that directory in
 * front already (a relative one, -fdebug-prefix-map=...=.). */
static const char *absolute(struct hp_srcline *s, Dwarf_Die *cudie, const char *f, int k)
{
	Dwarf_Attribute mem;
	const char *dir = f && f[0] != '/' ? s->dw.formstring(s->dw.attr(cudie, DW_AT_comp_dir, &mem)) : NULL;

	if (!dir || !*dir)
		return f;
	size_t dl = strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (!strncmp(f, dir, dl) && f[dl] == '/')
		return f;
	while (f[0] == '.' && f[1] == '/')
		f += 2;
	size_t n = hp_fmt(s->files[k], PATH_MAX, "%.*s/%s", (int)dl, dir, f);
	return n < PATH_MAX ? s->files[k] : f;
}

size_t hp_srcline_lookup(struct hp_srcline *s, const char *object, uintptr_t addr,
			 struct hp_srcline_frame *out, size_t max)
{
	Dwfl_Module *mod = s && object && object[0] == '/' ? module(s, object) : NULL;
	Dwarf_Addr bias = 0;
	Dwarf_Die *cudie = mod ? s->dw.addrdie(mod, addr, &bias) : NULL;
	Dwfl_Line *ln = cudie ? s->dw.getsrc(mod, addr) : NULL;
	const char *file;
	int line = 0;
	size_t n = 0;

	if (!ln || !(file = s->dw.lineinfo(ln, NULL, &line, NULL, NULL, NULL)))
		return 0;
	if (max > HP_SRCLINE_INLINE_MAX)
		max = HP_SRCLINE_INLINE_MAX;
	Dwarf_Die *scopes = NULL, *chain = NULL;
	int nscopes = s->dw.getscopes(cudie, addr - bias, &scopes), first = 0;
	/* dwarf_getscopes goes from an inlined instance to its abstract
	 * definition's scopes: the innermost function only is taken from
	 * it, and the scopes it sits in, where it was inlined, from
	 * dwarf_getscopes_die (as eu-addr2line -i does). */
	while (first < nscopes && s->dw.tag(&scopes[first]) != DW_TAG_inlined_subroutine &&
	       s->dw.tag(&scopes[first]) != DW_TAG_subprogram)
		first++;
	if (first < nscopes) {
		int nchain = s->dw.getscopes_die(&scopes[first], &chain);
		if (nchain > 0) {
			hp_privheap_free_any(scopes);
			scopes = chain;
			nscopes = nchain;
			first = 0;
		}
	}
	/* Innermost first: each inlined instance is a frame at the file and
	 * line reached so far, then its call site is where the next outer
	 * one is; the subprogram that holds them ends the walk. */
	for (int i = first; i < nscopes && n < max; i++) {
		int tag = s->dw.tag(&scopes[i]);
		if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
			continue;
		out[n].function = die_name(s, &scopes[i], (int)n);
		out[n].file = absolute(s, cudie, file, (int)n);
		out[n].line = line;
		n++;
		if (tag == DW_TAG_subprogram)
			break;
		call_site(s, cudie, &scopes[i], &file, &line);
	}
	if (scopes)
		hp_privheap_free_any(scopes);
	/* No function DIE holds it (assembly with line info): the line alone. */
	if (!n) {
		out[0] = (struct hp_srcline_frame){ NULL, absolute(s, cudie, file, 0), line };
		n = 1;
	}
	return n;
}
