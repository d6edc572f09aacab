/*
 * preload.h -- the library for programs about to be exec'd: for heapprof
 * run and heapprof check.
 */
#ifndef HP_CLI_PRELOAD_H
#define HP_CLI_PRELOAD_H

#include <stddef.h>

/* Where libheapprof.so is: $HEAPPROF_LIB, next to this command (a build
 * tree), in ../lib beside it (an install), or where make install put it.
 * Writes the path to out (cap bytes) and returns 0 when it is readable,
 * else -1 (out then holds the last place tried). */
int hp_preload_find_library(char *out, size_t cap);

/* For a program about to be exec'd: puts the library first in
 * LD_PRELOAD (keeping what is there) and appends conf, when not NULL or
 * empty, to HEAPPROF_CONF (so its keys win).  Returns 0, or 1 after
 * "heapprof WHO: cannot find libheapprof.so (set HEAPPROF_LIB)" on
 * stderr. */
int hp_preload_env(const char *who, const char *conf);

#endif
