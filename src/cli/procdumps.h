/*
 * procdumps.h -- which process wrote a dump, read from its name, for the
 * subcommands that must not mix processes' dumps silently (report, trend).
 *
 * Runs in the command only; reads names, never files.
 */
#ifndef HP_CLI_PROCDUMPS_H
#define HP_CLI_PROCDUMPS_H

#include <stddef.h>

/* A dump's name, <prefix>.<pid>.<seq>.<trigger>[.<time>].heap, cut into
 * the fields after the prefix: pid and pid_len, where "<prefix>.<pid>."
 * ends, and the trigger letter. */
struct hp_procdumps_name {
	const char *pid;
	size_t pid_len;
	size_t upto;		/* length of "<prefix>.<pid>." */
	char trigger;
};

/* Cuts dump's name into d.  Returns 0 when the name has that shape, -1
 * otherwise (d is then undefined). */
int hp_procdumps_parse(const char *dump, struct hp_procdumps_name *d);

/* Whether the n dumps come from one process (by the pid in their names; a
 * dump named otherwise is nobody's).  Returns 0, or 2 after one line on
 * standard error: "heapprof CMD: the WHAT come from N processes (pids
 * ...): HINT". */
int hp_procdumps_one_process(const char *cmd, char *const *dumps, size_t n, const char *what,
			     const char *hint);

#endif
