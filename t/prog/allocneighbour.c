/*
 * allocneighbour.c -- the only pointer to a block kept in an anonymous
 * mapping of the program's placed right after the allocator's .bss, which
 * the kernel merges with the allocator's own anonymous tail into one line
 * of /proc/self/maps.  The program's part is a root all the same.
 * usage: allocneighbour LIBNAME   (a substring of the allocator's path)
 * (or at the first free page after it, when another object follows).
 * Prints "merged" or "apart" (whether the kernel merged the two), and
 * leaks nothing: valgrind's definitely lost is 0.
 */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static const char *want;
static uintptr_t bss_end;

static int find(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (!info->dlpi_name || !strstr(info->dlpi_name, want))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
			bss_end = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 4095) & ~(uintptr_t)4095;
	}
	return 1;
}

static int merged(uintptr_t at)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];
	int m = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && lo < at && hi > at)
			m = 1;
	if (f)
		fclose(f);
	return m;
}

int main(int argc, char **argv)
{
	want = argc > 1 ? argv[1] : "jemalloc";
	dl_iterate_phdr(find, NULL);
	if (!bss_end)
		return 2;
	/* The first free page from there (another library may follow). */
	void **page = MAP_FAILED;
	uintptr_t at = bss_end;
	for (int k = 0; k < 4096 && page == MAP_FAILED; k++, at += 4096)
		page = mmap((void *)at, 4096, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (page == MAP_FAILED)
		return 3;
	page[1] = malloc(1111);
	printf("%s\n", (uintptr_t)page == bss_end && merged(bss_end) ? "merged" : "apart");
	return 0;
}
