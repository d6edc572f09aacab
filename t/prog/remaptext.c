/*
 * remaptext.c -- a program that moves its own code, as node does with
 * --use-largepages, as libhugetlbfs does, and as V8 does with its
 * embedded builtins.  remaptext MODE, where MODE is
 *
 *   middle  the page holding remap_leaf() becomes an anonymous copy at
 *           the same address (mmap, memcpy, mremap MREMAP_FIXED over the
 *           original): file-backed text on both sides of it;
 *   whole   the whole executable segment becomes an anonymous copy at
 *           the same addresses (libhugetlbfs);
 *   copy    the page holding pi_alloc() is mapped from the file a second
 *           time, elsewhere, and called there (V8's remapped builtins);
 *   jit     the same page copied into anonymous executable memory
 *           elsewhere and called there: code the binary does not own at
 *           that address, as a JIT's.
 *
 * Then remap_leaf() leaks 20 blocks of 1000 bytes (middle, whole), or
 * pi_alloc() leaks 7 blocks of 3000 bytes from its second copy (copy,
 * jit).  It prints the moved range and exits 0; a layout it cannot use
 * (no text on both sides of the page) is status 3, a failed call 2.
 */
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *volatile sink;

/* Page-aligned, kept in this order (no_reorder), so that remap_leaf()
 * has a page of its own with pad_after() on the next one. */
__attribute__((noinline, aligned(4096), no_reorder)) void remap_leaf(int n)
{
	for (int i = 0; i < n; i++) {
		sink = malloc(1000);
		sink = NULL;
	}
}

/* Position-independent: no PC-relative reference, so a copy anywhere
 * runs; the allocator comes in a register. */
__attribute__((noinline, aligned(4096), no_reorder)) void *pi_alloc(void *(*fn)(size_t),
								    size_t n)
{
	return fn(n);
}

__attribute__((noinline, aligned(4096), no_reorder)) int pad_after(int x)
{
	return x * 3 + 1;
}

struct text {
	uintptr_t base, lo, hi;		/* load bias; the R E segment */
	uintptr_t vaddr, offset;	/* its p_vaddr and p_offset */
};

static int find_text(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct text *t = arg;

	(void)size;
	if (info->dlpi_name && info->dlpi_name[0])
		return 0;	/* the program is the nameless one */
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			t->base = info->dlpi_addr;
			t->lo = info->dlpi_addr + ph->p_vaddr;
			t->hi = t->lo + ph->p_memsz;
			t->vaddr = ph->p_vaddr;
			t->offset = ph->p_offset;
			return 1;
		}
	}
	return 0;
}

/* Replaces [lo, hi) with an anonymous copy of itself, at the same
 * addresses. */
static int remap_anon(uintptr_t lo, uintptr_t hi)
{
	size_t len = hi - lo;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return -1;
	memcpy(p, (void *)lo, len);
	if (mprotect(p, len, PROT_READ | PROT_EXEC) ||
	    mremap(p, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, (void *)lo) != (void *)lo)
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "middle";
	uintptr_t pg = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct text t = { 0 };

	if (!dl_iterate_phdr(find_text, &t))
		return 2;
	uintptr_t seg_lo = t.lo & ~(pg - 1), seg_hi = (t.hi + pg - 1) & ~(pg - 1);
	uintptr_t leaf = (uintptr_t)remap_leaf & ~(pg - 1);
	uintptr_t pi = (uintptr_t)pi_alloc & ~(pg - 1);

	if (!strcmp(mode, "middle")) {
		if (leaf <= seg_lo || leaf + pg >= seg_hi || (uintptr_t)pad_after < leaf + pg)
			return 3;
		if (remap_anon(leaf, leaf + pg))
			return 2;
		printf("anonymous %#lx-%#lx\n", (unsigned long)leaf, (unsigned long)(leaf + pg));
		remap_leaf(20);
	} else if (!strcmp(mode, "whole")) {
		if (remap_anon(seg_lo, seg_hi))
			return 2;
		printf("anonymous %#lx-%#lx\n", (unsigned long)seg_lo, (unsigned long)seg_hi);
		remap_leaf(20);
	} else if (!strcmp(mode, "copy") || !strcmp(mode, "jit")) {
		char *p;
		if (!strcmp(mode, "copy")) {
			int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
			off_t off = (off_t)(t.offset + (pi - t.base - t.vaddr));
			p = mmap(NULL, pg, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, off);
			close(fd);
		} else {
			p = mmap(NULL, pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
				 -1, 0);
			if (p != MAP_FAILED) {
				memcpy(p, (void *)pi, pg);
				if (mprotect(p, pg, PROT_READ | PROT_EXEC))
					return 2;
			}
		}
		if (p == MAP_FAILED)
			return 2;
		void *(*copy)(void *(*)(size_t), size_t) =
			(void *(*)(void *(*)(size_t), size_t))(p + ((uintptr_t)pi_alloc - pi));
		printf("%s %p-%p\n", mode, (void *)p, (void *)(p + pg));
		for (int i = 0; i < 7; i++) {
			sink = copy(malloc, 3000);
			sink = NULL;
		}
	} else {
		fprintf(stderr, "remaptext: unknown mode '%s'\n", mode);
		return 2;
	}
	fflush(stdout);
	return pad_after(0) - 1;
}
