/*
 * module.c -- ELF files behind the mappings, and whether they still are
 * the files the process mapped (see module.h).
 *
 * Owns the module table and the "same binary?" decision.  A dump carries
 * no build-id, so the decision rests on what the maps imply: the file must
 * exist, must not have been modified after the dump was written, and its
 * loadable segments must produce exactly the executable mappings the dump
 * shows (a rebuilt binary nearly always moves or resizes them).  When in
 * doubt we show offsets: a wrong name is worse than none.
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

/* Whether the executable mapping m is exactly an executable segment of
 * mod mapped at a load bias; sets *bias. */
static int exec_mapping_fits(const struct hp_module *mod, const struct hp_map *m,
			     uint64_t *bias)
{
	for (size_t i = 0; i < mod->nload; i++) {
		const GElf_Phdr *ph = &mod->load[i];
		if (!(ph->p_flags & PF_X))
			continue;
		for (size_t k = 0; k < HP_UTIL_ARRAY_LEN(page_sizes); k++) {
			uint64_t p = page_sizes[k];
			uint64_t in_page = ph->p_offset & (p - 1);
			if (page_down(ph->p_offset, p) != m->offset ||
			    m->end - m->start != page_up(in_page + ph->p_filesz, p))
				continue;
			*bias = m->start - page_down(ph->p_vaddr, p);
			if (mod->etype == ET_EXEC && *bias != 0)
				continue;
			return 1;
		}
	}
	return 0;
}

static const char *check_mappings(const struct hp_module *mod, const struct hp_input *in)
{
	uint64_t bias = 0;
	int have_bias = 0;

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
		uint64_t b;
		if (!exec_mapping_fits(mod, m, &b))
			return "its segments do not match the dump's mappings";
		if (have_bias && b != bias)
			return "its segments do not match the dump's mappings";
		bias = b;
		have_bias = 1;
	}
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
