/*
 * buildid.h -- the loaded objects' build-ids, written into every dump so
 * that `heapprof report` can tell whether the file at a mapping's path is
 * still the binary the process ran, and find that binary, or its separate
 * debug file, by build-id when it is not.
 *
 * One comment line per loaded object that has a GNU build-id note, after
 * the stacks and before MAPPED_LIBRARIES (jeprof and go tool pprof skip
 * comment lines there, as they skip the peak lines):
 *   # heapprof build-id: 0x<address> <hex build-id> <path>
 * <address> is where the object's first loadable segment starts, the start
 * of one of the MAPPED_LIBRARIES lines of that object; <path> is the
 * loader's name for it (informative: the maps name the file).
 */
#ifndef HP_BUILDID_H
#define HP_BUILDID_H

#include "base/out.h"

#pragma GCC visibility push(hidden)

/* Writes the lines for every object the dynamic loader lists (takes the
 * loader's lock through dl_iterate_phdr).  Inside the guard, on the
 * dumping thread; no allocation. */
void hp_buildid_write(struct hp_out *out);

#pragma GCC visibility pop

#endif
