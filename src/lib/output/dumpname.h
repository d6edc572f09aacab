/*
 * dumpname.h -- where dumps go: names, directories and retention.
 *
 * A dump is named
 *     <prefix>.<pid>.<seq>.<letter><n>.<UTC YYYYMMDDTHHMMSSZ>.heap
 * e.g. app.4242.7.s2.20261122T101530Z.heap, where seq counts every dump of
 * the process and n the dumps of that trigger; the final dump has no n
 * ("app.4242.9.f.20261122T101544Z.heap").  The prefix may hold a
 * directory (created, mode 0700, when missing) and the placeholders %p
 * (pid), %e (program name), %h (host name) and %%.
 *
 * Retention keeps, of each trigger letter (kind) apart, the newest
 * dump_keep files of the process's own dumps under the prefix (those of
 * its pid written since its first dump), and at most dump_keep_bytes
 * bytes of them all, kinds together.  The first dump of each kind, the
 * base every diff and trend of that series needs, is never deleted, nor
 * the dump just written.  Another process's dumps, running or
 * ended, are never deleted (a tree of 121 processes keeps its 121 final
 * dumps), nor those of an earlier process the pid belonged to.  Only
 * regular files whose names match the prefix and the pattern above are
 * ever deleted.
 */
#ifndef HP_DUMPNAME_H
#define HP_DUMPNAME_H

#include <stddef.h>
#include <stdint.h>

/* Expands the prefix's placeholders.  Returns the length, or 0 if the
 * result does not fit. */
size_t hp_dumpname_expand(const char *prefix, char *out, size_t cap);

/* Creates the directories of path's dirname (mode 0700).  Returns 0 or
 * an errno value. */
int hp_dumpname_mkdirs(const char *path);

/* Builds the next name for trigger letter into out.  Its time never goes
 * back: after the clock steps back, names keep the last name's time
 * (one warning) until the clock catches up.  Thread-safe.  Returns 0, or
 * ENAMETOOLONG. */
int hp_dumpname_next(const char *prefix, char letter, char *out, size_t cap);

/* Applies dump_keep (per kind) and dump_keep_bytes (all kinds) to this
 * process's dumps in the prefix's directory; never deletes just_written,
 * the first dump of a kind, nor another process's dumps.  Returns the
 * number of files deleted. */
unsigned hp_dumpname_rotate(const char *prefix, int64_t keep, int64_t keep_bytes,
			    const char *just_written);

/* At the exit of the process heapprof run ran (run_pid): one line naming
 * the directory of prof_prefix, where the run's dumps are, when the prefix
 * is absolute and the directory exists (the first dump made it). */
void hp_dumpname_run_note(void);

/* In a fork child: its dumps are its own from its first. */
void hp_dumpname_postfork_child(void);

#endif
