/*
 * real.c -- resolves the next allocator and serves bootstrap allocations
 * (see real.h).
 *
 * Owns hp_real, the resolution state and the bootstrap pool.  This module
 * must not call malloc by name: until resolution completes, "malloc" is us.
 */
#include <dlfcn.h>
#include <link.h>
#include <stdlib.h>
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "base/compiler.h"
#include "next/nextcxx.h"
#include "record/live.h"
#include "base/log.h"
#include "next/next.h"
#include "stack/stack.h"

/* glibc's own entry points: the fallback when dlsym(RTLD_NEXT) finds
 * nothing (it always finds libc in practice). */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* ---- bootstrap pool ------------------------------------------------- */

#define POOL_SIZE (256u << 10)
#define POOL_HDR  16u

static char pool[POOL_SIZE] __attribute__((aligned(4096)));
static size_t pool_used;
static int pool_pinned;

bool hp_real_pool_owns(const void *p)
{
	return (const char *)p >= pool && (const char *)p < pool + POOL_SIZE;
}

void *hp_real_pool_alloc(size_t size, size_t align)
{
	if (!HP_LOAD(&pool_pinned)) {
		/* Route every free/realloc of pool memory to the slow path. */
		hp_live_filter_pin(pool, POOL_SIZE);
		HP_STORE(&pool_pinned, 1);
	}
	if (align < POOL_HDR)
		align = POOL_HDR;
	if (size > POOL_SIZE || align > 4096)
		goto nomem;
	for (;;) {
		size_t old = HP_LOAD(&pool_used);
		size_t start = (old + POOL_HDR + align - 1) & ~(align - 1);
		size_t end = start + ((size + POOL_HDR - 1) & ~(size_t)(POOL_HDR - 1));
		if (end > POOL_SIZE)
			goto nomem;
		if (HP_CAS(&pool_used, &old, end)) {
			*(size_t *)(pool + start - POOL_HDR) = size;
			return pool + start;
		}
	}
nomem:
	errno = ENOMEM;
	return NULL;
}

size_t hp_real_pool_size(const void *p)
{
	return *(const size_t *)((const char *)p - POOL_HDR);
}

/* ---- bootstrap entry points ----------------------------------------- */

static int resolve_state;                 /* 0 none, 1 running, 2 done */
static __thread int resolving_here;
static char provider[256];
/* The object that provides the next malloc: its load address, the range
 * of its segments and its path. */
static struct {
	uintptr_t base, lo, hi;
} malloc_object;

static void *boot_malloc(size_t n)
{
	hp_real_resolve();
	if (!hp_real_resolved())
		return hp_real_pool_alloc(n, 16);
	return hp_real.malloc(n);
}

static void boot_free(void *p)
{
	if (!p || hp_real_pool_owns(p))
		return;
	hp_real_resolve();
	if (hp_real_resolved())
		hp_real.free(p);
}

static void *boot_calloc(size_t n, size_t m)
{
	size_t sz;

	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.calloc(n, m);
	if (__builtin_mul_overflow(n, m, &sz)) {
		errno = ENOMEM;
		return NULL;
	}
	return hp_real_pool_alloc(sz, 16);   /* static memory: already zero */
}

static void *boot_realloc(void *p, size_t n)
{
	if (p && hp_real_pool_owns(p))
		return hp_real_pool_realloc(p, n);
	hp_real_resolve();
	if (!hp_real_resolved())
		return p ? NULL : hp_real_pool_alloc(n, 16);
	return hp_real.realloc(p, n);
}

static int boot_posix_memalign(void **out, size_t align, size_t n)
{
	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.posix_memalign(out, align, n);
	void *p = hp_real_pool_alloc(n, align);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *boot_memalign(size_t align, size_t n)
{
	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.memalign(align, n);
	return hp_real_pool_alloc(n, align);
}

static void *boot_aligned_alloc(size_t align, size_t n)
{
	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.aligned_alloc(align, n);
	return hp_real_pool_alloc(n, align);
}

static void *boot_valloc(size_t n)
{
	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.valloc(n);
	return hp_real_pool_alloc(n, 4096);
}

static void *boot_pvalloc(size_t n)
{
	hp_real_resolve();
	if (hp_real_resolved())
		return hp_real.pvalloc(n);
	return hp_real_pool_alloc((n + 4095) & ~(size_t)4095, 4096);
}

static size_t boot_malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (hp_real_pool_owns(p))
		return hp_real_pool_size(p);
	hp_real_resolve();
	return hp_real_resolved() ? hp_real.malloc_usable_size(p) : 0;
}

struct hp_real hp_real = {
	.malloc = boot_malloc,
	.free = boot_free,
	.calloc = boot_calloc,
	.realloc = boot_realloc,
	.posix_memalign = boot_posix_memalign,
	.aligned_alloc = boot_aligned_alloc,
	.memalign = boot_memalign,
	.valloc = boot_valloc,
	.pvalloc = boot_pvalloc,
	.malloc_usable_size = boot_malloc_usable_size,
};

void *hp_real_pool_realloc(void *p, size_t n)
{
	size_t old = hp_real_pool_size(p);
	void *q = hp_real.malloc(n);   /* the pool again while resolving */

	if (q)
		memcpy(q, p, old < n ? old : n);
	return q;   /* pool memory is never reused: nothing to free */
}

/* ---- emulations on top of the next allocator's posix_memalign ------- */

static int (*next_posix_memalign)(void **, size_t, size_t);

static size_t page_size(void)
{
	return (size_t)sysconf(_SC_PAGESIZE);
}

static void *emu_memalign(size_t align, size_t n)
{
	void *p = NULL;

	/* glibc's memalign rounds odd alignments up to a power of two. */
	if (align < sizeof(void *))
		align = sizeof(void *);
	if (align & (align - 1)) {
		if (align > ((size_t)1 << (sizeof(size_t) * 8 - 2))) {
			errno = EINVAL;
			return NULL;
		}
		size_t a = sizeof(void *);
		while (a < align)
			a <<= 1;
		align = a;
	}
	int err = next_posix_memalign(&p, align, n);
	if (err) {
		errno = err;
		return NULL;
	}
	return p;
}

static void *emu_aligned_alloc(size_t align, size_t n)
{
	if (align == 0 || (align & (align - 1))) {
		errno = EINVAL;
		return NULL;
	}
	return emu_memalign(align, n);
}

static void *emu_valloc(size_t n)
{
	return emu_memalign(page_size(), n);
}

static void *emu_pvalloc(size_t n)
{
	size_t pg = page_size();
	size_t rounded;

	if (__builtin_add_overflow(n, pg - 1, &rounded)) {
		errno = ENOMEM;
		return NULL;
	}
	rounded &= ~(pg - 1);
	return emu_memalign(pg, rounded ? rounded : pg);
}

/* ---- resolution ----------------------------------------------------- */

/* Finds the object whose segments contain arg's address (one pass over the
 * loaded objects; dladdr would also search their symbol tables). */
static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t pc = (uintptr_t)arg, lo = UINTPTR_MAX, hi = 0;
	int hit = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
		hit |= pc >= a && pc < b;
		lo = a < lo ? a : lo;
		hi = b > hi ? b : hi;
	}
	if (!hit)
		return 0;
	malloc_object.base = info->dlpi_addr;
	malloc_object.lo = lo;
	malloc_object.hi = hi;
	if (info->dlpi_name && info->dlpi_name[0]) {
		size_t n = strnlen(info->dlpi_name, sizeof(provider) - 1);
		memcpy(provider, info->dlpi_name, n);
		provider[n] = '\0';
	}
	return 1;
}

static void *same_object(void *fn)
{
	uintptr_t a = (uintptr_t)fn;

	return fn && a >= malloc_object.lo && a < malloc_object.hi ? fn : NULL;
}

static void resolve_chain(void)
{
	struct hp_real r;

	r.malloc = dlsym(RTLD_NEXT, "malloc");
	r.free = dlsym(RTLD_NEXT, "free");
	r.calloc = dlsym(RTLD_NEXT, "calloc");
	r.realloc = dlsym(RTLD_NEXT, "realloc");
	if (!r.malloc || !r.free || !r.calloc || !r.realloc) {
		r.malloc = __libc_malloc;
		r.free = __libc_free;
		r.calloc = __libc_calloc;
		r.realloc = __libc_realloc;
	}
	dl_iterate_phdr(find_object, (void *)r.malloc);

	/* Aligned variants only from the object that provides malloc; the
	 * others are emulated on its posix_memalign. */
	r.posix_memalign = same_object(dlsym(RTLD_NEXT, "posix_memalign"));
	r.memalign = same_object(dlsym(RTLD_NEXT, "memalign"));
	r.aligned_alloc = same_object(dlsym(RTLD_NEXT, "aligned_alloc"));
	r.valloc = same_object(dlsym(RTLD_NEXT, "valloc"));
	r.pvalloc = same_object(dlsym(RTLD_NEXT, "pvalloc"));
	r.malloc_usable_size = same_object(dlsym(RTLD_NEXT, "malloc_usable_size"));
	if (!r.posix_memalign)
		r.posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
	next_posix_memalign = r.posix_memalign;
	if (!r.memalign)
		r.memalign = emu_memalign;
	if (!r.aligned_alloc)
		r.aligned_alloc = emu_aligned_alloc;
	if (!r.valloc)
		r.valloc = emu_valloc;
	if (!r.pvalloc)
		r.pvalloc = emu_pvalloc;
	if (!r.malloc_usable_size)
		r.malloc_usable_size = dlsym(RTLD_NEXT, "malloc_usable_size");

	/* Publish free first: a block from the real malloc may be freed by
	 * another thread the moment malloc is published. */
	HP_STORE_REL(&hp_real.free, r.free);
	HP_STORE_REL(&hp_real.realloc, r.realloc);
	HP_STORE_REL(&hp_real.malloc_usable_size, r.malloc_usable_size);
	HP_STORE_REL(&hp_real.posix_memalign, r.posix_memalign);
	HP_STORE_REL(&hp_real.memalign, r.memalign);
	HP_STORE_REL(&hp_real.aligned_alloc, r.aligned_alloc);
	HP_STORE_REL(&hp_real.valloc, r.valloc);
	HP_STORE_REL(&hp_real.pvalloc, r.pvalloc);
	HP_STORE_REL(&hp_real.calloc, r.calloc);
	HP_STORE_REL(&hp_real.malloc, r.malloc);
}

void hp_real_resolve(void)
{
	int expected = 0;

	if (HP_LOAD_ACQ(&resolve_state) == 2 || resolving_here)
		return;
	if (HP_CAS(&resolve_state, &expected, 1)) {
		resolving_here = 1;
		resolve_chain();
		resolving_here = 0;
		HP_STORE_REL(&resolve_state, 2);
		return;
	}
	while (HP_LOAD_ACQ(&resolve_state) != 2)
		sched_yield();
}

bool hp_real_resolved(void)
{
	return HP_LOAD_ACQ(&resolve_state) == 2;
}

const char *hp_real_provider(void)
{
	return provider[0] ? provider : "(unknown)";
}

/* ---- C++ operators -------------------------------------------------- */

struct hp_cxx hp_cxx;

const char *const hp_cxx_names[HP_CXX_NKINDS] = {
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

void hp_cxx_resolve(void)
{
	hp_real_resolve();
	for (int k = 0; k < HP_CXX_NKINDS; k++)
		if (!HP_LOAD(&hp_cxx.fn[k]))
			HP_STORE_REL(&hp_cxx.fn[k], dlsym(RTLD_NEXT, hp_cxx_names[k]));
	void *nw = HP_LOAD(&hp_cxx.fn[HP_CXX_NEW]);
	if (!nw)
		return;
	if (same_object(nw)) {
		HP_STORE(&hp_cxx.direct, 1);
	} else {
		for (int k = 0; k < HP_CXX_NNEW; k++)
			strip_operator_new(hp_cxx.fn[k]);
	}
	hp_cxx_route();
}

void *hp_cxx_next_slow(enum hp_cxx_kind kind)
{
	hp_cxx_resolve();
	void *f = HP_LOAD(&hp_cxx.fn[kind]);
	if (!f) {
		hp_log(HP_LOG_ERROR, "no definition of %s after heapprof", hp_cxx_names[kind]);
		abort();
	}
	return f;
}
