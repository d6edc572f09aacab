/*
 * symbolize.h -- names, files and lines for addresses in ELF modules,
 * with elfutils (libdwfl/libdw), inlined frames included.
 */
#ifndef HP_REPORT_SYMBOLIZE_H
#define HP_REPORT_SYMBOLIZE_H

#include <stddef.h>
#include <stdint.h>

#include "module.h"
#include "strtab.h"

/* The deepest inline nesting we follow at one address. */
#define HP_SYMBOLIZE_INLINE_MAX 32

/* One frame at an address.  name is as the binary spells it (mangled for
 * C++), interned; file is interned or NULL; line is 0 when unknown.
 * decl_file and decl_line are where the function's definition starts
 * (NULL and 0 when unknown). */
struct hp_symres {
	const char *name;
	const char *file;
	int line;
	const char *decl_file;
	int decl_line;
};

struct hp_symbolizer;

/*
 * A symbolizer that looks for separate debug information by build-id and
 * .gnu_debuglink in each of debug_dirs (ndirs of them), then next to the
 * binary, in its .debug subdirectory and under /usr/lib/debug, as gdb does
 * (dwfl_standard_find_debuginfo).  Strings are interned in strs.
 */
struct hp_symbolizer *hp_symbolize_new(struct hp_strtab *strs,
				       const char *const *debug_dirs, size_t ndirs);

/*
 * The frames at ELF virtual address vaddr of mod (checked usable with
 * hp_module_check), innermost first: the functions inlined there, then the
 * function that contains them.  Returns how many were written to out (at
 * most HP_SYMBOLIZE_INLINE_MAX), 0 when the binary knows no function there.
 * Uses DWARF when the module or its debug file has it, else the symbol
 * table (no lines).
 */
size_t hp_symbolize_lookup(struct hp_symbolizer *s, struct hp_module *mod, uint64_t vaddr,
			   struct hp_symres *out);

/* Closes what lookups opened for mod (its session and indexes). */
void hp_symbolize_forget(struct hp_module *mod);

/* Frees s; forget its modules first.  NULL is allowed. */
void hp_symbolize_free(struct hp_symbolizer *s);

#endif
