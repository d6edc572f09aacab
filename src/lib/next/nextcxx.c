/*
 * nextcxx.c -- the next C++ allocation operators (see nextcxx.h).
 *
 * Owns hp_nextcxx and the fallbacks.  Resolution runs at init (inside the
 * guard) and again on first use of an operator that was not found then (a
 * C++ runtime may arrive later through dlopen).  Never calls the host
 * allocator by name.
 *
 * When no object after heapprof defines an operator that the program
 * calls (a C program that looks operator new up with dlsym, a C++ runtime
 * without the aligned forms), the operator is served by a fallback that
 * does what libstdc++'s does, on top of the process's malloc and free
 * (looked up in the global scope, so the block is profiled like any
 * other), and one line says so.  heapprof never aborts its host.
 */
#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#include "base/compiler.h"
#include "base/log.h"
#include "next/next.h"
#include "next/nextcxx.h"
#include "stack/stack.h"
#include "base/banned.h"

struct hp_nextcxx hp_nextcxx;

/* Mangled names, indexed by kind. */
static const char *const mangled_names[HP_CXX_NKINDS] = {
	"_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t",
	"_ZnwmSt11align_val_t", "_ZnamSt11align_val_t",
	"_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
	"_ZdlPv", "_ZdaPv", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t",
	"_ZdlPvm", "_ZdaPvm", "_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t",
	"_ZdlPvSt11align_val_tRKSt9nothrow_t", "_ZdaPvSt11align_val_tRKSt9nothrow_t",
	"_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
};

/* libstdc++'s operator new calls malloc: its frames sit between ours and
 * the caller's, and are stripped like ours so that the caller is the
 * allocating frame in every reader. */
static void strip_operator_new(void *fn)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (fn && dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size)
		hp_stack_add_alloc_frames((uintptr_t)fn, (uintptr_t)fn + sym->st_size);
}

/* ---- fallbacks ------------------------------------------------------- */

/* The process's malloc, free and posix_memalign: the first definitions in
 * the global scope (heapprof's own when it is preloaded), as libstdc++'s
 * operators would call them. */
static struct {
	void *(*malloc)(size_t);
	void (*free)(void *);
	int (*posix_memalign)(void **, size_t, size_t);
} global;

static void find_global(void)
{
	if (HP_LOAD_ACQ(&global.free))
		return;
	HP_STORE(&global.malloc, (void *(*)(size_t))dlsym(RTLD_DEFAULT, "malloc"));
	HP_STORE(&global.posix_memalign,
		 (int (*)(void **, size_t, size_t))dlsym(RTLD_DEFAULT, "posix_memalign"));
	HP_STORE_REL(&global.free, (void (*)(void *))dlsym(RTLD_DEFAULT, "free"));
}

/* Without a C++ runtime there is nothing to throw: a failed allocation
 * returns NULL, as the nothrow forms do. */
static void *fb_new(size_t n)
{
	return (global.malloc)(n ? n : 1);
}

static void *fb_new_nt(size_t n, const void *nt)
{
	(void)nt;
	return fb_new(n);
}

static void *fb_new_al(size_t n, size_t al)
{
	void *p = NULL;

	if (al < sizeof(void *))
		al = sizeof(void *);
	return (global.posix_memalign)(&p, al, n ? n : 1) ? NULL : p;
}

static void *fb_new_al_nt(size_t n, size_t al, const void *nt)
{
	(void)nt;
	return fb_new_al(n, al);
}

static void fb_delete(void *p)
{
	(global.free)(p);
}

static void fb_delete_x(void *p, size_t x)
{
	(void)x;
	(global.free)(p);
}

static void fb_delete_nt(void *p, const void *nt)
{
	(void)nt;
	(global.free)(p);
}

static void fb_delete_x_nt(void *p, size_t x, const void *nt)
{
	(void)x;
	(void)nt;
	(global.free)(p);
}

static void fb_delete_x_y(void *p, size_t x, size_t y)
{
	(void)x;
	(void)y;
	(global.free)(p);
}

static void *const fallback[HP_CXX_NKINDS] = {
	[HP_CXX_NEW] = (void *)fb_new, [HP_CXX_NEW_ARR] = (void *)fb_new,
	[HP_CXX_NEW_NT] = (void *)fb_new_nt, [HP_CXX_NEW_ARR_NT] = (void *)fb_new_nt,
	[HP_CXX_NEW_AL] = (void *)fb_new_al, [HP_CXX_NEW_ARR_AL] = (void *)fb_new_al,
	[HP_CXX_NEW_AL_NT] = (void *)fb_new_al_nt, [HP_CXX_NEW_ARR_AL_NT] = (void *)fb_new_al_nt,
	[HP_CXX_DL] = (void *)fb_delete, [HP_CXX_DL_ARR] = (void *)fb_delete,
	[HP_CXX_DL_NT] = (void *)fb_delete_nt, [HP_CXX_DL_ARR_NT] = (void *)fb_delete_nt,
	[HP_CXX_DL_SZ] = (void *)fb_delete_x, [HP_CXX_DL_ARR_SZ] = (void *)fb_delete_x,
	[HP_CXX_DL_AL] = (void *)fb_delete_x, [HP_CXX_DL_ARR_AL] = (void *)fb_delete_x,
	[HP_CXX_DL_AL_NT] = (void *)fb_delete_x_nt, [HP_CXX_DL_ARR_AL_NT] = (void *)fb_delete_x_nt,
	[HP_CXX_DL_SZ_AL] = (void *)fb_delete_x_y, [HP_CXX_DL_ARR_SZ_AL] = (void *)fb_delete_x_y,
};

/* Decides, once, whether the next operator new is the allocator's own
 * (direct mode) or libstdc++'s, whose frames are then stripped. */
static void classify(void *nw)
{
	static int done;
	int expected = 0;

	if (!HP_CAS(&done, &expected, 1))
		return;
	if (hp_next_in_malloc_object(nw)) {
		HP_STORE(&hp_nextcxx.direct, 1);
	} else {
		for (int k = 0; k < HP_CXX_NNEW; k++)
			strip_operator_new(HP_LOAD(&hp_nextcxx.fn[k]));
	}
}

void hp_nextcxx_resolve(void)
{
	hp_next_resolve();
	for (int k = 0; k < HP_CXX_NKINDS; k++)
		if (!HP_LOAD(&hp_nextcxx.fn[k]))
			HP_STORE_REL(&hp_nextcxx.fn[k], dlsym(hp_next_handle(), mangled_names[k]));
	void *nw = HP_LOAD(&hp_nextcxx.fn[HP_CXX_NEW]);
	if (nw && nw != fallback[HP_CXX_NEW])
		classify(nw);
}

void *hp_nextcxx_fn_slow(enum hp_nextcxx_kind kind)
{
	hp_nextcxx_resolve();
	void *f = HP_LOAD(&hp_nextcxx.fn[kind]);
	if (f)
		return f;
	static int said;
	void *expected = NULL;

	find_global();
	if (HP_CAS(&hp_nextcxx.fn[kind], &expected, fallback[kind]) &&
	    !__atomic_exchange_n(&said, 1, __ATOMIC_RELAXED))
		hp_log(HP_LOG_ERROR, "no C++ runtime after heapprof defines %s: "
		       "C++ operators without one use malloc and free", mangled_names[kind]);
	return HP_LOAD(&hp_nextcxx.fn[kind]);
}
