/*
 * got.h -- routing a running program's calls to heapprof by rewriting
 * its objects' GOT entries, and putting them back (heapprof attach and
 * detach: control/attach.c).
 *
 * A preloaded heapprof is found first by every symbol lookup; an attached
 * one was loaded too late for that, so the program's relocations already
 * point at the C library's malloc.  hp_got_route rewrites them: in every
 * loaded object but heapprof's own and the dynamic loader, each
 * R_X86_64_JUMP_SLOT and R_X86_64_GLOB_DAT (AArch64: R_AARCH64_JUMP_SLOT,
 * R_AARCH64_GLOB_DAT) relocation that names one of the routed symbols
 * gets heapprof's definition of that symbol (found in heapprof's own
 * dynamic symbol table), its page made writable for the store when it
 * lies under PT_GNU_RELRO and read-only again after.  Each rewrite is
 * kept in a table (the slot, its object, the value it had), which
 * hp_got_restore puts back.
 *
 * Objects loaded later are routed by calling hp_got_route again (the
 * helper thread does when the loader's count of added objects moves):
 * slots already routed are skipped.
 *
 * Not async-signal-safe; takes the loader's lock (dl_iterate_phdr) and
 * this module's own.  Memory from base/pages.c.
 */
#ifndef HP_GOT_H
#define HP_GOT_H

#pragma GCC visibility push(hidden)

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Rewrites the slots naming malloc and its family (got.c's list) to
 * heapprof's definitions.  Returns the number of slots rewritten by this
 * call; *objects, when not NULL, gets the number of objects that have
 * routed slots in all. */
unsigned hp_got_route(unsigned *objects);

/* The same for objects loaded since (the slots already routed are
 * skipped), unless hp_got_restore came in between: then nothing. */
unsigned hp_got_route_more(void);

/* Whether objects were loaded or unloaded since the last hp_got_route. */
bool hp_got_objects_changed(void);

/* Puts back every slot still in a loaded object and still holding
 * heapprof's value; forgets the table.  Returns the number restored. */
unsigned hp_got_restore(void);

/* The number of slots routed now. */
unsigned hp_got_routed(void);

#pragma GCC visibility pop

#endif
