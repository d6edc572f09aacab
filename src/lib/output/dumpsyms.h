/*
 * dumpsyms.h -- the "--- symbol" section of a dump (dump_symbols:true).
 *
 * jeprof's symbolized-profile layout: "--- symbol", "binary=<program>",
 * one "0x<address> <function>" line per address the stacks use (the first
 * frame's as written, the callers' minus one, as jeprof looks them up),
 * "---", then "--- heap" and the profile.
 */
#ifndef HP_DUMPSYMS_H
#define HP_DUMPSYMS_H

#include <stdint.h>

#include "base/out.h"

#pragma GCC visibility push(hidden)

struct hp_totals;

/* Writes the section and the "--- heap" line that follows it.  Returns
 * the output's error state. */
int hp_dumpsyms_write(struct hp_out *out, const struct hp_totals *s, int accum);

/* Function names for any writer, from the loaded objects' ELF symbol
 * tables (.symtab, else .dynsym), C++ names demangled: what is safe to
 * look up at exit.  open returns NULL without memory; a lookup returns
 * NULL for an address no symbol covers, else a name valid until the next
 * lookup or close.  Not thread-safe; inside the guard. */
struct hp_dumpsyms_names;
struct hp_dumpsyms_names *hp_dumpsyms_names_open(void);
const char *hp_dumpsyms_names_lookup(struct hp_dumpsyms_names *n, uintptr_t pc);
void hp_dumpsyms_names_close(struct hp_dumpsyms_names *n);
/* The object that holds pc: its absolute path (the program's from
 * /proc/self/exe) and its load bias in *bias, so that pc - *bias is the
 * address as the ELF file numbers it; NULL for an address in no object
 * on disk (the vDSO, anonymous code).  An object holds the addresses the
 * loader gave its segments, and the second mappings of its code that
 * hp_dumpsyms_names_home follows.  Valid until close. */
const char *hp_dumpsyms_names_object(struct hp_dumpsyms_names *n, uintptr_t pc, uintptr_t *bias);
/* Where the object's own mapping holds the code at pc: pc, unless pc is
 * in a second mapping of an object's code made elsewhere (V8 maps node's
 * builtins again from the binary), for dladdr.  n may be NULL. */
uintptr_t hp_dumpsyms_names_home(struct hp_dumpsyms_names *n, uintptr_t pc);

#pragma GCC visibility pop

#endif
