/*
 * stack.c -- call-stack capture (see stack.h): the choice between the fast
 * unwinder (unwind.c) and libunwind, prof_unwinder:check's comparison, and
 * the address range of heapprof's own code.  Runs inside the guard:
 * anything libunwind or the dynamic loader allocates here passes through
 * unsampled.  No profiler lock is held while unwinding, because libunwind
 * takes the loader's lock through dl_iterate_phdr.
 *
 * libunwind is linked, not opened when the fast unwinder first needs it:
 * a dlopen'ed library's thread-local variables are allocated with malloc
 * by the first access in each thread, and that access can be in a signal
 * handler that interrupted glibc's malloc holding its arena lock (tried:
 * t/prog/sigalloc deadlocked).  Linked, its TLS is in the static block.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <link.h>
#include <string.h>

#include "base/compiler.h"
#include "base/fmt.h"
#include "base/log.h"
#include "stack/stack.h"
#include "stack/unwpipe.h"
#include "base/banned.h"

uintptr_t hp_stack_self_lo = UINTPTR_MAX, hp_stack_self_hi;
int hp_stack_unwinder = HP_UNWIND_FAST;

/* Strips our own frames: the two unwinders start in different functions
 * of ours. */
static int first_foreign(const uintptr_t *f, int n)
{
	int i = 0;

	while (i < n && (hp_stack_is_self(f[i]) || hp_stack_is_alloc_frame(f[i])))
		i++;
	return i;
}

static uint64_t checked, mismatched;

void hp_stack_log_stats(void)
{
	struct hp_unwind_stats u;

	hp_unwind_stats(&u);
	hp_log(HP_LOG_DEBUG, "unwinder: %llu stacks walked fast, %llu by libunwind (%llu of them fallbacks), "
	       "%llu left unwalked (libunwind's descriptors taken), %llu rules cached, "
	       "%llu stacks finished from the walk memo (%llu of them a memo's last walk again)",
	       (unsigned long long)u.fast, (unsigned long long)u.libunwind,
	       (unsigned long long)u.fallback, (unsigned long long)hp_unwpipe_refused(),
	       (unsigned long long)u.rules, (unsigned long long)u.memo, (unsigned long long)u.again);
	if (HP_LOAD(&hp_stack_unwinder) == HP_UNWIND_CHECK)
		hp_log(HP_LOG_INFO, "prof_unwinder:check: %llu stacks compared, %llu differed, %llu left to libunwind",
		       (unsigned long long)HP_LOAD(&checked), (unsigned long long)HP_LOAD(&mismatched),
		       (unsigned long long)u.fallback);
}

HP_COLD void hp_stack_check(uintptr_t stack_lo, uintptr_t stack_hi, const uintptr_t *buf, int n, int max,
			    struct hp_unwind_memo *memo, const struct hp_unwind_memo *from)
{
	uintptr_t fast[HP_BT_LIMIT + HP_BT_SLACK];
	const uintptr_t *fp = __builtin_frame_address(0);
	int m = stack_hi ? hp_unwind_fast(fast, max, stack_lo, stack_hi, fp[1],
					      (uintptr_t)fp + 16, fp[0], memo, from, NULL) : -1;

	memo->last_ok = false;

	if (m < 0)
		return;   /* the fast unwinder would have fallen back: nothing to compare */
	int a = first_foreign(buf, n), b = first_foreign(fast, m);
	/* Both cut at max: each kept max frames, heapprof's own among them,
	 * and libunwind walks more of those; the frames both kept must match. */
	int cut = n >= max && m >= max, len = n - a < m - b ? n - a : m - b;
	int same = (cut || n - a == m - b) && !memcmp(buf + a, fast + b, (size_t)len * sizeof(*buf));
	uint64_t k = HP_ADD(&checked, 1) + 1;
	if (same)
		return;
	uint64_t bad = HP_ADD(&mismatched, 1) + 1;
	if (bad <= 5) {
		int at = 0;   /* the first frame that differs */
		while (at < len && buf[a + at] == fast[b + at])
			at++;
		char line[512];
		size_t used = 0;
		for (int i = at; i < at + 6; i++)
			used += hp_fmt(line + used, sizeof(line) - used, " %p/%p",
				       (void *)(a + i < n ? buf[a + i] : 0), (void *)(b + i < m ? fast[b + i] : 0));
		hp_log(HP_LOG_WARN, "prof_unwinder:check: stack %llu differs (libunwind/fast: %d/%d frames, "
		       "from frame %d):%s", (unsigned long long)k, n - a, m - b, at, line);
	}
}

#define MAX_ALLOC_RANGES 16
static struct { uintptr_t lo, hi; } alloc_ranges[MAX_ALLOC_RANGES];
unsigned hp_stack_n_alloc_ranges;
#define n_alloc_ranges hp_stack_n_alloc_ranges
uintptr_t hp_stack_alloc_lo = UINTPTR_MAX, hp_stack_alloc_hi;

void hp_stack_add_alloc_frames(uintptr_t lo, uintptr_t hi)
{
	unsigned n = HP_LOAD(&n_alloc_ranges);

	for (unsigned i = 0; i < n; i++)
		if (alloc_ranges[i].lo == lo)
			return;
	n = HP_ADD(&n_alloc_ranges, 1);
	if (n >= MAX_ALLOC_RANGES)
		return;
	/* The span first, so that a reader that finds the range finds it
	 * inside; only ever widened (two registrations may race). */
	uintptr_t cur;
	while ((cur = HP_LOAD(&hp_stack_alloc_lo)) > lo && !HP_CAS(&hp_stack_alloc_lo, &cur, lo))
		;
	while ((cur = HP_LOAD(&hp_stack_alloc_hi)) < hi && !HP_CAS(&hp_stack_alloc_hi, &cur, hi))
		;
	alloc_ranges[n].lo = lo;
	HP_STORE_REL(&alloc_ranges[n].hi, hi);
}

int hp_stack_in_alloc_ranges(uintptr_t pc)
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

/* heapprof attach: libunwind's set-up (tens of milliseconds: its caches,
 * its validation pipe, a first walk) waits for the helper thread, so
 * that the program's borrowed thread is not held for it; until then a
 * stack the fast unwinder cannot take gets the placeholder frame. */
static int deferred;

void hp_stack_defer_libunwind(void)
{
	static int warmed_once;

	if (!HP_XCHG(&warmed_once, 1))
		HP_STORE_REL(&deferred, 1);
}

bool hp_stack_deferred(void)
{
	return HP_LOAD_ACQ(&deferred) != 0;
}

void hp_stack_init(void)
{
	Dl_info info;

	if (dladdr((void *)hp_stack_init, &info))
		dl_iterate_phdr(find_self, info.dli_fbase);
	if (!hp_stack_deferred())
		hp_stack_warm();
}

void hp_stack_warm(void)
{
	void *warm[8];

	HP_STORE_REL(&deferred, 0);
	hp_stack_set_unwinder(HP_LOAD(&hp_stack_unwinder));
	if (hp_sandbox_on())
		return;   /* started under a filter: libunwind never runs */
	/* Its validation pipe is open for the walk only (stack/unwpipe.h). */
	if (!hp_unwpipe_enter()) {
		hp_unwpipe_leave();
		return;
	}
	if (HP_LOAD(&hp_stack_unwinder) != HP_UNWIND_FAST) {
		unw_backtrace(warm, (int)HP_ARRAY_LEN(warm));
	} else {
		/* The fast unwinder takes most stacks: initialize libunwind
		 * for the rest with a cursor walk, which leaves out
		 * unw_backtrace's per-thread trace cache (256 KiB, created by
		 * a thread's first unw_backtrace, so only in threads that
		 * ever fall back). */
		unw_context_t uc;
		unw_cursor_t c;
		unw_getcontext(&uc);
		if (unw_init_local(&c, &uc) == 0)
			for (int i = 0; i < (int)HP_ARRAY_LEN(warm) && unw_step(&c) > 0; i++)
				;
	}
	hp_unwpipe_leave();
}

/* libunwind's walk reads and closes its validation pipe: cancellation
 * points, which malloc has none of.  A thread cancelled there died inside
 * malloc with the pipe's lock held, and the next walk waited for ever; so
 * the walk runs with cancellation off, as the allocation it is part of. */
HP_COLD int hp_stack_libunwind(uintptr_t *buf, int max)
{
	int n = -1, cancel, ignored;

	if (hp_stack_deferred())
		return -1;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	if (hp_unwpipe_enter())
		n = unw_backtrace((void **)buf, max);
	hp_unwpipe_leave();
	pthread_setcancelstate(cancel, &ignored);
	return n;
}

/* libunwind's cache: per thread (256 KiB each, touched whole) when it
 * walks every stack; one shared cache when it only takes the stacks the
 * fast unwinder hands over, so that a thread that once allocates in a
 * signal handler does not cost a quarter of a megabyte. */
void hp_stack_set_unwinder(int how)
{
	static int policy = -1;
	int want = how == HP_UNWIND_FAST ? UNW_CACHE_GLOBAL : UNW_CACHE_PER_THREAD;

	HP_STORE(&hp_stack_unwinder, how);
	/* Under a seccomp filter libunwind never runs (stack.h): its set-up
	 * is system calls (the validation pipe, signal masks).  Deferred, it
	 * is hp_stack_warm's. */
	if (want != policy && !hp_sandbox_on() && !hp_stack_deferred()) {
		/* The first call into libunwind opens its validation pipe. */
		if (!hp_unwpipe_hi)
			hp_unwpipe_init();
		if (hp_unwpipe_enter()) {
			unw_set_caching_policy(unw_local_addr_space, want);
			policy = want;
		}
		hp_unwpipe_leave();
	}
}
