/*
 * next.c -- resolves the next allocator and serves bootstrap allocations
 * (see next.h).
 *
 * Owns hp_next, the resolution state and the bootstrap pool.  This module
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
#include "next/filter.h"
#include "base/log.h"
#include "next/next.h"

/* glibc's own entry points: the fallback when dlsym(RTLD_NEXT) finds
 * nothing (it always finds libc in practice). */
extern void *__libc_malloc(size_t);
extern void __libc_free(void *);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);

/* ---- bootstrap pool ------------------------------------------------- */

/* What dlsym and the loader allocate before the next allocator is known:
 * nothing with glibc 2.36 (also stacked over jemalloc, tcmalloc and
 * mimalloc), a dlerror buffer with older ones.  64 KiB: every process
 * maps it at load, and under a 4 MiB RLIMIT_AS each 64 KiB counts. */
#define POOL_SIZE HP_NEXT_POOL_SIZE
#define POOL_HDR  16u

char hp_next_pool[POOL_SIZE] __attribute__((aligned(4096)));
#define pool hp_next_pool
static size_t pool_used;
static int pool_pinned;


void *hp_next_pool_alloc(size_t size, size_t align)
{
	if (!HP_LOAD(&pool_pinned)) {
		/* Route every free/realloc of pool memory to the slow path. */
		hp_filter_pin(pool, POOL_SIZE);
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

void hp_next_pool_span(uintptr_t *lo, uintptr_t *hi)
{
	*lo = (uintptr_t)pool;
	*hi = (uintptr_t)pool + HP_LOAD(&pool_used);
}

size_t hp_next_pool_size(const void *p)
{
	return *(const size_t *)((const char *)p - POOL_HDR);
}

/* ---- bootstrap entry points ----------------------------------------- */

static int resolve_state;                 /* 0 none, 1 running, 2 done */
static __thread int resolving_here;
static char provider[256];
static int glibc_malloc;   /* the next malloc is glibc's */
/* The object that provides the next malloc: its load address, the range
 * of its segments and its path. */
static struct {
	uintptr_t base, lo, hi;
} malloc_object;

static void *boot_malloc(size_t n)
{
	hp_next_resolve();
	if (!hp_next_resolved())
		return hp_next_pool_alloc(n, 16);
	return hp_next.malloc(n);
}

static void boot_free(void *p)
{
	if (!p || hp_next_pool_owns(p))
		return;
	hp_next_resolve();
	if (hp_next_resolved())
		hp_next.free(p);
}

static void *boot_calloc(size_t n, size_t m)
{
	size_t sz;

	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.calloc(n, m);
	if (__builtin_mul_overflow(n, m, &sz)) {
		errno = ENOMEM;
		return NULL;
	}
	return hp_next_pool_alloc(sz, 16);   /* static memory: already zero */
}

static void *boot_realloc(void *p, size_t n)
{
	if (p && hp_next_pool_owns(p))
		return hp_next_pool_realloc(p, n);
	hp_next_resolve();
	if (!hp_next_resolved())
		return p ? NULL : hp_next_pool_alloc(n, 16);
	return hp_next.realloc(p, n);
}

static int boot_posix_memalign(void **out, size_t align, size_t n)
{
	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.posix_memalign(out, align, n);
	void *p = hp_next_pool_alloc(n, align);
	if (!p)
		return ENOMEM;
	*out = p;
	return 0;
}

static void *boot_memalign(size_t align, size_t n)
{
	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.memalign(align, n);
	return hp_next_pool_alloc(n, align);
}

static void *boot_aligned_alloc(size_t align, size_t n)
{
	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.aligned_alloc(align, n);
	return hp_next_pool_alloc(n, align);
}

static void *boot_valloc(size_t n)
{
	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.valloc(n);
	return hp_next_pool_alloc(n, 4096);
}

static void *boot_pvalloc(size_t n)
{
	hp_next_resolve();
	if (hp_next_resolved())
		return hp_next.pvalloc(n);
	return hp_next_pool_alloc((n + 4095) & ~(size_t)4095, 4096);
}

static size_t boot_malloc_usable_size(void *p)
{
	if (!p)
		return 0;
	if (hp_next_pool_owns(p))
		return hp_next_pool_size(p);
	hp_next_resolve();
	return hp_next_resolved() ? hp_next.malloc_usable_size(p) : 0;
}

struct hp_next hp_next = {
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

void *hp_next_pool_realloc(void *p, size_t n)
{
	size_t old = hp_next_pool_size(p);
	void *q = hp_next.malloc(n);   /* the pool again while resolving */

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
	return hp_next_in_malloc_object(fn) ? fn : NULL;
}

bool hp_next_in_malloc_object(const void *fn)
{
	uintptr_t a = (uintptr_t)fn;

	return fn && a >= malloc_object.lo && a < malloc_object.hi;
}

/* ---- loaded after start-up -------------------------------------------- */

static int dlopened = -1;   /* -1 unknown, 0 preloaded (or linked), 1 dlopened */

static void here(void)
{
}

/* Whether the program's own symbol lookup finds heapprof: it does when
 * the library was preloaded or linked, never when heapprof attach had it
 * dlopened (RTLD_LOCAL: in no global scope).  Asked by a name only
 * heapprof defines, so that a program that defines malloc itself is not
 * taken for an attached one. */
static int find_dlopened(void)
{
	Dl_info ours, theirs;
	/* The program's handle: its global scope only (RTLD_DEFAULT would
	 * also search the caller's own local scope, which holds us). */
	void *prog = dlopen(NULL, RTLD_NOW | RTLD_NOLOAD);
	void *m = prog ? dlsym(prog, "heapprof_mallctl") : NULL;

	if (!m)
		return 1;
	if (!dladdr((void *)here, &ours) || !dladdr(m, &theirs))
		return 0;
	return ours.dli_fbase != theirs.dli_fbase;
}

bool hp_next_dlopened(void)
{
	if (HP_LOAD_ACQ(&dlopened) < 0)
		HP_STORE_REL(&dlopened, find_dlopened());
	return HP_LOAD(&dlopened) == 1;
}

void *hp_next_handle(void)
{
	/* Attached, the next allocator is the one the program calls: the
	 * first definition in its global scope (jemalloc linked into it, or
	 * preloaded, before libc).  RTLD_NEXT would search from libc, the
	 * caller of the attach's dlopen. */
	return hp_next_dlopened() ? RTLD_DEFAULT : RTLD_NEXT;
}

static void resolve_chain(void)
{
	struct hp_next r;
	void *h = hp_next_handle();

	r.malloc = dlsym(h, "malloc");
	r.free = dlsym(h, "free");
	r.calloc = dlsym(h, "calloc");
	r.realloc = dlsym(h, "realloc");
	if (!r.malloc || !r.free || !r.calloc || !r.realloc) {
		r.malloc = __libc_malloc;
		r.free = __libc_free;
		r.calloc = __libc_calloc;
		r.realloc = __libc_realloc;
	}
	dl_iterate_phdr(find_object, (void *)r.malloc);
	/* Only glibc's C library defines gnu_get_libc_version. */
	glibc_malloc = hp_next_in_malloc_object(dlsym(h, "gnu_get_libc_version"));

	/* Aligned variants only from the object that provides malloc; the
	 * others are emulated on its posix_memalign. */
	r.posix_memalign = same_object(dlsym(h, "posix_memalign"));
	r.memalign = same_object(dlsym(h, "memalign"));
	r.aligned_alloc = same_object(dlsym(h, "aligned_alloc"));
	r.valloc = same_object(dlsym(h, "valloc"));
	r.pvalloc = same_object(dlsym(h, "pvalloc"));
	r.malloc_usable_size = same_object(dlsym(h, "malloc_usable_size"));
	if (!r.posix_memalign)
		r.posix_memalign = dlsym(h, "posix_memalign");
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
		r.malloc_usable_size = dlsym(h, "malloc_usable_size");

	/* Publish free first: a block from the real malloc may be freed by
	 * another thread the moment malloc is published. */
	HP_STORE_REL(&hp_next.free, r.free);
	HP_STORE_REL(&hp_next.realloc, r.realloc);
	HP_STORE_REL(&hp_next.malloc_usable_size, r.malloc_usable_size);
	HP_STORE_REL(&hp_next.posix_memalign, r.posix_memalign);
	HP_STORE_REL(&hp_next.memalign, r.memalign);
	HP_STORE_REL(&hp_next.aligned_alloc, r.aligned_alloc);
	HP_STORE_REL(&hp_next.valloc, r.valloc);
	HP_STORE_REL(&hp_next.pvalloc, r.pvalloc);
	HP_STORE_REL(&hp_next.calloc, r.calloc);
	HP_STORE_REL(&hp_next.malloc, r.malloc);
}

void hp_next_resolve(void)
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

bool hp_next_resolved(void)
{
	return HP_LOAD_ACQ(&resolve_state) == 2;
}

bool hp_next_is_glibc(void)
{
	return hp_next_resolved() && glibc_malloc;
}

const char *hp_next_provider(void)
{
	return provider[0] ? provider : "(unknown)";
}
