/*
 * got.c -- the GOT entries heapprof attach rewrote (see got.h).
 *
 * Owns the table of rewritten slots and its lock.  Runs on the thread
 * heapprof attach or detach borrowed, and on the helper thread; never
 * inside malloc.  A slot's store is one aligned 8-byte store: a thread
 * calling through it at that moment reaches either allocator's entry,
 * and heapprof's forwards what it did not record (its free and realloc
 * find an unknown block in no page it sampled and hand it to the
 * allocator after it).
 */
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/pages.h"
#include "base/spin.h"
#include "base/sys.h"
#include "next/got.h"
#include "base/banned.h"

#if defined(__x86_64__)
#define R_SLOT  R_X86_64_JUMP_SLOT
#define R_GLOB  R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_SLOT  R_AARCH64_JUMP_SLOT
#define R_GLOB  R_AARCH64_GLOB_DAT
#else
#error "got.c: JUMP_SLOT and GLOB_DAT relocations of this architecture"
#endif

struct slot {
	uintptr_t *at;
	uintptr_t old, now;
	uintptr_t base;          /* its object's load address */
	const void *phdr;        /* and program headers: the object's identity */
	int alive;               /* prune's mark */
};

#define MAX_SLOTS (1u << 16)

static struct hp_spin lock;
static struct slot *slots;   /* MAX_SLOTS, mapped on first use */
static unsigned nslots;
static unsigned long long seen_adds, seen_subs;
static int routing;          /* between hp_got_route and hp_got_restore */

/* ---- one object's dynamic section --------------------------------------- */

struct dynobj {
	uintptr_t base;
	const ElfW(Sym) *symtab;
	const char *strtab;
	size_t strsz;
	const ElfW(Rela) *jmprel, *rela;
	size_t jmprelsz, relasz;
	const uint32_t *gnuhash;
	uintptr_t relro_lo, relro_hi;   /* the pages RELRO made read-only */
};

static uintptr_t addr_of(uintptr_t base, ElfW(Addr) v)
{
	/* glibc relocates the dynamic section's addresses in place (not on
	 * every architecture): an address below the base is not one yet. */
	return v < base ? base + v : v;
}

static bool read_object(const struct dl_phdr_info *info, struct dynobj *o)
{
	const ElfW(Dyn) *dyn = NULL;
	long pg = sysconf(_SC_PAGESIZE);

	memset(o, 0, sizeof(*o));
	o->base = info->dlpi_addr;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		if (ph->p_type == PT_GNU_RELRO) {
			o->relro_lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)(pg - 1);
			o->relro_hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & ~(uintptr_t)(pg - 1);
		}
	}
	if (!dyn)
		return false;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		switch (dyn->d_tag) {
		case DT_SYMTAB: o->symtab = (const ElfW(Sym) *)addr_of(o->base, dyn->d_un.d_ptr); break;
		case DT_STRTAB: o->strtab = (const char *)addr_of(o->base, dyn->d_un.d_ptr); break;
		case DT_STRSZ: o->strsz = dyn->d_un.d_val; break;
		case DT_JMPREL: o->jmprel = (const ElfW(Rela) *)addr_of(o->base, dyn->d_un.d_ptr); break;
		case DT_PLTRELSZ: o->jmprelsz = dyn->d_un.d_val; break;
		case DT_RELA: o->rela = (const ElfW(Rela) *)addr_of(o->base, dyn->d_un.d_ptr); break;
		case DT_RELASZ: o->relasz = dyn->d_un.d_val; break;
		case DT_GNU_HASH: o->gnuhash = (const uint32_t *)addr_of(o->base, dyn->d_un.d_ptr); break;
		case DT_PLTREL:
			if (dyn->d_un.d_val != DT_RELA)
				return false;   /* REL relocations: not on x86_64 or AArch64 */
			break;
		}
	}
	return o->symtab && o->strtab;
}

static const char *sym_name(const struct dynobj *o, size_t idx)
{
	size_t off = o->symtab[idx].st_name;
	return off < o->strsz ? o->strtab + off : "";
}

/* A defined symbol's address in o, by its GNU hash table. */
static uintptr_t lookup(const struct dynobj *o, const char *name)
{
	const uint32_t *h = o->gnuhash;
	uint32_t hash = 5381;

	if (!h || !h[0])
		return 0;
	for (const char *s = name; *s; s++)
		hash = hash * 33 + (unsigned char)*s;
	const uint32_t *buckets = (const uint32_t *)((const char *)(h + 4) + (size_t)h[2] * sizeof(ElfW(Addr)));
	const uint32_t *chains = buckets + h[0];
	uint32_t idx = buckets[hash % h[0]];
	if (idx < h[1])
		return 0;
	for (;; idx++) {
		uint32_t ch = chains[idx - h[1]];
		const ElfW(Sym) *s = &o->symtab[idx];
		if ((ch | 1) == (hash | 1) && s->st_shndx != SHN_UNDEF && !strcmp(sym_name(o, idx), name))
			return o->base + s->st_value;
		if (ch & 1)
			return 0;
	}
}

/* ---- routing ------------------------------------------------------------ */

/* What heapprof's intercept/ layer defines for the program's
 * allocations; pthread_getattr_np, which glibc runs allocating under the
 * thread's lock that heapprof's first look at a thread takes
 * (record/threads.c); and pipe2, through which libunwind's validation
 * pipe is handed to stack/unwpipe.c (else it would stay open in the
 * program).  Not the rest of what a preload interposes: the signal
 * functions, pthread_create, _exit, mmap and syscall stay the program's. */
static const char *const route_names[] = {
	"malloc", "free", "calloc", "realloc", "reallocarray", "posix_memalign", "aligned_alloc",
	"memalign", "valloc", "pvalloc", "malloc_usable_size", "pthread_getattr_np", "pipe2",
	"_Znwm", "_Znam", "_ZnwmRKSt9nothrow_t", "_ZnamRKSt9nothrow_t", "_ZnwmSt11align_val_t",
	"_ZnamSt11align_val_t", "_ZnwmSt11align_val_tRKSt9nothrow_t", "_ZnamSt11align_val_tRKSt9nothrow_t",
	"_ZdlPv", "_ZdaPv", "_ZdlPvRKSt9nothrow_t", "_ZdaPvRKSt9nothrow_t", "_ZdlPvm", "_ZdaPvm",
	"_ZdlPvSt11align_val_t", "_ZdaPvSt11align_val_t", "_ZdlPvSt11align_val_tRKSt9nothrow_t",
	"_ZdaPvSt11align_val_tRKSt9nothrow_t", "_ZdlPvmSt11align_val_t", "_ZdaPvmSt11align_val_t",
};
#define NROUTES (sizeof(route_names) / sizeof(route_names[0]))

struct route {
	const char *const *names;
	size_t n;
	uintptr_t to[64];            /* heapprof's definitions, by name index */
	uintptr_t self_base;
	unsigned rewritten;
	unsigned long long adds, subs;
};

static void here(void)
{
}

static int name_index(const struct route *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->names[i], name))
			return (int)i;
	return -1;
}

static struct slot *slot_of(const uintptr_t *at)
{
	for (unsigned i = 0; i < nslots; i++)
		if (slots[i].at == at)
			return &slots[i];
	return NULL;
}

/* Stores v at at, through a writable window when RELRO made it read-only. */
static bool store(const struct dynobj *o, uintptr_t *at, uintptr_t v)
{
	uintptr_t a = (uintptr_t)at;
	long pg = sysconf(_SC_PAGESIZE);
	bool ro = a >= o->relro_lo && a < o->relro_hi;
	uintptr_t page = a & ~(uintptr_t)(pg - 1);

	if (ro && hp_sys_raw(SYS_mprotect, (long)page, pg, PROT_READ | PROT_WRITE, 0, 0, 0) != 0)
		return false;
	__atomic_store_n(at, v, __ATOMIC_RELEASE);
	if (ro)
		hp_sys_raw(SYS_mprotect, (long)page, pg, PROT_READ, 0, 0, 0);
	return true;
}

static void route_relocs(struct route *r, const struct dynobj *o, const ElfW(Rela) *rel, size_t sz,
			 const void *phdr)
{
	for (size_t k = 0; rel && k < sz / sizeof(*rel); k++) {
		unsigned type = (unsigned)ELF64_R_TYPE(rel[k].r_info);
		size_t sym = ELF64_R_SYM(rel[k].r_info);
		if ((type != R_SLOT && type != R_GLOB) || !sym)
			continue;
		int i = name_index(r, sym_name(o, sym));
		if (i < 0 || !r->to[i])
			continue;
		uintptr_t *at = (uintptr_t *)(o->base + rel[k].r_offset);
		uintptr_t old = __atomic_load_n(at, __ATOMIC_ACQUIRE);
		if (old == r->to[i])
			continue;
		/* A slot in the table that no longer holds heapprof's value:
		 * its object was unloaded and loaded again at the same place
		 * (same identity), relocated afresh. */
		struct slot *known = slot_of(at);
		if (!known && nslots >= MAX_SLOTS)
			continue;
		if (!store(o, at, r->to[i]))
			continue;
		if (known)
			known->old = old;
		else
			slots[nslots++] = (struct slot){ at, old, r->to[i], o->base, phdr, 1 };
		r->rewritten++;
	}
}

static bool skipped(const struct dl_phdr_info *info, uintptr_t self_base)
{
	const char *name = info->dlpi_name ? info->dlpi_name : "";
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return info->dlpi_addr == self_base || !strncmp(base, "ld-linux", 8) || !strncmp(base, "ld64.so", 7) ||
	       !strncmp(base, "linux-vdso", 10) || !strncmp(base, "linux-gate", 10);
}

static int route_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct route *r = arg;
	struct dynobj o;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		r->adds = info->dlpi_adds;
		r->subs = info->dlpi_subs;
	}
	if (skipped(info, r->self_base) || !read_object(info, &o))
		return 0;
	route_relocs(r, &o, o.jmprel, o.jmprelsz, info->dlpi_phdr);
	route_relocs(r, &o, o.rela, o.relasz, info->dlpi_phdr);
	return 0;
}

/* Slots of objects unloaded since (dlclose) are no slots any more: forgotten,
 * so that an object loaded at the same address is routed. */
static int mark_alive(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	for (unsigned i = 0; i < nslots; i++)
		if (slots[i].base == info->dlpi_addr && slots[i].phdr == info->dlpi_phdr)
			slots[i].alive = 1;
	return 0;
}

static void prune(void)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nslots; i++)
		slots[i].alive = 0;
	dl_iterate_phdr(mark_alive, NULL);
	for (unsigned i = 0; i < nslots; i++)
		if (slots[i].alive)
			slots[k++] = slots[i];
	nslots = k;
}

/* heapprof's own definitions of the routed names. */
static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct route *r = arg;
	struct dynobj o;
	uintptr_t pc = (uintptr_t)here;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		if (ph->p_type == PT_LOAD && pc >= lo && pc < lo + ph->p_memsz) {
			r->self_base = info->dlpi_addr;
			if (read_object(info, &o))
				for (size_t k = 0; k < r->n; k++)
					r->to[k] = lookup(&o, r->names[k]);
			return 1;
		}
	}
	return 0;
}

static unsigned route(unsigned *objects, bool first)
{
	struct route r;

	memset(&r, 0, sizeof(r));
	r.names = route_names;
	r.n = NROUTES;
	hp_spin_lock(&lock);
	if (first)
		routing = 1;
	if (!routing) {
		/* The helper thread's look came after hp_got_restore. */
		hp_spin_unlock(&lock);
		return 0;
	}
	if (!slots)
		slots = hp_pages_alloc(MAX_SLOTS * sizeof(*slots));
	if (slots) {
		if (nslots)
			prune();
		dl_iterate_phdr(find_self, &r);
		dl_iterate_phdr(route_one, &r);
		HP_STORE(&seen_adds, r.adds);
		HP_STORE(&seen_subs, r.subs);
	}
	if (objects) {
		unsigned k = 0;
		for (unsigned i = 0; i < nslots; i++) {
			bool new_base = true;
			for (unsigned j = 0; j < i && new_base; j++)
				new_base = slots[j].base != slots[i].base;
			k += new_base;
		}
		*objects = k;
	}
	hp_spin_unlock(&lock);
	return r.rewritten;
}

unsigned hp_got_route(unsigned *objects)
{
	return route(objects, true);
}

unsigned hp_got_route_more(void)
{
	return route(NULL, false);
}

static int counts(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *c = arg;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c[0] = info->dlpi_adds;
		c[1] = info->dlpi_subs;
	}
	return 1;
}

bool hp_got_objects_changed(void)
{
	unsigned long long c[2] = { 0, 0 };

	dl_iterate_phdr(counts, c);
	return c[0] != HP_LOAD(&seen_adds) || c[1] != HP_LOAD(&seen_subs);
}

/* ---- restoring ---------------------------------------------------------- */

struct restore {
	unsigned restored;
};

static int restore_one(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct restore *r = arg;
	struct dynobj o;

	(void)size;
	if (!read_object(info, &o))
		return 0;
	/* Only the slots of an object that is still this one: a slot of an
	 * object unloaded since is no slot any more. */
	for (unsigned i = 0; i < nslots; i++) {
		struct slot *s = &slots[i];
		if (s->base != info->dlpi_addr || s->phdr != info->dlpi_phdr || !s->at)
			continue;
		if (__atomic_load_n(s->at, __ATOMIC_ACQUIRE) == s->now && store(&o, s->at, s->old))
			r->restored++;
		s->at = NULL;
	}
	return 0;
}

unsigned hp_got_restore(void)
{
	struct restore r = { 0 };

	hp_spin_lock(&lock);
	routing = 0;
	if (slots)
		dl_iterate_phdr(restore_one, &r);
	nslots = 0;
	hp_spin_unlock(&lock);
	return r.restored;
}

unsigned hp_got_routed(void)
{
	return HP_LOAD(&nslots);
}
