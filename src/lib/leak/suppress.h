/*
 * suppress.h -- leak suppressions in LeakSanitizer's format: parsing them,
 * matching a leak's stack frames against them, and the "Suppressions
 * used:" report.
 *
 * A suppression file holds one rule per line:
 *
 *     # comments start with '#'; blank lines are ignored
 *     leak:libfoo.so             the module's path contains "libfoo.so"
 *     leak:cache_init            a function or source file contains it
 *     leak:^ns::Foo::make*$      ...
 *
 * Each line is trimmed of blanks (space, tab, CR, VT, FF) at both ends.
 * The only type is "leak", written exactly so, followed by ':' and a
 * template: the rest of the line, blanks included ("leak: foo" looks for
 * " foo", as in LeakSanitizer).  Templates match as LeakSanitizer's
 * TemplateMatch does: a template with neither '*' nor '$' is searched as
 * a substring of the subject; '*' matches any run of characters (none
 * included); a leading '^' anchors the template at the start of the
 * subject; a '$' anchors at the end.  Each piece between wildcards is
 * taken at its first occurrence, without backtracking, and a '$' ends the
 * template wherever it stands: "foo$" does not match "foofoo", "a$b" means
 * "a$".  There is no escape; '^' after the start is itself.  An empty
 * subject (an unknown function or file) matches nothing.
 *
 * Where heapprof differs from LeakSanitizer, on purpose: a bad line
 * (another type, no ':', a NUL byte, an empty template or one of anchors
 * only: "^", "$", "^$") is one warning, "<heapprof>: FILE:LINE: not a
 * suppression: 'TEXT' (expected leak:PATTERN)", and is skipped, so that
 * the gate still reports what it would have hidden; LeakSanitizer dies on
 * a bad type, takes "leak:" and "leak:^" as matching every leak and
 * "leak:$" as matching none ("leak:*" matches every leak here too).
 *
 * A leak is suppressed when any frame of its allocation stack, innermost
 * first, matches a rule by its module (the full path of the executable or
 * shared object: "leak:libfoo.so" and "leak:^/usr/lib/libfoo.so$" both
 * work; "<unknown module>" when it is not known, as in LeakSanitizer),
 * its function name (C++ names demangled, with their parameters:
 * "ns::Foo::make(int)") or its source file.  In the library
 * (leak/verdict.c) frames have the symbol tables' function names and no
 * source file: inlined functions' names and source files are matched by
 * heapprof check (src/report/supfile.c, after it has symbolized the
 * verdicts with DWARF), where the grammar here is written again; change
 * both together.
 *
 * Memory for rules comes from base/pages.h and is owned by the set; the
 * templates are copied, so the text parsed can go as soon as
 * hp_suppress_parse returns.  Nothing here allocates from the host,
 * uses stdio or takes a lock.
 *
 * Threads: building a set (init, parse, read_file, add_builtin, release)
 * is for one thread, before anyone matches against it.  Matching reads
 * only, and is async-signal-safe; hp_suppress_hit adds with relaxed
 * atomics, so threads may match and count at the same time.
 */
#ifndef HP_SUPPRESS_H
#define HP_SUPPRESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/log.h"

#pragma GCC visibility push(hidden)

struct hp_suppress_text;

/* Files larger than this are refused (hp_suppress_read_file). */
#define HP_SUPPRESS_MAX_FILE (1u << 20)
/* Bad lines reported per source; past it, one line says the rest were
 * not shown.  All are skipped and counted in nbad. */
#define HP_SUPPRESS_MAX_COMPLAINTS 20
/* What a frame whose module is unknown is matched as. */
#define HP_SUPPRESS_UNKNOWN_MODULE "<unknown module>"

/* One rule.  Read-only for callers, except through hp_suppress_hit. */
struct hp_suppress_rule {
	const char *templ;     /* as written after "leak:", NUL-terminated */
	const char *origin;    /* the source's name given to hp_suppress_parse */
	unsigned line;         /* 1-based line of the rule in its source */
	uint64_t hits;         /* leaked blocks it suppressed */
	uint64_t bytes;        /* and their bytes */
	uint32_t len;          /* strlen(templ), for matching */
};

/* A set of rules from any number of sources, in the order added.  All
 * zeros is a valid empty set (hp_suppress_init makes one). */
struct hp_suppress {
	struct hp_suppress_rule *rules;   /* [nrules] */
	size_t nrules;
	size_t nbad;                      /* lines skipped as not a suppression */
	bool quiet;                       /* skip them without a warning */
	/* Private: capacity of rules, and the text of each source. */
	size_t cap;
	struct hp_suppress_text *texts;
};

/* One frame of a stack, as matched.  Any field may be NULL (unknown). */
struct hp_suppress_frame {
	const char *module;    /* path of the executable or shared object */
	const char *function;  /* symbol name, demangled or not */
	const char *file;      /* source file */
};

/* Makes set empty.  Call before first use (or zero-initialise). */
void hp_suppress_init(struct hp_suppress *set);

/* Unmaps everything set holds, hit counts included, and makes it empty. */
void hp_suppress_release(struct hp_suppress *set);

/* Adds the rules in text[0 .. len) (newline-separated, need not be
 * NUL-terminated) after those already in set.  origin names the source in
 * messages and in each rule ("profiler.supp", "<built-in>"); it is copied.
 * Bad lines, and lines containing a NUL byte, are skipped with one
 * warning each, which shows a NUL byte as \0 and other control bytes
 * but tab as \xHH (HP_SUPPRESS_MAX_COMPLAINTS at most per call; none when
 * set->quiet) and counted in set->nbad.  Returns 0, or ENOMEM when pages cannot be mapped (one
 * error line; set is unchanged).  Pointers into set->rules taken before
 * the call are invalid after it. */
int hp_suppress_parse(struct hp_suppress *set, const char *origin, const char *text, size_t len);

/* Reads the file at path with read(2) and adds its rules as
 * hp_suppress_parse does, with path as their origin.  The file must be a
 * regular file of at most HP_SUPPRESS_MAX_FILE bytes; it is opened
 * non-blocking, so a FIFO named by mistake is refused rather than waited
 * on.  Every failure is one warning naming path, and adds nothing.
 * Returns 0; the errno of open, fstat or read; EINVAL for a file that is
 * not regular; EFBIG for one too large; ENOMEM. */
int hp_suppress_read_file(struct hp_suppress *set, const char *path);

/* The hook for heapprof's own suppressions of the C and C++ runtimes'
 * one-time and cache allocations, added after the user's.  Adds NOTHING
 * yet: the list is empty until each entry can be justified.  Returns 0
 * (or, once it adds rules, what hp_suppress_parse returns). */
int hp_suppress_add_builtin(struct hp_suppress *set);

/* Whether templ matches subject, by the rules at the top of this file.
 * NULL or "" as subject never matches. */
bool hp_suppress_template_match(const char *templ, const char *subject);

/* The first rule that matches one frame: the module is tried against
 * every rule, then the function, then the file (LeakSanitizer's order);
 * within a subject, rules in the order they were added.  A NULL module is
 * matched as HP_SUPPRESS_UNKNOWN_MODULE; a NULL function or file matches
 * nothing.  Returns the rule's index in set->rules, or -1. */
int hp_suppress_match(const struct hp_suppress *set, const char *module, const char *function,
		      const char *file);

/* The first rule that matches any of n frames, frames[0] (the innermost,
 * the allocation site) first, as hp_suppress_match.  Returns its index,
 * or -1 when the stack is not suppressed. */
int hp_suppress_match_stack(const struct hp_suppress *set, const struct hp_suppress_frame *frames,
			    size_t n);

/* Counts count leaked blocks of bytes bytes in total against rule (an
 * index hp_suppress_match returned; -1 and out-of-range indices are
 * ignored). */
void hp_suppress_hit(struct hp_suppress *set, int rule, uint64_t count, uint64_t bytes);

/* Iterates the rules that suppressed something (hits > 0), in the order
 * they were added: start with after = -1, pass the previous answer, stop
 * at -1.
 *     for (int i = -1; (i = hp_suppress_next_used(set, i)) >= 0;)
 *             use(&set->rules[i]);
 */
int hp_suppress_next_used(const struct hp_suppress *set, int after);

/* LeakSanitizer's report of the rules used, into buf (capacity cap; 0 is
 * allowed with buf NULL):
 *
 *     -----------------------------------------------------
 *     Suppressions used:
 *       count      bytes template
 *           3        128 libfoo.so
 *     -----------------------------------------------------
 *
 * with "%7llu %10llu %s" rows and every line ending in '\n'.  Nothing
 * (length 0) when no rule was used.  Always NUL-terminated when cap > 0,
 * truncated to fit.  Returns the report's full length, excluding the NUL:
 * a result >= cap means it was truncated (as snprintf). */
size_t hp_suppress_format_report(const struct hp_suppress *set, char *buf, size_t cap);

/* The same report, one hp_log line per line of it at level (each then
 * starts with "<heapprof>: "; hp_log cuts lines past 1 KiB).  Nothing
 * when no rule was used. */
void hp_suppress_log_report(const struct hp_suppress *set, enum hp_log_level level);

#pragma GCC visibility pop

#endif
