/*
 * module.h -- the ELF files named in dumps' MAPPED_LIBRARIES: finding
 * them, checking that the file on disk is the one the process had mapped,
 * and turning file offsets into the ELF's virtual addresses.
 */
#ifndef HP_REPORT_MODULE_H
#define HP_REPORT_MODULE_H

#include <gelf.h>
#include <stdint.h>
#include <time.h>

#include "input.h"
#include "maps.h"
#include "strtab.h"

struct hp_module {
	uint32_t id;			/* index in its table */
	const char *path;		/* interned, absolute */
	const char *base;		/* its last component */
	unsigned dev_major, dev_minor;	/* as the dump's maps say */
	uint64_t inode;
	int allocator;			/* heapprof's or an allocator's library */

	/* The file, opened once. */
	int opened;
	const char *open_err;		/* why it cannot be used, or NULL */
	struct timespec mtime;
	uint64_t size;
	int etype;			/* ET_EXEC or ET_DYN */
	GElf_Phdr *load;		/* its PT_LOAD program headers */
	size_t nload;

	/* The last check, against the dump with this serial (dumps are read
	 * and checked one by one), and the load bias its mappings implied. */
	uint64_t checked;
	const char *check_err;
	int warned;
	int have_bias;
	uint64_t bias;

	void *dw;			/* the symbolizer's state (symbolize.c) */
};

struct hp_modtab {
	struct hp_module **mods;
	size_t n, cap;
	struct hp_strtab *strs;
};

/* The module for a file-backed mapping: one per (path, device, inode). */
struct hp_module *hp_module_get(struct hp_modtab *t, const struct hp_map *m);

/* Frees the modules of t (their symbolizer state first:
 * hp_symbolize_forget) and leaves t empty; t->strs stays. */
void hp_modtab_release(struct hp_modtab *t);

/*
 * Whether mod's file on disk is the one mapped in the dump in: NULL if it
 * is, else why not (missing, deleted or replaced before the dump, modified
 * after the dump was written, not ELF, or its program headers do not match
 * the mappings).  Frames in a module that fails are shown as
 * "module+0xoffset", never with names from a different binary.  The
 * first failure of each module is reported once on stderr as a note.
 */
const char *hp_module_check(struct hp_module *mod, const struct hp_input *in);

/* The ELF virtual address of file offset off, or -1 when no loadable
 * segment holds it. */
int hp_module_vaddr(const struct hp_module *mod, uint64_t off, uint64_t *vaddr);

/*
 * Whether addr, in anonymous executable memory of the dump last checked
 * (hp_module_check passed), is mod's code: it lies in the file-backed part
 * of one of mod's executable segments, at the load bias the dump's
 * mappings of mod imply.  Programs that move their own text to huge pages
 * (node --use-largepages, libhugetlbfs) leave anonymous copies exactly
 * there.  A JIT's code is never claimed: it cannot lie where the binary's
 * own segments are mapped.
 * Sets *seg to the mapping the loader made of that segment, so that the
 * address's file offset is addr - seg->start + seg->offset.
 */
int hp_module_text(const struct hp_module *mod, uint64_t addr, struct hp_map *seg);

#endif
