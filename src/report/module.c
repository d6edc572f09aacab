/*
 * module.c -- ELF files behind the mappings, and whether they still are
 * the files the process mapped (see module.h).
 *
 * Owns the module table and the "same binary?" decision.  A dump carries
 * no build-id, so the decision rests on what the maps imply: the file must
 * exist, must not have been modified after the dump was written, and its
 * loadable segments must produce the executable mappings the dump shows
 * (a rebuilt binary nearly always moves or resizes them): each is an
 * executable segment where the loader put it, or part of one that
 * anonymous executable memory continues (a program that moved its text
 * to huge pages), or, away from the object, a second mapping of some of
 * its text (V8's builtins).  When in doubt we show offsets: a wrong name
 * is worse than none.
 */
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "module.h"
#include "strtab.h"
#include "util.h"

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
		    mod->dev_major == m->dev_major && mod->dev_minor == m->dev_minor)
			return mod;
	}
	struct hp_module *mod = hp_util_xcalloc(1, sizeof(*mod));
	mod->id = (uint32_t)t->n;
	mod->path = m->path;
	mod->base = hp_strtab_intern_str(t->strs, hp_maps_basename(m->path));
	mod->dev_major = m->dev_major;
	mod->dev_minor = m->dev_minor;
	mod->inode = m->inode;
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
}

/* Reads the file's size, time and PT_LOAD headers once. */
static void module_open(struct hp_module *mod)
{
	struct stat st;

	mod->opened = 1;
	/* A dump may name anything: never block on a FIFO or read a device
	 * or a pseudo-file. */
	if (!strncmp(mod->path, "/proc/", 6) || !strncmp(mod->path, "/sys/", 5) ||
	    !strncmp(mod->path, "/dev/", 5)) {
		mod->open_err = "not a regular file";
		return;
	}
	int fd = open(mod->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		mod->open_err = fd < 0 && errno == ENOENT ? "the file is gone"
			      : fd < 0 ? "the file cannot be opened"
				       : "not a regular file";
		if (fd >= 0)
			close(fd);
		return;
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
	mod->load = hp_util_xcalloc(phnum, sizeof(*mod->load));
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			mod->load[mod->nload++] = ph;
	}
	if (!mod->nload)
		mod->open_err = "the file has no loadable segments";
out:
	if (elf)
		elf_end(elf);
	close(fd);
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
		if (m->deleted)
			return "it was deleted or replaced before the dump";
		if (m->offset + (m->end - m->start) > page_up(mod->size, 65536))
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

const char *hp_module_check(struct hp_module *mod, const struct hp_input *in)
{
	if (mod->checked == in->serial)
		return mod->check_err;
	mod->have_bias = 0;
	if (!mod->opened)
		module_open(mod);
	const char *err = mod->open_err;
	if (!err && newer(&mod->mtime, &in->written))
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
