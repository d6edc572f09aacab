/*
 * entry.c -- where the program's call entered an exit path (see entry.h).
 *
 * Owns nothing: one libunwind walk of the calling thread's stack.
 */
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <string.h>

#include "base/compiler.h"
#include "base/sandbox.h"
#include "stack/entry.h"
#include "stack/stack.h"
#include "stack/unwpipe.h"
#include "base/banned.h"

#if defined(__x86_64__)
static const int callee_saved[] = {
	UNW_X86_64_RBX, UNW_X86_64_RBP, UNW_X86_64_R12,
	UNW_X86_64_R13, UNW_X86_64_R14, UNW_X86_64_R15,
};
#elif defined(__aarch64__)
static const int callee_saved[] = {
	UNW_AARCH64_X19, UNW_AARCH64_X20, UNW_AARCH64_X21, UNW_AARCH64_X22,
	UNW_AARCH64_X23, UNW_AARCH64_X24, UNW_AARCH64_X25, UNW_AARCH64_X26,
	UNW_AARCH64_X27, UNW_AARCH64_X28, UNW_AARCH64_X29,
};
#else
static const int callee_saved[] = { 0 };
#endif

/* The extent of the function at fn, from the dynamic symbol table. */
static int extent(const void *fn, uintptr_t *lo, uintptr_t *hi)
{
	Dl_info info;
	const ElfW(Sym) *sym = NULL;

	if (!dladdr1(fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size ||
	    !info.dli_saddr)
		return 0;
	*lo = (uintptr_t)info.dli_saddr;
	*hi = *lo + sym->st_size;
	return (uintptr_t)fn >= *lo && (uintptr_t)fn < *hi;
}

/* From the frame of [lo, hi) on the stack, steps to its caller. */
static int walk(unw_cursor_t *c, uintptr_t lo, uintptr_t hi)
{
	for (int depth = 0; depth < 256; depth++) {
		unw_word_t ip;
		if (unw_step(c) <= 0 || unw_get_reg(c, UNW_REG_IP, &ip) < 0)
			return 0;
		/* A return address: the call is the byte before. */
		if (ip - 1 >= lo && ip - 1 < hi)
			return unw_step(c) > 0;
	}
	return 0;
}

static void fill(unw_cursor_t *c, struct hp_stack_entry *e)
{
	unw_word_t v;

	if (unw_get_reg(c, UNW_REG_SP, &v) < 0)
		return;
	e->sp = (uintptr_t)v;
	for (size_t i = 0; i < HP_ARRAY_LEN(callee_saved) && e->nregs < HP_ENTRY_REGS; i++)
		if (unw_get_reg(c, callee_saved[i], &v) == 0)
			e->regs[e->nregs++] = (uintptr_t)v;
}

int hp_stack_entry_of(const void *fn, struct hp_stack_entry *e)
{
	uintptr_t lo, hi;
	unw_context_t uc;
	unw_cursor_t c;
	int cancel, ignored, found = 0;

	memset(e, 0, sizeof(*e));
	if (hp_sandbox_on() || !fn)
		return 0;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	/* dladdr1 takes the loader's lock as libunwind's walk does: both
	 * between hp_unwpipe_enter and leave, which a fork waits out. */
	if (hp_unwpipe_enter() && extent(fn, &lo, &hi) && unw_getcontext(&uc) == 0 &&
	    unw_init_local(&c, &uc) == 0 && walk(&c, lo, hi)) {
		fill(&c, e);
		found = e->sp != 0;
	}
	hp_unwpipe_leave();
	pthread_setcancelstate(cancel, &ignored);
	if (!found)
		memset(e, 0, sizeof(*e));
	else
		e->tid = gettid();
	return found;
}
