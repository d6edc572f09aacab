/*
 * stack.c -- call-stack capture with libunwind (see stack.h).
 *
 * Owns the address range of heapprof's own code.  Runs inside the guard:
 * anything libunwind or the dynamic loader allocates here passes through
 * unsampled.  No profiler lock is held while unwinding, because libunwind
 * takes the loader's lock through dl_iterate_phdr.
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <string.h>

#include "compiler.h"
#include "stack.h"
#include "thread.h"
#include "banned.h"

static uintptr_t self_lo = UINTPTR_MAX, self_hi;

/* The frame written when unwinding fails.  Exported so that it keeps its
 * name in a stripped library; the frame points one byte into it so that
 * readers that subtract one still land inside. */
HP_EXPORT HP_NOINLINE void heapprof_unwind_failed(void)
{
	__asm__ __volatile__("nop; nop; nop; nop" ::: "memory");
}

int hp_stack_is_self(uintptr_t pc)
{
	return pc >= self_lo && pc < self_hi;
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
		if (lo < self_lo)
			self_lo = lo;
		if (hi > self_hi)
			self_hi = hi;
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

int hp_stack_capture(uintptr_t *buf, int max)
{
	int n = unw_backtrace((void **)buf, max + HP_BT_SLACK);
	int skip = 0;

	while (skip < n && hp_stack_is_self(buf[skip]))
		skip++;
	n -= skip;
	if (n <= 0 || buf[skip] == 0) {
		buf[0] = (uintptr_t)heapprof_unwind_failed + 1;
		return 1;
	}
	if (n > max)
		n = max;
	memmove(buf, buf + skip, (size_t)n * sizeof(*buf));
	buf[0] -= 1;
	return n;
}
