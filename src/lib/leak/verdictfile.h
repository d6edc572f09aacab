/*
 * verdictfile.h -- the leak verdict as a file, for programs to read
 * (heapprof check does): with prof_leak and leak_check:reachable, at exit,
 * next to the dumps,
 *
 *     <prof_prefix, expanded>.<pid>.verdict
 *
 * written atomically (base/file.h) even when nothing leaked, so that its
 * presence says the process was checked.  Line-oriented text:
 *
 *     heapprof-verdict 1
 *     pid=4242
 *     program=/usr/bin/prog
 *     cmdline=prog arg1 arg2
 *     status=0
 *     direct_bytes=200 direct_objects=2 indirect_bytes=0 indirect_objects=0
 *     suppressed_bytes=0 suppressed_objects=0
 *     threads=0 threads_stopped=0
 *     suppression 3 128 libfoo.so
 *     leak direct 200 2
 *     frame 0x55d0c0a01156 /path/prog 0x1156 leak_some
 *     frame 0x55d0c0a01255 /path/prog 0x1255 main
 *     end
 *
 * program is /proc/self/exe; cmdline is /proc/self/cmdline with its NULs
 * as spaces (cut at 4 KiB); status is the exit status the program asked
 * for (before any prof_leak_error).  In these key=value lines and in the
 * function names, control bytes become '?'.  Then one line per
 * suppression that hid something, "suppression COUNT BYTES TEMPLATE"
 * (the blocks and bytes it hid, the template as written after "leak:",
 * control bytes as '?': LeakSanitizer's "Suppressions used:" rows), in
 * the order of the file.  Then one block per leak
 * report, in the report's order (direct before indirect, largest first):
 * "leak direct|indirect BYTES OBJECTS", its frames innermost first, "end".
 * A frame is its program counter (a return address but for frame 0), the
 * object that holds it, the address as that ELF file numbers it (pc minus
 * the object's load bias: what addr2line -e OBJECT takes; LeakSanitizer's
 * +offset for libraries and PIE programs), and the function its symbol
 * table names there (C++ demangled; the rest of the line), or "-".  An
 * object path escapes space, control bytes and '\' as \xHH; an address in
 * no object on disk has "-" and 0x0.
 *
 * When no verdict could be given (a sampled rate, a failed scan), the
 * lines after status= are one "error=<why>".
 *
 * Nothing here allocates through the host allocator; at exit, inside the
 * guard.
 */
#ifndef HP_VERDICTFILE_H
#define HP_VERDICTFILE_H

#pragma GCC visibility push(hidden)

#include <stdint.h>

#include "base/file.h"
#include "base/out.h"

struct hp_verdict;

/* An abstract socket name's bytes, at most (sun_path's 108 less the NUL
 * that starts it, with room to spare): heapprof check uses the same. */
#define HP_VERDICTFILE_SOCK_MAX 100

struct hp_verdictfile {
	struct hp_file f;	/* by courier: f.fd a memfd, f.tmp the socket's
				 * name, f.dst <prefix>.sock */
	struct hp_out o;
	int courier;		/* 0, or the errno that sent it by courier */
	int live;		/* a leak check of the running process's */
	char buf[4096];
};

/* Creates the file's temporary (the prefix's directory made as for
 * dumps) and writes the lines down to status=.  Returns the writer, in
 * pages of its own (not on the stack: the leak scan reads the stack of
 * the thread that exits, and stale words in a big frame there could hide
 * a leak), or NULL: prof_prefix is empty, or an error (logged). */
struct hp_verdictfile *hp_verdictfile_begin(int status);

/* The totals lines, then the leaks block by block. */
void hp_verdictfile_counts(struct hp_verdictfile *vf, const struct hp_verdict *v);
/* After the totals, before the leaks: one line for a suppression that
 * hid count blocks of bytes bytes in all. */
void hp_verdictfile_suppression(struct hp_verdictfile *vf, uint64_t count, uint64_t bytes,
				const char *templ);
void hp_verdictfile_leak(struct hp_verdictfile *vf, int direct, uint64_t bytes, uint64_t objects);
void hp_verdictfile_frame(struct hp_verdictfile *vf, uintptr_t pc, const char *object,
			  uintptr_t addr, const char *function);
void hp_verdictfile_leak_end(struct hp_verdictfile *vf);

/* Renames the file into place (or removes the temporary on a write
 * error, logged) and frees the writer.  Returns 0 or an errno value. */
int hp_verdictfile_commit(struct hp_verdictfile *vf);

/*
 * When the verdict cannot be created in its directory (EACCES, EPERM:
 * the process dropped the privileges it started with), it is written
 * into a memfd instead and the memfd sent (SCM_RIGHTS, one datagram) to
 * the abstract Unix socket named by the last HP_VERDICTFILE_SOCK_MAX
 * bytes of "<prefix>.sock": heapprof check listens there, takes the
 * sender's pid from the kernel (SCM_CREDENTIALS) and files the verdict
 * for it.  An abstract name needs no rights on any directory.  Nobody
 * listening: the verdict is lost, and logged as before.
 *
 * The registration: <prefix>.<pid>.started, written at start-up (and in
 * a fork child) while the process still has the rights it started with,
 *
 *     heapprof-started 1
 *     pid=4242
 *     program=/usr/bin/prog
 *     cmdline=prog arg1 arg2
 *
 * and removed once the verdict is in place (hp_verdictfile_commit).  A
 * process whose registration is gone at exit (heapprof check ended and
 * removed its directory while the process ran on) writes no verdict:
 * the directory is not made again where nobody would remove it.  One
 * left without a verdict beside it names a process that ran with heapprof
 * and was never given one: a signal killed it, it dropped the privileges
 * the directory needs with no heapprof check to send its verdict to (see
 * above), it exec'd a program heapprof cannot enter, or it still runs.  heapprof check fails on it (heapprof(1)).  Errors are
 * logged at log_level:debug only: the exit logs the verdict's.
 */
void hp_verdictfile_register(void);

/* A whole file that says no verdict could be given, and why. */
void hp_verdictfile_error(int status, const char *why);

/*
 * A leak check of the running process (leak/livecheck.h) writes the same
 * layout to path (beside the bell: <runtime dir>/leaks.<pid>), status=0,
 * then one line
 *
 *     live=SEQ pause_us=N attached_at=UTC blocks=0|1
 *
 * (the process's check number, how long its threads were stopped, when
 * heapprof attach brought the library in, 0: preloaded, whether the
 * leaks list their blocks), before the
 * totals; after them, one line per thread that did not stop, "unstopped
 * TID NAME" (its stack was scanned whole: a leak may be missed); and in
 * each leak, after its frames, with blocks=1, one line per block,
 * "block 0xADDR SIZE",
 * for heapprof leaks --confirm to follow blocks from check to check.
 * hp_verdictfile_commit renames it into place; nothing is registered.
 * Returns NULL after a debug line when the file cannot be created.
 */
struct hp_verdictfile *hp_verdictfile_begin_live(const char *path, uint32_t seq, uint64_t pause_us,
						 int64_t attached_at, int blocks);
void hp_verdictfile_unstopped(struct hp_verdictfile *vf, int tid, const char *name);
void hp_verdictfile_block(struct hp_verdictfile *vf, uintptr_t addr, uint64_t size);
/* Instead of the totals: no verdict, and why. */
void hp_verdictfile_error_line(struct hp_verdictfile *vf, const char *why);

#pragma GCC visibility pop

#endif
