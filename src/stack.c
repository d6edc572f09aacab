/*
 * stack.c -- call-stack capture with libunwind (see stack.h).
 *
 * Owns the address range of heapprof's own code.  Runs inside the guard:
 * anything libunwind or the dynamic loader allocates here passes through
 * unsampled.  No profiler lock is held while unwinding, because libunwind
 * takes the loader's lock through dl_iterate_phdr.
 */
#include <dlfcn.h>
#include <link.h>
#include <string.h>

#include "compiler.h"
#include "stack.h"
#include "thread.h"
#include "banned.h"

uintptr_t hp_stack_self_lo = UINTPTR_MAX, hp_stack_self_hi;

#define MAX_ALLOC_RANGES 16
static struct { uintptr_t lo, hi; } alloc_ranges[MAX_ALLOC_RANGES];
static unsigned n_alloc_ranges;

void hp_stack_add_alloc_frames(uintptr_t lo, uintptr_t hi)
{
	unsigned n = HP_LOAD(&n_alloc_ranges);

	for (unsigned i = 0; i < n; i++)
		if (alloc_ranges[i].lo == lo)
			return;
	n = HP_ADD(&n_alloc_ranges, 1);
	if (n >= MAX_ALLOC_RANGES)
		return;
	alloc_ranges[n].lo = lo;
	HP_STORE_REL(&alloc_ranges[n].hi, hi);
}

int hp_stack_is_alloc_frame(uintptr_t pc)
{
	unsigned n = HP_LOAD_ACQ(&n_alloc_ranges);

	if (n > MAX_ALLOC_RANGES)
		n = MAX_ALLOC_RANGES;
	for (unsigned i = 0; i < n; i++)
		if (pc >= alloc_ranges[i].lo && pc < HP_LOAD_ACQ(&alloc_ranges[i].hi))
			return 1;
	return 0;
}

/* The frame written when unwinding fails.  Exported so that it keeps its
 * name in a stripped library; the frame points one byte into it so that
 * readers that subtract one still land inside. */
HP_EXPORT HP_NOINLINE void heapprof_unwind_failed(void)
{
	__asm__ __volatile__("nop; nop; nop; nop" ::: "memory");
}

static int find_self(struct dl_phdr_info *info, size_t size, void *arg)
{
	const void *base = arg;

	(void)size;
	if ((const void *)info->dlpi_addr != base)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X))
			continue;
		uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
		uintptr_t hi = lo + ph->p_memsz;
		if (lo < hp_stack_self_lo)
			hp_stack_self_lo = lo;
		if (hi > hp_stack_self_hi)
			hp_stack_self_hi = hi;
	}
	return 1;
}

void hp_stack_init(void)
{
	Dl_info info;
	void *warm[8];

	if (dladdr((void *)hp_stack_init, &info))
		dl_iterate_phdr(find_self, info.dli_fbase);
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
	unw_backtrace(warm, (int)HP_ARRAY_LEN(warm));
}
