/*
 * cmds.h -- the heapprof command's subcommands, dispatched by main.c:
 * hp_cmd_<name> in cmd_<name>.c (dump and toggle share cmd_ctl.c).  Each
 * takes its own argv (argv[0] is the subcommand's name) and returns the
 * exit status: 0 success, 1 failure, 2 usage.
 */
#ifndef HP_CLI_CMDS_H
#define HP_CLI_CMDS_H

#include <stddef.h>

int hp_cmd_run(int argc, char **argv);
int hp_cmd_ps(int argc, char **argv);
int hp_cmd_dump(int argc, char **argv);
/* toggle, pause and resume */
int hp_cmd_toggle(int argc, char **argv);
/* The reports on dumps; the work is src/report's (report.h, trend.h). */
int hp_cmd_report(int argc, char **argv);
int hp_cmd_trend(int argc, char **argv);

/* The heap profiles of running processes over HTTP (cmd_serve.c). */
int hp_cmd_serve(int argc, char **argv);

/* A tree of processes under the leak check (cmd_check.c). */
int hp_cmd_check(int argc, char **argv);

/* A usage error: "heapprof CMD: <message>" and "try 'heapprof CMD
 * --help'" on stderr (cmd NULL: the command itself).  Returns 2, the
 * status of usage errors (main.c). */
int hp_cmd_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Where libheapprof.so is (cmd_run.c).  0 when found. */
int hp_cmd_run_find_library(char *out, size_t cap);

/* For a program about to be exec'd: puts the library first in
 * LD_PRELOAD (keeping what is there) and appends conf, when not NULL or
 * empty, to HEAPPROF_CONF (so its keys win).  Returns 0, or 1 after
 * "heapprof WHO: cannot find libheapprof.so" (cmd_run.c). */
int hp_cmd_run_preload(const char *who, const char *conf);

#endif
