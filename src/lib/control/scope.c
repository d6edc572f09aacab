/*
 * scope.c -- which processes profile (see scope.h).
 *
 * Owns nothing.  Runs once, in the constructor, before the program's
 * main: the environment it edits is still the one the kernel gave (or a
 * constructor before ours set), and nothing has copied it yet.  No
 * allocation: LD_PRELOAD is shortened in place.
 */
#include <fnmatch.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/sandbox.h"
#include "conf/conf.h"
#include "conf/inifile.h"
#include "control/scope.h"
#include "base/banned.h"

extern char **environ;

/* Whether an LD_PRELOAD entry (len bytes at p) is heapprof. */
static bool is_heapprof(const char *p, size_t len)
{
	const char *base = p;

	for (size_t i = 0; i < len; i++)
		if (p[i] == '/')
			base = p + i + 1;
	size_t blen = len - (size_t)(base - p);
	return blen >= 11 && !memcmp(base, "libheapprof", 11);
}

/* Removes heapprof's entries from LD_PRELOAD (separated by spaces or
 * colons, as ld.so reads it), keeping the others in order. */
static void leave_preload(void)
{
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "LD_PRELOAD=", 11))
			continue;
		char *w = *e + 11;
		const char *r = w;
		bool first = true;
		while (*r) {
			r += strspn(r, " :");
			size_t len = strcspn(r, " :");
			if (!len)
				break;
			if (!is_heapprof(r, len)) {
				if (!first)
					*w++ = ' ';
				memmove(w, r, len);   /* w never passes r */
				w += len;
				first = false;
			}
			r += len;
		}
		*w = '\0';
	}
}

/* Whether the program's file name matches one of the '|'-separated
 * patterns. */
static bool program_matches(const char *patterns)
{
	const char *prog = hp_inifile_program();
	char pat[HP_CONF_STR_MAX];

	for (const char *p = patterns;;) {
		size_t len = strcspn(p, "|");
		if (len && len < sizeof(pat)) {
			memcpy(pat, p, len);
			pat[len] = '\0';
			if (!fnmatch(pat, prog, 0))
				return true;
		}
		if (!p[len])
			return false;
		p += len + 1;
	}
}

bool hp_scope_fork_profiles(void)
{
	if (!hp_conf.run_only_top || !hp_conf.run_pid || hp_sandbox_getpid() == (pid_t)hp_conf.run_pid)
		return true;
	leave_preload();
	hp_log(HP_LOG_DEBUG, "not profiling: run_only_top, and this fork of process %d is not it",
	       (int)hp_conf.run_pid);
	return false;
}

bool hp_scope_profiles(void)
{
	if (hp_conf.run_only_top && hp_conf.run_pid && getpid() != (pid_t)hp_conf.run_pid) {
		leave_preload();
		hp_log(HP_LOG_DEBUG, "not profiling: run_only_top, and this is not process %d; heapprof "
		       "is out of LD_PRELOAD for the programs this one starts", (int)hp_conf.run_pid);
		return false;
	}
	if (hp_conf.prof_programs[0] && !program_matches(hp_conf.prof_programs)) {
		hp_log(HP_LOG_DEBUG, "not profiling: %s does not match prof_programs (%s)",
		       hp_inifile_program(), hp_conf.prof_programs);
		return false;
	}
	return true;
}
