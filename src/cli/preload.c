/*
 * preload.c -- the library for programs about to be exec'd: where
 * libheapprof.so is, and the environment that loads it (LD_PRELOAD, with
 * the command's options in HEAPPROF_CONF).  For heapprof run and heapprof
 * check, which run programs under the library, and for the overview's
 * example (main.c).
 *
 * An ordinary program's code (stdio and malloc are fine here).  Calls
 * nothing of the command's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload.h"

#ifndef HEAPPROF_LIBDIR
#define HEAPPROF_LIBDIR "/usr/local/lib"
#endif

/* The library: $HEAPPROF_LIB, next to this command (a build tree), in
 * ../lib beside it (an install), or where make install put it. */
int hp_preload_find_library(char *out, size_t cap)
{
	char self[PATH_MAX];
	const char *env = getenv("HEAPPROF_LIB");

	if (env && *env) {
		snprintf(out, cap, "%s", env);
		return access(out, R_OK) == 0 ? 0 : -1;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = '\0';
			snprintf(out, cap, "%s/libheapprof.so", self);
			if (access(out, R_OK) == 0)
				return 0;
			/* The parent by name, not "bin/..": /proc/self/exe has
			 * no symbolic link left in it, and the path is printed
			 * (heapprof help) and preloaded, where the library
			 * finds this command again by it. */
			slash = strrchr(self, '/');
			if (slash) {
				snprintf(out, cap, "%.*s/lib/libheapprof.so", (int)(slash - self), self);
				if (access(out, R_OK) == 0)
					return 0;
			}
		}
	}
	snprintf(out, cap, "%s/libheapprof.so", HEAPPROF_LIBDIR);
	return access(out, R_OK) == 0 ? 0 : -1;
}

int hp_preload_env(const char *who, const char *conf)
{
	char lib[PATH_MAX];

	if (hp_preload_find_library(lib, sizeof(lib))) {
		fprintf(stderr, "heapprof %s: cannot find libheapprof.so (set HEAPPROF_LIB)\n", who);
		return 1;
	}
	const char *pre = getenv("LD_PRELOAD");
	char *preload = malloc(strlen(lib) + (pre ? strlen(pre) : 0) + 2);
	sprintf(preload, "%s%s%s", lib, pre && *pre ? " " : "", pre && *pre ? pre : "");
	setenv("LD_PRELOAD", preload, 1);
	free(preload);
	if (conf && *conf) {
		const char *hc = getenv("HEAPPROF_CONF");
		char *all = malloc(strlen(conf) + (hc ? strlen(hc) : 0) + 2);
		sprintf(all, "%s%s%s", hc && *hc ? hc : "", hc && *hc ? "," : "", conf);
		setenv("HEAPPROF_CONF", all, 1);
		free(all);
	}
	return 0;
}
