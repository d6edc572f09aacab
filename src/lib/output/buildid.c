/*
 * buildid.c -- the loaded objects' build-ids in dumps (see buildid.h).
 *
 * Owns nothing.  Reads the NT_GNU_BUILD_ID note of every object the
 * dynamic loader lists, in the object's own mapped memory (the loader
 * mapped its PT_NOTE segments with the rest): no file is opened, nothing
 * is allocated.
 */
#include <elf.h>
#include <limits.h>
#include <link.h>
#include <string.h>
#include <sys/auxv.h>

#include "base/out.h"
#include "output/buildid.h"
#include "base/banned.h"

/* Build-ids are 20 bytes (SHA-1) from GNU ld, lld, gold and mold by
 * default; 16 (MD5, UUID) or up to 64 with --build-id=0x... . */
#define ID_BYTES_MAX 64

/* The build-id in note segment [p, p + n) with alignment align, or 0. */
static size_t note_build_id(const unsigned char *p, size_t n, size_t align,
			    const unsigned char **id)
{
	size_t a = align == 8 ? 8 : 4;

	while (n >= sizeof(ElfW(Nhdr))) {
		ElfW(Nhdr) h;
		memcpy(&h, p, sizeof(h));
		size_t name = (h.n_namesz + a - 1) & ~(a - 1);
		size_t desc = (h.n_descsz + a - 1) & ~(a - 1);
		if (h.n_namesz > n || h.n_descsz > n ||
		    name + desc > n - sizeof(h))
			return 0;
		if (h.n_type == NT_GNU_BUILD_ID && h.n_namesz == 4 &&
		    !memcmp(p + sizeof(h), "GNU", 4) && h.n_descsz &&
		    h.n_descsz <= ID_BYTES_MAX) {
			*id = p + sizeof(h) + name;
			return h.n_descsz;
		}
		p += sizeof(h) + name + desc;
		n -= sizeof(h) + name + desc;
	}
	return 0;
}

/* Where the object's first loadable segment starts, page-aligned as the
 * loader mapped it (the start of a /proc/self/maps line). */
static uintptr_t first_load(const struct dl_phdr_info *info)
{
	uintptr_t lo = UINTPTR_MAX, page = getauxval(AT_PAGESZ);

	if (!page)
		page = 4096;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t a = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		if (ph->p_type == PT_LOAD && a < lo)
			lo = a;
	}
	return lo;
}

/* Whether the note segment ph lies in the file image of a loadable
 * segment: only then is it mapped (a linker could leave one out). */
static int mapped(const struct dl_phdr_info *info, const ElfW(Phdr) *ph)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *l = &info->dlpi_phdr[i];
		if (l->p_type == PT_LOAD && ph->p_vaddr >= l->p_vaddr &&
		    ph->p_filesz <= l->p_filesz && ph->p_vaddr - l->p_vaddr <= l->p_filesz - ph->p_filesz)
			return 1;
	}
	return 0;
}

static int put_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct hp_out *o = arg;
	const unsigned char *id = NULL;
	size_t n = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum && !n; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE && mapped(info, ph))
			n = note_build_id((const unsigned char *)(info->dlpi_addr + ph->p_vaddr),
					  ph->p_filesz, ph->p_align, &id);
	}
	uintptr_t at = first_load(info);
	if (!n || at == UINTPTR_MAX)
		return 0;
	const char *path = info->dlpi_name;
	/* The vDSO has a build-id too, but no file to find. */
	if (path && *path && path[0] != '/')
		return 0;
	if (!path || !*path)
		path = (const char *)getauxval(AT_EXECFN);
	hp_out_str(o, "# heapprof build-id: ");
	hp_out_hex(o, at);
	hp_out_char(o, ' ');
	for (size_t i = 0; i < n; i++) {
		hp_out_char(o, "0123456789abcdef"[id[i] >> 4]);
		hp_out_char(o, "0123456789abcdef"[id[i] & 15]);
	}
	/* The name on one printable line: a dump is line-oriented. */
	if (path && *path) {
		hp_out_char(o, ' ');
		for (size_t i = 0; path[i] && i < PATH_MAX; i++)
			hp_out_char(o, (unsigned char)path[i] < 0x20 || path[i] == 0x7f ? '?'
											   : path[i]);
	}
	hp_out_char(o, '\n');
	return 0;
}

void hp_buildid_write(struct hp_out *out)
{
	dl_iterate_phdr(put_object, out);
}
