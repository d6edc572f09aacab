/*
 * procmem.c -- another process's objects, memory and dynamic symbols
 * (see procmem.h).
 *
 * Owns nothing across calls.  An ordinary part of the command (stdio and
 * malloc are fine); it never writes to a process's memory except through
 * hp_pm_write, which heapprof attach uses only below a stopped thread's
 * stack pointer.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procmem.h"

/* ---- maps ----------------------------------------------------------- */

struct maps_line {
	uintptr_t lo, hi, off;
	char perms[8];
	unsigned long inode;
	char path[PATH_MAX];
};

static bool parse_line(const char *line, struct maps_line *m)
{
	unsigned long lo, hi, off, inode;
	int n = 0;

	m->path[0] = '\0';
	if (sscanf(line, "%lx-%lx %7s %lx %*s %lu %n", &lo, &hi, m->perms, &off, &inode, &n) < 5)
		return false;
	m->lo = lo;
	m->hi = hi;
	m->off = off;
	m->inode = inode;
	if (n > 0) {
		size_t len = strcspn(line + n, "\n");
		if (len >= sizeof(m->path))
			len = sizeof(m->path) - 1;
		memcpy(m->path, line + n, len);
		m->path[len] = '\0';
	}
	return true;
}

static const char *base_of(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* Collects every mapping of the file of the first line accepted by pick. */
static bool find_by(pid_t pid, bool (*pick)(const struct maps_line *, const void *), const void *arg,
		    struct hp_pm_object *o)
{
	char fn[64], line[PATH_MAX + 128];
	struct maps_line m;
	bool found = false;

	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return false;
	memset(o, 0, sizeof(*o));
	/* The first pass names the file; the second takes all its mappings. */
	while (fgets(line, sizeof(line), f))
		if (parse_line(line, &m) && m.path[0] == '/' && pick(&m, arg)) {
			snprintf(o->path, sizeof(o->path), "%s", m.path);
			o->inode = m.inode;
			found = true;
			break;
		}
	if (found) {
		rewind(f);
		o->lo = UINTPTR_MAX;
		while (fgets(line, sizeof(line), f)) {
			if (!parse_line(line, &m))
				continue;
			/* The anonymous mapping right after the file's last
			 * one is its .bss (glibc's locks are there). */
			if (o->hi && m.lo == o->hi && !m.inode && !m.path[0]) {
				o->hi = m.hi;
				continue;
			}
			if (m.inode != o->inode || strcmp(m.path, o->path))
				continue;
			if (m.lo < o->lo)
				o->lo = m.lo;
			if (m.hi > o->hi)
				o->hi = m.hi;
			if (m.off == 0 && !o->head)
				o->head = m.lo;
			if (strchr(m.perms, 'x') && !o->xlo) {
				o->xlo = m.lo;
				o->xhi = m.hi;
			}
		}
		found = o->head != 0;
	}
	fclose(f);
	errno = found ? 0 : errno;
	return found;
}

static bool pick_name(const struct maps_line *m, const void *arg)
{
	bool (*match)(const char *) = (bool (*)(const char *))arg;
	return match(base_of(m->path));
}

bool hp_pm_find(pid_t pid, bool (*match)(const char *base), struct hp_pm_object *o)
{
	errno = 0;
	return find_by(pid, pick_name, (const void *)match, o);
}

static bool pick_addr(const struct maps_line *m, const void *arg)
{
	uintptr_t a = *(const uintptr_t *)arg;
	return a >= m->lo && a < m->hi && strchr(m->perms, 'x');
}

bool hp_pm_find_addr(pid_t pid, uintptr_t addr, struct hp_pm_object *o)
{
	return find_by(pid, pick_addr, &addr, o);
}

/* ---- memory --------------------------------------------------------- */

static int mem_fd(pid_t pid, int flags)
{
	char fn[64];

	snprintf(fn, sizeof(fn), "/proc/%d/mem", (int)pid);
	return open(fn, flags | O_CLOEXEC);
}

bool hp_pm_read(pid_t pid, uintptr_t addr, void *buf, size_t n)
{
	int fd = mem_fd(pid, O_RDONLY);
	if (fd < 0)
		return false;
	ssize_t got = pread(fd, buf, n, (off_t)addr);
	int err = errno;
	close(fd);
	errno = err;
	return got == (ssize_t)n;
}

bool hp_pm_write(pid_t pid, uintptr_t addr, const void *buf, size_t n)
{
	int fd = mem_fd(pid, O_WRONLY);
	if (fd < 0)
		return false;
	ssize_t put = pwrite(fd, buf, n, (off_t)addr);
	int err = errno;
	close(fd);
	errno = err;
	return put == (ssize_t)n;
}

/* ---- dynamic symbols ------------------------------------------------ */

struct dyn {
	uintptr_t bias;                 /* load bias: vaddr 0 is here */
	uintptr_t symtab, strtab, gnuhash, hash;
	size_t strsz;
};

/* Reads the object's ELF header and program headers from its first
 * mapping, then its dynamic section. */
static bool read_dyn(pid_t pid, const struct hp_pm_object *o, struct dyn *d)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph[64];
	uintptr_t dynaddr = 0, first_load = UINTPTR_MAX;

	memset(d, 0, sizeof(*d));
	if (!hp_pm_read(pid, o->head, &eh, sizeof(eh)) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phnum > 64 || eh.e_phentsize != sizeof(Elf64_Phdr))
		return false;
	if (!hp_pm_read(pid, o->head + eh.e_phoff, ph, eh.e_phnum * sizeof(Elf64_Phdr)))
		return false;
	for (int i = 0; i < eh.e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && ph[i].p_offset == 0 && ph[i].p_vaddr < first_load)
			first_load = ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dynaddr = ph[i].p_vaddr;
	}
	if (first_load == UINTPTR_MAX || !dynaddr)
		return false;
	d->bias = o->head - (first_load & ~(uintptr_t)4095);
	Elf64_Dyn dyn[256];
	if (!hp_pm_read(pid, d->bias + dynaddr, dyn, sizeof(dyn)))
		return false;
	for (size_t i = 0; i < 256 && dyn[i].d_tag != DT_NULL; i++) {
		uintptr_t v = dyn[i].d_un.d_ptr;
		/* glibc relocates these in place on most architectures; not
		 * all (RISC-V, MIPS keep them read-only). */
		if (dyn[i].d_tag != DT_STRSZ && v < d->bias)
			v += d->bias;
		switch (dyn[i].d_tag) {
		case DT_SYMTAB: d->symtab = v; break;
		case DT_STRTAB: d->strtab = v; break;
		case DT_GNU_HASH: d->gnuhash = v; break;
		case DT_HASH: d->hash = v; break;
		case DT_STRSZ: d->strsz = dyn[i].d_un.d_val; break;
		}
	}
	return d->symtab && d->strtab && (d->gnuhash || d->hash);
}

static bool sym_is(pid_t pid, const struct dyn *d, size_t idx, const char *name, Elf64_Sym *s)
{
	char buf[128];
	size_t n = strlen(name) + 1;

	if (n > sizeof(buf) || !hp_pm_read(pid, d->symtab + idx * sizeof(*s), s, sizeof(*s)))
		return false;
	if (s->st_name + n > d->strsz || !hp_pm_read(pid, d->strtab + s->st_name, buf, n))
		return false;
	return !memcmp(buf, name, n) && s->st_shndx != SHN_UNDEF &&
	       (ELF64_ST_TYPE(s->st_info) == STT_FUNC || ELF64_ST_TYPE(s->st_info) == STT_OBJECT) &&
	       ELF64_ST_BIND(s->st_info) != STB_LOCAL;
}

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;

	for (; *s; s++)
		h = h * 33 + (unsigned char)*s;
	return h;
}

static uintptr_t lookup_gnu(pid_t pid, const struct dyn *d, const char *name)
{
	uint32_t hdr[4], h = gnu_hash(name), idx, ch;
	Elf64_Sym s;

	if (!hp_pm_read(pid, d->gnuhash, hdr, sizeof(hdr)) || !hdr[0])
		return 0;
	uintptr_t buckets = d->gnuhash + 16 + (uintptr_t)hdr[2] * 8;
	uintptr_t chains = buckets + (uintptr_t)hdr[0] * 4;
	if (!hp_pm_read(pid, buckets + (h % hdr[0]) * 4, &idx, 4) || idx < hdr[1])
		return 0;
	for (int guard = 0; guard < 100000; guard++, idx++) {
		if (!hp_pm_read(pid, chains + (uintptr_t)(idx - hdr[1]) * 4, &ch, 4))
			return 0;
		if ((ch | 1) == (h | 1) && sym_is(pid, d, idx, name, &s))
			return d->bias + s.st_value;
		if (ch & 1)
			break;
	}
	return 0;
}

static uintptr_t lookup_sysv(pid_t pid, const struct dyn *d, const char *name)
{
	uint32_t nchain;
	Elf64_Sym s;

	if (!hp_pm_read(pid, d->hash + 4, &nchain, 4))
		return 0;
	for (uint32_t i = 1; i < nchain && i < 1000000; i++)
		if (sym_is(pid, d, i, name, &s))
			return d->bias + s.st_value;
	return 0;
}

uintptr_t hp_pm_dynsym(pid_t pid, const struct hp_pm_object *o, const char *name)
{
	struct dyn d;

	if (!read_dyn(pid, o, &d))
		return 0;
	return d.gnuhash ? lookup_gnu(pid, &d, name) : lookup_sysv(pid, &d, name);
}

uintptr_t hp_pm_search_text(pid_t pid, const struct hp_pm_object *o, const void *pat, size_t n)
{
	size_t len = o->xhi - o->xlo;
	unsigned char *buf;
	uintptr_t hit = 0;

	if (!o->xlo || len < n || len > (256u << 20) || !(buf = malloc(len)))
		return 0;
	if (hp_pm_read(pid, o->xlo, buf, len)) {
		unsigned char *p = memmem(buf, len, pat, n);
		if (p)
			hit = o->xlo + (uintptr_t)(p - buf);
	}
	free(buf);
	return hit;
}

int hp_pm_exe_class(pid_t pid, bool *dynamic)
{
	char fn[64];
	Elf64_Ehdr eh;
	int cls = 0;

	*dynamic = false;
	snprintf(fn, sizeof(fn), "/proc/%d/exe", (int)pid);
	int fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &eh, sizeof(eh), 0) >= (ssize_t)sizeof(Elf32_Ehdr) && !memcmp(eh.e_ident, ELFMAG, SELFMAG)) {
		if (eh.e_ident[EI_CLASS] == ELFCLASS32) {
			Elf32_Ehdr *e32 = (Elf32_Ehdr *)&eh;
			cls = 32;
			for (int i = 0; i < e32->e_phnum && i < 64; i++) {
				Elf32_Phdr ph;
				if (pread(fd, &ph, sizeof(ph), e32->e_phoff + (off_t)i * sizeof(ph)) == sizeof(ph) &&
				    ph.p_type == PT_INTERP)
					*dynamic = true;
			}
		} else if (eh.e_ident[EI_CLASS] == ELFCLASS64) {
			cls = 64;
			for (int i = 0; i < eh.e_phnum && i < 64; i++) {
				Elf64_Phdr ph;
				if (pread(fd, &ph, sizeof(ph), eh.e_phoff + (off_t)i * sizeof(ph)) == sizeof(ph) &&
				    ph.p_type == PT_INTERP)
					*dynamic = true;
			}
		}
	}
	close(fd);
	return cls;
}
