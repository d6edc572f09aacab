/*
 * symcache.h -- the symbolizer's answers kept on disk between runs.
 *
 * Symbolizing one address of a module with separate debug information
 * opens its DWARF, and libdw decompresses every debug section first:
 * for the C library, about 200 million instructions (40 ms) before the
 * first answer, in every report, every explorer view and every leaky
 * heapprof check.  The answers of a module depend only on its file and
 * its debug file, so they are kept per (build ID, debug file): a file of
 * addresses and their frames under the cache directory, read when a
 * report first symbolizes the module and written back, whole, when it
 * learnt new ones.
 *
 * The directory is $HEAPPROF_CACHE (empty: no cache), else
 * $XDG_CACHE_HOME/heapprof, else ~/.cache/heapprof; its "symbols"
 * subdirectory holds the files.  It is used only when it is the user's
 * own and nobody else may write it; files are created 0600 through a
 * temporary and a rename, and never read or written through a symbolic
 * link.  A file that does not parse is ignored (and replaced).  The
 * directory keeps the 1,000 files most recently used (a file read is
 * touched); a temporary an hour old is a dead run's, and removed.
 */
#ifndef HP_REPORT_SYMCACHE_H
#define HP_REPORT_SYMCACHE_H

#include <stddef.h>
#include <stdint.h>

#include "strtab.h"
#include "symbolize.h"

/* The cache file of the module with this build ID (hex) whose answers
 * come from the debug information identified by identity (any text:
 * which file, its size and time), malloc'd; NULL when there is no
 * usable cache directory. */
char *hp_symcache_path(const char *build_id, const char *identity);

/* Calls put for each answer in the file at path (strings interned in
 * strs); returns how many, 0 when there is no file or it does not parse. */
size_t hp_symcache_load(const char *path, struct hp_strtab *strs,
			void (*put)(void *ctx, uint64_t vaddr, const struct hp_symres *res, size_t n),
			void *ctx);

/* One answer to write: next(ctx, &vaddr, &res, &n) gives them one by
 * one and returns 0 after the last. */
typedef int (*hp_symcache_next)(void *ctx, uint64_t *vaddr, const struct hp_symres **res, size_t *n);

/* Writes every answer next gives to path (atomically).  Failures are
 * silent: the cache only saves time. */
void hp_symcache_save(const char *path, hp_symcache_next next, void *ctx);

#endif
