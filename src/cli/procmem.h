/*
 * procmem.h -- another process's mapped objects, memory and dynamic
 * symbols, read through /proc/PID/maps and /proc/PID/mem, for heapprof
 * attach (cmd_attach.c, inject.c).
 *
 * Everything is read from the process itself, not from files: an object
 * in another mount namespace (a container) is read as it is mapped.  The
 * caller needs ptrace access to the process (its own user's, or
 * CAP_SYS_PTRACE).
 */
#ifndef HP_CLI_PROCMEM_H
#define HP_CLI_PROCMEM_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One object mapped in the process: the mapping of its file offset 0
 * (its ELF header), the span of its mappings, and its executable part. */
struct hp_pm_object {
	char path[PATH_MAX];
	uintptr_t head;         /* where offset 0 is mapped */
	uintptr_t lo, hi;       /* every mapping of the file, and its .bss */
	uintptr_t xlo, xhi;     /* its executable mapping */
	unsigned long inode;
};

/* The first object whose path's last component satisfies match (given
 * that component), into o.  False when none is mapped, or the maps could
 * not be read (errno). */
bool hp_pm_find(pid_t pid, bool (*match)(const char *base), struct hp_pm_object *o);

/* The object whose executable mapping holds addr. */
bool hp_pm_find_addr(pid_t pid, uintptr_t addr, struct hp_pm_object *o);

/* Copies n bytes of the process's memory at addr: true when all came. */
bool hp_pm_read(pid_t pid, uintptr_t addr, void *buf, size_t n);
/* Writes n bytes into the process's memory at addr (writable memory). */
bool hp_pm_write(pid_t pid, uintptr_t addr, const void *buf, size_t n);

/* The address of a defined function or object named name in o's dynamic
 * symbol table, read from the process's memory; 0 when there is none. */
uintptr_t hp_pm_dynsym(pid_t pid, const struct hp_pm_object *o, const char *name);

/* The first occurrence of the bytes pat in o's executable mapping; 0 when
 * there is none. */
uintptr_t hp_pm_search_text(pid_t pid, const struct hp_pm_object *o, const void *pat, size_t n);

/* The ELF class of the process's executable (/proc/PID/exe): 32 or 64, 0
 * when unreadable; *dynamic says whether it asks for a dynamic loader
 * (PT_INTERP). */
int hp_pm_exe_class(pid_t pid, bool *dynamic);

#endif
