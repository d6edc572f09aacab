/*
 * check.h -- what heapprof check reports: the verdict files the library
 * leaves at exit (src/lib/leak/verdictfile.h has their layout), read,
 * symbolized with libdw (file:line, inlined functions, demangled names)
 * and rendered as text, JSON or JUnit XML.
 *
 * An ordinary program: stdio and malloc; a failure to write an output
 * file is fatal (util.h).
 */
#ifndef HP_REPORT_CHECK_H
#define HP_REPORT_CHECK_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "buf.h"
#include "strtab.h"

/* One frame as shown: a function inlined at a program counter has a
 * frame of its own, before the function it was inlined into. */
struct hp_check_frame {
	uint64_t pc;
	const char *module;	/* interned; NULL: in no object on disk */
	uint64_t addr;		/* in the module, as its ELF file numbers it */
	const char *function;	/* demangled; NULL when unknown */
	const char *file;	/* NULL when unknown */
	int line;		/* 0 when unknown */
	int inlined;		/* inlined into the next frame */
};

/* A leaked block, in a leak check of a running process's verdict. */
struct hp_check_block {
	uint64_t addr, size;
};

struct hp_check_leak {
	int direct;
	uint64_t bytes, objects;
	struct hp_check_frame *frames;
	size_t nframes, cap;
	struct hp_check_block *blocks;	/* live verdicts only: its blocks */
	size_t nblocks, blocks_cap;
};

/* A thread that did not stop for a live check's scan. */
struct hp_check_thread {
	long tid;
	const char *name;	/* interned */
};

/* A suppression that hid something: LeakSanitizer's "Suppressions
 * used:" row. */
struct hp_check_supp {
	uint64_t count, bytes;
	const char *templ;	/* interned */
};

/* A budget a process went over (heapprof check --max-peak and the like). */
struct hp_check_over {
	const char *option;	/* "--max-peak", "--max-allocs", "--max-live-at-exit" */
	const char *rule;	/* as typed: "10M" or "prog*=10M" */
	uint64_t limit, value;
	int bytes;		/* limit and value are bytes, not a count */
	char *stacks;		/* the stacks that hold most of it, lines of text */
};

/* One process's verdict. */
struct hp_check_proc {
	const char *path;	/* of its verdict file */
	struct timespec written;
	long pid;
	const char *program;	/* its executable's path */
	const char *name;	/* the last component of program */
	const char *cmdline;
	int status;		/* the exit status it asked for */
	const char *error;	/* no verdict: why; else NULL */
	int sampled_lg;		/* 0, or the counts are estimates at this rate */
	int gate;		/* leak_gate as configured: 1 on, -1 off, 0 not set */
	uint64_t sampled_blocks;
	uint64_t direct_bytes, direct_objects;
	uint64_t indirect_bytes, indirect_objects;
	uint64_t suppressed_bytes, suppressed_objects;
	unsigned threads, threads_stopped;
	struct hp_check_leak *leaks;
	size_t nleaks, cap;
	struct hp_check_supp *supps;	/* the library's, in the file's order */
	size_t nsupps, supps_cap;
	/* A leak check of the running process (heapprof leaks): live is its
	 * number in the process, 0 for a verdict at exit. */
	unsigned live;
	int live_blocks;	/* its leaks list their blocks */
	uint64_t pause_us;	/* how long its threads were stopped */
	int64_t attached_at;	/* heapprof attach's UTC seconds, 0: preloaded */
	struct hp_check_thread *unstopped;
	size_t nunstopped, unstopped_cap;
	/* heapprof leaks --confirm: the leaks kept are those whose blocks
	 * were unreachable in each of confirm_checks checks. */
	unsigned confirm_checks;
	double confirm_interval;
	uint64_t unconfirmed_blocks;	/* left out: reached in some check */
	/* Budgets: the figures of its final dump (exact), and what went over. */
	int measured;		/* a budget applied and its figures are below */
	const char *unmeasured;	/* a budget applied, no figures: why (fails) */
	uint64_t peak_bytes, allocations, live_bytes;
	struct hp_check_over *over;
	size_t nover;
	int counted;		/* its leaks decide heapprof check's status */
	int missing;		/* it registered and left no verdict: error says why */
};

/* Bounds against a broken file: one is rejected past them. */
#define HP_CHECK_FILE_MAX (64u << 20)
#define HP_CHECK_LEAKS_MAX (1u << 20)
#define HP_CHECK_BLOCKS_MAX (1u << 26)   /* in one leak */

/*
 * Reads the verdict file at path into *p (zeroed by the caller), or a
 * registration (<prefix>.<pid>.started: the lines down to cmdline=, and
 * p->missing set; the caller says why in p->error),
 * interning strings in strs (cleaned: no control characters, valid
 * UTF-8).  Frames are as the file has them: one per program counter,
 * named from the symbol table.  Returns NULL, or what is wrong with the
 * file ("line 3: expected pid=").
 */
const char *hp_check_read(const char *path, struct hp_check_proc *p, struct hp_strtab *strs);

/* Frees what p holds (its leaks' frames and blocks, suppressions, threads
 * that did not stop, budgets gone over) and zeroes it; strings stay in
 * their table. */
void hp_check_release(struct hp_check_proc *p);

/*
 * Replaces the frames of every leak of the n processes (the counted ones
 * only, unless all) with libdw's: file and line, inlined functions as
 * frames of their own, C++ names demangled.  A frame whose object is
 * gone, or was modified after the process wrote its verdict, keeps the
 * file's name (with a note on stderr, once per object).  debug_dirs as
 * for hp_symbolize_new.
 */
void hp_check_symbolize(struct hp_check_proc *procs, size_t n, int all, struct hp_strtab *strs,
			const char *const *debug_dirs, size_t ndirs);

/* The bytes and allocations p leaked (direct and indirect). */
uint64_t hp_check_bytes(const struct hp_check_proc *p);
uint64_t hp_check_objects(const struct hp_check_proc *p);

/*
 * The report of one leaking process, as heapprof check prints it:
 *
 *     heapprof check: /path/prog (pid 4242): prog arg1
 *     Direct leak of 48 byte(s) in 1 object(s) allocated from:
 *         #0 0x55d0c0a01156 in make_node /src/list.c:12
 *         #1 0x55d0c0a01200 in main /src/list.c:30
 *
 *     SUMMARY: heapprof: 48 byte(s) leaked in 1 allocation(s).
 *
 * appended to b.  Frames without a line show "(module+0xaddr)", as
 * LeakSanitizer does.
 */
void hp_check_text(struct hp_buf *b, const struct hp_check_proc *p);

/* What heapprof check ran and decided, for the JSON and JUnit outputs. */
struct hp_check_run {
	char *const *argv;	/* the command, NULL-terminated */
	int status;		/* the command's exit status (128 + signal) */
	int exit_status;	/* heapprof check's */
	const struct hp_check_proc *procs;
	size_t nprocs;
	int allow_missing;	/* --allow-missing: a missing verdict fails nothing */
};

/* heapprof leaks: the report of a live check's verdict (a header naming
 * the process and the check, the leaks as hp_check_text gives them, the
 * threads that did not stop), or "no leaks"; and its JSON object. */
void hp_check_leaks_text(struct hp_buf *b, const struct hp_check_proc *p);
void hp_check_leaks_json(struct hp_buf *b, const struct hp_check_proc *p);

/* The JSON document (schema in heapprof(1)) and the JUnit XML file (one
 * test case per counted process), appended to b. */
void hp_check_json(struct hp_buf *b, const struct hp_check_run *run);
void hp_check_junit(struct hp_buf *b, const struct hp_check_run *run);

#endif
