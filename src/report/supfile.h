/*
 * supfile.h -- heapprof check's reading of a LeakSanitizer-format
 * suppression file: the same grammar as the library's (leak:PATTERN a
 * line, '#' comments, '*' wildcards, '^' and '$' anchors; heapprof(7) and
 * src/lib/leak/suppress.h), read once in the command, so that
 *
 *   - a line that is not a suppression is said once, by check, before the
 *     run, rather than by every process of the tree at its exit;
 *   - a leak can be matched by the source files of its frames and the
 *     names of inlined functions, which only the command knows (it
 *     symbolizes with DWARF; the library names frames from symbol
 *     tables).
 *
 * An ordinary program: stdio and malloc.
 */
#ifndef HP_REPORT_SUPFILE_H
#define HP_REPORT_SUPFILE_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"

struct hp_supfile_rule {
	char *templ;		/* as written after "leak:", blanks and all */
	unsigned line;		/* 1-based */
};

struct hp_supfile {
	struct hp_supfile_rule *rules;
	size_t nrules, cap;
	size_t nbad;		/* lines that are not suppressions */
};

/*
 * Reads the file at path (at most 1 MiB, as the library) into *s (zeroed
 * by the caller).  Each line that is not a suppression is one line of
 * complaints, "PATH:LINE: not a suppression: 'TEXT' (expected
 * leak:PATTERN)", with a NUL byte shown as \0 and other control bytes but
 * tab as \xHH.  Returns NULL, or why the file cannot be read (strerror's
 * text, or "not a regular file", "larger than 1 MiB").
 */
const char *hp_supfile_read(struct hp_supfile *s, const char *path, struct hp_buf *complaints);

/* The first rule whose template matches subject as LeakSanitizer's
 * TemplateMatch does (src/lib/leak/suppress.h says how), or -1; NULL and
 * "" match nothing. */
int hp_supfile_match(const struct hp_supfile *s, const char *subject);

void hp_supfile_release(struct hp_supfile *s);

#endif
