/*
 * needed.c -- the shared libraries libheapprof.so needs, found on this
 * host, for heapprof attach to stage into a container (see needed.h).
 *
 * Owns nothing.  Reads the ELF files' dynamic sections (DT_NEEDED,
 * DT_RUNPATH, DT_RPATH) itself, and looks each soname up in the
 * directories the loader searches on this host: the object's run path,
 * then the multiarch and system directories.  It runs no loader (ldd
 * would run the library's loader with its environment), and never
 * follows the C library's own objects (the process has its libc and
 * loader mapped already).
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "needed.h"

static const char *const system_dirs[] = {
	"/usr/local/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu",
	"/usr/local/lib", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
};

/* The glibc objects every process heapprof attach accepts has loaded. */
static bool is_glibc_core(const char *soname)
{
	return !strcmp(soname, "libc.so.6") || !strncmp(soname, "ld-linux", 8);
}

/* The whole file, or NULL. */
static unsigned char *slurp(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	unsigned char *b = NULL;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > (off_t)sizeof(Elf64_Ehdr) &&
	    st.st_size < (1 << 30) && (b = malloc((size_t)st.st_size))) {
		if (pread(fd, b, (size_t)st.st_size, 0) != st.st_size) {
			free(b);
			b = NULL;
		}
		*len = (size_t)st.st_size;
	}
	close(fd);
	return b;
}

/* The file offset of virtual address v, through the PT_LOAD segments. */
static bool v2off(const Elf64_Phdr *ph, int n, uint64_t v, uint64_t *off)
{
	for (int i = 0; i < n; i++)
		if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr && v < ph[i].p_vaddr + ph[i].p_filesz) {
			*off = v - ph[i].p_vaddr + ph[i].p_offset;
			return true;
		}
	return false;
}

/* A string of the dynamic string table, or NULL when out of the file. */
static const char *dynstr(const unsigned char *b, size_t len, uint64_t strtab, uint64_t i)
{
	if (strtab + i >= len || !memchr(b + strtab + i, '\0', len - strtab - i))
		return NULL;
	return (const char *)b + strtab + i;
}

/* Finds soname in runpath (':'-separated, $ORIGIN being origin's) or in
 * the system directories. */
static bool locate(const char *soname, const char *runpath, const char *origin, char *out, size_t cap)
{
	char dir[PATH_MAX];
	struct stat st;

	for (const char *p = runpath; p && *p;) {
		size_t n = strcspn(p, ":");
		if (!strncmp(p, "$ORIGIN", 7) && n >= 7)
			snprintf(dir, sizeof(dir), "%s%.*s", origin, (int)(n - 7), p + 7);
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)n, p);
		if (snprintf(out, cap, "%s/%s", dir, soname) < (int)cap && stat(out, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return true;
		p += n + (p[n] == ':');
	}
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++) {
		if (snprintf(out, cap, "%s/%s", system_dirs[i], soname) < (int)cap && stat(out, &st) == 0 &&
		    S_ISREG(st.st_mode))
			return true;
	}
	return false;
}

static bool listed(const struct hp_needed *nd, const char *soname)
{
	for (int i = 0; i < nd->n; i++)
		if (!strcmp(nd->lib[i].soname, soname))
			return true;
	return false;
}

/* Adds path's needed objects, each after its own (depth first). */
static int add_deps(struct hp_needed *nd, const char *path, int depth)
{
	size_t len = 0;
	unsigned char *b = slurp(path, &len);
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;

	if (!b || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len) {
		snprintf(nd->why, sizeof(nd->why), "%s: not a 64-bit ELF object", path);
		free(b);
		return -1;
	}
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(b + eh->e_phoff);
	const Elf64_Dyn *dyn = NULL;
	size_t ndyn = 0;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_DYNAMIC && ph[i].p_offset + ph[i].p_filesz <= len) {
			dyn = (const Elf64_Dyn *)(b + ph[i].p_offset);
			ndyn = ph[i].p_filesz / sizeof(*dyn);
		}
	uint64_t strtab = 0;
	const char *runpath = NULL;
	for (size_t i = 0; dyn && i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_STRTAB && !v2off(ph, eh->e_phnum, dyn[i].d_un.d_ptr, &strtab))
			dyn = NULL;
	for (size_t i = 0; dyn && strtab && i < ndyn && dyn[i].d_tag != DT_NULL; i++)
		if (dyn[i].d_tag == DT_RUNPATH || (dyn[i].d_tag == DT_RPATH && !runpath))
			runpath = dynstr(b, len, strtab, dyn[i].d_un.d_val);
	char origin[PATH_MAX];
	snprintf(origin, sizeof(origin), "%s", path);
	*(strrchr(origin, '/') ? strrchr(origin, '/') : origin) = '\0';
	int rc = 0;
	for (size_t i = 0; dyn && strtab && i < ndyn && dyn[i].d_tag != DT_NULL && !rc; i++) {
		const char *so = dyn[i].d_tag == DT_NEEDED ? dynstr(b, len, strtab, dyn[i].d_un.d_val) : NULL;
		char found[PATH_MAX];
		if (!so || is_glibc_core(so) || listed(nd, so))
			continue;
		if (!locate(so, runpath, origin, found, sizeof(found))) {
			snprintf(nd->why, sizeof(nd->why), "%s needs %s, which is not found on this host", path, so);
			rc = -1;
		} else if (nd->n >= HP_NEEDED_MAX || depth > 16) {
			snprintf(nd->why, sizeof(nd->why), "%s: too many libraries needed", path);
			rc = -1;
		} else if ((rc = add_deps(nd, found, depth + 1)) == 0 && !listed(nd, so)) {
			snprintf(nd->lib[nd->n].soname, sizeof(nd->lib[nd->n].soname), "%s", so);
			if (!realpath(found, nd->lib[nd->n].path))
				snprintf(nd->lib[nd->n].path, sizeof(nd->lib[nd->n].path), "%s", found);
			nd->n++;
		}
	}
	free(b);
	return rc;
}

int hp_needed_list(const char *lib, struct hp_needed *nd)
{
	memset(nd, 0, sizeof(*nd));
	return add_deps(nd, lib, 0);
}
