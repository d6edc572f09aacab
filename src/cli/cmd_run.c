/*
 * cmd_run.c -- heapprof run: a program under the library.
 *
 * Owns nothing.  Finds libheapprof.so, prepends it to LD_PRELOAD, passes
 * -c options through HEAPPROF_CONF (after any the caller already has: the
 * later key wins) and --config through HEAPPROF_CONFIG, then execs the
 * program: its output, and its exit status (a leak gate's included), are
 * the program's own.  hp_cmd_run_preload does the environment, for any
 * command that runs programs under the library (heapprof check too).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmds.h"

#ifndef HEAPPROF_LIBDIR
#define HEAPPROF_LIBDIR "/usr/local/lib"
#endif

/* The library: $HEAPPROF_LIB, next to this command (a build tree), in
 * ../lib beside it (an install), or where make install put it. */
int hp_cmd_run_find_library(char *out, size_t cap)
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
			snprintf(out, cap, "%s/../lib/libheapprof.so", self);
			if (access(out, R_OK) == 0)
				return 0;
		}
	}
	snprintf(out, cap, "%s/libheapprof.so", HEAPPROF_LIBDIR);
	return access(out, R_OK) == 0 ? 0 : -1;
}

int hp_cmd_run_preload(const char *who, const char *conf)
{
	char lib[PATH_MAX];

	if (hp_cmd_run_find_library(lib, sizeof(lib))) {
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

static void run_usage(FILE *out)
{
	fputs("usage: heapprof run [-c key:value[,key:value...]]... [--config FILE] [--] COMMAND [ARGS...]\n", out);
}

int hp_cmd_run(int argc, char **argv)
{
	char *conf = NULL;
	const char *config = NULL;
	int i = 1;

	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "--conf")) {
			if (++i >= argc)
				goto usage;
			size_t old = conf ? strlen(conf) : 0;
			conf = realloc(conf, old + strlen(argv[i]) + 2);
			sprintf(conf + old, "%s%s", old ? "," : "", argv[i]);
		} else if (!strncmp(a, "-c", 2) && a[2]) {
			size_t old = conf ? strlen(conf) : 0;
			conf = realloc(conf, old + strlen(a + 2) + 2);
			sprintf(conf + old, "%s%s", old ? "," : "", a + 2);
		} else if (!strcmp(a, "--config")) {
			if (++i >= argc)
				goto usage;
			config = argv[i];
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			run_usage(stdout);
			return 0;
		} else if (a[0] == '-') {
			fprintf(stderr, "heapprof run: unknown option '%s'\n", a);
			goto usage;
		} else {
			break;
		}
	}
	if (i >= argc)
		goto usage;
	if (hp_cmd_run_preload("run", conf))
		return 1;
	if (config)
		setenv("HEAPPROF_CONFIG", config, 1);
	execvp(argv[i], argv + i);
	int err = errno;
	fprintf(stderr, "heapprof run: cannot run '%s': %s\n", argv[i], strerror(err));
	return err == ENOENT ? 127 : 126;
usage:
	run_usage(stderr);
	return 2;
}
