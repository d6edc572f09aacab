/*
 * srcline.h -- source files, lines and inlined functions for the leak
 * report the library prints at exit (prof_leak_error, leak_check), from
 * the objects' DWARF debugging information: what heapprof check and
 * heapprof report give, in the process.
 *
 * libdw (elfutils) is loaded with dlopen(3) when a session opens, at exit
 * and only when there is a report to print: it is no dependency of the
 * library, costs nothing to a process that does not leak, and where it is
 * not installed the report keeps the symbol tables' names alone.  libdw
 * allocates; a session is used inside the guard, where the interposed
 * malloc forwards to the next allocator without recording anything, and
 * never in malloc.  Not thread-safe.
 */
#ifndef HP_SRCLINE_H
#define HP_SRCLINE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* At most this many frames for one address: the function it is in and
 * the functions inlined into it down to the address. */
#define HP_SRCLINE_INLINE_MAX 16

struct hp_srcline_frame {
	const char *function;	/* NULL: DWARF names none */
	const char *file;	/* absolute when the object recorded its directory */
	int line;		/* 0: not known */
};

struct hp_srcline;

/* A session, or NULL (libdw cannot be loaded, no memory). */
struct hp_srcline *hp_srcline_open(void);

/*
 * The frames at addr in the ELF file object (addr as that file numbers
 * it: a caller frame's return address minus one), innermost first: the
 * functions inlined there, then the function that holds them, each with
 * the file and line it is at (an outer frame's: where the inner one was
 * inlined).  Returns how many (at most max), 0 without line information.
 * The strings live until the next lookup or hp_srcline_close.
 */
size_t hp_srcline_lookup(struct hp_srcline *s, const char *object, uintptr_t addr,
			 struct hp_srcline_frame *out, size_t max);

void hp_srcline_close(struct hp_srcline *s);

#pragma GCC visibility pop

#endif
