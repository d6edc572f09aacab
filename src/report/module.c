/*
 * module.c -- ELF files behind the mappings, and whether they still are
 * the files the process mapped (see module.h).
 *
 * Owns the module table, the search for a mapping's file (by build-id, by
 * --binary) and the "same binary?" decision.  A dump from heapprof gives
 * each object's build-id: a file with that build-id is the binary (or its
 * separate debug file), one with another is not.  Without a build-id (an
 * older dump, jemalloc's, an object built without one) the decision rests
 * on what the maps imply: the file must exist, must not have been
 * modified after the dump was written, and its loadable segments must
 * produce the executable mappings the dump shows (a rebuilt binary nearly
 * always moves or resizes them): each is an executable segment where the
 * loader put it, or part of one that anonymous executable memory
 * continues (a program that moved its text to huge pages), or, away from
 * the object, a second mapping of some of its text (V8's builtins).  The
 * segments are checked with a build-id too: they give the load bias.
 * When in doubt we show offsets: a wrong name is worse than none.
 */
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "module.h"
#include "strtab.h"
#include "util.h"

/* Build-ids are at most this many bytes (--build-id=0x... allows any). */
#define BUILDID_MAX 64

/* Dumps may come from machines with 4, 16 or 64 KiB pages. */
static const uint64_t page_sizes[] = { 4096, 16384, 65536 };

/* Libraries that are nothing but an allocator (and heapprof itself): all
 * their frames are allocator frames, named or not.  jemalloc's and
 * tcmalloc's shared libraries are stripped to their exported symbols, so
 * their internal frames have no names to match. */
static int is_allocator(const char *base)
{
	static const char *const libs[] = {
		"libheapprof.so", "libjemalloc.so", "libtcmalloc.so", "libtcmalloc_minimal.so",
		"libtcmalloc_and_profiler.so", "libtcmalloc_debug.so", "libmimalloc.so",
	};
	for (size_t i = 0; i < HP_UTIL_ARRAY_LEN(libs); i++) {
		size_t n = strlen(libs[i]);
		if (!strncmp(base, libs[i], n) && (base[n] == '\0' || base[n] == '.'))
			return 1;
	}
	return 0;
}

struct hp_module *hp_module_get(struct hp_modtab *t, const struct hp_map *m)
{
	for (size_t i = 0; i < t->n; i++) {
		struct hp_module *mod = t->mods[i];
		if (mod->path == m->path && mod->inode == m->inode &&
		    mod->dev_major == m->dev_major && mod->dev_minor == m->dev_minor &&
		    mod->build_id == m->build_id)
			return mod;
	}
	struct hp_module *mod = hp_util_xcalloc(1, sizeof(*mod));
	mod->id = (uint32_t)t->n;
	mod->path = m->path;
	mod->base = hp_strtab_intern_str(t->strs, hp_maps_basename(m->path));
	mod->dev_major = m->dev_major;
	mod->dev_minor = m->dev_minor;
	mod->inode = m->inode;
	mod->build_id = m->build_id;
	mod->file = m->path;
	mod->allocator = is_allocator(mod->base);
	hp_util_grow(&t->mods, &t->cap, t->n + 1, sizeof(*t->mods));
	t->mods[t->n++] = mod;
	return mod;
}

void hp_modtab_release(struct hp_modtab *t)
{
	for (size_t i = 0; i < t->n; i++) {
		free(t->mods[i]->load);
		free(t->mods[i]);
	}
	free(t->mods);
	t->mods = NULL;
	t->n = t->cap = 0;
	free(t->bins);
	t->bins = NULL;
}

/* The GNU build-id of elf as interned lower-case hex, or NULL. */
static const char *elf_build_id(struct hp_strtab *strs, Elf *elf)
{
	const void *p;
	ssize_t n = dwelf_elf_gnu_build_id(elf, &p);
	char hex[2 * BUILDID_MAX + 1];

	if (n <= 0 || n > BUILDID_MAX)
		return NULL;
	for (ssize_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", ((const unsigned char *)p)[i]);
	return hp_strtab_intern_str(strs, hex);
}

/* Forgets the file read last, to read another. */
static void unload(struct hp_module *mod)
{
	free(mod->load);
	mod->load = NULL;
	mod->nload = 0;
	mod->open_err = NULL;
	mod->debug_only = 0;
	mod->file = mod->path;
}

/*
 * Reads file's size, time, PT_LOAD headers and build-id (*id, NULL when
 * it has none) into mod, as the file that stands for it.  Returns NULL,
 * or why the file cannot be used (also mod->open_err).
 */
static const char *load_file(struct hp_strtab *strs, struct hp_module *mod, const char *file,
			     const char **id)
{
	struct stat st;

	unload(mod);
	*id = NULL;
	mod->file = file;
	/* A dump may name anything: never block on a FIFO or read a device
	 * or a pseudo-file. */
	if (!strncmp(file, "/proc/", 6) || !strncmp(file, "/sys/", 5) ||
	    !strncmp(file, "/dev/", 5))
		return mod->open_err = "not a regular file";
	int fd = open(file, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mod->open_err = fd < 0 && errno == ENOENT ? "the file is gone"
			      : fd < 0 ? "the file cannot be opened"
				       : "not a regular file";
		if (fd >= 0)
			close(fd);
		return mod->open_err;
	}
	mod->mtime = st.st_mtim;
	mod->size = (uint64_t)st.st_size;
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	GElf_Ehdr eh;
	size_t phnum;
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh) ||
	    (eh.e_type != ET_EXEC && eh.e_type != ET_DYN) || elf_getphdrnum(elf, &phnum)) {
		mod->open_err = "the file is not an ELF executable or library";
		goto out;
	}
	mod->etype = eh.e_type;
	mod->load = hp_util_xcalloc(phnum ? phnum : 1, sizeof(*mod->load));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		mod->load[mod->nload++] = ph;
		/* objcopy --only-keep-debug keeps the program headers but
		 * not the code: the text segment has no file image. */
		if ((ph.p_flags & PF_X) && ph.p_memsz && !ph.p_filesz)
			mod->debug_only = 1;
	}
	if (!mod->nload)
		mod->open_err = "the file has no loadable segments";
	*id = elf_build_id(strs, elf);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return mod->open_err;
}

/* The --binary files, read once. */
static struct hp_modbin *binaries(struct hp_modtab *t)
{
	if (t->bins || !t->nbinaries)
		return t->bins;
	t->bins = hp_util_xcalloc(t->nbinaries, sizeof(*t->bins));
	for (size_t i = 0; i < t->nbinaries; i++) {
		struct hp_module probe = { .path = t->binaries[i] };
		struct hp_modbin *b = &t->bins[i];
		const char *err = load_file(t->strs, &probe, t->binaries[i], &b->build_id);
		free(probe.load);
		if (err)
			hp_util_die("--binary '%s': %s", t->binaries[i],
				    !strcmp(err, "the file is gone") ? "no such file" : err);
		b->path = t->binaries[i];
		b->base = hp_maps_basename(b->path);
	}
	return t->bins;
}

/* Tries file as mod's: 1 (and mod loaded from it) when it reads and has
 * the dump's build-id. */
static int try_file(struct hp_modtab *t, struct hp_module *mod, const char *file)
{
	const char *id;

	if (load_file(t->strs, mod, file, &id) || id != mod->build_id)
		return 0;
	mod->same_id = 1;
	return 1;
}

/* Tries the debug directories for mod's build-id: binaries first, then
 * separate debug files.  1 when one was found (and loaded). */
static int find_by_id(struct hp_modtab *t, struct hp_module *mod)
{
	const char *id = mod->build_id;
	struct hp_buf b = { 0 };
	int found = 0;

	for (int pass = 0; pass < 2 && !found; pass++) {
		for (size_t i = 0; i <= t->ndebug_dirs && !found; i++) {
			const char *dir = i < t->ndebug_dirs ? t->debug_dirs[i] : "/usr/lib/debug";
			const char *const names[2][2] = { { "", "executable" }, { ".debug", "debuginfo" } };
			b.len = 0;
			hp_buf_printf(&b, "%s/.build-id/%.2s/%s%s", dir, id, id + 2, names[pass][0]);
			found = try_file(t, mod, hp_strtab_intern_str(t->strs, b.p));
			if (found)
				break;
			/* A debuginfod client cache: <id>/executable, <id>/debuginfo. */
			b.len = 0;
			hp_buf_printf(&b, "%s/%s/%s", dir, id, names[pass][1]);
			found = try_file(t, mod, hp_strtab_intern_str(t->strs, b.p));
		}
	}
	hp_buf_release(&b);
	return found;
}

/* An interned message. */
__attribute__((format(printf, 2, 3))) static const char *msg(struct hp_strtab *strs,
							     const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		hp_util_die("out of memory");
	va_end(ap);
	const char *out = hp_strtab_intern_str(strs, s);
	free(s);
	return out;
}

/*
 * Finds and reads the file that stands for mod (module.h says in which
 * order), once.  On failure mod->open_err says why; when the file at the
 * path has another build-id than the dump's, one warning says so
 * (whether or not another file was found).
 */
static void module_open(struct hp_modtab *t, struct hp_module *mod)
{
	struct hp_modbin *bins = binaries(t);
	const char *id;

	mod->opened = 1;
	if (!mod->build_id) {
		for (size_t i = 0; i < t->nbinaries; i++)
			if (!strcmp(bins[i].base, mod->base)) {
				mod->named = 1;
				load_file(t->strs, mod, bins[i].path, &id);
				return;
			}
		load_file(t->strs, mod, mod->path, &id);
		return;
	}
	const char *err = load_file(t->strs, mod, mod->path, &id);
	if (!err && id == mod->build_id) {
		mod->same_id = 1;
		return;
	}
	/* Not the file at the path: what it is, for the warning. */
	const char *differs = err ? NULL
			    : id ? msg(t->strs, "has build-id %s, not the dump's %s", id, mod->build_id)
				 : msg(t->strs, "has no build-id, the dump's is %s", mod->build_id);
	int found = 0;
	for (size_t i = 0; i < t->nbinaries && !found; i++)
		found = bins[i].build_id == mod->build_id && try_file(t, mod, bins[i].path);
	if (found || find_by_id(t, mod)) {
		if (differs)
			hp_util_warn("warning: '%s' %s: names come from '%s'", mod->path, differs,
				     mod->file);
		return;
	}
	unload(mod);
	/* A --binary of the same name is the likeliest mistake: say so. */
	const char *hint = NULL;
	for (size_t i = 0; i < t->nbinaries && !hint; i++)
		if (!strcmp(bins[i].base, mod->base))
			hint = msg(t->strs, "--binary '%s' has build-id %s", bins[i].path,
				   bins[i].build_id ? bins[i].build_id : "none");
	if (differs) {
		mod->warned = 1;
		mod->open_err = msg(t->strs, "it %s", differs);
		hp_util_warn("warning: '%s' %s: its frames are shown as %s+0x<offset> (%s)",
			     mod->path, differs, mod->base,
			     hint ? hint : "no --binary or debug directory has the dump's");
	} else if (hint) {
		mod->open_err = msg(t->strs, "%s, and %s, not the dump's %s", err, hint,
				    mod->build_id);
	} else {
		mod->open_err = msg(t->strs, "%s, and no --binary or debug directory has its "
				    "build-id %s", err, mod->build_id);
	}
}

static uint64_t page_down(uint64_t x, uint64_t p)
{
	return x & ~(p - 1);
}

static uint64_t page_up(uint64_t x, uint64_t p)
{
	return (x + p - 1) & ~(p - 1);
}

/*
 * Segment ph as the loader maps it with page size p: the file offset and
 * the virtual address of its first page, and the length of its file
 * image.  -1 when no loader could map it with that page size (its address
 * and offset disagree within a page).
 */
struct seg {
	uint64_t off, vaddr, len;
};

static int seg_at(const GElf_Phdr *ph, uint64_t p, struct seg *s)
{
	uint64_t in_page = ph->p_offset & (p - 1);

	if ((ph->p_vaddr & (p - 1)) != in_page)
		return -1;
	s->off = ph->p_offset - in_page;
	s->vaddr = ph->p_vaddr - in_page;
	s->len = page_up(in_page + ph->p_filesz, p);
	return 0;
}

/* Whether the file range [off, off + len) lies in segment s's image. */
static int in_image(const struct seg *s, uint64_t off, uint64_t len)
{
	return off >= s->off && len <= s->len && off - s->off <= s->len - len;
}

static int anon_exec(const struct hp_map *m)
{
	return m->kind == HP_MAP_ANON && m->perms[2] == 'x';
}

/*
 * The load bias the dump's mappings of mod imply.  A fixed-address
 * executable has none.  Otherwise each mapping of the file that lies in a
 * loadable segment's image (of its kind: executable or not) votes for the
 * bias that puts it there, and the most votes win (the lowest mapping's
 * on a tie): the loader's mappings of the object (four or more) agree,
 * while a second copy of some text elsewhere (V8 maps its builtins again
 * from the binary) adds a stray vote.  0 when no mapping votes.
 */
static int find_bias(const struct hp_module *mod, const struct hp_input *in, uint64_t *bias)
{
	uint64_t cand[16];
	unsigned votes[16];
	size_t ncand = 0;

	if (mod->etype == ET_EXEC) {
		*bias = 0;
		return 1;
	}
	for (size_t i = 0; i < in->nmaps; i++) {
		const struct hp_map *m = &in->maps[i];
		if (m->path != mod->path || m->inode != mod->inode ||
		    m->dev_major != mod->dev_major || m->dev_minor != mod->dev_minor)
			continue;
		/* The loader's guard pages between segments (---p) vote for
		 * nothing; the others only for a segment of their kind. */
		if (!memcmp(m->perms, "---", 3))
			continue;
		for (size_t j = 0; j < mod->nload; j++) {
			const GElf_Phdr *ph = &mod->load[j];
			struct seg s;
			size_t k = 0;
			if ((m->perms[2] == 'x') != !!(ph->p_flags & PF_X))
				continue;
			for (; k < HP_UTIL_ARRAY_LEN(page_sizes); k++)
				if (!seg_at(ph, page_sizes[k], &s) &&
				    in_image(&s, m->offset, m->end - m->start))
					break;
			if (k == HP_UTIL_ARRAY_LEN(page_sizes))
				continue;
			/* The same whatever the page size: p_vaddr - p_offset. */
			uint64_t b = m->start - s.vaddr - (m->offset - s.off);
			k = 0;
			while (k < ncand && cand[k] != b)
				k++;
			if (k == ncand) {
				if (ncand == HP_UTIL_ARRAY_LEN(cand))
					continue;
				cand[ncand] = b;
				votes[ncand++] = 0;
			}
			votes[k]++;
		}
	}
	size_t best = 0;
	for (size_t k = 1; k < ncand; k++)
		if (votes[k] > votes[best])
			best = k;
	if (!ncand)
		return 0;
	*bias = cand[best];
	return 1;
}

/*
 * Whether the executable mapping maps[i] of mod is where the loader put
 * part of an executable segment at load bias bias: inside the segment,
 * at the matching file offset, and ending where the segment ends unless
 * anonymous executable memory continues it (the rest of the segment,
 * remapped by the program: node --use-largepages, libhugetlbfs).
 */
static int in_place(const struct hp_module *mod, const struct hp_input *in, size_t i,
		    uint64_t bias)
{
	const struct hp_map *m = &in->maps[i];

	for (size_t j = 0; j < mod->nload; j++) {
		const GElf_Phdr *ph = &mod->load[j];
		if (!(ph->p_flags & PF_X))
			continue;
		for (size_t k = 0; k < HP_UTIL_ARRAY_LEN(page_sizes); k++) {
			struct seg s;
			if (seg_at(ph, page_sizes[k], &s))
				continue;
			uint64_t lo = bias + s.vaddr, hi = lo + s.len;
			if (m->start < lo || m->end > hi || m->offset != s.off + (m->start - lo))
				continue;
			if (m->start != lo &&
			    !(i > 0 && in->maps[i - 1].end == m->start && anon_exec(&in->maps[i - 1])))
				continue;
			if (m->end != hi && !(i + 1 < in->nmaps &&
					      in->maps[i + 1].start == m->end &&
					      anon_exec(&in->maps[i + 1])))
				continue;
			return 1;
		}
	}
	return 0;
}

/* Whether the executable mapping m maps file pages of an executable
 * segment, wherever it is. */
static int copy_of_text(const struct hp_module *mod, const struct hp_map *m)
{
	for (size_t j = 0; j < mod->nload; j++) {
		const GElf_Phdr *ph = &mod->load[j];
		for (size_t k = 0; k < HP_UTIL_ARRAY_LEN(page_sizes); k++) {
			struct seg s;
			if ((ph->p_flags & PF_X) && !seg_at(ph, page_sizes[k], &s) &&
			    in_image(&s, m->offset, m->end - m->start))
				return 1;
		}
	}
	return 0;
}

/* The object's address range at load bias bias: from its lowest
 * segment's first page to the end of its highest. */
static void span(const struct hp_module *mod, uint64_t bias, uint64_t *lo, uint64_t *hi)
{
	*lo = UINT64_MAX;
	*hi = 0;
	for (size_t j = 0; j < mod->nload; j++) {
		const GElf_Phdr *ph = &mod->load[j];
		uint64_t a = bias + page_down(ph->p_vaddr, page_sizes[0]);
		uint64_t b = bias + ph->p_vaddr + ph->p_memsz;
		*lo = a < *lo ? a : *lo;
		*hi = b > *hi ? b : *hi;
	}
}

/*
 * Every executable mapping of the file is either where the loader put
 * (part of) an executable segment, at the one bias the mappings imply, or,
 * outside the object's range, a second mapping of some of its text.
 * Anything else means the file is not the one that was mapped: a rebuilt
 * binary nearly always moves or resizes its segments.
 */
static const char *check_mappings(struct hp_module *mod, const struct hp_input *in)
{
	uint64_t bias = 0, lo = 0, hi = 0;
	int have_bias = find_bias(mod, in, &bias);

	if (have_bias)
		span(mod, bias, &lo, &hi);
	for (size_t i = 0; i < in->nmaps; i++) {
		const struct hp_map *m = &in->maps[i];
		if (m->path != mod->path || m->inode != mod->inode ||
		    m->dev_major != mod->dev_major || m->dev_minor != mod->dev_minor)
			continue;
		/* Of the file at the path: not the one a build-id or a
		 * --binary chose. */
		if (m->deleted && !mod->same_id && !mod->named)
			return "it was deleted or replaced before the dump";
		if (!mod->debug_only && m->offset + (m->end - m->start) > page_up(mod->size, 65536))
			return "the file is smaller than the dump's mappings of it";
		if (m->perms[2] != 'x')
			continue;
		if (!have_bias)
			return "its segments do not match the dump's mappings";
		if (m->start < hi && m->end > lo ? !in_place(mod, in, i, bias)
						 : !copy_of_text(mod, m))
			return "its segments do not match the dump's mappings";
	}
	mod->have_bias = have_bias;
	mod->bias = bias;
	return NULL;
}

static int newer(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

/* Whether mapping m is one of mod's file. */
static int of_module(const struct hp_module *mod, const struct hp_map *m)
{
	return m->path == mod->path && m->inode == mod->inode && m->dev_major == mod->dev_major &&
	       m->dev_minor == mod->dev_minor;
}

/*
 * A separate debug file keeps the program headers' addresses and sizes
 * but not their file offsets, which the mappings are given in.  The
 * offsets come from the dump's own mappings of the object instead (it is
 * the same build, so its layout is the file's): the load bias is where
 * the mapping of the file's first page puts the lowest segment, and each
 * mapping within the object becomes a segment of its own, at its address
 * less the bias.  Once per module, from the first dump that maps it.
 */
static const char *debug_segments(struct hp_module *mod, const struct hp_input *in)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	const struct hp_map *first = NULL;

	for (size_t j = 0; j < mod->nload; j++) {
		const GElf_Phdr *ph = &mod->load[j];
		lo = page_down(ph->p_vaddr, page_sizes[0]) < lo ? page_down(ph->p_vaddr, page_sizes[0]) : lo;
		hi = ph->p_vaddr + ph->p_memsz > hi ? ph->p_vaddr + ph->p_memsz : hi;
	}
	for (size_t i = 0; i < in->nmaps && !first; i++)
		if (of_module(mod, &in->maps[i]) && in->maps[i].offset == 0)
			first = &in->maps[i];
	if (!first)
		return "the dump does not map the first page of the file, which a debug file "
		       "needs to place its code";
	uint64_t bias = mod->etype == ET_EXEC ? 0 : first->start - lo;
	GElf_Phdr *seg = hp_util_xcalloc(in->nmaps, sizeof(*seg));
	size_t n = 0;
	for (size_t i = 0; i < in->nmaps; i++) {
		const struct hp_map *m = &in->maps[i];
		if (!of_module(mod, m) || !memcmp(m->perms, "---", 3) || m->start < bias + lo ||
		    m->end > bias + page_up(hi, page_sizes[2]))
			continue;
		seg[n++] = (GElf_Phdr){
			.p_type = PT_LOAD,
			.p_flags = (m->perms[0] == 'r' ? PF_R : 0) | (m->perms[1] == 'w' ? PF_W : 0) |
				   (m->perms[2] == 'x' ? PF_X : 0),
			.p_offset = m->offset,
			.p_vaddr = m->start - bias,
			.p_paddr = m->start - bias,
			.p_filesz = m->end - m->start,
			.p_memsz = m->end - m->start,
			.p_align = page_sizes[0],
		};
	}
	free(mod->load);
	mod->load = seg;
	mod->nload = n;
	mod->debug_only = 2;
	return n ? NULL : "the dump maps none of its segments";
}

const char *hp_module_check(struct hp_modtab *t, struct hp_module *mod,
			    const struct hp_input *in)
{
	if (mod->checked == in->serial)
		return mod->check_err;
	mod->have_bias = 0;
	if (!mod->opened)
		module_open(t, mod);
	const char *err = mod->open_err;
	if (!err && mod->debug_only == 1)
		err = mod->open_err = debug_segments(mod, in);
	/* A file with the dump's build-id is the binary whatever its time:
	 * copied from a build archive, installed again. */
	if (!err && !mod->same_id && !mod->named && newer(&mod->mtime, &in->written))
		err = "the file was modified after the dump was written";
	if (!err)
		err = check_mappings(mod, in);
	mod->checked = in->serial;
	mod->check_err = err;
	if (err && !mod->warned) {
		mod->warned = 1;
		hp_util_warn("note: frames in '%s' are shown as %s+0x<offset>: %s",
			     mod->path, mod->base, err);
	}
	return err;
}

int hp_module_vaddr(const struct hp_module *mod, uint64_t off, uint64_t *vaddr)
{
	for (size_t i = 0; i < mod->nload; i++) {
		const GElf_Phdr *ph = &mod->load[i];
		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			*vaddr = ph->p_vaddr + (off - ph->p_offset);
			return 0;
		}
	}
	return -1;
}

int hp_module_text(const struct hp_module *mod, uint64_t addr, struct hp_map *seg)
{
	if (!mod->have_bias || mod->open_err)
		return 0;
	for (size_t j = 0; j < mod->nload; j++) {
		const GElf_Phdr *ph = &mod->load[j];
		uint64_t lo = mod->bias + ph->p_vaddr;
		struct seg s;
		/* Only the bytes the file supplies: what lies past them in the
		 * segment (its last page's tail) is not the binary's code. */
		if (!(ph->p_flags & PF_X) || addr < lo || addr - lo >= ph->p_filesz ||
		    seg_at(ph, page_sizes[0], &s))
			continue;
		memset(seg, 0, sizeof(*seg));
		seg->start = mod->bias + s.vaddr;
		seg->end = seg->start + s.len;
		seg->offset = s.off;
		seg->inode = mod->inode;
		seg->dev_major = mod->dev_major;
		seg->dev_minor = mod->dev_minor;
		memcpy(seg->perms, "r-xp", sizeof(seg->perms));
		seg->kind = HP_MAP_FILE;
		seg->path = mod->path;
		return 1;
	}
	return 0;
}
