/*
 * module.h -- the ELF files named in dumps' MAPPED_LIBRARIES: finding
 * them, checking that the file on disk is the one the process had mapped,
 * and turning file offsets into the ELF's virtual addresses.
 *
 * Which file stands for a mapping: when the dump gives the object's
 * build-id, the first file that has it of a --binary, the file at the
 * mapping's path, then each debug directory's (--debug-dir, then
 * /usr/lib/debug) .build-id/xx/rest (a binary) and debuginfod cache entry
 * <id>/executable, then their .build-id/xx/rest.debug and <id>/debuginfo
 * (separate debug files: symbols and DWARF without the code).  Without a
 * build-id, a --binary of the mapping's file name, else the file at the
 * path.
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
	const char *build_id;		/* the dump's, interned hex, or NULL */

	/* The file, found and opened once. */
	int opened;
	const char *file;		/* the file that stands for it (path, or
					 * one found by build-id or --binary) */
	int same_id;			/* file has the dump's build-id */
	int named;			/* file is a --binary given by name */
	int debug_only;			/* file is a separate debug file: its
					 * loadable segments' offsets are made
					 * up from the first dump's mappings
					 * (1: not yet, 2: done) */
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

/* A --binary, read once: its build-id (interned hex, NULL if none) and
 * its file name. */
struct hp_modbin {
	const char *path;
	const char *base;
	const char *build_id;
};

struct hp_modtab {
	struct hp_module **mods;
	size_t n, cap;
	struct hp_strtab *strs;
	/* Where to look beside the dumps' paths (not owned; may be empty). */
	const char *const *binaries;	/* --binary */
	size_t nbinaries;
	const char *const *debug_dirs;	/* --debug-dir; /usr/lib/debug after */
	size_t ndebug_dirs;
	struct hp_modbin *bins;		/* the binaries, read on first use */
};

/* The module for a file-backed mapping: one per (path, device, inode,
 * build-id). */
struct hp_module *hp_module_get(struct hp_modtab *t, const struct hp_map *m);

/* Frees the modules of t (their symbolizer state first:
 * hp_symbolize_forget) and leaves t empty; t->strs and the places to look
 * stay. */
void hp_modtab_release(struct hp_modtab *t);

/*
 * Whether mod's file (found as module.h says) is the one mapped in the
 * dump in: NULL if it is, else why not (missing, a different build-id,
 * deleted or replaced before the dump, modified after the dump was
 * written, not ELF, or its program headers do not match the mappings;
 * a file with the dump's build-id is taken whatever its time and the
 * maps' "(deleted)").  Frames in a module that fails are shown as
 * "module+0xoffset", never with names from a different binary.  The first
 * failure of each module is reported once on stderr as a note, or as a
 * warning when the file at the path has a different build-id than the
 * dump's (also when another file with the dump's was found).
 */
const char *hp_module_check(struct hp_modtab *t, struct hp_module *mod,
			    const struct hp_input *in);

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
