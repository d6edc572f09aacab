/*
 * cmd_run.c -- heapprof run: a program under the library.
 *
 * Owns the run directory's name.  Finds libheapprof.so, prepends it to
 * LD_PRELOAD, passes its own options and then -c options through
 * HEAPPROF_CONF (after any the caller already has: the later key wins)
 * and --config through HEAPPROF_CONFIG, then execs the program: its
 * output, its process ID and its exit status (a leak gate's included)
 * are the program's own.  The -c options are checked against the
 * library's table first (options.c): an unknown key or a value the
 * library would refuse is a usage error.  Its own options:
 *
 *     prof_prefix:<run directory>/%e   unless the user gave prof_prefix
 *     run_pid:<this process's ID>      the run's first process, which
 *                                      names the run directory at exit
 *     run_only_top:true                --only-top
 *     prof_programs:GLOB|GLOB          --programs
 *
 * The run directory, heapprof-run.<UTC time>.<pid>, is made in the
 * working directory when it is writable, else under $XDG_STATE_HOME/
 * heapprof; the library creates it at the first dump, so a run that
 * dumps nothing leaves nothing.  The environment itself is preload.c's
 * (heapprof check's too).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "binary.h"
#include "cmds.h"
#include "options.h"
#include "preload.h"
#include "usage.h"

#ifndef HEAPPROF_SYSCONFDIR
#define HEAPPROF_SYSCONFDIR "/etc"
#endif

static const char help_text[] =
	"usage: heapprof run [options] [--] COMMAND [ARG]...\n"
	"Runs COMMAND with heapprof preloaded (LD_PRELOAD, put first) and becomes it:\n"
	"its output, process ID and exit status are COMMAND's.  The dumps of the run,\n"
	"COMMAND's and those of the processes it starts, go to one new directory,\n"
	"./heapprof-run.<UTC time>.<pid>/ (under $XDG_STATE_HOME/heapprof when the\n"
	"working directory is not writable), named <program>.<pid>.<seq>...heap,\n"
	"unless prof_prefix is given; COMMAND's process names it at exit.\n"
	"\n"
	"  -c, --conf KEY:VALUE[,...]  library options, as in MALLOC_CONF (repeatable;\n"
	"                              they win over the environment and profiler.ini)\n"
	"  --config FILE               read FILE instead of the system's profiler.ini\n"
	"  --only-top                  profile only COMMAND's process (and the programs\n"
	"                              it execs in it, not its forks): the programs it\n"
	"                              starts run without heapprof\n"
	"  --programs GLOB[,GLOB...]   profile only the processes whose program's file\n"
	"                              name matches a GLOB (as heapprof check's)\n"
	"  -h, --help                  show this help\n"
	"\n"
	"A statically linked or set-user-ID COMMAND cannot be entered by LD_PRELOAD:\n"
	"a warning says so before it runs.  Options: profiler.ini(5).  See heapprof(1).\n";

/* Appends "item" to the comma-separated list *list. */
static void append(char **list, const char *item)
{
	size_t old = *list ? strlen(*list) : 0;

	*list = realloc(*list, old + strlen(item) + 2);
	sprintf(*list + old, "%s%s", old ? "," : "", item);
}

/* Whether key appears as a key in the MALLOC_CONF-style string s. */
static int conf_has(const char *s, const char *key)
{
	size_t k = strlen(key);

	for (const char *p = s; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
		p += strspn(p, " \t");
		if (!strncmp(p, key, k) && (p[k] == ':' || p[k] == '='))
			return 1;
	}
	return 0;
}

/* Whether the profiler.ini the program will read sets key. */
static int ini_has(const char *config, const char *key)
{
	char line[4096];
	const char *path = config ? config : getenv("HEAPPROF_CONFIG");
	int found = 0;
	size_t k = strlen(key);

	if (!path || !*path)
		path = HEAPPROF_SYSCONFDIR "/heapprof/profiler.ini";
	FILE *f = fopen(path, "re");
	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line + strspn(line, " \t");
		found = !strncmp(p, key, k) && p[k + strspn(p + k, " \t")] == '=';
	}
	fclose(f);
	return found;
}

static int user_gave(const char *conf, const char *config, const char *key)
{
	return conf_has(conf, key) || conf_has(getenv("HEAPPROF_CONF"), key) ||
	       conf_has(getenv("MALLOC_CONF"), key) || ini_has(config, key);
}

/* The directory the run directory goes in: the working directory when
 * writable, else $XDG_STATE_HOME/heapprof.  NULL (after a line) when
 * neither can be named in HEAPPROF_CONF. */
static char *run_dir_parent(void)
{
	char *cwd = getcwd(NULL, 0);

	if (cwd && access(cwd, W_OK | X_OK) == 0 && !strchr(cwd, ','))
		return cwd;
	free(cwd);
	const char *xdg = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *dir = NULL;
	int n = -1;
	if (xdg && xdg[0] == '/')
		n = asprintf(&dir, "%s/heapprof", xdg);
	else if (home && home[0] == '/')
		n = asprintf(&dir, "%s/.local/state/heapprof", home);
	if (n < 0)
		dir = NULL;
	if (dir && !strchr(dir, ','))
		return dir;
	fprintf(stderr, "heapprof run: no run directory (the working directory is not writable and "
		"$XDG_STATE_HOME or $HOME cannot hold one): dumps go to prof_prefix's default\n");
	free(dir);
	return NULL;
}

/* "prof_prefix:<parent>/heapprof-run.<time>.<pid>/%e", or NULL. */
static char *run_prefix(void)
{
	char stamp[32], *parent = run_dir_parent(), *opt = NULL;
	time_t now = time(NULL);
	struct tm tm;

	if (!parent)
		return NULL;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	if (asprintf(&opt, "prof_prefix:%s%sheapprof-run.%s.%d/%%e", parent,
		     parent[strlen(parent) - 1] == '/' ? "" : "/", stamp, (int)getpid()) < 0)
		opt = NULL;
	free(parent);
	return opt;
}

/* "prof_programs:A|B" from "A,B" (the library's list takes '|'). */
static char *programs_opt(const char *globs)
{
	char *opt = NULL;

	if (asprintf(&opt, "prof_programs:%s", globs) < 0)
		return NULL;
	for (char *p = opt; *p; p++)
		if (*p == ',')
			*p = '|';
	return opt;
}

/*
 * Python keeps its small objects in pymalloc's arenas, blocks it carves
 * itself: heapprof sees the arenas' allocations, not the objects.  One
 * line says how to see them, and changes nothing: the program's
 * environment and allocator are the user's.  Not when PYTHONMALLOC is set
 * (the user chose), nor inside heapprof check's tree, where nothing may
 * be printed but the programs' own (check's HEAPPROF_CONF, which every
 * process of the tree inherits, says leak_report:false).
 */
static void python_note(const char *cmd)
{
	const char *conf = getenv("HEAPPROF_CONF");

	if (getenv("PYTHONMALLOC") || (conf && strstr(conf, "leak_report:false")) ||
	    !hp_binary_python(cmd))
		return;
	fprintf(stderr, "heapprof run: %s is Python: its small objects live in pymalloc's arenas, which "
		"heapprof cannot see into; run it with PYTHONMALLOC=malloc to see them (heapprof(7))\n", cmd);
}

/* What the options build up, freed whatever way run() ends. */
struct lists {
	char *conf, *programs, *own, *prefix;
};

static int run(int argc, char **argv, struct lists *l)
{
	char item[64];
	const char *config = NULL;
	int i = 1, only_top = 0;

	for (; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "-c") || !strcmp(a, "--conf") || !strcmp(a, "--config") ||
		    !strcmp(a, "--programs")) {
			if (++i >= argc)
				return hp_usage_error("run", "option '%s' needs a value", a);
			if (!strcmp(a, "--config"))
				config = argv[i];
			else if (!strcmp(a, "--programs"))
				append(&l->programs, argv[i]);
			else
				append(&l->conf, argv[i]);
		} else if (!strncmp(a, "-c", 2) && a[2]) {
			append(&l->conf, a + 2);
		} else if (!strncmp(a, "--conf=", 7)) {
			append(&l->conf, a + 7);
		} else if (!strcmp(a, "--only-top")) {
			only_top = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(help_text, stdout);
			return 0;
		} else if (a[0] == '-') {
			return hp_usage_error("run", "unknown option '%s'", a);
		} else {
			break;
		}
	}
	if (i >= argc)
		return hp_usage_error("run", "no command to run");
	/* A typo the library would only warn about (prof_leak_eror:true)
	 * would switch a leak gate off: the caller's to fix. */
	if (l->conf && hp_options_check("run", l->conf))
		return 2;
	if (l->programs && strchr(l->programs, '|'))
		return hp_usage_error("run", "--programs: a pattern cannot hold '|'");
	hp_binary_warn("run", argv[i], "it will not be profiled");
	python_note(argv[i]);

	/* Ours first: the user's -c options come after them and win. */
	char *prefix = l->prefix = user_gave(l->conf, config, "prof_prefix") ? NULL : run_prefix();
	if (prefix)
		append(&l->own, prefix);
	if (prefix || only_top) {
		snprintf(item, sizeof(item), "run_pid:%d", (int)getpid());
		append(&l->own, item);
	}
	if (only_top)
		append(&l->own, "run_only_top:true");
	if (l->programs) {
		char *p = programs_opt(l->programs);
		append(&l->own, p);
		free(p);
	}
	if (l->conf)
		append(&l->own, l->conf);
	if (hp_preload_env("run", l->own))
		return 1;
	if (config)
		setenv("HEAPPROF_CONFIG", config, 1);
	execvp(argv[i], argv + i);
	int err = errno;
	fprintf(stderr, "heapprof run: cannot run '%s': %s\n", argv[i], strerror(err));
	return err == ENOENT ? 127 : 126;
}

int hp_cmd_run(int argc, char **argv)
{
	struct lists l = { 0 };
	int st = run(argc, argv, &l);

	free(l.conf);
	free(l.programs);
	free(l.own);
	free(l.prefix);
	return st;
}
