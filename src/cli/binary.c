/*
 * binary.c -- whether LD_PRELOAD can enter a program (see binary.h).
 *
 * Owns nothing.  Finds the file execvp(3) would run, follows a script's
 * #! line to its interpreter (through env(1) too), and reads the ELF
 * program headers: no PT_INTERP is a statically linked program, which no
 * dynamic loader runs; a set-user-ID or set-group-ID file (on a mount
 * that honours the bits), or one with file capabilities, runs in secure
 * mode, where the loader ignores a preload given by path.  Only cheap
 * checks: a program it cannot read or judge is taken to be fine.  Also
 * whether a program is Python (its name, or libpython in its DT_NEEDED),
 * for heapprof run's line on pymalloc.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "binary.h"

/* What execvp would run for name: name itself when it has a slash, else
 * the first executable regular file in PATH.  0 when found. */
static int resolve(const char *name, char *out, size_t cap)
{
	struct stat st;

	if (strchr(name, '/')) {
		snprintf(out, cap, "%s", name);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/bin:/usr/bin";
	for (const char *p = path;; ) {
		const char *end = strchrnul(p, ':');
		int len = (int)(end - p);
		snprintf(out, cap, "%.*s%s%s", len, p, len ? "/" : "", name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0)
			return 0;
		if (!*end)
			return -1;
		p = end + 1;
	}
}

/* 1: an ELF file without PT_INTERP; 0: dynamic, or not ELF, or unknown. */
static int elf_static(int fd)
{
	unsigned char ident[EI_NIDENT];

	if (pread(fd, ident, sizeof(ident), 0) != (ssize_t)sizeof(ident) ||
	    memcmp(ident, ELFMAG, SELFMAG) != 0)
		return 0;
	int is64 = ident[EI_CLASS] == ELFCLASS64;
	uint64_t phoff;
	unsigned phnum, phentsize;
	uint16_t type;
	if (is64) {
		Elf64_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			return 0;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize, type = eh.e_type;
	} else if (ident[EI_CLASS] == ELFCLASS32) {
		Elf32_Ehdr eh;
		if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh))
			return 0;
		phoff = eh.e_phoff, phnum = eh.e_phnum, phentsize = eh.e_phentsize, type = eh.e_type;
	} else {
		return 0;
	}
	/* Another byte order or a core file: not ours to judge. */
	if ((type != ET_EXEC && type != ET_DYN) || !phnum || phnum > 4096 ||
	    phentsize != (is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)))
		return 0;
	for (unsigned i = 0; i < phnum; i++) {
		uint32_t pt;
		/* p_type is the first field in both classes. */
		if (pread(fd, &pt, sizeof(pt), (off_t)(phoff + (uint64_t)i * phentsize)) != (ssize_t)sizeof(pt))
			return 0;
		if (pt == PT_INTERP)
			return 0;
	}
	return 1;
}

/* Why the loader ignores LD_PRELOAD for the file at path, or NULL. */
static const char *secure_exec(int fd, const char *path, const struct stat *st)
{
	struct statvfs vfs;

	if (fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_NOSUID))
		return NULL;
	if ((st->st_mode & S_ISUID) && st->st_uid != getuid())
		return "set-user-ID";
	if ((st->st_mode & S_ISGID) && (st->st_mode & S_IXGRP) && st->st_gid != getgid())
		return "set-group-ID";
	if (getuid() != 0 && getxattr(path, "security.capability", NULL, 0) > 0)
		return "given file capabilities";
	return NULL;
}

/* The interpreter of a "#!" script (through env), into out.  0 if found. */
static int interpreter(int fd, char *out, size_t cap)
{
	char line[256];
	ssize_t n = pread(fd, line, sizeof(line) - 1, 0);

	if (n < 3 || line[0] != '#' || line[1] != '!')
		return -1;
	line[n] = '\0';
	line[strcspn(line, "\n")] = '\0';
	char *save = NULL, *prog = strtok_r(line + 2, " \t", &save);
	if (!prog)
		return -1;
	const char *slash = strrchr(prog, '/');
	if (!strcmp(slash ? slash + 1 : prog, "env")) {
		/* #!/usr/bin/env [-S] [NAME=VALUE]... PROGRAM */
		char *a;
		while ((a = strtok_r(NULL, " \t", &save)) && (a[0] == '-' || strchr(a, '=')))
			;
		if (!a)
			return -1;
		return resolve(a, out, cap);
	}
	snprintf(out, cap, "%s", prog);
	return 0;
}

/*
 * The program cmd (found through PATH as execvp finds it; a #! script's
 * interpreter, through env(1) too) cannot be entered by LD_PRELOAD:
 * returns HP_BINARY_STATIC or HP_BINARY_SECURE with why set to "cmd is
 * statically linked" or "cmd runs /path, which is set-user-ID"; 0 when it
 * can, or when cmd cannot be read or judged (why untouched).
 */
int hp_binary_unpreloadable(const char *cmd, char *why, size_t cap)
{
	char path[PATH_MAX], next[PATH_MAX];
	const char *shown = cmd;

	if (resolve(cmd, path, sizeof(path)))
		return 0;
	/* A script's interpreter may be a script too; the kernel allows a few. */
	for (int depth = 0; depth < 4; depth++) {
		struct stat st;
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
			if (fd >= 0)
				close(fd);
			return 0;
		}
		const char *secure = secure_exec(fd, path, &st);
		const char *what = secure ? secure : elf_static(fd) ? "statically linked" : NULL;
		int more = !what && interpreter(fd, next, sizeof(next)) == 0;
		close(fd);
		if (what) {
			if (shown == cmd && depth == 0)
				snprintf(why, cap, "%s is %s", cmd, what);
			else
				snprintf(why, cap, "%s runs %s, which is %s", cmd, path, what);
			return secure ? HP_BINARY_SECURE : HP_BINARY_STATIC;
		}
		if (!more)
			return 0;
		snprintf(path, sizeof(path), "%s", next);
		shown = path;
	}
	return 0;
}

/* Whether name is a Python interpreter's: "python" then a version made of
 * digits and dots, maybe a debug build's "d" or "-dbg". */
static int python_name(const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;

	if (strncmp(base, "python", 6))
		return 0;
	const char *rest = base + 6 + strspn(base + 6, "0123456789.");
	return !*rest || !strcmp(rest, "d") || !strcmp(rest, "-dbg");
}

/* Reads the n bytes at off, 0 when all of them came. */
static int read_at(int fd, void *buf, size_t n, uint64_t off)
{
	return pread(fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

/* 1 when the 64-bit ELF file fd names a library starting with prefix in
 * its DT_NEEDED entries; 0 otherwise (another class, unreadable). */
static int elf_needs(int fd, const char *prefix)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph, load[16], dyn = { 0 };
	unsigned nload = 0;

	if (read_at(fd, &eh, sizeof(eh), 0) || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(ph) || eh.e_phnum > 4096)
		return 0;
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (read_at(fd, &ph, sizeof(ph), eh.e_phoff + (uint64_t)i * sizeof(ph)))
			return 0;
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph;
		else if (ph.p_type == PT_LOAD && nload < 16)
			load[nload++] = ph;
	}
	size_t n = dyn.p_filesz / sizeof(Elf64_Dyn);
	if (!n || n > 4096)
		return 0;
	Elf64_Dyn *d = calloc(n, sizeof(*d));
	uint64_t strtab = 0, stroff = 0;
	int found = 0;
	if (!d || read_at(fd, d, n * sizeof(*d), dyn.p_offset)) {
		free(d);
		return 0;
	}
	for (size_t i = 0; i < n && d[i].d_tag != DT_NULL; i++)
		if (d[i].d_tag == DT_STRTAB)
			strtab = d[i].d_un.d_ptr;
	/* The string table's address, as a file offset. */
	for (unsigned i = 0; i < nload && !stroff; i++)
		if (strtab >= load[i].p_vaddr && strtab < load[i].p_vaddr + load[i].p_filesz)
			stroff = strtab - load[i].p_vaddr + load[i].p_offset;
	for (size_t i = 0; stroff && i < n && d[i].d_tag != DT_NULL && !found; i++) {
		char name[64] = { 0 };
		if (d[i].d_tag == DT_NEEDED &&
		    pread(fd, name, sizeof(name) - 1, (off_t)(stroff + d[i].d_un.d_val)) > 0)
			found = !strncmp(name, prefix, strlen(prefix));
	}
	free(d);
	return found;
}

int hp_binary_python(const char *cmd)
{
	char path[PATH_MAX], next[PATH_MAX];

	if (resolve(cmd, path, sizeof(path)))
		return 0;
	for (int depth = 0; depth < 4; depth++) {
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return 0;
		int yes = python_name(path) || elf_needs(fd, "libpython");
		int more = !yes && interpreter(fd, next, sizeof(next)) == 0;
		close(fd);
		if (yes || !more)
			return yes;
		snprintf(path, sizeof(path), "%s", next);
	}
	return 0;
}

void hp_binary_warn(const char *who, const char *cmd, const char *consequence)
{
	char why[2 * PATH_MAX + 64];
	int kind = hp_binary_unpreloadable(cmd, why, sizeof(why));

	if (kind == HP_BINARY_STATIC)
		fprintf(stderr, "heapprof %s: %s: LD_PRELOAD cannot enter it; %s\n", who, why, consequence);
	else if (kind == HP_BINARY_SECURE)
		fprintf(stderr, "heapprof %s: %s: the dynamic loader ignores LD_PRELOAD for it; %s\n", who,
			why, consequence);
}
