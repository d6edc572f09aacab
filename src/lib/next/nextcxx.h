/*
 * cxx.h -- the next C++ allocation operators (see cxx.c for why heapprof
 * interposes them).
 *
 * hp_cxx.fn[kind] is the next definition of each operator, resolved with
 * dlsym(RTLD_NEXT) at init or on first use (a C++ runtime may arrive later
 * through dlopen).  hp_cxx.direct is set when the next operator new lives
 * in the same object as the next malloc: an allocator that implements new
 * and delete itself, bypassing malloc and free.
 */
#ifndef HP_CXX_H
#define HP_CXX_H

#pragma GCC visibility push(hidden)

#include <stddef.h>

#include "base/compiler.h"

enum hp_cxx_kind {
	HP_CXX_NEW, HP_CXX_NEW_ARR, HP_CXX_NEW_NT, HP_CXX_NEW_ARR_NT,
	HP_CXX_NEW_AL, HP_CXX_NEW_ARR_AL, HP_CXX_NEW_AL_NT, HP_CXX_NEW_ARR_AL_NT,
	HP_CXX_NNEW,
	HP_CXX_DL = HP_CXX_NNEW, HP_CXX_DL_ARR, HP_CXX_DL_NT, HP_CXX_DL_ARR_NT,
	HP_CXX_DL_SZ, HP_CXX_DL_ARR_SZ, HP_CXX_DL_AL, HP_CXX_DL_ARR_AL,
	HP_CXX_DL_AL_NT, HP_CXX_DL_ARR_AL_NT, HP_CXX_DL_SZ_AL, HP_CXX_DL_ARR_SZ_AL,
	HP_CXX_NKINDS
};

struct hp_cxx {
	int direct;
	void *fn[HP_CXX_NKINDS];
};

extern struct hp_cxx hp_cxx;
/* Mangled names, indexed by kind. */
extern const char *const hp_cxx_names[HP_CXX_NKINDS];

/* The next definition of kind, resolving on first use. */
void *hp_cxx_next_slow(enum hp_cxx_kind kind);

HP_INLINE void *hp_cxx_next(enum hp_cxx_kind kind)
{
	void *f = hp_cxx.fn[kind];

	return HP_LIKELY(f != NULL) ? f : hp_cxx_next_slow(kind);
}

/* Points each exported operator at the next one, or at its direct-mode
 * function, once hp_cxx is resolved (cxx.c). */
void hp_cxx_route(void);

/* Resolves every operator now (at init) and registers libstdc++'s
 * operator new as an allocator frame to strip from stacks. */
void hp_cxx_resolve(void);

/* Slow paths (prof.c): n is the size, al the alignment (0 for none). */
void *hp_sampled_new(enum hp_cxx_kind kind, size_t n, size_t al);
void hp_sampled_delete(enum hp_cxx_kind kind, void *p, size_t n, size_t al);

#pragma GCC visibility pop

#endif
