/*
 * mmap.c -- the interposed mmap(), mmap64(), munmap(), mremap() and sbrk().
 *
 * Owns nothing.  Each forwards to the next definition (the C library's, or
 * an allocator's own, as tcmalloc has) and tells next/nextmaps.c what the
 * next allocator mapped for itself, so that the leak scan does not take
 * that allocator's free memory and metadata for roots.  The result and
 * errno are the next function's; before the chain is resolved the call
 * goes to the kernel.  heapprof's own memory never comes through here
 * (base/pages.c maps with the system call).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/compiler.h"
#include "base/sys.h"
#include "next/nextmaps.h"

static void *forward_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	const struct hp_nextmaps_fns *f = hp_nextmaps_fns();

	if (f)
		return f->mmap(addr, len, prot, flags, fd, off);
	long r = hp_syscall(SYS_mmap, addr, len, prot, flags, fd, off);
	return r == -1 ? MAP_FAILED : (void *)r;
}

static void *mapped(void *p, size_t len, int flags, const void *caller)
{
	if (p == MAP_FAILED)
		return p;
	int saved = errno;
	if (flags & MAP_FIXED)
		hp_nextmaps_unmapped(p, len);
	if (!(flags & MAP_SHARED))
		hp_nextmaps_mapped(p, len, caller);
	errno = saved;
	return p;
}

HP_EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = forward_mmap(addr, len, prot, flags, fd, off);

	return mapped(p, len, flags, __builtin_return_address(0));
}

HP_EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	void *p = forward_mmap(addr, len, prot, flags, fd, off);

	return mapped(p, len, flags, __builtin_return_address(0));
}

HP_EXPORT int munmap(void *addr, size_t len)
{
	const struct hp_nextmaps_fns *f = hp_nextmaps_fns();
	int r = f ? f->munmap(addr, len) : (int)hp_syscall(SYS_munmap, addr, len);

	if (r == 0) {
		int saved = errno;
		hp_nextmaps_unmapped(addr, len);
		errno = saved;
	}
	return r;
}

HP_EXPORT void *mremap(void *old, size_t old_len, size_t new_len, int flags, ...)
{
	const struct hp_nextmaps_fns *f = hp_nextmaps_fns();
	void *want = NULL, *p;

	if (flags & MREMAP_FIXED) {
		va_list ap;
		va_start(ap, flags);
		want = va_arg(ap, void *);
		va_end(ap);
	}
	if (f) {
		p = f->mremap(old, old_len, new_len, flags, want);
	} else {
		long r = hp_syscall(SYS_mremap, old, old_len, new_len, flags, want);
		p = r == -1 ? MAP_FAILED : (void *)r;
	}
	if (p == MAP_FAILED)
		return p;
	int saved = errno;
	/* The old range is gone (or shrank, or moved); what the allocator
	 * remapped is its own again. */
	hp_nextmaps_unmapped(old, old_len);
	if (flags & MREMAP_FIXED)
		hp_nextmaps_unmapped(p, new_len);
	hp_nextmaps_mapped(p, new_len, __builtin_return_address(0));
	errno = saved;
	return p;
}

/* tcmalloc takes its heap from sbrk first ([heap]): what the allocator
 * grew the break by is its own, as a mapping is.  Before the chain is
 * resolved, glibc's __sbrk (which keeps the C library's idea of the break
 * right, as the system call would not). */
extern void *__sbrk(intptr_t inc);

HP_EXPORT void *sbrk(intptr_t inc)
{
	const struct hp_nextmaps_fns *f = hp_nextmaps_fns();
	void *p = f ? f->sbrk(inc) : __sbrk(inc);

	if (p == (void *)-1 || !inc)
		return p;
	int saved = errno;
	if (inc > 0)
		hp_nextmaps_mapped(p, (size_t)inc, __builtin_return_address(0));
	else
		hp_nextmaps_unmapped((char *)p + inc, (size_t)-inc);
	errno = saved;
	return p;
}
