/*
 * operators.c -- the interposed C++ allocation operators.
 *
 * Owns nothing.  Like malloc.c, each function is a fast path only.
 *
 * Why we interpose them at all: jemalloc, tcmalloc and mimalloc define
 * their own operator new and delete, which allocate without calling
 * malloc; stacked over them, C++ allocations would never reach heapprof.
 * So when the allocator is "direct" (see next/nextcxx.h) these wrappers count,
 * sample and forward.  Otherwise (libstdc++ over glibc) they forward at
 * once and our malloc and free do the work, so nothing counts twice.
 *
 * An allocator's aligned operator new may call back into exported
 * functions (jemalloc's calls aligned_alloc): in direct mode that
 * forwarding call is made inside the guard, so the block is counted once,
 * here.  The guard is left by a cleanup handler when operator new throws
 * (-fexceptions).  The plain operators of jemalloc, tcmalloc and mimalloc
 * allocate internally and are called without it.
 */
#include <stddef.h>

#include "base/compiler.h"
#include "next/nextcxx.h"
#include "record/sampled.h"
#include "next/filter.h"
#include "record/tls.h"

/* In direct mode every operator is resolved already. */
#define NEXT(kind, type) ((type)HP_LOAD(&hp_nextcxx.fn[kind]))

typedef void *(*new_fn)(size_t);
typedef void *(*new_nt_fn)(size_t, const void *);
typedef void *(*new_al_fn)(size_t, size_t);
typedef void *(*new_al_nt_fn)(size_t, size_t, const void *);
typedef void (*del_fn)(void *);
typedef void (*del_nt_fn)(void *, const void *);
typedef void (*del_sz_fn)(void *, size_t);
typedef void (*del_sz_al_fn)(void *, size_t, size_t);
typedef void (*del_al_nt_fn)(void *, size_t, const void *);

/* std::nothrow_t is an empty class passed by reference; std::align_val_t
 * is a size_t-sized enum passed by value. */
/* Where each exported operator jumps: the next operator itself when
 * heapprof's malloc and free see the allocations (libstdc++ over glibc),
 * the direct-mode function below otherwise, and a resolver until the C++
 * runtime is known (one may arrive later through dlopen).  So over glibc
 * an operator is one indirect jump. */
static void *entry[HP_CXX_NKINDS];
static void route(void);

#define ENTRY(kind, type) ((type)HP_LOAD(&entry[kind]))

#define DEFINE_NEW(sym, kind, type, params, args, al, guard)          \
	static HP_NOINLINE HP_COLD void *sym##_resolve params           \
	{                                                               \
		hp_nextcxx_fn(kind);                                    \
		route();                                                \
		return ENTRY(kind, type) args;                          \
	}                                                               \
	static HP_NOINLINE void *sym##_guarded params                   \
	{                                                               \
		HP_TLS_GUARD_SCOPE(g, &hp_tls);                             \
		return NEXT(kind, type) args;                           \
	}                                                               \
	static void *sym##_direct params                                \
	{                                                               \
		if (HP_LIKELY(hp_tls_fast(n)))                              \
			return guard ? sym##_guarded args : NEXT(kind, type) args; \
		return hp_sampled_new(kind, n, al);                        \
	}                                                               \
	HP_EXPORT void *sym params;                                     \
	HP_EXPORT void *sym params                                      \
	{                                                               \
		return ENTRY(kind, type) args;                          \
	}

DEFINE_NEW(_Znwm, HP_CXX_NEW, new_fn, (size_t n), (n), 0, 0)
DEFINE_NEW(_Znam, HP_CXX_NEW_ARR, new_fn, (size_t n), (n), 0, 0)
DEFINE_NEW(_ZnwmRKSt9nothrow_t, HP_CXX_NEW_NT, new_nt_fn,
	   (size_t n, const void *nt), (n, nt), 0, 0)
DEFINE_NEW(_ZnamRKSt9nothrow_t, HP_CXX_NEW_ARR_NT, new_nt_fn,
	   (size_t n, const void *nt), (n, nt), 0, 0)
DEFINE_NEW(_ZnwmSt11align_val_t, HP_CXX_NEW_AL, new_al_fn,
	   (size_t n, size_t al), (n, al), al, 1)
DEFINE_NEW(_ZnamSt11align_val_t, HP_CXX_NEW_ARR_AL, new_al_fn,
	   (size_t n, size_t al), (n, al), al, 1)
DEFINE_NEW(_ZnwmSt11align_val_tRKSt9nothrow_t, HP_CXX_NEW_AL_NT, new_al_nt_fn,
	   (size_t n, size_t al, const void *nt), (n, al, nt), al, 1)
DEFINE_NEW(_ZnamSt11align_val_tRKSt9nothrow_t, HP_CXX_NEW_ARR_AL_NT, new_al_nt_fn,
	   (size_t n, size_t al, const void *nt), (n, al, nt), al, 1)

#define DEFINE_DELETE(sym, kind, type, params, args, n, al)           \
	static HP_NOINLINE HP_COLD void sym##_resolve params            \
	{                                                               \
		hp_nextcxx_fn(kind);                                    \
		route();                                                \
		ENTRY(kind, type) args;                                 \
	}                                                               \
	static void sym##_direct params                                 \
	{                                                               \
		if (HP_LIKELY(!hp_filter_maybe(p)) ||                     \
		    !hp_filter_second_look(p)) {                            \
			NEXT(kind, type) args;                          \
			return;                                         \
		}                                                       \
		hp_sampled_delete(kind, p, n, al);                         \
	}                                                               \
	HP_EXPORT void sym params;                                      \
	HP_EXPORT void sym params                                       \
	{                                                               \
		ENTRY(kind, type) args;                                 \
	}

DEFINE_DELETE(_ZdlPv, HP_CXX_DL, del_fn, (void *p), (p), 0, 0)
DEFINE_DELETE(_ZdaPv, HP_CXX_DL_ARR, del_fn, (void *p), (p), 0, 0)
DEFINE_DELETE(_ZdlPvRKSt9nothrow_t, HP_CXX_DL_NT, del_nt_fn,
	      (void *p, const void *nt), (p, nt), 0, 0)
DEFINE_DELETE(_ZdaPvRKSt9nothrow_t, HP_CXX_DL_ARR_NT, del_nt_fn,
	      (void *p, const void *nt), (p, nt), 0, 0)
DEFINE_DELETE(_ZdlPvm, HP_CXX_DL_SZ, del_sz_fn, (void *p, size_t n), (p, n), n, 0)
DEFINE_DELETE(_ZdaPvm, HP_CXX_DL_ARR_SZ, del_sz_fn, (void *p, size_t n), (p, n), n, 0)
DEFINE_DELETE(_ZdlPvSt11align_val_t, HP_CXX_DL_AL, del_sz_fn,
	      (void *p, size_t al), (p, al), 0, al)
DEFINE_DELETE(_ZdaPvSt11align_val_t, HP_CXX_DL_ARR_AL, del_sz_fn,
	      (void *p, size_t al), (p, al), 0, al)
DEFINE_DELETE(_ZdlPvSt11align_val_tRKSt9nothrow_t, HP_CXX_DL_AL_NT, del_al_nt_fn,
	      (void *p, size_t al, const void *nt), (p, al, nt), 0, al)
DEFINE_DELETE(_ZdaPvSt11align_val_tRKSt9nothrow_t, HP_CXX_DL_ARR_AL_NT, del_al_nt_fn,
	      (void *p, size_t al, const void *nt), (p, al, nt), 0, al)
DEFINE_DELETE(_ZdlPvmSt11align_val_t, HP_CXX_DL_SZ_AL, del_sz_al_fn,
	      (void *p, size_t n, size_t al), (p, n, al), n, al)
DEFINE_DELETE(_ZdaPvmSt11align_val_t, HP_CXX_DL_ARR_SZ_AL, del_sz_al_fn,
	      (void *p, size_t n, size_t al), (p, n, al), n, al)

#define BY_KIND(suffix) {                                                     \
	(void *)_Znwm##suffix, (void *)_Znam##suffix,                         \
	(void *)_ZnwmRKSt9nothrow_t##suffix, (void *)_ZnamRKSt9nothrow_t##suffix, \
	(void *)_ZnwmSt11align_val_t##suffix, (void *)_ZnamSt11align_val_t##suffix, \
	(void *)_ZnwmSt11align_val_tRKSt9nothrow_t##suffix,                   \
	(void *)_ZnamSt11align_val_tRKSt9nothrow_t##suffix,                   \
	(void *)_ZdlPv##suffix, (void *)_ZdaPv##suffix,                       \
	(void *)_ZdlPvRKSt9nothrow_t##suffix, (void *)_ZdaPvRKSt9nothrow_t##suffix, \
	(void *)_ZdlPvm##suffix, (void *)_ZdaPvm##suffix,                     \
	(void *)_ZdlPvSt11align_val_t##suffix, (void *)_ZdaPvSt11align_val_t##suffix, \
	(void *)_ZdlPvSt11align_val_tRKSt9nothrow_t##suffix,                  \
	(void *)_ZdaPvSt11align_val_tRKSt9nothrow_t##suffix,                  \
	(void *)_ZdlPvmSt11align_val_t##suffix, (void *)_ZdaPvmSt11align_val_t##suffix, \
}

static void *const direct[HP_CXX_NKINDS] = BY_KIND(_direct);
static void *entry[HP_CXX_NKINDS] = BY_KIND(_resolve);

/* Points each exported operator at the next one, or at its direct-mode
 * function, once next/nextcxx.c has resolved it.  Run by the resolver
 * stubs: the first call of any operator routes all that are known. */
static void route(void)
{
	for (int k = 0; k < HP_CXX_NKINDS; k++) {
		void *next = HP_LOAD(&hp_nextcxx.fn[k]);
		if (next)
			HP_STORE_REL(&entry[k], HP_LOAD(&hp_nextcxx.direct) ? direct[k] : next);
	}
}
