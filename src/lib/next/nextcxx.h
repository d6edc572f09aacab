/*
 * nextcxx.h -- the next C++ allocation operators (intercept/operators.c
 * says why heapprof interposes them).
 *
 * hp_nextcxx.fn[kind] is the next definition of each operator, resolved with
 * dlsym(RTLD_NEXT) at init or on first use (a C++ runtime may arrive later
 * through dlopen).  hp_nextcxx.direct is set when the next operator new lives
 * in the same object as the next malloc: an allocator that implements new
 * and delete itself, bypassing malloc and free.
 */
#ifndef HP_NEXTCXX_H
#define HP_NEXTCXX_H

#pragma GCC visibility push(hidden)

#include <stddef.h>

#include "base/compiler.h"

enum hp_nextcxx_kind {
	HP_CXX_NEW, HP_CXX_NEW_ARR, HP_CXX_NEW_NT, HP_CXX_NEW_ARR_NT,
	HP_CXX_NEW_AL, HP_CXX_NEW_ARR_AL, HP_CXX_NEW_AL_NT, HP_CXX_NEW_ARR_AL_NT,
	HP_CXX_NNEW,
	HP_CXX_DL = HP_CXX_NNEW, HP_CXX_DL_ARR, HP_CXX_DL_NT, HP_CXX_DL_ARR_NT,
	HP_CXX_DL_SZ, HP_CXX_DL_ARR_SZ, HP_CXX_DL_AL, HP_CXX_DL_ARR_AL,
	HP_CXX_DL_AL_NT, HP_CXX_DL_ARR_AL_NT, HP_CXX_DL_SZ_AL, HP_CXX_DL_ARR_SZ_AL,
	HP_CXX_NKINDS
};

struct hp_nextcxx {
	int direct;
	void *fn[HP_CXX_NKINDS];
};

extern struct hp_nextcxx hp_nextcxx;

/* The next definition of kind, resolving on first use; never NULL: a
 * fallback on the process's malloc and free when nothing defines it. */
void *hp_nextcxx_fn_slow(enum hp_nextcxx_kind kind);

HP_INLINE void *hp_nextcxx_fn(enum hp_nextcxx_kind kind)
{
	void *f = hp_nextcxx.fn[kind];

	return HP_LIKELY(f != NULL) ? f : hp_nextcxx_fn_slow(kind);
}

/* Resolves every operator that can be found now (at init, and before
 * each first use) and registers libstdc++'s operator new as an allocator
 * frame to strip from stacks. */
void hp_nextcxx_resolve(void);

#pragma GCC visibility pop

#endif
